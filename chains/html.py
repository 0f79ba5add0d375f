"""The evidence graph as one self-contained, interactive HTML page (works offline).

Built on pyvis: its ``Network`` holds the nodes and edges (vis-network's data format) and
its bundled vis-network build is inlined into the page, so nothing is fetched — a
Content-Security-Policy in the page forbids any network access. The page shows:

- the graph: labelled nodes and edges; question entities as bold boxes, answers filled,
  the shortlisted chains in colour (thicker), everything else grey;
- the chains, best first, each as its sentence with citation numbers (click one to
  highlight it in the graph), and every node in a list (click to select it);
- a details panel: click a node or an edge to see its statements, qualifiers and
  citations (source, statement ID, retrieval time) with links to wikidata.org, or to the
  custom KB's IRIs.

KB strings never become markup: the data goes into the page as JSON with ``<``, ``>``,
``&`` and quotes escaped (Jinja's ``tojson``), the script builds the panel with
``textContent``, links only ``http(s)`` URLs, and vis-network draws labels on a canvas and
shows string tooltips as text. Once the graph is drawn, ``window.evidenceReady`` turns
true and ``<body data-ready="true">`` appears (tests and benchmarks wait for the latter:
the page's Content-Security-Policy forbids eval, which polling a JS predicate needs).
"""

from __future__ import annotations

import webbrowser
from importlib import resources
from pathlib import Path
from typing import Any

from chains.export import CHAIN_COLOURS, chain_ranks
from chains.graph import EvidenceGraph
from store.errors import require

TEMPLATE = "evidence.html"
VIS_VERSION = "9.1.2"
#: above this many nodes the layout is computed here (rustworkx's spring layout, in Rust,
#: seeded) and the page draws it at once: vis-network's physics takes seconds to settle
#: hundreds of nodes in the browser, and networkx's spring layout seconds in Python
LARGE = 150
#: pixels per unit of the spring layout, per square root of the node count
SPREAD = 70


def _vis_assets() -> tuple[str, str]:
    """vis-network's JavaScript and CSS as pyvis ships them."""
    require("pyvis", "viewer", "the interactive HTML page")
    lib = resources.files("pyvis") / "templates" / "lib" / f"vis-{VIS_VERSION}"
    js = (lib / "vis-network.min.js").read_text(encoding="utf-8")
    css = (lib / "vis-network.css").read_text(encoding="utf-8")
    if "</script" in js.lower() or "</style" in css.lower():   # would end the element early
        raise RuntimeError("the bundled vis-network cannot be inlined safely")
    return js, css


def _network(evidence: EvidenceGraph) -> tuple[list[dict], list[dict]]:
    """vis-network nodes and edges of the graph, built with pyvis's Network."""
    from pyvis.network import Network

    net = Network(directed=True, cdn_resources="in_line")
    index = {node: i for i, node in enumerate(evidence.graph)}
    positions = _layout(evidence) if len(index) > LARGE else {}
    for node, data in evidence.graph.nodes(data=True):
        label = data.get("label") or node
        style: dict[str, Any] = {"shape": "dot", "size": 10,
                                 "color": {"background": "#c7d2e0", "border": "#5b6b80"}}
        if data.get("seed"):
            style = {"shape": "box", "borderWidth": 3,
                     "color": {"background": "#ffffff", "border": "#222222"},
                     "font": {"bold": True}}
        elif data.get("answer"):
            style = {"shape": "box", "borderWidth": 2,
                     "color": {"background": "#fff3c4", "border": "#b38600"}}
        elif data.get("kind", "entity") != "entity":
            style = {"shape": "box", "color": {"background": "#eeeeee", "border": "#999999"}}
        if node in positions:
            style.update(x=positions[node][0], y=positions[node][1])
        net.add_node(index[node], label=_short(label), title=f"{label}\n{node}", **style)
    ranks = chain_ranks(evidence)
    for u, v, key, data in evidence.graph.edges(keys=True, data=True):
        on = ranks.get((u, v, key), [])
        colour = CHAIN_COLOURS[(on[0] - 1) % len(CHAIN_COLOURS)] if on else "#aaaaaa"
        net.add_edge(index[u], index[v], label=_short(data.get("property_label") or key, 30),
                     title=f"{data.get('property_label') or key} ({key})",
                     color=colour, width=4 if on else 1, id=f"{index[u]}|{key}|{index[v]}")
    nodes, edges, *_ = net.get_network_data()
    return nodes, edges


