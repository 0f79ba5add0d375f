"""How well a KB property fits the relation words of a question.

``RelationFit(kb, property_linker)`` scores a property against a question's relation words
with four signals, summed:

``name``      the property linker's score (``PropertyLinker.link``) for the best of several
              phrasings of the relation: the words left once the subject's mention is out,
              the same without the other mentions or the "which N" noun, the noun alone,
              and related word forms (``lexicon.RELATED``: "born" → "birth"), which count
              ``RELATED_WEIGHT`` as much;
``coverage``  the share of the relation's content words that the property's label and
              aliases contain (``COVERAGE`` × share) — "political party … member of" is
              P102 (all words), not P31 (whose alias "member of" covers two of three);
``type``      the answer type the question word asks for: a date property for "when"
              (anything else clashes), no date property for "where"/"who", a place-like
              property for "where", a quantity for "how many";
``default``   with no relation words at all ("What is X?"), the type property P31.

Callers restrict candidates to properties an entity has (``PropertyLinker.roles``), so a
weak name match on one of few properties still counts. ``chunks`` splits the relation words
into the pieces a chain of properties would answer ("the capital of the country where X
was born" → capital | country | born).
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Iterable, Sequence
from typing import Any

from kb.base import KnowledgeBase
from kb.types import Candidate
from linking.lexicon import STOPWORDS, stem
from linking.lexicon import en as _en
from querygen.analysis import (POSSESSIVE_END, Analysis, Word, class_idiom, clause_ended,
                               only_verb)
from querygen.lexicon import AUXILIARIES, FRAME_WORDS, ONE_FROM, RELATED

#: related word forms count a little less than the question's own words
RELATED_WEIGHT = 0.92
#: a fuzzy-only property match below this (0.85 × similarity) is taken at half its score:
#: spelling slips score higher than different words ("birthplace" ~ "deathplace": 0.68)
FUZZY_TRUSTED = 0.75
#: properties kept per phrase from the property linker (the rest fit by coverage alone)
PHRASE_CANDIDATES = 400
#: phrases whose candidates a RelationFit remembers
PHRASES_KEPT = 4096
#: weight of the share of the relation's content words a property's names cover
COVERAGE = 0.5
#: a property whose fit (name score + coverage) is below this does not name the relation
MIN_PROPERTY = 0.25
#: the property that types an entity, and how well it fits a question with no relation
#: words ("What is X?")
TYPE_PROPERTY, DEFAULT_TYPE_FIT = "P31", 0.6
#: roots of words that ask what a thing belongs to, never its class, though P31's aliases
#: say "member of" ("What does Scotland belong to?" is not "country")
MEMBERSHIP_ROOTS = frozenset({"belong", "member", "part"})
#: "X is a kind of what?" asks a class for its superclass: the KB holds a subclass-of
#: statement only for a class, and an instance's kind is its type (``TYPE_PROPERTY``)
SUBCLASS_PROPERTY, CLASS_IDIOM_FIT, CLASS_IDIOM_MARGIN = "P279", 0.7, 0.05
#: answer-type fit: a date property for "when", a place property for "where"
TYPE_FIT, TYPE_CLASH = 0.25, 0.5

#: words of place-like property names (``linking.lexicon.en``)
PLACE_WORDS = _en.PLACE_PROPERTY_WORDS
#: prepositions that end a relation phrase without being part of a property's name
TRAILING = frozenset("of with to in at on for from".split())
#: words that join the pieces of a chained relation ("capital *of* the country *where* …")
CHAIN_JOINS = frozenset("of where whose that which who when in whom".split())


class RelationFit:
    """Scores properties against relation words (see the module docstring). Thread-safe."""

    def __init__(self, kb: KnowledgeBase, props: Any):
        self.kb = kb
        self.props = props
        self._lock = threading.Lock()
        self._info: dict[str, Any] = {}
        # a property's name words and stems (asked thousands of times per question)
        self._words: dict[str, frozenset[str]] = {}
        self._stems: dict[str, frozenset[str]] = {}
        self._label_stems: dict[str, frozenset[str]] = {}
        # the property linker's candidates per phrase (phrasings recur across questions)
        self._linked: dict[str, tuple[Candidate, ...]] = {}
        self._vocabulary: frozenset[str] | None = None

    @property
    def vocabulary(self) -> frozenset[str]:
        """The lower-case words of every property's English names and of ``RELATED``'s
        phrases: the words a relation is named with (what ``respelled`` mends toward)."""
        if self._vocabulary is None:
            words = {w for pid in self.props.labels() for name in self.props.names(pid)
                     for w in re.findall(r"[a-z]+", name.lower())}
            words |= {w for phrase in RELATED for w in phrase.split()}
            self._vocabulary = frozenset(w for w in words if w not in STOPWORDS)
        return self._vocabulary

    # -- phrasings ----------------------------------------------------------------------------
    def phrases(self, a: Analysis, own: Sequence[tuple[int, int]],
                all_spans: Sequence[tuple[int, int]]) -> list[tuple[str, float]]:
        """(phrase, weight) pairs to link (see the module docstring)."""
        variants: dict[str, float] = {}

        def add(words: Iterable[Word | str], weight: float) -> None:
            text = " ".join(w.text if isinstance(w, Word) else w for w in words).strip()
            if text and weight > variants.get(text, 0.0):
                variants[text] = weight

        base = a.relation_words(own)
        add(base, 1.0)
        add(a.relation_words(all_spans), 1.0)
        add(a.relation_words(all_spans, keep_type_noun=False), 1.0)
        if a.type_noun:
            # the noun of "which N" names the relation when nothing else does ("which
            # country is X in"); else it is more likely the answer's class
            rest = content(a.relation_words(all_spans, keep_type_noun=False))
            add([a.type_noun], 0.6 if rest else 0.95)
        self.add_related([w.low for w in base], add)
        if a.one_of_many and any(w.low == "from" for w in base):
            for form in ONE_FROM:
                add([form], RELATED_WEIGHT)
        for text, weight in list(variants.items()):
            head, _, last = text.rpartition(" ")
            if head and last.lower() in TRAILING and head.lower() != a.type_noun:
                # "the employer of X", "X has diplomatic relations with": the preposition
                # joins the relation to an entity; the name is "employer", "diplomatic
                # relation" (a fuzzy match with it would score half: FUZZY_TRUSTED)
                add([head], weight)
        return list(variants.items())

    @staticmethod
    def add_related(lows: Sequence[str], add: Any) -> None:
        for i, w in enumerate(lows):
            pair = f"{w} {lows[i + 1]}" if i + 1 < len(lows) else ""
            for key in (pair, w):
                for form in RELATED.get(key, ()):
                    add([form], RELATED_WEIGHT)

    def chunk_phrases(self, words: Sequence[Word]) -> list[tuple[str, float]]:
        """(phrase, weight) pairs for one chunk of a chained relation."""
        variants: dict[str, float] = {}

        def add(ws: Iterable[Word | str], weight: float) -> None:
            text = " ".join(w.text if isinstance(w, Word) else w for w in ws).strip()
            if text and weight > variants.get(text, 0.0):
                variants[text] = weight

        add(words, 1.0)
        self.add_related([w.low for w in words], add)
        return list(variants.items())

    # -- scores -------------------------------------------------------------------------------
    def _link(self, phrase: str) -> tuple[Candidate, ...]:
        """The property linker's candidates for ``phrase``, remembered for this fit's life
        (at most ``PHRASES_KEPT`` phrases, forgotten together when full)."""
        found = self._linked.get(phrase)
        if found is None:
            found = tuple(self.props.link(phrase, limit=PHRASE_CANDIDATES))
            with self._lock:
                if len(self._linked) >= PHRASES_KEPT:
                    self._linked.clear()
                self._linked[phrase] = found
        return found

    def name_scores(self, phrases: list[tuple[str, float]]
                    ) -> dict[str, tuple[float, Candidate]]:
        """pid → (best weighted name score over the phrases, its candidate)."""
        best: dict[str, tuple[float, Candidate]] = {}
        prepare = getattr(self.props, "prepare", None)
        if callable(prepare) and len(phrases) > 1:
            prepare([p for p, _ in phrases])       # one embedding pass for all of them
        for phrase, weight in phrases:
            for c in self._link(phrase):
                name = c.features.get("name", 0.0)
                if c.match == "fuzzy" and name < FUZZY_TRUSTED:
                    name *= 0.5            # "birthplace" is no misspelling of "deathplace"
                s = weight * (name + c.features.get("prior", 0.0))
                if s > best.get(c.id, (0.0,))[0]:
                    best[c.id] = (s, c)
        return best

    def fit(self, a: Analysis | None, pid: str, scores: dict[str, tuple[float, Candidate]],
            contents: list[list[str]]) -> tuple[float, Candidate] | None:
        """(fit, the property as a Candidate) of ``pid`` for relation words whose name
        scores are ``scores`` and content words ``contents`` (alternatives: the best
        counts); None when it does not fit at all."""
        name, cand = scores.get(pid, (0.0, None))
        cover = max((self.coverage(c, pid) for c in contents), default=0.0)
        if not any(contents) and pid == TYPE_PROPERTY and (a is None or a.wh != "who"):
            name = max(name, DEFAULT_TYPE_FIT)   # "What is X?" (not "Who is X?")
        elif pid == SUBCLASS_PROPERTY and a is not None and class_idiom(a):
            # above "instance of", which "kind" names as well
            name = max(name + CLASS_IDIOM_MARGIN, CLASS_IDIOM_FIT)
        fit = name + COVERAGE * cover
        if pid == TYPE_PROPERTY and any(root(w) in MEMBERSHIP_ROOTS for c in contents for w in c):
            return None     # what X belongs to, is part or a member of is no class of it
        if fit < MIN_PROPERTY:
            return None
        if cand is None:
            cand = self.candidate(pid, fit)
        return fit + (self.type_fit(a, pid) if a is not None else 0.0), cand

    def coverage(self, words: list[str], pid: str) -> float:
        """The share of ``words`` (content words) that the property's label and aliases
        contain, as a stem or through a related form ("born" → "birth")."""
        if not words:
            return 0.0
        names = self.name_stems(pid)
        covered = sum(1 for w in words if any(needs <= names for needs in _word_roots(w)))
        for a, b in zip(words, words[1:]):      # a phrase: "passed away" covers "death"
            if related_pair(a, b, names):
                covered += sum(1 for w in (a, b)
                               if not any(needs <= names for needs in _word_roots(w)))
        return min(1.0, covered / len(words))

    def type_fit(self, a: Analysis, pid: str) -> float:
        info = self.info(pid)
        if info is None:
            return 0.0
        is_time = info.datatype == "time"
        if a.answer_type == "time":
            return TYPE_FIT if is_time else -TYPE_CLASH
        if is_time and a.answer_type in ("place", "person"):
            return -TYPE_CLASH
        if a.answer_type == "place":
            return TYPE_FIT * 0.5 if self.name_words(pid) & PLACE_WORDS else 0.0
        if a.answer_type == "number" and info.datatype == "quantity":
            return TYPE_FIT
        return 0.0

    # -- property facts -----------------------------------------------------------------------
    def info(self, pid: str) -> Any:
        """The KB's PropertyInfo of ``pid`` (None when the KB has no terms for it)."""
        if pid not in self._info:
            try:
                info = self.kb.property_info(pid)
            except Exception:          # noqa: BLE001 - a property the KB has no terms for
                info = None
            with self._lock:
                self._info[pid] = info
        return self._info[pid]

    def datatype(self, pid: str) -> str | None:
        info = self.info(pid)
        return info.datatype if info is not None else None

    def name_words(self, pid: str) -> frozenset[str]:
        found = self._words.get(pid)
        if found is None:
            info = self.info(pid)
            found = frozenset() if info is None else frozenset(
                w for name in (info.label, *info.aliases) for w in norm_words(name))
            self._words[pid] = found
        return found

    def name_stems(self, pid: str) -> frozenset[str]:
        found = self._stems.get(pid)
        if found is None:
            found = self._stems[pid] = frozenset(root(w) for w in self.name_words(pid)
                                                 if w not in STOPWORDS)
        return found

    def label_stems(self, pid: str) -> frozenset[str]:
        """The stems of ``pid``'s label alone (``name_stems`` without the aliases)."""
        found = self._label_stems.get(pid)
        if found is None:
            info = self.info(pid)
            found = self._label_stems[pid] = frozenset() if info is None else frozenset(
                root(w) for w in norm_words(info.label) if w not in STOPWORDS)
        return found

    def says_where(self, pid: str) -> bool:
        """Whether ``pid`` says where its subject is (located in, location, part of,
        country, continent), by its name."""
        return bool(self.name_stems(pid) & _WHERE_STEMS)

    def candidate(self, pid: str, score: float) -> Candidate:
        """``pid`` as a Candidate, for a property no phrase named but the words cover."""
        info = self.info(pid)
        label = info.label if info is not None else pid
        return Candidate(pid, label, score, matched=label, match="coverage",
                         description=getattr(info, "description", None))


