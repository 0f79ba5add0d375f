"""Solving a generated query's triple patterns with triplet queries (``kb.statements``).

The queries the rules write are small conjunctions of triple patterns (a hop, a chain, a
class membership): ``solve(kb, patterns)`` answers them by triplet queries — a few
indexed lookups instead of a SPARQL parse and plan, and every solution keeps the
statements that matched it, which are the citations of its answer. It is the fast path
of ``querygen.execute.run`` (which falls back to ``kb.sparql``) and how the rules check a
reading against the KB while they rank readings.

Like ``wdt:`` in SPARQL, a pattern matches *truthy* statements only: of a subject's
statements for a property, the preferred ones when there are any, else the normal ones
(``kb.statements`` returns both). An inverse lookup (``?s P31 wd:Q5``) therefore checks, for
every normal-rank statement it finds, whether its subject has a preferred one.

Patterns are (subject, predicate, object) strings as in ``GeneratedQuery.patterns``:
``?name`` variables, entity and property IDs, and the one path the rules write,
``wdt:P31/wdt:P279*`` (instance of a class or of any of its subclasses). Anything else
(literals, other paths) raises ``Unsolvable``; so does a lookup that would fetch more
than ``fanout`` statements, where SPARQL does better.
"""

from __future__ import annotations

from collections.abc import Sequence

from kb.base import KnowledgeBase
from kb.types import Statement
from store.vocab import ENTITY_ID

TYPE_PATH = "wdt:P31/wdt:P279*"
#: how deep the subclass hierarchy is followed for TYPE_PATH
SUBCLASS_DEPTH = 8


class Unsolvable(Exception):
    """These patterns are not for triplet queries (too broad, or not a plain pattern)."""


Binding = dict[str, str]
Solution = tuple[Binding, tuple[Statement, ...]]


def solve(kb: KnowledgeBase, patterns: Sequence[tuple[str, str, str]], *, limit: int = 1000,
          fanout: int = 2000) -> list[Solution]:
    """Every solution of ``patterns`` (at most ``limit``): the variables' bindings and the
    statements that matched, one per plain pattern, in pattern order."""
    for p in patterns:
        for i, t in enumerate(p):
            if t.startswith('"') or (t.startswith(("wdt:", "<")) and t != TYPE_PATH):
                raise Unsolvable(f"not a plain pattern: {t}")
            if i != 1 and t == TYPE_PATH:
                raise Unsolvable("a path outside the predicate")
    out: list[Solution] = []
    _extend(_Truthy(kb), list(patterns), {}, {}, out, limit, fanout)
    return out


def truthy(kb: KnowledgeBase) -> _Truthy:
    """``kb`` with ``statements`` narrowed to truthy statements (``wdt:`` semantics)."""
    return _Truthy(kb)


def _is_node(term: str) -> bool:
    """Whether ``term`` can be a statement's subject: an entity ID or an IRI."""
    return bool(ENTITY_ID.match(term)) or "://" in term


class _Truthy:
    """``statements`` narrowed to truthy statements (see the module docstring)."""

    def __init__(self, kb: KnowledgeBase):
        self.kb = kb
        self._preferred: dict[tuple[str, str], bool] = {}

    def statements(self, s: str | None = None, p: str | None = None, o: str | None = None,
                   *, limit: int = 100) -> list[Statement]:
        if s is not None and not _is_node(s):
            return []                          # a literal (a date) is no statement's subject
        found = self.kb.statements(s, p, o, limit=limit)
        if len(found) >= limit:
            return found                       # the caller gives up on this lookup
        if s is not None and o is None:        # all of s's statements (for p): exact
            best: dict[str, str] = {}
            for st in found:
                if st.rank == "preferred":
                    best[st.property] = "preferred"
            return [st for st in found if best.get(st.property, "normal") == st.rank
                    or st.rank == "preferred"]
        out = []
        for st in found:
            if st.rank == "preferred" or not self._has_preferred(st.subject, st.property):
                out.append(st)
        return out

    def _has_preferred(self, s: str, p: str) -> bool:
        key = (s, p)
        if key not in self._preferred:
            self._preferred[key] = any(st.rank == "preferred"
                                       for st in self.kb.statements(s, p, limit=500))
        return self._preferred[key]


