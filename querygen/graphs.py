"""Query graphs: a question's readings as whole graphs over the KB — run, typed, scored —
and the answer they give with a calibrated confidence, or an abstention that says what is
missing.

    ranking = GraphRanker(kb, linker).rank("In which country was William B. Colleary born?")
    ranking.best.query.label_level   # 'wd:/William B. Colleary/ wdt:/place of birth/ ?m .
                                     #  ?m wdt:/country/ ?x'
    ranking.best.result.answers      # United States of America, cited by both statements
    ranking.confidence               # calibrated probability that the answer is right
    ranking.missing, ranking.reason  # None, or what the KB lacks ('entity', 'relation',
                                     # 'fact') or 'confidence', in words

A query graph is one reading of the question (the staged query graph of KBQA semantic
parsing): its topic entities (linked), a core relation path of one to three hops, forward
or inverse, and constraints (a class, an ordering, a count, yes/no). The rule-based
generator (``querygen.rules``) proposes the readings; this module adds the readings that
reach the class a "which N" question asks for one hop further ("In which country was X
born?" is X → place of birth → country, when the birthplace is no country), runs the best
of them (``querygen.execute.run``: every answer cited), checks what their answers are
against what the question asks for (``querygen.answer_types``), and scores each whole graph
with a logistic model over its features (``graph_model.json``, fitted by
``bench/fit_graphs.py`` on our dev questions: one-hop, two- and three-hop, unanswerable).
The score is the probability that the graph's answers are right: graphs are ranked by it,
and the best one is the answer only when it reaches the model's threshold.

Features of a graph (``FEATURES``): the rules' own score and its gap to the best reading;
how well its properties fit the relation words (``fit``), against the best fit any property
of the KB has for those words (``global_fit``: a property that fits the words much better
than any the entity has means the KB lacks this entity's fact); the entity link's
calibrated confidence and name match; the type check (kind and class agreement); the
number of hops; whether it is empty, how many answers it has; the share of the question's
content words no part of the graph explains; whether it drops a name of the question.

Abstention (``missing``): ``entity`` (no entity of the question is in the KB, or only a
near-miss name), ``relation`` (no property of the KB fits the relation words), ``fact``
(the relation the question names exists, but not for this entity), ``confidence`` (readings
exist but none fits well enough), ``negation`` (the question asks what does not hold),
``question`` (the text only names something: "Paris").
"""

from __future__ import annotations

import json
import math
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, cast

from kb.base import KnowledgeBase
from kb.contracts import Linker
from kb.types import Candidate, Value, ValueKind
from linking.lexicon import STOPWORDS
from linking.linker import id_order
from linking.morphology import word_form
from querygen.analysis import (POSSESSIVE_END, Analysis, Word, expand_contractions, noun_only,
                               only_verb, parts_of_speech, singulars)
from querygen.answer_types import (AGENT, ANY_PLACE_NOUNS, PLACE, Expected, TypeCheck, expected,
                                   kind_of_words, noun_forms, place_levels, says_located)
from querygen.domains import PropertyDomains
from querygen.execute import QueryResult, run
from querygen.fit import RELATED_WEIGHT, TYPE_PROPERTY, content, related_pair, root
from querygen.languages import base_language
from querygen.lexicon import (ANY_PERSON_NOUNS, AUXILIARIES, CLASS_IDIOM_NOUNS, CLASS_WORDS,
                              CONTAINMENT_WORDS, NOT_A_FACT_WORDS, ONE_MEANING_VERBS,
                              PERSON_NOUNS, PLACE_NOUNS, RELATED, ROLE_NOUNS)
from querygen.mentions import Mention
from querygen.plan import Edge, Path as PlanPath, QueryPlan, Var
from querygen.qualifiers import bounds, narrowed, numbers_named
from querygen.rules import CHAIN_PENALTY, NAMES_RELATION, RuleGenerator, against_of, of_side
from querygen.types import GeneratedQuery, LinkingDecision
from store.errors import KGGroundError
from store.normalize import normalize
from store.sounds import sound_key

MODEL_PATH = Path(__file__).with_name("graph_model.json")
#: readings run and scored per question (best first by the rules' score)
RUN_LIMIT = 8
#: readings past RUN_LIMIT run too (at most this many) when they leave fewer relation
#: words unexplained than every reading within it (a chain of three read from the words
#: ranks below shorter readings that explain less)
EXPLAINING_EXTRA = 3
#: the longest relation path of a graph
MAX_HOPS = 3
#: readings a class extension is tried on, properties followed per reading
EXTEND_READINGS, EXTEND_PROPERTIES = 4, 2
#: first properties tried on the way to a class two hops away
EXTEND_FIRST = 6
#: answers of a reading whose properties are looked at for the extension
EXTEND_SAMPLE = 20
#: how well a property's name must fit the class noun to be followed for it
NOUN_FIT = 0.5
#: how well a property must fit the words a reading leaves unexplained to extend it
EXTEND_FIT = 0.6
#: answers read per graph
ANSWER_LIMIT = 100
#: a global relation fit below this: no property of the KB names the relation
NO_RELATION_FIT = 0.55
#: a property fits the words this much better than any the entity has: the KB lacks the fact
FACT_GAP = 0.45
#: an entity link whose name match is below this is a near miss, not the entity
NEAR_MISS = 0.9
#: a word that is a name of the property it links to best, with this score, names that
#: property outright
NAMED_OUTRIGHT = 0.9
#: a one-meaning verb's related form ("death") names a property it links to with this score
#: (place of death; date of death)
EVENT_NAMES = 0.5
#: statements of a property sampled, and the share of them the KB holds the other way
#: along a second property, for the two to be each other's inverse (capital, capital of)
INVERSE_SAMPLE, INVERSE_SHARE = 30, 0.2
#: a hop is followed backward (``_extension_options``) from at most this many answers
BACKWARD_FROM = 2
#: a reading along the property the class noun names, no longer than the surest one and
#: this sure, is a rival that keeps the surest from answering (``_named_rival``)
RIVAL_CONFIDENCE = 0.5
#: how much surer a graph leaving words unexplained may be and still yield to one that
#: explains them all
EXPLAINED_MARGIN = 0.15

#: what the question is like, the same for all its graphs: its question word, how many
#: relation words and mentions it has
QUESTION_FEATURES = ("wh_who", "wh_where", "wh_when", "wh_which", "wh_count", "wh_ask",
                     "rel_words", "mentions")
FEATURES = ("rule", "gap", "rank", "fit", "global_fit", "fit_gap", "link", "match", "type",
            "noun_pos", "noun_neg", "noun_unknown", "hops", "extended", "ext_unknown",
            "ext_not_noun", "ext_words", "empty",
            "log_answers", "named", "absent", "unexplained", "ignored", "members",
            "form_count", "form_ask", "ordered", "constrained", "narrowed", "repeat",
            "choices", *QUESTION_FEATURES)


@dataclass(frozen=True)
class QueryGraph:
    """One scored reading: its query, what running it gave, the type check, the features
    and the model's ``confidence`` that its answers are right."""
    query: GeneratedQuery
    result: QueryResult | None
    check: TypeCheck
    features: Mapping[str, float]
    confidence: float
    hops: int
    #: the validator's errors and warnings of the graph's SPARQL, once it was checked
    diagnostics: Mapping[str, list[str]] = field(default_factory=dict)
    #: the question's numbers that narrowed the answers to statements whose qualifiers
    #: have them ("in 1903"), if any
    narrowed_by: tuple[str, ...] = ()
    #: how many answers the query had before they were narrowed
    narrowed_of: int = 0
    #: the question's relation words that no property of the graph names, nor the class
    #: it checks or its answers are (``_unexplained``)
    unexplained: tuple[str, ...] = ()
    #: the relation words that ask for a hop of their own the graph does not take, or
    #: that it reads as two hops (``_named_twice``)
    unpaired: tuple[str, ...] = ()

    @property
    def answered(self) -> bool:
        return self.result is not None and not self.result.empty

    def as_dict(self) -> dict[str, Any]:
        r = self.result
        return {"label_level": self.query.label_level, "grounded": self.query.grounded,
                "sparql": self.query.text, "form": self.query.form, "hops": self.hops,
                "notes": list(self.query.notes),
                "answers": [a.label for a in r.answers[:10]] if r else [],
                "count": r.count if r else None, "boolean": r.boolean if r else None,
                "type_check": self.check.as_dict(),
                "confidence": round(self.confidence, 4),
                "diagnostics": dict(self.diagnostics) or None,
                "narrowed_by": list(self.narrowed_by) or None,
                "unexplained": list(self.unexplained) or None,
                "features": {k: round(v, 4) for k, v in self.features.items()}}


@dataclass(frozen=True)
class GraphRanking:
    """A question's query graphs, best first, and the decision: ``best`` (the answering
    graph, None when the KB has no answer), ``confidence`` (the best graph's, 0 when there
    is none), ``missing`` and ``reason`` (why there is no answer)."""
    question: str
    expected: Expected
    graphs: tuple[QueryGraph, ...] = ()
    best: QueryGraph | None = None
    confidence: float = 0.0
    missing: str | None = None
    reason: str = ""
    entities: tuple[LinkingDecision, ...] = ()
    threshold: float = 0.5
    timings: Mapping[str, float] = field(default_factory=dict)
    #: the question as the analysis read it, where that differs from the question (a
    #: question in another language, read into English words: ``querygen.languages``)
    reading: str = ""

    @property
    def top(self) -> QueryGraph | None:
        """The highest-scoring graph with answers, confident or not."""
        return next((g for g in self.graphs if g.answered), None)

    def as_dict(self) -> dict[str, Any]:
        return {"question": self.question, "expected": self.expected.as_dict(),
                "best": self.best.as_dict() if self.best else None,
                "confidence": round(self.confidence, 4), "threshold": self.threshold,
                "missing": self.missing, "reason": self.reason,
                **({"reading": self.reading} if self.reading else {}),
                "graphs": [g.as_dict() for g in self.graphs],
                "timings_ms": {k: round(v * 1000, 3) for k, v in self.timings.items()}}


class GraphModel:
    """The model that scores graphs: the probability that a graph's answers are right,
    from its features, and the confidence threshold below which the KB does not answer.

    Two forms, as ``bench/fit_graphs.py`` writes them: a logistic model (``weights``,
    ``bias``, standardization ``means``/``scales``) or gradient-boosted trees
    (``trees``: each a list of nodes ``[feature, threshold, left, right, value]``, a leaf
    having feature -1; ``bias`` the raw score they add to)."""

    def __init__(self, weights: Mapping[str, float], bias: float, threshold: float,
                 means: Mapping[str, float] | None = None,
                 scales: Mapping[str, float] | None = None,
                 trees: Sequence[Sequence[Sequence[float]]] | None = None,
                 features: Sequence[str] = FEATURES):
        self.weights, self.bias, self.threshold = dict(weights), bias, threshold
        self.means, self.scales = dict(means or {}), dict(scales or {})
        self.trees = [list(t) for t in trees] if trees else None
        self.features = tuple(features)

    @classmethod
    def load(cls, path: str | Path = MODEL_PATH) -> GraphModel:
        d = json.loads(Path(path).read_text(encoding="utf-8"))
        return cls(d.get("weights", {}), d["bias"], d["threshold"], d.get("means"),
                   d.get("scales"), d.get("trees"), d.get("features", FEATURES))

    def probability(self, features: Mapping[str, float]) -> float:
        z = self.bias
        if self.trees is not None:
            x = [features.get(k, 0.0) for k in self.features]
            for nodes in self.trees:
                i = 0
                while nodes[i][0] >= 0:
                    f, threshold, left, right, _ = nodes[i]
                    i = int(left) if x[int(f)] <= threshold else int(right)
                z += nodes[i][4]
        else:
            for k, w in self.weights.items():
                value = features.get(k, 0.0)
                z += w * (value - self.means.get(k, 0.0)) / (self.scales.get(k, 1.0) or 1.0)
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


_default_model: GraphModel | None = None
_model_lock = threading.Lock()


def default_model() -> GraphModel:
    global _default_model
    with _model_lock:
        if _default_model is None:
            _default_model = GraphModel.load()
        return _default_model


