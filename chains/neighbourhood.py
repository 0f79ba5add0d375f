"""The statements around a node, read through any KnowledgeBase and cached for one build.

Nodes of the evidence graph are entity IDs (``Q42``, or a custom KB's IRI) and literals;
a literal's node ID is ``lit:`` and a digest of its value (``literal_id``). Only entities
and IRIs are walked through: literals (and blank nodes, which not every KB can look up)
are leaves.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable

from kb.base import KnowledgeBase
from kb.types import Statement, Value
from store.errors import InvalidId

#: value kinds that name a node one can walk on from
WALKABLE = ("entity", "iri")


def literal_id(value: Value) -> str:
    """The node ID of a literal (or other non-entity) value: stable across runs."""
    digest = hashlib.sha1("\x1f".join((value.kind, value.value, value.lang,
                                      value.datatype)).encode()).hexdigest()[:16]
    return f"lit:{digest}"


def node_id(value: Value) -> str:
    """The node a statement's value is: the entity ID or IRI, else a literal's ID."""
    return value.value if value.kind in WALKABLE else literal_id(value)


def is_walkable(value: Value) -> bool:
    return value.kind in WALKABLE


class Neighbourhood:
    """Cached reads of the statements around nodes: ``around(node)`` gives (statement,
    forward) pairs — forward when the node is the subject, backward when it is the value.

    ``fetch`` caps the statements asked per node and direction: a hub (a country, a
    class) has thousands, and a path through a hub says little. ``sizes[node]`` records
    how many came back each way, so callers can tell a hub (the cap was reached).
    ``mentions[node]`` counts the statements read so far that name a node: its popularity
    in the region being explored, known without asking the KB about it.
    """

    def __init__(self, kb: KnowledgeBase, *, fetch: int = 200) -> None:
        self.kb = kb
        self.fetch = fetch
        self._around: dict[str, list[tuple[Statement, bool]]] = {}
        self.sizes: dict[str, tuple[int, int]] = {}
        self.mentions: Counter[str] = Counter()
        self.calls = 0

    def around(self, node: str) -> list[tuple[Statement, bool]]:
        found = self._around.get(node)
        if found is None:
            try:
                out = self.kb.statements(subject=node, limit=self.fetch)
                into = self.kb.statements(value=node, limit=self.fetch)
            except InvalidId:            # not a node this KB can look up: a leaf
                out, into = [], []
            self.calls += 2
            self.sizes[node] = (len(out), len(into))
            found = [(s, True) for s in out] + [(s, False) for s in into]
            self.mentions.update(node_id(s.value) for s in out)
            self.mentions.update(s.subject for s in into)
            self._around[node] = found
        return found

    def along(self, node: str, properties: Iterable[str]) -> list[tuple[Statement, bool]]:
        """Statements of the given properties around ``node``, asked for by property: used
        when ``around`` was cut at ``fetch`` and the relevant ones may be missing."""
        out: list[tuple[Statement, bool]] = []
        for pid in properties:
            try:
                out += [(s, True) for s in self.kb.statements(node, pid, limit=self.fetch)]
                out += [(s, False) for s in self.kb.statements(None, pid, node,
                                                               limit=self.fetch)]
            except InvalidId:
                continue
            self.calls += 2
        return out

    def is_hub(self, node: str) -> bool:
        """Whether ``around(node)`` was cut at ``fetch`` in either direction."""
        out, into = self.sizes.get(node, (0, 0))
        return out >= self.fetch or into >= self.fetch

    def degree(self, node: str) -> int | None:
        """Statements seen around ``node`` (capped at ``fetch`` each way); None if unread."""
        sizes = self.sizes.get(node)
        return None if sizes is None else sizes[0] + sizes[1]
