"""Issue 3's SPARQL targets: the five anchor queries over the T-REx slice, every engine side
by side in one run.

    python bench/bench_sparql.py [--db MIRROR] [--virtuoso] [--skip ENGINE ...] [--json FILE]

Engines (each query: warm-up runs, then timed runs until --min-time seconds and at least
--min-runs runs; medians reported, with p10/p90 and the row count):

=================  ==========================================================================
kgground-sql       ``MirrorKB.sparql(text)`` as a caller uses it; parsing and compiling are
                   cached by query text, so warm runs are a dict lookup, one SQL statement
                   and building the rdflib terms of the rows
kgground-rdflib    the fallback: rdflib's evaluator over the mirror (``MirrorStore``); the
                   parsed query is cached as on the SQL path
pyoxigraph         ``pyoxigraph.Store`` in memory holding the slice; ``Store.query(text)``
                   (parses every time), all solutions read
virtuoso           Virtuoso over loopback HTTP (keep-alive), JSON results parsed; when
                   ``$KGGROUND_VIRTUOSO_URL`` is set, or with ``--virtuoso`` (started with
                   .ci/virtuoso.sh on 127.0.0.1:18894 and stopped at the end)
rdflib-memory      an rdflib ``Graph`` of the slice in memory; ``Graph.query(text)`` (parses
                   every time). Loading it takes a minute and ~2 GB: measured last, with the
                   loaded objects moved out of the garbage collector's reach (``gc.freeze``)
=================  ==========================================================================

The targets (issue 3): kgground-sql median <= 0.5 ms for each query, and >= 10x faster than
rdflib-memory on the whole set (ratio of the summed medians). The ratio to pyoxigraph is
reported too. The machine is shared and has 2 cores: the load average and CPU pressure are
printed and recorded; publish numbers from a quiet machine.
"""

from __future__ import annotations

import argparse
import gc
import gzip
import http.client
import json
import os
import platform
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

DEFAULT_SLICE = REPO.parent / "shared" / "data" / "wikidata" / "trex-slice.nt.gz"
QUERIES = [
    "SELECT ?o WHERE { wd:Q42 wdt:P108 ?o }",
    'SELECT ?s WHERE { ?s rdfs:label "Douglas Adams"@en }',
    "SELECT ?c WHERE { wd:Q42 wdt:P108 ?e . ?e wdt:P17 ?c }",
    "SELECT ?p WHERE { ?p wdt:P19 wd:Q84 . ?p wdt:P106 ?o } LIMIT 50",
    "SELECT (COUNT(?p) AS ?n) WHERE { ?p wdt:P27 wd:Q145 }",
]
ENGINES = ("kgground-sql", "kgground-rdflib", "pyoxigraph", "virtuoso", "rdflib-memory")
TARGET_MS = 0.5
TARGET_SPEEDUP = 10.0
PREFIXES = {"wd": "http://www.wikidata.org/entity/",
            "wdt": "http://www.wikidata.org/prop/direct/",
            "rdfs": "http://www.w3.org/2000/01/rdf-schema#"}
PROLOGUE = "".join(f"PREFIX {k}: <{v}>\n" for k, v in PREFIXES.items())


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


# -- timing ---------------------------------------------------------------------------------

