"""Wikidata's JSON entity format → mirror rows.

Handles items, properties and lexemes (with their forms and senses) as the dumps and the
API spell them. Entities are decoded with msgspec into the typed structs below, which name
only the fields the mirror keeps: everything else (sitelink titles, snak hashes) is
skipped without building objects for it, and a datavalue's JSON is kept as the bytes it
was written in. Decoding plus row building runs about 1.4 times as fast as over generic
JSON decoding (bench/HISTORY.md, issue 2).

Values are mapped the way Wikidata's own RDF maps them, so SPARQL over the mirror sees the
same terms as SPARQL over query.wikidata.org: times become xsd:dateTime (month/day 00 →
01), quantities xsd:decimal, coordinates geo:wktLiteral, URLs, Commons files and Commons
data pages (geo-shape, tabular-data) IRIs, escaped as WDQS escapes them. The
full datavalue (precision, calendar, unit, bounds, globe) is kept as JSON in ``details``.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any, TypeVar, cast
from urllib.parse import quote, quote_plus

import msgspec
from msgspec import Raw, Struct

from store.normalize import normalize
from store.validity import iri_problem, lang_problem
from store.vocab import (ALIAS, COMMONS_DATA, COMMONS_FILE, DCT_LANGUAGE, DESCRIPTION,
                         ENTITY_ID, GEO_WKT, ITEM_ID, LABEL, LEXEME_ID, ONTOLEX, PROPERTY_ID,
                         WD, WIKIBASE, XSD)

#: (value_kind, value, lang, datatype, details) — the value layout shared by statements,
#: qualifiers and reference snaks; ``details`` is the datavalue's JSON, or '' when the
#: other four say it all ('', not None: see ``store.writer``)
ValueRow = tuple[str, str, str, str, str]

RANKS = {"deprecated": 0, "normal": 1, "preferred": 2}
XSD_DATETIME, XSD_DECIMAL = XSD + "dateTime", XSD + "decimal"
_EMPTY = Raw(b"{}")

_V = TypeVar("_V")


def _as_map(value: dict[str, _V] | list) -> dict[str, _V]:
    """A map field of the structs below, once found non-empty, as the dict it then is (an
    empty map may come as []). A list with items is passed on as it is: its ``.items()``
    raises AttributeError, which the loader reports as a malformed record."""
    return cast("dict[str, _V]", value)


# Wikibase writes an empty map as [] in places: every map below also accepts a list,
# which reads as empty. The structs are decoded trees that never form a reference cycle,
# so the cyclic collector need not track them (gc=False: 1.3 % of a load's instructions).


class Term(Struct, gc=False):
    value: str


class DataValue(Struct, gc=False):
    type: str
    value: Raw                  # decoded by ``snak_value`` according to ``type``


class Snak(Struct, gc=False):
    snaktype: str = "value"
    datatype: str | None = None
    datavalue: DataValue | None = None


class Reference(Struct, gc=False):
    snaks: Raw = _EMPTY
    hash: str | None = None


class Claim(Struct, gc=False, rename={"qualifiers_order": "qualifiers-order"}):
    mainsnak: Snak
    id: str = ""
    rank: str = "normal"
    qualifiers: dict[str, list[Snak]] | list = {}
    qualifiers_order: list[str] = []
    references: list[Reference] = []


class Form(Struct, gc=False, rename={"grammatical_features": "grammaticalFeatures"}):
    """A lexeme's form (``L3354-F1``): its spellings by language, its grammatical features
    (items), and its statements."""
    id: str
    representations: dict[str, Term] | list = {}
    grammatical_features: list[str] = []
    claims: dict[str, list[Claim]] | list = {}


class Sense(Struct, gc=False):
    """A lexeme's sense (``L3354-S1``): its glosses by language, and its statements."""
    id: str
    glosses: dict[str, Term] | list = {}
    claims: dict[str, list[Claim]] | list = {}


class Entity(Struct, gc=False, rename={"lexical_category": "lexicalCategory"}):
    id: str
    type: str = "item"
    datatype: str | None = None
    labels: dict[str, Term] | list = {}
    lemmas: dict[str, Term] | list = {}
    descriptions: dict[str, Term] | list = {}
    aliases: dict[str, list[Term]] | list = {}
    claims: dict[str, list[Claim]] | list = {}
    sitelinks: dict[str, Raw] | list = {}     # counted: the popularity prior
    lastrevid: int | None = None
    modified: str | None = None
    forms: list[Form] = []
    senses: list[Sense] = []
    lexical_category: str | None = None
    language: str | None = None


