"""What one running query may use: a deadline, a number of result rows, memory, and (for a
server) a place among the few long-running queries allowed at once.

Every query kgground runs locally goes through ``bounded(timeout)`` at its API boundary
(``MirrorKB.sparql``, ``RdfGraphKB.sparql``, their streams): one deadline from the call to
the last row, through every stage (parsing, translation to algebra and SQL, SQLite or
rdflib's evaluator, building the result). ``timeout=None`` means ``DEFAULT_TIMEOUT``;
``math.inf`` means none. Memory is bounded too: a query may grow the process by
``DEFAULT_MEMORY_BUDGET`` bytes over what it held when the query started (a server sets
its own ``max_memory``).

The engines consult ``current()`` where a query can spend long or grow: SQLite's progress
handler (every few thousand steps of the virtual machine), each triple lookup of rdflib's
evaluator over a mirror, the compiler's steps, and the fetching of rows (at most
``max_rows``). ``QueryLimits.check()`` says whether to stop; when it says so, ``tripped``
holds the error to report (``QueryTimeout``, ``QueryTooLarge``, ``ServerBusy``).

Where no engine looks (rdflib's evaluator sorting, grouping or subtracting rows it holds,
in pure Python), a watchdog thread does: a query still running ``GRACE`` seconds after
its limits tripped is interrupted by an exception raised in its thread
(``PyThreadState_SetAsyncExc``), which ``bounded`` turns into the tripped error. Only code
inside ``bounded`` can be interrupted, never inside ``shielded()`` (a connection being
opened) nor while the thread runs code that takes locks written in Python (threading,
logging, SQLAlchemy's pool, imports: see ``_safe_to_interrupt``): what is left behind is
a half-evaluated rdflib query, which the callers drop. ``bounded`` also types what leaves
it: a RecursionError becomes ``QueryTooComplex``, a MemoryError ``QueryTooLarge``, any
other exception a ``QueryError`` naming it.

Memory is the process's own (anonymous resident pages, read from /proc/self/statm; pages
of the memory-mapped mirror file are not counted): a server process runs several queries,
and the one that finds it past ``max_memory`` stops.
"""

from __future__ import annotations

import contextlib
import contextvars
import ctypes
import math
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Literal

from store.errors import (KGGroundError, QueryError, QueryTimeout, QueryTooComplex,
                          QueryTooLarge, ServerBusy, UnsupportedQuery)

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
#: seconds between two reads of the process's memory by one query
MEMORY_CHECK_INTERVAL = 0.05
#: the timeout of a query run without one, in seconds
DEFAULT_TIMEOUT = 60.0
#: bytes a query run without other limits may add to the process's memory
DEFAULT_MEMORY_BUDGET = 768 << 20
#: seconds a query whose limits tripped has to stop by itself before it is interrupted
GRACE = 0.25
#: seconds after which a query still running is interrupted again (an interruption can be
#: lost: one that lands in a finalizer or a generator being closed is only reported)
RESEND = 1.0


def memory_in_use() -> int | None:
    """Bytes of anonymous memory resident in this process (None where /proc is absent)."""
    try:
        with open("/proc/self/statm", "rb") as f:
            fields = f.read().split()
        return (int(fields[1]) - int(fields[2])) * _PAGE
    except (OSError, ValueError, IndexError):
        return None