class GraphRanker:
    """Ranks a question's query graphs over one KB (see the module docstring).
    Thread-safe; keeps what it learns about the KB's types and properties."""

    def __init__(self, kb: KnowledgeBase, linker: Linker, *, model: GraphModel | None = None,
                 rules: RuleGenerator | None = None):
        self.kb = kb
        self.linker = linker
        self.rules = rules or RuleGenerator(kb, linker)
        self.oracle = self.rules.types      # one cache of the KB's types for both
        self.domains = PropertyDomains(kb, self.rules.props)
        self.model = model or default_model()

    def rank(self, question: str, *, lang: str = "en") -> GraphRanking:
        """The ranked graphs of ``question`` (in ``lang``) and the decision (see the module
        docstring). The KB's failures (an unreachable endpoint, a broken mirror) are
        raised."""
        t0 = time.perf_counter()
        a, mentions, plans = self.rules.candidates(question, lang=lang)
        ranking = self._rank(question, lang, a, mentions, plans, t0)
        reading = expand_contractions(question.strip())
        return ranking if a.question == reading else replace(ranking, reading=a.question)

    def _rank(self, question: str, lang: str, a: Analysis, mentions: list[Mention],
              plans: list[QueryPlan], t0: float) -> GraphRanking:
        exp = expected(a)
        t1 = time.perf_counter()
        if a.negated and a.form != "ask":
            return GraphRanking(question, exp, missing="negation",
                                reason="the question asks what does not hold; the KB lists "
                                       "what holds", threshold=self.model.threshold)
        if _asks_nothing(a, mentions):
            names = ", ".join(m.text for m in mentions)
            return GraphRanking(question, exp, missing="question",
                                reason=f"{question.strip()!r} names {names} but asks nothing "
                                       f"about it: ask a question (e.g. 'What is {names}?')",
                                threshold=self.model.threshold)
        plans = [p for p in plans if not (p.notes[:1] and p.notes[0].startswith("chain")
                                          and self.rules._circular(p))]
        plans = self._unique(plans)
        ctx = _Context(a, exp, mentions, *self._global_fit(a, mentions),
                       lang=base_language(lang),
                       noun_roles=self.rules.noun_roles(exp.noun) if exp.noun else ())
        top = plans[:RUN_LIMIT] + self._explaining_more(ctx, plans[:RUN_LIMIT],
                                                        plans[RUN_LIMIT:])
        if a.form == "select":
            frontier, longer = top[:EXTEND_READINGS], []
            for _ in range(MAX_HOPS - 1):       # a hop per round, up to MAX_HOPS in all
                grown = self._extend_words(ctx, frontier)
                if exp.noun:
                    grown += self._to_class(ctx, frontier)
                grown = self._unique(grown)
                longer += grown
                frontier = [p for p in grown if len(_relation_edges(p)) < MAX_HOPS][
                    :EXTEND_READINGS]
                if not frontier:
                    break
            top = self._unique(top + longer)
        t2 = time.perf_counter()
        graphs = [self._graph(ctx, plan, i, top, question, lang) for i, plan in enumerate(top)]
        # a confident graph along the property the class noun names, leaving no word
        # unexplained, goes first ("What continent is Peru a part of?": its continent,
        # not what it is part of, however sure that reading is); the shortest of them
        # ("Vanuatu belongs to what continent?" is not the continent of the headquarters
        # of what Vanuatu is a member of)
        threshold = self.model.threshold
        # ... unless a confident graph's answers are surer to be of the class ("in which
        # city is the headquarters of X": Kyoto, a city, not the capital of the city X was
        # formed in, which only may be one)
        surest = max((g.features.get("noun_pos", 0.0) for g in graphs
                      if g.confidence >= threshold), default=0.0)

        named = {id(g) for g in graphs if g.features.get("noun_named") and
                 g.confidence >= threshold and g.features.get("noun_pos", 0.0) >= surest
                 and not _shorter_surer(g, graphs)}

        def order(g: QueryGraph) -> tuple[bool, int, float]:
            return id(g) not in named, g.hops if id(g) in named else 0, -g.confidence
        graphs.sort(key=order)
        graphs = _explaining_first(graphs, threshold)
        t3 = time.perf_counter()
        timings = {"candidates": t1 - t0, "extend": t2 - t1, "run": t3 - t2}
        return self._decide(question, ctx, tuple(graphs), timings)

    # -- candidates -------------------------------------------------------------------------
    @staticmethod
    def _unique(plans: Sequence[QueryPlan]) -> list[QueryPlan]:
        """``plans`` best first, each query once: of a chain read from the words and the
        same query reached by extending a shorter reading, the chain."""
        kept: dict[tuple[str, str], QueryPlan] = {}
        for p in sorted(plans, key=lambda p: (_extended(p), -p.score)):
            kept.setdefault((_canonical(p.sparql(True)), p.form), p)
        return sorted(kept.values(), key=lambda p: -p.score)

    def _explaining_more(self, ctx: _Context, run: Sequence[QueryPlan],
                         rest: Sequence[QueryPlan]) -> list[QueryPlan]:
        """Up to ``EXPLAINING_EXTRA`` of the readings ``rest`` (best first) that leave
        fewer relation words unexplained than each of the readings ``run``."""
        if not run or not rest:
            return []
        least = min(len(self._unexplained_words(ctx, p)) for p in run)
        if not least:
            return []
        return [p for p in rest
                if len(self._unexplained_words(ctx, p)) < least][:EXPLAINING_EXTRA]

    def _global_fit(self, a: Analysis, mentions: Sequence[Mention]
                    ) -> tuple[float, str | None]:
        """The best fit any property of the KB has for the relation words (whatever the
        entities have), and that property. A property that fits only through a related
        form of a word ("belong" → country, "signed" → record label: ``lexicon.RELATED``
        lists a word's senses) counts where an entity of the question's kinds has it
        (``querygen.domains``): a sense for other kinds of entity is no relation the KB
        lacks for these."""
        spans = [m.span for m in mentions]
        fit = self.rules.fit
        own = [spans[0]] if spans else []
        phrases = fit.phrases(a, own, spans)
        scores = fit.name_scores(phrases)
        plain = fit.name_scores([p for p in phrases if p[1] != RELATED_WEIGHT])
        contents = [c for c in (content(a.relation_words(spans)),
                                content(a.relation_words(spans, keep_type_noun=False))) if c]
        fits = []
        for pid in scores:
            found = fit.fit(a, pid, scores, contents or [[]])
            if found is not None and found[0] > 0.0:
                fits.append((found[0], pid))
        entities = [m.candidates[0].id for m in mentions if m.candidates]
        for score, pid in sorted(fits, key=lambda x: -x[0]):
            own_words = fit.fit(a, pid, plain, contents or [[]])
            if (own_words is not None and own_words[0] >= score - 1e-9) or \
                    self.domains.plausible(pid, entities):
                return score, pid
        return 0.0, None

    def _to_class(self, ctx: _Context, plans: Sequence[QueryPlan]) -> list[QueryPlan]:
        """Readings one hop longer (two when one does not reach it), from answers that are
        not of the class the "which N" noun names to values that are, over a property
        named N or whose values are mostly Ns ("In which country was X born?": the
        birthplace's country; "In which country is the museum that holds X?": the
        museum's city's country)."""
        noun = ctx.expected.noun
        assert noun is not None
        out = []
        for plan in plans:
            if plan.form != "select" or plan.order or plan.answer != "x" or \
                    len(_relation_edges(plan)) >= MAX_HOPS or _unnamed_members(plan) or \
                    not self._hop_named(ctx, plan):
                continue
            answers = [v for v in (self.rules._answers(plan, limit=EXTEND_SAMPLE) or [])
                       if v]
            if not answers:
                continue
            values = [Value("entity", v) for v in answers]
            check = self.oracle.check(ctx.expected, values, _last_property(plan))
            if check.noun is not None and check.noun > 0:     # already Ns (or may be)
                continue
            if (check.noun is None or check.noun == 0) and \
                    any(n.startswith("to the class") for n in plan.notes):
                # reached along a property that leads to Ns, and not known to be none:
                # "died in a city in what state" ends at the city's state (the KB types
                # South Australia a crown colony), not at the state that is a country
                continue
            why = "not" if check.noun is not None and check.noun < 0 else "unknown"
            for path, score in self._class_steps(noun, answers, len(_relation_edges(plan))):
                if not self._goes_back(plan, path[0]):
                    out.append(self._extended_by(plan, path, score,
                                                 f"to the class '{noun}' ({why})"))
        return out

    def _extended_by(self, plan: QueryPlan, path: Sequence[str], score: float,
                     note: str) -> QueryPlan:
        """``plan`` with its answer moved one ``path`` further (the properties, in order)."""
        names = _fresh_names(plan, len(path))
        moved = _rename(plan, "x", names[0])
        edges = list(moved.edges)
        for k, pid in enumerate(path):
            cand = self.rules.fit.candidate(pid, score)
            prop = LinkingDecision("property", cand.label, (cand,))
            target = Var("x") if k == len(path) - 1 else Var(names[k + 1])
            edges.append(Edge(Var(names[k]), prop, target))
        return replace(moved, edges=tuple(edges), score=plan.score - CHAIN_PENALTY * len(path),
                       notes=(*plan.notes, note))

    def _goes_back(self, plan: QueryPlan, pid: str) -> bool:
        """Whether a hop along ``pid`` from ``plan``'s answers only goes back along the
        edge that reached them: "capital", then "capital of" is the place it started
        from, no answer of its own (but a birthplace's country's capital may well be the
        birthplace)."""
        last = next((e for e in reversed(_relation_edges(plan))
                     if isinstance(e.predicate, LinkingDecision) and Var("x") in
                     (e.subject, e.object)), None)
        if last is None:
            return False
        assert isinstance(last.predicate, LinkingDecision)
        if last.subject == Var("x"):            # reached backwards: back is the same way
            return pid == last.predicate.id
        return self._inverse(last.predicate.id, pid)

    def _inverse(self, pid: str, back: str) -> bool:
        """Whether ``pid`` and ``back`` are each other's inverse (capital, capital of):
        of a sample of either's statements, the KB holds a share the other way along the
        other (a partial KB holds few of the reverse statements)."""
        return self._held_back(pid, back) or self._held_back(back, pid)

    def _held_back(self, pid: str, back: str) -> bool:
        """Whether the KB holds ``back`` from object to subject for a share of a sample
        of ``pid``'s statements."""
        n, held = self.rules.held_back(pid, back, INVERSE_SAMPLE)
        return n >= 3 and held >= INVERSE_SHARE * n

    def _class_steps(self, noun: str, answers: Sequence[str], hops: int
                     ) -> list[tuple[tuple[str, ...], float]]:
        """The paths from ``answers`` (reached in ``hops``) to Ns: one property, else two
        from a one-hop reading, else one to the kind of thing the head of a qualified
        noun names ("a city in which Australian state": a state)."""
        steps = self._noun_steps(noun, answers)
        if not steps and hops < 2:
            steps = self._noun_steps_via(noun, answers)
        if not steps and " " in noun:
            steps = self._noun_steps(noun.split()[-1], answers)
        return steps

    def _hop_named(self, ctx: _Context, plan: QueryPlan) -> bool:
        """Whether a relation word of the question names a property of ``plan``, or the
        plan goes from a thing to where it is (``_locates``): a reading to extend towards
        the class asked for must be a hop the question takes ("On which continent does X
        lie?" is not X's capital's continent, nor "Is X a city in which country?" the
        country of the people born in X)."""
        spans = [(d.start, d.end) for d in plan.decisions if d.start >= 0]
        written = ctx.analysis.relation_words(spans, keep_type_noun=False)
        words = content(written)
        stems = self._plan_stems(plan)
        pids = _plan_pids(plan)
        if any(_names_word(stems, w) for w in words) or self._locates(plan) or \
                _named_pairs(written, stems):        # "takes its (name from)"
            return True
        # an irregular form ("holds" for "held by") meets its name as a lemma
        forms = {word_form(w) for pid in pids for w in self.rules.fit.name_words(pid)}
        return any(word_form(w) in forms for w in words)

    def _locates(self, plan: QueryPlan) -> bool:
        """Whether every edge of ``plan``'s relation path goes from a thing to where it is,
        along a property that says where ("located in", "country"; not backwards: the
        people born in a city do not say where it lies)."""
        edges = _relation_edges(plan)
        return bool(edges) and all(
            isinstance(e.predicate, LinkingDecision) and isinstance(e.object, Var)
            and self._says_where(e.predicate.id) for e in edges)

    def _extend_words(self, ctx: _Context, plans: Sequence[QueryPlan]) -> list[QueryPlan]:
        """Readings one hop longer along a property that the relation words the reading
        leaves unexplained name ("Priit Tomson birth country": place of birth explains
        "birth", the birthplace's country "country"; "Who owns the network that aired X?":
        X's original network, then its owner)."""
        out = []
        for plan in plans:
            if plan.form != "select" or plan.order or plan.answer != "x" or \
                    len(_relation_edges(plan)) >= MAX_HOPS:
                continue
            words = self._unexplained_words(ctx, plan)
            if not words or not self._named_apart_from(ctx, plan, words):
                continue
            answers = [v for v in (self.rules._answers(plan, limit=EXTEND_SAMPLE) or [])
                       if v]
            if not answers:
                continue
            words = self._asking_more(ctx, plan, words, answers)
            if not words or self._names_inner_hop(ctx, plan, words):
                continue
            texts = [w.low for w in words]
            for score, cand, named in self._extension_options(ctx, words, answers):
                backward = named is not cand
                if self._extension_refused(ctx, plan, words, named):
                    continue
                prop = LinkingDecision("property", cand.matched or cand.label, (cand,))
                (via,) = _fresh_names(plan, 1)
                moved = _rename(plan, "x", via)
                hops = len(_relation_edges(plan)) + 1
                edge = Edge(Var("x"), prop, Var(via)) if backward else \
                    Edge(Var(via), prop, Var("x"))
                out.append(replace(moved, edges=(*moved.edges, edge),
                                   score=plan.score + 0.3 * score - CHAIN_PENALTY,
                                   fit=((plan.fit or 0.0) * (hops - 1) + score) / hops,
                                   notes=(*plan.notes, f"then {' '.join(texts)!r}")))
        return out

    def _named_apart_from(self, ctx: _Context, plan: QueryPlan, words: Sequence[Word]
                          ) -> bool:
        """Whether a relation word other than ``words`` (those left for a hop after it)
        names a hop of ``plan``: a reading that only the words of its extension explain
        is no first hop of the question ("Where did Abbey Road get its name from?" read
        as the language of its name, then what that is named after). The members of an
        entity need no word ("the works in the Prado")."""
        pids = [e.predicate.id for e in _relation_edges(plan)
                if isinstance(e.predicate, LinkingDecision)]
        if not pids or plan.notes and plan.notes[0].startswith("members of"):
            return True
        spans = [(d.start, d.end) for d in plan.decisions if d.start >= 0]
        left = {w.start for w in words}
        rest = [w for w in ctx.analysis.relation_words(spans) if w.start not in left]
        lows = [POSSESSIVE_END.sub("", w.low) for w in rest]
        if any(low in CONTAINMENT_WORDS or _names_word(self.rules.fit.name_stems(pid), low)
               for low in lows for pid in pids):
            return True
        # a name of stopwords ("named after") names its property only as a phrase
        fit = self.rules.fit
        scores = fit.name_scores(fit.chunk_phrases(rest)) if rest else {}
        return any((found := fit.fit(ctx.analysis, pid, scores, [lows])) is not None and
                   found[0] >= EXTEND_FIT and found[1].match != "answer" for pid in pids)

    def _extension_refused(self, ctx: _Context, plan: QueryPlan, words: Sequence[Word],
                           cand: Candidate) -> bool:
        """Whether a hop along ``cand`` after ``plan``'s answers, for ``words``, goes back
        along the hop that reached them, against the side of "the R of" the answer is on
        ("the capital of the country where X died": the capital, not what X's place of
        death is the capital of; "the capital of which country": that country), or
        against the direction a verb asks ("Which label is owned by X's company?")."""
        if self._goes_back(plan, cand.id):
            return True
        sides = {(found, w.low) for w in words
                 if (found := of_side(ctx.analysis, [w])) is not None}
        if len(sides) == 1 and against_of(cand, True, *sides.pop()):
            return True
        spans = [(d.start, d.end) for d in plan.decisions
                 if d.kind == "entity" and d.start >= 0]
        return any(self.rules._against_asked(ctx.analysis, span, cand.id, cand, True)
                   for span in spans)

    def _asking_more(self, ctx: _Context, plan: QueryPlan, words: Sequence[Word],
                     answers: Sequence[str]) -> list[Word]:
        """The unexplained ``words`` that may ask for a hop after ``plan``'s ``answers``:
        not "countries" said by answers that are countries, nor the class of a node on
        the way ("a country whose capital"), nor the name of an entity the reading leaves
        out ("members of NATO"; a concept's name, "network", may well name the hop)."""
        values = [Value("entity", v) for v in answers]
        names = [m for m in ctx.mentions if m.text != m.text.lower()]
        inner = self._inner_values(plan)
        # "the country that X belongs to": X's own relation is its first hop, never one
        # after the answer
        own = {w.start for d in plan.decisions if d.kind == "entity" and d.start >= 0
               for w in [*ctx.analysis.own_clause((d.start, d.end)),
                         ctx.analysis.clause_noun((d.start, d.end))] if w is not None}
        lows = {w.start: POSSESSIVE_END.sub("", w.low) for w in words}    # "that state's"
        return [w for w in words
                if not self._answers_are(lows[w.start], values, _last_property(plan))
                and not self._said_inside(lows[w.start], inner)
                and not any(m.start <= w.start < m.end for m in names)
                and w.start not in own and not _a_place_reached(ctx.analysis, w)]

    def _names_inner_hop(self, ctx: _Context, plan: QueryPlan, words: Sequence[Word]
                         ) -> bool:
        """Whether one of ``words`` comes after "of" that follows a word naming the
        plan's last property: "the capital of the country where X died" nests the country
        inside the capital, so no hop along "country" goes after the capital's. A word
        that says where a thing is ("Where is the birthplace of X located?") asks for the
        hop after all others."""
        last = _last_property(plan)
        words = [w for w in words if w.low not in CONTAINMENT_WORDS]
        if last is None or not words:
            return False
        stems = self.rules.fit.name_stems(last)
        ws = ctx.analysis.words
        for i, v in enumerate(ws):
            if not _names_word(stems, v.low):
                continue
            if i + 1 < len(ws) and ws[i + 1].low == "of" and \
                    any(w.start > ws[i + 1].start and not self._verb_between(
                        ctx, ws[i + 1].start, w.start) for w in words):
                return True
        return False

    @staticmethod
    def _verb_between(ctx: _Context, start: int, end: int) -> bool:
        """Whether an auxiliary or a verb stands between the offsets: "the owner of X
        *is* the capital of …" ends the phrase that "of" began."""
        return any(start < x.start < end and (x.low in AUXILIARIES or only_verb(x.low))
                   for x in ctx.analysis.words)

    def _extension_options(self, ctx: _Context, words: Sequence[Word],
                           answers: Sequence[str]) -> list[tuple[float, Candidate, Candidate]]:
        """(fit, property, the property the words name) for the best
        ``EXTEND_PROPERTIES`` properties of ``answers`` that ``words`` name (the two are
        one property but for a backward hop); "located" or "within" alone is named by any
        property that says where its subject is. A property that points at the answers
        is followed backward too when the words name its inverse ("born in the capital of
        which district?": the KB may say only that the district's capital is the town,
        not that the town is its capital), from at most ``BACKWARD_FROM`` answers (from
        many, a backward hop fans out: the capitals of Interpol's members)."""
        fit = self.rules.fit
        texts = [w.low for w in words]
        scores = fit.name_scores(fit.chunk_phrases(words))
        where = all(t in CONTAINMENT_WORDS for t in texts)
        options: dict[str, tuple[float, Candidate]] = {}
        wheres: dict[str, tuple[float, Candidate]] = {}
        for subject_of, _ in self.rules.props.roles(answers).values():
            # what kind of thing an answer is, the type check asks; it is no hop on
            for pid in subject_of - options.keys() - {TYPE_PROPERTY}:
                found = fit.fit(ctx.analysis, pid, scores, [texts])
                # a property the words do not name, whose values are only of the kind
                # asked for ("where": any place), is no hop the words ask for
                if found is not None and found[0] >= EXTEND_FIT and found[1].match != "answer":
                    options[pid] = found
                elif where and self._says_where(pid):
                    wheres[pid] = (EXTEND_FIT, fit.candidate(pid, EXTEND_FIT))
        # "part of which region": the property "part" names, not any that says where
        options = options or wheres
        # ties go to the older property (country before continent), for a stable order
        best = sorted(options.items(), key=lambda kv: (-kv[1][0], id_order(kv[0])))
        forward = [(score, cand, cand) for _, (score, cand) in best[:EXTEND_PROPERTIES]]
        if len(set(answers)) > BACKWARD_FROM:
            return forward
        return forward + self._backward_options(ctx, texts, scores, answers)

    def _backward_options(self, ctx: _Context, texts: list[str],
                          scores: dict[str, tuple[float, Candidate]],
                          answers: Sequence[str]
                          ) -> list[tuple[float, Candidate, Candidate]]:
        """(fit, property, its inverse the words name) for a property pointing at
        ``answers`` whose inverse the words name well (``_extension_options``), best
        first."""
        fit = self.rules.fit
        named = [found for pid in sorted(scores, key=lambda p: -scores[p][0])[:3]
                 if (found := fit.fit(ctx.analysis, pid, scores, [texts])) is not None and
                 found[0] >= EXTEND_FIT]
        out: dict[str, tuple[float, Candidate, Candidate]] = {}
        for _, value_of in self.rules.props.roles(answers).values():
            for pid in value_of - out.keys() - {TYPE_PROPERTY}:
                for score, twin in named:
                    if twin.id != pid and self._inverse(twin.id, pid):
                        out[pid] = (score, fit.candidate(pid, score), twin)
                        break
        best = sorted(out.items(), key=lambda kv: (-kv[1][0], id_order(kv[0])))
        return [found for _, found in best[:EXTEND_PROPERTIES]]

    def _unexplained_words(self, ctx: _Context, plan: QueryPlan,
                           twice: Sequence[Word] | None = None) -> list[Word]:
        """The relation words (mentions of the plan and the question's frame left out)
        that no property of the plan names."""
        spans = [(d.start, d.end) for d in plan.decisions if d.start >= 0]
        stems = self._plan_stems(plan)
        words = ctx.analysis.relation_words(spans, keep_type_noun=ctx.unknown_noun)
        paired = _named_pairs(words, stems)
        edge_pids = _plan_pids(plan)        # an ordering's too ("who died first")
        own = self._own_clause_stems(ctx, plan)
        seen: dict[str, int] = {}
        out = []
        for i, w in enumerate(words):
            low = POSSESSIVE_END.sub("", w.low)      # "employer's owner"
            if w.start in paired:
                continue
            if w.start in own and self._not_own_hop(low, own[w.start], edge_pids):
                out.append(w)       # "the country that X belongs to": X's own hop only
                continue
            if low in CONTAINMENT_WORDS:
                if not self._free_hop_for(ctx, plan, w, words):
                    out.append(w)
                continue
            if _names_word(stems, low):
                # each time a relation word is written it names a hop: "Who owns the
                # company that owns X?" asks for two along owned by, not one
                seen[low] = seen.get(low, 0) + 1
                hops = sum(1 for pid in edge_pids
                           if _names_word(self.rules.fit.name_stems(pid), low))
                if hops and seen[low] > hops:
                    out.append(w)
                continue
            if content([w]):
                out.append(w)
            elif low in content(words[i:i + 2]) and not self._names_phrase(
                    edge_pids, " ".join(v.low for v in words[i:i + 2])):
                out += words[i:i + 2]   # "named" before "after" (no "named after" followed)
        if twice is None:
            twice = self._named_twice(ctx, plan, words)
        return out + [w for w in twice if w not in out]

    def _relational_noun(self, ctx: _Context, pids: Sequence[str], words: Sequence[Word],
                         j: int) -> bool:
        """Whether ``words[j]`` is a noun before "of" ("the owner of X"), not a word of a
        property's name that holds "of" ("date of birth", "country of origin") nor one
        before the class asked for ("an office of which country")."""
        lows = [w.low for w in words]
        if j + 1 >= len(lows) or lows[j + 1] != "of":
            return False
        after = next((w for w in ctx.analysis.words if w.start > words[j + 1].start), None)
        if after is not None and after.low in ("which", "what", "whose"):
            return False
        return not self._names_phrase(pids, " ".join(lows[j:j + 3])) and \
            not (j > 0 and self._names_phrase(pids, " ".join(lows[j - 1:j + 2])))

    def _names_phrase(self, pids: Sequence[str], phrase: str) -> bool:
        """Whether a name of one of ``pids`` contains ``phrase`` ("named after")."""
        return any(phrase in name.lower() for pid in pids
                   for name in self.rules.props.names(pid))

    def _named_twice(self, ctx: _Context, plan: QueryPlan, words: Sequence[Word]
                     ) -> list[Word]:
        """Words and hops of ``plan`` that do not pair up, each time a word is written
        naming one hop: a word written once that alone names two hops ("CNN HQ city
        capital of?" is what the city is the capital of, not that place's capital too),
        and one hop named by two words that each ask for a hop of their own, a word
        English knows only as a verb or a noun before "of" ("Who owns the owner of X's
        label?" asks for two along owned by; "studied at the school" for one). A hop no
        word names (a step to the class asked for, or to where a thing lies) is not
        counted."""
        path = [e.predicate.id for e in _relation_edges(plan)
                if isinstance(e.predicate, LinkingDecision)]
        if not path:
            return []
        lows = [POSSESSIVE_END.sub("", w.low) for w in words]

        def namers(pids: Sequence[str]) -> list[list[int]]:
            # "located" and the like say where a thing lies: free hops (``_free_hop_for``)
            return [[j for j, low in enumerate(lows)
                     if low not in STOPWORDS and low not in CONTAINMENT_WORDS
                     and _names_word(self.rules.fit.name_stems(pid), low)] for pid in pids]

        # a hop to where a thing lies is free when a word says so ("lies in a state")
        free = any(low in CONTAINMENT_WORDS for low in lows)
        on_path = [[] if free and self._says_where(pid) else js
                   for pid, js in zip(path, namers(path), strict=True)]
        on_path = self._by_label_first(path, on_path, lows)
        # the noun of "what N" may name the hop to the answer ("In what language is the
        # paper X works for published?": "language" names language of work, so "works"
        # is left to the employer)
        last = _last_property(plan)
        noun = ctx.analysis.type_noun
        if last in path and noun and any(
                _names_word(self.rules.fit.name_stems(last), n) for n in noun.split()):
            on_path[len(path) - 1 - path[::-1].index(last)] = []
        out = [words[on_path[h][0]] for h in _unpaired(on_path)] if len(path) > 1 else []
        # an ordering's property is a hop a word may ask for too ("who died first")
        every = _plan_pids(plan)
        of_every = namers(every)
        own_hop = self._label_halves(every, lows, [
            j for j in sorted({j for js in of_every for j in js})
            if self._own_hop(ctx, every, words, j)])
        hops_of = [[h for h in range(len(every)) if j in of_every[h]] for j in own_hop]
        return out + [words[own_hop[k]] for k in _unpaired(hops_of)]

    def _label_halves(self, pids: Sequence[str], lows: Sequence[str], own: list[int]
                      ) -> list[int]:
        """``own`` (words asking a hop of their own) less each that writes, with an
        earlier one of another stem, two parts of one property's label ("the jurisdiction
        of NOAA applies to": applies to territorial jurisdiction, one hop; "owns the owner"
        stays two)."""
        kept: list[int] = []
        for j in own:
            if not any(root(lows[j]) != root(lows[k]) and any(
                    {root(lows[j]), root(lows[k])} <= stems
                    for stems in map(self.rules.fit.label_stems, pids)) for k in kept):
                kept.append(j)
        return kept

    def _by_label_first(self, path: Sequence[str], on_path: list[list[int]],
                        lows: Sequence[str]) -> list[list[int]]:
        """``on_path`` (per hop, the words naming it) less a word for the hops it names
        only through an alias when it names another hop through its label: "formed"
        names location of formation, not has part (also called "formed from")."""
        def by_label(h: int, j: int) -> bool:
            return _names_word(self.rules.fit.label_stems(path[h]), lows[j])
        out = []
        for h, js in enumerate(on_path):
            out.append([j for j in js if by_label(h, j) or not any(
                j in others and by_label(g, j)
                for g, others in enumerate(on_path) if g != h)])
        return out

    def _own_hop(self, ctx: _Context, pids: Sequence[str], words: Sequence[Word],
                 j: int) -> bool:
        """Whether the relation word ``words[j]`` asks for a hop of its own: a word English
        knows only as a verb, a noun before "of" (``_relational_noun``) or right after a
        possessive ("twinned with X's twin town": two hops), that is not joined to the
        word before it by "or"/"and" ("speak or write": one hop)."""
        low = POSSESSIVE_END.sub("", words[j].low)
        if j >= 2 and words[j - 1].low in ("or", "and"):
            return False
        return only_verb(low) or self._relational_noun(ctx, pids, words, j) or \
            _after_possessive(ctx.analysis, words[j])

    def _free_hop_for(self, ctx: _Context, plan: QueryPlan, said: Word,
                      words: Sequence[Word]) -> bool:
        """Whether a property of ``plan`` leads to places or names ``word`` (a word that
        says where a thing is: "located", "within", "part") and is named by none of the
        question's other relation words: the hop that ``word`` stands for. In "Within which
        region is the birthplace of X?" the place of birth is named by "birthplace", so
        "within" asks for one more hop. When the question word comes after ``said``
        ("The capital of X lies in which country?"), what lies somewhere was reached
        before the answer: a hop from the answer back to it is not the one it names; and
        when a kind of place says what lies there ("The city where X is headquartered lies
        in which region?"), a property whose label says where ("headquarters location")
        reached that place, not where it lies."""
        word = POSSESSIVE_END.sub("", said.low)
        # a kind of place ("what continent") names the answer, not the thing located
        others = [w.low for w in words if w.low not in CONTAINMENT_WORDS
                  and w.low not in PLACE_NOUNS and content([w])]
        asked_after = bool(ctx.analysis.frame) and min(ctx.analysis.frame) > said.start
        backward = _backward_pids(plan) if asked_after else set()
        # "The city where X is headquartered lies in …": what lies is a place already,
        # reached by an earlier hop; only a hop from it (an inner node) says where it lies
        place_lies = asked_after and any(
            w.low in PLACE_NOUNS for w in ctx.analysis.words
            if w.end <= said.start and w.start not in ctx.analysis.frame)
        from_inner = _pids_from_inner_nodes(plan) if place_lies else set()
        for pid in _plan_pids(plan):
            stems = self.rules.fit.name_stems(pid)
            if not (self.oracle.range_kind(pid) == PLACE or _names_word(stems, word)):
                continue
            if pid in backward:
                continue      # "lies in": from the thing to where it is, never back
            label = (self.rules.props.label(pid) or "").lower().split()
            # a property whose own label says where ("headquarters location") answers
            # "where is the headquarters located" itself
            if not any(_names_word(stems, w) for w in others) or \
                    (_LOCATION_LABEL_WORDS.intersection(label) and
                     not (place_lies and pid not in from_inner)):
                return True
        return False

    def _not_own_hop(self, word: str, pids: Sequence[str], path: Sequence[str]) -> bool:
        """Whether the verb ``word`` of an entity's own relative clause, which a hop of the
        reading's ``path`` explains, is named by none of ``pids``, the hops from that
        entity: a word that says where ("belongs", "is located") by none that goes from
        it to where it is. Other words are left to the other checks ("originally", "the
        city where the card is used")."""
        def names(pid: str) -> bool:
            return _names_word(self.rules.fit.name_stems(pid), word)
        if word in CONTAINMENT_WORDS:
            return not any(self._says_where(pid) or names(pid) for pid in pids)
        return "VERB" in parts_of_speech(word) and any(names(p) for p in path) and \
            not any(names(pid) for pid in pids)

    def _own_clause_stems(self, ctx: _Context, plan: QueryPlan) -> dict[int, list[str]]:
        """Word start → the properties of the hops from the entity whose relative clause
        holds the word (``Analysis.own_clause``): only such a hop explains it (a hop that
        says where, forward from it)."""
        out: dict[int, list[str]] = {}
        edges = _relation_edges(plan)
        for d in plan.decisions:
            if d.kind != "entity" or d.start < 0:
                continue
            clause = ctx.analysis.own_clause((d.start, d.end))
            if not clause:
                continue
            pids = [e.predicate.id for e in edges if isinstance(e.predicate, LinkingDecision)
                    and (e.subject == d or (e.object == d and not self._says_where(
                        e.predicate.id)))]
            out.update((w.start, pids) for w in clause)
        return out

    def _plan_stems(self, plan: QueryPlan) -> set[str]:
        stems: set[str] = set()
        for pid in _plan_pids(plan):
            stems |= self.rules.fit.name_stems(pid)
        stems |= {root(POSSESSIVE_END.sub("", w)) for d in plan.decisions
                  if d.kind == "class" for w in d.label.lower().split()}
        return stems

    def _noun_fit(self, noun: str, pid: str) -> float:
        """How well ``pid`` leads to members of the class ``noun`` names: its name ("country"
        for "which country"), else the share of its typed values that are Ns."""
        fit = self.rules.fit
        forms = noun_forms(noun)
        name = fit.name_scores([(noun, 1.0)]).get(pid, (0.0, None))[0]
        score = max(name, max(fit.coverage([f], pid) for f in forms))
        if score >= NOUN_FIT:
            return score
        share = self.oracle.range_share(pid, noun)
        return share if share >= 0.5 else 0.0

    def _noun_steps(self, noun: str, entities: Sequence[str]
                    ) -> list[tuple[tuple[str, ...], float]]:
        """One-property paths from ``entities`` to Ns, best first. To a kind of place only
        up, along a property to a place that holds it (``_goes_up``): "Which city did X
        take place in?", where the KB's location is a country, is not that country's
        capital."""
        # (a role names its own property: "Which capital does X's country have?")
        place = kind_of_words(noun) == PLACE and not _names_role(noun)
        roles = self.rules.props.roles(entities)
        options: dict[str, float] = {}
        for subject_of, _ in roles.values():
            for pid in subject_of - options.keys():
                if place and not self._goes_up(pid):
                    continue
                score = self._noun_fit(noun, pid)
                if score >= NOUN_FIT:
                    options[pid] = score
        best = sorted(options.items(), key=lambda kv: -kv[1])[:EXTEND_PROPERTIES]
        return [((pid,), score) for pid, score in best]

    def _noun_steps_via(self, noun: str, entities: Sequence[str]
                        ) -> list[tuple[tuple[str, ...], float]]:
        """Two-property paths from ``entities`` to Ns, the first property leading to the
        kind of thing an N is (a place for "country")."""
        kind = kind_of_words(noun)
        if kind is None:
            return []
        roles = self.rules.props.roles(entities)
        # from places to a kind of place, only up (``_noun_steps``)
        from_places = kind == PLACE and not _names_role(noun) and \
            PLACE in self.oracle.kinds(list(entities)).values()
        firsts = {pid for subject_of, _ in roles.values() for pid in subject_of
                  if self.oracle.range_kind(pid) == kind and
                  not (from_places and not self._goes_up(pid))}
        out: dict[tuple[str, ...], float] = {}
        for pid in sorted(firsts)[:EXTEND_FIRST]:
            middle = self.rules._values(entities, pid, True)[:EXTEND_SAMPLE]
            if middle and self.oracle.is_a(middle, noun):
                # one step reaches Ns: no second from them to other Ns ("a company
                # headquartered in which city" is its headquarters, not their twin towns)
                out[(pid,)] = max(out.get((pid,), 0.0), NOUN_FIT)
                continue
            for (second,), score in self._noun_steps(noun, middle):
                if second != pid and not self._inverse(pid, second):
                    out[(pid, second)] = max(out.get((pid, second), 0.0), score)
        return sorted(out.items(), key=lambda kv: -kv[1])[:EXTEND_PROPERTIES]

    # -- scoring ----------------------------------------------------------------------------
    def _graph(self, ctx: _Context, plan: QueryPlan, rank: int, plans: Sequence[QueryPlan],
               question: str, lang: str) -> QueryGraph:
        """``plan`` as a query graph: its query run on the KB, its answers checked against
        the expected type, its features and the model's probability."""
        query = plan.generated(question)
        result = self._run(query, lang)
        narrowed_by: list[str] | None = None
        narrowed_of = 0
        if result is not None and query.form == "select":
            result, narrowed_by, narrowed_of = self._narrowed_by_numbers(question, query,
                                                                         result)
        if _answers_own_entities(plan, query, result) or \
                self._comes_back(plan, query, result) or self._reaches_inside(ctx, plan):
            result = None       # a path back to the question's own entity answers nothing
        values = _answer_values(query, result)
        via = _last_property(plan)
        names = self._property_names(plan, via)
        aliases = self.rules.props.names(via) if via is not None else []
        check = self.oracle.check(ctx.expected, values, via, names, aliases) \
            if query.form != "ask" else self._ask_check(plan)
        check = self._role_checked(ctx, check, values)
        spans = [(d.start, d.end) for d in plan.decisions if d.start >= 0]
        unpaired = self._named_twice(
            ctx, plan, ctx.analysis.relation_words(spans, keep_type_noun=False))
        share, left = self._unexplained(ctx, plan, values, unpaired)
        # a word no hop explains may say the graph's facts are not what is asked
        # ("Which awards was X nominated for?" is not the awards X received)
        lows = [w.low for w in unpaired]
        lows += [w for w in left if w in NOT_A_FACT_WORDS and w not in lows]
        # nor does a reading that leaves a word of an entity's own relative clause to
        # hops that do not start from it ("the country that X belongs to")
        own = self._own_clause_stems(ctx, plan)
        lows += [w.low for w in ctx.analysis.words
                 if w.start in own and w.low in left and w.low not in lows and
                 self._not_own_hop(w.low, own[w.start], _plan_pids(plan))]
        feats = self._features(ctx, plan, rank, plans, result, check, values)
        feats["unexplained"] = share
        feats["narrowed"] = float(narrowed_by is not None)
        feats.update(ctx.question_features)
        feats["noun_named"] = float(self._named_by_noun(ctx, plan, check, feats))
        confidence = self.model.probability(feats)
        if _past_the_class(plan, query, check, via):
            confidence = min(confidence, self.model.threshold / 2)
        if feats["log_answers"] > LOG_ONE and _one_of_many_said(ctx, plan, check.noun):
            # "Name a poet" asks for one of many: the other poets are no rival answers,
            # so their number is no evidence against the reading (the model learnt it
            # as such on questions with one answer); as one answer, if surer
            confidence = max(confidence, self.model.probability(
                {**feats, "log_answers": LOG_ONE}))
        return QueryGraph(query, result, check, feats, confidence,
                          len(_relation_edges(plan)), narrowed_by=tuple(narrowed_by or ()),
                          narrowed_of=narrowed_of, unexplained=left,
                          unpaired=tuple(lows))

    def _role_checked(self, ctx: _Context, check: TypeCheck,
                      values: Sequence[Value]) -> TypeCheck:
        """``check`` with the class noun's agreement read from the answers' roles where
        the types could not tell and the KB states the class's members by a property
        other than instance of: people are typed human, whether they are actors their
        occupations say (``TypeOracle.role_agreement``)."""
        if check.noun != 0.0 or not ctx.noun_roles:
            return check
        ids = [v.value for v in values if v.kind == "entity"]
        return replace(check, noun=self.oracle.role_agreement(ctx.noun_roles, ids))

    def _run(self, query: GeneratedQuery, lang: str) -> QueryResult | None:
        """``query``'s result on the KB; None on an error of the query's own (the KB
        failing, an endpoint's or the mirror's error, is raised)."""
        try:
            return run(query, self.kb, limit=ANSWER_LIMIT, lang=lang)
        except KGGroundError as exc:
            if _is_failure(exc):
                raise
            return None

    def _narrowed_by_numbers(self, question: str, query: GeneratedQuery, result: QueryResult
                             ) -> tuple[QueryResult, list[str] | None, int]:
        """"in 1903": ``result`` kept to the answers whose statements have a qualifier
        with a number of the question the query does not use, those numbers, and how
        many answers there were; ``result``, None and 0 when no such qualifier narrows it."""
        numbers = numbers_named(question, query.label_level)
        limits = bounds(question, query.label_level)
        found = narrowed(self.kb, result, numbers, limits) if numbers or limits else None
        if found is None:
            return result, None, 0
        return found[0], numbers + [n for _, n in limits], len(result.answers)

    def _property_names(self, plan: QueryPlan, via: str | None) -> list[str]:
        """The names of the property ``via``: the one the question matched ("plays") and
        the property's own label ("instrument"); either may name the class asked for."""
        names = [d.label for d in plan.decisions if d.kind == "property" and d.id == via]
        own_label = self.rules.props.label(via) if via is not None else None
        names += [own_label] if own_label and own_label not in names else []
        return names

    def _named_by_noun(self, ctx: _Context, plan: QueryPlan, check: TypeCheck,
                       feats: Mapping[str, float]) -> bool:
        """Whether ``plan`` reaches its answer forward along the property the question's
        class noun names ("continent" for "Which continent is X part of?"; "country" for
        "X's neighbours belong to which country?", over the neighbours), its answers are
        Ns, and it leaves no relation word unexplained. Not a model feature: ``rank``
        puts such a graph first when it is confident."""
        noun = ctx.expected.noun
        edges = _relation_edges(plan)
        if not noun or plan.form != "select" or feats["unexplained"] > 0 or \
                (check.noun or 0.0) <= 0 or len(_plan_pids(plan)) != len(edges):
            return False
        last = edges[-1]
        return isinstance(last.predicate, LinkingDecision) and \
            last.object == Var(plan.answer) and \
            self._noun_fit(noun, last.predicate.id) >= NOUN_FIT

    def _ask_check(self, plan: QueryPlan) -> TypeCheck:
        """A yes/no graph asks whether an entity is a property's value: a property whose
        values are dates or numbers cannot have it ("Was X born in Germany?" is not
        about X's date of birth)."""
        from querygen.answer_types import LITERAL_KINDS
        for e in _relation_edges(plan):
            if isinstance(e.predicate, LinkingDecision) and \
                    isinstance(e.object, LinkingDecision) and e.object.kind == "entity" and \
                    self.oracle.range_kind(e.predicate.id) in LITERAL_KINDS:
                return TypeCheck(-1.0, None, (self.oracle.range_kind(e.predicate.id) or "",),
                                 f"{e.predicate.chosen.label} has literal values, not "
                                 f"{e.object.chosen.label}")
        return TypeCheck()

    def _features(self, ctx: _Context, plan: QueryPlan, rank: int,
                  plans: Sequence[QueryPlan], result: QueryResult | None, check: TypeCheck,
                  values: Sequence[Value]) -> dict[str, float]:
        best_score = max(p.score for p in plans)
        entities = [d for d in plan.decisions if d.kind == "entity"]
        links = [(d.chosen.confidence if d.chosen.confidence is not None
                  else min(1.0, d.chosen.score / 1.2)) for d in entities]
        matches = [d.chosen.features.get("match", 1.0) for d in entities]
        fit = plan.fit or 0.0
        n = len(values) if plan.form != "ask" else (1 if result and result.boolean else 0)
        empty = result is None or result.empty
        noun = check.noun
        notes = " | ".join(plan.notes)
        return {
            "rule": plan.score, "gap": best_score - plan.score, "rank": min(rank, 8) / 8,
            "fit": fit, "global_fit": ctx.global_fit,
            "fit_gap": max(0.0, ctx.global_fit - fit) if plan.fit is not None else 0.0,
            "link": min(links, default=0.0), "match": min(matches, default=0.0),
            "type": check.score,
            "noun_pos": max(noun or 0.0, 0.0), "noun_neg": max(-(noun or 0.0), 0.0),
            "noun_unknown": float(bool(ctx.expected.noun) and not noun),
            "hops": float(len(_relation_edges(plan))),
            "extended": float("to the class" in notes),
            "ext_unknown": float("(unknown)" in notes),
            "ext_not_noun": float("(not)" in notes),
            "ext_words": float(" then '" in notes),
            "empty": float(empty), "log_answers": math.log1p(n),
            "named": float(NAMES_RELATION in plan.notes),
            "absent": float("no statement in the KB" in notes),
            "unexplained": 0.0,     # set by ``_graph``, which keeps the words too
            "ignored": float(bool(_ignored(ctx, plan))),
            "members": float(notes.startswith("members of")),
            "form_count": float(plan.form == "count"), "form_ask": float(plan.form == "ask"),
            "ordered": float(plan.order is not None),
            "constrained": float("type constraint" in notes),
            "repeat": float(_repeats(plan)),
            "choices": float(bool(plan.choices)),
        }

    def _unexplained(self, ctx: _Context, plan: QueryPlan, values: Sequence[Value],
                     twice: Sequence[Word]) -> tuple[float, tuple[str, ...]]:
        """The question's relation words (the plan's mentions and the question's frame
        left out) that no property of the graph names, nor the class it checks, nor the
        class of its answers (``values``: "city" in "the headquarters city of X's
        employer" is said by answers that are cities): their share, and the words."""
        spans = [(d.start, d.end) for d in plan.decisions if d.start >= 0]
        words = _counted(ctx.analysis.relation_words(spans, keep_type_noun=ctx.unknown_noun))
        if not words:
            return 0.0, ()
        left = _counted([w for w in self._unexplained_words(ctx, plan, twice)
                         if not self._answers_are(w.low, values, _last_property(plan))])
        if left:
            inner = self._inner_values(plan)
            said = {w for w in words if self._said_inside(w, inner)}
            # a noun before such a class noun is part of its name ("a space programme"),
            # as is a word the two name a class with ("the learned society"), unless the
            # two name a property ("native language")
            ws = ctx.analysis.words
            said |= {a.low for a, b in zip(ws, ws[1:], strict=False)
                     if (b.low in said and not only_verb(a.low) or
                         a.low in left and self._said_inside(f"{a.low} {b.low}", inner)) and
                     self._named_outright(f"{a.low} {b.low}", set()) is None}
            said |= {w.low for w in ws if w.low in left and (
                (_a_place_reached(ctx.analysis, w) and self._may_be_place(w.low, inner)) or
                (_a_person_reached(ctx.analysis, w) and self._may_be_person(inner)) or
                (w.low in ORGANIZATION_NOUNS and self._may_be_organization(inner)))}
            left = [w for w in left if w not in said]
        return min(1.0, len(left) / len(words)), tuple(left)

    def _comes_back(self, plan: QueryPlan, query: GeneratedQuery,
                    result: QueryResult | None) -> bool:
        """Whether the select ``result`` answers only the entities a backward hop started
        from, the next hop going forward to the answer: "the things whose country is
        Denmark, then where they lie" comes back to Denmark and answers nothing."""
        if result is None or query.form != "select" or not result.answers:
            return False
        answers = {a.value.value for a in result.answers}
        edges = _relation_edges(plan)
        known = self._node_values(plan)
        for back, on in zip(edges, edges[1:], strict=False):
            start = back.object
            came_from = [start.id] if isinstance(start, LinkingDecision) else \
                known.get(start.name, []) if isinstance(start, Var) else []
            if isinstance(back.subject, Var) and back.subject == on.subject and \
                    on.object == Var(plan.answer) and came_from and answers <= set(came_from):
                return True
        return False

    def _reaches_inside(self, ctx: _Context, plan: QueryPlan) -> bool:
        """Whether the question asks what a thing lies in, its question word right after a
        word that says where ("a city situated in which country"), while the graph reaches
        its answer backwards along a property that says where (``?x located in ?city``):
        that answers what lies in the thing, not what it lies in."""
        if not says_located(ctx.analysis):
            return False
        x = Var(plan.answer)
        return any(e.subject == x and isinstance(e.predicate, LinkingDecision) and
                   self._says_where(e.predicate.id) for e in _relation_edges(plan))

    def _inner_values(self, plan: QueryPlan) -> list[list[str]]:
        """A sample of the entities each inner node of the relation path holds (the nodes
        between the question's entity and the answer; none for one hop), walked out from
        the question's entities."""
        return [v for v in self._node_values(plan).values() if v]

    def _node_values(self, plan: QueryPlan) -> dict[str, list[str]]:
        """Inner node (variable name) → a sample of the entities it holds (``_inner_values``)."""
        edges = [(e, e.predicate.id) for e in _relation_edges(plan)
                 if isinstance(e.predicate, LinkingDecision)]
        if len(edges) < 2:
            return {}
        known: dict[str, list[str]] = {}

        def ids(node: object) -> list[str] | None:
            if isinstance(node, LinkingDecision):
                return [node.id]
            return known.get(node.name) if isinstance(node, Var) else None

        for _ in edges:                 # each pass settles at least one node, or none will
            grown = False
            for e, pid in edges:
                for here, there, forward in ((e.subject, e.object, True),
                                             (e.object, e.subject, False)):
                    start = ids(here)
                    if start and isinstance(there, Var) and there.name != "x" and \
                            there.name not in known:
                        known[there.name] = self.rules._values(start, pid, forward)[
                            :EXTEND_SAMPLE]
                        grown = True
            if not grown:
                break
        return known

    def _said_inside(self, word: str, inner: Sequence[Sequence[str]]) -> bool:
        """Whether ``word`` names the class of an inner node of the path: "the town where
        X died", "the country whose capital is …", "the man X is named after", "the
        company that owns X" name a node on the way, not a hop of their own. Not a role
        ("capital": the capital of the country is one more hop)."""
        if not inner or word in ROLE_NOUNS:
            return False
        if word in ANY_PLACE_NOUNS:     # "which country is that place in?": any place
            return any(kind == PLACE for vals in inner
                       for kind in self.oracle.kinds(list(vals)).values())
        person = word in PERSON_NOUNS
        return any(self.oracle.is_a(list(vals), word) or
                   (person and self.oracle.is_a(list(vals), "human")) for vals in inner)

    def _may_be_place(self, word: str, inner: Sequence[Sequence[str]]) -> bool:
        """Whether an inner node holds places that the KB types at no other level than
        the one ``word`` names: "in a city" said of Oslo, which the KB types only as an
        administrative centre."""
        want = place_levels(word) or frozenset()
        for vals in inner:
            kinds = self.oracle.kinds(list(vals))
            if kinds and all(k == PLACE for k in kinds.values()) and all(
                    not want or (place_levels(label) or want) & want
                    for labels in self.oracle.type_labels(list(vals)).values()
                    for label in labels):
                return True
        return False

    def _may_be_person(self, inner: Sequence[Sequence[str]]) -> bool:
        """Whether an inner node holds agents the KB types as nothing but people, if at
        all: "named after a man born in …" said of Hipparchus, whom the KB leaves
        untyped."""
        return any(
            (kinds := self.oracle.kinds(list(vals))) and
            all(k == AGENT for k in kinds.values()) and
            all(labels <= {"human"} for labels in self.oracle.type_labels(list(vals)).values())
            for vals in inner)

    def _may_be_organization(self, inner: Sequence[Sequence[str]]) -> bool:
        """Whether an inner node holds agents the KB does not type as people: "the
        company behind X" said of Atlassian, which the KB leaves untyped, or of a
        "national trust" (a word for any organization cannot be checked against every
        kind of one)."""
        return any(
            (kinds := self.oracle.kinds(list(vals))) and
            all(k == AGENT for k in kinds.values()) and
            not any("human" in labels for labels in self.oracle.type_labels(list(vals)).values())
            for vals in inner)

    def _answers_are(self, word: str, values: Sequence[Value], via: str | None) -> bool:
        """Whether ``word`` names a kind of place or person that ``values`` all are. Not
        a role ("capital": the capital of the country X is a citizen of is one more hop,
        however close "capital" is to a country's classes in meaning)."""
        if not values or not _kind_noun(word):
            return False
        check = self.oracle.check(Expected("", noun=word), values, via)
        return check.noun is not None and check.noun > 0

    # -- the decision -----------------------------------------------------------------------
    def _decide(self, question: str, ctx: _Context, graphs: tuple[QueryGraph, ...],
                timings: dict[str, float]) -> GraphRanking:
        threshold = self.model.threshold
        entities = tuple(m for m in _entities(ctx))
        # GraphRanking's keyword arguments shared by both outcomes (of several types)
        common: dict[str, Any] = dict(question=question, expected=ctx.expected, graphs=graphs,
                                      entities=entities, threshold=threshold, timings=timings)
        answered = [g for g in graphs if g.answered]
        top = answered[0] if answered else None
        unfounded: tuple[str, str] | None = None     # the first yes/no that did not stand
        for g in answered:
            if g.confidence < threshold:
                break
            if self._has_class_rival(ctx, g, answered):
                unfounded = unfounded or (
                    "confidence", f"the surest reading, {g.query.label_level}, answers along "
                    f"another property than the one the class {ctx.expected.noun!r} names, "
                    "and no reading along that one is sure enough")
                continue
            near = self._set_aside(ctx, g)
            if near is not None:
                unfounded = unfounded or near
                continue
            if g.query.form == "ask":
                why = self._ask_unfounded(ctx, g)
                if why is not None:
                    unfounded = unfounded or why
                    continue
            g = self._validated(g)
            if not g.diagnostics.get("errors"):
                common["graphs"] = tuple(g if x.query is g.query else x for x in graphs)
                return GraphRanking(best=g, confidence=g.confidence, **common)
        if unfounded is not None:
            # no confidence in an answer: the sure readings were set aside, not outscored
            rest = [g.confidence for g in answered if g.confidence < threshold]
            return GraphRanking(confidence=max(rest, default=0.0), missing=unfounded[0],
                                reason=unfounded[1], **common)
        confidence = top.confidence if top is not None else 0.0
        missing, reason = self._missing(ctx, graphs, top)
        return GraphRanking(confidence=confidence, missing=missing, reason=reason, **common)

    def _ask_unfounded(self, ctx: _Context, graph: QueryGraph) -> tuple[str, str] | None:
        """Why a yes/no graph does not answer its question — (what is missing, the reason)
        — or None when it does. Every property it follows must be one the question's words
        name (or, after "in", "located" …, one that says where a thing is; or, with no
        relation word at all, the one property of a one-edge graph: "Is Paris a city?"): a
        "yes" through properties the question does not name ("Is Paris in Germany?"
        through Germany's neighbours' capitals) proves nothing. And a "no" stands only
        where the KB knows the subject's value of the property: a KB without Marie Curie's
        place of birth does not deny that she was born in Warsaw, it lacks the fact."""
        patterns = graph.query.patterns
        spans = [(d.start, d.end) for d in graph.query.decisions if d.start >= 0]
        words = [w.low for w in ctx.analysis.relation_words(spans, keep_type_noun=False)
                 if content([w])]
        where = any(w in CONTAINMENT_WORDS for w in words) or bool(
            _LOCATIVE.search(ctx.analysis.question))
        labels = {d.id: d.chosen.label for d in graph.query.decisions}
        for _, pid, _ in patterns:
            stems = self.rules.fit.name_stems(pid)
            named = any(_names_word(stems, w) for w in words)
            # with no relation word at all a one-edge graph may stand ("Is Paris a
            # city?"), unless the question compares ("Was X older than Y?": their
            # dates, not whatever links X to Y)
            bare = not [w for w in words if w not in CONTAINMENT_WORDS] and \
                len(patterns) == 1 and ctx.analysis.superlative is None
            if not (named or (where and self._says_where(pid)) or bare):
                return "relation", (f"the surest yes/no reading, "
                                    f"{graph.query.label_level}, follows "
                                    f"{labels.get(pid, pid)!r}, which the question does not "
                                    "name")
        if graph.result is not None and graph.result.boolean:
            return None
        subject, pid, value = patterns[0]
        known = (self.kb.statements(subject, pid, limit=1) if not subject.startswith("?")
                 else value.startswith("?") or self.kb.statements(None, pid, value, limit=1))
        if known:
            return None
        about = labels.get(subject if not subject.startswith("?") else value, subject)
        return "fact", (f"the KB holds no {labels.get(pid, pid)} statement for {about}, so "
                        "it cannot say no")

    def _leaves_named_relation(self, ctx: _Context, graph: QueryGraph
                               ) -> tuple[str, str] | None:
        """(what is missing, why) when a noun the graph leaves unexplained names another
        property outright ("In what country is the birthplace of X located?" along X's
        work location: "birthplace" is a name of place of birth, which the graph does not
        follow), or a verb of one meaning does ("the city where X died" along his work
        location), or a word does so with the word beside it ("native" in "X's native language is
        spoken in which country?" along the languages X speaks): its answers are about
        another relation. What is missing is the "fact" when the question's entities have
        no statement of that property, else "confidence" (a reading along it was not sure
        enough). A kind of place or person ("city") names a class, not a relation; the
        scope of a superlative ("the tallest painting in the collection") no hop of it.
        None otherwise."""
        if graph.features.get("ordered"):
            return None
        pids = set(_graph_pids(graph))
        phrases = self._naming_phrases(ctx, graph.unexplained)
        noun = ctx.expected.noun
        if noun and " " in noun and not graph.features.get("noun_named"):
            # "which twin towns": a relation, besides a class
            head, _, last = noun.rpartition(" ")
            phrases += [noun, *(f"{head} {one}" for one in singulars(last))]
        for phrase in phrases:
            best = self._named_outright(phrase, pids)
            if best is None:
                continue
            why = (f"the question names {phrase!r} ({best.label}), which the surest "
                   f"reading, {graph.query.label_level}, does not follow")
            ents = [d for d in graph.query.decisions if d.kind == "entity"]
            if any(self.kb.statements(d.id, best.id, limit=1) for d in ents):
                return "confidence", f"{why}, and no reading along it is sure enough"
            about = ", ".join(d.chosen.label for d in ents) or "the question's entity"
            return "fact", f"{why}: the KB holds no {best.label} statement for {about}"
        return None

    def _named_outright(self, phrase: str, pids: set[str]) -> Candidate | None:
        """The property ``phrase`` names outright that a graph along ``pids`` does not
        follow, or None: one of its names, with a score of at least NAMED_OUTRIGHT; or,
        for a verb of one meaning ("died", "borders"), the property its related form links to
        best ("death": place of death), unless the graph follows any property that form
        may name (date of death)."""
        if " " in phrase or noun_only(phrase):
            head, _, last = phrase.rpartition(" ")
            # a plural of a name too ("diplomatic relations")
            for form in dict.fromkeys([phrase, *(f"{head} {one}".strip()
                                                 for one in singulars(last))]):
                found = self.rules.props.link(form, limit=1)
                if found and found[0].match == "exact" and \
                        found[0].score >= NAMED_OUTRIGHT and found[0].id not in pids:
                    return found[0]
        if phrase not in ONE_MEANING_VERBS:
            return None
        for form in RELATED.get(phrase, ()):
            linked = [c for c in self.rules.props.link(form, limit=3)
                      if c.match in ("exact", "words") and c.score >= EVENT_NAMES]
            if linked and not any(c.id in pids for c in linked):
                return linked[0]
        return None

    @staticmethod
    def _naming_phrases(ctx: _Context, unexplained: Sequence[str]) -> list[str]:
        """The unexplained words that may name a property alone (no kind of place or
        person; a role, "capital", may), and each unexplained word with the content word
        beside it."""
        words = ctx.analysis.words
        out = []
        for word in dict.fromkeys(unexplained):
            if word in ROLE_NOUNS or (word not in PLACE_NOUNS and word not in PERSON_NOUNS):
                out.append(word)
            for i, w in enumerate(words):
                if w.low != word:
                    continue
                pairs = [words[j:j + 2] for j in (i - 1, i) if 0 <= j < len(words) - 1]
                out += [f"{a.low} {b.low}" for a, b in pairs if len(content([a, b])) == 2]
        return list(dict.fromkeys(out))

    def _goes_up(self, pid: str) -> bool:
        """Whether ``pid`` goes from a place to a place that holds it: one that says where
        its subject is, or one named "R of" ("capital of": the country the city is the
        capital of holds it; not "capital", from the country down to its city)."""
        label = (self.rules.props.label(pid) or "").lower()
        return self._says_where(pid) or label.endswith(" of")

    def _says_where(self, pid: str) -> bool:
        """Whether ``pid`` says where its subject is (located in, location, part of,
        country, continent), by its name."""
        return self.rules.fit.says_where(pid)

    def _set_aside(self, ctx: _Context, graph: QueryGraph) -> tuple[str, str] | None:
        """(what is missing, why) when a confident ``graph`` does not answer all the same:
        a name matched only as a misspelling, a name it leaves out or cuts short, a
        relation the words name that it does not follow, a word naming a hop it lacks."""
        return _misspelled(graph, ctx.lang) or _described_name_left_out(ctx, graph) or \
            _name_passed_over(ctx, graph) or _name_cut_short(ctx, graph, self._named) or \
            self._leaves_named_relation(ctx, graph) or _unpaired_word(graph)

    def _named(self, entity: str, name: str) -> bool:
        """Whether ``name`` is a label or an alias of ``entity`` in some language ("Франц
        Иосиф I", a Russian alias of Franz Joseph I)."""
        try:
            found = self.kb.entity(entity)
        except KGGroundError:
            return False
        wanted = normalize(name)
        return any(normalize(text) == wanted for text in
                   (*found.labels.values(), *(a for names in found.aliases.values()
                                              for a in names)))

    def _has_class_rival(self, ctx: _Context, graph: QueryGraph,
                         answered: Sequence[QueryGraph]) -> bool:
        """Whether a one-hop graph along the property the class noun names has answers of
        that class, while ``graph`` answers along another property with answers the KB
        does not show to be of it ("in which genre belongs Metallica?": its genre, heavy
        metal, against what it is an instance of, heavy metal band). The words and the
        class asked for disagree: ``graph`` does not answer. A kind of place or person
        names no property so for a one-hop graph ("In which city did X die?": X's
        birthplace is a city too, and the KB may type the place X died in otherwise); a
        longer one still has its rival ("In which state did the office of ephor exist?"
        is not that state's continent). A graph the noun names has no rival; one that it
        does not name has one in any reading along the noun's property (``_named_rival``)."""
        noun = ctx.expected.noun
        if not noun or graph.features.get("noun_named"):
            return False
        if self._named_rival(graph, answered):
            return True
        if graph.features.get("noun_pos", 0.0) > 0:
            return False
        head = noun.split()[-1]
        if graph.hops == 1 and (head in PLACE_NOUNS or head in PERSON_NOUNS):
            return False
        mine = set(_graph_pids(graph))
        for other in answered:
            pids = _graph_pids(other)
            if other is graph or other.hops != 1 or len(pids) != 1 or pids[0] in mine:
                continue
            if other.features.get("noun_pos", 0.0) >= 1.0 and \
                    self._noun_fit(noun, pids[0]) >= NOUN_FIT:
                return True
        return False

    @staticmethod
    def _named_rival(graph: QueryGraph, answered: Sequence[QueryGraph]) -> bool:
        """Whether another graph, no longer than ``graph`` and not unsure
        (``RIVAL_CONFIDENCE``), reaches other answers over the property the class noun
        names, explaining every word (``noun_named``), where ``graph`` does not: "X's
        neighbours belong to which country?" read over "part of" has that rival over
        "country"."""
        mine = {a.value.value for a in graph.result.answers} if graph.result else set()
        return any(other.features.get("noun_named") and other.result is not None and
                   other.confidence >= RIVAL_CONFIDENCE and other.hops <= graph.hops and
                   {a.value.value for a in other.result.answers} != mine
                   for other in answered if other is not graph)

    def _validated(self, graph: QueryGraph) -> QueryGraph:
        """``graph`` with the validator's diagnostics of its SPARQL (``querygen.validate``)
        — the query an answer rests on is checked like every generated query; a triplet
        query needs no check (it runs as one)."""
        if graph.query.kind == "triplet":
            return graph
        from querygen.validate import validate
        found = validate(graph.query.text, self.kb, linker=self.linker)
        return replace(graph, diagnostics={"errors": [str(d) for d in found.errors],
                                           "warnings": [str(d) for d in found.warnings]})

    def _missing(self, ctx: _Context, graphs: Sequence[QueryGraph],
                 top: QueryGraph | None) -> tuple[str, str]:
        """What the KB lacks for this question, in words."""
        missing_entity = _missing_entity(ctx)
        if missing_entity is not None:
            return missing_entity
        if top is not None and top.query.form == "ask":
            # the surest yes/no reading, below the threshold: it follows a property the
            # question does not name, its "no" is a missing fact, or it is not sure enough
            return self._ask_unfounded(ctx, top) or _not_sure(top, self.model.threshold)
        topic = _topic(ctx.mentions)
        phrase = ctx.analysis.relation_phrase([topic.span])
        best_label = (self.rules.fit.candidate(ctx.global_property, 0.0).label
                      if ctx.global_property else "")
        # a property named by function words alone ("of") is no relation the words name:
        # "the shoe size of X" lacks the relation, not X's "of" statement; with no
        # relation word at all ("Where is X?") an answered reading was only not sure enough
        # (a question whose words were not read at all, in a language without a reader,
        # has no question word either: its relation is what is missing)
        wordless_answer = not phrase and top is not None and bool(ctx.analysis.wh)
        named_empty = _named_empty(graphs)
        if named_empty is not None and not named_empty.unexplained:
            # a reading along the property the words name found nothing: whatever else
            # the words may fit ("the nationality of": the entity "nationality", and "of")
            return self._missing_fact(graphs, top, "", "", phrase)
        if (ctx.global_fit < NO_RELATION_FIT and not wordless_answer) or (best_label and not [
                w for w in re.findall(r"\w+", best_label.lower()) if w not in STOPWORDS]):
            return "relation", (f"the KB has no relation that the words {phrase!r} name"
                                if phrase else "the question names no relation the KB has")
        about = topic.candidates[0].label if topic.candidates else topic.text
        return self._missing_fact(graphs, top, about, best_label or phrase, phrase)

    def _missing_fact(self, graphs: Sequence[QueryGraph], top: QueryGraph | None,
                      about: str, relation: str, phrase: str) -> tuple[str, str]:
        """("fact", why) when the KB lacks the fact (a reading along the property the
        question names found nothing, or none fits the words nearly as well as the
        property named), else ("confidence", why): the surest reading is below the
        threshold. ("relation", why) when that reading leaves relation words unexplained:
        the KB's "size" is no "shoe size"."""
        named_empty = _named_empty(graphs)
        if named_empty is not None and named_empty.unexplained and phrase:
            return "relation", f"the KB has no relation that the words {phrase!r} name"
        if named_empty is not None:
            props = [d.label for d in named_empty.query.decisions if d.kind == "property"]
            ents = [d.chosen.label for d in named_empty.query.decisions if d.kind == "entity"]
            return "fact", (f"the KB holds no {' / '.join(props)} statement for "
                            f"{', '.join(ents) or about}")
        if top is None or top.features.get("fit_gap", 0.0) >= FACT_GAP:
            return "fact", f"the KB holds no {relation} statement for {about}"
        return _not_sure(top, self.model.threshold)


