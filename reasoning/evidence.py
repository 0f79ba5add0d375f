"""The evidence an answer may rest on: numbered statements, the evidence graph they belong
to, and the KB's own answer.

``Evidence`` is what the knowledge consolidator (``reasoning.consolidate``) hands to the
prompt engine and the utility check:

- ``graph``: a ``chains.EvidenceGraph`` holding every statement found — the answers of the
  generated queries (as one-chain-per-answer, first) and the chainer's shortlist;
- ``statements``: the graph's citations as ``CitedStatement`` objects, numbered 1..n in
  the graph's order (so ``[n]`` in a prompt, an answer and the HTML page mean the same
  statement), each written as a sentence ("Marie Curie — place of birth → Warsaw");
- ``kb_answer``: what the KB alone answers — the answers of the question's best query
  graph (``querygen.graphs``) when it reaches the model's confidence threshold, else
  nothing — as ``AnswerValue`` objects with their numbers; ``kb_confidence`` is that
  graph's calibrated confidence (0 when there is none), ``kb_graph`` the graph itself,
  ``kb_missing``/``kb_reason`` what the KB lacks when it has no answer ("entity",
  "relation", "fact", "confidence", "negation"; in words), and ``ranking`` every graph
  that was scored;
- ``nodes``: every node of a numbered statement with its label and the numbers that hold
  it — what the utility check matches an answer's words against.

``add_answer_chains`` turns cited query answers into chains of the graph; ``number``
re-numbers the graph after chains were added.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from chains import Chain, EvidenceGraph, Step
from chains.graph import property_label
from chains.neighbourhood import node_id
from kb.base import KnowledgeBase
from kb.types import Citation, Statement, Value
from reasoning.answer import AnswerValue, CitedStatement
from store.errors import KGGroundError


@dataclass(frozen=True)
class EvidenceNode:
    """A node of the numbered evidence: entity ID (or literal node ID), its label, the
    value when it is a literal, and the statement numbers it appears in."""

    id: str
    label: str
    value: Value | None
    numbers: tuple[int, ...]

    @property
    def entity_id(self) -> str | None:
        return None if self.value is not None else self.id


@dataclass
class Evidence:
    """Numbered statements for one question (see the module docstring)."""

    question: str
    graph: EvidenceGraph | None = None
    statements: tuple[CitedStatement, ...] = ()
    kb_answer: tuple[AnswerValue, ...] = ()
    kb_confidence: float = 0.0
    kb_graph: Any = None
    kb_missing: str | None = None
    kb_reason: str = ""
    ranking: Any = None
    nodes: dict[str, EvidenceNode] = field(default_factory=dict)
    seeds: tuple[str, ...] = ()
    warnings: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.statements

    def get(self, number: int) -> CitedStatement | None:
        """The statement numbered ``number`` (None outside 1..n)."""
        if 1 <= number <= len(self.statements):
            return self.statements[number - 1]
        return None

    def block(self) -> str:
        """The evidence as a prompt writes it: one '[n] S — P → O' line per statement,
        then the chains of two or more statements that link them."""
        lines = [f"[{s.number}] {s.text}" for s in self.statements]
        paths = [c for c in (self.graph.chains if self.graph else []) if c.hops > 1]
        if paths:
            lines.append("")
            lines.append("Chains through these statements:")
            lines += [f"- {c.text}" for c in paths]
        return "\n".join(lines)

    def as_dict(self) -> dict[str, Any]:
        return {"statements": [s.as_dict() for s in self.statements],
                "kb_answer": [v.as_dict() for v in self.kb_answer],
                "warnings": list(self.warnings)}


def statement_from_citation(c: Citation) -> Statement:
    """The statement a citation names (what query answers carry), with the citation."""
    return Statement(c.subject, c.property, c.value, id=c.statement_id, citation=c)


def add_answer_chains(graph: EvidenceGraph, supports: Sequence[Sequence[Statement]],
                      starts: Iterable[str], score: float) -> list[Chain]:
    """One chain per answer, through the statements that support it (``supports``: for
    each answer, its statements), walked from one of ``starts`` (the query's entities)
    where the statements allow, else in the order given. The statements become edges of
    ``graph``; the chains are returned best first (in the order of ``supports``; an
    answer without statements gets none)."""
    starts = list(starts)
    out = []
    for statements in supports:
        if not statements:
            continue
        steps = _walk(graph, list(statements), starts)
        out.append(Chain(tuple(steps), score, "answer", features={"query": 1.0}))
    return out


def _walk(graph: EvidenceGraph, statements: list[Statement], starts: list[str]) -> list[Step]:
    """Steps through ``statements`` from a start node, each step leaving the node the last
    one reached; statements that do not connect are walked forwards from their subject."""
    left = list(statements)
    node = next((s for s in starts if any(st.subject == s or node_id(st.value) == s
                                          for st in left)), None)
    steps = []
    while left:
        pick = None
        for st in left:
            if node is not None and st.subject == node:
                pick = (st, True)
                break
            if node is not None and node_id(st.value) == node:
                pick = (st, False)
                break
        if pick is None:
            pick = (left[0], True)
        st, forward = pick
        left.remove(st)
        u, v, key = graph.add_statement(st, 1.0)
        steps.append(Step(st, forward, u if forward else v, v if forward else u, key))
        node = steps[-1].target
    return steps


def same_path(a: Chain, b: Chain) -> bool:
    """Whether two chains walk the same edges."""
    return [(s.source, s.target, s.key) for s in a.steps] == \
        [(s.source, s.target, s.key) for s in b.steps]


def number(graph: EvidenceGraph, chains: list[Chain], kb: KnowledgeBase
           ) -> tuple[CitedStatement, ...]:
    """Label the graph's new nodes, make ``chains`` its shortlist (numbering their
    citations in order) and return the numbered statements."""
    graph.label_nodes(kb)
    graph.finish(chains)
    steps: dict[int, Step] = {}
    for chain in graph.chains:
        for n, chain_step in zip(chain.numbers, chain.steps):
            steps.setdefault(n, chain_step)
    qualifier_labels: dict[str, str] = {}
    out = []
    for n, citation in enumerate(graph.citations, 1):
        step = steps.get(n)
        text = statement_text(graph, step, kb, qualifier_labels) if step else \
            f"{citation.subject} — {citation.property} → {citation.value}"
        out.append(CitedStatement(n, text, citation))
    return tuple(out)


def statement_text(graph: EvidenceGraph, step: Step, kb: KnowledgeBase,
                   qualifier_labels: dict[str, str]) -> str:
    """'Marie Curie — award received → Nobel Prize in Physics; point in time: 1903'."""
    u, v = (step.source, step.target) if step.forward else (step.target, step.source)
    prop = graph.graph.edges[u, v, step.key].get("property_label") or step.property
    text = f"{graph.label(u)} — {prop} → {graph.label(v)}"
    quals = []
    for q in step.statement.qualifiers:
        if q.property not in qualifier_labels:
            qualifier_labels[q.property] = property_label(kb, q.property)
        quals.append(f"{qualifier_labels[q.property]}: {_value_label(kb, q.value, graph)}")
    return text + ("; " + "; ".join(quals) if quals else "")


def _value_label(kb: KnowledgeBase, value: Value, graph: EvidenceGraph) -> str:
    if value.kind not in ("entity", "iri"):
        return str(value)
    if value.value in graph.graph:
        return graph.label(value.value)
    try:
        return kb.entity(value.value).label(graph.lang)
    except (KGGroundError, ValueError):
        return value.value


def index_nodes(graph: EvidenceGraph,
                statements: Sequence[CitedStatement]) -> dict[str, EvidenceNode]:
    """Every node of the numbered statements, with its label and numbers."""
    numbers: dict[str, list[int]] = {}
    values: dict[str, Value | None] = {}
    for s in statements:
        c = s.citation
        for node, value in ((c.subject, None), (node_id(c.value), c.value)):
            numbers.setdefault(node, []).append(s.number)
            if value is not None and value.kind not in ("entity", "iri"):
                values[node] = value
            else:
                values.setdefault(node, None)
    return {node: EvidenceNode(node, graph.label(node), values[node], tuple(nums))
            for node, nums in numbers.items()}
