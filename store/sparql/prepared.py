"""Parsing SPARQL safely: every query a KB runs locally goes through ``prepare``.

``prepare`` parses with tree-sitter (``store.sparql.syntax``: microseconds, positioned
errors, safe in any thread) and translates to algebra without rdflib; rdflib parses a query
only when its evaluator must run it (``PreparedQuery.evaluable``), one parse at a time.

It refuses what a read-only grounding tool must never run: SPARQL Update (INSERT, DELETE,
LOAD, CLEAR, ...) and SERVICE calls to endpoints not on the allow-list (rdflib's evaluator
would otherwise fetch them over HTTP). Wikidata's label service
(``SERVICE wikibase:label { … }``) is always allowed: ``prepare`` rewrites it into a local
emulation (``store.sparql.labels``), so it is never fetched either.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from store.errors import QueryRefused, QuerySyntaxError, QueryTooComplex, UnsupportedQuery
from store.regex import compile_regex, regex_replace, regex_search
from store.sparql import labels, shape
from store.sparql.algebra import translate
from store.sparql.nodes import CompValue
from store.sparql.syntax import WIKIDATA_PREFIXES as _WDQS_PREFIXES
from store.sparql.syntax import ParsedQuery, parse

#: well-known prefixes of Wikidata's endpoint, so pasted WDQS queries parse as they do there
WIKIDATA_PREFIXES = _WDQS_PREFIXES


#: SERVICE endpoints always allowed: emulated locally, never contacted
EMULATED_SERVICES = frozenset({labels.LABEL_SERVICE})


#: rdflib's parser (pyparsing) picks how to call each parse action on first use, which is
#: not thread-safe (pyparsing issue #89): a process whose first parses ran concurrently
#: kept failing on later ones. Every rdflib parse in kgground goes through this lock.
PARSE_LOCK = RDFLIB_PARSE_LOCK = threading.Lock()


def rdflib_query(text: str, prefixes: dict[str, str] | None = None) -> Any:
    """``text`` parsed and translated by rdflib (``prepareQuery``), under the parse lock."""
    from rdflib.plugins.sparql import prepareQuery

    # a query's deadline may interrupt the parse (pyparsing takes seconds on long queries):
    # ``with`` on a C lock releases it whatever is raised inside
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


def parse_checked(query: str, allowed_services: frozenset[str] = frozenset(), *,
                  local: bool = True) -> ParsedQuery:
    """``query`` parsed by ``store.sparql.syntax`` (QuerySyntaxError with its position), and
    refused (QueryRefused) if it is an update or calls a SERVICE not allowed, or, for a
    query that kgground's own engines will run (``local``), when it passes a limit on its
    shape (QueryTooComplex, ``store.sparql.shape``)."""
    parsed = parse(query)
    if local:
        shape.check(parsed)
    if parsed.form == "UPDATE":
        raise QueryRefused("SPARQL Update (INSERT, DELETE, LOAD, CLEAR, ...) is refused: "
                           "knowledge bases are read-only here",
                           fix="send a SELECT, ASK, CONSTRUCT or DESCRIBE query")
    check_services(parsed, allowed_services)
    return parsed


@dataclass(frozen=True)
class PreparedQuery:
    """A query checked and translated once (``prepare``), shared by every thread.

    ``algebra``: the SPARQL algebra built from tree-sitter's tree (``store.sparql.algebra``,
    label service emulated), for the SQL compiler; None for CONSTRUCT and DESCRIBE, with
    ``why``. ``vars``: the projected variables in order (``SELECT *``: in order of first
    appearance). ``notes``: what the query asks that a mirror holds no data for (see
    ``vocabulary_notes``). ``evaluable()``: the query as rdflib's evaluator runs it.
    """
    text: str
    parsed: ParsedQuery
    algebra: Any
    why: str
    vars: tuple[str, ...]
    notes: tuple[str, ...]

    @property
    def form(self) -> str:
        return self.parsed.form

    def evaluable(self) -> Any:
        """This query parsed by rdflib for its evaluator (label service emulated). rdflib
        writes into a parsed query while evaluating it, so each thread gets its own copy,
        parsed once (under ``RDFLIB_PARSE_LOCK``) and kept for the 256 latest queries."""
        cache = _per_thread.prepared
        key = self.text
        found = cache.get(key)
        if found is None:
            try:
                found = rdflib_query(self.parsed.canonical(), self.parsed.prefixes)
            except RecursionError:
                raise QueryTooComplex("it is nested deeper than rdflib's parser can follow",
                                      fix="nest fewer groups or brackets inside one "
                                          "another") from None
            except Exception as exc:  # noqa: BLE001 - rdflib raises bare Exceptions
                raise QuerySyntaxError(f"the SPARQL query is not valid: {exc}",
                                       fix="check its terms") from None
            from store.sparql.rdflib_fixes import values_scope

            _use_re2(found.algebra)
            _clamp_slices(found.algebra)
            found.algebra = labels.rewrite(found.algebra)
            values_scope(found.algebra)     # an rdflib bug (store.sparql.rdflib_fixes)
            cache[key] = found
            if len(cache) > 256:
                cache.popitem(last=False)
        else:
            cache.move_to_end(key)
        return found


    def forget_evaluable(self) -> None:
        """Drop this thread's rdflib copy of the query (after an evaluation that stopped
        half-way: the next one starts from a fresh parse)."""
        _per_thread.prepared.pop(self.text, None)


class _PerThread(threading.local):
    def __init__(self) -> None:
        self.prepared: OrderedDict[str, Any] = OrderedDict()


_per_thread = _PerThread()


@functools.lru_cache(maxsize=2048)
def prepare(query: str, allowed_services: frozenset[str] = frozenset()) -> PreparedQuery:
    """Check and translate ``query`` (cached by text), or raise QuerySyntaxError (with
    line, column and excerpt) / QueryRefused. The label service is allowed and emulated
    (see the module docstring); other SERVICE endpoints must be in ``allowed_services``. A
    label service body it does not understand raises UnsupportedQuery. No rdflib parsing
    happens here: tree-sitter parses, ``store.sparql.algebra`` translates."""
    parsed = parse_checked(query, allowed_services)
    algebra, why = None, ""
    try:
        algebra = translate(parsed)
    except UnsupportedQuery as exc:
        why = str(exc)
    if algebra is not None:
        _check_regexes(algebra)
        _clamp_slices(algebra)
        algebra = labels.rewrite(algebra)
        names = tuple(str(v) for v in algebra.get("PV") or [])
    else:
        names = ()
    return PreparedQuery(query, parsed, algebra, why, names, vocabulary_notes(parsed))


#: Wikidata vocabulary a mirror holds no data for: (IRI prefix, what it is)
UNMIRRORED = (
    ("http://wikiba.se/ontology#sitelinks", "wikibase:sitelinks (sitelink counts)"),
    ("http://wikiba.se/ontology#statements", "wikibase:statements (statement counts)"),
    ("http://wikiba.se/ontology#identifiers", "wikibase:identifiers"),
    ("http://wikiba.se/ontology#timeValue", "full time values (wikibase:timeValue)"),
    ("http://wikiba.se/ontology#quantityAmount", "full quantity values"),
    ("http://wikiba.se/ontology#geo", "full coordinate values"),
    ("http://www.wikidata.org/prop/statement/value/", "full values (psv:)"),
    ("http://www.wikidata.org/prop/qualifier/value/", "full qualifier values (pqv:)"),
    ("http://www.wikidata.org/prop/reference/", "references (pr:, prov:wasDerivedFrom)"),
    ("http://www.w3.org/ns/prov#", "references (prov:)"),
    ("http://schema.org/about", "sitelinks (schema:about)"),
    ("http://schema.org/isPartOf", "sitelinks (schema:isPartOf)"),
    ("http://schema.org/dateModified", "revision dates (schema:dateModified)"),
    ("http://www.wikidata.org/prop/direct-normalized/", "normalized values (wdtn:)"),
    ("http://www.wikidata.org/value/", "value nodes (wdv:)"),
    ("http://www.w3.org/ns/lemon/ontolex#", "lexeme forms and senses (ontolex:)"),
)


def vocabulary_notes(parsed: ParsedQuery) -> tuple[str, ...]:
    """One note per kind of Wikidata vocabulary ``parsed`` uses that a mirror holds no
    triples for: such patterns match nothing here, while they do on query.wikidata.org.
    Declaring a prefix (``PREFIX prov: <…>``, as pasted WDQS prologues do) is no use."""
    found: list[str] = []
    for node in parsed.walk("prefixed_name", "iri_reference"):
        if node.type == "prefixed_name":
            prefix = parsed.text_of(node).partition(":")[0]
            if not _may_be_unmirrored(parsed.prefixes.get(prefix, "")):
                continue             # most names: decided by their namespace alone
        elif node.parent is not None and node.parent.type in ("prefix_declaration",
                                                              "base_declaration"):
            continue
        iri = parsed.iri(node)
        for prefix, what in UNMIRRORED:
            if iri.startswith(prefix) and what not in found:
                found.append(what)
    return tuple(f"the mirror holds no {what}: patterns using it match nothing here "
                 "(query.wikidata.org has them)" for what in found)


@functools.lru_cache(maxsize=256)
def _may_be_unmirrored(namespace: str) -> bool:
    """Whether a name in ``namespace`` can be an IRI of ``UNMIRRORED``."""
    return any(namespace.startswith(p) or p.startswith(namespace) for p, _ in UNMIRRORED)


#: the largest LIMIT or OFFSET passed on (their sum must fit the engines' 64-bit integers)
MAX_SLICE = 1 << 62


def _clamp_slices(algebra: Any) -> None:
    """A LIMIT or OFFSET past 2**62 means the same as one of 2**62 (no answer has
    that many rows): make it that, so that the engines take it."""
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


def _check_regexes(algebra: Any) -> None:
    """Compile every constant REGEX/REPLACE pattern of ``algebra`` once (RE2): a bad one is
    the user's error (QuerySyntaxError), found before anything runs."""
    from rdflib import Literal

    stack = [algebra]
    while stack:
        node = stack.pop()
        if isinstance(node, CompValue):
            if node.name in _RE2_EVAL:
                pattern, flags = node.get("pattern"), node.get("flags")
                if isinstance(pattern, Literal) and (flags is None or isinstance(flags,
                                                                                  Literal)):
                    compile_regex(str(pattern), str(flags or ""))
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
