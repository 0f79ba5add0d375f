"""Grounding label-level queries, as Chain of Knowledge writes them, to IDs.

    >>> g = ground(linker, "wd:/Delta Air Lines/ wdt:/house publication/ ?obj")
    >>> g.query
    'wd:Q188920 wdt:P2813 ?obj'

A *slot* is ``prefix:/label/``: ``wd:`` names an entity; ``wdt:``, ``p:``, ``ps:`` and
``pq:`` name a property (a ``/`` inside a label is written ``\\/``). Everything else —
variables, IDs, IRIs, literals, SPARQL keywords — is left as it is, so a slot may sit in a
triple pattern or in a whole SPARQL query.

Entity slots are linked by name and popularity (``EntityLinker.candidates``), then
re-ranked by the triple they are in: a candidate that has a property fitting the
neighbouring property slot (as subject, or as value for a slot in object position) gains
``PROPERTY_FIT``. Property slots are linked with ``PropertyLinker.link``, restricted to the
properties the chosen subject (or object) actually has when one fits.

Every slot keeps its ranked candidates; ``GroundedQuery.ambiguous`` says whether any slot's
runner-up is within ``AMBIGUITY_MARGIN`` of its winner, and ``alternatives(n)`` renders the
n best combinations. A label that matches nothing well enough (``MIN_ENTITY_MATCH``,
``MIN_PROPERTY_MATCH``) raises ``UnknownEntityLabel`` / ``UnknownPropertyLabel`` naming the
closest labels the mirror has.
"""

from __future__ import annotations

import heapq
import itertools
import re
from dataclasses import dataclass, replace
from typing import Any

from kb.contracts import Linker, PropertyLinking
from kb.types import Candidate
from linking.errors import UnknownEntityLabel, UnknownPropertyLabel
from linking.types import AMBIGUITY_MARGIN
from store.vocab import ENTITY_ID

ENTITY_PREFIXES = ("wd",)
PROPERTY_PREFIXES = ("wdt", "p", "ps", "pq")
#: an entity slot whose best candidate matches its label worse than this is unknown
MIN_ENTITY_MATCH = 0.6
#: a property slot whose best candidate's name score is below this is unknown
MIN_PROPERTY_MATCH = 0.5
#: bonus for an entity candidate that has the property of its triple
PROPERTY_FIT = 0.3
#: entity candidates considered per slot
ENTITY_CANDIDATES = 5

_TOKEN = re.compile(r"""
    (?P<slot>(?P<prefix>[A-Za-z][\w-]*):/(?P<label>(?:\\.|[^/\\\n])+)/)
  | (?P<term>[?$]\w+|<[^>\s]*>|[A-Za-z][\w-]*:[^\s;,.{}()/]*(?:\.[^\s;,.{}()/]+)*)
  | (?P<literal>"(?:\\.|[^"\\])*"(?:@[\w-]+|\^\^\S+)?)
  | (?P<punct>[.;,{}()])
  | (?P<other>\S+)
""", re.VERBOSE)


@dataclass(frozen=True, slots=True)
class Slot:
    """One ``prefix:/label/`` of the query, with its candidates best first."""
    kind: str                      # entity | property
    prefix: str
    label: str
    start: int
    end: int
    candidates: tuple[Candidate, ...]

    @property
    def chosen(self) -> Candidate:
        return self.candidates[0]

    @property
    def ambiguous(self) -> bool:
        return (len(self.candidates) > 1
                and self.candidates[0].score - self.candidates[1].score < AMBIGUITY_MARGIN)

    def render(self, candidate: Candidate | None = None) -> str:
        c = candidate or self.chosen
        return f"{self.prefix}:{c.id}" if ENTITY_ID.match(c.id) else f"<{c.id}>"

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "label": self.label, "start": self.start, "end": self.end,
                "chosen": self.chosen.id, "ambiguous": self.ambiguous,
                "candidates": [c.as_dict() for c in self.candidates]}


