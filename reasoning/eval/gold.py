"""Gold answers and coverage: what the KB says about a question before anyone answers it.

``resolve(item, kb)`` returns a ``GoldInfo``:

- ``answers`` and ``source``: the file's gold answers (``file``), else the answers of the
  item's gold SPARQL run on this KB (``kb``); ``none`` when there is neither, ``kb-error``
  when the gold query failed on this KB (``error`` says how). Without gold answers a
  question is not scored.
- ``covered``: could this KB answer the question at all?
  - with a gold query: it returns something on this KB (for ASK: true — on a partial KB a
    false usually means missing facts, not a no);
  - else with the fact asked for (slice-qa: subject and property): one of the gold
    answers is a value of that statement on this KB;
  - else with question entities (Mintaka): one relation path of at most ``hops``
    statements (not through a type statement) leads from a question entity to every gold
    answer, or a relation of one has as many values as a gold count; a gold answer that
    is a question entity is not covered (answering it compares facts), nor is a
    superlative, ordinal or comparative question whose gold answers have no date or
    number in the KB to be ordered by;
  - else (or yes/no questions without a query): unknown (None).
  ``coverage_how`` says which test decided.

Over a mirror backed by a live endpoint (``FallbackKB``), gold queries and coverage
lookups go to the endpoint directly (``lookup_kb``): the mirror would answer a gold query
from whatever it happens to hold, and lookups through it would be written back, warming
the mirror for the answerer being timed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from kb.base import HasLive, KnowledgeBase
from reasoning.eval import answers as A
from reasoning.eval.answers import AnswerItem
from reasoning.eval.readers import EvalItem
from store.errors import EndpointUnreachable, KGGroundError, MirrorError


@dataclass(frozen=True)
class GoldInfo:
    answers: tuple[AnswerItem, ...] | None
    source: str                      # file | kb | kb-error | none
    covered: bool | None
    coverage_how: str
    error: str | None = None


def resolve(item: EvalItem, kb: KnowledgeBase, *, timeout: float | None = 30.0,
            hops: int = 2) -> GoldInfo:
    """Gold answers and coverage of ``item`` on ``kb`` (see the module docstring)."""
    if item.sparql:
        try:
            found = run_gold_query(kb, item.sparql, timeout=timeout)
        except (EndpointUnreachable, MirrorError):
            raise                    # the KB itself is broken: no question can be judged
        except KGGroundError as exc:
            error = f"{type(exc).__name__}: {exc}"
            if item.gold is not None:
                return GoldInfo(item.gold, "file", None, "the gold query failed on this KB",
                                error)
            return GoldInfo(None, "kb-error", None, "the gold query failed on this KB",
                            error)
        boolean = len(found) == 1 and found[0].kind == "literal" and \
            found[0].value in ("true", "false") and _is_ask(item.sparql)
        covered = (found[0].value == "true") if boolean else bool(found)
        how = "the gold query " + ("is true" if covered and boolean else
                                   "is false" if boolean else
                                   f"returns {len(found)} answers" if found else
                                   "returns nothing") + " on this KB"
        if item.gold is not None:
            return GoldInfo(item.gold, "file", covered, how)
        return GoldInfo(tuple(found), "kb", covered, how)
    if item.gold is None:
        return GoldInfo(None, "none", None, "no gold answers and no gold query")
    if item.subject and item.relation:
        return GoldInfo(item.gold, "file", *_fact_coverage(kb, item))
    if item.entities:
        return GoldInfo(item.gold, "file", *_reach_coverage(kb, item, hops))
    return GoldInfo(item.gold, "file", None, "nothing to test coverage with")


def lookup_kb(kb: KnowledgeBase) -> KnowledgeBase:
    """The KB gold answers and coverage are looked up in: a ``FallbackKB``'s live endpoint
    when its live side is on, else ``kb`` itself."""
    if isinstance(kb, HasLive) and kb.live is not None and not kb.offline:
        return kb.live
    return kb


class GoldResolver:
    """``resolve`` with a memory: each item's gold is looked up once (thread-safe), so the
    simulated model's catalog and the run share the lookups."""

    def __init__(self, kb: KnowledgeBase, *, timeout: float | None = 30.0, hops: int = 2):
        import threading
        self.kb, self.timeout, self.hops = lookup_kb(kb), timeout, hops
        self._memo: dict[str, GoldInfo] = {}
        self._lock = threading.Lock()

    def __call__(self, item: EvalItem) -> GoldInfo:
        with self._lock:
            found = self._memo.get(item.key)
        if found is None:
            found = resolve(item, self.kb, timeout=self.timeout, hops=self.hops)
            with self._lock:
                self._memo[item.key] = found
        return found


