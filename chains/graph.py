"""The evidence graph: a ``networkx.MultiDiGraph`` of statements, with the chains through it.

Nodes are entities (ID or IRI) and literals (``lit:…``, see ``chains.neighbourhood``), with
attributes ``kind`` ('entity' or the value kind of a literal), ``label`` (in the graph's
language where the KB has one), ``description``, ``url`` (wikidata.org, or the custom KB's
IRI), ``value`` (a literal's ``kb.Value``), ``seed`` (a question entity) and ``answer``
(the end of a shortlisted answer chain).

Edges go from a statement's subject to its value, keyed by PID (``P19``; ``P19#2`` for a
second statement with the same property between the same nodes), with attributes
``statement`` (the ``kb.Statement``), ``property``, ``property_label``, ``rank``,
``qualifiers``, ``citation`` (the ``kb.Citation``) and ``relevance`` (how well the
property fits the question, in [0, 1]).

``as_dict()`` is the versioned JSON form (``SCHEMA``/``SCHEMA_VERSION``; the JSON Schema is
``chains/schema/evidence-graph-v1.schema.json``), ``prompt()`` the chains as numbered
sentences with their citations, ready for an LLM prompt.
"""

from __future__ import annotations

import json
from typing import Any, Iterable

import networkx as nx

from chains.neighbourhood import is_walkable, node_id
from chains.types import Chain, Seed, edge_id
from kb.base import KnowledgeBase
from kb.types import Citation, Statement, Value, wikidata_url
from store.errors import NotFound

SCHEMA = "kgground/evidence-graph"
SCHEMA_VERSION = 1


def local_name(iri: str) -> str:
    """A readable stand-in label for an IRI without one: its last path or fragment part."""
    tail = iri.rstrip("/#").replace("#", "/").rsplit("/", 1)[-1]
    return tail or iri


