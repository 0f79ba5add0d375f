"""SparqlEndpointKB: the KnowledgeBase over a live SPARQL endpoint shaped like Wikidata's.

Works with query.wikidata.org (the default), QLever, Virtuoso, or any SPARQL 1.1 endpoint
holding Wikidata's RDF layout: entities as ``wd:Q…`` IRIs, truthy statements as ``wdt:P…``
triples, terms as ``rdfs:label``/``schema:description``/``skos:altLabel``, property
datatypes as ``wikibase:propertyType``. The HTTP side (User-Agent, timeout, concurrency cap,
retries, typed errors, cache) is ``kb.sparql_http.SparqlClient``; this module builds the
queries. Every query, built here or given by the user, is validated by
``store.sparql.parse_checked`` before it is sent; IDs are checked with ``store.vocab.check_id``
and every text put into a query is written as an escaped RDF literal.

What the live side cannot do as the mirror does (limits, by design):

- ``search`` matches **exact** labels and aliases only, through the endpoint's index: the
  text as given plus its lower-case, Title Case, Capitalized and UPPER-case variants, tagged
  with ``lang``, its base language, ``en`` and ``mul``, or untagged. No accent- or
  punctuation-insensitive, prefix or word matches (those need a full scan, which Wikidata's
  endpoint refuses). Ranking: label in ``lang`` > alias in ``lang`` > label/alias in another
  language, then the sitelink prior where the endpoint has ``wikibase:sitelinks``, then the
  lower Q-number.
- ``statements`` reads truthy ``wdt:`` triples: every statement has rank 'normal' and no
  statement ID, qualifiers or references; a blank or ``.well-known/genid`` object is
  Wikidata's "unknown value" (``somevalue``). With the property unbound only ``wdt:``
  predicates are returned. Results come in the endpoint's order (no ORDER BY: it would
  make big patterns time out on Wikidata's endpoint).
"""

from __future__ import annotations

import functools
import logging
import re
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from rdflib import BNode, Literal, URIRef

from kb.base import check_triplet_query
from kb.sparql_http import (DEFAULT_BACKOFF, DEFAULT_CONCURRENCY, DEFAULT_MAX_RETRY_WAIT,
                            DEFAULT_RETRIES, DEFAULT_TIMEOUT, WIKIDATA_SPARQL, EndpointLimits,
                            SparqlClient, iso_time)
from kb.types import Candidate, Citation, Entity, PropertyInfo, SparqlResult, Statement, Value
from store.answer_cache import DEFAULT_TTL, ResultCache
from store.errors import EntityNotFound, InvalidId, PropertyNotFound, QueryRefused
from store.sparql import EMULATED_SERVICES, WIKIDATA_PREFIXES, parse, parse_checked
from store.validity import (MAX_LITERAL, MAX_TERM, entity_iri_problem, iri_problem,
                            lang_problem, text_problem)
from store.vocab import (ALIAS, DATATYPE_BY_IRI, DESCRIPTION, ENTITY_ID, LABEL,
                         PROPERTY_ID, PROPERTY_TYPE, RDFS_LABEL, SCHEMA_DESCRIPTION,
                         SKOS_ALT_LABEL, WDT, WIKIBASE, check_id, check_property,
                         entity_kind, id_to_iri, iri_to_id, property_from_iri)

__all__ = ["SparqlEndpointKB", "WIKIDATA_SPARQL"]

log = logging.getLogger(__name__)

SITELINKS = WIKIBASE + "sitelinks"
#: SERVICEs that query.wikidata.org evaluates itself (its label service and MediaWiki API
#: calls), allowed by default when talking to it; any other SERVICE is refused
WIKIDATA_SERVICES = frozenset({WIKIBASE + "label", WIKIBASE + "mwapi"})
GENID = "http://www.wikidata.org/.well-known/genid/"
_TERM_KIND = {RDFS_LABEL: LABEL, SCHEMA_DESCRIPTION: DESCRIPTION, SKOS_ALT_LABEL: ALIAS}
_MATCH_SCORES = {"label": 1.0, "alias": 0.9, "label-other": 0.85, "alias-other": 0.8}
_LANG_TAG = re.compile(r"[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*\Z")
#: log1p of a very high sitelink count (Wikidata's top items have a few hundred)
_PRIOR_SCALE = 6.0
_DECLARED = re.compile(r"(?i)\bPREFIX\s+([A-Za-z][\w.-]*)?\s*:")


