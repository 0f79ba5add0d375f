"""Parsing SPARQL safely: every query a KB runs locally goes through ``prepare``.

It refuses what a read-only grounding tool must never run: SPARQL Update (INSERT, DELETE,
LOAD, CLEAR, ...) and SERVICE calls to endpoints not on the allow-list (rdflib's evaluator
would otherwise fetch them over HTTP). Wikidata's label service
(``SERVICE wikibase:label { … }``) is always allowed: ``prepare`` rewrites it into a local
emulation (``store.label_service``), so it is never fetched either.
"""

from __future__ import annotations

import functools
import threading
from typing import Any

from store import label_service
from store.errors import QueryRefused, QuerySyntaxError
from store.sparql_parse import WIKIDATA_PREFIXES as _WDQS_PREFIXES
from store.sparql_parse import ParsedQuery, parse

#: well-known prefixes of Wikidata's endpoint, so pasted WDQS queries parse as they do there
WIKIDATA_PREFIXES = _WDQS_PREFIXES


#: SERVICE endpoints always allowed: emulated locally, never contacted
EMULATED_SERVICES = frozenset({label_service.LABEL_SERVICE})


#: rdflib's parser (pyparsing) picks how to call each parse action on first use, which is
#: not thread-safe (pyparsing issue #89): a process whose first parses ran concurrently
#: kept failing on later ones. Every rdflib parse in kgground goes through this lock.
RDFLIB_PARSE_LOCK = threading.Lock()


def rdflib_query(text: str, prefixes: dict[str, str] | None = None) -> Any:
    """``text`` parsed and translated by rdflib (``prepareQuery``), under the parse lock."""
    from rdflib.plugins.sparql import prepareQuery

    with RDFLIB_PARSE_LOCK:
        return prepareQuery(text, initNs=WIKIDATA_PREFIXES if prefixes is None else prefixes)


def check_services(parsed: ParsedQuery, allowed_services: frozenset[str]) -> None:
    """QueryRefused for a SERVICE to an endpoint neither allowed nor emulated."""
    for node, iri in parsed.services():
        if iri not in allowed_services and iri not in EMULATED_SERVICES:
            line, _ = parsed.position(node)
            raise QueryRefused(f"SERVICE <{iri}> (line {line}) is not on the allow-list",
                               expected="SERVICE only to allowed endpoints",
                               fix="remove the SERVICE clause, or allow that endpoint")


def parse_checked(query: str, allowed_services: frozenset[str] = frozenset()) -> ParsedQuery:
    """``query`` parsed by ``store.sparql_parse`` (QuerySyntaxError with its position), and
    refused (QueryRefused) if it is an update or calls a SERVICE not allowed."""
    parsed = parse(query)
    if parsed.form == "UPDATE":
        raise QueryRefused("SPARQL Update (INSERT, DELETE, LOAD, CLEAR, ...) is refused: "
                           "knowledge bases are read-only here",
                           fix="send a SELECT, ASK, CONSTRUCT or DESCRIBE query")
    check_services(parsed, allowed_services)
    return parsed


@functools.lru_cache(maxsize=1024)
def prepare(query: str, allowed_services: frozenset[str] = frozenset()) -> Any:
    """Parse ``query`` into an rdflib prepared query (cached by text), or raise
    QuerySyntaxError / QueryRefused. The label service is allowed and emulated (see the
    module docstring); other SERVICE endpoints must be in ``allowed_services``. A label
    service body it does not understand raises UnsupportedQuery.

    tree-sitter parses first (fast, positioned errors, WDQS syntax); rdflib then parses
    the canonical text (``ParsedQuery.canonical``), under ``RDFLIB_PARSE_LOCK``. The
    result's ``parsed`` attribute is the ``ParsedQuery``."""
    parsed = parse_checked(query, allowed_services)
    try:
        prepared = rdflib_query(parsed.canonical(), parsed.prefixes)
    except Exception as exc:  # noqa: BLE001 - rdflib raises bare Exceptions for bad terms
        raise QuerySyntaxError(f"the SPARQL query is not valid: {exc}",
                               fix="check its terms") from None
    prepared.parsed = parsed
    prepared.algebra = label_service.rewrite(prepared.algebra)
    return prepared
