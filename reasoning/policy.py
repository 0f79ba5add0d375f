"""The policy (LLM-Augmenter): which action comes next, by rules over the working memory.

Actions, in the order the rules usually take them:

``draft``     the model answers on its own, thinking step by step (with an LLM only)
``decide``    the gate decides whether to consult the KB; a draft that abstains ("I don't
              know") consults without asking the gate
``retrieve``  the knowledge consolidator gathers numbered evidence (sub-questions, queries,
              linking, chains)
``answer``    the model answers from the numbered evidence, citing it
``verify``    the utility module checks the last answer and writes feedback
``revise``    the model answers again, given the feedback (until ``max_rounds`` answers)
``finish``    compose the ``Answer``

Without an LLM the rules are ``retrieve`` then ``finish`` (the KB's own answer). With one:
no consult → ``finish`` with the draft; no evidence, or no candidate answer in it →
``finish`` with the draft, marked not grounded; a choice by likelihood (``answer`` with a
model that scores) → ``finish``; a written answer that passes → ``finish``; one that fails
→ ``revise`` while rounds remain and the last revision was not the same answer again,
else ``finish`` with the best candidate. The draft comes first, unless the gate needs
none (``always``): then it is written only when the answer falls back to it.
"""

from __future__ import annotations

from enum import Enum

from reasoning.memory import WorkingMemory


class Action(str, Enum):
    DRAFT = "draft"
    DECIDE = "decide"
    RETRIEVE = "retrieve"
    ANSWER = "answer"
    VERIFY = "verify"
    REVISE = "revise"
    FINISH = "finish"


class RulePolicy:
    """The rules above; ``max_rounds`` bounds the answers written from evidence (the
    first and its revisions)."""

    def __init__(self, max_rounds: int = 3):
        if not isinstance(max_rounds, int) or max_rounds < 1:
            raise ValueError(f"max_rounds must be a positive integer, got {max_rounds!r}")
        self.max_rounds = max_rounds

    def next(self, m: WorkingMemory) -> Action:
        if m.done:
            return Action.FINISH
        if not m.has_llm:
            return Action.RETRIEVE if m.evidence is None else Action.FINISH
        if m.draft is None and m.draft_first:
            return Action.DRAFT
        if m.decision is None:
            return Action.DECIDE
        if not m.decision.consult:
            return Action.DRAFT if m.draft is None else Action.FINISH
        if m.evidence is None:
            return Action.RETRIEVE
        if m.evidence.empty or m.options == []:
            return Action.DRAFT if m.draft is None else Action.FINISH
        if m.choice is not None:
            return Action.FINISH
        if not m.candidates:
            return Action.ANSWER
        if m.utility is None:
            return Action.VERIFY
        if m.utility.passed or m.rounds >= self.max_rounds or m.stalled:
            return Action.FINISH
        return Action.REVISE
