"""The prompt engine (LLM-Augmenter): the messages ``Grounder.ask`` sends, built from the
working memory, and the parsing of what comes back that is not an answer.

- ``draft_messages``: the question alone, chain of thought (``prompts.COT``);
- ``decompose_messages`` / ``parse_sub_questions``: the question broken into simple
  factual sub-questions (``prompts.DECOMPOSE``), earlier answers written ``#1``, ``#2``;
- ``answer_messages``: the numbered evidence (``Evidence.block``: '[n] S — P → O' lines and
  the chains through them) and the question (``prompts.GROUNDED``);
- ``revise_messages``: the same with the previous answer and the utility module's
  feedback (``prompts.REVISE``).
"""

from __future__ import annotations

import re

from reasoning import prompts
from reasoning.evidence import Evidence
from reasoning.llm.base import Message

#: sub-questions kept from a decomposition (more is a model rambling)
MAX_SUB_QUESTIONS = 4
_NUMBERING = re.compile(r"^\s*(?:\d+[.):]|[-*•]|(?:sub-?question|step|q)\s*\d*\s*[:.)])\s*",
                        re.IGNORECASE)


def draft_messages(question: str) -> list[Message]:
    return prompts.COT.render(question=question)


def decompose_messages(question: str) -> list[Message]:
    return prompts.DECOMPOSE.render(question=question)


def answer_messages(question: str, evidence: Evidence) -> list[Message]:
    return prompts.GROUNDED.render(evidence=evidence.block(), question=question)


def revise_messages(question: str, evidence: Evidence, previous: str,
                    feedback: str) -> list[Message]:
    return prompts.REVISE.render(evidence=evidence.block(), question=question,
                                 previous=previous.strip(), feedback=feedback.strip())


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
