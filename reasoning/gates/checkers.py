"""Checkers: do two question-answer pairs agree? (Rowen's consistency checker.)

- ``LLMJudge(llm)``: asks a model with ``prompts.JUDGE`` (greedy, a few tokens) and reads
  the verdict with ``prompts.parse_bool``; a reply that says neither True nor False counts
  as *not* equivalent and is marked ``parsed=False`` in the check. ``sane()`` asks it once
  about two plainly different pairs; a judge that calls both equivalent is degenerate (a small
  model's says True 25 times in 30), and Rowen then uses ``SimilarityChecker`` instead.
- ``SimilarityChecker()``: the cheap checker, no LLM call: the two *answers* (extracted
  from the replies) are equivalent when they normalize to the same text, else when the
  cosine similarity of their MiniLM embeddings (``linking.embeddings.Embedder``, the
  ``embeddings`` extra) reaches ``threshold``. Answers, not whole QA pairs, are embedded:
  the questions are paraphrases of each other and would make every pair look alike.
  MiniLM is an English model: across languages (Rowen-CL) it only matches answers that
  keep their spelling, such as most names in Latin script; prefer the LLM judge there.

A checker may also offer ``check_many(pairs, trace, stage)``, checking a batch at once
(``SimilarityChecker`` embeds all of a decision's answers in one call); gates use it when
it is there, else they run ``check`` on the pairs concurrently.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from reasoning import prompts
from reasoning.gates.base import Trace
from reasoning.llm.base import LLM

if TYPE_CHECKING:                # imported when first needed (numpy, the model)
    from linking.embeddings import Embedder


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

    #: pairs any judge worth asking tells apart
    PROBES = ((QA("What is the capital of France?", "Paris"),
               QA("What is the capital of France?", "Berlin")),
              (QA("Which continent is Japan on?", "Asia"),
               QA("Which continent is Japan on?", "Africa")))

    def sane(self, trace: Trace) -> bool:
        """Whether the judge tells at least one of two plainly different pairs apart
        (``PROBES``): a small model's judge says True to nearly everything; a judge that
        errs now and then passes. Asked once, remembered."""
        if getattr(self, "_sane", None) is None:
            self._sane = not all(self.check(a, b, trace, "check-probe").equivalent
                                 for a, b in self.PROBES)
        return self._sane

    def check(self, a: QA, b: QA, trace: Trace, stage: str) -> Check:
        messages = prompts.JUDGE.render(question1=a.question, answer1=a.answer,
                                        question2=b.question, answer2=b.answer)
        reply = trace.call(stage, "checker", self.llm, messages, max_tokens=self.max_tokens)[0]
        verdict = prompts.parse_bool(reply)
        return Check(bool(verdict), 1.0 if verdict else 0.0, verdict is not None, reply)


class SimilarityChecker:
    """Answer similarity with MiniLM embeddings (see the module docstring)."""

    name = "similarity"

    def __init__(self, embedder: Embedder | None = None, *, threshold: float = 0.8):
        self._embedder = embedder
        self.threshold = threshold
        self._lock = threading.Lock()

    @property
    def embedder(self) -> Embedder:
        with self._lock:
            if self._embedder is None:
                from linking.embeddings import Embedder
                self._embedder = Embedder()
            return self._embedder

    def check(self, a: QA, b: QA, trace: Trace, stage: str) -> Check:
        return self.check_many([(a, b)], trace, stage)[0]

    def check_many(self, pairs: Sequence[tuple[QA, QA]], trace: Trace,
                   stage: str) -> list[Check]:
        answers = [(prompts.extract_answer(a.answer), prompts.extract_answer(b.answer))
                   for a, b in pairs]
        checks: list[Check | None] = []
        texts: list[str] = []
        for x, y in answers:
            if prompts.normalize_answer(x) == prompts.normalize_answer(y):
                checks.append(Check(True, 1.0))
            elif not x or not y:
                checks.append(Check(False, 0.0))
            else:
                checks.append(None)
                texts += [x, y]
        if texts:
            embedder = self.embedder
            with self._lock:        # one encode at a time: the model is shared
                vecs = embedder.encode(list(dict.fromkeys(texts)))
            row = {t: i for i, t in enumerate(dict.fromkeys(texts))}
            for i, (x, y) in enumerate(answers):
                if checks[i] is None:
                    sim = float(vecs[row[x]] @ vecs[row[y]])
                    checks[i] = Check(sim >= self.threshold, sim)
        return [c for c in checks if c is not None]     # every None was filled above
