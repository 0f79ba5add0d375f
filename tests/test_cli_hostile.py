"""Hostile invocations: every parameter of every command, given empty or malformed (IDs,
texts, files, URLs, ports, models, language tags, numbers, benchmark files), ends the
command with a message and a non-zero exit code — never a traceback, never a hang, never a
silent success.

The commands and their parameters are read from the click group. Each command has a
baseline invocation that works (checked by ``test_the_baselines_work``); the hostile one
changes a single parameter of it. A parameter's kind comes from its click type (numbers,
choices, flags) or, for text and paths, from ``KIND_OF``: a new command or parameter the
tables do not know fails ``test_every_parameter_has_a_kind`` until it is added, so the
check grows with the command line.

Runs in-process (click's runner) for speed, on the demo mirror, with no network: models
point at a closed port on loopback.
"""

from __future__ import annotations

import json
import shutil
import signal
import traceback
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

import click
import pytest
from click.testing import CliRunner

from reasoning.cli import cli
from store.demo import DEMO_QUESTIONS
from tests.test_cli_interrupt import leaf_commands

WD = "http://www.wikidata.org/entity/"
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
#: seconds an invocation may take before it counts as a hang
PATIENCE = 90

# -- kinds of values and their hostile forms ---------------------------------------------------

#: (command, parameter) or parameter → kind, for parameters whose click type does not say
KIND_OF: dict[Any, str] = {
    "question": "text", "text": "text", "query": "query", "id": "id",
    ("chain", "source"): "id", "target": "id", "entities": "id", "subject": "id",
    "value": "id", "prop": "pid", "db": "db", "endpoint": "url", "llm_spec": "model",
    "verifier_spec": "model", "judge_spec": "model", "lang": "lang", "language": "lang",
    "languages": "langs", "properties": "pids", "dump_date": "date", "host": "host",
    "allowed": "iri", "llm_cache": "out_file", "catalog": "catalog",
    "entity_file": "id_list", "files": "rdf", "pairs": "pairs", "data": "examples",
    ("eval", "file"): "benchmark", ("validate", "source"): "query_file",
    "html_file": "out_file", "graphml_file": "out_file", "dot_file": "out_file",
    "report_path": "out_file", "html_path": "out_file",
    ("querygen dataset", "out"): "out_file", ("querygen train", "out"): "out_dir",
    "model_path": "model_dir", "model_dir": "model_dir",
}

#: a path nothing can be created at, even by root
NO_SUCH = "/proc/nonexistent-kgground/x"


