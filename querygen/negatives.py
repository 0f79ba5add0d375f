"""Rule-made incorrect queries of the four kinds Chain of Knowledge trains against.

    >>> [n.kind for n in negatives("SELECT ?x WHERE { wd:/Douglas Adams/ wdt:/employer/ ?x }", kb)]
    ['unlinked', 'wrong_entity', 'misspelled', 'wrong_property']

From one gold query — ID-level (``wd:Q42 wdt:P108 ?x``) or label-level (``wd:/Douglas
Adams/ wdt:/employer/ ?x``) — and the KB it is meant for, ``negatives`` makes one incorrect
query per kind, at the gold query's level, each tagged with its kind and saying what was
changed:

- ``unlinked`` — an entity not linked or not prefixed: its label written where the ID
  belongs (``wd:Douglas_Adams``, ``Douglas Adams``), its ID without prefix (``Q42``), or a
  placeholder without its prefix (``/Douglas Adams/``);
- ``wrong_entity`` — a wrong entity or class: one named like the gold one (a homonym, or
  one sharing a word of its label) that does not have the property the gold entity has in
  that triple; failing those, one taken from the property's other statements;
- ``misspelled`` — the entity's label misspelled (letters swapped, dropped, doubled or
  changed) into a label no entity of the KB has, as a placeholder;
- ``wrong_property`` — the triple reordered (subject and object swapped) or its property
  replaced by another one named alike, either way so that the triple's entity does not
  have it.

The rules check against the KB that each negative really is wrong there (a replacement
that would still match is skipped), because a negative that is a valid query is no
negative. A kind that cannot be made for a query (no entity in it, nothing found to swap
in) is left out. Output is deterministic for a (query, seed) pair.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from kb.base import KnowledgeBase
from querygen.terms import (Token, Triple, entity_kind, known_prefixes, label_of, lex,
                            property_kind, resolve, simple_triples, slot, substitute,
                            wikidata_id)
from store.normalize import normalize
from store.vocab import PROPERTY_ID, WD

KINDS = ("unlinked", "wrong_entity", "misspelled", "wrong_property")
#: entity and property candidates tried per replacement
_TRIES = 12


@dataclass(frozen=True, slots=True)
class Negative:
    """An incorrect query: ``kind`` (one of ``KINDS``), its ``text``, and ``detail``,
    what was changed (``wd:Q42 → Q42``)."""
    kind: str
    text: str
    detail: str

    def as_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "text": self.text, "detail": self.detail}


def negatives(query: str, kb: KnowledgeBase, *, seed: int = 0, kinds: Sequence[str] = KINDS,
              lang: str = "en") -> list[Negative]:
    """One negative per kind in ``kinds`` (those that can be made), in that order."""
    unknown = set(kinds) - set(KINDS)
    if unknown:
        raise ValueError(f"unknown negative kinds {sorted(unknown)}; expected some of {KINDS}")
    maker = _Maker(query, kb, random.Random(f"{seed}\x00{query}"), lang)
    out = []
    for kind in kinds:
        made = getattr(maker, kind)()
        if made is not None and made.text != query:
            out.append(made)
    return out


@dataclass
class _Term:
    """An entity or property of the query: its token, the IDs it stands for, its label."""
    index: int
    token: Token
    ids: list[str]
    label: str | None


class _Maker:
    def __init__(self, query: str, kb: KnowledgeBase, rng: random.Random, lang: str):
        self.query, self.kb, self.rng, self.lang = query, kb, rng, lang
        self.tokens = lex(query)
        self.prefixes = known_prefixes(self.tokens)
        self.triples = simple_triples(self.tokens)
        self._terms: dict[int, _Term] = {}
        self._fit_cache: dict[tuple, bool] = {}

    # -- what the query holds ---------------------------------------------------------------
    def term(self, index: int) -> _Term:
        found = self._terms.get(index)
        if found is None:
            tok = self.tokens[index]
            kind = "property" if property_kind(tok, self.prefixes) else "entity"
            label: str | None
            if tok.kind == "slot":
                ids, label = resolve(self.kb, tok.label, kind, lang=self.lang), tok.label
            else:
                named = wikidata_id(tok, self.prefixes)
                assert named is not None        # asked only of entity and property tokens
                local = named[1]
                ids, label = [local], label_of(self.kb, local, self.lang)
            found = self._terms[index] = _Term(index, tok, ids, label)
        return found

    def entity_positions(self) -> list[tuple[int, Triple | None, str]]:
        """(token index, its triple, 'subject'|'object') of every entity in a triple, then
        entities outside triples (with no triple)."""
        out: list[tuple[int, Triple | None, str]] = []
        seen: set[int] = set()
        for t in self.triples:
            for pos, role in ((t.subject, "subject"), (t.object, "object")):
                if pos is not None and entity_kind(self.tokens[pos], self.prefixes):
                    out.append((pos, t, role))
                    seen.add(pos)
        for i, tok in enumerate(self.tokens):
            if i not in seen and entity_kind(tok, self.prefixes):
                out.append((i, None, ""))
        return out

    def label_level(self) -> bool:
        return any(t.kind == "slot" for t in self.tokens)

    def fits(self, entities: Iterable[str], properties: Iterable[str], role: str) -> bool:
        """Whether any of ``entities`` has any of ``properties`` in ``role`` in the KB."""
        from store.errors import InvalidId
        ents, props = tuple(entities)[:3], tuple(properties)[:3]
        key = (ents, props, role)
        if key not in self._fit_cache:
            found = False
            for e in ents:
                for p in props:
                    try:
                        kw = {"subject": e} if role == "subject" else {"value": e}
                        if self.kb.statements(property=p, limit=1, **kw):
                            found = True
                            break
                    except InvalidId:
                        continue
                if found:
                    break
            self._fit_cache[key] = found
        return self._fit_cache[key]

    def replace(self, kind: str, edits: list[tuple[int, int, str]], detail: str) -> Negative:
        return Negative(kind, substitute(self.query, edits), detail)

    def pick(self, items: Iterable[Any]) -> list[Any]:
        """``items`` in a seeded random order."""
        items = list(items)
        self.rng.shuffle(items)
        return items

    # -- the four kinds -----------------------------------------------------------------------
    def unlinked(self) -> Negative | None:
        for index, _triple, _role in self.pick(self.entity_positions()):
            term = self.term(index)
            tok = term.token
            options = []
            if term.label:
                options.append(term.label)                            # a bare label
            if tok.kind == "slot":
                options.append("/" + tok.text.split(":/", 1)[1])       # no prefix
            else:
                options.append(term.ids[0])                            # a bare ID
                if term.label:
                    local = "_".join(term.label.split())
                    options.append(f"{tok.prefix or 'wd'}:{local}")     # label for the ID
            new = self.rng.choice(options)
            return self.replace("unlinked", [(tok.start, tok.end, new)], f"{tok.text} → {new}")
        return None

    def wrong_entity(self) -> Negative | None:
        positions = self.pick(p for p in self.entity_positions() if p[1] is not None)
        for index, triple, role in positions:
            term = self.term(index)
            props = self.term(triple.property).ids
            if not term.ids or not props:
                continue
            for cand in self._entity_candidates(term, props, role):
                if cand in term.ids:
                    continue
                if self.label_level():
                    label = label_of(self.kb, cand, self.lang)
                    if not label or normalize(label) == normalize(term.label or ""):
                        continue
                    ids = resolve(self.kb, label, "entity", lang=self.lang)
                    if not ids or set(ids) & set(term.ids) or self.fits(ids, props, role):
                        continue
                    new = slot("wd", label)
                elif self.fits([cand], props, role):
                    continue
                else:
                    tok = term.token
                    new = f"<{WD}{cand}>" if tok.kind == "iri" else f"{tok.prefix}:{cand}"
                return self.replace("wrong_entity", [(term.token.start, term.token.end, new)],
                                    f"{term.token.text} → {new}")
        return None

    def _entity_candidates(self, term: _Term, props: list[str], role: str) -> Iterable[str]:
        """Entities named like ``term`` (homonyms, then ones sharing a word), then entities
        from the property's other statements, each group in seeded order."""
        names = []
        if term.label:
            names.append(term.label)
            names += [w for w in term.label.split() if len(w) > 3]
        seen: set[str] = set()
        for name in dict.fromkeys(names):
            found = [c.id for c in self.kb.search(name, lang=self.lang, limit=_TRIES)
                     if not PROPERTY_ID.match(c.id) and c.id not in seen]
            seen.update(found)
            yield from self.pick(found)
        pool = []
        for st in self.kb.statements(property=props[0], limit=4 * _TRIES):
            # a subject's stand-in: another statement's value; a value's: a subject
            other = st.value.value if role == "subject" else st.subject
            if (st.value.is_entity or role == "object") and other not in seen:
                seen.add(other)
                pool.append(other)
        yield from self.pick(pool)

    def misspelled(self) -> Negative | None:
        for index, _triple, _role in self.pick(self.entity_positions()):
            term = self.term(index)
            if not term.label or sum(ch.isalpha() for ch in term.label) < 3:
                continue
            for _ in range(_TRIES):
                wrong = misspell(term.label, self.rng)
                if wrong != term.label and not resolve(self.kb, wrong, "entity",
                                                       lang=self.lang):
                    new = slot("wd", wrong)
                    return self.replace("misspelled",
                                        [(term.token.start, term.token.end, new)],
                                        f"{term.token.text} → {new}")
        return None

    def wrong_property(self) -> Negative | None:
        for triple in self.pick(self.triples):
            ways = self.pick(["reorder", "replace"])
            for way in ways:
                made = getattr(self, f"_{way}")(triple)
                if made is not None:
                    return made
        return None

    def _ends(self, triple: Triple) -> list[tuple[str, list[str]]]:
        """(role, entity IDs) of the triple's ends that are entities."""
        out = []
        for pos, role in ((triple.subject, "subject"), (triple.object, "object")):
            if pos is not None and entity_kind(self.tokens[pos], self.prefixes):
                ids = self.term(pos).ids
                if ids:
                    out.append((role, ids))
        return out

    def _reorder(self, triple: Triple) -> Negative | None:
        if triple.subject is None or triple.object is None:
            return None
        s, o = self.tokens[triple.subject], self.tokens[triple.object]
        if o.kind in ("string", "number") or s.start >= o.start:
            return None                      # a literal subject; a triple after ';'
        props = self.term(triple.property).ids
        ends = self._ends(triple)
        if not props or not ends:
            return None
        swapped = {"subject": "object", "object": "subject"}
        if any(self.fits(ids, props, swapped[role]) for role, ids in ends):
            return None
        return self.replace("wrong_property", [(s.start, s.end, o.text), (o.start, o.end, s.text)],
                            f"{s.text} ⇄ {o.text}")

    def _replace(self, triple: Triple) -> Negative | None:
        prop = self.term(triple.property)
        ends = self._ends(triple)
        if not prop.label or not ends:
            return None
        for pid in self._property_candidates(prop, ends):
            if pid in prop.ids:
                continue
            label = label_of(self.kb, pid, self.lang)
            if not label or normalize(label) == normalize(prop.label):
                continue
            if prop.token.kind == "slot":
                pids = resolve(self.kb, label, "property", lang=self.lang)
                if not pids or set(pids) & set(prop.ids):
                    continue
                new = slot(prop.token.prefix, label)
            else:
                pids = [pid]
                tok = prop.token
                new = (f"<{tok.text[1:-1][:-len(prop.ids[0])]}{pid}>" if tok.kind == "iri"
                       else f"{tok.prefix}:{pid}")
            if any(self.fits(ids, pids, role) for role, ids in ends):
                continue
            return self.replace("wrong_property",
                                [(prop.token.start, prop.token.end, new)],
                                f"{prop.token.text} → {new}")
        return None

    def _property_candidates(self, prop: _Term, ends: list[tuple[str, list[str]]]
                             ) -> Iterable[str]:
        """Properties named alike (sharing a word of the label, then its first letters),
        then the properties of the entities the gold triple leads to (a neighbour's
        property: the country of the employer instead of the employer)."""
        words = [w for w in (prop.label or "").split() if len(w) > 2]
        names = [*words, *(w[:3] for w in words)]
        seen: set[str] = set()
        for name in dict.fromkeys(names):
            found = [c.id for c in self.kb.search(name, lang=self.lang, limit=3 * _TRIES)
                     if PROPERTY_ID.match(c.id) and c.id not in seen]
            seen.update(found)
            yield from self.pick(found)
        neighbours = []
        for role, ids in ends:
            kw = {"subject": ids[0]} if role == "subject" else {"value": ids[0]}
            for st in self.kb.statements(property=prop.ids[0], limit=5, **kw) if prop.ids else ():
                other = st.value.value if role == "subject" else st.subject
                if st.value.is_entity:
                    neighbours += [n.property for n in self.kb.statements(other, limit=50)
                                   if n.property not in seen and PROPERTY_ID.match(n.property)]
        yield from self.pick(dict.fromkeys(neighbours))