class _EntityId(Struct, gc=False, rename="kebab"):
    id: str | None = None
    entity_type: str = "item"
    numeric_id: int | None = None


class _Time(Struct, gc=False):
    time: str


class _Quantity(Struct, gc=False):
    amount: str


class _Text(Struct, gc=False):
    text: str
    language: str


class _Coordinate(Struct, gc=False):
    latitude: float | int
    longitude: float | int


#: decode one entity (a dump line); raises msgspec.DecodeError for bad JSON and its
#: subclass msgspec.ValidationError for JSON that is not an entity
decode_entity = msgspec.json.Decoder(Entity).decode
decode_snaks = msgspec.json.Decoder(dict[str, list[Snak]]).decode
_entity_id = msgspec.json.Decoder(_EntityId).decode
_time_value = msgspec.json.Decoder(_Time).decode
_quantity = msgspec.json.Decoder(_Quantity).decode
_text = msgspec.json.Decoder(_Text).decode
_coordinate = msgspec.json.Decoder(_Coordinate).decode
_string = msgspec.json.Decoder(str).decode
_ID_PREFIX = {"item": "Q", "property": "P", "lexeme": "L"}


_OTHER_ENTITY = re.compile(r"[A-Z][1-9][0-9]*\Z")
_LANGS: set[str] = set()       # language codes seen and found well-formed


def checked_lang(lang: str) -> str:
    """``lang`` if it is a well-formed language code, else ValueError (a malformed
    record): it becomes an RDF language tag."""
    if lang not in _LANGS:
        problem = lang_problem(lang)
        if problem is not None or len(lang) > 32:
            raise ValueError(problem or f"language code {lang[:40]!r} is too long")
        _LANGS.add(lang)
    return lang


def _time(text: str) -> str:
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


def snak_value(snak: Snak) -> ValueRow:
    """The value of a main snak, qualifier snak or reference snak. Raises ValueError or
    msgspec.ValidationError when the snak is malformed."""
    if snak.snaktype != "value":
        return (snak.snaktype, "", "", "", "")          # somevalue | novalue
    dv = snak.datavalue
    if dv is None:
        raise ValueError("a value snak without a datavalue")
    t, raw = dv.type, dv.value
    # branches in the order of their frequency in real dumps
    if t == "wikibase-entityid":
        v = _entity_id(raw)
        if v.id is None:
            if v.numeric_id is None or v.numeric_id < 1:
                raise ValueError("an entity value without 'id' or a positive 'numeric-id'")
            return ("entity", _ID_PREFIX[v.entity_type] + str(v.numeric_id), "", "", "")
        if ENTITY_ID.match(v.id) or LEXEME_ID.match(v.id):
            return ("entity", v.id, "", "", "")
        if _OTHER_ENTITY.match(v.id):       # an entity schema (E10), media info (M5), …
            return ("iri", WD + v.id, "", "", "")
        raise ValueError(f"entity value {v.id[:40]!r} is not an entity ID")
    if t == "time":
        return ("literal", _time(_time_value(raw).time), "", XSD_DATETIME, bytes(raw).decode())
    if t == "string":
        text = _string(raw)
        if snak.datatype == "url":
            # a URL that is not a valid IRI stays text: as an IRI, no format could write it
            return ("iri" if iri_problem(text) is None else "literal", text, "", "", "")
        if snak.datatype == "commonsMedia":     # as WDQS writes it: a%20b%281%29.jpg
            return ("iri", COMMONS_FILE + quote(text, safe=""), "", "", "")
        if snak.datatype in ("geo-shape", "tabular-data"):     # Data:Paris.map
            return ("iri", COMMONS_DATA + quote_plus(text, safe=";@$!*(),/~:"), "", "", "")
        return ("literal", text, "", "", "")
    if t == "quantity":
        return ("literal", _quantity(raw).amount.lstrip("+"), "", XSD_DECIMAL,
                bytes(raw).decode())
    if t == "monolingualtext":
        mono = _text(raw)
        return ("literal", mono.text, checked_lang(mono.language.lower()), "", "")
    if t == "globecoordinate":
        point = _coordinate(raw)
        return ("literal", f"Point({point.longitude} {point.latitude})", "", GEO_WKT,
                bytes(raw).decode())
    value = bytes(raw).decode()
    return ("literal", value, "", "", msgspec.json.encode(
        {"value": msgspec.json.decode(raw), "type": t}).decode())


