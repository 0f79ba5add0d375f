"""Our own factoid questions over the T-REx slice, worded differently from slice-qa-dev.

    python bench/querygen_own_questions.py [--db slice.sqlite] [--out FILE] [--per 2]

slice-qa-dev asks every relation in one template ("Where was X born?"). The rule-based query
generator must not depend on those words, so it is also measured on the wordings below,
written for this purpose: six per relation (the 44 relations of slice-qa-dev and two it
does not ask about, P54 and P69), in different sentence shapes — possessives, questions
that put the subject first, imperatives, lower case without a question mark, other verbs.

Wordings 0–2 of each relation are the *tuning* split (looked at while building the rules);
wordings 3–5 are *held out* (only measured). Subjects are sampled from the slice with a
fixed seed, avoiding the subjects of slice-qa-dev; gold answers are every value the slice
holds for (subject, property), computed when the file is built.

The output (``bench/querygen-own-questions.jsonl``) has one question per line:
``question, subject, property, answers, wording, split``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

#: property → six wordings; {s} is the subject's label
WORDINGS: dict[str, tuple[str, ...]] = {
    "P1001": ("Over which territory does {s} have jurisdiction?",
              "{s} has authority over which jurisdiction?",
              "what jurisdiction is {s} for",
              "Name the jurisdiction that {s} belongs to.",
              "Which territory is covered by {s}?",
              "{s}: what is its jurisdiction?"),
    "P101": ("What is the field of work of {s}?",
             "{s} works in which discipline?",
             "what area did {s} specialize in",
             "What was {s}'s field?",
             "In which domain was {s} active?",
             "Tell me the discipline of {s}."),
    "P102": ("Which party did {s} belong to?",
             "{s} is a member of which political party?",
             "what party was {s} in",
             "Name the political party of {s}.",
             "To which party does {s} belong?",
             "What is {s}'s party affiliation?"),
    "P103": ("What is the mother tongue of {s}?",
             "{s}'s first language?",
             "what was the native tongue of {s}",
             "Which language did {s} grow up speaking as a native language?",
             "What language is native to {s}?",
             "Tell me the first language of {s}."),
    "P106": ("What does {s} do for a living?",
             "{s}'s profession?",
             "what job did {s} have",
             "What was the occupation of {s}?",
             "Name the profession of {s}.",
             "What kind of work does {s} do?"),
    "P108": ("Who employs {s}?",
             "For which organization did {s} work?",
             "who was {s} employed by",
             "Which company was {s} working for?",
             "Name {s}'s employer.",
             "{s} worked for whom?"),
    "P127": ("Who is the owner of {s}?",
             "{s} is owned by which company?",
             "who owned {s}",
             "Which organization owns {s}?",
             "Tell me who owns {s}.",
             "To whom does {s} belong?"),
    "P1303": ("What instrument is played by {s}?",
              "{s} plays which instrument?",
              "what instruments did {s} play",
              "Name an instrument that {s} plays.",
              "Which musical instrument does {s} perform on?",
              "What does {s} play?"),
    "P131": ("In which administrative unit is {s}?",
             "{s} lies in which administrative territory?",
             "what administrative region contains {s}",
             "Which district is {s} located in?",
             "Name the administrative area where {s} is situated.",
             "{s} is in which administrative division?"),
    "P136": ("What is the genre of {s}?",
             "{s} belongs to which genre?",
             "what kind of music does {s} make",
             "Which genre describes {s}?",
             "Name the genre of {s}.",
             "What style of music is {s}?"),
    "P1376": ("{s} is the capital of what?",
              "Of which place is {s} the capital?",
              "what is {s} the capital city of",
              "Which territory has {s} as its capital?",
              "{s} serves as the capital of which region?",
              "Name the place whose capital is {s}."),
    "P138": ("Who is {s} named after?",
             "What was {s} named for?",
             "who or what is {s} named after",
             "After whom was {s} named?",
             "What is the namesake of {s}?",
             "{s} takes its name from whom?"),
    "P140": ("What is the religion of {s}?",
             "{s} practices which religion?",
             "what faith did {s} belong to",
             "Which religion was {s}?",
             "Name the faith of {s}.",
             "What was {s}'s religious affiliation?"),
    "P1412": ("What languages does {s} speak?",
              "{s} writes in which language?",
              "what language did {s} use",
              "Which languages were spoken by {s}?",
              "Name a language {s} speaks.",
              "In which language does {s} write?"),
    "P159": ("Where is {s} headquartered?",
             "In which city is the head office of {s}?",
             "where are the headquarters of {s}",
             "What is the headquarters location of {s}?",
             "Where is {s} based?",
             "Name the city where {s} has its headquarters."),
    "P166": ("What awards has {s} won?",
             "{s} received which prize?",
             "what award was given to {s}",
             "Which honours did {s} get?",
             "Name an award won by {s}.",
             "What prize did {s} win?"),
    "P17": ("What country is {s} in?",
            "{s} is located in which country?",
            "which nation is {s} in",
            "In what country can {s} be found?",
            "Name the country of {s}.",
            "{s} belongs to which country?"),
    "P176": ("Who made {s}?",
             "{s} is manufactured by which company?",
             "who is the manufacturer of {s}",
             "Which company built {s}?",
             "Name the maker of {s}.",
             "Who produced {s}?"),
    "P178": ("Who is the developer of {s}?",
             "{s} was developed by which company?",
             "which company developed {s}",
             "Who created {s}?",
             "Name the developer of {s}.",
             "By whom was {s} developed?"),
    "P19": ("What is the birthplace of {s}?",
            "{s} was born in which city?",
            "which town was {s} born in",
            "In which place was {s} born?",
            "Name the place of birth of {s}.",
            "What is {s}'s place of birth?"),
    "P190": ("What are the sister cities of {s}?",
             "{s} is twinned with which town?",
             "which city is {s} twinned with",
             "Name a partner city of {s}.",
             "What is the twin town of {s}?",
             "Which towns are sister cities of {s}?"),
    "P1923": ("Which teams took part in {s}?",
              "Who competed in {s}?",
              "what teams played in {s}",
              "Name a team that participated in {s}.",
              "Which clubs participated in {s}?",
              "List the participating teams of {s}."),
    "P20": ("Where did {s} pass away?",
            "In which city did {s} die?",
            "what was the place of death of {s}",
            "What is {s}'s place of death?",
            "Where was {s} when he died?",
            "Name the place where {s} died."),
    "P264": ("What label is {s} on?",
             "{s} was released by which record label?",
             "which record company is {s} signed with",
             "Name the record label of {s}.",
             "Which label released {s}?",
             "What is {s}'s record label?"),
    "P27": ("What is the nationality of {s}?",
            "{s} holds citizenship of which country?",
            "what country is {s} a citizen of",
            "Of which country is {s} a national?",
            "What is {s}'s country of citizenship?",
            "Name the citizenship of {s}."),
    "P276": ("What is the location of {s}?",
             "{s} is situated where?",
             "where can {s} be found",
             "Where does {s} take place?",
             "Name the location of {s}.",
             "In what place is {s}?"),
    "P279": ("{s} is a subclass of what?",
             "What is the superclass of {s}?",
             "what broader class does {s} belong to",
             "Of which class is {s} a subclass?",
             "{s} is a kind of what?",
             "Name the parent class of {s}."),
    "P30": ("What continent is {s} on?",
            "{s} is located on which continent?",
            "which continent is {s} in",
            "Name the continent where {s} lies.",
            "On what continent can {s} be found?",
            "{s} belongs to which continent?"),
    "P31": ("What kind of thing is {s}?",
            "What is {s}?",
            "what type of entity is {s}",
            "{s} is an instance of which class?",
            "Of which class is {s} an instance?",
            "What sort of thing is {s}?"),
    "P36": ("Which city is the capital of {s}?",
            "{s}'s capital?",
            "what is the capital city of {s}",
            "Name the capital of {s}.",
            "What city serves as the capital of {s}?",
            "Where is the seat of government of {s}?"),
    "P361": ("{s} is part of what?",
             "Of what is {s} a part?",
             "what is {s} a part of",
             "What larger whole does {s} belong to?",
             "Name the whole that {s} is part of.",
             "{s} forms part of which thing?"),
    "P364": ("In what language was {s} originally made?",
             "{s} was originally in which language?",
             "what is the original language of the film {s}",
             "Which language was {s} originally produced in?",
             "Name the original language of {s}.",
             "What language is {s} in originally?"),
    "P37": ("What language is official in {s}?",
            "{s} has which official language?",
            "what are the official languages of {s}",
            "Which language has official status in {s}?",
            "Name the official language of {s}.",
            "What is {s}'s official language?"),
    "P39": ("What positions did {s} hold?",
            "{s} held which office?",
            "what office did {s} occupy",
            "Which office was held by {s}?",
            "Name a position held by {s}.",
            "What post did {s} hold?"),
    "P407": ("What language is {s} in?",
             "{s} is written in which language?",
             "what is the language of {s}",
             "Which language was {s} written in?",
             "Name the language of {s}.",
             "In what language is {s}?"),
    "P413": ("What is {s}'s playing position?",
             "{s} plays in which position?",
             "what position did {s} play",
             "Which position does {s} play on the team?",
             "Name the player position of {s}.",
             "What was the position of {s} on the field?"),
    "P449": ("What channel aired {s}?",
             "{s} was broadcast on which network?",
             "which network broadcast {s}",
             "On what channel was {s} shown?",
             "Name the original network of {s}.",
             "Where was {s} originally broadcast?"),
    "P463": ("What organization does {s} belong to?",
             "{s} is a member of which organization?",
             "what group is {s} a member of",
             "Of which organisation was {s} a member?",
             "Name an organization {s} is a member of.",
             "Which body counts {s} among its members?"),
    "P47": ("What borders {s}?",
            "Which places are adjacent to {s}?",
            "what does {s} border",
            "Name a neighbour of {s}.",
            "{s} is bordered by what?",
            "Which territories share a border with {s}?"),
    "P495": ("Where does {s} come from?",
             "{s} originated in which country?",
             "what country did {s} originate in",
             "Which country is {s} from?",
             "Name the country of origin of {s}.",
             "In which country was {s} created?"),
    "P527": ("What are the parts of {s}?",
             "{s} is made up of what?",
             "what does {s} contain",
             "What is {s} composed of?",
             "Name a component of {s}.",
             "Which parts make up {s}?"),
    "P530": ("Which countries have diplomatic ties with {s}?",
             "{s} maintains diplomatic relations with which country?",
             "what countries does {s} have diplomatic relations with",
             "Name a country with which {s} has diplomatic relations.",
             "With what nations does {s} have diplomatic relations?",
             "Which states have diplomatic relations with {s}?"),
    "P740": ("Where was {s} founded?",
             "In what city was {s} formed?",
             "where did {s} form",
             "What is the location of formation of {s}?",
             "Name the place where {s} was founded.",
             "In which town was the band {s} formed?"),
    "P937": ("Where did {s} work?",
             "In which city did {s} work?",
             "what was the work location of {s}",
             "Where was {s} active?",
             "Name a place where {s} worked.",
             "In which place was {s} professionally active?"),
    "P54": ("Which team does {s} play for?",
            "{s} played for which club?",
            "what teams did {s} play for",
            "For which team did {s} play?",
            "Name a club {s} played for.",
            "Which sports team was {s} a member of?"),
    "P69": ("Where did {s} study?",
            "{s} was educated at which university?",
            "what school did {s} attend",
            "Which university did {s} go to?",
            "Name the alma mater of {s}.",
            "Where was {s} educated?"),
}

TUNE = (0, 1, 2)


def build(db: Path, data: Path, per: int, seed: int = 16) -> list[dict]:
    """Questions for every wording, ``per`` subjects each, sampled from the slice."""
    import kb

    base = kb.open(db)
    dev = data / "benchmarks" / "slice-qa-dev.jsonl"
    taken = {json.loads(line)["subject"] for line in dev.open()} if dev.exists() else set()
    rng = random.Random(seed)
    out = []
    for pid, wordings in WORDINGS.items():
        rows = base.sparql(f"SELECT DISTINCT ?s WHERE {{ ?s wdt:{pid} ?o }}").rows
        subjects = sorted(str(r["s"]).rsplit("/", 1)[-1] for r in rows)
        rng.shuffle(subjects)
        pool = iter(s for s in subjects if s not in taken)
        for w, wording in enumerate(wordings):
            n = 0
            while n < per:
                subject = next(pool)
                entity = base.entity(subject)
                label = entity.labels.get("en")
                if not label or len(label) < 3:      # "He", "Ba": no question names them
                    continue
                answers = sorted({s.value.value for s in base.statements(subject, pid)})
                out.append({"question": wording.format(s=label), "subject": subject,
                            "property": pid, "answers": answers, "wording": f"{pid}.{w}",
                            "split": "tune" if w in TUNE else "heldout"})
                n += 1
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", type=Path, help="the slice mirror (default: the bench mirror)")
    ap.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "querygen-own-questions.jsonl")
    ap.add_argument("--per", type=int, default=2, help="subjects per wording")
    args = ap.parse_args()
    if args.db is None:
        from bench.bench_linking import default_db
        args.db = default_db(args.data)
    rows = build(args.db, args.data, args.per)
    with args.out.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{len(rows)} questions → {args.out}")


if __name__ == "__main__":
    main()