def _named_empty(graphs: Sequence[QueryGraph]) -> QueryGraph | None:
    """The first reading along a property the question's words name that found nothing."""
    return next((g for g in graphs if not g.answered and NAMES_RELATION in g.query.notes),
                None)


def shown_confidence(confidence: float) -> str:
    """``confidence`` with two decimals, rounded down: a probability of 0.996 is shown as
    0.99, since "1.00" would claim a certainty no reading of a question has."""
    return f"{math.floor(confidence * 100) / 100:.2f}"


def _not_sure(top: QueryGraph, threshold: float) -> tuple[str, str]:
    """("confidence", why): ``top``, the surest reading, is below ``threshold``."""
    return "confidence", (f"no reading of the question fits the KB well enough (the best, "
                          f"{top.query.label_level}, has confidence "
                          f"{shown_confidence(top.confidence)}, below {threshold:.2f})")


def _unpaired_word(graph: QueryGraph) -> tuple[str, str] | None:
    """("confidence", why) when ``graph`` does not take one hop per relation word written
    ("Who owns the owner of X's label?" along owned by once): its answers are those of
    another question."""
    if not graph.unpaired:
        return None
    return "confidence", (f"the question writes {graph.unpaired[0]!r} as a hop of its own, "
                          f"which the surest reading, {graph.query.label_level}, does not "
                          "take, and no reading that does is sure enough")


