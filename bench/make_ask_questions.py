"""Write ``bench/data/ask_questions.jsonl``: our own wordings for measuring ``Grounder.ask``.

    python bench/make_ask_questions.py --db slice.sqlite [--data ../shared/data]

For each relation of the T-REx slice, two wordings written for this benchmark (issue 18),
unlike the dev set's one template per relation and unlike the wordings of the other
benchmarks here; subjects are drawn (seeded) from the slice's statements of that relation
whose subject slice-qa-dev does not ask about and whose label is unambiguous in the
mirror (the only entity with that exact label, so a question names one thing). Answers
are every value of (subject, property), as slice-qa-dev's are.
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

#: X is the subject's label
WORDINGS = {
    "P1001": ["Where does X hold legal authority?", "X governs which territory?"],
    "P101": ["X is a specialist in what subject?", "Which discipline did X devote work to?"],
    "P102": ["X sat for which party?", "Name the political party of X."],
    "P103": ["X grew up speaking which language?", "Which tongue is native to X?"],
    "P106": ["How did X earn a living?", "Name the job of X."],
    "P108": ["Which company or institution paid X's salary?", "X worked at which employer?"],
    "P127": ["Which entity has ownership of X?", "Who holds X?"],
    "P1303": ["Name an instrument X performs on.", "X plays what musical instrument?"],
    "P131": ["X lies within which administrative unit?", "Which region administers X?"],
    "P136": ["How would you classify the genre of X?", "X falls into which genre?"],
    "P1376": ["X serves as capital of what?", "Which territory has X as its capital?"],
    "P138": ["Whom does the name X honour?", "X was given its name after what?"],
    "P140": ["Which creed did X follow?", "Name the religious faith of X."],
    "P1412": ["In which languages did X communicate?", "Name a language used by X."],
    "P159": ["Which city hosts the head office of X?", "X has its main office where?"],
    "P166": ["Name an honour bestowed on X.", "Which distinction did X get?"],
    "P17": ["To which sovereign state does X belong?", "Name the country where X is."],
    "P176": ["Which manufacturer built X?", "Name the maker of X."],
    "P178": ["Which developer is responsible for X?", "Name the developer of X."],
    "P19": ["What town or city is X from originally?", "Name the place where X was born."],
    "P190": ["Which municipality is partnered with X?", "Name a twin town of X."],
    "P1923": ["Which clubs competed in X?", "Name a participating team of X."],
    "P20": ["Where did X's life end?", "Name the place where X died."],
    "P264": ["Which label put out music by X?", "X was signed by what record company?"],
    "P27": ["X is a national of which state?", "Whose citizenship did X have?"],
    "P276": ["What is the location of X?", "X can be found where?"],
    "P279": ["X is a more specific kind of what?", "Name the broader class of X."],
    "P30": ["Which landmass is X part of?", "Name the continent of X."],
    "P31": ["X is an example of what?", "Which class does X belong to?"],
    "P36": ["Which city is the capital of X?", "Name the capital of X."],
    "P361": ["X is a component of what larger whole?", "What does X form part of?"],
    "P364": ["In what language was X originally made?", "Name the original language of X."],
    "P37": ["Which language is used officially in X?", "Name the official language of X."],
    "P39": ["Which post did X occupy?", "Name an office X held."],
    "P407": ["X is written in what language?", "Name the language of the work X."],
    "P413": ["Which position does X play in?", "On the field, X plays what position?"],
    "P449": ["Which channel first broadcast X?", "Name the network that aired X."],
    "P463": ["X belongs to which organisation?", "Name a body X is a member of."],
    "P47": ["Name a neighbour of X.", "Which territory is adjacent to X?"],
    "P495": ["Which country does X come from?", "Name the country of origin of X."],
    "P527": ["What are the parts of X?", "Name a component of X."],
    "P530": ["With which countries does X maintain diplomatic ties?",
             "Name a country X has diplomatic relations with."],
    "P740": ["Where did X get started?", "Name the place where X was founded."],
    "P937": ["In which city was X professionally active?", "Name a work location of X."],
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", required=True, help="the slice mirror")
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--per-wording", type=int, default=2)
    ap.add_argument("--seed", type=int, default=18)
    ap.add_argument("--out", type=Path, default=HERE / "data" / "ask_questions.jsonl")
    args = ap.parse_args()
    dev = [json.loads(line) for line in
           open(args.data / "benchmarks" / "slice-qa-dev.jsonl", encoding="utf-8")]
    excluded = {r["subject"] for r in dev}
    base = kb.open(args.db)
    rng = random.Random(args.seed)
    rows = []
    for pid, wordings in WORDINGS.items():
        statements = base.statements(property=pid, limit=5000)
        subjects = sorted({s.subject for s in statements} - excluded)
        rng.shuffle(subjects)
        picked = 0
        for subject in subjects:
            if picked >= args.per_wording * len(wordings):
                break
            label = base.entity(subject).label("en")
            if not label or label == subject:
                continue
            same = [c for c in base.search(label, limit=5)
                    if c.label.casefold() == label.casefold()]
            if len(same) != 1:
                continue
            values = list({s.value.value: s.value
                           for s in base.statements(subject, pid, limit=200)}.values())
            answers = [v.value for v in values]
            labels = [base.entity(v.value).label("en") if v.kind == "entity" else str(v)
                      for v in values]
            wording = wordings[picked % len(wordings)]
            rows.append({"question": wording.replace("X", label), "subject": subject,
                         "property": pid, "answers": answers, "answer_labels": labels,
                         "wording": f"{pid}.{picked % len(wordings)}"})
            picked += 1
    args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                        encoding="utf-8")
    print(f"{len(rows)} questions written to {args.out}")


if __name__ == "__main__":
    main()