def run_gold_query(kb: KnowledgeBase, sparql: str, *, timeout: float | None = 30.0
                   ) -> list[AnswerItem]:
    """The answers of a gold query on ``kb``: the ASK boolean, else the first variable's
    bindings (entities as IDs, literals normalized)."""
    result = kb.sparql(sparql, timeout=timeout)
    if result.boolean is not None:
        return [A.literal(bool(result.boolean))]
    if not result.vars:
        return []
    var = result.vars[0]
    return [term_answer(t) for t in result.values(var)]


def term_answer(term: Any) -> AnswerItem:
    """An rdflib term (or a plain value) as an answer."""
    from rdflib import Literal, URIRef

    if isinstance(term, URIRef):
        return A.entity(str(term))
    if isinstance(term, Literal):
        return A.literal(str(term), str(term.datatype) if term.datatype else None)
    return A.literal(str(term))


def _is_ask(sparql: str) -> bool:
    import re
    body = re.sub(r"(?i)PREFIX\s+\S+\s*<[^>]*>", " ", sparql)
    return bool(re.match(r"\s*ASK\b", body, re.I))


def _fact_coverage(kb: KnowledgeBase, item: EvalItem) -> tuple[bool, str]:
    values = _statement_answers(kb.statements(item.subject, item.relation, limit=500))
    hit = any(A.matches(v, g) for v in values for g in item.gold or ())
    return hit, (f"{item.subject} {item.relation} has a gold answer on this KB" if hit else
                 f"{item.subject} {item.relation} has {len(values)} values on this KB, "
                 "none of them gold")


#: properties that type an entity: a path through a class ("human") connects anything
TYPE_PROPERTIES = frozenset({"P31", "P279",
                             "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"})
#: statements read per entity and direction when looking for paths; entities expanded per
#: path and per hop
REACH_FANOUT, REACH_PER_PATH, REACH_NODES = 300, 8, 150


def _reach_coverage(kb: KnowledgeBase, item: EvalItem, hops: int) -> tuple[bool | None, str]:
    """Whether the KB holds a relation path (at most ``hops`` statements, not through a
    type statement) from a question entity to every gold answer: the relation a question
    asks is one path, so its answers share it. A gold answer that is itself a question
    entity ("Who is older, A or B?") is not covered: answering needs a comparison of
    facts, not a path. A count is covered when some relation of a question entity has
    that many values."""
    gold = item.gold or ()
    if not gold:
        return False, "the gold answer is empty"
    if all(g.kind == "literal" and g.value in ("true", "false") for g in gold):
        return None, "a yes/no answer: reachability says nothing"
    known = _known_entities(kb, item.entities)
    if not known:
        return False, "no question entity is in this KB"
    entities = {g.value for g in gold if g.kind == "entity"}
    if entities & set(known):
        return False, "a gold answer is a question entity: answering compares facts"
    literals = [g for g in gold if g.kind == "literal"]
    for e in known:
        paths = _paths(kb, e, hops)
        if literals and not entities:
            found = _literals_reached(e, paths, literals)
        else:
            found = _answers_reached(kb, item, e, paths, entities, literals)
        if found is not None:
            return found
    return False, (f"no relation path of at most {hops} statements leads from a question "
                   "entity to every gold answer")


def _known_entities(kb: KnowledgeBase, ids: Sequence[str]) -> list[str]:
    """The question entities ``kb`` has, in the question's order."""
    known = []
    for e in ids:
        try:
            kb.entity(e)
            known.append(e)
        except KGGroundError:
            continue
    return known


