"""Every evaluation number of bench/RESULTS.md (issue 19) in one command.

    python bench/bench_eval.py --out /work/dev/eval/runs
    python bench/bench_eval.py --out runs --db slice.sqlite --endpoint URL --graph IRI

Runs ``kgground eval`` (a process per run, --workers 2) over the benchmarks of
../shared/data/benchmarks and our own wordings (bench/eval-own-questions.jsonl), on two
KB paths:

- ``mirror``: the slice mirror (--db; build it with ``kgground mirror load
  trex-slice.nt.gz --db slice.sqlite``);
- ``live``: every statement from the SPARQL endpoint holding the slice (--endpoint, the
  dev Virtuoso by default), behind a mirror holding only the slice's labels, aliases and
  descriptions (linking needs a local label index; no statement is in it). The labels
  mirror is built once from trex-slice.nt.gz (the ``wdt:`` lines dropped), and each run
  starts from a fresh copy of it, since the live path writes what it fetches back into
  its mirror.

Settings per benchmark and path: ``kb-only`` (no LLM), and ``--llm simulated:1`` with
each gate (``never``, ``always``, ``cok``, ``rowen-cl``, and with ``--verifier
simulated:2`` ``rowen-cm``, ``rowen-hybrid``). The simulated model's facts are the
benchmark's own one-fact questions (Mintaka has none: there it lives in slice-qa-dev's
facts, so it knows nothing Mintaka asks). Question counts are the ``LIMITS`` below.

Every run resumes: run the command again after an interruption and the finished
questions are kept. ``--tables`` only prints the tables of the reports already there.
The tables (Markdown, as pasted into RESULTS.md) go to OUT/tables.md and stdout.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DATA = Path(os.environ.get("KGGROUND_SHARED_DATA", REPO.parent / "shared" / "data"))
if not DATA.exists():
    DATA = Path("/work/shared/data")
BENCH = DATA / "benchmarks"
SLICE = DATA / "wikidata" / "trex-slice.nt.gz"

BENCHMARKS = {           # name: (file, extra options)
    "slice-qa-dev": (BENCH / "slice-qa-dev.jsonl", []),
    "own-wordings": (HERE / "eval-own-questions.jsonl", []),
    "qald7-test": (BENCH / "qald7-test.jsonl", []),
    "wwq-dev": (BENCH / "wwq-dev.jsonl", []),
    "simplequestions-dev": (BENCH / "simplequestions-dev.jsonl", []),
    "mintaka-dev": (BENCH / "mintaka-dev.jsonl", ["--catalog",
                                                  str(BENCH / "slice-qa-dev.jsonl")]),
}
SETTINGS = {
    "kb-only": [],
    "never": ["--llm", "simulated:1", "--gate", "never"],
    "always": ["--llm", "simulated:1", "--gate", "always"],
    "cok": ["--llm", "simulated:1", "--gate", "cok"],
    "rowen-cl": ["--llm", "simulated:1", "--gate", "rowen-cl"],
    "rowen-cm": ["--llm", "simulated:1", "--verifier", "simulated:2", "--gate", "rowen-cm"],
    "rowen-hybrid": ["--llm", "simulated:1", "--verifier", "simulated:2", "--gate",
                     "rowen-hybrid"],
}
# questions per run: (path, setting kind) → limit per benchmark (None: the whole file)
LIMITS = {
    ("mirror", "kb-only"): {"simplequestions-dev": 1000},
    ("mirror", "gate"): {"slice-qa-dev": 500, "wwq-dev": 300, "simplequestions-dev": 300,
                         "mintaka-dev": 300},
    ("live", "kb-only"): {"slice-qa-dev": 300, "wwq-dev": 200, "simplequestions-dev": 200,
                          "mintaka-dev": 200},
    ("live", "gate"): {"slice-qa-dev": 100, "own-wordings": 100, "wwq-dev": 100,
                       "simplequestions-dev": 100, "mintaka-dev": 100},
}
WORKERS = 2


def limit_for(path: str, setting: str, bench: str) -> int | None:
    kind = "kb-only" if setting == "kb-only" else "gate"
    return LIMITS.get((path, kind), {}).get(bench)


def labels_mirror(out: Path) -> Path:
    """The slice's labels, aliases and descriptions without a statement (built once)."""
    db = out / "live" / "slice-labels.sqlite"
    if db.exists():
        return db
    db.parent.mkdir(parents=True, exist_ok=True)
    nt = db.with_suffix(".nt.gz")
    with gzip.open(SLICE, "rt", encoding="utf-8") as src, \
            gzip.open(nt, "wt", encoding="utf-8", compresslevel=1) as dst:
        for line in src:
            if "<http://www.wikidata.org/prop/direct/" not in line:
                dst.write(line)
    subprocess.run([sys.executable, "-m", "reasoning", "mirror", "load", str(nt), "--db",
                    str(db)], check=True, env=_env(), stdout=subprocess.DEVNULL)
    nt.unlink()
    return db


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO)}


