"""Normalization of labels and queries for the label index.

``normalize("  Élysée-Palace ")`` → ``"elysee palace"``: case folded, Latin/Greek/Cyrillic
diacritics removed, apostrophes and periods dropped (``St. John's`` → ``st johns``, ``U.S.``
→ ``us``), other punctuation and symbols turned into spaces, whitespace collapsed.
Other scripts keep their letters and marks (Devanagari vowel signs are part of a word).
"""

from __future__ import annotations

import re
import string
import unicodedata

#: bump when ``normalize`` changes: mirrors store it and must be reindexed to match
NORMALIZER_VERSION = "2"

_DROPPED = "'.\u2019\u02bc"   # apostrophes (straight, curly, modifier) and periods
_ASCII_PUNCT = str.maketrans({c: "" if c in _DROPPED else " " for c in string.punctuation})
_DIACRITICS = re.compile("[\u0300-\u036f]+")


class _Separators(dict):
    """Translate table: punctuation, symbols, separators and controls → space, apostrophes
    and periods → nothing, everything else → itself. Filled as characters are met: the
    whole table costs 10 ms to build, a cost every load and search would pay up front."""

    def __missing__(self, cp: int) -> str | int | None:
        if chr(cp) in _DROPPED:
            out = None
        elif cp <= 0xFFFF and unicodedata.category(chr(cp))[0] in "PSZC":   # BMP only
            out = " "
        else:
            out = cp
        self[cp] = out
        return out


_SEPARATORS = _Separators()


def normalize(text: str) -> str:
    """The label-index key of ``text`` (idempotent: normalize(normalize(x)) == normalize(x))."""
    if text.isascii():  # the common case, kept on C string methods only
        return " ".join(text.lower().translate(_ASCII_PUNCT).split())
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    stripped = _DIACRITICS.sub("", decomposed)
    return " ".join(stripped.translate(_SEPARATORS).split())
