"""Entity mentions of a question, with their candidates: what the rules start from.

``MentionFinder(kb, linker).find(text)`` keeps every mention ``EntityLinker.link`` detects
(none dropped for a low score: a rare entity is still the question's subject), grows each
to the longest exact name around it ("Nashville" → "Nashville Now", "Evil" → "The Evil
Within", a run of mentions → "Water polo at the 2004 Summer Olympics – Women's team
rosters"), and adds names with a bracketed qualifier ("Brett Williams (offensive
lineman)"), which the detector does not join. Mentions made only of stopwords are
dropped. With ``gaps=True`` it also looks the question's uncovered word runs up as exact
names ("glycine", "stapler": lower-case names the detector leaves alone in cased text).
Overlaps are resolved longest first. A place name followed by the place the KB says it lies
in ("Montana, USA", "paris france") is one mention, its candidates that lie there first.
Exact-name lookups go through ``kb.search`` (cheap) before the linker ranks the entities of
a name found.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from kb.base import KnowledgeBase
from kb.contracts import Linker
from kb.types import Candidate
from linking.lexicon import STOPWORDS
from linking.variants import respellings
from querygen.analysis import Analysis, Word, analyze
from querygen.languages import FEATURE_NOUNS, QUOTED, QUOTES
from querygen.lexicon import FRAME_WORDS, PLACE_NOUNS, RELATED, ROLE_NOUNS
from store.normalize import normalize

#: the shortest noun of a compound name ("N of M"), M's most words, and the labels
#: starting with M read
MIN_COMPOUND_NOUN, COMPOUND_WORDS, COMPOUND_SEARCH = 5, 3, 100
#: what makes two words one word in two languages (``cognate``)
COGNATE_PREFIX, COGNATE_TRIPLES = 5, 0.55
#: entity candidates kept per mention
ENTITY_CANDIDATES = 5
#: words a detected mention may grow by on either side to reach a longer exact name
GROW = 3
#: the longest word run looked up as a name in the gaps between mentions
MAX_GAP_WORDS = 8
#: steps from a place to the place it lies in ("Orlando" → Orange County → Florida),
#: statements read per entity on the way, and places a step goes on from
LOCATOR_HOPS, LOCATOR_STATEMENTS, LOCATOR_FRONTIER = 2, 200, 20


@dataclass(frozen=True, slots=True)
class Mention:
    """A span of the question that may name an entity, with candidates best first."""
    text: str
    start: int
    end: int
    candidates: tuple[Candidate, ...]

    @property
    def span(self) -> tuple[int, int]:
        return (self.start, self.end)


#: the kinds of place a name is written after ("the city of Brisbane": Brisbane itself)
KINDS_OF_PLACE = PLACE_NOUNS - {"capital", "location", "locations", "place", "places"}

class MentionFinder:
    """Finds the entity mentions of questions against one KB (see the module docstring)."""

    def __init__(self, kb: KnowledgeBase, linker: Linker, *,
                 says_where: Callable[[str], bool] | None = None):
        self.kb = kb
        self.linker = linker
        #: whether a property says where its subject is (``RelationFit.says_where``):
        #: without it, a place name and the place it lies in stay two mentions
        self.says_where = says_where

    def find(self, text: str, a: Analysis | None = None, *, gaps: bool = False,
             lang: str = "en", common: Callable[[str], bool] | None = None
             ) -> list[Mention]:
        """Every mention the linker detects (none dropped for a low score), grown to the
        longest exact name around it ("Nashville" → "Nashville Now", "Evil" → "The Evil
        Within"), and names with a bracketed qualifier ("Brett Williams (offensive
        lineman)"). With ``gaps``, also the exact names among the question's other word
        runs (lower-case names the detector leaves alone: "glycine", "stapler").
        ``lang`` is the question's language: its names match as well as English ones.
        A gap that is a ``common`` word (one naming a relation, or a word of English) is
        no name."""
        a = a or analyze(text)
        found: list[Mention] = []
        for span, cands in self._bracketed(text, lang):
            found.append(Mention(text[span[0]:span[1]], span[0], span[1], tuple(cands)))
        result = self.linker.link(text, min_score=0.0, top=ENTITY_CANDIDATES, lang=lang)
        detected = [lm for lm in result.mentions if lm.candidates
                    and not _only_frame_words(lm.mention.text)]
        for lm in detected:
            m = lm.mention
            grown = self._grown(text, a, m.start, m.end, [d.mention for d in detected],
                                lang)
            if grown is not None:
                found.append(grown)
            as_written = any(c.matched == m.text for c in lm.candidates)
            found.append(self._after_role(text, a, m.start, m.end, lang) or
                         (None if as_written else self._named_part(text, a, m.start, m.end,
                                                                   lang)) or
                         Mention(m.text, m.start, m.end, lm.candidates))
        found.extend(self._compounds(text, a, detected))
        found = self._with_quoted(text, found, lang)
        if lang != "en":
            found.extend(self._respelled_names(a, found, lang, uncased(text), common))
        if gaps:
            found.extend(m for m in self._gap_names(text, a, found, lang)
                         if common is None or not common(m.text.lower()))
        out: list[Mention] = []
        for m in sorted(found, key=lambda m: (m.start - m.end, m.start)):   # longest first
            if not any(m.start < o.end and o.start < m.end for o in out):
                out.append(m)
        out.sort(key=lambda m: m.start)
        return [m for m in self._with_locators(text, out) if not _class_noun_of_question(a, m)
                and not _in_relation_phrase(a, m)]

    def _with_locators(self, text: str, found: Sequence[Mention]) -> list[Mention]:
        """``found`` with each place name that is followed by the place it lies in
        ("Orlando, FL", "montana usa", "Mount Vernon, Texas") made one mention of both:
        the first's candidates that lie in the second (at most ``LOCATOR_HOPS`` steps along
        properties that say where) come first, and the second names no entity of its own."""
        if self.says_where is None:
            return list(found)
        out: list[Mention] = []
        i = 0
        while i < len(found):
            m = found[i]
            if i + 1 < len(found) and _adjacent(text, m, found[i + 1]):
                place = found[i + 1]
                inside = self._lying_in(m, place)
                if inside:
                    rest = tuple(c for c in m.candidates if c not in inside)
                    out.append(Mention(text[m.start:place.end], m.start, place.end,
                                       (*inside, *rest)))
                    i += 2
                    continue
            out.append(m)
            i += 1
        return out

    def _lying_in(self, m: Mention, place: Mention) -> list[Candidate]:
        """The candidates of ``m`` that lie in one of ``place``'s candidates."""
        targets = {c.id for c in place.candidates}
        return [c for c in m.candidates if c.id not in targets and self._within(c.id, targets)]

    def _within(self, entity: str, targets: set[str]) -> bool:
        """Whether ``entity`` lies in one of ``targets``, by the KB's statements."""
        assert self.says_where is not None
        frontier = [entity]
        for _ in range(LOCATOR_HOPS):
            reached: dict[str, None] = {}
            for e in frontier:
                for st in self.kb.statements(e, limit=LOCATOR_STATEMENTS):
                    if st.value.kind in ("entity", "iri") and self.says_where(st.property):
                        if st.value.value in targets:
                            return True
                        reached[st.value.value] = None
            frontier = list(reached)[:LOCATOR_FRONTIER]
        return False

    def exact(self, name: str, lang: str = "en") -> tuple[Candidate, ...]:
        """The entities with ``name`` as an exact label or alias, best first."""
        name = name.strip(" ,;:?!\"'")
        if not name or not any(h.match in ("label", "alias", "exact")
                               for h in self.kb.search(name, limit=3)):
            return ()
        return tuple(c for c in self.linker.candidates(name, limit=ENTITY_CANDIDATES, lang=lang)
                     if c.features.get("match", 0.0) >= 0.95)

    def _compounds(self, text: str, a: Analysis,
                   detected: Sequence[Any]) -> list[Mention]:
        """Names written as "N of (the) M" where the KB's name is "M N'" and N' is N or
        N in another language (``cognate``): "the theorem of Koopmans" → "Koopmans'
        theorem", "the bay of Kola" → "Kola Bay" (a short N only of a natural feature),
        "la présidence de Bombay" (read "the présidence of Bombay") → "Bombay Presidency",
        "o Secretariado das Nações Unidas" → "United Nations Secretariat".
        M is one to ``COMPOUND_WORDS`` words, as written or, where the linker detected it,
        as its first candidates' labels name it (``detected``: the linker's mentions); N
        one word before "of", no function word, relation word or kind of place ("the city
        of Brisbane" is Brisbane, not Brisbane City)."""
        ws = a.words
        out: list[Mention] = []
        for j in range(1, len(ws) - 1):
            noun = ws[j - 1]
            if ws[j].low != "of" or \
                    (len(noun.low) < MIN_COMPOUND_NOUN and noun.low not in FEATURE_NOUNS) or \
                    not noun.low.isalpha() or noun.low in STOPWORDS or \
                    noun.low in FRAME_WORDS or noun.low in RELATED or \
                    noun.low in PLACE_NOUNS or noun.start in a.frame:
                continue
            first = j + 2 if ws[j + 1].low == "the" else j + 1
            for last in range(min(len(ws), first + COMPOUND_WORDS) - 1, first - 1, -1):
                if ws[last].low in STOPWORDS or ws[last].low in FRAME_WORDS:
                    continue
                start, end = ws[first].start, ws[last].end
                if any(d.mention.start <= start < d.mention.end < end or
                       start <= d.mention.start < end < d.mention.end for d in detected):
                    continue        # M would cut a name in two ("of Top" in "of Top Gear")
                heads = {text[start:end]: None}
                heads.update((c.label, None) for d in detected
                             if (d.mention.start, d.mention.end) == (start, end)
                             for c in d.candidates[:2] if c.label != c.id)
                found = self._named_with(heads, normalize(noun.low))
                if found:
                    out.append(Mention(text[noun.start:end], noun.start, end, found))
                    break
        return out

    def _named_with(self, heads: Iterable[str], noun: str) -> tuple[Candidate, ...]:
        """The entities (at most ``ENTITY_CANDIDATES``) whose label or a name that starts
        one of ``heads`` ends with a word that is ``noun`` or its ``cognate``: "Bombay
        Presidency" for "Bombay" and "presidence"."""
        found: dict[str, Candidate] = {}
        for head in heads:
            for hit in self.kb.search(head, limit=COMPOUND_SEARCH):
                for name in {hit.label, hit.matched}:
                    words = normalize(name).split()
                    if len(words) > 1 and " ".join(words[:-1]) == normalize(head) and \
                            cognate(words[-1], noun):
                        found.setdefault(hit.id, hit)
        if not found or len(found) > ENTITY_CANDIDATES:
            return ()
        return tuple(c for hit in found.values()
                     for c in self.linker.candidates(hit.label, limit=ENTITY_CANDIDATES)
                     if c.id == hit.id)

    def _named_part(self, text: str, a: Analysis, start: int, end: int,
                    lang: str = "en") -> Mention | None:
        """In a question that capitalizes its names, the capitalized end of a mention
        [start, end) that begins with a lower-case kind of place ("city of Brisbane" →
        "Brisbane"; not "headquarters of the United Nations", which is the UN's),
        where the KB knows that end as a name: the words before it describe it. None
        otherwise. (The caller keeps a mention the KB names as written: "atmosphere of
        Mercury".)"""
        ws = [w for w in a.words if start <= w.start < end]
        cased = any(w.text[:1].isupper() for w in a.words[1:])
        if not ws or not cased or not ws[0].text.islower() or ws[0].low not in KINDS_OF_PLACE:
            return None
        k = next((i for i, w in enumerate(ws) if w.text[:1].isupper()), None)
        if k is None:
            return None
        name = text[ws[k].start:end]
        cands = self.exact(name, lang)
        return Mention(name, ws[k].start, end, tuple(cands)) if cands else None

    def _after_role(self, text: str, a: Analysis, start: int, end: int,
                    lang: str = "en") -> Mention | None:
        """The name after "of" in a mention [start, end) that begins with a kind of place
        right after a role noun ("the capital *city of Germany*" → "Germany"), where the KB
        knows that name: the role and the kind together say what is asked, even where the
        KB also has the whole as a name (a class "city of Germany"). None otherwise."""
        ws = [w for w in a.words if start <= w.start < end]
        i = _word_at(a.words, start)
        if len(ws) < 3 or i < 1 or a.words[i - 1].low not in ROLE_NOUNS or \
                ws[0].low not in KINDS_OF_PLACE or ws[1].low != "of":
            return None
        name = text[ws[2].start:end]
        cands = self.exact(name, lang)
        return Mention(name, ws[2].start, end, tuple(cands)) if cands else None

    def _grown(self, text: str, a: Analysis, start: int, end: int,
               detected: Sequence[Any], lang: str = "en") -> Mention | None:
        """The longest exact name that contains [start, end), reaching up to GROW words
        further on either side (or to another detected mention and past it). In a
        question that capitalizes its names, a run written all in lower case grows only
        to a name the KB writes so too ("the band" is no The Band); a question with no
        capital but its first marks no names so ("born in kanagawa prefecture")."""
        ws = a.words
        cased = not uncased(text)
        first = next((i for i, w in enumerate(ws) if w.end > start), None)
        last = next((i for i in range(len(ws) - 1, -1, -1) if ws[i].start < end), None)
        if first is None or last is None:
            return None
        best: tuple[int, Mention] | None = None
        lo_limit = max(0, first - GROW)
        hi_limit = min(len(ws) - 1, last + GROW)
        for d in detected:                 # a run of mentions may be one long name
            if d.start >= end:
                hi_limit = max(hi_limit, min(len(ws) - 1, _word_at(ws, d.end - 1) + GROW))
        for i in range(first, lo_limit - 1, -1):
            if i < first and ws[i].low in FRAME_WORDS and ws[i].low != "the":
                break
            for j in range(hi_limit, last - 1, -1):
                if (i, j) == (first, last):
                    continue
                if ws[j].low in FRAME_WORDS or (ws[i].low in FRAME_WORDS
                                                and ws[i].low != "the"):
                    continue
                name = text[ws[i].start:ws[j].end]
                size = j - i
                if best is not None and size <= best[0]:
                    continue
                cands = _written_so(self.exact(name, lang), name, cased)
                if cands:
                    best = (size, Mention(name, ws[i].start, ws[j].end, cands))
        return best[1] if best else None

    def _gap_names(self, text: str, a: Analysis, found: Sequence[Mention],
                   lang: str = "en") -> list[Mention]:
        """Exact names among the word runs no mention covers, longest first."""
        ws = [w for w in a.words if not any(m.start <= w.start < m.end for m in found)]
        out: list[Mention] = []
        for size in range(min(len(ws), MAX_GAP_WORDS), 0, -1):
            for i in range(len(ws) - size + 1):
                run = ws[i:i + size]
                if run[0].low in FRAME_WORDS and run[0].low != "the":
                    continue
                if run[-1].low in FRAME_WORDS or run[-1].low in ("of", "in", "on", "to", "by",
                                                                 "for", "with", "at"):
                    continue
                if any(m.start < run[-1].end and run[0].start < m.end for m in out):
                    continue
                if all(w.low in STOPWORDS or w.low in FRAME_WORDS or w.start in a.frame
                       for w in run):
                    continue
                if any(text[x.end:y.start].strip(" -–,'’.&") for x, y in zip(run, run[1:])):
                    continue            # not one stretch of text
                name = text[run[0].start:run[-1].end]
                cands = self.exact(name, lang)
                if cands:
                    out.append(Mention(name, run[0].start, run[-1].end, cands))
        return out

    def _respelled_names(self, a: Analysis, found: Sequence[Mention], lang: str,
                         lowered: bool = False,
                         common: Callable[[str], bool] | None = None) -> list[Mention]:
        """Capitalized words of a question in another language that no mention covers
        and that are a name of the KB only as that language spells it ("Hatschepsut",
        "Puschkins", "Puškin": ``linking.variants.respellings``) or that sound like one
        ("Biscaia": ``store.sounds``); the detector looks up names as written. In a
        question written all in lower case (``lowered``) its other words too, but for
        ``common`` ones, as spelt only ("catull": Catullus)."""
        out: list[Mention] = []
        for w in a.words:
            cased = w.text[:1].isupper()
            if (cased or lowered and len(w.text) > 3 and respellings(w.low, lang) and
                    (common is None or not common(w.low))) and \
                    w.low not in STOPWORDS and w.low not in FRAME_WORDS and \
                    not any(m.start < w.end and w.start < m.end for m in found):
                hows = ("variant:spelling", "variant:ending", "variant:sounds") if cased \
                    else ("variant:spelling", "variant:ending")
                cands = tuple(c for c in self.linker.candidates(
                    w.text, limit=ENTITY_CANDIDATES, lang=lang) if c.match in hows)
                if cands:
                    out.append(Mention(w.text, w.start, w.end, cands))
        return out

    _BRACKET = re.compile(r"\(([^()]{1,60})\)")


    def _with_quoted(self, text: str, found: list[Mention], lang: str) -> list[Mention]:
        """``found`` with each quoted title as one mention (``_quoted``) and without the
        mentions inside a title, but one that is the whole title."""
        for (start, end), cands in self._quoted(text, lang):
            found = [m for m in found if not (start <= m.start < m.end <= end and
                                              (m.start, m.end) != (start, end))]
            if cands:
                found.append(Mention(text[start:end], start, end, tuple(cands)))
        return found

    def _quoted(self, text: str, lang: str = "en"
                ) -> list[tuple[tuple[int, int], list[Candidate]]]:
        """Titles in quotation marks, each with the entities named so exactly, else the
        one entity (or none) whose name begins with it («Время приключений»: "Время
        приключений с Финном и Джейком"). A title is one name: a mention inside it is
        never the entity ("Время", the news programme, is not the cartoon)."""
        out = []
        for m in QUOTED.finditer(text):
            g = next(i for i in range(1, len(QUOTES) + 1) if m.group(i))
            title = m.group(g)
            cands = list(self.exact(title, lang))
            if not cands:
                norm = normalize(title)
                begun = {h.id for h in self.kb.search(title, limit=COMPOUND_SEARCH)
                         if normalize(h.matched or h.label).startswith(norm + " ")}
                if len(begun) == 1:
                    cands = [c for c in self.linker.candidates(
                        title, limit=ENTITY_CANDIDATES, lang=lang) if c.id in begun]
            out.append(((m.start(g), m.end(g)), cands))
        return out

    def _bracketed(self, text: str, lang: str = "en"
                   ) -> list[tuple[tuple[int, int], list[Candidate]]]:
        out = []
        for m in self._BRACKET.finditer(text):
            before = list(re.finditer(r"\S+", text[:m.start()]))
            for n in range(min(6, len(before)), 0, -1):      # the longest name first
                start = before[-n].start()
                cands = self.exact(text[start:m.end()], lang)
                if cands:
                    out.append(((start, m.end()), list(cands)))
                    break
        return out


