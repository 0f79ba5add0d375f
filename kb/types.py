"""The data types every layer shares: entities, statements and their values, properties,
search candidates, citations and SPARQL results.

All are frozen dataclasses but ``SparqlStream`` (a SELECT's rows as the engine makes them):
KBs hand them out, nobody edits them. IDs are Wikidata short IDs (``Q42``, ``P31``) or, for
a user's own KB, full IRIs.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterator, Literal, Mapping

from store.vocab import WD, entity_kind, id_to_iri

if TYPE_CHECKING:
    from store.sparql import Answer

ValueKind = Literal["entity", "literal", "iri", "bnode", "somevalue", "novalue"]
Rank = Literal["preferred", "normal", "deprecated"]
RANK_NAMES: tuple[Rank, Rank, Rank] = ("deprecated", "normal", "preferred")


@dataclass(frozen=True, slots=True)
class Value:
    """A statement's value, in its RDF form.

    kind: 'entity' (``value`` is an entity ID), 'literal' (lexical form, with ``lang`` or
    ``datatype``, an XSD or geo IRI), 'iri', 'bnode', or Wikidata's 'somevalue'/'novalue'
    (``value`` is ''). ``details`` keeps what the RDF form loses: time precision and
    calendar, quantity unit and bounds, globe — as Wikidata's JSON datavalue has them.
    """
    kind: ValueKind
    value: str
    lang: str = ""
    datatype: str = ""
    details: Mapping[str, Any] | None = field(default=None, compare=False, hash=False)

    @property
    def is_entity(self) -> bool:
        return self.kind == "entity"

    def __str__(self) -> str:
        if self.kind in ("somevalue", "novalue"):
            return {"somevalue": "(unknown value)", "novalue": "(no value)"}[self.kind]
        if self.lang:
            return f"{self.value}@{self.lang}"
        precision = (self.details or {}).get("precision")
        if self.datatype.endswith("#dateTime") and precision in (9, 10, 11):
            # a year (9), month (10) or day (11), not a misleading midnight on 1 January
            return self.value[:{9: 4, 10: 7, 11: 10}[precision] + self.value.startswith("-")]
        return self.value

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "value": self.value}
        if self.lang:
            out["lang"] = self.lang
        if self.datatype:
            out["datatype"] = self.datatype
        if self.details:
            out["details"] = dict(self.details)
        return out


@dataclass(frozen=True, slots=True)
class Snak:
    """A property-value pair inside a statement: a qualifier or part of a reference."""
    property: str
    value: Value

    def as_dict(self) -> dict[str, Any]:
        return {"property": self.property, "value": self.value.as_dict()}


@dataclass(frozen=True, slots=True)
class Reference:
    """One reference of a statement: its snaks (e.g. P248 stated in, P854 reference URL)."""
    snaks: tuple[Snak, ...]
    hash: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"hash": self.hash, "snaks": [s.as_dict() for s in self.snaks]}


def wikidata_url(id: str, statement_id: str | None = None) -> str:
    """The page of an entity (or the anchor of one of its statements) on wikidata.org;
    for a custom KB's IRI, the IRI itself."""
    kind = entity_kind(id)
    if kind == "resource":
        return id
    if kind in ("form", "sense"):                # on its lexeme's page
        return f"https://www.wikidata.org/wiki/Lexeme:{id.partition('-')[0]}#" + (
            statement_id or id)
    page = {"item": id, "property": f"Property:{id}", "lexeme": f"Lexeme:{id}"}[kind]
    url = f"https://www.wikidata.org/wiki/{page}"
    return f"{url}#{statement_id}" if statement_id else url


def is_live(source: str) -> bool:
    """Whether a ``source`` name (``sparql:<endpoint>``, ``mirror:<path>``, ``rdf:<file>``)
    names a live endpoint."""
    return source.startswith("sparql:")


@dataclass(frozen=True, slots=True)
class Citation:
    """Where a statement comes from, precisely enough to check it.

    ``source`` is ``mirror:<path>`` or ``sparql:<endpoint>`` (or ``rdf:<file>``);
    ``retrieved_at`` is when the fact was read from its origin (the load time of a mirror's
    file, the query time of an endpoint); ``dump_date``/``revision`` where known.
    """
    subject: str
    property: str
    value: Value
    source: str
    retrieved_at: str | None = None
    statement_id: str | None = None
    dump_date: str | None = None
    revision: int | None = None

    @builtins.property  # the field `property` shadows the decorator for mypy
    def url(self) -> str:
        return wikidata_url(self.subject, self.statement_id)

    @builtins.property
    def live(self) -> bool:
        """Whether the fact was read from a live endpoint (not from a loaded file)."""
        return is_live(self.source)

    def as_dict(self) -> dict[str, Any]:
        return {"subject": self.subject, "property": self.property,
                "value": self.value.as_dict(), "statement_id": self.statement_id,
                "source": self.source, "retrieved_at": self.retrieved_at,
                "live": self.live, "dump_date": self.dump_date, "revision": self.revision,
                "url": self.url}


