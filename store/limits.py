"""What one running query may use: a deadline, a number of result rows, memory, and (for a
server) a place among the few long-running queries allowed at once.

A server (``kb.query_runner``) runs each query inside ``limits(QueryLimits(...))``; the
engines consult ``current()`` where a query can spend long or grow: SQLite's progress
handler (every few thousand steps of the virtual machine), each triple lookup of rdflib's
evaluator, and the fetching of rows (at most ``max_rows``). ``QueryLimits.check()`` says
whether to stop; when it says so, ``tripped`` holds the error to report (``QueryTimeout``,
``QueryTooLarge``, ``ServerBusy``). Outside ``limits()`` nothing is limited here.

Memory is the process's own (anonymous resident pages, read from /proc/self/statm; pages
of the memory-mapped mirror file are not counted): a server process runs several queries,
and the one that finds it past ``max_memory`` stops.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from store.errors import QueryTimeout, QueryTooLarge, ServerBusy

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
#: seconds between two reads of the process's memory by one query
MEMORY_CHECK_INTERVAL = 0.05


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
    heavy: bool = False
    _memory_checked: float = 0.0

    def check(self) -> bool:
        """Whether the query must stop now (then ``tripped`` says why)."""
        if self.tripped is not None:
            return True
        now = time.monotonic()
        if self.deadline is not None and now > self.deadline:
            self.tripped = QueryTimeout(self.timeout or 0.0)
            return True
        if (self.heavy_after is not None and not self.heavy
                and now - self.started > self.heavy_after):
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
                self.tripped = QueryTooLarge(self.max_memory)
                return True
        return False

    def raise_if_stopped(self) -> None:
        """``check()``, raising the error when the query must stop."""
        if self.check():
            raise self.tripped  # type: ignore[misc]


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