def add_terms(entity: Entity, languages: set[str] | None, src: int, rows: list[tuple],
              norms: dict[str, str]) -> None:
    """Append rows (entity, kind, lang, text, norm, src) for labels, descriptions and
    aliases. ``norm`` is the label-index key (None for descriptions); ``norms`` caches
    it by text across calls (the same names recur in many languages)."""
    eid = entity.id
    labels = entity.labels or entity.lemmas
    if labels:
        for lang, term in _as_map(labels).items():
            if languages is None or lang in languages:
                checked_lang(lang)
                text = term.value
                norm = norms.get(text)
                if norm is None:
                    norm = norms[text] = normalize(text)
                rows.append((eid, LABEL, lang, text, norm, src))
    if entity.descriptions:
        for lang, term in _as_map(entity.descriptions).items():
            if languages is None or lang in languages:
                checked_lang(lang)
                rows.append((eid, DESCRIPTION, lang, term.value, None, src))
    if entity.aliases:
        for lang, terms in _as_map(entity.aliases).items():
            if languages is None or lang in languages:
                checked_lang(lang)
                for term in terms:
                    text = term.value
                    norm = norms.get(text)
                    if norm is None:
                        norm = norms[text] = normalize(text)
                    rows.append((eid, ALIAS, lang, text, norm, src))


def add_statements(entity: Entity, properties: set[str] | None, src: int,
                   statements: list[tuple], qualifiers: list[tuple], references: list[tuple],
                   reference_snaks: list[tuple[str, str]], known_refs: set[str]) -> None:
    """Append the rows of ``entity``'s statements, qualifiers and references.

    A statement row is (index, sid, subject, property, rank, truthy, *value_row, src),
    its index being its position in ``statements``; qualifier rows are (index, ord,
    property, *value_row) and reference rows (index, ord, hash), ``index`` naming their
    statement. Truthy follows Wikidata: within a property, the preferred statements if
    there are any, else the normal ones; deprecated never. Since ``wdt:`` triples are a
    set, only the first truthy statement with a given value is marked (two P166
    statements for the same prize, won twice, make one triple).

    A reference's snaks, as JSON, go to ``reference_snaks`` as (hash, snaks) the first time
    its hash is seen (``known_refs``, which this updates): Wikibase derives the hash from
    the snaks, and most references recur on many statements. A reference without a hash
    gets the SHA-1 of its snaks' JSON.
    """
    if not entity.claims:
        return
    eid = entity.id
    local = len(statements)
    for pid, claims in _as_map(entity.claims).items():
        if properties is not None and pid not in properties:
            continue
        if not PROPERTY_ID.match(pid):
            raise ValueError(f"claims of {pid[:40]!r}, which is not a property ID")
        ranks = [RANKS.get(c.rank, 1) for c in claims]
        best = max(ranks, default=1)
        # values already made truthy; not needed for the one statement most properties have
        seen: set[tuple] | None = set() if len(claims) > 1 else None
        for claim, rank in zip(claims, ranks):
            kind, value, lang, datatype, details = snak_value(claim.mainsnak)
            truthy = 0
            if rank == best and rank > 0:
                if seen is None:
                    truthy = 1
                elif (kind, value, lang, datatype) not in seen:
                    seen.add((kind, value, lang, datatype))
                    truthy = 1
            statements.append((local, claim.id, eid, pid, rank, truthy, kind, value, lang,
                               datatype, details, src))
            quals = _as_map(claim.qualifiers)
            if quals:
                i = 0
                for qpid in claim.qualifiers_order or list(quals):
                    if not PROPERTY_ID.match(qpid):
                        raise ValueError(f"a qualifier of {qpid[:40]!r}, which is not a "
                                         "property ID")
                    for qsnak in quals.get(qpid, ()):
                        qualifiers.append((local, i, qpid, *snak_value(qsnak)))
                        i += 1
            for i, ref in enumerate(claim.references):
                rhash = ref.hash or hashlib.sha1(ref.snaks).hexdigest()
                if rhash not in known_refs:
                    known_refs.add(rhash)
                    reference_snaks.append((rhash, bytes(ref.snaks).decode()))
                references.append((local, i, rhash))
            local += 1


