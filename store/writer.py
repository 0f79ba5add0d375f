"""Writing batches into the mirror, and the index work around a load.

Each batch is one transaction that also moves the source's position forward, so that the
mirror is consistent after every commit and an interrupted load can resume.
"""

from __future__ import annotations

from collections.abc import Sequence

import orjson
import sqlalchemy as sa
from sqlalchemy.schema import CreateIndex

from store import schema
from store.batches import Batch
from store.mirror import Mirror, executemany
from store.normalize import normalize
from store.vocab import DESCRIPTION, LEXEME_ID, entity_kind

_INSERT_TERMS = ("INSERT INTO terms (entity, kind, lang, text, norm, source_id) "
                 "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING")
_INSERT_TRIPLES = ("INSERT INTO statements (subject, property, value_kind, value, lang, "
                   "datatype, source_id) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING")
# JSON statements come with an index local to their batch, which their qualifiers and
# references also carry: the statement's row id is that index plus the batch's first id,
# added by SQLite ({base}) rather than by rebuilding every row in Python. Their rows say
# "no details" with '', made NULL here: sqlite3 binds None only after failing to find an
# adapter for it, raising and clearing an AttributeError (~1,300 instructions a value).
_INSERT_STATEMENTS = ("INSERT INTO statements (id, sid, subject, property, rank, truthy, "
                      "value_kind, value, lang, datatype, details, source_id) "
                      "VALUES ({base} + ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULLIF(?, ''), ?)")
_INSERT_QUALIFIERS = ("INSERT INTO qualifiers (statement_id, ord, property, value_kind, value, "
                      "lang, datatype, details) "
                      "VALUES ({base} + ?, ?, ?, ?, ?, ?, ?, NULLIF(?, ''))")
_INSERT_REFERENCES = ("INSERT INTO statement_references (statement_id, ord, hash) "
                      "VALUES ({base} + ?, ?, ?)")
_INSERT_REFERENCE_SNAKS = ("INSERT INTO reference_snaks (hash, snaks) VALUES (?, ?) "
                           "ON CONFLICT DO NOTHING")
_INSERT_SUBJECTS = ("INSERT INTO entities (id, kind, source_id) VALUES (?, ?, ?) "
                    "ON CONFLICT DO NOTHING")
_UPSERT_ENTITIES = (
    "INSERT INTO entities (id, kind, datatype, sitelinks, revision, modified, source_id) "
    "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, "
    "datatype = COALESCE(excluded.datatype, entities.datatype), "
    "sitelinks = excluded.sitelinks, revision = excluded.revision, "
    "modified = excluded.modified, source_id = excluded.source_id")


def write_batch(mirror: Mirror, b: Batch, source_id: int, *,
                replace: Sequence[str] = ()) -> dict[str, int]:
    """Write one batch and the source's new position in one transaction; return the
    numbers of rows added per kind.

    ``replace``: entities whose rows in the mirror are deleted first (a JSON record
    replaces what was known about its entity). The batch's JSON statements get the row
    ids after the highest in the mirror, in order. Several processes may write batches,
    one at a time.
    """
    conn, m = mirror.raw, mirror
    try:
        if replace:
            delete_entities(m, sorted(set(replace)))
        added = {
            "entities": executemany(m, _UPSERT_ENTITIES, b.entities)
            + executemany(m, _INSERT_SUBJECTS,
                          [(s, entity_kind(s), source_id) for s in b.subjects]),
        }
        executemany(m, "UPDATE entities SET datatype = ? WHERE id = ?", b.datatypes)
        if m.is_sqlite and b.terms:
            settle_label_index_mark(m)
        added["terms"] = executemany(
            m, _INSERT_TERMS, b.terms if b.terms_normalized else _with_norms(b.terms))
        added["statements"] = executemany(m, _INSERT_TRIPLES, b.triples)
        base = 0
        if b.statements:
            base = int(m.query("SELECT COALESCE(MAX(id), 0) + 1 FROM statements")[0][0])
            added["statements"] += executemany(m, _INSERT_STATEMENTS, b.statements,
                                               base=base)
        added["qualifiers"] = executemany(m, _INSERT_QUALIFIERS, b.qualifiers,
                                          base=base) if b.qualifiers else 0
        executemany(m, _INSERT_REFERENCE_SNAKS, b.reference_snaks)
        added["references"] = executemany(m, _INSERT_REFERENCES, b.references,
                                          base=base) if b.references else 0
        if m.is_sqlite:
            index_new_terms(m)
        _commit_position(m, b, source_id, added)
        conn.commit()
    except BaseException:
        conn.rollback()
        raise
    return added


