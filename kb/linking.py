"""What entity and property linking need from a knowledge base, as a second small protocol.

``KnowledgeBase`` answers one name at a time (``search``); a linker asks for hundreds of
names per text, for the popularity, types and relations of its candidates, and for every
property's names. ``LinkingKB`` is that narrow interface; ``linking_view(kb)`` gives one for
any KB:

- a KB with a ``linking()`` method provides its own: ``MirrorKB`` a fast one over its
  tables and the linking sidecar (``kb.mirror_linking``), ``FallbackKB`` the mirror's, which
  asks the live endpoint for names the mirror lacks entirely;
- any other KnowledgeBase (``RdfGraphKB``, ``SparqlEndpointKB``, a user's own) gets
  ``GenericLinking``, built on ``search``, ``entity``, ``statements`` and ``sparql`` alone.

Names are compared by their normalized key (``store.normalize.normalize``). Features a
source lacks (misspelling search, say) it reports in ``features``; the linker does without.

Optional methods. A source may offer more than ``LinkingKB``: each optional member is a
small ``runtime_checkable`` protocol below ``LinkingKB`` (``Batched``, ``PreparesSimilar``,
``Capitalized``, ``Concepts``, ``Nearest``, ``Related``, ``Indexed``, ``WarmsUp``,
``TermLanguages`` and ``kb.base.Closable``). The linkers test for one with ``isinstance``
(once per source, where it is asked per text) and do without it when it is absent, so none
may be required by anything above kb. ``MirrorLinking`` offers them all but ``WarmsUp``;
``FallbackLinking`` all of them (the mirror's, and its own ``warm_up``) but
``TermLanguages`` (the live endpoint may name entities in any language);
``GenericLinking`` ``Related`` only.
``HasKB`` is a view that names the KB it reads (all three do).

- ``batch() -> context manager``: the lookups made inside it (the linker wraps one text's
  linking in it) may share one check of whether the KB's data changed since answers were
  remembered, made on entry, instead of one per lookup; answers inside the block then
  reflect one state of the data. It must nest, be per thread (other threads are not held
  by it), and add or drop no answers: a source without it answers every lookup as usual.
- ``prepare_similar(norms)``: a hint, before ``similar(norm, "spacing" | "qualified")`` is
  asked for many of ``norms``, to look them all up at once; it returns nothing and changes
  no answer (``similar`` must give the same result with or without it, and also for norms
  never prepared). Called only when ``features`` has ``spacing`` or ``qualified``.
- ``capitalized(norms) -> set`` / ``concepts(norms) -> set``: the ``norms`` some name
  written with a capital letter / all in lower case has (mention detection's cheap test);
- ``nearest(norm, *, max_distance, limit) -> list[str]``: normalized names within
  ``max_distance`` edits, nearest first (for "did you mean" messages);
- ``related(values, properties, *, limit=50) -> {value: [(subject, property)]}``: the
  subjects of statements with one of ``properties`` and that value (a city's teams);
- ``names_in_language(lang) -> bool``: whether some entity has a label or alias in
  ``lang`` (False means the KB names nothing in it);
- ``index`` (a mirror's linking sidecar), ``close()``, and ``warm_up()``: load now what the
  first lookup would (a FallbackLinking's live property list).

``linking_view(kb)`` reads a KB that offers ``kb.base.HasLinking`` through its own view;
any other needs ``LinkableKB`` (``KnowledgeBase``'s search, entity, statements, sparql).
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
import inspect
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from kb.base import HasLinking, KnowledgeBase, SparqlCapable
from kb.types import Candidate, Entity, SparqlResult, Statement, Value
from store.errors import KGGroundError
from store.normalize import normalize
from store.vocab import PROPERTY_ID, WDT, WIKIBASE, entity_kind, iri_to_id, property_from_iri

#: what a source may offer besides exact names (see ``LinkingKB.similar``)
SIMILAR_KINDS = ("spacing", "qualified", "fuzzy", "words")
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
#: statements that type an entity: Wikidata's instance of / subclass of, and rdf:type
TYPE_PROPERTIES = frozenset({"P31", "P279", RDF_TYPE})


@dataclass(frozen=True, slots=True)
class Name:
    """A label or alias of an entity, found by its normalized key."""
    entity: str
    text: str                 # as written in the KB
    norm: str
    lang: str
    is_label: bool
    prior: float = 0.0        # popularity in [0, 1] (sitelinks, else statements)
    langs: float = 0.0        # share of the KB's languages the entity has names in (0: unknown)


@dataclass(frozen=True, slots=True)
class EntityProfile:
    """What the KB says around one entity: its types (and their labels), the properties it
    has as subject and as value, some entities it is linked to, how multilingual it is."""
    id: str
    types: frozenset[str] = frozenset()
    type_labels: tuple[str, ...] = ()
    subject_of: frozenset[str] = frozenset()
    value_of: frozenset[str] = frozenset()
    neighbours: frozenset[str] = frozenset()
    langs: float = 0.0


@dataclass(frozen=True, slots=True)
class PropertyNames:
    """A property's names in every language the KB has, and how the KB uses it."""
    id: str
    datatype: str | None = None
    labels: Mapping[str, str] = field(default_factory=dict)
    aliases: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    descriptions: Mapping[str, str] = field(default_factory=dict)
    usage: int = 0                                   # statements using it (0: none or unknown)
    entity_share: float = 0.0                        # share of its values that are entities
    value_types: tuple[tuple[str, float], ...] = ()  # (type, share of entity values), top first

    def label(self, lang: str = "en") -> str:
        for key in (lang, lang.split("-")[0], "en", ""):
            if key in self.labels:
                return self.labels[key]
        return next(iter(self.labels.values()), self.id)

    def description(self, lang: str = "en") -> str | None:
        for key in (lang, lang.split("-")[0], "en", ""):
            if key in self.descriptions:
                return self.descriptions[key]
        return None


