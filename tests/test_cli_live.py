"""--endpoint, --offline and --no-cache on the real read commands (``entity``, ``search``,
``triples``, ``sparql``), run as a user would.

The live endpoint is kgground's own SPARQL server on loopback serving the demo KB (every
machine has it); the mirror is a small one that knows Marie Curie only. The last test runs
the same against Virtuoso holding the real slice, when it is running.
"""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest

from kb.endpoint import SparqlEndpointKB
from kb.fallback import FallbackKB
from kb.mirror import MirrorKB
from reasoning.cli.common import endpoint_url, open_kb
from store.ingest import load
from store.mirror import Mirror
from tests.conftest import LoopbackEndpoint

WD, WDT = "http://www.wikidata.org/entity/", "http://www.wikidata.org/prop/direct/"
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"


@pytest.fixture(autouse=True)
def no_env(monkeypatch, tmp_path):
    for var in ("KGGROUND_DB", "KGGROUND_ENDPOINT"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("KGGROUND_SPARQL_CACHE", str(tmp_path / "answers.sqlite"))


@pytest.fixture
def local(tmp_path) -> str:
    src = tmp_path / "local.nt"
    src.write_text(f'<{WD}Q7186> <{LABEL}> "Marie Curie"@en .\n'
                   f"<{WD}Q7186> <{WDT}P31> <{WD}Q5> .\n")
    path = tmp_path / "local.sqlite"
    with Mirror(path, create=True) as m:
        load(m, src)
    return str(path)


def test_what_the_options_open(demo_mirror_path):
    db = str(demo_mirror_path)
    assert isinstance(open_kb(db, None), MirrorKB)
    both = open_kb(db, "http://127.0.0.1:9/sparql", offline=True, no_cache=True)
    assert isinstance(both, FallbackKB) and both.offline and both.live.cache is None
    alone = open_kb(None, "wikidata", no_cache=True)
    assert isinstance(alone, SparqlEndpointKB)
    assert alone.url == "https://query.wikidata.org/sparql"
    with pytest.raises(click.UsageError, match="--offline with --endpoint and no mirror"):
        open_kb(None, "http://127.0.0.1:9/sparql", offline=True)
    with pytest.raises(click.BadParameter):
        endpoint_url("ftp://example.org/sparql")


def test_entity_fetches_a_miss_marks_it_live_and_keeps_it(run, local,
                                                          demo_endpoint: LoopbackEndpoint):
    url = demo_endpoint.url
    before = demo_endpoint.asked()
    shown = run("entity", "Q937", "--db", local, "--endpoint", url, "--no-cache")
    assert shown.exit_code == 0, shown.output
    assert "Q937  Albert Einstein" in shown.output
    assert f"live, from {url}" in shown.output            # where the facts came from
    assert demo_endpoint.asked() > before
    asked = demo_endpoint.asked()
    kept = run("entity", "Q937", "--db", local, "--offline", "--endpoint", url)
    assert kept.exit_code == 0 and "Q937  Albert Einstein" in kept.output
    assert f"live, from {url}" in kept.output             # still marked, from the mirror
    assert demo_endpoint.asked() == asked


def test_entity_offline_asks_nobody(run, local, demo_endpoint: LoopbackEndpoint):
    asked = demo_endpoint.asked()
    miss = run("entity", "Q937", "--db", local, "--endpoint", demo_endpoint.url, "--offline")
    assert miss.exit_code == 1
    assert "live endpoint is off: offline mode (--offline)" in miss.output
    assert demo_endpoint.asked() == asked
    here = run("entity", "Q7186", "--db", local, "--endpoint", demo_endpoint.url, "--offline",
               "--json")
    assert json.loads(here.stdout)["labels"]["en"] == "Marie Curie"


def test_search_falls_back_unless_offline(run, local, demo_endpoint: LoopbackEndpoint):
    url, asked = demo_endpoint.url, demo_endpoint.asked()
    off = run("search", "Albert Einstein", "--db", local, "--endpoint", url, "--offline")
    assert off.exit_code == 0 and "no entity matches 'Albert Einstein'" in off.stderr
    assert demo_endpoint.asked() == asked
    found = json.loads(run("search", "Albert Einstein", "--db", local, "--endpoint", url,
                           "--no-cache", "--json").stdout)
    assert found[0]["id"] == "Q937" and found[0]["source"] == f"sparql:{url}"
    kept = json.loads(run("search", "albert einstein", "--db", local, "--json").stdout)
    assert kept[0]["id"] == "Q937"                         # written back into the mirror


def test_triples_fall_back_unless_offline(run, local, demo_endpoint: LoopbackEndpoint):
    url, asked = demo_endpoint.url, demo_endpoint.asked()
    off = run("triples", "-s", "Q937", "-p", "P69", "--db", local, "--endpoint", url,
              "--offline", "--json")
    assert json.loads(off.stdout) == [] and demo_endpoint.asked() == asked
    rows = json.loads(run("triples", "-s", "Q937", "-p", "P69", "--db", local, "--endpoint",
                          url, "--no-cache", "--json").stdout)
    assert {r["value"]["value"] for r in rows} == {"Q11942", "Q206702"}
    assert {r["citation"]["source"] for r in rows} == {f"sparql:{url}"}
    kept = json.loads(run("triples", "-s", "Q937", "-p", "P69", "--db", local,
                          "--json").stdout)
    assert {r["value"]["value"] for r in kept} == {"Q11942", "Q206702"}


def test_the_endpoint_alone_and_from_the_environment(run, monkeypatch,
                                                     demo_endpoint: LoopbackEndpoint):
    url = demo_endpoint.url
    alone = run("triples", "-s", "Q937", "-p", "P69", "--endpoint", url, "--no-cache",
                "--json")
    assert {r["citation"]["source"] for r in json.loads(alone.stdout)} == {f"sparql:{url}"}
    assert run("entity", "Q999999999", "--endpoint", url).exit_code == 1
    monkeypatch.setenv("KGGROUND_ENDPOINT", url)
    found = json.loads(run("search", "Albert Einstein", "--json").stdout)
    assert found[0]["id"] == "Q937" and found[0]["source"] == f"sparql:{url}"
    assert run("search", "Albert Einstein", "--offline").exit_code == 2   # no mirror named


def test_sparql_through_the_endpoint(run, demo_endpoint: LoopbackEndpoint):
    out = run("sparql", "SELECT ?o WHERE { wd:Q937 wdt:P69 ?o }", "--endpoint",
              demo_endpoint.url, "--no-cache", "--format", "json")
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert {b["o"]["value"] for b in data["results"]["bindings"]} == \
        {WD + "Q11942", WD + "Q206702"}


def test_endpoint_behind_a_mirror_and_alone(run, virtuoso, demo_mirror_path, tmp_path):
    url, _ = virtuoso        # without a graph, Virtuoso answers over all its graphs
    copy = tmp_path / "demo.sqlite"
    copy.write_bytes(Path(demo_mirror_path).read_bytes())
    db = str(copy)
    assert "Q937  Albert Einstein" in run("entity", "Q937", "--db", db, "--endpoint",
                                          url).output   # the demo mirror has it
    before = run("entity", "Q9531", "--db", db, "--offline")
    assert before.exit_code == 1 and "live endpoint is off" not in before.output
    fetched = run("entity", "Q9531", "--db", db, "--endpoint", url)
    assert "Q9531  BBC" in fetched.output and f"live, from {url}" in fetched.output
    assert "Q9531  BBC" in run("entity", "Q9531", "--db", db, "--offline").output
    alone = run("entity", "Q31", "--endpoint", url, "--no-cache")
    assert "Q31  Belgium" in alone.output
    missing = run("entity", "Q999999999", "--endpoint", url)
    assert missing.exit_code == 1 and "Q999999999 is not in sparql:" in missing.output
