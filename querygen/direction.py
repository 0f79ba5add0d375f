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
the subject of a passive ("Who was X employed by?", "X was employed by whom?"): forward.
For other properties only the passive says: "Where was X born?" (X the passive's subject)
forward, "Who was born in X?" (X after a preposition of the passive) inverse.

General English, written for this module; nothing here consults a KB.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from querygen.analysis import POSSESSIVE_END, Analysis, class_idiom, parts_of_speech
from querygen.fit import norm_words

FORWARD, INVERSE = "forward", "inverse"

_BE = frozenset("is are was were be been being am".split())
_DO = frozenset("do does did".split())
_HAVE = frozenset("has have had".split())
_WH = frozenset("who whom what which whose".split())
_ARTICLES = frozenset("the a an his her their its".split())
_PREPOSITIONS = frozenset("in at on from to into for with of after".split())
_IRREGULAR_PLURALS = {"child": "children", "person": "people", "man": "men",
                      "woman": "women"}
#: agent-like endings that are no agents ("father" fathers nobody in a question)
_NOT_AGENTS = frozenset("""
father mother brother sister daughter after other under over member number partner
chapter character letter water order border minister master quarter winter summer
""".split())
#: heads of names that go on after "of" with what the value is ("member of political
#: party", "member of sports team"): "a member of X" names X as that value
_MEMBER_HEADS = frozenset({"member"})
_BELONG = frozenset("belong belongs belonged".split())
#: irregular past participles (regular ones end in "ed")
_PARTICIPLES = frozenset("""
born known made built written held won taken given sold bought led taught spoken drawn
shown seen chosen buried brought found run sung begun done grown thrown worn sworn
""".split())


#: "X got its name from": the thing named is the verb's subject
_ITS_NAME = re.compile(r"(?i)\b(?:gets?|got|gotten|getting|takes?|took|taken|taking|derives?|"
                       r"derived|owes?|owed|receives?|received)\s+(?:its|his|her|their)\s+"
                       r"names?\b")
_NAME_SOURCE = re.compile(r"(?i)\b(?:from|after)\s*$")
#: "the name (of) X comes from": X is the one named
_THE_NAME_OF = re.compile(r"(?i)\bname\s+(?:of\s+)?(?:the\s+)?$")
_COMES_FROM = re.compile(r"(?i)\b(?:(?:comes?|came|derives?|derived|originates?|originated)"
                         r"\s+from|from\s+(?:comes?|came|derives?|derived))\b")


def _took_its_name(a: Analysis, span: tuple[int, int]) -> str | None:
    """The direction of "X got its name from Y" (forward: X is the one named, whichever
    side of the verb it stands, "Where did Ohio get its name from?", "from what got its
    name Ohio", "Where does the name of Ohio come from?"), inverse when X is where the
    name came from ("What takes its name from Ohio?"); None without such a phrase."""
    if _THE_NAME_OF.search(a.question[:span[0]]) and _COMES_FROM.search(a.question):
        return FORWARD
    if not _ITS_NAME.search(a.question):
        return None
    return INVERSE if _NAME_SOURCE.search(a.question[:span[0]]) else FORWARD


def asked_direction(a: Analysis, span: tuple[int, int],
                    names: str | Sequence[str]) -> str | None:
    """"forward", "inverse" or None (see the module docstring). ``names`` are the
    property's names, the one that matched first (its label and aliases after): the
    construction is read with the first whose head noun the question uses."""
    names = [names] if isinstance(names, str) else list(names)
    split = [w for w in (norm_words(n) for n in names) if w]
    if not split:
        return None
    if class_idiom(a, span):                  # "X is a kind of what?": X belongs to it
        return FORWARD
    words = _words_outside(a, span)
    text = " ".join(w.low for w in a.words)
    # a name the question writes out whole first ("a kind of what": "kind of")
    split.sort(key=lambda n: f" {' '.join(n)} " not in f" {text} ")
    for name_words in split:                 # the head noun ("doctoral advisor")
        head = _head(name_words)
        if head is not None and not _participle(head) and \
                any(form in words for form in _plurals(head)):
            return _noun_direction(a, span, name_words, head)
    took_name = _took_its_name(a, span)
    if took_name is not None:
        return took_name
    type_words = set(a.type_noun.split()) if a.type_noun else set()
    for name_words in split:                 # another noun of the name ("headquarters
        if _head(name_words) is None:        # location": "the headquarters of X"), not
            continue                         # one of the answer's class ("which N")
        for noun in name_words:
            if noun not in _PREPOSITIONS and not _participle(noun) and len(noun) > 3 and \
                    noun not in type_words and any(form in words for form in _plurals(noun)):
                return _noun_direction(a, span, name_words, noun)
    return _verb_direction(a, span, split)


def _words_outside(a: Analysis, span: tuple[int, int]) -> set[str]:
    """The question's lower-case words that may name the property: not the mention's
    own ("Democratic Progressive Party": "party"), nor a noun that describes it ("Oaxaca
    is a state of which country?" says what Oaxaca is, not which way "state", a name of
    P131, is asked)."""
    return {w.low for w in a.words if w.end <= span[0] or w.start >= span[1]} - \
        a.described_as(span)


def asked_by_verb(a: Analysis, span: tuple[int, int], names: Sequence[str]) -> str | None:
    """The direction a verb construction around the mention ``span`` asks for a property
    named ``names`` (no noun construction: for the last hop of a chain the nouns around
    the mention name its first hop, "born in the capital city of X"; a verb before it
    still says, "Which label is owned by X's record company?": the label is owned)."""
    split = [w for w in (norm_words(n) for n in names) if w]
    return _verb_direction(a, span, split) if split else None


def _head(name_words: list[str]) -> str | None:
    """The noun a property's name is about: the word before "of" ("member of" → member,
    "place of birth" → place), else the last word ("doctoral advisor" → advisor); None
    for a verb phrase ending in a preposition ("owned by", "named after")."""
    if "of" in name_words:
        i = name_words.index("of")
        return name_words[i - 1] if i > 0 else None
    if name_words[-1] in _PREPOSITIONS or name_words[-1] in ("by", "after"):
        return None
    return name_words[-1]


def _plurals(noun: str) -> tuple[str, ...]:
    return (noun, noun + "s", noun + "es", _IRREGULAR_PLURALS.get(noun, noun),
            noun[:-1] + "ies" if noun.endswith("y") else noun)


def _noun_direction(a: Analysis, span: tuple[int, int], name_words: list[str],
                    head: str) -> str | None:
    """The direction a noun construction asks: the property's name ``name_words`` is
    used through its noun ``head`` (see the module docstring); None when it does not say."""
    ends_of = name_words[-1] == "of" and len(name_words) > 1
    middle_of = "of" in name_words and not ends_of      # "place of birth"
    before, after = _around(a, span)
    content_before = [w for w in before if w not in _ARTICLES]
    if _possessive(a, span):                             # "X's R" ("X's members": the
        return INVERSE if ends_of else FORWARD           # members of X)
    if content_before and content_before[-1] == "of":   # "the R of X"
        return INVERSE if ends_of or middle_of and _member_of(head, content_before) \
            else FORWARD
    if "whose" in before and not ends_of and content_before and \
            content_before[-1] in _BE:                   # "whose R is X" (not "Whose
        return INVERSE                                   # citizenship did X have?")
    if _mention_is_the_noun(a, span, before, after, head):  # "X is the R of whom"
        if ends_of:
            return FORWARD
        return None if middle_of else INVERSE
    # "Who had X as (their) R?"
    if "as" in after and before and before[-1] in ("had", "has", "have") and not ends_of:
        return INVERSE
    if not ends_of and _which_noun_of_subject(a, name_words, head, content_before):
        return FORWARD
    return None


def _member_of(head: str, content_before: list[str]) -> bool:
    """"a member of X" with a name that goes on after "of" ("member of political party"):
    X is one of what the rest of the name describes, as with "member of"."""
    return head in _MEMBER_HEADS and len(content_before) > 1 and \
        content_before[-2] in _plurals(head)


def _around(a: Analysis, span: tuple[int, int]) -> tuple[list[str], list[str]]:
    """The question's lowercased words before the mention ``span`` and after it; before
    it, not a phrase that only says what it is ("the province of X": the words before
    "the province of")."""
    phrase = a.description_before(span)
    end = phrase[0].start if phrase else span[0]
    return ([w.low for w in a.words if w.end <= end],
            [w.low for w in a.words if w.start >= span[1]])


def _possessive(a: Analysis, span: tuple[int, int]) -> bool:
    """Whether the mention is possessive: it ends in "'s" or "'", or one follows it."""
    return bool(POSSESSIVE_END.search(a.question[span[0]:span[1]])) or \
        bool(re.match(r"['\u2019]s?\b", a.question[span[1]:]))


def _mention_is_the_noun(a: Analysis, span: tuple[int, int], before: list[str],
                         after: list[str], head: str) -> bool:
    """"X is the R of whom", "Of whom was X the R", "Who is X the R of?": a copula joins
    the mention to the noun ``head`` written after it, before a dangling "of" or an "of"
    and a question word (in "X was a politician of which party" the R "party" follows
    "of" and says nothing of the kind)."""
    lows = [w.low for w in a.words]
    dangling_of = bool(after) and after[-1] == "of"
    of_wh = next((i for i, w in enumerate(lows)
                  if w == "of" and i + 1 < len(lows) and lows[i + 1] in _WH), None)
    if dangling_of:
        between = after[:-1]
    elif of_wh is not None and a.words[of_wh].start >= span[1]:     # "X is the R of whom"
        between = [w.low for w in a.words[:of_wh] if w.start >= span[1]]
    elif of_wh is not None:                                         # "Of whom was X the R"
        between = after
    else:
        between = []
    copula = bool(between and between[0] in _BE) or bool(before and before[-1] in _BE)
    return copula and any(form in between for form in _plurals(head))


def _which_noun_of_subject(a: Analysis, name_words: list[str], head: str,
                           content_before: list[str]) -> bool:
    """"Which students did X supervise?", "Which country is X in?": the noun of "which R"
    is the property's and the mention, right after "do" or "be", is the clause's subject
    (so the R is X's)."""
    if not a.type_noun or not content_before or content_before[-1] not in _DO | _BE:
        return False
    real = _head(name_words) or head
    return bool(set(_plurals(real)) & set(a.type_noun.split()))


def _verb_direction(a: Analysis, span: tuple[int, int],
                    names: list[list[str]]) -> str | None:
    """The direction a verb construction asks for a property named by one of ``names``
    (see the module docstring); None when the words do not say."""
    agentive = any(_agent_verb_used(a, n) for n in names)
    before, after = _around(a, span)
    # the clause's auxiliary right before the mention: "did X …", "was X …"
    aux = next((w for w in reversed(before) if w not in _ARTICLES), "")
    if aux in _DO or aux in _HAVE and after[:1] and _participle(after[0]) and \
            before[:1] != ["who"]:
        # "Whom did X employ?", "What has X developed?": X the agent ("Who has X
        # developed?", German's order of "who has developed X", asks X's developer);
        # "What does X belong to?": X the one that belongs
        return INVERSE if agentive else _belongs(after)
    if aux in _BE and any(_participle(w) for w in after):   # "Who was X employed by?",
        return FORWARD                               # "Where was X born?": X the patient
    if not aux and after[:1] and after[0] in _BE and len(after) > 1 and \
            _participle(after[1]):       # "X was developed by which studio?": the passive's
        return FORWARD                   # subject, the patient
    passive = _passive_direction(before, names, agentive)
    if passive is not None:
        return passive or None
    if agentive and _wh_object(before, after):       # "what X owns": X the agent
        return INVERSE
    if agentive and _wh_subject(before):             # "Who employed X?"
        return FORWARD
    return None


def _belongs(after: list[str]) -> str | None:
    """FORWARD when the verb after the mention is "belong" ("does X belong to"), else None."""
    return FORWARD if any(w in _BELONG for w in after[:2]) else None


def _passive_direction(before: list[str], names: list[list[str]], agentive: bool
                       ) -> str | None:
    """The direction a passive before the mention asks ("employed by X", "born in X",
    "awarded to X"); "" when it says there is none to tell, None without one."""
    prep = before[-1] if before else ""
    if prep == "by" and any(_participle(w) for w in before):        # "employed by X"
        return INVERSE if agentive else ""
    if prep == "to" and any(n[-1] == "received" for n in names) and \
            _after_passive_preposition(before):      # "What prize was awarded to X?":
        return FORWARD                               # X the one who received it
    if _after_passive_preposition(before):           # "Who was born in X?"
        return INVERSE
    return None


def _wh_object(before: list[str], after: list[str]) -> bool:
    """"what nestle owns": the question word alone before the mention, and a verb (not a
    form of "be" or "do", nor a participle) right after it — the question word is the
    verb's object, the mention its subject."""
    verb = after[0] if after else ""
    # "which cars the Lamborghini manufactures", as glossed: nouns and an article between
    if not before or before[0] not in _WH:
        return False
    asked = len(before) == 1 or len(before) <= 4 and before[-1] in _ARTICLES and not any(
        w in _BE or w in _DO or w in _PREPOSITIONS or "VERB" in parts_of_speech(w)
        for w in before[1:]) and "VERB" in parts_of_speech(verb)
    return asked and bool(verb) and verb not in _BE and verb not in _DO and \
        not _participle(verb)


def _after_passive_preposition(before: list[str]) -> bool:
    """"Who was born in X?": the mention follows a preposition (not "of") of a passive,
    a form of "be" and a participle before it."""
    prep = before[-1] if before else ""
    return prep in _PREPOSITIONS and prep != "of" and any(
        _participle(w) for w in before) and any(w in _BE for w in before)


def _wh_subject(before: list[str]) -> bool:
    """"Who employed X?": a question word opens the question and is the subject of the
    verb before the mention (no "do" or "be" after it)."""
    first = before[0] if before else ""
    return first in _WH and not any(w in _DO or w in _BE for w in before[1:])


def _agent_verb_used(a: Analysis, name_words: list[str]) -> bool:
    """Whether the property's value is the agent of a verb the question uses: "employer"
    and "employed", "doctoral advisor" and "advise", "owned by" and "owns"."""
    if len(name_words) > 1 and name_words[-1] == "by":
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
