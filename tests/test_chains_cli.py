"""``kgground chain``: questions, chains between entities, exports, and clear errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import networkx as nx
import pytest

import chains

LIBRARY = Path(__file__).parent / "data" / "chains-library.ttl"
EX = "http://example.org/lib/"


@pytest.fixture
def demo_copy(demo_mirror_path, tmp_path):
    path = tmp_path / "demo.sqlite"
    shutil.copy(demo_mirror_path, path)          # linking builds its sidecar beside it
    return str(path)


def test_question_on_the_default_demo_kb(run):
    out = run("chain", "Where was Marie Curie born?")
    assert out.exit_code == 0, out.output
    lines = out.stdout.splitlines()
    assert lines[0] == "Question entities: Marie Curie (Q7186) ← 'Marie Curie'"
    assert lines[2].startswith("1. Marie Curie — place of birth → Warsaw [1]  (score ")
    assert lines[lines.index("Citations:") + 1].startswith("[1] Q7186 P19 Q270 — mirror:")


def test_json_and_every_export(run, demo_copy, tmp_path):
    files = {ext: tmp_path / f"ev.{ext}" for ext in ("html", "graphml", "dot")}
    out = run("chain", "Who was Marie Curie married to?", "--db", demo_copy, "--top", "3",
              "--json", "--html", str(files["html"]), "--graphml", str(files["graphml"]),
              "--dot", str(files["dot"]))
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["schema"] == chains.SCHEMA and len(data["chains"]) == 3
    assert data["chains"][0]["end"] == "Q37463"
    assert f"wrote page: {files['html']}" in out.stderr
    page = files["html"].read_text(encoding="utf-8")
    assert "Pierre Curie" in page and "https://" not in page.split("<script>")[0]
    graph = nx.read_graphml(files["graphml"], force_multigraph=True)
    assert graph.number_of_nodes() == len(data["nodes"])
    assert files["dot"].read_text(encoding="utf-8").startswith("digraph evidence {")


def test_chains_between_two_entities(run, demo_copy):
    out = run("chain", "--from", "Q7186", "--to", "Q937", "--db", demo_copy, "--json")
    data = json.loads(out.stdout)
    assert data["question"] is None and data["hops"] == 3
    assert data["chains"] and all(c["kind"] == "connection" and c["start"] == "Q7186"
                                  and c["end"] == "Q937" for c in data["chains"])
    text = run("chain", "--from", "Q7186", "--to", "Q37463", "--db", demo_copy)
    assert "1. Marie Curie — spouse → Pierre Curie [1]" in text.stdout
    none = run("chain", "--from", "Q7186", "--to", "Q937", "--hops", "1", "--db", demo_copy)
    assert none.exit_code == 0 and "no chain of at most 1 statements between them" in none.stdout


def test_neighbourhood_of_one_entity(run, demo_copy, tmp_path):
    out = run("chain", "--from", "Q37463", "--db", demo_copy, "--json")
    data = json.loads(out.stdout)
    assert data["chains"] == [] and data["seeds"][0]["id"] == "Q37463"
    assert any(e["property"] == "P26" for e in data["edges"])


def test_custom_turtle_kb(run, tmp_path):
    """An RdfGraphKB: with the question's entity given, chains and a page; without it, a
    clear error while linking needs a mirror (issue 13)."""
    page = tmp_path / "ada.html"
    out = run("chain", "Where was she born?", "--db", str(LIBRARY), "--entity", EX + "ada",
              "--html", str(page))
    assert out.exit_code == 0, out.output
    assert "Question entities: Ada Quill (http://example.org/lib/ada)" in out.stdout
    assert "Ada Quill — place of birth → Porto" in out.stdout
    assert page.exists() and "&lt;script&gt;" not in page.read_text(encoding="utf-8")
    between = run("chain", "--from", EX + "ada", "--to", EX + "portugal", "--db", str(LIBRARY))
    assert "Ada Quill — place of birth → Porto [1]; Porto — country → Portugal [2]" in \
        between.stdout
    linked = run("chain", "Where was Ada Quill born?", "--db", str(LIBRARY))
    if linked.exit_code == 0:                      # linking over any KB has landed
        assert "Ada Quill — place of birth → Porto" in linked.stdout
    else:
        assert linked.exit_code == 1 and "--entity ID" in linked.output


def test_open_writes_a_page_and_opens_it(run, demo_copy, monkeypatch):
    opened = []
    monkeypatch.setattr("webbrowser.open", lambda url: opened.append(url))
    out = run("chain", "Where was Marie Curie born?", "--db", demo_copy, "--open")
    assert out.exit_code == 0, out.output
    assert len(opened) == 1 and opened[0].startswith("file://")
    assert opened[0].endswith("/evidence.html")
    assert Path(opened[0][len("file://"):]).read_text(encoding="utf-8").startswith(
        "<!DOCTYPE html>")


@pytest.mark.parametrize("args, message", [
    ((), "give a QUESTION, or --from ID"),
    (("--to", "Q937"), "--to needs --from"),
    (("Where?", "--from", "Q7186"), "either a QUESTION or --from/--to"),
    (("Where?", "--hops", "9"), "9 is not in the range 1<=x<=4"),
])
def test_usage_errors(run, args, message):
    out = run("chain", *args)
    assert out.exit_code == 2 and message in out.output


def test_unknown_entity_and_unlinkable_question(run, demo_copy):
    out = run("chain", "--from", "Q7186", "--to", "Q999999999", "--db", demo_copy)
    assert out.exit_code == 1 and "Q999999999" in out.output
    out = run("chain", "zqxv wplk?", "--db", demo_copy)
    assert out.exit_code == 1 and "no entity of the question was found" in out.output
