"""Checkers: do two question-answer pairs agree? (Rowen's consistency checker.)

- ``LLMJudge(llm)``: asks a model with ``prompts.JUDGE`` (greedy, a few tokens) and reads
  the verdict with ``prompts.parse_bool``; a reply that says neither True nor False counts
  as *not* equivalent and is marked ``parsed=False`` in the check.
- ``SimilarityChecker()``: the cheap checker, no LLM call: the two *answers* (extracted
  from the replies) are equivalent when they normalize to the same text, else when the
  cosine similarity of their MiniLM embeddings (``linking.embeddings.Embedder``, the
  ``embeddings`` extra) reaches ``threshold``. Answers, not whole QA pairs, are embedded:
  the questions are paraphrases of each other and would make every pair look alike.
  MiniLM is an English model: across languages (Rowen-CL) it only matches answers that
  keep their spelling, such as most names in Latin script; prefer the LLM judge there.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from reasoning import prompts
from reasoning.gates.base import Trace
from reasoning.llm.base import LLM


@dataclass(frozen=True)
class QA:
    question: str
    answer: str


@dataclass(frozen=True)
class Check:
    equivalent: bool
    score: float              # 1.0/0.0 for a judge; the similarity for SimilarityChecker
    parsed: bool = True       # False: the judge's reply said neither True nor False
    raw: str | None = None

    def as_dict(self) -> dict:
        return {"equivalent": self.equivalent, "score": round(self.score, 6),
                "parsed": self.parsed, "raw": self.raw}


@runtime_checkable
class Checker(Protocol):
    name: str

    def check(self, a: QA, b: QA, trace: Trace, stage: str) -> Check: ...


class LLMJudge:
    """An LLM deciding equivalence (see the module docstring)."""

    name = "llm-judge"

    def __init__(self, llm: LLM, *, max_tokens: int = 8):
        self.llm, self.max_tokens = llm, max_tokens

    def check(self, a: QA, b: QA, trace: Trace, stage: str) -> Check:
        messages = prompts.JUDGE.render(question1=a.question, answer1=a.answer,
                                        question2=b.question, answer2=b.answer)
        reply = trace.call(stage, "checker", self.llm, messages, max_tokens=self.max_tokens)[0]
        verdict = prompts.parse_bool(reply)
        return Check(bool(verdict), 1.0 if verdict else 0.0, verdict is not None, reply)


class SimilarityChecker:
    """Answer similarity with MiniLM embeddings (see the module docstring)."""

    name = "similarity"

    def __init__(self, embedder=None, *, threshold: float = 0.8):
        self._embedder = embedder
        self.threshold = threshold
        self._lock = threading.Lock()

    @property
    def embedder(self):
        with self._lock:
            if self._embedder is None:
                from linking.embeddings import Embedder
                self._embedder = Embedder()
            return self._embedder

    def check(self, a: QA, b: QA, trace: Trace, stage: str) -> Check:
        x, y = prompts.extract_answer(a.answer), prompts.extract_answer(b.answer)
        if prompts.normalize_answer(x) == prompts.normalize_answer(y):
            return Check(True, 1.0)
        if not x or not y:
            return Check(False, 0.0)
        embedder = self.embedder
        with self._lock:            # one encode at a time: the model is shared
            sim = embedder.similarities(x, [y])[0]
        return Check(sim >= self.threshold, sim)
