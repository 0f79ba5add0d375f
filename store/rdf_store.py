"""The mirror as an rdflib Store, in Wikidata's RDF layout.

``MirrorStore`` presents these triples, so that rdflib's evaluator answers any SPARQL 1.1
query over a mirror (one triple pattern at a time, which is slow but complete):

- ``wdt:P…`` (truthy statements, never 'novalue'), and a custom KB's own predicates under
  their IRIs (also from the statements table);
- ``rdfs:label``, ``skos:altLabel``, ``schema:description`` (the terms table) and
  ``wikibase:propertyType`` (the entities table);
- statement nodes, for statements loaded with a statement ID (Wikidata JSON): ``p:P…``
  links a subject to its statement node (every rank, 'novalue' too), ``ps:P…`` a statement
  node to its value, ``pq:P…`` to its qualifier values ('novalue' left out, as Wikidata's
  RDF does) and ``wikibase:rank`` to ``wikibase:PreferredRank``, ``NormalRank`` or
  ``DeprecatedRank``;
- for every property the mirror holds, WDQS's ``wikibase:directClaim`` (``wdt:P…``),
  ``wikibase:claim`` (``p:``), ``wikibase:statementProperty`` (``ps:``) and
  ``wikibase:qualifier`` (``pq:``) links, and ``rdf:type wikibase:Item`` /
  ``wikibase:Property`` / ``wikibase:Lexeme`` by entity kind. These are presented only to
  patterns that name the predicate (and, for ``rdf:type``, the class): a pattern with a
  variable predicate or class does not list them.

A statement node's IRI is ``wds:`` + the statement ID with its first ``$`` replaced by
``-``.

The SQL compiler (``store.sparql.sql``) presents exactly the same triples; the term
conversions both use live here.
"""

from __future__ import annotations

import functools
import re
import time
from typing import TYPE_CHECKING, Any, Iterator

from rdflib import BNode, Literal, URIRef
from rdflib.store import Store

from store.errors import QueryError, QueryTimeout
from store.limits import current as current_limits
from store.normalize import normalize
from store.vocab import (ALIAS, DATATYPE_BY_IRI, DESCRIPTION, ENTITY_CLASSES, LABEL,
                         PQ, PROPERTY_ID, PROPERTY_LINKS, PROPERTY_TYPE, PS, RDF_TYPE,
                         RDFS_LABEL, SCHEMA_DESCRIPTION, SKOS_ALT_LABEL, WD, WDT, WIKIBASE, P,
                         id_to_iri, iri_to_id, property_from_iri)

if TYPE_CHECKING:
    from store.mirror import Mirror

WDS = WD + "statement/"
TERM_KINDS = {RDFS_LABEL: LABEL, SKOS_ALT_LABEL: ALIAS, SCHEMA_DESCRIPTION: DESCRIPTION}
_TERM_PREDICATES = {v: URIRef(k) for k, v in TERM_KINDS.items()}
DATATYPE_IRIS = {datatype: iri for iri, datatype in DATATYPE_BY_IRI.items()}
RANK = WIKIBASE + "rank"
#: the ``rank`` column → Wikidata's rank IRIs
RANK_IRIS = (WIKIBASE + "DeprecatedRank", WIKIBASE + "NormalRank", WIKIBASE + "PreferredRank")
# The entity part of a statement ID: Q/P IDs, or lexemes with their forms and senses.
_SID_IN_IRI = re.compile(r"(L[1-9][0-9]*(?:-[FS][1-9][0-9]*)?|[QP][1-9][0-9]*)-(.+)\Z", re.I)


def statement_iri(sid: str) -> str:
    """``Q42$F078…`` → ``http://www.wikidata.org/entity/statement/Q42-F078…``."""
    return WDS + sid.replace("$", "-", 1)


def sid_from_iri(iri: str) -> str | None:
    """The statement ID a statement node's IRI stands for (None: not a statement IRI)."""
    if not iri.startswith(WDS):
        return None
    m = _SID_IN_IRI.match(iri[len(WDS):])
    return f"{m[1]}${m[2]}" if m else None


@functools.lru_cache(maxsize=65536)
def node_term(id: str) -> Any:
    """The mirror's ID of a node (``Q42``, an IRI, ``_:label``) → its rdflib term."""
    if id.startswith("_:"):
        return BNode(id[2:])
    return URIRef(id_to_iri(id))


