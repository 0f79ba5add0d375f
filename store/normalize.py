"""Normalization of labels and queries for the label index.

``normalize("  Élysée-Palace ")`` → ``"elysee palace"``: case folded, Latin/Greek/Cyrillic
diacritics removed, punctuation and symbols turned into spaces, whitespace collapsed.
Other scripts keep their letters and marks (Devanagari vowel signs are part of a word).
"""

from __future__ import annotations

import functools
import re
import string
import sys
import unicodedata

_ASCII_PUNCT = str.maketrans({c: " " for c in string.punctuation})
_DIACRITICS = re.compile("[\u0300-\u036f]+")


@functools.cache
def _separators() -> dict[int, str]:
    """Translate table: every BMP punctuation, symbol, separator or control → space."""
    return {cp: " " for cp in range(min(sys.maxunicode, 0xFFFF) + 1)
            if unicodedata.category(chr(cp))[0] in "PSZC"}


def normalize(text: str) -> str:
    """The label-index key of ``text`` (idempotent: normalize(normalize(x)) == normalize(x))."""
    if text.isascii():  # the common case, kept on C string methods only
        return " ".join(text.lower().translate(_ASCII_PUNCT).split())
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    stripped = _DIACRITICS.sub("", decomposed)
    return " ".join(stripped.translate(_separators()).split())