def hostile_values(kind: str, d: Path) -> list[str]:
    """The malformed values of ``kind`` (files made in ``d``)."""
    def file(name: str, data: bytes) -> str:
        path = d / name
        path.write_bytes(data)
        return str(path)

    folder = d / "a-folder"
    folder.mkdir(exist_ok=True)
    garbage = lambda name: file(name, b"\x00\xff\xfe\x89PNG garbage {\n\xc3")  # noqa: E731
    empty = lambda name: file(name, b"")                                       # noqa: E731
    return {
        "text": ["", "   "],
        "query": ["", "SELECT ?x WHERE {", "DROP ALL"],
        "query_file": ["", NO_SUCH + ".rq", str(folder), garbage("g.rq"), empty("e.rq")],
        "id": ["", "Q0", "q42 x", 'Q42" .'],
        "pid": ["", "P0", "Q42"],
        "db": ["", NO_SUCH + ".sqlite", str(folder), garbage("g.sqlite"),
               "postgresql://kgground@127.0.0.1:1/x", "mysql://x/y"],
        "url": ["", "not a url", "ftp://127.0.0.1/sparql", "http://", "http://x:99999/"],
        "model": ["", "bogus", "openai:", "simulated:x", "hf:" + NO_SUCH,
                  "scripted:" + NO_SUCH + ".json"],
        "lang": ["", "not a language", "e_n"],
        "langs": ["", "en;de", ","],
        "pids": ["", "P31,x", "Q5"],
        "date": ["", "yesterday", "2024-13-01"],
        "host": ["", "999.999.1.1", "not a host"],
        "iri": ["", "not an iri"],
        "catalog": ["", NO_SUCH + ".jsonl", str(folder), garbage("g.jsonl"),
                    empty("e.jsonl"), file("w.jsonl", b'{"x": 1}\n')],
        "id_list": ["", NO_SUCH + ".txt", str(folder), garbage("g.txt"), empty("e.txt")],
        "rdf": ["", NO_SUCH + ".nt", str(folder), garbage("g.nt"), empty("e.nt")],
        "pairs": ["", NO_SUCH + ".jsonl", str(folder), garbage("g.jsonl"), empty("e.jsonl"),
                  file("w.jsonl", b'{"x": 1}\n')],
        "examples": ["", NO_SUCH + ".jsonl", str(folder), garbage("g.jsonl"),
                     empty("e.jsonl"), file("w.jsonl", b'{"x": 1}\n')],
        "benchmark": ["", NO_SUCH + ".jsonl", str(folder), garbage("g.jsonl"),
                      empty("e.jsonl"), file("w.jsonl", b'{"x": 1}\n{}\n')],
        "out_file": ["", NO_SUCH + "/out.file", str(folder)],
        "out_dir": ["", NO_SUCH + "/out", file("a-file", b"x")],
        "model_dir": ["", NO_SUCH, file("a-file", b"x"), str(folder)],
        "int": ["", "abc"],
        "int_range": ["", "abc", "-999999999"],
        "float": ["", "abc", "nan", "inf"],
        "float_range": ["", "abc", "nan", "inf", "-999999999"],
        "choice": ["", "bogus"],
    }[kind]


def kind_of(words: tuple[str, ...], param: click.Parameter) -> str | None:
    """The kind of ``param`` of the command ``words``; None for flags."""
    if isinstance(param, click.Option) and param.is_flag:
        return None
    command = " ".join(words)
    found = KIND_OF.get((command, param.name)) or KIND_OF.get(param.name)
    if found:
        return found
    t = param.type
    if isinstance(t, click.Choice):
        return "choice"
    if isinstance(t, (click.IntRange, click.FloatRange)):
        return "int_range" if isinstance(t, click.IntRange) else "float_range"
    if isinstance(t, click.types.IntParamType):
        return "int"
    if isinstance(t, click.types.FloatParamType):
        return "float"
    return "unknown"


def commands() -> Iterator[tuple[tuple[str, ...], click.Command]]:
    for words in leaf_commands():
        command: Any = cli
        for w in words:
            command = command.commands[w]
        yield words, command


def test_every_parameter_has_a_kind():
    unknown = [f"{' '.join(w)} {p.name}" for w, c in commands() for p in c.params
               if kind_of(w, p) == "unknown"]
    assert not unknown, f"tell KIND_OF what these parameters take: {unknown}"
    missing = [" ".join(w) for w, _ in commands() if w not in BASELINES]
    assert not missing, f"add a working invocation to BASELINES for: {missing}"


# -- a working invocation of every command -----------------------------------------------------

@pytest.fixture(scope="module")
def world(tmp_path_factory, demo_mirror_path) -> dict[str, Any]:
    """What the baselines use: the demo mirror, small input files, a trained generator."""
    d = tmp_path_factory.mktemp("world")
    nt = d / "small.nt"
    nt.write_text(f'<{WD}Q31> <{LABEL}> "Belgium"@en .\n')
    ids = d / "ids.txt"
    ids.write_text("Q31\n")
    bench = d / "bench.jsonl"
    bench.write_text("".join(DEMO_QUESTIONS.read_text(encoding="utf-8").splitlines(True)[:2]))
    pairs = d / "pairs.jsonl"
    pairs.write_text(json.dumps({"question": "Where was Marie Curie born?",
                                 "sparql": "SELECT ?x WHERE { wd:Q7186 wdt:P19 ?x }"}) + "\n")
    query = d / "q.rq"
    query.write_text("SELECT ?x WHERE { wd:Q7186 wdt:P19 ?x }\n")
    return {"mirror": demo_mirror_path, "nt": nt, "ids": ids, "bench": bench,
            "pairs": pairs, "query": query, "dir": d}


