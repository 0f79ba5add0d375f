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

from store.normalize import normalize
from store.vocab import ALIAS, COMMONS_FILE, DESCRIPTION, GEO_WKT, LABEL, XSD

#: (value_kind, value, lang, datatype, details) — the value layout shared by statements,
#: qualifiers and reference snaks
ValueRow = tuple[str, str, str, str, "str | None"]

RANKS = {"deprecated": 0, "normal": 1, "preferred": 2}
XSD_DATETIME, XSD_DECIMAL = XSD + "dateTime", XSD + "decimal"
_dumps = orjson.dumps


def _time(value: dict) -> str:
    text = value["time"]
    if text[:1] == "+":
        text = text[1:]
    if "-00" not in text and text[:1] != "+" and text[:2] != "--" and text[-1:] != "T":
        return text          # the common case: the general path below would keep it as is
    text = text.lstrip("+")
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
    # branches in the order of their frequency in real dumps
    if t == "wikibase-entityid":
        vid = v.get("id") or {"item": "Q", "property": "P", "lexeme": "L"}[v["entity-type"]] \
            + str(v["numeric-id"])
        return ("entity", vid, "", "", None)
    if t == "time":
        return ("literal", _time(v), "", XSD_DATETIME, _dumps(v).decode())
    if t == "string":
        datatype = snak.get("datatype")
        if datatype == "url":
            return ("iri", v, "", "", None)
        if datatype == "commonsMedia":
            return ("iri", COMMONS_FILE + quote(v.replace(" ", "_")), "", "", None)
        return ("literal", v, "", "", None)
    if t == "quantity":
        return ("literal", v["amount"].lstrip("+"), "", XSD_DECIMAL, _dumps(v).decode())
    if t == "monolingualtext":
        return ("literal", v["text"], v["language"].lower(), "", None)
    if t == "globecoordinate":
        return ("literal", f"Point({v['longitude']} {v['latitude']})", "", GEO_WKT,
                _dumps(v).decode())
    return ("literal", _dumps(v).decode(), "", "", _dumps(dv).decode())


def add_terms(entity: dict, languages: set[str] | None, src: int, rows: list[tuple],
              norms: dict[str, str]) -> None:
    """Append rows (entity, kind, lang, text, norm, src) for labels, descriptions and
    aliases. ``norm`` is the label-index key (None for descriptions); ``norms`` caches
    it by text across calls (the same names recur in many languages)."""
    eid = entity["id"]
    labels = entity.get("labels") or entity.get("lemmas") or {}
    for lang, term in labels.items():
        if languages is None or lang in languages:
            text = term["value"]
            norm = norms.get(text)
            if norm is None:
                norm = norms[text] = normalize(text)
            rows.append((eid, LABEL, lang, text, norm, src))
    for lang, term in (entity.get("descriptions") or {}).items():
        if languages is None or lang in languages:
            rows.append((eid, DESCRIPTION, lang, term["value"], None, src))
    for lang, terms in (entity.get("aliases") or {}).items():
        if languages is None or lang in languages:
            for term in terms:
                text = term["value"]
                norm = norms.get(text)
                if norm is None:
                    norm = norms[text] = normalize(text)
                rows.append((eid, ALIAS, lang, text, norm, src))


def add_statements(entity: dict, properties: set[str] | None, src: int,
                   statements: list[tuple], qualifiers: list[tuple], references: list[tuple],
                   ref_json: dict[str, str]) -> None:
    """Append the rows of ``entity``'s statements, qualifiers and references.

    A statement row is (index, sid, subject, property, rank, truthy, *value_row, src),
    its index being its position in ``statements``; qualifier rows are (index, ord,
    property, *value_row) and reference rows (index, ord, hash, snaks_json), ``index``
    naming their statement. Truthy follows Wikidata: within a property, the preferred
    statements if there are any, else the normal ones; deprecated never. Since ``wdt:``
    triples are a set, only the first truthy statement with a given value is marked (two
    P166 statements for the same prize, won twice, make one triple).

    ``ref_json`` caches a reference's snaks JSON by its hash: Wikibase derives the hash
    from the snaks, and most references recur on many statements.
    """
    eid = entity["id"]
    local = len(statements)
    for pid, claims in (entity.get("claims") or {}).items():
        if properties is not None and pid not in properties:
            continue
        ranks = [RANKS.get(c.get("rank", "normal"), 1) for c in claims]
        best = max(ranks, default=1)
        truthy_values: set[tuple] = set()
        for claim, rank in zip(claims, ranks):
            value = snak_value(claim["mainsnak"])
            truthy = rank == best and rank > 0 and value[:4] not in truthy_values
            if truthy:
                truthy_values.add(value[:4])
            statements.append((local, claim.get("id") or "", eid, pid, rank, int(truthy))
                              + value + (src,))
            quals = claim.get("qualifiers")
            if quals:
                i = 0
                for qpid in claim.get("qualifiers-order") or list(quals):
                    for qsnak in quals.get(qpid, ()):
                        qualifiers.append((local, i, qpid) + snak_value(qsnak))
                        i += 1
            refs = claim.get("references")
            if refs:
                for i, ref in enumerate(refs):
                    rhash = ref.get("hash")
                    snaks = ref_json.get(rhash) if isinstance(rhash, str) else None
                    if snaks is None:
                        snaks = _dumps(ref.get("snaks", {})).decode()
                        if isinstance(rhash, str):
                            ref_json[rhash] = snaks
                    references.append((local, i, rhash, snaks))
            local += 1


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
