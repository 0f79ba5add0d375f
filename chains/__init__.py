"""Evidence chains: the statements that support an answer, as a graph, and the best paths
through it from the question's entities — LLM-Augmenter's knowledge consolidator over a
knowledge graph, through any ``kb.KnowledgeBase``.

    import kb, chains
    from linking import EntityLinker
    base = kb.open("slice.sqlite")
    ev = chains.build_evidence("Where was Marie Curie born?", base, EntityLinker(base),
                               hops=2, top=5)
    for chain in ev.chains:              # scored, best first
        print(chain.score, chain.text)   # 'Marie Curie — place of birth → Warsaw [1]'
    ev.citations[0].url                  # citation [1]
    ev.prompt()                          # chains and citations for an LLM prompt
    ev.as_dict()                         # JSON, schema 'kgground/evidence-graph' v1
    chains.write_html(ev, "evidence.html")   # an offline, interactive page

    chains.connect_entities(base, "Q7186", "Q37463", hops=3)   # chains between two entities

Modules: ``evidence`` (the entry points), ``search`` (expansion, scoring, connecting; the
scoring is described there), ``relevance`` (property fit through linking's
PropertyLinker), ``neighbourhood`` (cached KB reads), ``graph`` (``EvidenceGraph``, the
networkx MultiDiGraph and its JSON form), ``types`` (Seed, Step, Chain), ``export``
(JSON, GraphML, DOT) and ``html`` (the page).
"""

from chains.evidence import build_evidence, connect_entities, expand_entity, link_seeds
from chains.export import (SCHEMA_PATH, load_schema, to_dot, write_dot, write_graphml,
                           write_json)
from chains.graph import SCHEMA, SCHEMA_VERSION, EvidenceGraph
from chains.html import render_html, write_html
from chains.search import Limits
from chains.types import Chain, Seed, Step

__all__ = ["Chain", "EvidenceGraph", "Limits", "SCHEMA", "SCHEMA_PATH", "SCHEMA_VERSION",
           "Seed", "Step", "build_evidence", "connect_entities", "expand_entity",
           "link_seeds", "load_schema", "render_html", "to_dot", "write_dot",
           "write_graphml", "write_html", "write_json"]
