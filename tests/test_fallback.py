"""FallbackKB: a small mirror built here, backed by the real Virtuoso holding the slice.

A miss is fetched from the endpoint, written back with provenance (a ``sources`` row of
format 'live'), and served from the mirror the next time — even with the live side off.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from kb.endpoint import SparqlEndpointKB
from kb.fallback import FallbackKB
from kb.mirror import MirrorKB
from kb.types import SparqlResult
from store.errors import EntityNotFound, UnsupportedQuery
from store.ingest import load
from store.mirror import Mirror

WD, WDT = "http://www.wikidata.org/entity/", "http://www.wikidata.org/prop/direct/"
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
NT = (f'<{WD}Q42> <{LABEL}> "Douglas Adams"@en .\n'
      f"<{WD}Q42> <{WDT}P31> <{WD}Q5> .\n"
      f'<{WD}Q5> <{LABEL}> "human"@en .\n')


@pytest.fixture
def mirror_path(tmp_path) -> Path:
    src = tmp_path / "small.nt"
    src.write_text(NT)
    path = tmp_path / "small.sqlite"
    with Mirror(path, create=True) as m:
        load(m, src)
    return path


@pytest.fixture
def live(virtuoso, tmp_path) -> SparqlEndpointKB:
    url, graph = virtuoso
    return SparqlEndpointKB(url, graph=graph, cache=tmp_path / "cache.sqlite")


def live_sources(path: Path) -> list[dict]:
    with Mirror(path) as m:
        return [s for s in m.sources() if s["format"] == "live"]


def offline(path: Path) -> FallbackKB:
    return FallbackKB(MirrorKB(path), None)


def test_a_missing_entity_is_fetched_written_back_and_then_local(mirror_path, live):
    kb = FallbackKB(MirrorKB(mirror_path), live)
    assert kb.entity("Q42").label() == "Douglas Adams"
    assert kb.last_served_by == f"mirror:{mirror_path}"
    assert live_sources(mirror_path) == []

    before = dt.datetime.now(dt.UTC).replace(microsecond=0)
    belgium = kb.entity("Q31")
    assert belgium.label() == "Belgium" and kb.last_served_by == live.name
    (src,) = live_sources(mirror_path)
    assert src["location"] == live.url and src["status"] == "complete"
    assert dt.datetime.fromisoformat(src["loaded_at"]) >= before

    local = offline(mirror_path)
    again = local.entity("Q31")
    assert local.last_served_by == f"mirror:{mirror_path}"
    assert again.labels == belgium.labels
    assert {k: set(v) for k, v in again.aliases.items()} == \
        {k: set(v) for k, v in belgium.aliases.items()}
    assert kb.entity("Q31").labels == belgium.labels       # no second fetch
    assert kb.last_served_by == f"mirror:{mirror_path}"
    assert len(live_sources(mirror_path)) == 1


def test_an_empty_triplet_query_is_fetched_and_cited(mirror_path, live):
    kb = FallbackKB(MirrorKB(mirror_path), live)
    (fetched,) = kb.statements("Q42", "P108")
    assert fetched.value.value == "Q9531" and kb.last_served_by == live.name
    assert fetched.citation.source == f"sparql:{live.url}"

    local = offline(mirror_path)
    (again,) = local.statements("Q42", "P108")
    assert local.last_served_by == f"mirror:{mirror_path}"
    assert again.triple == fetched.triple
    # served from the mirror, still cited to where the fact came from, when it was read
    (src,) = live_sources(mirror_path)
    assert again.citation.source == f"sparql:{live.url}"
    assert again.citation.retrieved_at == src["loaded_at"] == fetched.citation.retrieved_at

    # the mirror's own data answers a broader question by itself
    own = kb.statements("Q42")
    assert {s.property for s in own} == {"P31", "P108"} and kb.last_served_by.startswith(
        "mirror:")


def test_a_partial_write_back_does_not_hide_the_rest(mirror_path, live):
    kb = FallbackKB(MirrorKB(mirror_path), live)
    assert [s.value.value for s in kb.statements("Q31", "P36")] == ["Q239"]
    everything = kb.statements("Q31")            # only live rows locally, never asked: fetch
    assert kb.last_served_by == live.name and len(everything) > 1
    assert kb.statements("Q31") and kb.last_served_by.startswith("mirror:")
    assert len(kb.statements("Q31", limit=2)) == 2 and kb.last_served_by.startswith("mirror:")


def test_empty_live_answers_are_remembered(mirror_path, live):
    kb = FallbackKB(MirrorKB(mirror_path), live)
    assert kb.statements("Q42", "P69") == [] and kb.last_served_by == live.name
    assert kb.statements("Q42", "P69") == [] and kb.last_served_by.startswith("mirror:")


def test_search_and_property_info_fall_back(mirror_path, live):
    kb = FallbackKB(MirrorKB(mirror_path), live)
    found = kb.search("Belgium")
    assert found[0].id == "Q31" and kb.last_served_by == live.name
    local = offline(mirror_path)
    assert "Q31" in {c.id for c in local.search("belgium")}  # now in the mirror's label index
    info = kb.property_info("P108")
    assert (info.label, info.datatype) == ("employer", "wikibase-item")
    assert local.property_info("P108").datatype == "wikibase-item"
    assert local.last_served_by.startswith("mirror:")
    # a term-only write-back is not a whole entity: entity() still asks the endpoint
    whole = kb.entity("Q31")
    assert kb.last_served_by == live.name and "Kingdom of Belgium" in whole.aliases["en"]


def test_unknown_everywhere(mirror_path, live):
    kb = FallbackKB(MirrorKB(mirror_path), live)
    with pytest.raises(EntityNotFound):
        kb.entity("Q999999999")
    assert live_sources(mirror_path) == []


def test_sparql_local_first_then_live_for_what_the_mirror_cannot_answer(mirror_path, live):
    kb = FallbackKB(MirrorKB(mirror_path), live)
    local = kb.sparql("SELECT ?c WHERE { wd:Q42 wdt:P31 ?c }")
    assert local.source.startswith("mirror:") and len(local) == 1

    class SelectOnlyMirror(MirrorKB):
        """A mirror whose SPARQL engine answers SELECT only (as an engine without a
        CONSTRUCT path would)."""
        def sparql(self, query: str, *, timeout: float | None = None) -> SparqlResult:
            if "CONSTRUCT" in query:
                raise UnsupportedQuery("this engine answers SELECT only")
            return super().sparql(query, timeout=timeout)

    kb = FallbackKB(SelectOnlyMirror(mirror_path), live)
    out = kb.sparql("CONSTRUCT { wd:Q42 ?p ?o } WHERE { wd:Q42 ?p ?o }")
    assert out.source == f"sparql:{live.url}" and len(out.graph) == 4   # label + 3 wdt:
    assert "the mirror cannot answer this query (this engine answers SELECT only)" in out.explain
    with pytest.raises(UnsupportedQuery, match="live endpoint is off"):
        FallbackKB(SelectOnlyMirror(mirror_path), live, offline=True).sparql(
            "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }")


def test_write_back_into_the_demo_mirror(demo_mirror_path, tmp_path, live):
    path = tmp_path / "demo-copy.sqlite"
    path.write_bytes(Path(demo_mirror_path).read_bytes())
    kb = FallbackKB(MirrorKB(path), live)
    assert kb.entity("Q937").label() == "Albert Einstein"   # the demo KB holds Einstein
    assert kb.last_served_by.startswith("mirror:")
    (emp,) = kb.statements("Q42", "P108")
    assert emp.value.value == "Q9531"
    assert offline(path).statements("Q42", "P108")[0].value.value == "Q9531"
