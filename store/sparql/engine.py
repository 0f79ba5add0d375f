"""SPARQL over a mirror: the compiled SQL path first, rdflib's evaluator when it must.

``run`` follows rdflib's ``Graph.query`` pattern: it parses the query
(``store.sparql.prepared.prepare``, which refuses updates and foreign SERVICEs and emulates
Wikidata's label service), tries the store's native engine — ``store.sparql.sql`` compiles
the query into one SQL statement — and on ``UnsupportedQuery`` (a NotImplementedError) runs
rdflib's generic evaluator over ``store.rdf_store.MirrorStore``. Both see the same triples.
The result says which engine ran (``engine`` 'sql' or 'rdflib') and why (``explain``: the
SQL, or what the compiler could not do). Over an rdflib ``Graph``, ``run`` is rdflib's
evaluator alone. ``run`` is the engine's one entry point (``store.sparql.run``).

Parsing (tree-sitter) and compiling cost tens of microseconds each; both are cached by
query text. rdflib parses a query only when its evaluator runs it.

On a PostgreSQL mirror the SQL path answers every plan written in SQL PostgreSQL reads
alike (``SqlPlan.sqlite_only`` empty: all but SUM/AVG(DISTINCT) and REGEX patterns PostgreSQL
reads otherwise); the others go to rdflib, and ``explain`` says why.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterator, Literal, cast

import rdflib

from store.errors import UnsupportedQuery
from store.limits import QueryLimits, bounded, new_limits, stop_check
from store.sparql.prepared import PreparedQuery, prepare

if TYPE_CHECKING:       # the SQL side (SQLAlchemy, the compiler) loads on a mirror's first query
    from store.mirror import Mirror
    from store.sparql.sql import SqlPlan

Engine = Literal["auto", "sql", "rdflib"]
#: SQLite virtual-machine steps between two checks of a query's limits
PROGRESS_STEPS = 10_000
#: what ``Answer.explain`` says of a query over an rdflib Graph
GRAPH_EXPLAIN = "rdflib's SPARQL evaluator"


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
    from store.sparql.sql import compile_query

    try:
        return prepared, compile_query(prepared.algebra, dialect), ""
    except UnsupportedQuery as exc:
        return prepared, None, str(exc)


def _with_notes(explain: str, notes: tuple[str, ...]) -> str:
    return explain + "".join(f"\nNote: {n}" for n in notes)


def explain_sql(sql_plan: SqlPlan) -> str:
    """``Answer.explain`` of a query the SQL path answers: its SQL, laid out."""
    from store.sparql.sql import pretty_sql

    return f"SQL over the mirror:\n{pretty_sql(sql_plan.sql)}"


@dataclass
class Answer:
    """A query's answer (``run``). SELECT: ``vars`` and ``rows``, one dict per solution
    (variable name → rdflib term; unbound variables absent), a tuple, or with ``run``'s
    ``stream`` an iterator whose rows come as the engine makes them, under the query's
    deadline: past it, the next row raises QueryTimeout, and the rows already taken stay
    taken. ASK: ``boolean``; CONSTRUCT and DESCRIBE: ``graph`` (an rdflib Graph); both
    with no vars and no rows. ``engine``: 'sql' or 'rdflib'; ``explain``: the SQL, or why
    rdflib ran; ``notes``: what the query asks that a mirror holds no data for, each one
    sentence."""
    vars: tuple[str, ...]
    rows: Iterable[dict]
    engine: str
    explain: str
    notes: tuple[str, ...] = ()
    boolean: bool | None = None
    graph: Any = None

    @property
    def whole(self) -> bool:
        """Whether this is an ASK, CONSTRUCT or DESCRIBE answer (no rows to take)."""
        return self.boolean is not None or self.graph is not None


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


def rdflib_answer(graph: Any, prepared: PreparedQuery, *, explain: str,
                  notes: tuple[str, ...] = ()) -> Answer:
    """rdflib's evaluator on ``prepared`` over ``graph``: a SELECT's rows lazily, as the
    evaluator makes them (call under ``store.limits.bounded``, and take the rows under it
    too: ``bounded_rows``); other forms whole. The query's rdflib copy is dropped when the
    evaluation fails (``PreparedQuery.forget_evaluable``). rdflib's aggregates are
    repaired first (``store.sparql.rdflib_fixes``)."""
    from rdflib.plugins.sparql.evaluate import evalQuery

    from store.sparql import rdflib_fixes  # noqa: F401 - installs its repairs on import

    query = prepared.evaluable()
    try:
        answer = evalQuery(graph, query, {})
        kind = answer.get("type_")
        if kind == "ASK":
            return Answer((), (), "rdflib", explain, notes,
                          boolean=bool(answer.get("askAnswer")))
        if kind in ("CONSTRUCT", "DESCRIBE"):
            return Answer((), (), "rdflib", explain, notes, graph=answer.get("graph"))
    except BaseException:
        prepared.forget_evaluable()
        raise
    theirs = [str(v) for v in answer.get("vars_") or ()]
    order = prepared.vars
    names = tuple(order) if order and set(order) <= set(theirs) else tuple(theirs)
    return Answer(names, _rdflib_rows(answer.get("bindings") or iter(()), names, prepared),
                  "rdflib", explain, notes)


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


def run(target: Mirror | rdflib.Graph, query: str, *, timeout: float | None = None,
        engine: Engine = "auto", stream: bool = False) -> Answer:
    """Answer ``query`` over ``target``: a mirror (the SQL path, else rdflib's evaluator
    over it) or an rdflib Graph (rdflib's evaluator). ``engine`` 'sql' raises
    UnsupportedQuery instead of falling back (and always over a Graph); 'rdflib' skips the
    compiler (benchmarks, differential tests). Without ``stream`` a SELECT's rows are all
    taken before this returns; with it they come one by one (see ``Answer``): memory stays
    bounded, and the deadline counts from this call to the last row.

    Raises QuerySyntaxError / QueryRefused / QueryTooComplex for a query that must not
    run, QueryTimeout when ``timeout`` seconds pass first (None: ``DEFAULT_TIMEOUT``),
    QueryTooLarge past the memory budget, and only kgground's typed errors
    (``store.limits``)."""
    query_limits = new_limits(timeout)
    with bounded(query_limits):
        if isinstance(target, rdflib.Graph):
            answer, cleanup = _graph_answer(target, query, engine), None
        else:
            answer, cleanup = _answer(target, query, engine)
        if answer.whole or not stream:
            try:
                answer.rows = tuple(answer.rows)
            finally:
                if cleanup is not None:
                    cleanup()
            return answer
    answer.rows = bounded_rows(query_limits, iter(answer.rows), cleanup)
    return answer


def _answer(mirror: Mirror, query: str, engine: Engine
            ) -> tuple[Answer, Callable[[], None] | None]:
    """The answer of ``query`` over ``mirror`` with its rows still to take (run inside
    ``bounded``), and what to call once they are taken (None: nothing)."""
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
            return Answer((), (), "sql", explain, notes,
                          boolean=bool(sql_plan.run(mirror))), None
        return Answer(sql_plan.vars, sql_plan.stream(mirror), "sql", explain, notes), None
    why = "rdflib was asked for" if engine == "rdflib" else f"not compiled to SQL: {reason}"
    explain = _with_notes(f"rdflib's evaluator over the mirror ({why})", notes)
    from store.rdf_store import MirrorStore

    cleanup = _watch_sqlite(mirror)
    try:
        answer = rdflib_answer(rdflib.Graph(store=MirrorStore(mirror)), prepared,
                               explain=explain, notes=notes)
    except BaseException:
        if cleanup is not None:
            cleanup()
        raise
    if answer.whole and cleanup is not None:
        cleanup()
        cleanup = None
    return answer, cleanup


def _graph_answer(graph: rdflib.Graph, query: str, engine: Engine) -> Answer:
    """The answer of ``query`` over an rdflib ``graph`` by rdflib's evaluator, its rows
    still to take (run inside ``bounded``)."""
    if engine == "sql":
        raise UnsupportedQuery("the SQL compiler answers over a mirror, not an rdflib Graph")
    return rdflib_answer(graph, prepare(query), explain=GRAPH_EXPLAIN)


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
