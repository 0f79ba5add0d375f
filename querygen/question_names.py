"""Names of a question that a reading leaves out: such a reading answers another question.

``ignored_names(question, decisions)`` lists the capitalized words of ``question`` (after
its first word) that none of the reading's linking decisions covers, by offset or by
word: "What is the capital of Mars?" read as "which things are capitals", or "What is
the nationality of Fenwick Astraguard?" read as "what is a nationality".
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from querygen.types import LinkingDecision
from store.normalize import normalize

#: a capitalized word (a name, or part of one)
NAME = re.compile(r"(?<![\w'’])[A-Z][\w'’.-]*")
POSSESSIVE = re.compile(r"(?<=\w)['’]s\b")


def ignored_names(question: str, decisions: Iterable[LinkingDecision]) -> list[str]:
    """Capitalized words of ``question`` after its first word that no decision covers."""
    decisions = list(decisions)
    spans = [(d.start, d.end) for d in decisions if d.start >= 0]
    texts = [normalize(t) for d in decisions for t in (d.mention or "", d.label)]
    out = []
    for m in NAME.finditer(question):
        if m.start() == 0 or any(s <= m.start() < e for s, e in spans):
            continue
        word = normalize(POSSESSIVE.sub("", m.group()))
        if word and not any(word in t.split() for t in texts):
            out.append(m.group())
    return out