def _segmentations(side: list[tuple[list[Word], str]]) -> list[list[list[Word]]]:
    """The pieces of one side of a mention (each with the join word before it) with
    content words: every split, then each with two pieces joined by "of" merged."""
    pieces = [(ws, join) for ws, join in side if content(ws)]
    out = [[ws for ws, _ in pieces]]
    for k in range(1, len(pieces)):
        if pieces[k][1] == "of":       # merge piece k into piece k-1
            merged = [ws for ws, _ in pieces[:k - 1]] + [pieces[k - 1][0] + pieces[k][0]]
            out.append(merged + [ws for ws, _ in pieces[k + 1:]])
    return out


def _describing(a: Analysis, span: tuple[int, int]) -> set[int]:
    """The starts of the words right before the mention ``span`` that the analysis marks
    as describing it (``Analysis.described``: "the Greek singer Katy Garbi"), and of an
    aside after it (``Analysis.aside_after``) that it marks so."""
    out: set[int] = set()
    for w in reversed([w for w in a.words if w.end <= span[0]]):
        if w.low not in a.described:
            break
        out.add(w.start)
    out.update(w.start for w in a.description_before(span))    # "the province of X"
    aside = a.aside_after(span)         # "X, founder of Y, passed away"
    if aside and all(w.low in a.described or w.low in STOPWORDS for w in aside):
        out.update(w.start for w in aside)
    return out


