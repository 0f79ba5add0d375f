"""Build ``nobel-demo-questions.jsonl``: questions about the demo KB's laureates, with their
answers from the KB — the fact catalog a simulated LLM lives in on the demo KB
(``kgground ask --llm simulated``), and a small test set for answering.

    python bench/make_demo_questions.py [OUT]

The wordings are the kgground authors' own, several per relation; each laureate gets one
question per relation it has a value for, its wording picked by a seeded hash (so the
file is the same on every run). Answers are every value of (laureate, property), their
labels in English (dates as the KB writes them, e.g. 1867-11-07).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # run as a script from anywhere
OUT = REPO / "store" / "demo" / "nobel-demo-questions.jsonl"

#: X is the laureate's English label
WORDINGS = {
    "P19": ["Where was X born?", "What is the birthplace of X?", "In which city was X born?"],
    "P20": ["Where did X die?", "In which city did X pass away?", "What was X's place of death?"],
    "P27": ["Which country was X a citizen of?", "What was the nationality of X?"],
    "P69": ["Where did X study?", "Which university did X attend?"],
    "P108": ["Who employed X?", "Where did X work?", "Which institution was X employed by?"],
    "P184": ["Who was the doctoral advisor of X?", "Who supervised X's doctorate?"],
    "P26": ["Who was X married to?", "Who was the spouse of X?"],
    "P40": ["Who were the children of X?", "Name a child of X."],
    "P569": ["When was X born?", "What is the date of birth of X?"],
    "P570": ["When did X die?", "On what date did X die?"],
    "P101": ["What field did X work in?", "What was X's area of research?"],
    "P166": ["Which awards did X receive?", "What prizes was X awarded?"],
}


def pick(options: list[str], *key: str) -> str:
    digest = hashlib.blake2b("\x1f".join(key).encode(), digest_size=8).digest()
    return options[int.from_bytes(digest, "big") % len(options)]


def build(out: Path = OUT) -> int:
    import kb
    from store.demo import build_demo_mirror

    with tempfile.TemporaryDirectory() as tmp:
        path = build_demo_mirror(Path(tmp) / "demo.sqlite")
        base = kb.open(path)
        laureates = sorted({s.subject for s in base.statements(property="P166", limit=10_000)},
                           key=lambda q: int(q[1:]))
        rows = []
        for qid in laureates:
            name = base.entity(qid).label("en")
            for pid, wordings in WORDINGS.items():
                statements = base.statements(qid, pid)
                if not statements:
                    continue
                answers, labels = [], []
                for s in statements:
                    v = s.value
                    answers.append(v.value if v.kind == "entity" else str(v))
                    labels.append(base.entity(v.value).label("en") if v.kind == "entity"
                                  else str(v))
                question = pick(wordings, qid, pid).replace("X", name)
                rows.append({"question": question, "subject": qid, "property": pid,
                             "answers": answers, "answer_labels": labels})
        base.close()
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                   encoding="utf-8")
    return len(rows)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", nargs="?", type=Path, default=OUT,
                    help="the file to write (default: store/demo/nobel-demo-questions.jsonl)")
    target = ap.parse_args().out
    print(f"{build(target)} questions written to {target}")