def _iri(id: str) -> str:
    """A checked ID or IRI as a SPARQL IRI term."""
    return f"<{id_to_iri(check_id(id))}>"


def _check_lang(lang: str) -> str:
    if not isinstance(lang, str) or not _LANG_TAG.match(lang):
        raise InvalidId(f"{lang!r} is not a language code", expected="a BCP 47 tag like "
                        "'en' or 'pt-br'", fix="pass lang='en'")
    return lang.lower()


def _value_term(value: str | Value) -> str:
    """A triplet query's value as a SPARQL term."""
    if isinstance(value, Value):
        if value.kind in ("entity", "iri"):
            return _iri(value.value)
        if value.kind == "literal":
            return Literal(value.value, lang=_check_lang(value.lang) if value.lang else None,
                           datatype=URIRef(check_id(value.datatype)) if value.datatype
                           else None, normalize=False).n3()
        raise ValueError(f"a {value.kind!r} value cannot be matched over SPARQL")
    return _iri(check_id(value, what="a value (an entity ID, an IRI, or a kb.Value)"))


def to_value(term: Any, skipped: _Skipped | None = None) -> Value | None:
    """An rdflib object term from a Wikidata-shaped endpoint → Value; None (counted in
    ``skipped``) when it is not one the mirror could store: a literal that is too long,
    holds a lone surrogate, or has a bad language tag or datatype; an invalid IRI."""
    skipped = skipped if skipped is not None else _Skipped("", "")
    if isinstance(term, Literal):
        lang, datatype = (term.language or "").lower(), str(term.datatype or "")
        problem = (text_problem(str(term), MAX_LITERAL) or lang_problem(lang)
                   or (iri_problem(datatype) if datatype else None))
        if problem is not None:
            skipped.add(problem)
            return None
        return Value("literal", str(term), lang, datatype)
    if isinstance(term, BNode) or str(term).startswith(GENID):
        return Value("somevalue", "")
    if not isinstance(term, URIRef):
        skipped.add(f"an unexpected term {term!r}"[:120])
        return None
    problem = iri_problem(str(term))
    if problem is not None:
        skipped.add(problem)
        return None
    value = iri_to_id(str(term))
    return Value("entity" if value != str(term) else "iri", value)


class _Skipped:
    """Values an endpoint sent that are not used (invalid IDs, IRIs, texts): counted, and
    logged once per call with the first reason, never passed on or stored."""

    def __init__(self, endpoint: str, what: str):
        self.endpoint, self.what = endpoint, what
        self.count, self.first = 0, ""

    def add(self, problem: str) -> None:
        self.count += 1
        self.first = self.first or problem

    def report(self) -> None:
        if self.count:
            log.warning("%s: left out %d invalid value%s of the answer to %s (first: %s)",
                        self.endpoint, self.count, "s" * (self.count > 1), self.what,
                        self.first)


def _term(obj: Any, skipped: _Skipped) -> tuple[str, str] | None:
    """(text, language) of a label, description or alias, if it is a fit one."""
    if not isinstance(obj, Literal):
        skipped.add(f"a term that is not a literal: {str(obj)[:80]!r}")
        return None
    text, lang = str(obj), (obj.language or "").lower()
    problem = text_problem(text, MAX_TERM) or lang_problem(lang)
    if problem is None and not text.strip():
        problem = "an empty term"
    if problem:
        skipped.add(problem)
        return None
    return text, lang


def _datatype(obj: Any, skipped: _Skipped) -> str | None:
    """A property's Wikibase datatype from its IRI; only the known ones."""
    found = DATATYPE_BY_IRI.get(str(obj)) if isinstance(obj, URIRef) else None
    if found:
        return found
    skipped.add(f"an unknown property datatype {str(obj)[:80]!r}")
    return None


