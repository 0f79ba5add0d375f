"""Question sets for the linking benchmarks (issue 13), read from ../shared/data at run time.

- ``slice_questions(data, split)``: ``slice-qa-dev.jsonl`` (question, subject, property);
  split ``first``/``second`` halves of each relation's questions, or ``all``.
- ``paraphrased_questions(data, split, wordings)``: our own wordings (``paraphrases.py``)
  filled with the labels of the dev set's subjects (``split`` picks which subjects), with
  the subject's span known. ``lowercase=True`` also yields each one typed in lower case.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from bench.data.paraphrases import MEASURED_ONLY
from bench.data.paraphrases import wordings as our_wordings


@dataclass(frozen=True)
class Question:
    text: str
    subject: str
    property: str
    span: tuple[int, int] | None = None      # the subject's span, where known
    source: str = "dev"                 # dev, tune, held, fresh, fresh2/3, blind/2/3/4: its split


def _halves(rows: list[dict], split: str) -> list[dict]:
    if split == "all":
        return rows
    by: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by[r["property"]].append(r)
    out = []
    for _pid, group in sorted(by.items()):
        half = (len(group) + 1) // 2
        out.extend(group[:half] if split == "first" else group[half:])
    return out


def slice_rows(data: Path, split: str = "all") -> list[dict]:
    with open(data / "benchmarks" / "slice-qa-dev.jsonl", encoding="utf-8") as f:
        return _halves([json.loads(line) for line in f], split)


def slice_questions(data: Path, split: str = "all") -> list[Question]:
    return [Question(r["question"], r["subject"], r["property"])
            for r in slice_rows(data, split)]


def paraphrased_questions(data: Path, labels: dict[str, str], *, split: str = "all",
                          wordings: str = "all", per_relation: int = 8,
                          lowercase: bool = False) -> list[Question]:
    """Our wordings × up to ``per_relation`` subjects of each relation (from the dev rows
    of ``split``), the subject written as its label in ``labels`` (subjects without one
    are skipped). ``wordings``: a split of ``bench/data/paraphrases.py``: tune, held, all,
    fresh, fresh2, fresh3, blind, blind2, blind3 or blind4; the fresh and blind sets are
    only ever measured."""
    by: dict[str, list[str]] = defaultdict(list)
    for r in slice_rows(data, split):
        if r["subject"] in labels and len(by[r["property"]]) < per_relation:
            by[r["property"]].append(r["subject"])
    out = []
    for pid, n, template in our_wordings(wordings):
        source = wordings if wordings in MEASURED_ONLY else "tune" if n == 0 else "held"
        for subject in by.get(pid, []):
            label = labels[subject]
            text = template.replace("{s}", label)
            start = template.index("{s}")
            span = (start, start + len(label))
            out.append(Question(text, subject, pid, span, source))
            if lowercase:
                out.append(Question(text.lower(), subject, pid, span, source + "-lower"))
    return out