@dataclass(frozen=True, slots=True)
class Statement:
    """One claim: subject, property, value, with rank, qualifiers, references, its Wikidata
    statement ID where the source has one, and the citation that says where it came from."""
    subject: str
    property: str
    value: Value
    rank: Rank = "normal"
    id: str | None = None
    qualifiers: tuple[Snak, ...] = ()
    references: tuple[Reference, ...] = ()
    citation: Citation | None = field(default=None, compare=False)

    @builtins.property  # the field `property` shadows the decorator for mypy
    def triple(self) -> tuple[str, str, str]:
        return (self.subject, self.property, self.value.value)

    def as_dict(self) -> dict[str, Any]:
        return {"subject": self.subject, "property": self.property,
                "value": self.value.as_dict(), "rank": self.rank, "id": self.id,
                "qualifiers": [q.as_dict() for q in self.qualifiers],
                "references": [r.as_dict() for r in self.references],
                "citation": self.citation.as_dict() if self.citation else None}


def pick_text(texts: Mapping[str, Any], lang: str) -> Any:
    """``texts[lang]``, else the base language (``de`` for ``de-ch``), else English, else
    any (None if there is none) — Wikidata's own fallback order, simplified."""
    for key in (lang, lang.split("-")[0], "en", "mul"):
        if key in texts:
            return texts[key]
    return next(iter(texts.values()), None)


@dataclass(frozen=True, slots=True)
class Entity:
    """An entity's terms: labels and descriptions by language, aliases by language.
    Statements are asked for separately (``KnowledgeBase.statements``).

    Provenance: ``source`` names the KB that answered (``mirror:<path>``,
    ``sparql:<endpoint>``, ``rdf:<file>``) and ``retrieved_at`` when a live one was asked.
    ``term_sources`` marks the terms that came from elsewhere than ``source``: in a
    mirror, the terms a live endpoint wrote back — ``("label", "fr", "Douglas Adams")`` →
    ``("sparql:<endpoint>", retrieved_at)``."""
    id: str
    labels: Mapping[str, str] = field(default_factory=dict)
    descriptions: Mapping[str, str] = field(default_factory=dict)
    aliases: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    kind: str = "item"                 # item | property | lexeme | form | sense | resource
    datatype: str | None = None        # properties: wikibase-item, time, ...
    sitelinks: int = 0
    source: str = field(default="", compare=False)
    retrieved_at: str | None = field(default=None, compare=False)
    term_sources: Mapping[tuple[str, str, str], tuple[str, str | None]] = field(
        default_factory=dict, compare=False)

    def label(self, lang: str = "en") -> str:
        """The label in ``lang`` with fallback; the ID when there is none."""
        return pick_text(self.labels, lang) or self.id

    def description(self, lang: str = "en") -> str | None:
        return pick_text(self.descriptions, lang)

    @property
    def iri(self) -> str:
        return id_to_iri(self.id)

    @property
    def url(self) -> str:
        return wikidata_url(self.id)

    def term_source(self, kind: str, lang: str, text: str) -> tuple[str, str | None]:
        """(source, retrieved_at) of one term; ``kind`` is 'label', 'description' or
        'alias'."""
        return self.term_sources.get((kind, lang, text), (self.source, self.retrieved_at))

    def live_terms(self) -> list[dict[str, Any]]:
        """The terms read from a live endpoint, each with its endpoint and retrieval time."""
        terms = [("label", lang, text) for lang, text in self.labels.items()]
        terms += [("description", lang, text) for lang, text in self.descriptions.items()]
        terms += [("alias", lang, text) for lang, texts in self.aliases.items()
                  for text in texts]
        out = []
        for kind, lang, text in terms:
            source, at = self.term_source(kind, lang, text)
            if is_live(source):
                out.append({"kind": kind, "lang": lang, "text": text, "source": source,
                            "retrieved_at": at})
        return out

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "labels": dict(self.labels),
                "descriptions": dict(self.descriptions),
                "aliases": {k: list(v) for k, v in self.aliases.items()},
                "datatype": self.datatype, "sitelinks": self.sitelinks, "url": self.url,
                "source": self.source, "retrieved_at": self.retrieved_at,
                "live_terms": self.live_terms()}


@dataclass(frozen=True, slots=True)
class PropertyInfo:
    """What a property is: label, description, aliases (in one language) and datatype;
    ``source``/``retrieved_at`` as for ``Entity``."""
    id: str
    label: str
    datatype: str | None = None
    description: str | None = None
    aliases: tuple[str, ...] = ()
    source: str = field(default="", compare=False)
    retrieved_at: str | None = field(default=None, compare=False)

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "label": self.label, "datatype": self.datatype,
                "description": self.description, "aliases": list(self.aliases),
                "source": self.source, "retrieved_at": self.retrieved_at}


