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
_DIACRITICS = re.compile("[\u0300-\u036f]+")
# ASCII text goes through bytes.translate, a 256-byte table in C (str.translate with
# deletions looks every character up in a dict: three times slower)
_ASCII_DROPPED = b"'."
_PUNCT = string.punctuation.encode()
_ASCII_PUNCT = bytes.maketrans(_PUNCT, b" " * len(_PUNCT))
_CONTROLS = bytes(range(32)) + b"\x7f"
#: what ``_SEPARATORS`` does to ASCII: controls become spaces too
_ASCII_SEPARATORS = bytes.maketrans(_PUNCT + _CONTROLS, b" " * (len(_PUNCT) + len(_CONTROLS)))


class _Separators(dict):
    """Translate table: punctuation, symbols, separators and controls → space, apostrophes
    and periods → nothing, everything else → itself. Filled as characters are met: the
    whole table costs 10 ms to build, a cost every load and search would pay up front."""

    def __missing__(self, cp: int) -> str | int | None:
        out: str | int | None
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
        ascii_text = text.encode().lower().translate(_ASCII_PUNCT, _ASCII_DROPPED)
        return " ".join(ascii_text.decode().split())
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    stripped = _DIACRITICS.sub("", decomposed)
    if stripped.isascii():  # Latin letters that had diacritics
        ascii_text = stripped.encode().translate(_ASCII_SEPARATORS, _ASCII_DROPPED)
        return " ".join(ascii_text.decode().split())
    return " ".join(stripped.translate(_SEPARATORS).split())
