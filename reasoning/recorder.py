"""Recording one ask as it runs: stages with the typed records they produce, LLM calls and
KB calls.

    rec = Recorder(metered_kb.meter)

    def draft(question: str) -> tuple[DraftRecord, str]:
        reply = rec.call("model", llm, messages)[0]
        return DraftRecord(messages, reply, answer_of(reply, question)), reply

    reply = rec.run("draft", draft, question)
    rec.stages        # (StageRecord('draft', seconds, DraftRecord(...), llm_calls, kb_calls),)

A stage's step returns its record (``reasoning.records``) and a result for the caller;
the record is the stage's in the trace. A stage's KB calls are the meter's counts over
the stage; its LLM calls are the calls made through ``call`` (and those ``add_calls``
hands over, e.g. a gate decision's) while it ran. LLM errors propagate, recorded on the
call (the stage is recorded without a record).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any, ParamSpec, TypeVar

from reasoning.answer import StageDetails, StageRecord
from reasoning.gates.base import CallRecord, recorded_call, traced_call
from reasoning.llm.base import LLM, Message
from reasoning.llm.likelihood import ScoredLLM, ScoredReply
from reasoning.metered import KBMeter, meter_delta

T = TypeVar("T")
P = ParamSpec("P")


class Recorder:
    """Collects the stages of one ask (not shared between asks)."""

    def __init__(self, meter: KBMeter | None = None):
        self.meter = meter
        self.started = time.perf_counter()
        self._stages: list[StageRecord] = []
        self._calls: list[CallRecord] | None = None
        self._name = ""

    def run(self, name: str, step: Callable[P, tuple[StageDetails, T]], *args: P.args,
            **kwargs: P.kwargs) -> T:
        """``step(*args, **kwargs)`` as the stage ``name``: the record it returns goes into
        the stage; returns the rest of what it returned."""
        before = self.meter.snapshot() if self.meter else {}
        self._calls, self._name = [], name
        record: StageDetails | None = None
        start = time.perf_counter()
        try:
            record, result = step(*args, **kwargs)
        finally:
            seconds = time.perf_counter() - start
            kb_calls = meter_delta(before, self.meter.snapshot()) if self.meter else {}
            self._stages.append(StageRecord(name, seconds, record, tuple(self._calls),
                                            kb_calls))
            self._calls = None
        return result

    def call(self, role: str, llm: LLM, messages: Sequence[Message], *, n: int = 1,
             temperature: float = 0.0, max_tokens: int | None = None) -> list[str]:
        """``llm.complete(...)``, recorded in the current stage."""
        return recorded_call(self._name, role, llm, messages,
                             record=lambda call: self.add_calls([call]), n=n,
                             temperature=temperature, max_tokens=max_tokens)

    def call_scored(self, role: str, llm: ScoredLLM, messages: Sequence[Message], *,
                    max_tokens: int | None = None,
                    stop: Sequence[str] | None = None) -> ScoredReply:
        """``llm.complete_scored(...)`` (``reasoning.llm.likelihood``), recorded."""
        return traced_call(self._name, role, llm, messages,
                           record=lambda call: self.add_calls([call]),
                           call=lambda: llm.complete_scored(messages, max_tokens=max_tokens,
                                                            stop=stop),
                           kind="complete_scored", replies_of=lambda r: [r.text])

    def record_score(self, role: str, llm: LLM, messages: Sequence[Message],
                     replies: Sequence[str], call: Any) -> Any:
        """``call()`` — ``llm.score(messages, replies)`` — recorded; the record's replies
        are the scored ones with their total log-probabilities."""
        return traced_call(self._name, role, llm, messages,
                           record=lambda rec: self.add_calls([rec]), call=call,
                           kind="score", n=len(replies),
                           replies_of=lambda scores: [f"{r} ({sum(s):.3f})" for r, s in
                                                      zip(replies, scores)])

    def traced(self, llm: LLM, role: str = "model") -> LLM:
        """``llm`` as an object whose ``complete`` calls are recorded in the stage that
        is current when they are made (for components that call the model themselves,
        such as query generation)."""
        return _Traced(self, llm, role)

    def add_calls(self, calls: Iterable[CallRecord]) -> None:
        if self._calls is not None:
            self._calls.extend(calls)

    @property
    def stages(self) -> tuple[StageRecord, ...]:
        return tuple(self._stages)

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self.started


class _Traced:
    """An LLM whose ``complete`` calls go through a ``Recorder`` (``Recorder.traced``)."""

    def __init__(self, rec: Recorder, llm: LLM, role: str):
        self._rec, self._llm, self._role = rec, llm, role
        self.model = getattr(llm, "model", type(llm).__name__)

    def complete(self, messages: Sequence[Message], *, n: int = 1, temperature: float = 0.0,
                 max_tokens: int | None = None, stop: Any = None) -> list[str]:
        return traced_call(self._rec._name, self._role, self._llm, messages,
                           record=lambda call: self._rec.add_calls([call]), n=n,
                           temperature=temperature,
                           call=lambda: self._llm.complete(messages, n=n,
                                                           temperature=temperature,
                                                           max_tokens=max_tokens, stop=stop))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._llm, name)
