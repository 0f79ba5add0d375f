"""What the validator's parse step costs: the tree-sitter front end and its algebra
(``store.sparql.syntax.parse`` + ``store.sparql.algebra.translate``, what
``querygen.validate`` uses) against rdflib's ``parseQuery`` + ``translateQuery`` (what it
used before), interleaved query by query on the same queries, so machine load hits both
alike. Also counts the queries each accepts (the mirror runs what the front end accepts).

    python bench/bench_validator_parse.py --db slice.sqlite [--per-source 60]

Queries: the answerable gold queries ``bench_validator.golds`` samples (ID level) and
their rule-made negatives that are ID-level SPARQL (label-level ones are not SPARQL).
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
sys.path.insert(0, str(Path(__file__).resolve().parent))

import kb as kbmod  # noqa: E402
from bench_validator import golds  # noqa: E402
from querygen.negatives import negatives  # noqa: E402
from querygen.terms import is_label_level  # noqa: E402


def tree_sitter(text: str) -> bool:
    from store.errors import QueryError
    from store.sparql import parse, translate
    try:
        translate(parse(text))
        return True
    except QueryError:
        return False


def rdflib(text: str) -> bool:
    from rdflib.plugins.sparql.algebra import translateQuery
    from rdflib.plugins.sparql.parser import parseQuery

    from store.sparql import WIKIDATA_PREFIXES
    try:
        translateQuery(parseQuery(text), initNs=WIKIDATA_PREFIXES)
        return True
    except Exception:  # noqa: BLE001 - rdflib raises bare Exceptions
        return False


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", required=True)
    ap.add_argument("--per-source", type=int, default=60)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    mirror = kbmod.open(args.db)
    queries = []
    for _source, id_query, _label in golds(mirror, args.per_source, args.seed):
        queries.append(id_query)
        queries += [n.text for n in negatives(id_query, mirror, seed=args.seed)
                    if not is_label_level(n.text)]
    tree_sitter(queries[0]), rdflib(queries[0])          # warm both up
    times = {"tree_sitter": [], "rdflib": []}
    accepted = {"tree_sitter": 0, "rdflib": 0}
    disagree = []
    only = {"tree_sitter": 0, "rdflib": 0}      # accepted by one parser and not the other
    for _ in range(args.repeat):
        for q in queries:
            got = {}
            for name, fn in (("tree_sitter", tree_sitter), ("rdflib", rdflib)):
                t = time.perf_counter()
                got[name] = fn(q)
                times[name].append(time.perf_counter() - t)
            if _ == 0:
                for name in got:
                    accepted[name] += got[name]
                if got["tree_sitter"] != got["rdflib"]:
                    only["tree_sitter" if got["tree_sitter"] else "rdflib"] += 1
                    if len(disagree) < 10 or not got["tree_sitter"]:
                        disagree.append({"query": q, **got})
    report = {"queries": len(queries), "accepted": accepted, "accepted_by_one_only": only,
              "disagreements": disagree,
              "load": os.getloadavg()}
    for name, ts in times.items():
        report[f"{name}_ms_median"] = round(1000 * statistics.median(ts), 3)
        report[f"{name}_ms_mean"] = round(1000 * statistics.fmean(ts), 3)
    report["speedup_median"] = round(report["rdflib_ms_median"]
                                     / report["tree_sitter_ms_median"], 1)
    print(json.dumps(report, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