def _count(obj: Any, skipped: _Skipped) -> int:
    """A sitelink count: a non-negative integer literal, else 0."""
    text = str(obj).strip() if isinstance(obj, Literal) else ""
    if text.isdigit() and len(text) <= 9:
        return int(text)
    skipped.add(f"a sitelink count that is not a number: {str(obj)[:40]!r}")
    return 0


def _property(term: Any, skipped: _Skipped) -> str | None:
    pid = property_from_iri(str(term))
    if PROPERTY_ID.match(pid):
        return pid
    skipped.add(f"a predicate that is not a wdt: property: {str(term)[:80]!r}")
    return None


def _entity(term: Any, skipped: _Skipped) -> str | None:
    """An entity's ID from an IRI the endpoint sent: a Wikidata ID, or an http(s)/urn IRI
    for a custom KB; never a blank node, a javascript: URL or a broken IRI."""
    if not isinstance(term, URIRef):
        skipped.add(f"an entity that is not an IRI: {str(term)[:80]!r}")
        return None
    problem = entity_iri_problem(str(term))
    if problem:
        skipped.add(problem)
        return None
    return iri_to_id(str(term))


def with_prefixes(query: str) -> str:
    """``query`` with PREFIX declarations added for the well-known Wikidata prefixes it
    uses but does not declare (query.wikidata.org predeclares them; other endpoints do
    not). An unused declaration is harmless, so a loose match is enough."""
    declared = {m.group(1) or "" for m in _DECLARED.finditer(query)}
    missing = [name for name in WIKIDATA_PREFIXES if name not in declared
               and re.search(rf"(?<![\w.:/#-]){re.escape(name)}:", query)]
    head = "".join(f"PREFIX {n}: <{WIKIDATA_PREFIXES[n]}>\n" for n in missing)
    return head + query


