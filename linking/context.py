"""Context features: does a candidate fit the text around its mention?

For all candidates of all mentions of one text at once (a handful of queries):

``role``       the text names a relation ("born", "capital", "plays for" — found through
               property labels and aliases, ``PropertyLinker.cue_properties``) that the
               candidate takes part in, as subject or as value: "born in Texas" prefers
               the Texas that is some person's P19 over the university called "Texas"
``words``      words of the text (outside the mention) among the candidate's *profile*:
               its label's other words and the labels of its types (P31/P279):
               1 − 0.5^shared ("the band Nirvana" prefers the band)
``coherence``  the candidate is linked by a statement to a likely candidate of another
               mention in the same text (the share of other mentions it connects to,
               each weighted by how likely that candidate is for its mention)

Every feature is in [0, 1]; ``linking.ranking`` weighs them.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass, field

from kb.linking import LinkingKB
from linking.lexicon import STOPWORDS, stem
from store.normalize import normalize


@dataclass
class Profile:
    """What the KB says around one entity."""
    types: frozenset[str] = frozenset()
    neighbours: frozenset[str] = frozenset()
    subject_of: frozenset[str] = frozenset()
    value_of: frozenset[str] = frozenset()
    words: set[str] = field(default_factory=set)
    type_labels: tuple[str, ...] = ()


def text_words(norm: str) -> set[str]:
    """Stemmed content words of a normalized text."""
    return {stem(w) for w in norm.split() if w not in STOPWORDS and len(w) > 1}


@functools.lru_cache(maxsize=1 << 14)
def name_words(text: str) -> frozenset[str]:
    """``text_words(normalize(text))``, remembered: the words of a text and the names of
    candidates and types recur across mentions and texts."""
    return frozenset(text_words(normalize(text)))


class GraphContext:
    """Builds candidate profiles from one KB's ``LinkingKB.profiles``."""

    def __init__(self, source: LinkingKB):
        self.source = source

    def profiles(self, ids: Iterable[str], *, lang: str = "en") -> dict[str, Profile]:
        """A profile for every ID (empty for entities in no statement)."""
        ids = list(dict.fromkeys(ids))
        if not ids:
            return {}
        out = {}
        for i, p in self.source.profiles(ids, lang=lang).items():
            words: set[str] = set()
            for label in p.type_labels:
                words |= name_words(label)
            out[i] = Profile(p.types, p.neighbours, p.subject_of, p.value_of, words,
                             p.type_labels)
        for i in ids:
            out.setdefault(i, Profile())
        return out

    @staticmethod
    def edges(profiles: dict[str, Profile]) -> set[tuple[str, str]]:
        """Ordered pairs (both ways) of profiled entities joined by a statement."""
        out = set()
        for a, p in profiles.items():
            for b in p.neighbours:
                if b in profiles and b != a:
                    out.add((a, b))
                    out.add((b, a))
        return out
