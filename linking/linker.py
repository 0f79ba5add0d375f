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
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kb.linking import LinkingKB, linking_view
from kb.types import Candidate
from linking.calibration import Calibration, candidate_features, default_calibration
from linking.candidates import CandidateGenerator, Match
from linking.context import GraphContext, Profile, text_words
from linking.lexicon import STOPWORDS, US_STATES
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


def open_source(source: Any, **options: Any) -> tuple[Any, LinkingKB]:
    """(the KnowledgeBase, its LinkingKB) for ``source``: a KnowledgeBase, a ``Mirror``, a
    path or URL ``kb.open`` understands (mirror, RDF file, endpoint), or a LinkingKB."""
    import kb as kb_package

    if isinstance(source, Mirror):
        from kb.mirror import MirrorKB
        source = MirrorKB(mirror=source)
    elif isinstance(source, (str, Path)):
        source = kb_package.open(source)
    if isinstance(source, LinkingKB) and not callable(getattr(source, "search", None)):
        return getattr(source, "kb", None), source
    return source, linking_view(source, **options)


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

    def __init__(self, source: Any, *, fuzzy: bool = True, embeddings: Any = None,
                 index_path: str | Path | None = None, weights: Weights = DEFAULT_WEIGHTS,
                 progress: Any = None, calibration: Calibration | None = None):
        options = {k: v for k, v in (("index_path", index_path), ("progress", progress))
                   if v is not None}
        self.kb, self.source = open_source(source, **options)
        self.name = self.source.name
        self.weights = weights
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
        index = getattr(self.source, "index", None)
        if index is None:
            raise KGGroundError(f"{self.name} has no linking sidecar",
                                expected="a mirror (MirrorKB or FallbackKB)")
        return index

    @property
    def mirror(self) -> Mirror | None:
        """The mirror behind the KB, if there is one (layers above kb should not need it)."""
        kb = getattr(self.kb, "local", self.kb)
        return getattr(kb, "mirror", None)

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
        nearest = getattr(self.source, "nearest", None)
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
        if spans is not None:
            given = [Mention(text[s:e], s, e) for s, e in _check_spans(text, spans)]
            extra = self.detector.detect(text, exclude=[(m.start, m.end) for m in given])
        else:
            given, extra = self.detector.detect(text), []
        ranked = self._rank(text, given, extra, lang)
        names = self._names(list({m.entity for scored in ranked for *_, m in scored[:top]}),
                            lang)                 # one lookup for the whole text
        out = []
        for mention, scored in zip(given, ranked, strict=True):
            confidences, nil = self._confidences(scored, mention.text, detected=spans is None)
            cands = self._candidates(scored[:top], lang, confidences, names)
            if spans is None and (not cands or cands[0].confidence < min_confidence or (
                    min_score is not None and cands[0].score < min_score)):
                continue
            out.append(LinkedMention(mention, tuple(cands), nil))
        return LinkResult(text, lang, tuple(out))

    def feature_rows(self, text: str, *, lang: str = "en",
                     spans: Sequence[tuple[int, int]] | None = None
                     ) -> list[tuple[Mention, list[tuple[str, dict[str, float]]]]]:
        """For each mention (detected, or the given ``spans``), its candidates' IDs with the
        inputs of the confidence model — what ``bench/fit_calibration.py`` fits on."""
        if spans is not None:
            given = [Mention(text[s:e], s, e) for s, e in _check_spans(text, spans)]
            extra = self.detector.detect(text, exclude=[(m.start, m.end) for m in given])
        else:
            given, extra = self.detector.detect(text), []
        out = []
        for mention, scored in zip(given, self._rank(text, given, extra, lang), strict=True):
            rows = self._rows(scored, mention.text, detected=spans is None)
            out.append((mention, [(m.entity, r) for (_, _, m), r in zip(scored, rows)]))
        return out

    def _rows(self, scored: list[tuple[float, dict[str, float], Match]], surface: str,
              *, detected: bool) -> list[dict[str, float]]:
        scores = [s for s, _, _ in scored]
        rows = []
        for rank, (score, feats, m) in enumerate(scored):
            raw = {k: v / w for k, v in feats.items()
                   if (w := getattr(self.weights, k, 0.0))}
            rows.append(candidate_features(raw, score=score, scores=scores, rank=rank,
                                           how=m.how, is_label=m.is_label,
                                           detected=detected, mention=surface))
        return rows

    def _confidences(self, scored: list[tuple[float, dict[str, float], Match]], surface: str,
                     *, detected: bool) -> tuple[list[float], float]:
        """Calibrated confidence of each ranked candidate, and the mention's nil."""
        if not scored:
            return [], 1.0
        return self.calibration.confidences(self._rows(scored, surface, detected=detected))

    # -- ranking ------------------------------------------------------------------------------
    def _prescored(self, m: Match, surface: str = "") -> tuple[float, dict[str, float]]:
        feats = self.weights.contributions(_base_features(m, surface))
        return sum(feats.values()), feats

    def _rank(self, text: str, given: list[Mention], extra: list[Mention],
              lang: str) -> list[list[tuple[float, dict[str, float], Match]]]:
        """For each given mention, (score, features, match) of its candidates, best first."""
        out = []
        for pool in self._features(text, given, extra, lang):
            scored = []
            for m, raw in pool:
                feats = self.weights.contributions(raw)
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
        pools: list[list[tuple[float, Match]]] = []
        looked_up: dict[tuple[str, bool], list[tuple[float, Match]]] = {}
        names = (self.generator.prefetch(list({m.text for m in everyone}))
                 if len(everyone) > 1 else None)
        for i, mention in enumerate(everyone):
            is_given = i < len(given)
            pool = looked_up.get((mention.text, is_given))
            if pool is None:
                matches = self.generator.generate(mention.text, lang=lang, fuzzy=is_given,
                                                  partial=is_given, names=names)
                pool = [(self._prescored(m, mention.text)[0], m) for m in matches.values()]
                pool.sort(key=lambda x: (-x[0], id_order(x[1].entity)))
                pool = looked_up[(mention.text, is_given)] = pool[
                    :POOL if is_given else CONTEXT_CANDIDATES]
            pools.append(list(pool))
        _corefer(everyone, pools, len(given), self._prescored)
        if not any(pools[:len(given)]):
            return [[] for _ in given]
        profiles = self.context.profiles(
            {m.entity for pool in pools for _, m in pool[:PROFILED]}, lang=lang)
        edges = GraphContext.edges(profiles)
        shares = [{m.entity: s / pool[0][0] for s, m in pool[:PROFILED]}
                  if pool and pool[0][0] > 0 else {} for pool in pools]
        order = sorted(range(len(everyone)), key=lambda k: everyone[k].start)
        place = {k: n for n, k in enumerate(order)}
        windows = _Windows(text)
        semantic = self._semantic(text, pools[:len(given)], profiles)
        cased_text = _is_cased(text)
        out = []
        for i, mention in enumerate(given):
            own = text_words(normalize(mention.text))
            context = windows.words(mention.start - CONTEXT_CHARS,
                                    mention.end + CONTEXT_CHARS) - own
            cues = self.properties.cue_properties(context)
            n = place[i]
            near = order[max(0, n - COHERENCE_MENTIONS):n + COHERENCE_MENTIONS + 1]
            others = [shares[j] for j in near if j != i and shares[j]]
            adjectival = _before_noun(text, mention)
            lowered = cased_text and mention.text == mention.text.lower()
            state = _address_state(text, mention)
            states = self._named(state) if state else frozenset()
            feats = []
            for rank, (_, m) in enumerate(pools[i]):
                raw = _base_features(m, mention.text)
                if rank < PROFILED:
                    p = profiles.get(m.entity, Profile())
                    raw.update(role=_role(p, cues), words=_words(p, m, own, context),
                               coherence=_coherence(m.entity, others, edges))
                if adjectival and m.how == "variant:demonym":
                    raw["adjectival"] = 1.0
                if m.entity in states:
                    raw["address"] = 1.0
                if lowered and not m.lower:
                    raw["case_clash"] = 1.0
                if semantic is not None:
                    raw["semantic"] = semantic.get(m.entity, 0.0)
                feats.append((m, raw))
            out.append(feats)
        return out

    def _named(self, norm: str) -> frozenset[str]:
        """The entities with ``norm`` as a normalized label or alias."""
        return frozenset(n.entity for n in self.source.names([norm]))

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
        close = getattr(self.source, "close", None)
        if close is not None:
            close()


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


