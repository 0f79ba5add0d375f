"""Ctrl-C, for real: every command, run as a subprocess in its own process group, gets
SIGINT sent to the whole group (as a terminal sends it) while it waits or works, and must
end with exit code 130, one line saying it was interrupted, and no traceback — also when
worker threads are blocked on the network. What it was writing stays consistent: an
interrupted load resumes to the same mirror as one uninterrupted load; an interrupted
evaluation resumes (tests/test_cli_eval.py also checks that one).

Each command waits on something the test controls: a "black hole" on loopback (a TCP
server that accepts connections and never answers) standing in for a SPARQL endpoint, an
OpenAI-protocol server or PostgreSQL; a named pipe nobody writes to; or, for ``serve``,
its own serving. The commands are listed from the click group, so a new command without a
way to interrupt it here fails ``test_every_command_has_a_way_to_be_interrupted``.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable

import click
import pytest

from reasoning.cli import cli
from store.demo import DEMO_QUESTIONS

REPO = Path(__file__).resolve().parent.parent
WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"


def _sigint_default() -> None:
    """In the child before it runs: SIGINT back to its default. A shell starts background
    jobs with SIGINT ignored, and an ignored signal stays ignored across exec (Python then
    never turns it into KeyboardInterrupt): a suite run in the background would fail."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def leaf_commands(group: click.Group = cli, prefix: tuple[str, ...] = ()) -> list[tuple]:
    """Every command of the CLI, as its words (``("mirror", "load")``)."""
    out = []
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            out += leaf_commands(command, prefix + (name,))
        else:
            out.append(prefix + (name,))
    return out


