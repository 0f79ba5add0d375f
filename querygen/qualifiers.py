"""Time and number constraints a question adds to a query: "Who won the Nobel Prize in
Physics in 1903?" is the award's winners, narrowed to the statements whose qualifiers
(point in time, start time …) say 1903.

``numbers_unused(question, query)`` lists the numbers of the question the query does not
use; ``full_statements(kb, result)`` reads each answer's statements again as the KB holds
them (with qualifiers and rank); ``narrowed(kb, result, numbers)`` keeps the answers whose
statements have a qualifier with one of the numbers — when some do and some do not (when
none does, the number constrains nothing the KB records, and the answers stay).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from kb.base import KnowledgeBase
from kb.types import Citation, Statement
from querygen.execute import QueryResult

#: numbers in a question (years, counts) that may name a qualifier
NUMBER = re.compile(r"(?<![\w.])\d+(?![\w.])")
#: statements read at once for a triplet query's answers
FETCH_LIMIT = 1000


#: words that compare with the number after them ("before 1905", "more than 3"): the
#: number bounds the answers' qualifiers, which an equal one does not meet
BOUND_WORDS = {"before": "<", "until": "<", "till": "<", "prior to": "<", "earlier than": "<",
               "less than": "<", "fewer than": "<", "under": "<", "below": "<",
               "after": ">", "later than": ">", "more than": ">", "over": ">", "above": ">",
               "since": ">=", "at least": ">=", "at most": "<="}
COMPARED = re.compile(r"(?i)\b(" + "|".join(sorted(BOUND_WORDS, key=len, reverse=True)) +
                      r")\s+(?:the\s+(?:year\s+)?)?(\d+)(?![\w.])")
_COMPARE = {"<": lambda a, b: a < b, ">": lambda a, b: a > b, "<=": lambda a, b: a <= b,
            ">=": lambda a, b: a >= b}


def numbers_unused(question: str, label_level: str) -> list[str]:
    """The numbers of ``question`` that the query (its label-level form) does not use."""
    used = set(NUMBER.findall(label_level))
    return [n for n in NUMBER.findall(question) if n not in used]


def numbers_named(question: str, label_level: str) -> list[str]:
    """The numbers of ``question`` that the query does not use and no comparison bounds
    ("in 1903", not "before 1905"): those a qualifier equal to them answers."""
    bound = {n for _, n in bounds(question, label_level)}
    return [n for n in numbers_unused(question, label_level) if n not in bound]


def bounds(question: str, label_level: str) -> list[tuple[str, str]]:
    """(operator, number) for each number of ``question`` the query does not use that a
    comparison bounds: "before 1905" → ("<", "1905")."""
    unused = set(numbers_unused(question, label_level))
    return [(BOUND_WORDS[w.lower()], n) for w, n in COMPARED.findall(question) if n in unused]


def from_citation(c: Citation) -> Statement:
    """The statement a citation names, with the citation."""
    return Statement(c.subject, c.property, c.value, id=c.statement_id, citation=c)


def full_statements(kb: KnowledgeBase, result: QueryResult) -> list[list[Statement]]:
    """Each answer's statements as the KB holds them (qualifiers, rank): one triplet
    query for a triplet query's answers, one per citation otherwise."""
    query = result.query
    if query.kind == "triplet" and query.triple is not None:
        found = kb.statements(*query.triple, limit=FETCH_LIMIT)
        by_citation = {_key(st.citation) if st.citation else _key_of(st): st for st in found}
        return [[by_citation.get(_key(c)) or from_citation(c) for c in a.citations]
                for a in result.answers]
    out = []
    for a in result.answers:
        sts = []
        for c in a.citations:
            match = [st for st in kb.statements(c.subject, c.property, c.value, limit=50)
                     if st.id == c.statement_id or not c.statement_id]
            sts.append(match[0] if match else from_citation(c))
        out.append(sts)
    return out


def narrowed(kb: KnowledgeBase, result: QueryResult, numbers: Sequence[str],
             limits: Sequence[tuple[str, str]] = ()
             ) -> tuple[QueryResult, list[list[Statement]]] | None:
    """``result`` keeping the answers whose statements have a qualifier with one of
    ``numbers`` (and one within every bound of ``limits``: ``bounds``), and their
    statements; None when no answer's do, or all do."""
    if not (numbers or limits) or result.query.form != "select" or not result.answers:
        return None
    support = full_statements(kb, result)
    keep = [i for i, sts in enumerate(support) if any(
        (not numbers or qualifier_has(st, numbers)) and
        all(qualifier_within(st, op, n) for op, n in limits) for st in sts)]
    if not keep or len(keep) == len(support):
        return None
    return (replace(result, answers=tuple(result.answers[i] for i in keep)),
            [support[i] for i in keep])


def qualifier_has(st: Statement, numbers: Sequence[str]) -> bool:
    """Whether a qualifier of ``st`` has one of ``numbers`` (a year of a date, a number)."""
    for q in st.qualifiers:
        found = NUMBER.findall(str(q.value)) + NUMBER.findall(q.value.value[:5].lstrip("+"))
        if any(n.lstrip("0") == x.lstrip("0") for n in numbers for x in found):
            return True
    return False


def qualifier_within(st: Statement, op: str, number: str) -> bool:
    """Whether a qualifier of ``st`` has a number (a date's year) ``op`` ``number``."""
    for q in st.qualifiers:
        found = NUMBER.findall(q.value.value[:5].lstrip("+")) or NUMBER.findall(str(q.value))
        if found and _COMPARE[op](int(found[0]), int(number)):
            return True
    return False


def _key(c: Citation) -> tuple:
    return (c.subject, c.property, c.value.kind, c.value.value, c.statement_id)


def _key_of(st: Statement) -> tuple:
    return (st.subject, st.property, st.value.kind, st.value.value, st.id)
