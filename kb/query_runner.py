"""Running SPARQL queries for a server: a fixed pool of worker threads, a deadline per query.

``QueryRunner(kb, workers=4, timeout=30).run(query)`` returns ``kb.sparql(query)``'s result,
or raises what ``kb.sparql`` raised, or:

- ``QueryTimeout`` when the answer is not ready ``timeout`` seconds after ``run`` was called
  (time spent waiting for a free worker counts). ``run`` returns at the deadline; the worker
  stops the query there too when the KB is a SQLite mirror (a progress handler on the
  worker's connection aborts the statement that is running, and any it starts), and is
  otherwise left to finish it in the background, holding one worker until it does.
- ``ServerBusy`` when ``max_pending`` queries are already waiting or running: a caller
  should answer 503 and ask the client to retry. Also when a query has run
  ``heavy_after`` seconds while ``max_heavy`` long-running queries hold their places
  already: it is stopped, so that the other workers stay free for short queries (a few
  cartesian products no longer block everyone for the whole timeout).
- ``QueryTooLarge`` when the process's memory passes ``max_memory`` bytes while the query
  runs.

Each query runs under ``store.limits``: SQLite's progress handler and rdflib's triple
lookups check its deadline, its place among the long-running queries and the memory, and
a SELECT's rows are fetched up to ``max_rows`` at most (None: all), so that a huge answer
is never built in memory only to be cut by the server.

Why a pool: a mirror keeps one database connection per thread, so queries run on a few
long-lived threads (never on a thread per HTTP connection, which would open and leak a
connection for each), and the pool bounds how many queries use the database at once.
Each worker closes its connection when the runner closes.
"""

from __future__ import annotations

import queue
import sqlite3
import threading
import time
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout

from kb.base import HasMirror, SparqlCapable
from kb.types import SparqlResult
from store.errors import QueryRefused, QuerySyntaxError, QueryTimeout, ServerBusy
from store.limits import QueryLimits, enter, leave

#: SQLite virtual-machine steps between two checks of a query's deadline
PROGRESS_STEPS = 10_000


class _Task:
    __slots__ = ("query", "deadline", "future")

    def __init__(self, query: str, deadline: float):
        self.query, self.deadline = query, deadline
        self.future: Future[SparqlResult] = Future()


class QueryRunner:
    """Runs ``kb.sparql`` on ``workers`` threads, each query with a deadline (see module)."""

    def __init__(self, kb: SparqlCapable, *, workers: int = 4, timeout: float = 30.0,
                 max_pending: int = 64, max_rows: int | None = None,
                 max_memory: int | None = None, max_heavy: int | None = None,
                 heavy_after: float = 1.0):
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        if timeout <= 0:
            raise ValueError(f"timeout must be positive, got {timeout}")
        self.kb, self.timeout, self.max_pending = kb, float(timeout), max_pending
        self.max_rows, self.max_memory, self.heavy_after = max_rows, max_memory, heavy_after
        self.max_heavy = max_heavy if max_heavy is not None else max(1, workers // 2)
        self._heavy = threading.BoundedSemaphore(self.max_heavy)
        self._queue: queue.SimpleQueue[_Task | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._pending = 0
        self._closed = False
        self._threads = [threading.Thread(target=self._work, name=f"sparql-worker-{i}",
                                          daemon=True) for i in range(workers)]
        for t in self._threads:
            t.start()

    @property
    def pending(self) -> int:
        """Queries waiting for a worker or running, as their callers see it."""
        return self._pending

    def run(self, query: str) -> SparqlResult:
        """``kb.sparql(query)``'s result within the timeout (see the module docstring)."""
        with self._lock:
            if self._closed:
                raise RuntimeError("the query runner is closed")
            if self._pending >= self.max_pending:
                raise ServerBusy(self._pending)
            self._pending += 1
        try:
            task = _Task(query, time.monotonic() + self.timeout)
            self._queue.put(task)
            try:
                return task.future.result(timeout=self.timeout)
            except FutureTimeout:
                task.future.cancel()      # still queued: the worker skips it
                raise QueryTimeout(self.timeout) from None
        finally:
            with self._lock:
                self._pending -= 1

    def close(self, wait: float = 5.0) -> None:
        """Stop the workers (after their current query, waiting at most ``wait`` s each)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        for _ in self._threads:
            self._queue.put(None)
        for t in self._threads:
            t.join(wait)

    # -- the worker side ------------------------------------------------------------------------
    def _work(self) -> None:
        try:
            while True:
                task = self._queue.get()
                if task is None:
                    return
                if task.future.set_running_or_notify_cancel():
                    self._answer(task)
        finally:
            mirror = self.kb.mirror if isinstance(self.kb, HasMirror) else None
            if mirror is not None:
                mirror.release()

    def _answer(self, task: _Task) -> None:
        remaining = task.deadline - time.monotonic()
        if remaining <= 0:
            task.future.set_exception(QueryTimeout(self.timeout))
            return
        query_limits = QueryLimits(deadline=task.deadline, timeout=self.timeout,
                                   max_rows=self.max_rows, max_memory=self.max_memory,
                                   heavy_after=self.heavy_after,
                                   become_heavy=lambda: self._heavy.acquire(blocking=False))
        conn = self._sqlite_connection()
        token = enter(query_limits)
        try:
            if conn is not None:
                conn.set_progress_handler(query_limits.check, PROGRESS_STEPS)
            result = self.kb.sparql(task.query, timeout=remaining)
        except Exception as exc:  # handed to the caller, never swallowed
            if query_limits.tripped is not None and not isinstance(
                    exc, (QuerySyntaxError, QueryRefused)):
                exc = query_limits.tripped
            elif (time.monotonic() >= task.deadline
                    and not isinstance(exc, (QuerySyntaxError, QueryRefused))):
                exc = QueryTimeout(self.timeout)
            task.future.set_exception(exc)
        else:
            task.future.set_result(result)
        finally:
            leave(token)
            if query_limits.heavy and not isinstance(query_limits.tripped, ServerBusy):
                self._heavy.release()
            if conn is not None:
                conn.set_progress_handler(None, 0)

    def _sqlite_connection(self) -> sqlite3.Connection | None:
        """This worker's SQLite connection to the KB's mirror, if it has one."""
        mirror = self.kb.mirror if isinstance(self.kb, HasMirror) else None
        if mirror is None or not mirror.is_sqlite:
            return None
        try:
            raw = mirror.raw
        except Exception:  # noqa: BLE001 - no connection: then no progress handler either
            return None
        conn = getattr(raw, "dbapi_connection", raw)
        return conn if isinstance(conn, sqlite3.Connection) else None


__all__ = ["QueryRunner", "QueryTimeout", "ServerBusy"]
