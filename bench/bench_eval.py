"""Every evaluation number of issue 19 (bench/RESULTS.md, bench/HISTORY.md) in one command.

    python bench/bench_eval.py --out runs          # from a clean checkout: builds the mirror
    python bench/bench_eval.py --out /work/dev/eval/runs --db /work/dev/slice.sqlite
    python bench/bench_eval.py --out /work/dev/eval/runs --tables     # the tables only

Runs ``kgground eval`` (a process per run; WORKERS questions at once) over the benchmarks of
../shared/data/benchmarks and our own wordings (bench/data/eval-own-questions.jsonl), on two
KB paths:

- ``mirror``: the slice mirror (--db, default OUT/slice.sqlite: built from
  trex-slice.nt.gz with ``kgground mirror load`` when it does not exist);
- ``live``: every statement from the SPARQL endpoint holding the slice (--endpoint,
  default $KGGROUND_VIRTUOSO_URL: the Virtuoso .ci/run starts and loads), behind a mirror
  holding only the slice's labels, aliases and descriptions (linking needs a local label
  index; no statement is in it). The labels mirror is built once from trex-slice.nt.gz
  (the ``wdt:`` lines dropped), and each run starts from a fresh copy of it, since the
  live path writes what it fetches back into its mirror.

Settings per benchmark and path: ``kb-only`` (no LLM), and ``--llm simulated:1`` with
each gate (``never``, ``always``, ``cok``, ``rowen-cl``, and with ``--verifier
simulated:2`` ``rowen-cm``, ``rowen-hybrid``). The simulated model's facts are the
benchmark's own one-fact questions (Mintaka has none: there it lives in slice-qa-dev's
facts, so it knows nothing Mintaka asks). Question counts are the ``LIMITS`` below.

Every run resumes: run the command again after an interruption and the finished
questions are kept. ``--tables`` only prints the tables of the reports already there.
The tables (Markdown, as pasted into HISTORY.md's issue 19 session) go to OUT/tables.md and
stdout.
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

BENCHMARKS = {           # name: (file, options of every run, options of the runs with a model)
    "slice-qa-dev": (BENCH / "slice-qa-dev.jsonl", [], []),
    "own-wordings": (HERE / "data" / "eval-own-questions.jsonl", [], []),
    "qald7-test": (BENCH / "qald7-test.jsonl", [], []),
    "wwq-dev": (BENCH / "wwq-dev.jsonl", [], []),
    "simplequestions-dev": (BENCH / "simplequestions-dev.jsonl", [], []),
    "mintaka-dev": (BENCH / "mintaka-dev.jsonl", [],
                    ["--catalog", str(BENCH / "slice-qa-dev.jsonl")]),
    "mintaka-dev-9-languages": (BENCH / "mintaka-dev.jsonl", ["--languages", "all"],
                                ["--catalog", str(BENCH / "slice-qa-dev.jsonl")]),
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
# questions per run: (path, setting kind) → per benchmark, ("first", N): the file's first N
# questions (the files are in random order); ("sample", N): N questions drawn with SEED
# (kgground eval --sample N --seed); SKIP: not run. Absent: the whole file. The cuts fit
# the runs into about 90 minutes of two cores shared with four other engineers (load
# 10-20); the live path costs ~25x the mirror path per question (every KB call is an HTTP
# round trip) and each live process first loads the endpoint's property list.
SKIP = ("skip", 0)
SEED = 19
LIMITS = {
    ("mirror", "kb-only"): {"simplequestions-dev": ("first", 1000),
                            "mintaka-dev-9-languages": ("sample", 30)},
    ("mirror", "gate"): {"slice-qa-dev": ("first", 300), "wwq-dev": ("sample", 100),
                         "simplequestions-dev": ("sample", 100),
                         "mintaka-dev": ("sample", 50), "mintaka-dev-9-languages": SKIP},
    ("live", "kb-only"): {"slice-qa-dev": ("first", 400), "wwq-dev": ("sample", 50),
                          "simplequestions-dev": ("sample", 50),
                          "mintaka-dev": ("sample", 25), "mintaka-dev-9-languages": SKIP},
    ("live", "gate"): {"slice-qa-dev": ("sample", 50), "own-wordings": ("sample", 50),
                       "qald7-test": SKIP, "wwq-dev": SKIP, "simplequestions-dev": SKIP,
                       "mintaka-dev": SKIP, "mintaka-dev-9-languages": SKIP},
}
# questions answered at once: the live path waits on HTTP round trips to the endpoint
# (its process uses a fifth of a core at 2 workers), so it runs more of them
WORKERS = {"mirror": 2, "live": 8}


def limit_for(path: str, setting: str, bench: str) -> tuple[str, int] | None:
    kind = "kb-only" if setting == "kb-only" else "gate"
    return LIMITS.get((path, kind), {}).get(bench)


def describe(limit: tuple[str, int] | None) -> str:
    if limit is None:
        return "all"
    how, n = limit
    return f"first {n}" if how == "first" else f"sample {n} (seed {SEED})"


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


def slice_mirror(db: Path) -> Path:
    """The slice mirror at ``db``, built from trex-slice.nt.gz when it does not exist."""
    if not db.exists():
        print(f"building the slice mirror {db} (a few minutes, once)", file=sys.stderr,
              flush=True)
        db.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "reasoning", "mirror", "load", str(SLICE),
                        "--db", str(db)], check=True, env=_env(), stdout=subprocess.DEVNULL)
    return db


def run_one(out: Path, path: str, bench: str, setting: str, db: str, endpoint: str | None,
            labels: Path | None) -> Path | None:
    """One ``kgground eval`` run (resumed if its records exist); its report, or None when
    LIMITS skips it. Beside the report, ``*.run.json`` notes the commit, the questions
    asked, the wall time and the machine's load before and after."""
    file, every, with_model = BENCHMARKS[bench]
    limit = limit_for(path, setting, bench)
    if limit == SKIP:
        return None
    report = out / path / f"{bench}.{setting}.json"
    records = report.with_name(f"{report.stem}.records.jsonl")
    info_path = report.with_name(f"{report.stem}.run.json")
    if report.exists() and json.loads(report.read_text()).get("complete") \
            and info_path.exists():
        return report
    cmd = [sys.executable, "-m", "reasoning", "eval", str(file), "--report", str(report),
           "--workers", str(WORKERS[path]), "--no-progress", "--json", *every, *SETTINGS[setting]]
    if setting != "kb-only":
        cmd += with_model
    if limit is not None:
        how, n = limit
        cmd += ["--limit", str(n)] if how == "first" else \
            ["--sample", str(n), "--seed", str(SEED)]
    if path == "mirror":
        cmd += ["--db", db, "--offline"]
    else:
        work = out / "live" / "db" / f"{bench}.{setting}.sqlite"
        if not records.exists() or not work.exists():   # a fresh run: a fresh labels copy
            work.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(labels, work)
        cmd += ["--db", str(work), "--endpoint", endpoint, "--no-cache"]
    print(f"[{time.strftime('%H:%M:%S')}] {path} {bench} {setting} ({describe(limit)})",
          file=sys.stderr, flush=True)
    before = max(0, len(records.read_text(encoding="utf-8").splitlines()) - 1) \
        if records.exists() else 0
    load_before = _load()
    start = time.perf_counter()
    done = subprocess.run(cmd, env=_env(), capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        print(done.stderr[-2000:], file=sys.stderr)
        raise SystemExit(f"failed: {' '.join(cmd)}")
    if path == "live":
        (out / "live" / "db" / f"{bench}.{setting}.sqlite").unlink(missing_ok=True)
    info = {"commit": _commit(), "questions": describe(limit), "wall_s": round(wall, 1),
            "answered_before": before,
            "load_before": load_before, "load_after": _load(),
            "finished": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
            "command": " ".join(cmd[1:])}
    info_path.write_text(json.dumps(info, indent=1) + "\n", encoding="utf-8")
    return report


def _load() -> str:
    """The 1, 5 and 15 minute load averages."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _commit() -> str:
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO,
                          capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                           cwd=REPO, capture_output=True, text=True).stdout.strip()
    return head + ("+changes" if dirty else "")


# -- tables ------------------------------------------------------------------------------------

def f(v, d=3):
    return "–" if v is None else (f"{v:.{d}f}" if isinstance(v, float) else str(v))


def _runs(out: Path, path: str):
    """(benchmark, setting, report, run info) of every finished run, in table order."""
    for bench in BENCHMARKS:
        for setting in SETTINGS:
            report = out / path / f"{bench}.{setting}.json"
            if report.exists():
                info_path = report.with_name(f"{report.stem}.run.json")
                info = json.loads(info_path.read_text()) if info_path.exists() else {}
                yield bench, setting, json.loads(report.read_text()), info


def _gold(t: dict) -> str:
    sources = t.get("gold_sources") or {}
    return ", ".join(f"{k} {v}" for k, v in sources.items()) or "–"


def totals_table(out: Path, path: str) -> str:
    head = ("| benchmark | setting | questions | macro F1 | coverage | F1 covered | QALD F1 | "
            "EM | gold from | retrieval | LLM/q | KB/q | p50 ms | p90 ms | AUROC | "
            "wall s |\n"
            "|---|---|---|--:|--:|--:|--:|--:|---|--:|--:|--:|--:|--:|--:|--:|\n")
    rows = []
    for bench, setting, r, info in _runs(out, path):
        t = r["totals"]
        n = f"{t['questions']}" + ("" if r.get("complete") else
                                   f" of {r['total_questions']} (INCOMPLETE)")
        if info.get("questions", "all") != "all":
            n += f", {info['questions']}"
        rows.append(f"| {bench} | {setting} | {n} | {f(t['macro_f1'])} | "
                    f"{f(t['coverage'])} | {f(t['covered_f1'])} | "
                    f"{f(t['qald_macro_f1'])} | {f(t['exact_match'])} | {_gold(t)} | "
                    f"{f(t['retrieval_ratio'], 2)} | {f(t['llm_calls'], 1)} | "
                    f"{f(t['kb_calls'], 1)} | {f(t['latency_ms']['p50'], 0)} | "
                    f"{f(t['latency_ms']['p90'], 0)} | {f(t['auroc'])} | "
                    f"{f(info.get('wall_s'), 0)} |")
    return head + "\n".join(rows)


def group_table(out: Path, path: str, key: str, title: str) -> str:
    """KB-only rows broken down by ``key`` (by_type, by_language); languages only where
    a run asked more than one."""
    head = (f"| benchmark | {title} | n | macro F1 | coverage | F1 covered | "
            "F1 uncovered |\n|---|---|--:|--:|--:|--:|--:|\n")
    rows = []
    for bench, setting, r, _ in _runs(out, path):
        if setting != "kb-only" or (key == "by_language" and len(r[key]) < 2):
            continue
        for name, t in r[key].items():
            rows.append(f"| {bench} | {name} | {t['questions']} | {f(t['macro_f1'])} | "
                        f"{f(t['coverage'])} | {f(t['covered_f1'])} | "
                        f"{f(t['uncovered_f1'])} |")
    return head + "\n".join(rows) if rows else ""


def runs_line(out: Path, path: str) -> str:
    infos = [info for *_, info in _runs(out, path)]
    commits = sorted({i.get("commit", "?") for i in infos})
    loads = [float(x) for i in infos for k in ("load_before", "load_after")
             for x in (i.get(k) or "").split()[:1]]
    wall = sum(i.get("wall_s") or 0 for i in infos)
    load = f"{min(loads):.1f}–{max(loads):.1f}" if loads else "?"
    return (f"{len(infos)} runs at commit {', '.join(commits)}; {wall / 60:.0f} min of "
            f"runs; 1-minute load average {load} (before and after each run)")


def tables(out: Path) -> str:
    """The Markdown tables of every finished run: a function of the files in ``out``
    only (the commit and load come from each run's ``.run.json``), so ``--tables``
    prints the same text every time."""
    parts = []
    for path in ("mirror", "live"):
        if not (out / path).exists() or not any(_runs(out, path)):
            continue
        parts += [f"#### {path} path", "", runs_line(out, path), "",
                  totals_table(out, path), "",
                  f"KB-only by question type ({path} path):", "",
                  group_table(out, path, "by_type", "type"), ""]
        langs = group_table(out, path, "by_language", "language")
        if langs:
            parts += [f"KB-only by language ({path} path):", "", langs, ""]
    return "\n".join(parts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.environ.get("KGGROUND_EVAL_OUT", "eval-runs"),
                    help="where the reports go [default: ./eval-runs]")
    ap.add_argument("--db", default=os.environ.get("KGGROUND_EVAL_DB"),
                    help="the slice mirror [default: OUT/slice.sqlite, built if missing]")
    ap.add_argument("--endpoint", default=os.environ.get("KGGROUND_VIRTUOSO_URL"),
                    help="the SPARQL endpoint holding the slice [default: "
                         "$KGGROUND_VIRTUOSO_URL]")
    ap.add_argument("--paths", default="mirror,live", help="mirror, live or both")
    ap.add_argument("--benchmarks", default=",".join(BENCHMARKS), help="comma-separated")
    ap.add_argument("--settings", default=",".join(SETTINGS), help="comma-separated")
    ap.add_argument("--tables", action="store_true", help="only print the tables")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if not args.tables:
        paths = args.paths.split(",")
        if "live" in paths and not args.endpoint:
            raise SystemExit("the live path needs --endpoint (or $KGGROUND_VIRTUOSO_URL)")
        labels = labels_mirror(out) if "live" in paths else None
        db = str(slice_mirror(Path(args.db) if args.db else out / "slice.sqlite")) \
            if "mirror" in paths else ""
        for path in paths:
            for setting in args.settings.split(","):
                for bench in args.benchmarks.split(","):
                    if bench not in BENCHMARKS or setting not in SETTINGS:
                        raise SystemExit(f"unknown benchmark or setting: {bench} {setting}")
                    run_one(out, path, bench, setting, db, args.endpoint, labels)
    text = tables(out)
    (out / "tables.md").write_text(text + "\n", encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
