"""The chainer's entry points: evidence for a question, chains between two entities, the
neighbourhood of one entity. Each returns an ``EvidenceGraph``.

    import kb, chains
    from linking import EntityLinker
    base = kb.open("slice.sqlite")
    ev = chains.build_evidence("Where was Marie Curie born?", base, EntityLinker(base))
    ev.chains[0].text        # 'Marie Curie — place of birth → Warsaw [1]'
    ev.prompt()              # numbered chains and citations, for an LLM prompt
    ev.as_dict()             # the versioned JSON form
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, Literal, overload

from chains.graph import EvidenceGraph
from chains.neighbourhood import Neighbourhood
from chains.relevance import Relevance, relation_phrase
from chains.search import (DEFAULT_LIMITS, Limits, connect, connection_chains, expand, score,
                           shortlist, walk_path)
from chains.types import Seed
from kb.base import KnowledgeBase
from kb.contracts import Linker, MentionLinker
from store.errors import KGGroundError, NotFound

#: runners-up of a mention within this much of its best candidate's score also seed chains
SEED_MARGIN = 0.1
#: candidates per mention that may seed chains
SEEDS_PER_MENTION = 3
#: at most this many seeds per question (the best linked first)
MAX_SEEDS = 8


def build_evidence(question: str, kb: KnowledgeBase, linker: MentionLinker | None = None, *,
                   hops: int = 2, top: int = 5, lang: str = "en",
                   entities: Sequence[str] | None = None,
                   limits: Limits = DEFAULT_LIMITS, per_end: int = 1) -> EvidenceGraph:
    """The evidence for ``question`` in ``kb``: the question entities, the statements
    around them up to ``hops`` away, and the ``top`` best chains.

    ``linker`` links the question (``link(question, lang=...)`` → mentions with ranked
    candidates) and its relation phrases (``properties.link(...)``); by default linking's
    ``EntityLinker(kb)``. ``entities`` (IDs or IRIs) replaces entity linking: the chains
    start from them. ``per_end`` bounds the shortlisted chains ending at one node. Chains
    between two question entities named by different mentions are searched for too.

    Raises ``KGGroundError`` when no question entity is found (name one with
    ``entities=``), ``EntityNotFound`` for a given entity the KB does not know.
    """
    _check_bounds(hops, top)
    started = time.perf_counter()
    warnings = []
    if linker is None:
        linker, warning = default_linker(kb, needed=not entities)
        warnings += [warning] if warning else []
    seeds = (seeds_from_ids(kb, entities, lang) if entities
             else link_seeds(linker, question, lang))
    if not seeds:
        raise KGGroundError(f"no entity of the question was found in {kb.name}",
                            got=question, fix="name the entity it is about (--entity ID), "
                            "or check the spelling")
    linked = time.perf_counter()
    graph = EvidenceGraph(question=question, lang=lang, kb_name=kb.name, hops=hops)
    graph.seeds = tuple(seeds)
    nb = Neighbourhood(kb, fetch=limits.fetch)
    relevance = Relevance(linker, question, lang=lang)
    pairs = []
    for seed in seeds:
        phrase = relation_phrase(question, (seed.start, seed.end))
        pairs += [(path, seed) for path in expand(graph, nb, seed, phrase, relevance,
                                                  hops=hops, limits=limits)]
    found = {tuple(s.key + s.source for s in p.steps) for p, _ in pairs}
    for a, b in _mention_pairs(seeds):
        phrase = relation_phrase(question, (a.start, a.end), (b.start, b.end))
        for walk in connect(nb, a.id, b.id, hops=hops)[:limits.keep]:
            path = walk_path(graph, walk, phrase, relevance)
            if tuple(s.key + s.source for s in path.steps) not in found:
                pairs.append((path, a))
    ranked = score(pairs, graph, [s.id for s in seeds], question)
    best = shortlist(ranked, top, per_end=per_end)
    graph.restrict(best + shortlist(ranked, limits.keep, per_end=2))
    searched = time.perf_counter()
    graph.label_nodes(kb)
    graph.finish(best)
    graph.stats = {"kb_calls": nb.calls, "chains_scored": len(ranked),
                   "link_ms": _ms(started, linked), "search_ms": _ms(linked, searched),
                   "label_ms": _ms(searched, time.perf_counter())}
    if warnings:
        graph.stats["warnings"] = "; ".join(warnings)
    return graph


def connect_entities(kb: KnowledgeBase, source: str, target: str, *, hops: int = 3, top: int = 5,
                     lang: str = "en", limits: Limits = DEFAULT_LIMITS) -> EvidenceGraph:
    """The ``top`` best chains between two entities of ``kb`` of at most ``hops`` steps
    (shortest first, then through the most specific entities). No chain within ``hops``:
    a graph with the two entities and no chains."""
    _check_bounds(hops, top)
    started = time.perf_counter()
    seeds = seeds_from_ids(kb, [source, target], lang)
    graph = EvidenceGraph(lang=lang, kb_name=kb.name, hops=hops)
    graph.seeds = tuple(seeds)
    for seed in seeds:
        graph.graph.add_node(seed.id, kind="entity")
    nb = Neighbourhood(kb, fetch=limits.fetch)
    chains = connection_chains(graph, nb, connect(nb, seeds[0].id, seeds[1].id, hops=hops))
    best = chains[:top]
    graph.restrict(chains[:max(top, limits.keep)])
    searched = time.perf_counter()
    graph.label_nodes(kb)
    graph.finish(best)
    graph.stats = {"kb_calls": nb.calls, "chains_scored": len(chains),
                   "search_ms": _ms(started, searched),
                   "label_ms": _ms(searched, time.perf_counter())}
    return graph


def expand_entity(kb: KnowledgeBase, entity: str, *, hops: int = 2, lang: str = "en",
                  limits: Limits = DEFAULT_LIMITS, labels: bool = True) -> EvidenceGraph:
    """The neighbourhood of one entity up to ``hops`` away, bounded by ``limits`` (no
    question: edges are kept in the KB's order, preferred statements first). No chains
    are shortlisted; ``labels=False`` leaves nodes unlabelled (faster)."""
    _check_bounds(hops, 1)
    started = time.perf_counter()
    seeds = seeds_from_ids(kb, [entity], lang)
    graph = EvidenceGraph(lang=lang, kb_name=kb.name, hops=hops)
    graph.seeds = tuple(seeds)
    graph.graph.add_node(seeds[0].id, kind="entity")
    nb = Neighbourhood(kb, fetch=limits.fetch)
    expand(graph, nb, seeds[0], "", Relevance(None, None), hops=hops, limits=limits)
    searched = time.perf_counter()
    if labels:
        graph.label_nodes(kb)
    graph.finish([])
    graph.stats = {"kb_calls": nb.calls, "search_ms": _ms(started, searched),
                   "label_ms": _ms(searched, time.perf_counter())}
    return graph


# -- seeds --------------------------------------------------------------------------------------

class _NoLinker:
    """No mentions, no property linking: chains from given entities, ranked by structure."""
    properties = None

    def link(self, text: str, *, lang: str = "en") -> Any:
        raise KGGroundError("this KB cannot be linked", fix="give the entities by ID")


@overload
def default_linker(kb: KnowledgeBase, *, needed: Literal[True] = True) -> tuple[Linker, None]: ...


@overload
def default_linker(kb: KnowledgeBase, *, needed: bool) -> tuple[MentionLinker, str | None]: ...


def default_linker(kb: KnowledgeBase, *, needed: bool = True) -> tuple[MentionLinker, str | None]:
    """(linking's EntityLinker for ``kb``, None). When the KB cannot be linked and linking
    is not ``needed`` (the question's entities are given), (a linker without property
    linking, a warning saying so); when it is needed, the linking error, with a fix."""
    from linking import EntityLinker
    try:
        return EntityLinker(kb), None
    except KGGroundError as exc:
        if needed:
            raise KGGroundError(f"the question cannot be linked: {exc.what}",
                                fix="name the question's entity by ID (entities=[...], "
                                    f"--entity ID); or {exc.fix}") from exc
        return _NoLinker(), (f"{exc.what}: chains are ranked without property linking")


def link_seeds(linker: MentionLinker, question: str, lang: str = "en") -> list[Seed]:
    """Question entities from linking: each mention's best candidate, and runners-up
    within ``SEED_MARGIN`` of it. A candidate's ``confidence`` (when linking gives one)
    is the seed's; otherwise the best has 1.0 and a runner-up its share of the best
    score."""
    result = linker.link(question, lang=lang)
    seeds: dict[str, Seed] = {}
    for lm in result.mentions:
        if not lm.candidates:
            continue
        best = lm.candidates[0]
        for c in lm.candidates[:SEEDS_PER_MENTION]:
            if c is not best and c.score < best.score - SEED_MARGIN:
                break
            conf = getattr(c, "confidence", None)
            if conf is None:
                conf = 1.0 if c is best else max(0.0, min(1.0, c.score / best.score))
            m = lm.mention
            if c.id not in seeds or seeds[c.id].confidence < conf:
                seeds[c.id] = Seed(c.id, c.label, float(conf), m.text, m.start, m.end)
    ordered = sorted(seeds.values(), key=lambda s: -s.confidence)
    return ordered[:MAX_SEEDS]


def seeds_from_ids(kb: KnowledgeBase, ids: Sequence[str], lang: str = "en") -> list[Seed]:
    """Seeds for entities given by ID; ``EntityNotFound`` names one the KB does not know
    (an entity with statements but no terms is accepted, labelled by its ID)."""
    seeds = []
    for eid in ids:
        try:
            entity = kb.entity(eid)
            seeds.append(Seed(entity.id, entity.label(lang)))
        except NotFound:
            if not kb.statements(subject=eid, limit=1) and not kb.statements(value=eid,
                                                                              limit=1):
                raise
            seeds.append(Seed(eid, eid))
    return seeds


def _mention_pairs(seeds: Sequence[Seed]) -> list[tuple[Seed, Seed]]:
    """Pairs of seeds named by different mentions (the first the better linked)."""
    out = []
    for i, a in enumerate(seeds):
        for b in seeds[i + 1:]:
            if a.mention is not None and (a.start, a.end) != (b.start, b.end):
                out.append((a, b))
    return out


def _check_bounds(hops: int, top: int) -> None:
    if not isinstance(hops, int) or not 1 <= hops <= 4:
        raise ValueError(f"hops must be 1 to 4, got {hops!r} (longer chains are mostly noise "
                         "and cost fanout**hops KB calls)")
    if not isinstance(top, int) or top < 1:
        raise ValueError(f"top must be a positive integer, got {top!r}")


def _ms(a: float, b: float) -> float:
    return round((b - a) * 1000, 2)
