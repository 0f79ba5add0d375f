"""What every gate shares: the ``Decision`` it returns, the record of its LLM calls, and
running a stage's independent calls concurrently.

A gate (``Gate``) decides whether a question needs the KB::

    decision = gate.decide("Which party is Gheorghe Pintilie a member of?")
    decision.consult          # True: the model seems unsure, consult the KB
    decision.scores           # e.g. {"z_cl": 0.33, "z_cm": 0.5, "z_hybrid": 0.83}
    decision.calls            # every LLM call: stage, role, messages, params, replies, seconds
    decision.as_dict()        # JSON-ready

LLM errors propagate (``LLMError``); a gate never turns a failed call into a decision.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, runtime_checkable

from reasoning.llm.base import LLM, Message

T = TypeVar("T")
DEFAULT_MAX_WORKERS = 16


@dataclass(frozen=True)
class CallRecord:
    """One LLM call a gate made."""

    stage: str                    # e.g. 'paraphrase', 'answer', 'translate', 'check'
    role: str                     # 'model', 'verifier' or 'checker'
    model: str
    messages: tuple[Mapping[str, str], ...]
    n: int
    temperature: float
    replies: tuple[str, ...]
    seconds: float
    error: str | None = None
    #: tokens read and written, from the backend's usage counters (None: not known; with
    #: calls running concurrently on one backend, the counts of overlapping calls mix)
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    #: what kind of call: 'complete' (generation), 'complete_scored' (generation with
    #: token log-probabilities) or 'score' (log-probabilities of given replies)
    kind: str = "complete"

    def as_dict(self) -> dict[str, Any]:
        return {"stage": self.stage, "role": self.role, "model": self.model,
                "kind": self.kind,
                "messages": [dict(m) for m in self.messages], "n": self.n,
                "temperature": self.temperature, "replies": list(self.replies),
                "seconds": round(self.seconds, 6), "error": self.error,
                "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens}


@dataclass(frozen=True)
class Decision:
    """A gate's verdict: ``consult`` the KB or not, and why.

    ``scores`` are the gate's numbers (higher = more consistent = more confident);
    ``threshold`` the one ``score`` was compared to (consult when ``score < threshold``);
    ``answer`` the model's own answer when the gate produced one (CoK's majority answer);
    ``details`` the intermediate texts (paraphrases, answers, verdicts); ``timings``
    seconds per stage and ``total``.
    """

    gate: str
    consult: bool
    reason: str
    score: float | None = None
    threshold: float | None = None
    scores: Mapping[str, float] = field(default_factory=dict)
    answer: str | None = None
    details: Mapping[str, Any] = field(default_factory=dict)
    calls: tuple[CallRecord, ...] = ()
    timings: Mapping[str, float] = field(default_factory=dict)

    @property
    def n_calls(self) -> int:
        return len(self.calls)

    def as_dict(self) -> dict[str, Any]:
        return {"gate": self.gate, "consult": self.consult, "reason": self.reason,
                "score": self.score, "threshold": self.threshold,
                "scores": dict(self.scores), "answer": self.answer,
                "details": plain(self.details), "n_calls": self.n_calls,
                "calls": [c.as_dict() for c in self.calls],
                "timings": {k: round(v, 6) for k, v in self.timings.items()}}


def plain(value: Any) -> Any:
    """``value`` as JSON-ready data: mappings and sequences copied through, objects with
    ``as_dict`` turned into their dicts, anything else as it is."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if hasattr(value, "as_dict"):
        return value.as_dict()
    return value


def recorded_call(stage: str, role: str, llm: LLM, messages: Sequence[Message], *,
                  record: Callable[[CallRecord], None], n: int = 1,
                  temperature: float = 0.0, max_tokens: int | None = None) -> list[str]:
    """``llm.complete(...)``; the call (replies or error, its time and tokens) goes to
    ``record``, also when it fails. Errors propagate."""
    return traced_call(stage, role, llm, messages, record=record, n=n,
                       temperature=temperature,
                       call=lambda: llm.complete(messages, n=n, temperature=temperature,
                                                 max_tokens=max_tokens))


def traced_call(stage: str, role: str, llm: LLM, messages: Sequence[Message], *,
                record: Callable[[CallRecord], None], call: Callable[[], Any],
                kind: str = "complete", n: int = 1, temperature: float = 0.0,
                replies_of: Callable[[Any], Sequence[str]] = lambda r: r) -> Any:
    """``call()`` — a call of ``llm`` on ``messages`` — recorded like ``recorded_call``
    (``replies_of`` turns its result into the replies the record shows)."""
    start = time.perf_counter()
    before = _usage(llm)
    error: str | None = None
    replies: tuple[str, ...] = ()
    try:
        result = call()
        replies = tuple(replies_of(result))
        return result
    except Exception as exc:
        error = f"{type(exc).__name__}: {exc}"
        raise
    finally:
        after = _usage(llm)
        tokens: tuple[int | None, int | None] = (after.prompt_tokens - before.prompt_tokens,
                  after.completion_tokens - before.completion_tokens) \
            if before is not None and after is not None else (None, None)
        record(CallRecord(stage, role, getattr(llm, "model", type(llm).__name__),
                          tuple(dict(m) for m in messages), n, temperature,
                          replies, time.perf_counter() - start, error, *tokens, kind))


def _usage(llm: LLM) -> Any:
    usage = getattr(llm, "usage", None)
    return usage if hasattr(usage, "prompt_tokens") else None


@runtime_checkable
class Gate(Protocol):
    """A policy deciding when to consult the KB."""

    name: str

    def decide(self, question: str) -> Decision: ...


class Trace:
    """Collects a decision's LLM calls and stage timings (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._calls: list[CallRecord] = []
        self.timings: dict[str, float] = {}
        self._start = time.perf_counter()

    def call(self, stage: str, role: str, llm: LLM, messages: Sequence[Message], *,
             n: int = 1, temperature: float = 0.0, max_tokens: int | None = None) -> list[str]:
        """``llm.complete(...)``, recorded."""
        return recorded_call(stage, role, llm, messages, record=self._add, n=n,
                             temperature=temperature, max_tokens=max_tokens)

    def _add(self, record: CallRecord) -> None:
        with self._lock:
            self._calls.append(record)

    def stage(self, name: str) -> _Stage:
        """``with trace.stage("answer"): ...`` adds the block's wall time to ``timings``."""
        return _Stage(self, name)

    @property
    def calls(self) -> tuple[CallRecord, ...]:
        with self._lock:
            return tuple(self._calls)

    def finish(self) -> dict[str, float]:
        return {**self.timings, "total": time.perf_counter() - self._start}


class _Stage:
    def __init__(self, trace: Trace, name: str):
        self.trace, self.name = trace, name

    def __enter__(self) -> None:
        self.start = time.perf_counter()

    def __exit__(self, *exc: object) -> None:
        spent = time.perf_counter() - self.start
        self.trace.timings[self.name] = self.trace.timings.get(self.name, 0.0) + spent


def run_all(tasks: Sequence[Callable[[], T]], max_workers: int) -> list[T]:
    """Run independent tasks, at most ``max_workers`` at once; results in task order.
    The first exception is raised after every task ended. ``max_workers=1`` runs them in
    order in the calling thread (the sequential baseline)."""
    if max_workers <= 1 or len(tasks) <= 1:
        return [task() for task in tasks]
    with ThreadPoolExecutor(min(max_workers, len(tasks)),
                            thread_name_prefix="kgground-gate") as pool:
        futures = [pool.submit(task) for task in tasks]
        return [f.result() for f in futures]
