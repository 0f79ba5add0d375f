"""Working memory (LLM-Augmenter): everything one ``Grounder.ask`` knows so far, as one
explicit object the policy reads and the stages write.

- ``question``; ``draft``: the model's initial chain-of-thought answer (None before it,
  and without an LLM); ``decision``: the gate's verdict;
- ``sub_questions`` and ``evidence``: what the knowledge consolidator gathered;
- ``candidates``: the answers written from the evidence, each with its ``utility``
  (``reasoning.utility``); ``feedback``: what the utility module told the model;
- ``history``: every action taken, in order, with a one-line summary.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from reasoning.evidence import Evidence
from reasoning.gates.base import Decision
from reasoning.utility import Utility


@dataclass(frozen=True)
class Draft:
    """The model's own answer: the full reply, the answer read from it
    (``reasoning.replies.answer_of``), and the reply with its tokens' log-probabilities
    when the backend gives them (``reasoning.llm.likelihood.ScoredReply``)."""

    reply: str
    answer: str
    scored: Any = None


@dataclass
class CandidateAnswer:
    """An answer written from the evidence (``round`` 1 is the first, later ones are
    revisions), the reply it came from, and its utility once checked."""

    round: int
    reply: str
    utility: Utility | None = None


@dataclass
class WorkingMemory:
    """The state of one ask (see the module docstring)."""

    question: str
    has_llm: bool
    draft: Draft | None = None
    decision: Decision | None = None
    sub_questions: list[str] = field(default_factory=list)
    evidence: Evidence | None = None
    #: the KB's candidate answers (``reasoning.choice.answer_options``), after retrieve
    options: list[Any] | None = None
    #: the model's choice among them by likelihood (``reasoning.choice.Choice``)
    choice: Any = None
    #: draft before the gate decides (False: the gate needs no draft; it is written only
    #: when the answer falls back to it)
    draft_first: bool = True
    #: a revision came back identical to the answer it revises: no more rounds
    stalled: bool = False
    candidates: list[CandidateAnswer] = field(default_factory=list)
    feedback: list[str] = field(default_factory=list)
    history: list[tuple[str, str]] = field(default_factory=list)
    done: bool = False
    #: the language the question is read in (given, or detected)
    lang: str = "en"

    @property
    def rounds(self) -> int:
        """How many answers were written from the evidence."""
        return len(self.candidates)

    @property
    def utility(self) -> Utility | None:
        """The last candidate's utility."""
        return self.candidates[-1].utility if self.candidates else None

    def best(self) -> CandidateAnswer | None:
        """The candidate to answer with: the last that passed, else the best scored
        (the later one on ties)."""
        checked = [(c, c.utility) for c in self.candidates if c.utility is not None]
        passed = [c for c, u in checked if u.passed]
        if passed:
            return passed[-1]
        if not checked:
            return self.candidates[-1] if self.candidates else None
        return max(reversed(checked), key=lambda cu: cu[1].score)[0]

    def note(self, action: str, summary: str) -> None:
        self.history.append((action, summary))

    def as_dict(self) -> dict[str, Any]:
        return {"question": self.question, "lang": self.lang,
                "draft": self.draft.answer if self.draft else None,
                "consult": self.decision.consult if self.decision else None,
                "sub_questions": list(self.sub_questions),
                "evidence": len(self.evidence.statements) if self.evidence else None,
                "options": [o.text for o in self.options] if self.options is not None
                else None,
                "choice": self.choice.as_dict() if self.choice is not None else None,
                "candidates": [{"round": c.round, "reply": c.reply,
                                "utility": c.utility.as_dict() if c.utility else None}
                               for c in self.candidates],
                "feedback": list(self.feedback),
                "history": [{"action": a, "summary": s} for a, s in self.history]}