def entity_row(entity: Entity) -> tuple[str, str, str | None, int, int | None, str | None]:
    """(id, kind, datatype, sitelinks, revision, modified) for the entities table."""
    kind = entity.type
    known = ("item", "property", "lexeme", "form", "sense")
    return (entity.id, kind if kind in known else "item", entity.datatype,
            len(entity.sitelinks), entity.lastrevid, entity.modified)


def lexeme_triples(lexeme: Entity, src: int) -> list[tuple]:
    """The triples Wikidata's RDF gives a lexeme besides statements, as statement rows
    (subject, predicate IRI, value kind, value, lang, datatype, src): its lexical category
    (``wikibase:lexicalCategory``), language (``dct:language``), forms
    (``ontolex:lexicalForm``) and senses (``ontolex:sense``), and each form's grammatical
    features (``wikibase:grammaticalFeature``)."""
    lid = lexeme.id
    pairs = [(lid, WIKIBASE + "lexicalCategory", lexeme.lexical_category),
             (lid, DCT_LANGUAGE, lexeme.language)]
    pairs += [(lid, ONTOLEX + "lexicalForm", form.id) for form in lexeme.forms]
    pairs += [(lid, ONTOLEX + "sense", sense.id) for sense in lexeme.senses]
    pairs += [(form.id, WIKIBASE + "grammaticalFeature", feature)
              for form in lexeme.forms for feature in form.grammatical_features]
    for _, _, o in pairs:
        if o and not (ITEM_ID.match(o) or LEXEME_ID.match(o)):
            raise ValueError(f"lexeme value {o[:40]!r} is not an item, form or sense ID")
    return [(s, p, "entity", o, "", "", src) for s, p, o in pairs if o]


def lexeme_parts(lexeme: Entity) -> list[Entity]:
    """A lexeme's forms and senses as entities of their own, as Wikidata's RDF has them:
    a form's representations are its labels, a sense's glosses its descriptions; each
    keeps its statements, and the lexeme's revision. Raises ValueError for a part whose
    ID is not its lexeme's ID with -F… or -S…."""
    parts: list[Form | Sense] = [*lexeme.forms, *lexeme.senses]
    for part in parts:
        if not (LEXEME_ID.match(part.id) and part.id.startswith(lexeme.id + "-")):
            raise ValueError(f"form or sense ID {part.id[:40]!r} is not {lexeme.id}-F… "
                             f"or {lexeme.id}-S…")
    return [Entity(form.id, "form", labels=form.representations, claims=form.claims,
                   lastrevid=lexeme.lastrevid, modified=lexeme.modified)
            for form in lexeme.forms] + [
            Entity(sense.id, "sense", descriptions=sense.glosses, claims=sense.claims,
                   lastrevid=lexeme.lastrevid, modified=lexeme.modified)
            for sense in lexeme.senses]


def api_entities(document: bytes) -> list[bytes]:
    """The entities of a single JSON document, each as JSON for ``decode_entity``: one
    entity, ``{"entities": {...}}`` as wbgetentities returns it, or a list of entities.
    Raises msgspec.DecodeError when the document is not JSON, ValueError when it is
    neither an object nor an array."""
    parsed: Any = msgspec.json.decode(document)
    if isinstance(parsed, dict) and isinstance(parsed.get("entities"), dict):
        parsed = list(parsed["entities"].values())
    elif isinstance(parsed, dict):
        parsed = [parsed]
    elif not isinstance(parsed, list):
        raise ValueError("expected a JSON object or array of entities, "
                         f"got {type(parsed).__name__}")
    return [msgspec.json.encode(item) for item in parsed]


class _Id(Struct, gc=False):
    id: str | None = None


def entity_problem(line: bytes | memoryview, error: msgspec.DecodeError) -> str:
    """Why ``line`` could not be decoded as an entity, as an error message."""
    if not isinstance(error, msgspec.ValidationError):
        return f"not valid JSON: {error}"
    try:
        eid = msgspec.json.decode(line, type=_Id).id
    except msgspec.DecodeError:
        eid = None
    if not isinstance(eid, str):
        return f"expected a Wikidata entity object with an 'id' ({error})"
    return f"entity {eid}: malformed record ({error})"
