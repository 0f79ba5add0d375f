"""Surface variants of a mention: what else the same name may be written as.

``variants("Def Leppard's")`` yields ``def leppard`` (possessive dropped); ``"Mt. St.
Helens"`` yields ``mount saint helens``; ``"russians"`` yields ``russia`` (demonym) and
``"canadian prime minister"`` yields ``prime minister of canada``;
``"utica ny"`` yields ``utica new york`` and ``"hilo hawaii"`` yields ``hilo``
(a place qualified by its state or country); ``"king solomon"`` yields ``solomon`` (a
title dropped); ``"Caldecott Medal Awards"`` yields its
shorter parts (``caldecott medal``, discounted by how much of the mention they keep).
``respellings("britisch kolumbien", "de")`` yields the name as English spells what German
writes otherwise (``british columbia``; ``dmitri medwedew`` → ``dmitri medvedev``). Each
variant carries how it was made and a factor in (0, 1) by which a match through it is
discounted, so an exact match of the mention itself always ranks above one through a
variant. Input and output are normalized (``store.normalize.normalize``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations, product

from linking.lexicon import (ABBREVIATIONS, COMMON_WORDS, DEMONYM_SUFFIXES, DEMONYMS,
                             LEGAL_FORMS, PLACE_QUALIFIERS, STOPWORDS, TITLES, US_STATES)
from store.normalize import normalize

_REVERSE_ABBREVIATIONS: dict[str, tuple[str, ...]] = {}
for _short, _longs in ABBREVIATIONS.items():
    for _long in _longs:
        if " " not in _long and not _long.isdigit():
            _REVERSE_ABBREVIATIONS.setdefault(_long, ())
            _REVERSE_ABBREVIATIONS[_long] += (_short,)

_POSSESSIVE_ENDINGS = ("'s", "\u2019s", "'S", "\u2019S")

#: at most this many abbreviation combinations per mention (3 abbreviations → 3³ = 27)
_MAX_COMBINATIONS = 27


#: per language, how it writes foreign names where English keeps their spelling
#: (regular expression over a normalized name, replacement): German writes k for c
#: ("Kolumbien"), w for v ("Medwedew"), sch for sh ("britisch"), j for y ("Jemen"), and
#: -ien for -ia ("Kalifornien"), tsch for ch ("Schewtschenko"); Russian below. Every
#: combination of the rules that change a name makes a form ("Schewtschenko" is
#: "Shevchenko" through three of them, not through k for c).
#: a Latin name as other languages end it, as English keeps it ("Catull", "Catulle",
#: "Catullo", "Катулл" → "Catullus"; "Tacite", "Tacito" → "Tacitus"): the last word of
#: four letters or more; Russian writes a Latin "c" as "к". Such forms are ``ending``
#: variants: a guess at a name, never a form to look for names that sound alike
_LATIN_ENDING: dict[str, tuple[tuple[str, str], ...]] = {
    "de": ((r"(?<=\w{3}[bcdfgklmnprstvxz])$", "us"),),
    "fr": ((r"(?<=\w{3}[bcdfgklmnprstvxz])e$", "us"),),
    "es": ((r"(?<=\w{3})o$", "us"),), "it": ((r"(?<=\w{3})o$", "us"),),
    "pt": ((r"(?<=\w{3})o$", "us"),),
    "ru": ((r"(?<=\w{3}[bcdfgklmnprstvxz])$", "us"), (r"\bk(?=[aou])", "c")),
}
RESPELLINGS: dict[str, tuple[tuple[str, str], ...]] = {
    "de": ((r"tsch", "ch"), (r"sch", "sh"), (r"w", "v"), (r"k", "c"), (r"j", "y"),
           (r"ien\b", "ia")),
    # a Cyrillic name transliterated letter by letter (``querygen.languages``) as a Latin
    # label writes it: "Yokhan" → "Johan", "Dzhekson" → "Jekson", "Dmitriy" → "Dmitry",
    # "Aleksey" → "Alexey", "Stanislavskiy" → "Stanislavski" (-sky and -ski both)
    "ru": ((r"dzh", "j"), (r"kh", "h"), (r"\by(?=[aeiou])", "j"), (r"iy\b", "y"),
           (r"(?<=sk)iy\b", "i"), (r"ks", "x")),
}
#: the factor of a match through a respelling
RESPELLING_FACTOR = 0.85
#: the letters with a háček that a scholarly transliteration of a Cyrillic name writes
#: ("Puškin", "Čajkovskij") as English writes them; normalizing would drop the háček
#: and leave another name ("puskin")
_HACEK = str.maketrans({"š": "sh", "č": "ch", "ž": "zh", "ć": "ch"})

@dataclass(frozen=True, slots=True)
class Variant:
    """A normalized alternative form of a mention; ``factor`` discounts matches through it."""
    norm: str
    how: str        # article | possessive | plural | abbreviation | demonym | qualifier |
                    # title | part | spelling | ending | year | legal
    factor: float


def _plural_stems(word: str) -> list[str]:
    """Singular forms a plural (or a tweet's missing apostrophe, "Marleys") may have."""
    if len(word) < 4 or not word.endswith("s") or word.endswith("ss"):
        return []
    out = [word[:-1]]
    if word.endswith("ies"):
        out.append(word[:-3] + "y")
    elif word.endswith(("ses", "xes", "zes", "ches", "shes")):     # "-es" only after a hiss
        out.append(word[:-2])
    return out


def _abbreviation_forms(tokens: list[str]) -> list[tuple[str, float]]:
    """The token list with abbreviations expanded (factor 0.95) or long forms abbreviated
    (0.85: "saint" → "st" is likelier right than "senator" → "sen"); a state code counts
    as an abbreviation after another word ("utica ny" → "utica new york"). A one-word
    mention is never abbreviated: "senator" alone would become the code "SEN" (Senegal)."""
    options: list[list[tuple[str, float]]] = []
    for i, tok in enumerate(tokens):
        alts = [(tok, 1.0)] + [(a, 0.95) for a in ABBREVIATIONS.get(tok, ())]
        if len(tokens) > 1:
            alts += [(a, 0.85) for a in _REVERSE_ABBREVIATIONS.get(tok, ())]
        if i and tok in US_STATES:
            alts.append((US_STATES[tok], 0.95))
        options.append(alts)
    if all(len(o) == 1 for o in options):
        return []
    out = []
    for combo in product(*options):
        factor = min(f for _, f in combo)
        if factor < 1.0:
            out.append((" ".join(t for t, _ in combo), factor))
        if len(out) > _MAX_COMBINATIONS:
            break
    return out


def _demonym_forms(norm: str) -> list[str]:
    """Places a nationality word may stand for: the table first, then suffix rules on the
    last word ("south american" → "south america")."""
    found = [DEMONYMS[norm]] if norm in DEMONYMS else []
    head, _, last = norm.rpartition(" ")
    if len(last) < 5:
        return found
    prefix = head + " " if head else ""
    for strip, add in DEMONYM_SUFFIXES:
        if last.endswith(strip) and len(last) - len(strip) >= 3:
            found.append(prefix + last[: -len(strip)] + add)
    return found


#: adds a form (how it was made, its factor) unless it is the mention or a better entry
#: for it is there
_Add = Callable[[str, str, float], None]
#: a mention's words and the factor forms made from them are taken at
_Base = tuple[list[str], float]


def variants(norm: str, raw: str | None = None) -> list[Variant]:
    """Alternative normalized forms of the normalized mention ``norm`` (itself excluded),
    best first; at most one entry per form (the one with the highest factor). ``raw``, the
    mention as written, tells a possessive ("Earth's") from a plural."""
    tokens = norm.split()
    if not tokens:
        return []
    found: dict[str, Variant] = {}

    def add(form: str, how: str, factor: float) -> None:
        form = " ".join(form.split())
        if form and form != norm and factor > found.get(form, Variant("", "", 0.0)).factor:
            found[form] = Variant(form, how, factor)

    bases = _article_forms(tokens, norm, add)
    possessive = raw is not None and raw.rstrip().endswith(_POSSESSIVE_ENDINGS)
    _ending_forms(bases, possessive, add)
    for toks, f in bases:
        _qualified_forms(toks, f, add)
        _name_forms(toks, f, add)
    _part_forms(tokens, add)
    _year_forms(tokens, add)
    _legal_forms(tokens, add)
    return sorted(found.values(), key=lambda v: -v.factor)


#: a name with a legal form added ("Deutsche Post AG" for "Deutsche Post")
LEGAL_FACTOR = 0.93


def _legal_forms(tokens: list[str], add: _Add) -> None:
    """A company's name with the legal form its label may end in ("deutsche post" →
    "deutsche post ag"), for a name of two or more words that has none: a one-word name
    ("Apple") is left to its own label."""
    if len(tokens) >= 2 and tokens[-1] not in LEGAL_FORMS and tokens[-2] not in LEGAL_FORMS:
        for form in sorted(LEGAL_FORMS):
            add(" ".join([*tokens, form]), "legal", LEGAL_FACTOR)


#: a year, which English labels of events write before the name and other languages after
YEAR = re.compile(r"^(?:1[0-9]{3}|20[0-9]{2})$")


def _year_forms(tokens: list[str], add: _Add) -> None:
    """An event's year on the other side of its name: English labels write it first ("1992
    summer olympics"), other languages and many questions after ("summer olympics 1992",
    "the olympics of 1992")."""
    if len(tokens) < 2:
        return
    if YEAR.match(tokens[-1]):
        rest = tokens[:-1]
        if len(rest) > 2 and rest[-2:] == ["of", "the"]:      # "… of the 2014" (del 2014)
            rest = rest[:-2]
        elif len(rest) > 1 and rest[-1] in ("of", "in"):
            rest = rest[:-1]
        add(" ".join([tokens[-1], *rest]), "year", 0.95)
    elif YEAR.match(tokens[0]):
        add(" ".join([*tokens[1:], tokens[0]]), "year", 0.95)


def _article_forms(tokens: list[str], norm: str, add: _Add) -> list[_Base]:
    """The mention without its leading "the" or, for a short one, with it; returns the
    bases later steps make forms from: the mention, and without "the" where it had one."""
    bases = [(tokens, 1.0)]
    if len(tokens) > 1 and tokens[0] == "the":
        add(" ".join(tokens[1:]), "article", 0.97)
        bases.append((tokens[1:], 0.97))
    elif len(tokens) <= 3:
        add("the " + norm, "article", 0.96)
    return bases


def _ending_forms(bases: list[_Base], possessive: bool, add: _Add) -> None:
    """Forms of each base with its last word's ending changed: the possessive cut ("def
    leppard's" → "def leppard"; such a form joins ``bases``), the plural's stems and a
    plural added ("great lake" → "great lakes")."""
    for toks, f in list(bases):
        if len(toks) > 1 and toks[-1] == "s":          # "def leppard's" → "def leppard s"
            add(" ".join(toks[:-1]), "possessive", 0.97 * f)
            bases.append((toks[:-1], 0.97 * f))
        elif possessive and toks[-1].endswith("s") and len(toks[-1]) > 1:
            add(" ".join([*toks[:-1], toks[-1][:-1]]), "possessive", 0.97 * f)
            bases.append(([*toks[:-1], toks[-1][:-1]], 0.97 * f))
        for stem in _plural_stems(toks[-1]):
            add(" ".join([*toks[:-1], stem]), "plural", 0.9 * f)
        if len(toks[-1]) > 2 and not toks[-1].endswith("s") and toks[-1].isalpha():
            add(" ".join([*toks[:-1], toks[-1] + "s"]), "plural", 0.9 * f)  # "great lake"


def _qualified_forms(toks: list[str], f: float, add: _Add) -> None:
    """A base without a trailing place that qualifies it ("hilo hawaii" → "hilo") or a
    leading title ("king solomon" → "solomon")."""
    for cut in (1, 2):                     # "hilo hawaii" → "hilo"
        head = " ".join(toks[:-cut])
        if (len(toks) > cut and " ".join(toks[-cut:]) in PLACE_QUALIFIERS
                and len(head) > 3 and head not in COMMON_WORDS):
            add(head, "qualifier", 0.85 * f)
    if len(toks) > 1 and toks[0] in TITLES and toks[1] not in STOPWORDS:
        add(" ".join(toks[1:]), "title", 0.9 * f)      # "king solomon" → "solomon"


def _name_forms(toks: list[str], f: float, add: _Add) -> None:
    """A base's abbreviations expanded or made, and the places its demonyms name ("french"
    → "france", "canadian prime minister" → "prime minister of canada")."""
    for form, factor in _abbreviation_forms(toks):
        add(form, "abbreviation", factor * f)
    joined = " ".join(toks)
    for place in _demonym_forms(joined):
        add(place, "demonym", (0.85 if joined in DEMONYMS else 0.75) * f)
    for stem in _plural_stems(joined) if len(toks) == 1 else ():
        for place in _demonym_forms(stem):
            add(place, "demonym", 0.75 * f)
    if len(toks) > 1 and toks[0] in DEMONYMS:    # "canadian prime minister"
        place, rest = DEMONYMS[toks[0]], " ".join(toks[1:])
        for form in (f"{place} {rest}", f"{rest} of {place}", f"{rest} of the {place}"):
            add(form, "demonym", 0.85 * f)


def _part_forms(tokens: list[str], add: _Add) -> None:
    """Runs of one or two words fewer of a mention of two to five words, not starting or
    ending with a stopword ("Caldecott Medal Awards" → "caldecott medal")."""
    if 2 <= len(tokens) <= 5:                  # "Caldecott Medal Awards" → "caldecott medal"
        for size in range(len(tokens) - 1, max(0, len(tokens) - 3), -1):
            for start in range(len(tokens) - size + 1):
                sub = tokens[start:start + size]
                if sub[0] in STOPWORDS or sub[-1] in STOPWORDS or len(" ".join(sub)) < 4:
                    continue
                add(" ".join(sub), "part", 0.8 * size / len(tokens) + 0.1)


def respellings(norm: str, lang: str, text: str = "") -> list[Variant]:
    """The normalized name ``norm`` of a text in ``lang`` spelled as English spells such
    names (``RESPELLINGS``): every combination of the rules that change it; with the
    name as written (``text``), its háček letters as English writes them (any language).
    Each is a ``spelling`` variant; each of these and a one-word ``norm`` ended as a
    Latin name (``_LATIN_ENDING``) an ``ending`` one. [] when nothing changes."""
    out: dict[str, Variant] = {}
    for form in _rewritten(norm, RESPELLINGS.get(lang.split("-")[0], ())):
        out.setdefault(form, Variant(form, "spelling", RESPELLING_FACTOR))
    hacek = normalize(text.casefold().translate(_HACEK)) if text else norm
    if hacek != norm:
        out.setdefault(hacek, Variant(hacek, "spelling", RESPELLING_FACTOR))
    for base in [norm, *out] if " " not in norm else []:
        for form in _rewritten(base, _LATIN_ENDING.get(lang.split("-")[0], ())):
            if form != norm:
                out.setdefault(form, Variant(form, "ending", RESPELLING_FACTOR))
    return list(out.values())


def _rewritten(norm: str, rules: Sequence[tuple[str, str]]) -> list[str]:
    """``norm`` rewritten by every combination of the ``rules`` that apply to it."""
    applying = [(pattern, replacement) for pattern, replacement in rules
                if re.search(pattern, norm)]
    out: list[str] = []
    for size in range(1, len(applying) + 1):
        for chosen in combinations(applying, size):
            form = norm
            for pattern, replacement in chosen:
                form = re.sub(pattern, replacement, form)
            if form != norm and form not in out:
                out.append(form)
    return out
