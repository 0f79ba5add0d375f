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
from store.regex import compile_regex, regex_replace, regex_search

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
PARSE_LOCK = threading.Lock()

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
        with PARSE_LOCK:
            prepared = prepareQuery(query, initNs=WIKIDATA_PREFIXES)
    except ParseException as exc:
        try:
            with PARSE_LOCK:
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
    _use_re2(prepared.algebra)
    _clamp_slices(prepared.algebra)
    prepared.algebra = label_service.rewrite(prepared.algebra)
    values_scope(prepared.algebra)     # an rdflib bug (kb.rdflib_fixes)
    return prepared


#: the largest LIMIT or OFFSET passed on (their sum must fit the engines' 64-bit integers)
MAX_SLICE = 1 << 62


def _clamp_slices(algebra: Any) -> None:
    """A LIMIT or OFFSET past 2**62 means the same as one of 2**62 (no answer has
    that many rows): make it that, so that the engines take it."""
    from rdflib.plugins.sparql.parserutils import CompValue

    stack = [algebra]
    while stack:
        node = stack.pop()
        if isinstance(node, CompValue):
            if node.name == "Slice":
                for key in ("start", "length"):
                    if isinstance(node.get(key), int) and node[key] > MAX_SLICE:
                        node[key] = MAX_SLICE
            stack.extend(node.values())
        elif isinstance(node, (list, tuple)):
            stack.extend(node)


def _use_re2(algebra: Any) -> None:
    """Make rdflib's evaluator run REGEX and REPLACE on RE2 (``store.regex``: linear time,
    whatever the pattern), and check constant patterns now: a bad one is the user's error
    (QuerySyntaxError), found before anything runs."""
    from types import MethodType

    from rdflib import Literal
    from rdflib.plugins.sparql.parserutils import CompValue, Expr

    stack = [algebra]
    while stack:
        node = stack.pop()
        if isinstance(node, CompValue):
            if isinstance(node, Expr) and node.name in _RE2_EVAL:
                pattern, flags = node.get("pattern"), node.get("flags")
                if isinstance(pattern, Literal) and (flags is None or isinstance(flags,
                                                                                  Literal)):
                    compile_regex(str(pattern), str(flags or ""))
                node._evalfn = MethodType(_RE2_EVAL[node.name], node)
            stack.extend(node.values())
        elif isinstance(node, (list, tuple)):
            stack.extend(node)


def _re2_regex(expr: Any, ctx: Any) -> Any:
    """rdflib's Builtin_REGEX, on RE2."""
    from rdflib import Literal
    from rdflib.plugins.sparql.operators import string
    from rdflib.plugins.sparql.sparql import SPARQLError

    try:
        return Literal(regex_search(string(expr.text), str(string(expr.pattern)),
                                    str(expr.flags or "")))
    except QuerySyntaxError as exc:
        raise SPARQLError(str(exc)) from None


def _re2_replace(expr: Any, ctx: Any) -> Any:
    """rdflib's Builtin_REPLACE, on RE2."""
    from rdflib import Literal
    from rdflib.plugins.sparql.operators import string
    from rdflib.plugins.sparql.sparql import SPARQLError

    text = string(expr.arg)
    try:
        out = regex_replace(str(text), str(string(expr.pattern)),
                            str(string(expr.replacement)), str(expr.flags or ""))
    except QuerySyntaxError as exc:
        raise SPARQLError(str(exc)) from None
    return Literal(out, datatype=text.datatype, lang=text.language)


_RE2_EVAL = {"Builtin_REGEX": _re2_regex, "Builtin_REPLACE": _re2_replace}