def _commit_position(m: Mirror, b: Batch, source_id: int, added: dict[str, int]) -> None:
    """The source's new position, and its counts so far (``store.ingest.COUNTED``): a load
    that resumes after a crash reports the whole file's counts, not only the part it read."""
    row = m.query("SELECT counts FROM sources WHERE id = ?", (source_id,))
    try:
        counts = orjson.loads(row[0][0]) if row and row[0][0] else {}
    except orjson.JSONDecodeError:
        counts = {}
    increments = dict(added, records=b.parsed + b.errors, filtered=b.filtered,
                      errors=b.errors, invalid_literals=b.invalid.total)
    for key, n in increments.items():
        counts[key] = int(counts.get(key) or 0) + n
    executemany(m, "UPDATE sources SET position = ?, counts = ? WHERE id = ?",
                [(b.position, orjson.dumps(counts).decode(), source_id)])


def _with_norms(terms: list[tuple]) -> list[tuple]:
    """(entity, kind, lang, text, source) → (entity, kind, lang, text, norm, source): the
    label-index key, for labels and aliases. Done here, in the writing process, for
    N-Triples (measured: moving it into their one parser process makes that process the
    slower one, and the slice load no faster); the JSON parser, which runs in a pool,
    computes it itself (``Batch.terms_normalized``)."""
    cache: dict[str, str] = {}   # aliases repeat across languages
    rows = []
    for entity, kind, lang, text, source in terms:
        if kind == DESCRIPTION:
            norm = None
        else:
            norm = cache.get(text)
            if norm is None:
                norm = cache[text] = normalize(text)
        rows.append((entity, kind, lang, text, norm, source))
    return rows


def delete_entities(m: Mirror, ids: list[str]) -> None:
    """Remove what the mirror holds about ``ids``: terms, statements and their parts. A
    lexeme's forms and senses go entirely, entity rows too: the record that replaces the
    lexeme brings back those it still has."""
    parts = [part for i in ids if LEXEME_ID.match(i) and "-" not in i
             for (part,) in m.query("SELECT id FROM entities WHERE id > ? AND id < ?",
                                    (i + "-", i + "."))]          # L1-F1, L1-S2, …
    if parts:
        executemany(m, "DELETE FROM entities WHERE id = ?", [(p,) for p in parts])
    rows = [(i,) for i in sorted({*ids, *parts})]     # each once: FTS deletes are not idempotent
    if m.is_sqlite:
        upto = int(m.get_meta("fts_upto", "0"))
        executemany(m, "INSERT INTO terms_fts (terms_fts, rowid, norm) SELECT 'delete', id, "
                       f"norm FROM terms WHERE entity = ? AND norm IS NOT NULL AND id <= {upto}",
                    rows)
    executemany(m, "DELETE FROM terms WHERE entity = ?", rows)
    for table in ("qualifiers", "statement_references"):
        executemany(m, f"DELETE FROM {table} WHERE statement_id IN "
                       "(SELECT id FROM statements WHERE subject = ?)", rows)
    executemany(m, "DELETE FROM statements WHERE subject = ?", rows)


def settle_label_index_mark(mirror: Mirror) -> None:
    """Move the label index's high-water mark (``fts_upto``) down to the highest term id.

    SQLite gives a new row the highest id plus one, so once the last terms are deleted
    (a JSON record replacing its entity, duplicates removed after a resumed load), new
    terms get their ids again. Their index entries went with them, so ids above the
    highest row are not indexed: without this, ``index_new_terms`` would take the new
    rows as indexed already, and word search would miss them (and FTS5's integrity check
    would find the index out of step with the table)."""
    top = mirror.query("SELECT COALESCE(MAX(id), 0) FROM terms")[0][0]
    mirror.query("UPDATE meta SET value = ? WHERE key = 'fts_upto' AND CAST(value AS INTEGER) > ?",
                 (str(top), top))


