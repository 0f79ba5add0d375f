"""Fit the linker's confidence model (``linking/calibration.py``) on dev data, and check it
on the other half.

    python bench/fit_calibration.py [--db slice.sqlite] [--write] [--compare old.json]

Training rows: every candidate of every mention, labelled right or wrong, from the first
half (``--split first``) of TweekiGold, WebQSP and Mintaka (given gold spans, and the
mentions the linker detects itself), of ``slice-qa-dev`` (detected mentions: the
question's subject is right, anything else wrong) and of our sentences with lower-case
common nouns (``bench/data/linking_texts_common.py``, detected mentions, labelled by hand).
Those datasets annotate named entities only: a detected lower-case mention in well-cased
text ("comet") that overlaps none of their gold mentions is unlabelled there, not wrong,
and is left out — except in questions, where such words are the relation or the answer's
type ("What country ..."), wrong as the question's entities. The second halves are only
scored: log loss, Brier score and expected calibration error (10 bins), before and after
(``--compare``: against another model than the shipped one), and for lower-case mentions
in well-cased text the share of best candidates that are right per confidence bin
(reliability), in questions and in other text.
``--write`` saves the model to ``linking/calibration.json``. Needs scikit-learn
(``pip install 'kgground[bench]'``).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from bench_linking import DEFAULT_DATA, default_db, load_docs, select  # noqa: E402
from bench.data.linking_data import slice_rows  # noqa: E402
from bench.data.linking_texts_common import common_texts  # noqa: E402

from linking import EntityLinker  # noqa: E402
from linking.calibration import DEFAULT_PATH, FEATURES, Calibration  # noqa: E402


def rows_for(linker: EntityLinker, data: Path, split: str) -> tuple[list[dict], list[int],
                                                                     list[int]]:
    """(feature rows, labels, mention number of each row) of one half of the dev data."""
    xs: list[dict] = []
    ys: list[int] = []
    groups: list[int] = []
    group = 0

    def add(found: list, is_right, labelled=lambda mention, cands: True) -> None:
        nonlocal group
        for mention, cands in found:
            if not cands or not labelled(mention, cands):
                continue
            for cid, row in cands:
                xs.append(row)
                ys.append(1 if is_right(mention, cid) else 0)
                groups.append(group)
            group += 1

    docs, _ = load_docs(data)
    for d in select(docs, split=split):
        spans = [(s, e) for s, e, _ in d.mentions]
        gold = {(s, e): q for s, e, q in d.mentions}
        add(linker.feature_rows(d.text, spans=spans),
            lambda m, cid: gold.get((m.start, m.end)) == cid)
        if d.all_spans:
            add(linker.feature_rows(d.text), lambda m, cid: any(
                m.start < e and s < m.end and q == cid for s, e, q in d.mentions),
                lambda m, cands: not cands[0][1]["lowered"] or cands[0][1]["asked"] or any(
                    m.start < e and s < m.end for s, e, _ in d.mentions))
        else:
            add(linker.feature_rows(d.text), lambda m, cid: cid in d.qids,
                lambda m, cands: not cands[0][1]["lowered"] or any(
                    cid in d.qids for cid, _ in cands))
    for r in slice_rows(data, split):
        add(linker.feature_rows(r["question"]), lambda m, cid: cid == r["subject"])
    for text, gold in common_texts(split):
        add(linker.feature_rows(text), lambda m, cid: gold.get(m.text) == cid,
            lambda m, cands: m.text in gold)
    return xs, ys, groups


def reliability(confidences: list[float], right: list[int], bins: int = 5
                ) -> list[tuple[float, float, int, float]]:
    """Per confidence bin of width 1/``bins``: (low edge, high edge, mentions, share right)."""
    out = []
    for b in range(bins):
        lo, hi = b / bins, (b + 1) / bins
        inside = [y for p, y in zip(confidences, right)
                  if lo <= p < hi or (b == bins - 1 and p == 1.0)]
        out.append((lo, hi, len(inside), sum(inside) / len(inside) if inside else float("nan")))
    return out


def lowered_tops(probs: list[float], rows: tuple[list[dict], list[int], list[int]],
                 asked: bool) -> tuple[list[float], list[int]]:
    """(confidence of the best candidate, 1 if it is right) of each mention written in
    lower case in well-cased text, in questions (``asked``) or in other text."""
    xs, ys, _ = rows
    conf, right = [], []
    for p, x, y in zip(probs, xs, ys):
        if x["top"] and x["lowered"] and bool(x["asked"]) == asked:
            conf.append(p)
            right.append(y)
    return conf, right


def scores(probs: list[float], ys: list[int]) -> dict[str, float]:
    eps = 1e-9
    n = len(ys)
    loss = -sum(y * math.log(max(p, eps)) + (1 - y) * math.log(max(1 - p, eps))
                for p, y in zip(probs, ys)) / n
    brier = sum((p - y) ** 2 for p, y in zip(probs, ys)) / n
    bins: list[list[float]] = [[0, 0, 0] for _ in range(10)]
    for p, y in zip(probs, ys):
        b = bins[min(int(p * 10), 9)]
        b[0] += 1
        b[1] += p
        b[2] += y
    ece = sum(abs(b[1] - b[2]) for b in bins if b[0]) / n
    return {"log_loss": loss, "brier": brier, "ece": ece, "rows": n, "positives": sum(ys)}


def normalized(probs: list[float], groups: list[int]) -> list[float]:
    """The probabilities as the linker reports them: scaled per mention to sum ≤ 1."""
    totals: dict[int, float] = {}
    for p, g in zip(probs, groups):
        totals[g] = totals.get(g, 0.0) + p
    return [p / max(1.0, totals[g]) for p, g in zip(probs, groups)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--db", type=Path)
    ap.add_argument("--write", action="store_true", help=f"save the model to {DEFAULT_PATH}")
    ap.add_argument("--compare", type=Path, metavar="JSON",
                    help="the model to compare with (default: the shipped one)")
    args = ap.parse_args()
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    linker = EntityLinker(args.db or default_db(args.data))
    t0 = time.perf_counter()
    train = rows_for(linker, args.data, "first")
    held = rows_for(linker, args.data, "second")
    print(f"rows: {len(train[0])} to fit, {len(held[0])} held out "
          f"({time.perf_counter() - t0:.0f} s)")
    matrix = [[x.get(f, 0.0) for f in FEATURES] for x in train[0]]
    scaler = StandardScaler().fit(matrix)
    scale = [s if s > 0 else 1.0 for s in scaler.scale_]
    model = LogisticRegression(C=1.0, max_iter=2000)
    model.fit([[(v - m) / s for v, m, s in zip(row, scaler.mean_, scale)] for row in matrix],
              train[1])
    fitted = Calibration(FEATURES, tuple(float(m) for m in scaler.mean_),
                         tuple(float(s) for s in scale),
                         tuple(float(c) for c in model.coef_[0]), float(model.intercept_[0]),
                         "bench/fit_calibration.py: first halves of TweekiGold, WebQSP, "
                         "Mintaka, slice-qa-dev and linking_texts_common on the T-REx "
                         "slice mirror")
    before = Calibration.load(args.compare) if args.compare else linker.calibration
    for name, (xs, ys, groups) in (("fit half", train), ("held-out half", held)):
        for label, cal in (("before", before), ("after", fitted)):
            probs = normalized([cal.probability(x) for x in xs], groups)
            s = scores(probs, ys)
            print(f"{name:>14} {label:>6}: log loss {s['log_loss']:.4f}  Brier "
                  f"{s['brier']:.4f}  ECE {s['ece']:.4f}  ({s['rows']} rows, "
                  f"{s['positives']} right)")
    xs, ys, groups = held
    for asked, kind in ((False, "in statements"), (True, "in questions")):
        for label, cal in (("before", before), ("after", fitted)):
            probs = normalized([cal.probability(x) for x in xs], groups)
            conf, right = lowered_tops(probs, held, asked)
            table = "  ".join(f"[{lo:.1f},{hi:.1f}) {n} {share:.2f}"
                              for lo, hi, n, share in reliability(conf, right))
            print(f"lower-case mentions {kind}, held-out half, {label:>6}: {len(conf)} "
                  f"mentions, {sum(right)} right; per bin (mentions, share right): {table}")
    print("coefficients:", ", ".join(f"{f} {c:+.2f}" for f, c in zip(FEATURES, fitted.coef)))
    if args.write:
        fitted.save(DEFAULT_PATH)
        print(f"saved to {DEFAULT_PATH}")


if __name__ == "__main__":
    main()