def run_one(out: Path, path: str, bench: str, setting: str, db: str, endpoint: str | None,
            labels: Path | None) -> Path:
    file, extra = BENCHMARKS[bench]
    report = out / path / f"{bench}.{setting}.json"
    records = report.with_name(f"{report.stem}.records.jsonl")
    if report.exists() and json.loads(report.read_text()).get("complete"):
        return report
    cmd = [sys.executable, "-m", "reasoning", "eval", str(file), "--report", str(report),
           "--workers", str(WORKERS), "--no-progress", "--json", *SETTINGS[setting]]
    if setting != "kb-only":
        cmd += extra
    limit = limit_for(path, setting, bench)
    if limit:
        cmd += ["--limit", str(limit)]
    if path == "mirror":
        cmd += ["--db", db, "--offline"]
    else:
        work = out / "live" / "db" / f"{bench}.{setting}.sqlite"
        if not records.exists() or not work.exists():   # a fresh run: a fresh labels copy
            work.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(labels, work)
        cmd += ["--db", str(work), "--endpoint", endpoint, "--no-cache"]
    print(f"[{time.strftime('%H:%M:%S')}] {path} {bench} {setting} "
          f"({limit or 'all'} questions)", file=sys.stderr, flush=True)
    done = subprocess.run(cmd, env=_env(), capture_output=True, text=True)
    if done.returncode != 0:
        print(done.stderr[-2000:], file=sys.stderr)
        raise SystemExit(f"failed: {' '.join(cmd)}")
    if path == "live":
        (out / "live" / "db" / f"{bench}.{setting}.sqlite").unlink(missing_ok=True)
    return report


# -- tables ------------------------------------------------------------------------------------

def f(v, d=3):
    return "–" if v is None else (f"{v:.{d}f}" if isinstance(v, float) else str(v))


def totals_table(out: Path, path: str) -> str:
    head = ("| benchmark | setting | n | macro F1 | QALD F1 | EM | coverage | F1 covered | "
            "retrieval | LLM/q | KB/q | p50 ms | p90 ms | AUROC |\n"
            "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
    rows = []
    for bench in BENCHMARKS:
        for setting in SETTINGS:
            report = out / path / f"{bench}.{setting}.json"
            if not report.exists():
                continue
            r = json.loads(report.read_text())
            t = r["totals"]
            n = f"{t['questions']}" + ("" if r.get("complete") else
                                       f" of {r['total_questions']}")
            rows.append(f"| {bench} | {setting} | {n} | {f(t['macro_f1'])} | "
                        f"{f(t['qald_macro_f1'])} | {f(t['exact_match'])} | "
                        f"{f(t['coverage'])} | {f(t['covered_f1'])} | "
                        f"{f(t['retrieval_ratio'], 2)} | {f(t['llm_calls'], 1)} | "
                        f"{f(t['kb_calls'], 1)} | {f(t['latency_ms']['p50'], 0)} | "
                        f"{f(t['latency_ms']['p90'], 0)} | {f(t['auroc'])} |")
    return head + "\n".join(rows)


def types_table(out: Path, path: str) -> str:
    head = ("| benchmark | type | n | macro F1 | coverage | F1 covered | F1 uncovered |\n"
            "|---|---|--:|--:|--:|--:|--:|\n")
    rows = []
    for bench in BENCHMARKS:
        report = out / path / f"{bench}.kb-only.json"
        if not report.exists():
            continue
        for name, t in json.loads(report.read_text())["by_type"].items():
            rows.append(f"| {bench} | {name} | {t['questions']} | {f(t['macro_f1'])} | "
                        f"{f(t['coverage'])} | {f(t['covered_f1'])} | "
                        f"{f(t['uncovered_f1'])} |")
    return head + "\n".join(rows)


def tables(out: Path) -> str:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO,
                            capture_output=True, text=True).stdout.strip()
    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    parts = [f"commit {commit}; load at the end: `{load}`", ""]
    for path in ("mirror", "live"):
        if (out / path).exists():
            parts += [f"### {path} path", "", totals_table(out, path), "",
                      f"KB-only by question type ({path} path):", "",
                      types_table(out, path), ""]
    return "\n".join(parts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.environ.get("KGGROUND_EVAL_OUT",
                                                    "/work/dev/eval/runs"))
    ap.add_argument("--db", default=os.environ.get("KGGROUND_EVAL_DB",
                                                   "/work/dev/slice.sqlite"))
    ap.add_argument("--endpoint", default=os.environ.get("KGGROUND_VIRTUOSO_URL"))
    ap.add_argument("--paths", default="mirror,live")
    ap.add_argument("--benchmarks", default=",".join(BENCHMARKS))
    ap.add_argument("--settings", default=",".join(SETTINGS))
    ap.add_argument("--tables", action="store_true", help="only print the tables")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if not args.tables:
        paths = args.paths.split(",")
        if "live" in paths and not args.endpoint:
            raise SystemExit("the live path needs --endpoint (or $KGGROUND_VIRTUOSO_URL)")
        labels = labels_mirror(out) if "live" in paths else None
        for path in paths:
            for setting in args.settings.split(","):
                for bench in args.benchmarks.split(","):
                    run_one(out, path, bench, setting, args.db, args.endpoint, labels)
    text = tables(out)
    (out / "tables.md").write_text(text + "\n", encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
