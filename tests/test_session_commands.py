"""Each ``kgground`` command that reads a KB or asks a model builds one ``reasoning.Session``,
takes the KB, the linker and the models from it, and closes it at the end — and prints what
the same work done by the library without a session prints."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from kb.mirror import MirrorKB
from reasoning.cli import cli
from reasoning.session import Session
from store.demo import DEMO_QUESTIONS

TIMING_KEYS = {"timings", "seconds", "started", "latency", "latency_ms", "elapsed"}


@pytest.fixture
def sessions(monkeypatch) -> list[Session]:
    """The real Session, each one made recorded (with how often it was closed)."""
    made: list[Session] = []
    init, close = Session.__init__, Session.close

    def counting_init(self: Session, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        self.closes = 0                         # type: ignore[attr-defined]
        made.append(self)

    def counting_close(self: Session) -> None:
        self.closes += 1                        # type: ignore[attr-defined]
        close(self)

    monkeypatch.setattr(Session, "__init__", counting_init)
    monkeypatch.setattr(Session, "close", counting_close)
    return made


@pytest.fixture
def closed_kbs(monkeypatch) -> list[MirrorKB]:
    closed: list[MirrorKB] = []
    close = MirrorKB.close

    def recording_close(self: MirrorKB) -> None:
        closed.append(self)
        close(self)

    monkeypatch.setattr(MirrorKB, "close", recording_close)
    return closed


@pytest.fixture(autouse=True)
def no_settings(monkeypatch, tmp_path):
    for var in ("KGGROUND_LLM", "KGGROUND_VERIFIER", "KGGROUND_LLM_CACHE", "KGGROUND_DB",
                "KGGROUND_ENDPOINT"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("KGGROUND_DEFAULT_DB", str(tmp_path / "cache" / "mirror.sqlite"))


@pytest.fixture
def mirror(demo_mirror_path, tmp_path) -> str:
    """A private copy of the demo mirror (linking writes its sidecar beside it)."""
    import shutil
    path = tmp_path / "demo.sqlite"
    shutil.copy(demo_mirror_path, path)
    return str(path)


@pytest.fixture
def bench(tmp_path) -> Path:
    lines = DEMO_QUESTIONS.read_text(encoding="utf-8").splitlines()[:5]
    path = tmp_path / "bench.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def untimed(value: Any) -> Any:
    """``value`` without its clock readings (they differ between any two runs)."""
    if isinstance(value, dict):
        return {k: untimed(v) for k, v in value.items() if k not in TIMING_KEYS}
    if isinstance(value, list):
        return [untimed(v) for v in value]
    return value


def only_session(sessions: list[Session]) -> Session:
    assert len(sessions) == 1, f"{len(sessions)} sessions were made"
    session = sessions[0]
    assert session.closes == 1                  # type: ignore[attr-defined]
    return session


# -- kgground eval ---------------------------------------------------------------------------

def test_eval_builds_one_session_closes_it_and_scores_as_the_library(
        sessions, closed_kbs, mirror, bench, tmp_path):
    report = tmp_path / "cli" / "cok.json"
    code, out, err = invoke("eval", str(bench), "--db", mirror, "--llm", "simulated:1",
                            "--gate", "cok", "--report", str(report), "--no-progress",
                            "--json")
    assert code == 0, err
    session = only_session(sessions)
    assert session.llm is not None and session.verifier is None
    assert session.kb in closed_kbs                 # the KB the command opened is closed
    cli_totals = json.loads(out)["totals"]
    # the library without a session of the caller's: the same run, the same figures
    import kb as kb_module
    from reasoning.eval.setup import prepare
    base = kb_module.open(mirror)
    try:
        setup = prepare(bench, base, llm_spec="simulated:1", gate="cok",
                        report=tmp_path / "lib" / "cok.json")
        library = setup.run(workers=4, progress=False).report
    finally:
        base.close()
    assert untimed(cli_totals) == untimed(library["totals"])
    cli_report = json.loads(report.read_text())
    answers = {q["key"]: (q["predicted"], q["score"], q["mode"]) for q in
               cli_report["questions"]}
    assert answers == {q["key"]: (q["predicted"], q["score"], q["mode"])
                       for q in library["questions"]}


def test_eval_kb_only_uses_the_sessions_one_linker(sessions, mirror, bench, tmp_path):
    code, out, err = invoke("eval", str(bench), "--db", mirror, "--languages", "en",
                            "--report", str(tmp_path / "kb.json"), "--no-progress")
    assert code == 0, err
    assert "macro F1" in out
    session = only_session(sessions)
    assert session.llm is None
    assert session._linker is None          # built for the run, closed with the session


def test_prepare_takes_a_session_and_its_models(demo_kb_copy, bench, tmp_path):
    from reasoning.eval.setup import EvalSetupError, prepare
    from reasoning.llm import ScriptedLLM

    with Session(demo_kb_copy) as session:
        setup = prepare(bench, session, report=tmp_path / "a.json")
        assert setup.session is session and setup.kb is demo_kb_copy
        assert setup.grounder("en").linker is session.linker
        assert setup.llm is None and setup.config["gate"] == "kb-only"
    model = ScriptedLLM(["Warsaw"] * 100)
    with Session(demo_kb_copy, llm=model) as session:
        setup = prepare(bench, session, gate="never", report=tmp_path / "b.json")
        assert setup.llm is model and setup.config["llm"] == model.model
        with pytest.raises(EvalSetupError, match="holds a model already"):
            prepare(bench, session, llm_spec="simulated:1")


# -- kgground gate ---------------------------------------------------------------------------

def test_gate_builds_one_session_with_its_models_and_closes_it(sessions, script):
    code, out, err = invoke("gate", "Where is the Louvre?", "--llm", f"scripted:{script}",
                            "--judge", f"scripted:{script}", "--json")
    assert code == 0, err
    session = only_session(sessions)
    assert session.llm is not None and session.judge is not None
    assert session.verifier is None and session._kb is None      # a gate reads no KB
    cli = json.loads(out)
    # the same decision from the library's gate, with models of the same script
    from reasoning.gates import make_gate
    from reasoning.llm import llm_from_spec
    gate = make_gate("rowen-cl", llm_from_spec(f"scripted:{script}"),
                     judge=llm_from_spec(f"scripted:{script}"), k=6, alpha=1.0,
                     threshold=None, target_language="zh")
    assert untimed(cli) == untimed(gate.decide("Where is the Louvre?").as_dict())


def test_gate_text_output_is_unchanged(sessions, script):
    code, out, err = invoke("gate", "Where is the Louvre?", "--llm", f"scripted:{script}",
                            "--gate", "cok")
    assert code == 0, err
    only_session(sessions)
    lines = out.splitlines()
    assert lines[:5] == ["cok: answer without the KB",
                         "  why: 5 of 5 samples agree on 'Paris'",
                         "  scores: agreement=1",
                         "  samples: 'Paris', 'Paris', 'Paris', 'Paris', 'Paris'",
                         "  the model's answer: Paris"]
    assert lines[5].startswith("  1 LLM calls, ") and len(lines) == 6


def test_a_session_without_a_kb_says_so():
    from kb.errors import KGGroundError
    with Session() as session:
        with pytest.raises(KGGroundError, match="no knowledge base"):
            _ = session.kb
    assert "None" in repr(session)


# -- the other commands that open a session --------------------------------------------------

@pytest.mark.parametrize("args", [
    ("ask", "Where was Marie Curie born?"),
    ("query", "Where was Marie Curie born?"),
    ("link", "Marie Curie"),
])
def test_other_commands_close_their_one_session(sessions, closed_kbs, mirror, args):
    code, out, err = invoke(*args, "--db", mirror)
    assert code == 0, err
    session = only_session(sessions)
    assert session.kb in closed_kbs
