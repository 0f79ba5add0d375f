"""An independent reading of Wikidata JSON into Wikidata's RDF: the oracle of the
differential tests over JSON-loaded mirrors.

It shares no code with kgground's loader (store/wikidata_json.py) or its RDF view
(store/rdf_store.py). Statements, ranks and truthiness come from qwikidata's object model
(``get_claim_groups``, ``get_truthy_claim_groups``, ``WikidataClaim.rank``), values are
mapped as the RDF dump format documents them
(https://www.mediawiki.org/wiki/Wikibase/Indexing/RDF_Dump_Format), and the triples are
pyoxigraph terms, ready for an Oxigraph store. A loader bug therefore shows up as a
difference instead of being copied into the reference.

Covered: what a mirror presents of items and properties (store/rdf_store.py's docstring
lists it) — ``rdfs:label``, ``skos:altLabel``, ``schema:description``,
``wikibase:propertyType``, truthy ``wdt:`` triples, and statement nodes with ``p:``,
``ps:``, ``pq:`` and ``wikibase:rank``. Not covered: lexemes, references, sitelinks,
full values (``psv:``/``pqv:``), which a mirror does not present either.
"""

from __future__ import annotations

import bz2
import gzip
import json
from pathlib import Path
from typing import Any, Iterable, Iterator
from urllib.parse import quote, quote_plus

import pyoxigraph as ox
from qwikidata.claim import WikidataClaim
from qwikidata.entity import WikidataItem, WikidataProperty

WD = "http://www.wikidata.org/entity/"
WDS = WD + "statement/"
WDT = "http://www.wikidata.org/prop/direct/"
P = "http://www.wikidata.org/prop/"
PS = P + "statement/"
PQ = P + "qualifier/"
WIKIBASE = "http://wikiba.se/ontology#"
XSD = "http://www.w3.org/2001/XMLSchema#"
GEO_WKT = "http://www.opengis.net/ont/geosparql#wktLiteral"
EARTH = WD + "Q2"
COMMONS_FILE = "http://commons.wikimedia.org/wiki/Special:FilePath/"
COMMONS_DATA = "http://commons.wikimedia.org/data/main/"
LABEL = ox.NamedNode("http://www.w3.org/2000/01/rdf-schema#label")
ALT_LABEL = ox.NamedNode("http://www.w3.org/2004/02/skos/core#altLabel")
DESCRIPTION = ox.NamedNode("http://schema.org/description")
PROPERTY_TYPE = ox.NamedNode(WIKIBASE + "propertyType")
RANK = ox.NamedNode(WIKIBASE + "rank")
RANKS = {"preferred": "PreferredRank", "normal": "NormalRank", "deprecated": "DeprecatedRank"}
#: the property datatypes' names in RDF (the dump format's table)
DATATYPES = {
    "wikibase-item": "WikibaseItem", "wikibase-property": "WikibaseProperty",
    "wikibase-lexeme": "WikibaseLexeme", "wikibase-form": "WikibaseForm",
    "wikibase-sense": "WikibaseSense", "string": "String", "external-id": "ExternalId",
    "url": "Url", "commonsMedia": "CommonsMedia", "time": "Time", "quantity": "Quantity",
    "monolingualtext": "Monolingualtext", "globe-coordinate": "GlobeCoordinate",
    "math": "Math", "geo-shape": "GeoShape", "tabular-data": "TabularData",
    "musical-notation": "MusicalNotation", "entity-schema": "EntitySchema",
}

Triple = tuple[Any, Any, Any]


def read_entities(path: str | Path) -> Iterator[dict]:
    """The entity objects of a JSON dump (``[``, an entity per line, ``]``; plain, .gz or
    .bz2), read with the standard library's json."""
    path = Path(path)
    opener = {".bz2": bz2.open, ".gz": gzip.open}.get(path.suffix, open)
    with opener(path, "rt", encoding="utf-8") as f:
        for line in f:
            line = line.strip().rstrip(",")
            if line and line not in ("[", "]"):
                yield json.loads(line)


def _time(value: dict) -> ox.Literal:
    """A time value: xsd:dateTime, with an unknown month or day (00) written as 01."""
    text = value["time"]
    sign = "-" if text.startswith("-") else ""
    date, _, clock = text.lstrip("+-").partition("T")
    year, month, day = date.split("-")
    month = "01" if month == "00" else month
    day = "01" if day == "00" else day
    return ox.Literal(f"{sign}{year}-{month}-{day}T{clock}",
                      datatype=ox.NamedNode(XSD + "dateTime"))


def _coordinate(value: dict) -> ox.Literal:
    """A globe coordinate: a WKT point, longitude first, its globe named unless Earth."""
    globe = value.get("globe") or EARTH
    point = f"Point({value['longitude']} {value['latitude']})"
    if globe != EARTH:
        point = f"<{globe}> {point}"
    return ox.Literal(point, datatype=ox.NamedNode(GEO_WKT))