def _layout(evidence: EvidenceGraph) -> dict[str, tuple[float, float]]:
    """Node positions in pixels from rustworkx's (seeded) spring layout."""
    rx = require("rustworkx", "viewer", "laying out large evidence graphs")
    nodes = list(evidence.graph)
    graph = rx.PyGraph()
    index = dict(zip(nodes, graph.add_nodes_from(nodes)))
    graph.add_edges_from_no_data(sorted({(index[u], index[v])
                                         for u, v in evidence.graph.edges() if u != v}))
    pos = rx.spring_layout(graph, seed=7, num_iter=100)
    scale = SPREAD * len(nodes) ** 0.5
    return {n: (round(pos[index[n]][0] * scale, 1), round(pos[index[n]][1] * scale, 1))
            for n in nodes}


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def render_html(evidence: EvidenceGraph, *, title: str | None = None) -> str:
    """The page for ``evidence``, as a string (UTF-8 HTML, no external resources)."""
    require("jinja2", "viewer", "the interactive HTML page")
    from jinja2 import Environment, FileSystemLoader, select_autoescape

    js, css = _vis_assets()
    nodes, edges = _network(evidence)
    data = evidence.as_dict()
    index = {node: i for i, node in enumerate(evidence.graph)}
    for item in data["nodes"]:
        item["index"] = index[item["id"]]
    for item in data["edges"]:
        item["vis"] = f"{index[item['source']]}|{item['key']}|{index[item['target']]}"
    env = Environment(loader=FileSystemLoader(Path(__file__).with_name("templates")),
                      autoescape=select_autoescape(["html"]))
    heading = title or evidence.question or _default_title(evidence)
    options: dict[str, Any] = {
        "interaction": {"hover": True, "tooltipDelay": 150, "navigationButtons": False},
        "edges": {"arrows": {"to": {"enabled": True, "scaleFactor": 0.6}},
                  "font": {"size": 10, "align": "middle", "strokeWidth": 3},
                  "smooth": {"type": "dynamic"}},
        "nodes": {"font": {"size": 13}},
        "layout": {"improvedLayout": len(nodes) <= LARGE, "randomSeed": 7},
        "physics": {"enabled": len(nodes) <= LARGE, "solver": "barnesHut",
                    "barnesHut": {"gravitationalConstant": -4000, "springLength": 120},
                    "stabilization": {"iterations": 300, "updateInterval": 50}},
    }
    if len(nodes) > LARGE:
        options["edges"]["smooth"] = False      # curved edges cost a body each to draw
    return env.get_template(TEMPLATE).render(
        heading=heading, nodes=nodes, edges=edges, options=options, evidence=data,
        colours=CHAIN_COLOURS, vis_js=js, vis_css=css, vis_version=VIS_VERSION)


def _default_title(evidence: EvidenceGraph) -> str:
    names = [s.label for s in evidence.seeds]
    if len(names) == 2 and evidence.question is None:
        return f"Chains between {names[0]} and {names[1]}"
    return "Evidence around " + ", ".join(names) if names else "Evidence graph"


def write_html(evidence: EvidenceGraph, path: str | Path, *, title: str | None = None,
               open_browser: bool = False) -> Path:
    """Write the page to ``path``; ``open_browser`` opens it in the default browser."""
    path = Path(path)
    path.write_text(render_html(evidence, title=title), encoding="utf-8")
    if open_browser:
        webbrowser.open(path.resolve().as_uri())
    return path
