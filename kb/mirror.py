"""MirrorKB: the KnowledgeBase over a local mirror (``store``).

The triplet query is the hot path (median ≤ 20 µs is a target): it runs one SQL statement
on the raw DB-API connection and builds the statements without further queries unless a
row has qualifiers or references (only rows loaded from JSON dumps can).
"""

from __future__ import annotations

import math
import re
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import orjson

from kb.base import check_triplet_query, property_info_from
from kb.ranking import PRIOR_WEIGHT, exact_kind, match_score, prior, search_key
from kb.types import (RANK_NAMES, Candidate, Citation, Entity, PropertyInfo, Reference, Snak,
                      SparqlResult, SparqlStream, Statement, Value, ValueKind, is_live,
                      pick_text)
from store.errors import EntityNotFound, MirrorError, PropertyNotFound
from store.mirror import Mirror
from store.vocab import (DESCRIPTION, ENTITY_ID, LABEL, LEXEME_ID, TERM_KIND_NAMES, check_id,
                         check_property)
from store.wikidata_json import decode_snaks, snak_value

if TYPE_CHECKING:
    from kb.mirror_linking import MirrorLinking

_WORDS = re.compile(r"[^\W_]+")
_STATEMENT_COLS = ("SELECT id, sid, subject, property, rank, value_kind, value, lang, "
                   "datatype, details, source_id FROM statements")


def _value(kind: str, value: str, lang: str, datatype: str, details: str | None) -> Value:
    # ``kind`` is a stored value_kind: the writer stores only ValueKind's names
    return Value(cast(ValueKind, kind), value, lang, datatype,
                 orjson.loads(details) if details else None)


def value_filter(value: str | Value) -> tuple[str, list[Any]]:
    """SQL condition and parameters that match statements (or qualifiers) by value."""
    if isinstance(value, Value):
        return ("value = ? AND value_kind = ? AND lang = ? AND datatype = ?",
                [value.value, value.kind, value.lang, value.datatype])
    if isinstance(value, str) and (ENTITY_ID.match(value) or LEXEME_ID.match(value)):
        return "value = ? AND value_kind = 'entity'", [value]
    checked = check_id(value, what="a value (an entity ID, an IRI, or a kb.Value)")
    return "value = ? AND value_kind IN ('entity', 'iri')", [checked]


