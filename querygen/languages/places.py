"""Names of countries, continents, languages and big cities as another language writes
them, read into English from the Unicode CLDR (which Babel ships): a KB may hold a place's
label and aliases in a few languages only (the T-REx slice has none in German, Italian or
Portuguese), so "Philippinen", "Filippine" and "Marrocos" would meet no label.

``english_names(lang)`` maps a folded name ("philippinen") to its English one
("Philippines"); ``inflected_forms(word, lang)`` gives the forms a declined word may have
as a name (Russian "Филиппин" → "филиппины", German "Deutschlands" → "deutschland").
CLDR's regions other than continents are left out (a language may name one as it names a
country: Russian "Южная Африка"), and so is a name two places share: it is evidence of
neither.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Any

#: CLDR's region codes that are continents (its other numeric regions are parts of them,
#: whose names other languages share with countries: ru "Южная Африка")
CONTINENTS = frozenset({"002", "003", "005", "009", "142", "150"})
#: endings a declined name may take in place of its nominative's last letter (or after
#: it), per language: Russian cases, the German genitive's -s
ENDINGS = {
    "ru": ("а", "я", "у", "ю", "е", "ы", "и", "ой", "ей", "ом", "ем", "ии", "ию", "ее"),
    "de": ("s",),
}
#: the nominative's last letters a Russian case ending replaces ("Гвинея" → "Гвинее")
_RU_FINALS = frozenset("аяыийоеь")
#: a shorter stem than this is no evidence of a name
MIN_STEM = 4


def strip_accents(text: str) -> str:
    """``text`` without accents, in the same script ("é" → "e", "ё" → "е")."""
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFC", "".join(
        ch for ch in decomposed if not unicodedata.combining(ch)))


def fold(text: str) -> str:
    """Lower case without accents ("Guiné" → "guine"), in the same script."""
    return strip_accents(text.lower())


@functools.cache
def english_names(lang: str) -> dict[str, tuple[str, str]]:
    """Folded name in ``lang`` → (its English name, its kind: "place" or "language"),
    for CLDR's countries and territories, continents, the cities it names time zones
    after, and languages, as ``lang`` and its regional variants write them. Empty for a
    language CLDR does not know, and for English."""
    try:
        from babel import Locale, UnknownLocaleError
    except ImportError:                                   # pragma: no cover - a dependency
        return {}
    if lang == "en":
        return {}
    try:
        locales = [Locale.parse(lang)] + [Locale.parse(v) for v in _regional(lang)]
    except (UnknownLocaleError, ValueError):
        return {}
    english = Locale("en")
    pairs: list[tuple[str, str, str]] = []
    for local in locales:
        pairs += _pairs(local, english)
    out: dict[str, tuple[str, str]] = {}
    shared: set[str] = set()
    for name, en_name, kind in pairs:
        key = fold(name)
        if key in out and out[key][0] != en_name:
            shared.add(key)
        out.setdefault(key, (en_name, kind))
    for key in shared:
        del out[key]
    return out


@functools.cache
def territory_names(lang: str) -> frozenset[str]:
    """The folded names of CLDR's countries, territories and continents in ``lang`` that
    ``english_names`` reads into English ("germania", "spagna"): a question in ``lang``
    means the country by them, even where a KB labels something else so in English (the
    Roman province Germania, a Roman metro station Spagna)."""
    names = english_names(lang)
    if not names:
        return frozenset()
    from babel import Locale
    out: set[str] = set()
    for local in [Locale.parse(lang)] + [Locale.parse(v) for v in _regional(lang)]:
        out.update(fold(name) for _, name in _territories(local))
    return frozenset(k for k in out if k in names)


def _territories(local: Any) -> list[tuple[str, str]]:
    """(CLDR code, name in ``local``) of its countries, territories and continents."""
    return [(code, name) for code, name in local.territories.items()
            if code.isalpha() or code in CONTINENTS]


def _regional(lang: str) -> list[str]:
    """CLDR's regional variants of ``lang`` ("pt_PT" writes Benin "Benim")."""
    from babel import localedata
    return [i for i in localedata.locale_identifiers()
            if i.startswith(f"{lang}_") and len(i.split("_")) == 2]


def _pairs(local: Any, english: Any) -> list[tuple[str, str, str]]:
    """(name in ``local``, English name, kind) for CLDR's places and languages."""
    pairs: list[tuple[str, str, str]] = []
    for code, name in _territories(local):
        if code in english.territories:
            # CLDR writes "Trinidad & Tobago"; labels write "and" (with "&" a name is
            # another entity's: the football team's alias)
            pairs.append((name, english.territories[code].replace(" & ", " and "), "place"))
    countries = {name for name, _, _ in pairs}
    for zone, names in local.time_zones.items():
        city = names.get("city")
        # a zone named after a territory ("Îles Féroé", English "Faroes") is that territory
        if city and city not in countries:
            en_city = english.time_zones.get(zone, {}).get("city") or \
                zone.rsplit("/", 1)[-1].replace("_", " ")
            pairs.append((city, en_city, "place"))
    for code, name in local.languages.items():
        if code.isalpha() and len(code) <= 3 and code in english.languages:
            pairs.append((name, english.languages[code], "language"))
    return pairs


#: a German adjective of a language, declined: its stem ("hebraischen" → "hebraisch")
_DE_ADJECTIVE = re.compile(r"(.*isch)(?:e|en|er|es|em)")

def inflected_forms(word: str, lang: str) -> list[str]:
    """Folded nominatives a declined one-word name ``word`` may stand for, nearest first:
    Russian "филиппин" → "филиппины", "филиппина" …, "гвинее" → "гвинея" …; German
    "deutschlands" → "deutschland". None for other languages or short words."""
    low = fold(word)
    out: list[str] = []
    if lang == "de" and low.endswith("s") and len(low) > MIN_STEM + 1:
        out.append(low[:-1])
    elif lang == "de" and (adjective := _DE_ADJECTIVE.fullmatch(low)):
        out.append(adjective.group(1))                      # "Hebräische" → "hebraisch"
    elif lang == "ru" and len(low) > MIN_STEM:
        stems = [low]
        for ending in ENDINGS["ru"]:
            if low.endswith(ending) and len(low) - len(ending) >= MIN_STEM:
                stems.append(low[:-len(ending)])
        for stem in stems:
            out += [stem + final for final in sorted(_RU_FINALS)]
            if stem != low:
                out.append(stem)
    return [f for f in dict.fromkeys(out) if f != low]
