"""Write ``bench/data/llm_questions.jsonl``: a known/unknown mix for measuring a real small model.

    python bench/make_llm_questions.py --db slice.sqlite [--data ../shared/data]

Issue 28. A gate's AUROC is only measurable where the model is sometimes right, so the set
mixes two kinds of one-fact questions whose answers the slice mirror holds:

- ``famous``: capitals, official languages and continents of well-known countries, and
  the country of their capitals — facts a 135M-parameter model often knows. Wordings
  written for this benchmark, several styles (question, request, terse, inverted).
- ``long-tail``: slice facts about little-known subjects (SmolLM2 knows almost none),
  drawn from slice-qa-dev (its template wording), ``bench/data/ask_questions.jsonl`` and
  ``bench/data/gate_questions.jsonl`` (our wordings).

Every row has ``split``: ``dev`` (fit thresholds and choices here) or ``held`` (report
here, never tuned on). Famous rows split by country, so a held-out country is never seen in
dev; some wordings appear only in the held-out split. Long-tail rows split by subject,
seeded. Answers are every value the mirror holds for (subject, property), like
slice-qa-dev's.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import kb  # noqa: E402

DATA = Path(os.environ.get("KGGROUND_SHARED_DATA", HERE.parent.parent / "shared" / "data"))
OUT = HERE / "data" / "llm_questions.jsonl"

COUNTRIES = ["Norway", "Japan", "France", "Germany", "Italy", "Spain", "Brazil", "Canada",
             "India", "China", "Egypt", "Kenya", "Mexico", "Argentina", "Sweden", "Poland",
             "Greece", "Portugal", "Peru", "Chile", "Turkey", "Iran", "Thailand", "Vietnam",
             "Nigeria", "Finland", "Denmark", "Ireland", "Austria", "Hungary", "Belgium",
             "Switzerland", "South Korea", "Indonesia", "Pakistan", "Ukraine", "Romania",
             "Ethiopia", "Russia", "Australia"]
#: X is a country's label; the last wording of each is used in the held-out split only
FAMOUS = {
    "P36": ["What is the capital of X?", "Which city serves as X's capital?",
            "Name the capital city of X.", "X has its capital in which city?",
            "Tell me the capital of X."],
    "P37": ["What is the official language of X?", "Which language is official in X?",
            "Name an official language of X.", "X's official tongue is what?",
            "What language does the government of X officially use?"],
    "P30": ["On which continent is X?", "Which continent is X located in?",
            "Name the continent where X lies.", "X is part of what continent?",
            "What continent does X belong to?"],
}
#: famous facts with more values than this (Russia's 20 official languages) are left out
MAX_ANSWERS = 3
#: X is a capital's label (the country of a capital)
CITY = ["Which country is X in?", "X is a city in which country?",
        "Name the country whose capital is X.", "In what country would you find X?"]


def label(k, qid: str) -> str:
    try:
        return k.entity(qid).label("en")
    except Exception:  # noqa: BLE001 - a value without a label is skipped by the caller
        return ""


def values(k, subject: str, prop: str) -> list[str]:
    return list(dict.fromkeys(s.value.value for s in k.statements(subject, prop, limit=50)
                              if s.value.kind == "entity"))


def famous_rows(k, rng: random.Random) -> list[dict]:
    countries = list(COUNTRIES)
    rng.shuffle(countries)
    held = set(countries[: len(countries) // 2])
    rows = []
    for i, name in enumerate(COUNTRIES):
        found = k.search(name, limit=1)
        if not found:
            continue
        qid = found[0].id
        split = "held" if name in held else "dev"
        for prop, wordings in FAMOUS.items():
            answers = values(k, qid, prop)
            if not answers or len(answers) > MAX_ANSWERS:
                continue
            usable = wordings if split == "held" else wordings[:-1]
            wording = usable[(i + len(prop)) % len(usable)]
            rows.append(_row(wording.replace("X", name), qid, prop, answers, k, "famous",
                             split))
        capital = values(k, qid, "P36")
        if capital:
            city = label(k, capital[0])
            wording = CITY[i % len(CITY)]
            answers = values(k, capital[0], "P17")
            if city and qid in answers:
                rows.append(_row(wording.replace("X", city), capital[0], "P17", answers, k,
                                 "famous", split))
    return rows


def long_tail_rows(k, rng: random.Random, per_source: int) -> list[dict]:
    sources = [("slice-qa-dev", DATA / "benchmarks" / "slice-qa-dev.jsonl"),
               ("ask_questions", HERE / "data" / "ask_questions.jsonl"),
               ("gate_questions", HERE / "data" / "gate_questions.jsonl")]
    famous_ids = set()
    for name in COUNTRIES:
        found = k.search(name, limit=1)
        if found:
            famous_ids.add(found[0].id)
    rows = []
    for source, path in sources:
        if not path.exists():
            print(f"note: {path} is absent: no {source} rows", file=sys.stderr)
            continue
        pool = [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]
        pool = [r for r in pool if r["subject"] not in famous_ids]
        rng.shuffle(pool)
        for r in pool[:per_source]:
            split = "held" if rng.random() < 0.5 else "dev"
            rows.append(_row(r["question"], r["subject"], r["property"], r["answers"], k,
                             "long-tail", split, source=source))
    return rows


def _row(question: str, subject: str, prop: str, answers: list[str], k, kind: str,
         split: str, source: str = "own") -> dict:
    return {"question": question, "subject": subject, "property": prop, "answers": answers,
            "answer_labels": [label(k, a) or a for a in answers], "kind": kind,
            "split": split, "source": source}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", required=True, help="the slice mirror")
    ap.add_argument("--per-source", type=int, default=40,
                    help="long-tail questions drawn from each source")
    ap.add_argument("--seed", type=int, default=28)
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args()
    k = kb.open(args.db)
    rng = random.Random(args.seed)
    rows = famous_rows(k, rng) + long_tail_rows(k, rng, args.per_source)
    with open(args.out, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    counts: dict[tuple[str, str], int] = {}
    for r in rows:
        counts[(r["kind"], r["split"])] = counts.get((r["kind"], r["split"]), 0) + 1
    print(f"wrote {len(rows)} questions to {args.out}: " +
          ", ".join(f"{kind}/{split} {n}" for (kind, split), n in sorted(counts.items())))


if __name__ == "__main__":
    main()