_KEYBOARD_NEIGHBOURS = {
    "a": "sqz", "b": "vn", "c": "xv", "d": "sf", "e": "wr", "f": "dg", "g": "fh", "h": "gj",
    "i": "uo", "j": "hk", "k": "jl", "l": "k", "m": "n", "n": "bm", "o": "ip", "p": "o",
    "q": "w", "r": "et", "s": "ad", "t": "ry", "u": "yi", "v": "cb", "w": "qe", "x": "zc",
    "y": "tu", "z": "x",
}


def misspell(label: str, rng: random.Random) -> str:
    """``label`` with one typing slip: two letters swapped, one dropped, doubled, or struck
    as its keyboard neighbour (never the first letter, which people rarely get wrong)."""
    letters = [i for i, ch in enumerate(label) if ch.isalpha() and i > 0]
    if not letters:
        return label
    i = rng.choice(letters)
    how = rng.choice(("swap", "drop", "double", "neighbour"))
    if how == "swap" and i + 1 < len(label) and label[i + 1].isalpha() \
            and label[i + 1] != label[i]:
        return label[:i] + label[i + 1] + label[i] + label[i + 2:]
    if how == "drop":
        return label[:i] + label[i + 1:]
    if how == "double":
        return label[:i] + label[i] + label[i:]
    near = _KEYBOARD_NEIGHBOURS.get(label[i].lower())
    if not near:
        return label[:i] + label[i + 1:]
    ch = rng.choice(near)
    return label[:i] + (ch.upper() if label[i].isupper() else ch) + label[i + 1:]
