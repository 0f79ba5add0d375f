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

Works over a local mirror (``MirrorKB``, a ``Mirror``, or a mirror path). The first use
of fuzzy matching or context opens the linking sidecar beside the mirror, building it when
missing or stale (``linking.index``; 10–20 s for a 180k-entity mirror).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kb.types import Candidate
from linking.candidates import CandidateGenerator, Match
from linking.context import GraphContext, Profile, text_words
from linking.fuzzy import compact
from linking.index import LinkIndex
from linking.lexicon import STOPWORDS, US_STATES
from linking.mentions import MentionDetector
from linking.properties import PropertyLinker
from linking.ranking import DEFAULT_WEIGHTS, Weights
from linking.types import LinkedMention, LinkResult, Mention
from store.errors import KGGroundError
from store.mirror import Mirror
from store.normalize import normalize
from store.vocab import DESCRIPTION, LABEL

#: candidates kept per mention, best first by name and popularity
POOL = 30
#: of those, how many get context features (the rest keep their name-and-popularity score:
#: on the linking benchmarks context never lifted a candidate from below 5th place to 1st)
PROFILED = 10
#: candidates of a context-only mention that count for coherence
CONTEXT_CANDIDATES = 5
#: detected mentions whose best candidate scores below this are dropped (an exact name of an
#: entity known in few languages and few statements scores about 1.05; on the linking
#: benchmarks end-to-end F1 peaked near this threshold)
MIN_SCORE = 1.25


def open_mirror(source: Any) -> Mirror:
    """The Mirror behind ``source``: a Mirror, anything with a ``.mirror`` (MirrorKB), or a
    path / database URL of a mirror."""
    if isinstance(source, Mirror):
        return source
    mirror = getattr(source, "mirror", None)
    if isinstance(mirror, Mirror):
        return mirror
    if isinstance(source, (str, Path)):
        return Mirror(source)
    raise KGGroundError("entity linking needs a local mirror",
                        expected="a MirrorKB, a store.mirror.Mirror, or a mirror path",
                        got=type(source).__name__,
                        fix="build a mirror of the KB (kgground mirror load FILE) and link "
                            "against it")