def _value(snak: Any) -> Any:
    """A snak's value as an RDF term: None for 'novalue', a fresh blank node for
    'somevalue'."""
    if snak.snaktype == "novalue":
        return None
    if snak.snaktype == "somevalue":
        return ox.BlankNode()
    datatype, value = snak.snak_datatype, snak.datavalue.value
    kind = snak.value_datatype
    if kind == "wikibase-entityid":
        if "id" in value:
            return ox.NamedNode(WD + value["id"])
        prefix = {"item": "Q", "property": "P", "lexeme": "L"}[value["entity-type"]]
        return ox.NamedNode(f"{WD}{prefix}{value['numeric-id']}")
    if kind == "time":
        return _time(value)
    if kind == "quantity":
        return ox.Literal(value["amount"].lstrip("+"), datatype=ox.NamedNode(XSD + "decimal"))
    if kind == "monolingualtext":
        return ox.Literal(value["text"], language=value["language"].lower())
    if kind == "globecoordinate":
        return _coordinate(value)
    if kind == "string":
        if datatype == "url":
            return ox.NamedNode(value)
        if datatype == "commonsMedia":       # PHP's rawurlencode: "a b(1)" → a%20b%281%29
            return ox.NamedNode(COMMONS_FILE + quote(value, safe=""))
        if datatype in ("geo-shape", "tabular-data"):   # MediaWiki's wfUrlencode
            return ox.NamedNode(COMMONS_DATA + quote_plus(value, safe=";@$!*(),/~:"))
        return ox.Literal(value)
    raise ValueError(f"no RDF mapping here for {kind!r} values")


def _claims(entity: Any, truthy: bool) -> Iterator[tuple[str, WikidataClaim]]:
    groups = entity.get_truthy_claim_groups() if truthy else entity.get_claim_groups()
    for pid, group in groups.items():
        for claim in group:
            yield pid, claim


def _qualifier_snaks(claim: WikidataClaim) -> Iterator[tuple[str, Any]]:
    """(property, snak) of each qualifier, whether or not ``qualifiers-order`` lists it."""
    for pid, qualifiers in claim.qualifiers.items():
        for qualifier in qualifiers:
            yield pid, qualifier.snak
    listed = set(claim.qualifiers)
    for pid, snaks in (claim._claim_dict.get("qualifiers") or {}).items():
        if pid not in listed:
            from qwikidata.snak import WikidataSnak
            for snak in snaks:
                yield pid, WikidataSnak(snak)


def _terms(subject: Any, record: dict) -> Iterator[Triple]:
    for key, predicate in (("labels", LABEL), ("descriptions", DESCRIPTION)):
        for term in (record.get(key) or {}).values():
            yield subject, predicate, ox.Literal(term["value"], language=term["language"])
    for terms in (record.get("aliases") or {}).values():
        for term in terms:
            yield subject, ALT_LABEL, ox.Literal(term["value"], language=term["language"])


def entity_triples(record: dict) -> list[Triple]:
    """The triples of one item or property record (a parsed JSON entity)."""
    kind = record.get("type", "item")
    if kind not in ("item", "property"):
        raise ValueError(f"the oracle reads items and properties, not {kind}s")
    entity = (WikidataProperty if kind == "property" else WikidataItem)(record)
    subject = ox.NamedNode(WD + entity.entity_id)
    out = list(_terms(subject, record))
    if kind == "property" and record.get("datatype"):
        out.append((subject, PROPERTY_TYPE,
                    ox.NamedNode(WIKIBASE + DATATYPES[record["datatype"]])))
    for pid, claim in _claims(entity, truthy=True):
        value = _value(claim.mainsnak)
        if value is not None:
            out.append((subject, ox.NamedNode(WDT + pid), value))
    for pid, claim in _claims(entity, truthy=False):
        node = ox.NamedNode(WDS + claim.claim_id.replace("$", "-", 1))
        out.append((subject, ox.NamedNode(P + pid), node))
        out.append((node, RANK, ox.NamedNode(WIKIBASE + RANKS[claim.rank])))
        value = _value(claim.mainsnak)
        if value is not None:
            out.append((node, ox.NamedNode(PS + pid), value))
        for qpid, snak in _qualifier_snaks(claim):
            qvalue = _value(snak)
            if qvalue is not None:
                out.append((node, ox.NamedNode(PQ + qpid), qvalue))
    return out


def dump_triples(path: str | Path) -> list[Triple]:
    """The triples of every entity in a JSON dump, without repeats (RDF graphs are sets;
    blank nodes are each their own)."""
    seen: set[Triple] = set()
    out = []
    for record in read_entities(path):
        for triple in entity_triples(record):
            if triple not in seen:
                seen.add(triple)
                out.append(triple)
    return out


def oxigraph_store(triples: Iterable[Triple]) -> ox.Store:
    """A new in-memory Oxigraph store holding ``triples`` in its default graph."""
    store = ox.Store()
    store.extend(ox.Quad(s, p, o, ox.DefaultGraph()) for s, p, o in triples)
    return store