class _Windows:
    """The content words of any stretch of a text, from one pass over it."""

    _WORD = re.compile(r"\w+")

    def __init__(self, text: str):
        self.starts: list[int] = []
        self.forms: list[set[str]] = []
        for m in self._WORD.finditer(text):
            self.starts.append(m.start())
            self.forms.append(text_words(normalize(m.group())))

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
            m = Match(best.entity, COREFERENCE_MATCH, "variant:coreference",
                      mentions[j].text, best.term_lang, best.is_label, best.prior, True,
                      False, best.langs)
            pool = [(s, old) for s, old in pools[i] if old.entity != best.entity]
            pool.append((prescored(m, text)[0], m))
            pool.sort(key=lambda x: (-x[0], id_order(x[1].entity)))
            pools[i] = pool[:POOL]


def _is_cased(text: str) -> bool:
    return any(c.isupper() for c in text) and any(c.islower() for c in text)


_NEXT_WORD = re.compile(r"\s+([^\W\d_]+)")


def _before_noun(text: str, mention: Mention) -> bool:
    """The mention is directly followed by a content word, as an adjective is by its noun
    ("French king", "jamaican people") — then a nationality word names the country."""
    m = _NEXT_WORD.match(text, mention.end)
    return bool(m) and normalize(m.group(1)) not in STOPWORDS


