"""SPARQL over a mirror: the compiled SQL path first, rdflib's evaluator when it must.

``run_sparql`` follows rdflib's ``Graph.query`` pattern: it parses the query
(``kb.sparql_check.prepare``, which refuses updates and foreign SERVICEs and emulates
Wikidata's label service), tries the store's native engine — ``store.sparql_sql`` compiles
the query into one SQL statement — and on ``UnsupportedQuery`` (a NotImplementedError) runs
rdflib's generic evaluator over ``store.rdf_store.MirrorStore``. Both see the same triples.
The result says which engine ran (``engine`` 'sql' or 'rdflib') and why (``explain``: the
SQL, or what the compiler could not do).

Parsing (tree-sitter) and compiling cost tens of microseconds each; both are cached by
query text. rdflib parses a query only when its evaluator runs it.

On a PostgreSQL mirror the SQL path answers every plan written in SQL PostgreSQL reads
alike (``SqlPlan.sqlite_only`` empty: all but SUM/AVG(DISTINCT) and REGEX patterns PostgreSQL
reads otherwise); the others go to rdflib, and ``explain`` says why.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from typing import Any, Iterator, Literal

import rdflib

from kb.sparql_check import PreparedQuery, prepare
from kb.types import SparqlResult
from store.errors import QueryTimeout, UnsupportedQuery
from store.rdf_store import MirrorStore, to_term  # noqa: F401 - re-exported for callers
from store.sparql_sql import SqlPlan, compile_query, pretty_sql

Engine = Literal["auto", "sql", "rdflib"]


def result_from_rdflib(result: Any, *, source: str, engine: str, explain: str = "",
                       order: tuple[str, ...] = (), notes: tuple[str, ...] = ()) -> SparqlResult:
    """An rdflib query result → SparqlResult; ``order``: the SELECT's variables in the
    order to report them (rdflib's own order for ``SELECT *`` varies between runs)."""
    if result.type == "ASK":
        return SparqlResult(boolean=bool(result.askAnswer), source=source, engine=engine,
                            explain=explain)
    if result.type in ("CONSTRUCT", "DESCRIBE"):
        return SparqlResult(graph=result.graph, source=source, engine=engine, explain=explain)
    theirs = [str(v) for v in result.vars]
    names = tuple(order) if order and set(order) <= set(theirs) else tuple(theirs)
    index = [(name, theirs.index(name)) for name in names]
    rows = tuple({name: row[i] for name, i in index if row[i] is not None} for row in result)
    return SparqlResult(vars=names, rows=rows, source=source, engine=engine, explain=explain,
                        notes=notes)


@functools.lru_cache(maxsize=2048)
def plan(query: str, dialect: str = "sqlite") -> tuple[PreparedQuery, SqlPlan | None, str]:
    """(prepared query, its SqlPlan for ``dialect`` or None, why there is none), cached by
    query text. Raises QuerySyntaxError / QueryRefused for queries that must not run."""
    prepared = prepare(query)
    if prepared.algebra is None:
        return prepared, None, prepared.why
    if dialect not in ("sqlite", "postgresql"):
        return prepared, None, f"the SQL compiler writes SQLite's and PostgreSQL's SQL, " \
                               f"not {dialect}'s"
    try:
        return prepared, compile_query(prepared.algebra, dialect), ""
    except UnsupportedQuery as exc:
        return prepared, None, str(exc)


def _with_notes(explain: str, notes: tuple[str, ...]) -> str:
    return explain + "".join(f"\nNote: {n}" for n in notes)


def explain_sql(sql_plan: SqlPlan) -> str:
    return f"SQL over the mirror:\n{pretty_sql(sql_plan.sql)}"


@dataclass
class SparqlStream:
    """A SELECT's solutions as they come (``rows`` is an iterator: memory stays bounded);
    for ASK, CONSTRUCT and DESCRIBE, ``result`` holds the whole answer instead."""
    vars: tuple[str, ...]
    rows: Iterator[dict]
    engine: str
    explain: str
    notes: tuple[str, ...]
    result: SparqlResult | None = None


def stream_sparql(kb: Any, query: str, *, timeout: float | None = None) -> SparqlStream:
    """Like ``run_sparql``, but a SELECT compiled to SQL streams its rows from SQLite (the
    timeout counts from the call and stops the statement). Other answers are whole."""
    mirror = kb.mirror
    prepared, sql_plan, _ = plan(query, mirror.engine.dialect.name)
    if sql_plan is not None and not sql_plan.ask and not sql_plan.unavailable(mirror):
        explain = _with_notes(explain_sql(sql_plan), prepared.notes)
        return SparqlStream(sql_plan.vars, sql_plan.stream(mirror, timeout=timeout), "sql",
                            explain, prepared.notes)
    result = run_sparql(kb, query, timeout=timeout)
    return SparqlStream(result.vars, iter(result.rows), result.engine, result.explain,
                        result.notes, result=None if result.boolean is None and
                        result.graph is None else result)


def run_sparql(kb: Any, query: str, *, timeout: float | None = None,
               engine: Engine = "auto") -> SparqlResult:
    """Answer ``query`` over ``kb``'s mirror. ``engine`` 'sql' raises UnsupportedQuery
    instead of falling back; 'rdflib' skips the compiler (benchmarks, differential tests).
    Raises QueryError when ``timeout`` seconds pass first."""
    mirror = kb.mirror
    prepared, sql_plan, reason = plan(query, mirror.engine.dialect.name)
    unavailable = sql_plan.unavailable(mirror) if sql_plan is not None else ""
    if unavailable:
        sql_plan, reason = None, (f"on {mirror.engine.dialect.name}, the SQL path does not "
                                  f"cover {unavailable}")
    if engine == "sql" and sql_plan is None:
        raise UnsupportedQuery(f"the SQL compiler cannot answer this query: {reason}")
    notes = prepared.notes
    if sql_plan is not None and engine != "rdflib":
        out = sql_plan.run(mirror, timeout=timeout)
        explain = _with_notes(explain_sql(sql_plan), notes)
        if sql_plan.ask:
            return SparqlResult(boolean=out, source=kb.name, engine="sql", explain=explain,
                                notes=notes)
        return SparqlResult(vars=sql_plan.vars, rows=tuple(out), source=kb.name, engine="sql",
                            explain=explain, notes=notes)
    why = "rdflib was asked for" if engine == "rdflib" else f"not compiled to SQL: {reason}"
    deadline = time.monotonic() + timeout if timeout is not None else None
    graph = rdflib.Graph(store=MirrorStore(mirror, deadline=deadline))
    out = result_from_rdflib(graph.query(prepared.evaluable()), source=kb.name, engine="rdflib",
                             explain=_with_notes(f"rdflib's evaluator over the mirror ({why})",
                                                 notes),
                             order=prepared.vars, notes=notes)
    if deadline is not None and time.monotonic() > deadline:
        raise QueryTimeout(timeout)
    return out
