"""What linking returns: mentions with character offsets, ranked candidates, explanations.

``LinkResult.mentions`` holds one ``LinkedMention`` per span of the text that may name an
entity; each has its candidates best first (``kb.types.Candidate``, whose ``features`` are
the weighted contributions that add up to its ``score``, and whose ``confidence`` is the
calibrated probability that it is the entity meant), ``nil`` (the probability that none of
them is), and can say why the winner won::

    >>> result.mentions[0].why()
    'Q188920 (Delta Air Lines) over Q1785329: match +0.93, prior +0.21'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kb.types import Candidate

#: a best candidate this close to the runner-up (in score) makes a mention ambiguous
AMBIGUITY_MARGIN = 0.05


@dataclass(frozen=True, slots=True)
class Mention:
    """A span of the input text: ``text == source[start:end]``."""
    text: str
    start: int
    end: int

    def as_dict(self) -> dict[str, Any]:
        return {"text": self.text, "start": self.start, "end": self.end}


@dataclass(frozen=True, slots=True)
class LinkedMention:
    """A mention and the entities it may name, best first (empty: nothing matched), and the
    probability ``nil`` that it names none of them."""
    mention: Mention
    candidates: tuple[Candidate, ...] = ()
    nil: float = 1.0

    @property
    def confidence(self) -> float:
        """The best candidate's confidence (0.0 without candidates)."""
        best = self.best
        return best.confidence or 0.0 if best is not None else 0.0

    @property
    def best(self) -> Candidate | None:
        return self.candidates[0] if self.candidates else None

    @property
    def ambiguous(self) -> bool:
        """True when the runner-up scores within ``AMBIGUITY_MARGIN`` of the best."""
        return (len(self.candidates) > 1
                and self.candidates[0].score - self.candidates[1].score < AMBIGUITY_MARGIN)

    def why(self) -> str:
        """One line naming the winner and the features that put it above the runner-up."""
        if not self.candidates:
            return f"{self.mention.text!r}: no candidate"
        best = self.candidates[0]
        head = f"{best.id} ({best.label})"
        if best.confidence is not None:
            head += f" at {best.confidence:.0%}"
        if len(self.candidates) == 1:
            parts = ", ".join(f"{k} {v:+.2f}" for k, v in best.features.items() if v)
            return f"{head}, the only candidate: {parts}"
        second = self.candidates[1]
        gaps = {k: best.features.get(k, 0.0) - second.features.get(k, 0.0)
                for k in {*best.features, *second.features}}
        decisive = sorted((k for k, v in gaps.items() if v > 1e-9), key=lambda k: -gaps[k])
        parts = ", ".join(f"{k} +{gaps[k]:.2f}" for k in decisive) or "tie: the older ID first"
        return f"{head} over {second.id} ({second.label}): {parts}"

    def as_dict(self) -> dict[str, Any]:
        return {**self.mention.as_dict(), "ambiguous": self.ambiguous,
                "nil": round(self.nil, 6), "why": self.why(),
                "candidates": [c.as_dict() for c in self.candidates]}


@dataclass(frozen=True, slots=True)
class LinkResult:
    """The mentions found in (or given for) ``text``, in text order."""
    text: str
    lang: str
    mentions: tuple[LinkedMention, ...] = field(default_factory=tuple)

    def entities(self, min_confidence: float = 0.0) -> list[str]:
        """The best candidate's ID of every mention that has one with at least
        ``min_confidence``."""
        return [m.best.id for m in self.mentions
                if m.best is not None and m.confidence >= min_confidence]

    def as_dict(self) -> dict[str, Any]:
        return {"text": self.text, "lang": self.lang,
                "mentions": [m.as_dict() for m in self.mentions]}
