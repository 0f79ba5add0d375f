"""``kgground ask`` as a new user runs it: a subprocess, a fresh default mirror, offline,
with and without an LLM; JSON, the evidence page and clear errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def user_env(tmp_path_factory):
    """The environment of a new user: no KB, LLM or endpoint configured, an empty cache."""
    home = tmp_path_factory.mktemp("user")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("KGGROUND_", "OPENAI_"))}
    env.update(KGGROUND_DEFAULT_DB=str(home / "cache" / "mirror.sqlite"), HOME=str(home),
               PYTHONPATH=str(REPO))
    return env


def kgground(env, *args, check=True):
    out = subprocess.run([sys.executable, "-m", "reasoning", *args], env=env,
                         capture_output=True, text=True, timeout=300)
    if check:
        assert out.returncode == 0, out.stderr
    return out


def test_first_command_builds_the_demo_mirror_and_answers_from_the_kb(user_env):
    out = kgground(user_env, "ask", "Where was Marie Curie born?", "--offline")
    assert "building the demo KB" in out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "Answer: Warsaw [1]"
    assert lines[1].startswith("  grounded — from the KB alone, confidence 0.")
    assert "  [1] Marie Curie — place of birth → Warsaw" in lines
    assert any(line.strip().startswith("https://www.wikidata.org/wiki/Q7186#") for line in lines)
    assert "An LLM (--llm) would add" in out.stdout
    again = kgground(user_env, "ask", "Who was Marie Curie married to?")
    assert "building" not in again.stderr
    assert again.stdout.startswith("Answer: Pierre Curie [1]")


def test_with_a_simulated_llm_on_the_demo_kb(user_env):
    out = kgground(user_env, "ask", "Who was Marie Curie married to?", "--llm", "simulated",
                   "--offline")
    assert out.stdout.startswith("Answer: Pierre Curie [")
    assert "Decision: " in out.stdout and "LLM calls" in out.stdout
    data = json.loads(kgground(user_env, "ask", "Where did Niels Bohr die?", "--llm",
                               "simulated:3", "--gate", "cok", "--json").stdout)
    assert data["decision"]["gate"] in ("cok", "policy")
    assert data["mode"] in ("llm", "llm+kb")
    stages = [s["stage"] for s in data["trace"]["stages"]]
    assert stages[:2] == ["draft", "decide"] and stages[-1] == "finish"


def test_json_and_the_evidence_page(user_env, tmp_path):
    pytest.importorskip("pyvis", reason="pip install 'kgground[viewer]'")
    page = tmp_path / "evidence.html"
    out = kgground(user_env, "ask", "Where was Marie Curie born?", "--json", "--html",
                   str(page))
    data = json.loads(out.stdout)
    assert data["text"] == "Warsaw [1]" and data["grounded"] and data["mode"] == "kb"
    c = data["citations"][0]
    assert (c["number"], c["subject"], c["property"], c["value"]["value"]) == \
        (1, "Q7186", "P19", "Q270")
    assert data["graph"]["schema"] == "kgground/evidence-graph"
    assert data["graph"]["citations"][0]["statement_id"] == c["statement_id"]
    assert f"wrote the evidence page: {page}" in out.stderr
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


@pytest.mark.parametrize("args, message", [
    (["--gate", "cok"], "the cok gate needs an LLM"),
    (["--llm", "simulated", "--db", "other.sqlite"], "needs --catalog"),
    (["--llm", "nonsense:x"], "nonsense"),
])
def test_clear_errors(user_env, args, message):
    out = kgground(user_env, "ask", "Where was Marie Curie born?", *args, check=False)
    assert out.returncode != 0
    assert message in out.stderr and "Traceback" not in out.stderr


def test_help(user_env):
    out = kgground(user_env, "ask", "--help")
    for option in ("--llm", "--verifier", "--gate", "--db", "--endpoint", "--offline",
                   "--json", "--html"):
        assert option in out.stdout


def test_a_turtle_kb_answers_with_labels_and_is_grounded(user_env):
    """A custom KB's entities are IRIs: the answer names them by their labels, and a
    cited answer is grounded (an IRI answer was printed raw and marked NOT grounded)."""
    library = REPO / "tests" / "data" / "chains-library.ttl"
    out = kgground(user_env, "ask", "In which city was Ada Quill born?", "--db",
                   str(library), "--json")
    answer = json.loads(out.stdout)
    assert answer["text"] == "Porto [1]"
    assert answer["grounded"] is True
