"""Fit the property linker's model (``linking/property_model.json``) and report top-1.

    python bench/fit_properties.py [--db slice.sqlite] [--write] [--report held,fresh]

Training phrases (never the ones reported): the relation phrases (the question without
its subject) of slice-qa-dev's questions (the dev templates, a few per relation), of our
``tune`` wordings (``bench/data/paraphrases.py``), of the query generator's ``tune`` wordings
(``bench/data/querygen-own-questions.jsonl``, another hand's) and of the SimpleQuestions dev
questions (real users' wordings) asking one relation the slice uses of a subject it
names. Every property with evidence for a phrase is a row
(``PropertyLinker.feature_rows``), labelled 1 for the gold property; a logistic
regression (scikit-learn) is fitted per feature set — ``lexical`` (no embedder) and
``semantic`` (all-MiniLM-L6-v2). Its loss (pointwise: each row on its own; pairwise: the
gold row minus each other row of its phrase) and its regularization are chosen by top-1 in
a cross-validation over *relations* (every phrase of a relation is left out together), so
that the weights are picked for relations the fold has not seen; the reported splits play
no part in any choice.

Reported (``--report``): top-1 of ``PropertyLinker.link`` without the subject on the
``held`` wordings (never fitted on) and the ``fresh`` ones (``bench/data/paraphrases.py``,
written before any result on them), unique phrases, for the fitted models. ``--write``
stores the models; without it nothing changes.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

import numpy as np  # noqa: E402

from linking import EntityLinker  # noqa: E402
from linking.calibration import Calibration  # noqa: E402
from linking.properties import (LEXICAL_FEATURES, MODEL_PATH,  # noqa: E402
                                SEMANTIC_FEATURES, PropertyLinker)

DEFAULT_DATA = Path(os.environ.get("KGGROUND_SHARED_DATA", REPO.parent / "shared" / "data"))
#: dev questions per relation used for training (their phrases differ only a little)
DEV_PER_RELATION = 6
#: where the training phrases come from (none is ever reported)
TRAIN_SPLITS = ("dev", "tune", "querygen-tune", "simplequestions")
#: the losses compared by cross-validation (see the module docstring)
LOSSES = ("pointwise", "pairwise")
C_GRID = (0.03, 0.1, 0.3, 1.0, 3.0, 10.0)


def phrases(data: Path, linker: EntityLinker, split: str) -> list[tuple[str, str]]:
    """Unique (relation phrase, gold property) pairs of ``split``: dev, tune, held or
    fresh."""
    from bench.data.linking_data import paraphrased_questions, slice_rows
    from bench.data.paraphrases import wordings
    from linking_questions import labels_of, relation_phrase, subject_span

    rows = slice_rows(data, "all")
    labels = labels_of(linker, sorted({r["subject"] for r in rows}))
    out: dict[tuple[str, str], None] = {}
    if split == "dev":
        per: dict[str, int] = defaultdict(int)
        for r in rows:
            if per[r["property"]] >= DEV_PER_RELATION:
                continue
            from bench.data.linking_data import Question
            q = Question(r["question"], r["subject"], r["property"])
            phrase = relation_phrase(q.text, subject_span(q, labels.get(q.subject)))
            if (phrase, q.property) not in out:
                per[r["property"]] += 1
                out[(phrase, q.property)] = None
        return list(out)
    if split == "querygen-tune":         # the query generator's looked-at wordings
        with open(REPO / "bench" / "data" / "querygen-own-questions.jsonl", encoding="utf-8") as f:
            qs = [json.loads(line) for line in f]
        qs = [q for q in qs if q["split"] == "tune"]
        labels = labels_of(linker, sorted({q["subject"] for q in qs}))
        for q in qs:
            from bench.data.linking_data import Question
            qq = Question(q["question"], q["subject"], q["property"])
            span = subject_span(qq, labels.get(qq.subject))
            if span is not None:
                out[(relation_phrase(qq.text, span), qq.property)] = None
        return list(out)
    if split == "simplequestions":       # real questions: one-hop, subject in the slice
        used = {p.id for p in linker.properties._load().values() if p.usage}
        found = []
        with open(data / "benchmarks" / "simplequestions-dev.jsonl", encoding="utf-8") as f:
            for line in f:
                x = json.loads(line)
                m = re.search(r"\{ wd:(Q\d+) wdt:(P\d+) \?x \. \}", x["sparql"])
                if m and m.group(2) in used:
                    found.append((x["question"], m.group(1), m.group(2)))
        labels = labels_of(linker, sorted({s for _, s, _ in found}))
        from bench.data.linking_data import Question
        for text, subject, pid in found:
            q = Question(text, subject, pid)
            if subject in labels and (span := subject_span(q, labels[subject])):
                out[(relation_phrase(text, span), pid)] = None
        return list(out)
    if split in ("fresh", "fresh2", "fresh3"):
        for pid, _n, template in wordings(split):
            out[(relation_phrase(template, (template.index("{s}"),
                                            template.index("{s}") + 3)), pid)] = None
        return list(out)
    for q in paraphrased_questions(data, labels, wordings=split, per_relation=2):
        out[(relation_phrase(q.text, q.span), q.property)] = None
    return list(out)


def rows_of(props: PropertyLinker, pairs: list[tuple[str, str]], features: tuple[str, ...]):
    X, y, groups, query = [], [], [], []
    for n, (phrase, gold) in enumerate(pairs):
        for pid, feats in props.feature_rows(phrase):
            X.append([feats.get(f, 0.0) for f in features])
            y.append(1 if pid == gold else 0)
            groups.append(gold)
            query.append((n, pid))
    return np.array(X, dtype=float), np.array(y), np.array(groups), query


def top1(props: PropertyLinker, pairs: list[tuple[str, str]]) -> tuple[float, list]:
    wrong = []
    ok = 0
    for phrase, gold in pairs:
        got = props.link(phrase, limit=1)
        hit = bool(got) and got[0].id == gold
        ok += hit
        if not hit:
            wrong.append((phrase, gold, got[0].id if got else None))
    return ok / max(1, len(pairs)), wrong


class Pairwise:
    """A logistic regression on differences of rows of one phrase (the gold property's
    minus another's): it learns to rank, and its ``decision_function`` scores rows."""

    def __init__(self, C: float):
        from sklearn.linear_model import LogisticRegression
        self.model = LogisticRegression(C=C, max_iter=3000, fit_intercept=False)

    def fit(self, X, y, qids):
        diffs = []
        for q in np.unique(qids):
            idx = np.flatnonzero(qids == q)
            pos = idx[y[idx] == 1]
            neg = idx[y[idx] == 0]
            if len(pos) and len(neg):
                diffs.append(X[pos[0]] - X[neg])
        D = np.vstack(diffs)
        self.model.fit(np.vstack([D, -D]), np.r_[np.ones(len(D)), np.zeros(len(D))])
        # a probability-like score: the decision value calibrated on the rows themselves
        from sklearn.linear_model import LogisticRegression
        z = X @ self.model.coef_[0]
        self.cal = LogisticRegression(C=1.0).fit(z.reshape(-1, 1), y)
        return self

    def decision_function(self, X):
        return X @ self.model.coef_[0]

    def weights(self):
        a, b = float(self.cal.coef_[0][0]), float(self.cal.intercept_[0])
        return self.model.coef_[0] * a, b


def _model(loss: str, c: float, X, y, qids):
    from sklearn.linear_model import LogisticRegression
    if loss == "pairwise":
        return Pairwise(c).fit(X, y, qids)
    return LogisticRegression(C=c, max_iter=2000).fit(X, y)


def fit(X, y, groups, query, features, n_queries) -> tuple[Calibration, tuple, dict]:
    """The (loss, C) with the best top-1 over relation folds, refitted on all rows."""
    from sklearn.preprocessing import StandardScaler
    qids = np.array([q for q, _ in query])

    relations = sorted(set(groups))
    folds = [set(relations[i::5]) for i in range(5)]
    cv = {}
    for loss in LOSSES:
        for c in C_GRID:
            hits = 0
            for fold in folds:
                test = np.array([g in fold for g in groups])
                scaler = StandardScaler().fit(X[~test])
                model = _model(loss, c, scaler.transform(X[~test]), y[~test], qids[~test])
                scores = model.decision_function(scaler.transform(X[test]))
                best: dict[int, tuple[float, int]] = {}
                for s, label, (q, _pid) in zip(scores, y[test], [query[i] for i in
                                                                  np.flatnonzero(test)]):
                    if q not in best or s > best[q][0]:
                        best[q] = (s, label)
                hits += sum(label for _, label in best.values())
            cv[(loss, c)] = hits / n_queries
    loss, c = max(cv, key=lambda k: (cv[k], k[0] == "pointwise", -abs(np.log(k[1]))))
    scaler = StandardScaler().fit(X)
    model = _model(loss, c, scaler.transform(X), y, qids)
    if loss == "pairwise":
        coef, intercept = model.weights()
    else:
        coef, intercept = model.coef_[0], float(model.intercept_[0])
    scale = [s if s > 0 else 1.0 for s in scaler.scale_]
    cal = Calibration(tuple(features), tuple(float(m) for m in scaler.mean_),
                      tuple(float(s) for s in scale), tuple(float(w) for w in coef),
                      float(intercept),
                      f"bench/fit_properties.py ({loss}): "
                      f"{' + '.join(TRAIN_SPLITS)} wordings, C={c}")
    return cal, (loss, c), cv


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--db", type=Path)
    ap.add_argument("--write", action="store_true", help="store the fitted models")
    ap.add_argument("--report", default="held", help="splits to report top-1 on "
                    "(comma-separated: held, fresh) [default: %(default)s]")
    ap.add_argument("--failures", action="store_true", help="print the misses of the "
                    "training splits (never of the reported ones)")
    args = ap.parse_args()
    from bench_linking import default_db

    db = args.db or default_db(args.data)
    linker = EntityLinker(db)
    train = [pair for split in TRAIN_SPLITS for pair in phrases(args.data, linker, split)]
    report = {s: phrases(args.data, linker, s) for s in args.report.split(",") if s}
    print(f"training phrases: {len(train)}; reported: "
          + ", ".join(f"{k} {len(v)}" for k, v in report.items()))
    models: dict[str, Calibration] = {}
    results: dict[str, dict] = {}
    for kind, features, embedder in (("lexical", LEXICAL_FEATURES, None),
                                     ("semantic", SEMANTIC_FEATURES, "auto")):
        props = PropertyLinker(linker.source, embedder=embedder)
        if kind == "semantic" and props.embedder is None:
            print("semantic: the embeddings extra is not installed; skipped")
            continue
        t0 = time.perf_counter()
        X, y, groups, query = rows_of(props, train, features)
        cal, (loss, c), cv = fit(X, y, groups, query, features, len(train))
        models[kind] = cal
        fitted = PropertyLinker(linker.source, embedder=props.embedder,
                                models={"lexical": cal, "semantic": cal})
        before = PropertyLinker(linker.source, embedder=props.embedder)
        res = {"loss": loss, "C": c, "cv": {f"{k[0]} C={k[1]}": v for k, v in cv.items()},
               "rows": len(y),
               "train_top1": top1(fitted, train)[0]}
        for split, pairs in report.items():
            res[f"{split}_top1"], _ = top1(fitted, pairs)
            res[f"{split}_top1_shipped_before"], _ = top1(before, pairs)
        results[kind] = res
        print(f"\n{kind}: {loss}, C={c} (cv top-1: "
              + ", ".join(f"{k[0][:4]} {k[1]}: {v:.3f}" for k, v in cv.items())
              + f"), {len(y)} rows, "
              f"{time.perf_counter() - t0:.1f} s")
        print("  " + "  ".join(f"{k} {v:.3f}" for k, v in res.items()
                               if k.endswith("top1") or k.endswith("before")))
        print("  weights: " + ", ".join(f"{f} {w / s:+.2f}" for f, w, s in
                                        zip(cal.features, cal.coef, cal.scale)))
        if args.failures:
            for phrase, gold, got in top1(fitted, train)[1]:
                print(f"    train miss: {phrase!r}: gold {gold}, got {got}")
    if args.write and models:
        MODEL_PATH.write_text(json.dumps({k: m.as_dict() for k, m in models.items()},
                                         indent=1) + "\n", encoding="utf-8")
        print(f"\nwrote {MODEL_PATH}")
    print(json.dumps({"results": results, "load_average": os.getloadavg()}, indent=1))


if __name__ == "__main__":
    main()
