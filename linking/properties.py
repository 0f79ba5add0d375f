"""Property linking: a relation phrase ("born in", "house publication") → property IDs.

Every property the mirror defines is scored against the phrase by its labels and aliases
(every language the mirror holds; the asked language and English preferred) and, more
weakly, by the words of its description:

``exact``     the normalized phrase equals a label (1.0) or alias (0.95)
``fuzzy``     rapidfuzz similarity of phrase and name, as written or with words sorted,
              scaled to at most 0.85 so that any exact name wins
``words``     content words (stopwords dropped, crudely stemmed) shared with a name,
              by Jaccard overlap (at most 0.75)
``description`` the phrase's content words found in the description (at most 0.5)
``semantic``  with an embedder (``linking.embeddings``): cosine similarity of the phrase
              and the property's label and description, scaled to at most 0.8

Usage in the mirror (how many statements use the property) adds a small prior. Given a
``subject`` (and optionally a ``value``), candidates are restricted to the properties the
subject actually has — as subject, or as value (``inverse`` in the features) — when the best
of those fits the phrase nearly as well as the best of all (``RESTRICT_MARGIN``); otherwise
the unrestricted list is returned, the subject's own properties first among equals, with
``restricted`` = 0 in every candidate's features, so callers can tell.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterable
from typing import Any

import numpy as np

from rapidfuzz import fuzz, process

from kb.linking import LinkingKB, PropertyNames
from kb.types import Candidate
from linking.lexicon import STOPWORDS, content_words, stem
from store.normalize import normalize

EXACT_LABEL, EXACT_ALIAS, OTHER_LANGUAGE = 1.0, 0.95, 0.97
FUZZY_MAX, NAME_WORDS_MAX, WORDS_MAX, PRIOR_WEIGHT = 0.85, 0.75, 0.5, 0.1
#: bonus for a property the subject has, as subject / only as value
HAS_BONUS, INVERSE_BONUS = 0.15, 0.05
#: with embeddings: a property scores SEMANTIC_MAX × cosine similarity when that is at
#: least SEMANTIC_MIN
SEMANTIC_MAX, SEMANTIC_MIN = 0.8, 0.4
#: restrict to the subject's properties when the best of them names the phrase at most
#: this much worse than the best of all properties
RESTRICT_MARGIN = 0.1
#: a fuzzy similarity (0–100) below this is no match
FUZZY_CUTOFF = 70


LABEL, ALIAS = 0, 2


def _sorted_words(norm: str) -> str:
    return " ".join(sorted(norm.split()))


class PropertyLinker:
    """Links relation phrases to the properties one KB defines or uses (its
    ``kb.linking.LinkingKB``)."""

    def __init__(self, source: LinkingKB, *, embedder: Any = None):
        self.source = source
        self.embedder = embedder
        self._prop_vectors: tuple[list[str], Any] | None = None
        self._lock = threading.Lock()
        self._props: dict[str, PropertyNames] | None = None
        self._names: list[tuple[str, str, str, int]] = []     # (norm, pid, lang, kind)
        self._name_norms: list[str] = []
        self._name_sorted: list[str] = []                    # words in alphabetical order
        self._name_words: list[frozenset[str]] = []          # stemmed content words
        self._name_index: dict[str, list[int]] = {}          # content word → name numbers
        self._exact: dict[str, list[tuple[str, str, int]]] = {}
        self._desc_index: dict[str, set[str]] = {}           # description word → pids
        self._cue_words: dict[str, frozenset[str]] = {}
        self._max_usage = 0.0

    # -- loading ------------------------------------------------------------------------------
    def _load(self) -> dict[str, PropertyNames]:
        with self._lock:
            if self._props is not None:
                return self._props
            props = {p.id: p for p in self.source.properties()}
            for pid, p in props.items():
                for text in p.descriptions.values():
                    for w in {stem(w) for w in content_words(normalize(text))}:
                        self._desc_index.setdefault(w, set()).add(pid)
                terms = [(LABEL, lang, t) for lang, t in p.labels.items()]
                terms += [(ALIAS, lang, t) for lang, ts in p.aliases.items() for t in ts]
                for kind, lang, text in terms:
                    norm = normalize(text)
                    if norm:
                        self._names.append((norm, pid, lang, kind))
                        self._exact.setdefault(norm, []).append((pid, lang, kind))
            self._max_usage = math.log1p(max((p.usage for p in props.values()), default=0))
            self._name_norms = [n for n, *_ in self._names]
            self._name_sorted = [_sorted_words(n) for n in self._name_norms]
            self._name_words = [frozenset(stem(w) for w in content_words(n))
                                for n in self._name_norms]
            for i, words in enumerate(self._name_words):
                for w in words:
                    self._name_index.setdefault(w, []).append(i)
            cues: dict[str, set[str]] = {}
            for norm, pid, _lang, _kind in self._names:
                if props[pid].usage:
                    for w in content_words(norm):
                        cues.setdefault(stem(w), set()).add(pid)
            self._cue_words = {w: frozenset(p) for w, p in cues.items()}
            self._props = props
            return props

    def prior(self, pid: str) -> float:
        p = self._load().get(pid)
        if p is None or not p.usage or not self._max_usage:
            return 0.0
        return math.log1p(p.usage) / self._max_usage

    def roles(self, entities: Iterable[str]) -> dict[str, tuple[frozenset[str], frozenset[str]]]:
        """entity → (properties it has as subject, properties it is the value of);
        entities in no statement are left out."""
        return {e: (p.subject_of, p.value_of)
                for e, p in self.source.profiles(list(dict.fromkeys(entities))).items()
                if p.subject_of or p.value_of}

    # -- cues for entity ranking -----------------------------------------------------------
    def cue_properties(self, words: Iterable[str]) -> dict[str, float]:
        """Properties that the (normalized) context ``words`` name, with a weight in (0, 1]
        that falls as a word names more properties ("born" → P19 weighs more than
        "location" → 40 properties). Used to check whether a candidate fits the question."""
        self._load()
        out: dict[str, float] = {}
        for w in words:
            pids = self._cue_words.get(stem(w))
            if not pids or w in STOPWORDS:
                continue
            weight = 1.0 / math.sqrt(len(pids))
            for pid in pids:
                if weight > out.get(pid, 0.0):
                    out[pid] = weight
        return out

    # -- linking ----------------------------------------------------------------------------
    def link(self, phrase: str, *, subject: str | None = None, value: str | None = None,
             lang: str = "en", limit: int = 5) -> list[Candidate]:
        """Properties ``phrase`` may name, best first (at most ``limit``). With ``subject``
        (and ``value``), only properties that link them, when any fits; with only
        ``value``, only properties it is the value of."""
        props = self._load()
        norm = normalize(phrase)
        if not norm or limit < 1:
            return []
        scored: dict[str, tuple[float, str, str, str]] = {}   # pid → (score, how, name, lang)

        def offer(pid: str, score: float, how: str, name: str, tlang: str) -> None:
            if score > scored.get(pid, (0.0,))[0]:
                scored[pid] = (score, how, name, tlang)

        for pid, tlang, kind in self._exact.get(norm, ()):
            base = EXACT_LABEL if kind == LABEL else EXACT_ALIAS
            offer(pid, base * (1.0 if tlang in (lang, "en") else OTHER_LANGUAGE), "exact",
                  norm, tlang)
        for query, choices in ((norm, self._name_norms),
                               (_sorted_words(norm), self._name_sorted)):
            for _, sim, i in process.extract(query, choices, scorer=fuzz.ratio,
                                             score_cutoff=FUZZY_CUTOFF, limit=60):
                name, pid, tlang, _kind = self._names[i]
                offer(pid, FUZZY_MAX * sim / 100.0, "fuzzy", name, tlang)
        words = {stem(w) for w in content_words(norm)}
        overlap: dict[int, int] = {}
        for w in words:
            for i in self._name_index.get(w, ()):
                overlap[i] = overlap.get(i, 0) + 1
        for i, n in overlap.items():
            name, pid, tlang, _kind = self._names[i]
            union = len(words | self._name_words[i])
            offer(pid, NAME_WORDS_MAX * n / union, "words", name, tlang)
        shared: dict[str, int] = {}
        for w in words:
            for pid in self._desc_index.get(w, ()):
                shared[pid] = shared.get(pid, 0) + 1
        for pid, n in shared.items():
            offer(pid, WORDS_MAX * n / len(words), "description",
                  props[pid].description("en") or "", "en")
        if self.embedder is not None:
            for pid, sim in self._semantic(phrase):
                offer(pid, SEMANTIC_MAX * sim, "semantic", props[pid].label(lang), lang)

        has: dict[str, str] = {}
        restricted = 0.0
        anchor = subject if subject is not None else value
        if anchor is not None:
            out_props, in_props = self.roles([anchor]).get(anchor, (frozenset(), frozenset()))
            if subject is None:              # only the value is known: it is the value of…
                out_props, in_props = in_props, frozenset()
            elif value is not None:
                out_props = out_props & self._linking(subject, value)
            has = {p: "subject" for p in out_props}
            for p in in_props:
                has.setdefault(p, "inverse")     # the subject is the value: an inverse use
            best_all = max((s[0] for s in scored.values()), default=0.0)
            best_has = max((s[0] for pid, s in scored.items() if pid in has), default=0.0)
            if best_has and best_has >= best_all - RESTRICT_MARGIN:
                restricted = 1.0
                scored = {pid: s for pid, s in scored.items() if pid in has}

        out = []
        for pid, (score, how, name, tlang) in scored.items():
            prior = self.prior(pid)
            feats = {"name": score, "prior": PRIOR_WEIGHT * prior}
            if anchor is not None:
                feats["restricted"] = restricted
                feats["subject_has"] = (HAS_BONUS if has.get(pid) == "subject" else
                                        INVERSE_BONUS if pid in has else 0.0)
                feats["inverse"] = 1.0 if has.get(pid) == "inverse" else 0.0
            total = score + feats["prior"] + feats.get("subject_has", 0.0)
            p = props[pid]
            out.append(Candidate(pid, p.label(lang), total, prior, name, how, tlang,
                                 p.description(lang), feats))
        out.sort(key=lambda c: (-c.score, c.id))
        return out[:limit]

    def _semantic(self, phrase: str) -> list[tuple[str, float]]:
        """(PID, cosine similarity) of properties whose label and description are close in
        meaning to ``phrase`` (similarity at least ``SEMANTIC_MIN``)."""
        if self._prop_vectors is None:
            props = self._load()
            pids = sorted(p for p, prop in props.items() if prop.labels)
            docs = [_describe(props[p]) for p in pids]
            self._prop_vectors = (pids, self.embedder.encode(docs))
        pids, vectors = self._prop_vectors
        query = self.embedder.encode([phrase])[0]
        sims = vectors @ query
        return [(pids[i], float(sims[i])) for i in np.argsort(-sims)[:20]
                if sims[i] >= SEMANTIC_MIN]

    def closest(self, phrase: str, *, lang: str = "en", limit: int = 5) -> list[tuple[str, str]]:
        """(PID, label) of the properties whose names are nearest to ``phrase``, for error
        messages; no cutoff."""
        props = self._load()
        out: dict[str, str] = {}
        for _, _, i in process.extract(normalize(phrase), self._name_norms, scorer=fuzz.WRatio,
                                       limit=4 * limit):
            pid = self._names[i][1]
            if pid not in out:
                out[pid] = props[pid].label(lang)
        return list(out.items())[:limit]

    def _linking(self, subject: str, value: str) -> frozenset[str]:
        return self.source.connecting(subject, value)

    def labels(self, lang: str = "en") -> dict[str, str]:
        """Every property's label in ``lang`` (English, else any, as fallback)."""
        return {pid: p.label(lang) for pid, p in self._load().items()}


def _describe(p: PropertyNames) -> str:
    label, description = p.label("en"), p.description("en")
    return f"{label}: {description}" if description else label
