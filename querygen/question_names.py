"""Names of a question that a reading leaves out: such a reading answers another question.

``ignored_names(question, decisions)`` lists the capitalized words of ``question`` (after
its first word) that none of the reading's linking decisions covers, by offset or by
word: "What is the capital of Mars?" read as "which things are capitals", or "What is
the nationality of Fenwick Astraguard?" read as "what is a nationality".

A question typed all in lower case has no capitals to tell its names by:
``ignored_mentions(question, mentions, decisions)`` lists instead, for a reading whose
entities are all named by English words ("origin", "common": words that may be no name at
all), the mentions the linker found that are surely names — a word English does not know,
matching a name (a label beginning with a capital) well — and that no decision covers:
"sur quelle chaine passait frasier a l origine" read as the original network of *Origin*
leaves "frasier" out. (A reading of one of two names, "finland and sweden: …", is left
to the model, as "Finland and Sweden: …" is not, to keep the answers it had.)
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from querygen.analysis import known_word
from querygen.mentions import Mention
from querygen.types import LinkingDecision
from store.normalize import normalize

#: a word (a name, or part of one, when it begins with a capital of any script)
WORD = re.compile(r"(?<![\w'’])[^\W\d_][\w'’.-]*")
POSSESSIVE = re.compile(r"(?<=\w)['’]s\b")
#: the string-match score from which a lower-case mention's name is taken as meant
SURE_MATCH = 0.9


def _covered(decisions: list[LinkingDecision]) -> tuple[list[tuple[int, int]], list[str]]:
    """The decisions' spans in the question and their normalized mentions and labels."""
    spans = [(d.start, d.end) for d in decisions if d.start >= 0]
    texts = [normalize(t) for d in decisions for t in (d.mention or "", d.label)]
    return spans, texts


def ignored_names(question: str, decisions: Iterable[LinkingDecision]) -> list[str]:
    """Capitalized words of ``question`` after its first word that no decision covers."""
    spans, texts = _covered(list(decisions))
    out = []
    for m in WORD.finditer(question):
        if m.start() == 0 or not m.group()[0].isupper() or \
                any(s <= m.start() < e for s, e in spans):
            continue
        word = normalize(POSSESSIVE.sub("", m.group()))
        if word and not any(word in t.split() for t in texts):
            out.append(m.group())
    return out


def ignored_mentions(question: str, mentions: Iterable[Mention],
                     decisions: Iterable[LinkingDecision]) -> list[str]:
    """In a question without capital letters, for a reading whose entity decisions are
    all named by English words (or that has none), the texts of ``mentions`` that are
    surely names — some word of theirs is no English word, and their best candidate
    matched them well (``SURE_MATCH``) and is a name (a label beginning with a capital) —
    that no decision covers: by offset, or by their words being in a decision's mention or
    label. [] for a question with capitals (``ignored_names`` reads those)."""
    decisions = list(decisions)
    if question != question.lower() or not all(
            _english_words(d.mention or d.label) for d in decisions if d.kind == "entity"):
        return []
    spans, texts = _covered(decisions)
    out = []
    for m in mentions:
        best = m.candidates[0] if m.candidates else None
        if best is None or not best.label[:1].isupper() or \
                best.features.get("match", 1.0) < SURE_MATCH:
            continue
        if any(s < m.end and m.start < e for s, e in spans):
            continue
        words = normalize(m.text).split()
        if words and not any(all(w in t.split() for w in words) for t in texts) and \
                not _english_words(m.text):
            out.append(m.text)
    return out


def _english_words(text: str) -> bool:
    """Whether every word of ``text`` is an English word (lemminflect knows it)."""
    words = normalize(text).split()
    return bool(words) and all(known_word(w) for w in words)
