"""CachedLLM (record/replay in SQLite) and llm_from_spec."""

from __future__ import annotations

import json

import pytest

from kb.errors import LLMBadReply, LLMCacheMiss, LLMConfigError
from reasoning.llm import CachedLLM, ScriptedLLM, SimulatedLLM, llm_from_spec

USER = [{"role": "user", "content": "Capital of France?"}]


def test_record_then_replay_offline(tmp_path):
    path = tmp_path / "calls.sqlite"
    inner = ScriptedLLM(["Paris", "a", "b", "c"], model="m")
    rec = CachedLLM(inner, path)
    assert rec.complete(USER) == ["Paris"]
    assert rec.complete(USER) == ["Paris"]                       # a hit: inner not called
    assert rec.complete(USER, n=3, temperature=0.9) == ["a", "b", "c"]
    assert (rec.hits, rec.misses, inner.usage.calls) == (1, 2, 2)
    assert len(rec.log) == 2
    rec.close()
    replay = CachedLLM(None, path, mode="replay", model="m")
    assert replay.complete(USER, n=3, temperature=0.9) == ["a", "b", "c"]
    assert replay.complete(USER) == ["Paris"]
    with pytest.raises(LLMCacheMiss) as err:
        replay.complete(USER, temperature=0.5)                   # another request
    assert "record it first" in str(err.value)
    with pytest.raises(LLMCacheMiss):
        CachedLLM(None, path, mode="replay", model="other").complete(USER)   # another model


def test_record_mode_calls_again_and_replaces(tmp_path):
    path = tmp_path / "calls.sqlite"
    CachedLLM(ScriptedLLM(["old"], model="m"), path).complete(USER)
    CachedLLM(ScriptedLLM(["new"], model="m"), path, mode="record").complete(USER)
    assert CachedLLM(None, path, mode="replay", model="m").complete(USER) == ["new"]


def test_errors_are_not_recorded(tmp_path):
    cached = CachedLLM(ScriptedLLM([], model="m"), tmp_path / "c.sqlite")
    with pytest.raises(LLMBadReply):
        cached.complete(USER)
    assert len(cached.log) == 0


def test_cache_configuration_errors(tmp_path):
    with pytest.raises(LLMConfigError, match="mode"):
        CachedLLM(ScriptedLLM(["x"]), tmp_path / "c.sqlite", mode="sometimes")
    with pytest.raises(LLMConfigError, match="replay"):
        CachedLLM(None, tmp_path / "c.sqlite")
    (tmp_path / "dir.sqlite").mkdir()
    with pytest.raises(LLMConfigError, match="cannot open"):
        CachedLLM(ScriptedLLM(["x"]), tmp_path / "dir.sqlite")


def test_specs(tmp_path):
    assert llm_from_spec("none") is None and llm_from_spec(None) is None
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"France": "Paris", "*": "no idea"}))
    llm = llm_from_spec(f"scripted:{script}")
    assert llm.complete(USER) == ["Paris"]
    assert llm.complete([{"role": "user", "content": "?"}]) == ["no idea"]
    script.write_text(json.dumps(["a", "b"]))
    assert llm_from_spec(f"scripted:{script}").complete(USER, n=3) == ["a", "b", "a"]
    rows = [{"question": "Where is X?", "subject": "Q1", "property": "P131",
             "answers": ["Q2"], "answer_labels": ["Y"]}]
    sim = llm_from_spec("simulated:7", catalog=rows)
    assert isinstance(sim, SimulatedLLM) and sim.seed == 7
    cached = llm_from_spec(f"scripted:{script}", cache=tmp_path / "c.sqlite")
    assert isinstance(cached, CachedLLM) and cached.complete(USER) == ["a"]


def test_openai_spec_builds_the_client():
    pytest.importorskip("openai")
    llm = llm_from_spec("openai:my-model", base_url="http://127.0.0.1:9/v1")
    assert llm.model == "my-model" and llm.base_url == "http://127.0.0.1:9/v1"


@pytest.mark.parametrize("spec, match", [
    ("gpt4", "unknown LLM spec"), ("openai:", "unknown LLM spec"),
    ("simulated", "catalog"), ("simulated:x", "integer"),
    ("scripted:/nonexistent/s.json", "cannot read"), ("hf:/nonexistent", "config.json"),
])
def test_bad_specs_say_what_is_accepted(spec, match):
    with pytest.raises(LLMConfigError, match=match):
        llm_from_spec(spec)


def test_a_script_that_is_not_json(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    with pytest.raises(LLMConfigError, match="not JSON"):
        llm_from_spec(f"scripted:{bad}")