def measure(run: Callable[[], int], *, min_time: float, min_runs: int,
            max_runs: int) -> dict[str, Any]:
    """Time ``run`` (which returns its row count): 3 warm-up runs, then until ``min_time``
    seconds and ``min_runs`` runs have passed (at most ``max_runs``)."""
    for _ in range(3):
        rows = run()
    times: list[int] = []
    started = time.perf_counter()
    while len(times) < max_runs and (len(times) < min_runs
                                     or time.perf_counter() - started < min_time):
        t0 = time.perf_counter_ns()
        rows = run()
        times.append(time.perf_counter_ns() - t0)
    times.sort()
    ms = [t / 1e6 for t in times]
    return {"median_ms": statistics.median(ms), "p10_ms": ms[len(ms) // 10],
            "p90_ms": ms[(len(ms) * 9) // 10], "runs": len(ms), "rows": rows}


# -- engines --------------------------------------------------------------------------------

def kgground_runners(db: Path) -> dict[str, Callable[[str], Callable[[], int]]]:
    from kb.mirror import MirrorKB
    from kb.types import SparqlResult
    from store.sparql import run

    kb = MirrorKB(db)

    def sql(query: str) -> Callable[[], int]:
        result = kb.sparql(query)
        if result.engine != "sql":
            raise SystemExit(f"not compiled to SQL: {query}\n{result.explain}")
        return lambda: len(kb.sparql(query).rows)

    def fallback(query: str) -> Callable[[], int]:
        return lambda: len(SparqlResult.from_answer(run(kb.mirror, query, engine="rdflib"),
                                                    kb.name).rows)

    return {"kgground-sql": sql, "kgground-rdflib": fallback}


def pyoxigraph_runner(slice_gz: Path) -> Callable[[str], Callable[[], int]]:
    import pyoxigraph as ox

    store = ox.Store()
    t0 = time.perf_counter()
    with gzip.open(slice_gz) as f:
        store.bulk_load(f, ox.RdfFormat.N_TRIPLES)
    say(f"  pyoxigraph: slice loaded in {time.perf_counter() - t0:.1f} s")

    def runner(query: str) -> Callable[[], int]:
        text = PROLOGUE + query
        return lambda: sum(1 for _ in store.query(text))
    return runner


def virtuoso_runner(url: str, graph: str) -> Callable[[str], Callable[[], int]]:
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port or 80, timeout=30)

    def runner(query: str) -> Callable[[], int]:
        target = parts.path + "?" + urllib.parse.urlencode(
            {"query": PROLOGUE + query, "default-graph-uri": graph})
        headers = {"Accept": "application/sparql-results+json"}

        def run() -> int:
            conn.request("GET", target, headers=headers)
            response = conn.getresponse()
            body = response.read()
            if response.status != 200:
                raise RuntimeError(f"Virtuoso answered {response.status}: {body[:300]!r}")
            return len(json.loads(body)["results"]["bindings"])
        return run
    return runner


def rdflib_memory_runner(slice_gz: Path) -> Callable[[str], Callable[[], int]]:
    import rdflib

    graph = rdflib.Graph()
    t0 = time.perf_counter()
    with gzip.open(slice_gz) as f:
        graph.parse(source=f, format="nt")
    gc.collect()
    gc.freeze()             # the graph's objects no longer slow every collection down
    say(f"  rdflib-memory: {len(graph):,} triples loaded in {time.perf_counter() - t0:.1f} s")

    def runner(query: str) -> Callable[[], int]:
        return lambda: len(graph.query(query, initNs=PREFIXES))
    return runner


def start_virtuoso(slice_gz: Path, workdir: Path) -> tuple[str, str, Path]:
    env = os.environ | {"VIRTUOSO_HTTP_PORT": "18894", "VIRTUOSO_SQL_PORT": "11115"}
    vdir = workdir / "virtuoso"
    r = subprocess.run(["bash", str(REPO / ".ci" / "virtuoso.sh"), "start", str(vdir),
                        str(slice_gz)], env=env, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"could not start Virtuoso: {r.stderr.strip()[-600:]}")
    found = dict(line.split("=", 1) for line in (vdir / "env").read_text().splitlines()
                 if "=" in line)
    return found["KGGROUND_VIRTUOSO_URL"], found["KGGROUND_VIRTUOSO_GRAPH"], vdir


def build_mirror(slice_gz: Path, path: Path) -> None:
    from store.ingest import load
    from store.mirror import Mirror

    t0 = time.perf_counter()
    with Mirror(path, create=True) as mirror:
        load(mirror, slice_gz)
    say(f"  mirror of the slice built in {time.perf_counter() - t0:.1f} s at {path}")


# -- reporting ------------------------------------------------------------------------------

def machine() -> dict[str, Any]:
    import pyoxigraph
    import rdflib

    info: dict[str, Any] = {
        "python": platform.python_version(), "sqlite": sqlite3.sqlite_version,
        "rdflib": rdflib.__version__, "pyoxigraph": pyoxigraph.__version__,
        "cpus": os.cpu_count(), "load_average": os.getloadavg(), "platform": platform.platform(),
    }
    try:
        info["cpu_pressure"] = Path("/proc/pressure/cpu").read_text().splitlines()[0]
    except OSError:
        pass
    return info


def summarize(results: dict[str, dict[str, dict]], engines: list[str]) -> dict[str, Any]:
    def total(engine: str) -> float | None:
        cells = [results[q].get(engine) for q in QUERIES]
        return None if any(c is None for c in cells) else sum(c["median_ms"] for c in cells)

    totals = {e: total(e) for e in engines}
    sql = totals.get("kgground-sql")
    out: dict[str, Any] = {"sum_of_medians_ms": totals}
    if sql:
        out["speedup_vs_rdflib_memory"] = (totals["rdflib-memory"] / sql
                                           if totals.get("rdflib-memory") else None)
        out["speedup_vs_kgground_rdflib"] = (totals["kgground-rdflib"] / sql
                                             if totals.get("kgground-rdflib") else None)
        out["ratio_to_pyoxigraph"] = (sql / totals["pyoxigraph"]
                                      if totals.get("pyoxigraph") else None)
        out["every_query_under_target"] = all(
            results[q]["kgground-sql"]["median_ms"] <= TARGET_MS for q in QUERIES)
        speedup = out["speedup_vs_rdflib_memory"]
        out["speedup_target_met"] = None if speedup is None else speedup >= TARGET_SPEEDUP
    return out


def print_table(results: dict[str, dict[str, dict]], engines: list[str],
                summary: dict[str, Any]) -> None:
    width = 16
    print()
    print("Median latency per query (ms; rows in brackets). Targets: kgground-sql <= "
          f"{TARGET_MS} ms each, >= {TARGET_SPEEDUP:g}x rdflib-memory on the set.")
    print(f"{'#':<3}" + "".join(f"{e:>{width}}" for e in engines)
          + f"{'sql/oxigraph':>{width}}{'rdflib-mem/sql':>{width}}")
    for i, q in enumerate(QUERIES, 1):
        row = results[q]
        cells = []
        for e in engines:
            c = row.get(e)
            cells.append("—" if c is None else f"{c['median_ms']:.3f} [{c['rows']}]")
        sql = row.get("kgground-sql")
        ox = row.get("pyoxigraph")
        rm = row.get("rdflib-memory")
        ratio_ox = f"{sql['median_ms'] / ox['median_ms']:.2f}x" if sql and ox else "—"
        ratio_rm = f"{rm['median_ms'] / sql['median_ms']:.1f}x" if sql and rm else "—"
        print(f"Q{i:<2}" + "".join(f"{c:>{width}}" for c in cells)
              + f"{ratio_ox:>{width}}{ratio_rm:>{width}}")
    totals = summary["sum_of_medians_ms"]
    cells = ["—" if totals.get(e) is None else f"{totals[e]:.3f}" for e in engines]
    speed = summary.get("speedup_vs_rdflib_memory")
    ratio = summary.get("ratio_to_pyoxigraph")
    print(f"{'sum':<3}" + "".join(f"{c:>{width}}" for c in cells)
          + f"{(f'{ratio:.2f}x' if ratio else '—'):>{width}}"
          + f"{(f'{speed:.1f}x' if speed else '—'):>{width}}")
    print("kgground-sql and kgground-rdflib reuse the parse cached by query text; pyoxigraph, "
          "virtuoso and rdflib-memory parse every query (virtuoso: plus HTTP and JSON).")
    print()
    for i, q in enumerate(QUERIES, 1):
        print(f"Q{i}  {q}")
    rows = {q: {e: c["rows"] for e, c in results[q].items()} for q in QUERIES}
    disagree = {q: r for q, r in rows.items() if len(set(r.values())) > 1}
    if disagree:
        print("\nROW COUNTS DIFFER:", json.dumps(disagree, indent=1))
    if "every_query_under_target" in summary:
        print(f"\nkgground-sql under {TARGET_MS} ms on every query: "
              f"{summary['every_query_under_target']}; "
              f">= {TARGET_SPEEDUP:g}x rdflib-memory on the set: {summary['speedup_target_met']}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", type=Path, help="a mirror of the slice (built in a temporary "
                    "folder from --slice when not given)")
    ap.add_argument("--slice", type=Path, default=DEFAULT_SLICE,
                    help=f"the slice's N-Triples [default: {DEFAULT_SLICE}]")
    ap.add_argument("--virtuoso", action="store_true", help="start a loopback Virtuoso "
                    "with the slice for this run (else $KGGROUND_VIRTUOSO_URL is used if set)")
    ap.add_argument("--skip", action="append", default=[], choices=ENGINES,
                    help="leave an engine out (repeatable)")
    ap.add_argument("--min-time", type=float, default=1.0,
                    help="seconds to time each query on each engine [1.0]")
    ap.add_argument("--min-runs", type=int, default=20, help="timed runs at least [20]")
    ap.add_argument("--max-runs", type=int, default=20_000, help="timed runs at most [20000]")
    ap.add_argument("--json", metavar="FILE", help="write every measurement to FILE "
                    "('-' for stdout)")
    args = ap.parse_args(argv)
    if not args.slice.exists():
        raise SystemExit(f"no slice at {args.slice} (pass --slice)")

    info = machine()
    say(f"load average {info['load_average']}, {info.get('cpu_pressure', '')}")
    engines = [e for e in ENGINES if e not in args.skip]
    results: dict[str, dict[str, dict]] = {q: {} for q in QUERIES}
    vdir = None
    with tempfile.TemporaryDirectory(prefix="kgground-bench-sparql-") as tmp:
        workdir = Path(tmp)
        db = args.db
        if db is None:
            db = workdir / "slice.sqlite"
            build_mirror(args.slice, db)
        runners: dict[str, Callable[[], Callable[[str], Callable[[], int]]]] = {}
        kg = kgground_runners(db)
        runners["kgground-sql"] = lambda: kg["kgground-sql"]
        runners["kgground-rdflib"] = lambda: kg["kgground-rdflib"]
        runners["pyoxigraph"] = lambda: pyoxigraph_runner(args.slice)
        url = os.environ.get("KGGROUND_VIRTUOSO_URL")
        graph = os.environ.get("KGGROUND_VIRTUOSO_GRAPH", "http://kgground.test/slice")
        try:
            if "virtuoso" in engines:
                if args.virtuoso:
                    say("  starting Virtuoso with the slice (about a minute)")
                    url, graph, vdir = start_virtuoso(args.slice, workdir)
                if url:
                    runners["virtuoso"] = lambda: virtuoso_runner(url, graph)
                else:
                    say("  virtuoso: skipped (set KGGROUND_VIRTUOSO_URL or pass --virtuoso)")
                    engines.remove("virtuoso")
            runners["rdflib-memory"] = lambda: rdflib_memory_runner(args.slice)
            for engine in engines:
                say(f"{engine}:")
                runner = runners[engine]()
                for i, query in enumerate(QUERIES, 1):
                    cell = measure(runner(query), min_time=args.min_time,
                                   min_runs=args.min_runs, max_runs=args.max_runs)
                    results[query][engine] = cell
                    say(f"  Q{i} {cell['median_ms']:.3f} ms ({cell['runs']} runs, "
                        f"{cell['rows']} rows)")
        finally:
            if vdir is not None:
                subprocess.run(["bash", str(REPO / ".ci" / "virtuoso.sh"), "stop", str(vdir)],
                               capture_output=True)
    summary = summarize(results, engines)
    info["load_average_after"] = os.getloadavg()
    print_table(results, engines, summary)
    if args.json:
        doc = {"machine": info, "queries": QUERIES, "engines": engines,
               "results": results, "summary": summary,
               "targets": {"kgground_sql_median_ms": TARGET_MS,
                           "speedup_vs_rdflib_memory": TARGET_SPEEDUP}}
        text = json.dumps(doc, indent=2)
        if args.json == "-":
            print(text)
        else:
            Path(args.json).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
