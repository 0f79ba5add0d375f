"""What the chainer returns: question entities (seeds), steps along statements, chains.

A ``Chain`` is a path through the evidence graph that starts at a question entity: each
``Step`` walks one statement, forwards (subject → value) or backwards (value → subject).
Chains are frozen; ``EvidenceGraph`` fills in their sentence and citation numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Mapping

from kb.types import Citation, Statement

ChainKind = Literal["answer", "connection"]


@dataclass(frozen=True, slots=True)
class Seed:
    """A question entity the chains start from: the entity, the mention that named it
    (None when the caller gave the ID), and how sure linking was, in [0, 1]."""
    id: str
    label: str
    confidence: float = 1.0
    mention: str | None = None
    start: int | None = None
    end: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "label": self.label, "confidence": round(self.confidence, 6),
                "mention": self.mention, "start": self.start, "end": self.end}


@dataclass(frozen=True, slots=True)
class Step:
    """One statement walked by a chain. ``forward``: from its subject to its value; else
    from its value back to its subject. ``source``/``target`` are the evidence graph's node
    IDs in walking order; ``key`` is the edge's key in the graph."""
    statement: Statement
    forward: bool
    source: str
    target: str
    key: str

    @property
    def citation(self) -> Citation | None:
        return self.statement.citation

    @property
    def property(self) -> str:
        return self.statement.property


@dataclass(frozen=True, slots=True)
class Chain:
    """A path from a question entity (``start``) to ``end``, with its score.

    ``kind`` is 'answer' (``end`` is a candidate answer) or 'connection' (``end`` is
    another question entity: the chain links two things the question names). ``features``
    are the parts of ``score`` (see ``chains.search``). ``text`` is the chain as a sentence
    with citation numbers, e.g. "Marie Curie — place of birth → Warsaw [1]"; ``numbers``
    are those numbers, one per step, into ``EvidenceGraph.citations`` (1-based), and
    ``citations`` the steps' ``kb.Citation`` objects themselves.
    """
    steps: tuple[Step, ...]
    score: float
    kind: ChainKind = "answer"
    features: Mapping[str, float] = field(default_factory=dict, compare=False)
    text: str = field(default="", compare=False)
    numbers: tuple[int, ...] = field(default=(), compare=False)

    @property
    def start(self) -> str:
        return self.steps[0].source

    @property
    def end(self) -> str:
        return self.steps[-1].target

    @property
    def nodes(self) -> tuple[str, ...]:
        return (self.start, *(s.target for s in self.steps))

    @property
    def hops(self) -> int:
        return len(self.steps)

    @property
    def statements(self) -> tuple[Statement, ...]:
        return tuple(s.statement for s in self.steps)

    @property
    def citations(self) -> tuple[Citation | None, ...]:
        """The citation of each step's statement (None where the KB gave none)."""
        return tuple(s.citation for s in self.steps)

    def as_dict(self) -> dict[str, Any]:
        """The chain as data; ``edge`` names each step's edge in ``EvidenceGraph.as_dict``,
        ``citations`` holds the citation numbers (``numbers``)."""
        return {"kind": self.kind, "score": round(self.score, 6), "start": self.start,
                "end": self.end, "hops": self.hops, "text": self.text,
                "citations": list(self.numbers),
                "features": {k: round(v, 6) for k, v in self.features.items()},
                "steps": [{"edge": edge_id(s.source if s.forward else s.target,
                                           s.target if s.forward else s.source, s.key),
                           "subject": s.statement.subject, "property": s.property,
                           "value": s.statement.value.as_dict(), "forward": s.forward,
                           "from": s.source, "to": s.target}
                          for s in self.steps]}


def edge_id(u: str, v: str, key: str) -> str:
    """The stable name of one edge of the evidence graph (in JSON and in the page)."""
    return f"{u}|{key}|{v}"