@runtime_checkable
class LinkingKB(Protocol):
    """What the linkers ask of a KB. Every method takes and returns plain values; none
    raises for a name or ID the KB does not know (it is simply absent from the answer).
    Thread-safe."""

    #: the KB's name, for messages (``mirror:…``, ``rdf:…``, ``sparql:…``)
    name: str
    #: which of ``SIMILAR_KINDS`` ``similar`` answers
    features: frozenset[str]

    def names(self, norms: Sequence[str]) -> list[Name]:
        """Labels and aliases of entities (never properties) whose normalized text is one
        of ``norms``, with their entity's popularity."""
        ...

    def known(self, norms: Sequence[str]) -> set[str]:
        """The ``norms`` that name some entity (where the source can: ignoring spaces) —
        mention detection asks this for every span of a text, so it must be cheap."""
        ...

    def similar(self, norm: str, how: str, *, limit: int = 20) -> list[tuple[str, float]]:
        """Normalized names near ``norm``, with a similarity in (0, 1]: ``spacing`` equal
        but for spaces; ``qualified`` ``norm`` plus a qualifier ("nirvana band"); ``fuzzy``
        a few edits away; ``words`` longer names containing every word of ``norm``
        (similarity: the share of the name's words covered); ``sounds`` names that sound
        like ``norm`` however spelt (``store.sounds``: a transliterated or respelled name;
        similarity: the spellings'). [] when not supported, or when ``words`` are too
        common to search by."""
        ...

    def labels(self, ids: Sequence[str], *, lang: str = "en") -> dict[str, tuple[str, str | None]]:
        """id → (label, description) in ``lang`` (else English, else any); an ID without
        terms gets (ID, None)."""
        ...

    def profiles(self, ids: Sequence[str], *, lang: str = "en") -> dict[str, EntityProfile]:
        """A profile for every ID (an empty one for an entity in no statement)."""
        ...

    def properties(self) -> list[PropertyNames]:
        """Every property the KB names or uses."""
        ...

    def connecting(self, subject: str, value: str) -> frozenset[str]:
        """Properties of statements from ``subject`` to ``value``."""
        ...


# -- optional members of a linking view (see the module docstring) -------------------------

@runtime_checkable
class Batched(Protocol):
    """``batch()``: a context in which one text's lookups share one check of whether the
    KB's data changed (see the module docstring)."""

    def batch(self) -> AbstractContextManager[Any]: ...


