"""Writing what a live endpoint answered back into the mirror, with its provenance.

``write_back(mirror, endpoint=…, retrieved_at=…, key=…, terms=…, triples=…)`` adds one
``sources`` row (format ``live``, location = the endpoint URL, loaded_at = when the answer
was retrieved, fingerprint = ``key``, the question it answered) and the rows, in **one
transaction** through ``store.writer.write_batch``: either all of it is in the mirror
afterwards or none of it. Rows the mirror already holds are left as they are (terms and
truthy triples are unique), so writing the same answer twice adds nothing.

Citations of written-back statements name the endpoint (``sparql:<url>``) with the
retrieval time, since that is where the fact comes from. ``was_fetched(mirror, key)`` tells
whether an answer under ``key`` was written back before.

This module works on plain tuples: the store layer knows nothing of kb's types.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

import orjson

from store.batches import Batch
from store.mirror import Mirror, executemany
from store.vocab import entity_kind
from store.writer import write_batch

#: terms: (entity, kind, lang, text) with kind LABEL/DESCRIPTION/ALIAS from store.vocab;
#: triples: (subject, property, value_kind, value, lang, datatype);
#: datatypes: (property id, datatype); sitelinks: (entity, count)
Term = tuple[str, int, str, str]
Triple = tuple[str, str, str, str, str, str]


def fingerprint(key: str) -> str:
    """The ``sources.fingerprint`` of a write-back answering ``key`` (fits its 80 chars)."""
    return "live:" + hashlib.sha1(key.encode("utf-8")).hexdigest()


def was_fetched(mirror: Mirror, key: str) -> list[dict]:
    """The ``counts`` of earlier write-backs answering ``key`` (empty: never fetched)."""
    rows = mirror.query("SELECT counts FROM sources WHERE fingerprint = ? AND format = 'live'",
                        (fingerprint(key),))
    return [orjson.loads(c) if c else {} for (c,) in rows]


def write_back(mirror: Mirror, *, endpoint: str, retrieved_at: str, key: str,
               terms: Iterable[Term] = (), triples: Iterable[Triple] = (),
               datatypes: Iterable[tuple[str, str]] = (),
               sitelinks: Iterable[tuple[str, int]] = (),
               note: dict | None = None) -> int:
    """Write one live answer into ``mirror`` (see the module docstring); return the id of
    its ``sources`` row. ``note`` is stored in the row's ``counts`` (JSON) beside the row
    counts, e.g. the limit the question was asked with."""
    terms, triples = list(terms), list(triples)
    datatypes, sitelinks = list(datatypes), list(sitelinks)
    entities = sorted({t[0] for t in terms} | {t[0] for t in triples}
                      | {d[0] for d in datatypes} | {s[0] for s in sitelinks})
    counts = {"key": key, "terms": len(terms), "statements": len(triples), **(note or {})}
    conn = mirror.raw
    try:
        executemany(mirror, "INSERT INTO sources (location, format, fingerprint, dump_date, "
                            "loaded_at, finished_at, status, position, counts) "
                            "VALUES (?, 'live', ?, NULL, ?, ?, 'complete', 0, ?)",
                    [(endpoint, fingerprint(key), retrieved_at, retrieved_at,
                      orjson.dumps(counts).decode())])
        source_id = mirror.query("SELECT MAX(id) FROM sources")[0][0]
        executemany(mirror, "INSERT INTO entities (id, kind, source_id) VALUES (?, ?, ?) "
                            "ON CONFLICT DO NOTHING",
                    [(e, entity_kind(e), source_id) for e in entities if not e.startswith("_:")])
        executemany(mirror, "UPDATE entities SET sitelinks = ? WHERE id = ? AND sitelinks < ?",
                    [(n, e, n) for e, n in sitelinks])
        batch = Batch(position=len(terms) + len(triples),
                      datatypes=[(dt, pid) for pid, dt in datatypes],
                      terms=[t + (source_id,) for t in terms],
                      triples=[t + (source_id,) for t in triples])
    except BaseException:
        conn.rollback()
        raise
    write_batch(mirror, batch, source_id)      # commits everything above with the rows
    return source_id
