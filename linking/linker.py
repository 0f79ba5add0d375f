"""The entity linker: mentions in a text → ranked Wikidata entities, with reasons.

    from linking import EntityLinker
    linker = EntityLinker("slice.sqlite")
    result = linker.link("Where was the founder of Delta Airlines born?")
    result.mentions[0].best.id          # 'Q188920'
    result.mentions[0].why()            # which features put it first

``link(text)`` finds the mentions itself (``linking.mentions``); ``link(text, spans=[(s,
e)])`` disambiguates given spans, still using the rest of the text as context (mentions
found there count for coherence but are not returned). ``candidates(name)`` ranks the
entities one name may stand for, without context.

Works over any knowledge base, through its ``kb.linking.LinkingKB`` view: a mirror
(``MirrorKB``, a ``Mirror``, or a mirror path) is fast — the first use opens the linking
sidecar beside it, building it when missing or stale (``store.link_index``; 10–20 s for a
180k-entity mirror, reported to ``progress``); an ``RdfGraphKB`` (or an RDF file's path)
links to its own IRIs; a ``SparqlEndpointKB`` asks the endpoint; a ``FallbackKB`` links
from its mirror and asks the live endpoint for names the mirror lacks.
"""

from __future__ import annotations

import bisect
import contextlib
import dataclasses
import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from kb.base import Closable, KnowledgeBase, Searchable, mirror_of
from kb.linking import (Batched, HasKB, Indexed, LinkingKB, Name, Nearest, Related,
                        linking_view)
from kb.types import Candidate
from linking import news
from linking.calibration import (Calibration, best_others, candidate_features,
                                 default_calibration)
from linking.candidates import CandidateGenerator, Match, base_score
from linking.context import GraphContext, Profile, name_words
from linking.lexicon import QUESTION_WORDS, STOPWORDS
from linking.mentions import MentionDetector
from linking.properties import PropertyLinker
from linking.ranking import DEFAULT_WEIGHTS, Weights
from linking.types import LinkedMention, LinkResult, Mention
from store.errors import KGGroundError
from store.mirror import Mirror
from store.normalize import normalize

#: candidates kept per mention, best first by name and popularity
POOL = 30
#: of those, how many get context features (the rest keep their name-and-popularity score:
#: on the linking benchmarks context never lifted a candidate from below 5th place to 1st)
PROFILED = 10
#: candidates of a context-only mention that count for coherence
CONTEXT_CANDIDATES = 5
#: a mention's context: the text this many characters either side of it ...
CONTEXT_CHARS = 300
#: ... and this many mentions either side of it, for coherence
COHERENCE_MENTIONS = 8
#: the name match of a surname taken from a longer mention of the text ("John Adams")
COREFERENCE_MATCH = 0.97
#: the name match of a state an address part names ("Mass."), and of the place of a
#: mention that carries its state ("Cambridge, Mass." → "Cambridge"), as a share of an
#: exact match
ADDRESS_MATCH = 0.95
#: a team's name match for its city's mention, as a share of the city's
METONYMY_MATCH = 0.9
#: the name match a city candidate needs before its teams are offered for it
STRONG_NAME = 0.9
#: neighbours of a place's candidate read for a second hop toward its state
NEIGHBOURS_HOP = 50


#: what a linker links over: a KnowledgeBase, a ``Mirror``, a path or URL ``kb.open``
#: understands (mirror, RDF file, endpoint), or a LinkingKB
LinkSource = KnowledgeBase | LinkingKB | Mirror | str | Path


def open_source(source: LinkSource, **options: Any
                ) -> tuple[KnowledgeBase | None, LinkingKB]:
    """(the KnowledgeBase, its LinkingKB) for ``source`` (see ``LinkSource``); for a
    LinkingKB given as it is, the KB it names (``HasKB``), else None."""
    import kb as kb_package

    if isinstance(source, Mirror):
        from kb.mirror import MirrorKB
        source = MirrorKB(mirror=source)
    elif isinstance(source, (str, Path)):
        source = kb_package.open(source)
    if isinstance(source, LinkingKB) and not isinstance(source, Searchable):
        return (source.kb if isinstance(source, HasKB) else None), source
    # anything searchable is taken for a KB (linking_view says so when it is none)
    return cast(KnowledgeBase, source), linking_view(source, **options)


