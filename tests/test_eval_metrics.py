"""The evaluation's scores, against numbers worked out by hand."""

from __future__ import annotations

import pytest

from reasoning.eval import answers as A
from reasoning.eval.metrics import auroc, breakdown, percentiles, score, score_text, summarize


def ents(*ids: str) -> list[A.AnswerItem]:
    return [A.entity(i) for i in ids]


# -- answers -----------------------------------------------------------------------------------

@pytest.mark.parametrize("value, datatype, expected", [
    ("1867-11-07T00:00:00Z", "http://www.w3.org/2001/XMLSchema#dateTime", "1867-11-07"),
    ("+1984-01-01T00:00:00Z", None, "1984-01-01"),
    ("1984", None, "1984"),
    ("7 November 1867", None, "1867-11-07"),
    ("November 7, 1867", None, "1867-11-07"),
    ("135", "http://www.w3.org/2001/XMLSchema#integer", "135"),
    ("135.0", None, "135"),
    ("0.50", None, "0.5"),
    ("1,350", None, "1350"),
    (51, None, "51"),
    (True, None, "true"),
    ("Yes", None, "true"),
    ("no", None, "false"),
    ("  The Beatles! ", None, "beatles"),
])
def test_literals_are_normalized(value, datatype, expected):
    assert A.normalize_literal(value, datatype) == expected


def test_entities_compare_by_id_and_text_by_label():
    warsaw = A.entity("http://www.wikidata.org/entity/Q270", ("Warsaw", "Warszawa"))
    assert warsaw.value == "Q270"
    assert A.matches(A.entity("Q270"), warsaw)
    assert not A.matches(A.entity("Q271", ("Warsaw",)), warsaw)   # IDs decide
    assert A.matches(A.text("warsaw [1]"), warsaw)                 # markers dropped
    assert A.matches(A.text("Warszawa"), warsaw)
    assert not A.matches(A.text("Krakow"), warsaw)
    # an entity named like a string answer without an ID (Mintaka)
    assert A.matches(A.entity("Q5", ("Green River Running Red",)),
                     A.literal("Green River, Running Red"))


def test_literals_match_by_value():
    year = A.literal("1984")
    assert A.matches(A.literal("1984-01-01T00:00:00Z"), year)       # Wikidata's year
    assert A.matches(A.text("3 May 1984"), year)                    # the year asked for
    assert not A.matches(A.literal("1985-01-01"), year)
    assert not A.matches(A.literal("1984-05-03"), A.literal("1984-05-04"))
    assert A.matches(A.text("135.0"), A.literal(135))
    assert A.matches(A.text("Yes"), A.literal(True))
    assert not A.matches(A.entity("Q1"), A.literal(1))


# -- one question ------------------------------------------------------------------------------

def test_partial_answer():
    s = score(ents("Q1", "Q4"), ents("Q1", "Q2", "Q3"))
    # 1 of 2 predictions right, 1 of 3 gold found: P = 1/2, R = 1/3, F1 = 2PR/(P+R) = 0.4
    assert (s.precision, s.recall, s.exact) == (0.5, pytest.approx(1 / 3), False)
    assert s.f1 == pytest.approx(0.4)
    assert (s.right, s.predicted, s.gold) == (1, 2, 3)


def test_exact_answer_and_duplicates():
    s = score(ents("Q2", "Q1", "Q1"), ents("Q1", "Q2"))
    assert (s.precision, s.recall, s.f1, s.exact) == (1.0, 1.0, 1.0, True)


@pytest.mark.parametrize("pred, gold, expected", [
    ([], [], (1.0, 1.0, 1.0, True)),           # nothing asked, nothing said
    (["Q1"], [], (0.0, 0.0, 0.0, False)),      # gold empty, something said
    ([], ["Q1"], (1.0, 0.0, 0.0, False)),      # QALD: empty answer is precise, recalls nothing
    (["Q9"], ["Q1"], (0.0, 0.0, 0.0, False)),
])
def test_empty_sets_follow_qald(pred, gold, expected):
    s = score(ents(*pred), ents(*gold))
    assert (s.precision, s.recall, s.f1, s.exact) == expected


def test_one_prediction_cannot_match_two_gold_answers():
    gold = [A.entity("Q1", ("Paris",)), A.entity("Q2", ("Paris",))]
    s = score([A.text("Paris")], gold)
    assert (s.precision, s.recall) == (1.0, 0.5)


def test_free_text_is_read_whole_or_as_a_list():
    gold = [A.entity("Q37463", ("Pierre Curie",)), A.entity("Q1", ("Paul Langevin",))]
    assert score_text("Pierre Curie and Paul Langevin [2]", gold).f1 == 1.0
    country = [A.entity("Q754", ("Trinidad and Tobago",))]
    assert score_text("Trinidad and Tobago", country).f1 == 1.0
    s = score_text("Pierre Curie, Marie Curie", gold)
    # the list reading: 1 of 2 right, 1 of 2 found → F1 0.5; the whole reading scores 0
    assert (s.precision, s.recall, s.f1) == (0.5, 0.5, 0.5)
    assert score_text("", gold).recall == 0.0


