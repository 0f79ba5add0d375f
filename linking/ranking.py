"""How a candidate's features add up to its score.

    score = match + 0.25·prior + 0.45·langs + 0.05·cased − 0.05·case_clash
            + 0.3·adjectival + 0.3·address + 0.5·located + 0.3·dateline + 0.7·metonymy
            − 0.1·longer_name + 0.1·role + 0.1·words + 0.15·coherence
            (+ 0.3·semantic, with embeddings)

``match`` (how well the name fits, in (0, 1]) dominates: a candidate reached only through a
variant, a partial name or a misspelling needs popularity and context to beat an exact
one. Popularity is ``prior`` (sitelinks, else statement count) and ``langs`` (the share of
the mirror's languages the entity has names in — the better signal on N-Triples slices —
or, for an entity without aliases, what is usual at its degree: ``linking.index``);
``cased`` rewards a term written exactly as the mention, ``case_clash`` punishes a lower-case
mention in well-cased text matched only to capitalized names; ``adjectival`` favours the
country for a nationality word used before a noun ("French king"), and ``address`` the US
state a postal code names after "Place," ("Tampa, FL"), ``located`` a place in the state
that follows it ("Portland, Ore."); ``dateline`` the city of a story's dateline ("WASHINGTON
(AP) —"); ``metonymy`` a team offered for its city's name in a sports report ("Boston
beat New York"); ``longer_name`` marks a person's name matched only as an alias of a
longer label ("John Adams" for John Quincy Adams) — see ``linking.news``. The context features
``role``, ``words`` and ``coherence`` are described in ``linking.context``; ``semantic`` in
``linking.embeddings``. All features are in [0, 1].

A candidate's ``features`` hold the weighted contributions, so they sum to its score and
explanations can name the features that decided. The weights were set by hand and by a
small coordinate search on the linking benchmarks of ``bench/bench_linking.py`` (see
bench/HISTORY.md); they are plain numbers, not a trained model, and ``Weights`` lets callers
set their own.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Weights:
    """Weight of each feature in a candidate's score (``match`` counts fully)."""
    match: float = 1.0
    prior: float = 0.25
    langs: float = 0.45
    cased: float = 0.05
    case_clash: float = -0.05
    adjectival: float = 0.3
    address: float = 0.3
    located: float = 0.5
    dateline: float = 0.3
    metonymy: float = 0.7
    longer_name: float = -0.1
    role: float = 0.1
    words: float = 0.1
    coherence: float = 0.15
    semantic: float = 0.3

    def contributions(self, raw: dict[str, float]) -> dict[str, float]:
        """Weighted features (only those present in ``raw``)."""
        return {k: getattr(self, k) * v for k, v in raw.items()}



DEFAULT_WEIGHTS = Weights()
