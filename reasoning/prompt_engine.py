"""The prompt engine (LLM-Augmenter): the messages ``Grounder.ask`` sends, built from the
working memory, and the parsing of what comes back that is not an answer.

- ``draft_messages``: the question alone, answered in one short sentence
  (``prompts.DRAFT``: a small model's chain of thought runs long and seldom ends in the
  asked-for 'Answer:' line);
- ``decompose_messages`` / ``parse_sub_questions``: the question broken into simple
  factual sub-questions (``prompts.DECOMPOSE``), earlier answers written ``#1``, ``#2``;
- ``answer_messages``: the numbered evidence and the question (``prompts.GROUNDED``):
  with the KB's candidate answers (``reasoning.choice``), the statements behind them
  ('[n] S — P → O' lines, the question's entities and relations only); without, the
  whole evidence (``Evidence.block``: the lines and the chains through them);
- ``revise_messages``: the same with the previous answer and the utility module's
  feedback (``prompts.REVISE``);
- ``keep_sub_questions``: of a decomposition, the lines that are questions about the
  question's names.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from reasoning import prompts
from reasoning.evidence import Evidence

#: sub-questions kept from a decomposition (more is a model rambling)
MAX_SUB_QUESTIONS = 4
_NUMBERING = re.compile(r"^\s*(?:\d+[.):]|[-*•]|(?:sub-?question|step|q)\s*\d*\s*[:.)])\s*",
                        re.IGNORECASE)


def draft_messages(question: str) -> list[dict[str, str]]:
    return prompts.DRAFT.render(question=question)


def decompose_messages(question: str) -> list[dict[str, str]]:
    return prompts.DECOMPOSE.render(question=question)


def answer_messages(question: str, evidence: Evidence,
                    options: Sequence[Any] | None = None) -> list[dict[str, str]]:
    return prompts.GROUNDED.render(evidence=_block(evidence, options), question=question)


def revise_messages(question: str, evidence: Evidence, previous: str,
                    feedback: str, options: Sequence[Any] | None = None) -> list[dict[str, str]]:
    return prompts.REVISE.render(evidence=_block(evidence, options), question=question,
                                 previous=previous.strip(), feedback=feedback.strip())


def _block(evidence: Evidence, options: Sequence[Any] | None) -> str:
    if options:
        from reasoning.choice import option_block
        return option_block(evidence, options)
    return evidence.block()


_QUESTION_START = re.compile(r"^(?:who|whom|whose|what|which|where|when|why|how|is|are|was|"
                             r"were|do|does|did|can|name|list|give)\b", re.IGNORECASE)


def keep_sub_questions(subs: Sequence[str], question: str) -> list[str]:
    """The sub-questions worth asking: questions (with a '?' or starting like one), each
    naming one of the question's names (a capitalized word after its first; any question
    when it has none) or an earlier answer (#n). A decomposition also returns statements
    ("Skip James is a record label, not a label."); those are dropped."""
    words = question.split()
    names = {prompts.normalize_answer(w) for w in words[1:] if w[:1].isupper()}
    names.discard("")
    out = []
    for sub in subs:
        if not ("?" in sub or _QUESTION_START.match(sub.strip())):
            continue
        said = set(prompts.normalize_answer(sub).split())
        if "#" in sub or names & said or not names:
            out.append(sub)
    return out


def parse_sub_questions(reply: str, question: str) -> list[str]:
    """The sub-questions of a decomposition reply: one per line, numbering and bullets
    removed, at most ``MAX_SUB_QUESTIONS``. A reply naming no sub-question, or only the
    question itself, gives ``[question]``."""
    out = []
    for line in reply.splitlines():
        line = _NUMBERING.sub("", line).strip().strip("\"'`*")
        if not line or line.endswith(":") or len(line.split()) < 2:
            continue
        if line not in out:
            out.append(line)
    out = out[:MAX_SUB_QUESTIONS]
    if not out or (len(out) == 1 and prompts.normalize_answer(out[0]) ==
                   prompts.normalize_answer(question)):
        return [question]
    return out


def fill_in(sub_question: str, answers: dict[int, str]) -> str:
    """``sub_question`` with ``#n`` replaced by the answer to sub-question n (where known)."""
    return re.sub(r"#(\d+)", lambda m: answers.get(int(m.group(1)), m.group(0)), sub_question)
