"""The nodes of the SPARQL algebra kgground builds (``store.sparql.algebra``) and compiles
(``store.sparql.sql``), without importing rdflib's SPARQL package.

``CompValue`` behaves as rdflib's ``rdflib.plugins.sparql.parserutils.CompValue``: a named
ordered dict whose keys read as attributes too (a missing one reads None), and whose
``get`` of a missing key returns the key itself (rdflib's quirk, kept so that code written
against either algebra reads both alike). Importing rdflib's SPARQL package builds its
pyparsing grammar (0.3 s on an idle machine, 1.5 s on a busy one), which only the rdflib
evaluator needs: queries the SQL compiler answers never pay for it.

``isinstance(node, CompValue)`` is also true of rdflib's own nodes, once rdflib's SPARQL
package is loaded, so code that walks either algebra (the label-service rewrite, the
slice clamp) tests one class. ``is_rdflib_node`` tells the two apart.
"""

from __future__ import annotations

import sys
from abc import ABCMeta
from collections import OrderedDict
from typing import Any

_RDFLIB_NODES = "rdflib.plugins.sparql.parserutils"


class CompValue(OrderedDict, metaclass=ABCMeta):
    """A named algebra node (see the module docstring)."""

    def __init__(self, name: str, **values: Any):
        OrderedDict.__init__(self)
        self.name = name
        self.update(values)

    def clone(self) -> CompValue:
        return type(self)(self.name, **self)

    def __str__(self) -> str:
        return self.name + "_" + OrderedDict.__str__(self)

    def __repr__(self) -> str:
        return self.name + "_" + dict.__repr__(self)

    # rdflib's signature, which dict.get's does not match: rdflib calls it so
    def get(self, key: Any, variables: bool = False, errors: bool = False) -> Any:  # type: ignore[override]
        return OrderedDict.get(self, key, key)

    def __getattr__(self, key: str) -> Any:
        if key.startswith("_OrderedDict__") or key.startswith("__"):
            raise AttributeError(key)
        try:
            return self[key]
        except KeyError:
            return None

    @classmethod
    def __subclasshook__(cls, other: type) -> Any:
        if cls is CompValue:
            theirs = sys.modules.get(_RDFLIB_NODES)
            if theirs is not None and issubclass(other, theirs.CompValue):
                return True
        return NotImplemented


def is_rdflib_node(node: Any) -> bool:
    """Whether ``node`` comes from rdflib's parser (its evaluator needs its own classes)."""
    theirs = sys.modules.get(_RDFLIB_NODES)
    return theirs is not None and isinstance(node, theirs.CompValue)


__all__ = ["CompValue", "is_rdflib_node"]