def _examples(w: dict[str, Any]) -> Path:
    path = w["dir"] / "examples.jsonl"
    if not path.exists():
        from querygen.dataset import Example, write_examples
        from querygen.negatives import Negative

        def example(name: str) -> Example:
            gold = f"SELECT ?x WHERE {{ wd:/{name}/ wdt:/place of birth/ ?x . }}"
            return Example(f"Where was {name} born?", gold, "", tuple(
                Negative(kind, gold.replace(name, other), "") for kind, other in
                (("wrong_entity", "Paris"), ("misspelled", name + "x"),
                 ("unlinked", name.lower()), ("wrong_property", name[:3]))))
        write_examples([example("Marie Curie"), example("Niels Bohr")], path)
    return path


def _generator(w: dict[str, Any]) -> Path:
    out = w["dir"] / "qgen"
    if not out.exists():
        pytest.importorskip("torch", reason="the transformers extra is not installed")
        from querygen.dataset import read_examples
        from querygen.training import TrainOptions, train
        train(read_examples(_examples(w)), out, from_scratch=True,
              options=TrainOptions(max_steps=1, size="tiny", vocab_size=300, threads=1))
    return out


def _mirror_copy(w: dict[str, Any], d: Path) -> str:
    path = d / "copy.sqlite"
    shutil.copy(w["mirror"], path)
    return str(path)


LLM = {"llm_spec": "simulated", "catalog": str(DEMO_QUESTIONS)}
BASELINES: dict[tuple[str, ...], Callable[[dict[str, Any], Path], dict[str, Any]]] = {
    ("ask",): lambda w, d: {"question": "Where was Marie Curie born?", "db": w["mirror"],
                            **LLM, "llm_cache": d / "c.sqlite", "html_file": d / "a.html"},
    ("chain",): lambda w, d: {"question": "Where was Marie Curie born?", "db": w["mirror"],
                              "html_file": d / "c.html", "graphml_file": d / "c.graphml",
                              "dot_file": d / "c.dot"},
    ("entity",): lambda w, d: {"id": "Q7186", "db": w["mirror"]},
    ("eval",): lambda w, d: {"file": w["bench"], "db": w["mirror"], **LLM,
                             "llm_cache": d / "c.sqlite", "report_path": d / "r.json",
                             "html_path": d / "r.html"},
    ("gate",): lambda w, d: {"question": "Where was Marie Curie born?", **LLM,
                             "llm_cache": d / "c.sqlite"},
    ("link",): lambda w, d: {"text": "Where was Marie Curie born?", "db": w["mirror"]},
    ("mirror", "check"): lambda w, d: {"db": _mirror_copy(w, d)},
    ("mirror", "load"): lambda w, d: {"files": w["nt"], "db": d / "load.sqlite",
                                      "languages": "en", "properties": "P31",
                                      "entity_file": w["ids"], "dump_date": "2024-02-03"},
    ("mirror", "reindex"): lambda w, d: {"db": _mirror_copy(w, d)},
    ("mirror", "stats"): lambda w, d: {"db": _mirror_copy(w, d)},
    ("query",): lambda w, d: {"question": "Where was Marie Curie born?", "db": w["mirror"]},
    ("querygen", "dataset"): lambda w, d: {"pairs": w["pairs"], "db": w["mirror"],
                                           "out": d / "train.jsonl"},
    ("querygen", "generate"): lambda w, d: {"question": "Where was Marie Curie born?",
                                            "model_path": _generator(w), "db": w["mirror"]},
    ("querygen", "train"): lambda w, d: {"data": _examples(w), "out": d / "qgen",
                                         "from_scratch": True, "size": "tiny",
                                         "max_steps": "1", "threads": "1"},
    ("search",): lambda w, d: {"text": "Marie Curie", "db": w["mirror"]},
    # never run as is (it serves until stopped): every hostile value must stop it first
    ("serve",): lambda w, d: {"db": w["mirror"], "port": "0", "processes": "1"},
    ("sparql",): lambda w, d: {"query": "SELECT ?x WHERE { wd:Q7186 wdt:P19 ?x }",
                               "db": w["mirror"]},
    ("triples",): lambda w, d: {"subject": "Q7186", "prop": "P19", "db": w["mirror"]},
    ("validate",): lambda w, d: {"source": w["query"], "db": w["mirror"]},
}


