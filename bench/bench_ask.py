"""``Grounder.ask`` on the T-REx slice mirror (issue 18, second half).

    python bench/bench_ask.py --db slice.sqlite [--data ../shared/data] [--json out.json]
                              [--only kb,simulated] [--limit N] [--sim-limit N]

Part 1, **the KB alone** (no LLM): ``Grounder(kb).ask(q)`` for every question of
``benchmarks/slice-qa-dev.jsonl`` and of ``bench/data/ask_questions.jsonl`` (our own wordings,
subjects the dev set does not ask about; ``bench/make_ask_questions.py``), interleaved
question by question with a fixed probe (200 triplet queries on one entity) so the
machine's speed shows next to the numbers. Answer F1 is set F1 of the answer's entity IDs
(literal values by their text) against the gold answers, averaged over questions;
"exact" is the share with F1 = 1; latency is each ask's wall time, warm (the linker and
its sidecar are loaded before timing). Targets: F1 ≥ 0.90, median ≤ 50 ms.

Part 2, **with SimulatedLLM** (a simulation, see reasoning/llm/simulated.py) per gate:
the catalog is slice-qa-dev plus our own wordings (popularity from the mirror's search
prior); the model is ``SimulatedLLM(seed)``, the verifier ``seed + 1000``, the judge the
model itself. For each question: ``Grounder(kb, model, gate=...).ask(q)``; the answer is
right when a value it asserts is a gold answer (for the model's own answers: when its
text is a gold label, normalized). Reported per gate: final answer accuracy, the model's
own accuracy (``never``), the consult share, the grounded share, revision rounds, LLM
calls and wall time per question.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import kb  # noqa: E402
from reasoning import Grounder, prompts  # noqa: E402
from reasoning.llm import FactCatalog, SimulatedLLM  # noqa: E402
from reasoning.llm.simulated import popularity_from_kb  # noqa: E402

DATA = Path(os.environ.get("KGGROUND_SHARED_DATA", HERE.parent.parent / "shared" / "data"))
OWN = HERE / "data" / "ask_questions.jsonl"
GATES = ("never", "always", "cok", "rowen-cl", "rowen-cm", "rowen-hybrid")


def load(path: Path, limit: int | None = None) -> list[dict]:
    rows = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
    return rows[:limit] if limit else rows


def f1(pred: list[str], gold: list[str]) -> float:
    p, g = set(pred), set(gold)
    if not p or not g:
        return float(p == g)
    tp = len(p & g)
    if not tp:
        return 0.0
    precision, recall = tp / len(p), tp / len(g)
    return 2 * precision * recall / (precision + recall)


def predicted(answer: Any) -> list[str]:
    return [v.id or v.label for v in answer.values]


def right(answer: Any, row: dict) -> bool:
    """A value the answer asserts is gold; for the model's own answer, its text is."""
    gold_ids = set(row["answers"])
    gold_labels = {prompts.normalize_answer(x) for x in row.get("answer_labels", [])}
    if any(v.id in gold_ids or prompts.normalize_answer(v.label) in gold_labels
           for v in answer.values):
        return True
    return prompts.normalize_answer(prompts.strip_citations(answer.text)) in gold_labels


def load_average() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def probe(base: Any) -> float:
    t = time.perf_counter()
    for _ in range(200):
        base.statements("Q42")
    return time.perf_counter() - t


def summarize(times: list[float]) -> dict[str, float]:
    s = sorted(times)
    return {"median_ms": round(statistics.median(s) * 1000, 2),
            "p90_ms": round(s[int(0.9 * (len(s) - 1))] * 1000, 2),
            "mean_ms": round(statistics.mean(s) * 1000, 2)}


# -- part 1 -------------------------------------------------------------------------------------

