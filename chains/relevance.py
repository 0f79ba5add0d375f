"""How well a property fits what the question asks, in [0, 1], through linking's
PropertyLinker.

The relation phrase of a chain is the question without the mention of the entity the
chain starts from ("What field does Martin Gilbert work in?" → "What field does work
in?"); other mentions stay, since they may carry the relation. For the first step the
phrase is linked with the start entity as subject (``PropertyLinker`` then prefers the
properties that entity has); deeper steps use the phrase linked without a subject, so a
two-hop question ("Where was the founder of Delta born?") can credit both properties.
"""

from __future__ import annotations

from kb.contracts import MentionLinker

#: properties asked of the PropertyLinker per phrase
PROPERTY_CANDIDATES = 20


def relation_phrase(question: str, *spans: tuple[int | None, int | None]) -> str:
    """``question`` without the given [start, end) spans (the mentions of the entities a
    chain connects); spans with a None end are ignored."""
    cut = sorted((s, e) for s, e in spans if s is not None and e is not None)
    out, at = [], 0
    for s, e in cut:
        out.append(question[at:max(at, s)])
        at = max(at, e)
    out.append(question[at:])
    return " ".join(part.strip() for part in out if part.strip())


class Relevance:
    """Property relevance for the chains of one question. ``linker`` is anything with a
    ``properties.link(phrase, subject=..., lang=..., limit=...)`` returning Candidates
    (linking's EntityLinker); without one, or without a question, every property is 0."""

    def __init__(self, linker: MentionLinker | None, question: str | None, *,
                 lang: str = "en"):
        self.properties = getattr(linker, "properties", None) if question else None
        self.question = question or ""
        self.lang = lang
        self._cache: dict[tuple[str, str | None], dict[str, float]] = {}

    def scores(self, phrase: str, subject: str | None = None) -> dict[str, float]:
        """PID → relevance in [0, 1] for ``phrase`` (and ``subject``, if given)."""
        key = (phrase, subject)
        found = self._cache.get(key)
        if found is None:
            found = {}
            if self.properties is not None and phrase.strip():
                for c in self.properties.link(phrase, subject=subject, lang=self.lang,
                                              limit=PROPERTY_CANDIDATES):
                    # a chain of two hops needs both of its properties to fit: the fit of
                    # each on its own where the linker reports it (its score picks one)
                    fit = c.features.get("fit")
                    value = c.score if fit is None else fit + c.features.get("subject_has",
                                                                             0.0)
                    found[c.id] = max(found.get(c.id, 0.0), min(1.0, float(value)))
            self._cache[key] = found
        return found

    def of(self, pid: str, phrase: str, subject: str | None) -> float:
        """The relevance of ``pid``: the better of the phrase linked with ``subject`` (for a
        chain's first step) and without it."""
        best = self.scores(phrase).get(pid, 0.0)
        if subject is not None:
            best = max(best, self.scores(phrase, subject).get(pid, 0.0))
        return best