@functools.lru_cache(maxsize=65536)
def literal_term(value: str, lang: str, datatype: str) -> Literal:
    """A literal as the mirror stores it. The lexical form is kept as it is
    (``normalize=False``): rdflib would otherwise rewrite ``"1952-03-11T00:00:00Z"`` as
    ``…+00:00`` and ``"+5"`` as ``"5"``, and results would no longer match the data."""
    return Literal(value, lang=lang or None, datatype=URIRef(datatype) if datatype else None,
                   normalize=False)


def to_term(kind: str, value: str, lang: str = "", datatype: str = "") -> Any:
    """A mirror value → an rdflib term (None for Wikidata's 'novalue'; a fresh blank node
    for 'somevalue'). ``kind`` 'stmt' is a statement node (``value`` is its ID)."""
    if kind == "entity":
        return node_term(value)
    if kind == "literal":
        return literal_term(value, lang, datatype)
    if kind == "iri":
        return URIRef(value)
    if kind == "bnode":
        return BNode(value[2:])
    if kind == "somevalue":
        return BNode()
    if kind == "stmt":
        return URIRef(statement_iri(value))
    return None


def _node_id(term: Any) -> str | None:
    """An rdflib subject/object term → the mirror's ID for it (None: cannot be in it)."""
    if isinstance(term, URIRef):
        return iri_to_id(str(term))
    if isinstance(term, BNode):
        return f"_:{term}"
    return None


def _value_match(o: Any, col: str = "") -> tuple[list[str], list[Any]] | None:
    """SQL conditions that match a statement or qualifier value to the term ``o``
    (None: no value can be ``o``). ``col`` prefixes the column names."""
    if isinstance(o, Literal):
        return ([f"{col}value = ?", f"{col}value_kind = 'literal'", f"{col}lang = ?",
                 f"{col}datatype = ?"],
                [str(o), o.language or "", str(o.datatype) if o.datatype else ""])
    if isinstance(o, BNode):
        return [f"{col}value = ?", f"{col}value_kind = 'bnode'"], [f"_:{o}"]
    if isinstance(o, URIRef):
        sid = sid_from_iri(str(o))
        if sid is not None:   # a statement node is never a statement's value
            return None
        return [f"{col}value = ?", f"{col}value_kind IN ('entity', 'iri')"], [iri_to_id(str(o))]
    return None


class _Where:
    """The WHERE clause of a triple pattern's query: conditions joined by AND and their
    parameters. A term bound in the pattern adds its condition, an unbound one (None)
    adds nothing, and a term no row can match sets ``impossible``."""

    def __init__(self, *conditions: str):
        self.conditions = list(conditions)
        self.params: list[Any] = []
        self.impossible = False

    def __str__(self) -> str:
        return " AND ".join(self.conditions)

    def equals(self, column: str, value: Any) -> None:
        if value is not None:
            self.conditions.append(f"{column} = ?")
            self.params.append(value)

    def statement_node(self, term: Any, column: str = "sid") -> None:
        """``term`` (when bound) must be the IRI of a statement node."""
        if term is not None:
            sid = sid_from_iri(str(term)) if isinstance(term, URIRef) else None
            self.impossible = self.impossible or sid is None
            self.equals(column, sid)

    def value(self, term: Any, col: str = "") -> None:
        """``term`` (when bound) must be the statement's or qualifier's value."""
        if term is not None:
            match = _value_match(term, col)
            if match is None:
                self.impossible = True
            else:
                self.conditions += match[0]
                self.params += match[1]


