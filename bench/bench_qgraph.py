"""Query graphs (issue 27): the KB-only answer's F1, abstention and wrong-but-answered rate
per kind of question, and the candidate graphs' features for ``bench/fit_graphs.py``.

    python bench/bench_qgraph.py --db slice.sqlite                    # every dev set
    python bench/bench_qgraph.py --db slice.sqlite --sets two_hop,unanswerable --limit 50
    python bench/bench_qgraph.py --db slice.sqlite --rows rows.jsonl  # features for the fit
    python bench/bench_qgraph.py --db slice.sqlite --extra /work/heldout/two_hop.jsonl

Each question is ranked by ``querygen.graphs.GraphRanker`` (the linker is loaded before the
clock). Gold answers: the file's, else the gold SPARQL run on the KB
(``reasoning.eval.gold``); a question whose gold is empty on this KB must get "no answer".
Per set it prints: n, macro F1 (QALD conventions: an empty answer to an empty gold scores
1), the share answered, the share answered wrongly (an answer with F1 < 0.5: the
"called grounded and wrong" rate), the oracle F1 (the best candidate graph's, whatever the
decision), and latency percentiles of ``rank`` alone.

``--rows`` writes one JSON line per candidate graph: the set, the question, its features,
its F1 against gold, and whether it was chosen — what ``bench/fit_graphs.py`` fits on.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import kb  # noqa: E402
from linking import EntityLinker  # noqa: E402
from querygen.graphs import GraphRanker  # noqa: E402
from querygen.languages import detect as detect_language  # noqa: E402
from reasoning.eval import answers as A  # noqa: E402
from reasoning.eval.gold import GoldResolver  # noqa: E402
from reasoning.eval.metrics import score  # noqa: E402
from reasoning.eval.readers import read_items  # noqa: E402

DATA = Path(os.environ.get("KGGROUND_SHARED_DATA", HERE.parent.parent / "shared" / "data"))
BENCH = DATA / "benchmarks"
QG = HERE / "data" / "qgraph"
#: name → (file, questions taken: None for all, else the first N)
SETS = {
    "slice-qa": (BENCH / "slice-qa-dev.jsonl", 400),
    "one_hop_fresh": (QG / "one_hop_fresh.jsonl", None),
    "two_hop": (QG / "two_hop.jsonl", None),
    "three_hop": (QG / "three_hop.jsonl", None),
    "unanswerable": (QG / "unanswerable.jsonl", None),
    "simplequestions": (BENCH / "simplequestions-dev.jsonl", 800),
    "wwq": (BENCH / "wwq-dev.jsonl", None),
    "mintaka": (BENCH / "mintaka-dev.jsonl", 400),
    "qald7-train": (BENCH / "qald7-train.jsonl", None),
    "qald9plus-train": (BENCH / "qald9plus-train.jsonl", None),
}
#: sets over the bundled demo KB (--db a mirror of it) and over tests/data/paintings.ttl
DEMO_SETS = {"demo-own": (HERE.parent / "store" / "demo" / "nobel-demo-questions.jsonl", 400),
             "demo_questions": (QG / "demo_questions.jsonl", None)}
PAINTINGS_SETS = {"paintings": (QG / "paintings_questions.jsonl", None)}
WRONG_F1 = 0.5


def predicted(graph) -> list:
    """A graph's answers as the evaluation's AnswerItems."""
    r = graph.result
    if r is None:
        return []
    if graph.query.form == "ask":
        return [A.literal("true" if r.boolean else "false")] if r.boolean is not None else []
    if graph.query.form == "count":
        return [A.literal(str(r.count or 0))]
    out = []
    for a in r.answers:
        if a.id:
            out.append(A.entity(a.id, (a.label,)))
        else:
            out.append(A.literal(a.value.value))
    return out


def run_set(name: str, path: Path, limit: int | None, ranker, kb_, rows_out, *,
            lang: str = "en", detect: bool = False) -> dict:
    """The set's figures over its questions in ``lang``; with ``detect`` each question
    is read in the language ``querygen.languages.detect`` finds, not the file's."""
    items = read_items(path, languages=(lang,))
    resolver = GoldResolver(kb_)          # per file: item keys are only unique within one
    if limit:
        items = items[:limit]
    f1s, answered, wrong, oracle, times, covered_f1 = [], 0, 0, [], [], []
    for item in items:
        gold = resolver(item)
        if gold.answers is None:
            continue
        t = time.perf_counter()
        ranking = ranker.rank(item.question,
                              lang=detect_language(item.question) if detect else item.lang)
        times.append(time.perf_counter() - t)
        chosen = ranking.best
        pred = predicted(chosen) if chosen is not None else []
        s = score(pred, list(gold.answers))
        f1s.append(s.f1)
        if gold.covered:
            covered_f1.append(s.f1)
        if chosen is not None:
            answered += 1
            wrong += s.f1 < WRONG_F1
        best = 0.0 if gold.answers else 1.0
        for g in ranking.graphs:
            gs = score(predicted(g), list(gold.answers)).f1 if g.answered else 0.0
            if g.answered:
                best = max(best, gs)
            if rows_out is not None:
                rows_out.write(json.dumps({
                    "set": name, "question": item.question, "features": dict(g.features),
                    "f1": gs, "answered": g.answered, "chosen": g is chosen,
                    "gold_empty": not gold.answers, "label_level": g.query.label_level,
                }) + "\n")
        if rows_out is not None and not ranking.graphs:
            rows_out.write(json.dumps({"set": name, "question": item.question,
                                       "features": None, "gold_empty": not gold.answers,
                                       "missing": ranking.missing}) + "\n")
        oracle.append(best)
    n = len(f1s)
    ts = sorted(times)
    return {"set": name, "n": n, "f1": statistics.fmean(f1s) if n else 0.0,
            "covered": len(covered_f1),
            "covered_f1": statistics.fmean(covered_f1) if covered_f1 else None,
            "answered": answered / n if n else 0.0, "wrong": wrong / n if n else 0.0,
            "wrong_n": wrong, "oracle_f1": statistics.fmean(oracle) if oracle else 0.0,
            "p50_ms": 1000 * ts[n // 2] if n else 0.0,
            "p90_ms": 1000 * ts[int(n * 0.9)] if n else 0.0}


def speed(k, linker, sets: dict, n: int) -> None:
    """Median and p90 ms of ``Grounder.ask`` (KB only, warm) per set, beside the chosen
    graph's SPARQL run alone (``kb.sparql``) and the CPU time of an ask."""
    from reasoning import Grounder
    g = Grounder(k, linker=linker)
    g.ask("Where was Douglas Adams born?")
    print(f"\n{'set':<22} {'n':>4} {'ask p50':>8} {'ask p90':>8} {'cpu p50':>8} "
          f"{'sparql p50':>10} {'sparql p90':>10}   (ms)")
    for name, (path, _) in sets.items():
        if not path.exists():
            continue
        items = read_items(path)[:n]
        asks, cpus, alone = [], [], []
        for item in items:
            t, c = time.perf_counter(), time.process_time()
            a = g.ask(item.question)
            asks.append(time.perf_counter() - t)
            cpus.append(time.process_time() - c)
            if a.query_graph:
                t = time.perf_counter()
                k.sparql(a.query_graph["sparql"])
                alone.append(time.perf_counter() - t)

        def pct(xs: list, q: float) -> float:
            xs = sorted(xs)
            return 1000 * xs[min(len(xs) - 1, int(len(xs) * q))] if xs else float("nan")
        print(f"{name:<22} {len(items):>4} {pct(asks, .5):>8.1f} {pct(asks, .9):>8.1f} "
              f"{pct(cpus, .5):>8.1f} {pct(alone, .5):>10.2f} {pct(alone, .9):>10.2f}",
              flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", required=True)
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--extra", action="append", default=[],
                    help="another JSON-lines question file (name = file stem)")
    ap.add_argument("--limit", type=int, default=None, help="questions per set at most")
    ap.add_argument("--rows", help="write candidate features here (JSON lines)")
    ap.add_argument("--json", help="write the summary here")
    ap.add_argument("--languages", default="en",
                    help="question languages to score, comma-separated (each a row: "
                         "SET@LANG), e.g. de,fr,es,it,pt,ru")
    ap.add_argument("--detect", action="store_true",
                    help="read each question in the detected language, not the file's")
    ap.add_argument("--speed", type=int, metavar="N", default=0,
                    help="also time N questions per set: kgground ask without an LLM "
                         "(warm), beside running the chosen graph's SPARQL alone")
    args = ap.parse_args()

    k = kb.open(args.db)
    linker = EntityLinker(k)
    ranker = GraphRanker(k, linker)
    ranker.rank("Where was Douglas Adams born?")          # warm-up: indexes, embedder
    rows_out = open(args.rows, "w", encoding="utf-8") if args.rows else None
    known = {**SETS, **DEMO_SETS, **PAINTINGS_SETS}
    sets = {n: known[n] for n in args.sets.split(",") if n}
    for extra in args.extra:
        sets[Path(extra).stem] = (Path(extra), None)
    out = []
    print(f"{'set':<22} {'n':>5} {'F1':>6} {'covF1':>6} {'answered':>8} {'wrong':>6} "
          f"{'oracle':>6} {'p50ms':>7} {'p90ms':>7}")
    for name, (path, limit) in sets.items():
        if not path.exists():
            print(f"{name:<22} skipped: {path} is absent")
            continue
        for lang in args.languages.split(","):
            label = name if lang == "en" else f"{name}@{lang}"
            r = run_set(label, path, args.limit or limit, ranker, k, rows_out, lang=lang,
                        detect=args.detect)
            if not r["n"]:
                continue
            out.append(r)
            cov = f"{r['covered_f1']:.3f}" if r["covered_f1"] is not None else "-"
            print(f"{r['set']:<22} {r['n']:>5} {r['f1']:>6.3f} {cov:>6} "
                  f"{r['answered']:>8.3f} {r['wrong']:>6.3f} {r['oracle_f1']:>6.3f} "
                  f"{r['p50_ms']:>7.1f} {r['p90_ms']:>7.1f}", flush=True)
    if rows_out is not None:
        rows_out.close()
    if len(out) > 1:
        n = sum(r["n"] for r in out)
        pooled = {"set": "all", "n": n,
                  "f1": sum(r["f1"] * r["n"] for r in out) / n,
                  "answered": sum(r["answered"] * r["n"] for r in out) / n,
                  "wrong": sum(r["wrong_n"] for r in out) / n}
        out.append(pooled)
        print(f"{'all':<22} {n:>5} {pooled['f1']:>6.3f} {'':>6} {pooled['answered']:>8.3f} "
              f"{pooled['wrong']:>6.3f}")
    if args.speed:
        speed(k, linker, sets, args.speed)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
