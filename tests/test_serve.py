"""The SPARQL server (``kgground serve``) over the demo mirror: a real server on a loopback
port, real HTTP, and real clients (SPARQLWrapper, rdflib's SPARQLStore)."""

from __future__ import annotations

import csv
import http.client
import io
import json
import os
import signal
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Iterator

import pytest
from click.testing import CliRunner
from rdflib import Graph, Literal, URIRef
from rdflib.query import Result

from kb.mirror import MirrorKB
from kb.sparql_formats import negotiate, parse_accept
from kb.sparql_server import SparqlServer
from kb.sparql_server import running_server as running

WD = "http://www.wikidata.org/entity/"
RES = "{http://www.w3.org/2005/sparql-results#}"
EMPLOYERS = "SELECT ?o WHERE { wd:Q937 wdt:P108 ?o } ORDER BY ?o"
LABELS = 'SELECT ?s ?l WHERE { VALUES ?s { wd:Q937 } ?s rdfs:label ?l } ORDER BY ?l'
# a three-way cross product over every P31 statement: far longer than any test timeout
SLOW = ("SELECT (COUNT(*) AS ?n) WHERE { ?a wdt:P31 ?b . ?c wdt:P31 ?d . ?e wdt:P31 ?f . "
        "?g wdt:P31 ?h }")


@pytest.fixture(scope="module")
def demo_kb(demo_mirror_path: Path) -> Iterator[MirrorKB]:
    base = MirrorKB(demo_mirror_path)
    yield base
    base.close()


@pytest.fixture(scope="module")
def server(demo_kb: MirrorKB) -> Iterator[SparqlServer]:
    with running(demo_kb, max_rows=1000, timeout=20) as s:
        yield s


@pytest.fixture(scope="module")
def employers(demo_kb: MirrorKB) -> list[str]:
    """Einstein's employers, as the KB answers directly."""
    found = [str(row["o"]) for row in demo_kb.sparql(EMPLOYERS).rows]
    assert len(found) >= 3
    return found


def request(url: str, *, query: str | None = None, method: str = "GET",
            accept: str | None = None, body: bytes | None = None,
            content_type: str | None = None, params: dict[str, str] | None = None,
            headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    """One HTTP request; (status, headers, body) also for error statuses."""
    fields = dict(params or {})
    if query is not None:
        fields["query"] = query
    if method == "GET" or body is not None:
        target = url + ("?" + urllib.parse.urlencode(fields) if fields else "")
    else:   # a form POST
        target = url
        body = urllib.parse.urlencode(fields).encode()
        content_type = content_type or "application/x-www-form-urlencoded"
    req = urllib.request.Request(target, data=body, method=method)
    if accept:
        req.add_header("Accept", accept)
    if content_type:
        req.add_header("Content-Type", content_type)
    for name, value in (headers or {}).items():
        req.add_header(name, value)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), err.read()


# -- the protocol ----------------------------------------------------------------------------

def test_get_json(server: SparqlServer, employers: list[str]) -> None:
    status, headers, body = request(server.url, query=EMPLOYERS,
                                    accept="application/sparql-results+json")
    assert status == 200
    assert headers["Content-Type"].startswith("application/sparql-results+json")
    data = json.loads(body)
    assert data["head"]["vars"] == ["o"]
    assert [b["o"]["value"] for b in data["results"]["bindings"]] == employers
    assert all(b["o"]["type"] == "uri" for b in data["results"]["bindings"])
    assert headers["Access-Control-Allow-Origin"] == "*"
    assert headers.get("X-Kgground-Engine")


@pytest.mark.parametrize("content_type", ["application/x-www-form-urlencoded",
                                          "application/sparql-query"])
def test_post(server: SparqlServer, employers: list[str], content_type: str) -> None:
    if content_type == "application/sparql-query":
        status, _, body = request(server.url, method="POST", body=EMPLOYERS.encode(),
                                  content_type=content_type)
    else:
        status, _, body = request(server.url, query=EMPLOYERS, method="POST")
    assert status == 200
    assert [b["o"]["value"] for b in json.loads(body)["results"]["bindings"]] == employers


