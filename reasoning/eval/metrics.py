"""Scores: per question (precision, recall, F1, exact match) and over a run.

**Per question** (``score``), with G the gold answers and P the predicted ones (each
predicted answer counts once; a predicted answer is right when it ``matches`` a gold one
not matched yet, greedily in prediction order):

- G empty, P empty: precision 1, recall 1, F1 1, exact match;
- G empty, P not: 0, 0, 0, no match;
- G not empty, P empty: precision 1, recall 0, F1 0, no match;
- otherwise: precision = right/|P|, recall = right/|G|, F1 their harmonic mean (0 when
  nothing is right); exact match when every prediction is right and every gold answer found.

These are the QALD conventions as GERBIL QA implements them (an empty answer to a question
that has one is precise but recalls nothing). A yes/no question's gold is one answer,
``true`` or ``false``. A free-text answer (a model's words, no IDs) is read both as one
answer and as a list split at commas, semicolons and 'and'; the reading with the higher
F1 counts.

**Over a run** (``summarize``), on the questions that have gold answers (``scored``):

- ``macro_f1``: the mean of the per-question F1 (the number the targets refer to);
- ``qald_macro_f1``: GERBIL's "Macro F1 QALD": the harmonic mean of the mean precision
  and the mean recall (higher than ``macro_f1`` when a system leaves questions empty);
- ``macro_precision``, ``macro_recall``, ``exact_match`` (share of exact matches);
- ``coverage``: the share of questions the KB could answer at all (of those where this is
  known), and ``covered_f1``: the macro F1 over the covered questions;
- ``retrieval_ratio``: the share of questions for which the KB was consulted;
- ``llm_calls``/``kb_calls``: mean calls per question; ``latency_ms``: p50, p90, p99,
  mean and max of the wall time of each question;
- ``auroc``: for runs whose gate scores consistency, the area under the ROC curve of the
  gate's score as a predictor of the model's own answer (before the KB) being right —
  Rowen's measure; 0.5 is chance;
- ``answered``: the share of questions given an answer (not "no answer");
  ``grounded_wrong``: how many answers called grounded are wrong (F1 < 0.5 against the
  gold, or any answer where the gold is empty), and ``grounded_wrong_rate`` their share
  of all scored questions;
- ``risk_coverage``: the answers sorted by confidence, best first: at each share of
  questions answered (coverage), the share of those answers that are wrong (risk) —
  twenty points from the most confident answer to all of them — and ``aurc``, the area
  under that curve (lower is better).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from reasoning.eval.answers import AnswerItem, matches, split_text, text
from reasoning.utility import abstains


@dataclass(frozen=True)
class Score:
    """One question's score (see the module docstring)."""

    precision: float
    recall: float
    f1: float
    exact: bool
    right: int = 0
    predicted: int = 0
    gold: int = 0

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        for k in ("precision", "recall", "f1"):
            d[k] = round(d[k], 6)
        return d


def score(predicted: Sequence[AnswerItem], gold: Sequence[AnswerItem]) -> Score:
    """Precision, recall, F1 and exact match of ``predicted`` against ``gold``."""
    pred = _unique(predicted)
    gold = _unique(gold)
    if not gold:
        return Score(1.0, 1.0, 1.0, True) if not pred else Score(0.0, 0.0, 0.0, False,
                                                                 0, len(pred), 0)
    if not pred:
        return Score(1.0, 0.0, 0.0, False, 0, 0, len(gold))
    by_id: dict[str, list[int]] = defaultdict(list)
    for i, g in enumerate(gold):
        if g.kind == "entity":
            by_id[g.value].append(i)
    used: set[int] = set()
    right = 0
    for p in pred:
        found = None
        if p.kind == "entity":
            found = next((i for i in by_id.get(p.value, ()) if i not in used), None)
        else:
            found = next((i for i, g in enumerate(gold) if i not in used and matches(p, g)),
                         None)
        if found is not None:
            used.add(found)
            right += 1
    precision, recall = right / len(pred), right / len(gold)
    f1 = 2 * precision * recall / (precision + recall) if right else 0.0
    return Score(precision, recall, f1, right == len(pred) == len(gold), right, len(pred),
                 len(gold))


