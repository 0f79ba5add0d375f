"""SPARQL over a mirror: the compiled SQL path first, rdflib's evaluator when it must.

``run_sparql`` follows rdflib's ``Graph.query`` pattern: it parses the query
(``kb.sparql_check.prepare``, which refuses updates and foreign SERVICEs and emulates
Wikidata's label service), tries the store's native engine — ``store.sparql_sql`` compiles
the query into one SQL statement — and on ``UnsupportedQuery`` (a NotImplementedError) runs
rdflib's generic evaluator over ``store.rdf_store.MirrorStore``. Both see the same triples.
The result says which engine ran (``engine`` 'sql' or 'rdflib') and why (``explain``: the
SQL, or what the compiler could not do).

Parsing costs milliseconds and compiling a little more, so both are cached by query text.
"""

from __future__ import annotations

import functools
import threading
import time
from collections import OrderedDict
from typing import Any, Literal

import rdflib

from kb.sparql_check import prepare
from kb.types import SparqlResult
from store.errors import QueryTimeout, UnsupportedQuery
from store.rdf_store import MirrorStore, to_term  # noqa: F401 - re-exported for callers
from store.sparql_sql import SqlPlan, compile_query, pretty_sql

Engine = Literal["auto", "sql", "rdflib"]


def result_from_rdflib(result: Any, *, source: str, engine: str, explain: str = "") -> SparqlResult:
    """An rdflib query result → SparqlResult."""
    if result.type == "ASK":
        return SparqlResult(boolean=bool(result.askAnswer), source=source, engine=engine,
                            explain=explain)
    if result.type in ("CONSTRUCT", "DESCRIBE"):
        return SparqlResult(graph=result.graph, source=source, engine=engine, explain=explain)
    names = tuple(str(v) for v in result.vars)
    rows = tuple({name: row[i] for i, name in enumerate(names) if row[i] is not None}
                 for row in result)
    return SparqlResult(vars=names, rows=rows, source=source, engine=engine, explain=explain)


@functools.lru_cache(maxsize=2048)
def plan(query: str) -> tuple[Any, SqlPlan | None, str]:
    """(prepared query, its SqlPlan or None, why there is none), cached by query text.
    Raises QuerySyntaxError / QueryRefused for queries that must not run at all."""
    prepared = prepare(query)
    try:
        return prepared, compile_query(prepared.algebra), ""
    except UnsupportedQuery as exc:
        return prepared, None, str(exc)


class _PerThread(threading.local):
    def __init__(self) -> None:
        self.prepared: OrderedDict[str, Any] = OrderedDict()


_per_thread = _PerThread()


def _evaluable(query: str) -> Any:
    """The parsed query for rdflib's evaluator. rdflib writes into a parsed query while it
    evaluates it (``Expr.ctx``), so threads must not share one: each thread parses its own
    copy, once (the shared, cached parse serves the compiler, which only reads it)."""
    cache = _per_thread.prepared
    prepared = cache.get(query)
    if prepared is None:
        prepared = cache[query] = prepare.__wrapped__(query)
        if len(cache) > 256:
            cache.popitem(last=False)
    else:
        cache.move_to_end(query)
    return prepared


def explain_sql(sql_plan: SqlPlan) -> str:
    return f"SQL over the mirror:\n{pretty_sql(sql_plan.sql)}"


def run_sparql(kb: Any, query: str, *, timeout: float | None = None,
               engine: Engine = "auto") -> SparqlResult:
    """Answer ``query`` over ``kb``'s mirror. ``engine`` 'sql' raises UnsupportedQuery
    instead of falling back; 'rdflib' skips the compiler (benchmarks, differential tests).
    Raises QueryError when ``timeout`` seconds pass first."""
    _, sql_plan, reason = plan(query)
    mirror = kb.mirror
    if sql_plan is not None and not mirror.is_sqlite:
        sql_plan, reason = None, "the SQL compiler targets SQLite mirrors"
    if engine == "sql" and sql_plan is None:
        raise UnsupportedQuery(f"the SQL compiler cannot answer this query: {reason}")
    if sql_plan is not None and engine != "rdflib":
        out = sql_plan.run(mirror, timeout=timeout)
        explain = explain_sql(sql_plan)
        if sql_plan.ask:
            return SparqlResult(boolean=out, source=kb.name, engine="sql", explain=explain)
        return SparqlResult(vars=sql_plan.vars, rows=tuple(out), source=kb.name, engine="sql",
                            explain=explain)
    why = "rdflib was asked for" if engine == "rdflib" else f"not compiled to SQL: {reason}"
    deadline = time.monotonic() + timeout if timeout is not None else None
    graph = rdflib.Graph(store=MirrorStore(mirror, deadline=deadline))
    out = result_from_rdflib(graph.query(_evaluable(query)), source=kb.name, engine="rdflib",
                             explain=f"rdflib's evaluator over the mirror ({why})")
    if deadline is not None and time.monotonic() > deadline:
        raise QueryTimeout(timeout)
    return out