def test_xml(server: SparqlServer) -> None:
    status, headers, body = request(server.url, query=LABELS,
                                    accept="application/sparql-results+xml")
    assert status == 200 and "sparql-results+xml" in headers["Content-Type"]
    root = ET.fromstring(body)
    assert [v.get("name") for v in root.iter(f"{RES}variable")] == ["s", "l"]
    results = root.findall(f"{RES}results/{RES}result")
    labels = {}
    for result in results:
        cells = {b.get("name"): b[0] for b in result.findall(f"{RES}binding")}
        assert cells["s"].tag == f"{RES}uri" and cells["s"].text == WD + "Q937"
        assert cells["l"].tag == f"{RES}literal"
        labels[cells["l"].get("{http://www.w3.org/XML/1998/namespace}lang")] = cells["l"].text
    assert labels["en"] == "Albert Einstein"


def test_csv(server: SparqlServer, employers: list[str]) -> None:
    status, headers, body = request(server.url, query=EMPLOYERS, accept="text/csv")
    assert status == 200 and headers["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(body.decode())))
    assert rows[0] == ["o"]
    assert [r[0] for r in rows[1:]] == employers


def test_tsv_parses_back_with_rdflib(server: SparqlServer, demo_kb: MirrorKB) -> None:
    status, headers, body = request(server.url, query=LABELS,
                                    accept="text/tab-separated-values")
    assert status == 200 and headers["Content-Type"].startswith("text/tab-separated-values")
    assert body.decode().splitlines()[0] == "?s\t?l"
    parsed = Result.parse(io.BytesIO(body), format="tsv")
    expected = {(row["s"], row["l"]) for row in demo_kb.sparql(LABELS).rows}
    assert {(row[0], row[1]) for row in parsed} == expected


def test_awkward_literals_survive_every_format(server: SparqlServer) -> None:
    """Tabs, newlines, quotes, commas, markup and typed literals round-trip."""
    query = ('SELECT ?x ?n WHERE { VALUES (?x ?n) { ("a\\tb\\nc \\"q\\", <i>&amp;"@en 7) '
             '("plain" 2.5) } }')
    tricky = Literal('a\tb\nc "q", <i>&amp;', lang="en")
    _, _, body = request(server.url, query=query, accept="application/sparql-results+json")
    first = json.loads(body)["results"]["bindings"][0]
    assert first["x"] == {"type": "literal", "value": str(tricky), "xml:lang": "en"}
    assert first["n"]["datatype"].endswith("#integer")
    for accept in ("application/sparql-results+xml", "text/tab-separated-values"):
        _, _, body = request(server.url, query=query, accept=accept)
        fmt = "xml" if "xml" in accept else "tsv"
        rows = list(Result.parse(io.BytesIO(body), format=fmt))
        assert rows[0][0] == tricky
        assert rows[0][1] == Literal(7) and rows[1][1] == Literal("2.5", datatype=rows[1][1]
                                                                  .datatype)
    _, _, body = request(server.url, query=query, accept="text/csv")
    rows = list(csv.reader(io.StringIO(body.decode(), newline="")))
    assert rows[1] == [str(tricky), "7"]


def test_ask(server: SparqlServer) -> None:
    yes = "ASK { wd:Q937 wdt:P108 ?o }"
    no = "ASK { wd:Q937 wdt:P108 wd:Q42 }"
    assert json.loads(request(server.url, query=yes)[2]) == {"head": {}, "boolean": True}
    assert json.loads(request(server.url, query=no)[2])["boolean"] is False
    _, _, body = request(server.url, query=yes, accept="application/sparql-results+xml")
    assert ET.fromstring(body).find(f"{RES}boolean").text == "true"


def test_construct_by_accept(server: SparqlServer, demo_kb: MirrorKB) -> None:
    query = "CONSTRUCT { ?s rdfs:label ?l } WHERE { VALUES ?s { wd:Q937 } ?s rdfs:label ?l }"
    expected = set(demo_kb.sparql(query).graph)
    assert expected
    for accept, fmt, ctype in (("text/turtle", "turtle", "text/turtle"),
                               ("application/n-triples", "nt", "application/n-triples"),
                               ("application/rdf+xml", "xml", "application/rdf+xml"),
                               ("application/ld+json", "json-ld", "application/ld+json")):
        status, headers, body = request(server.url, query=query, accept=accept)
        assert status == 200 and headers["Content-Type"].startswith(ctype)
        assert set(Graph().parse(data=body, format=fmt)) == expected, accept


def test_describe(server: SparqlServer) -> None:
    status, _, body = request(server.url, query="DESCRIBE wd:Q937")
    assert status == 200
    graph = Graph().parse(data=body, format="turtle")
    assert (URIRef(WD + "Q937"), URIRef("http://www.w3.org/2000/01/rdf-schema#label"),
            Literal("Albert Einstein", lang="en")) in graph


def test_format_parameter_beats_accept(server: SparqlServer) -> None:
    for value, ctype in (("csv", "text/csv"), ("tsv", "text/tab-separated-values"),
                         ("xml", "application/sparql-results+xml"),
                         ("application/sparql-results+json", "application/sparql-results+json")):
        status, headers, _ = request(server.url, query=EMPLOYERS, accept="text/csv",
                                     params={"format": value})
        assert status == 200 and headers["Content-Type"].startswith(ctype), value
    _, headers, _ = request(server.url, query="CONSTRUCT WHERE { wd:Q937 wdt:P108 ?o }",
                            params={"output": "xml"})
    assert headers["Content-Type"].startswith("application/rdf+xml")


def test_accept_negotiation_rules() -> None:
    assert negotiate("table", "text/csv;q=0.5, application/sparql-results+xml").name == "xml"
    assert negotiate("table", "text/html,application/xhtml+xml,*/*;q=0.8").name == "json"
    assert negotiate("table", "text/*").name == "xml"            # text/xml, before CSV
    assert negotiate("table", "text/*, text/xml;q=0").name == "csv"
    assert negotiate("table", "application/json;q=0, */*").name == "json"
    assert negotiate("table", "image/png").name == "json"      # nothing fits: the default
    assert negotiate("graph", "application/sparql-results+json, */*;q=0.1").name == "turtle"
    assert negotiate("graph", "application/xml").content_type.startswith("application/rdf")
    assert negotiate("graph", None, ["json"]).name == "json-ld"
    assert negotiate("table", "text/csv", ["", "bogus", "tsv"]).name == "tsv"
    assert negotiate("table", "text/csv", ["application/sparql-results xml"]).name == "xml"
    assert parse_accept("a/b;q=x, c/d ;level=1;q=0.3") == [("a/b", 1.0), ("c/d", 0.3)]


def test_result_cap(demo_kb: MirrorKB) -> None:
    query = "SELECT ?s WHERE { ?s wdt:P31 wd:Q5 }"
    total = len(demo_kb.sparql(query).rows)
    assert total > 10
    with running(demo_kb, max_rows=10) as capped:
        status, headers, body = request(capped.url, query=query)
        assert status == 200
        assert len(json.loads(body)["results"]["bindings"]) == 10
        assert headers["X-SPARQL-MaxRows"] == "10"
        _, _, body = request(capped.url, query=query, accept="text/csv")
        assert len(body.decode().splitlines()) == 11
        _, headers, body = request(capped.url,
                                   query="CONSTRUCT WHERE { ?s wdt:P31 wd:Q5 }")
        assert headers["X-SPARQL-MaxRows"] == "10"
        assert len(Graph().parse(data=body, format="turtle")) == 10
        _, headers, _ = request(capped.url, query="SELECT ?o WHERE { wd:Q937 wdt:P108 ?o }")
        assert "X-SPARQL-MaxRows" not in headers


def test_timeout_answers_in_time_and_frees_the_worker(demo_kb: MirrorKB) -> None:
    with running(demo_kb, timeout=0.5, workers=1) as slow:
        started = time.monotonic()
        status, _, body = request(slow.url, query=SLOW)
        assert status == 500
        assert b"0.5 s timeout" in body
        assert time.monotonic() - started < 3
        # the one worker was stopped too: the next query is answered promptly
        started = time.monotonic()
        status, _, _ = request(slow.url, query="ASK { wd:Q937 ?p ?o }")
        assert status == 200
        assert time.monotonic() - started < 2


class HeldKB:
    """The demo KB, except that a query waits until the test releases it: a query that
    is running exactly as long as the test needs, whatever the machine's speed."""

    def __init__(self, base: MirrorKB) -> None:
        self.base, self.name = base, base.name
        self.started, self.release = threading.Event(), threading.Event()

    def sparql(self, query: str, *, timeout: float | None = None) -> object:
        self.started.set()
        self.release.wait(30)
        return self.base.sparql(query, timeout=timeout)


def test_busy_server_answers_503_with_retry_after(demo_kb: MirrorKB) -> None:
    held = HeldKB(demo_kb)
    with running(held, timeout=30, workers=1, max_pending=1) as busy:
        answers: list[int] = []
        first = threading.Thread(target=lambda: answers.append(
            request(busy.url, query="ASK { wd:Q937 wdt:P108 ?o }")[0]))
        first.start()
        try:
            assert held.started.wait(10), "the first query never reached the KB"
            status, headers, body = request(busy.url, query="ASK {}")
        finally:
            held.release.set()
            first.join(30)
        assert status == 503
        assert headers["Retry-After"] == "1"
        assert b"busy" in body
        assert answers == [200]                 # the query holding the server was answered


# -- refusals and errors ---------------------------------------------------------------------

@pytest.mark.parametrize("how", ["update-param-get", "update-param-post", "update-body",
                                 "update-in-query"])
def test_update_is_refused(server: SparqlServer, how: str) -> None:
    update = "INSERT DATA { wd:Q937 wdt:P108 wd:Q42 }"
    if how == "update-param-get":
        status, headers, body = request(server.url, params={"update": update})
    elif how == "update-param-post":
        status, headers, body = request(server.url, method="POST", params={"update": update})
    elif how == "update-body":
        status, headers, body = request(server.url, method="POST", body=update.encode(),
                                        content_type="application/sparql-update")
    else:
        status, headers, body = request(server.url, query=update, method="POST")
    assert status == 400
    assert headers["Content-Type"].startswith("text/plain")
    assert b"Update" in body and b"read-only" in body
    ask = "ASK { wd:Q937 wdt:P108 wd:Q42 }"
    assert json.loads(request(server.url, query=ask)[2])["boolean"] is False


def test_service_to_other_endpoints_is_refused(server: SparqlServer) -> None:
    query = "SELECT * WHERE { SERVICE <http://example.org/sparql> { ?s ?p ?o } }"
    status, _, body = request(server.url, query=query)
    assert status == 400 and b"SERVICE" in body


def test_syntax_error_gives_the_parser_message(server: SparqlServer) -> None:
    status, headers, body = request(server.url, query="SELECT ?x WHERE { ?x ?y }")
    assert status == 400 and headers["Content-Type"].startswith("text/plain")
    assert b"does not parse" in body and b"line 1" in body


@pytest.mark.parametrize("kwargs,status,text", [
    ({"method": "POST", "body": b"query=ASK{}", "content_type": "text/plain"}, 415,
     b"application/sparql-query"),
    ({"method": "POST", "body": b"", "content_type": "application/sparql-query"}, 400,
     b"empty SPARQL query"),
    ({"method": "POST", "params": {"format": "json"}}, 400, b"no query"),
    ({"method": "PUT", "body": b"x"}, 405, b"read-only"),
    ({"query": "ASK {}", "params": {"query": "ASK {}"}}, 200, b"true"),   # the same, once
])
def test_bad_requests(server: SparqlServer, kwargs: dict, status: int, text: bytes) -> None:
    got, _, body = request(server.url, **kwargs)
    assert got == status
    assert text in body


def test_two_queries_and_unknown_path(server: SparqlServer) -> None:
    url = server.url + "?" + urllib.parse.urlencode([("query", "ASK {}"), ("query", "ASK {}")])
    status, _, body = request(url)
    assert status == 400 and b"exactly one" in body
    status, _, body = request(server.url.replace("/sparql", "/nope"), query="ASK {}")
    assert status == 404 and b"/sparql" in body


def test_oversized_body_is_refused(server: SparqlServer) -> None:
    status, _, body = request(server.url, method="POST", body=b"#" * (2 << 20),
                              content_type="application/sparql-query")
    assert status == 413


def test_cors_preflight(server: SparqlServer) -> None:
    status, headers, _ = request(server.url, method="OPTIONS", headers={
        "Origin": "https://yasgui.triply.cc", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type"})
    assert status == 204
    assert headers["Access-Control-Allow-Origin"] == "*"
    assert "POST" in headers["Access-Control-Allow-Methods"]
    assert headers["Access-Control-Allow-Headers"] == "content-type"
    status, headers, _ = request(server.url, query="ASK {}", headers={"Origin": "http://x"})
    assert headers["Access-Control-Allow-Origin"] == "*"


def test_front_page(server: SparqlServer) -> None:
    for url in (server.url.replace("/sparql", "/"), server.url):
        status, headers, body = request(url, accept="text/html")
        assert status == 200 and headers["Content-Type"].startswith("text/html")
        assert b"SPARQL" in body and server.url.encode() in body
    status, headers, body = request(server.url.replace("/sparql", "/"))
    assert headers["Content-Type"].startswith("text/plain") and b"read-only" in body


def test_keep_alive_and_concurrency(server: SparqlServer, employers: list[str]) -> None:
    """Many clients, each on one keep-alive connection, all get right answers."""
    host, port = server.server_address[:2]
    path = "/sparql?" + urllib.parse.urlencode({"query": EMPLOYERS})
    errors: list[str] = []

    def client() -> None:
        conn = http.client.HTTPConnection(host, port, timeout=30)
        try:
            for _ in range(15):
                conn.request("GET", path, headers={"Accept": "application/json"})
                resp = conn.getresponse()
                data = json.loads(resp.read())
                got = [b["o"]["value"] for b in data["results"]["bindings"]]
                if resp.status != 200 or got != employers:
                    errors.append(f"{resp.status} {got}")
        finally:
            conn.close()

    threads = [threading.Thread(target=client) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert errors == []


# -- clients that must work against it --------------------------------------------------------

def test_sparqlwrapper_json_and_xml(server: SparqlServer, employers: list[str]) -> None:
    from SPARQLWrapper import JSON, POST, XML, SPARQLWrapper

    client = SPARQLWrapper(server.url)
    client.setQuery(EMPLOYERS)
    client.setReturnFormat(JSON)
    data = client.query().convert()
    assert [b["o"]["value"] for b in data["results"]["bindings"]] == employers

    client.setReturnFormat(XML)
    doc = client.query().convert()          # an xml.dom.minidom Document
    assert [u.firstChild.data for u in doc.getElementsByTagName("uri")] == employers

    client.setMethod(POST)
    client.setReturnFormat(JSON)
    client.setQuery("ASK { wd:Q937 wdt:P108 ?o }")
    assert client.query().convert()["boolean"] is True


def test_sparqlwrapper_construct_and_errors(server: SparqlServer) -> None:
    from SPARQLWrapper import JSON, POST, TURTLE, SPARQLWrapper
    from SPARQLWrapper.SPARQLExceptions import QueryBadFormed

    client = SPARQLWrapper(server.url)
    client.setQuery("CONSTRUCT WHERE { wd:Q937 wdt:P108 ?o }")
    client.setReturnFormat(TURTLE)
    graph = Graph().parse(data=client.query().convert(), format="turtle")
    assert len(graph) >= 3

    client.setReturnFormat(JSON)
    client.setQuery("SELECT ?x WHERE { ?x ?y }")
    with pytest.raises(QueryBadFormed, match="does not parse"):
        client.query()
    client.setMethod(POST)
    client.setQuery("DELETE WHERE { ?s ?p ?o }")
    with pytest.raises(QueryBadFormed, match="read-only"):
        client.query()


def test_rdflib_sparqlstore(server: SparqlServer, demo_kb: MirrorKB) -> None:
    from rdflib.plugins.stores.sparqlstore import SPARQLStore

    store = SPARQLStore(server.url)
    graph = Graph(store=store)
    query = ("SELECT ?s ?o WHERE { ?s wdt:P108 ?o . ?s rdfs:label \"Albert Einstein\"@en }")
    rows = {(row.s, row.o) for row in graph.query(query)}
    expected = {(r["s"], r["o"]) for r in demo_kb.sparql(query).rows}
    assert rows == expected and len(rows) >= 3
    ask = graph.query("ASK { wd:Q937 wdt:P108 ?o }")
    assert ask.askAnswer is True
    store.close()


# -- the command --------------------------------------------------------------------------------

def test_cli_help_and_bad_port(demo_mirror_path: Path) -> None:
    from reasoning.cli import cli

    result = CliRunner().invoke(cli, ["serve", "--help"])
    assert result.exit_code == 0
    for option in ("--db", "--host", "--port", "--timeout", "--max-rows", "--workers"):
        assert option in result.output
    with running(MirrorKB(demo_mirror_path)) as taken:
        port = str(taken.server_address[1])
        before = signal.getsignal(signal.SIGTERM)
        result = CliRunner().invoke(cli, ["serve", "--db", str(demo_mirror_path),
                                          "--port", port])
    assert result.exit_code == 1
    assert "cannot listen" in result.output and "--port" in result.output
    # run in process, serve leaves SIGTERM as it found it (forked loaders inherit it)
    assert signal.getsignal(signal.SIGTERM) == before


def test_cli_serves_and_stops_on_sigterm(demo_mirror_path: Path) -> None:
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-c", "from reasoning.cli import main; main()",
                             "serve", "--db", str(demo_mirror_path), "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("SPARQL endpoint: http://127.0.0.1:"), line
        url = line.split()[2]
        status, _, body = request(url, query="ASK { wd:Q937 wdt:P108 ?o }")
        assert status == 200 and json.loads(body)["boolean"] is True
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()


def test_cli_options_reach_the_server(demo_mirror_path: Path) -> None:
    """--timeout, --max-rows and --log as a user passes them, checked by their effects."""
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-c", "from reasoning.cli import main; main()",
                             "serve", "--db", str(demo_mirror_path), "--port", "0",
                             "--timeout", "1", "--max-rows", "3", "--workers", "1",
                             "--log"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert "timeout 1 s, at most 3 rows" in line, line
        url = line.split()[2]
        for _ in range(5):     # a new process's first parse can take a busy machine 1 s
            if request(url, query="ASK { wd:Q937 ?p ?o }")[0] == 200:
                break
        status, headers, body = request(url, query="SELECT ?s WHERE { ?s wdt:P31 wd:Q5 }")
        assert status == 200 and headers["X-SPARQL-MaxRows"] == "3"
        assert len(json.loads(body)["results"]["bindings"]) == 3
        started = time.monotonic()
        status, _, body = request(url, query=SLOW)
        assert status == 500 and b"1 s timeout" in body
        assert time.monotonic() - started < 5
    finally:
        proc.terminate()
        proc.wait(10)
        err = proc.stderr.read()
        proc.stdout.close()
        proc.stderr.close()
    logged = [ln for ln in err.splitlines() if '"GET /sparql?' in ln]
    assert len(logged) >= 3 and " 200 " in logged[-2] and " 500 " in logged[-1]


def _children(pid: int) -> list[int]:
    """The pids of ``pid``'s child processes (Linux /proc)."""
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


def test_cli_processes_share_the_port_and_stop_together(demo_mirror_path: Path) -> None:
    """--processes 2: two server processes answer on one port; SIGTERM stops all; a server
    process that dies stops the command with an error instead of serving half."""
    import subprocess
    import sys

    def start() -> tuple[subprocess.Popen, str]:
        proc = subprocess.Popen([sys.executable, "-c", "from reasoning.cli import main; main()",
                                 "serve", "--db", str(demo_mirror_path), "--port", "0",
                                 "--processes", "2", "--workers", "1"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = proc.stdout.readline()
        assert line.startswith("SPARQL endpoint: http://127.0.0.1:") and \
            "2 processes × 1 workers" in line, line
        return proc, line.split()[2]

    proc, url = start()
    try:
        children = _children(proc.pid)
        assert len(children) == 2
        answers = []
        for _ in range(12):          # new connections: the kernel spreads them
            status, _, body = request(url, query="ASK { wd:Q937 wdt:P108 ?o }")
            answers.append((status, json.loads(body)["boolean"]))
        assert answers == [(200, True)] * 12
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(15) == 0
        assert not [c for c in children if Path(f"/proc/{c}").exists()]   # stopped, reaped
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        proc.stdout.close()
        proc.stderr.close()

    proc, url = start()
    try:
        first, second = _children(proc.pid)
        os.kill(first, signal.SIGKILL)
        assert proc.wait(15) == 1
        assert "a server process stopped" in proc.stderr.read()
        assert not Path(f"/proc/{second}").exists()
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        proc.stdout.close()
        proc.stderr.close()


def test_cli_processes_refuse_a_taken_port(demo_mirror_path: Path) -> None:
    from reasoning.cli import cli

    with running(MirrorKB(demo_mirror_path)) as taken:
        port = str(taken.server_address[1])
        result = CliRunner().invoke(cli, ["serve", "--db", str(demo_mirror_path),
                                          "--port", port, "--processes", "2"])
    assert result.exit_code == 1
    assert "cannot listen" in result.output and "--port" in result.output
