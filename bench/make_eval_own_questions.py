"""Write bench/data/eval-own-questions.jsonl: questions about slice facts in wordings written for
the evaluation harness (issue 19), none of them slice-qa-dev's templates, about subjects
slice-qa-dev does not ask about.

    python bench/make_eval_own_questions.py /work/dev/slice.sqlite

For each of the slice's 44 relations, two wordings (written by hand, below) and three
subjects drawn at random (seeded) among the relation's subjects that have an English
label; the gold answers are every value of (subject, relation) in the slice. Rows have
the slice-qa shape (question, subject, property, answers, answer_labels) plus the
wording's name, so ``kgground eval`` reads them as slice-qa rows.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this tree's packages

import kb  # noqa: E402

WORDINGS = {
    "P1001": ["Where does {s} have legal force?", "{s}: which jurisdiction is it valid in?"],
    "P101": ["In which discipline is {s} active?", "What is {s}'s area of work?"],
    "P102": ["{s} belongs to which political party?", "What party was {s} affiliated with?"],
    "P103": ["What was the first language of {s}?",
             "Which language did {s} grow up speaking?"],
    "P106": ["What does {s} do for a living?", "What was {s}'s profession?"],
    "P108": ["Which organisation did {s} work for?", "{s} was employed by whom?"],
    "P127": ["Which company owns {s}?", "{s} is owned by whom?"],
    "P1303": ["What instrument is played by {s}?", "{s} plays which instrument?"],
    "P131": ["{s} lies in which administrative area?",
             "Which administrative division contains {s}?"],
    "P136": ["What is the genre of {s}?", "{s} is classified in which genre?"],
    "P1376": ["Of what is {s} the capital?", "{s} is the capital city of which place?"],
    "P138": ["Who or what was {s} named for?", "What is the namesake of {s}?"],
    "P140": ["Which faith does {s} adhere to?", "What is the religion of {s}?"],
    "P1412": ["What languages does {s} know?", "Which language did {s} use?"],
    "P159": ["In which city is {s} headquartered?",
             "Where are the headquarters of {s} located?"],
    "P166": ["What prize was awarded to {s}?", "Which honours has {s} won?"],
    "P17": ["Which country is {s} in?", "{s} is located in what country?"],
    "P176": ["Who makes {s}?", "{s} was produced by which manufacturer?"],
    "P178": ["Which company developed {s}?", "{s} was created by which developer?"],
    "P19": ["What is the birthplace of {s}?", "In what city was {s} born?"],
    "P190": ["Which town is twinned with {s}?", "What are the sister cities of {s}?"],
    "P1923": ["Which teams took part in {s}?", "Name a team that competed in {s}."],
    "P20": ["Where did {s} pass away?", "What was the place of death of {s}?"],
    "P264": ["What label does {s} record for?", "{s} released records on which label?"],
    "P27": ["What nationality is {s}?", "{s} holds citizenship of which country?"],
    "P276": ["Where did {s} take place?", "What is the location of {s}?"],
    "P279": ["{s} is a kind of what?", "What broader class does {s} fall under?"],
    "P30": ["What continent is {s} on?", "{s} lies on which continent?"],
    "P31": ["What kind of thing is {s}?", "{s} is an instance of what?"],
    "P36": ["Which city is the capital of {s}?", "What is {s}'s capital?"],
    "P361": ["{s} is a part of what?", "What larger whole does {s} belong to?"],
    "P364": ["What language was {s} originally made in?",
             "In what language was {s} originally produced?"],
    "P37": ["Which language is official in {s}?",
            "What language has official status in {s}?"],
    "P39": ["What office did {s} hold?", "Which post has {s} held?"],
    "P407": ["What language is {s} in?", "{s} is written in which language?"],
    "P413": ["What is {s}'s playing position?", "On the field, what position is {s}?"],
    "P449": ["Which channel first broadcast {s}?", "{s} premiered on which network?"],
    "P463": ["{s} is a member of which organisation?", "Which body does {s} belong to?"],
    "P47": ["Which places border {s}?", "What is adjacent to {s}?"],
    "P495": ["Which country does {s} come from?", "{s} originated in which country?"],
    "P527": ["What are the parts of {s}?", "What is {s} made up of?"],
    "P530": ["With which countries does {s} maintain diplomatic ties?",
             "{s} has diplomatic relations with which states?"],
    "P740": ["In which city was {s} founded?", "Where was {s} established?"],
    "P937": ["In which city did {s} work?", "What was the work location of {s}?"],
}
PER_WORDING = 3
SEED = 19


def main(db: str, out: Path, dev: Path) -> None:
    base = kb.open(db)
    asked = {json.loads(line)["subject"] for line in dev.read_text().splitlines() if line}
    rng = random.Random(SEED)
    rows = []
    for prop, wordings in WORDINGS.items():
        pool = sorted({s.subject for s in base.statements(property=prop, limit=3000)}
                      - asked)
        rng.shuffle(pool)
        picked = []
        for subject in pool:
            label = base.entity(subject).label("en")
            if label == subject or not label.strip():
                continue
            values = [s.value.value for s in base.statements(subject, prop, limit=100)
                      if s.value.kind == "entity"]
            if not values or len(values) > 30:
                continue
            picked.append((subject, label, values))
            if len(picked) == PER_WORDING * len(wordings):
                break
        for i, (subject, label, values) in enumerate(picked):
            n = i % len(wordings)
            rows.append({"question": wordings[n].format(s=label), "subject": subject,
                         "property": prop, "answers": values,
                         "answer_labels": [base.entity(v).label("en") for v in values],
                         "wording": f"{prop}.{n}"})
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                   encoding="utf-8")
    print(f"wrote {len(rows)} questions to {out}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("db", nargs="?", default="/work/dev/slice.sqlite",
                    help="the slice mirror (default: /work/dev/slice.sqlite)")
    here = Path(__file__).resolve().parent
    main(ap.parse_args().db,
         here / "data" / "eval-own-questions.jsonl",
         here.parent.parent / "shared" / "data" / "benchmarks" / "slice-qa-dev.jsonl"
         if (here.parent.parent / "shared").exists()
         else Path("/work/shared/data/benchmarks/slice-qa-dev.jsonl"))