def kb_only(base: Any, sets: dict[str, list[dict]]) -> dict[str, Any]:
    grounder = Grounder(base)
    grounder.ask("Where was Marie Curie born?")          # load the linker and its sidecar
    order = [(name, i) for name, rows in sets.items() for i in range(len(rows))]
    random.Random(18).shuffle(order)                      # interleave the sets
    out: dict[str, dict[str, list]] = {n: {"f1": [], "t": [], "grounded": [],
                                           "by": []} for n in sets}
    probes = []
    for k, (name, i) in enumerate(order):
        if k % 100 == 0:
            probes.append(probe(base))
        row = sets[name][i]
        t = time.perf_counter()
        answer = grounder.ask(row["question"])
        out[name]["t"].append(time.perf_counter() - t)
        out[name]["f1"].append(f1(predicted(answer), row["answers"]))
        out[name]["grounded"].append(answer.grounded)
        out[name]["by"].append(answer.trace.stage("retrieve").details.get("answered_by"))
    probes.append(probe(base))
    result = {}
    for name, r in out.items():
        result[name] = {"questions": len(r["f1"]), "f1": round(statistics.mean(r["f1"]), 4),
                        "exact": round(sum(x == 1.0 for x in r["f1"]) / len(r["f1"]), 4),
                        "grounded": round(sum(r["grounded"]) / len(r["grounded"]), 4),
                        "by_query": round(r["by"].count("query") / len(r["by"]), 4),
                        **summarize(r["t"])}
    result["probe_ms"] = [round(p * 1000, 1) for p in probes]
    return result


# -- part 2 -------------------------------------------------------------------------------------

def simulated(base: Any, sets: dict[str, list[dict]], catalog: FactCatalog,
              seeds: list[int], gates: list[str]) -> dict[str, Any]:
    from linking import EntityLinker
    linker = EntityLinker(base)
    result: dict[str, Any] = {}
    for name, rows in sets.items():
        per_gate: dict[str, dict[str, list]] = {g: {"right": [], "consult": [], "grounded": [],
                                                    "rounds": [], "calls": [], "t": []}
                                                for g in gates}
        for seed in seeds:
            model = SimulatedLLM(catalog, seed=seed)
            verifier = SimulatedLLM(catalog, seed=seed + 1000)
            grounders = {g: Grounder(base, model, gate=g, verifier=verifier, linker=linker)
                         for g in gates}
            for row in rows:
                for g in gates:                           # interleaved per question
                    t = time.perf_counter()
                    a = grounders[g].ask(row["question"])
                    r = per_gate[g]
                    r["t"].append(time.perf_counter() - t)
                    r["right"].append(right(a, row))
                    r["consult"].append(bool(a.decision and a.decision.consult))
                    r["grounded"].append(a.grounded)
                    r["rounds"].append(a.rounds)
                    r["calls"].append(a.trace.n_llm_calls)
        result[name] = {
            g: {"questions": len(r["right"]),
                "accuracy": round(statistics.mean(r["right"]), 4),
                "consult": round(statistics.mean(r["consult"]), 4),
                "grounded": round(statistics.mean(r["grounded"]), 4),
                "rounds": round(statistics.mean(r["rounds"]), 3),
                "calls": round(statistics.mean(r["calls"]), 2), **summarize(r["t"])}
            for g, r in per_gate.items()}
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", required=True, help="the slice mirror")
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--only", default="kb,simulated")
    ap.add_argument("--limit", type=int, default=None, help="dev questions (KB alone)")
    ap.add_argument("--sim-limit", type=int, default=300,
                    help="dev questions with the simulated model")
    ap.add_argument("--seeds", default="1")
    ap.add_argument("--gates", default=",".join(GATES))
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    base = kb.open(args.db)
    dev_path = args.data / "benchmarks" / "slice-qa-dev.jsonl"
    report: dict[str, Any] = {"load_before": load_average()}
    parts = args.only.split(",")
    if "kb" in parts:
        sets = {"slice-qa-dev": load(dev_path, args.limit), "own wordings": load(OWN)}
        report["kb_only"] = kb_only(base, sets)
        print(json.dumps(report["kb_only"], indent=1), flush=True)
    if "simulated" in parts:
        dev = load(dev_path)
        own = load(OWN)
        catalog = FactCatalog.from_rows(dev + own, popularity=popularity_from_kb(base))
        sample = random.Random(7).sample(dev, min(args.sim_limit, len(dev)))
        report["simulated"] = simulated(
            base, {"slice-qa-dev": sample, "own wordings": own}, catalog,
            [int(s) for s in args.seeds.split(",")], args.gates.split(","))
        print(json.dumps(report["simulated"], indent=1), flush=True)
    report["load_after"] = load_average()
    print(report["load_before"], "|", report["load_after"])
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
