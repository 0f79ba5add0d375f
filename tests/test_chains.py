"""The evidence chainer on real KBs: the demo mirror (with linking), a custom Turtle KB
(through RdfGraphKB, and loaded into a mirror), and the graph's invariants."""

from __future__ import annotations

from pathlib import Path

import pytest

import chains
import kb
from chains.graph import EvidenceGraph
from chains.neighbourhood import node_id
from chains.search import Limits
from kb.types import Citation, Snak, Statement, Value
from store.errors import EntityNotFound, KGGroundError

LIBRARY = Path(__file__).parent / "data" / "chains-library.ttl"
EX = "http://example.org/lib/"


@pytest.fixture(scope="module")
def demo(demo_kb_copy):
    return demo_kb_copy


@pytest.fixture(scope="module")
def linker(demo):
    from linking import EntityLinker
    return EntityLinker(demo)


@pytest.fixture(scope="module")
def library():
    return kb.open(LIBRARY)


def check_invariants(ev: EvidenceGraph) -> None:
    """What every EvidenceGraph promises: edges are the statements they carry, each with
    its citation; chains walk edges of the graph from a seed; citation numbers point at
    the citations of the steps."""
    g = ev.graph
    for u, v, key, data in g.edges(keys=True, data=True):
        st = data["statement"]
        assert st.subject == u and v == node_id(st.value)
        assert key.split("#")[0] == st.property == data["property"]
        assert data["citation"] is not None and data["citation"].subject == st.subject
        assert data["citation"].property == st.property and data["citation"].value == st.value
        assert data["property_label"]
    for node, data in g.nodes(data=True):
        assert data["label"], node
    seeds = {s.id for s in ev.seeds}
    for chain in ev.chains:
        assert chain.start in seeds
        assert len(set(chain.nodes)) == len(chain.nodes), "a chain never revisits a node"
        assert len(chain.numbers) == len(chain.citations) == chain.hops
        for step, number in zip(chain.steps, chain.numbers):
            u, v = (step.source, step.target) if step.forward else (step.target, step.source)
            assert g.edges[u, v, step.key]["statement"] == step.statement
            assert ev.citations[number - 1] == step.citation
            assert f"[{number}]" in chain.text
        for a, b in zip(chain.steps, chain.steps[1:]):
            assert a.target == b.source


# -- questions on the demo KB -------------------------------------------------------------------

def test_place_of_birth_is_the_best_chain_with_its_citation(demo, linker):
    ev = chains.build_evidence("Where was Marie Curie born?", demo, linker)
    check_invariants(ev)
    assert [s.id for s in ev.seeds][:1] == ["Q7186"]
    assert ev.seeds[0].mention == "Marie Curie"
    best = ev.chains[0]
    assert (best.start, best.end, best.hops, best.steps[0].property) == ("Q7186", "Q270", 1,
                                                                         "P19")
    assert best.text == "Marie Curie — place of birth → Warsaw [1]"
    cite = ev.citations[0]
    assert cite.statement_id and cite.statement_id.startswith("Q7186$")
    assert cite.source.startswith("mirror:") and cite.source.endswith("nobel-demo.json")
    assert cite.url == f"https://www.wikidata.org/wiki/Q7186#{cite.statement_id}"
    assert len(ev.chains) == 5 and ev.chains == sorted(ev.chains, key=lambda c: -c.score)
    assert len({c.end for c in ev.chains}) == 5, "the shortlist keeps one chain per end"


def test_two_hop_question_prefers_the_two_hop_chain(demo, linker):
    ev = chains.build_evidence("Where was the spouse of Marie Curie born?", demo, linker)
    check_invariants(ev)
    best = ev.chains[0]
    assert [s.property for s in best.steps] == ["P26", "P19"]
    assert best.nodes == ("Q7186", "Q37463", "Q90")           # Pierre Curie, Paris
    assert best.text == ("Marie Curie — spouse → Pierre Curie [1]; "
                         "Pierre Curie — place of birth → Paris [2]")


def test_a_year_in_the_question_picks_statements_with_that_qualifier(demo, linker):
    ev = chains.build_evidence("Who won the Nobel Prize in Physics in 1903?", demo, linker)
    check_invariants(ev)
    top3 = {c.end for c in ev.chains[:3]}
    assert top3 == {"Q7186", "Q37463", "Q41269"}       # the Curies and Becquerel
    for c in ev.chains[:3]:
        assert c.features["qualifier"] > 0 and not c.steps[0].forward
        assert any(str(q.value).startswith("1903") for q in c.steps[0].statement.qualifiers)
    assert all(c.features["qualifier"] == 0 for c in ev.chains[3:])


