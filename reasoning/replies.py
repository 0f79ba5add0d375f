"""What a model's reply says: its answer, read from a plain sentence too, and whether the
reply is degenerate.

    answer_of("The capital of Norway is Oslo.", "What is the capital of Norway?")  # 'Oslo'
    answer_of("Thinking...\\nAnswer: Oslo", "...")                                 # 'Oslo'
    degenerate("1.1.1.1.1.1.1.1.1.1.1.1")        # 'repeats "1." 12 times'

Small models rarely write the "Answer:" line a prompt asks for; they answer in a
sentence that restates the question ("Japan is located on the continent of Asia").
``answer_of`` takes the 'Answer:' line when there is one, else the reply's first
sentence, and keeps the part that is not the question said again: the runs of words
that are neither the question's own words nor function words nor words that only word
the relation ("located", "known"), joined by the small words that belong inside names
("Bank of America"); of several runs, the first with a capitalized word (a name), else
the first. What is left is the answer as the model wrote it; nothing is looked up.

``degenerate`` says why a reply is no answer at all: empty, a word or a few repeated
over and over ("1.1.1.1…", "the the the"), or the question copied back. ``answer_of``
returns '' for such a reply.
"""

from __future__ import annotations

import re

from linking.lexicon import en as _en
from reasoning import prompts

#: words that only word the relation or hedge, never an answer on their own
#: (``linking.lexicon.en``; STOPWORDS among them)
FILLER = _en.FILLER_WORDS
#: small words that may stand inside a name (``linking.lexicon.en``)
INSIDE = _en.NAME_PARTICLES
_SENTENCE = re.compile(r"^(.+?[\w)\]”\"'][.!?])(?:\s|$)", re.DOTALL)
_WORD = re.compile(r"[^\W_][\w'’.-]*[\w]|[^\W_]", re.UNICODE)
#: a run of 1–8 characters repeated at least REPEATS times in a row
_REPEAT = re.compile(r"(.{1,8}?)\1{7,}", re.DOTALL)
_REPEAT_WORDS = re.compile(r"\b((?:\S+\s+){1,4}?)\1{3,}")


def degenerate(reply: str, question: str = "") -> str | None:
    """Why ``reply`` is no answer (see the module docstring), or None when it may be one."""
    text = reply.strip()
    if not text:
        return "the reply is empty"
    m = _REPEAT.search(text) or _REPEAT_WORDS.search(text + " ")
    if m:
        unit = m.group(1).strip() or m.group(1)
        return f"the reply repeats {unit!r} {len(m.group(0)) // max(1, len(m.group(1)))} times"
    if question and prompts.normalize_answer(text) == prompts.normalize_answer(question):
        return "the reply repeats the question"
    return None


def answer_of(reply: str, question: str = "") -> str:
    """The answer a reply gives (see the module docstring); '' for a degenerate one."""
    if degenerate(reply, question):
        return ""
    has_line = any(prompts._ANSWER_LINE.search(line) for line in reply.splitlines())
    text = prompts.extract_answer(reply) if has_line else first_sentence(reply)
    return reduce(text, question) if question else text


def first_sentence(reply: str) -> str:
    """The first non-empty line's first sentence, without quotes, emphasis and a final
    period."""
    line = prompts.clean_line(reply)
    m = _SENTENCE.match(line)
    sentence = m.group(1) if m else line
    return sentence.rstrip(".!?").strip().strip(prompts._WRAPPERS)


def reduce(text: str, question: str) -> str:
    """``text`` without what restates ``question`` (see the module docstring); ``text``
    itself when nothing else is left, or when it is short and shares no word with the
    question (already an answer: "Oslo", "American actor")."""
    asked = {_key(w) for w in _WORD.findall(question)}
    words = list(_WORD.finditer(text))
    keys = [_key(w.group()) for w in words]
    if len(words) <= 3 and not any(k in asked for k in keys):
        return text.strip()
    runs: list[list[int]] = []
    current: list[int] = []
    for i, (w, k) in enumerate(zip(words, keys)):
        if k not in asked and k not in FILLER:
            current.append(i)
        elif current and k in INSIDE and k not in asked and i + 1 < len(words) \
                and keys[i + 1] not in asked and keys[i + 1] not in FILLER \
                and words[i + 1].group()[:1].isupper() and w.group().islower():
            current.append(i)
        elif current:
            runs.append(current)
            current = []
    if current:
        runs.append(current)
    if not runs:
        return text.strip()
    best = next((r for r in runs if any(words[i].group()[:1].isupper() for i in r)), runs[0])
    start, end = words[best[0]].start(), words[best[-1]].end()
    return text[start:end].strip()


def _key(word: str) -> str:
    word = prompts.normalize_answer(prompts.strip_citations(word))
    word = re.sub(r"['’]s$", "", word)
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") \
        else word


def matches(answer: str, labels: list[str] | tuple[str, ...]) -> bool:
    """Whether ``answer`` names one of ``labels``: a label's words appear in it, in order,
    as whole words (normalized), or it is the label."""
    said = f" {prompts.normalize_answer(answer)} "
    for label in labels:
        key = prompts.normalize_answer(label)
        if key and f" {key} " in said:
            return True
    return False
