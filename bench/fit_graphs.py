"""Fit the query-graph model (``querygen/graph_model.json``) on candidate graphs' features.

    python bench/bench_qgraph.py --db slice.sqlite --rows rows.jsonl   # the features
    python bench/fit_graphs.py rows.jsonl                               # CV report only
    python bench/fit_graphs.py rows.jsonl --write                       # and write the model

A row is one candidate graph of one question (``bench/bench_qgraph.py --rows``): its
features (``querygen.graphs.FEATURES``) and its F1 against the question's gold answers.
The model is a logistic regression (scikit-learn, features standardized), or with
``--trees`` gradient-boosted trees (what ``querygen/graph_model.json`` holds now), of
"this graph's answers are right" (F1 ≥ 0.5). At answer time the graphs are ranked by its probability
and the best one answers when the probability reaches the threshold.

The report is 5-fold cross-validation grouped by question (no question in both its
training and test folds): per set, macro F1 of the decision (abstaining scores 1 when the
gold is empty, 0 otherwise), the share answered, the share answered wrongly (F1 < 0.5),
and the expected calibration error of the chosen graphs' probabilities. The threshold is
the lowest at which the cross-validated wrong-answer rate stays within ``--max-wrong``
(default 1.25 %, under the issue's 2 %; at 1.5 % the refit of session 45 answered a few
more of its own training questions wrongly) both pooled and on our own sets alone (every
kind of question the issue names, without the public benchmarks, whose mostly uncovered
questions dilute the pooled rate).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from querygen.graphs import FEATURES, MODEL_PATH  # noqa: E402

RIGHT = 0.5
#: row sets from the public benchmarks (bench_qgraph's names); every other set is our own
BENCHMARKS = ("simplequestions", "wwq", "mintaka", "qald")


def load(paths: list[str]) -> list[dict]:
    """Questions: {set, question, gold_empty, graphs: [(features, f1)]}."""
    by_q: dict[tuple[str, str], dict] = {}
    for path in paths:
        for line in open(path, encoding="utf-8"):
            r = json.loads(line)
            key = (r["set"], r["question"])
            q = by_q.setdefault(key, {"set": r["set"], "question": r["question"],
                                      "gold_empty": r["gold_empty"], "graphs": []})
            if r.get("features") is not None and r.get("answered", True):
                q["graphs"].append((r["features"], r["f1"]))
    return list(by_q.values())


def matrix(graphs: list[tuple[dict, float]]) -> tuple[np.ndarray, np.ndarray]:
    x = np.array([[f.get(k, 0.0) for k in FEATURES] for f, _ in graphs], dtype=float)
    y = np.array([f1 >= RIGHT for _, f1 in graphs], dtype=int)
    return x, y


def fit(questions: list[dict], c: float) -> tuple[np.ndarray, float, np.ndarray, np.ndarray]:
    from sklearn.linear_model import LogisticRegression
    graphs = [g for q in questions for g in q["graphs"]]
    x, y = matrix(graphs)
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    model = LogisticRegression(C=c, max_iter=2000)
    model.fit((x - mean) / scale, y)
    return model.coef_[0], float(model.intercept_[0]), mean, scale


def fit_trees(questions: list[dict], params: dict) -> object:
    """Boosted trees; each question weighs the same whatever its number of graphs (else a
    question with twenty readings counts twenty times a one-reading one)."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    asked = [q for q in questions if q["graphs"]]
    graphs = [g for q in asked for g in q["graphs"]]
    x, y = matrix(graphs)
    weight = np.concatenate([np.full(len(q["graphs"]), 1.0 / len(q["graphs"])) for q in asked])
    model = HistGradientBoostingClassifier(**params)
    model.fit(x, y, sample_weight=weight / weight.mean())
    return model


def decide(questions: list[dict], probability) -> list[tuple[dict, float, float]]:
    """Per question: (question, best probability, that graph's F1) — (q, 0, 0) with no
    graph. ``probability`` maps a feature matrix to each row's probability."""
    out = []
    for q in questions:
        if not q["graphs"]:
            out.append((q, 0.0, 0.0))
            continue
        x, _ = matrix(q["graphs"])
        p = probability(x)
        i = int(np.argmax(p))
        out.append((q, float(p[i]), q["graphs"][i][1]))
    return out


def logistic(w: np.ndarray, b: float, mean: np.ndarray, scale: np.ndarray):
    """The fitted logistic model as a function of a feature matrix."""
    return lambda x: 1 / (1 + np.exp(-(((x - mean) / scale) @ w + b)))


def outcome(decided: list[tuple[dict, float, float]], t: float) -> dict:
    f1s, answered, wrong = [], 0, 0
    for q, p, f1 in decided:
        if p >= t:
            answered += 1
            wrong += f1 < RIGHT
            f1s.append(f1)
        else:
            f1s.append(1.0 if q["gold_empty"] else 0.0)
    n = len(decided) or 1
    return {"n": len(decided), "f1": sum(f1s) / n, "answered": answered / n,
            "wrong": wrong / n}