@runtime_checkable
class PreparesSimilar(Protocol):
    """``prepare_similar(norms)``: look the ``spacing`` and ``qualified`` names of many
    norms up at once, before ``similar`` is asked for them."""

    def prepare_similar(self, norms: Sequence[str]) -> None: ...


@runtime_checkable
class Capitalized(Protocol):
    """``capitalized(norms)``: the ``norms`` some name written with a capital letter has."""

    def capitalized(self, norms: Sequence[str]) -> set[str]: ...


@runtime_checkable
class Concepts(Protocol):
    """``concepts(norms)``: the ``norms`` some name written all in lower case has."""

    def concepts(self, norms: Sequence[str]) -> set[str]: ...


@runtime_checkable
class TermLanguages(Protocol):
    """``names_in_language(lang)``: whether some entity has a label or alias in ``lang``
    — False only when the KB names nothing in it."""

    def names_in_language(self, lang: str) -> bool: ...


@runtime_checkable
class Nearest(Protocol):
    """``nearest(norm, ...)``: normalized names within ``max_distance`` edits, nearest
    first (for "did you mean" messages)."""

    def nearest(self, norm: str, *, max_distance: int, limit: int) -> list[str]: ...


@runtime_checkable
class Related(Protocol):
    """``related(values, properties)``: value → (subject, property) of statements with one
    of ``properties`` and that value (a city's teams)."""

    def related(self, values: Sequence[str], properties: Sequence[str],
                *, limit: int = 50) -> dict[str, list[tuple[str, str]]]: ...


@runtime_checkable
class Indexed(Protocol):
    """``index``: a mirror's linking sidecar (``store.link_index.LinkIndex``), built on
    first use — reading it may build it, so test for it only where it is wanted."""

    @property
    def index(self) -> Any: ...


@runtime_checkable
class WarmsUp(Protocol):
    """``warm_up()``: load now what the first lookup would load."""

    def warm_up(self) -> None: ...


@runtime_checkable
class HasKB(Protocol):
    """A linking view that names the KB it reads."""

    @property
    def kb(self) -> KnowledgeBase: ...


@runtime_checkable
class LinkableKB(Protocol):
    """What ``GenericLinking`` reads of a KB: ``KnowledgeBase``'s ``search``, ``entity``,
    ``statements`` and ``sparql`` (and its ``name`` where it has one)."""

    def search(self, text: str, *, lang: str = "en", limit: int = 10) -> list[Candidate]: ...

    def entity(self, id: str) -> Entity: ...

    def statements(self, subject: str | None = None, property: str | None = None,
                   value: str | Value | None = None, *, limit: int = 100
                   ) -> list[Statement]: ...

    def sparql(self, query: str, *, timeout: float | None = None) -> SparqlResult: ...


_GENERIC_NEEDS = ("search", "entity", "statements", "sparql")


def linking_view(kb: KnowledgeBase | LinkingKB, **options: Any) -> LinkingKB:
    """The ``LinkingKB`` for ``kb``: itself if it is one, what its ``linking(**options)``
    returns if it has that method (MirrorKB, FallbackKB), else ``GenericLinking(kb)``."""
    if isinstance(kb, HasLinking):
        return kb.linking(**options)
    if isinstance(kb, LinkingKB):
        return kb
    if not isinstance(kb, LinkableKB):
        missing = [m for m in _GENERIC_NEEDS
                   if not callable(inspect.getattr_static(kb, m, None))]
        raise KGGroundError("linking needs a knowledge base",
                            expected="a kb.KnowledgeBase (MirrorKB, RdfGraphKB, "
                                     "SparqlEndpointKB, FallbackKB), a mirror path or an "
                                     "RDF file",
                            got=f"{type(kb).__name__} (it has no {', '.join(missing)})",
                            fix="open one with kb.open(PATH_OR_URL)")
    # a LinkableKB is enough at run time: GenericLinking reads no more of a KnowledgeBase
    return GenericLinking(kb)


class _Lru(OrderedDict):
    def __init__(self, size: int):
        super().__init__()
        self.size = size

    def put(self, key: Any, value: Any) -> None:
        self[key] = value
        self.move_to_end(key)
        while len(self) > self.size:
            self.popitem(last=False)


