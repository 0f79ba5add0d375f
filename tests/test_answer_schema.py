"""``kgground ask --json`` follows its published JSON Schema (chains/schema/
answer-v1.schema.json, ``reasoning.load_answer_schema()``, whose trace is
trace-v1.schema.json's, tests/test_trace_schema.py): KB-only answers, an abstention,
the simulated and scripted LLMs, the evidence page's run (the chainer always on), a question
in German, a model that chooses by likelihood — and the schema is not vacuous: documents
broken in each important way fail it."""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import pytest

import chains
from reasoning import ANSWER_SCHEMA_PATH, Grounder, load_answer_schema, load_trace_schema

REPO = Path(__file__).resolve().parent.parent
#: a scripted model that drafts "I don't know" (so the KB is consulted without the gate),
#: breaks the question into sub-questions, answers first with a citation the evidence does
#: not have (so the check fails) and then, revising, with [1]
SCRIPT = {"Your previous answer": "From the evidence [1].\nAnswer: Pierre Curie [1]",
          "Break the question": "Who was Marie Curie married to?\nWhere was #1 born?",
          "numbered evidence": "Answer: Paris [99]",
          "one short sentence": "I don't know.",
          "*": "I don't know"}


@pytest.fixture(scope="module")
def validator() -> Any:
    jsonschema = pytest.importorskip("jsonschema", reason="pip install 'kgground[test]'")
    from referencing import Registry, Resource

    schema = load_answer_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    graph, trace = chains.load_schema(), load_trace_schema()
    registry = Registry().with_resources((s["$id"], Resource.from_contents(s))
                                         for s in (graph, trace))
    return jsonschema.Draft202012Validator(schema, registry=registry)


def errors(check: Any, data: Any) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
            for e in check.iter_errors(data)]


@pytest.fixture(scope="module")
def user_env(demo_mirror_path, tmp_path_factory):
    """A user's environment (as tests/test_cli_ask.py's) whose default mirror is a copy of
    the demo mirror: no KB, LLM or endpoint configured; its home holds the model script."""
    home = tmp_path_factory.mktemp("user")
    mirror = home / "mirror.sqlite"
    shutil.copy(demo_mirror_path, mirror)     # linking builds its sidecar beside it
    (home / "script.json").write_text(json.dumps(SCRIPT), encoding="utf-8")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("KGGROUND_", "OPENAI_"))}
    env.update(KGGROUND_DEFAULT_DB=str(mirror), HOME=str(home), PYTHONPATH=str(REPO))
    return env