def cognate(word: str, other: str) -> bool:
    """Whether two normalized words are one word in two languages, or spelled alike:
    equal, sharing a beginning of at least ``COGNATE_PREFIX`` letters and three quarters of the
    shorter ("presidence" and "presidency"), or alike in most of their letter triples
    (``COGNATE_TRIPLES``: "segretariato" and "secretariat", "teorema" and "theorem")."""
    if word == other:
        return True
    shorter = min(len(word), len(other))
    if shorter < MIN_COMPOUND_NOUN:
        return False
    prefix = len(os.path.commonprefix([word, other]))
    if prefix >= COGNATE_PREFIX and prefix >= 0.75 * shorter:
        return True
    a, b = _triples(word), _triples(other)
    return 2 * len(a & b) / (len(a) + len(b)) >= COGNATE_TRIPLES


def _triples(word: str) -> set[str]:
    return {word[i:i + 3] for i in range(len(word) - 2)}


def _class_noun_of_question(a: Analysis, m: Mention) -> bool:
    """Whether ``m`` is the lower-case class noun of "which N" / "Name the N whose …"
    ("continent" in "Which continent is Germany in?"): the class the answer belongs to,
    not an entity the question is about."""
    words = [w for w in a.words if m.start <= w.start < m.end]
    return bool(words) and m.text == m.text.lower() and all(w.start in a.frame
                                                            for w in words)