@dataclass(frozen=True, slots=True)
class GroundedQuery:
    """A label-level query and its grounding: ``query`` has every slot replaced by its best
    candidate's ID."""
    source: str
    query: str
    slots: tuple[Slot, ...]

    @property
    def ambiguous(self) -> bool:
        return any(s.ambiguous for s in self.slots)

    def alternatives(self, n: int = 5, *, per_slot: int = 3) -> list[tuple[float, str]]:
        """The ``n`` best groundings as (summed score, query), best first, combining each
        slot's top ``per_slot`` candidates."""
        if not self.slots:
            return [(0.0, self.query)]
        options = [s.candidates[:per_slot] for s in self.slots]
        best = heapq.nlargest(n, itertools.product(*options),
                              key=lambda combo: sum(c.score for c in combo))
        return [(sum(c.score for c in combo), self._render(combo)) for combo in best]

    def _render(self, combo: tuple[Candidate, ...]) -> str:
        out, pos = [], 0
        for slot, cand in zip(self.slots, combo, strict=True):
            out.append(self.source[pos:slot.start])
            out.append(slot.render(cand))
            pos = slot.end
        out.append(self.source[pos:])
        return "".join(out)

    def as_dict(self) -> dict[str, Any]:
        return {"source": self.source, "query": self.query, "ambiguous": self.ambiguous,
                "slots": [s.as_dict() for s in self.slots],
                "alternatives": [{"score": round(sc, 6), "query": q}
                                 for sc, q in self.alternatives()]}


@dataclass
class _Token:
    kind: str          # slot | term | literal | punct | other
    text: str
    start: int
    end: int
    prefix: str = ""
    label: str = ""


def _tokens(query: str) -> list[_Token]:
    out = []
    for m in _TOKEN.finditer(query):
        kind = "slot" if m.group("slot") else m.lastgroup
        assert kind is not None                 # every alternative is a named group
        tok = _Token(kind, m.group(), m.start(), m.end())
        if kind == "slot":
            tok.prefix = m.group("prefix")
            tok.label = re.sub(r"\\(.)", r"\1", m.group("label")).strip()
        out.append(tok)
    return out


def is_label_query(text: str) -> bool:
    """Whether ``text`` has at least one ``wd:/…/``-style slot."""
    return any(t.kind == "slot" and t.prefix in (*ENTITY_PREFIXES, *PROPERTY_PREFIXES)
               for t in _tokens(text))


def _triples(tokens: list[_Token]) -> list[tuple[int | None, int, int | None]]:
    """(subject, property slot, object) token indexes around every property slot; a
    subject after ``;`` is the previous triple's."""
    out = []
    last_subject: int | None = None
    for i, tok in enumerate(tokens):
        if tok.kind != "slot" or tok.prefix not in PROPERTY_PREFIXES:
            continue
        subject = None
        if i and tokens[i - 1].kind in ("slot", "term"):
            subject = i - 1
        elif i and tokens[i - 1].text == ";":
            subject = last_subject
        obj = i + 1 if i + 1 < len(tokens) and tokens[i + 1].kind in ("slot", "term") else None
        out.append((subject, i, obj))
        last_subject = subject
    return out


def _fixed_id(tok: _Token | None) -> str | None:
    """The entity ID of a ``wd:Q42`` token, else None."""
    if tok is None or tok.kind != "term" or ":" not in tok.text:
        return None
    local = tok.text.split(":", 1)[1]
    return local if ENTITY_ID.match(local) else None


def ground(linker: Linker, query: str, *, lang: str = "en", top: int = 5) -> GroundedQuery:
    """Ground every slot of the label-level ``query`` (see the module docstring)."""
    tokens = _tokens(query)
    entity_cands = _entity_candidates(linker, tokens, lang, top)
    triples = _triples(tokens)
    _prefer_fitting_entities(linker.properties, tokens, triples, entity_cands, lang)
    prop_cands = _property_candidates(linker, tokens, triples, entity_cands, lang, top)
    slots = []
    for i, tok in enumerate(tokens):
        if i in entity_cands:
            slots.append(Slot("entity", tok.prefix, tok.label, tok.start, tok.end,
                              tuple(entity_cands[i][:top])))
        elif i in prop_cands:
            slots.append(Slot("property", tok.prefix, tok.label, tok.start, tok.end,
                              tuple(prop_cands[i][:top])))
    grounded = GroundedQuery(query, query, tuple(slots))
    return replace(grounded, query=grounded._render(tuple(s.chosen for s in slots)))


