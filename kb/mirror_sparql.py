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
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterator, Literal, cast, overload

import rdflib

from kb.sparql_check import PreparedQuery, prepare
from kb.types import SparqlResult
from store.errors import UnsupportedQuery
from store.limits import QueryLimits, bounded, new_limits, stop_check

if TYPE_CHECKING:
    from kb.mirror import MirrorKB
    from store.mirror import Mirror
from store.rdf_store import MirrorStore, to_term  # noqa: F401 - re-exported for callers
from store.sparql_sql import SqlPlan, compile_query, pretty_sql

Engine = Literal["auto", "sql", "rdflib"]
#: SQLite virtual-machine steps between two checks of a query's limits
PROGRESS_STEPS = 10_000


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
    for ASK, CONSTRUCT and DESCRIBE, ``result`` holds the whole answer instead. The
    query's deadline (``store.limits``) holds until the last row: past it, the next row
    raises QueryTimeout, and the rows already taken stay taken."""
    vars: tuple[str, ...]
    rows: Iterator[dict]
    engine: str
    explain: str
    notes: tuple[str, ...]
    result: SparqlResult | None = None


def bounded_rows(query_limits: QueryLimits, rows: Iterator[dict],
                 cleanup: Callable[[], None] | None = None) -> Iterator[dict]:
    """``rows``, each produced under ``query_limits`` (``store.limits.bounded``): the
    deadline and memory budget of the call that made the stream hold for every row.
    ``cleanup`` runs once the rows end, fail or are abandoned."""
    try:
        while True:
            with bounded(query_limits):
                row = next(rows, _END)
            if row is _END:
                return
            yield cast(dict, row)           # not the end: one of ``rows``
    finally:
        try:
            close = getattr(rows, "close", None)
            if close is not None:
                close()                     # stops the statement, ends the evaluation
        finally:
            if cleanup is not None:
                cleanup()


_END = object()


def rdflib_answer(graph: Any, prepared: PreparedQuery, *, source: str, explain: str,
                  notes: tuple[str, ...] = ()) -> SparqlStream:
    """rdflib's evaluator on ``prepared`` over ``graph``: a SELECT's rows lazily, as the
    evaluator makes them (call under ``store.limits.bounded``, and take the rows under it
    too: ``bounded_rows``); other forms whole, in ``result``. The query's rdflib copy is
    dropped when the evaluation fails (``PreparedQuery.forget_evaluable``). rdflib's
    aggregates are repaired first (``kb.rdflib_fixes``)."""
    from rdflib.plugins.sparql.evaluate import evalQuery

    from kb import rdflib_fixes  # noqa: F401 - installs its repairs on import

    query = prepared.evaluable()
    try:
        answer = evalQuery(graph, query, {})
        kind = answer.get("type_")
        if kind == "ASK":
            return SparqlStream((), iter(()), "rdflib", explain, notes, SparqlResult(
                boolean=bool(answer.get("askAnswer")), source=source, engine="rdflib",
                explain=explain, notes=notes))
        if kind in ("CONSTRUCT", "DESCRIBE"):
            return SparqlStream((), iter(()), "rdflib", explain, notes, SparqlResult(
                graph=answer.get("graph"), source=source, engine="rdflib", explain=explain,
                notes=notes))
    except BaseException:
        prepared.forget_evaluable()
        raise
    theirs = [str(v) for v in answer.get("vars_") or ()]
    order = prepared.vars
    names = tuple(order) if order and set(order) <= set(theirs) else tuple(theirs)
    return SparqlStream(names, _rdflib_rows(answer.get("bindings") or iter(()), names,
                                            prepared), "rdflib", explain, notes)


def _rdflib_rows(bindings: Iterator[Any], names: tuple[str, ...],
                 prepared: PreparedQuery) -> Iterator[dict]:
    variables = [(name, rdflib.Variable(name)) for name in names]
    finished = False
    try:
        for solution in bindings:
            if not solution:    # as rdflib's own results do (an empty group: no row)
                continue
            row = {}
            for name, var in variables:
                value = solution.get(var)
                if value is not None:
                    row[name] = value
            yield row
        finished = True
    finally:
        if not finished:
            prepared.forget_evaluable()


@overload
def graph_sparql(graph: Any, query: str, *, source: str, explain: str,
                 timeout: float | None = None, stream: Literal[False] = False
                 ) -> SparqlResult: ...


@overload
def graph_sparql(graph: Any, query: str, *, source: str, explain: str,
                 timeout: float | None = None, stream: Literal[True]) -> SparqlStream: ...


def graph_sparql(graph: Any, query: str, *, source: str, explain: str,
                 timeout: float | None = None, stream: bool = False
                 ) -> SparqlResult | SparqlStream:
    """``query`` over an rdflib ``graph`` by rdflib's evaluator, bounded as every query is
    (``store.limits``): the whole SparqlResult, or with ``stream`` a SparqlStream whose
    rows come as the evaluator makes them, under the same deadline."""
    query_limits = new_limits(timeout)
    with bounded(query_limits):
        answer = rdflib_answer(graph, prepare(query), source=source, explain=explain)
        if answer.result is not None:
            return answer if stream else answer.result
        if not stream:
            return SparqlResult(vars=answer.vars, rows=tuple(answer.rows), source=source,
                                engine="rdflib", explain=explain)
    answer.rows = bounded_rows(query_limits, answer.rows)
    return answer


def stream_sparql(kb: MirrorKB, query: str, *, timeout: float | None = None) -> SparqlStream:
    """Like ``run_sparql``, but a SELECT's rows stream as the engine makes them (from
    SQLite, or from rdflib's evaluator): memory stays bounded, and the deadline counts
    from this call to the last row (see ``SparqlStream``). Other answers are whole."""
    query_limits = new_limits(timeout)
    with bounded(query_limits):
        answer, cleanup = _answer(kb, query, "auto")
    if answer.result is not None:
        return answer
    answer.rows = bounded_rows(query_limits, answer.rows, cleanup)
    return answer


def run_sparql(kb: MirrorKB, query: str, *, timeout: float | None = None,
               engine: Engine = "auto") -> SparqlResult:
    """Answer ``query`` over ``kb``'s mirror. ``engine`` 'sql' raises UnsupportedQuery
    instead of falling back; 'rdflib' skips the compiler (benchmarks, differential tests).
    Raises QueryTimeout when ``timeout`` seconds pass first (None: ``DEFAULT_TIMEOUT``),
    QueryTooLarge past the memory budget, and only kgground's typed errors
    (``store.limits``)."""
    with bounded(new_limits(timeout)):
        answer, cleanup = _answer(kb, query, engine)
        try:
            if answer.result is not None:
                return answer.result
            rows = tuple(answer.rows)
        finally:
            if cleanup is not None:
                cleanup()
        return SparqlResult(vars=answer.vars, rows=rows, source=kb.name, engine=answer.engine,
                            explain=answer.explain, notes=answer.notes)
    raise AssertionError("unreachable")  # pragma: no cover - bounded swallows no exception


def _answer(kb: MirrorKB, query: str, engine: Engine
            ) -> tuple[SparqlStream, Callable[[], None] | None]:
    """The answer of ``query`` over ``kb``'s mirror as a stream (run inside ``bounded``),
    and what to call once its rows are taken (None: nothing)."""
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
        explain = _with_notes(explain_sql(sql_plan), notes)
        if sql_plan.ask:
            return SparqlStream((), iter(()), "sql", explain, notes, SparqlResult(
                boolean=bool(sql_plan.run(mirror)), source=kb.name, engine="sql", explain=explain,
                notes=notes)), None
        return SparqlStream(sql_plan.vars, sql_plan.stream(mirror), "sql", explain,
                            notes), None
    why = "rdflib was asked for" if engine == "rdflib" else f"not compiled to SQL: {reason}"
    explain = _with_notes(f"rdflib's evaluator over the mirror ({why})", notes)
    cleanup = _watch_sqlite(mirror)
    try:
        answer = rdflib_answer(rdflib.Graph(store=MirrorStore(mirror)), prepared,
                               source=kb.name, explain=explain, notes=notes)
    except BaseException:
        if cleanup is not None:
            cleanup()
        raise
    if answer.result is not None and cleanup is not None:
        cleanup()
        cleanup = None
    return answer, cleanup


def _watch_sqlite(mirror: Mirror) -> Callable[[], None] | None:
    """Let the running query's limits stop SQLite inside each of rdflib's lookups (a
    progress handler on this thread's connection to the mirror); the function that
    takes it off again (None when there is nothing to watch)."""
    if not mirror.is_sqlite:
        return None
    stop = stop_check(None)
    if stop is None:
        return None
    conn = mirror.raw.driver_connection
    conn.set_progress_handler(stop, PROGRESS_STEPS)
    return lambda: conn.set_progress_handler(None, 0)
