"""``MeteredKB``: a KB that counts the calls made through it, for ``Answer.trace``.

    kb = MeteredKB(base)
    kb.statements("Q42", "P69")          # answered by ``base``, counted
    kb.meter.snapshot()                  # {"statements": {"calls": 1, "seconds": 0.0004}}
    meter_delta(before, kb.meter.snapshot())     # the calls between two snapshots

Every method of the wrapped KB is reachable through the proxy and counted by name: the
``KnowledgeBase`` protocol's (``entity``, ``search``, ``statements``, ``sparql``,
``property_info``) and any other a layer asks for (linking's names-by-key and profile
methods). Attributes that are not methods (``name``, a MirrorKB's ``mirror``) are
returned as they are; work done on those directly (linking's SQL over the mirror's
sidecar) is not counted. Counts are kept per thread (see ``KBMeter``). The proxy adds
about a microsecond per call.

Capabilities. A ``MeteredKB`` offers exactly the capability protocols of the KB it wraps
(``kb.base``: ``Closable``, ``HasLinking``, ``Streaming``, ``HasMirror``, ``HasLocal``,
``HasLive``), each implemented by a real method or property, metered as above:
``isinstance`` on a runtime protocol does not see what ``__getattr__`` forwards (Python
3.12+), so ``MeteredKB(kb)`` is an instance of a subclass that mixes in the members of
each capability ``kb`` has. ``KnowledgeBase``'s own members are methods of ``MeteredKB``.
"""

from __future__ import annotations

import functools
import inspect
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from kb.base import (Closable, HasLinking, HasLive, HasLocal, HasMirror, KnowledgeBase,
                     Streaming)
from kb.types import Candidate, Entity, PropertyInfo, SparqlResult, Statement, Value

if TYPE_CHECKING:
    from kb.linking import LinkingKB
    from store.mirror import Mirror


class KBMeter:
    """Calls and seconds per KB method name, counted per thread: a snapshot holds the
    calls the calling thread made, so asks running in different threads through one
    proxy keep their own counts (calls a component makes from worker threads of its own
    are not in the asking thread's counts)."""

    def __init__(self) -> None:
        self._local = threading.local()

    def _calls(self) -> dict[str, list[float]]:
        calls = getattr(self._local, "calls", None)
        if calls is None:
            calls = self._local.calls = {}
        return calls

    def add(self, method: str, seconds: float) -> None:
        entry = self._calls().setdefault(method, [0, 0.0])
        entry[0] += 1
        entry[1] += seconds

    def snapshot(self) -> dict[str, dict[str, float]]:
        return {m: {"calls": int(c), "seconds": s} for m, (c, s) in self._calls().items()}

    @property
    def total(self) -> int:
        return int(sum(c for c, _ in self._calls().values()))


