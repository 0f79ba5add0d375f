"""Word forms for comparing a relation phrase with property names.

A phrase says "died", "wrote", "employs", "headquartered"; property names say "death",
"author", "employer", "headquarters". Three steps bring them together:

- **inflection** is undone by a lemmatizer: lemminflect (PyPI, ships its dictionaries, no
  download) maps "wrote" → "write", "spoke" → "speak", "employs" → "employ", preferring
  the verb reading, then the noun's;
- a few **suppletive** pairs no rule derives ("born" → "birth", "die" → "death") are
  mapped (``SUPPLETIVE``);
- **derivation** ("form" ~ "formation", "employ" ~ "employer", "locate" ~ "location") is
  ``related``: the shorter word plus a deriving ending, or a long shared start.

Meaning beyond that ("wrote" ~ "author", "pass away" ~ "death") is the embedder's job
(``linking.properties``: word-level MiniLM similarity). Words of other languages pass
through (lemminflect knows English only); ``stem`` trims a plural or verb ending last.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from linking.lexicon import en as _en
from linking.lexicon import stem

#: derivations no ending rule reaches (``linking.lexicon.en``)
SUPPLETIVE = _en.SUPPLETIVE

#: lemma readings tried in this order (the verb first: "spoke" is "speak", not a wheel's)
_READINGS = ("VERB", "NOUN", "ADJ", "ADV", "PROPN")

#: endings that derive one English word from another (``linking.lexicon.en``)
DERIVING = _en.DERIVING_ENDINGS


@functools.lru_cache(maxsize=1)
def _lemmatizer() -> Callable[[str], dict[str, tuple[str, ...]]] | None:
    try:
        import lemminflect
    except ImportError:               # a dependency; without it, stems only
        return None
    return lemminflect.getAllLemmas


@functools.lru_cache(maxsize=131072)
def lemma(word: str) -> str:
    """The dictionary form of an English word ("wrote" → "write"); other words as they
    are."""
    if word in SUPPLETIVE:
        return SUPPLETIVE[word]
    get = _lemmatizer()
    if get is None or not word.isalpha():
        return word
    found = get(word)
    for reading in _READINGS:
        if found.get(reading):
            out = found[reading][0].lower()
            return SUPPLETIVE.get(out, out)
    return word


@functools.lru_cache(maxsize=16384)
def readings(word: str) -> frozenset[str]:
    """The parts of speech an English word can be ("part" → NOUN, VERB, ADJ, ADV; "made" →
    VERB); without the lemmatizer, or for a word it does not know, NOUN (a name)."""
    get = _lemmatizer()
    if get is None or not word.isalpha():
        return frozenset({"NOUN"})
    return frozenset(get(word)) or frozenset({"NOUN"})


@functools.lru_cache(maxsize=16384)
def english(word: str) -> bool:
    """Whether English (the lemmatizer's lexicon) knows ``word`` in some form; without
    the lemmatizer, every word."""
    get = _lemmatizer()
    return get is None or not word.isalpha() or bool(get(word))


@functools.lru_cache(maxsize=131072)
def word_form(word: str) -> str:
    """The form a word is compared in: lemmatized, then lightly stemmed."""
    return stem(lemma(word))


@functools.lru_cache(maxsize=262144)
def related(a: str, b: str) -> bool:
    """Derived forms of one word: "formation" ~ "form", "employer" ~ "employ", "located" ~
    "location" (the shorter plus a deriving ending, or a shared start of at least five
    letters between words of six or more)."""
    if a == b:
        return True
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    if len(short) < 3:
        return False
    if long_.startswith(short) and long_[len(short):] in DERIVING:
        return True
    if short.endswith("e") and long_.startswith(short[:-1]) and \
            long_[len(short) - 1:] in DERIVING:
        return True                   # "locate" ~ "locator", "produce" ~ "producer"
    if len(short) < 5:
        return False
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n >= 5 and len(long_) >= 6
