"""Direction and absent-answer questions, asked through ``Grounder.ask`` with no LLM
(what ``kgground ask`` answers from the KB alone).

    python bench/bench_direction.py --db slice.sqlite [--demo demo.sqlite] [--json out.json]

``bench/data/direction-questions.jsonl`` (written by hand for issue 16's rules fix, not from
any benchmark's wording): direction-sensitive pairs (doctoral advisor / student, parent /
child, employer / employee, "born in X" / "birthplace of X", owner / owned, capital /
capital of), questions whose answer the KB does not hold while it holds the converse,
yes/no in both directions, negations, typos, lower case, extra words and two clauses.
Half run on the bundled demo KB, half on the T-REx slice mirror. Split ``tuned``: the
first 86, looked at while fixing the rules (their first measurement after the direction
fix, before looking at its misses, is in bench/HISTORY.md); ``fresh``: 30 written after
the rules were frozen, measured only.

Gold: each row names the statements that answer it as (entity, property, direction);
the gold answers are those the KB holds, read at run time (``forward``: the values of
``entity property ?``; ``inverse``: the subjects of ``? property entity``). An empty gold
means the right reply is "no answer in the KB"; ``"none"`` (negations) too; a boolean
is a yes/no question's answer.

Reported per category and overall: **wrong** (answered, and no asserted value is gold —
for an empty gold any answer is wrong; a yes/no with the wrong boolean), **no answer**
(the KB-only answer has no value), and answer F1 (set F1 of the answer's IDs against the
gold; an empty gold scores 1 when there is no answer, 0 otherwise).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import kb  # noqa: E402
from reasoning import Grounder  # noqa: E402

from bench_ask import f1  # noqa: E402  (set F1; an empty answer to an empty gold is 1)

QUESTIONS = HERE / "data" / "direction-questions.jsonl"


def gold_ids(base, spec) -> set[str] | bool:
    if isinstance(spec, bool):
        return spec
    if spec == "none":
        return set()
    out: set[str] = set()
    for entity, prop, direction in spec:
        if direction == "forward":
            out |= {s.value.value for s in base.statements(entity, prop, limit=1000)}
        else:
            out |= {s.subject for s in base.statements(None, prop, entity, limit=1000)}
    return out


def score(answer, gold) -> dict:
    values = answer.values
    if isinstance(gold, bool):
        said = {v.label for v in values}
        answered = bool(said & {"yes", "no"})
        right = ("yes" if gold else "no") in said
        return {"answered": answered, "wrong": answered and not right,
                "f1": float(right)}
    pred = {v.id or v.label for v in values}
    answered = bool(pred)
    wrong = answered and not (pred & gold)
    return {"answered": answered, "wrong": wrong, "f1": f1(pred, gold)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", required=True, help="the slice mirror")
    ap.add_argument("--demo", help="the demo mirror (default: built in the user cache)")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--show", action="store_true", help="print every question's answer")
    args = ap.parse_args()
    if args.demo:
        demo = kb.open(args.demo)
    else:
        from reasoning.cli.common import open_kb
        demo = open_kb(None, offline=True)
    kbs = {"demo": demo, "slice": kb.open(args.db)}
    grounders = {name: Grounder(base) for name, base in kbs.items()}
    rows = [json.loads(line) for line in open(QUESTIONS, encoding="utf-8") if line.strip()]
    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    by: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        base = kbs[row["kb"]]
        gold = gold_ids(base, row["gold"])
        answer = grounders[row["kb"]].ask(row["question"])
        s = score(answer, gold)
        s["question"] = row["question"]
        by[row["category"]].append(s)
        by[f"split {row['split']}"].append(s)
        by["all"].append(s)
        if args.show:
            mark = "WRONG" if s["wrong"] else ("ok" if s["f1"] == 1 else "part")
            print(f"[{mark:5s}] {row['kb']:5s} {row['question']} -> {answer.text[:90]} "
                  f"(gold {sorted(gold) if not isinstance(gold, bool) else gold})")
    out = {"load": load, "questions": len(rows), "by_category": {}}
    for cat, ss in by.items():
        out["by_category"][cat] = {
            "n": len(ss), "wrong": round(sum(s["wrong"] for s in ss) / len(ss), 3),
            "no_answer": round(sum(not s["answered"] for s in ss) / len(ss), 3),
            "f1": round(statistics.mean(s["f1"] for s in ss), 3),
            "wrong_questions": [s["question"] for s in ss if s["wrong"]] if cat != "all"
            else None}
    print(json.dumps(out, indent=1, ensure_ascii=False))
    if args.json:
        args.json.write_text(json.dumps(out, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
