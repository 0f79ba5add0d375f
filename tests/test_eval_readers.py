"""Benchmark readers: each input format on small files written here, and the real files of
../shared/data/benchmarks when present."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kb.errors import BenchmarkFormatError
from reasoning.eval import answers as A
from reasoning.eval.readers import read_items, sparql_type
from tests.conftest import shared_file

WD = "http://www.wikidata.org/entity/"
PREFIXES = ("PREFIX wd: <http://www.wikidata.org/entity/> "
            "PREFIX wdt: <http://www.wikidata.org/prop/direct/> ")

QALD = {"dataset": {"id": "tiny-qald"}, "questions": [
    {"id": "1", "answertype": "resource",
     "question": [{"language": "en", "string": "Where was Marie Curie born?"},
                  {"language": "de", "string": "Wo wurde Marie Curie geboren?"},
                  {"language": "fr", "string": ""}],
     "query": {"sparql": PREFIXES + "SELECT ?x WHERE { wd:Q7186 wdt:P19 ?x }"},
     "answers": [{"head": {"vars": ["x"]}, "results": {"bindings": [
         {"x": {"type": "uri", "value": WD + "Q270"}}]}}]},
    {"id": "2", "answertype": "boolean",
     "question": [{"language": "en", "string": "Was Marie Curie born in Warsaw?"}],
     "query": {"sparql": PREFIXES + "ASK { wd:Q7186 wdt:P19 wd:Q270 }"},
     "answers": [{"head": {}, "boolean": True}]},
    {"id": "3", "answertype": "date",
     "question": [{"language": "en", "string": "When was Marie Curie born?"}],
     "query": {"sparql": PREFIXES + "SELECT ?d WHERE { wd:Q7186 wdt:P569 ?d }"},
     "answers": [{"head": {"vars": ["d"]}, "results": {"bindings": [{"d": {
         "type": "literal", "value": "1867-11-07T00:00:00Z",
         "datatype": "http://www.w3.org/2001/XMLSchema#dateTime"}}]}}]},
    {"id": "4", "answertype": "number",
     "question": [{"language": "en", "string": "How many awards did Marie Curie win?"}],
     "query": {"sparql": PREFIXES + "SELECT (COUNT(?a) AS ?c) WHERE { wd:Q7186 wdt:P166 ?a }"},
     "answers": []},
]}


def write(tmp_path: Path, name: str, content) -> Path:
    path = tmp_path / name
    if isinstance(content, list):
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in content),
                        encoding="utf-8")
    else:
        path.write_text(json.dumps(content, ensure_ascii=False), encoding="utf-8")
    return path


def test_qald_json(tmp_path):
    path = write(tmp_path, "tiny.json", QALD)
    items = read_items(path)                                   # auto → qald, English only
    assert [i.id for i in items] == ["1", "2", "3", "4"]
    first, ask, date, count = items
    assert first.gold == (A.entity("Q270"),) and first.type == "single-fact"
    assert (first.relation, first.subject, first.answer_type) == ("P19", "Q7186", "resource")
    assert ask.gold == (A.literal(True),) and ask.type == "yes/no"
    assert date.gold == (A.literal("1867-11-07"),)
    assert count.gold is None and count.type == "count"        # no answers: from the KB
    every = read_items(path, "qald", languages=None)
    assert [(i.key, i.lang) for i in every][:2] == [("1", "en"), ("1@de", "de")]
    assert len(every) == 5                                     # the empty French one is skipped
    assert read_items(path, languages=["de"])[0].question == "Wo wurde Marie Curie geboren?"


def test_jsonl_with_sparql_and_results(tmp_path):
    rows = [
        {"id": "a", "question": "who directed x?", "sparql": PREFIXES +
         "SELECT ?x WHERE { ?x wdt:P57 wd:Q1 . }", "paraphrases": [], "info": {}},
        {"id": "b", "question": "what is the political system in argentina?",
         "sparql": PREFIXES + "SELECT DISTINCT ?x WHERE { wd:Q414 wdt:P122 ?x . }",
         "info": {"results": [{"x": {"type": "uri", "value": WD + "Q512187"}},
                              {"x": {"type": "literal", "value": "2012-01-01T00:00:00Z",
                                     "datatype": "http://www.w3.org/2001/XMLSchema#dateTime"}}
                              ]}},
        {"id": "c", "question": "population?", "query": PREFIXES +
         "SELECT ?p WHERE { wd:Q1 wdt:P1082 ?p }",
         "results": {"head": {"vars": ["p"]}, "results": {"bindings": [
             {"p": {"type": "literal", "value": "42"}}]}}},
    ]
    items = read_items(write(tmp_path, "wwq.jsonl", rows))
    a, b, c = items
    assert a.gold is None and a.type == "single-fact" and a.relation == "P57"
    assert a.subject is None                                   # the object is bound
    assert b.gold == (A.entity("Q512187"), A.literal("2012-01-01"))
    assert (b.subject, b.relation) == ("Q414", "P122")
    assert c.gold == (A.literal("42"),) and c.sparql.endswith("}")


def test_slice_qa_rows(tmp_path):
    rows = [{"question": "Which jurisdiction does Riksdag apply to?", "subject": "Q272930",
             "property": "P1001", "answers": ["Q34"], "answer_labels": ["Sweden"]},
            {"question": "When was X born?", "subject": "Q1", "property": "P569",
             "answers": ["1952-03-11T00:00:00Z"], "lang": "en"}]
    items = read_items(write(tmp_path, "slice.jsonl", rows), "jsonl")
    assert items[0].id == "L1" and items[0].gold == (A.entity("Q34", ("Sweden",)),)
    assert (items[0].type, items[0].relation, items[0].subject) == \
        ("single-fact", "P1001", "Q272930")
    assert items[1].gold == (A.literal("1952-03-11"),)


MINTAKA = [
    {"id": "m1", "question": "Who is the wife of the 23rd president?",
     "translations": {"de": "Wer ist die Ehefrau des 23. US-Präsidenten?", "ja": ""},
     "questionEntity": [{"name": "Q11696", "entityType": "entity", "label": "President"},
                        {"name": 23, "entityType": "ordinal", "mention": "23rd"}],
     "answer": {"answerType": "entity", "answer": [{"name": "Q234263",
                                                    "label": "Caroline Harrison"}]},
     "category": "politics", "complexityType": "multihop"},
    {"id": "m2", "question": "How many Super Bowls has Tony Gonzalez won?",
     "translations": {}, "questionEntity": [],
     "answer": {"answerType": "entity", "answer": None, "mention": "None", "answerNum": 0},
     "complexityType": "count"},
    {"id": "m3", "question": "Is Mount Everest taller than K2?", "translations": {},
     "questionEntity": [], "answer": {"answerType": "boolean", "answer": [True]},
     "complexityType": "yesno"},
    {"id": "m4", "question": "Which Ann Rule book is not about Ted Bundy?",
     "translations": {}, "questionEntity": [],
     "answer": {"answerType": "entity", "answer": None, "mention": "Green River Running Red"},
     "complexityType": "difference"},
    {"id": "m5", "question": "When was it born?", "translations": {}, "questionEntity": [],
     "answer": {"answerType": "date", "answer": ["1926-04-21"]}, "complexityType": "generic"},
]


def test_mintaka(tmp_path):
    path = write(tmp_path, "mintaka.jsonl", MINTAKA)
    items = read_items(path)
    assert [i.id for i in items] == ["m1", "m2", "m3", "m4", "m5"]
    m1, m2, m3, m4, m5 = items
    assert m1.gold == (A.entity("Q234263", ("Caroline Harrison",)),)
    assert (m1.type, m1.answer_type, m1.entities) == ("multihop", "entity", ("Q11696",))
    assert m2.gold == (A.literal(0),) and m3.gold == (A.literal(True),)
    assert m4.gold == (A.literal("Green River Running Red"),)
    assert m5.gold == (A.literal("1926-04-21"),)
    every = read_items(path, languages=None)
    assert [i.key for i in every if i.id == "m1"] == ["m1", "m1@de"]   # empty 'ja' skipped
    # the official Mintaka files are one JSON array
    array = tmp_path / "mintaka.json"
    array.write_text(json.dumps(MINTAKA), encoding="utf-8")
    assert [i.id for i in read_items(array, "auto")] == [i.id for i in items]


def test_limit_counts_questions_not_languages(tmp_path):
    items = read_items(write(tmp_path, "m.jsonl", MINTAKA), languages=None, limit=1)
    assert [i.key for i in items] == ["m1", "m1@de"]


@pytest.mark.parametrize("content, message", [
    ('{"question": "a"}\n{not json}\n', "line 2"),
    ('{"id": "x", "sparql": "ASK {}"}\n', "cannot tell the format"),
    ('{"foo": 1}', "cannot tell the format"),
    ('', "holds no question"),
])
def test_malformed_files_say_where(tmp_path, content, message):
    path = tmp_path / "bad.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(BenchmarkFormatError, match=message):
        read_items(path)


def test_wrong_format_forced(tmp_path):
    path = write(tmp_path, "rows.jsonl", [{"question": "q?", "answers": ["Q1"]}])
    with pytest.raises(BenchmarkFormatError, match="not QALD JSON"):
        read_items(path, "qald")
    with pytest.raises(BenchmarkFormatError, match="unique question IDs"):
        read_items(write(tmp_path, "dup.jsonl", [{"id": 1, "question": "a", "answers": []},
                                                 {"id": 1, "question": "b", "answers": []}]))


@pytest.mark.parametrize("body, expected", [
    ("ASK WHERE { wd:Q1 wdt:P31 wd:Q5 }", ("yes/no", "P31", None)),
    ("SELECT (COUNT(DISTINCT ?x) AS ?c) WHERE { ?x wdt:P31 wd:Q6256 . ?x wdt:P30 wd:Q46 }",
     ("count", None, None)),
    ("SELECT ?m WHERE { ?m wdt:P31 wd:Q8502 ; wdt:P2044 ?e } ORDER BY DESC(?e) LIMIT 1",
     ("superlative", None, None)),
    ("SELECT ?x WHERE { ?x p:P39 ?s . ?s ps:P39 wd:Q1 ; pq:P580 ?y }", ("qualifier", None, None)),
    ("SELECT ?d WHERE { wd:Q162371 wdt:P161 / wdt:P569 ?d . }", ("multi-hop", None, None)),
    ("SELECT ?x WHERE { wd:Q53696 wdt:P171 * wd:Q10908 }", ("multi-hop", "P171", None)),
    ("SELECT ?c WHERE { ?c wdt:P452 wd:Q1 ; wdt:P740 wd:Q956 . }", ("multi-fact", None, None)),
    ("SELECT ?x WHERE { wd:Q318926 wdt:P19 ?x . }", ("single-fact", "P19", "Q318926")),
    ("SELECT ?x WHERE { ?x wdt:P57 wd:Q2568216 . }", ("single-fact", "P57", None)),
])
def test_question_types_from_the_gold_query(body, expected):
    assert sparql_type(PREFIXES + body) == expected


@pytest.mark.parametrize("name, n, gold", [
    ("qald7-test.jsonl", 50, None), ("wwq-dev.jsonl", 454, "file"),
    ("simplequestions-dev.jsonl", 2821, None), ("slice-qa-dev.jsonl", 2000, "file"),
    ("mintaka-dev.jsonl", 1000, "file"), ("qald9plus-train.jsonl", 412, None)])
def test_the_shared_benchmarks_read(name, n, gold):
    items = read_items(shared_file(f"benchmarks/{name}"))
    assert len(items) == n
    assert all((i.gold is not None) == (gold == "file") for i in items)
    assert all(i.type != "unknown" for i in items)
