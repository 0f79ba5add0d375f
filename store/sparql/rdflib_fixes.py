"""Repairs to rdflib's SPARQL algebra before its evaluator runs it.

rdflib (7.x) is kgground's evaluator of last resort: for what the SQL compiler cannot
express, for mirrors it does not target, and for RdfGraphKB. Where rdflib is known to give
wrong answers and a repair of the parsed query fixes it, the repair lives here.

- **VALUES before OPTIONAL.** rdflib records no variables (``_vars``) for an inline VALUES
  block. Its OPTIONAL (``evalLeftJoin``) keeps a row the optional part does not extend
  only after re-checking the optional part with just the left side's ``_vars`` bound; with
  the VALUES variables forgotten, that check finds a match for *some other* row and the
  row is dropped: ``VALUES ?x { wd:Q183 wd:Q937 } OPTIONAL { ?x wdt:P36 ?c }`` loses
  ``wd:Q937``. ``values_scope`` adds the VALUES variables to ``_vars`` up the tree.
- **SUM and AVG over values they cannot add.** SPARQL says such an aggregate is an error
  for its group, which leaves its variable unbound there (as the SQL path does). rdflib's
  SUM raised ``SPARQLTypeError`` out of the whole query, and its AVG skipped the value,
  averaging the rest. ``install()`` (run on import) gives rdflib accumulators that leave
  the group's value unbound.
"""

from __future__ import annotations

from typing import Any, Callable

from rdflib import Variable
from rdflib.plugins.sparql import aggregates
from rdflib.plugins.sparql.sparql import SPARQLTypeError

from store.sparql.nodes import CompValue


def values_scope(node: Any) -> set[Variable]:
    """Add the variables of every inline VALUES block to the ``_vars`` of the algebra
    nodes above it, up to the projection of the (sub-)query it is in; return those that
    remain visible above ``node``. Idempotent; changes ``node`` in place."""
    if isinstance(node, CompValue):
        found: set[Variable] = set()
        for key, child in node.items():
            if key != "_vars":
                found |= values_scope(child)
        if node.name == "values":
            found |= {v for row in dict.get(node, "res") or () for v in row
                      if isinstance(v, Variable)}
        if node.name == "Project":
            found &= set(dict.get(node, "PV") or ())
        if found and isinstance(dict.get(node, "_vars"), set):
            node["_vars"] = node["_vars"] | found
        elif found and node.name in ("values", "ToMultiSet"):
            node["_vars"] = found
        return found
    if isinstance(node, (list, tuple)):
        return set().union(*(values_scope(n) for n in node)) if node else set()
    if hasattr(node, "algebra"):           # a prepared Query
        return values_scope(node.algebra)
    return set()


class _Failing:
    """An accumulator that remembers a type error: its group's value is then unbound."""

    failed = False
    _update: Callable[[Any, Any], None]     # the wrapped accumulator's update, per subclass

    def update(self, row: Any, aggregator: Any) -> None:
        if self.failed:
            return
        try:
            self._update(row, aggregator)
        except SPARQLTypeError:
            self.failed = True

    def set_value(self, bindings: Any) -> None:
        if not self.failed:
            super().set_value(bindings)  # type: ignore[misc]  # rdflib's stubs: untyped base


class Sum(_Failing, aggregates.Sum):
    _update = aggregates.Sum.update


class Average(_Failing, aggregates.Average):
    def _update(self, row: Any, aggregator: Any) -> None:
        from rdflib.plugins.sparql.evalutils import _eval
        from rdflib.plugins.sparql.operators import numeric
        from rdflib.plugins.sparql.sparql import NotBoundError

        try:
            numeric(_eval(self.expr, row))          # rdflib's own AVG skips these
        except NotBoundError:
            return
        aggregates.Average.update(self, row, aggregator)


def install() -> None:
    """Make rdflib's evaluator use the repaired accumulators (idempotent)."""
    aggregates.Aggregator.accumulator_classes["Aggregate_Sum"] = Sum
    aggregates.Aggregator.accumulator_classes["Aggregate_Avg"] = Average


install()
