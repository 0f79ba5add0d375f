"""MirrorKB: the KnowledgeBase over a local mirror (``store``).

Its reads are ``store.kb_queries.KbQueries`` (SQL lives in store/), its SPARQL is the
engine's entry point ``store.sparql.run``; this module turns their rows into the KB's
types. The triplet query is the hot path (median ≤ 20 µs is a target): one SQL statement,
and the statements built without further queries unless a row has qualifiers or
references (only rows loaded from JSON dumps can).
"""

from __future__ import annotations

import math
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
from store.kb_queries import ExactValue, KbQueries
from store.mirror import Mirror
from store.vocab import DESCRIPTION, LABEL, TERM_KIND_NAMES, check_id, check_property
from store.wikidata_json import decode_snaks, snak_value

if TYPE_CHECKING:
    from kb.mirror_linking import MirrorLinking


def _value(kind: str, value: str, lang: str, datatype: str, details: str | None) -> Value:
    # ``kind`` is a stored value_kind: the writer stores only ValueKind's names
    return Value(cast(ValueKind, kind), value, lang, datatype,
                 orjson.loads(details) if details else None)


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
        self.queries = KbQueries(mirror)
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
        row = self.queries.entity_row(id)
        terms = self.queries.entity_terms(id)
        if row is None and not terms:
            raise EntityNotFound(id, kb=self.name)
        labels: dict[str, str] = {}
        descriptions: dict[str, str] = {}
        aliases: dict[str, list[str]] = {}
        live: dict[tuple[str, str, str], tuple[str, str | None]] = {}
        for term_kind, lang, text, source_id in terms:
            if term_kind == LABEL:
                if labels.setdefault(lang, text) != text:
                    continue
            elif term_kind == DESCRIPTION:
                if descriptions.setdefault(lang, text) != text:
                    continue
            else:
                aliases.setdefault(lang, []).append(text)
            source, loaded_at, _ = self._source(source_id)
            if is_live(source):          # written back from a live endpoint
                live[(TERM_KIND_NAMES[term_kind], lang, text)] = (source, loaded_at)
        kind, datatype, sitelinks = row if row is not None else ("item", None, 0)
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
        rows = self.queries.statements(
            check_id(subject) if subject is not None else None,
            check_property(property) if property is not None else None,
            ExactValue(value.value, value.kind, value.lang, value.datatype)
            if isinstance(value, Value) else value, limit)
        return self._statements_from_rows(rows)

    def _statements_from_rows(self, rows: list[tuple]) -> list[Statement]:
        quals: dict[int, list[Snak]] = {}
        refs: dict[int, list[Reference]] = {}
        revisions: dict[str, int | None] = {}
        with_parts = [r[0] for r in rows if r[1]]   # only JSON-loaded rows have a sid
        if with_parts:
            quals, refs = self._parts(with_parts)
            subjects = sorted({r[2] for r in rows if r[1]})
            revisions = self.queries.revisions(subjects)
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
        quals: dict[int, list[Snak]] = {}
        for sid, prop, kind, val, lang, dtype, details in self.queries.qualifiers(ids):
            quals.setdefault(sid, []).append(Snak(prop, _value(kind, val, lang, dtype, details)))
        refs: dict[int, list[Reference]] = {}
        for sid, rhash, snaks in self.queries.references(ids):
            parsed = [Snak(pid, _value(*snak_value(snak)))
                      for pid, group in decode_snaks(snaks).items() for snak in group]
            refs.setdefault(sid, []).append(Reference(tuple(parsed), rhash))
        return quals, refs

    def _source(self, source_id: int | None) -> tuple[str, str | None, str | None]:
        found = self._sources.get(source_id)
        if found is None:
            location, loaded_at, dump_date = (self.queries.source(source_id)
                                              or ("unknown", None, None))
            prefix = "sparql:" if location.startswith(("http://", "https://")) else "mirror:"
            found = self._sources[source_id] = (prefix + location, loaded_at, dump_date)
        return found

    # -- search -----------------------------------------------------------------------------
    def search(self, text: str, *, lang: str = "en", limit: int = 10) -> list[Candidate]:
        norm = search_key(text, limit)
        if norm is None:
            return []
        queries = self.queries
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
        for entity, kind, tlang, ttext, tnorm, links, degree, src in queries.exact_terms(
                norm, 20 * limit):
            consider(entity, exact_kind(kind == LABEL, tlang, lang), tnorm, links, degree,
                     (ttext, tlang, src))
        if len(best) < limit:
            score = match_score("prefix", norm, norm)      # the same for every prefix
            for entity, row, links, degree in queries.prefix_terms(norm, 3 * limit):
                if score > best.get(entity, (-1.0,))[0]:
                    best[entity] = (score, prior(links, degree, max_links, max_degree),
                                    "prefix", row)
        # Word matches only when nothing matched whole: they cost as much as the rest.
        if not best:
            for entity, _kind, tlang, ttext, tnorm, links, degree, src in queries.word_terms(
                    norm, 5 * limit):
                consider(entity, "token", tnorm, links, degree, (ttext, tlang, src))
        if not best:
            return []
        top = sorted(best, key=lambda e: (-(best[e][0] + PRIOR_WEIGHT * best[e][1]), e))[:limit]
        rows = [m for m in (best[e][3] for e in top) if isinstance(m, int)]
        matched_by_row = queries.terms_by_row(rows)
        names: dict[str, dict[int, dict[str, str]]] = {}
        for eid, kind, tlang, ttext in queries.names(top):
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
            links, degree = self.queries.popularity_scale()
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

