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
"""

from __future__ import annotations

import functools
import inspect
import threading
import time
from typing import Any


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

    def __init__(self, kb: Any, meter: KBMeter | None = None):
        object.__setattr__(self, "_kb", kb)
        object.__setattr__(self, "meter", meter or KBMeter())
        object.__setattr__(self, "_wrapped", {})

    @property
    def wrapped(self) -> Any:
        """The KB behind the proxy."""
        return self._kb

    def __repr__(self) -> str:
        return f"MeteredKB({self._kb!r})"

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._kb, name)
        if not inspect.ismethod(attr) or name.startswith("__"):
            return attr
        fn = self._wrapped.get(name)
        if fn is None:
            meter = self.meter

            @functools.wraps(attr)
            def fn(*args: Any, **kwargs: Any) -> Any:
                start = time.perf_counter()
                try:
                    return getattr(self._kb, name)(*args, **kwargs)
                finally:
                    meter.add(name, time.perf_counter() - start)
            self._wrapped[name] = fn
        return fn

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._kb, name, value)


def unwrap(kb: Any) -> Any:
    """The KB behind a ``MeteredKB`` (any other KB as it is)."""
    return kb.wrapped if isinstance(kb, MeteredKB) else kb
