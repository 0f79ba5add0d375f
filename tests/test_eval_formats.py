"""Each input format scored end to end on a small file, against numbers worked out by hand:
QALD JSON (two languages; gold from the file and from the gold query), the slice-qa
format (question, subject, property, answers), Mintaka (two languages, question
entities). JSON lines with a gold query and gold results are worked by hand in
tests/test_eval_runner.py. The KB is the demo mirror; answers come from a
ScriptedAnswerer (what is under test is reading, gold, coverage and scoring).

Demo facts used: Marie Curie (Q7186) was born in Warsaw (Q270) on 1867-11-07, worked in
physics, chemistry and radioactive decay (Q413, Q2329, Q11448), married Pierre Curie
(Q37463), had 2 children (P1971) and no place of death is recorded; Pierre Curie was
born in Paris (Q90) and received Q38104 and Q220842 (P166)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import kb
from reasoning.eval import ScriptedAnswerer, evaluate, read_items

PREFIXES = ("PREFIX wd: <http://www.wikidata.org/entity/> "
            "PREFIX wdt: <http://www.wikidata.org/prop/direct/> ")
WD = "http://www.wikidata.org/entity/"


@pytest.fixture()
def demo(demo_mirror_path):
    return kb.open(str(demo_mirror_path))


def run(tmp_path: Path, demo, path: Path, answers: dict, **read) -> dict:
    items = read_items(path, **read)
    done = evaluate(items, ScriptedAnswerer(answers), demo, report=tmp_path / "r.json",
                    config={"benchmark": path.name}, workers=2, progress=False)
    return done.report


def by_key(report: dict) -> dict:
    return {q["key"]: q for q in report["questions"]}


def f1s(report: dict) -> dict:
    return {k: q["score"]["f1"] for k, q in by_key(report).items()}


# -- QALD JSON -----------------------------------------------------------------------------------

QALD = {"dataset": {"id": "hand-qald"}, "questions": [
    {"id": "1", "answertype": "resource",
     "question": [{"language": "en", "string": "Where was Marie Curie born?"},
                  {"language": "de", "string": "Wo wurde Marie Curie geboren?"}],
     "query": {"sparql": PREFIXES + "SELECT ?x WHERE { wd:Q7186 wdt:P19 ?x }"},
     "answers": [{"head": {"vars": ["x"]}, "results": {"bindings": [
         {"x": {"type": "uri", "value": WD + "Q270"}}]}}]},
    {"id": "2", "answertype": "resource",                         # no answers: from the KB
     "question": [{"language": "en", "string": "Which fields did Marie Curie work in?"}],
     "query": {"sparql": PREFIXES + "SELECT ?f WHERE { wd:Q7186 wdt:P101 ?f }"},
     "answers": []},
    {"id": "3", "answertype": "boolean",
     "question": [{"language": "en", "string": "Was Pierre Curie born in Warsaw?"}],
     "query": {"sparql": PREFIXES + "ASK { wd:Q37463 wdt:P19 wd:Q270 }"},
     "answers": [{"head": {}, "boolean": False}]},
]}


def test_qald_json_by_hand(tmp_path, demo):
    path = tmp_path / "qald.json"
    path.write_text(json.dumps(QALD), encoding="utf-8")
    report = run(tmp_path, demo, path, {
        "Where was Marie Curie born?": ["Q270"],                  # right
        "Wo wurde Marie Curie geboren?": [],                      # nothing: P=1, R=0
        "Which fields did Marie Curie work in?": ["Q413", "Q2329"],   # 2 of 3
        "Was Pierre Curie born in Warsaw?": "No, he was not.",    # right, in words
    }, languages=None)
    q = by_key(report)
    assert list(q) == ["1", "1@de", "2", "3"]
    assert [q[k]["gold_source"] for k in q] == ["file", "file", "kb", "file"]
    assert {g["value"] for g in q["2"]["gold"]} == {"Q413", "Q2329", "Q11448"}
    assert f1s(report) == pytest.approx({"1": 1.0, "1@de": 0.0, "2": 0.8, "3": 1.0})
    assert (q["2"]["score"]["precision"], q["2"]["score"]["recall"]) == \
        pytest.approx((1.0, 2 / 3))
    # the ASK query is false on this KB: not counted as covered
    assert [q[k]["covered"] for k in q] == [True, True, True, False]

    t = report["totals"]
    assert t["macro_f1"] == pytest.approx((1 + 0 + 0.8 + 1) / 4)          # 0.7
    assert t["exact_match"] == pytest.approx(2 / 4)
    # macro P = 1, macro R = (1 + 0 + 2/3 + 1) / 4 = 2/3: 2PR/(P+R) = 0.8
    assert t["qald_macro_f1"] == pytest.approx(0.8)
    assert t["coverage"] == pytest.approx(3 / 4)
    assert t["covered_f1"] == pytest.approx(1.8 / 3) and t["uncovered_f1"] == 1.0
    assert t["gold_sources"] == {"file": 3, "kb": 1}
    lang, kind = report["by_language"], report["by_type"]
    assert (lang["en"]["questions"], lang["en"]["macro_f1"]) == (3, pytest.approx(2.8 / 3))
    assert (lang["de"]["questions"], lang["de"]["macro_f1"]) == (1, 0.0)
    assert kind["single-fact"]["macro_f1"] == pytest.approx(1.8 / 3)
    assert (kind["yes/no"]["questions"], kind["yes/no"]["macro_f1"]) == (1, 1.0)


# -- slice-qa ------------------------------------------------------------------------------------

SLICE_QA = [
    {"question": "Who was Marie Curie's spouse?", "subject": "Q7186", "property": "P26",
     "answers": ["Q37463"], "answer_labels": ["Pierre Curie"]},
    {"question": "When was Marie Curie born?", "subject": "Q7186", "property": "P569",
     "answers": ["1867-11-07"], "answer_labels": ["1867-11-07"]},
    # the file has a third award the KB lacks: still covered (one gold answer is there)
    {"question": "Which awards did Pierre Curie receive?", "subject": "Q37463",
     "property": "P166", "answers": ["Q38104", "Q220842", "Q44585"]},
    # no place of death on this KB: not covered
    {"question": "Where did Marie Curie die?", "subject": "Q7186", "property": "P20",
     "answers": ["Q1"]},
]


def test_slice_qa_by_hand(tmp_path, demo):
    path = tmp_path / "slice-qa.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in SLICE_QA), encoding="utf-8")
    report = run(tmp_path, demo, path, {
        "Who was Marie Curie's spouse?": "Pierre Curie [1]",          # by label
        "When was Marie Curie born?": ["1867-11-07T00:00:00Z"],       # normalized date
        "Which awards did Pierre Curie receive?": ["Q38104", "Q42"],  # P 1/2, R 1/3
    })
    assert f1s(report) == pytest.approx({"L1": 1.0, "L2": 1.0, "L3": 0.4, "L4": 0.0})
    q = by_key(report)
    assert [q[k]["covered"] for k in q] == [True, True, True, False]
    assert all(r["gold_source"] == "file" for r in q.values())
    t = report["totals"]
    assert t["macro_f1"] == pytest.approx(2.4 / 4)
    assert t["exact_match"] == pytest.approx(2 / 4)
    mp, mr = (1 + 1 + 0.5 + 1) / 4, (1 + 1 + 1 / 3 + 0) / 4            # 0.875, 0.5833
    assert t["qald_macro_f1"] == pytest.approx(2 * mp * mr / (mp + mr))   # 0.7
    assert t["qald_macro_f1"] == pytest.approx(0.7)
    assert t["coverage"] == pytest.approx(3 / 4)
    assert t["covered_f1"] == pytest.approx(0.8) and t["uncovered_f1"] == 0.0
    assert report["by_relation"]["P166"]["macro_f1"] == pytest.approx(0.4)


# -- Mintaka -------------------------------------------------------------------------------------

MINTAKA = [
    {"id": "m1", "question": "Who was Marie Curie married to?",
     "translations": {"de": "Mit wem war Marie Curie verheiratet?"},
     "questionEntity": [{"name": "Q7186", "entityType": "entity", "label": "Marie Curie"}],
     "answer": {"answerType": "entity", "answer": [{"name": "Q37463",
                                                    "label": "Pierre Curie"}]},
     "category": "history", "complexityType": "generic"},
    {"id": "m2", "question": "How many children did Marie Curie have?", "translations": {},
     "questionEntity": [{"name": "Q7186", "entityType": "entity"}],
     "answer": {"answerType": "numerical", "answer": [2]}, "complexityType": "count"},
    {"id": "m3", "question": "Was Marie Curie born before Pierre Curie?",
     "translations": {},
     "questionEntity": [{"name": "Q7186", "entityType": "entity"},
                        {"name": "Q37463", "entityType": "entity"}],
     "answer": {"answerType": "boolean", "answer": [False]}, "complexityType": "yesno"},
    {"id": "m4", "question": "Which physicist was the first woman to win a Nobel Prize?",
     "translations": {},
     "questionEntity": [{"name": "Q99999999", "entityType": "entity"}],   # not in the KB
     "answer": {"answerType": "entity", "answer": [{"name": "Q7186"}]},
     "complexityType": "ordinal"},
]


def test_mintaka_by_hand(tmp_path, demo):
    path = tmp_path / "mintaka.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in MINTAKA), encoding="utf-8")
    report = run(tmp_path, demo, path, {
        "Who was Marie Curie married to?": "Pierre Curie",
        "How many children did Marie Curie have?": "2",
        "Was Marie Curie born before Pierre Curie?": "Yes",            # wrong
        "Which physicist was the first woman to win a Nobel Prize?": ["Q7186"],
    }, languages=None)
    assert f1s(report) == pytest.approx({"m1": 1.0, "m1@de": 0.0, "m2": 1.0, "m3": 0.0,
                                         "m4": 1.0})
    q = by_key(report)
    # m1: Pierre Curie is a statement away from Marie Curie; m2: 2 is a value of hers;
    # m3: a yes/no answer (reachability says nothing); m4: its entity is not in the KB
    assert [q[k]["covered"] for k in q] == [True, True, True, None, False]
    t = report["totals"]
    assert t["macro_f1"] == pytest.approx(3 / 5)
    assert (t["coverage"], t["coverage_known"]) == (pytest.approx(3 / 4), 4)
    assert t["covered_f1"] == pytest.approx(2 / 3) and t["uncovered_f1"] == 1.0
    lang = report["by_language"]
    assert (lang["en"]["questions"], lang["en"]["macro_f1"]) == (4, pytest.approx(0.75))
    assert (lang["de"]["questions"], lang["de"]["macro_f1"]) == (1, 0.0)
    assert {k: v["questions"] for k, v in report["by_type"].items()} == \
        {"generic": 2, "count": 1, "yesno": 1, "ordinal": 1}


# -- choosing questions --------------------------------------------------------------------------

def test_a_seeded_sample_is_the_same_every_time_and_in_file_order(tmp_path):
    rows = [{"question": f"Question {i}?", "answers": ["Q1"]} for i in range(1, 51)]
    path = tmp_path / "many.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    first = [i.id for i in read_items(path, sample=10, seed=19)]
    assert first == [i.id for i in read_items(path, sample=10, seed=19)]
    assert len(first) == 10 and first == sorted(first, key=lambda k: int(k[1:]))
    assert first != [i.id for i in read_items(path, sample=10, seed=20)]
    assert first != [f"L{i}" for i in range(1, 11)]           # not the first ten
    within = [i.id for i in read_items(path, limit=20, sample=5, seed=19)]
    assert len(within) == 5 and all(int(k[1:]) <= 20 for k in within)
    assert len(read_items(path, sample=500)) == 50            # more than there are: all