def _extend(kb: _Truthy, todo: list[tuple[str, str, str]], binding: Binding,
            used: dict[int, Statement], out: list[Solution], limit: int, fanout: int,
            order: list[tuple[str, str, str]] | None = None) -> None:
    order = order if order is not None else list(todo)
    if len(out) >= limit:
        return
    if not todo:
        stmts = tuple(used[i] for i in sorted(used))
        out.append((dict(binding), stmts))
        return
    k = _next(todo, binding)
    s, p, o = (_resolve(t, binding) for t in todo[k])
    rest = todo[:k] + todo[k + 1:]
    index = order.index(todo[k])
    if p == TYPE_PATH:
        for x, c in _typed(kb, s, o, fanout):
            new = dict(binding)
            if not _bind(new, s, x) or not _bind(new, o, c):
                continue
            _extend(kb, rest, new, used, out, limit, fanout, order)
        return
    if s.startswith("?") and o.startswith("?"):
        raise Unsolvable("a pattern with no bound end")
    found = kb.statements(None if s.startswith("?") else s,
                          None if p.startswith("?") else p,
                          None if o.startswith("?") else o, limit=fanout)
    if len(found) >= fanout:
        raise Unsolvable(f"more than {fanout} statements match {todo[k]}")
    for st in found:
        value = st.value.value                # a literal binds by its lexical form
        new = dict(binding)
        if not (_bind(new, s, st.subject) and _bind(new, p, st.property)
                and _bind(new, o, value)):
            continue
        _extend(kb, rest, new, {**used, index: st}, out, limit, fanout, order)
        if len(out) >= limit:
            return


def _next(todo: list[tuple[str, str, str]], binding: Binding) -> int:
    """The pattern to solve next: one with a bound subject or object (fewest unknowns)."""
    def unknowns(p: tuple[str, str, str]) -> int:
        return sum(1 for t in p if t.startswith("?") and t[1:] not in binding)

    bound = [i for i, p in enumerate(todo)
             if not (p[0].startswith("?") and p[0][1:] not in binding)
             or not (p[2].startswith("?") and p[2][1:] not in binding)]
    if not bound:
        raise Unsolvable("no pattern has a bound subject or object")
    return min(bound, key=lambda i: unknowns(todo[i]))


def _resolve(t: str, binding: Binding) -> str:
    return binding.get(t[1:], t) if t.startswith("?") else t


def _bind(binding: Binding, term: str, value: str) -> bool:
    if not term.startswith("?"):
        return term == value
    current = binding.get(term[1:])
    if current is None:
        binding[term[1:]] = value
        return True
    return current == value


def _typed(kb: _Truthy, s: str, o: str, fanout: int) -> list[tuple[str, str]]:
    """(instance, class) pairs of ``s wdt:P31/wdt:P279* o`` with s or o bound."""
    if not s.startswith("?"):
        classes = _superclasses(kb, [st.value.value for st in kb.statements(s, "P31",
                                                                               limit=50)])
        return [(s, c) for c in classes if o.startswith("?") or c == o]
    if o.startswith("?"):
        raise Unsolvable("a type pattern with neither end bound")
    out: list[tuple[str, str]] = []
    for c in _subclasses(kb, o, fanout):
        found = kb.statements(None, "P31", c, limit=fanout)
        if len(found) >= fanout:
            raise Unsolvable(f"more than {fanout} instances of {c}")
        out.extend((st.subject, o) for st in found)
        if len(out) > fanout:
            raise Unsolvable(f"more than {fanout} instances of {o}")
    return out


def _superclasses(kb: _Truthy, start: list[str]) -> list[str]:
    seen = dict.fromkeys(start)
    frontier = list(start)
    for _ in range(SUBCLASS_DEPTH):
        nxt = []
        for c in frontier:
            for st in kb.statements(c, "P279", limit=50):
                v = st.value.value
                if v not in seen:
                    seen[v] = None
                    nxt.append(v)
        if not nxt:
            break
        frontier = nxt
    return list(seen)


def _subclasses(kb: _Truthy, top: str, fanout: int) -> list[str]:
    seen = {top: None}
    frontier = [top]
    for _ in range(SUBCLASS_DEPTH):
        nxt = []
        for c in frontier:
            for st in kb.statements(None, "P279", c, limit=fanout):
                if st.subject not in seen:
                    seen[st.subject] = None
                    nxt.append(st.subject)
        if not nxt or len(seen) > fanout:
            break
        frontier = nxt
    return list(seen)
