"""``kgground query``: a question in, queries (and with --run, cited answers) out."""

from __future__ import annotations

import json
import shutil

import pytest


@pytest.fixture(scope="module")
def demo_db(demo_mirror_path, tmp_path_factory):
    path = tmp_path_factory.mktemp("qg-cli") / "demo.sqlite"
    shutil.copy(demo_mirror_path, path)
    return str(path)


def test_query_prints_label_level_and_grounded_forms(run, demo_db):
    out = run("query", "Where was Marie Curie born?", "--db", demo_db)
    assert out.exit_code == 0, out.output
    assert "1. [" in out.output and "triplet, select: wd:/Marie Curie/ wdt:/place of birth/ ?x" \
        in out.output
    assert "grounded: wd:Q7186 wdt:P19 ?x" in out.output
    assert "entity 'Marie Curie' → Q7186 (Marie Curie)" in out.output


def test_run_prints_answers_with_citations(run, demo_db):
    out = run("query", "Where was Marie Curie born?", "--db", demo_db, "--run")
    assert out.exit_code == 0, out.output
    assert "Warsaw (Q270)" in out.output
    assert "[Q7186 P19 Q270] https://www.wikidata.org/wiki/Q7186#" in out.output


def test_yes_no_and_count_answers(run, demo_db):
    yes = run("query", "Was Albert Einstein born in Germany?", "--db", demo_db, "--run")
    assert "answer: yes" in yes.output and "[Q937 P19 Q3012]" in yes.output
    count = run("query", "How many awards did Albert Einstein receive?", "--db", demo_db,
                "--run")
    assert "answer: 3" in count.output and "counted: Copley Medal (Q28003)" in count.output


def test_json_for_scripts(run, demo_db):
    out = run("query", "Who employed Albert Einstein?", "--db", demo_db, "--run", "--json",
              "--limit", "2")
    data = json.loads(out.output)
    assert data["strategy"] == "rules" and len(data["queries"]) <= 2
    best = data["queries"][0]
    assert best["triple"] == ["Q937", "P108", None] and best["kind"] == "triplet"
    assert {a["value"]["value"] for a in data["result"]["answers"]} == {
        "Q11942", "Q206702", "Q152087", "Q635642"}   # ETH, Zurich, Humboldt, IAS
    assert all(a["citations"] for a in data["result"]["answers"])


def test_nothing_linked_exits_1_with_advice(run, demo_db):
    out = run("query", "What is the meaning of life?", "--db", demo_db)
    assert out.exit_code == 1
    assert "no query could be generated" in out.output and "kgground link" in out.output


def test_llm_strategy_needs_an_llm_and_takes_a_scripted_one(run, demo_db, tmp_path,
                                                            monkeypatch):
    monkeypatch.delenv("KGGROUND_LLM", raising=False)
    missing = run("query", "Where was Marie Curie born?", "--db", demo_db, "--strategy", "llm")
    assert missing.exit_code == 2 and "--llm SPEC" in missing.output
    script = tmp_path / "llm.json"
    script.write_text(json.dumps(["```sparql\nSELECT ?x WHERE { wd:/Marie Curie/ "
                                  "wdt:/employer/ ?x }\n```"]))
    out = run("query", "Who employed Marie Curie?", "--db", demo_db, "--strategy", "llm",
              "--llm", f"scripted:{script}", "--run")
    assert out.exit_code == 0, out.output
    assert "grounded: wd:Q7186 wdt:P108 ?x" in out.output
    assert "University of Paris (Q209842)" in out.output


def test_help_explains_the_command(run):
    out = run("query", "--help")
    assert out.exit_code == 0
    for word in ("--strategy", "--llm", "--run", "--json", "label-level", "Exit status"):
        assert word in out.output
