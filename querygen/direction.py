"""Which way a question asks a relation: is the mentioned entity the property's subject
or its value?

``asked_direction(a, span, name)`` reads the question's syntax around the mention ``span``
for the property named ``name`` (the label or alias that matched) and returns
``"forward"`` (the entity is the subject: ``X p ?x``), ``"inverse"`` (it is the value:
``?x p X``) or None when the words do not say. The rules generator then never offers the
converse of an asked direction: "Who was the doctoral advisor of Max Planck?" asks
``Planck P184 ?x``; when the KB holds no such statement the answer is "none in the KB",
not Planck's students (``?x P184 Planck``).

Two kinds of constructions, told apart by whether the relation words contain the head
noun of the property's name:

**noun constructions** ("advisor" named by the noun): the possessive "X's R" and "the R of
X" ask forward; "whose R is X", "X is the R of whom", "Who is X the R of?", "Who had X as
R?" ask inverse. A name that ends in "of" ("member of", "capital of") turns "of" around:
"the members of X" asks inverse, "Which party is X a member of?" forward.

**verb constructions** ("Who advised X?", "Who did X advise?"): for a property whose value
is the verb's agent (an agent noun: "employer", "doctoral advisor", "manufacturer", or a
name ending in "by": "owned by"), X is the agent when it is the subject of an active verb
with "do" ("Whom did X employ?") or follows "by" ("Who was employed by X?"): inverse;
X is the patient when a question word is the verb's subject ("Who employed X?") or X is
the subject of a passive ("Who was X employed by?"): forward. For other properties only
the passive says: "Where was X born?" (X the passive's subject) forward, "Who was born in
X?" (X after a preposition of the passive) inverse.

General English, written for this module; nothing here consults a KB.
"""

from __future__ import annotations

import re

from querygen.analysis import Analysis
from querygen.fit import norm_words

FORWARD, INVERSE = "forward", "inverse"

_BE = frozenset("is are was were be been being am".split())
_DO = frozenset("do does did".split())
_WH = frozenset("who whom what which whose".split())
_ARTICLES = frozenset("the a an his her their its".split())
_PREPOSITIONS = frozenset("in at on from to into for with of".split())
#: agent-like endings that are no agents ("father" fathers nobody in a question)
_NOT_AGENTS = frozenset("""
father mother brother sister daughter after other under over member number partner
chapter character letter water order border minister master quarter winter summer
""".split())
#: irregular past participles (regular ones end in "ed")
_PARTICIPLES = frozenset("""
born known made built written held won taken given sold bought led taught spoken drawn
shown seen chosen buried brought found run sung begun done grown thrown worn sworn
""".split())


def asked_direction(a: Analysis, span: tuple[int, int], name: str) -> str | None:
    """"forward", "inverse" or None (see the module docstring)."""
    name_words = norm_words(name)
    if not name_words:
        return None
    ends_of = name_words[-1] == "of" and len(name_words) > 1
    ends_by = name_words[-1] == "by" and len(name_words) > 1
    head = _head(name_words)
    words = [w.low for w in a.words]
    before = [w for w in a.words if w.end <= span[0]]
    after = [w for w in a.words if w.start >= span[1]]
    mention_text = a.question[span[0]:span[1]]
    possessive = bool(re.search(r"['\u2019]s?$", mention_text)) or \
        bool(re.match(r"['\u2019]s?\b", a.question[span[1]:]))
    noun = head is not None and not ends_by and any(
        w in (head, head + "s", head + "es") for w in words)

    if noun:
        return _noun_direction(a, before, after, possessive, ends_of, name_words)
    return _verb_direction(a, before, after, span, ends_by, name_words)


def _head(name_words: list[str]) -> str | None:
    """The noun a property's name is about: the word before "of" ("member of" → member),
    else the last word ("doctoral advisor" → advisor)."""
    if "of" in name_words:
        i = name_words.index("of")
        return name_words[i - 1] if i > 0 else None
    return name_words[-1]


def _noun_direction(a: Analysis, before: list, after: list, possessive: bool,
                    ends_of: bool, name_words: list[str]) -> str | None:
    middle_of = "of" in name_words and not ends_of      # "place of birth"
    lows_before = [w.low for w in before]
    lows_after = [w.low for w in after]
    content_before = [w for w in lows_before if w not in _ARTICLES]
    if possessive:                                       # "X's R"
        return FORWARD
    if content_before and content_before[-1] == "of":   # "the R of X"
        return INVERSE if ends_of else FORWARD
    all_lows = [w.low for w in a.words]
    # "whose R is X"
    if "whose" in lows_before and not ends_of:
        return INVERSE
    # "X is the R of whom", "Of whom was X the R", "Who is X the R of?": X is an R
    dangling_of = bool(lows_after) and lows_after[-1] == "of"
    of_wh = any(w == "of" and i + 1 < len(all_lows) and all_lows[i + 1] in _WH
                for i, w in enumerate(all_lows))
    if dangling_of or of_wh:
        if ends_of:
            return FORWARD
        return None if middle_of else INVERSE
    # "Who had X as (their) R?"
    if "as" in lows_after and lows_before and lows_before[-1] in ("had", "has", "have") \
            and not ends_of:
        return INVERSE
    return None


def _verb_direction(a: Analysis, before: list, after: list, span: tuple[int, int],
                    ends_by: bool, name_words: list[str]) -> str | None:
    agentive = _agent_verb_used(a, name_words, ends_by)
    lows_before = [w.low for w in before]
    lows_after = [w.low for w in after]
    # the clause's auxiliary right before the mention: "did X …", "was X …"
    aux = next((w for w in reversed(lows_before) if w not in _ARTICLES), "")
    passive_after = any(_participle(w) for w in lows_after)
    if aux in _DO:                                   # "Whom did X employ?": X the agent
        return INVERSE if agentive else None
    if aux in _BE and passive_after:                 # "Who was X employed by?", "Where
        return FORWARD                               # was X born?": X the patient
    prep = lows_before[-1] if lows_before else ""
    if prep == "by" and any(_participle(w) for w in lows_before):   # "employed by X"
        return INVERSE if agentive else None
    if prep in _PREPOSITIONS and prep != "of" and any(
            _participle(w) for w in lows_before) and any(w in _BE for w in lows_before):
        return INVERSE                               # "Who was born in X?"
    # "Who employed X?": a question word is the subject of the verb before X
    first = lows_before[0] if lows_before else ""
    if agentive and first in _WH and not any(w in _DO or w in _BE for w in lows_before[1:]):
        return FORWARD
    return None


def _agent_verb_used(a: Analysis, name_words: list[str], ends_by: bool) -> bool:
    """Whether the property's value is the agent of a verb the question uses: "employer"
    and "employed", "doctoral advisor" and "advise", "owned by" and "owns"."""
    if ends_by:
        stem = name_words[-2]
        stem = stem[:-2] if stem.endswith("ed") else stem
    else:
        last = name_words[-1]
        if len(last) <= 4 or not last.endswith(("er", "or")) or last in _NOT_AGENTS:
            return False
        stem = last[:-2]
    stem = stem.rstrip("e") if len(stem) > 4 else stem
    return any(w.low.startswith(stem) and w.low not in (name_words[-1], name_words[-1] + "s")
               for w in a.words)


def _participle(word: str) -> bool:
    return word in _PARTICIPLES or (word.endswith("ed") and len(word) > 4)
