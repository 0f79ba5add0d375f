"""Rule-based query generation: no LLM, so factoid questions are answered offline.

``RuleGenerator(kb, linker).generate(question)`` reads the question (``querygen.analysis``),
links its entity mentions (``EntityLinker.link``, every detected mention kept with its
candidates, plus names with a bracketed qualifier such as "Play (Magazine album)"), and
searches the KB for the properties that connect a linked entity to an answer and fit the
question's relation words (``PropertyLinker.link`` on the relation phrase and on related
word forms, ``querygen.lexicon.RELATED``). The KB decides between readings: only
properties an entity actually has (as subject, or as value for the inverse reading) are
considered, so "Play" the album and "Play" the theatre genre are told apart by what they
have, and "capital of X" is a query that returns something.

Question shapes and the queries they get (``querygen.plans`` builds the SPARQL):

- one entity, one relation: triplet queries ``(s, p, ?)`` or ``(?, p, o)``;
- two relations in a row ("the capital of the country where X was born"): a chain;
- "how many": a COUNT over the pattern, or a quantity property when one fits;
- yes/no: ASK over the two entities with the property that links them (or, with none,
  the best fitting one); "Is X a Y?" asks about the type;
- two entities and no relation words ("How are X and Y related?"): ``(s, ?, o)``;
- "which N …": a type constraint (``wdt:P31``/``wdt:P279``) when the KB types the answers;
- superlatives ("oldest", "the most recent"): ORDER BY a date or number property, LIMIT 1.

Every query carries its score (entity link + property fit + answer-type fit, summed) and
its linking decisions; the list is best first.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from kb.types import Candidate
from linking.lexicon import STOPWORDS, stem
from querygen.analysis import Analysis, Word, analyze, expand_contractions
from querygen.lexicon import FRAME_WORDS, RELATED
from querygen.plan import Edge, QueryPlan, Var
from querygen.types import GeneratedQuery, LinkingDecision

#: entity candidates considered per mention
ENTITY_CANDIDATES = 5
#: words a detected mention may grow by on either side to reach a longer exact name
GROW = 3
#: the longest word run looked up as a name when the detector found nothing usable
MAX_GAP_WORDS = 8
#: a best plan scoring below this sends the generator looking for names the detector missed
#: (an exact entity name scores about 1.2, a property that names the relation about 0.8)
WEAK_PLAN = 1.9
ALWAYS_GAPS = False
#: weight of the share of the relation's content words that a property's names cover
COVERAGE = 0.3
#: a property whose fit (name score + coverage) is below this does not name the relation
MIN_PROPERTY = 0.25
#: the property that types an entity, and how well it fits a question with no relation
#: words ("What is X?")
TYPE_PROPERTY, DEFAULT_TYPE_FIT = "P31", 0.6
#: related word forms count a little less than the question's own words
RELATED_WEIGHT = 0.92
#: the inverse reading (the entity is the value) needs to fit better to win
INVERSE_PENALTY = 0.05
#: answer-type fit: a date property for "when", a place property for "where"
TYPE_FIT, TYPE_CLASH = 0.25, 0.5

_PLACE_WORDS = frozenset("""
place location located country city continent headquarters capital territory jurisdiction
border administrative seat residence formation origin work location venue birth death
""".split())


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


class RuleGenerator:
    """Question → queries by rules over one KB (see the module docstring). Thread-safe."""

    def __init__(self, kb: Any, linker: Any):
        self.kb = kb
        self.linker = linker
        self.props = linker.properties
        self._lock = threading.Lock()
        self._info: dict[str, Any] = {}

    # -- entry --------------------------------------------------------------------------------
    def generate(self, question: str, *, limit: int = 5) -> list[GeneratedQuery]:
        """Queries for ``question``, best first (at most ``limit``); empty when no entity
        of the question could be linked or no property fits."""
        text = expand_contractions(question.strip())
        a = analyze(text)
        plans = self._plans(a, self.mentions(text, a, gaps=ALWAYS_GAPS))
        if not plans or max(p.score for p in plans) < WEAK_PLAN:
            plans += self._plans(a, self.mentions(text, a, gaps=True))
        plans.sort(key=lambda p: -p.score)
        out: list[GeneratedQuery] = []
        seen: set[str] = set()
        for plan in plans:
            q = plan.generated(question)
            if q.grounded not in seen:
                seen.add(q.grounded)
                out.append(q)
            if len(out) >= limit:
                break
        return out

    # -- mentions -----------------------------------------------------------------------------
    def mentions(self, text: str, a: Analysis | None = None, *,
                 gaps: bool = False) -> list[Mention]:
        """Every mention the linker detects (none dropped for a low score), grown to the
        longest exact name around it ("Nashville" → "Nashville Now", "Evil" → "The Evil
        Within"), and names with a bracketed qualifier ("Brett Williams (offensive
        lineman)"). With ``gaps``, also the exact names among the question's other word
        runs (lower-case names the detector leaves alone: "glycine", "stapler")."""
        a = a or analyze(text)
        found: list[Mention] = []
        for span, cands in self._bracketed(text):
            found.append(Mention(text[span[0]:span[1]], span[0], span[1], tuple(cands)))
        result = self.linker.link(text, min_score=0.0, top=ENTITY_CANDIDATES)
        detected = [lm for lm in result.mentions if lm.candidates
                    and not all(w.lower() in STOPWORDS or w.lower() in FRAME_WORDS
                                for w in _norm_words(lm.mention.text))]
        for lm in detected:
            m = lm.mention
            grown = self._grown(text, a, m.start, m.end, [d.mention for d in detected])
            if grown is not None:
                found.append(grown)
            found.append(Mention(m.text, m.start, m.end, lm.candidates))
        if gaps:
            found.extend(self._gap_names(text, a, found))
        out: list[Mention] = []
        for m in sorted(found, key=lambda m: (m.start - m.end, m.start)):   # longest first
            if not any(m.start < o.end and o.start < m.end for o in out):
                out.append(m)
        out.sort(key=lambda m: m.start)
        return out

    def _exact(self, name: str) -> tuple[Candidate, ...]:
        """The entities with ``name`` as an exact label or alias, best first."""
        name = name.strip(" ,;:?!\"'")
        if not name or not any(h.match in ("label", "alias", "exact")
                               for h in self.kb.search(name, limit=3)):
            return ()
        return tuple(c for c in self.linker.candidates(name, limit=ENTITY_CANDIDATES)
                     if c.features.get("match", 0.0) >= 0.95)

    def _grown(self, text: str, a: Analysis, start: int, end: int,
               detected: Sequence[Any]) -> Mention | None:
        """The longest exact name that contains [start, end), reaching up to GROW words
        further on either side (or to another detected mention and past it)."""
        ws = a.words
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
                cands = self._exact(name)
                if cands:
                    best = (size, Mention(name, ws[i].start, ws[j].end, cands))
        return best[1] if best else None

    def _gap_names(self, text: str, a: Analysis, found: Sequence[Mention]) -> list[Mention]:
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
                cands = self._exact(name)
                if cands:
                    out.append(Mention(name, run[0].start, run[-1].end, cands))
        return out

    _BRACKET = re.compile(r"\(([^()]{1,60})\)")

    def _bracketed(self, text: str) -> list[tuple[tuple[int, int], list[Candidate]]]:
        out = []
        for m in self._BRACKET.finditer(text):
            before = list(re.finditer(r"\S+", text[:m.start()]))
            for n in range(min(6, len(before)), 0, -1):      # the longest name first
                start = before[-n].start()
                cands = self._exact(text[start:m.end()])
                if cands:
                    out.append(((start, m.end()), list(cands)))
                    break
        return out

    # -- plans --------------------------------------------------------------------------------
    def _plans(self, a: Analysis, mentions: list[Mention]) -> list[QueryPlan]:
        if not mentions:
            return []
        plans = self._one_hop(a, mentions)
        return plans

    def _one_hop(self, a: Analysis, mentions: list[Mention]) -> list[QueryPlan]:
        """Triplet queries: a linked entity, a property it has that fits the relation words,
        forward (s, p, ?) or inverse (?, p, s)."""
        plans = []
        all_spans = [m.span for m in mentions]
        for mention in mentions:
            phrases = self._phrases(a, [mention.span], all_spans)
            scores = self._property_scores(phrases)
            contents = [_content(a.relation_words([mention.span])),
                        _content(a.relation_words(all_spans))]
            contents = [c for c in contents if c] or [[]]
            cands = mention.candidates[:ENTITY_CANDIDATES]
            roles = self.props.roles([c.id for c in cands])
            for cand in cands:
                out_props, in_props = roles.get(cand.id, (frozenset(), frozenset()))
                for pid in out_props | in_props:
                    fit = self._fit(a, pid, scores, contents)
                    if fit is None:
                        continue
                    for forward in ((True, False) if pid in out_props and pid in in_props
                                    else (pid in out_props,)):
                        total = cand.score + fit[0]
                        if not forward:
                            total -= INVERSE_PENALTY
                        plans.append(self._triplet(a, mention, cand, fit[1], forward, total))
        return plans

    def _fit(self, a: Analysis, pid: str, scores: dict[str, tuple[float, Candidate]],
             contents: list[list[str]]) -> tuple[float, Candidate] | None:
        """How well ``pid`` fits the relation words: name score, coverage of the content
        words, answer type; None when it does not fit at all. With no relation words at
        all ("What is X?") the type property P31 fits a little."""
        name, cand = scores.get(pid, (0.0, None))
        coverage = max((self._coverage(c, pid) for c in contents), default=0.0)
        if not any(contents) and pid == TYPE_PROPERTY:
            name = max(name, DEFAULT_TYPE_FIT)
        fit = name + COVERAGE * coverage
        if fit < MIN_PROPERTY:
            return None
        if cand is None:
            cand = self._property_candidate(pid, fit)
        return fit + self._type_fit(a, pid), cand

    def _property_candidate(self, pid: str, score: float) -> Candidate:
        info = self._property_info(pid)
        label = info.label if info is not None else pid
        return Candidate(pid, label, score, matched=label, match="coverage",
                         description=getattr(info, "description", None))

    def _triplet(self, a: Analysis, mention: Mention, cand: Candidate, prop: Candidate,
                 forward: bool, score: float) -> QueryPlan:
        others = tuple(c for c in mention.candidates if c.id != cand.id)
        entity = LinkingDecision("entity", mention.text, (cand, *others), mention.text,
                                 mention.start, mention.end)
        prop_d = LinkingDecision("property", prop.matched or prop.label, (prop,))
        x = Var("x")
        edge = Edge(entity, prop_d, x) if forward else Edge(x, prop_d, entity)
        note = f"one hop, {'forward' if forward else 'inverse'}"
        return QueryPlan((edge,), score=score, notes=(note,))

    # -- property fit -------------------------------------------------------------------------
    def _phrases(self, a: Analysis, own: Sequence[tuple[int, int]],
                 all_spans: Sequence[tuple[int, int]]) -> list[tuple[str, float]]:
        """Relation phrases to link, each with its weight: the words left once ``own``
        (the subject's mention) is out, the same without the other mentions and without
        the type noun, and related forms of each word."""
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
            # country is X in"), else it is more likely the answer's class
            rest = _content(a.relation_words(all_spans, keep_type_noun=False))
            add([a.type_noun], 0.6 if rest else 0.95)
        lows = [w.low for w in base]
        for i, w in enumerate(lows):
            pair = f"{w} {lows[i + 1]}" if i + 1 < len(lows) else ""
            for key in (pair, w):
                for form in RELATED.get(key, ()):
                    add([form], RELATED_WEIGHT)
        return list(variants.items())

    def _property_scores(self, phrases: list[tuple[str, float]]
                         ) -> dict[str, tuple[float, Candidate]]:
        """pid → (best weighted name score over the phrases, its candidate)."""
        best: dict[str, tuple[float, Candidate]] = {}
        for phrase, weight in phrases:
            for c in _link_property(self.props, phrase):
                s = weight * (c.features.get("name", 0.0) + c.features.get("prior", 0.0))
                if s > best.get(c.id, (0.0,))[0]:
                    best[c.id] = (s, c)
        return best

    def _coverage(self, content: list[str], pid: str) -> float:
        """The share of the relation's content words that the property's label and aliases
        contain (as a stem, or through a related form: "born" → "birth")."""
        if not content:
            return 0.0
        names = self._name_stems(pid)
        covered = 0
        for w in content:
            forms = [w, *RELATED.get(w, ())]
            if any(all(stem(x) in names for x in _norm_words(f) if x not in STOPWORDS)
                   for f in forms):
                covered += 1
        return covered / len(content)

    def _name_stems(self, pid: str) -> frozenset[str]:
        info = self._property_info(pid)
        if info is None:
            return frozenset()
        return frozenset(stem(w) for name in (info.label, *info.aliases)
                         for w in _norm_words(name) if w not in STOPWORDS)

    def _type_fit(self, a: Analysis, pid: str) -> float:
        info = self._property_info(pid)
        if info is None:
            return 0.0
        is_time = info.datatype == "time"
        is_number = info.datatype == "quantity"
        if a.answer_type == "time":
            return TYPE_FIT if is_time else -TYPE_CLASH
        if is_time and a.answer_type in ("place", "person"):
            return -TYPE_CLASH
        if a.answer_type == "place":
            words = set(_norm_words(info.label)) | {
                w for alias in info.aliases for w in _norm_words(alias)}
            return TYPE_FIT * 0.5 if words & _PLACE_WORDS else 0.0
        if a.answer_type == "number" and is_number:
            return TYPE_FIT
        return 0.0

    def _property_info(self, pid: str) -> Any:
        if pid not in self._info:
            try:
                info = self.kb.property_info(pid)
            except Exception:          # noqa: BLE001 - a KB without the property's terms
                info = None
            with self._lock:
                self._info[pid] = info
        return self._info[pid]


def _content(words: Sequence[Word]) -> list[str]:
    """Lower-case content words (no stopwords) of a relation phrase."""
    return [w for word in words for w in _norm_words(word.text) if w not in STOPWORDS]


def _word_at(ws: Sequence[Word], offset: int) -> int:
    return next((i for i, w in enumerate(ws) if w.start <= offset < w.end), len(ws) - 1)


def _norm_words(text: str) -> list[str]:
    return re.findall(r"[a-z]+", text.lower())


@functools.lru_cache(maxsize=4096)
def _cached_link(props: Any, phrase: str) -> tuple[Candidate, ...]:
    return tuple(props.link(phrase, limit=400))


def _link_property(props: Any, phrase: str) -> tuple[Candidate, ...]:
    try:
        return _cached_link(props, phrase)
    except TypeError:                  # an unhashable linker: no cache
        return tuple(props.link(phrase, limit=400))


def _replace_score(plan: QueryPlan, score: float) -> QueryPlan:
    return replace(plan, score=score)
