"""Failure paths of the live endpoint client, against a real HTTP server on loopback.

The server (``http.server`` in a thread, 127.0.0.1, a free port) plays a script: one step
per request (an HTTP status with headers and body, or a hang), and records every request
it saw. Each failure must give its typed error, retry exactly as specified (429 and 503
only, at most ``retries`` times), honour Retry-After, and leave the mirror untouched.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from kb.endpoint import SparqlEndpointKB
from kb.fallback import FallbackKB
from kb.mirror import MirrorKB
from kb.sparql_http import parse_retry_after
from store.errors import (EndpointError, EndpointHTTPError, EndpointTimeout,
                          EndpointUnreachable, EntityNotFound, InvalidId, MalformedResult,
                          QueryRefused, RateLimited)
from store.ingest import load
from store.mirror import Mirror

OK_SELECT = {"head": {"vars": ["o"]}, "results": {"bindings": [
    {"o": {"type": "uri", "value": "http://www.wikidata.org/entity/Q9531"}}]}}
JSON = "application/sparql-results+json"


def ok(body: dict | None = None) -> tuple:
    return ("reply", 200, {"Content-Type": JSON}, json.dumps(body or OK_SELECT).encode())


def status(code: int, body: bytes = b"", **headers: str) -> tuple:
    return ("reply", code, {"Content-Type": "text/plain", **headers}, body)


class Stub:
    """The scripted server: ``steps`` are played in order (the last one repeats)."""

    def __init__(self) -> None:
        self.steps: list[tuple] = [ok()]
        self.requests: list[dict] = []
        self.in_flight = self.max_in_flight = 0
        self.delay = 0.0                      # seconds every answer waits (concurrency test)
        self.release = threading.Event()      # ends hanging requests at teardown
        self.lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                stub.handle(self, parse_qs(urlsplit(self.path).query))

            def do_POST(self) -> None:
                size = int(self.headers.get("Content-Length", 0))
                stub.handle(self, parse_qs(self.rfile.read(size).decode()))

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.block_on_close = False
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/sparql"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,),
                                       daemon=True)
        self.thread.start()

    def script(self, *steps: tuple) -> None:
        self.steps = list(steps)
        self.requests.clear()

    def handle(self, h: BaseHTTPRequestHandler, params: dict) -> None:
        with self.lock:
            step = self.steps.pop(0) if len(self.steps) > 1 else self.steps[0]
            self.requests.append({"at": time.monotonic(), "method": h.command,
                                  "headers": dict(h.headers), "params": params})
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        if self.delay:
            time.sleep(self.delay)
        if step[0] == "hang":
            self.release.wait(step[1])
        with self.lock:                   # before answering: the client frees its slot after
            self.in_flight -= 1
        if step[0] == "hang":
            return
        _, code, headers, body = step
        h.send_response(code)
        for k, v in headers.items():
            h.send_header(k, v)
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.write(body)

    def gaps(self) -> list[float]:
        times = [r["at"] for r in self.requests]
        return [b - a for a, b in zip(times, times[1:], strict=False)]

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def stub():
    server = Stub()
    yield server
    server.close()


def endpoint(stub: Stub, tmp_path: Path, **kw) -> SparqlEndpointKB:
    kw.setdefault("retries", 3)
    kw.setdefault("backoff", 0.05)
    kw.setdefault("timeout", 5)
    kw.setdefault("cache", tmp_path / "cache.sqlite")
    return SparqlEndpointKB(stub.url, **kw)


Q = "SELECT ?o WHERE { wd:Q42 wdt:P108 ?o }"


# -- what every request carries -----------------------------------------------------------------

def test_requests_identify_the_client(stub, tmp_path, monkeypatch):
    monkeypatch.setenv("KGGROUND_CONTACT", "ops@example.org")
    kb = endpoint(stub, tmp_path, graph="http://example.org/g")
    assert kb.sparql(Q).values("o")
    (req,) = stub.requests
    agent = req["headers"]["User-Agent"]
    assert agent.startswith("kgground/") and "(ops@example.org)" in agent
    assert "SPARQLWrapper/" in agent and "Python/" in agent
    assert "application/sparql-results+json" in req["headers"]["Accept"]
    assert req["params"]["default-graph-uri"] == ["http://example.org/g"]
    assert "PREFIX wd: <http://www.wikidata.org/entity/>" in req["params"]["query"][0]
    assert "format" not in req["params"] and "output" not in req["params"]
    assert req["method"] == "GET"


LABEL_SERVICE = ("SELECT ?o ?oLabel WHERE { wd:Q42 wdt:P108 ?o . SERVICE wikibase:label "
                 '{ bd:serviceParam wikibase:language "en" } }')


def test_service_only_to_allowed_endpoints(stub, tmp_path):
    with pytest.raises(QueryRefused):
        endpoint(stub, tmp_path).sparql(LABEL_SERVICE)
    assert stub.requests == []
    wdqs = SparqlEndpointKB(cache=False)         # query.wikidata.org runs its label service
    assert "http://wikiba.se/ontology#label" in wdqs.allowed_services
    allowed = endpoint(stub, tmp_path, allowed_services=["http://wikiba.se/ontology#label"])
    assert allowed.sparql(LABEL_SERVICE).rows and len(stub.requests) == 1


def test_long_queries_are_posted(stub, tmp_path):
    kb = endpoint(stub, tmp_path, cache=False)
    values = " ".join(f"wd:Q{i}" for i in range(1, 400))
    kb.sparql(f"SELECT ?o WHERE {{ VALUES ?s {{ {values} }} ?s wdt:P108 ?o }}")
    assert stub.requests[0]["method"] == "POST"


# -- 429 and 503: retried, honouring Retry-After ------------------------------------------------

def test_429_retry_after_is_honoured_then_success(stub, tmp_path):
    stub.script(status(429, b"slow down", **{"Retry-After": "0.3"}),
                status(429, b"slow down", **{"Retry-After": "0.2"}), ok())
    result = endpoint(stub, tmp_path).sparql(Q)
    assert [str(v) for v in result.values("o")] == ["http://www.wikidata.org/entity/Q9531"]
    assert len(stub.requests) == 3
    first, second = stub.gaps()
    assert 0.3 <= first < 0.3 + 0.25 and 0.2 <= second < 0.2 + 0.25


def test_429_gives_rate_limited_after_exactly_the_retries(stub, tmp_path):
    stub.script(status(429, b"Too Many Requests", **{"Retry-After": "0.1"}))
    with pytest.raises(RateLimited) as err:
        endpoint(stub, tmp_path, retries=2).sparql(Q)
    assert len(stub.requests) == 3                   # 1 + 2 retries
    assert err.value.retry_after == pytest.approx(0.1)
    assert "3 attempts" in str(err.value) and err.value.endpoint == stub.url


@pytest.mark.timeout(20)              # waiting the hour out fails here, not after 2 minutes
def test_a_retry_after_too_long_is_not_waited_for(stub, tmp_path):
    stub.script(status(429, **{"Retry-After": "3600"}))
    started = time.monotonic()
    with pytest.raises(RateLimited) as err:
        endpoint(stub, tmp_path, max_retry_wait=10).sparql(Q)
    assert time.monotonic() - started < 1.0
    assert len(stub.requests) == 1 and err.value.retry_after == 3600


@pytest.mark.timeout(20)
def test_a_retry_after_beyond_max_retry_wait_is_not_waited_for_even_with_time_left(stub,
                                                                                 tmp_path):
    stub.script(status(503, **{"Retry-After": "3"}), ok())
    started = time.monotonic()
    with pytest.raises(EndpointHTTPError) as err:
        endpoint(stub, tmp_path, max_retry_wait=1, timeout=30).sparql(Q)
    assert time.monotonic() - started < 1.0
    assert len(stub.requests) == 1 and err.value.retry_after == 3


def test_retry_after_as_an_http_date(stub, tmp_path):
    assert parse_retry_after(formatdate(time.time() + 30, usegmt=True)) == pytest.approx(30, abs=2)
    assert parse_retry_after("garbage") is None and parse_retry_after(None) is None
    stub.script(status(503, **{"Retry-After": formatdate(time.time() - 5, usegmt=True)}), ok())
    assert endpoint(stub, tmp_path).sparql(Q).rows
    assert len(stub.requests) == 2


def test_503_then_success_backs_off_exponentially(stub, tmp_path):
    stub.script(status(503, b"busy"), status(503, b"busy"), status(503, b"busy"), ok())
    assert endpoint(stub, tmp_path, backoff=0.1).sparql(Q).rows
    assert len(stub.requests) == 4
    gaps = stub.gaps()                               # 0.1, 0.2, 0.4 s
    for gap, want in zip(gaps, (0.1, 0.2, 0.4), strict=True):
        assert want <= gap < want + 0.25


def test_503_for_ever_is_an_http_error_with_status(stub, tmp_path):
    stub.script(status(503, b"Service Unavailable: maintenance"))
    with pytest.raises(EndpointHTTPError) as err:
        endpoint(stub, tmp_path, retries=1).sparql(Q)
    assert err.value.status == 503 and "maintenance" in err.value.body
    assert len(stub.requests) == 2


# -- errors that are not retried ----------------------------------------------------------------

def test_500_with_a_body_is_an_http_error_not_retried(stub, tmp_path):
    body = b"Virtuoso 42000 Error SR186:SECURITY: No permission to execute procedure"
    stub.script(status(500, body))
    with pytest.raises(EndpointHTTPError) as err:
        endpoint(stub, tmp_path).sparql(Q)
    assert err.value.status == 500 and "SECURITY" in err.value.body
    assert "SECURITY" in str(err.value)
    assert len(stub.requests) == 1


@pytest.mark.parametrize("code", [400, 404, 502])
def test_other_statuses_keep_status_and_body(stub, tmp_path, code):
    stub.script(status(code, f"problem {code} here".encode()))
    with pytest.raises(EndpointHTTPError) as err:
        endpoint(stub, tmp_path).sparql(Q)
    assert err.value.status == code and f"problem {code}" in err.value.body
    assert len(stub.requests) == 1


def test_a_long_body_is_cut_to_an_excerpt(stub, tmp_path):
    stub.script(status(500, b"x" * 100_000))
    with pytest.raises(EndpointHTTPError) as err:
        endpoint(stub, tmp_path).sparql(Q)
    assert len(err.value.body) < 400


def test_endpoint_side_timeout_is_a_timeout(stub, tmp_path):
    stub.script(status(500, b"java.util.concurrent.TimeoutException at com.bigdata..."))
    with pytest.raises(EndpointTimeout):
        endpoint(stub, tmp_path).sparql(Q)
    assert len(stub.requests) == 1


def test_hanging_past_the_timeout_is_a_timeout(stub, tmp_path):
    stub.script(("hang", 10))
    started = time.monotonic()
    with pytest.raises(EndpointTimeout) as err:
        endpoint(stub, tmp_path, timeout=0.4).sparql(Q)
    elapsed = time.monotonic() - started
    assert 0.4 <= elapsed < 1.5, elapsed
    assert "0.4 s" in str(err.value)
    assert len(stub.requests) == 1                   # a timeout is not retried


@pytest.mark.parametrize("body,ctype", [
    (b'{"head": {"vars": ["o"]}, "results": {"bindings": [', JSON),      # cut off
    (b"<html><body>Welcome to our portal</body></html>", "text/html"),  # not an endpoint
    (b'{"head": {"vars": ["o"]}}', JSON),                              # no results
    (b'{"head": {"vars": ["o"]}, "results": {"bindings": [{"o": {"type": "uri"}}]}}', JSON),
    (b"[1, 2, 3]", JSON),
])
def test_malformed_answers(stub, tmp_path, body, ctype):
    stub.script(("reply", 200, {"Content-Type": ctype}, body))
    with pytest.raises(MalformedResult) as err:
        endpoint(stub, tmp_path).sparql(Q)
    assert "SPARQL JSON" in str(err.value)
    assert len(stub.requests) == 1


def test_malformed_turtle_for_construct(stub, tmp_path):
    stub.script(("reply", 200, {"Content-Type": "text/turtle"}, b"this is not turtle ."))
    with pytest.raises(MalformedResult):
        endpoint(stub, tmp_path).sparql("CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }")
    assert "text/turtle" in stub.requests[0]["headers"]["Accept"]


def test_closed_port_is_unreachable_at_once(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    kb = SparqlEndpointKB(f"http://127.0.0.1:{port}/sparql", cache=False, retries=3)
    started = time.monotonic()
    with pytest.raises(EndpointUnreachable) as err:
        kb.sparql(Q)
    assert time.monotonic() - started < 1.0
    assert "--offline" in str(err.value)


def test_errors_are_not_cached(stub, tmp_path):
    kb = endpoint(stub, tmp_path)
    stub.script(status(500, b"boom"), ok())
    with pytest.raises(EndpointHTTPError):
        kb.sparql(Q)
    assert kb.sparql(Q).engine == "endpoint"
    assert kb.sparql(Q).engine == "cache"
    assert len(stub.requests) == 2


INJECTIONS = ['http://example.org/a> ?p ?o } INSERT DATA { <http://x/y> <http://x/z> "w"',
              'http://example.org/a>}DROP{<x', 'http://example.org/"a"',
              "http://example.org/a>{}", "Q42> } #"]


@pytest.mark.parametrize("bad", INJECTIONS)
def test_ids_that_could_inject_sparql_are_refused_before_sending(stub, tmp_path, bad):
    kb = endpoint(stub, tmp_path, cache=False)
    for call in (lambda: kb.entity(bad), lambda: kb.statements(bad),
                 lambda: kb.statements("Q42", bad), lambda: kb.statements(value=bad),
                 lambda: kb.property_info(bad)):
        with pytest.raises(InvalidId):
            call()
    assert stub.requests == []


def test_search_text_is_sent_as_an_escaped_literal(stub, tmp_path):
    stub.script(ok({"head": {"vars": ["item"]}, "results": {"bindings": []}}))
    kb = endpoint(stub, tmp_path, cache=False)
    assert kb.search('Belgium" } INSERT DATA { <a> <b> <c> } #') == []
    sent = " ".join(r["params"]["query"][0] for r in stub.requests)
    assert '"Belgium\\" } INSERT DATA { <a> <b> <c> } #"' in sent
    assert sent.count("INSERT DATA") == sent.count('\\" } INSERT DATA')


@pytest.mark.parametrize("failure,error", [
    (status(500, b"internal error"), EndpointHTTPError),
    (status(429, **{"Retry-After": "0.01"}), RateLimited),
    (("hang", 10), EndpointTimeout),
    (("reply", 200, {"Content-Type": JSON}, b"{oops"), MalformedResult),
])
def test_every_failure_is_an_endpoint_error_and_a_clear_cli_message(stub, tmp_path, run,
                                                                    failure, error):
    stub.script(failure)
    with pytest.raises(EndpointError) as err:
        endpoint(stub, tmp_path, retries=0, timeout=0.3).statements("Q42", "P108")
    assert type(err.value) is error and stub.url in str(err.value)
    if failure[0] == "hang":
        return                           # the command line has no timeout option to shorten
    stub.script(failure)
    result = run("triples", "-s", "Q42", "-p", "P108", "--endpoint", stub.url, "--no-cache")
    assert result.exit_code == 1 and result.output.startswith("Error: ")
    assert stub.url in result.output


# -- the concurrency cap ------------------------------------------------------------------------

def test_at_most_five_queries_in_flight_per_endpoint(stub, tmp_path):
    stub.delay = 0.2
    first = endpoint(stub, tmp_path, cache=False)
    second = endpoint(stub, tmp_path, cache=False,      # same URL and limits: one cap
                      limits=first.client.limits)
    errors: list[BaseException] = []

    def ask(kb: SparqlEndpointKB, i: int) -> None:
        try:
            kb.sparql(f"SELECT ?o WHERE {{ wd:Q{i} wdt:P108 ?o }}")
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=ask, args=(first if i % 2 else second, i + 1))
               for i in range(12)]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - started
    assert not errors
    assert len(stub.requests) == 12
    assert stub.max_in_flight == 5
    assert elapsed >= 3 * 0.2                         # 12 queries in waves of at most 5


def wait_for(condition, timeout: float = 10.0) -> bool:
    """Poll ``condition()`` until it holds (True) or ``timeout`` seconds pass (False)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_waiting_too_long_for_a_slot_is_a_timeout(stub, tmp_path):
    stub.script(("hang", 10))
    kb = endpoint(stub, tmp_path, cache=False, timeout=1.0, max_concurrency=1)
    outcome: list[BaseException] = []

    def hold() -> None:
        try:
            kb.sparql(Q)
        except BaseException as exc:  # noqa: BLE001 - checked below
            outcome.append(exc)
    holder = threading.Thread(target=hold)
    holder.start()
    assert wait_for(lambda: len(stub.requests) == 1), "the first query was never sent"
    started = time.monotonic()
    with pytest.raises(EndpointTimeout, match="no free query slot within 0.2 s"):
        SparqlEndpointKB(stub.url, cache=False, timeout=0.2, max_concurrency=1,
                         limits=kb.client.limits).sparql(Q + " LIMIT 1")
    assert 0.2 <= time.monotonic() - started < 1.0        # it waited for the slot, then gave up
    holder.join(10)
    assert len(stub.requests) == 1                          # the second query was never sent
    assert len(outcome) == 1 and isinstance(outcome[0], EndpointTimeout)
    assert "no free query slot" not in str(outcome[0])      # the holder timed out on the wire


