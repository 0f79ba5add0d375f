"""The terms of a SPARQL query, ID-level or label-level, with their character offsets.

Chain of Knowledge writes queries with labels where the IDs go: ``wd:/Douglas Adams/
wdt:/employer/ ?x``. A *slot* is ``prefix:/label/`` (a ``/`` inside a label is written
``\\/``); ``wd:`` slots name entities, ``wdt:``/``p:``/``ps:``/``pq:`` slots properties.
``lex`` splits a query into tokens that keep their offsets, so that the validator can say
where a problem is and the negative maker can rewrite one term without touching the rest.
``resolve`` turns a label into the IDs whose label or alias it is, exactly (case-, accent-
and punctuation-insensitive, as ``KnowledgeBase.search`` matches).

Only the ``KnowledgeBase`` protocol is used, so this works on every KB.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Sequence

from kb.base import KnowledgeBase, mirror_of
from kb.contracts import Linker
from store.sparql import WIKIDATA_PREFIXES
from store.normalize import normalize
from store.vocab import ENTITY_ID, ITEM_ID, LEXEME_ID, PROPERTY_ID

ENTITY_PREFIXES = ("wd",)
PROPERTY_PREFIXES = ("wdt", "p", "ps", "pq", "pr")
#: prefixes whose local names must be Wikidata IDs, and which IDs
ID_PREFIXES = {"wd": "entity", **{p: "property" for p in PROPERTY_PREFIXES}}
#: the exact kinds of a search match (the rest are prefix or word matches)
EXACT_MATCHES = ("label", "alias")

_LEX = re.compile(r"""
    (?P<comment>\#[^\n]*)
  | (?P<slot>(?P<sprefix>[A-Za-z][\w-]*):/(?P<slabel>(?:\\.|[^/\\\n])+)/)
  | (?P<bare>/(?P<blabel>[^/\\\n:?$<>{}"]*[A-Za-z][^/\\\n:?$<>{}"]*)/)
  | (?P<iri><[^<>"{}|^`\\\s]*>)
  | (?P<string>\"\"\"(?:\\.|[^\\])*?\"\"\"|'''(?:\\.|[^\\])*?'''|"(?:\\.|[^"\\\n])*"
                |'(?:\\.|[^'\\\n])*')
  | (?P<var>[?$][\w\u00b7]+)
  | (?P<pname>(?:[A-Za-z][\w.-]*)?:(?:[\w%-](?:[\w.%:-]*[\w%:-])?)?)
  | (?P<number>[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?))
  | (?P<word>[A-Za-z_]\w*)
  | (?P<langtag>@[A-Za-z]+(?:-[A-Za-z0-9]+)*)
  | (?P<punct>\^\^|&&|\|\||<=|>=|!=|[.;,{}()\[\]/*+|^=<>!?-])
  | (?P<other>\S)
""", re.VERBOSE)


@dataclass(frozen=True, slots=True)
class Token:
    """One token of a query: ``text == query[start:end]``.

    kind: slot (``wd:/label/``), bare (``/label/``: a placeholder without its prefix),
    iri, string, var, pname (``wd:Q42``), number, word (keywords, ``a``), langtag
    (``@en``, one token: ``@ en`` is not SPARQL), punct, comment, other.
    ``prefix``/``label`` are set for slots (the label unescaped), ``prefix``/``local``
    for prefixed names."""
    kind: str
    text: str
    start: int
    end: int
    prefix: str = ""
    label: str = ""
    local: str = ""

    @property
    def is_term(self) -> bool:
        return self.kind in ("slot", "iri", "string", "var", "pname", "number") or (
            self.kind == "word" and self.text in ("true", "false"))


def lex(query: str) -> list[Token]:
    """The tokens of ``query`` (comments included), in order."""
    out = []
    for m in _LEX.finditer(query):
        kind = m.lastgroup
        assert kind is not None                          # every alternative is a group
        if kind in ("sprefix", "slabel", "blabel"):      # inner groups end last
            kind = "slot" if m.group("slot") else "bare"
        text = m.group()
        if kind == "slot":
            out.append(Token(kind, text, m.start(), m.end(), prefix=m.group("sprefix"),
                             label=unescape(m.group("slabel"))))
        elif kind == "bare":
            out.append(Token(kind, text, m.start(), m.end(), label=m.group("blabel").strip()))
        elif kind == "pname":
            prefix, _, local = text.partition(":")
            out.append(Token(kind, text, m.start(), m.end(), prefix=prefix, local=local))
        else:
            out.append(Token(kind, text, m.start(), m.end()))
    return out


def unescape(label: str) -> str:
    return re.sub(r"\\(.)", r"\1", label).strip()


def slot(prefix: str, label: str) -> str:
    """``slot('wd', 'AC/DC')`` → ``wd:/AC\\/DC/``."""
    return f"{prefix}:/" + label.replace("\\", "\\\\").replace("/", "\\/") + "/"


def is_label_level(query: str) -> bool:
    """Whether ``query`` has at least one ``prefix:/label/`` slot."""
    return any(t.kind == "slot" for t in lex(query))


def declared_prefixes(tokens: Sequence[Token]) -> dict[str, str]:
    """``PREFIX name: <iri>`` declarations of the query, by name."""
    out = {}
    for i, tok in enumerate(tokens[:-2]):
        if tok.kind == "word" and tok.text.upper() == "PREFIX" and tokens[i + 1].kind == "pname" \
                and tokens[i + 2].kind == "iri":
            out[tokens[i + 1].prefix] = tokens[i + 2].text[1:-1]
    return out


def known_prefixes(tokens: Sequence[Token]) -> dict[str, str]:
    """Wikidata's well-known prefixes, overridden by the query's own declarations."""
    return {**WIKIDATA_PREFIXES, **declared_prefixes(tokens)}


def wikidata_id(tok: Token, prefixes: dict[str, str]) -> tuple[str, str] | None:
    """(kind, local name) when ``tok`` names a Wikidata entity or property by ID: a
    ``wd:``/``wdt:``-style prefixed name or a full IRI in those namespaces. The local name
    may be malformed; kind is 'entity' or 'property'."""
    if tok.kind == "pname":
        ns = prefixes.get(tok.prefix)
        iri = (ns + tok.local) if ns is not None else None
    elif tok.kind == "iri":
        iri = tok.text[1:-1]
    else:
        return None
    if iri is None:
        return None
    for prefix, kind in ID_PREFIXES.items():
        ns = WIKIDATA_PREFIXES[prefix]
        if iri.startswith(ns) and "/" not in iri[len(ns):] and iri[len(ns):]:
            if prefix == "p" and iri.startswith(WIKIDATA_PREFIXES["p"] + "statement/"):
                continue
            return kind, iri[len(ns):]
    return None


def well_formed(kind: str, local: str) -> bool:
    if kind == "property":
        return bool(PROPERTY_ID.match(local))
    return bool(ENTITY_ID.match(local) or LEXEME_ID.match(local))


def is_item(local: str) -> bool:
    return bool(ITEM_ID.match(local))


# -- labels → IDs ---------------------------------------------------------------------------

def resolve(kb: KnowledgeBase, label: str, kind: str, *, lang: str = "en",
            limit: int = 10) -> list[str]:
    """IDs of the ``kind`` ('entity' or 'property') whose label or alias is ``label``,
    best first; [] when none is. Matching is exact up to ``store.normalize``."""
    if not normalize(label):
        return []
    out = []
    # properties share names with many items ("country"), which rank first by popularity
    for c in kb.search(label, lang=lang, limit=limit if kind == "entity" else 100):
        if c.match not in EXACT_MATCHES or normalize(c.matched) != normalize(label):
            continue
        if (kind == "property") == bool(PROPERTY_ID.match(c.id)):
            out.append(c.id)
    return out[:limit]


def closest_labels(kb: KnowledgeBase, label: str, kind: str, *, lang: str = "en",
                   limit: int = 5, linker: Linker | None = None) -> list[tuple[str, str]]:
    """(ID, label) of the ``kind`` nearest to ``label`` in spelling, best first, for
    suggestions. A mirror's fuzzy index when the KB has one (through ``linker``, an
    ``EntityLinker`` over ``kb``; one is built for this call when none is given), else the
    KB's search on the label's words, ranked by similarity."""
    found = _closest_from_linker(kb, label, kind, lang, limit, linker)
    if found is not None:
        return found
    from rapidfuzz import fuzz

    words = [w for w in normalize(label).split() if len(w) > 2] or [label]
    pool: dict[str, str] = {}
    for query in dict.fromkeys([label, *words]):
        for c in kb.search(query, lang=lang, limit=20):
            if (kind == "property") == bool(PROPERTY_ID.match(c.id)):
                pool.setdefault(c.id, c.label)
    ranked = sorted(pool.items(), key=lambda kv: (-fuzz.WRatio(normalize(label),
                                                               normalize(kv[1])), kv[0]))
    return ranked[:limit]


def _closest_from_linker(kb: KnowledgeBase, label: str, kind: str, lang: str,
                         limit: int, linker: Linker | None) -> list[tuple[str, str]] | None:
    """The linker's closest names, for a KB with a mirror (its linking index); None
    for another KB."""
    if mirror_of(kb) is None:
        return None
    if linker is None:
        from linking import EntityLinker
        linker = EntityLinker(kb)
    if kind == "property":
        return linker.properties.closest(label, lang=lang, limit=limit)
    return linker.closest(label, lang=lang, limit=limit)


def label_of(kb: KnowledgeBase, id: str, lang: str = "en") -> str | None:
    """The KB's label of ``id`` in ``lang`` (with Wikidata's fallback); None when the KB
    does not know the ID or has no label for it."""
    from store.errors import NotFound
    try:
        entity = kb.entity(id)
    except NotFound:
        return None
    name = entity.label(lang)
    return None if name == id else name


def substitute(query: str, edits: Iterable[tuple[int, int, str]]) -> str:
    """``query`` with each (start, end, text) span replaced; spans must not overlap."""
    out, pos = [], 0
    for start, end, text in sorted(edits):
        out.append(query[pos:start])
        out.append(text)
        pos = end
    out.append(query[pos:])
    return "".join(out)


@dataclass(frozen=True, slots=True)
class Triple:
    """A simple triple pattern found in the token stream: token indexes of its subject,
    property and object (None where that position is not a plain term)."""
    subject: int | None
    property: int
    object: int | None


_PATH = ("/", "*", "+", "|", "^")


def property_kind(tok: Token, prefixes: dict[str, str]) -> bool:
    """Whether ``tok`` names a Wikidata property (a property slot, or a property ID)."""
    if tok.kind == "slot":
        return tok.prefix in PROPERTY_PREFIXES
    found = wikidata_id(tok, prefixes)
    return found is not None and found[0] == "property"


def entity_kind(tok: Token, prefixes: dict[str, str]) -> bool:
    """Whether ``tok`` names a Wikidata entity (an entity slot, or an entity ID)."""
    if tok.kind == "slot":
        return tok.prefix in ENTITY_PREFIXES
    found = wikidata_id(tok, prefixes)
    return found is not None and found[0] == "entity"


def simple_triples(tokens: Sequence[Token]) -> list[Triple]:
    """Triple patterns ``subject property object`` whose property is a Wikidata property
    not inside a property path; the subject after ``;`` is the previous triple's."""
    code = [t for t in tokens if t.kind != "comment"]
    index = {id(t): i for i, t in enumerate(tokens)}
    prefixes = known_prefixes(tokens)
    out: list[Triple] = []
    last_subject: int | None = None
    for i, tok in enumerate(code):
        if not property_kind(tok, prefixes):
            continue
        before = code[i - 1] if i else None
        after = code[i + 1] if i + 1 < len(code) else None
        if (before is not None and before.text in _PATH) or (
                after is not None and after.text in _PATH):
            continue
        subject: int | None
        if before is not None and before.is_term:
            subject = index[id(before)]
        elif before is not None and before.text == ";":
            subject = last_subject
        else:
            subject = None
        obj = index[id(after)] if after is not None and after.is_term else None
        out.append(Triple(subject, index[id(tok)], obj))
        last_subject = subject
    return out
