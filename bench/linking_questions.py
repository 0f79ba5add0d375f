"""Question linking on slice-qa-dev and on our own wordings: is the question's subject
linked, and is its relation phrase linked to the right property?

For each question (``bench.data.linking_data.Question``):

- **subject as top link**: the subject is the best candidate of some detected mention
  (whatever its confidence: nothing is cut off); also whether it is the best candidate of
  the most confident mention, and whether it is among some mention's top 5;
- **property top-1**: ``PropertyLinker.link`` on the question without the subject's span
  (the relation phrase a query generator hands over), with the subject given and without.
"""

from __future__ import annotations

import re
import time
from collections import defaultdict
from typing import Any

from linking import EntityLinker
from store.normalize import normalize


def subject_span(q: Any, label: str | None) -> tuple[int, int] | None:
    """Where the subject is written in the question: the known span, else its label found
    case-insensitively."""
    if q.span is not None:
        return q.span
    if label:
        m = re.search(r"(?<!\w)" + re.escape(label) + r"(?!\w)", q.text, flags=re.IGNORECASE)
        if m:
            return m.start(), m.end()
    return None


def relation_phrase(text: str, span: tuple[int, int] | None) -> str:
    if span is None:
        return text
    return " ".join((text[:span[0]] + " " + text[span[1]:]).split())


def evaluate(linker: EntityLinker, questions: list, labels: dict[str, str]) -> dict[str, Any]:
    """Rates by question group (``Question.source``) and pooled, and failures."""
    per: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    by_relation: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    failures: dict[str, list] = defaultdict(list)
    t_link = 0.0
    for q in questions:
        t0 = time.perf_counter()
        result = linker.link(q.text, top=5)
        t_link += time.perf_counter() - t0
        tops = [m.best.id for m in result.mentions if m.best]
        top5 = {c.id for m in result.mentions for c in m.candidates[:5]}
        confident = max(result.mentions, key=lambda m: m.confidence, default=None)
        span = subject_span(q, labels.get(q.subject))
        phrase = relation_phrase(q.text, span)
        with_subject = linker.properties.link(phrase, subject=q.subject, limit=1)
        without = linker.properties.link(phrase, limit=1)
        hits = {
            "subject_top": q.subject in tops,
            "subject_most_confident": bool(confident and confident.best
                                           and confident.best.id == q.subject),
            "subject_top5": q.subject in top5,
            "property_with_subject": bool(with_subject) and with_subject[0].id == q.property,
            "property_without_subject": bool(without) and without[0].id == q.property,
        }
        for group in (q.source, "pooled"):
            st = per[group]
            st["n"] += 1
            for k, v in hits.items():
                st[k] += v
        rel = by_relation[(q.source, q.property)]
        rel[0] += 1
        rel[1] += hits["property_without_subject"]
        if not hits["subject_top"] and len(failures["subject"]) < 300:
            failures["subject"].append({"q": q.text, "gold": q.subject, "got": tops,
                                        "mentions": [m.mention.text for m in result.mentions]})
        if not hits["property_without_subject"] and len(failures["property"]) < 600:
            failures["property"].append({"q": q.text, "phrase": phrase, "gold": q.property,
                                         "got": without[0].id if without else None})
    rates = {g: {k: v / st["n"] for k, v in st.items() if k != "n"} | {"questions": int(st["n"])}
             for g, st in per.items()}
    zero = sorted(f"{src}:{pid}" for (src, pid), (n, ok) in by_relation.items() if n and not ok)
    return {"rates": rates, "relations_at_zero": zero, "failures": failures,
            "questions_per_s": len(questions) / t_link if t_link else 0.0}


def labels_of(linker: EntityLinker, ids: list[str]) -> dict[str, str]:
    """English labels of ``ids`` (IDs without one are left out)."""
    out = {}
    for i in range(0, len(ids), 500):
        found = linker.source.labels(ids[i:i + 500], lang="en")
        out.update({k: v[0] for k, v in found.items() if v[0] != k and normalize(v[0])})
    return out


def print_rates(title: str, res: dict[str, Any]) -> None:
    print(f"\n{title}")
    print(f"{'questions':<14}{'n':>6}{'subj top':>10}{'most conf':>11}{'top5':>7}"
          f"{'P@1 +subj':>11}{'P@1 alone':>11}")
    for group, r in sorted(res["rates"].items(), key=lambda kv: (kv[0] == "pooled", kv[0])):
        print(f"{group:<14}{r['questions']:>6}{r['subject_top']:>10.3f}"
              f"{r['subject_most_confident']:>11.3f}{r['subject_top5']:>7.3f}"
              f"{r['property_with_subject']:>11.3f}{r['property_without_subject']:>11.3f}")
    if res["relations_at_zero"]:
        print("relations whose every question of a group got the wrong property (no subject): "
              + ", ".join(res["relations_at_zero"]))