#: variants of a name that name its entity, not another near it
_NAMING_VARIANTS = frozenset({"variant:spelling", "variant:ending", "variant:sounds",
                              "variant:demonym"})


def _missing_entity(ctx: _Context) -> tuple[str, str] | None:
    """("entity", why) when the KB lacks an entity of the question: a name no reading
    used, no entity found at all, or only names near the mentions; else None."""
    names = _names_left_out(ctx, _entities(ctx))
    if names:
        name = _name_run(ctx.analysis.question, names)
        return "entity", f"the KB has no entity named {name!r}"
    if not ctx.mentions:
        return "entity", "no entity of the question was found in the KB"
    first = ctx.mentions[0]
    best_cand = first.candidates[0] if first.candidates else None
    # a name as the question's language spells it ("Hatschepsut") is the KB's name, and
    # a people's name names its country ("What do Egyptians speak?")
    if best_cand is not None and all(m.candidates[0].features.get("match", 1.0) < NEAR_MISS
                                     and m.candidates[0].match not in _NAMING_VARIANTS
                                     for m in ctx.mentions if m.candidates):
        return "entity", (f"the KB has no entity named {first.text!r} (the closest name "
                          f"is {best_cand.label!r}, {best_cand.id})")
    return None


def _misspelled(graph: QueryGraph, lang: str = "en") -> tuple[str, str] | None:
    """("entity", why) when an entity of ``graph`` matched its mention only as a
    misspelling does ("Seymour Sarasin" for Seymour Sarason): a name that is not in the KB
    may be a typo or another person, and only the asker knows which. In a question in
    another language than English, a name of as many words whose last word, the surname,
    is the label's is that language's spelling of the given name ("Alexandre Pushkin")."""
    for d in graph.query.decisions:
        if d.kind == "entity" and d.chosen.match == "fuzzy" and d.mention and \
                not (lang != "en" and _foreign_given_name(d.mention, d.chosen.label)):
            return "entity", (f"the KB has no entity named {d.mention!r}; the closest name "
                              f"is {d.chosen.label!r} ({d.chosen.id}): ask with that name "
                              "if it is the one meant")
    return None


