"""``kgground sparql``'s bounds and edges (issue 12): a default timeout, rows streamed with
bounded memory, --limit, SELECT * in first-appearance order, --json, TSV, vocabulary notes,
and clear errors for text that is not UTF-8."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from reasoning.cli import cli
from tests.conftest import REPO

HEAVY = ("SELECT ?a ?b ?c WHERE { ?a rdfs:label ?x . ?b rdfs:label ?y . "
         "?c rdfs:label ?z }")


@pytest.fixture
def run(demo_mirror_path):
    runner = CliRunner()

    def invoke(*args: str, input: str | bytes | None = None):
        return runner.invoke(cli, ["sparql", *args, "--db", str(demo_mirror_path)],
                             input=input, catch_exceptions=False)
    return invoke


def test_default_timeout_is_60_seconds_and_can_be_changed(run):
    text = CliRunner().invoke(cli, ["sparql", "--help"]).output
    assert "--timeout" in text and "60" in text and "--limit" in text and "--json" in text
    result = run(HEAVY, "--timeout", "0.2", "--format", "csv")
    assert result.exit_code == 1 and "timeout" in result.stderr
    assert "Traceback" not in result.output


def test_limit_stops_a_huge_result_early(run):
    result = run(HEAVY, "--limit", "5", "--format", "tsv")
    assert result.exit_code == 0, result.output
    assert len(result.stdout.splitlines()) == 6            # header + 5 rows
    assert "5 rows (--limit reached)" in result.stderr


def test_rows_stream_with_bounded_memory(demo_mirror_path, tmp_path):
    """A cartesian product of the demo's labels (tens of millions of rows) printed for a
    few seconds: the process's peak memory stays small because rows are not collected."""
    # RSS sampled while it runs (ru_maxrss would carry the forking parent's high-water mark)
    script = (
        "import sys, threading, time\n"
        "peak = [0]\n"
        "def sample():\n"
        "    while True:\n"
        "        with open('/proc/self/status') as f:\n"
        "            rss = next(int(l.split()[1]) for l in f if l.startswith('VmRSS'))\n"
        "        peak[0] = max(peak[0], rss)\n"
        "        time.sleep(0.1)\n"
        "threading.Thread(target=sample, daemon=True).start()\n"
        "from reasoning.cli import cli\n"
        "try:\n"
        f"    cli(['sparql', {HEAVY!r}, '--db', {str(demo_mirror_path)!r}, '--format', "
        "'csv', '--timeout', '4'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "sys.stderr.write('PEAK %d\\n' % peak[0])\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=120,
                         cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)})
    lines = out.stdout.count(b"\n")
    peak_kib = int(out.stderr.decode().rsplit("PEAK ", 1)[1].split()[0])
    assert lines > 5_000, out.stderr[-500:]        # rows were printed while it ran
    assert b"timeout" in out.stderr
    assert peak_kib < 300_000, peak_kib    # collecting the rows grows by ~150 MB/s (issue 12)


def test_select_star_lists_variables_in_order_of_appearance(run):
    query = "SELECT * WHERE { ?person wdt:P69 ?school . ?school rdfs:label ?name . " \
            "BIND(1 AS ?one) } LIMIT 2"
    for _ in range(3):
        data = json.loads(run(query, "--json").stdout)
        assert data["head"]["vars"] == ["person", "school", "name", "one"]
    header = run(query, "--format", "tsv").stdout.splitlines()[0]
    assert header == "?person\t?school\t?name\t?one"
    table = run(query).stdout.splitlines()[0].split()
    assert table == ["?person", "?school", "?name", "?one"]
    fallback = json.loads(run("SELECT * WHERE { wd:Q937 ?p ?o ; rdfs:label ?l } LIMIT 1",
                              "--json").stdout)
    assert fallback["head"]["vars"] == ["p", "o", "l"]


def test_json_flag_and_tsv(run):
    data = json.loads(run("SELECT ?o WHERE { wd:Q937 wdt:P69 ?o } ORDER BY ?o",
                          "--json").stdout)
    assert [b["o"]["value"][-7:] for b in data["results"]["bindings"]] == \
        ["/Q11942", "Q206702"]
    tsv = run("SELECT ?o WHERE { wd:Q937 wdt:P69 ?o } ORDER BY ?o", "--format", "tsv").stdout
    assert tsv.splitlines() == ["?o", "<http://www.wikidata.org/entity/Q11942>",
                                "<http://www.wikidata.org/entity/Q206702>"]
    assert run("ASK { wd:Q937 wdt:P31 wd:Q5 }", "--json").stdout.strip().endswith("}")


def test_vocabulary_the_mirror_lacks_is_said_on_stderr(run):
    result = run("SELECT ?x ?n WHERE { ?x wdt:P31 wd:Q5 ; wikibase:sitelinks ?n }",
                 "--explain")
    assert result.exit_code == 0
    assert "Note: the mirror holds no wikibase:sitelinks" in result.stderr
    assert result.stderr.count("wikibase:sitelinks") >= 2          # and in the explain


def test_query_hints_are_ignored(run):
    plain = run("SELECT ?o WHERE { wd:Q937 wdt:P69 ?o }", "--format", "csv").stdout
    hinted = run('SELECT ?o WHERE { hint:Query hint:optimizer "None" . '
                 "wd:Q937 wdt:P69 ?o ; hint:rangeSafe true }", "--format", "csv").stdout
    assert hinted == plain and plain.count("\n") == 3


def test_latin1_file_and_stdin_are_refused_clearly(run, tmp_path):
    path = tmp_path / "q.rq"
    path.write_bytes('SELECT ?x WHERE { ?x rdfs:label "Zürich"@de }'.encode("latin-1"))
    result = run(str(path))
    assert result.exit_code == 2 and "not UTF-8" in result.output and "0xfc" in result.output
    assert "Traceback" not in result.output
    piped = run("-", input='SELECT ?x WHERE { ?x rdfs:label "Zürich"@de }'.encode("latin-1"))
    assert piped.exit_code == 2 and "standard input is not UTF-8" in piped.output


def test_non_utf8_argument_is_refused_clearly(demo_mirror_path):
    query = 'SELECT ?x WHERE { ?x rdfs:label "Z\xfcrich"@de }'.encode("latin-1")
    out = subprocess.run([sys.executable, "-m", "reasoning", "sparql", query, "--db",
                          str(demo_mirror_path)], capture_output=True, timeout=120, cwd=REPO,
                         env={**os.environ, "PYTHONPATH": str(REPO), "LC_ALL": "C.UTF-8"})
    assert out.returncode == 2, out.stderr
    assert b"not UTF-8" in out.stderr and b"Traceback" not in out.stderr