def uncased(text: str) -> bool:
    """Whether ``text`` has no capital letter but (perhaps) its first: no name is marked."""
    return not any(c.isupper() for c in text[1:])


def _written_so(cands: tuple[Candidate, ...], name: str, cased: bool) -> tuple[Candidate, ...]:
    """The ``cands`` of ``name`` as the question writes it: in a question that
    capitalizes its names (``cased``), a name written all in lower case only matches a
    name the KB writes so too ("the band" is no The Band)."""
    if not cased or name != name.lower():
        return cands
    return tuple(c for c in cands if c.matched == c.matched.lower())


def _in_relation_phrase(a: Analysis, m: Mention) -> bool:
    """Whether the lower-case ``m`` is part of a phrase of words that names a relation
    ("pass" in "did X pass away": ``RELATED``'s "pass away", death), not an entity."""
    if m.text != m.text.lower():
        return False
    ws = a.words
    inside = [i for i, w in enumerate(ws) if m.start <= w.start < m.end]
    if not inside:
        return False
    first, last = inside[0], inside[-1]
    for lo in range(max(0, last - 2), first + 1):
        for hi in range(last + 1, min(len(ws), lo + 3) + 1):
            phrase = " ".join(w.low for w in ws[lo:hi])
            if hi - lo > len(inside) and phrase in RELATED:
                return True
    return False


def _adjacent(text: str, first: Mention, then: Mention) -> bool:
    """Whether ``then`` follows ``first`` with at most a comma between them, and is not
    a possessive ("Is Paris France's capital?" asks about France itself)."""
    gap = text[first.end:then.start]
    return len(gap) <= 3 and not gap.strip(" ,") and \
        not _APOSTROPHE.search(text, then.start, then.end + 1)


_APOSTROPHE = re.compile(r"['\u2019]")


def _word_at(ws: Sequence[Word], offset: int) -> int:
    return next((i for i, w in enumerate(ws) if w.start <= offset < w.end), len(ws) - 1)


def _norm_words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def _only_frame_words(text: str) -> bool:
    """Whether a mention is made of stopwords and question words alone ("the", "who")
    — not a name in another script, which has no such words ("玛丽·居里")."""
    words = _norm_words(text)
    return bool(words) and all(w in STOPWORDS or w in FRAME_WORDS for w in words)