class BlackHole:
    """A TCP server on loopback that accepts every connection and never sends a byte."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.accepted = threading.Event()
        self._conns: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self._conns.append(conn)
            self.accepted.set()

    @property
    def sparql(self) -> str:
        return f"http://127.0.0.1:{self.port}/sparql"

    def close(self) -> None:
        self.sock.close()
        for conn in self._conns:
            conn.close()


@pytest.fixture
def hole():
    server = BlackHole()
    yield server
    server.close()


class Pipe:
    """A named pipe: a command reading it blocks until it is written to."""

    def __init__(self, path: Path) -> None:
        self.path = path
        os.mkfifo(path)
        self.fd: int | None = None

    def opened(self) -> bool:
        """Whether a reader has opened it (then it is held open here, empty)."""
        if self.fd is None:
            try:
                self.fd = os.open(self.path, os.O_WRONLY | os.O_NONBLOCK)
            except OSError as exc:
                if exc.errno != errno.ENXIO:     # no reader yet
                    raise
        return self.fd is not None

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)


def environment(tmp_path: Path, hole: BlackHole | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KGGROUND_", "OPENAI_"))}
    env.update(PYTHONPATH=str(REPO), KGGROUND_DEFAULT_DB=str(tmp_path / "cache" / "m.sqlite"))
    if hole is not None:
        env.update(OPENAI_BASE_URL=f"http://127.0.0.1:{hole.port}/v1", OPENAI_API_KEY="test")
    return env


def interrupt(args: list[str], env: dict[str, str], ready: Callable[[subprocess.Popen], bool],
              cwd: Path, *, wait: float = 120.0, settle: float = 0.2) -> tuple[int, str, str]:
    """Start ``kgground ARGS``, wait until ``ready(proc)``, send SIGINT to its process
    group; (exit code, stdout, stderr). A command that ends before it is ready, or hangs
    after the signal, fails the test."""
    proc = subprocess.Popen([sys.executable, "-m", "reasoning", *args], env=env, cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=_sigint_default)
    try:
        deadline = time.monotonic() + wait
        while not ready(proc):
            if proc.poll() is not None:
                out, err = proc.communicate()
                pytest.fail(f"kgground {' '.join(args)} ended ({proc.returncode}) before it "
                            f"could be interrupted:\n{out}\n{err}")
            assert time.monotonic() < deadline, f"kgground {' '.join(args)} never got ready"
            time.sleep(0.05)
        time.sleep(settle)               # into the blocking call
        os.killpg(proc.pid, signal.SIGINT)
        try:
            out, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            pytest.fail(f"kgground {' '.join(args)} did not end within 30 s of Ctrl-C")
        return proc.returncode, out, err
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()


def assert_interrupted(code: int, out: str, err: str, what: str) -> None:
    assert code == 130, f"{what}: exit {code}\n{out}\n{err}"
    assert "Traceback" not in err and "Traceback" not in out, f"{what}:\n{err}"
    assert "Interrupted" in err, f"{what}:\n{err}"


# -- how each command is made to wait ----------------------------------------------------------

def _small_nt(tmp_path: Path) -> Path:
    path = tmp_path / "small.nt"
    path.write_text(f'<{WD}Q31> <{LABEL}> "Belgium"@en .\n')
    return path


def _bench(tmp_path: Path) -> Path:
    path = tmp_path / "bench.jsonl"
    path.write_text("".join(DEMO_QUESTIONS.read_text(encoding="utf-8").splitlines(True)[:3]))
    return path


def _pairs(tmp_path: Path) -> Path:
    path = tmp_path / "pairs.jsonl"
    path.write_text(json.dumps({"question": "Where was Marie Curie born?",
                                "sparql": "SELECT ?x WHERE { wd:Q7186 wdt:P19 ?x }"}) + "\n")
    return path


def _query_file(tmp_path: Path) -> Path:
    path = tmp_path / "q.rq"
    path.write_text("SELECT ?x WHERE { wd:Q42 wdt:P69 ?x }\n")
    return path


def _pg(hole: BlackHole) -> str:
    return f"postgresql://kgground@127.0.0.1:{hole.port}/wikidata"


def connected(hole: BlackHole) -> Callable[[subprocess.Popen], bool]:
    return lambda proc: hole.accepted.is_set()


def printed(prefix: str) -> Callable[[subprocess.Popen], bool]:
    def ready(proc: subprocess.Popen) -> bool:
        line = proc.stdout.readline()
        return line.startswith(prefix)
    return ready


# words → (args, what it waits on); ``h`` the black hole, ``t`` a folder, ``m`` the demo
# mirror, ``model`` a trained generator (made on demand), ``pipe`` a named pipe
RECIPES: dict[tuple[str, ...], Callable] = {
    ("ask",): lambda h, t, m, **_: (
        ["ask", "Where was Marie Curie born?", "--db", str(m), "--llm", "openai:test"],
        connected(h)),
    ("chain",): lambda h, t, m, **_: (
        ["chain", "--from", "Q42", "--endpoint", h.sparql], connected(h)),
    ("entity",): lambda h, t, m, **_: (["entity", "Q42", "--endpoint", h.sparql],
                                       connected(h)),
    # questions answered by worker threads, blocked on the model: Ctrl-C must not wait
    ("eval",): lambda h, t, m, **_: (
        ["eval", str(_bench(t)), "--db", str(m), "--llm", "openai:test", "--report",
         str(t / "r.json"), "--no-progress"], connected(h)),
    ("gate",): lambda h, t, m, **_: (
        ["gate", "Where was Marie Curie born?", "--llm", "openai:test"], connected(h)),
    ("link",): lambda h, t, m, **_: (["link", "Marie Curie", "--db", _pg(h)], connected(h)),
    ("mirror", "check"): lambda h, t, m, **_: (["mirror", "check", "--db", _pg(h)],
                                               connected(h)),
    ("mirror", "load"): lambda h, t, m, **_: (
        ["mirror", "load", str(_small_nt(t)), "--db", _pg(h)], connected(h)),
    ("mirror", "reindex"): lambda h, t, m, **_: (["mirror", "reindex", "--db", _pg(h)],
                                                 connected(h)),
    ("mirror", "stats"): lambda h, t, m, **_: (["mirror", "stats", "--db", _pg(h)],
                                               connected(h)),
    ("query",): lambda h, t, m, **_: (
        ["query", "Where was Marie Curie born?", "--endpoint", h.sparql], connected(h)),
    ("querygen", "dataset"): lambda h, t, m, **_: (
        ["querygen", "dataset", str(_pairs(t)), "--endpoint", h.sparql, "--out",
         str(t / "train.jsonl")], connected(h)),
    ("querygen", "generate"): lambda h, t, m, model, **_: (
        ["querygen", "generate", "Where was Marie Curie born?", "--model", str(model()),
         "--endpoint", h.sparql], connected(h)),
    ("querygen", "train"): lambda h, t, m, pipe, **_: (
        ["querygen", "train", "--data", str(pipe.path), "--out", str(t / "qgen"),
         "--from-scratch"], lambda proc: pipe.opened()),
    ("search",): lambda h, t, m, **_: (["search", "Douglas Adams", "--endpoint", h.sparql],
                                       connected(h)),
    ("serve",): lambda h, t, m, **_: (
        ["serve", "--db", str(m), "--port", "0", "--processes", "2", "--workers", "1"],
        printed("SPARQL endpoint: ")),
    ("sparql",): lambda h, t, m, **_: (
        ["sparql", "SELECT * WHERE { ?s ?p ?o } LIMIT 1", "--endpoint", h.sparql],
        connected(h)),
    ("triples",): lambda h, t, m, **_: (["triples", "-s", "Q42", "--endpoint", h.sparql],
                                        connected(h)),
    ("validate",): lambda h, t, m, **_: (
        ["validate", str(_query_file(t)), "--endpoint", h.sparql], connected(h)),
}


def test_every_command_has_a_way_to_be_interrupted():
    missing = [" ".join(c) for c in leaf_commands() if c not in RECIPES]
    assert not missing, ("add to RECIPES how to make these commands wait, so that Ctrl-C "
                         f"is tested on them: {missing}")


@pytest.fixture(scope="module")
def tiny_generator(tmp_path_factory) -> Callable[[], Path]:
    """A trained query generator (one step on two examples), made on first use."""
    made: list[Path] = []

    def make() -> Path:
        if made:
            return made[0]
        pytest.importorskip("torch", reason="the transformers extra is not installed")
        from querygen.dataset import Example
        from querygen.negatives import Negative
        from querygen.training import TrainOptions, train

        def example(name: str) -> Example:
            gold = f"SELECT ?x WHERE {{ wd:/{name}/ wdt:/place of birth/ ?x . }}"
            return Example(f"Where was {name} born?", gold, "", tuple(
                Negative(kind, gold.replace(name, other), "") for kind, other in
                (("wrong_entity", "Paris"), ("misspelled", name + "x"),
                 ("unlinked", name.lower()), ("wrong_property", name[:3]))))
        from querygen.dataset import write_examples
        folder = tmp_path_factory.mktemp("qgen")
        examples = [example("Marie Curie"), example("Niels Bohr")]
        write_examples(examples, folder / "examples.jsonl")
        out = folder / "model"
        train(examples, out, from_scratch=True,
              options=TrainOptions(max_steps=1, size="tiny", vocab_size=300, threads=1))
        made.append(out)
        return out
    return make


@pytest.mark.timeout(300)
@pytest.mark.parametrize("words", sorted(RECIPES), ids=" ".join)
def test_ctrl_c_ends_the_command_with_130(words, tmp_path, hole, demo_mirror_path,
                                          tiny_generator):
    pipe = Pipe(tmp_path / "pipe.jsonl")
    try:
        args, ready = RECIPES[words](hole, tmp_path, demo_mirror_path, model=tiny_generator,
                                     pipe=pipe)
        code, out, err = interrupt(args, environment(tmp_path, hole), ready, tmp_path)
    finally:
        pipe.close()
    assert_interrupted(code, out, err, " ".join(words))


def test_ctrl_c_stops_a_query_running_inside_sqlite(tmp_path, demo_mirror_path):
    """A query SQLite runs for minutes: Ctrl-C stops it at once, as an interruption — not
    as a timeout (sqlite3 swallows the KeyboardInterrupt raised in its progress handler),
    and also with no timeout (--timeout 0), where no handler used to be set."""
    query = ("SELECT (COUNT(*) AS ?n) WHERE { ?a wdt:P31 ?x . ?b wdt:P31 ?x . "
             "?c wdt:P31 ?x . ?d wdt:P31 ?x }")
    for timeout in ("600", "0"):
        args = ["sparql", query, "--db", str(demo_mirror_path), "--timeout", timeout,
                "--explain"]

        def running_sql(proc: subprocess.Popen) -> bool:
            return proc.stderr.readline().startswith("-- engine: sql")
        code, out, err = interrupt(args, environment(tmp_path), running_sql, tmp_path,
                                   settle=1.0)
        assert_interrupted(code, out, err, f"sparql --timeout {timeout}")
        assert "timeout" not in err


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.timeout(900)
def test_interrupted_training_is_saved_and_resumes(tmp_path, tiny_generator):
    """Ctrl-C in the middle of training (after 20 s of CPU: torch is imported, steps are
    running): exit 130, the model so far saved, and --resume continues from its step."""
    tiny_generator()                          # skips without torch
    from querygen.dataset import read_examples, write_examples
    examples = tmp_path / "examples.jsonl"
    model = tmp_path / "qgen"
    source = Path(tiny_generator()).parent / "examples.jsonl"
    write_examples(read_examples(source), examples)
    args = ["querygen", "train", "--data", str(examples), "--out", str(model),
            "--from-scratch", "--size", "tiny", "--epochs", "100000", "--threads", "1"]
    env = environment(tmp_path)
    code, out, err = interrupt(args, env, lambda proc: _cpu_seconds(proc.pid) > 20, tmp_path,
                               wait=600)
    assert_interrupted(code, out, err, "querygen train")
    assert "--resume continues the run" in err
    saved = json.loads((model / "querygen.json").read_text())["step"]
    assert saved > 0
    resumed = subprocess.run([sys.executable, "-m", "reasoning", *args, "--max-steps",
                              str(saved + 2), "--resume", "--json"],
                             env=env, capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["steps"] == saved + 2


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


@pytest.mark.parametrize("when", ["serving", "starting"])
def test_ctrl_c_leaves_no_server_process_behind(when, tmp_path, demo_mirror_path):
    """``serve --processes 2``: the children ignore Ctrl-C, the parent stops them (SIGTERM)
    — quietly also while they are still starting (importing, opening the mirror, saying
    they listen)."""
    args = ["serve", "--db", str(demo_mirror_path), "--port", "0", "--processes", "2",
            "--workers", "1"]
    proc = subprocess.Popen([sys.executable, "-m", "reasoning", *args],
                            env=environment(tmp_path), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=_sigint_default)
    try:
        if when == "serving":
            assert proc.stdout.readline().startswith("SPARQL endpoint: ")
        else:
            deadline = time.monotonic() + 120
            while len(_children(proc.pid)) < 2 and time.monotonic() < deadline:
                time.sleep(0.01)
            time.sleep(0.3)
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        assert_interrupted(proc.returncode, out, err, "serve")
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:           # the group is gone: no orphan
            try:
                os.killpg(proc.pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.2)
        else:
            pytest.fail("a server process outlived Ctrl-C")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()


# -- what was being written survives --------------------------------------------------------------

def _write_nt(path: Path, n: int) -> dict[str, int]:
    import gzip
    with gzip.open(path, "wt", encoding="utf-8") as f:
        for i in range(1, n + 1):
            f.write(f'<{WD}Q{i}> <{LABEL}> "entity {i}"@en .\n'
                    f'<{WD}Q{i}> <{WDT}P31> <{WD}Q5> .\n')
    return {"entities": n, "statements": n, "terms": n}


def _write_json(path: Path, n: int) -> dict[str, int]:
    claim = {"mainsnak": {"snaktype": "value", "property": "P31", "datatype": "wikibase-item",
                          "datavalue": {"type": "wikibase-entityid",
                                        "value": {"entity-type": "item", "id": "Q5"}}},
             "type": "statement", "rank": "normal"}
    with path.open("w", encoding="utf-8") as f:
        f.write("[\n")
        for i in range(1, n + 1):
            f.write(json.dumps({
                "type": "item", "id": f"Q{i}",
                "labels": {"en": {"language": "en", "value": f"entity {i}"}},
                "descriptions": {"en": {"language": "en", "value": f"thing number {i}"}},
                "claims": {"P31": [dict(claim, id=f"Q{i}$a")]}}) + (",\n" if i < n else "\n"))
        f.write("]\n")
    return {"entities": n, "statements": n, "terms": 2 * n}


def _source(db: Path) -> tuple[str, int] | None:
    """(status, position) of the mirror's one source, None before it has one."""
    if not db.exists():
        return None
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=0.2) as conn:
            return conn.execute("SELECT status, position FROM sources").fetchone()
    except sqlite3.Error:
        return None


