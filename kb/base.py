"""The KnowledgeBase protocol: what every KB adapter offers, and what callers may rely on;
and the small capability protocols some adapters offer beside it.

A custom KB is any object with ``KnowledgeBase``'s members; ``kb.testing`` holds the
conformance suite that checks one. ``SparqlCapable`` (a name and ``sparql``) is the part the
SPARQL server needs; ``Searchable`` the part that tells a KB from a linking view.

Capabilities. This module is the one place for what a KB may offer beyond
``KnowledgeBase``: the layers above test for a capability with ``isinstance(kb, Protocol)``
(all are ``runtime_checkable``), never with ``getattr``/``hasattr``, and a KB without it
takes the caller's fallback path. A method set to None counts as absent. Who offers what:

==================  ====================================================  ==================
protocol            members                                               adapters
==================  ====================================================  ==================
``Closable``        ``close()``                                           MirrorKB,
                                                                          FallbackKB,
                                                                          SparqlEndpointKB
``HasLinking``      ``linking(*, index_path, progress)``: its own          MirrorKB,
                    ``kb.linking.LinkingKB``                              FallbackKB
``Streaming``       ``sparql_stream(query, *, timeout)``: a SELECT's      MirrorKB,
                    rows one by one (``kb.types.SparqlStream``)           RdfGraphKB
``HasMirror``       ``mirror``: the ``store.mirror.Mirror`` it reads      MirrorKB
``HasLocal``        ``local``: the KB it answers from first               FallbackKB
``HasLive``         ``live`` (an endpoint KB or None), ``offline``        FallbackKB
==================  ====================================================  ==================

``RdfGraphKB`` offers ``Streaming`` only. ``reasoning.metered.MeteredKB`` offers exactly
the capabilities of the KB it wraps (it implements each explicitly: a ``__getattr__``
proxy is not seen by ``isinstance`` on Python 3.12+). ``mirror_of(kb)`` finds the mirror
behind a KB through ``HasLocal`` and ``HasMirror``. The capabilities of linking views
(``LinkingKB``'s optional members, such as ``batch`` or ``related``) are protocols beside
``LinkingKB`` in ``kb.linking``; ``Closable`` serves both.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from kb.types import Candidate, Entity, PropertyInfo, SparqlResult, Statement, Value
from store.errors import InvalidId, PropertyNotFound

if TYPE_CHECKING:
    from kb.linking import LinkingKB
    from store.mirror import Mirror

__all__ = ["Closable", "HasLinking", "HasLive", "HasLocal", "HasMirror", "KnowledgeBase",
           "Searchable", "SparqlCapable", "Streaming", "check_triplet_query", "mirror_of",
           "property_info_from"]


@runtime_checkable
class Searchable(Protocol):
    """A KB's name search (``KnowledgeBase.search``): what tells a KB from a linking view,
    which finds names by their normalized key instead."""

    def search(self, text: str, *, lang: str = "en", limit: int = 10) -> list[Candidate]:
        """Entities whose label or alias matches ``text``, best first, at most ``limit``.

        Matching is case-, accent- and punctuation-insensitive. An exact label match in
        ``lang`` ranks above an exact alias or other-language match, which rank above
        prefix and word matches; within a kind of match, more popular entities (higher
        ``prior``) come first. No match: an empty list (not an error)."""
        ...


@runtime_checkable
class SparqlCapable(Protocol):
    """A named source that answers SPARQL: what ``kb.sparql_server`` and
    ``kb.query_runner`` ask of the KB they serve."""

    #: a short name for messages and citations, e.g. ``mirror:/path/demo.sqlite``
    name: str

    def sparql(self, query: str, *, timeout: float | None = None) -> SparqlResult:
        """Run a SPARQL 1.1 query (SELECT, ASK, CONSTRUCT, DESCRIBE). Updates, LOAD, and
        SERVICE to endpoints not allowed are refused (``QueryRefused``); a query that does
        not parse raises ``QuerySyntaxError``."""
        ...


@runtime_checkable
class KnowledgeBase(Searchable, SparqlCapable, Protocol):
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

    def statements(self, subject: str | None = None, property: str | None = None,
                   value: str | Value | None = None, *, limit: int = 100) -> list[Statement]:
        """The triplet query: statements matching every bound part, at most ``limit``.

        ``value`` is an entity ID/IRI, or a ``Value`` for a literal. Deprecated statements
        are left out; preferred ones come before normal ones. Each statement carries its
        ``Citation``. Nothing matches: an empty list. At least one part must be bound."""
        ...

    def property_info(self, pid: str) -> PropertyInfo:
        """The property's English label, description, aliases and datatype. Raises
        ``PropertyNotFound`` when the KB does not define it."""
        ...



# -- capabilities: what some KBs offer beside KnowledgeBase (see the module docstring) ----------

@runtime_checkable
class Closable(Protocol):
    """Holds resources (files, connections, caches) until ``close()``; a KB or a linking
    view without it holds none."""

    def close(self) -> None: ...


@runtime_checkable
class HasLinking(Protocol):
    """Provides its own linking view (``kb.linking.linking_view`` uses it, else it builds
    ``GenericLinking``): ``index_path`` overrides where a mirror's linking sidecar lives,
    ``progress`` (a callable taking a message) hears about its build."""

    def linking(self, *, index_path: str | Path | None = None,
                progress: Any = None) -> LinkingKB: ...


@runtime_checkable
class Streaming(Protocol):
    """Streams SPARQL answers: a SELECT's rows one by one as they are made (a
    ``kb.types.SparqlStream``), for bounded memory."""

    def sparql_stream(self, query: str, *, timeout: float | None = None) -> Any: ...


@runtime_checkable
class HasMirror(Protocol):
    """Reads a local mirror (``store.mirror.Mirror``): its SQL connection, its locks, its
    linking sidecar. Layers above kb should not need it (``mirror_of``)."""

    @property
    def mirror(self) -> Mirror: ...


@runtime_checkable
class HasLocal(Protocol):
    """Answers from a local KB first (a ``FallbackKB``'s mirror)."""

    @property
    def local(self) -> KnowledgeBase: ...


@runtime_checkable
class HasLive(Protocol):
    """Has a live endpoint behind it (a ``FallbackKB``): ``live`` (None when none is
    configured), and whether the live side is turned ``offline``."""

    @property
    def live(self) -> KnowledgeBase | None: ...

    @property
    def offline(self) -> bool: ...


def mirror_of(kb: object) -> Mirror | None:
    """The mirror behind ``kb``: its local side's (``HasLocal``, a FallbackKB) or else its
    own (``HasMirror``, a MirrorKB); None for a KB without one."""
    if isinstance(kb, HasLocal):
        kb = kb.local
    return kb.mirror if isinstance(kb, HasMirror) else None


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
