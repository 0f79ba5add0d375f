"""bench/ as a suite (issue 31 item 8): ``python -m bench`` lists every benchmark script, and
``python -m bench NAME --help`` reaches each script's own options, run from the repository.

Every script parses its arguments before any heavy work, so --help is quick for all of them
(under 3 s each on the dev machine); none is left out here.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "bench"
#: every script the runner must know, by its runner name (bench_X.py is X)
SCRIPTS = sorted(p.stem.removeprefix("bench_") for p in BENCH.glob("*.py")
                 if not p.stem.startswith("_") and "__main__" in p.read_text(encoding="utf-8"))


def run_bench(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bench", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=60)


def test_the_listing_names_every_benchmark_with_its_docstring():
    done = run_bench()
    assert done.returncode == 0, done.stderr
    listed = {line.split()[0]: line for line in done.stdout.splitlines()
              if line.startswith("  ")}
    benchmarks = sorted(BENCH.glob("bench_*.py"))
    assert len(benchmarks) >= 18
    for path in benchmarks:
        name = path.stem.removeprefix("bench_")
        assert name in listed, f"{path.name} is not listed"
        source = path.read_text(encoding="utf-8")
        first = source.split('"""', 2)[1].strip().splitlines()[0]
        assert first in listed[name]
    for name in ("fit_graphs", "fit_properties", "make_ask_questions", "check_gold"):
        assert name in listed
    assert "linking_questions" not in listed       # a helper module, not a script


def test_an_unknown_name_is_refused_with_the_listing():
    done = run_bench("no_such_bench")
    assert done.returncode == 2
    assert "no script called 'no_such_bench'" in done.stderr and "qgraph" in done.stderr


@pytest.mark.parametrize("name", SCRIPTS)
def test_help_reaches_the_script(name):
    done = run_bench(name, "--help")
    assert done.returncode == 0, done.stderr
    script = f"bench_{name}.py" if (BENCH / f"bench_{name}.py").exists() else f"{name}.py"
    assert done.stdout.startswith(f"usage: {script}"), done.stdout[:200]


def test_a_script_runs_with_its_arguments(tmp_path):
    """Arguments reach the script unchanged: the demo question builder writes where it is
    told, the same file as when it is run directly (tests/test_demo_kb.py)."""
    from store.demo import DEMO_QUESTIONS

    out = tmp_path / "questions.jsonl"
    done = run_bench("make_demo_questions", str(out))
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == DEMO_QUESTIONS.read_bytes()