def _sides(a: Analysis, span: tuple[int, int]
           ) -> tuple[list[tuple[list[Word], str]], list[tuple[list[Word], str]], bool]:
    """The relation words before and after the mention ``span`` as pieces (words, the
    join word before them), and whether the mention is a possessive ("Curie's")."""
    before: list[tuple[list[Word], str]] = [([], "")]
    after: list[tuple[list[Word], str]] = [([], "")]
    possessive = bool(POSSESSIVE_END.search(a.question[span[0]:span[1]]))
    describing = _describing(a, span)
    for w in a.words:
        if w.start in describing or w.low in a.described:   # "the Greek singer X": what
            continue                                         # X is, no relation
        if span[0] <= w.start < span[1]:
            if w.end > span[1]:            # "Curie's": a possessive joins what follows
                after.append(([], "'s"))
                possessive = True
            continue
        if w.start in a.frame:         # the question word, "which N", a superlative
            continue
        side = before if w.end <= span[0] else after
        if w.low in CHAIN_JOINS or (w.low in ("the", "a", "an") and content(side[-1][0])):
            side.append(([], w.low))
            continue
        if side is after and _clause_ended(side[-1][0], w):
            side.append(([], ""))
        if w.low in FRAME_WORDS:
            continue
        side[-1][0].append(w)
    return before, after, possessive


