"""Errors of linking: a label that names nothing in the mirror.

Both are ``store.errors`` types (``EntityNotFound`` / ``PropertyNotFound``, hence
``NotFound`` and ``LookupError``), so callers that already handle a missing entity handle a
missing label too. They carry the label and the closest labels the mirror does have::

    UnknownEntityLabel: no entity is labelled 'Delta Airlnes' in mirror:slice.sqlite;
    expected a label or alias of an entity in the mirror. Fix: did you mean 'Delta Air
    Lines' (Q188920), 'Delta Airlines' (Q188920)? Otherwise check the spelling, or load
    data that has this entity
"""

from __future__ import annotations

from collections.abc import Sequence

from store.errors import EntityNotFound, KGGroundError, PropertyNotFound


def _fix(closest: list[tuple[str, str]], what: str) -> str:
    if closest:
        names = ", ".join(f"{label!r} ({id})" for id, label in closest)
        return f"did you mean {names}? Otherwise check the spelling, or load data that has {what}"
    return f"no label is close; check the spelling, or load data that has {what}"


class UnknownEntityLabel(EntityNotFound):
    """No entity in the KB has this label or alias (nor anything close enough).
    ``closest`` lists (ID, label) pairs of the nearest labels, best first."""

    def __init__(self, label: str, *, kb: str, closest: Sequence[tuple[str, str]] = ()):
        self.id, self.label, self.closest = None, label, list(closest)   # names nothing: no ID
        KGGroundError.__init__(self, f"no entity is labelled {label!r} in {kb}",
                               expected="a label or alias of an entity in the mirror",
                               fix=_fix(self.closest, "this entity"))


class UnknownPropertyLabel(PropertyNotFound):
    """No property in the KB has this label or alias (nor anything close enough)."""

    def __init__(self, label: str, *, kb: str, closest: Sequence[tuple[str, str]] = ()):
        self.id, self.label, self.closest = None, label, list(closest)   # names nothing: no ID
        KGGroundError.__init__(self, f"no property is labelled {label!r} in {kb}",
                               expected="a label or alias of a property the mirror defines",
                               fix=_fix(self.closest, "this property's definition"))
