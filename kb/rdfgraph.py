"""RdfGraphKB: the KnowledgeBase over any rdflib Graph or RDF file — a user's own KB.

Terms are read from the same predicates the mirror loader understands (``rdfs:label``,
``skos:prefLabel``, ``schema:name`` → labels; ``skos:altLabel`` → aliases;
``schema:description`` → descriptions); every other triple is a statement. Entities in
Wikidata's namespace get short IDs (``Q42``, ``wdt:P31`` → ``P31``); everything else keeps
its IRI, and prefixed names bound in the graph (``ex:alice``) are accepted as IDs.

The graph lives in memory: right for custom KBs up to a few million triples. For Wikidata
dumps build a mirror instead (``kgground mirror load``).
"""

from __future__ import annotations

import bisect
import datetime as dt
import logging
import math
from collections import defaultdict
from pathlib import Path
from typing import Any

import rdflib
from rdflib import BNode, Literal, URIRef

from kb.base import check_triplet_query, property_info_from
from kb.ranking import PRIOR_WEIGHT, exact_kind, match_score, prior, search_key
from kb.types import (Candidate, Citation, Entity, PropertyInfo, SparqlResult, SparqlStream,
                      Statement, Value)
from store.batches import RDF_FORMATS, base_suffix
from store.literals import invalid_literals
from store.rdf_parse import parse_rdf
from store.errors import EntityNotFound, LoadError, PropertyNotFound
from store.normalize import normalize
from store.sparql import run as run_sparql
from store.vocab import (DATATYPE_BY_IRI, DESCRIPTION, LABEL, PROPERTY_ID, PROPERTY_TYPE,
                         TERM_PREDICATES, WDT, check_id, check_property, entity_kind, id_to_iri,
                         iri_to_id, property_from_iri)

RDFS_RANGE = URIRef("http://www.w3.org/2000/01/rdf-schema#range")
XSD_NS = "http://www.w3.org/2001/XMLSchema#"
#: XSD datatypes → the datatype names properties carry (Wikidata's)
_XSD_KINDS = {**dict.fromkeys(("date", "dateTime", "gYear", "gYearMonth", "time"), "time"),
              **dict.fromkeys(("decimal", "integer", "int", "long", "double", "float",
                               "nonNegativeInteger", "positiveInteger", "short"), "quantity"),
              **dict.fromkeys(("string", "langString", "normalizedString", "token"),
                              "string")}


_log = logging.getLogger("kgground")


def _value(term: Any) -> Value:
    if isinstance(term, Literal):
        return Value("literal", str(term), (term.language or "").lower(),
                     str(term.datatype) if term.datatype else "")
    if isinstance(term, BNode):
        return Value("bnode", f"_:{term}")
    short = iri_to_id(str(term))
    return Value("entity", short) if short != str(term) else Value("iri", short)


