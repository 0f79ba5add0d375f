"""Which properties a KB uses for entities of a kind: a property that no entity of X's
classes has, as subject or as value, is no relation the KB could hold for X.

    domains = PropertyDomains(kb, property_linker)
    domains.plausible("P264", ["Q570224"])   # record label, for the Ottawa Treaty: False

The relation words of a question are matched against every property of the KB, and the
best match measures how well the question's relation is named (``graphs._global_fit``).
A word of several senses then meets properties of other kinds of entity: "signed" a
treaty meets "record label" (a band is signed to one), "belong" a painting's movement
meets "country". Such a property says nothing about what the KB lacks for X. The classes
of X are its ``instance of`` (or ``rdf:type``) values; their members are sampled
(``MEMBERS`` per class) and the properties they have, either way, are the class's. Of a
question's entities, those without a class say nothing ("city" in "signed in a city");
where none has one, or the KB holds no statement of the property at all (a relation the
KB names but never states: that it is missing is the point), the property counts as
plausible. Thread-safe; remembers each class.
"""

from __future__ import annotations

import threading
from typing import Any

from kb.base import KnowledgeBase
from kb.linking import RDF_TYPE

#: properties that give an entity's classes
CLASS_PROPERTIES = ("P31", RDF_TYPE)
#: classes of an entity read, and members of a class sampled
CLASSES, MEMBERS = 4, 100


class PropertyDomains:
    """See the module docstring. ``props`` is a ``PropertyLinker`` (its ``roles``)."""

    def __init__(self, kb: KnowledgeBase, props: Any):
        self.kb = kb
        self.props = props
        self._lock = threading.Lock()
        self._of_class: dict[str, frozenset[str]] = {}
        self._stated: dict[str, bool] = {}

    def plausible(self, pid: str, entities: list[str]) -> bool:
        """Whether some entity of the classes of ``entities`` has ``pid`` either way;
        True when none of them has a class, or the KB states ``pid`` for nothing."""
        if not self._is_stated(pid):
            return True
        classes = [c for e in entities for c in self._classes(e)]
        return not classes or any(pid in self._class_properties(c) for c in classes)

    def _classes(self, entity: str) -> list[str]:
        out: list[str] = []
        for prop in CLASS_PROPERTIES:
            try:
                found = self.kb.statements(entity, prop, limit=CLASSES)
            except Exception:          # noqa: BLE001 - an ID or property the KB refuses
                continue
            out += [st.value.value for st in found if st.value.kind in ("entity", "iri")]
        return out[:CLASSES]

    def _is_stated(self, pid: str) -> bool:
        if pid not in self._stated:
            try:
                stated = bool(self.kb.statements(None, pid, limit=1))
            except Exception:          # noqa: BLE001
                stated = False
            with self._lock:
                self._stated[pid] = stated
        return self._stated[pid]

    def _class_properties(self, cls: str) -> frozenset[str]:
        if cls not in self._of_class:
            members: list[str] = []
            for prop in CLASS_PROPERTIES:
                try:
                    members += [st.subject for st in
                                self.kb.statements(None, prop, cls, limit=MEMBERS)]
                except Exception:      # noqa: BLE001
                    continue
            used: set[str] = set()
            for out_p, in_p in self.props.roles(members[:MEMBERS]).values():
                used |= out_p | in_p
            with self._lock:
                self._of_class[cls] = frozenset(used)
        return self._of_class[cls]