def label_index_problem(mirror: Mirror) -> str | None:
    """What is wrong with the full-text label index, or None: FTS5's integrity check,
    comparing the index with the terms table, and every indexed row within the mark."""
    if not mirror.is_sqlite:
        return None
    dbapi = mirror.engine.dialect.dbapi
    assert dbapi is not None            # the driver module, which create_engine loaded
    try:
        mirror.query("INSERT INTO terms_fts (terms_fts, rank) VALUES ('integrity-check', 1)")
    except dbapi.DatabaseError as exc:
        return f"the label index does not match the labels ({exc})"
    finally:
        mirror.raw.rollback()
    upto = int(mirror.get_meta("fts_upto", "0"))
    unindexed = mirror.query("SELECT COUNT(*) FROM terms WHERE id > ? AND norm IS NOT NULL",
                             (upto,))[0][0]
    if unindexed:
        return f"{unindexed:,} labels or aliases are not in the label index"
    return None


def index_new_terms(mirror: Mirror) -> None:
    """Add the terms written since the last call to the full-text label index."""
    upto = int(mirror.get_meta("fts_upto", "0"))
    top = mirror.query("SELECT COALESCE(MAX(id), 0) FROM terms")[0][0]
    if top > upto:
        mirror.query("INSERT INTO terms_fts (rowid, norm) SELECT id, norm FROM terms "
                     "WHERE id > ? AND norm IS NOT NULL", (upto,))
        mirror.query("UPDATE meta SET value = ? WHERE key = 'fts_upto'", (str(top),))


def _secondary_indexes() -> list[sa.Index]:
    return [ix for table in schema.metadata.sorted_tables for ix in table.indexes]


def _create_index_sql(mirror: Mirror, ix: sa.Index) -> str:
    return str(CreateIndex(ix, if_not_exists=True).compile(dialect=mirror.engine.dialect))


def begin_bulk(mirror: Mirror) -> None:
    """Drop the secondary indexes of an empty mirror: inserting without them and building
    them once at the end is several times faster. ``end_bulk`` puts them back."""
    for ix in _secondary_indexes():
        mirror.query(f"DROP INDEX IF EXISTS {ix.name}")
    mirror.query("UPDATE meta SET value = '0' WHERE key = 'indexed'")
    mirror.raw.commit()


def end_bulk(mirror: Mirror) -> None:
    """Build the secondary indexes. Duplicates (possible only when a bulk load was resumed)
    are removed first if a unique index finds any. Runs on the loader's own connection, so
    that its settings (no memory-mapping while writing) hold here too."""
    mirror.raw.commit()
    dbapi = mirror.engine.dialect.dbapi
    assert dbapi is not None            # the driver module, which create_engine loaded
    duplicate = dbapi.IntegrityError
    for ix in _secondary_indexes():
        try:
            mirror.query(_create_index_sql(mirror, ix))
        except duplicate:
            mirror.raw.rollback()
            _remove_duplicates(mirror, ix)
            mirror.query(_create_index_sql(mirror, ix))
    mirror.query("UPDATE meta SET value = '1' WHERE key = 'indexed'")
    mirror.raw.commit()


def _remove_duplicates(mirror: Mirror, ix: sa.Index) -> None:
    assert ix.table is not None         # the schema's indexes are its tables'
    table, cols = ix.table.name, ", ".join(c.name for c in ix.columns)
    keep = f"SELECT MIN(id) FROM {table} GROUP BY {cols}"
    if table == "terms" and mirror.is_sqlite:
        mirror.query("INSERT INTO terms_fts (terms_fts, rowid, norm) SELECT 'delete', id, norm "
                     f"FROM terms WHERE norm IS NOT NULL AND id NOT IN ({keep})")
    mirror.query(f"DELETE FROM {table} WHERE id NOT IN ({keep})")
    if table == "terms" and mirror.is_sqlite:
        settle_label_index_mark(mirror)
    mirror.raw.commit()


def finish(mirror: Mirror) -> None:
    """Recompute derived data after a load: entity degrees (the popularity prior where
    there are no sitelinks) and the query planner's statistics."""
    q = mirror.query
    # Two index range counts per entity (subject: uq_statements_spv, value: ix_statements_v)
    # beat grouping every statement, whose values mostly name entities the mirror does
    # not hold: 0.6 ms instead of 8 ms for the 100-entity dump, 0.46 s instead of 0.66 s
    # for the slice.
    q("UPDATE entities SET degree = "
      "(SELECT COUNT(*) FROM statements WHERE subject = entities.id) + "
      "(SELECT COUNT(*) FROM statements WHERE value = entities.id AND value_kind = 'entity')")
    if mirror.is_sqlite:
        q("PRAGMA analysis_limit = 1000")
        q("ANALYZE")
    mirror.raw.commit()
