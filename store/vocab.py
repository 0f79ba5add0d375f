"""Wikidata's vocabulary: namespaces, ID syntax, and the mapping between IRIs and short IDs.

Wikidata entities are stored and exchanged by their short IDs (``Q42``, ``P31``, ``L3354``);
every other resource (a user's own KB) keeps its full IRI as its ID.
"""

from __future__ import annotations

import re

from store.errors import InvalidId

WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"
P = "http://www.wikidata.org/prop/"
PS = "http://www.wikidata.org/prop/statement/"
PQ = "http://www.wikidata.org/prop/qualifier/"
WIKIBASE = "http://wikiba.se/ontology#"
ONTOLEX = "http://www.w3.org/ns/lemon/ontolex#"
DCT_LANGUAGE = "http://purl.org/dc/terms/language"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
SKOS_PREF_LABEL = "http://www.w3.org/2004/02/skos/core#prefLabel"
SKOS_ALT_LABEL = "http://www.w3.org/2004/02/skos/core#altLabel"
SCHEMA_NAME = "http://schema.org/name"
SCHEMA_DESCRIPTION = "http://schema.org/description"
PROPERTY_TYPE = WIKIBASE + "propertyType"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
#: WDQS's links from a property to its predicates, derived from the property IDs a mirror holds
PROPERTY_LINKS = {WIKIBASE + "directClaim": "http://www.wikidata.org/prop/direct/",
                  WIKIBASE + "claim": "http://www.wikidata.org/prop/",
                  WIKIBASE + "statementProperty": "http://www.wikidata.org/prop/statement/",
                  WIKIBASE + "qualifier": "http://www.wikidata.org/prop/qualifier/"}
#: ``?x a wikibase:Item`` (or Property, Lexeme): the entity kinds of the entities table
ENTITY_CLASSES = {WIKIBASE + "Item": "item", WIKIBASE + "Property": "property",
                  WIKIBASE + "Lexeme": "lexeme"}
XSD = "http://www.w3.org/2001/XMLSchema#"
GEO_WKT = "http://www.opengis.net/ont/geosparql#wktLiteral"
COMMONS_FILE = "http://commons.wikimedia.org/wiki/Special:FilePath/"
COMMONS_DATA = "http://commons.wikimedia.org/data/main/"

#: term kinds in the ``terms`` table
LABEL, DESCRIPTION, ALIAS = 0, 1, 2
TERM_KIND_NAMES = {LABEL: "label", DESCRIPTION: "description", ALIAS: "alias"}

#: predicates that carry terms rather than statements
TERM_PREDICATES = {
    RDFS_LABEL: LABEL, SKOS_PREF_LABEL: LABEL, SCHEMA_NAME: LABEL,
    SKOS_ALT_LABEL: ALIAS,
    SCHEMA_DESCRIPTION: DESCRIPTION,
}

ENTITY_ID = re.compile(r"[QPL][1-9][0-9]*\Z")
ITEM_ID = re.compile(r"Q[1-9][0-9]*\Z")
PROPERTY_ID = re.compile(r"P[1-9][0-9]*\Z")
LEXEME_ID = re.compile(r"L[1-9][0-9]*(?:-[FS][1-9][0-9]*)?\Z")
_IRI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:[^\s<>\"{}|\\^`]+\Z")

#: Wikibase datatype names by the IRI used for them in Wikidata's RDF (wikibase:propertyType)
DATATYPE_BY_IRI = {
    WIKIBASE + name: dt for name, dt in [
        ("WikibaseItem", "wikibase-item"), ("WikibaseProperty", "wikibase-property"),
        ("WikibaseLexeme", "wikibase-lexeme"), ("WikibaseForm", "wikibase-form"),
        ("WikibaseSense", "wikibase-sense"), ("String", "string"), ("ExternalId", "external-id"),
        ("Url", "url"), ("CommonsMedia", "commonsMedia"), ("Time", "time"),
        ("Quantity", "quantity"), ("Monolingualtext", "monolingualtext"),
        ("GlobeCoordinate", "globe-coordinate"), ("Math", "math"),
        ("GeoShape", "geo-shape"), ("TabularData", "tabular-data"),
        ("MusicalNotation", "musical-notation"), ("EntitySchema", "entity-schema"),
    ]
}


def entity_kind(id: str) -> str:
    """'item', 'property', 'lexeme', 'form' or 'sense' for Wikidata IDs (``L1-F2`` is a
    form, ``L1-S2`` a sense), 'resource' for any other IRI."""
    if ENTITY_ID.match(id):
        return {"Q": "item", "P": "property", "L": "lexeme"}[id[0]]
    if LEXEME_ID.match(id):
        return "form" if "-F" in id else "sense"
    return "resource"


def iri_to_id(iri: str) -> str:
    """``http://www.wikidata.org/entity/Q42`` → ``Q42``; other IRIs are returned unchanged."""
    if iri.startswith(WD):
        tail = iri[len(WD):]
        if ENTITY_ID.match(tail) or LEXEME_ID.match(tail):
            return tail
    return iri


def id_to_iri(id: str) -> str:
    """``Q42`` → its Wikidata entity IRI; an IRI is returned unchanged."""
    return WD + id if (ENTITY_ID.match(id) or LEXEME_ID.match(id)) else id


def property_from_iri(iri: str) -> str:
    """``wdt:P31`` (direct claim) → ``P31``; any other predicate keeps its IRI."""
    if iri.startswith(WDT):
        tail = iri[len(WDT):]
        if PROPERTY_ID.match(tail):
            return tail
    return iri


def check_id(value: object, *, kinds: str = "QPL", allow_iri: bool = True,
             what: str = "an entity ID") -> str:
    """Return ``value`` if it is a well-formed ID of one of ``kinds`` (or an IRI), else raise.

    The error names the closest well-formed spelling when there is one (``q42`` → ``Q42``).
    """
    if isinstance(value, str):
        if value[:1] in kinds and (ENTITY_ID.match(value) or LEXEME_ID.match(value)):
            return value
        if allow_iri and _IRI.match(value):
            if value.startswith(WD):  # a Wikidata IRI stands for its short ID
                return check_id(value[len(WD):], kinds=kinds, allow_iri=False, what=what)
            return value
    examples = {"Q": "Q42", "P": "P31", "L": "L3354"}
    expected = " or ".join(f"{k} followed by digits (e.g. {examples[k]})" for k in kinds)
    if allow_iri:
        expected += ", or an absolute IRI for a custom KB"
    fix = None
    if isinstance(value, str):
        guess = value.strip().upper()
        if guess.startswith(WD.upper()):
            guess = guess[len(WD):]
        if guess[:1] in kinds and (ENTITY_ID.match(guess) or LEXEME_ID.match(guess)):
            fix = f"write {guess}"
    raise InvalidId(f"{value!r} is not {what}", expected=expected, fix=fix)


def check_property(value: object) -> str:
    """Validate a property ID (``P31``) or, for custom KBs, a predicate IRI."""
    if isinstance(value, str) and value.startswith(WDT):
        value = property_from_iri(value)
    return check_id(value, kinds="P", what="a property ID")
