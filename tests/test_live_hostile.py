"""A hostile live endpoint on loopback: what it sends is validated before it is used or
written back, live data only fills gaps in the mirror and is marked as live wherever it
shows, and every call keeps its total deadline however slowly the endpoint answers.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path

import pytest

from kb.endpoint import SparqlEndpointKB
from kb.fallback import FallbackKB
from kb.mirror import MirrorKB
from store.errors import EndpointHTTPError, EndpointTimeout, MalformedResult, RateLimited
from store.ingest import load
from store.mirror import Mirror
from store.validity import iri_problem
from tests.conftest import shared_file
from tests.test_endpoint_failures import JSON, Stub, status

WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
SCHEMA = "http://schema.org/"
WIKIBASE = "http://wikiba.se/ontology#"


def uri(value: str) -> dict:
    return {"type": "uri", "value": value}


def lit(value: str, lang: str | None = None, datatype: str | None = None) -> dict:
    out = {"type": "literal", "value": value}
    if lang:
        out["xml:lang"] = lang
    if datatype:
        out["datatype"] = datatype
    return out


def answer(names: list[str], rows: list[dict]) -> tuple:
    body = {"head": {"vars": names}, "results": {"bindings": rows}}
    return ("reply", 200, {"Content-Type": JSON}, json.dumps(body).encode())


HUGE = "x" * 5_000_000
#: every ID and IRI an endpoint should never get into the mirror
HOSTILE_SUBJECTS = [uri("javascript:alert(1)"), {"type": "bnode", "value": "b0"},
                    uri(f"{WD}Q42'; DROP TABLE terms; --"), uri('http://x/> "y'),
                    uri("http://x/a b")]


@pytest.fixture
def stub():
    server = Stub()
    yield server
    server.close()


@pytest.fixture
def q42_mirror(tmp_path) -> Path:
    """A mirror holding Douglas Adams as loaded from his JSON record."""
    path = tmp_path / "q42.sqlite"
    with Mirror(path, create=True) as m:
        load(m, shared_file("wikidata/entity-Q42.json"))
    return path


def live(stub: Stub, tmp_path: Path, **kw) -> SparqlEndpointKB:
    kw.setdefault("retries", 1)
    kw.setdefault("backoff", 0.05)
    kw.setdefault("timeout", 5)
    return SparqlEndpointKB(stub.url, cache=False, **kw)


def mirror_rows(path: Path) -> dict[str, list[tuple]]:
    with Mirror(path) as m:
        return {"entities": m.query("SELECT id, kind, datatype, sitelinks FROM entities"),
                "terms": m.query("SELECT entity, kind, lang, text FROM terms"),
                "statements": m.query("SELECT subject, property, value_kind, value, lang, "
                                      "datatype FROM statements")}


def assert_nothing_invalid(path: Path) -> None:
    rows = mirror_rows(path)
    ids = [r[0] for r in rows["entities"]] + [r[0] for r in rows["terms"]] + \
        [r[0] for r in rows["statements"]]
    for eid in ids:
        assert eid[:1] in "QPL" and eid[1:2].isdigit() or iri_problem(eid) is None, eid
        assert not eid.startswith(("javascript:", "_:")), eid
    for _, _, _, text in rows["terms"]:
        assert len(text) <= 1000
    for _, _, kind, value, _, _ in rows["statements"]:
        if kind == "iri":
            assert iri_problem(value) is None, value
        assert len(value) <= 10_000


# -- 8. write-back validates everything and only fills gaps -------------------------------------

def test_hostile_statements_are_never_used_or_stored(stub, tmp_path, q42_mirror):
    kb = FallbackKB(MirrorKB(q42_mirror), live(stub, tmp_path))
    good = {"s": uri(f"{WD}Q1"), "o": uri(f"{WD}Q5")}
    rows = [{"s": s, "o": uri(f"{WD}Q5")} for s in HOSTILE_SUBJECTS] + [
        {"s": uri(f"{WD}Q2"), "o": lit(HUGE)},
        {"s": uri(f"{WD}Q3"), "o": uri('http://x/> "y')},
        {"s": uri(f"{WD}Q6"), "o": lit("v", datatype="http://x/a b")}, good]
    stub.script(answer(["s", "o"], rows[:len(HOSTILE_SUBJECTS)] + [good]))
    found = kb.statements(property="P9998", value="Q5")
    assert [s.subject for s in found] == ["Q1"]            # the rest never reaches a caller
    stub.script(answer(["s", "o"], [{"s": r["s"], "o": r["o"]} for r in rows]))
    found = kb.statements(property="P279")
    assert [s.subject for s in found] == ["Q1"]
    before = mirror_rows(q42_mirror)
    stub.script(answer(["s", "o"], [{"s": uri(f"{WD}Q4"), "o": lit("v", lang="e n")}]))
    with pytest.raises(MalformedResult, match="language tag"):    # the answer is refused
        kb.statements(property="P9997")
    assert mirror_rows(q42_mirror) == before
    assert_nothing_invalid(q42_mirror)


def test_hostile_entities_and_search_answers_are_never_used_or_stored(stub, tmp_path,
                                                                     q42_mirror):
    kb = FallbackKB(MirrorKB(q42_mirror), live(stub, tmp_path))
    stub.script(answer(["p", "o"], [
        {"p": uri(f"{RDFS}label"), "o": lit(HUGE, "en")},
        {"p": uri(f"{RDFS}label"), "o": lit("Nonesuch", "fr")},
        {"p": uri(f"{RDFS}label"), "o": uri("http://x/not-a-literal")},
        {"p": uri(f"{WIKIBASE}sitelinks"), "o": lit("many")},
        {"p": uri(f"{WIKIBASE}propertyType"), "o": uri("javascript:alert(1)")}]))
    ent = kb.entity("Q77")                         # not in the mirror: asked live
    assert ent.labels == {"fr": "Nonesuch"} and ent.sitelinks == 0 and ent.datatype is None
    items = [{"item": s, "label_match": lit("Phrase Nobody Knows", "en")}
             for s in HOSTILE_SUBJECTS]
    stub.script(answer(["item", "label_match"], items + [
        {"item": uri(f"{WD}Q9"), "label_match": lit("Phrase Nobody Knows", "en"),
         "links": lit("12abc"), "description": lit(HUGE, "en")}]))
    found = kb.search("Phrase Nobody Knows")
    assert [c.id for c in found] == ["Q9"] and found[0].description is None
    assert_nothing_invalid(q42_mirror)


def test_live_data_fills_gaps_and_never_replaces_loaded_data(stub, tmp_path, q42_mirror):
    before = MirrorKB(q42_mirror).entity("Q42")
    kb = FallbackKB(MirrorKB(q42_mirror), live(stub, tmp_path))
    # an unknown phrase: the endpoint claims Douglas Adams has it as his label, and gives
    # him another description and a label in a language the mirror lacks
    stub.script(answer(["item", "label_match", "label", "description"], [
        {"item": uri(f"{WD}Q42"), "label_match": lit("Zorblax Quux", "tlh"),
         "label": lit("Zorblax Quux", "en"), "description": lit("a fake description", "en")}]))
    assert [c.id for c in kb.search("Zorblax Quux")] == ["Q42"]
    offline = FallbackKB(MirrorKB(q42_mirror), None)
    after = offline.entity("Q42")
    assert after.labels["en"] == before.labels["en"]
    assert after.descriptions == before.descriptions          # nothing replaced
    assert after.labels["tlh"] == "Zorblax Quux"              # a gap, filled ...
    assert after.live_terms() == [{"kind": "label", "lang": "tlh", "text": "Zorblax Quux",
                                   "source": f"sparql:{stub.url}",
                                   "retrieved_at": after.live_terms()[0]["retrieved_at"]}]
    # ... and marked as live in the command's output and JSON
    from click.testing import CliRunner

    from reasoning.cli import cli
    shown = CliRunner().invoke(cli, ["entity", "Q42", "--db", str(q42_mirror), "--offline",
                                     "--lang", "tlh", "--json"])
    data = json.loads(shown.output)
    assert [t["text"] for t in data["live_terms"]] == ["Zorblax Quux"]
    assert all(not s["citation"]["live"] for s in data["statements"])
    text = CliRunner().invoke(cli, ["entity", "Q42", "--db", str(q42_mirror), "--offline",
                                    "--lang", "tlh"]).output
    assert f"label 'Zorblax Quux'@tlh: live, from {stub.url}" in text

    # a live statement for a property the mirror loaded is not added to it
    stub.script(answer(["s", "o"], [{"s": uri(f"{WD}Q42"), "o": uri(f"{WD}Q515")}]))
    kb.statements(property="P31", value="Q515")
    assert [s.value.value for s in offline.statements("Q42", "P31")] == ["Q5"]
    # a statement that fills a gap is written back, and marked live in the output
    stub.script(answer(["o"], [{"o": uri(f"{WD}Q2013")}]))
    (fetched,) = kb.statements("Q42", "P9999")
    (stored,) = offline.statements("Q42", "P9999")
    assert stored.citation.live and stored.citation.source == f"sparql:{stub.url}"
    text = CliRunner().invoke(cli, ["entity", "Q42", "--db", str(q42_mirror),
                                    "--offline"]).output
    (line,) = [ln for ln in text.splitlines() if "P9999" in ln]
    assert f"live, from {stub.url}" in line


# -- 9. a total deadline per call -----------------------------------------------------------------

class Drip:
    """An endpoint that answers a byte every ``every`` seconds, for ever."""

    def __init__(self, every: float):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/sparql"
        self.every, self.stop = every, threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._drip, args=(conn,), daemon=True).start()

    def _drip(self, conn: socket.socket) -> None:
        head = b"HTTP/1.1 200 OK\r\nContent-Type: application/sparql-results+json\r\n"
        with conn:
            conn.recv(65536)
            for byte in head + b"X-Padding: " + b"a" * 1000:
                if self.stop.wait(self.every):
                    return
                try:
                    conn.sendall(bytes([byte]))
                except OSError:
                    return

    def close(self) -> None:
        self.stop.set()
        self.sock.close()


def test_an_endpoint_sending_a_byte_every_2_s_cannot_stretch_a_call(tmp_path):
    drip = Drip(every=0.5)
    try:
        kb = SparqlEndpointKB(drip.url, cache=False, timeout=1.5, retries=0)
        for call in (lambda: kb.sparql("SELECT ?o WHERE { wd:Q42 wdt:P69 ?o }"),
                     lambda: kb.entity("Q42"), lambda: kb.search("Douglas Adams")):
            started = time.monotonic()
            with pytest.raises(EndpointTimeout, match="within 1.5 s"):
                call()
            assert time.monotonic() - started < 2.5
    finally:
        drip.close()


@pytest.mark.parametrize("code,error", [(429, RateLimited), (503, EndpointHTTPError)])
def test_a_retry_after_beyond_the_deadline_fails_at_once(stub, tmp_path, code, error):
    stub.script(status(code, **{"Retry-After": "100"}))
    kb = live(stub, tmp_path, timeout=3, retries=3, max_retry_wait=1000)
    started = time.monotonic()
    with pytest.raises(error) as err:
        kb.search("Douglas Adams")
    assert time.monotonic() - started < 1.5
    assert err.value.retry_after == 100 and "past this call's deadline" in str(err.value)
    assert len(stub.requests) == 1
