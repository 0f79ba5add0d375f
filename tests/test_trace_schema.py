"""The trace of an ask follows its published JSON Schema (chains/schema/trace-v1.schema.json,
``reasoning.load_trace_schema()``), which the answer's schema refers to for ``trace``:
``kgground ask --json`` on the demo KB alone and with a scripted model (every stage the
policy has), and in process each stage's typed record (``reasoning.records``) — a model
that chooses by likelihood and an LLM's generated queries included. The schema is not
vacuous: a record with a field of the wrong type fails it."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any, Callable

import pytest

import chains
from reasoning import (TRACE_SCHEMA_PATH, Grounder, load_answer_schema, load_trace_schema,
                       prompts, schemas_by_id)
from reasoning.answer import AnswerTrace
from reasoning.llm import ScriptedLLM, llm_from_spec
from reasoning.records import (AnswerRecord, ChoiceRecord, DecisionRecord, DraftRecord,
                               FinishRecord, GeneratedQueryRecord, GraphQueryRecord,
                               RetrievalRecord, RevisionRecord, VerifyRecord)
from tests import test_answer_schema
from tests.test_answer_schema import SCRIPT, ask_json, errors, stages

#: the answer schema's tests' user (a home holding the model script, the demo mirror)
user_env = test_answer_schema.user_env

#: the record each stage name keeps
RECORDS: dict[str, tuple[type, ...]] = {
    "draft": (DraftRecord,), "decide": (DecisionRecord,), "retrieve": (RetrievalRecord,),
    "answer": (AnswerRecord, ChoiceRecord), "verify": (VerifyRecord,),
    "revise": (RevisionRecord,), "finish": (FinishRecord,)}
EVERY_STAGE = ["draft", "decide", "retrieve", "answer", "verify", "revise", "verify", "finish"]


@pytest.fixture(scope="module")
def validator() -> Any:
    """A validator of the trace alone (its retrieve seeds refer to the evidence graph's
    schema)."""
    jsonschema = pytest.importorskip("jsonschema", reason="pip install 'kgground[test]'")
    from referencing import Registry

    schema = load_trace_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    registry = Registry().with_contents(schemas_by_id().items())
    return jsonschema.Draft202012Validator(schema, registry=registry)


def test_the_trace_schema_sits_beside_the_others_and_the_answers_trace_is_it():
    trace, answer = load_trace_schema(), load_answer_schema()
    assert TRACE_SCHEMA_PATH.parent == chains.SCHEMA_PATH.parent
    assert TRACE_SCHEMA_PATH.name == "trace-v1.schema.json"
    assert trace["$id"].endswith("/trace-v1.schema.json")
    assert answer["properties"]["trace"]["$ref"] == trace["$id"]
    assert set(schemas_by_id()) == {trace["$id"], answer["$id"], chains.load_schema()["$id"]}
    # every stage name the policy has is described, and its details are its record's
    described = {rule["if"]["properties"]["stage"]["const"]
                 for rule in trace["$defs"]["stage"]["allOf"]}
    assert described == set(RECORDS)


def test_ask_json_on_the_kb_alone_has_a_trace_that_follows_the_schema(validator, user_env):
    data = ask_json(user_env, "Where was Marie Curie born?")
    assert stages(data) == ["retrieve", "finish"]
    assert errors(validator, data["trace"]) == []


def test_ask_json_with_a_scripted_model_has_a_trace_that_follows_the_schema(validator,
                                                                           user_env):
    data = ask_json(user_env, "What is the shoe size of Marie Curie?", "--llm",
                    "scripted:{home}/script.json")
    assert stages(data) == EVERY_STAGE
    assert errors(validator, data["trace"]) == []


# -- the typed records, in process -------------------------------------------------------------
def _query_writer() -> ScriptedLLM:
    """A model whose queries are its own (strategy 'llm'): a label-level SPARQL query."""
    def reply(p: Any) -> str:
        task = (prompts.identify(p.messages) or ("other", {}))[0]
        if task in ("cot", "draft"):
            return "I don't know."
        if task == "grounded":
            return "Answer: Warsaw [1]"
        return "SELECT ?x WHERE { wd:/Marie Curie/ wdt:/place of birth/ ?x }"
    return ScriptedLLM(reply)


@pytest.fixture(scope="module")
def answers(demo_kb_copy, tmp_path_factory) -> dict[str, Any]:
    from tests.test_llm_choice import Scorer

    script = tmp_path_factory.mktemp("script") / "script.json"
    script.write_text(json.dumps(SCRIPT), encoding="utf-8")
    scripted = llm_from_spec(f"scripted:{script}")
    return {
        "kb": Grounder(demo_kb_copy).ask("Where was Marie Curie born?"),
        "scripted": Grounder(demo_kb_copy, scripted).ask(
            "What is the shoe size of Marie Curie?"),
        "scorer": Grounder(demo_kb_copy, Scorer({}), gate="always").ask(
            "Who was Marie Curie married to?"),
        "generated": Grounder(demo_kb_copy, _query_writer(), gate="always",
                              strategy="llm").ask("Where was Marie Curie born?"),
    }


def test_each_stage_keeps_its_typed_record_and_its_details_are_the_records_json(
        validator, answers):
    seen: set[type] = set()
    for name, answer in answers.items():
        for stage in answer.trace.stages:
            assert isinstance(stage.record, RECORDS[stage.name]), (name, stage)
            assert stage.details == stage.record.as_dict()
            seen.add(type(stage.record))
            if isinstance(stage.record, RetrievalRecord):
                seen.update(type(q) for q in stage.record.final.queries)
        # the trace is JSON as it is (emit_json's default=str would hide an object)
        data = json.loads(json.dumps(answer.trace.as_dict()))
        assert errors(validator, data) == [], name
    assert seen == {r for rs in RECORDS.values() for r in rs} | {GraphQueryRecord,
                                                                 GeneratedQueryRecord}
    assert [s.name for s in answers["scripted"].trace.stages] == EVERY_STAGE
    retrieve = answers["scripted"].trace.stage("retrieve").record
    assert retrieve.decomposition is not None and retrieve.with_sub_questions is not None
    assert retrieve.final is retrieve.with_sub_questions


def _first(trace: AnswerTrace, name: str) -> int:
    return next(i for i, s in enumerate(trace.stages) if s.name == name)


def _final(record: RetrievalRecord, **changes: Any) -> RetrievalRecord:
    """``record`` with ``changes`` to its final consolidation (the one with the
    sub-questions, when there is one: its fields are the details')."""
    if record.with_sub_questions is not None:
        return replace(record, with_sub_questions=replace(record.with_sub_questions,
                                                          **changes))
    return replace(record, consolidation=replace(record.consolidation, **changes))


def _query_rank(record: RetrievalRecord, rank: Any) -> RetrievalRecord:
    queries = record.final.queries
    return _final(record, queries=(replace(queries[0], rank=rank), *queries[1:]))


# (stage, a change to its record that gives one field a value of the wrong type, the field)
BROKEN: list[tuple[str, Callable[[Any], Any], str]] = [
    ("draft", lambda r: replace(r, reply=123), "reply"),
    ("draft", lambda r: replace(r, prompt=[{"role": "user", "content": 1}]), "prompt/0"),
    ("decide", lambda r: replace(r, decision=replace(r.decision, consult="yes")), "consult"),
    ("retrieve", lambda r: _final(r, statements="3"), "statements"),
    ("retrieve", lambda r: _final(r, answered_by="luck"), "answered_by"),
    ("retrieve", lambda r: _final(r, kb_missing="shoe size"), "kb_missing"),
    ("retrieve", lambda r: _query_rank(r, "first"), "queries/0/rank"),
    ("answer", lambda r: replace(r, reply=None), "reply"),
    ("verify", lambda r: replace(r, round="1"), "round"),
    ("revise", lambda r: replace(r, stalled="no"), "stalled"),
    ("finish", lambda r: replace(r, grounded="yes"), "grounded"),
    ("finish", lambda r: replace(r, mode="oracle"), "mode"),
]


@pytest.mark.parametrize("name, change, field", BROKEN,
                         ids=[f"{n}-{f}" for n, _, f in BROKEN])
def test_a_record_with_a_field_of_the_wrong_type_fails_the_schema(validator, answers, name,
                                                                  change, field):
    trace = answers["scripted"].trace
    i = _first(trace, name)
    stage = trace.stages[i]
    record = change(stage.record)
    broken = replace(trace, stages=(*trace.stages[:i], replace(stage, record=record),
                                    *trace.stages[i + 1:]))
    found = [e for e in validator.iter_errors(broken.as_dict())]
    assert found, "the schema let a broken record through"
    where = f"stages/{i}/details/{field}"
    assert any("/".join(map(str, e.absolute_path)).startswith(where) for e in found), \
        errors(validator, broken.as_dict())