def _clause_ended(piece: list[Word], w: Word) -> bool:
    """Whether ``w`` begins a new piece after the ``piece`` so far because a clause ended
    with a preposition: a verb form right after one is not its object ("the church that
    X belonged to | headquartered", "the club X played for | founded")."""
    return bool(piece) and clause_ended(piece[-1].low, w.low)


def chunks(a: Analysis, span: tuple[int, int]) -> list[list[list[Word]]]:
    """The relation words around the mention ``span``, split where a chained relation
    joins ("of", "where", "whose", …, and an article after a verb: "employed | the
    doctoral advisor of X"), innermost first. The question's frame (its question word,
    the noun of "which N", a superlative) is no piece: "which country" asks for the
    answer's class, which a type constraint checks.

    Order: a piece after the mention that a relative word introduces ("… where X was
    born") is X's own relation; then the pieces before the mention, nearest first; a
    piece after the mention that no relative word introduces ("Where was the wife of X
    born?") is the main verb, outermost. Only pieces with content words are kept.

    Returns the possible segmentations, first the one with every split. "of" may also
    belong to a property's name ("the capital of the country *of* citizenship of X"), so
    each segmentation with two pieces joined by "of" merged is offered too; after a
    possessive ("X's spouse born") each split of the words that follow is offered (where
    the possessed noun ends is not written). The KB keeps the segmentations it holds."""
    before, after, possessive = _sides(a, span)
    describing = _describing(a, span)     # "where the Indonesian president X died"
    lows = [w.low for w in a.words if w.end <= span[0] and w.start not in describing]
    tail = [w for w in lows[-3:] if w not in ("the", "a", "an")]
    relative_before_mention = bool(tail) and tail[-1] in ("where", "whose", "that", "which",
                                                          "who", "whom", "when")
    unmarked_relative = not relative_before_mention and not possessive and \
        _after_the_noun(a, span)
    # "the capital of the country X belongs to": a finite verb or an auxiliary after X
    # opens a clause of X's own, so the words after X are its own relation, never the
    # question's main verb ("Where was the wife of X born?")
    finite_after = unmarked_relative and _finite_verb_after(a, span)

    out = []
    for b in _segmentations(before):
        for af in _segmentations(after):
            ordered = list(reversed(b))
            # what a relative word or a possessive introduces after the mention is its
            # own relation: "born in X's capital" is X's capital, then born there
            own_first = relative_before_mention or (possessive and bool(b) and bool(af))
            out += _orders(ordered, af, own_first,
                           unmarked_relative and bool(b) and bool(af) and not own_first,
                           finite_after)
            if relative_before_mention and b and len(af) > 1 and _clause_ended(af[0], af[1][0]):
                # "the church that X belonged to | headquartered": the clause ended, the
                # noun it describes comes next, the main verb last
                out.append(af[:1] + ordered + af[1:])
            if possessive and af and len(af[0]) > 1:
                out += _possessed_splits(ordered, af, relative_before_mention)
    return out