def _position(db: Path) -> int:
    source = _source(db)
    return source[1] if source else 0


@pytest.mark.timeout(900)
@pytest.mark.parametrize("fmt", ["ntriples", "json"])
def test_an_interrupted_load_resumes_to_the_same_mirror(fmt, tmp_path):
    """Ctrl-C once the first batches are committed (parser processes at work): exit 130,
    the mirror checks out, and the same command again finishes the load — to exactly the
    counts of the file."""
    src = tmp_path / ("big.nt.gz" if fmt == "ntriples" else "big.json")
    expected = _write_nt(src, 120_000) if fmt == "ntriples" else _write_json(src, 40_000)
    db = tmp_path / "m.sqlite"
    args = ["mirror", "load", str(src), "--db", str(db)]
    env = environment(tmp_path)
    code, out, err = interrupt(args, env, lambda proc: _position(db) > 0, tmp_path)
    if code == 0:
        pytest.skip("the load finished before it could be interrupted")
    assert_interrupted(code, out, err, "mirror load")
    assert "Run the same command again to resume" in err

    def kgground(*words: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "reasoning", *words], env=env,
                              capture_output=True, text=True, timeout=600)
    check = kgground("mirror", "check", "--db", str(db))
    assert check.returncode == 0, check.stdout + check.stderr
    resumed = kgground(*args)
    assert resumed.returncode == 0 and "resumed" in resumed.stdout, resumed.stderr
    stats = json.loads(kgground("mirror", "stats", "--db", str(db), "--json").stdout)
    assert {k: stats[k] for k in expected} == expected
    assert [s["status"] for s in stats["sources"]] == ["complete"]
    assert kgground("mirror", "check", "--db", str(db)).returncode == 0


def test_an_interrupted_demo_build_is_finished_on_next_use(tmp_path, monkeypatch, run):
    """Ctrl-C while the first command builds the demo mirror (its load is one batch: a
    real signal lands before or after it, so the interruption is made here, mid-write)
    leaves it unfinished; the next command finishes it instead of answering from half a
    KB."""
    from store import ingest
    from store.demo import build_demo_mirror

    default = tmp_path / "cache" / "mirror.sqlite"         # the ``run`` fixture's default
    write = ingest.write_batch

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(ingest, "write_batch", interrupted)
    with pytest.raises(KeyboardInterrupt):
        build_demo_mirror(default)
    monkeypatch.setattr(ingest, "write_batch", write)
    assert _source(default)[0] == "loading"
    result = run("entity", "Q937")
    assert result.exit_code == 0 and "Albert Einstein" in result.stdout
    assert "not finished (interrupted): finishing it" in result.stderr
    assert _source(default)[0] == "complete"
