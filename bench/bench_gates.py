"""Benchmark of the consult-the-KB gates (issue 18).

Part 1, latency: every policy with scripted models that take ``--delay`` seconds per call
(default 0.1), concurrent (the gates' default of 16 workers) and sequential (one worker),
in interleaved rounds; calls per decision and the median wall time. Rowen's official code
makes 3 + 9k = 57 sequential calls at k = 6, 5.7 s at 100 ms a call: the target is a
rowen-hybrid decision in ≤ 1.0 s wall (≥ 5.7× faster).

Part 2, the gates on SimulatedLLM (a simulation, see reasoning/llm/simulated.py): on
slice-qa-dev and on this folder's ``gate_questions.jsonl`` (our own wording, facts not in
slice-qa-dev), per policy: AUROC of its score against "the model's greedy answer is
wrong", the share of questions that consult the KB, the share of wrong answers caught,
and the accuracy if every consult fixed the answer (an upper bound: the real number comes
with Grounder.ask).

    python bench/bench_gates.py --db slice.sqlite --json gates.json
    python bench/bench_gates.py --skip-simulated          # latency only (~1 min)

``--db`` (a slice mirror) gives subjects their popularity (the search prior); without it
every subject is equally popular.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from reasoning import prompts  # noqa: E402
from reasoning.gates import GATES, make_gate  # noqa: E402
from reasoning.llm import FactCatalog, ScriptedLLM, SimulatedLLM  # noqa: E402
from reasoning.llm.simulated import popularity_from_kb  # noqa: E402

HERE = Path(__file__).resolve().parent
DATA = Path(os.environ.get("KGGROUND_SHARED_DATA", HERE.parent.parent / "shared" / "data"))
QUESTION = "Which party was Gheorghe Pintilie a member of?"


def role_player(delay: float, model: str, answer: str = "Romanian Communist Party"):
    """A scripted model playing every role of reasoning.prompts, ``delay`` s per call."""
    def reply(p):
        task, f = prompts.identify(p.messages)
        if task == "paraphrase":
            return f"Variant {p.index}: {f['question']}"
        if task == "translate":
            return f"请问：{f['question']}"
        if task == "answer":
            return answer
        if task == "cot":
            return f"Thinking.\nAnswer: {answer}"
        return "True"
    return ScriptedLLM(reply, delay=delay, model=model)


def latency(delay: float, rounds: int, k: int) -> list[dict]:
    model, verifier = role_player(delay, "model"), role_player(delay, "verifier")
    variants = [(name, {}, "llm") for name in GATES]
    variants.append(("rowen-hybrid", {}, "similarity"))
    runs: dict[tuple, list[float]] = {}
    calls: dict[tuple, int] = {}
    for _ in range(rounds):                         # interleaved: each round runs them all
        for name, options, checker in variants:
            for workers in ("concurrent", "sequential"):
                if workers == "sequential" and not name.startswith("rowen"):
                    continue                        # one call (cok) or none: nothing to overlap
                opts = dict(options)
                if name.startswith("rowen"):
                    opts.update(k=k, max_workers=16 if workers == "concurrent" else 1)
                gate = make_gate(name, model, verifier=verifier, checker=checker, **opts)
                start = time.perf_counter()
                d = gate.decide(QUESTION)
                key = (name, checker, workers)
                runs.setdefault(key, []).append(time.perf_counter() - start)
                calls[key] = len(d.calls)
    rows = []
    for (name, checker, workers), walls in runs.items():
        rows.append({"gate": name, "checker": checker if name.startswith("rowen") else "",
                     "workers": workers, "calls": calls[(name, checker, workers)],
                     "wall_s": statistics.median(walls), "wall_max_s": max(walls)})
    return rows


def latency_http(delay: float, rounds: int, k: int) -> list[dict]:
    """rowen-hybrid through OpenAIChatLLM against two loopback chat-completions servers
    answering after ``delay`` seconds (the verifier's ignores n), at several client
    concurrency bounds."""
    from reasoning.llm.openai_chat import OpenAIChatLLM
    from tests.openai_server import ChatServer

    def play(body, i):
        task, f = prompts.identify(body["messages"])
        return {"paraphrase": f"Variant {i}: {f.get('question', '')}",
                "translate": f"请问：{f.get('question', '')}", "judge": "True"}.get(
            task, "Romanian Communist Party")
    rows = []
    with ChatServer(play, delay=delay) as main, \
            ChatServer(play, delay=delay, honour_n=False) as other:
        walls: dict[int, list[float]] = {}
        calls: dict[int, int] = {}
        for _ in range(rounds):
            for bound in (4, 8, 16):
                model = OpenAIChatLLM("main", base_url=main.base_url, api_key="k",
                                      max_concurrency=bound)
                verifier = OpenAIChatLLM("verifier", base_url=other.base_url, api_key="k",
                                         max_concurrency=bound)
                gate = make_gate("rowen-hybrid", model, verifier=verifier, k=k)
                start = time.perf_counter()
                d = gate.decide(QUESTION)
                walls.setdefault(bound, []).append(time.perf_counter() - start)
                calls[bound] = len(d.calls)
                model.close()
                verifier.close()
        for bound, ws in walls.items():
            rows.append({"gate": "rowen-hybrid", "max_concurrency": bound,
                         "calls": calls[bound], "wall_s": statistics.median(ws),
                         "wall_max_s": max(ws)})
    return rows


def answer_is_wrong(llm, question: str, gold: tuple[str, ...]) -> bool:
    reply = llm.complete(prompts.ANSWER.render(question=question))[0]
    said = prompts.normalize_answer(prompts.extract_answer(reply))
    return said not in {prompts.normalize_answer(g) for g in gold}


def auroc(wrong: list[bool], scores: list[float]) -> float | None:
    from sklearn.metrics import roc_auc_score
    if all(wrong) or not any(wrong):
        return None
    return float(roc_auc_score(wrong, [-s for s in scores]))   # low consistency → wrong


def simulated(catalog: FactCatalog, questions: list, seeds: list[int],
              similarity_limit: int) -> list[dict]:
    out = []
    for seed in seeds:
        model = SimulatedLLM(catalog, seed=seed)
        verifier = SimulatedLLM(catalog, seed=seed + 1000)
        wrong = [answer_is_wrong(model, f.question, f.labels) for f in questions]
        variants = [(g, "llm", questions) for g in GATES]
        variants.append(("rowen-hybrid", "similarity", questions[:similarity_limit]))
        for name, checker, qs in variants:
            gate = make_gate(name, model, verifier=verifier, checker=checker)
            scores, consult, calls = [], [], 0
            start = time.perf_counter()
            for fact in qs:
                d = gate.decide(fact.question)
                scores.append(d.score if d.score is not None else 0.0)
                consult.append(d.consult)
                calls += len(d.calls)
            wall = time.perf_counter() - start
            w = wrong[:len(qs)]
            caught = sum(c and x for c, x in zip(consult, w))
            out.append({
                "seed": seed, "gate": name, "checker": checker, "questions": len(qs),
                "model_accuracy": 1 - sum(w) / len(w),
                "auroc": auroc(w, scores) if name not in ("always", "never") else None,
                "consult_share": sum(consult) / len(qs),
                "wrong_caught": caught / sum(w) if sum(w) else None,
                "right_consulted": (sum(c and not x for c, x in zip(consult, w))
                                    / (len(w) - sum(w))) if len(w) > sum(w) else None,
                "accuracy_upper_bound": sum(c or not x for c, x in zip(consult, w)) / len(qs),
                "calls_per_question": calls / len(qs),
                "ms_per_question": 1000 * wall / len(qs)})
    return out


def summarize(rows: list[dict]) -> list[dict]:
    """Mean (and spread) over seeds per gate/checker."""
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        groups.setdefault((r["gate"], r["checker"]), []).append(r)
    out = []
    for (gate, checker), rs in groups.items():
        def mean(key):
            vals = [r[key] for r in rs if r[key] is not None]
            return statistics.mean(vals) if vals else None

        def spread(key):
            vals = [r[key] for r in rs if r[key] is not None]
            return (min(vals), max(vals)) if vals else None
        out.append({"gate": gate, "checker": checker, "questions": rs[0]["questions"],
                    "seeds": len(rs), "model_accuracy": mean("model_accuracy"),
                    "auroc": mean("auroc"), "auroc_range": spread("auroc"),
                    "consult_share": mean("consult_share"),
                    "wrong_caught": mean("wrong_caught"),
                    "right_consulted": mean("right_consulted"),
                    "accuracy_upper_bound": mean("accuracy_upper_bound"),
                    "calls_per_question": mean("calls_per_question"),
                    "ms_per_question": mean("ms_per_question")})
    return out


def fmt(v, digits=3):
    return "–" if v is None else f"{v:.{digits}f}"


def print_latency(rows: list[dict], delay: float, k: int) -> None:
    print(f"\n## Latency (scripted models, {1000 * delay:.0f} ms per call, k={k})\n")
    print("| gate | checker | workers | calls | median wall s | max wall s |")
    print("|---|---|---|---:|---:|---:|")
    for r in rows:
        print(f"| {r['gate']} | {r['checker']} | {r['workers']} | {r['calls']} | "
              f"{r['wall_s']:.3f} | {r['wall_max_s']:.3f} |")
    hybrid = next(r for r in rows if r["gate"] == "rowen-hybrid" and r["checker"] == "llm"
                  and r["workers"] == "concurrent")
    seq = next(r for r in rows if r["gate"] == "rowen-hybrid" and r["checker"] == "llm"
               and r["workers"] == "sequential")
    official = (3 + 9 * k) * delay
    print(f"\nrowen-hybrid: {hybrid['wall_s']:.3f} s concurrent; {seq['wall_s']:.3f} s "
          f"sequential ({seq['wall_s'] / hybrid['wall_s']:.1f}×); the official code's "
          f"{3 + 9 * k} sequential calls take {official:.1f} s "
          f"({official / hybrid['wall_s']:.1f}×)")


def print_simulated(title: str, rows: list[dict]) -> None:
    print(f"\n## {title}\n")
    print("| gate | checker | questions | seeds | model acc | AUROC (min–max) | consult | "
          "wrong caught | right consulted | acc. upper bound | calls/q | ms/q |")
    print("|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        rng = r["auroc_range"]
        au = "–" if r["auroc"] is None else \
            f"{r['auroc']:.3f} ({rng[0]:.3f}–{rng[1]:.3f})"
        print(f"| {r['gate']} | {r['checker'] if r['gate'].startswith('rowen') else ''} | "
              f"{r['questions']} | {r['seeds']} | {fmt(r['model_accuracy'])} | {au} | "
              f"{fmt(r['consult_share'])} | {fmt(r['wrong_caught'])} | "
              f"{fmt(r['right_consulted'])} | {fmt(r['accuracy_upper_bound'])} | "
              f"{fmt(r['calls_per_question'], 1)} | {fmt(r['ms_per_question'], 2)} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--delay", type=float, default=0.1, help="seconds per scripted call")
    ap.add_argument("--rounds", type=int, default=5, help="interleaved latency rounds")
    ap.add_argument("--k", type=int, default=6, help="Rowen's paraphrases")
    ap.add_argument("--db", help="slice mirror, for the subjects' popularity")
    ap.add_argument("--data", type=Path, default=DATA, help="the shared data folder")
    ap.add_argument("--limit", type=int, default=None, help="slice-qa-dev questions to use")
    ap.add_argument("--seeds", default="1,2,3", help="SimulatedLLM seeds (verifier: +1000)")
    ap.add_argument("--similarity-limit", type=int, default=300,
                    help="questions for the MiniLM-checker variant (it is slower)")
    ap.add_argument("--torch-threads", type=int, default=1,
                    help="torch threads for MiniLM (0: torch's default). On the shared "
                         "2-core machine two OpenMP threads starve under load: one is 10× "
                         "faster there")
    ap.add_argument("--skip-latency", action="store_true")
    ap.add_argument("--skip-simulated", action="store_true")
    ap.add_argument("--json", type=Path, help="write all numbers here")
    args = ap.parse_args()

    if args.torch_threads:
        try:
            import torch
            torch.set_num_threads(args.torch_threads)
        except ImportError:
            pass
    report: dict = {"load": os.getloadavg(), "args": {k: str(v) for k, v in vars(args).items()}}
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if not args.skip_latency:
        report["latency"] = latency(args.delay, args.rounds, args.k)
        print_latency(report["latency"], args.delay, args.k)
        report["latency_http"] = latency_http(args.delay, args.rounds, args.k)
        print(f"\n## rowen-hybrid over loopback HTTP (OpenAIChatLLM, servers answering "
              f"after {1000 * args.delay:.0f} ms)\n")
        print("| max_concurrency per client | calls | median wall s | max wall s |")
        print("|---:|---:|---:|---:|")
        for r in report["latency_http"]:
            print(f"| {r['max_concurrency']} | {r['calls']} | {r['wall_s']:.3f} | "
                  f"{r['wall_max_s']:.3f} |")
    if not args.skip_simulated:
        dev = args.data / "benchmarks" / "slice-qa-dev.jsonl"
        if not dev.exists():
            sys.exit(f"{dev} is absent: pass --data (the shared data folder)")
        dev_rows = [json.loads(line) for line in open(dev, encoding="utf-8")][:args.limit]
        own_rows = [json.loads(line) for line in open(HERE / "data" / "gate_questions.jsonl",
                                                      encoding="utf-8")]
        popularity = None
        if args.db:
            import kb
            popularity = popularity_from_kb(kb.open(args.db))
        start = time.perf_counter()
        catalog = FactCatalog.from_rows(dev_rows + own_rows, popularity=popularity)
        print(f"\ncatalog: {len(catalog)} facts in {time.perf_counter() - start:.1f} s "
              f"(popularity from {'the mirror' if args.db else 'nowhere: uniform'})")
        seeds = [int(s) for s in args.seeds.split(",")]
        dev_facts, own_facts = catalog.facts[:len(dev_rows)], catalog.facts[len(dev_rows):]
        for title, facts, key in (("SimulatedLLM on slice-qa-dev", dev_facts, "dev"),
                                  ("SimulatedLLM on our own wordings (gate_questions.jsonl)",
                                   own_facts, "own")):
            rows = simulated(catalog, facts, seeds, args.similarity_limit)
            report[f"simulated_{key}"] = rows
            report[f"simulated_{key}_summary"] = summary = summarize(rows)
            print_simulated(title, summary)
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, default=str))


if __name__ == "__main__":
    main()