# -- failures behind a FallbackKB lose nothing --------------------------------------------------

WD, WDT = "http://www.wikidata.org/entity/", "http://www.wikidata.org/prop/direct/"
NT = (f'<{WD}Q42> <http://www.w3.org/2000/01/rdf-schema#label> "Douglas Adams"@en .\n'
      f"<{WD}Q42> <{WDT}P31> <{WD}Q5> .\n")


def counts(path: Path) -> tuple[int, ...]:
    with Mirror(path) as m:
        return tuple(m.query(f"SELECT COUNT(*) FROM {t}")[0][0]
                     for t in ("sources", "entities", "terms", "statements"))


@pytest.fixture
def small_mirror(tmp_path) -> Path:
    src = tmp_path / "small.nt"
    src.write_text(NT)
    path = tmp_path / "small.sqlite"
    with Mirror(path, create=True) as m:
        load(m, src)
    return path


@pytest.mark.parametrize("failure,error", [
    (status(500, b"internal error"), EndpointHTTPError),
    (status(429, **{"Retry-After": "0.05"}), RateLimited),
    (("hang", 10), EndpointTimeout),
    (("reply", 200, {"Content-Type": JSON}, b"{oops"), MalformedResult),
])
def test_failures_lose_nothing_already_written(stub, tmp_path, small_mirror, failure, error):
    live = endpoint(stub, tmp_path, cache=False, retries=1, timeout=0.5)
    kb = FallbackKB(MirrorKB(small_mirror), live)
    stub.script(ok())
    (fetched,) = kb.statements("Q42", "P108")         # a miss, fetched and written back
    assert fetched.value.value == "Q9531"
    before = counts(small_mirror)
    stub.script(failure)
    with pytest.raises(error):
        kb.statements("Q42", "P69")                  # another miss; the endpoint fails
    assert counts(small_mirror) == before
    offline = FallbackKB(MirrorKB(small_mirror), live, offline=True)
    (again,) = offline.statements("Q42", "P108")
    assert again.value.value == "Q9531" and again.citation.live
    assert again.citation.source == f"sparql:{stub.url}"
    assert offline.entity("Q42").label() == "Douglas Adams"


def test_unreachable_turns_the_live_side_off_without_hanging(tmp_path, small_mirror):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    live = SparqlEndpointKB(f"http://127.0.0.1:{port}/sparql", cache=False)
    kb = FallbackKB(MirrorKB(small_mirror), live)
    assert kb.entity("Q42").label() == "Douglas Adams"        # local: no network needed
    with pytest.raises(EndpointUnreachable):
        kb.entity("Q31")
    started = time.monotonic()
    with pytest.raises(EndpointUnreachable, match="not asked: it was unreachable"):
        kb.statements("Q31", "P36")
    assert time.monotonic() - started < 0.05
    assert kb.live_off_reason().startswith("it was unreachable")


def test_offline_answers_misses_from_the_mirror_with_a_clear_message(stub, tmp_path,
                                                                     small_mirror):
    kb = FallbackKB(MirrorKB(small_mirror), endpoint(stub, tmp_path), offline=True)
    with pytest.raises(EntityNotFound, match=r"live endpoint is off: offline mode \(--offline\)"):
        kb.entity("Q31")
    assert kb.statements("Q31", "P36") == []
    assert kb.search("Belgium") == []
    assert stub.requests == []                       # nothing was sent