def local_name_label(iri: str) -> str:
    """A readable name for a predicate IRI without a label: its last segment, camelCase
    and snake_case split ("http://ex.org/birthPlace" → "birth place")."""
    tail = re.split(r"[/#:]", iri.rstrip("/#"))[-1]
    tail = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", tail)
    return " ".join(tail.replace("_", " ").replace("-", " ").split()).lower() or iri


class GenericLinking:
    """``LinkingKB`` for any KnowledgeBase, through its public methods only.

    Names come from ``search`` (its exact, case- and accent-insensitive matches; its word
    matches serve ``similar(…, "words")``); profiles from ``statements`` with the entity as
    subject and as value; property names and usage from ``sparql`` (Wikidata's
    ``wikibase:propertyType`` properties, and every predicate in use, named by its label or
    else its IRI's last segment). Answers are cached (``CACHE_SIZE`` each); lookups for
    many names run on a few threads, as an endpoint answers them one request at a time.
    """

    CACHE_SIZE = 50_000
    #: candidates asked of ``search`` per name
    SEARCH_LIMIT = 30
    #: statements read per entity for its profile (each way)
    PROFILE_STATEMENTS = 200
    #: languages at which an entity counts as fully multilingual
    LANGS_SCALE = 20
    #: parallel lookups
    THREADS = 4

    features = frozenset({"words"})

    def __init__(self, kb: KnowledgeBase):
        self.kb = kb
        # a LinkableKB has ``sparql``, so it is SparqlCapable exactly when it has a name
        self.name = kb.name if isinstance(kb, SparqlCapable) else type(kb).__name__
        self._names: _Lru = _Lru(self.CACHE_SIZE)
        self._labels: _Lru = _Lru(self.CACHE_SIZE)
        self._profiles: _Lru = _Lru(self.CACHE_SIZE)
        self._lock = threading.Lock()
        self._props_lock = threading.Lock()
        self._props: list[PropertyNames] | None = None
        self._prop_ids: frozenset[str] = frozenset()
        self._pool: ThreadPoolExecutor | None = None

    def _map(self, fn: Any, items: list) -> list:
        if self._pool is None:
            # the first lookups run one by one: rdflib's SPARQL parser, which validates
            # every query, is not thread-safe on first use
            out = [fn(x) for x in items]
            with self._lock:
                if self._pool is None and items:
                    self._pool = ThreadPoolExecutor(self.THREADS,
                                                    thread_name_prefix="kgground-linking")
            return out
        if len(items) <= 1:
            return [fn(x) for x in items]
        return list(self._pool.map(fn, items))

    # -- names ------------------------------------------------------------------------------
    def _search(self, norm: str) -> list[Any]:
        try:
            return self.kb.search(norm, limit=self.SEARCH_LIMIT)
        except KGGroundError:
            raise
        except ValueError:          # a text the KB refuses to search for
            return []

    def _exact(self, norm: str) -> tuple[Name, ...]:
        found = self._names.get(norm)
        if found is None:
            self._properties()
            out = []
            for c in self._search(norm):
                if c.id in self._prop_ids or entity_kind(c.id) == "property":
                    continue
                matched = c.matched or c.label
                if normalize(matched) == norm:
                    out.append(Name(c.id, matched, norm, c.lang, c.match != "alias",
                                    c.prior, 0.0))
            found = tuple(out)
            with self._lock:
                self._names.put(norm, found)
        return found

    def names(self, norms: Sequence[str]) -> list[Name]:
        wanted = list(dict.fromkeys(n for n in norms if n))
        return [n for group in self._map(self._exact, wanted) for n in group]

    def known(self, norms: Sequence[str]) -> set[str]:
        wanted = list(dict.fromkeys(n for n in norms if n))
        return {n for n, found in zip(wanted, self._map(self._exact, wanted), strict=True)
                if found}

    def similar(self, norm: str, how: str, *, limit: int = 20) -> list[tuple[str, float]]:
        if how != "words" or not norm:
            return []
        words = norm.split()
        out: dict[str, float] = {}
        for c in self._search(norm):
            m = normalize(c.matched or c.label)
            names = m.split()
            if m != norm and all(w in names for w in words):
                out.setdefault(m, len(words) / max(len(names), 1))
        return list(out.items())[:limit]

    # -- entities ---------------------------------------------------------------------------
    def _entity(self, id: str) -> Any:
        found = self._labels.get(id)
        if found is None:
            try:
                found = self.kb.entity(id)
            except (LookupError, ValueError):
                found = False
            with self._lock:
                self._labels.put(id, found)
        return found or None

    def labels(self, ids: Sequence[str], *, lang: str = "en") -> dict[str, tuple[str, str | None]]:
        wanted = list(dict.fromkeys(ids))
        out = {}
        for id, ent in zip(wanted, self._map(self._entity, wanted), strict=True):
            out[id] = (ent.label(lang), ent.description(lang)) if ent is not None else (id, None)
        return out

    def _profile(self, id: str) -> tuple:
        found = self._profiles.get(id)
        if found is not None:
            return found
        subject_of, value_of, types, neighbours = set(), set(), set(), set()
        try:
            for s in self.kb.statements(subject=id, limit=self.PROFILE_STATEMENTS):
                subject_of.add(s.property)
                if s.value.kind in ("entity", "iri"):
                    neighbours.add(s.value.value)
                    if s.property in TYPE_PROPERTIES:
                        types.add(s.value.value)
            for s in self.kb.statements(value=id, limit=self.PROFILE_STATEMENTS):
                value_of.add(s.property)
                neighbours.add(s.subject)
        except (LookupError, ValueError):
            pass
        ent = self._entity(id)
        langs = 0.0
        if ent is not None:
            n = len({*ent.labels, *ent.aliases})
            langs = min(1.0, n / self.LANGS_SCALE)
        found = (frozenset(subject_of), frozenset(value_of), frozenset(types),
                 frozenset(neighbours), langs)
        with self._lock:
            self._profiles.put(id, found)
        return found

    def profiles(self, ids: Sequence[str], *, lang: str = "en") -> dict[str, EntityProfile]:
        wanted = list(dict.fromkeys(ids))
        raw = dict(zip(wanted, self._map(self._profile, wanted), strict=True))
        type_ids = sorted({t for r in raw.values() for t in r[2]})
        names = self.labels(type_ids, lang=lang) if type_ids else {}
        return {i: EntityProfile(i, r[2], tuple(names[t][0] for t in sorted(r[2])
                                               if names[t][0] != t),
                                 r[0], r[1], r[3], r[4]) for i, r in raw.items()}

    def related(self, values: Sequence[str], properties: Sequence[str],
                *, limit: int = 50) -> dict[str, list[tuple[str, str]]]:
        """value → up to ``limit`` (subject, property) of statements with one of
        ``properties`` and that value ("what is headquartered in Boston"). Optional in a
        LinkingKB (``Related``): a city's teams come from it."""
        def one(value: str) -> list[tuple[str, str]]:
            found: list[tuple[str, str]] = []
            for prop in properties:
                try:
                    found += [(s.subject, prop) for s in
                              self.kb.statements(property=prop, value=value, limit=limit)]
                except (LookupError, ValueError):
                    continue
            return found[:limit]
        wanted = list(dict.fromkeys(values))
        return {v: r for v, r in zip(wanted, self._map(one, wanted), strict=True) if r}

    def connecting(self, subject: str, value: str) -> frozenset[str]:
        try:
            return frozenset(s.property for s in self.kb.statements(subject, value=value,
                                                                    limit=100))
        except (LookupError, ValueError):
            return frozenset()

    # -- properties -------------------------------------------------------------------------
    def _query(self, query: str) -> list:
        """Rows of a SPARQL query; [] when the KB cannot answer it (too big, unsupported)."""
        try:
            return list(self.kb.sparql(query, timeout=60).rows)
        except KGGroundError:
            return []

    def _properties(self) -> list[PropertyNames]:
        if self._props is not None:
            return self._props
        with self._props_lock:
            if self._props is None:
                self._props = self._load_properties()
                self._prop_ids = frozenset(p.id for p in self._props)
        return self._props

    def properties(self) -> list[PropertyNames]:
        return self._properties()

    def _load_properties(self) -> list[PropertyNames]:
        terms: dict[str, dict[str, Any]] = {}

        def entry(pid: str) -> dict[str, Any]:
            return terms.setdefault(pid, {"labels": {}, "aliases": {}, "descriptions": {},
                                          "datatype": None, "usage": 0, "types": {},
                                          "entity": 0, "values": 0})

        # Wikidata-shaped KBs declare their properties with wikibase:propertyType
        for row in self._query(
                "SELECT ?p ?k ?o WHERE { ?p <" + WIKIBASE + "propertyType> ?t . "
                "{ ?p <" + WIKIBASE + "propertyType> ?o BIND(\"type\" AS ?k) } UNION "
                "{ ?p <http://www.w3.org/2000/01/rdf-schema#label> ?o BIND(\"label\" AS ?k) } "
                "UNION { ?p <http://www.w3.org/2004/02/skos/core#altLabel> ?o "
                "BIND(\"alias\" AS ?k) } UNION { ?p <http://schema.org/description> ?o "
                "BIND(\"description\" AS ?k) } }"):
            pid = iri_to_id(str(row["p"]))
            e, kind, o = entry(pid), str(row["k"]), row["o"]
            lang = (getattr(o, "language", None) or "").lower()
            if kind == "type":
                e["datatype"] = _datatype(str(o))
            elif kind == "label":
                e["labels"].setdefault(lang, str(o))
            elif kind == "description":
                e["descriptions"].setdefault(lang, str(o))
            else:
                e["aliases"].setdefault(lang, []).append(str(o))
        # every predicate in use, with how often (skipped by KBs too big to count)
        for row in self._query("SELECT ?p (COUNT(*) AS ?n) (SUM(IF(isIRI(?o), 1, 0)) AS ?e) "
                               "WHERE { ?s ?p ?o } GROUP BY ?p"):
            iri = str(row["p"])
            if _is_term_predicate(iri):
                continue
            pid = property_from_iri(iri)
            if pid == iri and iri.startswith("http://www.wikidata.org/prop/"):
                continue                   # p:, ps:, pq: forms of a Wikidata property
            e = entry(pid)
            e["usage"] = int(row["n"].toPython())
            e["entity"] = int(row["e"].toPython()) if "e" in row else 0
        for row in self._query(
                "SELECT ?p ?t (COUNT(*) AS ?n) WHERE { ?s ?p ?o . ?o <" + WDT + "P31>|<"
                + RDF_TYPE + "> ?t } GROUP BY ?p ?t"):
            pid = property_from_iri(str(row["p"]))
            if pid in terms:
                terms[pid]["types"][iri_to_id(str(row["t"]))] = int(row["n"].toPython())
        unnamed = [p for p, e in terms.items() if not e["labels"]]
        for pid in unnamed:                # a predicate without wikibase:propertyType
            ent = self._entity(pid)
            e = terms[pid]
            if ent is not None and ent.labels:
                e["labels"].update(ent.labels)
                e["descriptions"].update(ent.descriptions)
                for lang, texts in ent.aliases.items():
                    e["aliases"].setdefault(lang, []).extend(texts)
            elif not PROPERTY_ID.match(pid):
                e["labels"][""] = local_name_label(pid)      # named after its IRI
        out = []
        for pid, e in terms.items():
            entities = e["entity"]
            top = sorted(e["types"].items(), key=lambda kv: (-kv[1], kv[0]))[:8]
            out.append(PropertyNames(
                pid, e["datatype"], e["labels"],
                {k: tuple(v) for k, v in e["aliases"].items()}, e["descriptions"], e["usage"],
                entities / e["usage"] if e["usage"] else 0.0,
                tuple((t, n / max(entities, 1)) for t, n in top)))
        return out


def _datatype(iri: str) -> str:
    from store.vocab import DATATYPE_BY_IRI
    return DATATYPE_BY_IRI.get(iri, iri)


def _is_term_predicate(iri: str) -> bool:
    from store.vocab import PROPERTY_TYPE, TERM_PREDICATES
    return iri in TERM_PREDICATES or iri == PROPERTY_TYPE