class EvidenceGraph:
    """Statements gathered for a question (or between two entities) and the chains
    through them, best first.

    ``graph`` is the networkx MultiDiGraph (see the module docstring for its attributes);
    ``seeds`` the question entities; ``chains`` the shortlist, scored, each with its
    sentence and citation numbers; ``citations`` the numbered citations (number n is
    ``citations[n - 1]``); ``stats`` how the graph was built (KB calls, timings).
    """

    def __init__(self, *, question: str | None = None, lang: str = "en", kb_name: str = "",
                 hops: int = 0):
        self.graph = nx.MultiDiGraph()
        self.question = question
        self.lang = lang
        self.kb_name = kb_name
        self.hops = hops
        self.seeds: tuple[Seed, ...] = ()
        self.chains: list[Chain] = []
        self.citations: list[Citation] = []
        self.stats: dict[str, Any] = {}
        self.answer: dict[str, Any] | None = None

    def __repr__(self) -> str:
        return (f"EvidenceGraph({self.graph.number_of_nodes()} nodes, "
                f"{self.graph.number_of_edges()} edges, {len(self.chains)} chains)")

    # -- building -----------------------------------------------------------------------------
    def add_statement(self, statement: Statement, relevance: float = 0.0) -> tuple[str, str, str]:
        """Add ``statement`` as an edge (and its nodes); returns the edge's (u, v, key).
        Adding the same statement twice returns the edge it already has."""
        u, v = statement.subject, node_id(statement.value)
        g = self.graph
        if u not in g:
            g.add_node(u, kind="entity")
        if v not in g:
            if is_walkable(statement.value):
                g.add_node(v, kind="entity")
            else:
                g.add_node(v, kind=statement.value.kind, value=statement.value)
        key, n = statement.property, 1
        while g.has_edge(u, v, key):
            data = g.edges[u, v, key]
            if data["statement"] == statement:
                data["relevance"] = max(data["relevance"], relevance)
                return u, v, key
            n += 1
            key = f"{statement.property}#{n}"
        g.add_edge(u, v, key, statement=statement, property=statement.property,
                   rank=statement.rank, qualifiers=statement.qualifiers,
                   citation=statement.citation, relevance=relevance)
        return u, v, key

    def restrict(self, chains: Iterable[Chain]) -> None:
        """Keep only the seeds and the nodes and edges of ``chains`` (pruning)."""
        keep_nodes = {s.id for s in self.seeds if s.id in self.graph}
        keep_edges = set()
        for chain in chains:
            keep_nodes.update(chain.nodes)
            for s in chain.steps:
                u, v = (s.source, s.target) if s.forward else (s.target, s.source)
                keep_edges.add((u, v, s.key))
        g = self.graph
        g.remove_edges_from([e for e in g.edges(keys=True) if e not in keep_edges])
        g.remove_nodes_from([n for n in list(g) if n not in keep_nodes])

    def label_nodes(self, kb: KnowledgeBase) -> None:
        """Fill in labels, descriptions and URLs of nodes and property labels of edges,
        through ``kb`` (entities without a label get their ID or IRI's local name)."""
        for node, data in self.graph.nodes(data=True):
            if "label" in data:
                continue
            value: Value | None = data.get("value")
            if value is not None:
                data["label"] = str(value)
                data["url"] = value.value if value.kind == "iri" else None
                continue
            try:
                entity = kb.entity(node)
                label = entity.label(self.lang)
                data["description"] = entity.description(self.lang)
            except (NotFound, ValueError):
                label = node
            data["label"] = local_name(node) if label == node and "://" in node else label
            data["url"] = wikidata_url(node)
        labels: dict[str, str] = {}
        for _u, _v, data in self.graph.edges(data=True):
            if "property_label" in data:
                continue
            pid = data["property"]
            if pid not in labels:
                labels[pid] = property_label(kb, pid, self.lang)
            data["property_label"] = labels[pid]

    def finish(self, chains: list[Chain]) -> None:
        """Set the shortlist: number the citations of ``chains`` in order, write each
        chain's sentence, mark answers."""
        self.citations = []
        numbers: dict[tuple[str, str, str], int] = {}
        done = []
        for chain in chains:
            cited = []
            for s in chain.steps:
                ekey = (s.source, s.target, s.key) if s.forward else (s.target, s.source,
                                                                        s.key)
                if ekey not in numbers:
                    self.citations.append(s.citation or _bare_citation(s.statement))
                    numbers[ekey] = len(self.citations)
                cited.append(numbers[ekey])
            done.append(_replace(chain, text=self.sentence(chain, cited),
                                 numbers=tuple(cited)))
        self.chains = done
        for chain in done:
            if chain.kind == "answer" and chain.end in self.graph:
                self.graph.nodes[chain.end]["answer"] = True
        for seed in self.seeds:
            if seed.id in self.graph:
                self.graph.nodes[seed.id]["seed"] = True

    # -- reading ------------------------------------------------------------------------------
    def label(self, node: str) -> str:
        data = self.graph.nodes.get(node, {})
        return data.get("label") or node

    def sentence(self, chain: Chain, numbers: Iterable[int] = ()) -> str:
        """The chain as statements in their own direction, each with its citation number:
        "Delta Air Lines — founded by → C. E. Woolman [1]; C. E. Woolman — place of birth
        → Bloomington [2]"."""
        parts = []
        numbers = list(numbers)
        for i, s in enumerate(chain.steps):
            u, v = (s.source, s.target) if s.forward else (s.target, s.source)
            prop = self.graph.edges[u, v, s.key].get("property_label") or s.property
            cite = f" [{numbers[i]}]" if i < len(numbers) else ""
            parts.append(f"{self.label(u)} — {prop} → {self.label(v)}{cite}")
        return "; ".join(parts)

    @property
    def answers(self) -> list[str]:
        """The ends of the shortlisted answer chains, best first, without repeats."""
        return list(dict.fromkeys(c.end for c in self.chains if c.kind == "answer"))

    def prompt(self) -> str:
        """The shortlist for an LLM prompt: one numbered line per chain, then the citations
        by number (source, statement ID where known, URL)."""
        lines = [f"{i}. {c.text}" for i, c in enumerate(self.chains, 1)]
        if self.citations:
            lines.append("Citations:")
            lines += [f"[{n}] {cite_line(c)}" for n, c in enumerate(self.citations, 1)]
        return "\n".join(lines)

    # -- the JSON form --------------------------------------------------------------------
    def as_dict(self) -> dict[str, Any]:
        """The graph as data, in the versioned schema ``SCHEMA`` v``SCHEMA_VERSION``."""
        g = self.graph
        nodes = []
        for node, data in g.nodes(data=True):
            item = {"id": node, "kind": data.get("kind", "entity"),
                    "label": data.get("label") or node,
                    "description": data.get("description"), "url": data.get("url"),
                    "seed": bool(data.get("seed")), "answer": bool(data.get("answer"))}
            if data.get("value") is not None:
                item["value"] = data["value"].as_dict()
            nodes.append(item)
        edges = []
        for u, v, key, data in g.edges(keys=True, data=True):
            st: Statement = data["statement"]
            cite = data.get("citation")
            edges.append({"id": edge_id(u, v, key), "source": u, "target": v, "key": key,
                          "property": data["property"],
                          "property_label": data.get("property_label") or data["property"],
                          "rank": data["rank"], "statement_id": st.id,
                          "value": st.value.as_dict(),
                          "qualifiers": [q.as_dict() for q in data["qualifiers"]],
                          "references": [r.as_dict() for r in st.references],
                          "relevance": round(data.get("relevance", 0.0), 6),
                          "citation": cite.as_dict() if cite else None})
        return {"schema": SCHEMA, "version": SCHEMA_VERSION, "question": self.question,
                "lang": self.lang, "kb": self.kb_name, "hops": self.hops,
                "seeds": [s.as_dict() for s in self.seeds],
                "nodes": nodes, "edges": edges,
                "chains": [{"rank": i, **c.as_dict()} for i, c in enumerate(self.chains, 1)],
                "citations": [{"number": n, **c.as_dict()}
                              for n, c in enumerate(self.citations, 1)],
                "stats": {k: v for k, v in self.stats.items()
                          if isinstance(v, (int, float, str))},
                "answer": self.answer}

    def to_json(self, **dump_options: Any) -> str:
        return json.dumps(self.as_dict(), ensure_ascii=False, **dump_options)