def _literals_reached(e: str, paths: dict[tuple, list[AnswerItem]],
                      literals: list[AnswerItem]) -> tuple[bool, str] | None:
    """For gold answers that are all literals: covered when one path from ``e`` ends at
    every gold value, or (a count) when a relation of ``e`` has that many values; None
    when neither."""
    if any(all(any(A.matches(v, g) for v in ends) for g in literals)
           for ends in paths.values()):
        return True, f"every gold value is at the end of one path from {e}"
    number = _number(literals)
    if number is not None and any(len(ends) == number for path, ends in
                                  paths.items() if len(path) == 1):
        return True, f"a relation of {e} has {number} values (the count)"
    return None


def _answers_reached(kb: KnowledgeBase, item: EvalItem, e: str,
                     paths: dict[tuple, list[AnswerItem]], entities: set[str],
                     literals: list[AnswerItem]) -> tuple[bool, str] | None:
    """For gold answers with entities among them: the verdict of the first path from
    ``e`` that ends at every gold answer — not covered after all when the question orders
    its answers and they have nothing to order by — or None when no path does."""
    for path, ends in paths.items():
        ids = {v.value for v in ends if v.kind == "entity"}
        if entities <= ids and all(any(A.matches(v, g) for v in ends) for g in literals):
            steps = " / ".join(("^" if not fwd else "") + p for p, fwd in path)
            if item.type in ORDERED_TYPES and not _orderable(kb, entities):
                return False, (f"every gold answer is at the end of {steps} from {e}, "
                               f"but a {item.type} question orders by a date or a "
                               "number, and the gold answers have none in this KB")
            return True, f"every gold answer is at the end of {steps} from {e}"
    return None


#: question types answered by ordering candidates (by a date or a number)
ORDERED_TYPES = frozenset({"superlative", "ordinal", "comparative"})


def _orderable(kb: KnowledgeBase, entities: set[str]) -> bool:
    """Whether some of ``entities`` has a date or a number to be ordered by."""
    for e in entities:
        try:
            if any(st.value.kind in ("time", "quantity") or st.value.datatype
                   for st in kb.statements(e, limit=REACH_FANOUT)):
                return True
        except (KGGroundError, ValueError):
            continue
    return False


def _paths(kb: KnowledgeBase, start: str, hops: int) -> dict[tuple, list[AnswerItem]]:
    """(property, forward) sequences from ``start`` → the values at their ends (type
    statements left out; hubs read up to REACH_FANOUT statements each way)."""
    out: dict[tuple, list[AnswerItem]] = {}
    frontier: dict[tuple, set[str]] = {(): {start}}
    for _ in range(hops):
        grown: dict[tuple, set[str]] = {}
        budget = REACH_NODES
        for path, nodes in frontier.items():
            for node in sorted(nodes)[:REACH_PER_PATH]:
                budget -= 1
                if budget < 0:
                    break
                for st, forward in _around(kb, node):
                    if st.property in TYPE_PROPERTIES:
                        continue
                    key = (*path, (st.property, forward))
                    value = st.value                # read only when forward
                    end = (A.entity(st.subject) if not forward else
                           A.entity(value.value) if value.kind == "entity" else
                           A.literal(value.value, value.datatype or None))
                    out.setdefault(key, []).append(end)
                    if end.kind == "entity" and end.value != start:
                        grown.setdefault(key, set()).add(end.value)
        frontier = grown
    return out


def _around(kb: KnowledgeBase, node: str) -> list[tuple[Any, bool]]:
    try:
        out = [(st, True) for st in kb.statements(node, limit=REACH_FANOUT)]
        out += [(st, False) for st in kb.statements(None, None, node, limit=REACH_FANOUT)]
    except (KGGroundError, ValueError):
        return []
    return out


def _number(literals: list[AnswerItem]) -> int | None:
    if len(literals) != 1:
        return None
    try:
        value = float(literals[0].value)
    except ValueError:
        return None
    return int(value) if value.is_integer() and value >= 0 else None


def _statement_answers(statements: Iterable[Any]) -> list[AnswerItem]:
    out = []
    for s in statements:
        v = s.value
        if v.kind == "entity":
            out.append(A.entity(v.value))
        elif v.kind == "literal":
            out.append(A.literal(v.value, v.datatype or None))
    return out
