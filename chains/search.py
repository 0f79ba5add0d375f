"""Chain search: expand around question entities, score the paths, connect entities.

**Expansion** (``expand``) is a beam search over paths. From each seed it reads the
statements around the node (both directions, at most ``Limits.fetch`` each way), ranks
them by relevance of their property to the question (``chains.relevance``), preferred
rank, whether the value leads on to an entity, and the popularity of the node they lead
to (how many of the statements read so far name it), keeps the best ``Limits.fanout`` of
them as edges of the evidence graph, and goes on from the ``Limits.beam`` best-scored
paths of each hop. Every path found is a chain.

**Scoring** (``score``): a chain's features are

``relation``    the relevance of its properties to the question: the first step's, plus for
                each later step what its relevance has above ``LATER_STEP_FLOOR``, up to
                1.0 in all (a chain explains the question's relation once: a second step
                pays off only when the first explains it poorly, as in "Where was the
                founder of Delta born?"). A property used again adds nothing (so
                "children of children" does not outrank "children"), nor does a step
                back from a value to another subject that has it ("X's language is
                Catalan; Y speaks Catalan" is about Y, not an answer about X)
``link``        how sure linking was of the start entity (the seed's confidence)
``hops``        a cost of ``HOP_COST`` per step after the first, and ``IDLE_STEP`` more for
                each such step that added no relation
``forward``     ``FORWARD`` when the first step reads the start entity's own statement
                (questions ask about their subject more often than about the value)
``agreement``   other chains reaching the same end: ``AGREEMENT`` × the sum of their
                relation scores, at most ``AGREEMENT``
``popularity``  ``POPULARITY`` × how connected the end is in the evidence graph
                (log-scaled to [0, 1]), a weak prior for well-known answers
``qualifier``   ``QUALIFIER`` when a qualifier of one of its statements is named in the
                question: a year or number in its text ("in 1903" and a point in time of
                1903), or another question entity ("together with Pierre Curie")

``score = link × relation − hops + forward + agreement + popularity + qualifier``. The
shortlist keeps the best chain per end node, best first.

**Connecting** two entities (``connect``) is a bidirectional breadth-first search: the side
with the smaller frontier goes one hop further until the sides meet or ``hops`` is spent;
the paths through the meeting nodes are scored by length and by how specific their inner
nodes are (a path through a hub — a country, a class — says little).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

from chains.graph import EvidenceGraph
from chains.neighbourhood import Neighbourhood, is_walkable, node_id
from chains.relevance import Relevance
from chains.types import Chain, ChainKind, Seed, Step
from kb.types import Statement, Value

HOP_COST = 0.15
#: a further cost of a step after the first that adds no relation: such a chain is its
#: shorter prefix plus a statement the question did not ask about
IDLE_STEP = 0.35
#: a step after the first adds only the relevance above this: the first step usually
#: explains the relation already, and weak matches (one shared word) are common
LATER_STEP_FLOOR = 0.3
FORWARD = 0.02
AGREEMENT = 0.1
POPULARITY = 0.05
QUALIFIER = 0.3
#: a property this relevant is asked for by name around a hub, whose statements were cut
RELEVANT = 0.5
#: numbers in a question, matched against qualifier values
NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")
#: nodes a connection search may read when it has to go from one side only
CONNECT_BUDGET = 600
#: a bound on the paths a connection search reconstructs
MAX_PATHS = 500


@dataclass(frozen=True)
class Limits:
    """Bounds on the work per question. ``fanout``: edges kept per node (the most
    relevant); ``beam``: paths extended per hop and seed; ``fetch``: statements read per
    node and direction; ``keep``: chains whose evidence stays in the graph for inspection
    (the shortlist itself is ``top``)."""
    fanout: int = 25
    beam: int = 20
    fetch: int = 200
    keep: int = 40


DEFAULT_LIMITS = Limits()


@dataclass
class _Path:
    steps: tuple[Step, ...]
    nodes: frozenset[str]
    relation: float
    used: frozenset[str]
    idle: int = 0                  # steps after the first that added no relation

    @property
    def end(self) -> str:
        return self.steps[-1].target


def _walk(statement: Statement, forward: bool) -> tuple[str, str]:
    """(from, to) node IDs of walking ``statement`` in the given direction."""
    v = node_id(statement.value)
    return (statement.subject, v) if forward else (v, statement.subject)


def _step(graph: EvidenceGraph, statement: Statement, forward: bool, relevance: float) -> Step:
    u, v, key = graph.add_statement(statement, relevance)
    return Step(statement, forward, u if forward else v, v if forward else u, key)


# -- expansion ----------------------------------------------------------------------------------

def expand(graph: EvidenceGraph, nb: Neighbourhood, seed: Seed, phrase: str,
           relevance: Relevance, *, hops: int, limits: Limits) -> list[_Path]:
    """Every path of at most ``hops`` steps the beam search finds from ``seed``; their
    edges are added to ``graph``."""
    start = _Path((), frozenset([seed.id]), 0.0, frozenset())
    frontier, found = [start], []
    kept: dict[tuple[str, bool], list[tuple[Statement, bool, float]]] = {}
    for depth in range(1, hops + 1):
        grown: list[_Path] = []
        for path in frontier:
            node = path.end if path.steps else seed.id
            first = depth == 1
            edges = kept.get((node, first))
            if edges is None:
                edges = kept[(node, first)] = _best_edges(
                    nb, node, phrase, relevance, subject=node if first else None,
                    fanout=limits.fanout)
            for statement, forward, rel in edges:
                _, target = _walk(statement, forward)
                if target in path.nodes:
                    continue
                pid = statement.property
                gain = _gain(rel, path.steps[-1] if path.steps else None, forward,
                             pid in path.used, path.relation)
                grown.append(_Path(path.steps + (_step(graph, statement, forward, rel),),
                                   path.nodes | {target}, path.relation + gain,
                                   path.used | {pid}, path.idle + (depth > 1 and not gain)))
        found += grown
        walkable = [p for p in grown if _walkable_end(p)]
        walkable.sort(key=lambda p: -p.relation)
        frontier = walkable[:limits.beam]
        if not frontier:
            break
    return found


def _gain(relevance: float, previous: Step | None, forward: bool, repeated: bool,
          so_far: float) -> float:
    """What a step of this relevance adds to a chain's relation score ``so_far``, after
    the ``previous`` step (None: this is the first)."""
    if previous is None:
        return relevance
    if repeated or (previous.forward and not forward):
        return 0.0              # the same property again, or a sibling sharing a value
    return min(max(0.0, relevance - LATER_STEP_FLOOR), max(0.0, 1.0 - so_far))


def _walkable_end(path: _Path) -> bool:
    last = path.steps[-1]
    return not last.forward or is_walkable(last.statement.value)


def _best_edges(nb: Neighbourhood, node: str, phrase: str, relevance: Relevance, *,
                subject: str | None, fanout: int) -> list[tuple[Statement, bool, float]]:
    """The ``fanout`` statements around ``node`` most worth following, with relevance."""
    around = nb.around(node)
    if nb.is_hub(node):
        wanted = [pid for pid, r in relevance.scores(phrase, subject).items() if r >= RELEVANT]
        if wanted:
            around = around + nb.along(node, wanted[:3])
    scored, seen = [], set()
    for order, (statement, forward) in enumerate(around):
        if (statement, forward) in seen:
            continue
        seen.add((statement, forward))
        rel = relevance.of(statement.property, phrase, subject)
        leads_on = forward and is_walkable(statement.value) or not forward
        popular = nb.mentions[_walk(statement, forward)[1]]
        scored.append((-rel, statement.rank != "preferred", not leads_on, -popular, order,
                       statement, forward, rel))
    scored.sort(key=lambda t: t[:5])
    return [(s, f, r) for *_, s, f, r in scored[:fanout]]


# -- scoring ----------------------------------------------------------------------------------

def score(paths: Iterable[tuple[_Path, Seed]], graph: EvidenceGraph,
          seeds: Iterable[str], question: str = "") -> list[Chain]:
    """Chains from (path, its seed) pairs, scored (see the module docstring), best first."""
    seed_ids = set(seeds)
    numbers = set(NUMBER.findall(question))
    paths = list(paths)
    by_end: dict[str, list[float]] = {}
    for path, _seed in paths:
        by_end.setdefault(path.end, []).append(path.relation)
    degrees = {n: d for n, d in graph.graph.degree()}
    top_degree = math.log1p(max(degrees.values(), default=0)) or 1.0
    chains = []
    for path, seed in paths:
        others = sum(by_end[path.end]) - path.relation
        feats = {"relation": path.relation, "link": seed.confidence,
                 "hops": -HOP_COST * (len(path.steps) - 1) - IDLE_STEP * path.idle,
                 "forward": FORWARD if path.steps[0].forward else 0.0,
                 "agreement": min(AGREEMENT, AGREEMENT * others),
                 "popularity": POPULARITY * math.log1p(degrees.get(path.end, 0)) / top_degree,
                 "qualifier": QUALIFIER if any(_named(q.value, numbers, seed_ids - {seed.id})
                                               for s in path.steps
                                               for q in s.statement.qualifiers) else 0.0}
        total = (seed.confidence * path.relation + feats["hops"] + feats["forward"]
                 + feats["agreement"] + feats["popularity"] + feats["qualifier"])
        kind: ChainKind = "connection" if path.end in seed_ids else "answer"
        chains.append(Chain(path.steps, total, kind, feats))
    chains.sort(key=_order)
    return chains


def _named(value: Value, numbers: set[str], entities: set[str]) -> bool:
    """Whether the question names this qualifier value: one of its other entities, or a
    number in it (a time matches by its year)."""
    if value.kind in ("entity", "iri"):
        return value.value in entities
    if not numbers or value.kind != "literal":
        return False
    text = str(value).lstrip("+")
    if value.datatype.endswith("#dateTime"):
        text = text.lstrip("-")[:4]
    return text in numbers


def _order(chain: Chain) -> tuple:
    return (-chain.score, chain.hops, chain.end, tuple(s.key for s in chain.steps))


def shortlist(chains: list[Chain], top: int, *, per_end: int = 1) -> list[Chain]:
    """The best ``top`` chains, at most ``per_end`` ending at the same node."""
    out: list[Chain] = []
    ends: dict[str, int] = {}
    for chain in chains:
        if ends.get(chain.end, 0) >= per_end:
            continue
        ends[chain.end] = ends.get(chain.end, 0) + 1
        out.append(chain)
        if len(out) >= top:
            break
    return out


# -- connecting two entities ----------------------------------------------------------------

#: a search side's parents: node → [(previous node, statement, forward)]
_Parents = dict[str, list[tuple[str, Statement, bool]]]


def connect(nb: Neighbourhood, source: str, target: str, *, hops: int,
            budget: int = CONNECT_BUDGET) -> list[list[tuple[Statement, bool]]]:
    """Walks (statement, forward) from ``source`` to ``target`` of at most ``hops`` steps,
    shortest first (at most ``MAX_PATHS``), by bidirectional breadth-first search.

    A hub endpoint (one whose statements were cut at ``Neighbourhood.fetch``: "human",
    a country) is not searched from — its list is incomplete — so the other side goes
    all the way; ``budget`` bounds the nodes read then (beyond it the search gives up with
    what it found)."""
    if source == target:
        return []
    sides: tuple[_Parents, _Parents] = ({source: []}, {target: []})
    frontiers = ([source], [target])
    depths = [0, 0]
    nb.around(source), nb.around(target)
    closed = [nb.is_hub(source) and not nb.is_hub(target),
              nb.is_hub(target) and not nb.is_hub(source)]
    reads = 0
    meeting: set[str] = set()
    while depths[0] + depths[1] < hops and all(frontiers):
        side = 0 if len(frontiers[0]) <= len(frontiers[1]) else 1
        if closed[side]:
            side = 1 - side
        if reads + len(frontiers[side]) > budget and reads:
            break
        reads += len(frontiers[side])
        seen = sides[side]
        new = _step_out(nb, frontiers[side], seen)
        for node, parents in new.items():
            seen[node] = parents
        frontiers = (list(new), frontiers[1]) if side == 0 else (frontiers[0], list(new))
        depths[side] += 1
        meeting = set(sides[0]) & set(sides[1])
        if meeting:
            break
    return _joined_walks(sides, meeting, source, target)


def _step_out(nb: Neighbourhood, frontier: list[str], seen: _Parents) -> _Parents:
    """One breadth-first step of a side of ``connect``: the nodes one statement away from
    ``frontier`` that the side has not reached (walking forward only to values that can
    be walked on), each with all the ways it was reached in this step."""
    new: _Parents = {}
    for node in frontier:
        for statement, forward in nb.around(node):
            _, other = _walk(statement, forward)
            if other == node or (forward and not is_walkable(statement.value)):
                continue
            if other in seen and other not in new:
                continue
            new.setdefault(other, []).append((node, statement, forward))
    return new


def _joined_walks(sides: tuple[_Parents, _Parents], meeting: set[str], source: str,
                  target: str) -> list[list[tuple[Statement, bool]]]:
    """The walks from ``source`` to ``target`` through the nodes where the two sides met,
    joined from each side's way back; none that passes a node twice; at most
    ``MAX_PATHS``."""
    paths: list[list[tuple[Statement, bool]]] = []
    for middle in sorted(meeting):
        for left in _back(sides[0], middle, source):
            for right in _back(sides[1], middle, target):
                walk = left + [(s, not f) for s, f in reversed(right)]
                nodes = [source] + [_walk(s, f)[1] for s, f in walk]
                if len(set(nodes)) == len(nodes):
                    paths.append(walk)
                if len(paths) >= MAX_PATHS:
                    return paths
    return paths


def connection_chains(graph: EvidenceGraph, nb: Neighbourhood,
                      walks: Iterable[list[tuple[Statement, bool]]], *,
                      relevance: Relevance | None = None, phrase: str = "") -> list[Chain]:
    """Chains of ``walks`` between two given entities, best first: shortest, then through
    the most specific inner nodes (fewest statements around them), then most relevant to
    ``phrase``. Their edges are added to ``graph``."""
    chains = []
    for walk in walks:
        rels = [relevance.of(s.property, phrase, None) if relevance else 0.0 for s, _ in walk]
        steps = tuple(_step(graph, s, f, r) for (s, f), r in zip(walk, rels))
        inner = [st.target for st in steps[:-1]]
        hubness = sum(math.log1p(nb.degree(n) or 0) for n in inner) / max(1, len(inner))
        feats = {"hops": -HOP_COST * (len(steps) - 1), "relation": sum(rels),
                 "specificity": -0.01 * hubness}
        chains.append(Chain(steps, sum(feats.values()), "connection", feats))
    chains.sort(key=_order)
    return chains


def walk_path(graph: EvidenceGraph, walk: list[tuple[Statement, bool]], phrase: str,
              relevance: Relevance) -> _Path:
    """A connecting walk as a path from its first node, scored like an expanded one."""
    steps: list[Step] = []
    used: set[str] = set()
    relation, idle = 0.0, 0
    nodes: set[str] = set()
    for i, (statement, forward) in enumerate(walk):
        step_from = _walk(statement, forward)[0]
        rel = relevance.of(statement.property, phrase, step_from if i == 0 else None)
        gain = _gain(rel, steps[-1] if steps else None, forward, statement.property in used,
                     relation)
        relation += gain
        idle += i > 0 and not gain
        used.add(statement.property)
        step = _step(graph, statement, forward, rel)
        steps.append(step)
        nodes.update((step.source, step.target))
    return _Path(tuple(steps), frozenset(nodes), relation, frozenset(used), idle)


def _back(parents: _Parents, node: str, root: str) -> list[list[tuple[Statement, bool]]]:
    """Every walk (statement, forward) from ``root`` to ``node`` through ``parents``."""
    if node == root:
        return [[]]
    out = []
    for previous, statement, forward in parents.get(node, []):
        for walk in _back(parents, previous, root):
            out.append(walk + [(statement, forward)])
            if len(out) >= MAX_PATHS:
                return out
    return out

