"""``kgground sparql``, run as a user would: a real mirror, real files, stdin, and a real
SPARQL endpoint on loopback (``kgground serve``'s server over the demo mirror)."""

from __future__ import annotations

import csv
import io
import json
import threading

import pytest
from click.testing import CliRunner

from kb.mirror import MirrorKB
from reasoning.cli import cli

WD = "http://www.wikidata.org/entity/"
EDUCATED = "SELECT ?o WHERE { wd:Q937 wdt:P69 ?o } ORDER BY ?o"


@pytest.fixture
def run(demo_mirror_path):
    runner = CliRunner()

    def invoke(*args: str, input: str | None = None, db: bool = True):
        extra = ["--db", str(demo_mirror_path)] if db else []
        return runner.invoke(cli, ["sparql", *args, *extra], input=input,
                             catch_exceptions=False)
    return invoke


def test_table(run):
    result = run(EDUCATED)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].strip() == "?o" and set(lines[1]) == {"─"}
    assert [line.strip() for line in lines[2:]] == ["wd:Q11942", "wd:Q206702"]
    assert "2 rows (sql" in result.stderr


def test_table_shows_literals_shortly(run):
    result = run('SELECT ?l ?d WHERE { wd:Q937 rdfs:label ?l ; wdt:P569 ?d '
                 'FILTER(lang(?l) = "de") }')
    assert "Albert Einstein@de" in result.stdout and "1879-03-14T00:00:00Z" in result.stdout


def test_json_is_sparql_results_json(run):
    data = json.loads(run(EDUCATED, "--format", "json").stdout)
    assert data["head"]["vars"] == ["o"]
    assert data["results"]["bindings"][0]["o"] == {"type": "uri", "value": WD + "Q11942"}
    ask = json.loads(run("ASK { wd:Q937 wdt:P31 wd:Q5 }", "--format", "json").stdout)
    assert ask == {"head": {}, "boolean": True}


def test_csv(run):
    rows = list(csv.reader(io.StringIO(run(EDUCATED, "--format", "csv").stdout)))
    assert rows == [["o"], [WD + "Q11942"], [WD + "Q206702"]]


def test_explain_goes_to_stderr(run):
    result = run(EDUCATED, "--explain", "--format", "json")
    json.loads(result.stdout)                          # stdout stays machine-readable
    assert "-- engine: sql" in result.stderr and "FROM statements" in result.stderr
    fallback = run("SELECT ?p WHERE { wd:Q937 ?p wd:Q5 }", "--explain")
    assert "-- engine: rdflib" in fallback.stderr
    assert "variable in predicate position" in fallback.stderr


def test_query_from_a_file_and_from_stdin(run, tmp_path):
    path = tmp_path / "q.rq"
    path.write_text(EDUCATED)
    assert "wd:Q206702" in run(str(path)).stdout
    assert "wd:Q206702" in run("-", input=EDUCATED).stdout
    missing = run(str(tmp_path / "missing.rq"))
    assert missing.exit_code == 2 and "no file" in missing.output


def test_label_service_as_pasted_from_wdqs(run):
    result = run('SELECT ?x ?xLabel WHERE { VALUES ?x { wd:Q937 wd:Q7085 } '
                 'SERVICE wikibase:label { bd:serviceParam wikibase:language '
                 '"[AUTO_LANGUAGE],en". } } ORDER BY ?xLabel')
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()[2:]
    assert "Albert Einstein@en" in lines[0] and "Niels Bohr@en" in lines[1]


@pytest.mark.parametrize("query, message", [
    ("SELECT ?x WHERE { ?x wdt:P31 }", "line 1, column"),
    ("INSERT DATA { wd:Q1 wdt:P31 wd:Q5 }", "read-only"),
    ("SELECT * WHERE { SERVICE <http://example.org/sparql> { ?s ?p ?o } }", "allow-list"),
])
def test_errors_are_clear(run, query, message):
    result = run(query)
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: ") and message in result.stderr
    assert "Traceback" not in result.output


def test_db_and_endpoint_put_the_endpoint_behind_the_mirror(run):
    """--db with --endpoint is a FallbackKB, as for every command: with --offline the mirror
    answers alone (the endpoint on port 9 would refuse)."""
    result = run(EDUCATED, "--endpoint", "http://127.0.0.1:9/sparql", "--offline")
    assert result.exit_code == 0, result.output
    assert [line.strip() for line in result.stdout.splitlines()[2:]] == \
        ["wd:Q11942", "wd:Q206702"]


def test_help_documents_every_option():
    text = CliRunner().invoke(cli, ["sparql", "--help"]).output
    for option in ("--db", "--endpoint", "--format", "--explain", "--timeout", "--no-cache"):
        assert option in text
    assert "wikibase:label" in text


def test_endpoint(run, demo_mirror_path, tmp_path, monkeypatch):
    from kb.sparql_server import SparqlServer

    monkeypatch.setenv("KGGROUND_SPARQL_CACHE", str(tmp_path / "cache.sqlite"))
    base = MirrorKB(demo_mirror_path)
    server = SparqlServer(base, port=0)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        for extra in ([], ["--no-cache"]):
            result = run(EDUCATED, "--endpoint", server.url, "--format", "csv", *extra,
                         db=False)
            assert result.exit_code == 0, result.output
            assert list(csv.reader(io.StringIO(result.stdout))) == \
                [["o"], [WD + "Q11942"], [WD + "Q206702"]]
    finally:
        server.close()
        base.close()
