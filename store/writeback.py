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
import logging
from collections.abc import Iterable

import orjson

from store.batches import Batch
from store.mirror import Mirror, executemany
from store.validity import (MAX_LITERAL, MAX_TERM, entity_iri_problem, iri_problem,
                            lang_problem, text_problem)
from store.vocab import (ALIAS, DATATYPE_BY_IRI, ENTITY_ID, LEXEME_ID, PROPERTY_ID,
                         TERM_KIND_NAMES, entity_kind)
from store.writer import write_batch

log = logging.getLogger(__name__)

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
    counts, e.g. the limit the question was asked with.

    Every row is checked first (``invalid_rows``): rows with an invalid ID, IRI, language
    tag, datatype or text are left out, with a warning. Live data fills gaps and never
    replaces what the mirror loaded from its files (``_gaps``): a term is written only
    where the mirror has no loaded term of that kind and language for the entity, a
    statement only where it has no loaded statement of that subject and property, a
    datatype only where there is none, a sitelink count only for an entity with none that
    did not come from a JSON record."""
    terms, triples = list(terms), list(triples)
    datatypes, sitelinks = list(datatypes), list(sitelinks)
    terms, triples, datatypes, sitelinks = invalid_rows(endpoint, terms, triples, datatypes,
                                                        sitelinks)
    conn = mirror.raw
    try:
        terms, triples, datatypes = _gaps(mirror, terms, triples, datatypes)
        entities = sorted({t[0] for t in terms} | {t[0] for t in triples}
                          | {d[0] for d in datatypes} | {s[0] for s in sitelinks})
        counts = {"key": key, "terms": len(terms), "statements": len(triples),
                  **(note or {})}
        executemany(mirror, "INSERT INTO sources (location, format, fingerprint, dump_date, "
                            "loaded_at, finished_at, status, position, counts) "
                            "VALUES (?, 'live', ?, NULL, ?, ?, 'complete', 0, ?)",
                    [(endpoint, fingerprint(key), retrieved_at, retrieved_at,
                      orjson.dumps(counts).decode())])
        source_id = mirror.query("SELECT MAX(id) FROM sources")[0][0]
        executemany(mirror, "INSERT INTO entities (id, kind, source_id) VALUES (?, ?, ?) "
                            "ON CONFLICT DO NOTHING",
                    [(e, entity_kind(e), source_id) for e in entities if not e.startswith("_:")])
        executemany(mirror, "UPDATE entities SET sitelinks = ? WHERE id = ? AND sitelinks = 0 "
                            "AND revision IS NULL", [(n, e) for e, n in sitelinks])
        batch = Batch(position=len(terms) + len(triples),
                      datatypes=[(dt, pid) for pid, dt in datatypes],
                      terms=[t + (source_id,) for t in terms],
                      triples=[t + (source_id,) for t in triples])
    except BaseException:
        conn.rollback()
        raise
    write_batch(mirror, batch, source_id)      # commits everything above with the rows
    return source_id


def invalid_rows(endpoint: str, terms: list[Term], triples: list[Triple],
                 datatypes: list[tuple[str, str]], sitelinks: list[tuple[str, int]]
                 ) -> tuple[list[Term], list[Triple], list[tuple[str, str]],
                            list[tuple[str, int]]]:
    """The rows fit to store (see ``write_back``); the others are logged and dropped."""
    dropped: list[str] = []

    def keep(problem: str | None) -> bool:
        if problem is not None:
            dropped.append(problem)
        return problem is None

    terms = [t for t in terms if keep(
        _entity_problem(t[0]) or (None if t[1] in TERM_KIND_NAMES else f"term kind {t[1]!r}")
        or lang_problem(t[2]) or text_problem(t[3], MAX_TERM)
        or (None if t[3].strip() else "an empty term"))]
    triples = [t for t in triples if keep(_triple_problem(t))]
    known = set(DATATYPE_BY_IRI.values())
    datatypes = [d for d in datatypes if keep(
        _entity_problem(d[0]) or (None if d[1] in known else f"datatype {d[1]!r}"))]
    sitelinks = [s for s in sitelinks if keep(
        _entity_problem(s[0]) or (None if isinstance(s[1], int) and 0 <= s[1] < 1 << 31
                                  else f"sitelink count {s[1]!r}"))]
    if dropped:
        log.warning("%s: %d invalid row%s of a live answer not written back (first: %s)",
                    endpoint, len(dropped), "s" * (len(dropped) > 1), dropped[0])
    return terms, triples, datatypes, sitelinks


def _entity_problem(eid: object) -> str | None:
    if isinstance(eid, str) and (ENTITY_ID.match(eid) or LEXEME_ID.match(eid)):
        return None
    if not isinstance(eid, str):
        return f"entity {eid!r}"
    return entity_iri_problem(eid)


def _triple_problem(t: Triple) -> str | None:
    subject, prop, kind, value, lang, datatype = t
    problem = _entity_problem(subject)
    if problem is None and not (isinstance(prop, str) and PROPERTY_ID.match(prop)):
        problem = iri_problem(prop)
    if problem is None:
        if kind == "entity":
            problem = _entity_problem(value)
        elif kind == "iri":
            problem = iri_problem(value)
        elif kind == "literal":
            problem = (text_problem(value, MAX_LITERAL) or lang_problem(lang)
                       or (iri_problem(datatype) if datatype else None))
        elif kind in ("somevalue", "novalue"):
            problem = None if value == "" else f"a {kind} with a value"
        else:
            problem = f"value kind {kind!r}"
    return problem


def _gaps(mirror: Mirror, terms: list[Term], triples: list[Triple],
          datatypes: list[tuple[str, str]]
          ) -> tuple[list[Term], list[Triple], list[tuple[str, str]]]:
    """The rows that fill gaps in what the mirror loaded (see ``write_back``)."""
    loaded = ("source_id IS NULL OR source_id NOT IN "
              "(SELECT id FROM sources WHERE format = 'live')")
    if terms:
        held = set()
        for entity in sorted({t[0] for t in terms}):
            held |= {(entity, kind, lang) for kind, lang, live in mirror.query(
                f"SELECT kind, lang, CASE WHEN {loaded} THEN 0 ELSE 1 END FROM terms "
                "WHERE entity = ?", (entity,))
                     if not live or kind != ALIAS}     # one label/description per language
        terms = [t for t in terms if (t[0], t[1], t[2]) not in held]
    if triples:
        held_pairs = set()
        for subject in sorted({t[0] for t in triples}):
            held_pairs |= {(subject, p) for (p,) in mirror.query(
                f"SELECT DISTINCT property FROM statements WHERE subject = ? AND ({loaded})",
                (subject,))}
        triples = [t for t in triples if (t[0], t[1]) not in held_pairs]
    if datatypes:
        datatypes = [d for d in datatypes if not mirror.query(
            "SELECT 1 FROM entities WHERE id = ? AND datatype IS NOT NULL", (d[0],))]
    return terms, triples, datatypes