def test_labels_in_the_asked_language(demo, linker):
    ev = chains.build_evidence("Wo wurde Marie Curie geboren?", demo, linker, lang="de")
    assert ev.chains[0].text == "Marie Curie — Geburtsort → Warschau [1]"
    assert ev.as_dict()["lang"] == "de"


def test_given_entities_replace_linking(demo, linker):
    ev = chains.build_evidence("Who was she married to?", demo, linker,
                                entities=["Q7186"])
    assert [(s.id, s.mention) for s in ev.seeds] == [("Q7186", None)]
    assert ev.chains[0].end == "Q37463"
    with pytest.raises(EntityNotFound):
        chains.build_evidence("Who?", demo, linker, entities=["Q999999999"])


def test_nothing_linked_is_a_clear_error(demo, linker):
    with pytest.raises(KGGroundError, match="no entity of the question"):
        chains.build_evidence("zqxv wplk?", demo, linker)
    with pytest.raises(ValueError, match="hops"):
        chains.build_evidence("Where was Marie Curie born?", demo, linker, hops=0)
    with pytest.raises(ValueError, match="top"):
        chains.build_evidence("Where was Marie Curie born?", demo, linker, top=0)


def test_prompt_numbers_chains_and_citations(demo, linker):
    ev = chains.build_evidence("Who was Marie Curie married to?", demo, linker, top=3)
    lines = ev.prompt().splitlines()
    assert lines[0] == f"1. {ev.chains[0].text}"
    start = lines.index("Citations:")
    assert start == 3 and len(lines) - start - 1 == len(ev.citations)
    assert lines[start + 1].startswith("[1] Q7186 P26 Q37463 — mirror:")
    assert ev.answers[0] == "Q37463"


def test_connect_two_entities_shortest_first(demo):
    ev = chains.connect_entities(demo, "Q7186", "Q937", hops=3, top=5)   # Curie, Einstein
    check_invariants(ev)
    assert ev.chains and all(c.kind == "connection" for c in ev.chains)
    assert all(c.start == "Q7186" and c.end == "Q937" for c in ev.chains)
    assert [c.hops for c in ev.chains] == sorted(c.hops for c in ev.chains)
    # there is no statement between them: the best need a node in between
    assert ev.chains[0].hops == 2
    direct = chains.connect_entities(demo, "Q7186", "Q37463", hops=3)
    assert direct.chains[0].hops == 1 and direct.chains[0].steps[0].property == "P26"
    none = chains.connect_entities(demo, "Q7186", "Q937", hops=1)
    assert none.chains == [] and set(none.graph) == {"Q7186", "Q937"}


def test_connecting_to_a_hub_goes_from_the_other_side(demo):
    """With 10 statements read per node, "human" (115 people in the demo) is a hub whose
    list misses Frances Arnold: the search must reach it from Pittsburgh's side."""
    limits = Limits(fetch=10)
    assert "Q4273363" not in {s.subject for s in demo.statements(value="Q5", limit=10)}
    ev = chains.connect_entities(demo, "Q1342", "Q5", hops=2, limits=limits)
    check_invariants(ev)
    assert ev.chains[0].nodes == ("Q1342", "Q4273363", "Q5")
    assert ev.chains[0].text == ("Frances Arnold — place of birth → Pittsburgh [1]; "
                                 "Frances Arnold — instance of → human [2]")


def test_expansion_is_bounded(demo):
    limits = Limits(fanout=3, beam=2)
    ev = chains.expand_entity(demo, "Q7186", hops=2, limits=limits)
    g = ev.graph
    assert 0 < g.number_of_edges() <= 3 + 2 * 3
    assert g.degree("Q7186") == 3
    full = chains.expand_entity(demo, "Q7186", hops=1)
    everything = demo.statements("Q7186", limit=1000) + demo.statements(value="Q7186",
                                                                        limit=1000)
    assert full.graph.number_of_edges() == min(len(everything), Limits().fanout)


# -- a custom Turtle KB ---------------------------------------------------------------------

def test_custom_turtle_kb_chains_between_iris(library):
    ev = chains.connect_entities(library, EX + "ada", EX + "portugal", hops=3)
    check_invariants(ev)
    assert ev.chains[0].nodes == (EX + "ada", EX + "porto", EX + "portugal")
    assert ev.chains[0].text == ("Ada Quill — place of birth → Porto [1]; "
                                 "Porto — country → Portugal [2]")
    assert ev.citations[0].source == f"rdf:{LIBRARY.resolve()}"
    assert ev.citations[0].url == EX + "ada"
    assert ev.graph.nodes[EX + "ada"]["url"] == EX + "ada"


