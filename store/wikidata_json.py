"""Wikidata's JSON entity format → mirror rows.

Handles items, properties and lexemes as the dumps and the API spell them. Values are
mapped the way Wikidata's own RDF maps them, so SPARQL over the mirror sees the same terms
as SPARQL over query.wikidata.org: times become xsd:dateTime (month/day 00 → 01), quantities
xsd:decimal, coordinates geo:wktLiteral, URLs and Commons files IRIs. The full datavalue
(precision, calendar, unit, bounds, globe) is kept as JSON in ``details``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import quote

import orjson

from store.vocab import ALIAS, COMMONS_FILE, DESCRIPTION, GEO_WKT, LABEL, XSD

#: (value_kind, value, lang, datatype, details) — the value layout shared by statements,
#: qualifiers and reference snaks
ValueRow = tuple[str, str, str, str, "str | None"]

RANKS = {"deprecated": 0, "normal": 1, "preferred": 2}


def _time(value: dict) -> str:
    text = value["time"].lstrip("+")
    date, _, rest = text.partition("T")
    neg = date.startswith("-")
    parts = date.lstrip("-").split("-")
    if len(parts) == 3:
        parts = [parts[0], parts[1] if parts[1] != "00" else "01",
                 parts[2] if parts[2] != "00" else "01"]
    return ("-" if neg else "") + "-".join(parts) + ("T" + rest if rest else "")


def snak_value(snak: dict) -> ValueRow:
    """The value of a main snak, qualifier snak or reference snak."""
    snaktype = snak.get("snaktype", "value")
    if snaktype != "value":
        return (snaktype, "", "", "", None)          # somevalue | novalue
    dv = snak["datavalue"]
    v, t = dv["value"], dv["type"]
    if t == "wikibase-entityid":
        vid = v.get("id") or {"item": "Q", "property": "P", "lexeme": "L"}[v["entity-type"]] \
            + str(v["numeric-id"])
        return ("entity", vid, "", "", None)
    if t == "string":
        datatype = snak.get("datatype")
        if datatype == "url":
            return ("iri", v, "", "", None)
        if datatype == "commonsMedia":
            return ("iri", COMMONS_FILE + quote(v.replace(" ", "_")), "", "", None)
        return ("literal", v, "", "", None)
    if t == "monolingualtext":
        return ("literal", v["text"], v["language"].lower(), "", None)
    if t == "time":
        return ("literal", _time(v), "", XSD + "dateTime", orjson.dumps(v).decode())
    if t == "quantity":
        return ("literal", v["amount"].lstrip("+"), "", XSD + "decimal",
                orjson.dumps(v).decode())
    if t == "globecoordinate":
        return ("literal", f"Point({v['longitude']} {v['latitude']})", "", GEO_WKT,
                orjson.dumps(v).decode())
    return ("literal", orjson.dumps(v).decode(), "", "", orjson.dumps(dv).decode())


def entity_terms(entity: dict, languages: set[str] | None) -> list[tuple]:
    """Rows (entity, kind, lang, text) for labels, descriptions and aliases."""
    eid = entity["id"]
    rows = []
    labels = entity.get("labels") or entity.get("lemmas") or {}
    for kind, group in ((LABEL, labels), (DESCRIPTION, entity.get("descriptions") or {})):
        for lang, term in group.items():
            if languages is None or lang in languages:
                rows.append((eid, kind, lang, term["value"]))
    for lang, terms in (entity.get("aliases") or {}).items():
        if languages is None or lang in languages:
            rows.extend((eid, ALIAS, lang, term["value"]) for term in terms)
    return rows


def entity_statements(entity: dict, properties: set[str] | None) -> Iterable[tuple]:
    """Yield (sid, property, rank, truthy, value_row, qualifiers, references) per statement.

    ``qualifiers`` is a list of (property, value_row); ``references`` a list of
    (hash, snaks_json). Truthy follows Wikidata: within a property, the preferred
    statements if there are any, else the normal ones; deprecated never.
    """
    for pid, claims in (entity.get("claims") or {}).items():
        if properties is not None and pid not in properties:
            continue
        best = max((RANKS.get(c.get("rank", "normal"), 1) for c in claims), default=1)
        for claim in claims:
            rank = RANKS.get(claim.get("rank", "normal"), 1)
            quals = []
            order = claim.get("qualifiers-order") or list(claim.get("qualifiers", {}))
            for qpid in order:
                for qsnak in claim.get("qualifiers", {}).get(qpid, ()):
                    quals.append((qpid, snak_value(qsnak)))
            refs = [(ref.get("hash"), orjson.dumps(ref.get("snaks", {})).decode())
                    for ref in claim.get("references", ())]
            yield (claim.get("id"), pid, rank, int(rank == best and rank > 0),
                   snak_value(claim["mainsnak"]), quals, refs)


def entity_row(entity: dict) -> tuple[str, str, str | None, int, int | None, str | None]:
    """(id, kind, datatype, sitelinks, revision, modified) for the entities table."""
    kind = entity.get("type", "item")
    return (entity["id"], kind if kind in ("item", "property", "lexeme") else "item",
            entity.get("datatype"), len(entity.get("sitelinks") or ()),
            entity.get("lastrevid"), entity.get("modified"))


def iter_api_entities(document: Any) -> Iterable[dict]:
    """Entities in a single JSON document: one entity, ``{"entities": {...}}`` as
    wbgetentities returns it, or a list of entities."""
    if isinstance(document, list):
        yield from document
    elif isinstance(document, dict) and "entities" in document:
        yield from document["entities"].values()
    elif isinstance(document, dict):
        yield document
    else:
        raise ValueError("expected a JSON object or array of entities, "
                         f"got {type(document).__name__}")
