"""bench/qgraph: the hand-written query-graph dev sets (issue 27) keep their gold answers
true to the data, and keep the sizes and the spread of relations they were written with.

The gold of the paintings questions is recomputed with rdflib from tests/data/paintings.ttl;
the gold of the slice questions from a mirror of the shared T-REx slice (skipped when the
shared data is absent). The checker itself must fail on a wrong answer, on a made-up name
that is in the KB, and on an "unanswerable" question the KB answers.
"""

from __future__ import annotations

import importlib.util
import json
from collections import Counter
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
QGRAPH = REPO / "bench" / "qgraph"
PAINTINGS_TTL = REPO / "tests" / "data" / "paintings.ttl"
SLICE_FILES = ["two_hop.jsonl", "three_hop.jsonl", "unanswerable.jsonl", "one_hop_fresh.jsonl"]


def load_checker():
    spec = importlib.util.spec_from_file_location("check_gold", QGRAPH / "check_gold.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def records(name: str) -> list[dict]:
    text = (QGRAPH / name).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_paintings_gold_matches_the_turtle_file(capsys):
    checker = load_checker()
    code = checker.main([str(QGRAPH / "paintings_questions.jsonl"), "--ttl", str(PAINTINGS_TTL)])
    assert code == 0, capsys.readouterr().out


def test_slice_gold_matches_the_slice(slice_mirror_path, capsys):
    checker = load_checker()
    files = [str(QGRAPH / name) for name in SLICE_FILES]
    code = checker.main(files + ["--db", str(slice_mirror_path)])
    assert code == 0, capsys.readouterr().out


def test_the_sets_keep_their_sizes_and_spread():
    two, three = records("two_hop.jsonl"), records("three_hop.jsonl")
    assert len(two) >= 150 and len({tuple(r["path"]) for r in two}) >= 15
    assert len(three) >= 40 and all(len(r["path"]) == 3 for r in three)
    kinds = Counter(r["kind"] for r in records("unanswerable.jsonl"))
    assert all(kinds[k] >= 60 for k in ("no-relation", "no-fact", "no-entity")), kinds
    one = records("one_hop_fresh.jsonl")
    assert len(one) >= 100
    assert len({r["path"][0].lstrip("^") for r in one}) >= 30
    assert any(r["path"][0].startswith("^") for r in one)
    paintings = records("paintings_questions.jsonl")
    assert len(paintings) >= 60
    assert {"count", "yes-no", "two-hop", "no-relation", "no-fact", "no-entity"} <= {
        r["kind"] for r in paintings}
    for name in SLICE_FILES + ["paintings_questions.jsonl"]:
        for r in records(name):
            assert r["style"] and r["question"].strip(), (name, r)
            unanswerable = r["kind"] in ("no-relation", "no-fact", "no-entity")
            assert (r["answers"] == []) == unanswerable, (name, r)


def write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize("change, problem", [
    ({"answers": ["http://example.org/paintings/Monet"]}, "answers"),
    ({"kind": "no-fact", "answers": [], "answer_labels": [], "note": "x"}, "unanswerable"),
    ({"kind": "no-entity", "mention": "Mona Lisa", "subject": None, "answers": [],
      "answer_labels": [], "note": "x"}, "label or alias"),
])
def test_the_checker_fails_on_a_bad_record(tmp_path, capsys, change, problem):
    checker = load_checker()
    good = next(r for r in records("paintings_questions.jsonl")
                if r["question"] == "Qui a peint La Joconde ?")
    path = write(tmp_path / "bad.jsonl", [{**good, **change}])
    assert checker.main([str(path), "--ttl", str(PAINTINGS_TTL)]) == 1
    assert problem in capsys.readouterr().out


def test_write_fills_answers_from_the_graph(tmp_path):
    checker = load_checker()
    good = next(r for r in records("paintings_questions.jsonl")
                if r["question"] == "Which paintings does the Mauritshuis hold?")
    path = write(tmp_path / "blank.jsonl", [{**good, "answers": [], "answer_labels": []}])
    assert checker.main([str(path), "--ttl", str(PAINTINGS_TTL), "--write"]) == 0
    filled = json.loads(path.read_text(encoding="utf-8"))
    assert filled["answers"] == good["answers"]
    assert "Girl with a Pearl Earring" in filled["answer_labels"]
