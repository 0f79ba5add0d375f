"""``kgground gate``: one gate decision from the command line."""

from __future__ import annotations

import json

import pytest

CATALOG = [
    {"question": f"Which country is person {i} a citizen of?", "subject": f"Q{100 + i}",
     "property": "P27", "answers": [f"Q{i % 6 + 1}"],
     "answer_labels": [["Sweden", "Norway", "Peru", "Chile", "Japan", "Kenya"][i % 6]]}
    for i in range(60)]


@pytest.fixture(autouse=True)
def no_llm_settings(monkeypatch):
    for var in ("KGGROUND_LLM", "KGGROUND_VERIFIER", "KGGROUND_LLM_CACHE"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def catalog(tmp_path):
    path = tmp_path / "catalog.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in CATALOG))
    return str(path)


def test_a_scripted_model_that_agrees_with_itself_does_not_consult(run, script):
    r = run("gate", "Where is the Louvre?", "--llm", f"scripted:{script}")
    assert r.exit_code == 0, r.output
    assert "rowen-cl: answer without the KB" in r.output and "z_cl=1" in r.output
    # a judge that says True to everything fails the probes: MiniLM checks instead (1
    # paraphrase call, 6 answers, 6 translations and their 6 answers, two judge probes)
    assert "21 LLM calls" in r.output
    r = run("gate", "Where is the Louvre?", "--llm", f"scripted:{script}", "--gate", "cok",
            "--json")
    d = json.loads(r.output)
    assert d["gate"] == "cok" and d["consult"] is False and d["answer"] == "Paris"


def test_simulated_models_with_a_catalog_and_json(run, catalog):
    r = run("gate", CATALOG[3]["question"], "--llm", "simulated:1", "--verifier",
            "simulated:2", "--catalog", catalog, "--json")
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert d["gate"] == "rowen-hybrid" and set(d["scores"]) == {"z_cl", "z_cm", "z_hybrid"}
    assert d["n_calls"] == 38 and len(d["calls"]) == 38      # 37 and the judge's probe
    assert {c["role"] for c in d["calls"]} == {"model", "verifier", "checker"}


def test_record_then_replay_offline(run, catalog, tmp_path):
    cache = str(tmp_path / "calls.sqlite")
    args = ("gate", CATALOG[5]["question"], "--llm", "simulated:1", "--catalog", catalog,
            "--llm-cache", cache, "--json")
    first = json.loads(run(*args).output)
    again = json.loads(run(*args, "--replay").output)
    assert first["scores"] == again["scores"] and again["n_calls"] == 26
    r = run("gate", "Some other question?", "--llm", "simulated:1", "--catalog", catalog,
            "--llm-cache", cache, "--replay")
    assert r.exit_code == 1 and "no recorded reply" in r.output


def test_errors_are_clear(run, catalog, script, monkeypatch, tmp_path):
    r = run("gate", "q?", "--llm", f"scripted:{script}", "--gate", "rowen-cm")
    assert r.exit_code == 1 and "verifier" in r.output
    monkeypatch.setenv("KGGROUND_DB", str(tmp_path / "mine.sqlite"))   # not the demo KB
    r = run("gate", "q?", "--llm", "simulated")
    assert r.exit_code != 0 and "--catalog" in r.output and "A catalog is" in r.output
    monkeypatch.delenv("KGGROUND_DB")
    r = run("gate", "q?", "--llm", "gpt4")                 # refused before anything runs
    assert r.exit_code == 2 and "openai:MODEL" in r.output
    r = run("gate", "q?", "--gate", "cok")
    assert r.exit_code == 1 and "--llm" in r.output
    r = run("gate", "q?", "--llm", f"scripted:{script}", "--replay")
    assert r.exit_code != 0 and "--llm-cache" in r.output
    assert run("gate", "q?", "--gate", "never").output.startswith("never: answer without")
    assert "--verifier" in run("gate", "--help").output
