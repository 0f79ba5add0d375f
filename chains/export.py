"""Exports of an EvidenceGraph: JSON (the versioned schema), GraphML and DOT.

- **JSON**: ``EvidenceGraph.as_dict()``, schema ``kgground/evidence-graph`` version 1,
  described by the JSON Schema at ``SCHEMA_PATH`` (``load_schema()``). A change that
  removes or renames a field raises the version; new optional fields do not.
- **GraphML** (networkx's writer): nodes and edges with scalar attributes — label, kind,
  url, seed, answer; property, property_label, rank, statement_id, source, retrieved_at,
  url, qualifiers (as JSON text) and ``chains`` (the shortlist ranks the edge is on, e.g.
  "1,3"). Opens in Gephi, yEd, Cytoscape.
- **DOT** (the ``graphviz`` package's writer): labelled nodes and edges; the shortlisted
  chains drawn bold in colour, the question entities double-circled. Every KB string goes
  through ``graphviz.escape`` (no HTML-like labels, no backslash escapes).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import networkx as nx

from chains.graph import EvidenceGraph

SCHEMA_PATH = Path(__file__).with_name("schema") / "evidence-graph-v1.schema.json"
#: colours of the shortlisted chains, by rank (DOT and the HTML page)
CHAIN_COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b",
                 "#e377c2", "#17becf", "#bcbd22", "#7f7f7f")


def load_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of ``EvidenceGraph.as_dict()``."""
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


def write_json(evidence: EvidenceGraph, path: str | Path) -> Path:
    path = Path(path)
    path.write_text(evidence.to_json(indent=2) + "\n", encoding="utf-8")
    return path


def chain_ranks(evidence: EvidenceGraph) -> dict[tuple[str, str, str], list[int]]:
    """(u, v, key) of each edge on a shortlisted chain → the ranks of its chains."""
    ranks: dict[tuple[str, str, str], list[int]] = {}
    for rank, chain in enumerate(evidence.chains, 1):
        for s in chain.steps:
            edge = (s.source, s.target, s.key) if s.forward else (s.target, s.source, s.key)
            ranks.setdefault(edge, []).append(rank)
    return ranks


def to_graphml_graph(evidence: EvidenceGraph) -> nx.MultiDiGraph:
    """A copy of the graph with only scalar attributes, as GraphML can hold them."""
    out = nx.MultiDiGraph(question=evidence.question or "", kb=evidence.kb_name,
                          lang=evidence.lang)
    for node, data in evidence.graph.nodes(data=True):
        attrs = {"label": data.get("label") or node, "kind": data.get("kind", "entity"),
                 "url": data.get("url") or "", "description": data.get("description") or "",
                 "seed": bool(data.get("seed")), "answer": bool(data.get("answer"))}
        if data.get("value") is not None:
            attrs["value"] = data["value"].value
            attrs["lang"] = data["value"].lang
            attrs["datatype"] = data["value"].datatype
        out.add_node(node, **attrs)
    ranks = chain_ranks(evidence)
    for u, v, key, data in evidence.graph.edges(keys=True, data=True):
        cite = data.get("citation")
        out.add_edge(u, v, key, property=data["property"],
                     property_label=data.get("property_label") or data["property"],
                     rank=data["rank"], statement_id=data["statement"].id or "",
                     source=cite.source if cite else "",
                     retrieved_at=(cite.retrieved_at or "") if cite else "",
                     url=cite.url if cite else "",
                     qualifiers=json.dumps([q.as_dict() for q in data["qualifiers"]],
                                           ensure_ascii=False),
                     relevance=float(data.get("relevance", 0.0)),
                     chains=",".join(map(str, ranks.get((u, v, key), []))))
    return out


def write_graphml(evidence: EvidenceGraph, path: str | Path) -> Path:
    path = Path(path)
    nx.write_graphml(to_graphml_graph(evidence), path, encoding="utf-8")
    return path


def to_dot(evidence: EvidenceGraph) -> str:
    """The graph in Graphviz's DOT language (``dot -Tsvg`` draws it)."""
    import graphviz
    from graphviz import escape

    g = graphviz.Digraph("evidence", graph_attr={"rankdir": "LR", "fontname": "Helvetica"},
                         node_attr={"fontname": "Helvetica", "shape": "box",
                                    "style": "rounded"},
                         edge_attr={"fontname": "Helvetica", "fontsize": "10"})
    if evidence.question:
        g.attr(label=escape(evidence.question), labelloc="t")
    names = {node: f"n{i}" for i, node in enumerate(evidence.graph)}
    for node, data in evidence.graph.nodes(data=True):
        attrs = {"label": escape(data.get("label") or node), "tooltip": escape(node)}
        if data.get("url"):
            attrs["URL"] = escape(data["url"])
        if data.get("seed"):
            attrs.update(shape="doubleoctagon", style="bold")
        elif data.get("answer"):
            attrs.update(style="rounded,bold,filled", fillcolor="#fff3c4")
        elif data.get("kind", "entity") != "entity":
            attrs.update(shape="note", style="")
        g.node(names[node], **attrs)
    ranks = chain_ranks(evidence)
    for u, v, key, data in evidence.graph.edges(keys=True, data=True):
        attrs = {"label": escape(data.get("property_label") or data["property"]),
                 "tooltip": escape(key)}
        on = ranks.get((u, v, key))
        if on:
            attrs.update(color=CHAIN_COLOURS[(on[0] - 1) % len(CHAIN_COLOURS)],
                         penwidth="2.5", fontcolor="black")
        else:
            attrs.update(color="#999999", fontcolor="#666666")
        g.edge(names[u], names[v], **attrs)
    return g.source


def write_dot(evidence: EvidenceGraph, path: str | Path) -> Path:
    path = Path(path)
    path.write_text(to_dot(evidence), encoding="utf-8")
    return path
