"""The SPARQL validator on CoK negatives built from dev gold queries (issue 16).

For each gold query whose facts the slice holds (it has an answer on the slice mirror), at
ID level and at label level (IDs rewritten with the KB's labels): is the gold query
wrongly flagged (any error), and is each of its rule-made negatives flagged? Against the
slice mirror, and the live path: the dev Virtuoso holding the slice, as a
SparqlEndpointKB and behind an empty mirror (FallbackKB).

    python bench/bench_validator.py --db slice.sqlite --endpoint $KGGROUND_VIRTUOSO_URL \
        --graph $KGGROUND_VIRTUOSO_GRAPH [--per-source 300] [--live-per-source 60]

Sources: slice-qa-dev (one-hop, the split the negatives were written against) and, as
held-out material never looked at while writing the rules, qald7 train/test,
qald9plus-train, wwq-dev and simplequestions-dev (only their answerable queries).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import kb as kbmod  # noqa: E402
from querygen.dataset import read_pairs, to_label_level  # noqa: E402
from querygen.negatives import KINDS, negatives  # noqa: E402
from querygen.validate import validate  # noqa: E402

DATA = Path(os.environ.get("KGGROUND_SHARED_DATA",
                           Path(__file__).resolve().parents[2] / "shared" / "data"))
SOURCES = ["slice-qa-dev", "qald7-train", "qald7-test", "qald9plus-train", "wwq-dev",
           "simplequestions-dev"]


def answerable(mirror, sparql: str) -> bool:
    try:
        result = mirror.sparql(sparql, timeout=5)
    except Exception:  # noqa: BLE001 - a query the slice cannot run is simply not used
        return False
    if result.boolean is not None:
        return result.boolean
    return any(any(str(v) not in ("0", "") for v in row.values()) for row in result.rows)


def golds(mirror, per_source: int, seed: int):
    """(source, ID-level gold, label-level gold) of answerable queries, sampled per source."""
    rng = random.Random(seed)
    for source in SOURCES:
        path = DATA / "benchmarks" / f"{source}.jsonl"
        if not path.exists():
            continue
        pairs = list(read_pairs(path))
        rng.shuffle(pairs)
        kept = 0
        for _question, sparql, _ident in pairs:
            if kept >= per_source:
                break
            if not answerable(mirror, sparql):
                continue
            try:
                label = to_label_level(sparql, mirror)
            except LookupError:
                label = None
            kept += 1
            yield source, sparql, label


def measure(name: str, kb, items, seed: int) -> dict:
    gold = Counter()
    flagged = defaultdict(Counter)          # (level, kind) → {flagged, total}
    false_flags, misses = [], []
    started = time.perf_counter()
    n_checks = 0
    for source, id_query, label_query in items:
        for level, query in (("id", id_query), ("label", label_query)):
            if query is None:
                continue
            d = validate(query, kb)
            n_checks += 1
            gold[(source, level, "total")] += 1
            if not d.ok:
                gold[(source, level, "flagged")] += 1
                false_flags.append({"source": source, "query": query,
                                    "errors": [str(e) for e in d.errors]})
            for neg in negatives(query, mirror_for_negatives, seed=seed):
                dn = validate(neg.text, kb)
                n_checks += 1
                key = ("held-out" if source != "slice-qa-dev" else "slice-qa", level, neg.kind)
                flagged[key]["total"] += 1
                if not dn.ok:
                    flagged[key]["flagged"] += 1
                else:
                    misses.append({"kind": neg.kind, "query": neg.text, "detail": neg.detail})
    elapsed = time.perf_counter() - started
    total_neg = sum(c["total"] for c in flagged.values())
    total_flag = sum(c["flagged"] for c in flagged.values())
    gold_total = sum(v for (s, lv, k), v in gold.items() if k == "total")
    gold_flag = sum(v for (s, lv, k), v in gold.items() if k == "flagged")
    return {
        "kb": name, "negatives": total_neg, "negatives_flagged": total_flag,
        "negative_share_flagged": round(total_flag / max(total_neg, 1), 4),
        "gold": gold_total, "gold_wrongly_flagged": gold_flag,
        "by_kind": {f"{g}/{lv}/{k}": f"{c['flagged']}/{c['total']}"
                    for (g, lv, k), c in sorted(flagged.items())},
        "gold_by_source": {f"{s}/{lv}": f"{gold[(s, lv, 'flagged')]}/{gold[(s, lv, 'total')]}"
                           for (s, lv, k) in sorted(gold) if k == "total"},
        "ms_per_validation": round(1000 * elapsed / max(n_checks, 1), 2),
        "false_flags": false_flags[:10], "misses": misses[:10],
    }


def main() -> None:
    global mirror_for_negatives
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", required=True, help="the slice mirror")
    ap.add_argument("--endpoint", default=os.environ.get("KGGROUND_VIRTUOSO_URL"))
    ap.add_argument("--graph", default=os.environ.get("KGGROUND_VIRTUOSO_GRAPH"))
    ap.add_argument("--per-source", type=int, default=300)
    ap.add_argument("--live-per-source", type=int, default=40)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", help="write the JSON report here too")
    args = ap.parse_args()

    mirror = kbmod.open(args.db)
    mirror_for_negatives = mirror            # negatives are made once, from the mirror
    items = list(golds(mirror, args.per_source, args.seed))
    print(f"{len(items)} answerable gold queries: "
          f"{dict(Counter(s for s, _, _ in items))}", file=sys.stderr)
    reports = [measure("mirror", mirror, items, args.seed)]
    if args.endpoint:
        from kb.endpoint import SparqlEndpointKB
        from store.mirror import Mirror
        live_items = []
        per = Counter()
        for item in items:
            if per[item[0]] < args.live_per_source:
                per[item[0]] += 1
                live_items.append(item)
        live = SparqlEndpointKB(args.endpoint, graph=args.graph, cache=False)
        reports.append(measure("endpoint (Virtuoso)", live, live_items, args.seed))
        with tempfile.TemporaryDirectory() as tmp:
            empty = Path(tmp) / "empty.sqlite"
            Mirror(empty, create=True).close()
            both = kbmod.open(empty, live=SparqlEndpointKB(args.endpoint, graph=args.graph,
                                                           cache=False))
            reports.append(measure("empty mirror + Virtuoso (FallbackKB)", both, live_items,
                                   args.seed))
    out = {"kinds": list(KINDS), "reports": reports}
    text = json.dumps(out, indent=1, ensure_ascii=False)
    print(text)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")


mirror_for_negatives = None

if __name__ == "__main__":
    main()