@dataclass(frozen=True, slots=True)
class Candidate:
    """A search or linking result: an entity that a text may name.

    ``score`` orders candidates (higher is better; comparable within one result list);
    ``prior`` is the popularity prior in [0, 1] (from sitelinks, else graph degree);
    ``matched`` the label or alias that matched, ``match`` how (exact, alias, prefix,
    token); ``features`` what decided the score, for explanations. ``source`` is where the
    matched name comes from (``mirror:<path>``, ``sparql:<endpoint>`` — also for a name a
    live endpoint wrote back into a mirror — ``rdf:<file>``), ``retrieved_at`` when a live
    endpoint gave it. Linking adds
    ``confidence``: the calibrated probability, in [0, 1], that this is the entity meant.
    """
    id: str
    label: str
    score: float
    prior: float = 0.0
    matched: str = ""
    match: str = ""
    lang: str = ""
    description: str | None = None
    features: Mapping[str, float] = field(default_factory=dict, compare=False)
    source: str = field(default="", compare=False)
    retrieved_at: str | None = field(default=None, compare=False)
    confidence: float | None = None

    def as_dict(self) -> dict[str, Any]:
        out = {"id": self.id, "label": self.label, "score": round(self.score, 6),
               "prior": round(self.prior, 6), "matched": self.matched, "match": self.match,
               "lang": self.lang, "description": self.description,
               "features": {k: round(v, 6) for k, v in self.features.items()},
               "source": self.source, "retrieved_at": self.retrieved_at}
        if self.confidence is not None:
            out["confidence"] = round(self.confidence, 6)
        return out


@dataclass(frozen=True, slots=True)
class SparqlResult:
    """A SPARQL answer. SELECT: ``vars`` and ``rows`` (one dict per solution, variable →
    rdflib term; unbound variables are absent). ASK: ``boolean``. CONSTRUCT/DESCRIBE:
    ``graph`` (an rdflib Graph). ``source`` names who answered (``mirror:<path>``,
    ``sparql:<endpoint>``) and ``retrieved_at`` when a live endpoint answered (for a
    cached answer, when it was fetched); ``engine`` how (e.g. 'sql', 'rdflib', 'endpoint',
    'cache'), with ``explain`` saying why or showing the compiled query. ``notes``: what
    the answerer could not hold that the query asked for (e.g. vocabulary a mirror has no
    data for), each one sentence; empty when nothing is amiss."""
    vars: tuple[str, ...] = ()
    rows: tuple[Mapping[str, Any], ...] = ()
    boolean: bool | None = None
    graph: Any = None
    source: str = ""
    engine: str = ""
    explain: str = ""
    retrieved_at: str | None = None
    notes: tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[Mapping[str, Any]]:
        return iter(self.rows)

    @classmethod
    def from_answer(cls, answer: Answer, source: str) -> SparqlResult:
        """The SparqlResult of the SPARQL engine's ``answer`` (``store.sparql.run``,
        rows taken), answered by ``source``."""
        return cls(vars=answer.vars, rows=tuple(answer.rows), boolean=answer.boolean,
                   graph=answer.graph, source=source, engine=answer.engine,
                   explain=answer.explain, notes=answer.notes)

    def values(self, var: str) -> list[Any]:
        """Every binding of ``var``, in row order (unbound rows skipped)."""
        return [row[var] for row in self.rows if var in row]

    def to_json(self) -> dict[str, Any]:
        """The SPARQL 1.1 Query Results JSON Format."""
        from rdflib import BNode, Literal

        if self.boolean is not None:
            return {"head": {}, "boolean": self.boolean}

        def term(t: Any) -> dict[str, str]:
            if isinstance(t, Literal):
                out = {"type": "literal", "value": str(t)}
                if t.language:
                    out["xml:lang"] = t.language
                elif t.datatype:
                    out["datatype"] = str(t.datatype)
                return out
            if isinstance(t, BNode):
                return {"type": "bnode", "value": str(t)}
            return {"type": "uri", "value": str(t)}

        return {"head": {"vars": list(self.vars)},
                "results": {"bindings": [{k: term(v) for k, v in row.items()}
                                         for row in self.rows]}}


@dataclass
class SparqlStream:
    """A SELECT's solutions as they come (``rows`` is an iterator: memory stays bounded);
    for ASK, CONSTRUCT and DESCRIBE, ``result`` holds the whole answer instead. The
    query's deadline (``store.limits``) holds until the last row: past it, the next row
    raises QueryTimeout, and the rows already taken stay taken."""
    vars: tuple[str, ...]
    rows: Iterator[dict]
    engine: str
    explain: str
    notes: tuple[str, ...]
    result: SparqlResult | None = None

    @classmethod
    def from_answer(cls, answer: Answer, source: str) -> SparqlStream:
        """The stream of the SPARQL engine's ``answer`` (``store.sparql.run`` with
        ``stream``), answered by ``source``."""
        if answer.whole:
            return cls((), iter(()), answer.engine, answer.explain, answer.notes,
                       SparqlResult.from_answer(answer, source))
        return cls(answer.vars, iter(answer.rows), answer.engine, answer.explain,
                   answer.notes)


__all__ = ["Candidate", "Citation", "Entity", "PropertyInfo", "RANK_NAMES", "Rank",
           "Reference", "Snak", "SparqlResult", "SparqlStream", "Statement", "Value",
           "ValueKind", "WD", "is_live", "wikidata_url"]