def meter_delta(before: dict[str, dict[str, float]],
                after: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """The calls made between two snapshots, per method (methods not called left out)."""
    out = {}
    for method, now in after.items():
        was = before.get(method, {"calls": 0, "seconds": 0.0})
        calls = now["calls"] - was["calls"]
        if calls:
            out[method] = {"calls": int(calls),
                           "seconds": round(now["seconds"] - was["seconds"], 6)}
    return out


class MeteredKB:
    """``kb`` with every method call counted in ``meter`` (see the module docstring)."""

    def __new__(cls, kb: KnowledgeBase, meter: KBMeter | None = None) -> MeteredKB:
        if cls is MeteredKB:
            cls = _metered_class(tuple(mixin for proto, mixin in _CAPABILITIES
                                       if isinstance(kb, proto)))
        return object.__new__(cls)

    def __init__(self, kb: KnowledgeBase, meter: KBMeter | None = None):
        object.__setattr__(self, "_kb", kb)
        object.__setattr__(self, "meter", meter or KBMeter())
        object.__setattr__(self, "_wrapped", {})

    _kb: KnowledgeBase
    meter: KBMeter

    @property
    def wrapped(self) -> KnowledgeBase:
        """The KB behind the proxy."""
        return self._kb

    def __repr__(self) -> str:
        return f"MeteredKB({self._kb!r})"

    def _call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        """The wrapped KB's method ``name`` called, and counted (as ``__getattr__``'s)."""
        start = time.perf_counter()
        try:
            return getattr(self._kb, name)(*args, **kwargs)
        finally:
            self.meter.add(name, time.perf_counter() - start)

    # -- KnowledgeBase ----------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self._kb.name

    @name.setter
    def name(self, value: str) -> None:
        self._kb.name = value

    def entity(self, id: str) -> Entity:
        return self._call("entity", id)

    def search(self, text: str, *, lang: str = "en", limit: int = 10) -> list[Candidate]:
        return self._call("search", text, lang=lang, limit=limit)

    def statements(self, subject: str | None = None, property: str | None = None,
                   value: str | Value | None = None, *, limit: int = 100) -> list[Statement]:
        return self._call("statements", subject, property, value, limit=limit)

    def sparql(self, query: str, *, timeout: float | None = None) -> SparqlResult:
        return self._call("sparql", query, timeout=timeout)

    def property_info(self, pid: str) -> PropertyInfo:
        return self._call("property_info", pid)

    # -- anything else the wrapped KB has ---------------------------------------------------
    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._kb, name)
        if not inspect.ismethod(attr) or name.startswith("__"):
            return attr
        fn = self._wrapped.get(name)
        if fn is None:
            call = self._call

            @functools.wraps(attr)
            def fn(*args: Any, **kwargs: Any) -> Any:
                return call(name, *args, **kwargs)
            self._wrapped[name] = fn
        return fn

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._kb, name, value)


# -- the capabilities, each mixed in when the wrapped KB has it (``kb.base``) -----------------

class _MeteredClosable(MeteredKB):
    def close(self) -> None:
        self._call("close")


class _MeteredLinking(MeteredKB):
    def linking(self, *, index_path: str | Path | None = None,
                progress: Any = None) -> LinkingKB:
        # forwarded as called: a FallbackKB's ``linking(**options)`` gets no defaults
        options = {k: v for k, v in (("index_path", index_path), ("progress", progress))
                   if v is not None}
        return self._call("linking", **options)


class _MeteredStreaming(MeteredKB):
    def sparql_stream(self, query: str, *, timeout: float | None = None) -> Any:
        return self._call("sparql_stream", query, timeout=timeout)


class _MeteredMirror(MeteredKB):
    @property
    def mirror(self) -> Mirror:
        return cast(HasMirror, self._kb).mirror


class _MeteredLocal(MeteredKB):
    @property
    def local(self) -> KnowledgeBase:
        return cast(HasLocal, self._kb).local


class _MeteredLive(MeteredKB):
    @property
    def live(self) -> KnowledgeBase | None:
        return cast(HasLive, self._kb).live

    @property
    def offline(self) -> bool:
        return cast(HasLive, self._kb).offline


_CAPABILITIES: tuple[tuple[type, type[MeteredKB]], ...] = (
    (Closable, _MeteredClosable), (HasLinking, _MeteredLinking),
    (Streaming, _MeteredStreaming), (HasMirror, _MeteredMirror), (HasLocal, _MeteredLocal),
    (HasLive, _MeteredLive))


@functools.cache
def _metered_class(mixins: tuple[type[MeteredKB], ...]) -> type[MeteredKB]:
    """MeteredKB with the members of ``mixins`` (one class per set of capabilities)."""
    if not mixins:
        return MeteredKB
    return type("MeteredKB", mixins, {"__module__": __name__,
                                      "__qualname__": "MeteredKB", "__doc__": MeteredKB.__doc__})


def unwrap(kb: KnowledgeBase) -> KnowledgeBase:
    """The KB behind a ``MeteredKB`` (any other KB as it is)."""
    return kb.wrapped if isinstance(kb, MeteredKB) else kb
