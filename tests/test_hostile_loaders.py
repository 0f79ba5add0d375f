"""Hostile files (issue 32 items 5-9, issue 29 item 2): a bad record costs only itself; XML
entity bombs are refused within a second and external entities never read; a load opens no
network connection unless allowed; byte-order marks are skipped; NULs and ill-typed literals
are reported once, without tracebacks; a resumed load reports the whole file's counts."""

from __future__ import annotations

import gzip
import http.server
import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from store import ingest
from store.errors import LoadError
from store.ingest import load
from store.mirror import Mirror
from tests.hostile import LABEL, SENTINEL, WD, WDT, XSD, hostile_files, run_isolated

settings.register_profile("loaders", deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                 HealthCheck.too_slow])


def has_entity(db: Path, eid: str) -> bool:
    with Mirror(db) as m:
        return bool(m.query("SELECT 1 FROM entities WHERE id = ?", (eid,)))


def entity(qid: str, **extra) -> str:
    return json.dumps({"type": "item", "id": qid, "claims": {},
                       "labels": {"en": {"language": "en", "value": f"label {qid}"}}, **extra})


def dump(path: Path, *records: str) -> Path:
    path.write_text("[\n" + ",\n".join(records) + "\n]\n")
    return path


class Listener:
    """A loopback port that counts the connections made to it."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/context.jsonld"
        self.connections = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            conn.close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    """A Listener, closed (its thread ends) after the test."""
    server = Listener()
    yield server
    server.sock.close()


# -- item 5: one bad field loses only its record --------------------------------------------------

def test_an_integer_past_64_bits_costs_only_its_entity(tmp_path):
    """Issue 32 item 5: "lastrevid": 18446744073709551616 ended the load with OverflowError
    and a traceback, and the valid entity after it was not loaded."""
    src = dump(tmp_path / "d.json", entity("Q1", lastrevid=18446744073709551616),
               entity("Q2", lastrevid=5))
    db = tmp_path / "m.sqlite"
    with Mirror(db, create=True) as m:
        report = load(m, src)
    assert report.errors == 1 and "Q1" in report.error_samples[0]
    assert "64-bit" in report.error_samples[0]
    assert has_entity(db, "Q2") and not has_entity(db, "Q1")


# -- item 6 and XXE: XML entities ---------------------------------------------------------------

BOMB_LOAD = r'''
import sys, time, json
from pathlib import Path
from store.errors import LoadError
from store.ingest import load
from store.mirror import Mirror
started = time.monotonic()
try:
    with Mirror(Path(sys.argv[2]), create=True) as m:
        load(m, Path(sys.argv[1]))
    out = "loaded"
except LoadError as exc:
    out = str(exc)
print(json.dumps({"outcome": out, "seconds": time.monotonic() - started}))
'''


@pytest.mark.timeout(120)
@pytest.mark.parametrize("name", ["laughs.rdf", "laughs-attribute.rdf", "quadratic.rdf"])
def test_an_entity_expansion_bomb_is_refused_within_a_second(tmp_path, name):
    """Issue 32 item 6: an 840-byte "billion laughs" file cost 211 s of CPU."""
    files = {f.path.name: f for f in hostile_files(tmp_path / "in")}
    run = run_isolated(BOMB_LOAD, timeout=60, memory=2 << 30,
                       args=(str(files[name].path), str(tmp_path / "m.sqlite")))
    assert run["returncode"] == 0, run["stderr"][-1500:]
    out = json.loads(run["stdout"])
    assert out["seconds"] < 1.0, out
    assert "expan" in out["outcome"] and "bomb" in out["outcome"], out


@pytest.mark.parametrize("name", ["xxe-file.rdf", "xxe-url.rdf", "xxe-parameter.rdf"])
def test_an_external_xml_entity_is_refused_not_read(listener, tmp_path, name):
    """Issue 32 item 9: an XXE entity silently became an empty literal."""
    secret = tmp_path / "secret.txt"
    secret.write_text("kgground-secret\n")
    files = {f.path.name: f for f in hostile_files(tmp_path / "in", secret=secret,
                                                   url=listener.url)}
    with Mirror(tmp_path / "m.sqlite", create=True) as m, pytest.raises(LoadError) as err:
        load(m, files[name].path)
    assert "entit" in str(err.value)
    assert listener.connections == 0
    from kb.rdfgraph import RdfGraphKB
    with pytest.raises(LoadError):
        RdfGraphKB(files[name].path)


def test_xml_that_declares_namespaces_as_entities_still_loads(tmp_path):
    """OWL files declare their namespaces as internal entities: they stay welcome."""
    src = tmp_path / "owl.rdf"
    src.write_text('<?xml version="1.0"?>\n<!DOCTYPE rdf:RDF [\n'
                   '  <!ENTITY owl "http://www.w3.org/2002/07/owl#" >\n'
                   f'  <!ENTITY wd "{WD}" >\n]>\n'
                   '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
                   'xmlns:rdfs="http://www.w3.org/2000/01/rdf-schema#">'
                   '<rdf:Description rdf:about="&wd;Q7"><rdfs:label>caf&#233; &amp; co'
                   '</rdfs:label><rdf:type rdf:resource="&owl;Class"/></rdf:Description>'
                   '</rdf:RDF>\n')
    db = tmp_path / "m.sqlite"
    with Mirror(db, create=True) as m:
        report = load(m, src)
    assert report.errors == 0 and report.terms == 1
    from kb.mirror import MirrorKB
    assert MirrorKB(db).entity("Q7").label("en") == "café & co"


# -- item 7: no network ---------------------------------------------------------------------------

class _Context(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - the standard library's name
        body = json.dumps({"@context": {"name": "http://schema.org/name"}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/ld+json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_a_remote_json_ld_context_is_not_fetched_unless_allowed(listener, tmp_path):
    """Issue 32 item 7: a JSON-LD file whose @context is a URL made the loader fetch it."""
    src = tmp_path / "remote.jsonld"
    src.write_text(json.dumps({"@context": listener.url, "@id": f"{WD}Q7", "name": "x"}))
    with Mirror(tmp_path / "m.sqlite", create=True) as m, pytest.raises(LoadError) as err:
        load(m, src)
    assert listener.url in str(err.value) and "allow" in str(err.value)
    from kb.rdfgraph import RdfGraphKB
    with pytest.raises(LoadError):
        RdfGraphKB(src)
    remote_dtd = [f for f in hostile_files(tmp_path / "in", url=listener.url)
                  if f.path.name == "remote-dtd.rdf"][0].path
    with Mirror(tmp_path / "m2.sqlite", create=True) as m:
        load(m, remote_dtd)
    assert listener.connections == 0

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Context)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/context.jsonld"
        src.write_text(json.dumps({"@context": url, "@id": f"{WD}Q7", "name": "allowed"}))
        with Mirror(tmp_path / "m3.sqlite", create=True) as m:
            report = load(m, src, allow_network=True)
        assert report.records == 1 and report.terms == 1       # schema:name: a label
    finally:
        server.shutdown()


def test_mirror_load_has_an_allow_network_flag(listener, tmp_path):
    from click.testing import CliRunner

    from reasoning.cli import cli

    src = tmp_path / "remote.jsonld"
    src.write_text(json.dumps({"@context": listener.url, "@id": f"{WD}Q7", "name": "x"}))
    result = CliRunner().invoke(cli, ["mirror", "load", str(src), "--db",
                                      str(tmp_path / "m.sqlite")])
    assert result.exit_code == 1 and "--allow-network" in result.output
    assert "Traceback" not in result.output and listener.connections == 0
    assert "--allow-network" in CliRunner().invoke(cli, ["mirror", "load", "--help"]).output


# -- item 8: a resumed load counts the whole file --------------------------------------------------

@pytest.mark.parametrize("kind", ["ntriples", "json"])
def test_a_resumed_load_reports_the_whole_files_counts(tmp_path, monkeypatch, kind):
    """Issue 32 item 8: after an interrupted load, sources[].counts held only the resumed
    part (0/0/0 after a kill late in the load)."""
    if kind == "ntriples":
        lines = [f'<{WD}Q{i}> <{LABEL}> "entity {i}"@en .' for i in range(1, 10001)]
        lines += [f'<{WD}Q{i}> <{WDT}P31> <{WD}Q5> .' for i in range(1, 10001)]
        src = tmp_path / "big.nt.gz"
        src.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
        monkeypatch.setattr("store.batches.BATCH_ROWS", 1000)
    else:
        src = dump(tmp_path / "big.json", *(entity(f"Q{i}") for i in range(1, 3001)))
        monkeypatch.setattr("store.batches.CHUNK_BYTES", 16 << 10)
        monkeypatch.setattr("store.batches.FIRST_CHUNK_BYTES", 16 << 10)
    with Mirror(tmp_path / "whole.sqlite", create=True) as m:
        whole = load(m, src, parallel=False)
        whole_counts = json.loads(m.sources()[0]["counts"])
    write, calls = ingest.write_batch, {"n": 0}

    def interrupted(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return write(*args, **kwargs)
    with Mirror(tmp_path / "m.sqlite", create=True) as m:
        monkeypatch.setattr(ingest, "write_batch", interrupted)
        with pytest.raises(KeyboardInterrupt):
            load(m, src, parallel=False)
        monkeypatch.setattr(ingest, "write_batch", write)
        (source,) = m.sources()
        assert source["status"] == "loading" and json.loads(source["counts"])["records"] > 0
        resumed = load(m, src, parallel=False)
        counts = json.loads(m.sources()[0]["counts"])
    assert resumed.status == "resumed"
    for key in ("records", "entities", "statements", "terms", "errors"):
        assert getattr(resumed, key) == getattr(whole, key), key
    assert counts == whole_counts


# -- item 9: BOM, NUL, ill-typed literals, JSON record counts ------------------------------------

@pytest.mark.parametrize("name", ["bom.nt", "bom.json", "bom.ttl"])
def test_a_byte_order_mark_is_skipped(tmp_path, name):
    """Issue 32 item 9: a UTF-8 BOM made the first N-Triples line an error."""
    files = {f.path.name: f for f in hostile_files(tmp_path / "in")}
    db = tmp_path / "m.sqlite"
    with Mirror(db, create=True) as m:
        report = load(m, files[name].path)
    assert report.errors == 0 and has_entity(db, SENTINEL)


@pytest.mark.parametrize("name", ["nul.nt", "nul.json", "nul.ttl"])
def test_nul_characters_are_reported_not_stored(tmp_path, name):
    """Issue 32 item 9: NUL characters in literals were stored without a word."""
    files = {f.path.name: f for f in hostile_files(tmp_path / "in")}
    db = tmp_path / "m.sqlite"
    with Mirror(db, create=True) as m:
        report = load(m, files[name].path)
        stored = m.query("SELECT COUNT(*) FROM terms WHERE instr(text, char(0)) > 0")[0][0]
        stored += m.query("SELECT COUNT(*) FROM statements WHERE "
                          "instr(value, char(0)) > 0")[0][0]
    assert stored == 0 and report.errors >= 1
    assert any("NUL" in s for s in report.error_samples), report.error_samples
    assert has_entity(db, SENTINEL)


def test_ill_typed_literals_are_kept_and_reported_with_their_lines(tmp_path):
    """Issue 32 item 9: malformed typed literals ("abc"^^xsd:integer) were stored without
    a word."""
    files = {f.path.name: f for f in hostile_files(tmp_path / "in")}
    with Mirror(tmp_path / "m.sqlite", create=True) as m:
        report = load(m, files["ill-typed.nt"].path)
    assert report.errors == 0 and report.invalid_literals == 6 and report.statements == 6
    assert "1 literal with an invalid xsd:integer kept as text: line 1" in report.warnings
    assert "1 literal with an invalid xsd:date kept as text: line 2" in report.warnings
    with Mirror(tmp_path / "m2.sqlite", create=True) as m:
        report = load(m, files["ill-typed.ttl"].path)
    assert report.warnings == ["1 literal with an invalid xsd:date kept as text: line 1"]
    from click.testing import CliRunner

    from reasoning.cli import cli
    result = CliRunner().invoke(cli, ["mirror", "load", str(files["ill-typed.nt"].path),
                                      "--db", str(tmp_path / "m3.sqlite")])
    assert result.exit_code == 0
    assert "1 literal with an invalid xsd:boolean kept as text: line 4" in result.output


def test_valid_typed_literals_are_not_reported(tmp_path):
    values = [("-0042", "integer"), ("1.50", "decimal"), ("-1.5E-3", "double"), ("INF", "float"),
              ("true", "boolean"), ("2024-02-29", "date"), ("-0044-03-15T12:00:00Z", "dateTime"),
              ("12345-01-01T00:00:00+14:00", "dateTime"), ("24:00:00", "time"),
              ("2020", "gYear"), ("1999-12", "gYearMonth"), ("255", "unsignedByte"),
              ("1952-03-11T00:00:00Z", "dateTime")]
    src = tmp_path / "ok.nt"
    src.write_text("".join(f'<{WD}Q1> <{WDT}P{i}> "{v}"^^<{XSD}{t}> .\n'
                           for i, (v, t) in enumerate(values, 1)))
    with Mirror(tmp_path / "m.sqlite", create=True) as m:
        report = load(m, src)
    assert report.invalid_literals == 0 and report.warnings == [], report.warnings


def test_json_record_counts_leave_out_the_brackets(tmp_path):
    """Issue 32 item 9: JSON record counts included the '[' and ']' lines."""
    src = dump(tmp_path / "d.json", entity("Q1"), entity("Q2"), entity("Q3"))
    with Mirror(tmp_path / "m.sqlite", create=True) as m:
        assert load(m, src).records == 3


# -- issue 29 item 2: rdflib's tracebacks for bad literals ---------------------------------------

def test_a_bad_literal_in_a_turtle_file_is_one_counted_line(tmp_path, capfd, caplog):
    """Issue 29 item 2: one "2021-02-30"^^xsd:date printed rdflib's traceback on every
    query; now one warning line when the file is first used, and silence after."""
    import kb

    src = tmp_path / "kb.ttl"
    src.write_text("@prefix ex: <http://example.org/> .\n"
                   "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
                   'ex:a ex:born "2021-02-30"^^xsd:date ; ex:name "a" .\n')
    base = kb.open(src)
    assert base.load_warnings == ("1 literal with an invalid xsd:date kept as text: line 3",)
    assert [r.getMessage() for r in caplog.records] == [
        f"{src}: 1 literal with an invalid xsd:date kept as text: line 3"]
    for _ in range(3):
        rows = base.sparql("SELECT ?d WHERE { ?s <http://example.org/born> ?d }").rows
        assert str(rows[0]["d"]) == "2021-02-30"
    assert len(caplog.records) == 1 and capfd.readouterr().err == ""
    # as a user sees it: the command line, with Python's default logging
    run = run_isolated("import sys\nfrom reasoning.cli import cli\n"
                       "cli(['sparql', 'SELECT ?d WHERE { ?s ?p ?d }', '--db', sys.argv[1]], "
                       "prog_name='kgground')\n", timeout=120, args=(str(src),))
    assert run["returncode"] == 0, run["stderr"]
    assert "Traceback" not in run["stderr"] and "Failed to convert" not in run["stderr"]
    warned = [line for line in run["stderr"].splitlines() if "kept as text" in line]
    assert warned == [f"Warning: {src}: 1 literal with an invalid xsd:date kept as text: line 3"]


def test_a_bad_literal_in_a_mirror_is_said_at_load_and_silent_in_queries(tmp_path, capfd):
    import kb

    src = tmp_path / "kb.nt"
    src.write_text(f'<{WD}Q1> <{WDT}P569> "2021-02-30"^^<{XSD}date> .\n')
    db = tmp_path / "m.sqlite"
    with Mirror(db, create=True) as m:
        report = load(m, src)
    assert report.warnings == ["1 literal with an invalid xsd:date kept as text: line 1"]
    base = kb.open(db)
    for engine_query in ("SELECT ?d WHERE { wd:Q1 wdt:P569 ?d }",
                         "SELECT ?d WHERE { wd:Q1 ?p ?d }"):
        assert str(base.sparql(engine_query).rows[0]["d"]) == "2021-02-30"
    err = capfd.readouterr().err
    assert "Traceback" not in err and "Failed to convert" not in err


# -- property-based: a bad record costs only itself ------------------------------------------------

_TEXT = st.text(alphabet=st.characters(codec="utf-8"), max_size=30)
_JSON_VALUE = st.recursive(
    st.none() | st.booleans() | st.integers(-2 ** 70, 2 ** 70) | st.floats() | _TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=8)
_FIELDS = ("id", "type", "labels", "descriptions", "aliases", "claims", "sitelinks",
           "lastrevid", "modified", "datatype", "lemmas", "forms", "senses")


@settings(parent=settings.get_profile("loaders"), max_examples=40)
@given(fields=st.dictionaries(st.sampled_from(_FIELDS), _JSON_VALUE, max_size=4),
       qid=st.integers(1, 10 ** 20))
def test_any_bad_json_entity_costs_only_itself(tmp_path_factory, fields, qid):
    tmp = tmp_path_factory.mktemp("json")
    record = {"type": "item", "id": f"Q{qid}", "labels": {}, "claims": {}}
    record.update(fields)
    src = dump(tmp / "d.json", json.dumps(record), entity(SENTINEL))
    db = tmp / "m.sqlite"
    with Mirror(db, create=True) as m:
        report = load(m, src)
    assert report.records == 2 and has_entity(db, SENTINEL)


_IRI = st.one_of(st.just(f"<{WD}Q1>"), st.just(f"<{WDT}P31>"), st.just(f"<{LABEL}>"),
                 _TEXT.map(lambda t: f"<{t}>"), _TEXT.map(lambda t: f"_:{t}"))
_LITERAL = st.builds(lambda text, suffix: '"' + text + '"' + suffix,
                     _TEXT, st.one_of(st.just(""), _TEXT.map(lambda t: f"@{t}"),
                                      st.sampled_from(["integer", "date", "dateTime", "decimal",
                                                       "boolean", "double", "gYear"]).map(
                                          lambda t: f"^^<{XSD}{t}>"),
                                      _TEXT.map(lambda t: f"^^<{t}>")))
_LINE = st.one_of(
    st.builds(lambda s, p, o: f"{s} {p} {o} .", _IRI, _IRI, st.one_of(_IRI, _LITERAL)),
    _TEXT, st.binary(max_size=40).map(lambda b: b.decode("latin-1")))


@settings(parent=settings.get_profile("loaders"), max_examples=40)
@given(lines=st.lists(_LINE, min_size=1, max_size=5), fmt=st.sampled_from(["nt", "ttl"]))
def test_any_bad_triple_line_costs_only_itself(tmp_path_factory, lines, fmt):
    """N-Triples are read line by line (a bad line costs itself); Turtle is one document
    to rdflib (a bad one is refused whole, with a LoadError): never another exception."""
    tmp = tmp_path_factory.mktemp("nt")
    body = "\n".join(line.replace("\n", " ").replace("\r", " ") for line in lines)
    src = tmp / f"d.{fmt}"
    src.write_bytes((body + "\n" + f'<{WD}{SENTINEL}> <{LABEL}> "s"@en .\n').encode(
        "utf-8", "surrogatepass"))
    db = tmp / "m.sqlite"
    try:
        with Mirror(db, create=True) as m:
            load(m, src)
    except LoadError as exc:
        assert fmt == "ttl", f"N-Triples keep their good lines: {exc}"
        return
    if fmt == "nt":
        assert has_entity(db, SENTINEL)


def test_every_hostile_file_loads_or_is_refused_clearly(listener, tmp_path, capfd):
    secret = tmp_path / "secret.txt"
    secret.write_text("kgground-secret\n")
    for hostile in hostile_files(tmp_path / "in", secret=secret, url=listener.url):
        db = tmp_path / f"{hostile.path.name}.sqlite"
        try:
            with Mirror(db, create=True) as m:
                load(m, hostile.path)
            refused = False
        except LoadError:
            refused = True
        assert refused or not hostile.refused, hostile
        if hostile.sentinel:
            assert has_entity(db, SENTINEL), hostile
    assert listener.connections == 0
    err = capfd.readouterr().err
    assert "Traceback" not in err, err[-2000:]