def _possessed_splits(before: list[list[Word]], after: list[list[Word]],
                      relative: bool) -> list[list[list[Word]]]:
    """After a possessive ("X's spouse born"), each split of the first piece after it
    (where the possessed noun ends is not written): after the pieces before the mention,
    or first where a relative word introduces the mention's clause ("the city where X's
    party | has its seat")."""
    first = after[0]
    splits = [[first[:k], first[k:]] + after[1:] for k in range(1, len(first))]
    return [s + before for s in splits] if relative else [before + s for s in splits]


def _orders(before: list[list[Word]], after: list[list[Word]], own_first: bool,
            own_clause: bool, finite_after: bool) -> list[list[list[Word]]]:
    """The orders of the pieces before the mention (nearest first) and after it: the
    mention's own relation first when a relative word or a possessive introduces it;
    in a clause of the mention's own without a relative word ("the nation X belonged
    to") its first piece after it first, then the rest, as well as (unless a finite
    verb opens that clause: ``_finite_verb_after``) the pieces before, then after."""
    out = []
    if not (own_clause and finite_after):
        out.append(after + before if own_first else before + after)
    if own_clause:
        out.append(after[:1] + before + after[1:])
    return out


def _finite_verb_after(a: Analysis, span: tuple[int, int]) -> bool:
    """Whether the word right after the mention ``span`` is an auxiliary ("was", "has")
    or a verb form that is nothing else and no participle ("belongs", "consists")."""
    nxt = next((w.low for w in a.words if w.start >= span[1]), None)
    return nxt is not None and (nxt in AUXILIARIES or (nxt.endswith("s") and only_verb(nxt)))


def _after_the_noun(a: Analysis, span: tuple[int, int]) -> bool:
    """Whether "the N" comes right before the mention ``span``: "The city X was born in
    is named after whom?" opens a relative clause with no relative word."""
    before = [w for w in a.words if w.end <= span[0]]
    return len(before) >= 2 and before[-2].low in ("the", "a", "an") and \
        bool(content(before[-1:]))


#: a stopword that is a relation word before these ("named after": a person is "named X")
_RELATION_BEFORE = {"named": ("after", "for"), "called": ("after",),
                    "name": ("of", "from", "after")}   # "bears the name of"


def content(words: Sequence[Word]) -> list[str]:
    """Lower-case content words (no stopwords) of a relation phrase; "named" counts
    before "after"."""
    out = []
    for i, word in enumerate(words):
        nxt = words[i + 1].low if i + 1 < len(words) else ""
        out += [w for w in norm_words(word.text)
                if w not in STOPWORDS or nxt in _RELATION_BEFORE.get(w, ())]
    return out


@functools.lru_cache(maxsize=65536)
def root(word: str) -> str:
    """A crude root: the linker's stem without a final "e", so that "receive" meets
    "received" and "live" meets "lived"."""
    r = stem(word)
    return r[:-1] if r.endswith("e") and len(r) > 3 else r


def related_pair(a: str, b: str, stems: frozenset[str] | set[str]) -> bool:
    """Whether the lower-case words ``a`` ``b`` form a phrase ``RELATED`` to a name with
    these word ``stems`` ("passed away": "death")."""
    pair = f"{a} {b}"
    # a form of stopwords alone ("its name": "named after") has no roots to name it by
    return pair in RELATED and any(needs and needs <= stems for needs in _word_roots(pair))


@functools.lru_cache(maxsize=65536)
def _word_roots(word: str) -> tuple[frozenset[str], ...]:
    """For ``word`` and each related form of it, the roots of its content words: a name
    covers the word when it has all the roots of one of them."""
    return tuple(frozenset(root(x) for x in norm_words(f) if x not in STOPWORDS)
                 for f in (word, *RELATED.get(word, ())))


#: a word of the Latin alphabet, accented letters too ("jordânia" is one word); words of
#: other scripts a question was not read out of count as no relation word, as before
_NORM_WORD = re.compile(r"[a-z0-9\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f]+")
_WHERE_STEMS = frozenset(root(w) for w in
                         "located location part country continent territory".split())


def norm_words(text: str) -> list[str]:
    return _NORM_WORD.findall(text.lower())