def _name_passed_over(ctx: _Context, graph: QueryGraph) -> tuple[str, str] | None:
    """("confidence", why) when ``graph`` reads only words the question writes in lower
    case as its entities ("the firm" as the film *The Firm*) and leaves out a name the
    question capitalizes ("Which country is the firm behind Jira based in?"): the name
    is what the question is about."""
    q = ctx.analysis.question
    entities = [d for d in graph.query.decisions if d.kind == "entity" and d.start > 0]
    if not entities or not all(q[d.start:d.end].islower() for d in entities):
        return None
    names = _names_left_out(ctx, graph.query.decisions)
    if not names:
        return None
    return "confidence", (f"the reading {graph.query.label_level} takes "
                          f"{q[entities[0].start:entities[0].end]!r} for "
                          f"{entities[0].chosen.label!r} and leaves out "
                          f"{_name_run(q, names)!r}, and no reading with it is sure enough")


def _name_cut_short(ctx: _Context, graph: QueryGraph,
                    named: Callable[[str, str], bool]) -> tuple[str, str] | None:
    """("entity", why) when a name the question capitalizes and ``graph`` leaves out
    follows one of its entities right away, or after "the" ("Constantino the Grande" read
    as Constantino, a pope): the name goes on, and the entity named is another one."""
    q = ctx.analysis.question
    left = set(_names_left_out(ctx, graph.query.decisions))
    if not left:
        return None
    ws = ctx.analysis.words
    for d in graph.query.decisions:
        if d.kind != "entity" or d.end <= 0:
            continue
        after = [w for w in ws if w.start >= d.end]
        if after and after[0].low == "the":
            after = after[1:]
        if after and after[0].text in left and \
                not re.sub(r"(?i)\bthe\b", "", q[d.end:after[0].start]).strip():
            name = q[d.start:after[0].end]
            if d.chosen is not None and (normalize(d.chosen.label or "") == normalize(name)
                                         or named(d.chosen.id, name)):
                continue            # the entity is named so ("Pope Hadrian I")
            return "entity", (f"the KB has no entity named {name!r}; the reading "
                              f"{graph.query.label_level} takes {q[d.start:d.end]!r} alone")
    return None


