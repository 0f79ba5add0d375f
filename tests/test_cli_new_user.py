"""What a new user hit (issue 29), each as a test: a load without --db never changes the
demo KB; first use says what it builds and how long it took, also when stderr is not a
terminal; the eval page shows property labels and a readable configuration; an endpoint
error is printed once; a simulated LLM works on the demo KB without --catalog; the
README documents ``querygen train``; a dump without its property entities says so at load
and gets the names from an endpoint when one is allowed.

(Ctrl-C is in tests/test_cli_interrupt.py, hostile arguments in tests/test_cli_hostile.py.)
"""

from __future__ import annotations

import json
import os
import re
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from store.demo import DEMO_QUESTIONS

REPO = Path(__file__).resolve().parent.parent
WD = "http://www.wikidata.org/entity/"
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"


def counts(db: Path) -> tuple[int, int, int]:
    with sqlite3.connect(db) as conn:
        return tuple(conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
                     for t in ("entities", "statements", "terms"))


def closed_port() -> int:
    """A loopback port nothing listens on (connections are refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# -- 3: loading needs a named mirror ------------------------------------------------------------

def test_a_load_without_db_is_refused_and_the_demo_kb_is_unchanged(run, tmp_path):
    assert run("entity", "Q937").exit_code == 0             # the demo mirror, built
    demo = tmp_path / "cache" / "mirror.sqlite"
    before = counts(demo)
    mine = tmp_path / "my.ttl"
    mine.write_text(f'<{WD}Q31> <{LABEL}> "Belgium"@en .\n')
    result = run("mirror", "load", str(mine))
    assert result.exit_code == 2
    assert "--db" in result.output and "kgground mirror load my.ttl --db my.sqlite" in \
        result.output
    assert counts(demo) == before
    assert not (tmp_path / "my.sqlite").exists()
    named = run("mirror", "load", str(mine), "--db", str(tmp_path / "my.sqlite"))
    assert named.exit_code == 0 and counts(demo) == before


# -- 5: first use says what is built and how long it took ---------------------------------------

def _kgground(env: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "reasoning", *args], env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.fixture
def new_user(tmp_path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("KGGROUND_", "OPENAI_"))}
    env.update(PYTHONPATH=str(REPO), KGGROUND_DEFAULT_DB=str(tmp_path / "cache" / "m.sqlite"))
    return env


@pytest.mark.timeout(600)
def test_first_use_says_once_what_is_built_and_how_long_it_took(new_user, tmp_path,
                                                                 demo_mirror_path):
    """stderr is a pipe here, not a terminal: the notices are printed all the same."""
    first = _kgground(new_user, "ask", "Where was Marie Curie born?")
    assert first.returncode == 0, first.stderr
    err = first.stderr
    assert err.count("building the demo KB") == 1
    assert len(re.findall(r"Built the demo KB in \d+\.\d s", err)) == 1
    assert err.count("building the linking index of") == 1
    assert len(re.findall(r"linking index built in \d+\.\d s", err)) == 1
    assert "linking index: entity facts" not in err        # steps: on a terminal only
    again = _kgground(new_user, "ask", "Where was Marie Curie born?")
    assert again.returncode == 0
    assert "building" not in again.stderr and "built in" not in again.stderr
    # a mirror of one's own, first linked by ``ask``: announced the same way
    mine = tmp_path / "mine.sqlite"
    mine.write_bytes(demo_mirror_path.read_bytes())
    own = _kgground(new_user, "ask", "Where was Marie Curie born?", "--db", str(mine))
    assert f"building the linking index of {mine}" in own.stderr
    assert re.search(r"linking index built in \d+\.\d s", own.stderr)


# -- 6: the eval page ---------------------------------------------------------------------------

def test_the_eval_page_shows_property_labels_and_a_readable_configuration(run, tmp_path,
                                                                          demo_mirror_path):
    pytest.importorskip("matplotlib", reason="the eval extra is not installed")
    bench = tmp_path / "bench.jsonl"
    bench.write_text("".join(DEMO_QUESTIONS.read_text(encoding="utf-8").splitlines(True)[:4]))
    page = tmp_path / "r.html"
    result = run("eval", str(bench), "--db", str(demo_mirror_path), "--report",
                 str(tmp_path / "r.json"), "--html", str(page), "--languages", "en,de")
    assert result.exit_code == 0, result.output
    html = page.read_text(encoding="utf-8")
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["labels"]["P19"] == "place of birth"
    for pid in report["by_relation"]:
        label = report["labels"][pid]
        assert f"<span class='id' title='{pid}'>{label}</span>" in html
    assert "place of birth (P19)" not in html and ">P19<" not in html
    config = html[html.index("<table class='kv'>"):]
    config = config[:config.index("</table>")]
    assert "<th>knowledge base</th>" in config and "<th>benchmark SHA-256</th>" in config
    assert "<td>en, de</td>" in config                       # a list, read as one
    assert "<td>none (the KB answers alone)</td>" in config  # null, named
    assert "[" not in config and "{" not in config and "null" not in config
    text = result.stdout
    assert "P19 place of birth" in text


# -- 7: an endpoint error, once -----------------------------------------------------------------

def test_an_endpoint_error_is_printed_once(new_user, demo_mirror_path):
    """Run as a user runs it (a process, its real stderr), where the library's warnings
    show too."""
    endpoint = f"http://127.0.0.1:{closed_port()}/sparql"
    entity = _kgground(new_user, "entity", "Q42", "--db", str(demo_mirror_path),
                       "--endpoint", endpoint)
    assert entity.returncode == 1
    assert entity.stderr.count("cannot reach the endpoint") == 1, entity.stderr
    assert "Traceback" not in entity.stderr
    # linking goes on without the endpoint (a warning), the answer needs it (the error)
    ask = _kgground(new_user, "ask", "Where was Douglas Adams born?", "--db",
                    str(demo_mirror_path), "--endpoint", endpoint)
    assert ask.returncode == 1
    assert ask.stderr.count("cannot reach the endpoint") == 1, ask.stderr
    assert ask.stderr.rstrip().endswith("Error: stopped by the endpoint error above.")


# -- 8: a simulated LLM on the demo KB ----------------------------------------------------------

def test_gate_with_a_simulated_llm_uses_the_demo_questions(run, monkeypatch, tmp_path):
    result = run("gate", "Where was Marie Curie born?", "--llm", "simulated", "--json")
    assert result.exit_code == 0, result.output
    decision = json.loads(result.stdout)
    assert decision["gate"] == "rowen-cl" and decision["n_calls"] > 0
    assert "demo KB's questions" in result.stderr
    monkeypatch.setenv("KGGROUND_DB", str(tmp_path / "mine.sqlite"))
    elsewhere = run("gate", "Where was Marie Curie born?", "--llm", "simulated")
    assert elsewhere.exit_code == 2
    assert "A catalog is a JSONL file" in elsewhere.output
    assert "--catalog FILE" in elsewhere.output


# -- 9: querygen train, documented --------------------------------------------------------------

def test_the_readme_documents_every_querygen_train_option():
    from reasoning.cli.querygen import train_cmd

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("The trained query generator"):]
    section = section[:section.index("`kgground eval FILE`")]
    options = [max(p.opts, key=len) for p in train_cmd.params if p.name != "help"]
    missing = [o for o in options if o not in section]
    assert not missing, f"the README does not say what these do: {missing}"
    # the worked example: on the shared data, bounded by --time-limit
    assert re.search(r"kgground querygen train .*--time-limit", section)
    assert "../shared/data" in section


# -- 10: a dump without its property entities ---------------------------------------------------

def _entity(qid: str, label: str, claims: dict[str, list[str]]) -> dict:
    return {"type": "item", "id": qid, "labels": {"en": {"language": "en", "value": label}},
            "claims": {pid: [{"mainsnak": {
                "snaktype": "value", "property": pid, "datatype": "wikibase-item",
                "datavalue": {"type": "wikibase-entityid",
                              "value": {"entity-type": "item", "id": v}}},
                "type": "statement", "id": f"{qid}${pid}-{n}", "rank": "normal"}
                for n, v in enumerate(values)] for pid, values in claims.items()}}


@pytest.fixture
def partial_dump(tmp_path) -> Path:
    """Items with statements, without the property entities those statements use."""
    rows = [_entity("Q7186", "Marie Curie", {"P19": ["Q270"], "P20": ["Q90"], "P31": ["Q5"],
                                              "P26": ["Q37463"]}),
            _entity("Q270", "Warsaw", {"P31": ["Q515"]}), _entity("Q90", "Paris", {}),
            _entity("Q5", "human", {}), _entity("Q37463", "Pierre Curie", {"P31": ["Q5"]}),
            _entity("Q515", "city", {})]
    path = tmp_path / "partial.json"
    path.write_text("[\n" + ",\n".join(json.dumps(r) for r in rows) + "\n]\n")
    return path


def test_a_partial_dump_says_at_load_that_property_labels_are_missing(run, tmp_path,
                                                                      partial_dump):
    db = tmp_path / "partial.sqlite"
    result = run("mirror", "load", str(partial_dump), "--db", str(db))
    assert result.exit_code == 0, result.output
    note = result.stderr
    assert "4 properties the statements use have no label" in note
    assert "P19, P20, P26, P31" in note
    assert "kgground mirror load P31.json" in note and "--endpoint wikidata" in note
    stats = json.loads(run("mirror", "stats", "--db", str(db), "--json").stdout)
    assert stats["unnamed_properties"] == ["P19", "P20", "P26", "P31"]
    assert "4 used without a label" in run("mirror", "stats", "--db", str(db)).stdout


def test_a_partial_dump_gets_property_names_from_an_allowed_endpoint(run, tmp_path,
                                                                     partial_dump,
                                                                     demo_endpoint):
    db = tmp_path / "partial.sqlite"
    assert run("mirror", "load", str(partial_dump), "--db", str(db)).exit_code == 0
    asked = run("ask", "Where was Marie Curie born?", "--db", str(db), "--endpoint",
                demo_endpoint.url, "--json")
    assert asked.exit_code == 0, asked.output
    answer = json.loads(asked.stdout)
    assert [v["id"] for v in answer["values"]] == ["Q270"] and answer["grounded"]
    # the names were kept: the mirror has them, and answers the same offline
    stats = json.loads(run("mirror", "stats", "--db", str(db), "--json").stdout)
    # (what the endpoint sent back may use properties it has no name for itself)
    assert not {"P19", "P20", "P26", "P31"} & set(stats["unnamed_properties"])
    assert stats["properties"] >= 4
    offline = json.loads(run("ask", "Where did Marie Curie die?", "--db", str(db),
                             "--json").stdout)
    assert [v["id"] for v in offline["values"]] == ["Q90"]
    listing = run("entity", "Q7186", "--db", str(db)).stdout
    assert "P19 (place of birth): Q270 (Warsaw)" in listing