def argv(words: tuple[str, ...], command: click.Command, values: dict[str, Any]) -> list[str]:
    """The command line of ``words`` with ``values`` (parameter name → value)."""
    out = list(words)
    for p in command.params:
        if p.name not in values:
            continue
        v = values[p.name]
        if isinstance(p, click.Argument):
            out.append(str(v))
        elif p.is_flag:
            if v:
                out.append(p.opts[0])
        else:
            out += [max(p.opts, key=len), str(v)]
    return out


class Hang(Exception):
    pass


@contextmanager
def patience(seconds: int) -> Iterator[None]:
    def alarm(signum, frame):
        raise Hang(f"no end after {seconds} s")
    previous = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def invoke(tmp_path, monkeypatch):
    """Run the CLI in-process as a new user with no network: (exit code, output, error)."""
    for name in ("KGGROUND_DB", "KGGROUND_ENDPOINT", "KGGROUND_LLM", "KGGROUND_VERIFIER",
                 "KGGROUND_LLM_CACHE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("KGGROUND_DEFAULT_DB", str(tmp_path / "cache" / "m.sqlite"))
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.chdir(tmp_path)

    def run(args: list[str]) -> tuple[int, str, BaseException | None]:
        with patience(PATIENCE):
            result = CliRunner().invoke(cli, args, catch_exceptions=True)
        exc = result.exception
        if isinstance(exc, SystemExit):
            exc = None
        elif exc is not None:
            exc.kgground_traceback = "".join(traceback.format_exception(exc))
        return result.exit_code, result.output, exc
    return run


@pytest.mark.timeout(900)
def test_the_baselines_work(world, tmp_path, invoke):
    """The invocations the hostile ones start from succeed, so that a failure of a hostile
    one is the hostile value's doing."""
    for words, command in commands():
        if words == ("serve",):
            continue
        d = tmp_path / "-".join(words)
        d.mkdir()
        code, out, exc = invoke(argv(words, command, BASELINES[words](world, d)))
        assert exc is None and code == 0, (words, out, getattr(exc, "kgground_traceback", ""))


def cases() -> Iterator[Any]:
    for words, command in commands():
        for p in command.params:
            kind = kind_of(words, p)
            if kind is not None and kind != "unknown":
                yield pytest.param(words, p.name, kind, id=f"{' '.join(words)}-{p.name}")


@pytest.mark.timeout(1800)
@pytest.mark.parametrize("words,name,kind", list(cases()))
def test_a_hostile_value_ends_with_a_message(words, name, kind, world, tmp_path, invoke):
    command = dict(commands())[words]
    problems = []
    for n, value in enumerate(hostile_values(kind, tmp_path)):
        d = tmp_path / f"run{n}"
        d.mkdir()
        values = BASELINES[words](world, d)
        values[name] = value
        args = argv(words, command, values)
        code, out, exc = invoke(args)
        if exc is not None:
            problems.append(f"{args}: {type(exc).__name__}\n{exc.kgground_traceback}")
        elif code == 0:
            problems.append(f"{args}: accepted (exit 0)\n{out}")
        elif "Error" not in out and "error" not in out:
            problems.append(f"{args}: exit {code} without a message\n{out}")
        elif "Traceback" in out:
            problems.append(f"{args}: a traceback in the output\n{out}")
    assert not problems, "\n\n".join(problems)
