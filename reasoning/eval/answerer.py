"""What the evaluation asks of a question answerer, and the one kgground ships.

An ``Answerer`` is any object with ``answer(question, lang) -> Prediction``. The harness
never answers questions itself: ``GrounderAnswerer`` adapts ``reasoning.Grounder.ask``
(one ``Grounder`` per question language, built on first use by the factory it is given).
``ScriptedAnswerer`` answers from a table written in advance, for testing the harness
and for scoring answers produced elsewhere.

A ``Prediction`` carries what the report needs: the predicted answers (``answers``,
entities by ID where the answerer linked them), or, when the answer is only words
(``free_text``: a model answering without the KB), its text to be read by label; who
answered (``mode``: ``kb``, ``llm``, ``llm+kb``); whether the KB was consulted; the gate's
decision and score; the model's own first answer (``draft``, for the consistency plot);
LLM and KB calls; the full trace (written beside the report); whether the answer is
called grounded and its confidence (the risk–coverage curve and the count of wrong
answers called grounded are computed from them).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from reasoning.eval import answers as A
from reasoning.eval.answers import AnswerItem


@dataclass(frozen=True)
class Prediction:
    """One answered question (see the module docstring)."""

    answers: tuple[AnswerItem, ...] = ()
    text: str = ""
    free_text: bool = False
    mode: str = "kb"
    consulted: bool = True
    decision: Mapping[str, Any] | None = None
    draft: str | None = None
    llm_calls: int = 0
    kb_calls: int = 0
    trace: Mapping[str, Any] | None = field(default=None, compare=False)
    #: whether the answerer calls its answer grounded in the KB, and how sure it is
    grounded: bool | None = None
    confidence: float | None = None

    @property
    def gate_score(self) -> float | None:
        return (self.decision or {}).get("score")


@runtime_checkable
class Answerer(Protocol):
    def answer(self, question: str, lang: str = "en") -> Prediction: ...


class GrounderAnswerer:
    """``Grounder.ask`` as an ``Answerer``. ``factory(lang)`` builds the Grounder for a
    question language (called once per language, under a lock)."""

    def __init__(self, factory: Callable[[str], Any]):
        self._factory = factory
        self._grounders: dict[str, Any] = {}
        self._lock = threading.Lock()

    def grounder(self, lang: str) -> Any:
        with self._lock:
            if lang not in self._grounders:
                self._grounders[lang] = self._factory(lang)
            return self._grounders[lang]

    def warm_up(self, lang: str, question: str) -> None:
        """Build the language's Grounder and link ``question`` once before the clock
        runs: the linker's first use loads its indexes (seconds that are no question's
        latency), and over a live endpoint the endpoint's property list (minutes, the
        first time a name is not in the mirror). No model is called."""
        linker = getattr(self.grounder(lang), "linker", None)
        if linker is not None:
            linker.link(question, lang=lang)
            from kb.linking import WarmsUp

            source = getattr(linker, "source", None)
            if isinstance(source, WarmsUp):
                source.warm_up()

    def answer(self, question: str, lang: str = "en") -> Prediction:
        return from_answer(self.grounder(lang).ask(question))


def from_answer(answer: Any) -> Prediction:
    """A ``reasoning.Answer`` as a ``Prediction``."""
    items = []
    for v in answer.values:
        if v.id:
            items.append(A.entity(v.id, (v.label,) if v.label else ()))
        elif v.label:
            items.append(A.literal(v.label))
    free = not items and answer.mode != "kb"
    text = answer.text if answer.mode != "kb" or items else ""
    decision = answer.decision.as_dict() if answer.decision is not None else None
    if decision is not None:
        decision = {k: v for k, v in decision.items() if k not in ("calls", "details")}
    draft_stage = answer.trace.stage("draft")
    draft = draft_stage.details.get("answer") if draft_stage is not None else None
    consulted = answer.mode != "llm" or bool(decision and decision.get("consult"))
    return Prediction(tuple(items), text, free, answer.mode, consulted, decision, draft,
                      answer.trace.n_llm_calls, answer.trace.n_kb_calls, answer.as_dict(),
                      grounded=bool(answer.grounded),
                      confidence=getattr(answer, "confidence", None))


class ScriptedAnswerer:
    """Answers written in advance: ``table`` maps a question (or ``question@lang``) to a
    ``Prediction``, a list of answers (IDs or values) or a text (free text); questions not
    in it get an empty answer. ``delay`` seconds are slept per question (progress and
    interruption tests); ``fail`` maps questions to an exception to raise."""

    def __init__(self, table: Mapping[str, Any], *, delay: float = 0.0,
                 fail: Mapping[str, BaseException] | None = None):
        self.table, self.delay, self.fail = dict(table), delay, dict(fail or {})
        self.asked: list[tuple[str, str]] = []
        self._lock = threading.Lock()

    def answer(self, question: str, lang: str = "en") -> Prediction:
        with self._lock:
            self.asked.append((question, lang))
        if self.delay:
            time.sleep(self.delay)
        key = f"{question}@{lang}" if f"{question}@{lang}" in self.table else question
        if key in self.fail:
            raise self.fail[key]
        value = self.table.get(key)
        if value is None:
            return Prediction()
        if isinstance(value, Prediction):
            return value
        if isinstance(value, str):
            return Prediction(text=value, free_text=True, mode="llm", consulted=False)
        items = tuple(A.entity(v) if isinstance(v, str) and A.entity_id(v) else A.literal(v)
                      for v in value)
        return Prediction(items, ", ".join(str(v) for v in value))