class EntityLinker:
    """Links mentions to the entities of one mirror.

    ``fuzzy=False`` turns misspelling tolerance off; ``embeddings`` may be an
    ``linking.embeddings.Embedder`` or True (load all-MiniLM-L6-v2 from the
    ``embeddings`` extra) to add semantic similarity.
    ``index_path`` overrides where the sidecar lives. Thread-safe.
    """

    def __init__(self, source: Any, *, fuzzy: bool = True, embeddings: Any = False,
                 index_path: str | Path | None = None, weights: Weights = DEFAULT_WEIGHTS):
        self.mirror = open_mirror(source)
        self.weights = weights
        self._index_path = index_path
        self._index: LinkIndex | None = None
        self._lock = threading.Lock()
        self.generator = CandidateGenerator(self.mirror, index=lambda: self.index, fuzzy=fuzzy)
        if embeddings is True:
            from linking.embeddings import Embedder
            embeddings = Embedder()
        self.embedder = embeddings or None
        self.detector = MentionDetector(self.mirror, lambda: self.index.fuzzy)
        self.properties = PropertyLinker(self.mirror, roles=lambda ids: self.index.roles(ids),
                                         embedder=self.embedder)
        self.context = GraphContext(self.mirror, lambda ids: self.index.roles(ids))

    @property
    def index(self) -> LinkIndex:
        """The linking sidecar (opened, or built, on first use)."""
        if self._index is None:
            with self._lock:
                if self._index is None:
                    self._index = LinkIndex.for_mirror(self.mirror, path=self._index_path)
        return self._index

    # -- public API ---------------------------------------------------------------------------
    def candidates(self, name: str, *, lang: str = "en", limit: int = 10) -> list[Candidate]:
        """The entities ``name`` may stand for, best first, ranked by name match and
        popularity only (no context). Empty when nothing matches."""
        matches = self.generator.generate(name, lang=lang)
        scored = [(self._prescored(m, name), m) for m in matches.values()]
        scored.sort(key=lambda x: (-x[0][0], id_order(x[1].entity)))
        top = scored[:limit]
        return self._candidates([(s, feats, m) for (s, feats), m in top], lang)

    def closest(self, name: str, *, lang: str = "en", limit: int = 5) -> list[tuple[str, str]]:
        """(ID, label) of entities whose labels or aliases are nearest to ``name`` in
        spelling, for error messages: up to a third of the name's letters may differ."""
        norm = normalize(name)
        if not norm:
            return []
        near = self.index.fuzzy.search(norm, max_distance=max(2, len(compact(norm)) // 3),
                                       limit=limit * 3)
        norms = [n for m in near for n in m.norms][:limit * 3]
        if not norms:
            return []
        rank = {n: i for i, n in enumerate(norms)}
        found: dict[str, int] = {}
        for entity, tnorm, ekind in self.mirror.query(
                f"SELECT t.entity, t.norm, e.kind FROM terms t LEFT JOIN entities e "
                f"ON e.id = t.entity WHERE t.norm IN ({','.join('?' * len(norms))}) "
                "AND t.kind != 1", norms):
            if ekind != "property" and rank[tnorm] < found.get(entity, len(norms)):
                found[entity] = rank[tnorm]
        ids = sorted(found, key=lambda e: (found[e], e))[:limit]
        names = self._names(ids, lang)
        return [(i, names[i][0]) for i in ids]

    def link(self, text: str, *, lang: str = "en", top: int = 5,
             spans: Sequence[tuple[int, int]] | None = None,
             min_score: float = MIN_SCORE) -> LinkResult:
        """Mentions of ``text`` with their candidates (at most ``top`` each).

        Without ``spans`` the mentions are detected, and those whose best candidate scores
        below ``min_score`` are dropped; with ``spans`` every span is returned, in the given
        order, even when nothing matches it."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a string, got {type(text).__name__}")
        if spans is not None:
            given = [Mention(text[s:e], s, e) for s, e in _check_spans(text, spans)]
            extra = self.detector.detect(text, exclude=[(m.start, m.end) for m in given])
        else:
            given, extra = self.detector.detect(text), []
        ranked = self._rank(text, given, extra, lang)
        out = []
        for mention, scored in zip(given, ranked, strict=True):
            cands = self._candidates(scored[:top], lang)
            if spans is None and (not cands or cands[0].score < min_score):
                continue
            out.append(LinkedMention(mention, tuple(cands)))
        return LinkResult(text, lang, tuple(out))

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
        """For each given mention, its candidates' matches with raw features in [0, 1]."""
        pools: list[list[tuple[float, Match]]] = []
        for i, mention in enumerate([*given, *extra]):
            is_given = i < len(given)
            matches = self.generator.generate(mention.text, lang=lang, fuzzy=is_given,
                                              partial=is_given)
            pool = [(self._prescored(m, mention.text)[0], m) for m in matches.values()]
            pool.sort(key=lambda x: (-x[0], id_order(x[1].entity)))
            pools.append(pool[:POOL if is_given else CONTEXT_CANDIDATES])
        if not any(pools[:len(given)]):
            return [[] for _ in given]
        profiles = self.context.profiles(
            {m.entity for pool in pools for _, m in pool[:PROFILED]}, lang=lang)
        edges = GraphContext.edges(profiles)
        shares = [{m.entity: s / pool[0][0] for s, m in pool[:PROFILED]}
                  if pool and pool[0][0] > 0 else {} for pool in pools]
        all_words = text_words(normalize(text))
        semantic = self._semantic(text, pools[:len(given)], profiles)
        cased_text = _is_cased(text)
        out = []
        for i, mention in enumerate(given):
            own = text_words(normalize(mention.text))
            context = all_words - own
            cues = self.properties.cue_properties(context)
            others = [shares[j] for j in range(len(pools)) if j != i and shares[j]]
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
        return frozenset(e for (e,) in self.mirror.query(
            f"SELECT DISTINCT entity FROM terms WHERE norm = ? AND kind != {DESCRIPTION}",
            (norm,)))

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
        found: dict[str, dict[int, dict[str, str]]] = {}
        for start in range(0, len(ids), 900):
            chunk = ids[start:start + 900]
            for eid, kind, tlang, ttext in self.mirror.query(
                    f"SELECT entity, kind, lang, text FROM terms WHERE entity IN "
                    f"({','.join('?' * len(chunk))}) AND kind IN ({LABEL}, {DESCRIPTION})",
                    chunk):
                found.setdefault(eid, {}).setdefault(kind, {}).setdefault(tlang, ttext)

        def pick(texts: dict[str, str]) -> str | None:
            for key in (lang, lang.split("-")[0], "en", "mul"):
                if key in texts:
                    return texts[key]
            return next(iter(texts.values()), None)

        return {i: (pick(found.get(i, {}).get(LABEL, {})) or i,
                    pick(found.get(i, {}).get(DESCRIPTION, {}))) for i in ids}

    def _candidates(self, scored: list[tuple[float, dict[str, float], Match]],
                    lang: str) -> list[Candidate]:
        names = self._names([m.entity for *_, m in scored], lang) if scored else {}
        return [Candidate(m.entity, names[m.entity][0], score, m.prior, m.term, m.how,
                          m.term_lang, names[m.entity][1], feats)
                for score, feats, m in scored]

    def close(self) -> None:
        if self._index is not None:
            self._index.close()


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
