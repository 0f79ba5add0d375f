"""SPARQL over a mirror through rdflib's own evaluator.

``MirrorStore`` presents the mirror as an rdflib Store in Wikidata's truthy RDF layout:
``wdt:`` triples (truthy statements), ``rdfs:label``, ``skos:altLabel``,
``schema:description``, ``wikibase:propertyType``, and a custom KB's own predicates under
their IRIs. rdflib evaluates any SPARQL 1.1 query against it, one triple pattern at a time.
"""

from __future__ import annotations

import time
from typing import Any, Iterator

import rdflib
from rdflib import BNode, Literal, URIRef
from rdflib.store import Store

from kb.sparql_check import prepare
from kb.types import SparqlResult
from store.errors import QueryError
from store.vocab import (ALIAS, DATATYPE_BY_IRI, DESCRIPTION, LABEL, PROPERTY_ID,
                         PROPERTY_TYPE, RDFS_LABEL, SCHEMA_DESCRIPTION, SKOS_ALT_LABEL, WDT,
                         id_to_iri, iri_to_id, property_from_iri)

_TERM_KINDS = {RDFS_LABEL: LABEL, SKOS_ALT_LABEL: ALIAS, SCHEMA_DESCRIPTION: DESCRIPTION}
_TERM_PREDICATES = {v: URIRef(k) for k, v in _TERM_KINDS.items()}
_DATATYPE_IRIS = {datatype: iri for iri, datatype in DATATYPE_BY_IRI.items()}


def to_term(kind: str, value: str, lang: str = "", datatype: str = "") -> Any:
    """A mirror value → an rdflib term (None for Wikidata's 'novalue')."""
    if kind == "entity":
        return URIRef(id_to_iri(value))
    if kind == "iri":
        return URIRef(value)
    if kind == "literal":
        return Literal(value, lang=lang or None, datatype=URIRef(datatype) if datatype else None)
    if kind == "bnode":
        return BNode(value[2:])
    if kind == "somevalue":
        return BNode()
    return None


def _node_term(id: str) -> Any:
    """The mirror's ID of a subject → its rdflib term."""
    return BNode(id[2:]) if id.startswith("_:") else URIRef(id_to_iri(id))


def _node_id(term: Any) -> str | None:
    """An rdflib subject/object term → the mirror's ID for it (None: cannot be in it)."""
    if isinstance(term, URIRef):
        return iri_to_id(str(term))
    if isinstance(term, BNode):
        return f"_:{term}"
    return None


class MirrorStore(Store):
    """A read-only rdflib Store over a mirror (see the module docstring)."""

    context_aware = False
    formula_aware = False
    transaction_aware = False
    graph_aware = False

    def __init__(self, mirror: Any):
        super().__init__()
        self.mirror = mirror

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
            return
        if not isinstance(p, URIRef):
            return
        pred = str(p)
        if pred in _TERM_KINDS:
            yield from self._terms(s, subject, _TERM_KINDS[pred], o)
        elif pred == PROPERTY_TYPE:
            yield from self._datatypes(s, subject, o)
        elif pred.startswith(WDT) and PROPERTY_ID.match(pred[len(WDT):]):
            yield from self._statements(s, subject, property_from_iri(pred), o)
        elif not pred.startswith("http://www.wikidata.org/"):
            yield from self._statements(s, subject, pred, o)

    def _terms(self, s: Any, subject: str | None, kind: int, o: Any) -> Iterator[tuple]:
        if o is not None and not (isinstance(o, Literal) and o.datatype is None):
            return
        sql, params = "SELECT entity, lang, text FROM terms WHERE kind = ?", [kind]
        if subject is not None:
            sql += " AND entity = ?"
            params.append(subject)
        if o is not None:
            sql += " AND text = ? AND lang = ?"
            params += [str(o), (o.language or "").lower()]
        pred = _TERM_PREDICATES[kind]
        for entity, lang, text in self.mirror.query(sql, params):
            yield (s if s is not None else _node_term(entity), pred,
                   Literal(text, lang=lang or None))

    def _datatypes(self, s: Any, subject: str | None, o: Any) -> Iterator[tuple]:
        sql, params = "SELECT id, datatype FROM entities WHERE datatype IS NOT NULL", []
        if subject is not None:
            sql += " AND id = ?"
            params.append(subject)
        for eid, datatype in self.mirror.query(sql, params):
            obj = URIRef(_DATATYPE_IRIS.get(datatype, datatype))
            if o is None or o == obj:
                yield (s if s is not None else _node_term(eid), URIRef(PROPERTY_TYPE), obj)

    def _statements(self, s: Any, subject: str | None, prop: str | None,
                    o: Any) -> Iterator[tuple]:
        where, params = ["truthy = 1", "value_kind != 'novalue'"], []
        if subject is not None:
            where.append("subject = ?")
            params.append(subject)
        if prop is not None:
            where.append("property = ?")
            params.append(prop)
        if o is not None:
            if isinstance(o, Literal):
                where.append("value = ? AND value_kind = 'literal' AND lang = ? AND datatype = ?")
                params += [str(o), o.language or "", str(o.datatype) if o.datatype else ""]
            else:
                oid = _node_id(o)
                if oid is None:
                    return
                where.append("value = ?")
                params.append(oid)
        for subj, pr, kind, value, lang, datatype in self.mirror.query(
                "SELECT subject, property, value_kind, value, lang, datatype FROM statements "
                f"WHERE {' AND '.join(where)}", params):
            obj = o if o is not None else to_term(kind, value, lang, datatype)
            pred = URIRef(WDT + pr) if PROPERTY_ID.match(pr) else URIRef(pr)
            yield (s if s is not None else _node_term(subj), pred, obj)

    def __len__(self, context: Any = None) -> int:
        return self.mirror.query("SELECT (SELECT COUNT(*) FROM statements WHERE truthy = 1) + "
                                 "(SELECT COUNT(*) FROM terms)")[0][0]

    def add(self, *args: Any, **kwargs: Any) -> None:
        raise QueryError("the mirror is read-only through SPARQL",
                         fix="load data with `kgground mirror load`")

    def remove(self, *args: Any, **kwargs: Any) -> None:
        self.add()


def result_from_rdflib(result: Any, *, source: str, engine: str, explain: str = "") -> SparqlResult:
    """An rdflib query result → SparqlResult."""
    if result.type == "ASK":
        return SparqlResult(boolean=bool(result.askAnswer), source=source, engine=engine,
                            explain=explain)
    if result.type in ("CONSTRUCT", "DESCRIBE"):
        return SparqlResult(graph=result.graph, source=source, engine=engine, explain=explain)
    names = tuple(str(v) for v in result.vars)
    rows = tuple({name: row[i] for i, name in enumerate(names) if row[i] is not None}
                 for row in result)
    return SparqlResult(vars=names, rows=rows, source=source, engine=engine, explain=explain)


def run_sparql(kb: Any, query: str, *, timeout: float | None = None) -> SparqlResult:
    """Answer ``query`` over ``kb``'s mirror with rdflib's evaluator."""
    prepared = prepare(query)
    started = time.perf_counter()
    graph = rdflib.Graph(store=MirrorStore(kb.mirror))
    result = graph.query(prepared)
    out = result_from_rdflib(result, source=kb.name, engine="rdflib",
                             explain="rdflib's SPARQL evaluator over the mirror")
    if timeout is not None and time.perf_counter() - started > timeout:
        raise QueryError(f"the query took longer than its {timeout} s timeout",
                         fix="add a LIMIT or bind more of the pattern")
    return out
