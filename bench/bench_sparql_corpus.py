"""Issue 12's SPARQL front-end targets, on the real benchmark queries: kgground against
pyoxigraph, every query measured side by side in one interleaved run.

    python bench/bench_sparql_corpus.py --db slice.sqlite [--limit N] [--json FILE]
        [--queries FILE ...]

Corpus: the gold SPARQL of ../shared/data/benchmarks (qald7-test, qald7-train,
qald9plus-train, wwq-dev, simplequestions-dev), and our own hand-written queries in
bench/data/sparql_own_queries.rq (one per paragraph; written for this benchmark in other forms
than the dev sets: hints, paths, BIND, aggregates, sub-SELECTs, casts). Data: the T-REx slice,
in a kgground mirror (``--db``) and in pyoxigraph's in-memory store.

For each query, in turn: pyoxigraph (``Store.query`` with the WDQS prefixes prepended, all
solutions read); kgground uncached (``MirrorKB.sparql`` after clearing the parse and plan
caches: tree-sitter parse, algebra, SQL compile, run); kgground cached (the same call
again). Reported: median and p95 of each; parse failures (kgground refuses a query
pyoxigraph parses); answer differences (compared as tests/test_sparql_differential does:
multisets of RDF terms, ORDER BY sequences where the order is projected; an unordered LIMIT
is compared by row count only); the SQL path's share and why the rest fell back.

Targets (issue 12): uncached median <= 5x pyoxigraph; 0 parse failures on queries pyoxigraph
parses; 0 answer differences.
"""

from __future__ import annotations

import argparse
import collections
import gzip
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

SHARED = Path(os.environ.get("KGGROUND_SHARED_DATA", REPO.parent / "shared" / "data"))
FILES = ["qald7-test", "qald7-train", "qald9plus-train", "wwq-dev", "simplequestions-dev"]
OWN = REPO / "bench" / "data" / "sparql_own_queries.rq"


def corpus(paths: list[Path]) -> list[tuple[str, str]]:
    out = []
    for path in paths:
        if path.suffix == ".rq":
            for i, text in enumerate(path.read_text(encoding="utf-8").split("\n\n")):
                if text.strip() and not text.lstrip().startswith("#"):
                    out.append((f"{path.name}:{i}", text.strip()))
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                if row.get("sparql"):
                    out.append((f"{path.name}:{row.get('id')}", row["sparql"]))
    return out


def unordered_cut(query: str) -> bool:
    """A LIMIT/OFFSET without ORDER BY: the rows kept are implementation-defined."""
    from tests.test_sparql_differential import order_spec

    _, ordered, cut = order_spec(query)
    return cut and not ordered


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", required=True, help="a kgground mirror of the slice (a file, or "
                    "a PostgreSQL URL)")
    ap.add_argument("--slice", type=Path, default=SHARED / "wikidata" / "trex-slice.nt.gz")
    ap.add_argument("--queries", type=Path, nargs="*", help="JSONL files (field sparql) or "
                    ".rq files (queries separated by blank lines) [the benchmark files and "
                    "bench/data/sparql_own_queries.rq]")
    ap.add_argument("--limit", type=int, help="at most N queries (every k-th, spread)")
    ap.add_argument("--timeout", type=float, default=30.0, help="per kgground query [30]")
    ap.add_argument("--json", metavar="FILE", help="write the summary as JSON to FILE")
    args = ap.parse_args(argv)

    import pyoxigraph as ox

    from kb.mirror import MirrorKB
    from store.errors import KGGroundError, QuerySyntaxError
    from store.sparql import plan, prepare
    from tests.test_sparql_differential import PREFIXES, answer_kb, answer_ox, assert_same

    paths = args.queries or [SHARED / "benchmarks" / f"{f}.jsonl" for f in FILES] + [OWN]
    queries = corpus([p for p in paths if p.exists()])
    if args.limit and len(queries) > args.limit:
        step = len(queries) / args.limit
        queries = [queries[int(i * step)] for i in range(args.limit)]
    print(f"{len(queries)} queries; loading the slice into pyoxigraph ...", file=sys.stderr)
    store = ox.Store()
    with gzip.open(args.slice) as f:
        store.bulk_load(f, ox.RdfFormat.N_TRIPLES)
    kb = MirrorKB(args.db)
    times: dict[str, list[float]] = {"pyoxigraph": [], "kgground-uncached": [],
                                     "kgground-cached": []}
    engines: collections.Counter = collections.Counter()
    reasons: collections.Counter = collections.Counter()
    parse_failures, differences, ox_refused, errors = [], [], 0, []
    load_before = os.getloadavg()
    started = time.perf_counter()
    for n, (name, query) in enumerate(queries):
        t0 = time.perf_counter()
        try:
            answer = store.query(PREFIXES + query)
            oxi_rows = sum(1 for _ in answer) if isinstance(answer, ox.QuerySolutions) else 1
        except (SyntaxError, OSError, ValueError):
            ox_refused += 1
            oxi_rows = None
        t_ox = time.perf_counter() - t0
        prepare.cache_clear()
        plan.cache_clear()
        t0 = time.perf_counter()
        try:
            result = kb.sparql(query, timeout=args.timeout)
        except QuerySyntaxError as exc:
            if oxi_rows is not None:
                parse_failures.append((name, str(exc).splitlines()[0]))
            continue
        except KGGroundError as exc:
            errors.append((name, str(exc).splitlines()[0][:200]))
            continue
        t_unc = time.perf_counter() - t0
        t0 = time.perf_counter()
        kb.sparql(query, timeout=args.timeout)
        t_cached = time.perf_counter() - t0
        if oxi_rows is None:
            continue
        times["pyoxigraph"].append(t_ox)
        times["kgground-uncached"].append(t_unc)
        times["kgground-cached"].append(t_cached)
        engines[result.engine] += 1
        if result.engine != "sql":
            reasons[result.explain.split("not compiled to SQL: ", 1)[-1].split(")")[0]
                    .split("\n")[0][:90]] += 1
        if "SERVICE" in query.upper():
            continue            # Oxigraph has no label service: nothing to compare with
        try:
            mine, theirs = answer_kb(kb, query, "auto"), answer_ox(store, query)
            if unordered_cut(query):        # which rows a LIMIT keeps is arbitrary
                assert len(mine.rows) == len(theirs.rows), "row counts differ"
            else:
                assert_same(query, mine, theirs)
        except AssertionError as exc:
            differences.append((name, str(exc)[:300]))
        if (n + 1) % 500 == 0:
            print(f"  {n + 1} queries, {time.perf_counter() - started:.0f} s", file=sys.stderr)
    summary: dict[str, Any] = {
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                    "load_before": load_before, "load_after": os.getloadavg()},
        "queries": len(queries), "compared": len(times["pyoxigraph"]),
        "pyoxigraph_refused": ox_refused,
        "parse_failures": parse_failures, "answer_differences": differences,
        "errors": errors, "engines": dict(engines),
        "sql_share": engines["sql"] / max(1, sum(engines.values())),
        "fallback_reasons": reasons.most_common(15),
    }
    for key, values in times.items():
        if values:
            summary[key] = {"median_ms": statistics.median(values) * 1e3,
                            "p95_ms": pct(values, 0.95) * 1e3}
    if times["pyoxigraph"]:
        summary["uncached_over_pyoxigraph"] = (summary["kgground-uncached"]["median_ms"]
                                               / summary["pyoxigraph"]["median_ms"])
    print(json.dumps(summary, indent=2, default=str))
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
