"""Exports of evidence graphs: the JSON schema, GraphML read back by networkx, DOT drawn by
Graphviz's own `dot` — each with the hostile labels of the Turtle test KB."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import networkx as nx
import pytest

import chains
import kb

LIBRARY = Path(__file__).parent / "data" / "chains-library.ttl"
EX = "http://example.org/lib/"
HOSTILE = ('<script>window.__pwned = 1</script><img src=x onerror="window.__pwned=2"> '
           'Press')
QUOTED = 'Owl "Night" Books \\ Co'


@pytest.fixture(scope="module")
def library_evidence():
    """The whole Turtle KB around Ada Quill, two hops out: both hostile labels in it."""
    library = kb.open(LIBRARY)
    ev = chains.build_evidence("What did Ada Quill write, and who published it?", library,
                               entities=[EX + "ada"], hops=3, top=8)
    labels = {d["label"] for _, d in ev.graph.nodes(data=True)}
    assert HOSTILE in labels and QUOTED in labels
    return ev


@pytest.fixture(scope="module")
def demo_evidence(demo_mirror_path, tmp_path_factory):
    from linking import EntityLinker
    copy = tmp_path_factory.mktemp("chains-demo") / "demo.sqlite"
    shutil.copy(demo_mirror_path, copy)             # linking builds its sidecar beside it
    demo = kb.open(copy)
    return chains.build_evidence("Who won the Nobel Prize in Physics in 1903?", demo,
                                 EntityLinker(demo))


def validator():
    jsonschema = pytest.importorskip("jsonschema", reason="pip install 'kgground[test]'")
    schema = chains.load_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_json_follows_the_published_schema(library_evidence, demo_evidence, demo_mirror_path):
    check = validator()
    demo = kb.open(demo_mirror_path)
    for ev in (library_evidence, demo_evidence,
               chains.connect_entities(demo, "Q7186", "Q937"),
               chains.expand_entity(demo, "Q7186", hops=2)):
        data = json.loads(ev.to_json())
        errors = [e.message for e in check.iter_errors(data)]
        assert errors == []
        assert (data["schema"], data["version"]) == (chains.SCHEMA, chains.SCHEMA_VERSION)
        edges = {e["id"] for e in data["edges"]}
        assert all(s["edge"] in edges for c in data["chains"] for s in c["steps"])
    # the schema is not vacuous: a broken document fails it
    broken = json.loads(demo_evidence.to_json())
    broken["chains"][0]["steps"][0].pop("forward")
    broken["edges"][0]["rank"] = "best"
    assert len(list(check.iter_errors(broken))) == 2


def test_json_keeps_qualifiers_and_citations(demo_evidence):
    data = demo_evidence.as_dict()
    first = data["chains"][0]
    edge = next(e for e in data["edges"] if e["id"] == first["steps"][0]["edge"])
    assert edge["property"] == "P166" and edge["statement_id"]
    assert {"property": "P585"}.items() <= edge["qualifiers"][0].items()
    assert data["citations"][0]["number"] == 1
    assert data["citations"][0]["statement_id"] == edge["statement_id"]
    assert first["citations"] == [1] and first["text"].endswith("[1]")


def test_write_json_file(tmp_path, library_evidence):
    path = chains.write_json(library_evidence, tmp_path / "ev.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    assert HOSTILE in {n["label"] for n in data["nodes"]}


def test_graphml_round_trip(tmp_path, library_evidence):
    path = chains.write_graphml(library_evidence, tmp_path / "ev.graphml")
    ET.parse(path)                                   # well-formed XML
    back = nx.read_graphml(path, force_multigraph=True)
    g = library_evidence.graph
    assert back.number_of_nodes() == g.number_of_nodes()
    assert back.number_of_edges() == g.number_of_edges()
    assert back.nodes[EX + "pub"]["label"] == HOSTILE
    assert back.nodes[EX + "owl"]["label"] == QUOTED
    assert back.nodes[EX + "ada"]["seed"] is True
    on_chain = [d for _, _, d in back.edges(data=True) if d["chains"]]
    assert on_chain and all(d["source"].startswith("rdf:") for d in on_chain)
    ranks = {int(r) for d in on_chain for r in d["chains"].split(",")}
    assert ranks == set(range(1, len(library_evidence.chains) + 1))


def test_dot_is_drawn_by_graphviz_with_labels_as_text(tmp_path, library_evidence):
    dot = shutil.which("dot")
    if dot is None:
        if os.environ.get("CI"):
            pytest.fail("Graphviz's dot is missing: .ci/run installs it")
        pytest.skip("Graphviz's dot is not installed (apt-get install graphviz)")
    path = chains.write_dot(library_evidence, tmp_path / "ev.dot")
    svg = subprocess.run([dot, "-Tsvg", str(path)], capture_output=True, text=True,
                         check=True, timeout=60).stdout
    root = ET.fromstring(svg)
    ns = "{http://www.w3.org/2000/svg}"
    texts = [t.text for t in root.iter(f"{ns}text")]
    assert HOSTILE in texts and QUOTED in texts      # drawn as written, not as markup
    assert not list(root.iter(f"{ns}script")) and not list(root.iter(f"{ns}img"))
    nodes = [g for g in root.iter(f"{ns}g") if g.get("class") == "node"]
    edges = [g for g in root.iter(f"{ns}g") if g.get("class") == "edge"]
    assert len(nodes) == library_evidence.graph.number_of_nodes()
    assert len(edges) == library_evidence.graph.number_of_edges()
