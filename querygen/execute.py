"""Running a generated query on a KB: answers with the statements that support them.

    result = run(query, kb)
    result.answers[0].label, result.answers[0].citations[0].url

A triplet query runs as the triplet query it is (``kb.statements``, narrowed to truthy
statements as ``wdt:`` reads them: preferred ones where a subject has any), so every
answer comes with its statement's ``Citation``. A rule-made SPARQL query that is only its
triple patterns is solved by triplet queries too (``querygen.solve``), each answer cited
by the statements that matched. Any other SPARQL query runs through ``kb.sparql``; its
answers are then cited edge by edge: the query's triple patterns
(``GeneratedQuery.patterns``) are solved once more with every variable selected, and each
pattern, filled in with a solution that yields the answer, is looked up as a statement.
A count is cited by the statements it counted (the first ``CITE_LIMIT``), a true ASK by
the statements that make it true.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any

from kb.base import KnowledgeBase
from kb.types import Citation, SparqlResult, Statement, Value
from querygen.plan import entity_term, property_term, with_prefixes
from querygen.types import GeneratedQuery
from querygen.solve import Unsolvable, solve, truthy
from store.vocab import ENTITY_ID, iri_to_id, property_from_iri

#: answers cited per query (the rest are listed without citations)
CITE_LIMIT = 20


@dataclass(frozen=True, slots=True)
class AnswerItem:
    """One answer: its value (an entity ID in ``value.value`` for ``kind`` entity), its
    label in the asked language, and the statements that support it."""
    value: Value
    label: str
    citations: tuple[Citation, ...] = ()

    @property
    def id(self) -> str | None:
        return self.value.value if self.value.kind in ("entity", "iri") else None

    def as_dict(self) -> dict[str, Any]:
        return {"value": self.value.as_dict(), "label": self.label,
                "citations": [c.as_dict() for c in self.citations]}


@dataclass(frozen=True, slots=True)
class QueryResult:
    """What running one query gave: ``answers`` for a SELECT, ``count`` for a count
    (its answers are the counted items, when run with ``cite``), ``boolean`` for an ASK
    (``support``: the statements that make it true)."""
    query: GeneratedQuery
    answers: tuple[AnswerItem, ...] = ()
    count: int | None = None
    boolean: bool | None = None
    source: str = ""
    #: how it ran: 'statements' (triplet queries) or 'sparql'
    engine: str = ""
    elapsed: float = 0.0
    support: tuple[Citation, ...] = field(default=())

    @property
    def ids(self) -> list[str]:
        """The entity IDs (or literal values) of the answers, in order."""
        return [a.value.value for a in self.answers]

    @property
    def empty(self) -> bool:
        if self.query.form == "ask":
            return self.boolean is None
        if self.query.form == "count":
            return not self.count
        return not self.answers

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"query": self.query.as_dict(), "source": self.source,
                               "engine": self.engine,
                               "elapsed_ms": round(self.elapsed * 1000, 3),
                               "answers": [a.as_dict() for a in self.answers]}
        if self.count is not None:
            out["count"] = self.count
        if self.boolean is not None:
            out["boolean"] = self.boolean
            out["support"] = [c.as_dict() for c in self.support]
        return out


def run(query: GeneratedQuery, kb: KnowledgeBase, *, limit: int = 100, lang: str = "en",
        cite: bool = True, timeout: float | None = None,
        engine: str = "auto") -> QueryResult:
    """Run ``query`` on ``kb`` (see the module docstring); at most ``limit`` answers.

    ``engine``: 'auto' answers a triplet query, and a SPARQL query that is only its triple
    patterns (no ORDER BY or LIMIT), by triplet queries (``querygen.solve``; each answer
    cited by the statements that matched) and anything else by ``kb.sparql``; 'sparql'
    always runs the SPARQL text."""
    if engine not in ("auto", "sparql"):
        raise ValueError(f"engine must be 'auto' or 'sparql', got {engine!r}")
    t0 = time.perf_counter()
    if engine == "auto" and query.kind == "triplet" and query.triple is not None:
        answers, source = _run_triplet(query, kb, limit, lang)
        return QueryResult(query, answers, source=source, engine="statements",
                           elapsed=time.perf_counter() - t0)
    if engine == "auto" and _plain(query):
        try:
            solutions = solve(kb, query.patterns)
        except Unsolvable:
            pass
        else:
            return replace(_from_solutions(query, kb, solutions, limit, lang, cite),
                           elapsed=time.perf_counter() - t0)
    result = kb.sparql(query.text, timeout=timeout)
    return _from_sparql(query, kb, result, limit, lang, cite, t0)


def _from_sparql(query: GeneratedQuery, kb: KnowledgeBase, result: SparqlResult, limit: int,
                 lang: str, cite: bool, t0: float) -> QueryResult:
    """The result of ``query`` from its SPARQL ``result``, by its form: yes/no (with the
    statements that witness a yes), a count (with the counted values witnessed, at most
    ``limit``), or the answer variable's distinct values (at most ``limit``, the first
    ``CITE_LIMIT`` cited). ``t0``: when the run started."""
    if query.form == "ask":
        support = _witness_citations(query, kb, None) if cite and result.boolean else {}
        return QueryResult(query, boolean=bool(result.boolean), source=result.source,
                           support=tuple(c for cs in support.values() for c in cs),
                           engine="sparql", elapsed=time.perf_counter() - t0)
    if query.form == "count":
        values = result.values(result.vars[0]) if result.vars and result.rows else []
        count = int(values[0]) if values else 0
        cited = _witness_citations(query, kb, None) if cite and count else {}
        answers = tuple(_answer(kb, v, lang, cited.get(v, ())) for v in list(cited)[:limit])
        return QueryResult(query, answers, count=count, source=result.source,
                           engine="sparql", elapsed=time.perf_counter() - t0)
    var = query.answer_var or (result.vars[0] if result.vars else "")
    values = list(dict.fromkeys(_value(t) for t in result.values(var)))[:limit]
    cited = _witness_citations(query, kb, {v.value for v in values[:CITE_LIMIT]}) \
        if cite and values else {}
    answers = tuple(_answer(kb, v, lang, cited.get(v.value, ())) for v in values)
    return QueryResult(query, answers, source=result.source, engine="sparql",
                       elapsed=time.perf_counter() - t0)


def _plain(query: GeneratedQuery) -> bool:
    """Whether the query is exactly its triple patterns in its form (no ordering, no
    limit, no filters): then solving the patterns answers it."""
    if not query.patterns or query.strategy != "rules":
        return False
    upper = query.text.upper()
    return not any(k in upper for k in (" ORDER BY", " LIMIT ", "FILTER", "OPTIONAL",
                                        "UNION", "MINUS", "VALUES", "BIND", "SERVICE"))


def _from_solutions(query: GeneratedQuery, kb: KnowledgeBase, solutions: list, limit: int,
                    lang: str, cite: bool) -> QueryResult:
    source = next((st.citation.source for _, sts in solutions for st in sts
                   if st.citation is not None), kb.name)
    if query.form == "ask":
        support = tuple(_citation(st) for st in solutions[0][1]) if solutions and cite else ()
        return QueryResult(query, boolean=bool(solutions), source=source, support=support,
                           engine="statements")
    var = query.answer_var
    grouped: dict[str, list[Citation]] = {}
    kinds: dict[str, Value] = {}
    for binding, statements in solutions:
        value = binding.get(var)
        if value is None:
            continue
        if value not in kinds:
            kinds[value] = next((st.value for st in statements if st.value.value == value),
                                _plain_value(value))
        cites = grouped.setdefault(value, [])
        if cite and len(grouped) <= CITE_LIMIT and not cites:
            cites.extend(_citation(st) for st in statements)
    values = list(grouped)
    count = len(values) if query.form == "count" else None
    if count is not None and not cite:         # a count lists what it counted when citing
        values = []
    answers = tuple(_answer(kb, kinds[v], lang, grouped[v]) for v in values[:limit])
    return QueryResult(query, answers, count=count, source=source, engine="statements")


def _plain_value(v: str) -> Value:
    return Value("entity", v) if ENTITY_ID.match(v) or "://" in v else Value("literal", v)


def _run_triplet(query: GeneratedQuery, kb: KnowledgeBase, limit: int, lang: str
                 ) -> tuple[tuple[AnswerItem, ...], str]:
    assert query.triple is not None          # a triplet query always has its triple
    s, p, o = query.triple
    statements = truthy(kb).statements(s, p, o, limit=limit)
    grouped: dict[tuple[str, str], tuple[Value, list[Citation]]] = {}
    for st in statements:
        if s is None:
            value = Value("entity", st.subject)
        elif p is None:
            value = Value("entity", st.property)
        else:
            value = st.value
        key = (value.kind, value.value)
        grouped.setdefault(key, (value, []))[1].append(_citation(st))
    answers = tuple(_answer(kb, v, lang, cs) for v, cs in grouped.values())
    source = statements[0].citation.source if statements and statements[0].citation else ""
    return answers, source or kb.name


def _citation(st: Statement) -> Citation:
    return st.citation or Citation(st.subject, st.property, st.value, "")


def _value(term: Any) -> Value:
    """An rdflib term from a SPARQL result → a Value (entities by their short ID)."""
    from rdflib import Literal, URIRef

    if isinstance(term, URIRef):
        text = str(term)
        short = property_from_iri(text)        # wdt:P26 → P26 (an (s, ?, o) answer)
        return Value("entity", short if short != text else iri_to_id(text))
    if isinstance(term, Literal):
        return Value("literal", str(term), term.language or "",
                     str(term.datatype) if term.datatype else "")
    return Value("bnode", str(term))


def _answer(kb: KnowledgeBase, value: Value | str, lang: str, citations: Any) -> AnswerItem:
    if isinstance(value, str):
        value = Value("entity", value)
    label = str(value)
    if value.kind in ("entity", "iri"):       # a custom KB's entities are IRIs
        try:
            label = kb.entity(value.value).label(lang)
        except Exception:              # noqa: BLE001 - an ID the KB has no terms for
            label = value.value
    return AnswerItem(value, label, tuple(citations))


def _witness_citations(query: GeneratedQuery, kb: KnowledgeBase, wanted: set[str] | None
                       ) -> dict[str, list[Citation]]:
    """answer value → citations of the statements behind it (every pattern of one
    solution that yields it). ``wanted`` limits the answers cited (None: any)."""
    if not query.patterns:
        return {}
    body = " . ".join(" ".join(_term(t, i == 1) for i, t in enumerate(p))
                      for p in query.patterns)
    var = query.answer_var if query.form == "select" else _first_var(query)
    if wanted and var and all(ENTITY_ID.match(w) for w in wanted):
        # the answers' own statements, not any that match the patterns
        body = f"VALUES ?{var} {{ {' '.join(entity_term(w) for w in sorted(wanted))} }} . " \
            + body
    witness = with_prefixes(f"SELECT * WHERE {{ {body} . }} LIMIT {CITE_LIMIT * 10}")
    try:
        rows = kb.sparql(witness).rows
    except Exception:                  # noqa: BLE001 - citing is best effort
        return {}
    out: dict[str, list[Citation]] = {}
    for row in rows:
        key = _value(row[var]).value if var and var in row else "*"
        if wanted is not None and key not in wanted:
            continue
        if key in out or len(out) >= CITE_LIMIT:
            continue
        cites = []
        for pattern in query.patterns:
            st = _statement(kb, [_bind(t, row) for t in pattern])
            if st is not None:
                cites.append(_citation(st))
        out[key] = cites
    return out


def _first_var(query: GeneratedQuery) -> str:
    if query.form == "count" and query.answer_var:
        return query.answer_var
    for p in query.patterns:
        for t in p:
            if t.startswith("?"):
                return t[1:]
    return ""


def _term(t: str, predicate: bool) -> str:
    if t.startswith(("?", '"', "<", "wdt:", "wd:")):     # variables, literals, paths
        return t
    return property_term(t) if predicate else entity_term(t)


def _bind(t: str, row: Any) -> Any:
    if t.startswith("?"):
        term = row.get(t[1:])
        if term is None:
            return None
        v = _value(term)
        return property_from_iri(str(term)) if v.kind == "entity" and "/prop/" in str(term) \
            else v
    return t


def _statement(kb: KnowledgeBase, parts: list[Any]) -> Statement | None:
    """The statement matching a filled-in pattern (subject, property, value)."""
    s, p, o = parts
    if isinstance(s, Value):
        s = s.value if s.kind in ("entity", "iri") else None
    if isinstance(p, Value):
        p = p.value
    if s is None or p is None or o is None or not isinstance(s, str):
        return None
    try:
        candidates = kb.statements(s, p, limit=200)
    except Exception:                  # noqa: BLE001
        return None
    want = o.value if isinstance(o, Value) else str(o).strip('"')
    for st in candidates:
        if st.value.value == want:
            return st
    return None
