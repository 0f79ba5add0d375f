"""kgground with a real small model (issue 28): SmolLM2-135M-Instruct (``--llm local``) on
the known/unknown mix of ``bench/data/llm_questions.jsonl`` (``bench/make_llm_questions.py``).

    python bench/bench_llm.py --db slice.sqlite --split held --gates kb,always,likelihood \\
        [--cache llm-calls.sqlite] [--limit N] [--json out.json]

Per configuration, on the chosen split (``dev`` to fit, ``held`` to report):

- ``kb``: ``Grounder(kb)`` alone — answer F1 (set F1 of the answer's entity IDs, literals
  by text, against the gold answers), grounded share, wrong-and-grounded share;
- ``always`` / ``likelihood`` / ``never`` / ``cok`` / ``rowen-cl``: ``Grounder(kb, model,
  gate=...)`` — the same, plus the consulted share, LLM calls and wall time a question.
  A model's own answer (not consulted) is scored by its text: right when a gold label
  appears in it as whole words (``replies.matches``);
- for gates with a score (likelihood: the draft's lowest token log-probability; cok:
  agreement; rowen: Z): AUROC of the score against "the model's own answer is right",
  and the risk–coverage points (answering alone the share of questions above each score
  threshold: accuracy there).

Model calls go through a record/replay cache (``--cache``; default a file in the temp
folder): a rerun replays them, so its wall times are kgground's own, not the model's —
the times to report are those of the run that made the calls ("misses" says how many).
Torch uses one thread (``--threads``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import kb  # noqa: E402
from reasoning import Grounder  # noqa: E402
from reasoning.replies import matches  # noqa: E402

QUESTIONS = HERE / "data" / "llm_questions.jsonl"


def f1(pred: list[str], gold: list[str]) -> float:
    p, g = set(pred), set(gold)
    if not p or not g:
        return float(p == g)
    tp = len(p & g)
    if not tp:
        return 0.0
    precision, recall = tp / len(p), tp / len(g)
    return 2 * precision * recall / (precision + recall)


def score_answer(a, row) -> float:
    if a.values:
        return f1([v.id or v.label for v in a.values], row["answers"])
    if a.mode == "llm" and a.text:
        return 1.0 if matches(a.text, row["answer_labels"]) else 0.0
    return 0.0


def auroc(ys: list[bool], scores: list[float]) -> float | None:
    pos = [s for y, s in zip(ys, scores) if y]
    neg = [s for y, s in zip(ys, scores) if not y]
    if not pos or not neg:
        return None
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def run(name: str, rows: list[dict], k, llm, linker) -> dict:
    if name == "kb":
        g = Grounder(k, linker=linker)
    else:
        options = {}
        if name == "rowen-cl":
            options = {"checker": "similarity"}
        g = Grounder(k, llm, gate=name, linker=linker, **options)
    out = []
    before = (getattr(llm, "misses", 0), getattr(llm, "hits", 0)) if llm else (0, 0)
    for i, row in enumerate(rows):
        start = time.perf_counter()
        a = g.ask(row["question"])
        seconds = time.perf_counter() - start
        d = a.decision
        draft = a.trace.stage("draft")
        own = draft.details.get("answer", "") if draft else ""
        out.append({"question": row["question"], "kind": row["kind"],
                    "f1": score_answer(a, row), "grounded": a.grounded, "text": a.text,
                    "mode": a.mode, "consult": bool(d.consult) if d else True,
                    "score": d.score if d else None,
                    "own_right": bool(own) and matches(own, row["answer_labels"]),
                    "llm_calls": a.trace.n_llm_calls, "seconds": seconds})
        print(f"  {name} {i + 1}/{len(rows)} f1={out[-1]['f1']:.2f} "
              f"{'G' if a.grounded else '-'} {seconds:5.1f}s {a.text[:50]!r}", flush=True)
    after = (getattr(llm, "misses", 0), getattr(llm, "hits", 0)) if llm else (0, 0)
    return {"rows": out, "misses": after[0] - before[0], "hits": after[1] - before[1]}


def summary(result: dict) -> dict:
    rows = result["rows"]
    n = len(rows)
    s = {"n": n, "f1": sum(r["f1"] for r in rows) / n,
         "grounded": sum(r["grounded"] for r in rows) / n,
         "wrong_grounded": sum(r["grounded"] and r["f1"] < 0.5 for r in rows) / n,
         "consult": sum(r["consult"] for r in rows) / n,
         "llm_calls": sum(r["llm_calls"] for r in rows) / n,
         "mean_s": statistics.mean(r["seconds"] for r in rows),
         "median_s": statistics.median(r["seconds"] for r in rows),
         "misses": result["misses"], "hits": result["hits"]}
    for kind in ("famous", "long-tail"):
        part = [r for r in rows if r["kind"] == kind]
        if part:
            s[f"f1_{kind}"] = sum(r["f1"] for r in part) / len(part)
    scored = [r for r in rows if r["score"] is not None]
    if scored:
        ys = [r["own_right"] for r in scored]
        xs = [r["score"] if r["score"] != float("-inf") else -1e9 for r in scored]
        s["auroc"] = auroc(ys, xs)
        s["own_accuracy"] = sum(ys) / len(ys)
        points = []
        for q in (1.0, 0.8, 0.6, 0.4, 0.2):
            cut = sorted(xs, reverse=True)[max(0, int(q * len(xs)) - 1)]
            kept = [y for y, x in zip(ys, xs) if x >= cut]
            points.append({"coverage": round(len(kept) / len(xs), 3),
                           "accuracy": round(sum(kept) / len(kept), 3) if kept else None})
        s["risk_coverage"] = points
    return s


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", required=True, help="the slice mirror")
    ap.add_argument("--split", choices=("dev", "held", "all"), default="held")
    ap.add_argument("--gates", default="kb,always,likelihood",
                    help="comma-separated: kb, always, never, likelihood, cok, rowen-cl")
    ap.add_argument("--kinds", default="famous,long-tail")
    ap.add_argument("--cache", default=str(Path(tempfile.gettempdir()) /
                                           "kgground-bench-llm.sqlite"))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--limit", type=int)
    ap.add_argument("--json")
    args = ap.parse_args()
    rows = [json.loads(line) for line in open(QUESTIONS, encoding="utf-8") if line.strip()]
    rows = [r for r in rows if (args.split == "all" or r["split"] == args.split)
            and r["kind"] in args.kinds.split(",")]
    rows = rows[: args.limit] if args.limit else rows
    k = kb.open(args.db)
    linker = Grounder(k).linker
    gates = args.gates.split(",")
    llm = None
    if any(g != "kb" for g in gates):
        from reasoning.llm import llm_from_spec
        start = time.perf_counter()
        llm = llm_from_spec("local", cache=args.cache, threads=args.threads)
        print(f"model ready in {time.perf_counter() - start:.1f} s", flush=True)
    print(f"{len(rows)} questions ({args.split}); load {os.getloadavg()[0]:.1f}", flush=True)
    report = {"split": args.split, "questions": len(rows), "load_before": os.getloadavg(),
              "results": {}}
    for name in gates:
        result = run(name, rows, k, llm, linker)
        report["results"][name] = {"summary": summary(result), "rows": result["rows"]}
        print(name, json.dumps(report["results"][name]["summary"]), flush=True)
    report["load_after"] = os.getloadavg()
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1, default=str))


if __name__ == "__main__":
    main()
