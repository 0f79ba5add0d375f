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
"""

from __future__ import annotations

from typing import Any

from rdflib import Variable
from store.sparql_nodes import CompValue


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