@dataclass(slots=True)
class QueryLimits:
    """The limits of one query (see the module docstring). ``timeout`` is what the deadline
    was made from, for messages; ``heavy_after`` seconds into the query,
    ``become_heavy()`` is asked for a place among the long-running queries, and the query
    stops (ServerBusy) when it gets none."""
    deadline: float | None = None
    timeout: float | None = None
    max_rows: int | None = None
    max_memory: int | None = None
    heavy_after: float | None = None
    become_heavy: Callable[[], bool] | None = None
    started: float = field(default_factory=time.monotonic)
    tripped: Exception | None = None
    #: when a check first found ``tripped`` (the watchdog's grace counts from there)
    tripped_at: float | None = None
    heavy: bool = False
    #: the limits of the query this one runs inside (a KB called by a server's worker)
    parent: QueryLimits | None = None
    #: for the message of QueryTooLarge: the budget max_memory was made from
    memory_budget: int | None = None
    _memory_checked: float = 0.0
    _heavy_lock: threading.Lock = field(default_factory=threading.Lock)

    def check(self) -> bool:
        """Whether the query must stop now (then ``tripped`` says why). Safe to call from
        another thread (the watchdog) too."""
        if self.tripped is not None:
            return True
        if self._must_stop():
            self.tripped_at = time.monotonic()
            return True
        return False

    def _must_stop(self) -> bool:
        if self.tripped is not None:
            return True
        if self.parent is not None and self.parent.check():
            self.tripped = self.parent.tripped
            return True
        now = time.monotonic()
        if self.deadline is not None and now > self.deadline:
            self.tripped = QueryTimeout(self.timeout or 0.0)
            return True
        if (self.heavy_after is not None and not self.heavy
                and now - self.started > self.heavy_after):
            with self._heavy_lock:
                if self.heavy:
                    return self.tripped is not None
                self.heavy = True
            if self.become_heavy is not None and not self.become_heavy():
                self.tripped = ServerBusy(0, retry_after=5, what=(
                    "too many long-running queries are running already; this one ran "
                    f"{self.heavy_after:g} s and was stopped so that short queries keep "
                    "being answered"))
                return True
        if self.max_memory is not None and now - self._memory_checked > MEMORY_CHECK_INTERVAL:
            self._memory_checked = now
            used = memory_in_use()
            if used is not None and used > self.max_memory:
                self.tripped = _too_large(self.max_memory, self.memory_budget)
                return True
        return False

    def raise_if_stopped(self) -> None:
        """``check()``, raising the error when the query must stop."""
        if self.check():
            assert self.tripped is not None     # check() sets it when it says stop
            raise self.tripped


_current: contextvars.ContextVar[QueryLimits | None] = contextvars.ContextVar(
    "kgground_query_limits", default=None)


def current() -> QueryLimits | None:
    """The limits of the query running in this context, if any."""
    return _current.get()


@contextlib.contextmanager
def limits(query_limits: QueryLimits) -> Iterator[QueryLimits]:
    """Run the block's query under ``query_limits``."""
    token = _current.set(query_limits)
    try:
        yield query_limits
    finally:
        _current.reset(token)


def enter(query_limits: QueryLimits) -> contextvars.Token:
    """``limits()`` without a context manager, for hot paths: the token for ``leave``."""
    return _current.set(query_limits)


def leave(token: contextvars.Token) -> None:
    _current.reset(token)


def stop_check(timeout_deadline: float | None) -> Callable[[], Any] | None:
    """A SQLite progress handler: true once ``timeout_deadline`` (a ``time.monotonic()``
    value) has passed or the current limits say stop; None when there is nothing to
    check."""
    query_limits = current()
    if query_limits is None:
        if timeout_deadline is None:
            return None
        return lambda: time.monotonic() > timeout_deadline
    if timeout_deadline is None:
        return query_limits.check
    return lambda: time.monotonic() > timeout_deadline or query_limits.check()


def _too_large(max_memory: int, budget: int | None) -> QueryTooLarge:
    if budget is None:
        return QueryTooLarge(max_memory)
    return QueryTooLarge(max_memory, what=f"the query needed more than the "
                                          f"{budget / (1 << 20):,.0f} MiB of memory a query "
                                          "may use")


# -- bounded: the deadline and memory budget of one call, enforced ---------------------------

class QueryInterrupted(BaseException):
    """Raised inside a query's thread by the watchdog (never seen outside ``bounded``).
    A BaseException, so that no ``except Exception`` on the way swallows it."""


class _Guard:
    """One thread inside ``bounded``: what the watchdog looks at."""
    __slots__ = ("thread", "limits", "shield", "interrupted_at")

    def __init__(self, thread: int, query_limits: QueryLimits):
        self.thread, self.limits = thread, query_limits
        self.shield = 0
        #: when the watchdog last sent this thread an interruption (None: never)
        self.interrupted_at: float | None = None


_registry: dict[int, list[_Guard]] = {}      # thread id → its guards, innermost last
_registry_lock = threading.Lock()
_wake = threading.Condition(_registry_lock)
_watchdog: threading.Thread | None = None
# PyThreadState_SetAsyncExc with an exception class
_raise_in = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_ulong, ctypes.py_object)(
    ("PyThreadState_SetAsyncExc", ctypes.pythonapi))