def ask_json(env: dict[str, str], *args: str) -> dict[str, Any]:
    """``kgground ask ARGS --offline --json`` ("{home}" in ARGS is the user's home)."""
    args = tuple(a.replace("{home}", env["HOME"]) for a in args)
    out = subprocess.run([sys.executable, "-m", "reasoning", "ask", *args, "--offline",
                          "--json"], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def stages(data: dict[str, Any]) -> list[str]:
    return [s["stage"] for s in data["trace"]["stages"]]


@pytest.fixture(scope="module")
def kb_answer(user_env):
    return ask_json(user_env, "Where was Marie Curie born?")


def test_the_schema_sits_beside_the_evidence_graphs_and_refers_to_it_by_id():
    schema = load_answer_schema()
    assert ANSWER_SCHEMA_PATH.parent == chains.SCHEMA_PATH.parent
    assert schema["$id"].endswith("/answer-v1.schema.json")
    assert chains.load_schema()["$id"] in json.dumps(schema["properties"]["graph"])
    assert set(schema["required"]) == set(schema["properties"])


def test_a_kb_only_answer_follows_the_schema(validator, kb_answer):
    assert errors(validator, kb_answer) == []
    assert (kb_answer["mode"], kb_answer["text"]) == ("kb", "Warsaw [1]")
    assert stages(kb_answer) == ["retrieve", "finish"]


# (CLI arguments, what the run must show: so that each case covers what it is here for)
CASES: dict[str, tuple[tuple[str, ...], Callable[[dict[str, Any]], bool]]] = {
    "abstention": (("What is the shoe size of Marie Curie?",),
                   lambda d: d["mode"] == "kb" and d["missing"] == "relation"
                   and not d["grounded"] and d["values"] == []),
    "simulated": (("Who was Marie Curie married to?", "--llm", "simulated", "--gate",
                   "always"),
                  lambda d: d["decision"]["gate"] == "always"
                  and {"retrieve", "answer", "verify"} <= set(stages(d))),
    # every stage the policy has: draft, decide (by the policy: the draft abstains),
    # retrieve with sub-questions, answer, verify (failed), revise, verify, finish
    "scripted": (("What is the shoe size of Marie Curie?", "--llm",
                  "scripted:{home}/script.json"),
                 lambda d: stages(d) == ["draft", "decide", "retrieve", "answer", "verify",
                                         "revise", "verify", "finish"]
                 and "sub_questions_kept" in d["trace"]["stages"][2]["details"]),
    "german": (("Wo wurde Marie Curie geboren?",),
               lambda d: d["lang"] == "de" and d["text"] == "Warschau [1]"
               and d["trace"]["stages"][0]["details"]["read_as"]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_ask_json_follows_the_schema(validator, user_env, case):
    args, shows = CASES[case]
    data = ask_json(user_env, *args)
    assert errors(validator, data) == []
    assert shows(data)


def test_with_the_evidence_page_the_chainer_runs_and_the_answer_follows_the_schema(
        validator, user_env):
    """ask has no --chains option; --html runs the chainer always (chains=True)."""
    pytest.importorskip("pyvis", reason="pip install 'kgground[viewer]'")
    data = ask_json(user_env, "Who won the Nobel Prize in Physics in 1903?", "--html",
                    "{home}/evidence.html")
    assert errors(validator, data) == []
    assert data["graph"]["chains"] and data["trace"]["stages"][0]["details"]["chains"]


def test_a_model_that_chooses_by_likelihood(validator, demo_kb_copy):
    """A scoring model's draft (complete_scored) and choice (score calls); the dict is
    JSON as it is (``emit_json``'s default=str would hide an object that is not)."""
    from tests.test_llm_choice import Scorer

    answer = Grounder(demo_kb_copy, Scorer({}), gate="always").ask(
        "Who was Marie Curie married to?")
    data = json.loads(json.dumps(answer.as_dict()))
    assert errors(validator, data) == []
    answer_stage = next(s for s in data["trace"]["stages"] if s["stage"] == "answer")
    assert "choice" in answer_stage["details"]
    assert {c["kind"] for c in answer_stage["llm_calls"]} == {"score"}


def _drop(path: str) -> Callable[[dict[str, Any]], None]:
    *parents, last = path.split("/")

    def change(d: dict[str, Any]) -> None:
        for key in parents:
            d = d[int(key)] if isinstance(d, list) else d[key]
        del d[last]
    return change


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], None]:
    *parents, last = path.split("/")

    def change(d: Any) -> None:
        for key in parents:
            d = d[int(key)] if isinstance(d, list) else d[key]
        d[last] = value
    return change


@pytest.mark.parametrize("change, where", [
    (_drop("trace/stages/0/stage"), "trace/stages/0"),              # a stage without its name
    (_set("trace/stages/0/extra", 1), "trace/stages/0"),             # the stage record is strict
    (_set("verdict", "yes"), ""),                                    # so is the top level
    (_set("trace/total", 1.0), "trace"),                             # and the trace
    (_drop("trace/n_llm_calls"), "trace"),
    (_set("trace/stages/0/seconds", "fast"), "trace/stages/0/seconds"),
    (_drop("trace/stages/0/details/queries"), "trace/stages/0/details"),   # retrieve's
    (_set("trace/stages/0/details/answered_by", "luck"),
     "trace/stages/0/details/answered_by"),
    (_set("trace/stages/1/details/grounded", "yes"), "trace/stages/1/details/grounded"),
    # each known stage's details are its own: finish's are not a check's, nor a draft's
    (_set("trace/stages/1/stage", "verify"), "trace/stages/1/details"),
    (_set("trace/stages/1/stage", "draft"), "trace/stages/1/details"),
    (_set("trace/stages/0/kb_calls/search", {"calls": 0.5}), "trace/stages/0/kb_calls/search"),
    (_set("mode", "oracle"), "mode"),
    (_set("grounded", "true"), "grounded"),
    (_set("missing", "shoe size"), "missing"),
    (_drop("values/0/citations"), "values/0"),
    (_drop("citations/0/url"), "citations/0"),                       # the evidence graph's
    (_set("graph/version", 2), "graph"),                             # schema, by reference
    (_drop("trace"), ""),
])
def test_broken_answers_fail_the_schema(validator, kb_answer, change, where):
    data = copy.deepcopy(kb_answer)
    assert stages(data) == ["retrieve", "finish"]
    change(data)
    found = list(validator.iter_errors(data))
    assert found, "the schema let a broken answer through"
    assert any("/".join(map(str, e.absolute_path)).startswith(where) for e in found), \
        errors(validator, data)


def test_stage_details_may_grow_and_stages_may_be_new(validator, kb_answer):
    """A new detail is not a break, nor a stage the schema does not know; an LLM call
    record is strict."""
    data = copy.deepcopy(kb_answer)
    data["trace"]["stages"][0]["details"]["new_detail"] = {"any": ["shape"]}
    data["trace"]["stages"].insert(1, {"stage": "rerank", "seconds": 0.1,
                                       "details": {"whatever": 1}, "llm_calls": [],
                                       "kb_calls": {}})
    assert errors(validator, data) == []
    call = {"stage": "rerank", "role": "model", "model": "m", "kind": "complete",
            "messages": [{"role": "user", "content": "?"}], "n": 1, "temperature": 0.0,
            "replies": ["!"], "seconds": 0.1, "error": None, "prompt_tokens": None,
            "completion_tokens": None}
    data["trace"]["stages"][1]["llm_calls"] = [call]
    assert errors(validator, data) == []
    data["trace"]["stages"][1]["llm_calls"] = [{**call, "cost": 0.01}]
    assert errors(validator, data) != []
    data["trace"]["stages"][1]["llm_calls"] = [{**call, "kind": "chat"}]
    assert errors(validator, data) != []
