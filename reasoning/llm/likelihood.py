"""What a model's probabilities say, for backends that expose them.

Two optional methods, beside ``complete`` (``kb.contracts.LLM``)::

    llm.complete_scored(messages, *, max_tokens=None, stop=None) -> ScoredReply
        the greedy reply with each generated token's log-probability
    llm.score(messages, continuations) -> list[tuple[float, ...]]
        for each continuation, the log-probability of each of its tokens as the start of
        the assistant's reply to ``messages`` (nothing is generated)

``can_score(llm)`` says whether a backend has them (``supports_scoring``): the local
transformers backend does; an OpenAI-compatible server gives ``complete_scored`` when it
returns logprobs (``ScoredReply.logprobs`` is empty when it does not) and no ``score``.
Callers fall back to plain generation where a backend cannot score. The two capabilities
are protocols: ``ScoredLLM`` (``complete_scored``; ``offers_scored(llm)`` tells) and
``ScoringLLM`` (both methods; ``can_score(llm)`` tells).

Why: a small model that cannot write a cited answer can still say which of the KB's
candidate answers it finds likely ("Answer: BBC" against "Answer: none of these"), and
the lowest token log-probability of its own greedy answer is a one-call uncertainty
signal (``--gate likelihood``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeGuard, runtime_checkable

from kb.contracts import LLM, Message


@dataclass(frozen=True)
class ScoredReply:
    """A greedy reply: its text (cut at ``stop``), its tokens as text and their
    log-probabilities (empty when the backend does not give them), and whether generation
    stopped at the token cap rather than at the model's end of reply."""

    text: str
    tokens: tuple[str, ...] = ()
    logprobs: tuple[float, ...] = ()
    truncated: bool = False

    @property
    def scored(self) -> bool:
        return bool(self.logprobs)

    def span_logprobs(self, start: int, end: int) -> tuple[float, ...]:
        """The log-probabilities of the tokens that overlap characters ``start:end`` of
        ``text`` (all of them when the tokens do not spell the text)."""
        if not self.logprobs:
            return ()
        out, pos = [], 0
        for token, lp in zip(self.tokens, self.logprobs):
            nxt = pos + len(token)
            if nxt > start and pos < end:
                out.append(lp)
            pos = nxt
        return tuple(out) or self.logprobs

    def as_dict(self) -> dict[str, Any]:
        return {"text": self.text, "tokens": list(self.tokens),
                "logprobs": [round(x, 4) for x in self.logprobs], "truncated": self.truncated}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ScoredReply:
        return cls(d["text"], tuple(d.get("tokens", ())), tuple(d.get("logprobs", ())),
                   bool(d.get("truncated", False)))


@runtime_checkable
class ScoredLLM(LLM, Protocol):
    """An LLM that can give its greedy reply with the tokens' log-probabilities."""

    def complete_scored(self, messages: Sequence[Message], *, max_tokens: int | None = None,
                        stop: str | Sequence[str] | None = None) -> ScoredReply: ...


@runtime_checkable
class ScoringLLM(ScoredLLM, Protocol):
    """An LLM that also scores given continuations (what ``supports_scoring`` promises)."""

    def score(self, messages: Sequence[Message],
              continuations: Sequence[str]) -> list[tuple[float, ...]]: ...


def can_score(llm: object) -> TypeGuard[ScoringLLM]:
    """Whether ``llm`` offers ``score`` and ``complete_scored`` with probabilities."""
    return bool(getattr(llm, "supports_scoring", False))


def offers_scored(llm: object) -> TypeGuard[ScoredLLM]:
    """Whether ``llm`` has a ``complete_scored`` (whose reply may still lack
    log-probabilities: ``ScoredReply.scored``). A probe of the attribute, which also sees
    one a wrapper forwards through ``__getattr__`` (an ``isinstance`` on ``ScoredLLM``
    does not from Python 3.12)."""
    return callable(getattr(llm, "complete_scored", None))


def mean(logprobs: Sequence[float]) -> float:
    """The mean token log-probability (−inf for none)."""
    return sum(logprobs) / len(logprobs) if logprobs else -math.inf


def softmax(scores: Sequence[float]) -> list[float]:
    """Probabilities in proportion to exp(score)."""
    top = max(scores)
    exps = [math.exp(s - top) for s in scores]
    total = sum(exps)
    return [e / total for e in exps]
