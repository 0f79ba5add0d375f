"""Question analysis without a model: what a question asks for, and about what.

``analyze(question)`` reads the surface of an English question:

``form``        ``ask`` (yes/no: "Is …", "Did …", "Was …"), ``count`` ("how many",
                "number of") or ``select`` (everything else);
``wh``          the question word: who, what, which, where, when, how many, how much,
                how (before an auxiliary: "How did X die?", a manner), yes/no, an
                imperative ("Name …", "List …", "Tell me …"), or '' (none);
``answer_type`` what kind of thing answers it, as far as the words say: person, place, time,
                number, or None;
``type_noun``   the noun of "which country …", "what city …", "how many children …" (the
                class the answer belongs to, or the relation itself: "which country is X in");
``superlative`` an ordering the question asks for ("oldest", "the most recent",
                "earliest"), with the property words it implies and the direction;
``negated``     whether it asks what does not hold ("Where wasn't X born?").

``words`` are the question's words with offsets; ``relation_words(spans)`` gives the words
left once the entity mentions (``spans``) and the question's own machinery (question
words, auxiliaries, articles, imperatives) are taken out — the phrase that names the
relation. Nothing here consults a KB: entity mentions come from the linker
(``querygen.rules``).
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from linking.lexicon import STOPWORDS
from linking.lexicon.en import HEAD_ENDING_PARTICIPLES
from querygen.lexicon import (AUXILIARIES, CLASS_IDIOM_NOUNS, CLASS_WORDS, FRAME_WORDS, IMPERATIVES,
                              OPENING_FILLERS, PERSON_NOUNS, PLACE_NOUNS, PRAISE_WORDS,
                              RELATIONAL_NOUNS, ROLE_NOUNS, SUPERLATIVES, TIME_NOUNS, TITLES,
                              VERB_FORMS, Superlative)

_WORD = re.compile(r"[^\W_]+(?:['\u2019.\-][^\W_]+)*")
_CONTRACTIONS = [(re.compile(r"\b(what|who|where|when|which|how|that|it)['\u2019]s\b", re.I),
                  r"\1 is"),
                 # the apostrophe left out: "whats the capital …"
                 (re.compile(r"\b(what|where|when|how)s\b", re.I), r"\1 is"),
                 (re.compile(r"\b(\w+)n['\u2019]t\b", re.I), r"\1 not"),
                 # "is a part of" is "is part of", not "is a <class>"
                 (re.compile(r"\b(?:a|an)\s+(?:integral\s+|constituent\s+)?(part\s+of)\b",
                             re.I), r"\1")]
#: a verb that says no more than "be" before "as" and a lower-case noun ("Ajaccio serves as
#: the capital of what?"), and the form of "be" it is read as; before a name ("served as
#: Postmaster General") the verb stays, as it may name the relation itself
_LIGHT_VERB = re.compile(r"\b([Ss]erv|[Aa]ct|[Ff]unction)(es|s|ed|ing|e|)\s+as\s+"
                         r"(?=(?:the\s+|a\s+|an\s+)?[a-z])")
_LIGHT_BE = {"es": "is", "s": "is", "ed": "was", "ing": "being", "e": "are", "": "are"}
_DO_BEFORE = re.compile(r"(?i)\b(?:did|does|do|will|would|can|could|may|might|to)\b")


def _light_verb(m: re.Match) -> str:
    be = _LIGHT_BE[m.group(2)]
    if be == "are" and _DO_BEFORE.search(m.string, 0, m.start()):
        return m.group(0)   # "Did Turku serve as the capital …": no "be" reads well here
    return be + " "


@dataclass(frozen=True, slots=True)
class Word:
    text: str
    start: int
    end: int

    @property
    def low(self) -> str:
        return self.text.lower()


@dataclass(frozen=True, slots=True)
class Analysis:
    question: str
    form: str
    wh: str
    answer_type: str | None
    type_noun: str | None
    superlative: Superlative | None
    words: tuple[Word, ...]
    #: offsets of the words that belong to the question's frame (question word, type
    #: noun of "which N", superlative), not to the relation
    frame: frozenset[int] = field(default_factory=frozenset)
    #: the question asks what does not hold ("Which country does X not border?"): a
    #: triplet query lists what holds, so no reading answers it
    negated: bool = False
    #: nouns the KB confirms describe an entity of the question ("town" in "the town of
    #: Brighton": Brighton is a town), set by the rules once mentions are linked
    described: frozenset[str] = frozenset()
    #: the question asks for one of many ("Name a poet", "Who is an artist signed to
    #: Motown?", "name someone born in Oslo"): each of the answers answers it alone
    one_of_many: bool = False
    #: where the head noun of the one asked for starts ("poet" in "Name a famous poet
    #: born in Lyon"), -1 when the question names none ("name someone born in Oslo")
    one_head: int = -1

    def relation_words(self, spans: Iterable[tuple[int, int]] = (), *,
                       keep_type_noun: bool = True) -> list[Word]:
        """The words naming the relation: neither in ``spans`` (entity mentions), nor words
        that describe them (``described_as``), nor question machinery. With
        ``keep_type_noun`` the noun of "which N" stays in (it may name the relation itself:
        "which country is X in")."""
        spans = list(spans)
        described = self.described.union(*(self.described_as(s) for s in spans))
        out = []
        for i, w in enumerate(self.words):
            if any(s <= w.start < e for s, e in spans) or w.low in described:
                continue
            if w.start in self.frame and not (keep_type_noun and self.type_noun
                                               and w.low in self.type_noun.split()):
                continue
            if w.low in FRAME_WORDS and not self._names_a_name(i) or self._praises(i) or \
                    self._name_comes(i) or self._known_for_doing(i):
                continue
            out.append(w)
        return out

    def _known_for_doing(self, i: int) -> bool:
        """Whether word ``i`` is the "known" of "known for <doing>" ("Who is known for
        playing the timbales?"): the verb after it says the relation; "What is X known
        for?" (a notable work) keeps it."""
        ws = self.words
        return ws[i].low == "known" and i + 2 < len(ws) and ws[i + 1].low == "for" and \
            ws[i + 2].low.endswith("ing") and len(ws[i + 2].low) > 5

    def _name_comes(self, i: int) -> bool:
        """Whether word ``i`` is the "from" of "the name X comes from" or the "of" of "the
        name of X comes from": "name" and the verb, then one pair of relation words, name
        the relation (``RELATED``'s "name comes": named after)."""
        ws = self.words
        if ws[i].low == "of":
            return i >= 1 and ws[i - 1].low == "name" and self._names_a_name(i - 1) and \
                _NAME_COMES_FROM.search(self.question) is not None
        if ws[i].low != "from":
            return False
        beside = [ws[j].low for j in (i - 1, i + 1) if 0 <= j < len(ws)]
        return any(_NAME_COMES_FROM.fullmatch(f"{b} from") or
                   _NAME_COMES_FROM.fullmatch(f"from {b}") for b in beside) and \
            any(self._names_a_name(j) for j in range(len(ws)) if ws[j].low == "name")

    @property
    def asks_name_origin(self) -> bool:
        """Whether the question asks where a name comes from ("Where does the name X come
        from?"): what X is named after, which need not be a place."""
        return any(w.low == "name" and self._names_a_name(i) for i, w in enumerate(self.words)) \
            and _NAME_COMES_FROM.search(self.question) is not None

    def _praises(self, i: int) -> bool:
        """Whether word ``i`` only praises the noun an indefinite article introduces ("a
        famous poet", "a well known pitcher"): it asks for a member, not a relation (the
        "notable work" a person has, "What is X known for?")."""
        ws = self.words
        j = i
        while j > 0 and ws[j].low in PRAISE_WORDS:
            j -= 1
        return j < i and ws[i].low in PRAISE_WORDS and ws[j].low in ("a", "an") and \
            not (ws[i].low == "well" and (i + 1 == len(ws) or ws[i + 1].low != "known"))

    def _names_a_name(self, i: int) -> bool:
        """Whether word ``i`` is the noun "name" after a verb and its determiner ("X takes
        its name from", "bears the name of"), or in a question where a name comes from
        something ("Where does the name X come from?"): a relation word, not the
        imperative "Name …" nor "What is the name of …"."""
        ws = self.words
        if ws[i].low != "name" or i < 1:
            return False
        if _NAME_COMES_FROM.search(self.question):
            return True                     # "Where does the name (of) X come from?"
        return ws[i - 1].low in _NAME_DETERMINERS and i >= 2 and \
            ws[i - 2].low not in FRAME_WORDS and not _BE_OR_WH.intersection({ws[i - 2].low})

    def relation_phrase(self, spans: Iterable[tuple[int, int]] = (), **kw: bool) -> str:
        return " ".join(w.text for w in self.relation_words(spans, **kw))

    def class_phrase_before(self, span: tuple[int, int]) -> list[Word]:
        """The lower-case noun right before the mention at ``span`` in "the N of X" or
        "the N X" ("the town of Brighton", "the volcano Karisimbi"), with up to two
        modifiers between the article and it ("the Australian city of Brisbane"), noun
        last: a description of X if X is an N (the caller asks the KB), else a relation
        ("the capital of France"). Empty when the words do not read so."""
        before = [w for w in self.words if w.end <= span[0]]
        if before and before[-1].low == "of":
            before = before[:-1]
        if len(before) < 2:
            return []
        noun = before[-1]
        if noun.text != noun.low or noun.start in self.frame or noun.low in FRAME_WORDS or \
                noun.low in AUXILIARIES:
            return []
        for k in range(2, min(4, len(before)) + 1):
            word = before[-k]
            if word.low in ("the", "a", "an"):
                return before[-k + 1:]
            # a modifier: a name's adjective ("Australian") or a word English knows only
            # as an adjective ("big"), not a noun ("a twin city of X" asks X's twin city)
            if not (word.text[:1].isupper() or parts_of_speech(word.low) == {"ADJ"}) or \
                    word.start in self.frame or word.low in FRAME_WORDS:
                return []
        return []

    def descriptor_before(self, span: tuple[int, int], *, relative: bool = False
                          ) -> list[Word]:
        """The words right before the mention at ``span`` that describe it as an
        apposition: "the Indonesian president Suharto", "antiques expert David Battie",
        "The Estonian painter Kristjan Raud", "King Hussein" — a lower-case noun (English
        knows it as a noun, or not at all) or a title right before the name, with the
        words before it back to an article, a comma or the question's start (at most
        three in all, none a question or frame word, a preposition, a relative, an
        auxiliary or a verb). Empty when the word before the name is no such noun ("the
        capital of France": "of" comes first), or a form of "be" comes right before the
        words ("is member X": a predicate), or the name is not capitalized (there is no
        telling where a name begins then: "the album hand cut"; a title right before it
        still describes it: "king hussein"), or "who" or "that" comes right before them
        ("Who brews X", "the company that manufactures X": a verb, though English knows
        "brews" as a noun too). Whether they describe the entity is the KB's to say (the
        caller asks it). With ``relative`` the words are given even where they may begin a
        relative clause without "that" ("where the band Braids formed": the band it is, or
        the band it formed): only the KB's class of the entity can tell."""
        before = [w for w in self.words if w.end <= span[0]]
        if not self.question[span[0]:span[0] + 1].isupper() and \
                not self.question[span[0]:span[0] + 1].isdigit():
            # "the album hand cut": where names are not capitalized; a title still
            # describes the name after it ("where did king hussein die")
            return before[-1:] if before and before[-1].low in TITLES else []
        if not before or not self._may_describe(before[-1]):
            return []                   # "Who owns X": a verb, no apposition
        run: list[Word] = []
        for w in reversed(before[-3:]):
            if w.low in STOPWORDS or w.low in FRAME_WORDS or w.low in AUXILIARIES or \
                    w.start in self.frame or w.low in _PREPOSITIONS or w.low in _RELATIVES \
                    or only_verb(w.low):        # "worked Sir Alex Ferguson"
                break
            if self.question[w.end:w.end + 1] == ",":
                break
            run.insert(0, w)
        rest = before[:len(before) - len(run)]
        if run and ((not relative and self._relative_without_word(rest, span)) or
                    (rest and rest[-1].low in _BE) or     # "of which band is member X"
                    (rest and rest[-1].low in ("who", "that"))):   # "Who brews X"
            return []
        return run

    def _may_describe(self, w: Word) -> bool:
        """Whether ``w``, right before a name, may be the head of a description of it: a
        lower-case noun or a title ("King"), not a stopword, a frame word or a verb."""
        return (w.text == w.low or w.low in TITLES) and w.low not in STOPWORDS and \
            w.start not in self.frame and w.low not in VERB_FORMS and \
            "NOUN" in (parts_of_speech(w.low) or {"NOUN"})

    def _relative_without_word(self, before: list[Word], span: tuple[int, int]) -> bool:
        """Whether "the N X" after a preposition or a relative word, followed by a verb,
        is a noun and a relative clause without "that" ("the label of the band Ian Gillan
        fronted": the band he fronted; "the city where the university X attended is"),
        not an apposition; ``before`` are the words before "N"."""
        later = [w for w in self.words if w.start >= span[1]]
        after = later[0] if later else None
        if len(before) < 2 or before[-1].low not in ("the", "a", "an") or after is None or \
                after.low in AUXILIARIES or "VERB" not in parts_of_speech(after.low) or \
                "NOUN" in parts_of_speech(after.low):
            return False
        if before[-2].low in _PREPOSITIONS:
            return True
        # after a relative word, only when the clause has a verb of its own after it:
        # "where the university X attended | is located" (not "where the painter X died")
        return before[-2].low in _RELATIVES and any(
            w.low in AUXILIARIES or only_verb(w.low) for w in later[1:])

    def description_before(self, span: tuple[int, int]) -> list[Word]:
        """The phrase right before the mention at ``span`` that only says what it is, as
        the rules marked it (``class_phrase_before`` with every word in ``described``:
        "the province of X"), or []."""
        phrase = self.class_phrase_before(span)
        return phrase if phrase and all(w.low in self.described for w in phrase) else []

    def own_clause(self, span: tuple[int, int]) -> list[Word]:
        """The words of the relative clause of the mention at ``span``: those after it
        that a relative word right before it introduces, up to a comma, a question word,
        the start of another clause ("that X founded | is headquartered", "that X worked
        for | written") or the end ("the country that X belongs to": "belongs", "to"; a
        description between them is skipped: "where the Indonesian president X died");
        [] when no relative word comes before the mention, or it is a possessive ("where
        X's university is": the university's clause)."""
        if self._relative_before(span) is None or \
                POSSESSIVE_END.search(self.question[span[0]:span[1]]) or \
                self.question[span[1]:span[1] + 2] in ("'s", "\u2019s"):
            return []
        out: list[Word] = []
        for w in (w for w in self.words if w.start >= span[1]):
            if w.low in WH_WORDS or w.start in self.frame or \
                    "," in self.question[span[1]:w.start] or \
                    (out and (clause_ended(out[-1].low, w.low) or      # "works for | written"
                              _verbs_in_a_row(out[-1].low, w.low))):   # "founded | based"
                break
            out.append(w)
        return out

    def clause_noun(self, span: tuple[int, int]) -> Word | None:
        """The noun the relative clause of the mention at ``span`` describes ("the
        country that X belongs to": "country"), or None."""
        before = self._relative_before(span)
        if not before or len(before) < 2 or before[-2].start in self.frame or \
                "NOUN" not in parts_of_speech(before[-2].low):
            return None
        return before[-2]

    def _relative_before(self, span: tuple[int, int]) -> list[Word] | None:
        """The words before the mention at ``span`` (articles and descriptions left out)
        when the last is a relative word, else None."""
        before = [w for w in self.words if w.end <= span[0]
                  and w.low not in ("the", "a", "an") and w.low not in self.described]
        return before if before and before[-1].low in _RELATIVES else None

    def class_noun_after(self, span: tuple[int, int]) -> Word | None:
        """The lower-case noun right after the mention at ``span`` that may say what it is
        ("the Camp Nou stadium", "the Guardian newspaper"), or None: not a question word,
        a word of the question's frame, a stopword or a word English knows only as a
        verb. Whether the entity is of that class is the KB's to say."""
        nxt = next((w for w in self.words if w.start >= span[1]), None)
        if nxt is None or nxt.text != nxt.low or nxt.low in STOPWORDS or \
                nxt.low in WH_WORDS or nxt.start in self.frame or only_verb(nxt.low) or \
                "NOUN" not in parts_of_speech(nxt.low) or \
                self.question[span[1]:nxt.start].strip():    # "X, stadium" or "X's"
            return None
        return nxt

    def epithet_after(self, span: tuple[int, int]) -> Word | None:
        """The noun of "the N" right after the mention at ``span`` ("Barnabas *the
        apostle*"), which may say who X is, or None (see ``class_noun_after``)."""
        the = next((w for w in self.words if w.start >= span[1]), None)
        if the is None or the.low != "the" or self.question[span[1]:the.start].strip():
            return None
        noun = self.class_noun_after((the.start, the.end))
        if noun is None or noun.low in ROLE_NOUNS:
            return None
        nxt = next((w for w in self.words if w.start >= noun.end), None)
        # "Is Sydney the capital of Australia?": "the N of" is a relation
        return None if nxt is not None and nxt.low == "of" else noun

    def class_phrase_after(self, span: tuple[int, int], most: int = 3) -> list[Word]:
        """The run of two or more lower-case nouns right after the mention at ``span``
        that may name what it is as a compound ("the steelers *football team*"), at most
        ``most`` words, each such a noun as ``class_noun_after`` takes; empty otherwise.
        Whether the entity is of that class is the KB's to say."""
        run: list[Word] = []
        end = span[1]
        while len(run) < most:
            w = self.class_noun_after((span[0], end))
            if w is None:
                break
            run.append(w)
            end = w.end
        return run if len(run) >= 2 else []

    def aside_after(self, span: tuple[int, int]) -> list[Word]:
        """The words of an aside between commas (or a comma and the question's end) right
        after the mention at ``span`` ("James McGill, founder of McGill University, passed
        away"; "John O'Neill, the Canadian politician, was born"): at most six, beginning
        with an article or (between commas) a lower-case noun — not a list of names
        ("France, Spain, and Italy"), not a verb ("…, born?"), not the relation asked at
        the end ("Boeing, place of founding?") — none a question word or an auxiliary.
        Empty when no such aside follows."""
        rest = self.question[span[1]:]
        close = rest.find(",", 1)
        closed = close > 0
        if not closed:      # "… Carl Linnaeus, the father of taxonomy?": to the end
            close = len(rest.rstrip(" ?.!"))
        if not rest.startswith(",") or close <= 1:
            return []
        words = [w for w in self.words if span[1] < w.start < span[1] + close]
        # at the end, only with an article: "Boeing, place of founding?" asks that
        if not words or len(words) > 6 or not (
                words[0].low in ("the", "a", "an") or (closed and _noun_first(words[0]))) or \
                any(w.low in WH_WORDS or w.start in self.frame or w.low in AUXILIARIES
                    for w in words):
            return []
        return words

    def described_as(self, span: tuple[int, int]) -> frozenset[str]:
        """The nouns the question uses to describe the entity at ``span``: "X is a N …"
        ("Tokyo is a city in which country?" → city; "Carbó is a small town in what
        country?" → small, town). They say what X is, not how it relates to the answer."""
        ws = self.words
        after = [i for i, w in enumerate(ws) if w.start >= span[1]]
        before = [w for w in ws if w.end <= span[0]]
        be = ("is", "was", "are", "were")
        if len(after) >= 3 and ws[after[0]].low in be and ws[after[0] + 1].low in ("a", "an"):
            first = after[0] + 2
        elif len(after) >= 2 and before and before[-1].low in be and \
                ws[after[0]].low in ("a", "an") and \
                ws[after[0] + 1].low in PLACE_NOUNS - ROLE_NOUNS:
            # "What country is Bukittinggi a city of?" — a kind of place only: "Which
            # country is X a citizen of?" asks X's citizenship
            first = after[0] + 1
        else:                                # ("X is the capital of": a relation)
            return frozenset()
        out: list[str] = []
        for w in ws[first:first + 3]:
            if w.low in FRAME_WORDS or w.low in _PREPOSITIONS or w.low in _RELATIVES or \
                    w.start in self.frame:
                if w.low == "of" and out and out[-1] in RELATIONAL_NOUNS:
                    return frozenset()          # "X is a member of …": a relation
                break
            out.append(w.low)
        return frozenset(out)


#: determiners of the noun "name" after a verb ("takes *its* name from")
_NAME_DETERMINERS = frozenset("its their his her the a".split())
_BE_OR_WH = frozenset("is are was were be been what which whose".split())
#: where a name came from ("the name X comes from", as glossed "from where comes the name
#: of X"): the name's origin, what X is named after
_NAME_VERB = r"(?:comes?|came|derives?|derived|originates?|originated)"
_NAME_COMES_FROM = re.compile(rf"(?i)\b(?:{_NAME_VERB}\s+from|from\s+{_NAME_VERB})\b")
#: prepositions that end a noun phrase ("the city *in* which …", "a town *of* …")
_PREPOSITIONS = frozenset("of in on at by for from to with".split())
#: prepositions a clause may end with ("the church X belonged *to*", "the city *in* which"):
#: not "of", which joins two nouns
CLAUSE_PREPOSITIONS = _PREPOSITIONS - {"of"}


def _verbs_in_a_row(before: str, word: str) -> bool:
    """Whether two verb forms follow each other with no auxiliary first ("the company
    that X founded | headquartered"): the second is another clause's."""
    return before not in AUXILIARIES and "VERB" in parts_of_speech(before) and \
        ("VERB" in parts_of_speech(word) or word in AUXILIARIES)    # "attended | is"


def clause_ended(before: str, word: str) -> bool:
    """Whether a clause ended with the preposition ``before`` and ``word``, a verb form
    right after it that is no object of it, begins another: "the church that X belonged
    to | headquartered", "the club X played for | founded"."""
    if before not in CLAUSE_PREPOSITIONS:
        return False
    parts = parts_of_speech(word)
    return "VERB" in parts and parts <= {"VERB", "ADJ", "AUX"}


#: forms of "be" (a noun after one is a predicate: "of which band is member X")
_BE = frozenset("is are was were be been being".split())
#: words that open a relative clause ("the country *whose* capital …")
_RELATIVES = frozenset("whose where that which who whom".split())

#: words after which a word that may be a verb is one, not the end of a class noun (not
#: "in", "with", …, which follow nouns as often: "the record label with which …")
_VERB_FOLLOWERS = frozenset("a an the through into across along onto".split())


def words_of(text: str) -> tuple[Word, ...]:
    return tuple(Word(m.group(), m.start(), m.end()) for m in _WORD.finditer(text))


def expand_contractions(question: str) -> str:
    """"What's" (or "whats") → "What is", "didn't" → "did not", "serves as the capital"
    → "is the capital", "a part of" → "part of"; other apostrophes (possessives) stay."""
    for pattern, repl in _CONTRACTIONS:
        question = pattern.sub(repl, question)
    return _LIGHT_VERB.sub(_light_verb, question)


#: the shortest word read as a misspelling (``respelled``)
MIN_MISSPELLED = 6
_ENGLISH_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def one_letter_away(word: str, letters: str = _ENGLISH_LETTERS) -> set[str]:
    """Every spelling of ``word`` with one of ``letters`` changed, added or dropped, or
    two letters next to each other swapped."""
    splits = [(word[:k], word[k:]) for k in range(len(word) + 1)]
    return ({a + b[1:] for a, b in splits if b} |
            {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1} |
            {a + c + b[1:] for a, b in splits if b for c in letters} |
            {a + c + b for a, b in splits for c in letters}) - {word}


def respelled(question: str, vocabulary: frozenset[str],
              is_name: Callable[[str], bool] = lambda word: False) -> str:
    """``question`` with each lower-case word of at least ``MIN_MISSPELLED`` letters that
    English does not know replaced by the one word a letter away of ``vocabulary`` (the
    relation words: the KB's property names: "captial" → capital, "leauge" → league),
    else the one such word English knows. Of several, the one that keeps every letter
    written ("orginate" → originate, not ordinate). A word with no such neighbour, or
    several still, stays; so does a word ``is_name`` says is (part of) a name the KB knows
    ("norman rockwell", "panch phoron")."""
    def fix(m: re.Match) -> str:
        word = m.group(0)
        if len(word) < MIN_MISSPELLED or word in vocabulary or known_word(word):
            return word
        near = one_letter_away(word)
        named = near & vocabulary or {w for w in near if known_word(w)}
        if len(named) > 1:       # a letter left out or two swapped, before one mistyped
            named = {w for w in named if len(w) > len(word) or sorted(w) == sorted(word)}
        return named.pop() if len(named) == 1 and not is_name(word) else word
    return re.sub(r"(?<![\w'\u2019-])[a-z]+(?![\w'\u2019-])", fix, question)


def analyze(question: str) -> Analysis:
    """The analysis of ``question`` (see the module docstring). Offsets index ``question``
    as given, so mentions found by the linker in the same text line up."""
    ws = words_of(question)
    r = _Reading(ws, _spelled(ws), [w.text for w in ws])
    first = _first_content(r.lows)
    inner = _embedded_question(r.lows, first)
    if inner is not None:                   # "Do you know where X was born?"
        r.mark(*range(first or 0, inner))
        first = inner
    if first is not None and _opens_yes_no(r.lows, first):  # "Is Paris …", "Did Curie …"
        r.form, r.wh = "ask", "yes/no"
        r.mark(first)
    elif first is not None and _states_yes_no(question, r.lows, first):
        r.form, r.wh = "ask", "yes/no"     # "Montreal is in the US?", "…, isn't it?"
        r.mark(*_tag_words(question, ws))
    _read_question_word(r, first)
    superlative = _read_superlative(r)
    one_of_many = _one_of_many(r.lows, first)
    if one_of_many:             # "an example of a game …": the game is asked, no example;
        r.mark(*(i for i, w in enumerate(r.lows) if w in ("example", "examples")
                 and r.lows[i + 1:i + 2] == ["of"]))
        named = next((i for i in range(len(r.lows)) if r.lows[i:i + 3] == _NAME_OF), None)
        if named is not None:   # "What is the name of someone who …": someone, no name
            r.mark(named, named + 1, named + 2)
    return Analysis(question, r.form, r.wh, r.answer_type, r.type_noun, superlative, ws,
                    frozenset(r.frame), _negated(ws), one_of_many=one_of_many,
                    one_head=_one_head(ws) if one_of_many else -1)


#: the words a misspelling is read as: question words and the class nouns of answer types
_SPELLED = sorted({"who", "whom", "whose", "what", "which", "where", "when"}
                  | PLACE_NOUNS | PERSON_NOUNS | TIME_NOUNS)
_SPELLED_SET = frozenset(_SPELLED)


def _spelled(ws: Sequence[Word]) -> list[str]:
    """The lower-cased words, a misspelled question word or class noun read as the word
    meant ("wich contry" → "which country", "whcih" → "which"): a word written in lower
    case (or first), that English does not know, one of ``_SPELLED`` with two letters
    swapped, else closest to one (difflib ratio ≥ 0.85). Names and known words stay as
    written."""
    out = []
    for i, w in enumerate(ws):
        low = w.low
        if len(low) >= 4 and low.isalpha() and (w.text == low or i == 0) \
                and low not in _SPELLED and not _SPELLED_SET.intersection(singulars(low)) \
                and not known_word(low) \
                and low[:-1] not in WH_WORDS:      # "whats": a contraction, not a typo
            swapped = {low[:k] + low[k + 1] + low[k] + low[k + 2:]
                       for k in range(len(low) - 1)} & _SPELLED_SET     # "whcih"
            close = sorted(swapped) or difflib.get_close_matches(low, _SPELLED, n=2,
                                                                 cutoff=0.85)
            if len(close) == 1:
                low = close[0]
        out.append(low)
    return out


def singulars(word: str) -> list[str]:
    """The singulars a plural may have, by its spelling ("counties" → "county", "boxes" →
    "box", "cities" → "city"); none for a word that is no plural."""
    out = []
    if word.endswith("ies") and len(word) > 4:
        out.append(word[:-3] + "y")
    if word.endswith("es") and len(word) > 3:
        out.append(word[:-2])
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        out.append(word[:-1])
    return out


def known_word(word: str) -> bool:
    """Whether English (lemminflect's lexicon) knows ``word`` in any form."""
    return bool(parts_of_speech(word))


def noun_only(word: str) -> bool:
    """Whether English knows ``word`` as a noun and not as a verb ("birthplace", not
    "contains")."""
    pos = parts_of_speech(word)
    return "NOUN" in pos and "VERB" not in pos


@functools.lru_cache(maxsize=4096)
def parts_of_speech(word: str) -> frozenset[str]:
    """The parts of speech English (lemminflect's lexicon) knows ``word`` as."""
    from lemminflect import getAllLemmas
    return frozenset(getAllLemmas(word))


@dataclass
class _Reading:
    """An analysis being read: the question's words (lower-cased, as written) and what
    the steps of ``analyze`` have found so far."""
    ws: tuple[Word, ...]
    lows: list[str]
    texts: list[str]
    #: offsets of the words of the question's frame (``Analysis.frame``)
    frame: set[int] = field(default_factory=set)
    form: str = "select"
    wh: str = ""
    answer_type: str | None = None
    type_noun: str | None = None

    def mark(self, *idx: int) -> None:
        """Puts the words at ``idx`` (those that exist) into the frame."""
        self.frame.update(self.ws[i].start for i in idx if 0 <= i < len(self.ws))


def _opens_yes_no(lows: Sequence[str], first: int) -> bool:
    """Whether the question is a yes/no one: its first content word (at ``first``) is an
    auxiliary, no question word is near the start, and it is no polite request around a
    wh-question ("Could you tell me who …")."""
    polite = first + 1 < len(lows) and lows[first + 1] == "you" \
        and any(w in WH_WORDS for w in lows[first + 2:])
    return lows[first] in AUXILIARIES and not _has_wh(lows) and not polite


#: a tag after a statement that makes it a yes/no question ("…, isn't it?" as expanded:
#: "is not it"; "…, right?", "…, correct?"), and a comma before it
_TAG = re.compile(r"(?i),\s*(?:right|correct|true|or not|am i right|"
                  r"is (?:that|this) (?:right|correct|true)|"
                  r"(?:is|was|are|were|did|does|do|has|have|had|will|would|can|could)"
                  r" not (?:it|he|she|they|there|we|you|i))\s*[?.!]*\s*$")


def _states_yes_no(question: str, lows: Sequence[str], first: int) -> bool:
    """Whether a question with no question word states what it asks yes or no about:
    with a tag ("Japan is in NATO, isn't it?", "…, right?") or as a statement with a verb
    and a question mark ("Montreal is in the US?", "Ptolemy died in Athens?"). A statement
    ending in its verb or a preposition asks for what comes next ("X was born in?"); words
    without a verb ask for a value ("Saudi Arabia's neighbours?")."""
    if any(w in WH_WORDS for w in lows) or lows[first] in IMPERATIVES:
        return False
    if _TAG.search(question):
        return True
    if not question.rstrip().endswith("?") or len(lows) - first < 3 or \
            lows[-1] in _PREPOSITIONS or lows[-1] in AUXILIARIES:
        return False
    # a verb in the past after a name ("Ptolemy died …"), not a participle after a noun
    # ("Instruments played by …", "Year X received …")
    named = not known_word(lows[first])
    return any(w in ("is", "was", "are", "were") or (named and _past_verb(w))
               for w in lows[first + 1:-1])


def _past_verb(word: str) -> bool:
    """Whether ``word`` is an -ed form English knows as a verb only ("died", "played")."""
    return word.endswith("ed") and parts_of_speech(word) == frozenset({"VERB"})


def _tag_words(question: str, ws: Sequence[Word]) -> list[int]:
    """The indices of the words of the tag that makes ``question`` yes/no, if any."""
    found = _TAG.search(question)
    return [i for i, w in enumerate(ws) if found and w.start >= found.start()]


def _read_question_word(r: _Reading, first: int | None) -> None:
    """Reads the question word into ``r`` (with the answer type and class noun it says):
    the first word that is one, skipping the words a counting phrase ("how many", "the
    number of") makes no question word of."""
    counting = any((w == "how" and i + 1 < len(r.lows) and r.lows[i + 1] in ("many", "much"))
                   or (w == "number" and i + 1 < len(r.lows) and r.lows[i + 1] == "of")
                   for i, w in enumerate(r.lows))
    for i, w in enumerate(r.lows):
        if counting and w in ("what", "which", "is", "the", "tell", "me", "give"):
            continue
        if _read_word(r, i, first):
            break


def _read_word(r: _Reading, i: int, first: int | None) -> bool:
    """Reads the word at ``i`` into ``r`` if it is the question word; whether it was (the
    reading stops there). An imperative that opens the question is read (and marked) and
    ends the reading unless a question word follows it (``_read_imperative``)."""
    lows, w = r.lows, r.lows[i]
    if _read_how(r, i):
        return True
    if w == "number" and i + 1 < len(lows) and lows[i + 1] == "of" and (
            i == 0 or lows[i - 1] in ("the", "what", "a")):
        _read_count(r, i, "count", "how many")
        return True
    if w in ("who", "whom", "whose"):
        return _read_who(r, i)
    if w in ("where", "when"):
        if _relative_before_wh(lows, i):
            return False            # "The city where X died is the capital of what?"
        r.wh, r.answer_type = r.wh or w, r.answer_type or ("place" if w == "where" else "time")
        r.mark(i)
        return True
    if w in ("which", "what"):
        if w == "which" and _relative_before_wh(lows, i):
            return False            # "a city which is named after whom?"
        _read_which(r, i)
        return True
    if i == first and i >= 2 and lows[i - 2:i] == ["tell", "me"]:
        return _read_imperative(r, i - 2)   # "Tell me the country where …" ("tell me" is
    return i == first and w in IMPERATIVES and _read_imperative(r, i)   # filler elsewhere)


def _read_how(r: _Reading, i: int) -> bool:
    """"how many"/"how much" at ``i`` (a count), or "how" before an auxiliary ("How did X
    die?": a manner, no place, time or agent), read into ``r``; whether it was one."""
    lows = r.lows
    if lows[i] != "how" or i + 1 >= len(lows):
        return False
    if lows[i + 1] in ("many", "much"):
        _read_count(r, i, "count" if r.form != "ask" else r.form, f"how {lows[i + 1]}")
        return True
    if lows[i + 1] in AUXILIARIES:
        r.wh = r.wh or "how"
        r.mark(i)
        return True
    return False


def _read_count(r: _Reading, i: int, form: str, wh: str) -> None:
    """"how many N", "the number of N" at ``i``: the question counts (as ``form`` and
    ``wh``), its answer is a number, and the N after the phrase is the class counted."""
    r.form, r.wh, r.answer_type = form, wh, "number"
    r.mark(i, i + 1)
    noun = _noun_after(r.lows, i + 2, r.texts, counted=True)
    if noun:
        r.type_noun = _noun_phrase(r.lows, i + 2, noun)
        r.mark(*range(i + 2, noun + 1))


def _read_which(r: _Reading, i: int) -> None:
    """"which"/"what" at ``i``: the class noun is the head a relative "in which" attaches
    to ("the city in which Einstein was born"), else the noun right after ("which
    country", not "which is"), and says the answer type when it is a person, place or
    time noun."""
    lows, texts = r.lows, r.texts
    r.wh = r.wh or lows[i]
    r.mark(i)
    start = i + 1                   # where the class noun may begin
    if start + 1 < len(lows) and lows[start] in _COUNT_WORDS:
        r.mark(start)               # "which three countries …": the class is "countries"
        start += 1
    noun = _noun_after(lows, start, texts)
    head = _head_before(lows, i)
    if noun is not None and (head is None or not texts[start][:1].isupper()
                             or noun == len(lows) - 1):
        # "a city in which country", "which Indian state", "a city in which Australian
        # state?" (a noun phrase that ends the question is no clause)
        head = None
    if head is not None:        # "the city in which Einstein was born": a city
        r.type_noun = lows[head]
        r.answer_type = _type_of(r.type_noun) or r.answer_type
        r.mark(head - 1, head, i - 1)
    elif noun is not None and lows[start] not in AUXILIARIES:
        r.type_noun = _noun_phrase(lows, start, noun)
        r.answer_type = _type_of(r.type_noun) or r.answer_type
        r.mark(*range(start, noun + 1))


def _read_imperative(r: _Reading, i: int) -> bool:
    """An imperative at ``i`` ("Name …", "Tell me …"), read into ``r``; whether the
    reading ends there: unless a question word follows it ("Tell me who …"). "The N
    whose/where/in which …" after it makes N the class asked for ("Name the country
    whose capital is …": a country)."""
    lows = r.lows
    after = i + 2 if lows[i + 1:i + 2] in (["me"], ["us"]) else i + 1
    nouns, relative = _noun_before_relative(lows, after, r.texts)
    nxt = after + 1 if lows[after:after + 1] and lows[after] in _PREPOSITIONS else after
    # "Tell me who …", "Name someone who …": the question word or relative after it asks
    asks_on = nouns is None and lows[nxt:nxt + 1] != [] and (
        lows[nxt] in WH_WORDS or lows[after] in _INDEFINITE_PRONOUNS)
    if asks_on and lows[i] == "tell":
        return False            # "Tell me (in) which …": filler before the question word
    r.wh = r.wh or "imperative"
    r.mark(i)
    if after == i + 2:
        r.mark(i + 1)
    if nouns is None:
        # "Name what …" asks with the word after it; a "where" or "who" further on is a
        # relative ("Tell me the official language of the city where …")
        return not asks_on
    r.type_noun = _noun_phrase(lows, nouns[0], nouns[1])
    r.answer_type = _type_of(r.type_noun)
    r.mark(*range(nouns[0] - 1, relative + 1))
    return True


def _read_superlative(r: _Reading) -> Superlative | None:
    """The first superlative of the question ("oldest", "the most recent": a two-word one
    before its first word alone), its words marked in ``r``'s frame; None if none."""
    lows = r.lows
    for i, w in enumerate(lows):
        nxt = lows[i + 1] if i + 1 < len(lows) else ""
        key = f"{w} {nxt}" if f"{w} {nxt}" in SUPERLATIVES else w
        if key in SUPERLATIVES:
            r.mark(i, *((i + 1,) if key != w else ()))
            return SUPERLATIVES[key]
    return None


def _negated(ws: Sequence[Word]) -> bool:
    """Whether the question asks what does not hold: a negation word, not a capitalized
    one inside the question, which is part of a name ("Never Let Me Go")."""
    return any(w.low in NEGATIONS and not (i > 0 and w.text[:1].isupper())
               for i, w in enumerate(ws))


#: how a question asking for one of many opens (questions in other languages come here
#: read into English: ``querygen.languages``): an imperative, or a question word and "is",
#: then "a", "someone" …
_NAME_ONE = frozenset("name give mention cite suggest".split())
_WHO_IS = frozenset("who what which whats who's what's".split())
_IS = frozenset("is was are were would be".split())
_NAME_OF = ["the", "name", "of"]
_ONE = frozenset("a an one some someone somebody anyone anybody something".split())


def _one_of_many(lows: Sequence[str], first: int | None) -> bool:
    """Whether the question asks for one of many: "Name a poet", "Give me a jazz album",
    "Who is an artist signed to Motown?", "What's an example of a comedy film?", "name
    someone born in Oslo", or a search for one written as its noun phrase ("a show on
    Fox News", "someone born in Oslo"); ``first`` is the question's first word (of the
    question a wrapper embeds: "Anyone know someone who …")."""
    if first is None:
        return False
    rest = list(lows[first:first + 6])
    if not first and rest[0] in _ONE and rest[0] != "one":
        return True
    if rest[0] in _NAME_ONE:
        rest = rest[1:]
        if rest[:1] == ["me"]:
            rest = rest[1:]
    elif rest[0] in _WHO_IS:
        rest = rest[1:]
        while rest and rest[0] in _IS:
            rest = rest[1:]
        if rest[:3] == _NAME_OF:                  # "What is the name of a poet …"
            rest = rest[3:]
    elif not (first and lows[first - 1] == "me") and rest[1:2] != ["example"]:
        return False                        # "Tell me a …", "An example of …"
    if rest[:2] in (["an", "example"], ["one", "example"], ["example", "of"]):
        return True
    return bool(rest) and rest[0] in _ONE


#: verbs a polite request asks to do ("Can you name a …?" is no yes/no question)
_REQUESTED = frozenset("name give tell list show find say mention suggest".split())


#: a word that ends the head noun of the one asked for, besides prepositions, relative
#: words and "be" ("a poet *born* in Lyon")
_AFTER_HEAD = HEAD_ENDING_PARTICIPLES


def _one_head(ws: Sequence[Word]) -> int:
    """The start of the head noun after the question's first indefinite article ("a
    famous poet born in …" → "poet"; "an example of a comedy film" → "film"), -1 when
    the one asked for is a pronoun ("someone") or there is no such noun."""
    lows = [w.low for w in ws]
    first = _first_content(lows) or 0
    at = next((i for i in range(first, min(first + 6, len(ws))) if lows[i] in _ONE), None)
    if at is None or lows[at] not in ("a", "an", "one", "some"):
        return -1
    if lows[at + 1:at + 4] in (["example", "of", "a"], ["example", "of", "an"]):
        at += 3
    head = -1
    for i in range(at + 1, len(ws)):
        low = lows[i]
        if not low.isalpha() or low in _PREPOSITIONS or low in _RELATIVES or \
                low in _BE or low in _AFTER_HEAD or (low.endswith("ed") and head >= 0):
            break
        if low not in PRAISE_WORDS:
            head = i
    return ws[head].start if head >= 0 else -1


def _read_who(r: _Reading, i: int) -> bool:
    """Reads "who"/"whom"/"whose" at ``i``: a person is asked for, but for "Who was X by
    profession?", which asks what X was; not a relative ("the man who …")."""
    lows = r.lows
    if _relative_before_wh(lows, i):
        return False
    if _by_trade(lows):
        r.wh = r.wh or "what"
    else:
        r.wh = r.wh or lows[i]
        r.answer_type = r.answer_type or "person"
    r.mark(i)
    return True


#: nouns after "by" that make a who-question ask what someone did ("Who was X by
#: profession?", as the Russian "Кем был X по профессии?" reads)
_TRADES = frozenset("profession occupation trade training".split())


def _by_trade(lows: Sequence[str]) -> bool:
    """Whether "by profession" (or occupation, trade, training) is said."""
    return any(a == "by" and b in _TRADES for a, b in zip(lows, lows[1:], strict=False))


#: the words that ask a question of the one asked by the question they wrap ("Do you know
#: where …", "I wonder which …", "Any idea who …"), "know" and "wonder" last
_WRAPPERS = tuple(tuple(w.split()) for w in (
    "do you know", "do you happen to know", "does anyone know", "did you know",
    "anyone know", "anybody know", "does anybody know",
    "you know", "know", "i wonder", "i want to know", "i would like to know",
    "i'd like to know", "any idea", "have you any idea", "do you have any idea",
    "would you know", "could you say", "can you say"))


def _embedded_question(lows: Sequence[str], first: int | None) -> int | None:
    """Where the question a wrapper at ``first`` embeds starts ("Do you know where X was
    born?": at "where"), or None: the wrapper is a request, no relation."""
    if first is None:
        return None
    for wrapper in _WRAPPERS:
        end = first + len(wrapper)
        after = end + 1 if lows[end:end + 1] and lows[end] in _PREPOSITIONS else end
        if tuple(lows[first:end]) == wrapper and lows[after:after + 1] and (
                lows[after] in WH_WORDS or after == end and lows[after] in _ONE):
            return end                  # "… where", "… in which", "… someone who"
    return None


def _first_content(lows: Sequence[str]) -> int | None:
    """The first word that is not a politeness or filler word ("please", "so", "hey"),
    nor the "can you" of a request ("Can you name a poet?": "name")."""
    i = 0
    while i < len(lows):
        if lows[i] in _MODALS and lows[i + 1:i + 2] == ["you"]:
            rest = [x for x in lows[i + 2:i + 4] if x not in ("please", "kindly")]
            if rest[:1] and rest[0] in _REQUESTED:
                i += 2                      # "can you" asks to do what follows
                continue
        if lows[i] not in OPENING_FILLERS:
            return i
        i += 1
    return None


#: the verbs of a polite request ("Can you name …")
_MODALS = frozenset("can could would will".split())


WH_WORDS = frozenset("who whom whose what which where when how".split())
#: a possessive ending ("Curie's", "employer's"), shared by the readers of the question
POSSESSIVE_END = re.compile(r"['\u2019]s?$")


def _noun_phrase(lows: Sequence[str], first: int, last: int) -> str:
    """The words ``first``..``last`` as a class noun, a possessive ending dropped
    ("which country's city": the class is "country")."""
    return POSSESSIVE_END.sub("", " ".join(lows[first:last + 1]))
#: words that negate the relation asked about ("n't" is expanded to "not" first)
NEGATIONS = frozenset("not never neither nor".split())


def class_idiom(a: Analysis, span: tuple[int, int] = (0, 0)) -> bool:
    """"X is a kind of what?", "X is an example of which genre": a class noun and "of"
    after the mention ``span`` (anywhere by default), then a question word or the end."""
    after = [w.low for w in a.words if w.start >= span[1]]
    for i, w in enumerate(after[:-1]):
        if w in CLASS_IDIOM_NOUNS and after[i + 1] == "of" and (
                i + 2 == len(after) or after[i + 2] in WH_WORDS):
            return True
    return False


def _relative_before_wh(lows: Sequence[str], i: int) -> bool:
    """Whether the who/whom/whose/which/where/when at ``i`` opens a relative clause
    after a noun and the question word comes later ("a country *whose* capital is *which*
    city?", "… whose capital is named after *whom*?", "The city *where* X died is in
    *which* country?")."""
    return i > 0 and lows[i - 1] not in AUXILIARIES and lows[i - 1] not in _PREPOSITIONS \
        and lows[i - 1] not in WH_WORDS and lows[i - 1] not in ("me", "us") \
        and any(w in ("which", "what", "where", "when", "who", "whom") for w in lows[i + 1:])


def _has_wh(lows: Sequence[str]) -> bool:
    return any(w in WH_WORDS for w in lows[:3])


def _noun_after(lows: Sequence[str], i: int, cased: Sequence[str] | None = None,
                counted: bool = False) -> int | None:
    """The last index of a short noun phrase starting at ``i`` ("political party",
    "country"), stopping before auxiliaries, prepositions, superlatives and words that
    look like verbs ("chemists *won*", "physicist *died*", "genre *belongs*"; where the
    noun is ``counted``, a plural's verb too: "how many countries *border* Peru"); None if
    none."""
    end = None
    for j in range(i, min(len(lows), i + 3)):
        w = lows[j]
        abbreviation = j == i and _abbreviation(lows, cased, j)
        if (w in AUXILIARIES or w in FRAME_WORDS or w in _RELATIVES or w in _PREPOSITIONS
                or w in ("did", "does")) and not abbreviation:
            break
        if j > i and (w in SUPERLATIVES or w in VERB_FORMS or
                      (w.endswith("ed") and len(w) > 4) or only_verb(w)):
            break
        if j == i and only_verb(w):
            break                          # "what got founded": no noun at all
        if j > i and cased is not None and cased[j][:1].isupper():
            break                          # a name follows: "universities Max Planck"
        if j > i and _lower_case_name(w, cased):
            break                          # "which religion steve jobs followed"
        if j > i and _verb_after_noun(lows, cased, j, counted):
            break                          # "which countries *share* a border", "what
            #                                river *flows* through", "how many countries
            #                                *border* Peru"
        end = j
        if POSSESSIVE_END.search(w):
            break                  # "which country's city …" asks for the country
    return end


def _lower_case_name(word: str, cased: Sequence[str] | None) -> bool:
    """Whether ``word``, in a question all in lower case (``cased``: its words as
    written), may begin a name: English does not know it."""
    return cased is not None and not parts_of_speech(word) and word not in STOPWORDS and \
        not any(t[:1].isupper() for t in cased[1:])


def _verb_after_noun(lows: Sequence[str], cased: Sequence[str] | None, j: int,
                     counted: bool) -> bool:
    """Whether the word at ``j``, after a noun, is its verb: a verb before a word that
    follows verbs ("countries *share* a border"), or after a ``counted`` plural noun, a
    verb's plain form before a name or an article ("how many countries *border* Peru";
    "which municipalities border X" keeps its noun phrase, which names the relation)."""
    if "VERB" not in parts_of_speech(lows[j]) or j + 1 >= len(lows):
        return False
    if lows[j + 1] in _VERB_FOLLOWERS:
        return True
    nxt = cased[j + 1] if cased is not None else ""
    return counted and bool(singulars(lows[j - 1])) and not lows[j].endswith("s") and \
        (nxt[:1].isupper() or lows[j + 1] in ("the", "a", "an"))


def _abbreviation(lows: Sequence[str], cased: Sequence[str] | None, j: int) -> bool:
    """Whether the word at ``j`` is an abbreviation that begins a class noun, not a
    function word: "which US state", "which us state" (the country, not the pronoun)."""
    if cased is not None and len(cased[j]) >= 2 and cased[j].isupper():
        return True
    return lows[j] == "us" and j + 1 < len(lows) and lows[j + 1] not in AUXILIARIES


def only_verb(word: str) -> bool:
    """Whether English knows ``word`` as a verb form and as nothing else ("belongs",
    "consists"; not "plays", "works", which are nouns too)."""
    parts = parts_of_speech(word)
    return bool(parts) and parts <= {"VERB", "AUX"}


#: how many answers a "which N" question expects ("which two rivers …"): no class noun
_COUNT_WORDS = frozenset("two three four five six seven eight nine ten".split())
#: words that stand for an entity without naming its class ("Name someone who …")
_INDEFINITE_PRONOUNS = frozenset(
    "someone somebody something anyone anybody anything everyone everything one".split())


def _noun_first(word: Word) -> bool:
    """Whether ``word`` may begin an aside without an article: a lower-case noun
    ("founder of …"; not a verb: "…, born?", nor a name: "France, Spain")."""
    parts = parts_of_speech(word.low)
    return word.text.islower() and "NOUN" in parts and not only_verb(word.low)


def _noun_before_relative(lows: Sequence[str], i: int, cased: Sequence[str]
                          ) -> tuple[tuple[int, int] | None, int]:
    """After an imperative, "the N whose/where/that/in which …": the span of N (first and
    last index) and the last index of the relative words; (None, -1) if the words do not
    read so. The article may be missing before a relative word ("Name countries where
    French is spoken"; a question read from Russian, which has none)."""
    if i >= len(lows):
        return None, -1
    article = lows[i] in ("the", "a", "an", "all", "some", "every")
    start = i + 1 if article else i
    if lows[i] == "all" and lows[i + 1:i + 2] == ["the"]:
        start += 1                         # "all the films that …"
    if not article and lows[i] in _INDEFINITE_PRONOUNS:
        return None, -1
    end = _noun_after(lows, start, cased)
    if end is None or end + 1 >= len(lows):
        return None, -1
    after = lows[end + 1]
    if after in _RELATIVES:
        return (start, end), end + 1
    if after in _PREPOSITIONS and \
            end + 2 < len(lows) and lows[end + 2] in ("which", "whom"):
        return (start, end), end + 2
    if article and cased[end + 1][:1].isupper():  # a clause without "that": "the continent
        return (start, end), end                 # Oman lies on", "the films Kubrick directed"
    if article and _participle(after) and _plain_noun(lows[end]):
        return (start, end), end       # "the state containing …", "the film directed by …"
    return None, -1


@functools.lru_cache(maxsize=4096)
def _plain_noun(word: str) -> bool:
    """Whether English knows ``word`` as a noun and not as an inflected adjective
    ("state", "country"; not "best", the superlative of "good")."""
    from lemminflect import getAllLemmas
    lemmas = getAllLemmas(word)
    return "NOUN" in lemmas and word in lemmas.get("ADJ", (word,))


def _participle(word: str) -> bool:
    """Whether ``word`` is a verb's -ing or -ed form ("containing", "directed") or its
    past participle ("born", "written")."""
    if word.endswith(("ing", "ed")) and "VERB" in parts_of_speech(word):
        return True
    from lemminflect import getAllLemmas, getInflection
    return any(word in getInflection(lemma, tag="VBN")
               for lemma in getAllLemmas(word).get("VERB", ()))


def _head_before(lows: Sequence[str], i: int) -> int | None:
    """The noun a relative "in which" at ``i`` attaches to ("the city in which …"), if the
    words read so."""
    # not "of which": "the capital of the country of which X was a citizen" asks a capital
    if i >= 3 and lows[i - 1] in CLAUSE_PREPOSITIONS and \
            lows[i - 3] in ("the", "a", "an") and lows[i - 2] not in FRAME_WORDS \
            and lows[i - 2] not in AUXILIARIES:
        return i - 2
    return None


def _type_of(noun: str) -> str | None:
    last = noun.split()[-1]
    if last in PERSON_NOUNS:
        return "person"
    if last in PLACE_NOUNS:
        return "place"
    if last in TIME_NOUNS:
        return "time"
    if last in CLASS_WORDS:
        return None
    return None