def ece(decided: list[tuple[dict, float, float]], bins: int = 10) -> float:
    err, n = 0.0, len(decided)
    for lo in np.linspace(0, 1, bins, endpoint=False):
        sel = [(p, f1 >= RIGHT) for _, p, f1 in decided if lo <= p < lo + 1 / bins]
        if sel:
            err += len(sel) / n * abs(np.mean([p for p, _ in sel]) -
                                      np.mean([r for _, r in sel]))
    return err


def cross_validate(questions: list[dict], c: float, folds: int = 5, seed: int = 7,
                   trees: dict | None = None) -> list[tuple[dict, float, float]]:
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(questions))
    out = []
    for k in range(folds):
        test = [questions[i] for i in order[k::folds]]
        train = [questions[i] for j, i in enumerate(order) if j % folds != k]
        if trees is not None:
            model = fit_trees(train, trees)
            out += decide(test, lambda x, m=model: m.predict_proba(x)[:, 1])
            continue
        w, b, mean, scale = fit(train, c)
        out += decide(test, logistic(w, b, mean, scale))
    return out


def write_trees(model, threshold: float, report: dict, n: int) -> None:
    """The boosted trees as JSON nodes [feature, threshold, left, right, value] (feature
    -1 for a leaf); ``querygen.graphs.GraphModel`` evaluates them."""
    trees = []
    for (predictor,) in model._predictors:
        nodes = []
        for node in predictor.nodes:
            leaf = bool(node["is_leaf"])
            nodes.append([-1 if leaf else int(node["feature_idx"]),
                          0.0 if leaf else round(float(node["num_threshold"]), 6),
                          int(node["left"]), int(node["right"]),
                          round(float(node["value"]), 6) if leaf else 0.0])
        trees.append(nodes)
    out = {"note": "fitted by bench/fit_graphs.py --trees (gradient-boosted trees over the "
                   "graph features); threshold: the lowest keeping the cross-validated "
                   "wrong-answer rate within the limit",
           "features": list(FEATURES), "trees": trees,
           "bias": round(float(np.ravel(model._baseline_prediction)[0]), 6),
           "threshold": threshold, "cv": report, "questions": n}
    MODEL_PATH.write_text(json.dumps(out, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {MODEL_PATH} ({len(trees)} trees)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rows", nargs="+")
    ap.add_argument("--c", type=float, default=1.0, help="inverse regularization")
    ap.add_argument("--max-wrong", type=float, default=0.0125)
    ap.add_argument("--write", action="store_true", help=f"write {MODEL_PATH.name}")
    ap.add_argument("--trees", action="store_true",
                    help="gradient-boosted trees instead of the logistic model")
    args = ap.parse_args()
    questions = load(args.rows)
    trees = {"max_iter": 300, "learning_rate": 0.08, "max_leaf_nodes": 31,
             "min_samples_leaf": 20, "l2_regularization": 1.0, "early_stopping": False,
             "random_state": 0} if args.trees else None
    cv = cross_validate(questions, args.c, trees=trees)
    own = [d for d in cv if not d[0]["set"].startswith(BENCHMARKS)]
    threshold = 0.5
    for t in np.arange(0.05, 0.96, 0.01):
        if outcome(cv, t)["wrong"] <= args.max_wrong and \
                outcome(own, t)["wrong"] <= args.max_wrong:
            threshold = round(float(t), 2)
            break
    sets = sorted({q["set"] for q in questions})
    print(f"5-fold CV, threshold {threshold} (wrong ≤ {args.max_wrong:.1%} pooled and on "
          f"our own sets); ECE {ece(cv):.3f}")
    print(f"{'set':<22} {'n':>5} {'F1':>6} {'answered':>8} {'wrong':>6}")
    report = {}
    for name in sets + ["all"]:
        part = [d for d in cv if name == "all" or d[0]["set"] == name]
        o = outcome(part, threshold)
        report[name] = o
        print(f"{name:<22} {o['n']:>5} {o['f1']:>6.3f} {o['answered']:>8.3f} "
              f"{o['wrong']:>6.3f}")
    if trees is not None:
        model = fit_trees(questions, trees)
        if args.write:
            write_trees(model, threshold, report, len(questions))
        return
    w, b, mean, scale = fit(questions, args.c)
    print("weights (standardized):", {k: round(float(v), 2) for k, v in zip(FEATURES, w)})
    if args.write:
        model = {"note": "fitted by bench/fit_graphs.py (logistic regression, standardized "
                         "features); threshold: the lowest keeping the cross-validated "
                         f"wrong-answer rate within {args.max_wrong:.1%}",
                 "weights": {k: round(float(v), 6) for k, v in zip(FEATURES, w)},
                 "bias": round(b, 6), "threshold": threshold,
                 "means": {k: round(float(v), 6) for k, v in zip(FEATURES, mean)},
                 "scales": {k: round(float(v), 6) for k, v in zip(FEATURES, scale)},
                 "cv": report, "questions": len(questions)}
        MODEL_PATH.write_text(json.dumps(model, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {MODEL_PATH}")


if __name__ == "__main__":
    main()
