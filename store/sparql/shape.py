"""Limits on a SPARQL query's shape, checked on its syntax tree before anything runs.

A query that an LLM wrote (or an attacker) can be small text and still take an engine
down: a chain of OPTIONALs that the SQL translation multiplies, groups nested thousands
deep that overflow every recursive walk (tree-sitter's tree is walked iteratively here,
so measuring costs nothing of the kind). ``check(parsed)`` raises ``QueryTooComplex``
naming the first limit a query passes; ``measure(parsed)`` says what it has.

The limits are far above what people write: the 3,837 queries of the benchmarks in
../shared/data nest at most 17 levels of syntax tree, with no OPTIONAL and one UNION at
most; pasted WDQS queries with 20 OPTIONALs are rare.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from store.errors import QueryTooComplex

#: the longest query text, in characters
MAX_LENGTH = 1_000_000
#: the deepest syntax tree (every recursive walk of a query is bounded by this)
MAX_TREE_DEPTH = 160
#: groups, sub-queries and brackets inside one another
MAX_NESTING = 48
#: OPTIONAL clauses in one query
MAX_OPTIONALS = 64
#: UNION branches in one query
MAX_UNIONS = 256
#: triple patterns in one query
MAX_TRIPLES = 2_000

_OPENERS = frozenset({"{", "(", "["})
_CLOSERS = frozenset({"}", ")", "]"})


@dataclass(frozen=True)
class Shape:
    """What a query has, in the terms of the limits."""
    length: int
    tree_depth: int
    nesting: int
    optionals: int
    unions: int
    triples: int


def measure(parsed: Any) -> Shape:
    """The shape of a ``store.sparql.syntax.ParsedQuery`` (one iterative walk)."""
    tree_depth = nesting = optionals = unions = triples = 0
    depth_now = 0
    stack: list[tuple[Any, int]] = [(parsed.root, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > tree_depth:
            tree_depth = depth
        kind = node.type
        if not node.is_named:
            if kind in _OPENERS:
                depth_now += 1
                if depth_now > nesting:
                    nesting = depth_now
            elif kind in _CLOSERS:
                depth_now -= 1
            elif kind == "UNION":
                unions += 1
            continue
        if kind == "optional_graph_pattern":
            optionals += 1
        elif kind == "triples_same_subject":
            triples += 1
        # children in reverse, so that tokens come off the stack in document order
        children = node.children
        for i in range(len(children) - 1, -1, -1):
            stack.append((children[i], depth + 1))
    return Shape(len(parsed.text), tree_depth, nesting, optionals,
                 unions + (unions > 0), triples)


def check(parsed: Any) -> Shape:
    """``parsed``'s shape, or QueryTooComplex naming the first limit it passes."""
    if len(parsed.text) > MAX_LENGTH:
        raise QueryTooComplex("length in characters", len(parsed.text), MAX_LENGTH,
                              fix="send a shorter query (long VALUES lists: split them "
                                  "over several queries)")
    shape = measure(parsed)
    limits = (
        ("syntax tree depth", shape.tree_depth, MAX_TREE_DEPTH,
         "nest fewer groups, brackets or operators inside one another"),
        ("nesting of groups and brackets", shape.nesting, MAX_NESTING,
         "flatten the nesting: write nested groups { { … } } as one, and long expressions "
         "as several BINDs"),
        ("number of OPTIONAL clauses", shape.optionals, MAX_OPTIONALS,
         "ask for fewer optional values per query, or split the query"),
        ("number of UNION branches", shape.unions, MAX_UNIONS,
         "use VALUES for alternatives of one term, or split the query"),
        ("number of triple patterns", shape.triples, MAX_TRIPLES, "split the query"),
    )
    for name, value, maximum, fix in limits:
        if value > maximum:
            raise QueryTooComplex(name, value, maximum, fix=fix)
    return shape
