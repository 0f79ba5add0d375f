"""``kb.open`` on every kind of location, and a custom KB in each RDF syntax the README
promises (Turtle, N-Triples, RDF/XML, JSON-LD; compressed too), read both ways: in memory
(RdfGraphKB) and loaded into a mirror (``kgground mirror load``)."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from rdflib import Graph

import kb
from kb.endpoint import SparqlEndpointKB
from kb.fallback import FallbackKB
from kb.mirror import MirrorKB
from kb.rdfgraph import RdfGraphKB
from store.errors import EntityNotFound, KGGroundError, LoadError, MirrorError
from store.ingest import load
from store.mirror import Mirror

EX = "http://example.org/kb/"
CUSTOM_KB = f"""
@prefix ex: <{EX}> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix schema: <http://schema.org/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .

ex:ada rdfs:label "Ada Lovelace"@en , "Ada Lovelace"@fr ;
    skos:altLabel "Countess of Lovelace"@en ;
    schema:description "mathematician"@en ;
    ex:wrote ex:notes ;
    ex:born "1815-12-10"^^xsd:date ;
    ex:friendOf ex:babbage .
ex:babbage rdfs:label "Charles Babbage"@en ;
    ex:designed ex:engine .
ex:notes rdfs:label "Notes on the Analytical Engine"@en ;
    ex:about ex:engine .
ex:engine rdfs:label "Analytical Engine"@en .
"""
#: rdflib's names for the syntaxes, and the file names they are written to
SYNTAXES = [("turtle", "kb.ttl"), ("nt", "kb.nt"), ("xml", "kb.rdf"), ("json-ld", "kb.jsonld"),
            ("turtle", "kb.ttl.gz")]


def write(folder: Path, fmt: str, name: str) -> Path:
    data = Graph().parse(data=CUSTOM_KB, format="turtle").serialize(format=fmt,
                                                                    encoding="utf-8")
    path = folder / name
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    return path


def facts(base) -> dict:
    """What a KB says about the custom KB, in a form every adapter gives alike."""
    ada = base.entity(EX + "ada")
    return {
        "label": ada.label("en"), "fr": ada.label("fr"), "aliases": ada.aliases.get("en"),
        "description": ada.description("en"),
        "wrote": sorted(s.value.value for s in base.statements(EX + "ada", EX + "wrote")),
        "born": [(s.value.value, s.value.datatype)
                 for s in base.statements(EX + "ada", EX + "born")],
        "search": [c.id for c in base.search("lovelace")][:1],
        "sparql": sorted(str(r["o"]) for r in base.sparql(
            f"SELECT ?o WHERE {{ <{EX}ada> <{EX}friendOf>/<{EX}designed> ?o }}").rows),
    }


EXPECTED = {"label": "Ada Lovelace", "fr": "Ada Lovelace", "aliases": ("Countess of Lovelace",),
            "description": "mathematician", "wrote": [EX + "notes"],
            "born": [("1815-12-10", "http://www.w3.org/2001/XMLSchema#date")],
            "search": [EX + "ada"], "sparql": [EX + "engine"]}


@pytest.mark.parametrize("fmt, name", SYNTAXES)
def test_an_rdf_file_opens_as_an_rdf_graph_kb(tmp_path, fmt, name):
    base = kb.open(write(tmp_path, fmt, name))
    assert isinstance(base, RdfGraphKB) and base.name.startswith("rdf:")
    assert facts(base) == EXPECTED
    with pytest.raises(EntityNotFound):
        base.entity(EX + "nobody")


@pytest.mark.parametrize("fmt, name", SYNTAXES)
def test_an_rdf_file_loads_into_a_mirror_alike(tmp_path, fmt, name):
    db = tmp_path / "m.sqlite"
    with Mirror(db, create=True) as m:
        report = load(m, write(tmp_path, fmt, name))
    assert (report.errors, report.statements, report.terms) == (0, 5, 7)
    base = kb.open(db)
    assert isinstance(base, MirrorKB)
    assert facts(base) == EXPECTED


def test_a_mirror_by_path_and_by_url(demo_mirror_path):
    assert isinstance(kb.open(demo_mirror_path), MirrorKB)
    by_url = kb.open(f"sqlite:///{demo_mirror_path}")
    assert isinstance(by_url, MirrorKB) and by_url.entity("Q937").label() == "Albert Einstein"


def test_an_endpoint_and_a_mirror_with_a_live_side(demo_mirror_path, demo_endpoint):
    live = kb.open(demo_endpoint.url, no_cache=True)
    assert isinstance(live, SparqlEndpointKB)
    assert live.entity("Q937").label() == "Albert Einstein"
    both = kb.open(demo_mirror_path, live=demo_endpoint.url, offline=True)
    assert isinstance(both, FallbackKB) and both.offline
    with pytest.raises(ValueError, match="already an endpoint"):
        kb.open(demo_endpoint.url, live=demo_endpoint.url)


def test_an_endpoint_alias_opens_the_endpoint_it_names(demo_mirror_path, tmp_path,
                                                       monkeypatch):
    """kb.open knows the CLI's aliases ("wikidata"); a file of that name here wins. Nothing
    is queried: opening an endpoint makes no request."""
    wd = kb.open(" WikiData ")
    assert isinstance(wd, SparqlEndpointKB)
    assert wd.url == kb.ENDPOINT_ALIASES["wikidata"] == "https://query.wikidata.org/sparql"
    both = kb.open(demo_mirror_path, live="wdqs", offline=True)
    assert isinstance(both, FallbackKB) and both.live.url == wd.url
    monkeypatch.chdir(tmp_path)
    Path("wikidata").write_bytes(Path(demo_mirror_path).read_bytes())
    assert isinstance(kb.open("wikidata"), MirrorKB)


def test_what_cannot_be_opened_says_why(tmp_path):
    with pytest.raises(MirrorError, match="nothing at") as err:
        kb.open(tmp_path / "absent.sqlite")
    assert "kgground mirror load" in str(err.value)
    notes = tmp_path / "notes.txt"
    notes.write_text("not a knowledge base")
    with pytest.raises(MirrorError, match="neither a kgground mirror nor an RDF file"):
        kb.open(notes)
    broken = tmp_path / "broken.ttl"
    broken.write_text("<http://example.org/a> <http://example.org/b> .\n")
    with pytest.raises(LoadError, match="not valid turtle") as err:
        kb.open(broken)
    assert str(broken) in str(err.value)
    rdf = write(tmp_path, "turtle", "kb.ttl")
    with pytest.raises(MirrorError, match="is not a mirror, and a live fallback writes into"):
        kb.open(rdf, live="http://127.0.0.1:9/sparql")
    assert issubclass(MirrorError, KGGroundError) and issubclass(LoadError, KGGroundError)