def property_label(kb: KnowledgeBase, pid: str, lang: str = "en") -> str:
    """A property's label in ``lang`` through ``kb`` (its entity's terms, else its English
    ``property_info``); its ID (or IRI's local name) when the KB has none."""
    label = None
    try:
        label = kb.entity(pid).labels.get(lang)
    except (NotFound, ValueError):
        pass
    if not label:
        try:
            label = kb.property_info(pid).label
        except (NotFound, ValueError):
            label = None
    if label and label != pid:
        return label
    return local_name(pid) if "://" in pid else pid


def cite_line(c: Citation) -> str:
    """One citation as text: "Q7186 P19 Q270 — mirror:/x.sqlite, statement Q7186$…,
    retrieved 2026-…, https://www.wikidata.org/wiki/Q7186#…"."""
    return f"{c.subject} {c.property} {c.value.value} — {provenance(c)}, {c.url}"


def provenance(c: Citation) -> str:
    """Where a citation's statement comes from: "mirror:/x.sqlite, statement Q7186$…,
    retrieved 2026-…" (and the dump date when the source has one)."""
    parts = [c.source]
    if c.statement_id:
        parts.append(f"statement {c.statement_id}")
    if c.retrieved_at:
        parts.append(f"retrieved {c.retrieved_at}")
    if c.dump_date:
        parts.append(f"dump {c.dump_date}")
    return ", ".join(parts)


def _bare_citation(st: Statement) -> Citation:
    return Citation(st.subject, st.property, st.value, source="unknown")


def _replace(chain: Chain, **changes: Any) -> Chain:
    from dataclasses import replace
    return replace(chain, **changes)
