"""GeneratedQuery and LinkingDecision: the contract other layers read."""

from __future__ import annotations

import json

import pytest

from kb.types import Candidate
from querygen.types import GeneratedQuery, LinkingDecision


def _decision() -> LinkingDecision:
    return LinkingDecision("entity", "Douglas Adams",
                           (Candidate("Q42", "Douglas Adams", 1.5),
                            Candidate("Q1", "other", 1.0), Candidate("Q2", "x", 0.9),
                            Candidate("Q3", "y", 0.8), Candidate("Q4", "z", 0.7)),
                           mention="Douglas Adams", start=12, end=25)


def test_triplet_query_round_trips_to_json() -> None:
    d = _decision()
    q = GeneratedQuery("SELECT ?x WHERE { wd:Q42 wdt:P108 ?x }",
                       "wd:/Douglas Adams/ wdt:/employer/ ?x", "wd:Q42 wdt:P108 ?x",
                       "triplet", "rules", 2.5, (d,), triple=("Q42", "P108", None))
    out = json.loads(json.dumps(q.as_dict()))
    assert out["triple"] == ["Q42", "P108", None]
    assert out["decisions"][0]["id"] == "Q42"
    assert [a["id"] for a in out["decisions"][0]["alternatives"]] == ["Q1", "Q2", "Q3"]
    assert out["decisions"][0]["mention"] == "Douglas Adams"
    assert d.chosen.label == "Douglas Adams"
    with pytest.raises(AttributeError):
        q.score = 3.0          # frozen


@pytest.mark.parametrize("triple", [None, ("Q42", "P108", "Q5"), ("Q42", None, None)])
def test_triplet_needs_exactly_one_unknown(triple) -> None:
    with pytest.raises(ValueError, match="triplet"):
        GeneratedQuery("q", "q", "q", "triplet", "rules", 0.0, triple=triple)


def test_bad_kind_form_and_empty_decision_are_refused() -> None:
    with pytest.raises(ValueError, match="kind"):
        GeneratedQuery("q", "q", "q", "table", "rules", 0.0)
    with pytest.raises(ValueError, match="form"):
        GeneratedQuery("q", "q", "q", "sparql", "rules", 0.0, form="describe")
    with pytest.raises(ValueError, match="candidate"):
        LinkingDecision("entity", "nobody", ())