class SparqlEndpointKB:
    """A KnowledgeBase over a live SPARQL endpoint (see the module docstring).

    ``graph`` is sent as ``default-graph-uri``. ``cache`` is a ``ResultCache``, a path for
    one, ``None`` for the default cache file, or ``False`` for none (``no_cache=True`` is
    the same). ``allowed_services``: SERVICE IRIs a query may name (default: Wikidata's
    label and MediaWiki API services when ``url`` is query.wikidata.org, else none).
    ``limits``: the ``EndpointLimits`` whose cap for ``url`` (``max_concurrency``) this KB
    shares (a ``reasoning.Session``'s); without one, the KB's cap is its own. The other
    arguments are ``SparqlClient``'s.
    """

    def __init__(self, url: str = WIKIDATA_SPARQL, *, graph: str | None = None,
                 user_agent: str | None = None, contact: str | None = None,
                 timeout: float = DEFAULT_TIMEOUT, max_concurrency: int = DEFAULT_CONCURRENCY,
                 retries: int = DEFAULT_RETRIES, backoff: float = DEFAULT_BACKOFF,
                 max_retry_wait: float = DEFAULT_MAX_RETRY_WAIT,
                 cache: ResultCache | str | Path | bool | None = None,
                 cache_ttl: float = DEFAULT_TTL, no_cache: bool = False,
                 allowed_services: Iterable[str] | None = None,
                 limits: EndpointLimits | None = None):
        if no_cache or cache is False:
            store = None
        elif isinstance(cache, ResultCache):
            store = cache
        else:
            store = ResultCache(None if cache is None or cache is True else cache,
                                ttl=cache_ttl)
        self.client = SparqlClient(url, graph=graph, user_agent=user_agent, contact=contact,
                                   timeout=timeout, max_concurrency=max_concurrency,
                                   retries=retries, backoff=backoff,
                                   max_retry_wait=max_retry_wait, cache=store,
                                   limits=limits)
        self.url, self.graph = url, graph
        self.name = f"sparql:{url}"
        if allowed_services is None:
            allowed_services = WIKIDATA_SERVICES if url == WIKIDATA_SPARQL else ()
        self.allowed_services = frozenset(allowed_services)

    @property
    def cache(self) -> ResultCache | None:
        return self.client.cache

    def __repr__(self) -> str:
        return f"SparqlEndpointKB({self.url!r}" + (f", graph={self.graph!r})" if self.graph
                                                    else ")")

    def close(self) -> None:
        if self.client.cache is not None:
            self.client.cache.close()

    # -- SPARQL -----------------------------------------------------------------------------
    def sparql(self, query: str, *, timeout: float | None = None) -> SparqlResult:
        """Validate ``query`` locally (QuerySyntaxError, QueryRefused), then run it at the
        endpoint; ``source`` is ``sparql:<url>``, ``engine`` 'endpoint' or 'cache'.
        ``timeout`` None or infinite: the client's own (the endpoint has its limit)."""
        if timeout is not None and timeout == float("inf"):
            timeout = None
        return self._run(query, timeout=timeout)[0]

    def _run(self, query: str, *, timeout: float | None = None,
             deadline: float | None = None) -> tuple[SparqlResult, str]:
        """The result and when it was fetched (ISO time, for citations), within ``timeout``
        (or by ``deadline``: the queries of one call share the call's deadline)."""
        # syntax and refusals checked here (tree-sitter: fast, and safe in any thread);
        # the label service is left to the check below, as the endpoint may run it
        kind = parse_checked(query, self.allowed_services | EMULATED_SERVICES,
                             local=False).form
        if "SERVICE" in query.upper():
            # prepare() lets Wikidata's label service through (the mirror emulates it);
            # an endpoint other than Wikidata's would try to call it over the network
            refused = sorted(service_iris(query) - self.allowed_services)
            if refused:
                raise QueryRefused(
                    f"SERVICE <{refused[0]}> is not run by {self.url}",
                    expected="SERVICE only to endpoints allowed for it",
                    fix="run queries using Wikidata's label service on query.wikidata.org "
                        "or on the local mirror (which emulates it), or pass "
                        "allowed_services")
        result, fetched = self.client.run_timed(with_prefixes(query), kind=kind,
                                                timeout=timeout, deadline=deadline)
        return result, iso_time(fetched)

    # -- entities ---------------------------------------------------------------------------
    def entity(self, id: str) -> Entity:
        id = check_id(id)
        iri = _iri(id)
        deadline = self.client.deadline()        # both queries within one timeout
        result, fetched = self._run(
            "SELECT ?p ?o WHERE { VALUES ?p { rdfs:label schema:description skos:altLabel "
            f"wikibase:propertyType wikibase:sitelinks }} {iri} ?p ?o }}", deadline=deadline)
        if not result.rows and not self._run(
                f"ASK {{ {{ {iri} ?p ?o }} UNION {{ ?s ?p {iri} }} }}",
                deadline=deadline)[0].boolean:
            raise EntityNotFound(id, kb=self.name)
        labels: dict[str, str] = {}
        descriptions: dict[str, str] = {}
        aliases: dict[str, list[str]] = {}
        datatype, sitelinks = None, 0
        skipped = _Skipped(self.url, f"entity {id}")
        for row in result.rows:
            pred, obj = str(row.get("p")), row.get("o")
            if pred == PROPERTY_TYPE:
                datatype = _datatype(obj, skipped) or datatype
            elif pred == SITELINKS:
                sitelinks = _count(obj, skipped)
            elif pred in _TERM_KIND:
                term = _term(obj, skipped)
                if term is None:
                    continue
                text, lang = term
                kind = _TERM_KIND[pred]
                if kind == LABEL:
                    labels.setdefault(lang, text)
                elif kind == DESCRIPTION:
                    descriptions.setdefault(lang, text)
                elif text not in aliases.setdefault(lang, []):
                    aliases[lang].append(text)
        skipped.report()
        return Entity(id, labels, descriptions, {k: tuple(v) for k, v in aliases.items()},
                      kind=entity_kind(id), datatype=datatype, sitelinks=sitelinks,
                      source=self.name, retrieved_at=fetched)

    def property_info(self, pid: str) -> PropertyInfo:
        pid = check_property(pid)
        found = self.property_infos([pid])
        if pid not in found:
            raise PropertyNotFound(pid, kb=self.name)
        return found[pid]

    #: properties asked for in one query by ``property_infos``
    PROPERTY_BATCH = 100

    def property_infos(self, pids: Sequence[str]) -> dict[str, PropertyInfo]:
        """``property_info`` of each of ``pids`` the endpoint knows (the others are left
        out), asked ``PROPERTY_BATCH`` at a time."""
        pids = list(dict.fromkeys(check_property(p) for p in pids))
        out: dict[str, PropertyInfo] = {}
        for i in range(0, len(pids), self.PROPERTY_BATCH):
            chunk = pids[i:i + self.PROPERTY_BATCH]
            # a UNION per predicate: engines join it with the VALUES (kgground's own
            # server runs it as SQL), where ``?s ?p ?o`` with both bound by VALUES is
            # evaluated as a scan by some
            branches = " UNION ".join(
                f"{{ ?s {pred} ?o . BIND({pred} AS ?p) "
                + ('FILTER(LANG(?o) = "en") }' if pred != "wikibase:propertyType" else "}")
                for pred in ("rdfs:label", "schema:description", "skos:altLabel",
                             "wikibase:propertyType"))
            result, fetched = self._run(
                f"SELECT ?s ?p ?o WHERE {{ VALUES ?s {{ {' '.join(_iri(p) for p in chunk)} }} "
                f"{branches} }}")
            rows: dict[str, list[Mapping[str, Any]]] = {}
            for row in result.rows:
                subject = iri_to_id(str(row.get("s")))
                if subject in chunk:
                    rows.setdefault(subject, []).append(row)
            for pid, found in rows.items():
                out[pid] = self._property_from(pid, found, fetched)
        return out

    def _property_from(self, pid: str, rows: list[Mapping[str, Any]], fetched: str
                       ) -> PropertyInfo:
        label = description = datatype = None
        aliases: list[str] = []
        skipped = _Skipped(self.url, f"property {pid}")
        for row in rows:
            pred, obj = str(row.get("p")), row.get("o")
            if pred == PROPERTY_TYPE:
                datatype = _datatype(obj, skipped) or datatype
                continue
            term = _term(obj, skipped) if pred in _TERM_KIND else None
            if term is None:
                continue
            if pred == RDFS_LABEL:
                label = label or term[0]
            elif pred == SCHEMA_DESCRIPTION:
                description = description or term[0]
            elif term[0] not in aliases:
                aliases.append(term[0])
        skipped.report()
        return PropertyInfo(pid, label or pid, datatype, description, tuple(aliases),
                            self.name, fetched)

    # -- the triplet query ------------------------------------------------------------------
    def statements(self, subject: str | None = None, property: str | None = None,
                   value: str | Value | None = None, *, limit: int = 100) -> list[Statement]:
        check_triplet_query(subject, property, value, limit)
        s = _iri(subject) if subject is not None else "?s"
        if property is not None:
            pid = check_property(property)
            p = f"<{WDT}{pid}>" if PROPERTY_ID.match(pid) else f"<{pid}>"
        else:
            p = "?p"
        o = _value_term(value) if value is not None else "?o"
        where = f"{s} {p} {o} ."
        if property is None:
            where += f' FILTER(STRSTARTS(STR(?p), "{WDT}"))'
        if subject is not None and property is not None and value is not None:
            result, fetched = self._run(f"ASK {{ {where} }}")
            rows: list[Mapping[str, Any]] = [{}] if result.boolean else []
        else:
            result, fetched = self._run(f"SELECT * WHERE {{ {where} }} LIMIT {limit}")
            rows = list(result.rows)
        bound_value = None
        if isinstance(value, Value):
            bound_value = value
        elif value is not None:
            vid = check_id(value)
            bound_value = Value("entity" if vid != id_to_iri(vid) else "iri", vid)
        out = []
        skipped = _Skipped(self.url, "statements")
        for row in rows:
            subj = check_id(subject) if subject is not None else _node_id(row.get("s"),
                                                                           skipped)
            prop = pid if property is not None else _property(row.get("p"), skipped)
            val = bound_value or to_value(row.get("o"), skipped)
            if subj is not None and prop is not None and val is not None:
                out.append(Statement(subj, prop, val, "normal", None,
                                     citation=Citation(subj, prop, val, self.name, fetched)))
        skipped.report()
        return out

    # -- search -----------------------------------------------------------------------------
    def search(self, text: str, *, lang: str = "en", limit: int = 10) -> list[Candidate]:
        if not isinstance(text, str):
            raise TypeError(f"search text must be a string, got {type(text).__name__}")
        lang = _check_lang(lang)
        text = " ".join(text.split())
        if not text or limit < 1:
            return []
        variants = list(dict.fromkeys([text, text.lower(), text.title(), text[:1].upper()
                                       + text[1:], text.upper()]))
        langs = list(dict.fromkeys([lang, lang.split("-")[0], "en", "mul"]))
        literals = " ".join(Literal(v, lang=tag).n3() for v in variants for tag in langs)
        literals += " " + " ".join(Literal(v).n3() for v in variants)
        shown = ", ".join(f'"{tag}"' for tag in dict.fromkeys([lang, "en"]))
        result, fetched = self._run(
            # One branch per predicate, each with its own VALUES and variable: a VALUES over
            # the predicate makes Virtuoso scan, and BIND inside UNION confuses its planner.
            "SELECT ?item ?label_match ?alias_match ?label ?description ?links WHERE { "
            f"{{ VALUES ?label_match {{ {literals} }} ?item rdfs:label ?label_match }} UNION "
            f"{{ VALUES ?alias_match {{ {literals} }} ?item skos:altLabel ?alias_match }} "
            "FILTER(isIRI(?item)) "
            f"OPTIONAL {{ ?item rdfs:label ?label . FILTER(LANG(?label) IN ({shown})) }} "
            "OPTIONAL { ?item schema:description ?description . "
            f"FILTER(LANG(?description) IN ({shown})) }} "
            f"OPTIONAL {{ ?item wikibase:sitelinks ?links }} }} LIMIT {40 * limit}")
        return _rank(result.rows, text, lang, limit, self.name, fetched)