def _entity_candidates(linker: Linker, tokens: list[_Token], lang: str, top: int
                       ) -> dict[int, list[Candidate]]:
    """Token index → the candidates of each entity slot, best first; a label that matches
    no entity well enough raises ``UnknownEntityLabel`` with the closest names."""
    entity_cands: dict[int, list[Candidate]] = {}
    for i, tok in enumerate(tokens):
        if tok.kind == "slot" and tok.prefix in ENTITY_PREFIXES:
            cands = linker.candidates(tok.label, lang=lang, limit=max(top, ENTITY_CANDIDATES))
            if not cands or cands[0].features.get("match", 0.0) < MIN_ENTITY_MATCH:
                raise UnknownEntityLabel(tok.label, kb=linker.name,
                                         closest=linker.closest(tok.label, lang=lang))
            entity_cands[i] = cands
    return entity_cands


def _prefer_fitting_entities(props: PropertyLinking, tokens: list[_Token],
                             triples: list[tuple[int | None, int, int | None]],
                             entity_cands: dict[int, list[Candidate]], lang: str) -> None:
    """Entity candidates that have the property of their triple (as subject, or as its
    value) move up: ``PROPERTY_FIT`` is added to their score, and the first
    ``ENTITY_CANDIDATES`` of each slot are ranked again."""
    for subject, p, obj in triples:
        for pos, role in ((subject, "subject"), (obj, "value")):
            if pos not in entity_cands:
                continue
            rescored = []
            for c in entity_cands[pos][:ENTITY_CANDIDATES]:
                kw = {"subject": c.id} if role == "subject" else {"value": c.id}
                fits = props.link(tokens[p].label, lang=lang, limit=1, **kw)
                fit = bool(fits) and fits[0].features.get("restricted") == 1.0 and (
                    fits[0].features.get("name", 0.0) >= MIN_PROPERTY_MATCH)
                feats = {**c.features, "property_fit": PROPERTY_FIT if fit else 0.0}
                rescored.append(replace(c, score=c.score + feats["property_fit"],
                                        features=feats))
            rescored.sort(key=lambda c: (-c.score, c.id))
            entity_cands[pos] = rescored + entity_cands[pos][ENTITY_CANDIDATES:]


def _property_candidates(linker: Linker, tokens: list[_Token],
                         triples: list[tuple[int | None, int, int | None]],
                         entity_cands: dict[int, list[Candidate]], lang: str, top: int
                         ) -> dict[int, list[Candidate]]:
    """Token index → the candidates of each property slot, best first: in a triple,
    preferring the properties that link its chosen subject and value; a label that names
    no property well enough raises ``UnknownPropertyLabel`` with the closest names."""
    props = linker.properties

    def chosen_id(pos: int | None) -> str | None:
        if pos is None:
            return None
        if pos in entity_cands:
            return entity_cands[pos][0].id
        return _fixed_id(tokens[pos])

    def linked(label: str, **kw: Any) -> list[Candidate]:
        cands = props.link(label, lang=lang, limit=top, **kw)
        if not cands or cands[0].features.get("name", 0.0) < MIN_PROPERTY_MATCH:
            raise UnknownPropertyLabel(label, kb=linker.name,
                                       closest=props.closest(label, lang=lang))
        return cands

    prop_cands: dict[int, list[Candidate]] = {}
    for subject, p, obj in triples:
        prop_cands[p] = linked(tokens[p].label, subject=chosen_id(subject),
                               value=chosen_id(obj))
    for i, tok in enumerate(tokens):        # property slots outside any triple
        if tok.kind == "slot" and tok.prefix in PROPERTY_PREFIXES and i not in prop_cands:
            prop_cands[i] = linked(tok.label)
    return prop_cands