def test_custom_turtle_kb_question_from_a_given_entity(library):
    """RdfGraphKB with the question's entity given: chains come without linking."""
    ev = chains.build_evidence("Where was she born?", library, entities=[EX + "ada"])
    check_invariants(ev)
    assert EX + "porto" in {c.end for c in ev.chains}
    literal = [n for n, d in ev.graph.nodes(data=True) if d["kind"] == "literal"]
    assert [ev.graph.nodes[n]["label"] for n in literal] == ["1901-03-04"]


def test_custom_turtle_kb_question_linked(library):
    """Linking over an RdfGraphKB (issue 13): the question's entity is found by its label."""
    from linking import EntityLinker
    ev = chains.build_evidence("Where was Ada Quill born?", library, EntityLinker(library))
    check_invariants(ev)
    assert ev.seeds[0].id == EX + "ada"
    assert EX + "porto" in {c.end for c in ev.chains}


def test_custom_turtle_kb_in_a_mirror_question_linked(tmp_path):
    from linking import EntityLinker
    from store.ingest import load
    from store.mirror import Mirror
    path = tmp_path / "library.sqlite"
    with Mirror(path, create=True) as mirror:
        load(mirror, LIBRARY)
    base = kb.open(path)
    ev = chains.build_evidence("Where was Ada Quill born?", base, EntityLinker(base))
    check_invariants(ev)
    assert ev.seeds[0].id == EX + "ada" and ev.seeds[0].mention == "Ada Quill"
    assert EX + "porto" in {c.end for c in ev.chains}
    cite = next(c for c in ev.citations if c.property == EX + "bornIn")
    assert cite.source == f"mirror:{LIBRARY.resolve()}" and cite.url == EX + "ada"


# -- the graph itself ------------------------------------------------------------------------

def _statement(sid: str, qualifier: str | None = None) -> Statement:
    value = Value("entity", "Q38104")
    quals = (Snak("P585", Value("literal", qualifier, datatype="http://www.w3.org/2001/"
                                "XMLSchema#dateTime")),) if qualifier else ()
    return Statement("Q7186", "P166", value, id=sid, qualifiers=quals,
                     citation=Citation("Q7186", "P166", value, "test", statement_id=sid))


def test_parallel_statements_get_their_own_edges():
    g = EvidenceGraph()
    first = g.add_statement(_statement("Q7186$a", "1903-01-01T00:00:00Z"))
    second = g.add_statement(_statement("Q7186$b", "1911-01-01T00:00:00Z"))
    again = g.add_statement(_statement("Q7186$a", "1903-01-01T00:00:00Z"), relevance=0.5)
    assert first == ("Q7186", "Q38104", "P166") and again == first
    assert second == ("Q7186", "Q38104", "P166#2")
    assert g.graph.number_of_edges() == 2
    assert g.graph.edges[first]["relevance"] == 0.5


def test_literals_are_leaf_nodes_with_stable_ids():
    g = EvidenceGraph()
    date = Value("literal", "1867-11-07", datatype="http://www.w3.org/2001/XMLSchema#date")
    u, v, _ = g.add_statement(Statement("Q7186", "P569", date))
    assert v.startswith("lit:") and g.graph.nodes[v]["value"] == date
    assert EvidenceGraph().add_statement(Statement("Q1", "P569", date))[1] == v


# -- a live SPARQL endpoint (kgground's own server with the demo KB, on loopback) ----------------

def test_chains_through_a_sparql_endpoint(demo_endpoint, linker):
    """Statements from the endpoint; linking (until it works over any KB, issue 13) from a
    mirror of the same KB."""
    from kb.endpoint import SparqlEndpointKB
    live = SparqlEndpointKB(demo_endpoint.url, cache=False)
    ev = chains.connect_entities(live, "Q7186", "Q37463", hops=1)
    check_invariants(ev)
    assert ev.chains[0].text == "Marie Curie — spouse → Pierre Curie [1]"
    assert ev.citations[0].source == f"sparql:{demo_endpoint.url}"
    asked = demo_endpoint.asked()
    assert asked > 0
    q = chains.build_evidence("Where was Marie Curie born?", live, linker, hops=1)
    check_invariants(q)
    assert "Q270" in {c.end for c in q.chains[:2]}          # Warsaw (or the birth date first)
    assert {c.source for c in q.citations} == {f"sparql:{demo_endpoint.url}"}
    assert demo_endpoint.asked() > asked