def _foreign_given_name(mention: str, label: str) -> bool:
    """Whether ``mention`` and ``label`` are names of two or more words, as many, that
    differ before their last word only ("Alexandre Pushkin", "Alexander Pushkin"), or
    there only as spellings of one Russian name do ("Michail Gorbatschow", "Mikhail
    Gorbachev": ``sound_key``)."""
    a, b = normalize(mention).split(), normalize(label).split()
    return len(a) == len(b) >= 2 and (
        a[-1] == b[-1] or sound_key(mention.split()[-1]) == sound_key(
            label.split()[-1]))


def _counted(words: Sequence[Word]) -> list[str]:
    """The relation words that count: content words, and the words that say where a
    thing is ("within", "located"), which may be stopwords."""
    return [w.low for w in words if w.low in CONTAINMENT_WORDS] + \
        content([w for w in words if w.low not in CONTAINMENT_WORDS])


def _named_pairs(words: Sequence[Word], stems: frozenset[str] | set[str]) -> set[int]:
    """The offsets of words that, with their neighbour, form a phrase ``RELATED`` to a
    name with these ``stems`` ("passed away": "death")."""
    out: set[int] = set()
    for a, b in zip(words, words[1:]):
        if related_pair(a.low, b.low, stems):
            out.update((a.start, b.start))
    return out


