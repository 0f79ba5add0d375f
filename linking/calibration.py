"""Calibrated confidence: the probability that a candidate is the entity its mention names.

A candidate's score orders the candidates of one mention; it says little about whether the
winner is right (an exact name of a rare entity scores below a partial name of a famous
one). ``Calibration`` turns what is known about a candidate — its features, its rank and
lead over the others, how it matched, what the mention looks like — into a probability
with a logistic model fitted on dev data (``bench/fit_calibration.py``, scikit-learn;
its coefficients ship in ``calibration.json``, so nothing is fitted or imported at run
time). Of a mention, ``nil`` is the probability that none of its candidates is right
(it is no mention of a KB entity, or the entity is not among them):

    confidences ← the model's probabilities, scaled down to sum to at most 1
    nil         = 1 − sum(confidences)

Callers threshold on confidence; nothing is dropped here.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

#: how a candidate matched, one-hot (``Match.how`` prefixes)
HOW = ("exact", "variant", "spacing", "qualified", "partial", "fuzzy")
#: raw features (each in [0, 1]) the model reads, as ``linking.ranking`` names them
RAW = ("match", "prior", "langs", "cased", "case_clash", "adjectival", "address", "role",
       "words", "coherence")
FEATURES = (*RAW, "score", "lead", "gap", "top", "candidates", *(f"how_{h}" for h in HOW),
            "label", "detected", "lower", "words_in_mention", "lowered", "common", "asked")
DEFAULT_PATH = Path(__file__).with_name("calibration.json")


def best_others(scores: Sequence[float]) -> list[float | None]:
    """For each position of ``scores``, the best score at another position (None when
    there is none) — ``candidate_features``' ``others_best``, for all candidates at once."""
    if len(scores) < 2:
        return [None] * len(scores)
    top = max(range(len(scores)), key=scores.__getitem__)
    second = max(s for i, s in enumerate(scores) if i != top)
    return [second if i == top else scores[top] for i in range(len(scores))]


def candidate_features(raw: Mapping[str, float], *, score: float, scores: Sequence[float],
                       rank: int, how: str, is_label: bool, detected: bool,
                       mention: str, others_best: float | None = None,
                       cased_text: bool = False, term_lower: bool = False,
                       question: bool = False) -> dict[str, float]:
    """The model's inputs for the candidate at ``rank`` of a mention whose candidates
    scored ``scores`` (best first). ``others_best``: the best of the other scores, when
    the caller knows it (``best_others``). ``cased_text``: the mention's text has
    capitals and small letters (a lower-case mention there is lower case on purpose: a
    common noun, ``lowered``); ``term_lower``: the candidate matched a name the KB writes
    in lower case (the KB, too, names a common noun: ``common``, "thyratron");
    ``question``: the text asks something — its lower-case words are more often the
    relation or the answer's type ("What country ...") than a concept it is about
    (``asked``)."""
    best = scores[0]
    lowered = (cased_text and mention == mention.lower()
               and any(c.islower() for c in mention))      # "90", "6-2" are no nouns
    if others_best is None and len(scores) > 1:
        others_best = max(s for i, s in enumerate(scores) if i != rank)
    out = {k: float(raw.get(k, 0.0)) for k in RAW}
    out.update(score=score,
               lead=score - (others_best if others_best is not None else score - 1.0),
               gap=best - score,
               top=1.0 if rank == 0 else 0.0, candidates=math.log1p(len(scores)),
               label=1.0 if is_label else 0.0, detected=1.0 if detected else 0.0,
               lower=1.0 if mention == mention.lower() else 0.0,
               words_in_mention=min(len(mention.split()), 6) / 6,
               lowered=1.0 if lowered else 0.0,
               common=1.0 if lowered and term_lower else 0.0,
               asked=1.0 if lowered and question else 0.0)
    kind = how.split(":")[0]
    for h in HOW:
        out[f"how_{h}"] = 1.0 if kind == h else 0.0
    return out


@dataclass(frozen=True)
class Calibration:  # not slotted: ``_folded`` is cached on the instance
    """A fitted logistic model over ``FEATURES`` (standardized by ``mean`` and ``scale``)."""
    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float
    fitted_on: str = ""

    @functools.cached_property
    def _folded(self) -> tuple[float, tuple[tuple[str, float], ...]]:
        """The standardization folded into the weights: (intercept, (feature, weight))."""
        weights = tuple((f, w / sd) for f, w, sd in zip(self.features, self.coef, self.scale))
        return (self.intercept - sum(w * mu / sd for w, mu, sd in
                                     zip(self.coef, self.mean, self.scale)), weights)

    def probability(self, x: Mapping[str, float]) -> float:
        z, weights = self._folded
        for name, w in weights:
            v = x.get(name)
            if v:
                z += w * v
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))

    def confidences(self, rows: Sequence[Mapping[str, float]]) -> tuple[list[float], float]:
        """(confidence of each candidate, nil) for the candidates of one mention."""
        probs = [self.probability(x) for x in rows]
        total = sum(probs)
        if total > 1.0:
            probs = [p / total for p in probs]
            total = 1.0
        return probs, max(0.0, 1.0 - total)

    def as_dict(self) -> dict:
        return {"features": list(self.features), "mean": list(self.mean),
                "scale": list(self.scale), "coef": list(self.coef),
                "intercept": self.intercept, "fitted_on": self.fitted_on}

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.as_dict(), indent=1) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> Calibration:
        d = json.loads(Path(path).read_text(encoding="utf-8"))
        return cls(tuple(d["features"]), tuple(d["mean"]), tuple(d["scale"]),
                   tuple(d["coef"]), float(d["intercept"]), d.get("fitted_on", ""))


@functools.lru_cache(maxsize=1)
def default_calibration() -> Calibration:
    """The model shipped with kgground; before one is fitted, a plain logistic curve on
    the score (0.5 at 1.2, the score of an exact, unambiguous name)."""
    if DEFAULT_PATH.exists():
        return Calibration.load(DEFAULT_PATH)
    return Calibration(("score", "lead"), (0.0, 0.0), (1.0, 1.0), (6.0, 2.0), -7.2,
                       "unfitted: a logistic curve on the score")
