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
    douglas = kb.entity("Q42")
    assert douglas.label() == "Douglas Adams"
    assert douglas.source == f"mirror:{mirror_path}" and douglas.live_terms() == []
    assert live_sources(mirror_path) == []

    before = dt.datetime.now(dt.UTC).replace(microsecond=0)
    belgium = kb.entity("Q31")
    assert belgium.label() == "Belgium" and belgium.source == live.name
    (src,) = live_sources(mirror_path)
    assert src["location"] == live.url and src["status"] == "complete"
    assert dt.datetime.fromisoformat(src["loaded_at"]) >= before
    assert belgium.retrieved_at == src["loaded_at"]

    local = offline(mirror_path)
    again = local.entity("Q31")
    assert again.source == f"mirror:{mirror_path}"
    assert again.labels == belgium.labels
    assert {k: set(v) for k, v in again.aliases.items()} == \
        {k: set(v) for k, v in belgium.aliases.items()}
    # served by the mirror, every term still says the endpoint gave it, and when
    assert {(t["source"], t["retrieved_at"]) for t in again.live_terms()} == \
        {(live.name, src["loaded_at"])}
    assert again.term_source("label", "en", "Belgium") == (live.name, src["loaded_at"])
    assert kb.entity("Q31").labels == belgium.labels       # no second fetch
    assert len(live_sources(mirror_path)) == 1


def test_an_empty_triplet_query_is_fetched_and_cited(mirror_path, live):
    kb = FallbackKB(MirrorKB(mirror_path), live)
    (fetched,) = kb.statements("Q42", "P108")
    assert fetched.value.value == "Q9531" and fetched.citation.live
    assert fetched.citation.source == f"sparql:{live.url}"

    local = offline(mirror_path)
    (again,) = local.statements("Q42", "P108")
    assert again.triple == fetched.triple
    # served from the mirror, still cited to where the fact came from, when it was read
    (src,) = live_sources(mirror_path)
    assert again.citation.source == f"sparql:{live.url}"
    assert again.citation.retrieved_at == src["loaded_at"] == fetched.citation.retrieved_at

    # the mirror's own data answers a broader question by itself
    own = kb.statements("Q42")
    assert {s.property for s in own} == {"P31", "P108"}
    assert {s.property: s.citation.live for s in own} == {"P31": False, "P108": True}


def test_a_partial_write_back_does_not_hide_the_rest(mirror_path, live):
    kb = FallbackKB(MirrorKB(mirror_path), live)
    assert [s.value.value for s in kb.statements("Q31", "P36")] == ["Q239"]
    everything = kb.statements("Q31")            # only live rows locally, never asked: fetch
    assert len(everything) > 1 and len(live_sources(mirror_path)) == 2
    assert kb.statements("Q31") and len(live_sources(mirror_path)) == 2     # now local
    assert len(kb.statements("Q31", limit=2)) == 2 and len(live_sources(mirror_path)) == 2
    assert all(s.citation.live for s in everything)


def test_empty_live_answers_are_remembered(mirror_path, live):
    kb = FallbackKB(MirrorKB(mirror_path), live)
    assert kb.statements("Q42", "P69") == [] and len(live_sources(mirror_path)) == 1
    assert kb.statements("Q42", "P69") == [] and len(live_sources(mirror_path)) == 1


def test_search_and_property_info_fall_back(mirror_path, live):
    kb = FallbackKB(MirrorKB(mirror_path), live)
    found = kb.search("Belgium")
    assert found[0].id == "Q31" and found[0].source == live.name and found[0].retrieved_at
    local = offline(mirror_path)
    (belgium,) = [c for c in local.search("belgium") if c.id == "Q31"]  # now in the index
    # the mirror answers, and the name it matched is still cited to the endpoint
    assert (belgium.source, belgium.retrieved_at) == (live.name, found[0].retrieved_at)
    assert local.search("Douglas Adams")[0].source == f"mirror:{mirror_path}"
    info = kb.property_info("P108")
    assert (info.label, info.datatype) == ("employer", "wikibase-item")
    assert info.source == live.name
    assert local.property_info("P108").datatype == "wikibase-item"
    assert local.property_info("P108").source == live.name     # its label came from there
    # a term-only write-back is not a whole entity: entity() still asks the endpoint
    whole = kb.entity("Q31")
    assert whole.source == live.name and "Kingdom of Belgium" in whole.aliases["en"]


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
    einstein = kb.entity("Q937")
    assert einstein.label() == "Albert Einstein"             # the demo KB holds Einstein
    assert einstein.source.startswith("mirror:") and einstein.live_terms() == []
    (emp,) = kb.statements("Q42", "P108")
    assert emp.value.value == "Q9531"
    assert offline(path).statements("Q42", "P108")[0].value.value == "Q9531"


def test_concurrent_callers_each_get_their_own_provenance(mirror_path, live):
    """Provenance is on the values: threads asking the mirror and the endpoint at the same
    time each get the source that answered them (no shared "last call" state)."""
    from concurrent.futures import ThreadPoolExecutor

    kb = FallbackKB(MirrorKB(mirror_path), live)
    kb.sparql("ASK { ?s ?p ?o }")      # rdflib's parser is not thread-safe on first use
    asks = [("Q42", "P31"), ("Q31", "P36"), ("Q771", "P36"), ("Q42", "P31"), ("Q54072", "P36")]

    def ask(pair: tuple[str, str]) -> list[tuple[str, bool]]:
        return [(s.value.value, s.citation.live) for s in kb.statements(*pair)]

    with ThreadPoolExecutor(5) as pool:
        answers = list(pool.map(ask, asks * 4))
        entities = list(pool.map(kb.entity, ["Q42", "Q31", "Q42", "Q771", "Q42", "Q54072"]))
    assert all(answers)
    for pair, got in zip(asks * 4, answers):
        assert all(live_fact == (pair != ("Q42", "P31")) for _, live_fact in got), (pair, got)
    assert [e.source == live.name for e in entities] == [False, True, False, True, False, True]
    assert [bool(e.retrieved_at) for e in entities] == [False, True, False, True, False, True]


class FirstReadBeforeTheWrite(MirrorKB):
    """A mirror whose first read of each kind finds nothing, as a thread's read does when
    it runs just before another thread commits the live answer."""

    def __init__(self, path: Path):
        super().__init__(path)
        self.stale = {"statements", "search"}

    def statements(self, *args, **kwargs):
        if "statements" in self.stale:
            self.stale.discard("statements")
            return []
        return super().statements(*args, **kwargs)

    def search(self, *args, **kwargs):
        if "search" in self.stale:
            self.stale.discard("search")
            return []
        return super().search(*args, **kwargs)


def test_a_read_just_before_another_threads_write_back_still_answers(mirror_path, live):
    # one caller fetches and writes the answer back ...
    first = FallbackKB(MirrorKB(mirror_path), live)
    assert not MirrorKB(mirror_path).statements("Q31", "P36")
    assert not MirrorKB(mirror_path).search("Brussels")
    capitals = first.statements("Q31", "P36")
    found = first.search("Brussels")
    assert capitals and found
    # ... another read the mirror just before that commit, and then finds the note that
    # the question was asked: it must read again, not answer from its stale read
    second = FallbackKB(FirstReadBeforeTheWrite(mirror_path), live)
    assert [s.value.value for s in second.statements("Q31", "P36")] == \
        [s.value.value for s in capitals]
    assert found[0].id in [c.id for c in second.search("Brussels")]