def _interrupt(thread: int) -> None:
    """Raise QueryInterrupted in ``thread`` at its next bytecode that checks for it."""
    _raise_in(thread, QueryInterrupted)


def _drain_interruption() -> None:
    """Let an interruption sent to this thread but not raised yet land here, harmlessly
    (every backward jump checks for it). Not cancelled with PyThreadState_SetAsyncExc(id,
    NULL): CPython (3.11, 3.12) then leaves its eval breaker signalled for good, as it is
    only reset when an exception is delivered, which slows every thread and makes a
    function run under sys.setprofile spin for ever."""
    try:
        for _ in range(8):
            pass
    except QueryInterrupted:
        pass


def _watch() -> None:
    """The watchdog: every few hundredths of a second, check each guarded query's limits
    (deadline, memory, its place among heavy queries); interrupt one that tripped and has
    not stopped ``GRACE`` seconds later, and again every ``RESEND`` seconds while it
    runs on."""
    while True:
        with _wake:
            while not _registry:
                _wake.wait()
            guards = [stack[-1] for stack in _registry.values() if stack]
        now = time.monotonic()
        for guard in guards:
            query_limits = guard.limits
            if query_limits.tripped is None and not query_limits.check():
                continue
            if now - (query_limits.tripped_at or now) >= GRACE:
                with _registry_lock:       # still inside ``bounded``, and not shielded?
                    stack = _registry.get(guard.thread)
                    sent = guard.interrupted_at
                    if (stack and stack[-1] is guard and guard.shield == 0
                            and (sent is None or now - sent >= RESEND)
                            and _safe_to_interrupt(guard.thread)):
                        guard.interrupted_at = now
                        _interrupt(guard.thread)
        soonest = min((g.limits.deadline for g in guards if g.limits.deadline is not None),
                      default=math.inf) - time.monotonic()
        time.sleep(min(MEMORY_CHECK_INTERVAL, max(soonest, 0.005)))


#: code an interruption must not land in: it takes locks written in Python (a lock acquired
#: and the exception raised before the ``try`` that releases it would hold it for ever),
#: or keeps state across threads
_UNSAFE_CODE = ("/threading.py", "/logging/", "/queue.py", "/concurrent/", "<frozen importlib",
                "/importlib/", "/multiprocessing/", "/sqlalchemy/", "/socket.py", "/ssl.py",
                "/http/", "/urllib/request.py", "/asyncio/", "/selectors.py",
                "/subprocess.py", "/tempfile.py", "/bz2.py", "/gzip.py", "/lzma.py",
                "/_compression.py", "/store/mirror.py", "/store/locks.py",
                "/store/answer_cache.py", "/store/limits.py")


def _safe_to_interrupt(thread: int) -> bool:
    """Whether ``thread`` is running code an interruption may land in. The exception is
    raised at the thread's next bytecode boundary that checks for it, which comes before
    it can take a lock in a function it has not entered yet: the frame it is in now
    decides (checked while this thread holds the GIL; if unsafe, the next tick retries)."""
    frame = sys._current_frames().get(thread)
    if frame is None:
        return False
    name = frame.f_code.co_filename
    return not any(part in name for part in _UNSAFE_CODE)


def _register(guard: _Guard) -> None:
    global _watchdog
    with _wake:
        _registry.setdefault(guard.thread, []).append(guard)
        if _watchdog is None or not _watchdog.is_alive():
            _watchdog = threading.Thread(target=_watch, name="kgground-query-watchdog",
                                         daemon=True)
            _watchdog.start()
        _wake.notify()


def _unregister(guard: _Guard) -> None:
    with _registry_lock:
        stack = _registry.get(guard.thread)
        if stack and guard in stack:
            stack.remove(guard)
            if not stack:
                del _registry[guard.thread]
    if guard.interrupted_at is not None:    # sent but perhaps not raised yet
        _drain_interruption()


def resolve_timeout(timeout: float | None) -> float | None:
    """A caller's ``timeout`` → seconds, or None for no deadline: None is
    ``DEFAULT_TIMEOUT``, ``math.inf`` is none."""
    if timeout is None:
        return DEFAULT_TIMEOUT
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0 \
            or math.isnan(timeout):
        raise QueryError("a query's timeout must be a positive number of seconds",
                         got=timeout, fix="pass timeout=N (seconds), or math.inf for none")
    return None if math.isinf(timeout) else float(timeout)


