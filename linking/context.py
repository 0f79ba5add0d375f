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

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from linking.lexicon import STOPWORDS, stem
from store.mirror import Mirror
from store.vocab import LABEL

TYPE_PROPERTIES = ("P31", "P279")
#: at most this many neighbours per candidate count for coherence
MAX_NEIGHBOURS = 200


@dataclass
class Profile:
    """What the mirror says around one entity."""
    types: set[str] = field(default_factory=set)
    neighbours: list[str] = field(default_factory=list)
    subject_of: frozenset[str] = frozenset()
    value_of: frozenset[str] = frozenset()
    words: set[str] = field(default_factory=set)
    type_labels: list[str] = field(default_factory=list)


def text_words(norm: str) -> set[str]:
    """Stemmed content words of a normalized text."""
    return {stem(w) for w in norm.split() if w not in STOPWORDS and len(w) > 1}


class GraphContext:
    """Builds candidate profiles from one mirror. ``roles`` is ``LinkIndex.roles``."""

    def __init__(self, mirror: Mirror, roles: Callable[[Iterable[str]], dict]):
        self.mirror = mirror
        self._roles = roles

    def profiles(self, ids: Iterable[str], *, lang: str = "en") -> dict[str, Profile]:
        """A profile for every ID (empty for entities in no statement)."""
        ids = list(dict.fromkeys(ids))
        out = {i: Profile() for i in ids}
        if not ids:
            return out
        for entity, (subject_of, value_of) in self._roles(ids).items():
            out[entity].subject_of, out[entity].value_of = subject_of, value_of
        marks = ",".join("?" * len(ids))
        for subject, prop, value in self.mirror.query(
                f"SELECT subject, property, value FROM statements WHERE subject IN ({marks}) "
                "AND value_kind = 'entity' AND rank > 0", ids):
            p = out[subject]
            if prop in TYPE_PROPERTIES:
                p.types.add(value)
            if len(p.neighbours) < MAX_NEIGHBOURS:
                p.neighbours.append(value)
        named = sorted({t for p in out.values() for t in p.types})
        labels: dict[str, set[str]] = {}
        texts: dict[str, str] = {}
        for start in range(0, len(named), 900):
            chunk = named[start:start + 900]
            for entity, text, norm in self.mirror.query(
                    f"SELECT entity, text, norm FROM terms WHERE entity IN "
                    f"({','.join('?' * len(chunk))}) AND kind = {LABEL} AND lang IN (?, 'en')",
                    [*chunk, lang]):
                labels.setdefault(entity, set()).update(text_words(norm or ""))
                texts.setdefault(entity, text)
        for p in out.values():
            for t in sorted(p.types):
                p.words |= labels.get(t, set())
                if t in texts:
                    p.type_labels.append(texts[t])
        return out

    @staticmethod
    def edges(profiles: dict[str, Profile]) -> set[tuple[str, str]]:
        """Unordered pairs of profiled entities joined by a statement (either way)."""
        out = set()
        for a, p in profiles.items():
            for b in p.neighbours:
                if b in profiles and b != a:
                    out.add((a, b))
                    out.add((b, a))
        return out
