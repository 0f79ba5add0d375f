"""The SQL behind ``kb.mirror.MirrorKB`` (and ``kb.fallback.FallbackKB``'s mirror side).

``KbQueries(mirror)`` answers what the ``KnowledgeBase`` methods ask of a mirror, in plain
tuples (the kb layer wraps them in its types): an entity's row and terms, the triplet
query's statement rows with their qualifiers, references and revisions, a source's
description, and the candidate terms a search ranks. Every function reads; none writes.
IDs are checked by the caller (``store.vocab.check_id``) before they come here.

The triplet query is the hot path (median ≤ 20 µs is a target): one SQL statement on the
raw DB-API connection (``Mirror.query``), sorted in Python unless the limit may have cut
the answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from store.mirror import Mirror
from store.vocab import DESCRIPTION, ENTITY_ID, LABEL, LEXEME_ID, check_id

#: (id, sid, subject, property, rank, value_kind, value, lang, datatype, details,
#: source_id): a statement row, as ``statements`` returns it
StatementRow = tuple[int, str | None, str, str, int, str, str, str, str, str | None, int | None]
#: (entity, kind, lang, text, norm, sitelinks, degree, source_id): a term ``search`` weighs
TermRow = tuple[str, int, str, str, str, int | None, int | None, int | None]

_STATEMENT_COLS = ("SELECT id, sid, subject, property, rank, value_kind, value, lang, "
                   "datatype, details, source_id FROM statements")
_TERM_COLS = ("SELECT t.entity, t.kind, t.lang, t.text, t.norm, e.sitelinks, e.degree, "
              "t.source_id FROM terms t LEFT JOIN entities e ON e.id = t.entity")
_WORDS = re.compile(r"[^\W_]+")


@dataclass(frozen=True, slots=True)
class ExactValue:
    """A value matched exactly: all four columns of a statement's value."""
    value: str
    kind: str
    lang: str
    datatype: str


def _marks(n: int) -> str:
    return ",".join("?" * n)


def value_filter(value: object) -> tuple[str, list[Any]]:
    """SQL condition and parameters that match statements (or qualifiers) by value: an
    ``ExactValue``; an entity ID (entities only); or any other ID or IRI, matched as an
    entity or an IRI (anything else: InvalidId)."""
    if isinstance(value, ExactValue):
        return ("value = ? AND value_kind = ? AND lang = ? AND datatype = ?",
                [value.value, value.kind, value.lang, value.datatype])
    if isinstance(value, str) and (ENTITY_ID.match(value) or LEXEME_ID.match(value)):
        return "value = ? AND value_kind = 'entity'", [value]
    checked = check_id(value, what="a value (an entity ID, an IRI, or a kb.Value)")
    return "value = ? AND value_kind IN ('entity', 'iri')", [checked]


