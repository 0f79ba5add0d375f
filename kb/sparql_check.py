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
from typing import Any, Iterable

from kb.rdflib_fixes import values_scope
from store import label_service
from store.errors import QueryRefused, QuerySyntaxError

#: well-known prefixes of Wikidata's endpoint, so pasted WDQS queries parse as they do there
WIKIDATA_PREFIXES = {
    "wd": "http://www.wikidata.org/entity/",
    "wds": "http://www.wikidata.org/entity/statement/",
    "wdt": "http://www.wikidata.org/prop/direct/",
    "p": "http://www.wikidata.org/prop/",
    "ps": "http://www.wikidata.org/prop/statement/",
    "pq": "http://www.wikidata.org/prop/qualifier/",
    "pr": "http://www.wikidata.org/prop/reference/",
    "wikibase": "http://wikiba.se/ontology#",
    "bd": "http://www.bigdata.com/rdf#",
    "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "skos": "http://www.w3.org/2004/02/skos/core#",
    "schema": "http://schema.org/",
    "xsd": "http://www.w3.org/2001/XMLSchema#",
    "owl": "http://www.w3.org/2002/07/owl#",
    "prov": "http://www.w3.org/ns/prov#",
    "geo": "http://www.opengis.net/ont/geosparql#",
    "ontolex": "http://www.w3.org/ns/lemon/ontolex#",
    "dct": "http://purl.org/dc/terms/",
}


def _service_iris(node: Any) -> Iterable[str]:
    """Every SERVICE endpoint IRI in an rdflib algebra tree."""
    from rdflib.plugins.sparql.parserutils import CompValue

    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, CompValue):
            if n.name == "ServiceGraphPattern":
                yield str(n.get("term"))
            stack.extend(n.values())
        elif isinstance(n, (list, tuple)):
            stack.extend(n)


#: rdflib's parser (pyparsing, with parse actions that keep state) gives wrong errors when
#: two threads parse at once: one parse at a time
_PARSING = threading.Lock()

#: SERVICE endpoints always allowed: emulated locally, never contacted
EMULATED_SERVICES = frozenset({label_service.LABEL_SERVICE})


@functools.lru_cache(maxsize=1024)
def prepare(query: str, allowed_services: frozenset[str] = frozenset()) -> Any:
    """Parse ``query`` into an rdflib prepared query (cached by text), or raise
    QuerySyntaxError / QueryRefused. The label service is allowed and emulated (see the
    module docstring); other SERVICE endpoints must be in ``allowed_services``. A label
    service body it does not understand raises UnsupportedQuery."""
    from pyparsing import ParseException
    from rdflib.plugins.sparql import prepareQuery
    from rdflib.plugins.sparql.parser import parseUpdate

    if not isinstance(query, str) or not query.strip():
        raise QuerySyntaxError("empty SPARQL query", expected="a SELECT, ASK, CONSTRUCT or "
                               "DESCRIBE query", fix="pass the query text")
    try:
        with _PARSING:
            prepared = prepareQuery(query, initNs=WIKIDATA_PREFIXES)
    except ParseException as exc:
        try:
            with _PARSING:
                parseUpdate(query)
        except ParseException:
            pass
        else:
            raise QueryRefused("SPARQL Update (INSERT, DELETE, LOAD, CLEAR, ...) is refused: "
                               "knowledge bases are read-only here",
                               fix="send a SELECT, ASK, CONSTRUCT or DESCRIBE query") from None
        raise QuerySyntaxError(f"the SPARQL query does not parse: {exc.msg} "
                               f"(line {exc.lineno}, column {exc.col})",
                               got=exc.line, fix="correct the query at that position") from None
    except Exception as exc:  # noqa: BLE001 - rdflib raises bare Exceptions for bad prefixes
        raise QuerySyntaxError(f"the SPARQL query is not valid: {exc}",
                               fix="check its prefixes and terms") from None
    for iri in _service_iris(prepared.algebra):
        if iri not in allowed_services and iri not in EMULATED_SERVICES:
            raise QueryRefused(f"SERVICE <{iri}> is not on the allow-list",
                               expected="SERVICE only to allowed endpoints",
                               fix="remove the SERVICE clause, or allow that endpoint")
    prepared.algebra = label_service.rewrite(prepared.algebra)
    values_scope(prepared.algebra)     # an rdflib bug (kb.rdflib_fixes)
    return prepared