def test_declining_to_answer_is_an_empty_answer():
    # right when nothing is asked for, no recall otherwise; never a wrong prediction
    assert score_text("I don't know.", []).exact
    assert score_text("The answer is unknown [1]", []).f1 == 1.0
    s = score_text("I do not know", [A.entity("Q90", ("Paris",))])
    assert (s.predicted, s.recall) == (0, 0.0)
    assert not score_text("Paris", []).exact


def test_yes_no_answers():
    assert score([A.literal(True)], [A.literal(True)]).exact
    assert score_text("No.", [A.literal(False)]).f1 == 1.0
    assert score_text("Yes", [A.literal(False)]).f1 == 0.0


# -- a run -------------------------------------------------------------------------------------

def record(f1, p, r, exact, *, covered, consulted, seconds, llm=0, kb=0, type="t", lang="en",
           scored=True, gate=None, draft=None):
    return {"score": {"precision": p, "recall": r, "f1": f1, "exact": exact} if scored
            else None, "covered": covered, "consulted": consulted, "seconds": seconds,
            "llm_calls": llm, "kb_calls": kb, "type": type, "lang": lang,
            "gold_source": "file" if scored else "none", "gate_score": gate,
            "draft_correct": draft}


def test_summary_by_hand():
    records = [
        record(1.0, 1.0, 1.0, True, covered=True, consulted=True, seconds=0.010, kb=4),
        record(0.4, 0.5, 1 / 3, False, covered=True, consulted=True, seconds=0.020, kb=6,
               type="u"),
        record(0.0, 1.0, 0.0, False, covered=False, consulted=False, seconds=0.030, llm=2),
        record(0.0, 0.0, 0.0, False, covered=None, consulted=False, seconds=0.040,
               scored=False, lang="de"),
    ]
    t = summarize(records)
    assert (t["questions"], t["scored"]) == (4, 3)
    assert t["macro_f1"] == pytest.approx((1 + 0.4 + 0) / 3)             # 0.4667
    mp, mr = (1 + 0.5 + 1) / 3, (1 + 1 / 3 + 0) / 3                       # 0.8333, 0.4444
    assert t["macro_precision"] == pytest.approx(mp)
    assert t["macro_recall"] == pytest.approx(mr)
    assert t["qald_macro_f1"] == pytest.approx(2 * mp * mr / (mp + mr))   # 0.5797
    assert t["qald_macro_f1"] == pytest.approx(0.57971, abs=1e-5)
    assert t["exact_match"] == pytest.approx(1 / 3)
    assert t["coverage"] == pytest.approx(2 / 3) and t["coverage_known"] == 3
    assert t["covered_f1"] == pytest.approx(0.7) and t["uncovered_f1"] == 0.0
    assert t["retrieval_ratio"] == 0.5
    assert t["llm_calls"] == 0.5 and t["kb_calls"] == 2.5
    lat = t["latency_ms"]
    assert (lat["p50"], lat["p90"], lat["mean"], lat["max"]) == \
        (pytest.approx(25), pytest.approx(37), pytest.approx(25), pytest.approx(40))
    assert t["gold_sources"] == {"file": 3, "none": 1}
    assert t["auroc"] is None

    by_type = breakdown(records, "type")
    assert list(by_type) == ["t", "u"] and by_type["t"]["questions"] == 3
    assert by_type["u"]["macro_f1"] == pytest.approx(0.4)
    assert breakdown(records, "lang")["de"]["scored"] == 0


def test_auroc_by_hand():
    assert auroc([0.9, 0.8, 0.3, 0.5], [True, True, False, True]) == 1.0
    # positives 0.6, 0.9 against negatives 0.2, 0.6: 1 + ½ + 1 + 1 of 4 pairs
    assert auroc([0.2, 0.6, 0.6, 0.9], [False, True, False, True]) == pytest.approx(0.875)
    assert auroc([0.1, 0.2], [True, True]) is None
    t = summarize([record(1, 1, 1, True, covered=True, consulted=False, seconds=0.1,
                          gate=g, draft=d) for g, d in ((0.2, False), (0.6, True),
                                                        (0.6, False), (0.9, True))])
    assert t["auroc"] == pytest.approx(0.875) and t["draft_accuracy"] == 0.5


def test_percentiles_of_nothing():
    assert percentiles([]) == {"p50": 0.0, "p90": 0.0, "p99": 0.0, "mean": 0.0, "max": 0.0}


def test_yes_no_in_a_sentence():
    assert score_text("Yes, the Isar flows into the Danube.", [A.literal(True)]).f1 == 1.0
    assert score_text("No, it does not", [A.literal(True)]).f1 == 0.0