def new_limits(timeout: float | None = None, *, memory_budget: int | None = None
               ) -> QueryLimits:
    """The limits of a query starting now: its deadline (see ``resolve_timeout``) and, with
    no server's limits around it, the default memory budget. Inside a server's query
    (``current()`` set), the server's limits stay in force as the parent."""
    seconds = resolve_timeout(timeout)
    now = time.monotonic()
    outer = current()
    deadline = now + seconds if seconds is not None else None
    if outer is not None:
        if deadline is None or (outer.deadline is not None and outer.deadline <= deadline):
            return outer
        return QueryLimits(deadline=deadline, timeout=seconds, parent=outer, started=now)
    budget = DEFAULT_MEMORY_BUDGET if memory_budget is None else memory_budget
    used = memory_in_use()
    return QueryLimits(deadline=deadline, timeout=seconds, started=now,
                       max_memory=used + budget if used is not None else None,
                       memory_budget=budget)


class bounded:  # noqa: N801 - used as a context manager, like contextlib's
    """Run the block under ``query_limits`` (from ``new_limits``): they are ``current()``
    inside, the watchdog enforces them, and what leaves the block is a typed error (see
    the module docstring). Re-entering with the same limits (a stream's next row) keeps
    the same deadline."""

    __slots__ = ("limits", "_guard", "_token")

    def __init__(self, query_limits: QueryLimits):
        self.limits = query_limits

    def __enter__(self) -> QueryLimits:
        self.limits.raise_if_stopped()     # a stream's next row, after the deadline
        self._token = _current.set(self.limits)
        self._guard = _Guard(threading.get_ident(), self.limits)
        _register(self._guard)
        return self.limits

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> Literal[False]:
        while True:                 # a sent interruption may land here, before the drain
            try:
                _unregister(self._guard)
                _current.reset(self._token)
                break
            except QueryInterrupted:
                exc_type, exc = QueryInterrupted, QueryInterrupted()
        if exc_type is None:
            return False
        typed = typed_error(exc, self.limits)
        if typed is exc:
            return False
        raise typed from (None if isinstance(exc, QueryInterrupted) else exc)


def typed_error(exc: BaseException, query_limits: QueryLimits | None = None) -> BaseException:
    """What a query's caller sees for ``exc``: the limits' error once they tripped (an
    interruption, SQLite's 'interrupted', whatever the engine raised on the way out), a
    QueryTooComplex for a RecursionError, a QueryTooLarge for a MemoryError, an
    UnsupportedQuery for a NotImplementedError, a QueryError naming anything else that is
    not kgground's already. KeyboardInterrupt and other BaseExceptions pass."""
    from store.errors import QueryRefused, QuerySyntaxError

    tripped = query_limits.tripped if query_limits is not None else None
    if isinstance(exc, QueryInterrupted):
        return tripped or QueryTimeout(query_limits.timeout or 0.0 if query_limits else 0.0)
    if not isinstance(exc, Exception):
        return exc
    if tripped is not None and (isinstance(exc, QueryError) or not isinstance(
            exc, KGGroundError)) and not isinstance(exc, (QuerySyntaxError, QueryRefused,
                                                          QueryTooComplex)):
        return tripped
    if isinstance(exc, KGGroundError):
        return exc
    if isinstance(exc, RecursionError):
        return QueryTooComplex("it is nested deeper than the evaluator can follow",
                               fix="nest fewer groups, sub-queries or brackets inside one "
                                   "another")
    if isinstance(exc, MemoryError):
        return _too_large(query_limits.max_memory or 0 if query_limits else 0,
                          query_limits.memory_budget if query_limits else None)
    if isinstance(exc, NotImplementedError):
        return UnsupportedQuery(f"this engine cannot answer the query: {exc}")
    return QueryError(f"the query could not be evaluated ({type(exc).__name__}: "
                      f"{str(exc)[:300]})",
                      fix="simplify the query; if it is valid SPARQL, please report this")


@contextlib.contextmanager
def shielded() -> Iterator[None]:
    """A block the watchdog never interrupts (a lock held, a connection being opened);
    the limits are checked again as it ends."""
    stack = _registry.get(threading.get_ident())
    guard = stack[-1] if stack else None
    if guard is None:
        yield
        return
    guard.shield += 1
    try:
        yield
    finally:
        guard.shield -= 1