class EntityLinker:
    """Links mentions to the entities of one knowledge base (see the module docstring).

    ``fuzzy=False`` turns misspelling tolerance off. ``embeddings``: None (the default)
    ranks properties with all-MiniLM-L6-v2 when the ``embeddings`` extra is installed
    (loaded on the first property ranked; entities without it); False never embeds; True
    (load the model, or fail naming the extra) or an ``linking.embeddings.Embedder`` adds
    semantic similarity to entity and property ranking.
    For a mirror, ``index_path`` overrides where the sidecar lives and ``progress`` (a
    callable taking a message) hears about its build. Thread-safe.
    """

    def __init__(self, source: LinkSource, *, fuzzy: bool = True, embeddings: Any = None,
                 index_path: str | Path | None = None, weights: Weights = DEFAULT_WEIGHTS,
                 progress: Any = None, calibration: Calibration | None = None):
        options = {k: v for k, v in (("index_path", index_path), ("progress", progress))
                   if v is not None}
        self.kb, self.source = open_source(source, **options)
        self.name = self.source.name
        # the source's optional members, looked up once (``kb.linking``'s protocols)
        self._batch_of = self.source.batch if isinstance(self.source, Batched) else None
        self._related = self.source.related if isinstance(self.source, Related) else None
        self._nearest = self.source.nearest if isinstance(self.source, Nearest) else None
        self.weights = weights
        self._weights_of: Weights | None = None
        self._weights: dict[str, float] = {}
        self.calibration = calibration or default_calibration()
        self.generator = CandidateGenerator(self.source, fuzzy=fuzzy)
        if embeddings is True:
            from linking.embeddings import Embedder
            embeddings = Embedder()
        self.embedder = embeddings or None
        self.detector = MentionDetector(self.source)
        self.properties = PropertyLinker(
            self.source, embedder=self.embedder if self.embedder is not None else (
                "auto" if embeddings is None else None))
        self.context = GraphContext(self.source)

    @property
    def index(self) -> Any:
        """The linking sidecar of a mirror (``store.link_index.LinkIndex``)."""
        index = self.source.index if isinstance(self.source, Indexed) else None
        if index is None:
            raise KGGroundError(f"{self.name} has no linking sidecar",
                                expected="a mirror (MirrorKB or FallbackKB)")
        return index

    @property
    def mirror(self) -> Mirror | None:
        """The mirror behind the KB, if there is one (layers above kb should not need it)."""
        return mirror_of(self.kb)

    # -- public API ---------------------------------------------------------------------------
    def candidates(self, name: str, *, lang: str = "en", limit: int = 10) -> list[Candidate]:
        """The entities ``name`` may stand for, best first, ranked by name match and
        popularity only (no context). Empty when nothing matches."""
        matches = self.generator.generate(name, lang=lang)
        scored = [(self._prescored(m, name), m) for m in matches.values()]
        scored.sort(key=lambda x: (-x[0][0], id_order(x[1].entity)))
        ranked = [(s, feats, m) for (s, feats), m in scored]
        confidences, _nil = self._confidences(ranked, name, detected=False)
        return self._candidates(ranked[:limit], lang, confidences)

    def closest(self, name: str, *, lang: str = "en", limit: int = 5) -> list[tuple[str, str]]:
        """(ID, label) of entities whose labels or aliases are nearest to ``name`` in
        spelling, for error messages: up to a third of the name's letters may differ."""
        norm = normalize(name)
        if not norm:
            return []
        nearest = self._nearest
        if nearest is not None:
            norms = nearest(norm, max_distance=max(2, len(norm.replace(" ", "")) // 3),
                            limit=limit * 3)[:limit * 3]
        else:
            norms = [n for n, _ in self.source.similar(norm, "words", limit=limit * 3)]
        if not norms:
            return []
        rank = {n: i for i, n in enumerate(norms)}
        found: dict[str, int] = {}
        for n in self.source.names(norms):
            if rank[n.norm] < found.get(n.entity, len(norms)):
                found[n.entity] = rank[n.norm]
        ids = sorted(found, key=lambda e: (found[e], e))[:limit]
        names = self._names(ids, lang)
        return [(i, names[i][0]) for i in ids]

    def link(self, text: str, *, lang: str = "en", top: int = 5,
             spans: Sequence[tuple[int, int]] | None = None,
             min_confidence: float = 0.0, min_score: float | None = None) -> LinkResult:
        """Mentions of ``text`` with their candidates (at most ``top`` each), every
        candidate with its calibrated ``confidence`` and every mention with its ``nil``.

        Without ``spans`` the mentions are detected; every detected mention that has a
        candidate is returned (callers threshold on confidence), unless its best
        candidate's confidence is below ``min_confidence`` (or, the old way, its score
        below ``min_score``). With ``spans`` every span is returned, in the given order,
        even when nothing matches it."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a string, got {type(text).__name__}")
        with self._batch():
            return self._link(text, lang, top, spans, min_confidence, min_score)

    def _link(self, text: str, lang: str, top: int,
              spans: Sequence[tuple[int, int]] | None, min_confidence: float,
              min_score: float | None) -> LinkResult:
        if spans is not None:
            given = [Mention(text[s:e], s, e) for s, e in _check_spans(text, spans)]
            extra = self.detector.detect(text, exclude=[(m.start, m.end) for m in given])
        else:
            given, extra = self.detector.detect(text), []
        ranked = self._rank(text, given, extra, lang)
        names = self._names(list({m.entity for scored in ranked for *_, m in scored[:top]}),
                            lang)                 # one lookup for the whole text
        cased_text, question = _is_cased(text), _is_question(text)
        out = []
        for mention, scored in zip(given, ranked, strict=True):
            confidences, nil = self._confidences(scored, mention.text, detected=spans is None,
                                                 cased_text=cased_text, question=question)
            cands = self._candidates(scored[:top], lang, confidences, names)
            # ``_candidates`` sets every confidence: None here only when there is no candidate
            top_confidence = cands[0].confidence if cands else None
            if spans is None and (top_confidence is None or top_confidence < min_confidence or (
                    min_score is not None and cands[0].score < min_score)):
                continue
            out.append(LinkedMention(mention, tuple(cands), nil))
        return LinkResult(text, lang, tuple(out))

    def feature_rows(self, text: str, *, lang: str = "en",
                     spans: Sequence[tuple[int, int]] | None = None
                     ) -> list[tuple[Mention, list[tuple[str, dict[str, float]]]]]:
        """For each mention (detected, or the given ``spans``), its candidates' IDs with the
        inputs of the confidence model — what ``bench/fit_calibration.py`` fits on."""
        with self._batch():
            return self._feature_rows(text, lang, spans)

    def _feature_rows(self, text: str, lang: str,
                      spans: Sequence[tuple[int, int]] | None
                      ) -> list[tuple[Mention, list[tuple[str, dict[str, float]]]]]:
        if spans is not None:
            given = [Mention(text[s:e], s, e) for s, e in _check_spans(text, spans)]
            extra = self.detector.detect(text, exclude=[(m.start, m.end) for m in given])
        else:
            given, extra = self.detector.detect(text), []
        cased_text, question = _is_cased(text), _is_question(text)
        out = []
        for mention, scored in zip(given, self._rank(text, given, extra, lang), strict=True):
            rows = self._rows(scored, mention.text, detected=spans is None,
                              cased_text=cased_text, question=question)
            out.append((mention, [(m.entity, r) for (_, _, m), r in zip(scored, rows)]))
        return out

    def _rows(self, scored: list[tuple[float, dict[str, float], Match]], surface: str,
              *, detected: bool, cased_text: bool = False,
              question: bool = False) -> list[dict[str, float]]:
        scores = [s for s, _, _ in scored]
        weight = self._weight_map()
        rows = []
        for rank, ((score, feats, m), others) in enumerate(zip(scored, best_others(scores))):
            raw = {k: v / w for k, v in feats.items() if (w := weight.get(k, 0.0))}
            rows.append(candidate_features(raw, score=score, scores=scores, rank=rank,
                                           how=m.how, is_label=m.is_label,
                                           detected=detected, mention=surface,
                                           others_best=others, cased_text=cased_text,
                                           term_lower=m.lower, question=question))
        return rows

    def _weight_map(self) -> dict[str, float]:
        """``self.weights`` as a dict (a lookup per feature, not an attribute read)."""
        weights = self.weights
        if self._weights_of is not weights:
            self._weights = {f.name: getattr(weights, f.name)
                             for f in dataclasses.fields(weights)}
            self._weights_of = weights
        return self._weights

    def _weighted(self, raw: dict[str, float]) -> dict[str, float]:
        """``self.weights.contributions(raw)``."""
        weight = self._weight_map()
        return {k: weight[k] * v for k, v in raw.items()}

    def _confidences(self, scored: list[tuple[float, dict[str, float], Match]], surface: str,
                     *, detected: bool, cased_text: bool = False, question: bool = False
                     ) -> tuple[list[float], float]:
        """Calibrated confidence of each ranked candidate, and the mention's nil
        (``cased_text``: the mention's text has capitals and small letters; ``question``:
        it asks something)."""
        if not scored:
            return [], 1.0
        return self.calibration.confidences(self._rows(scored, surface, detected=detected,
                                                       cased_text=cased_text,
                                                       question=question))

    def _batch(self) -> Any:
        """One text's lookups as one batch, where the KB offers that (a mirror checks once
        per text, not per lookup, whether its remembered answers are still valid)."""
        return self._batch_of() if self._batch_of is not None else contextlib.nullcontext()

    # -- ranking ------------------------------------------------------------------------------
    def _prescored(self, m: Match, surface: str = "") -> tuple[float, dict[str, float]]:
        feats = self._weighted(_base_features(m, surface))
        return sum(feats.values()), feats

    def _rank(self, text: str, given: list[Mention], extra: list[Mention],
              lang: str) -> list[list[tuple[float, dict[str, float], Match]]]:
        """For each given mention, (score, features, match) of its candidates, best first."""
        out = []
        for pool in self._features(text, given, extra, lang):
            scored = []
            for m, raw in pool:
                feats = self._weighted(raw)
                scored.append((sum(feats.values()), feats, m))
            scored.sort(key=lambda x: (-x[0], id_order(x[2].entity)))
            out.append(scored)
        return out

    def _features(self, text: str, given: list[Mention], extra: list[Mention],
                  lang: str) -> list[list[tuple[Match, dict[str, float]]]]:
        """For each given mention, its candidates' matches with raw features in [0, 1].

        Linear in the text's length: a mention's context is the text within
        ``CONTEXT_CHARS`` of it and the ``COHERENCE_MENTIONS`` mentions on either side;
        a name met twice is looked up once."""
        everyone = [*given, *extra]
        pools, names = self._pools(everyone, len(given), lang)
        _corefer(everyone, pools, len(given), self._prescored)
        cues = [_NewsCues.read(text, m) for m in given]
        self._address_candidates(given, pools, cues, lang, names)
        if not any(pools[:len(given)]):
            return [[] for _ in given]
        profiles = self.context.profiles(
            {m.entity for pool in pools for _, m in pool[:PROFILED]}, lang=lang)
        injected = self._team_candidates(text, given, pools, cues, profiles, lang)
        order = sorted(range(len(everyone)), key=lambda k: everyone[k].start)
        shared = _TextEvidence(
            profiles=profiles, injected=injected,
            places=self._containment(cues, pools, profiles, lang),
            longer=self._longer_names(given, pools), adjacent=_adjacency(profiles),
            shares=[{m.entity: s / pool[0][0] for s, m in pool[:PROFILED]}
                    if pool and pool[0][0] > 0 else {} for pool in pools],
            order=order, place={k: n for n, k in enumerate(order)}, windows=_Windows(text),
            semantic=self._semantic(text, pools[:len(given)], profiles),
            cased=_is_cased(text), country=functools.cache(self._country))
        return [self._mention_features(text, i, mention, pools[i], cues[i], shared)
                for i, mention in enumerate(given)]

    def _pools(self, everyone: list[Mention], given: int, lang: str
               ) -> tuple[list[list[tuple[float, Match]]], Any]:
        """Each mention's candidates as (prescore, match), best first: up to ``POOL`` for
        the first ``given`` mentions (looked up fuzzily and by parts too), up to
        ``CONTEXT_CANDIDATES`` for the others (context only). Returns them with the
        prefetched names of all the mentions (None for a single mention)."""
        pools: list[list[tuple[float, Match]]] = []
        looked_up: dict[tuple[str, bool], list[tuple[float, Match]]] = {}
        names = (self.generator.prefetch(list({m.text for m in everyone}))
                 if len(everyone) > 1 else None)
        for i, mention in enumerate(everyone):
            is_given = i < given
            pool = looked_up.get((mention.text, is_given))
            if pool is None:
                matches = self.generator.generate(mention.text, lang=lang, fuzzy=is_given,
                                                  partial=is_given, names=names)
                pool = [(self._prescored(m, mention.text)[0], m) for m in matches.values()]
                pool.sort(key=lambda x: (-x[0], id_order(x[1].entity)))
                pool = looked_up[(mention.text, is_given)] = pool[
                    :POOL if is_given else CONTEXT_CANDIDATES]
            pools.append(list(pool))
        return pools, names

    def _mention_features(self, text: str, i: int, mention: Mention,
                          pool: list[tuple[float, Match]], cue: _NewsCues,
                          shared: _TextEvidence) -> list[tuple[Match, dict[str, float]]]:
        """The raw features of the candidates in ``pool``, those of given mention ``i``:
        the base features of every candidate, the context features (role, words,
        coherence) of the ``PROFILED`` best and the injected teams, and the features of
        the news conventions, case and meaning where they apply."""
        own = name_words(mention.text)
        context = shared.windows.words(mention.start - CONTEXT_CHARS,
                                       mention.end + CONTEXT_CHARS) - own
        roles = self.properties.cue_properties(context)
        n = shared.place[i]
        near = shared.order[max(0, n - COHERENCE_MENTIONS):n + COHERENCE_MENTIONS + 1]
        others = [shared.shares[j] for j in near if j != i and shared.shares[j]]
        adjectival = _before_noun(text, mention)
        lowered = shared.cased and mention.text == mention.text.lower()
        states = self._named(cue.state) if cue.state else frozenset()
        country = shared.country() if states else frozenset()
        profiles, adjacent, semantic = shared.profiles, shared.adjacent, shared.semantic
        injected, places, longer = shared.injected[i], shared.places[i], shared.longer[i]
        feats = []
        for rank, (_, m) in enumerate(pool):
            raw = _base_features(m, mention.text)
            p = profiles.get(m.entity, _NO_PROFILE)
            if rank < PROFILED or m.entity in injected:
                raw.update(role=_role(p, roles), words=_words(p, m, own, context),
                           coherence=_coherence(m.entity, others, adjacent))
            if adjectival and m.how == "variant:demonym":
                raw["adjectival"] = 1.0
            if m.entity in states:
                raw["address"] = 1.0 if _a_state(p, country) else 0.5
            if m.entity in places:
                raw["located"] = places[m.entity]
            if cue.dateline and news.is_settlement(p.type_labels, p.subject_of):
                raw["dateline"] = 1.0
            if m.entity in injected:
                raw["metonymy"] = injected[m.entity]
            if m.entity in longer:
                raw["longer_name"] = 1.0
            if lowered and not m.lower:
                raw["case_clash"] = 1.0
            if semantic is not None:
                raw["semantic"] = semantic.get(m.entity, 0.0)
            feats.append((m, raw))
        return feats

    def _named(self, norm: str) -> frozenset[str]:
        """The entities with ``norm`` as a normalized label or alias."""
        return frozenset(n.entity for n in self.source.names([norm]))

    # -- news conventions (linking.news) ------------------------------------------------------
    def _country(self) -> frozenset[str]:
        """The entities named the United States (the country of ``news``'s states)."""
        return frozenset(n.entity for n in self.source.names(list(news.US_NAMES)))

    def _address_candidates(self, given: list[Mention], pools: list, cues: list[_NewsCues],
                            lang: str, names: Any) -> None:
        """The state an address part names joins its mention's pool ("Mass." →
        Massachusetts, which no name of the KB need spell so); a mention that carries its
        state ("Cambridge, Mass.") is also looked up by its place alone."""
        for i, (mention, cue) in enumerate(zip(given, cues, strict=True)):
            offers: list[Match] = []
            if cue.state:
                offers += [Match(n.entity, ADDRESS_MATCH * base_score(n, lang),
                                 "variant:address", n.text, n.lang, n.is_label, n.prior,
                                 False, False, n.langs)
                           for n in self.source.names([cue.state])]
            place = news.place_part(mention.text)
            if place != mention.text:
                for m in self.generator.generate(place, lang=lang, names=names).values():
                    m.score *= ADDRESS_MATCH
                    m.how = "variant:qualifier" if m.how == "exact" else m.how
                    offers.append(m)
            if offers:
                _merge(pools, i, offers, self._prescored, mention.text)

    def _states(self, norm: str, country: frozenset[str], lang: str) -> frozenset[str]:
        """The US states named ``norm`` (Georgia the state, not the republic; all the
        entities so named when none is recognizably a state)."""
        named = self._named(norm)
        states = frozenset(e for e, p in self.context.profiles(named, lang=lang).items()
                           if _a_state(p, country))
        return states or named

    def _containment(self, cues: list[_NewsCues], pools: list,
                     profiles: dict[str, Profile], lang: str) -> list[dict[str, float]]:
        """For a place followed by its state ("Portland, Ore."), how well each profiled
        candidate lies in that state, by the KB's statements (its ``located`` feature): 1
        linked to the state (or a type naming it: "city of Oregon"), 0.6 through a
        neighbour linked to it, 0.25 in the United States; halved for what is no
        settlement."""
        out: list[dict[str, float]] = [{} for _ in cues]
        wanted = [i for i, c in enumerate(cues) if c.place_state]
        if not wanted:
            return out
        country = self._country()
        second: set[str] = set()
        for i in wanted:
            for _, m in pools[i][:PROFILED]:
                second.update(sorted(profiles.get(m.entity, Profile()).neighbours,
                                     key=id_order)[:NEIGHBOURS_HOP])
        hop = self.context.profiles(second - set(profiles), lang=lang) if second else {}
        for i in wanted:
            state = cues[i].place_state
            assert state is not None                # ``wanted`` has a place_state
            inside = self._states(state, country, lang)
            for _, m in pools[i][:PROFILED]:
                p = profiles.get(m.entity, Profile())
                kinds = news.type_words(p.type_labels)
                if p.neighbours & inside or set(state.split()) <= kinds:
                    score = 1.0
                elif any((profiles.get(n) or hop.get(n) or Profile()).neighbours & inside
                         for n in p.neighbours):
                    score = 0.6
                elif p.neighbours & country or {"united", "states"} <= kinds:
                    score = 0.25
                else:
                    continue
                if not news.is_settlement(p.type_labels, p.subject_of):
                    score /= 2
                out[i][m.entity] = score
        return out

    def _team_candidates(self, text: str, given: list[Mention], pools: list,
                         cues: list[_NewsCues], profiles: dict[str, Profile],
                         lang: str) -> list[dict[str, float]]:
        """In a sports report, a city's teams join its mention's pool ("Boston beat New
        York"): entities the KB relates to the city (``news.TEAM_PLACE_PROPERTIES``, or a
        home venue in it) or names after it ("Boston Red Sox"), kept when they are teams.
        Returns, per mention, team → its ``metonymy`` evidence (``news.sport_fit``); the
        teams' profiles are added to ``profiles``."""
        out: list[dict[str, float]] = [{} for _ in given]
        cities = _cities_in_sports(text, given, pools, cues, profiles)
        if not cities:
            return out
        by_city = self._teams_of_cities(list({m.entity for ms in cities.values() for m in ms}))
        named = {i: self._named_after(given[i].text) for i in cities}
        teams = {t for i in cities for m in cities[i] for t in by_city.get(m.entity, ())}
        teams |= {t for found in named.values() for t in found}
        fresh = self.context.profiles(teams - set(profiles), lang=lang) if teams else {}
        profiles.update(fresh)
        labels = self.source.labels(list(teams), lang=lang) if teams else {}
        popular = {n.entity: n for n in self.source.names(
            list({normalize(label) for label, _ in labels.values()}))}
        for i, found in cities.items():
            sports = news.sport_words(text, given[i].start, given[i].end)
            city = found[0]
            for team in sorted({t for m in found for t in by_city.get(m.entity, ())} |
                               named[i], key=id_order):
                p = profiles.get(team, Profile())
                if not news.is_team(p.type_labels, p.value_of):
                    continue
                out[i][team] = news.sport_fit(sports, news.type_words(p.type_labels))
                label = labels.get(team, (team, None))[0]
                _merge(pools, i, [_team_match(team, city, label, popular.get(team))],
                       self._prescored, given[i].text)
        return out

    def _teams_of_cities(self, cities: list[str]) -> dict[str, set[str]]:
        """city → the entities the KB relates to it by ``news.TEAM_PLACE_PROPERTIES`` or
        whose home venue (``news.HOME_VENUE``) lies in it (empty where the source cannot
        say which entities relate to which: no ``Related``)."""
        related = self._related
        by_city: dict[str, set[str]] = {}
        if related is not None:
            for place, rows in related(cities, news.TEAM_PLACE_PROPERTIES).items():
                by_city.setdefault(place, set()).update(s for s, _ in rows)
            venues = {s: place for place, rows in related(cities, ("P131",)).items()
                      for s, _ in rows}
            for venue, rows in related(list(venues), (news.HOME_VENUE,)).items():
                by_city.setdefault(venues[venue], set()).update(s for s, _ in rows)
        return by_city

    def _named_after(self, mention: str) -> set[str]:
        """The entities with a name that begins with the place part of ``mention`` and goes
        on ("Boston" → "Boston Red Sox", "Boston Celtics")."""
        norm = normalize(news.place_part(mention))
        longer = [n for n, _ in self.source.similar(norm, "words", limit=200)
                  if n.startswith(norm + " ")]
        return {n.entity for n in self.source.names(longer)} if longer else set()

    def _longer_names(self, given: list[Mention], pools: list) -> list[set[str]]:
        """For a person's name of two or more capitalized words ("John Adams"), the
        candidates it matched only as an alias of a longer label with the same first and
        last word and more between ("John Quincy Adams": a middle name) — when another
        candidate has it as its exact label. ("New York" for "New York City" is no such
        case: the longer label adds a last word.)"""
        out: list[set[str]] = [set() for _ in given]
        wanted = {}
        for i, mention in enumerate(given):
            words = mention.text.split()
            if len(words) < 2 or not all(w[:1].isupper() for w in words):
                continue
            top = pools[i][:PROFILED]
            if not any(m.how == "exact" and m.is_label for _, m in top):
                continue
            wanted[i] = [m.entity for _, m in top if m.how == "exact" and not m.is_label]
        ids = list({e for es in wanted.values() for e in es})
        labels = self.source.labels(ids) if ids else {}
        for i, es in wanted.items():
            own = normalize(given[i].text).split()
            for e in es:
                label = normalize(labels.get(e, (e, None))[0]).split()
                if (len(label) > len(own) and label[0] == own[0] and label[-1] == own[-1]
                        and all(w in label for w in own)):
                    out[i].add(e)
        return out

    def _semantic(self, text: str, pools: list, profiles: dict[str, Profile]
                  ) -> dict[str, float] | None:
        if self.embedder is None:
            return None
        ids = list(dict.fromkeys(m.entity for pool in pools for _, m in pool[:PROFILED]))
        if not ids:
            return {}
        names = self._names(ids, "en")
        docs = [_describe(names.get(i, (i, None)), profiles.get(i, Profile())) for i in ids]
        sims = self.embedder.similarities(text, docs)
        return {i: max(0.0, float(s)) for i, s in zip(ids, sims, strict=True)}

    # -- output -------------------------------------------------------------------------------
    def _names(self, ids: list[str], lang: str) -> dict[str, tuple[str, str | None]]:
        """id → (label, description) in ``lang`` (else English, else any)."""
        return self.source.labels(ids, lang=lang) if ids else {}

    def _candidates(self, scored: list[tuple[float, dict[str, float], Match]],
                    lang: str, confidences: Sequence[float],
                    names: dict[str, tuple[str, str | None]] | None = None) -> list[Candidate]:
        if names is None:
            names = self._names([m.entity for *_, m in scored], lang) if scored else {}
        return [Candidate(m.entity, names[m.entity][0], score, m.prior, m.term, m.how,
                          m.term_lang, names[m.entity][1], feats, confidence=conf)
                for (score, feats, m), conf in zip(scored, confidences)]

    def close(self) -> None:
        if isinstance(self.source, Closable):
            self.source.close()


def id_order(entity: str) -> tuple[str, int, str]:
    """Sort key that breaks ties between equal scores in favour of the older item: "Q86483"
    before "Q4920810" (lower numbers were created earlier and are, as a rule, the more
    central sense of a shared name)."""
    return entity[:1], len(entity), entity


def _check_spans(text: str, spans: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    out = []
    for span in spans:
        s, e = span
        if not (isinstance(s, int) and isinstance(e, int) and 0 <= s < e <= len(text)):
            raise ValueError(f"span {span!r} is not within the text (0..{len(text)}), "
                             "expected (start, end) character offsets with start < end")
        out.append((s, e))
    return out


def _base_features(m: Match, surface: str) -> dict[str, float]:
    """Features of the name alone; ``cased`` only counts for a mention with capitals
    (matching "uk" to a term written "uk" says nothing)."""
    cased = m.cased and surface != surface.lower()
    return {"match": m.score, "prior": m.prior, "langs": m.langs,
            "cased": 1.0 if cased else 0.0}


@dataclass(slots=True)
class _TextEvidence:
    """What ``EntityLinker._features`` gathers once per text for every mention's
    candidates: their profiles, the teams injected into pools (``_team_candidates``), the
    containment and longer-name evidence per mention, the graph's adjacency among
    candidates, each mention's candidates' share of its best prescore, the mentions'
    text order (``order``: mention indexes by start; ``place``: index → position there),
    the text's word windows, the semantic similarities (None without embeddings), whether
    the text is cased, and the country of news addresses (looked up on first use)."""
    profiles: dict[str, Profile]
    injected: list[dict[str, float]]
    places: list[dict[str, float]]
    longer: list[set[str]]
    adjacent: dict[str, set[str]]
    shares: list[dict[str, float]]
    order: list[int]
    place: dict[int, int]
    windows: _Windows
    semantic: dict[str, float] | None
    cased: bool
    country: Callable[[], frozenset[str]]


class _Windows:
    """The content words of any stretch of a text, from one pass over it."""

    _WORD = re.compile(r"\w+")

    def __init__(self, text: str):
        self.starts: list[int] = []
        self.forms: list[frozenset[str]] = []
        for m in self._WORD.finditer(text):
            self.starts.append(m.start())
            self.forms.append(name_words(m.group()))

    def words(self, start: int, end: int) -> set[str]:
        lo = bisect.bisect_left(self.starts, start)
        hi = bisect.bisect_left(self.starts, end)
        out: set[str] = set()
        for forms in self.forms[lo:hi]:
            out |= forms
        return out


def _corefer(mentions: list[Mention], pools: list[list[tuple[float, Match]]], given: int,
             prescored: Any) -> None:
    """A one-word capitalized mention that ends (or starts) a longer mention of the same
    text — "Adams" after "John Adams" — may name what the longer one names: that one's
    best candidate joins its pool as a ``variant:coreference`` match."""
    by_word: dict[str, list[int]] = {}
    for j, m in enumerate(mentions):
        parts = m.text.split()
        if len(parts) > 1 and pools[j]:
            for part in {parts[0], parts[-1]}:
                by_word.setdefault(part, []).append(j)
    for i in range(given):
        text = mentions[i].text
        if " " in text or not text[:1].isupper():
            continue
        for j in by_word.get(text, ())[:1]:
            best = pools[j][0][1]
            match = Match(best.entity, COREFERENCE_MATCH, "variant:coreference",
                          mentions[j].text, best.term_lang, best.is_label, best.prior, True,
                          False, best.langs)
            pool = [(s, old) for s, old in pools[i] if old.entity != best.entity]
            pool.append((prescored(match, text)[0], match))
            pool.sort(key=lambda x: (-x[0], id_order(x[1].entity)))
            pools[i] = pool[:POOL]


_NO_PROFILE = Profile()


#: first words of a request for information ("Tell me the capital of …", "Name the …")
REQUEST_WORDS = frozenset({"tell", "name", "list", "give", "show", "find", "identify", "say"})


def _is_question(text: str) -> bool:
    """Whether ``text`` asks something: it ends with "?", or starts with a question word
    or a request ("Tell me …", "Name …")."""
    words = text.split(maxsplit=1)
    first = words[0].lower().strip(",:") if words else ""
    return text.rstrip().endswith("?") or first in QUESTION_WORDS or first in REQUEST_WORDS


def _is_cased(text: str) -> bool:
    return any(c.isupper() for c in text) and any(c.islower() for c in text)


_NEXT_WORD = re.compile(r"\s+([^\W\d_]+)")


def _before_noun(text: str, mention: Mention) -> bool:
    """The mention is directly followed by a content word, as an adjective is by its noun
    ("French king", "jamaican people") — then a nationality word names the country."""
    m = _NEXT_WORD.match(text, mention.end)
    return m is not None and normalize(m.group(1)) not in STOPWORDS


@dataclass(frozen=True, slots=True)
class _NewsCues:
    """What the news conventions of ``linking.news`` say about one mention."""
    state: str | None = None          # it is an address's state part: that state
    place_state: str | None = None    # it is an address's place, in that state
    dateline: bool = False
    team_place: bool = False          # a city here may name its team (if the words around
                                      # are a sports report's: ``news.sports_context``)

    @classmethod
    def read(cls, text: str, mention: Mention) -> _NewsCues:
        s, e = mention.start, mention.end
        state = news.address_state(text, s, e)
        place_state = None if state else news.state_after(text, s, e)
        dateline = news.is_dateline(text, s, e)
        return cls(state, place_state, dateline,
                   not (state or place_state or dateline) and mention.text[:1].isupper())


def _cities_in_sports(text: str, given: list[Mention], pools: list, cues: list[_NewsCues],
                      profiles: dict[str, Profile]) -> dict[int, list[Match]]:
    """mention index → its profiled candidates that are settlements named strongly
    (``STRONG_NAME``), for the mentions whose cue says a team may be meant by its place
    and that stand among words of a sports report."""
    cities: dict[int, list[Match]] = {}
    for i, cue in enumerate(cues):
        if not cue.team_place:
            continue
        found = [m for _, m in pools[i][:PROFILED] if m.score >= STRONG_NAME and
                 news.is_settlement(*_kinds(profiles.get(m.entity, Profile())))]
        if found and news.sports_context(text, given[i].start, given[i].end):
            cities[i] = found
    return cities


def _team_match(team: str, city: Match, label: str, name: Name | None) -> Match:
    """The candidate match of ``team`` met through its ``city``'s mention (metonymy),
    scored from the city's match; ``name`` is the team's popular name (or None)."""
    return Match(team, city.score * METONYMY_MATCH, "variant:metonymy", label, city.term_lang,
                 True, name.prior if name else 0.0, False, False, name.langs if name else 0.0)


def _a_state(p: Profile, country: frozenset[str]) -> bool:
    """A state of the United States, by its types ("state of the United States", not
    Georgia the republic) or, for an entity without types, a statement linking it to the
    country."""
    if p.type_labels:
        return "state" in news.type_words(p.type_labels)
    return bool(p.neighbours & country)


def _kinds(p: Profile) -> tuple[tuple[str, ...], frozenset[str]]:
    return p.type_labels, p.subject_of


def _merge(pools: list, i: int, offers: list[Match], prescored: Any, surface: str) -> None:
    """Adds ``offers`` to mention ``i``'s pool (an entity already there keeps its better
    match), re-sorted by score."""
    have = {m.entity: (s, m) for s, m in pools[i]}
    for m in offers:
        old = have.get(m.entity)
        if old is None or m.score > old[1].score:
            have[m.entity] = (prescored(m, surface)[0], m)
    pool = sorted(have.values(), key=lambda x: (-x[0], id_order(x[1].entity)))
    pools[i] = pool[:POOL]


def _role(p: Profile, cues: dict[str, float]) -> float:
    if not cues:
        return 0.0
    return max((w for pid, w in cues.items() if pid in p.subject_of or pid in p.value_of),
               default=0.0)


def _words(p: Profile, m: Match, own: frozenset[str], context: set[str]) -> float:
    if not context:
        return 0.0
    label_words = name_words(m.term) - own
    shared = len(context & (p.words | label_words))
    return 1.0 - 0.5 ** shared


def _adjacency(profiles: dict[str, Profile]) -> dict[str, set[str]]:
    """For every profiled entity, the other profiled entities a statement joins it to
    (either way): ``GraphContext.edges`` as a lookup by entity."""
    out: dict[str, set[str]] = {}
    for a, p in profiles.items():
        for b in p.neighbours:
            if b in profiles and b != a:
                out.setdefault(a, set()).add(b)
                out.setdefault(b, set()).add(a)
    return out


def _coherence(entity: str, others: list[dict[str, float]],
               adjacent: dict[str, set[str]]) -> float:
    if not others:
        return 0.0
    near = adjacent.get(entity)
    if not near:
        return 0.0
    total = 0.0
    for share in others:
        total += max((s for other, s in share.items() if other in near), default=0.0)
    return total / len(others)


def _describe(name: tuple[str, str | None], p: Profile) -> str:
    """What the embedder compares with the text: label, types, description."""
    label, description = name
    text = f"{label} ({', '.join(p.type_labels[:3])})" if p.type_labels else label
    return f"{text}: {description}" if description else text