_INNER_VAR = re.compile(r"\?(?:[ym]\d+)\b")


def _canonical(sparql: str) -> str:
    """``sparql`` with its inner variables renamed in the order they appear: a chain and
    a reading extended hop by hop that ask the same are one reading."""
    names: dict[str, str] = {}
    return _INNER_VAR.sub(lambda m: names.setdefault(m.group(0), f"?v{len(names)}"), sparql)


def _extended(plan: QueryPlan) -> bool:
    """Whether ``plan`` was grown from a shorter reading (by its words or towards the
    class asked for)."""
    return any(n.startswith(("then '", "to the class")) for n in plan.notes)


def _unpaired(options: Sequence[Sequence[int]]) -> list[int]:
    """The items (indices into ``options``, each the partners it may take) left without a
    partner of their own when as many as can be are paired (augmenting paths)."""
    held: dict[int, int] = {}              # partner → the item that has it

    def assign(item: int, tried: set[int]) -> bool:
        for p in options[item]:
            if p not in tried:
                tried.add(p)
                if p not in held or assign(held[p], tried):
                    held[p] = item
                    return True
        return False

    return [i for i, opts in enumerate(options) if opts and not assign(i, set())]


def _names_word(stems: frozenset[str] | set[str], word: str) -> bool:
    """Whether property names with these word ``stems`` name the lower-case ``word``, as
    written or through a phrase it is ``RELATED`` to ("born": "place of birth")."""
    for form in (word, *RELATED.get(word, ())):
        parts = [x for x in form.split() if x not in STOPWORDS] or form.split()
        if all(root(x) in stems for x in parts):
            return True
    return False


def _asks_nothing(a: Analysis, mentions: Sequence[Mention]) -> bool:
    """Whether the text is only names: no question word, no yes/no or imperative frame,
    no question mark, no word outside its mentions ("Paris"), and no concept's name in
    lower case or after a possessive, which is what it asks for ("Satish Pradhan political
    party", "Larry McVoy's employer")."""
    if not mentions or a.wh or a.one_of_many or a.form != "select" or \
            any(q in a.question for q in "?？؟") or _POSSESSIVE_FRAME.search(a.question):
        return False
    if len(mentions) > 1 and any(m.text == m.text.lower() for m in mentions):
        return False
    return not a.relation_words([m.span for m in mentions])


#: a preposition that asks where ("Is Paris in Germany?", "Is Lyon on the Rhône?")
_LOCATIVE = re.compile(r"\b(?:in|on|at|within|inside)\b", re.IGNORECASE)
#: a property label with one of these words says where its subject is
_LOCATION_LABEL_WORDS = frozenset("location located situated".split())
#: the stems of property names that say where something is
_POSSESSIVE_FRAME = re.compile(r"\w(?:['’]s|s['’])\s+\w")


def _topic(mentions: Sequence[Mention]) -> Mention:
    """The mention the question is most likely about: the best-linked one, a capitalized
    one first."""
    def key(m: Mention) -> tuple[bool, float]:
        c = m.candidates[0] if m.candidates else None
        conf = (c.confidence if c is not None and c.confidence is not None else
                (c.score if c is not None else 0.0))
        return (m.text[:1].isupper(), conf)
    return max(mentions, key=key)


def _described_name_left_out(ctx: _Context, graph: QueryGraph) -> tuple[str, str] | None:
    """("entity", why) when ``graph`` reads the members of a category the question names
    only to describe a name right after it, a name the KB lacks ("the poet Quillan
    Marshwright" read as the poets): its answers are about every poet, not the one asked for
    (a name after an entity that is no category, "Keio University HQ", is left alone); or
    when one member is asked for and a name describes it ("a famous Ruritanian poet")."""
    from querygen.question_names import ignored_names
    q = ctx.analysis.question
    ignored = ignored_names(q, graph.query.decisions) if graph.features.get("members") else []
    if not ignored:
        return None
    for d in graph.query.decisions:
        # the word right after, a quotation mark before it or not ("the novel «X»")
        found = re.match(r"[\s\"'«»„“”‘’]*([^\s\"'«»„“”‘’]+)", q[d.end:]) \
            if d.kind == "entity" and d.start >= 0 else None
        after = [found.group(1)] if found else []
        if after and after[0] in ignored or ctx.analysis.one_of_many:
            # one member asked for ("a famous Ruritanian poet"): every name counts
            name = _name_run(q, after[:1] if after and after[0] in ignored else ignored)
            return "entity", (f"the KB has no entity named {name!r}; the reading "
                              f"{graph.query.label_level} is about {d.chosen.label!r} "
                              "in general")
    return None


def _names_role(noun: str) -> bool:
    """Whether a word of ``noun`` is a role, which names its own property ("capital city")."""
    return any(w in ROLE_NOUNS for w in noun.split())


