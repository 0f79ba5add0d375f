"""Rule-made negatives (querygen.negatives) on the bundled demo KB: every kind, both query
levels, checked against the KB, deterministic under a seed."""

from __future__ import annotations

import random

import pytest
from rapidfuzz.distance import Levenshtein

import kb as kbmod
from querygen.negatives import KINDS, misspell, negatives
from querygen.terms import lex, resolve

ID_QUERY = "SELECT ?x WHERE { wd:Q7186 wdt:P108 ?x . }"
LABEL_QUERY = "SELECT ?x WHERE { wd:/Marie Curie/ wdt:/employer/ ?x . }"


@pytest.fixture(scope="module")
def demo(demo_mirror_path):
    return kbmod.open(demo_mirror_path)


def by_kind(query, kb, seed=0):
    made = negatives(query, kb, seed=seed)
    assert [n.kind for n in made] == list(KINDS)
    return {n.kind: n for n in made}


@pytest.mark.parametrize("query", [ID_QUERY, LABEL_QUERY])
def test_one_negative_of_every_kind_and_each_differs_from_gold(demo, query):
    made = by_kind(query, demo)
    assert len({n.text for n in made.values()} | {query}) == 5
    for n in made.values():
        assert "→" in n.detail or "⇄" in n.detail


def test_deterministic_under_a_seed(demo):
    assert negatives(ID_QUERY, demo, seed=3) == negatives(ID_QUERY, demo, seed=3)
    texts = {tuple(n.text for n in negatives(ID_QUERY, demo, seed=s)) for s in range(8)}
    assert len(texts) > 1            # the seed matters


def test_unlinked_drops_the_link_or_the_prefix(demo):
    for seed in range(6):
        for query in (ID_QUERY, LABEL_QUERY):
            text = by_kind(query, demo, seed)["unlinked"].text
            assert "wd:Q7186" not in text and "wd:/Marie Curie/" not in text
            assert any(form in text for form in
                       ("Q7186 wdt", "wd:Marie_Curie", "Marie Curie wdt", "/Marie Curie/"))


@pytest.mark.parametrize("query", [ID_QUERY, LABEL_QUERY])
def test_wrong_entity_is_another_entity_without_the_property(demo, query):
    for seed in range(4):
        neg = by_kind(query, demo, seed)["wrong_entity"]
        subject = lex(neg.text)[4]
        if subject.kind == "slot":
            ids = resolve(demo, subject.label, "entity")
            assert ids and "Q7186" not in ids
        else:
            ids = [subject.local]
            assert ids != ["Q7186"]
        assert all(not demo.statements(s, "P108", limit=1) for s in ids)


def test_misspelled_label_is_close_and_names_nothing(demo):
    for seed in range(6):
        neg = by_kind(LABEL_QUERY, demo, seed)["misspelled"]
        label = lex(neg.text)[4].label
        assert 1 <= Levenshtein.distance(label, "Marie Curie") <= 2
        assert resolve(demo, label, "entity") == []
    # from an ID-level query: the entity becomes a misspelled placeholder
    neg = by_kind(ID_QUERY, demo)["misspelled"]
    assert lex(neg.text)[4].kind == "slot"


def test_wrong_property_reorders_or_swaps_in_a_property_the_entity_lacks(demo):
    seen = set()
    for seed in range(10):
        text = by_kind(ID_QUERY, demo, seed)["wrong_property"].text
        toks = [t.text for t in lex(text)]
        if toks[4] == "?x":                                   # reordered
            assert toks[4:7] == ["?x", "wdt:P108", "wd:Q7186"]
            assert not demo.statements(property="P108", value="Q7186", limit=1)
            seen.add("reorder")
        else:
            pid = toks[5].split(":")[1]
            assert pid != "P108" and not demo.statements("Q7186", pid, limit=1)
            demo.property_info(pid)                           # a real property
            seen.add("replace")
    assert seen == {"reorder", "replace"}


def test_kinds_that_cannot_be_made_are_left_out(demo):
    # no entity at all: nothing to unlink, swap or misspell
    made = negatives("SELECT ?s ?o WHERE { ?s wdt:P108 ?o } LIMIT 3", demo)
    assert made == []
    with pytest.raises(ValueError, match="unknown negative kinds"):
        negatives(ID_QUERY, demo, kinds=["typo"])


def test_misspell_makes_one_slip_and_keeps_the_first_letter():
    rng = random.Random(0)
    for _ in range(200):
        wrong = misspell("Douglas Adams", rng)
        assert wrong[0] == "D" and 1 <= Levenshtein.distance(wrong, "Douglas Adams") <= 2
