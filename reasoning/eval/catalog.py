"""A simulated model's world from the benchmark itself: the fact catalog
(``reasoning.llm.FactCatalog``) of the items that ask for one fact.

``catalog_rows(items, gold_of, kb)`` turns every item with a subject, a relation and gold
answers (the file's, or the gold query's on the KB) into a catalog row (``question``,
``subject``, ``property``, ``answers``, ``answer_labels``), so that ``--llm simulated``
knows a seeded share of the very facts the benchmark asks about — the setting of the
gate evaluation (issue 18). Items asking for anything else are not in the catalog: the
simulated model answers them "I don't know".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from kb.base import KnowledgeBase
from reasoning.eval.gold import GoldInfo
from reasoning.eval.readers import EvalItem
from store.errors import KGGroundError


def catalog_rows(items: Sequence[EvalItem], gold_of: Callable[[EvalItem], GoldInfo],
                 kb: KnowledgeBase) -> list[dict[str, Any]]:
    rows = []
    labels: dict[str, str] = {}

    def label(qid: str) -> str:
        if qid not in labels:
            try:
                labels[qid] = kb.entity(qid).label("en")
            except (KGGroundError, ValueError):
                labels[qid] = qid
        return labels[qid]

    for item in items:
        if item.lang != "en" or not (item.subject and item.relation):
            continue
        gold = item.gold if item.gold is not None else gold_of(item).answers
        if not gold:
            continue
        answers = [g.value for g in gold]
        names = [g.labels[0] if g.labels else (label(g.value) if g.kind == "entity"
                                               else g.value) for g in gold]
        rows.append({"question": item.question, "subject": item.subject,
                     "property": item.relation, "answers": answers, "answer_labels": names})
    return rows