def score_text(answer: str, gold: Sequence[AnswerItem]) -> Score:
    """A free-text answer scored as one answer and as a list; the better reading counts.
    An empty text, one saying nothing, or one declining to answer ("I don't know":
    ``reasoning.utility.abstains``) is an empty answer: right when there is no gold
    answer, no recall otherwise."""
    whole = text(answer)
    if not whole.value or abstains(whole.value):
        return score([], gold)
    readings = [[whole]]
    parts = split_text(answer)
    if len(parts) > 1:
        readings.append([text(p) for p in parts])
    return max((score(r, gold) for r in readings), key=lambda s: (s.f1, s.precision))


def _unique(items: Sequence[AnswerItem]) -> list[AnswerItem]:
    seen: set[tuple[str, str]] = set()
    out = []
    for item in items:
        key = (item.kind, item.value)
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out


# -- totals ----------------------------------------------------------------------------------

def percentiles(values: Sequence[float]) -> dict[str, float]:
    """p50, p90, p99, mean and max of ``values`` (linear interpolation; zeros when empty)."""
    if not len(values):
        return {"p50": 0.0, "p90": 0.0, "p99": 0.0, "mean": 0.0, "max": 0.0}
    a = np.asarray(values, dtype=float)
    p50, p90, p99 = np.percentile(a, [50, 90, 99])
    return {"p50": float(p50), "p90": float(p90), "p99": float(p99),
            "mean": float(a.mean()), "max": float(a.max())}