_PLACE_COMMA = re.compile(r"(\w+)[.]?\s*,\s*$")


def _address_state(text: str, mention: Mention) -> str | None:
    """The US state (normalized name) that a postal code names in address notation: a
    two-letter code in capitals right after a capitalized place and a comma ("Tampa, FL",
    "Big Bear Lake , CA") — there "CA" is California, not Canada."""
    code = mention.text
    if len(code) != 2 or not code.isupper() or code.lower() not in US_STATES:
        return None
    before = _PLACE_COMMA.search(text, max(0, mention.start - 60), mention.start)
    return US_STATES[code.lower()] if before and before.group(1)[0].isupper() else None


def _role(p: Profile, cues: dict[str, float]) -> float:
    if not cues:
        return 0.0
    return max((w for pid, w in cues.items() if pid in p.subject_of or pid in p.value_of),
               default=0.0)


def _words(p: Profile, m: Match, own: set[str], context: set[str]) -> float:
    if not context:
        return 0.0
    label_words = text_words(normalize(m.term)) - own
    shared = len(context & (p.words | label_words))
    return 1.0 - 0.5 ** shared


def _coherence(entity: str, others: list[dict[str, float]],
               edges: set[tuple[str, str]]) -> float:
    if not others:
        return 0.0
    total = 0.0
    for share in others:
        total += max((s for other, s in share.items() if (entity, other) in edges),
                     default=0.0)
    return total / len(others)


def _describe(name: tuple[str, str | None], p: Profile) -> str:
    """What the embedder compares with the text: label, types, description."""
    label, description = name
    text = f"{label} ({', '.join(p.type_labels[:3])})" if p.type_labels else label
    return f"{text}: {description}" if description else text
