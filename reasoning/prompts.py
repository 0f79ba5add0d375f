"""The prompts reasoning sends to LLMs, and the parsers of their replies.

Each ``Prompt`` is a task a real instruction-following model does from the text alone
(answer, reason step by step, paraphrase, translate, judge two QA pairs; and for
``Grounder.ask``: decompose a question, answer from numbered evidence citing it, revise
an answer given feedback). ``Prompt.render``
builds the chat messages; ``Prompt.match`` recovers the fields from messages built by
``render`` — which is how ``SimulatedLLM`` knows what it is asked, from the same prompts a
real model gets (``identify`` tries every prompt).

Reply parsers are lenient, as real replies are: ``extract_answer`` (the final answer of a
chain of thought or a short reply), ``clean_line`` (a paraphrase or translation with its
chatter removed), ``parse_bool`` (True/False in the many ways models say it), and
``normalize_answer`` (the key answers are compared by), ``cited_numbers`` and
``strip_citations`` (the [n] markers of answers from evidence).
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

LANGUAGES = {"en": "English", "zh": "Chinese", "de": "German", "fr": "French",
             "es": "Spanish", "ja": "Japanese", "ru": "Russian", "ar": "Arabic",
             "it": "Italian", "pt": "Portuguese", "ko": "Korean", "hi": "Hindi"}


def language_name(code: str) -> str:
    """'zh' → 'Chinese'; an unknown code is returned as given (a name works too)."""
    return LANGUAGES.get(code, code)


def language_code(name: str) -> str:
    """'Chinese' → 'zh' (case-insensitive); an unknown name is returned lowercased."""
    low = name.strip().lower()
    return next((c for c, n in LANGUAGES.items() if n.lower() == low), low)


@dataclass(frozen=True)
class Prompt:
    """A task: a system message and a user message with ``{field}`` slots."""

    task: str
    system: str
    user: str

    def render(self, **fields: str) -> list[dict[str, str]]:
        return [{"role": "system", "content": self.system},
                {"role": "user", "content": self.user.format(**fields)}]

    def match(self, messages: Sequence[Mapping[str, str]]) -> dict[str, str] | None:
        """The fields, when ``messages`` are this prompt rendered; else None."""
        if len(messages) != 2 or messages[0].get("content") != self.system:
            return None
        m = _pattern(self.user).fullmatch(messages[1].get("content", ""))
        return m.groupdict() if m else None


_PATTERNS: dict[str, re.Pattern[str]] = {}


def _pattern(template: str) -> re.Pattern[str]:
    if template not in _PATTERNS:
        parts = re.split(r"\{(\w+)\}", template)
        regex = "".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>.*?)"
                        for i, p in enumerate(parts))
        _PATTERNS[template] = re.compile(regex, re.DOTALL)
    return _PATTERNS[template]


ANSWER = Prompt(
    "answer",
    "You answer factual questions. Reply with the answer only: a name, a date or a number, "
    "no sentence and no explanation. Reply in the language of the question.",
    "Question: {question}\nAnswer:")

DRAFT = Prompt(
    "draft",
    "You answer factual questions in one short sentence.",
    "{question}")

COT = Prompt(
    "cot",
    "You answer factual questions. Think step by step, then write the final answer on the "
    "last line as 'Answer: ' followed by the answer only (a name, a date or a number).",
    "Question: {question}")

PARAPHRASE = Prompt(
    "paraphrase",
    "You rewrite questions.",
    "Rewrite the question below in other words. The rewrite must ask for exactly the same "
    "information. Reply with the rewritten question only.\nQuestion: {question}")

TRANSLATE = Prompt(
    "translate",
    "You are a translator.",
    "Translate the question below into {language}. Keep names of people, places and works "
    "recognizable. Reply with the translation only.\nQuestion: {question}")

JUDGE = Prompt(
    "judge",
    "You check whether two question-answer pairs agree.",
    "Do the two question-answer pairs below ask the same question and give the same answer? "
    "They may be worded differently or written in different languages. Reply with True or "
    "False only.\nPair 1:\nQ: {question1}\nA: {answer1}\nPair 2:\nQ: {question2}\n"
    "A: {answer2}")

DECOMPOSE = Prompt(
    "decompose",
    "You break questions into the simple factual questions a knowledge graph answers.",
    "Break the question below into the simple factual sub-questions needed to answer it, "
    "one per line, in the order they must be answered. Write the answer of an earlier "
    "sub-question as #1, #2, .... If the question asks for one fact, reply with the "
    "question itself.\nQuestion: {question}")

GROUNDED = Prompt(
    "grounded",
    "You answer questions from numbered evidence taken from a knowledge graph. Use only "
    "the evidence. Cite the statements you rely on by their numbers in brackets, like [2]. "
    "Write the final answer on the last line as 'Answer: ' followed by the answer only (a "
    "name, a date or a number) and its citations.",
    "Evidence:\n{evidence}\n\nQuestion: {question}")

REVISE = Prompt(
    "revise",
    GROUNDED.system,
    "Evidence:\n{evidence}\n\nQuestion: {question}\n\nYour previous answer:\n{previous}"
    "\n\nWhat is wrong with it:\n{feedback}\n\nAnswer again.")

#: REVISE before GROUNDED: a GROUNDED pattern would match a REVISE prompt too
PROMPTS = (ANSWER, COT, PARAPHRASE, TRANSLATE, JUDGE, DECOMPOSE, REVISE, GROUNDED, DRAFT)

#: how evidence statements are written in GROUNDED and REVISE prompts: "[3] S — P → O"
EVIDENCE_LINE = re.compile(r"^\[(?P<number>\d+)\] (?P<subject>.+?) — (?P<property>.+?) → "
                           r"(?P<value>.+)$", re.MULTILINE)
#: citation markers in a reply: [2], [1, 3], [1][2]
CITATION = re.compile(r"\[(\d+(?:\s*[,;]\s*\d+)*)\]")


def cited_numbers(text: str) -> list[int]:
    """The citation numbers in ``text``, in order of first appearance."""
    out: list[int] = []
    for m in CITATION.finditer(text):
        for part in re.split(r"[,;]", m.group(1)):
            n = int(part)
            if n not in out:
                out.append(n)
    return out


def strip_citations(text: str) -> str:
    """``text`` without its citation markers (and the spaces before them)."""
    return re.sub(r"\s*" + CITATION.pattern, "", text).strip()


def identify(messages: Sequence[Mapping[str, str]]) -> tuple[str, dict[str, str]] | None:
    """(task, fields) of messages built by one of ``PROMPTS``; None for any other."""
    for prompt in PROMPTS:
        fields = prompt.match(messages)
        if fields is not None:
            return prompt.task, fields
    return None


# -- reply parsers ------------------------------------------------------------------------------

_ANSWER_LINE = re.compile(r"(?:final\s+answer|answer|答案)\s*(?:is)?\s*[:：]\s*(.+)",
                          re.IGNORECASE)
_WRAPPERS = "\"'`*_“”‘’「」『』 \t"


def clean_line(text: str) -> str:
    """The first non-empty line, without quotes, markdown emphasis and labels like
    'Rewritten question:' or 'Translation:'."""
    for line in text.strip().splitlines():
        line = line.strip().strip(_WRAPPERS)
        line = re.sub(r"^(?:rewritten question|rewrite|paraphrase|translation|question|"
                      r"answer)\s*[:：]\s*", "", line, flags=re.IGNORECASE)
        line = line.strip().strip(_WRAPPERS)
        if line:
            return line
    return ""


def extract_answer(text: str) -> str:
    """The answer in a reply: after the last 'Answer:' line when there is one (chains of
    thought), else the first non-empty line; quotes, emphasis and a final period dropped."""
    found = None
    for line in text.splitlines():
        m = _ANSWER_LINE.search(line)
        if m:
            found = m.group(1)
    answer = clean_line(found if found is not None else text)
    if answer.endswith((".", "。")):
        answer = answer[:-1].strip().strip(_WRAPPERS)
    return answer


_PUNCT = str.maketrans("", "", string.punctuation + "“”‘’«»。，、？！：；（）")
_ARTICLES = re.compile(r"^(?:the|a|an)\s+")


def normalize_answer(text: str) -> str:
    """The key answers are compared by: NFKC, casefolded, accents, punctuation and a
    leading article dropped, whitespace collapsed."""
    text = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text).casefold())
    text = "".join(c for c in text if not unicodedata.combining(c))
    text = " ".join(text.translate(_PUNCT).split())
    return _ARTICLES.sub("", text)


_TRUE = {"true", "yes", "correct", "equivalent", "same", "consistent", "agree", "agrees"}
_FALSE = {"false", "no", "not", "incorrect", "different", "inconsistent", "disagree",
          "disagrees"}
_EITHER = re.compile(r"\b(?:true\s+or\s+false|false\s+or\s+true|yes\s+or\s+no)\b")
_WORD = re.compile(r"[a-z]+|[\u4e00-\u9fff]+")


def parse_bool(text: str) -> bool | None:
    """True/False in a judge's reply: its first word when that says it ('True.',
    '**False**', 'Yes, ...', 'Not equivalent'), else the only kind of verdict word in the
    text ('The answer is False'); None when the reply says neither or both."""
    words = _WORD.findall(_EITHER.sub(" ", text.lower()))
    if not words:
        return None
    first = words[0]
    if first in _FALSE or first.startswith(("不", "否", "错")):
        return False
    if first in _TRUE or first.startswith(("是", "对", "正确", "一致")):
        return True
    says_true = any(w in ("true", "yes") for w in words)
    says_false = any(w in ("false", "no") for w in words)
    if says_true != says_false:
        return says_true
    return None
