"""Linking over every kind of KB, through ``kb.linking``: a Turtle file in its own
vocabulary (RdfGraphKB), the dev Virtuoso holding the T-REx slice (SparqlEndpointKB), and a
mirror backed by that endpoint (FallbackKB)."""

from __future__ import annotations

import shutil

import pytest

from kb.endpoint import SparqlEndpointKB
from kb.fallback import FallbackKB
from kb.linking import GenericLinking, LinkingKB, linking_view
from kb.mirror import MirrorKB
from kb.rdfgraph import RdfGraphKB
from linking import EntityLinker, ground

EX = "http://example.org/kb/"
TURTLE = """\
@prefix ex: <http://example.org/kb/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
ex:ada rdfs:label "Ada Lovelace"@en ; skos:altLabel "Augusta Ada King"@en ;
    ex:birthPlace ex:london ; rdf:type ex:Person ; ex:worksWith ex:charles .
ex:charles rdfs:label "Charles Babbage"@en ; rdf:type ex:Person ; ex:birthPlace ex:london .
ex:london rdfs:label "London"@en ; rdf:type ex:City ; ex:country ex:uk .
ex:london_on rdfs:label "London"@en ; rdf:type ex:City ; ex:country ex:canada .
ex:uk rdfs:label "United Kingdom"@en ; skos:altLabel "UK"@en ; rdf:type ex:Country .
ex:canada rdfs:label "Canada"@en ; rdf:type ex:Country .
ex:Person rdfs:label "person"@en .
ex:City rdfs:label "city"@en .
ex:Country rdfs:label "country"@en .
ex:birthPlace rdfs:label "place of birth"@en ; skos:altLabel "born in"@en .
"""


@pytest.fixture(scope="module")
def turtle_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("own-kb") / "mine.ttl"
    path.write_text(TURTLE, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def own(turtle_file) -> EntityLinker:
    return EntityLinker(RdfGraphKB(turtle_file))


# -- a Turtle KB in its own vocabulary ---------------------------------------------------------

def test_a_turtle_kb_gets_the_generic_linking_view(turtle_file):
    view = linking_view(RdfGraphKB(turtle_file))
    assert isinstance(view, GenericLinking) and isinstance(view, LinkingKB)
    names = view.names(["augusta ada king"])
    assert [(n.entity, n.text, n.is_label) for n in names] == [
        (EX + "ada", "Augusta Ada King", False)]
    assert view.known(["ada lovelace", "grace hopper"]) == {"ada lovelace"}
    profile = view.profiles([EX + "ada"])[EX + "ada"]
    assert profile.types == {EX + "Person"} and profile.type_labels == ("person",)
    assert EX + "birthPlace" in profile.subject_of and EX + "worksWith" in profile.subject_of
    props = {p.id: p for p in view.properties()}
    assert props[EX + "birthPlace"].label() == "place of birth"
    assert props[EX + "worksWith"].label() == "works with"       # named after its IRI
    assert props[EX + "birthPlace"].usage == 2


def test_a_turtle_kb_links_to_its_own_iris(own):
    result = own.link("Where was Ada Lovelace born?")
    assert [(m.mention.text, m.best.id) for m in result.mentions] == [
        ("Ada Lovelace", EX + "ada")]
    result = own.link("Charles Babbage worked with Augusta Ada King in London.")
    assert [m.best.id for m in result.mentions] == [EX + "charles", EX + "ada", EX + "london"]


def test_coherence_works_on_a_turtle_kb(own):
    # two cities are labelled London; the one in Canada is linked to the other mention
    m = own.link("London, Canada").mentions[0]
    assert m.best.id == EX + "london_on" and m.best.features["coherence"] > 0


def test_a_path_to_an_rdf_file_is_opened_as_its_kb(turtle_file):
    linker = EntityLinker(str(turtle_file))
    assert linker.link("Ada Lovelace").mentions[0].best.id == EX + "ada"


def test_properties_and_grounding_on_a_turtle_kb(own):
    assert own.properties.link("born in")[0].id == EX + "birthPlace"
    assert own.properties.link("works with")[0].id == EX + "worksWith"
    g = ground(own, "wd:/Ada Lovelace/ wdt:/place of birth/ ?x")
    assert g.query == f"<{EX}ada> <{EX}birthPlace> ?x"


# -- the dev Virtuoso (the T-REx slice) as a SPARQL endpoint -------------------------------------

@pytest.fixture(scope="module")
def endpoint(virtuoso) -> SparqlEndpointKB:
    url, graph = virtuoso
    return SparqlEndpointKB(url, graph=graph, no_cache=True)


def test_an_endpoint_is_linked_through_its_public_methods(endpoint):
    linker = EntityLinker(endpoint)
    result = linker.link("Where was Paavo Nurmi born?")
    assert [(m.mention.text, m.best.id) for m in result.mentions] == [
        ("Paavo Nurmi", "Q101942")]
    assert linker.properties.link("born in")[0].id == "P19"
    # the endpoint knows which properties the slice uses, and how
    used = {p.id: p for p in linker.source.properties() if p.usage}
    assert "P19" in used and used["P19"].entity_share > 0.99
    g = ground(linker, "wd:/Paavo Nurmi/ wdt:/place of birth/ ?place")
    assert g.query == "wd:Q101942 wdt:P19 ?place"


# -- a mirror with the endpoint behind it --------------------------------------------------------

@pytest.fixture()
def fallback(demo_mirror_path, tmp_path, endpoint) -> FallbackKB:
    path = tmp_path / "demo.sqlite"
    shutil.copy(demo_mirror_path, path)
    return FallbackKB(MirrorKB(path), endpoint)


def test_a_fallback_kb_links_from_the_mirror_and_asks_live_for_missing_names(fallback):
    linker = EntityLinker(fallback)
    local = linker.link("Marie Curie was born in Warsaw.")
    assert [m.best.id for m in local.mentions] == ["Q7186", "Q270"]
    # the demo mirror has no Lady Gaga; the endpoint has, and the name is written back
    assert fallback.local.search("Lady Gaga") == []
    found = linker.link("Where was Lady Gaga born?")
    assert [(m.mention.text, m.best.id) for m in found.mentions] == [("Lady Gaga", "Q19848")]
    assert fallback.local.search("Lady Gaga")[0].id == "Q19848"


def test_an_offline_fallback_kb_links_from_the_mirror_alone(fallback):
    fallback.offline = True
    linker = EntityLinker(fallback)
    assert linker.link("Where was Lady Gaga born?").mentions == ()
    assert fallback.local.search("Lady Gaga") == []


def test_phrases_with_the_same_content_words_share_their_word_evidence(turtle_file):
    # a phrase's word evidence is kept by its content words: a second phrase with the same
    # ones ("the place of birth" after "place of birth") is read from it, and must equal
    # what a fresh linker computes
    linked = EntityLinker(RdfGraphKB(turtle_file)).properties
    assert linked.evidence("place of birth") == linked.evidence("place of birth")
    shared = linked.evidence("the place of birth")
    fresh = EntityLinker(RdfGraphKB(turtle_file)).properties.evidence("the place of birth")
    assert shared == fresh and EX + "birthPlace" in shared[0]