@functools.lru_cache(maxsize=256)
def service_iris(query: str) -> frozenset[str]:
    """The SERVICE IRIs a (valid) query names."""
    return frozenset(iri for _, iri in parse(query).services())


def _node_id(term: Any, skipped: _Skipped) -> str | None:
    """A statement's subject: an entity (blank nodes are local to one answer: left out)."""
    if term is None:
        return None
    return _entity(term, skipped)


def _rank(rows: Any, text: str, lang: str, limit: int, source: str,
          retrieved_at: str) -> list[Candidate]:
    """Exact-match rows of ``search`` → candidates, best first."""
    import math

    found: dict[str, dict[str, Any]] = {}
    base = lang.split("-")[0]
    skipped = _Skipped(source.removeprefix("sparql:"), f"search {text!r}")
    for row in rows:
        eid = _entity(row.get("item"), skipped)
        how = "label" if "label_match" in row else "alias"
        matched = _term(row.get(f"{how}_match"), skipped)
        if eid is None or matched is None:
            continue
        mtext, mlang = matched
        if mlang not in (lang, base, ""):
            how += "-other"
        links = row.get("links")
        info = found.setdefault(eid, {"labels": {}, "descriptions": {}, "links": 0,
                                      "best": None})
        if links is not None:
            info["links"] = max(info["links"], _count(links, skipped))
        for key, var in (("labels", "label"), ("descriptions", "description")):
            term = _term(row[var], skipped) if row.get(var) is not None else None
            if term is not None:
                info[key].setdefault(term[1], term[0])
        rank = (_MATCH_SCORES[how], mtext == text)
        if info["best"] is None or rank > info["best"][0]:
            info["best"] = (rank, how, mtext, mlang)
    skipped.report()
    out = []
    for eid, info in found.items():
        (score, exact_case), how, matched, mlang = info["best"]
        prior = min(math.log1p(info["links"]) / _PRIOR_SCALE, 1.0)
        entity = Entity(eid, info["labels"], info["descriptions"])
        number = int(eid[1:]) if ENTITY_ID.match(eid) else 1 << 62
        out.append((-(score + 0.25 * prior), not exact_case, number, eid, Candidate(
            eid, entity.label(lang), score + 0.25 * prior, prior, matched,
            how.replace("-other", ""), mlang, entity.description(lang),
            {"match": score, "prior": prior}, source, retrieved_at)))
    out.sort(key=lambda t: t[:4])
    return [t[4] for t in out[:limit]]
