"""bench/bench_eval.py --tables: the tables pasted into bench/HISTORY.md are a function of
the run files alone (no clock, no live load, no git state), so printing them again gives
the same text; coverage stands next to every score; unfinished runs say so."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from reasoning.eval.report import build_report

BENCH_EVAL = Path(__file__).resolve().parent.parent / "bench" / "bench_eval.py"


def load_bench_eval():
    spec = importlib.util.spec_from_file_location("bench_eval", BENCH_EVAL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def record(key: str, f1: float, covered: bool, lang: str = "en") -> dict:
    return {"kind": "question", "key": key, "id": key, "lang": lang, "type": "single-fact",
            "score": {"precision": f1, "recall": f1, "f1": f1, "exact": f1 == 1.0},
            "covered": covered, "consulted": True, "seconds": 0.1, "llm_calls": 0,
            "kb_calls": 4, "gold_source": "file", "gate_score": None,
            "draft_correct": None}


def test_tables_are_a_function_of_the_run_files(tmp_path):
    be = load_bench_eval()
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    done = build_report([record("a", 1.0, True), record("b", 0.0, False),
                         record("c", 0.5, True, "de")], config={"gate": "kb-only"})
    (mirror / "slice-qa-dev.kb-only.json").write_text(json.dumps(done))
    (mirror / "slice-qa-dev.kb-only.run.json").write_text(json.dumps({
        "commit": "abc1234", "questions": "all", "wall_s": 12.3,
        "load_before": "3.00 2.00 1.00", "load_after": "5.50 3.00 1.00"}))
    half = build_report([record("a", 1.0, True)], config={"gate": "cok"}, complete=False,
                        total=4)
    (mirror / "slice-qa-dev.cok.json").write_text(json.dumps(half))

    text = be.tables(tmp_path)
    assert text == be.tables(tmp_path)
    assert "1 runs at commit abc1234" not in text and "2 runs at commit ?, abc1234" in text
    assert "load average 3.0–5.5" in text
    header = next(line for line in text.splitlines() if line.startswith("| benchmark |"))
    cols = [c.strip() for c in header.strip("|").split("|")]
    assert cols.index("coverage") == cols.index("macro F1") + 1
    rows = [line for line in text.splitlines() if line.startswith("| slice-qa-dev |")]
    # (1 + 0 + 0.5) / 3 = 0.5; coverage 2/3; F1 on covered (1 + 0.5) / 2 = 0.75
    assert rows[0].startswith("| slice-qa-dev | kb-only | 3 | 0.500 | 0.667 | 0.750 |")
    assert "| 1 of 4 (INCOMPLETE) |" in rows[1]
    assert "KB-only by language" in text and "| slice-qa-dev | de | 1 | 0.500 |" in text