def auroc(scores: Sequence[float], positive: Sequence[bool]) -> float | None:
    """The area under the ROC curve of ``scores`` ranking the ``positive`` cases above the
    others (ties count half: the Mann-Whitney U statistic); None without both classes."""
    s = np.asarray(scores, dtype=float)
    y = np.asarray(positive, dtype=bool)
    n_pos, n_neg = int(y.sum()), int((~y).sum())
    if not n_pos or not n_neg:
        return None
    order = s.argsort(kind="mergesort")
    ranks = np.empty(len(s), dtype=float)
    sorted_s = s[order]
    i = 0
    while i < len(s):                        # average ranks over ties
        j = i
        while j + 1 < len(s) and sorted_s[j + 1] == sorted_s[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2 + 1
        i = j + 1
    u = ranks[y].sum() - n_pos * (n_pos + 1) / 2
    return float(u / (n_pos * n_neg))


def summarize(records: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The totals of a run's per-question records (see the module docstring)."""
    records = list(records)
    scored = [r for r in records if r.get("score") is not None]
    out: dict[str, Any] = {"questions": len(records), "scored": len(scored),
                           "errors": sum(1 for r in records if r.get("error"))}
    out.update(_answer_scores(scored))
    out.update(_coverage(scored))
    out.update(_costs(records))
    out.update(_gate_quality(scored))
    out.update(risk_coverage(scored))
    sources: dict[str, int] = defaultdict(int)
    for r in records:
        sources[r.get("gold_source") or "none"] += 1
    out["gold_sources"] = dict(sorted(sources.items()))
    return out


def _answer_scores(scored: list[Mapping[str, Any]]) -> dict[str, Any]:
    """``macro_f1``, ``qald_macro_f1`` (F1 of the macro precision and recall),
    ``macro_precision``, ``macro_recall`` and ``exact_match`` of scored records."""
    ps = [r["score"]["precision"] for r in scored]
    rs = [r["score"]["recall"] for r in scored]
    fs = [r["score"]["f1"] for r in scored]
    mp, mr = _mean(ps), _mean(rs)
    return dict(macro_f1=_mean(fs), qald_macro_f1=(2 * mp * mr / (mp + mr) if mp + mr else 0.0),
                macro_precision=mp, macro_recall=mr,
                exact_match=_mean([float(r["score"]["exact"]) for r in scored]))


def _coverage(scored: list[Mapping[str, Any]]) -> dict[str, Any]:
    """``coverage`` (the share of scored records whose gold the KB covers, of those where
    that is known), ``coverage_known``, and the mean F1 of the covered and the uncovered
    (None where there are none)."""
    known = [r for r in scored if r.get("covered") is not None]
    covered = [r for r in known if r["covered"]]
    out: dict[str, Any] = {}
    out["coverage"] = len(covered) / len(known) if known else None
    out["coverage_known"] = len(known)
    out["covered_f1"] = _mean([r["score"]["f1"] for r in covered]) if covered else None
    out["uncovered_f1"] = _mean([r["score"]["f1"] for r in known if not r["covered"]]) \
        if len(covered) < len(known) else None
    return out


def _costs(records: list[Mapping[str, Any]]) -> dict[str, Any]:
    """``retrieval_ratio`` (the share that consulted the KB), the mean ``llm_calls`` and
    ``kb_calls``, and the percentiles of ``latency_ms``, over all records."""
    return {
        "retrieval_ratio": _mean([float(bool(r.get("consulted"))) for r in records]),
        "llm_calls": _mean([r.get("llm_calls", 0) for r in records]),
        "kb_calls": _mean([r.get("kb_calls", 0) for r in records]),
        "latency_ms": {k: round(v * 1000, 3) for k, v in
                       percentiles([r.get("seconds", 0.0) for r in records]).items()},
    }


def _gate_quality(scored: list[Mapping[str, Any]]) -> dict[str, Any]:
    """``auroc`` of the gate's score against the draft being correct, and
    ``draft_accuracy`` (None where no record says)."""
    with_score = [r for r in scored if r.get("gate_score") is not None
                  and r.get("draft_correct") is not None]
    auroc_ = auroc([r["gate_score"] for r in with_score],
                   [r["draft_correct"] for r in with_score]) if with_score else None
    drafts = [r for r in scored if r.get("draft_correct") is not None]
    return {"auroc": auroc_,
            "draft_accuracy": _mean([float(r["draft_correct"]) for r in drafts])
            if drafts else None}


#: an answer with F1 below this is wrong
WRONG_F1 = 0.5


def is_wrong(record: Mapping[str, Any]) -> bool:
    """Whether a scored record's answer is wrong (it answered, and F1 < WRONG_F1)."""
    return bool(record.get("answered")) and record["score"]["f1"] < WRONG_F1


def risk_coverage(scored: Sequence[Mapping[str, Any]], points: int = 20) -> dict[str, Any]:
    """``answered``, ``grounded_wrong``, ``grounded_wrong_rate``, ``risk_coverage`` and
    ``aurc`` over scored records (see the module docstring)."""
    n = len(scored)
    answered = [r for r in scored if r.get("answered")]
    wrong_grounded = sum(1 for r in answered if r.get("grounded") and is_wrong(r))
    ranked = sorted(answered, key=lambda r: -(r["confidence"] if r.get("confidence")
                                                is not None else -1.0))
    curve, wrong = [], 0
    marks = {max(1, round(len(ranked) * (i + 1) / points)) for i in range(points)}
    area = 0.0
    for k, r in enumerate(ranked, 1):
        wrong += is_wrong(r)
        area += wrong / k
        if k in marks:
            curve.append({"coverage": round(k / n, 4), "risk": round(wrong / k, 4),
                          "confidence": r.get("confidence")})
    return {"answered": len(answered) / n if n else None,
            "grounded_wrong": wrong_grounded,
            "grounded_wrong_rate": wrong_grounded / n if n else None,
            "risk_coverage": curve, "aurc": area / len(ranked) if ranked else None}


def breakdown(records: Iterable[Mapping[str, Any]], field: str) -> dict[str, dict[str, Any]]:
    """``summarize`` per value of ``field`` (e.g. ``type``, ``lang``, ``relation``),
    largest groups first."""
    groups: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for r in records:
        groups[str(r.get(field) or "?")].append(r)
    return {k: summarize(v) for k, v in
            sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))}


def _mean(values: Sequence[float]) -> float:
    return float(sum(values) / len(values)) if values else 0.0
