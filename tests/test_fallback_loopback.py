"""FallbackKB against a live endpoint that runs on every machine: kgground's own SPARQL
server, on a loopback port, serving the demo KB. The local side is a small mirror that
knows only Marie Curie. Every method's miss is fetched, written back with its provenance,
and answered locally afterwards — even offline — without asking the endpoint again.

test_fallback.py runs the same contract against Virtuoso holding the real slice.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.endpoint import SparqlEndpointKB
from kb.fallback import FallbackKB
from kb.mirror import MirrorKB
from kb.types import SparqlResult
from store.errors import EntityNotFound, UnsupportedQuery
from store.ingest import load
from store.mirror import Mirror
from tests.conftest import LoopbackEndpoint

WD, WDT = "http://www.wikidata.org/entity/", "http://www.wikidata.org/prop/direct/"
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
LOCAL_NT = (f'<{WD}Q7186> <{LABEL}> "Marie Curie"@en .\n'
            f"<{WD}Q7186> <{WDT}P31> <{WD}Q5> .\n")


@pytest.fixture
def remote(demo_endpoint: LoopbackEndpoint) -> LoopbackEndpoint:
    return demo_endpoint


@pytest.fixture
def local_path(tmp_path) -> Path:
    src = tmp_path / "local.nt"
    src.write_text(LOCAL_NT)
    path = tmp_path / "local.sqlite"
    with Mirror(path, create=True) as m:
        load(m, src)
    return path


def fallback(path: Path, remote: LoopbackEndpoint, **kw) -> FallbackKB:
    return FallbackKB(MirrorKB(path), SparqlEndpointKB(remote.url, cache=False), **kw)


def offline(path: Path) -> FallbackKB:
    return FallbackKB(MirrorKB(path), None)


def live_sources(path: Path) -> list[dict]:
    with Mirror(path) as m:
        return [s for s in m.sources() if s["format"] == "live"]


def test_entity_is_fetched_once_written_back_and_then_local(local_path, remote):
    kb = fallback(local_path, remote)
    assert kb.entity("Q7186").source == f"mirror:{local_path}"        # the mirror knows her
    before = remote.asked()
    einstein = kb.entity("Q937")
    assert einstein.label() == "Albert Einstein" and einstein.source == f"sparql:{remote.url}"
    assert remote.asked() > before
    (src,) = live_sources(local_path)
    assert src["location"] == remote.url and src["status"] == "complete"

    asked = remote.asked()
    again = kb.entity("Q937")                        # written back: not asked again
    assert remote.asked() == asked and again.source == f"mirror:{local_path}"
    assert again.labels == einstein.labels
    assert set(again.aliases["en"]) == {"A. Einstein", "Einstein"}
    alone = offline(local_path).entity("Q937")
    assert alone.labels == einstein.labels
    assert alone.term_source("label", "en", "Albert Einstein")[0] == f"sparql:{remote.url}"


def test_statements_are_fetched_cited_to_the_endpoint_and_kept(local_path, remote):
    kb = fallback(local_path, remote)
    fetched = kb.statements("Q937", "P69")
    assert {s.value.value for s in fetched} == {"Q11942", "Q206702"}
    assert all(s.citation.source == f"sparql:{remote.url}" and s.citation.live
               for s in fetched)
    asked = remote.asked()
    assert {s.value.value for s in kb.statements("Q937", "P69")} == {"Q11942", "Q206702"}
    assert remote.asked() == asked
    kept = offline(local_path).statements("Q937", "P69")
    assert {s.triple for s in kept} == {s.triple for s in fetched}
    assert {s.citation.retrieved_at for s in kept} == {fetched[0].citation.retrieved_at}
    # the mirror's own statements answer without the endpoint
    (own,) = kb.statements("Q7186", "P31")
    assert not own.citation.live and remote.asked() == asked


def test_an_empty_live_answer_is_remembered(local_path, remote):
    kb = fallback(local_path, remote)
    before = remote.asked()
    assert kb.statements("Q937", "P36") == []         # a person has no capital
    asked = remote.asked()
    assert asked > before
    assert kb.statements("Q937", "P36") == [] and remote.asked() == asked


def test_search_falls_back_and_writes_the_names_back(local_path, remote):
    kb = fallback(local_path, remote)
    assert offline(local_path).search("Albert Einstein") == []
    found = kb.search("Albert Einstein")
    assert found[0].id == "Q937" and found[0].source == f"sparql:{remote.url}"
    local = offline(local_path).search("albert einstein")
    assert local and local[0].id == "Q937"
    asked = remote.asked()
    assert kb.search("Albert Einstein")[0].id == "Q937" and remote.asked() == asked


def test_property_info_falls_back_and_is_kept(local_path, remote):
    kb = fallback(local_path, remote)
    info = kb.property_info("P69")
    assert (info.label, info.datatype) == ("educated at", "wikibase-item")
    assert "alma mater" in info.aliases
    asked = remote.asked()
    kept = offline(local_path).property_info("P69")
    assert (kept.label, kept.datatype) == ("educated at", "wikibase-item")
    assert kb.property_info("P69").label == "educated at" and remote.asked() == asked


def test_property_infos_asks_for_the_missing_in_batches_and_keeps_them(local_path, remote,
                                                                      monkeypatch):
    kb = fallback(local_path, remote)
    monkeypatch.setattr(kb.live, "PROPERTY_BATCH", 1)           # one query per property
    before = remote.asked()
    found = kb.property_infos(["P69", "P19"])
    assert {p: i.label for p, i in found.items()} == {"P69": "educated at",
                                                      "P19": "place of birth"}
    assert remote.asked() - before == 2
    kept = offline(local_path).property_infos(["P69", "P19"])
    assert {p: i.label for p, i in kept.items()} == {"P69": "educated at",
                                                     "P19": "place of birth"}


class SelectOnlyMirror(MirrorKB):
    """A mirror whose SPARQL engine answers SELECT only."""

    def sparql(self, query: str, *, timeout: float | None = None) -> SparqlResult:
        if "CONSTRUCT" in query:
            raise UnsupportedQuery("this engine answers SELECT only")
        return super().sparql(query, timeout=timeout)


def test_sparql_goes_live_only_for_what_the_mirror_cannot_answer(local_path, remote):
    live = SparqlEndpointKB(remote.url, cache=False)
    kb = FallbackKB(SelectOnlyMirror(local_path), live)
    asked = remote.asked()
    local = kb.sparql("SELECT ?c WHERE { wd:Q7186 wdt:P31 ?c }")
    assert local.source == f"mirror:{local_path}" and len(local) == 1
    assert remote.asked() == asked
    out = kb.sparql("CONSTRUCT { wd:Q937 wdt:P69 ?o } WHERE { wd:Q937 wdt:P69 ?o }")
    assert out.source == f"sparql:{remote.url}" and len(out.graph) == 2
    assert "the mirror cannot answer this query (this engine answers SELECT only)" in \
        out.explain
    assert live_sources(local_path) == []                 # bindings are not written back
    with pytest.raises(UnsupportedQuery, match="live endpoint is off"):
        FallbackKB(SelectOnlyMirror(local_path), live, offline=True).sparql(
            "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }")


def test_unknown_everywhere_writes_nothing(local_path, remote):
    kb = fallback(local_path, remote)
    with pytest.raises(EntityNotFound):
        kb.entity("Q999999999")
    assert live_sources(local_path) == []


def test_offline_never_asks(local_path, remote):
    kb = fallback(local_path, remote, offline=True)
    asked = remote.asked()
    with pytest.raises(EntityNotFound, match="offline"):
        kb.entity("Q937")
    assert kb.statements("Q937", "P69") == [] and kb.search("Albert Einstein") == []
    assert remote.asked() == asked and live_sources(local_path) == []