class KbQueries:
    """The reads of a KnowledgeBase over ``mirror`` (see the module docstring)."""

    def __init__(self, mirror: Mirror):
        self.mirror = mirror

    # -- entities ---------------------------------------------------------------------------
    def entity_row(self, id: str) -> tuple[str, str | None, int] | None:
        """(kind, datatype, sitelinks) of ``id``'s row in ``entities``, None without one."""
        rows = self.mirror.query("SELECT kind, datatype, sitelinks FROM entities WHERE id = ?",
                                 (id,))
        return rows[0] if rows else None

    def entity_terms(self, id: str) -> list[tuple[int, str, str, int | None]]:
        """(kind, lang, text, source_id) of every term of ``id``, in the order loaded."""
        return self.mirror.query("SELECT kind, lang, text, source_id FROM terms "
                                 "WHERE entity = ? ORDER BY id", (id,))

    def source_formats(self, id: str) -> set[str]:
        """The formats (``sources.format``: 'live', 'ntriples', ...) of the sources
        ``id``'s terms came from."""
        return {f for (f,) in self.mirror.query(
            "SELECT DISTINCT s.format FROM terms t JOIN sources s ON s.id = t.source_id "
            "WHERE t.entity = ?", (id,))}

    def source(self, source_id: int | None) -> tuple[str, str | None, str | None] | None:
        """(location, loaded_at, dump_date) of a source, None if there is no such one."""
        rows = self.mirror.query(
            "SELECT location, loaded_at, dump_date FROM sources WHERE id = ?", (source_id,))
        return rows[0] if rows else None

    # -- the triplet query ------------------------------------------------------------------
    def statements(self, subject: str | None, property: str | None,
                   value: object, limit: int) -> list[StatementRow]:
        """At most ``limit`` statement rows matching the given parts (None: any; ``value``
        as ``value_filter`` reads it), deprecated ones left out, preferred ones first, then
        in load order."""
        where, params = ["rank > 0"], []
        if subject is not None:
            where.append("subject = ?")
            params.append(subject)
        if property is not None:
            where.append("property = ?")
            params.append(property)
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
        return rows

    def revisions(self, subjects: Sequence[str]) -> dict[str, int | None]:
        """Entity → the revision of its entity record (loaded from a JSON dump)."""
        return dict(self.mirror.query(
            f"SELECT id, revision FROM entities WHERE id IN ({_marks(len(subjects))})",
            subjects))

    def qualifiers(self, ids: Sequence[int]) -> list[tuple]:
        """(statement_id, property, value_kind, value, lang, datatype, details) of the
        qualifiers of the statements ``ids`` (row ids), by statement, in their order."""
        return self.mirror.query(
            "SELECT statement_id, property, value_kind, value, lang, datatype, details "
            f"FROM qualifiers WHERE statement_id IN ({_marks(len(ids))}) "
            "ORDER BY statement_id, ord", ids)

    def references(self, ids: Sequence[int]) -> list[tuple[int, str, str]]:
        """(statement_id, hash, snaks as stored) of the references of the statements
        ``ids`` (row ids), by statement, in their order."""
        return self.mirror.query(
            "SELECT statement_id, hash, snaks FROM statement_references "
            "JOIN reference_snaks USING (hash) "
            f"WHERE statement_id IN ({_marks(len(ids))}) ORDER BY statement_id, ord", ids)

    # -- search -----------------------------------------------------------------------------
    def exact_terms(self, norm: str, limit: int) -> list[TermRow]:
        """At most ``limit`` terms whose normalized key is ``norm``, most popular entities
        first (sitelinks, then degree)."""
        return self.mirror.query(
            f"{_TERM_COLS} WHERE t.norm = ? ORDER BY e.sitelinks DESC, e.degree DESC LIMIT ?",
            (norm, limit))

    def prefix_terms(self, norm: str, limit: int) -> list[tuple[str, int, int | None,
                                                                int | None]]:
        """(entity, term row id, sitelinks, degree) of at most ``limit`` terms whose
        normalized key starts with ``norm`` (and is longer), in no set order."""
        # read from the (norm, entity) index alone: the terms rows are scattered
        return self.mirror.query(
            "SELECT t.entity, t.id, e.sitelinks, e.degree FROM terms t "
            "LEFT JOIN entities e ON e.id = t.entity WHERE t.norm > ? AND t.norm < ? "
            "LIMIT ?", (norm, norm + "\U0010ffff", limit))

    def word_terms(self, norm: str, limit: int) -> list[TermRow]:
        """At most ``limit`` terms holding every word of ``norm`` as a whole word (the
        full-text index of a SQLite mirror; none on other databases)."""
        if not self.mirror.is_sqlite:
            return []
        # whole words only: an FTS prefix query ("adams"*) costs twice as much, and
        # prefixes of whole labels are covered by the range query of prefix_terms
        # the index's tokenizer (unicode61) splits at every character that is not a
        # letter or digit: split the same way, so that each quoted token is one word
        # (a token with a separator inside is a phrase, which the index cannot match)
        match = " ".join(f'"{t}"' for t in _WORDS.findall(norm))
        return self.mirror.query(
            f"{_TERM_COLS} JOIN terms_fts f ON t.id = f.rowid WHERE terms_fts MATCH ? "
            "LIMIT ?", (match, limit))

    def terms_by_row(self, rows: Sequence[int]) -> dict[int, tuple[str, str, int | None]]:
        """Term row id → (text, lang, source_id), for the row ids ``prefix_terms`` gave."""
        if not rows:
            return {}
        return {row: (text, lang, src) for row, text, lang, src in self.mirror.query(
            f"SELECT id, text, lang, source_id FROM terms WHERE id IN ({_marks(len(rows))})",
            rows)}

    def names(self, ids: Sequence[str]) -> list[tuple[str, int, str, str]]:
        """(entity, kind, lang, text) of the labels and descriptions of ``ids``."""
        # a range of kinds (aliases, ALIAS, come after it): with "kind IN (…)" SQLite reads
        # every term of each entity
        return self.mirror.query(
            f"SELECT entity, kind, lang, text FROM terms WHERE entity IN "
            f"({_marks(len(ids))}) AND kind BETWEEN {LABEL} AND {DESCRIPTION}", ids)

    def popularity_scale(self) -> tuple[int, int]:
        """The largest sitelink count and degree of any entity (0 without entities)."""
        links, degree = self.mirror.query(
            "SELECT COALESCE(MAX(sitelinks), 0), COALESCE(MAX(degree), 0) FROM entities")[0]
        return links, degree
