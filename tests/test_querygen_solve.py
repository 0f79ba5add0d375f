"""querygen.solve (triplet queries) against the KB's own SPARQL engine: the same answers
for every query the rules write, ranks respected as wdt: reads them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import kb
from linking import EntityLinker
from querygen import generate, run
from querygen.solve import Unsolvable, solve

OWN = Path(__file__).resolve().parent.parent / "bench" / "data" / "querygen-own-questions.jsonl"
DEMO_QUESTIONS = [
    "Where was Marie Curie born?", "What is the capital of Germany?",
    "What is the capital of the country where Albert Einstein was born?",
    "How many awards did Albert Einstein receive?", "Which people were born in Ulm?",
    "Was Albert Einstein born in Germany?", "Is Albert Einstein a physicist?",
    "Which universities are located in Zurich?", "Where was Marie Curie's spouse born?",
    "Who was the doctoral advisor of Max Born?", "How are Marie Curie and Pierre Curie "
    "related?", "Which chemists were educated at the University of Paris?",
    "Who is the oldest winner of the Nobel Prize in Physics?",
]


@pytest.fixture(scope="module")
def demo(demo_kb_copy):
    return demo_kb_copy, EntityLinker(demo_kb_copy)


def _same_answers(base, q):
    fast, slow = run(q, base, cite=False), run(q, base, cite=False, engine="sparql")
    assert (sorted(fast.ids), fast.count, fast.boolean) == \
        (sorted(slow.ids), slow.count, slow.boolean), q.text
    return fast


def test_solve_agrees_with_sparql_on_the_demo_kb(demo):
    base, linker = demo
    engines = set()
    for question in DEMO_QUESTIONS:
        for q in generate(question, base, linker=linker):
            engines.add(_same_answers(base, q).engine)
    assert engines == {"statements", "sparql"}        # both paths were exercised


def test_solve_agrees_with_sparql_on_the_slice(slice_mirror_path):
    base = kb.open(slice_mirror_path)
    linker = EntityLinker(base)
    rows = [json.loads(line) for line in OWN.open()][::9]
    assert len(rows) > 50
    for row in rows:
        for q in generate(row["question"], base, linker=linker, limit=3):
            _same_answers(base, q)


def test_truthy_statements_only(demo):
    base, _ = demo
    # Germany's capitals: Berlin preferred, Bonn normal → wdt: sees Berlin only
    [(binding, statements)] = solve(base, [("Q183", "P36", "?x")])
    assert binding == {"x": "Q64"} and statements[0].rank == "preferred"
    # the inverse lookup must not find Germany through its normal-rank Bonn
    assert solve(base, [("?c", "P36", "Q586")]) == []


def test_solutions_carry_the_statements_that_matched(demo):
    base, _ = demo
    [(binding, statements)] = solve(base, [("Q937", "P19", "?c"), ("?c", "P17", "?k")])
    assert binding == {"c": "Q3012", "k": "Q183"}
    assert [(s.subject, s.property, s.value.value) for s in statements] == [
        ("Q937", "P19", "Q3012"), ("Q3012", "P17", "Q183")]
    assert all(s.citation is not None for s in statements)


@pytest.mark.parametrize("patterns", [
    [("?s", "P31", "?o")],                                  # nothing bound
    [("Q937", "P569", '"1879-03-14"')],                     # a literal: SPARQL's job
    [("Q937", "wdt:P19/wdt:P17", "?k")],                    # a path the rules never write
])
def test_what_solve_leaves_to_sparql(demo, patterns):
    with pytest.raises(Unsolvable):
        solve(demo[0], patterns)