class MirrorKB:
    """A KnowledgeBase over a local mirror file (or database URL).

    ``MirrorKB(path)`` opens an existing mirror; ``MirrorKB(mirror=Mirror(...))`` wraps an
    open one. Citations name the source file each statement was loaded from.
    """

    def __init__(self, location: str | Path | None = None, *, mirror: Mirror | None = None):
        if mirror is None:
            if location is None:
                raise ValueError("MirrorKB needs a location or a Mirror")
            mirror = Mirror(location)
        self.mirror = mirror
        self.name = f"mirror:{mirror.location}"
        if mirror.get_meta("indexed") == "0":
            from store.locks import holder
            pid = holder(mirror)
            if pid is not None:
                raise MirrorError(f"a load (pid {pid}) is building {mirror.location} now; "
                                  "it can be read once the load has finished",
                                  fix="wait for the load to finish")
            raise MirrorError(f"the last load into {mirror.location} did not finish",
                              fix="run the same `kgground mirror load` command again; "
                                  "it resumes where it stopped")
        if mirror.stale_label_index:
            raise MirrorError(f"the label index of {mirror.location} was built by an older "
                              "kgground, so searches would miss",
                              fix=f"reindex it (kgground mirror reindex --db "
                                  f"{mirror.location})")
        self._sources: dict[int | None, tuple[str, str | None, str | None]] = {}
        self._priors: tuple[float, float] | None = None
        self._lock = threading.Lock()

    def close(self) -> None:
        self.mirror.close()

    def linking(self, *, index_path: str | Path | None = None,
                progress: Any = None) -> MirrorLinking:
        """The fast ``kb.linking.LinkingKB`` over this mirror (``kb.mirror_linking``);
        ``index_path`` overrides where its sidecar lives, ``progress`` hears its build."""
        from kb.mirror_linking import MirrorLinking
        return MirrorLinking(self, index_path=index_path, progress=progress)

    def __repr__(self) -> str:
        return f"MirrorKB({self.mirror.location!r})"

    # -- entities ---------------------------------------------------------------------------
    def entity(self, id: str) -> Entity:
        id = check_id(id)
        q = self.mirror.query
        row = q("SELECT kind, datatype, sitelinks FROM entities WHERE id = ?", (id,))
        terms = q("SELECT kind, lang, text, source_id FROM terms WHERE entity = ? ORDER BY id",
                  (id,))
        if not row and not terms:
            raise EntityNotFound(id, kb=self.name)
        labels: dict[str, str] = {}
        descriptions: dict[str, str] = {}
        aliases: dict[str, list[str]] = {}
        live: dict[tuple[str, str, str], tuple[str, str | None]] = {}
        for kind, lang, text, source_id in terms:
            if kind == LABEL:
                if labels.setdefault(lang, text) != text:
                    continue
            elif kind == DESCRIPTION:
                if descriptions.setdefault(lang, text) != text:
                    continue
            else:
                aliases.setdefault(lang, []).append(text)
            source, loaded_at, _ = self._source(source_id)
            if is_live(source):          # written back from a live endpoint
                live[(TERM_KIND_NAMES[kind], lang, text)] = (source, loaded_at)
        kind, datatype, sitelinks = row[0] if row else ("item", None, 0)
        return Entity(id, labels, descriptions, {k: tuple(v) for k, v in aliases.items()},
                      kind=kind, datatype=datatype, sitelinks=sitelinks, source=self.name,
                      term_sources=live)

    def property_info(self, pid: str) -> PropertyInfo:
        pid = check_property(pid)
        try:
            return property_info_from(self.entity(pid), pid, self.name)
        except EntityNotFound:
            raise PropertyNotFound(pid, kb=self.name) from None

    # -- the triplet query ------------------------------------------------------------------
    def statements(self, subject: str | None = None, property: str | None = None,
                   value: str | Value | None = None, *, limit: int = 100) -> list[Statement]:
        check_triplet_query(subject, property, value, limit)
        where, params = ["rank > 0"], []
        if subject is not None:
            where.append("subject = ?")
            params.append(check_id(subject))
        if property is not None:
            where.append("property = ?")
            params.append(check_property(property))
        if value is not None:
            cond, vparams = value_filter(value)
            where.append(cond)
            params.extend(vparams)
        # Preferred statements first. Sorting in SQL costs a temporary B-tree on every call,
        # so sort here, and only ask SQL to order when the limit may have cut the answer.
        sql = f"{_STATEMENT_COLS} WHERE {' AND '.join(where)}"
        rows = self.mirror.query(f"{sql} LIMIT ?", params + [limit])
        if len(rows) == limit:
            rows = self.mirror.query(f"{sql} ORDER BY rank DESC, id LIMIT ?", params + [limit])
        elif len(rows) > 1:
            rows.sort(key=lambda r: (-r[4], r[0]))
        return self._statements_from_rows(rows)

    def _statements_from_rows(self, rows: list[tuple]) -> list[Statement]:
        quals: dict[int, list[Snak]] = {}
        refs: dict[int, list[Reference]] = {}
        revisions: dict[str, int | None] = {}
        with_parts = [r[0] for r in rows if r[1]]   # only JSON-loaded rows have a sid
        if with_parts:
            quals, refs = self._parts(with_parts)
            subjects = sorted({r[2] for r in rows if r[1]})
            revisions = dict(self.mirror.query(
                f"SELECT id, revision FROM entities WHERE id IN "
                f"({','.join('?' * len(subjects))})", subjects))
        out = []
        for (rid, sid, subj, prop, rank, vkind, val, lang, dtype, details, src) in rows:
            v = Value(vkind, val, lang, dtype, orjson.loads(details) if details else None)
            location, loaded_at, dump_date = self._source(src)
            out.append(Statement(
                subj, prop, v, RANK_NAMES[rank], sid or None,
                tuple(quals.get(rid, ())), tuple(refs.get(rid, ())),
                Citation(subj, prop, v, location, loaded_at, sid or None, dump_date,
                         revisions.get(subj))))
        return out

    def _parts(self, ids: list[int]) -> tuple[dict[int, list[Snak]], dict[int, list[Reference]]]:
        marks = ",".join("?" * len(ids))
        quals: dict[int, list[Snak]] = {}
        for sid, prop, kind, val, lang, dtype, details in self.mirror.query(
                "SELECT statement_id, property, value_kind, value, lang, datatype, details "
                f"FROM qualifiers WHERE statement_id IN ({marks}) ORDER BY statement_id, ord",
                ids):
            quals.setdefault(sid, []).append(Snak(prop, _value(kind, val, lang, dtype, details)))
        refs: dict[int, list[Reference]] = {}
        for sid, rhash, snaks in self.mirror.query(
                "SELECT statement_id, hash, snaks FROM statement_references "
                "JOIN reference_snaks USING (hash) "
                f"WHERE statement_id IN ({marks}) ORDER BY statement_id, ord", ids):
            parsed = [Snak(pid, _value(*snak_value(snak)))
                      for pid, group in decode_snaks(snaks).items() for snak in group]
            refs.setdefault(sid, []).append(Reference(tuple(parsed), rhash))
        return quals, refs

    def _source(self, source_id: int | None) -> tuple[str, str | None, str | None]:
        found = self._sources.get(source_id)
        if found is None:
            rows = self.mirror.query(
                "SELECT location, loaded_at, dump_date FROM sources WHERE id = ?", (source_id,))
            location, loaded_at, dump_date = rows[0] if rows else ("unknown", None, None)
            prefix = "sparql:" if location.startswith(("http://", "https://")) else "mirror:"
            found = self._sources[source_id] = (prefix + location, loaded_at, dump_date)
        return found

    # -- search -----------------------------------------------------------------------------
    def search(self, text: str, *, lang: str = "en", limit: int = 10) -> list[Candidate]:
        norm = search_key(text, limit)
        if norm is None:
            return []
        q = self.mirror.query
        max_links, max_degree = self._prior_scale()
        # entity → (match score, prior, how, (matched text, its language, its source)); a
        # prefix match holds its term's row id instead, read for the winners only
        best: dict[str, tuple[float, float, str, tuple[str, str, int | None] | int]] = {}

        def consider(entity: str, how: str, tnorm: str, links: int | None,
                     degree: int | None, matched: tuple[str, str, int | None] | int) -> None:
            score = match_score(how, norm, tnorm)
            if score > best.get(entity, (-1.0,))[0]:
                best[entity] = (score, prior(links, degree, max_links, max_degree), how, matched)

        # Candidates with their popularity; exact matches most popular first.
        cols = ("SELECT t.entity, t.kind, t.lang, t.text, t.norm, e.sitelinks, e.degree, "
                "t.source_id FROM terms t LEFT JOIN entities e ON e.id = t.entity")
        for entity, kind, tlang, ttext, tnorm, links, degree, src in q(
                f"{cols} WHERE t.norm = ? ORDER BY e.sitelinks DESC, e.degree DESC LIMIT ?",
                (norm, 20 * limit)):
            consider(entity, exact_kind(kind == LABEL, tlang, lang), tnorm, links, degree,
                     (ttext, tlang, src))
        if len(best) < limit:
            # read from the (norm, entity) index alone: the terms rows are scattered
            score = match_score("prefix", norm, norm)      # the same for every prefix
            for entity, row, links, degree in q(
                    "SELECT t.entity, t.id, e.sitelinks, e.degree FROM terms t "
                    "LEFT JOIN entities e ON e.id = t.entity WHERE t.norm > ? AND t.norm < ? "
                    "LIMIT ?", (norm, norm + "\U0010ffff", 3 * limit)):
                if score > best.get(entity, (-1.0,))[0]:
                    best[entity] = (score, prior(links, degree, max_links, max_degree),
                                    "prefix", row)
        # Word matches only when nothing matched whole: they cost as much as the rest.
        if not best and self.mirror.is_sqlite:
            # whole words only: an FTS prefix query ("adams"*) costs twice as much, and
            # prefixes of whole labels are covered by the range query above
            # the index's tokenizer (unicode61) splits at every character that is not a
            # letter or digit: split the same way, so that each quoted token is one word
            # (a token with a separator inside is a phrase, which the index cannot match)
            match = " ".join(f'"{t}"' for t in _WORDS.findall(norm))
            for entity, _kind, tlang, ttext, tnorm, links, degree, src in q(
                    f"{cols} JOIN terms_fts f ON t.id = f.rowid WHERE terms_fts MATCH ? "
                    "LIMIT ?", (match, 5 * limit)):
                consider(entity, "token", tnorm, links, degree, (ttext, tlang, src))
        if not best:
            return []
        top = sorted(best, key=lambda e: (-(best[e][0] + PRIOR_WEIGHT * best[e][1]), e))[:limit]
        rows = [m for m in (best[e][3] for e in top) if isinstance(m, int)]
        matched_by_row = {row: (ttext, tlang, src) for row, ttext, tlang, src in q(
            f"SELECT id, text, lang, source_id FROM terms WHERE id IN "
            f"({','.join('?' * len(rows))})", rows)} if rows else {}
        names: dict[str, dict[int, dict[str, str]]] = {}
        # a range of kinds (aliases, ALIAS, come after it): with "kind IN (…)" SQLite reads
        # every term of each entity
        for eid, kind, tlang, ttext in q(
                f"SELECT entity, kind, lang, text FROM terms WHERE entity IN "
                f"({','.join('?' * len(top))}) AND kind BETWEEN {LABEL} AND {DESCRIPTION}",
                top):
            names.setdefault(eid, {}).setdefault(kind, {}).setdefault(tlang, ttext)
        out = []
        for eid in top:
            score, pop, how, matched = best[eid]
            matched_text, mlang, src = (matched_by_row[matched] if isinstance(matched, int)
                                        else matched)
            source, retrieved_at, _ = self._source(src)
            if not is_live(source):         # a loaded file's name: the mirror answers
                source, retrieved_at = self.name, None
            terms = names.get(eid, {})      # picked as Entity.label/description pick them
            out.append(Candidate(eid, pick_text(terms.get(LABEL, {}), lang) or eid,
                                 score + PRIOR_WEIGHT * pop, pop, matched_text,
                                 how.replace("-other", ""), mlang,
                                 pick_text(terms.get(DESCRIPTION, {}), lang),
                                 {"match": score, "prior": pop}, source, retrieved_at))
        return out

    def _prior_scale(self) -> tuple[float, float]:
        """log1p of the largest sitelink count and degree, to put priors in [0, 1]."""
        if self._priors is None:
            links, degree = self.mirror.query(
                "SELECT COALESCE(MAX(sitelinks), 0), COALESCE(MAX(degree), 0) FROM entities")[0]
            self._priors = (math.log1p(links), math.log1p(degree))
        return self._priors

    # -- SPARQL -----------------------------------------------------------------------------
    def sparql(self, query: str, *, timeout: float | None = None) -> SparqlResult:
        from store.sparql import run as run_sparql     # the SPARQL engine loads on first use
        return SparqlResult.from_answer(run_sparql(self.mirror, query, timeout=timeout),
                                        self.name)

    def sparql_stream(self, query: str, *, timeout: float | None = None) -> SparqlStream:
        """``query``'s answer as a ``kb.types.SparqlStream``: a SELECT's rows one by one as
        SQLite produces them (for the command line's bounded memory)."""
        from store.sparql import run as run_sparql
        return SparqlStream.from_answer(run_sparql(self.mirror, query, timeout=timeout,
                                                   stream=True), self.name)