def _name_run(question: str, words: Sequence[str]) -> str:
    """The ignored capitalized words as they stand together in the question ("Fenwick
    Astraguard"), or the first of them."""
    for m in re.finditer(r"[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*)*", question):
        if words[0] in m.group().split():
            name = m.group()
            # a sentence's full stop is no initial's ("the band Sorrelgate.")
            return name[:-1] if name.endswith(".") and len(name.split()[-1]) > 2 else name
    return words[0]


@dataclass
class _Context:
    analysis: Analysis
    expected: Expected
    mentions: list[Mention]
    global_fit: float
    global_property: str | None
    lang: str = "en"
    #: (property, class) by which the KB states the class noun's members, other than
    #: instance of ("which actor": occupation actor; ``RuleGenerator.noun_roles``)
    noun_roles: tuple[tuple[str, str], ...] = ()

    @property
    def unknown_noun(self) -> bool:
        """Whether the question's "what N" noun names no class of the KB ("What blood type
        did X have?"): then it is words the graph must explain, like any relation word."""
        noun = (self.analysis.type_noun or "").split()
        return bool(noun) and self.expected.noun is None and \
            not (len(noun) == 1 and noun[0] in CLASS_WORDS | CLASS_IDIOM_NOUNS)  # "type of X"

    @property
    def question_features(self) -> dict[str, float]:
        a, wh = self.analysis, self.analysis.wh
        words = content(a.relation_words([m.span for m in self.mentions],
                                         keep_type_noun=False))
        return {"wh_who": float(wh in ("who", "whom", "whose")),
                "wh_where": float(wh == "where"), "wh_when": float(wh == "when"),
                "wh_which": float(wh in ("which", "what") and bool(a.type_noun)),
                "wh_count": float(a.form == "count"), "wh_ask": float(a.form == "ask"),
                "rel_words": float(len(words)), "mentions": float(len(self.mentions))}


def _graph_pids(graph: QueryGraph) -> list[str]:
    """The properties a graph's query follows."""
    return [d.id for d in graph.query.decisions if d.kind == "property"]


def _kind_noun(word: str) -> bool:
    """Whether ``word`` names a kind of place or person, not a role ("town", "man"; not
    "capital")."""
    return word not in ROLE_NOUNS and (word in PLACE_NOUNS or word in PERSON_NOUNS)


def _shorter_surer(graph: QueryGraph, graphs: Sequence[QueryGraph]) -> bool:
    """Whether a graph of fewer hops than ``graph`` is surer and its answers as surely of
    the class asked: then the longer one's naming the class by its last property ("of which
    province …": located in) is no reason to go first (a wrongly linked entity reaches the
    class only the long way round)."""
    pos = graph.features.get("noun_pos", 0.0)
    return any(g.hops < graph.hops and g.confidence > graph.confidence and
               g.features.get("noun_pos", 0.0) >= pos for g in graphs)


def _explaining_first(graphs: list[QueryGraph], threshold: float) -> list[QueryGraph]:
    """``graphs`` with a confident graph that explains every relation word first when
    the first leaves words unexplained and is not surer by more than ``EXPLAINED_MARGIN``:
    the model cannot tell them apart, the words can ("the country of the city where X
    died": its country's languages, not those of the state whose capital it is)."""
    if not graphs or not graphs[0].answered or not graphs[0].features.get("unexplained"):
        return graphs
    top = graphs[0]
    floor = max(threshold, top.confidence - EXPLAINED_MARGIN)
    for i, g in enumerate(graphs[1:], 1):
        if g.confidence < floor:
            break
        if g.answered and not g.features.get("unexplained") and \
                g.features.get("fit", 0.0) >= top.features.get("fit", 0.0):
            return [g, *graphs[:i], *graphs[i + 1:]]
    return graphs


def _plan_pids(plan: QueryPlan) -> list[str]:
    """The properties a plan follows."""
    pids = [d.id for d in plan.decisions if d.kind == "property"]
    for e in plan.edges:
        if isinstance(e.predicate, PlanPath):
            pids += [s.id for s in e.predicate.steps]
    return pids


def _pids_from_inner_nodes(plan: QueryPlan) -> set[str]:
    """The properties of ``plan``'s relation path that start from a node reached on the
    way (neither the question's entity nor the answer)."""
    return {e.predicate.id for e in _relation_edges(plan)
            if isinstance(e.predicate, LinkingDecision)
            and isinstance(e.subject, Var) and e.subject != Var("x")}


def _backward_pids(plan: QueryPlan) -> set[str]:
    """The properties of ``plan``'s relation path that it follows from value to subject
    only (``?x p ?y1``: the subject is a node the path had not reached yet, the edges
    being in the order the path walks them)."""
    reached: set[Var] = set()
    back: set[str] = set()
    ahead: set[str] = set()
    for e in _relation_edges(plan):
        if isinstance(e.predicate, LinkingDecision):
            forward = not isinstance(e.subject, Var) or e.subject in reached
            (ahead if forward else back).add(e.predicate.id)
        reached.update(n for n in (e.subject, e.object) if isinstance(n, Var))
    return back - ahead


def _relation_edges(plan: QueryPlan) -> list[Edge]:
    """The edges of the core relation path (class constraints and orderings left out)."""
    out = []
    for e in plan.edges:
        if isinstance(e.predicate, PlanPath):
            continue
        if isinstance(e.object, LinkingDecision) and e.object.kind == "class":
            continue
        if isinstance(e.object, Var) and e.object.name == "v" and plan.order:
            continue
        out.append(e)
    return out


def _repeats(plan: QueryPlan) -> bool:
    """Whether two edges of the relation path follow the same property."""
    pids = [e.predicate.id for e in _relation_edges(plan)
            if isinstance(e.predicate, LinkingDecision)]
    return len(pids) != len(set(pids))


#: the prepositions before "a <place>" that say a place is reached (``_a_place_reached``)
_PREPOSITIONS = frozenset("in at from to into on near".split())


def _a_place_reached(a: Analysis, word: Word) -> bool:
    """Whether ``word`` is a kind of place after a preposition and "a" ("has its head
    office in *a city* situated in …", "comes from *a country*"): it says what the place
    reached is, and asks for no hop of its own (not the "sister city" of the place)."""
    ws = a.words
    i = next((k for k, w in enumerate(ws) if w.start == word.start), None)
    return i is not None and i >= 2 and ws[i - 1].low in ("a", "an") and \
        ws[i - 2].low in _PREPOSITIONS and \
        any(form in PLACE_NOUNS for form in (word.low, *singulars(word.low)))


#: the nouns that say only that a node is a person (``_a_person_reached``), and the
#: prepositions before "a <person>"
_ANY_PERSON = frozenset("man woman person men women people".split())
_PERSON_PREPOSITIONS = frozenset("after by to for with from".split())


def _a_person_reached(a: Analysis, word: Word) -> bool:
    """Whether ``word`` says only "a person" after a preposition and "a" ("named after
    *a man* born in which city"), or points back to one ("X was named after someone,
    where was *that person* born"): it says what the node reached is, no hop of its own."""
    ws = a.words
    i = next((k for k, w in enumerate(ws) if w.start == word.start), None)
    if i is None or word.low not in _ANY_PERSON:
        return False
    return (i >= 2 and ws[i - 1].low in ("a", "an") and ws[i - 2].low in _PERSON_PREPOSITIONS) \
        or (i >= 1 and ws[i - 1].low in ("that", "this", "said"))


def _answers_own_entities(plan: QueryPlan, query: GeneratedQuery,
                          result: QueryResult | None) -> bool:
    """Whether every answer of the select ``result`` is one of the question's own
    entities, ``plan`` offering no choice (a choice, "X or Y?", is answered by one of
    them)."""
    if result is None or query.form != "select" or plan.choices or not result.answers:
        return False
    own = {d.id for d in plan.decisions if d.kind == "entity"}
    return all(a.value.value in own for a in result.answers)


def _answer_values(query: GeneratedQuery, result: QueryResult | None) -> list[Value]:
    """The values a graph answers: a select's answers, a count's number (none for a
    count of 0), none for a yes/no question or no result."""
    if result is None:
        return []
    if query.form == "count":
        # "quantity": a count's kind, outside ValueKind, that answer_types knows
        return [Value(cast(ValueKind, "quantity"), str(result.count or 0))] \
            if result.count else []
    if query.form == "select":
        return [a.value for a in result.answers]
    return []


def _last_property(plan: QueryPlan) -> str | None:
    """The property of the edge that reaches the answer variable."""
    for e in reversed(_relation_edges(plan)):
        if isinstance(e.predicate, LinkingDecision) and (
                e.object == Var(plan.answer) or e.subject == Var(plan.answer)):
            return e.predicate.id
    return None


#: nouns that say only that a node is an organization ("the company behind X")
ORGANIZATION_NOUNS = frozenset("""company organisation organization firm business corporation
    enterprise""".split())
#: the ``log_answers`` feature of a graph with one answer
LOG_ONE = math.log1p(1)
#: head nouns of the one asked for that say only that it is a person
def _one_of_many_said(ctx: _Context, plan: QueryPlan, noun: float | None) -> bool:
    """Whether the question asks for one of many and ``plan`` says what the one asked
    for is: its head noun is an entity of the plan ("a poet": the poets), the class its
    answers are members of (``noun``, the type check's agreement, is positive), or only a
    person ("a person born in Lyon"), or there is none ("someone").
    Then every answer answers alone; "Name a poet born in Lyon" read as everyone born
    there does not."""
    a = ctx.analysis
    if not a.one_of_many:
        return False
    if a.one_head < 0:
        return True
    word = next((w.low for w in a.words if w.start == a.one_head), "")
    return word in ANY_PERSON_NOUNS or bool(a.type_noun and word in a.type_noun.split() and
                                     (noun or 0.0) > 0) or any(
        d.start <= a.one_head < d.end for d in plan.decisions if d.kind == "entity")


def _past_the_class(plan: QueryPlan, query: Any, check: TypeCheck, via: str | None) -> bool:
    """Whether ``plan``'s answers are classes, or a hop further, and none of the class
    the question asks for: they answer another question ("Which band is X a member of?"
    — through P31's alias "member of" — is not X's class, human; "In which band did X
    play?" is not the genres of X's band)."""
    return check.noun is not None and check.noun < 0 and query.form == "select" and (
        via == TYPE_PROPERTY or len(_relation_edges(plan)) > 1)


def _unnamed_members(plan: QueryPlan) -> bool:
    """Whether ``plan`` reads the question as the members of an entity over a property
    no word names: those members answer "which countries are in NATO?" or not at all;
    their continents do not answer "Seychelles: which continent?"."""
    return bool(plan.notes) and plan.notes[0].startswith("members of") and not plan.fit


def _fresh_names(plan: QueryPlan, n: int) -> list[str]:
    """``n`` variable names ("m0", "m1" …) that ``plan`` does not use yet: a reading
    extended twice must not join its new hop to a variable it already has."""
    used = {node.name for e in plan.edges for node in (e.subject, e.object)
            if isinstance(node, Var)}
    return [name for name in (f"m{k}" for k in range(len(used) + n)) if name not in used][:n]


def _rename(plan: QueryPlan, old: str, new: str) -> QueryPlan:
    def sub(node: object) -> object:
        return Var(new) if isinstance(node, Var) and node.name == old else node
    edges = tuple(Edge(sub(e.subject), e.predicate, sub(e.object)) for e in plan.edges)
    return replace(plan, edges=edges)


def _entities(ctx: _Context) -> list[LinkingDecision]:
    return [LinkingDecision("entity", m.text, m.candidates, m.text, m.start, m.end)
            for m in ctx.mentions if m.candidates]


def _ignored(ctx: _Context, plan: QueryPlan) -> list[str]:
    """The question's names ``plan`` leaves out: capitalized words, and in a question
    typed in lower case, the names the linker found (``querygen.question_names``)."""
    from querygen.question_names import ignored_mentions
    q = ctx.analysis.question
    return _names_left_out(ctx, plan.decisions) + ignored_mentions(q, ctx.mentions,
                                                                   plan.decisions)


def _after_possessive(a: Analysis, word: Word) -> bool:
    """Whether ``word`` comes right after a name's possessive ("Tampere's *twin* town";
    not "Which country's city …", where the question asks the country)."""
    before = [w for w in a.words if w.end <= word.start]
    return bool(before) and bool(_POSSESSIVE_S.search(before[-1].text)) and \
        before[-1].text[:1].isupper() and before[-1].start not in a.frame


#: a possessive ending ("Tampere's", "the Beatles'"), not a closing quote ("'Alien'")
_POSSESSIVE_S = re.compile(r"(['\u2019]s|s['\u2019])$")


def _names_left_out(ctx: _Context, decisions: Sequence[LinkingDecision]) -> list[str]:
    """The question's capitalized words that ``decisions`` leave out, but for the words
    that only describe an entity ("Greek" in "the Greek singer Katy Garbi")."""
    from querygen.question_names import ignored_names
    return [n for n in ignored_names(ctx.analysis.question, decisions)
            if n.lower() not in ctx.analysis.described]


def _is_failure(exc: KGGroundError) -> bool:
    from store.errors import EndpointError, MirrorError, ServerBusy
    return isinstance(exc, (EndpointError, MirrorError, ServerBusy))