class RdfGraphKB:
    """A KnowledgeBase over an rdflib Graph, or over an RDF file it parses.

    ``RdfGraphKB("my-kb.ttl")`` (format from the extension; ``.gz``/``.bz2`` fine) or
    ``RdfGraphKB(graph, name="my-kb")``. A file is parsed as the mirror loaders parse one
    (``store.rdf_parse``: XML entities refused, nothing fetched from the network unless
    ``allow_network``); literals that do not fit their datatype are kept as text and said
    once, one line per datatype, in ``load_warnings`` and on the ``kgground`` logger.
    """

    def __init__(self, source: rdflib.Graph | str | Path, *, format: str | None = None,
                 name: str | None = None, allow_network: bool = False):
        self.load_warnings: tuple[str, ...] = ()
        if isinstance(source, rdflib.Graph):
            self.graph = source
            self.name = f"rdf:{name or source.identifier}"
        else:
            path = Path(source)
            if not path.is_file():
                raise LoadError("no such RDF file", path=str(path), fix="check the path")
            fmt = format or ("nt" if base_suffix(path) == ".nt"
                             else RDF_FORMATS.get(base_suffix(path), "turtle"))
            self.graph = parse_rdf(path, fmt, allow_network=allow_network)
            self.name = f"rdf:{name or path.resolve()}"
            self.load_warnings = tuple(invalid_literals(self.graph, path).summary())
            for line in self.load_warnings:
                _log.warning("%s: %s", path, line)
        self.loaded_at = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
        self._index: tuple | None = None

    def __repr__(self) -> str:
        return f"RdfGraphKB({self.name!r}, {len(self.graph)} triples)"

    # -- IDs ----------------------------------------------------------------------------------
    def _node(self, id: str, *, what: str = "an entity ID") -> URIRef | BNode:
        if isinstance(id, str) and id.startswith("_:"):
            return BNode(id[2:])
        if isinstance(id, str) and ":" in id and "://" not in id:
            prefix, _, local = id.partition(":")
            ns = dict(self.graph.namespaces()).get(prefix)
            if ns is not None and prefix not in ("http", "https", "urn"):
                return URIRef(str(ns) + local)
        return URIRef(id_to_iri(check_id(id, what=what)))

    def _predicate(self, pid: str) -> URIRef:
        """``P31`` → ``wdt:P31``; prefixed names and IRIs → themselves."""
        if isinstance(pid, str) and ":" in pid and "://" not in pid:
            node = self._node(pid, what="a property ID")
            if isinstance(node, URIRef):
                return node
        pid = check_property(pid)
        return URIRef(WDT + pid) if PROPERTY_ID.match(pid) else URIRef(pid)

    @staticmethod
    def _id(node: Any) -> str:
        return f"_:{node}" if isinstance(node, BNode) else iri_to_id(str(node))

    # -- entities -----------------------------------------------------------------------------
    def entity(self, id: str) -> Entity:
        node = self._node(id)
        labels: dict[str, str] = {}
        descriptions: dict[str, str] = {}
        aliases: dict[str, list[str]] = defaultdict(list)
        datatype = None
        found = False
        for _, p, o in self.graph.triples((node, None, None)):
            found = True
            kind = TERM_PREDICATES.get(str(p))
            if kind is not None and isinstance(o, Literal):
                lang = (o.language or "").lower()
                if kind == LABEL:
                    labels.setdefault(lang, str(o))
                elif kind == DESCRIPTION:
                    descriptions.setdefault(lang, str(o))
                else:
                    aliases[lang].append(str(o))
            elif str(p) == PROPERTY_TYPE:
                datatype = DATATYPE_BY_IRI.get(str(o), str(o))
        if not found:
            raise EntityNotFound(self._id(node), kb=self.name)
        eid = self._id(node)
        return Entity(eid, labels, descriptions,
                      {k: tuple(sorted(v)) for k, v in aliases.items()},
                      kind=entity_kind(eid), datatype=datatype, source=self.name)

    def property_info(self, pid: str) -> PropertyInfo:
        pred = self._predicate(pid)
        short = property_from_iri(str(pred))
        node = URIRef(id_to_iri(short)) if PROPERTY_ID.match(short) else pred
        try:
            info = property_info_from(self.entity(self._id(node)), short, self.name)
        except EntityNotFound:
            raise PropertyNotFound(short, kb=self.name) from None
        if info.datatype is None:
            datatype = self._datatype_of(pred)
            if datatype is not None:
                from dataclasses import replace
                info = replace(info, datatype=datatype)
        return info

    def _datatype_of(self, pred: URIRef) -> str | None:
        """A datatype (Wikidata's names: time, quantity, string, wikibase-item) for a
        predicate the file gives none: its declared ``rdfs:range``, else what its first
        values are."""
        for rng in self.graph.objects(pred, RDFS_RANGE):
            found = _XSD_KINDS.get(str(rng).rsplit("#", 1)[-1])
            if found is not None:
                return found
            if isinstance(rng, URIRef) and not str(rng).startswith(XSD_NS):
                return "wikibase-item"
        kinds = set()
        for i, o in enumerate(self.graph.objects(None, pred)):
            if i >= 20:
                break
            if isinstance(o, Literal):
                dt_name = str(o.datatype).rsplit("#", 1)[-1] if o.datatype else "string"
                kinds.add(_XSD_KINDS.get(dt_name, "string"))
            else:
                kinds.add("wikibase-item")
        return kinds.pop() if len(kinds) == 1 else None

    # -- the triplet query --------------------------------------------------------------------
    def statements(self, subject: str | None = None, property: str | None = None,
                   value: str | Value | None = None, *, limit: int = 100) -> list[Statement]:
        check_triplet_query(subject, property, value, limit)
        s = self._node(subject) if subject is not None else None
        p = self._predicate(property) if property is not None else None
        o = None
        if isinstance(value, Value):
            o = (URIRef(id_to_iri(value.value)) if value.kind in ("entity", "iri")
                 else BNode(value.value[2:]) if value.kind == "bnode"
                 else Literal(value.value, lang=value.lang or None, normalize=False,
                              datatype=URIRef(value.datatype) if value.datatype else None))
        elif value is not None:
            o = self._node(value, what="a value (an entity ID, an IRI, or a kb.Value)")
        found = [(ts, tp, to) for ts, tp, to in self.graph.triples((s, p, o))
                 if str(tp) not in TERM_PREDICATES and str(tp) != PROPERTY_TYPE]
        found.sort(key=lambda t: (str(t[0]), str(t[1]), str(t[2])))
        out = []
        for ts, tp, to in found[:limit]:
            sid, pid, v = self._id(ts), property_from_iri(str(tp)), _value(to)
            out.append(Statement(sid, pid, v, citation=Citation(
                sid, pid, v, self.name, self.loaded_at)))
        return out

    # -- search -------------------------------------------------------------------------------
    def _search_index(self) -> tuple:
        """(norm → [(id, kind, lang, text)], sorted norms, token → ids, degree by id)."""
        if self._index is None:
            exact: dict[str, list[tuple[str, int, str, str]]] = defaultdict(list)
            tokens: dict[str, set[str]] = defaultdict(set)
            degree: dict[str, int] = defaultdict(int)
            for s, p, o in self.graph:
                degree[self._id(s)] += 1
                if isinstance(o, (URIRef, BNode)):
                    degree[self._id(o)] += 1
                kind = TERM_PREDICATES.get(str(p))
                if kind is None or kind == DESCRIPTION or not isinstance(o, Literal):
                    continue
                norm = normalize(str(o))
                eid = self._id(s)
                exact[norm].append((eid, kind, (o.language or "").lower(), str(o)))
                for token in norm.split():
                    tokens[token].add(norm)
            self._index = (exact, sorted(exact), tokens, degree)
        return self._index

    def search(self, text: str, *, lang: str = "en", limit: int = 10) -> list[Candidate]:
        norm = search_key(text, limit)
        if norm is None:
            return []
        exact, norms, tokens, degree = self._search_index()
        log_max_degree = math.log1p(max(degree.values(), default=0))
        best: dict[str, tuple[float, str, str, str]] = {}

        def consider(term_norm: str, how: str | None) -> None:
            for eid, kind, tlang, ttext in exact[term_norm]:
                how_ = exact_kind(kind == LABEL, tlang, lang) if how is None else how
                score = match_score(how_, norm, term_norm)
                if score > best.get(eid, (-1.0,))[0]:
                    best[eid] = (score, how_, ttext, tlang)

        if norm in exact:
            consider(norm, None)
        start = bisect.bisect_right(norms, norm)
        for term_norm in norms[start:start + 10 * limit]:
            if not term_norm.startswith(norm):
                break
            consider(term_norm, "prefix")
        words = norm.split()
        if not best and words:   # word matches only when nothing matched whole, as MirrorKB
            shared = set.intersection(*(tokens.get(w, set()) for w in words))
            for term_norm in sorted(shared - {norm})[:10 * limit]:
                if not term_norm.startswith(norm):
                    consider(term_norm, "token")
        ranked = sorted(best, key=lambda e: (-(best[e][0] + PRIOR_WEIGHT * prior(
            0, degree.get(e, 0), 0.0, log_max_degree)), e))
        out = []
        for eid in ranked[:limit]:
            score, how, matched, mlang = best[eid]
            pop = prior(0, degree.get(eid, 0), 0.0, log_max_degree)
            ent = self.entity(eid)
            out.append(Candidate(eid, ent.label(lang), score + PRIOR_WEIGHT * pop, pop, matched,
                                 how.replace("-other", ""), mlang, ent.description(lang),
                                 {"match": score, "prior": pop}, self.name))
        return out

    # -- SPARQL -------------------------------------------------------------------------------
    def sparql(self, query: str, *, timeout: float | None = None) -> SparqlResult:
        """``query``'s answer by rdflib's evaluator, within ``timeout`` seconds (None: the
        default of ``store.limits``) and the memory budget of a query; QueryTimeout,
        QueryTooLarge and kgground's other typed errors otherwise."""
        return SparqlResult.from_answer(run_sparql(self.graph, query, timeout=timeout),
                                        self.name)

    def sparql_stream(self, query: str, *, timeout: float | None = None) -> SparqlStream:
        """``query``'s answer as a ``kb.types.SparqlStream``: a SELECT's rows one by one
        as rdflib's evaluator makes them, the deadline holding to the last row."""
        return SparqlStream.from_answer(run_sparql(self.graph, query, timeout=timeout,
                                                   stream=True), self.name)

