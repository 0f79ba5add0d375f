"""The evaluation runner on the demo mirror: gold answers from the KB, coverage, records,
traces, resuming an interrupted run, errors. Answers come from a ScriptedAnswerer (the
harness's logic is under test here; tests/test_cli_eval.py runs it with Grounder)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import kb
from kb.errors import LLMUnreachable, QueryTimeout, ReportMismatch
from reasoning.eval import (Prediction, ScriptedAnswerer, companion_paths, evaluate,
                            read_items)
from reasoning.eval import answers as A

PREFIXES = ("PREFIX wd: <http://www.wikidata.org/entity/> "
            "PREFIX wdt: <http://www.wikidata.org/prop/direct/> ")
ROWS = [
    # gold from the KB: Warsaw (Q270)
    {"id": "q1", "question": "Where was Marie Curie born?",
     "sparql": PREFIXES + "SELECT ?x WHERE { wd:Q7186 wdt:P19 ?x }"},
    # gold from the KB: her three awards; the answerer finds two and a wrong one
    {"id": "q2", "question": "Which awards did Marie Curie receive?",
     "sparql": PREFIXES + "SELECT ?x WHERE { wd:Q7186 wdt:P166 ?x }"},
    # gold in the file, the KB has nothing: not covered
    {"id": "q3", "question": "Who founded Delta Air Lines?",
     "sparql": PREFIXES + "SELECT ?x WHERE { wd:Q188920 wdt:P112 ?x }",
     "info": {"results": [{"x": {"type": "uri",
                                 "value": "http://www.wikidata.org/entity/Q5"}}]}},
    # yes/no from the KB
    {"id": "q4", "question": "Was Marie Curie born in Warsaw?",
     "sparql": PREFIXES + "ASK { wd:Q7186 wdt:P19 wd:Q270 }"},
    # a gold query this KB cannot run: no gold, not scored
    {"id": "q5", "question": "Broken?", "sparql": "SELECT ?x WHERE { this is not sparql }"},
]
ANSWERS = {
    "Where was Marie Curie born?": ["Q270"],
    "Which awards did Marie Curie receive?": ["Q38104", "Q44585", "Q42"],
    "Who founded Delta Air Lines?": [],
    "Was Marie Curie born in Warsaw?": "Yes, she was.",
}


@pytest.fixture()
def demo(demo_mirror_path):
    return kb.open(str(demo_mirror_path))


@pytest.fixture()
def bench(tmp_path) -> Path:
    path = tmp_path / "bench.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    return path


CONFIG = {"benchmark": "bench.jsonl", "gate": "kb-only"}


def test_a_run_by_hand(demo, bench, tmp_path):
    items = read_items(bench)
    run = evaluate(items, ScriptedAnswerer(ANSWERS), demo, report=tmp_path / "r.json",
                   config=CONFIG, workers=3, progress=False)
    by = {r["id"]: r for r in run.records}
    assert by["q1"]["gold_source"] == "kb" and by["q1"]["covered"] is True
    assert by["q1"]["gold"] == [{"kind": "entity", "value": "Q270"}]
    assert by["q1"]["score"]["f1"] == 1.0
    q2 = by["q2"]["score"]
    # gold: 3 awards; predicted 2 of them and Q42: P = 2/3, R = 2/3, F1 = 2/3
    assert (q2["precision"], q2["recall"], q2["f1"]) == pytest.approx((2 / 3,) * 3, abs=1e-6)
    assert by["q3"]["gold_source"] == "file" and by["q3"]["covered"] is False
    assert (by["q3"]["score"]["precision"], by["q3"]["score"]["recall"]) == (1.0, 0.0)
    assert by["q4"]["gold"] == [{"kind": "literal", "value": "true"}]
    assert by["q4"]["free_text"] and by["q4"]["score"]["f1"] == 1.0
    assert by["q5"]["gold_source"] == "kb-error" and by["q5"]["score"] is None
    assert "QuerySyntaxError" in by["q5"]["gold_error"]

    t = run.report["totals"]
    assert (t["questions"], t["scored"]) == (5, 4)
    assert t["macro_f1"] == pytest.approx((1 + 2 / 3 + 0 + 1) / 4)
    assert t["exact_match"] == pytest.approx(2 / 4)
    assert t["coverage"] == pytest.approx(3 / 4)
    assert t["gold_sources"] == {"file": 1, "kb": 3, "kb-error": 1}
    assert run.report["by_type"]["single-fact"]["questions"] == 3
    saved = json.loads((tmp_path / "r.json").read_text())
    assert saved["totals"] == json.loads(json.dumps(t))
    assert saved["complete"] is True and len(saved["questions"]) == 5


def test_traces_are_written_beside_the_report(demo, bench, tmp_path):
    trace = {"question": "Where was Marie Curie born?", "stages": ["..."]}
    answers = {**ANSWERS, "Where was Marie Curie born?": Prediction(
        (A.entity("Q270"),), "Warsaw [1]", trace=trace)}
    run = evaluate(read_items(bench), ScriptedAnswerer(answers), demo,
                   report=tmp_path / "out" / "r.json", config=CONFIG, progress=False)
    record = next(r for r in run.records if r["id"] == "q1")
    path = tmp_path / "out" / record["trace"]
    assert path.parent == companion_paths(tmp_path / "out" / "r.json")[1]
    assert json.loads(path.read_text()) == trace
    assert all(r["trace"] is None for r in run.records if r["id"] != "q1")


def test_an_interrupted_run_resumes(demo, bench, tmp_path):
    items = read_items(bench)
    report = tmp_path / "r.json"
    first = ScriptedAnswerer(ANSWERS, fail={"Who founded Delta Air Lines?":
                                            KeyboardInterrupt()})
    with pytest.raises(KeyboardInterrupt):
        evaluate(items, first, demo, report=report, config=CONFIG, workers=1,
                 progress=False)
    records, _ = companion_paths(report)
    done = [json.loads(line) for line in records.read_text().splitlines()[1:]]
    assert [r["id"] for r in done] == ["q1", "q2"]
    partial = json.loads(report.read_text())
    assert partial["complete"] is False and partial["totals"]["questions"] == 2

    second = ScriptedAnswerer(ANSWERS)
    run = evaluate(items, second, demo, report=report, config=CONFIG, workers=2,
                   progress=False)
    asked = {q for q, _ in second.asked}
    assert "Where was Marie Curie born?" not in asked and "Who founded Delta Air Lines?" in asked
    assert (run.resumed, run.answered) == (2, 3)
    fresh = evaluate(items, ScriptedAnswerer(ANSWERS), demo, report=tmp_path / "f.json",
                     config=CONFIG, progress=False)
    assert run.report["totals"]["macro_f1"] == fresh.report["totals"]["macro_f1"]
    assert [r["id"] for r in run.records] == [r["id"] for r in fresh.records]
    # nothing left: a third run asks nothing
    third = ScriptedAnswerer(ANSWERS)
    evaluate(items, third, demo, report=report, config=CONFIG, progress=False)
    assert third.asked == []


def test_a_line_cut_short_is_asked_again(demo, bench, tmp_path):
    items = read_items(bench)
    report = tmp_path / "r.json"
    evaluate(items[:2], ScriptedAnswerer(ANSWERS), demo, report=report, config=CONFIG,
             progress=False)
    records, _ = companion_paths(report)
    text = records.read_text()
    records.write_text(text[:-40])                 # a crash in the middle of the last line
    again = ScriptedAnswerer(ANSWERS)
    run = evaluate(items, again, demo, report=report, config=CONFIG, progress=False)
    assert len(again.asked) == 4 and run.resumed == 1
    lines = records.read_text().splitlines()
    assert all(json.loads(line) for line in lines) and len(lines) == 6


def test_other_settings_do_not_mix(demo, bench, tmp_path):
    items = read_items(bench)
    report = tmp_path / "r.json"
    evaluate(items, ScriptedAnswerer(ANSWERS), demo, report=report, config=CONFIG,
             progress=False)
    other = {**CONFIG, "gate": "cok"}
    with pytest.raises(ReportMismatch, match="gate: 'kb-only' then, 'cok' now"):
        evaluate(items, ScriptedAnswerer(ANSWERS), demo, report=report, config=other,
                 progress=False)
    fresh = ScriptedAnswerer(ANSWERS)
    run = evaluate(items, fresh, demo, report=report, config=other, restart=True,
                   progress=False)
    assert len(fresh.asked) == 5 and run.report["config"]["gate"] == "cok"


def test_errors(demo, bench, tmp_path):
    items = read_items(bench)
    answerer = ScriptedAnswerer(ANSWERS, fail={
        "Which awards did Marie Curie receive?": QueryTimeout(1.0)})
    run = evaluate(items, answerer, demo, report=tmp_path / "r.json", config=CONFIG,
                   progress=False)
    q2 = next(r for r in run.records if r["id"] == "q2")
    assert q2["error"].startswith("QueryTimeout") and q2["score"]["recall"] == 0.0
    assert run.report["totals"]["errors"] == 1

    down = ScriptedAnswerer(ANSWERS, fail={"Who founded Delta Air Lines?": LLMUnreachable(
        "cannot connect", backend="openai:m")})
    report = tmp_path / "down.json"
    with pytest.raises(LLMUnreachable):
        evaluate(items, down, demo, report=report, config=CONFIG, workers=1, progress=False)
    kept = json.loads(report.read_text())
    assert kept["complete"] is False and {r["id"] for r in kept["questions"]} >= {"q1", "q2"}


def test_gold_over_a_live_endpoint_does_not_warm_the_mirror(bench, tmp_path, demo_endpoint):
    """Over a FallbackKB, gold queries and coverage lookups go to the endpoint directly:
    an empty mirror would answer the gold query with nothing, and lookups through it would
    be written back for the answerer to find."""
    from kb.endpoint import SparqlEndpointKB
    from store.mirror import Mirror

    empty = tmp_path / "empty.sqlite"
    Mirror(empty, create=True).close()
    live = kb.open(str(empty), live=SparqlEndpointKB(demo_endpoint.url, no_cache=True))
    run = evaluate(read_items(bench)[:2], ScriptedAnswerer(ANSWERS), live,
                   report=tmp_path / "r.json", config=CONFIG, progress=False)
    q1, q2 = run.records
    assert q1["gold"] == [{"kind": "entity", "value": "Q270"}] and q1["covered"] is True
    assert len(q2["gold"]) == 3 and q2["score"]["f1"] == pytest.approx(2 / 3, abs=1e-6)
    assert kb.open(str(empty)).statements("Q7186") == []


def test_a_progress_bar_with_the_running_f1(demo, bench, tmp_path, capsys):
    evaluate(read_items(bench), ScriptedAnswerer(ANSWERS), demo, report=tmp_path / "r.json",
             config=CONFIG, workers=2, progress=True)
    err = capsys.readouterr().err
    assert "eval: 100%" in err and "5/5" in err and "F1 0.667" in err  # (1 + 2/3 + 0 + 1) / 4
    evaluate(read_items(bench), ScriptedAnswerer(ANSWERS), demo, report=tmp_path / "s.json",
             config=CONFIG, progress=False)
    assert capsys.readouterr().err == ""


def test_warm_up_loads_the_live_property_list_before_the_clock(tmp_path, demo_endpoint,
                                                                demo_mirror_path):
    """Over a FallbackKB, the first name the mirror lacks loads the endpoint's property
    list (minutes on a big endpoint, every other thread waiting): the warm-up does it,
    even when the warm-up question's names are all in the mirror."""
    import shutil

    from kb.endpoint import SparqlEndpointKB
    from reasoning.eval import GrounderAnswerer
    from reasoning.grounder import Grounder

    local = tmp_path / "local.sqlite"
    shutil.copyfile(demo_mirror_path, local)
    live = kb.open(str(local), live=SparqlEndpointKB(demo_endpoint.url, no_cache=True))
    answerer = GrounderAnswerer(lambda lang: Grounder(live, lang=lang))
    source = answerer.grounder("en").linker.source
    answerer.warm_up("en", "Where was Marie Curie born?")
    assert source._remote._props is not None           # loaded (whatever this server knows)


