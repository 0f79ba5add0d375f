"""Names that sound alike: a coarse key that the Latin spellings of one name share across
languages and transliterations, and an index of a mirror's name words by that key.

A name written in another script reaches the linker transliterated letter by letter
("Фёдор Шаляпин" → "Fedor Shalyapin", "Мишель Кервер" → "Mishel Kerver"), and a name
respelled by another language ("Chaliapine", "Gorbatschow") is no label of the KB either;
the KB's English labels ("Fyodor Ivanovich Shalyapin", "Michel Kervaire") share the
consonant skeleton the key keeps. The key is coarse by design: it finds the few names a
mention may be, which the linker then ranks by their spelling and their facts.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable

from rapidfuzz.fuzz import ratio

from store.normalize import normalize

#: the letters with a háček, read before accents are dropped (their sound is the hushing one)
_HACEK = str.maketrans({"š": "sh", "ž": "zh", "č": "ch", "ć": "ch"})
#: rewritings in order: a Cyrillic "дж" as one sound with g and j; "ch" or "kh" before r
#: or l as k ("Christian" — "Kristian", "Chruschtschow" — "Khrushchev"); ph as f; the
#: hushing and guttural sounds (ш щ ж ч х, German sch, Polish cz, Spanish j, Russian г for
#: h: "Genrik" is "Henryk") as one letter; w as v; the k and s sounds of c, q, x, z; then
#: no vowels and no doubled letters. An initial vowel is kept as a mark ("Aldwych" and
#: "Oldvich" start alike, "Lynn" and "Alan" do not); "io"/"ia" opening a name is the
#: y-sound ("Iogann" — "Johann").
_RULES = tuple((re.compile(pattern), repl) for pattern, repl in (
    (r"d(?:zh|j)", "H"), (r"[ck]h(?=[rl])", "k"), (r"ph", "f"), (r"^i(?=[aeou])", "H"),
    (r"t?sch|tch|cz|[sczk]h|[jg]|h", "H"), (r"w", "v"), (r"x", "ks"), (r"q|ck", "k"),
    (r"c(?=[eiy])", "s"), (r"c", "k"), (r"tz|ts|z", "s"), (r"^[aeiouy]", "°"),
    (r"[aeiouy]", ""), (r"(.)\1+", r"\1")))
#: a key with fewer letters than this (its initial mark aside) is shared by too many words
#: to tell them apart ("Bobbi" is ``b``)
MIN_KEY = 2


def sound_key(word: str) -> str:
    """The key of one word: "Shalyapin" and "Chaliapine" are ``Hlpn`` ("Schaljapin" and
    "Šaljapin" by their j's other reading, ``sound_keys``), "Kerver" and "Kervaire"
    ``krvr``, "Gorbachev", "Gorbatschow" and "Gorbačëv" ``HrbHv``."""
    key = normalize(word.casefold().translate(_HACEK)).replace(" ", "")
    for pattern, repl in _RULES:
        key = pattern.sub(repl, key)
    return key


def sound_keys(word: str) -> frozenset[str]:
    """The keys ``word`` may have: a j is the y-sound in German, Italian and the Latin
    spellings of Slavic names ("Schaljapin", "Šaljapin"), the kh-sound in Spanish
    ("Mijaíl"), so a word with a j has both readings' keys."""
    keys = {sound_key(word)}
    if "j" in word.casefold():
        keys.add(sound_key(word.casefold().replace("j", "y")))
    return frozenset(keys)


class SoundIndex:
    """Words grouped by ``sound_key``, built from ``words`` on first use (a mirror's name
    words: about 1 s for 200,000). Thread-safe."""

    def __init__(self, words: Iterable[str]):
        self._source: Iterable[str] | None = words
        self._by_key: dict[str, list[str]] = {}
        self._lock = threading.Lock()

    def _index(self) -> dict[str, list[str]]:
        with self._lock:
            if self._source is not None:
                for w in self._source:
                    self._by_key.setdefault(sound_key(w), []).append(w)
                self._source = None
        return self._by_key

    def sounding(self, word: str, *, limit: int = 5) -> list[str]:
        """The indexed words that sound like ``word`` (share one of its keys), nearest in
        spelling first; none for a key shorter than ``MIN_KEY``."""
        index = self._index()
        found = {w for key in sound_keys(word) if len(key.lstrip("°")) >= MIN_KEY
                 for w in index.get(key, ())}
        return sorted(found, key=lambda w: (-ratio(w, word), w))[:limit]