class MirrorStore(Store):
    """A read-only rdflib Store over a mirror (see the module docstring).

    Lookups check the running query's limits (``store.limits``); ``deadline`` (a
    ``time.monotonic()`` value) adds one of its own (QueryTimeout past it).
    """

    context_aware = False
    formula_aware = False
    transaction_aware = False
    graph_aware = False

    def __init__(self, mirror: Mirror, *, deadline: float | None = None):
        super().__init__()
        self.mirror = mirror
        self.deadline = deadline
        self.started = time.monotonic()

    def _query(self, sql: str, params: list[Any]) -> Iterator[tuple]:
        """The rows of one lookup, fetched a few hundred at a time (a pattern such as
        ``?s ?p ?o`` matches the whole mirror: never all in memory at once), checking the
        running query's limits (``store.limits``) between batches."""
        query_limits = current_limits()
        self._check(query_limits)
        if not self.mirror.is_sqlite:
            yield from self.mirror.query(sql, params)
            return
        cursor = self.mirror.raw.driver_connection.execute(sql, params)
        try:
            while True:
                batch = cursor.fetchmany(512)
                if not batch:
                    return
                yield from batch
                self._check(query_limits)
        finally:
            cursor.close()

    def _check(self, query_limits: Any) -> None:
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise QueryTimeout(round(self.deadline - self.started, 3))
        if query_limits is not None:
            query_limits.raise_if_stopped()

    def triples(self, pattern: tuple, context: Any = None) -> Iterator[tuple[tuple, Iterator]]:
        s, p, o = pattern
        for triple in self._triples(s, p, o):
            yield triple, iter(())

    def _triples(self, s: Any, p: Any, o: Any) -> Iterator[tuple]:
        subject = None
        if s is not None:
            subject = _node_id(s)
            if subject is None:
                return
        if p is None:
            for kind in _TERM_PREDICATES:
                yield from self._terms(s, subject, kind, o)
            yield from self._datatypes(s, subject, o)
            yield from self._statements(s, subject, None, o)
            yield from self._statement_nodes(s, subject, None, o)
            yield from self._statement_values(s, None, o)
            yield from self._qualifiers(s, None, o)
            yield from self._ranks(s, o)
            return
        if not isinstance(p, URIRef):
            return
        pred = str(p)
        if pred in PROPERTY_LINKS:
            yield from self._property_links(s, subject, pred, o)
            return
        if pred == RDF_TYPE and o is not None and str(o) in ENTITY_CLASSES:
            yield from self._entity_classes(s, subject, o)
        if pred in TERM_KINDS:
            yield from self._terms(s, subject, TERM_KINDS[pred], o)
        elif pred == PROPERTY_TYPE:
            yield from self._datatypes(s, subject, o)
        elif pred == RANK:
            yield from self._ranks(s, o)
        elif not pred.startswith("http://www.wikidata.org/"):
            yield from self._statements(s, subject, pred, o)
        else:
            for prefix, method in ((WDT, None), (PS, self._statement_values),
                                   (PQ, self._qualifiers)):
                if pred.startswith(prefix):
                    pid = pred[len(prefix):]
                    if not PROPERTY_ID.match(pid):
                        return
                    if method is None:
                        yield from self._statements(s, subject, property_from_iri(pred), o)
                    else:
                        yield from method(s, pid, o)
                    return
            if pred.startswith(P) and PROPERTY_ID.match(pred[len(P):]):
                yield from self._statement_nodes(s, subject, pred[len(P):], o)

    def _terms(self, s: Any, subject: str | None, kind: int, o: Any) -> Iterator[tuple]:
        if o is not None and not (isinstance(o, Literal) and o.datatype is None):
            return
        sql = "SELECT entity, lang, text FROM terms WHERE kind = ?"
        params: list[Any] = [kind]
        if subject is not None:
            sql += " AND entity = ?"
            params.append(subject)
        if o is not None:
            sql += " AND text = ? AND lang = ?"
            params += [str(o), (o.language or "").lower()]
            if kind != DESCRIPTION:     # labels and aliases: the label index finds them
                sql += " AND norm = ?"
                params.append(normalize(str(o)))
        pred = _TERM_PREDICATES[kind]
        for entity, lang, text in self._query(sql, params):
            yield (s if s is not None else node_term(entity), pred,
                   literal_term(text, lang, ""))

    def _property_links(self, s: Any, subject: str | None, pred: str,
                        o: Any) -> Iterator[tuple]:
        """``wd:P31 wikibase:directClaim wdt:P31`` and its kin, for the mirror's properties."""
        namespace = PROPERTY_LINKS[pred]
        sql, params = "SELECT id FROM entities WHERE kind = 'property'", []
        if subject is not None:
            sql += " AND id = ?"
            params.append(subject)
        if o is not None:
            if not (isinstance(o, URIRef) and str(o).startswith(namespace)):
                return
            sql += " AND id = ?"
            params.append(str(o)[len(namespace):])
        for (pid,) in self._query(sql, params):
            yield (s if s is not None else node_term(pid), URIRef(pred),
                   URIRef(namespace + pid))

    def _entity_classes(self, s: Any, subject: str | None, o: Any) -> Iterator[tuple]:
        """``wd:Q42 rdf:type wikibase:Item`` (and Property, Lexeme) by entity kind."""
        sql, params = "SELECT id FROM entities WHERE kind = ?", [ENTITY_CLASSES[str(o)]]
        if subject is not None:
            sql += " AND id = ?"
            params.append(subject)
        for (eid,) in self._query(sql, params):
            yield (s if s is not None else node_term(eid), URIRef(RDF_TYPE), o)

    def _datatypes(self, s: Any, subject: str | None, o: Any) -> Iterator[tuple]:
        sql, params = "SELECT id, datatype FROM entities WHERE datatype IS NOT NULL", []
        if subject is not None:
            sql += " AND id = ?"
            params.append(subject)
        for eid, datatype in self._query(sql, params):
            obj = URIRef(DATATYPE_IRIS.get(datatype, datatype))
            if o is None or o == obj:
                yield (s if s is not None else node_term(eid), URIRef(PROPERTY_TYPE), obj)

    def _statements(self, s: Any, subject: str | None, prop: str | None,
                    o: Any) -> Iterator[tuple]:
        where = _Where("truthy = 1", "value_kind != 'novalue'")
        where.equals("subject", subject)
        where.equals("property", prop)
        where.value(o)
        if where.impossible:
            return
        for subj, pr, kind, value, lang, datatype in self._query(
                "SELECT subject, property, value_kind, value, lang, datatype FROM statements "
                f"WHERE {where}", where.params):
            obj = o if o is not None else to_term(kind, value, lang, datatype)
            pred = URIRef(WDT + pr) if PROPERTY_ID.match(pr) else URIRef(pr)
            yield (s if s is not None else node_term(subj), pred, obj)

    def _statement_nodes(self, s: Any, subject: str | None, prop: str | None,
                         o: Any) -> Iterator[tuple]:
        """``subject p:P… statement-node``."""
        where = _Where("sid != ''")
        where.equals("subject", subject)
        where.equals("property", prop)
        where.statement_node(o)
        if where.impossible:
            return
        for subj, pr, sid in self._query(
                f"SELECT subject, property, sid FROM statements WHERE {where}", where.params):
            if PROPERTY_ID.match(pr):
                yield (s if s is not None else node_term(subj), URIRef(P + pr),
                       URIRef(statement_iri(sid)))

    def _statement_values(self, s: Any, prop: str | None, o: Any) -> Iterator[tuple]:
        """``statement-node ps:P… value``."""
        where = _Where("sid != ''", "value_kind != 'novalue'")
        where.statement_node(s)
        where.equals("property", prop)
        where.value(o)
        if where.impossible:
            return
        for sid, pr, kind, value, lang, datatype in self._query(
                "SELECT sid, property, value_kind, value, lang, datatype FROM statements "
                f"WHERE {where}", where.params):
            yield (URIRef(statement_iri(sid)), URIRef(PS + pr),
                   o if o is not None else to_term(kind, value, lang, datatype))

    def _qualifiers(self, s: Any, prop: str | None, o: Any) -> Iterator[tuple]:
        """``statement-node pq:P… qualifier-value``."""
        where = _Where("st.sid != ''", "q.value_kind != 'novalue'")
        where.statement_node(s, "st.sid")
        where.equals("q.property", prop)
        where.value(o, "q.")
        if where.impossible:
            return
        for sid, pr, kind, value, lang, datatype in self._query(
                "SELECT st.sid, q.property, q.value_kind, q.value, q.lang, q.datatype "
                "FROM qualifiers q JOIN statements st ON st.id = q.statement_id "
                f"WHERE {where}", where.params):
            yield (URIRef(statement_iri(sid)), URIRef(PQ + pr),
                   o if o is not None else to_term(kind, value, lang, datatype))

    def _ranks(self, s: Any, o: Any) -> Iterator[tuple]:
        """``statement-node wikibase:rank wikibase:…Rank``."""
        where = _Where("sid != ''")
        where.statement_node(s)
        if o is not None:
            if str(o) not in RANK_IRIS:
                return
            where.equals("rank", RANK_IRIS.index(str(o)))
        if where.impossible:
            return
        for sid, rank in self._query(
                f"SELECT sid, rank FROM statements WHERE {where}", where.params):
            yield URIRef(statement_iri(sid)), URIRef(RANK), URIRef(RANK_IRIS[rank])

    def __len__(self, context: Any = None) -> int:
        return self.mirror.query(
            "SELECT (SELECT COUNT(*) FROM statements WHERE truthy = 1) + "
            "(SELECT COUNT(*) FROM terms)")[0][0]

    def add(self, *args: Any, **kwargs: Any) -> None:
        raise QueryError("the mirror is read-only through SPARQL",
                         fix="load data with `kgground mirror load`")

    def remove(self, *args: Any, **kwargs: Any) -> None:
        self.add()
