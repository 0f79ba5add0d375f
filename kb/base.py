"""The KnowledgeBase protocol: what every KB adapter offers, and what callers may rely on.

A custom KB is any object with these members; ``kb.testing`` holds the conformance suite
that checks one.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from kb.types import Candidate, Entity, PropertyInfo, SparqlResult, Statement, Value
from store.errors import InvalidId, PropertyNotFound


@runtime_checkable
class KnowledgeBase(Protocol):
    """A knowledge graph kgground can ground answers in.

    IDs are Wikidata IDs (``Q42``, ``P31``, ``L3354``) or, for a KB with its own
    vocabulary, absolute IRIs. Every method validates the IDs it is given and raises
    ``InvalidId`` (a ValueError) for malformed ones — before touching any data.
    """

    #: a short name for messages and citations, e.g. ``mirror:/path/demo.sqlite``
    name: str

    def entity(self, id: str) -> Entity:
        """The entity's labels, descriptions and aliases in every language the KB has.
        Raises ``EntityNotFound`` when the KB does not know the ID."""
        ...

    def search(self, text: str, *, lang: str = "en", limit: int = 10) -> list[Candidate]:
        """Entities whose label or alias matches ``text``, best first, at most ``limit``.

        Matching is case-, accent- and punctuation-insensitive. An exact label match in
        ``lang`` ranks above an exact alias or other-language match, which rank above
        prefix and word matches; within a kind of match, more popular entities (higher
        ``prior``) come first. No match: an empty list (not an error)."""
        ...

    def statements(self, subject: str | None = None, property: str | None = None,
                   value: str | Value | None = None, *, limit: int = 100) -> list[Statement]:
        """The triplet query: statements matching every bound part, at most ``limit``.

        ``value`` is an entity ID/IRI, or a ``Value`` for a literal. Deprecated statements
        are left out; preferred ones come before normal ones. Each statement carries its
        ``Citation``. Nothing matches: an empty list. At least one part must be bound."""
        ...

    def sparql(self, query: str, *, timeout: float | None = None) -> SparqlResult:
        """Run a SPARQL 1.1 query (SELECT, ASK, CONSTRUCT, DESCRIBE). Updates, LOAD, and
        SERVICE to endpoints not allowed are refused (``QueryRefused``); a query that does
        not parse raises ``QuerySyntaxError``."""
        ...

    def property_info(self, pid: str) -> PropertyInfo:
        """The property's English label, description, aliases and datatype. Raises
        ``PropertyNotFound`` when the KB does not define it."""
        ...


# -- shared by the adapters: one way to check arguments and to build answers -----------------

def check_triplet_query(subject: object, property: object, value: object,
                        limit: object) -> None:
    """Raise for a triplet query nobody can answer: nothing bound, or a bad ``limit``."""
    if subject is None and property is None and value is None:
        raise InvalidId("a triplet query needs at least one bound part",
                        expected="subject, property or value",
                        fix="e.g. statements('Q42', 'P69')")
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
        raise ValueError(f"limit must be a positive integer, got {limit!r}")


def property_info_from(entity: Entity, pid: str, kb_name: str) -> PropertyInfo:
    """A property's PropertyInfo from its entity (English terms); PropertyNotFound when the
    KB holds neither a label nor a datatype for it."""
    if not entity.labels and entity.datatype is None:
        raise PropertyNotFound(pid, kb=kb_name)
    label = entity.label("en")
    lang = next((k for k, v in entity.labels.items() if v == label), "en")
    source, retrieved_at = entity.term_source("label", lang, label)
    return PropertyInfo(pid, label, entity.datatype, entity.description("en"),
                        entity.aliases.get("en", ()), source, retrieved_at)