def test_records_reload_from_the_file_after_an_interrupt(tmp_path):
    """An interrupt between a record's write and its entry in memory: the partial report
    must count what the file holds (what a resume finds), and a line cut short is dropped."""
    from reasoning.eval.runner import RecordLog

    path = tmp_path / "r.records.jsonl"
    log = RecordLog(path, {"setting": 1})
    log.append({"kind": "question", "key": "a"})
    log._file.write(json.dumps({"kind": "question", "key": "b"}) + "\n")   # not in memory
    log._file.write('{"kind": "question", "ke')                           # cut short
    log.close()
    assert set(log.records) == {"a"}
    log.reload()
    assert set(log.records) == {"a", "b"}
    assert path.read_text().endswith("\n")


def test_an_evaluation_is_set_up_by_the_library_as_the_command_does(demo, bench, tmp_path):
    from reasoning.eval.setup import EvalSetupError, prepare, setting_name
    setup = prepare(bench, demo, report=tmp_path / "r.json")
    assert [i.question for i in setup.items][:2] == [ROWS[0]["question"], ROWS[1]["question"]]
    assert setup.llm is None and setup.config["gate"] == "kb-only"
    assert setup.config["benchmark_sha256"] and setup.report == tmp_path / "r.json"
    run = setup.run(workers=1, progress=False)
    assert run.report_path.exists() and run.report["totals"]["questions"] == len(ROWS)
    # the default report name carries the setting
    assert setting_name(None, None, "auto") == "kb-only"
    assert setting_name("openai:gpt 4o", None, "rowen-cl") == "openai_gpt_4o-rowen-cl"
    # options that cannot work together fail before anything runs, saying what to do
    with pytest.raises(EvalSetupError, match="asks a model"):
        prepare(bench, demo, gate="cok")
    with pytest.raises(EvalSetupError, match="is not a file"):
        prepare(tmp_path / "missing.jsonl", demo)
    with pytest.raises(EvalSetupError, match="no question in the languages"):
        prepare(bench, demo, languages=["xx"])
