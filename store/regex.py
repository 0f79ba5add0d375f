"""SPARQL's REGEX and REPLACE on RE2: matching takes time linear in the text, whatever the
pattern.

A backtracking engine (Python's ``re``) takes exponential time on patterns like
``^(.+)+Z$``; run as an SQL function it also holds the GIL, so one such FILTER froze a
whole server. RE2 (``google-re2``) has no such patterns, and lets go of the GIL while it
matches. What it gives up — backreferences and lookaround, which XPath's regular
expressions (SPARQL's) mostly lack anyway — is refused with a message saying so.

Flags as XPath defines them: ``i`` (case-insensitive), ``s`` (``.`` matches newlines),
``m`` (``^``/``$`` at line ends), ``x`` (whitespace in the pattern ignored, outside
character classes), ``q`` (the pattern is a plain string).
"""

from __future__ import annotations

import functools
import re
from typing import Any

import re2

from store.errors import QuerySyntaxError

FLAGS = frozenset("ismxq")
#: memory RE2 may use per pattern (its default, 8 MiB, is kept: patterns over it fail to
#: compile, with a message, rather than grow)
MAX_MEM = 8 << 20
_GROUP_REF = re.compile(r"\$(\d+)|\\(.)")


def _options(flags: str) -> Any:
    opts = re2.Options()
    opts.log_errors = False                 # RE2 would print each bad pattern to stderr
    opts.max_mem = MAX_MEM
    opts.case_sensitive = "i" not in flags
    opts.dot_nl = "s" in flags
    opts.literal = "q" in flags
    return opts


def _strip_whitespace(pattern: str) -> str:
    """XPath's ``x`` flag: whitespace is dropped, except inside character classes."""
    out, in_class, escaped = [], False, False
    for ch in pattern:
        if escaped:
            out.append(ch)
            escaped = False
        elif ch == "\\":
            out.append(ch)
            escaped = True
        elif in_class:
            out.append(ch)
            in_class = ch != "]"
        elif ch == "[":
            out.append(ch)
            in_class = True
        elif not ch.isspace():
            out.append(ch)
    return "".join(out)


@functools.lru_cache(maxsize=512)
def compile_regex(pattern: str, flags: str = "") -> Any:
    """The RE2 program of a SPARQL pattern and flags; QuerySyntaxError (a user's error: HTTP
    400 from the server) when the flags are unknown or the pattern is not one RE2 runs."""
    unknown = sorted(set(flags) - FLAGS)
    if unknown:
        raise QuerySyntaxError(f"REGEX flag {unknown[0]!r} is not one SPARQL knows",
                               expected="flags among i, s, m, x, q",
                               fix="remove the flag")
    if "x" in flags and "q" not in flags:
        pattern = _strip_whitespace(pattern)
    if "m" in flags and "q" not in flags:
        pattern = "(?m)" + pattern
    try:
        return re2.compile(pattern, options=_options(flags))
    except re2.error as exc:
        why = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(
            exc.args[0], bytes) else str(exc)
        hint = ("backreferences and lookaround are not supported (the engine runs in linear "
                "time)" if re.search(r"\\[1-9]|\(\?[=!<]", pattern) else
                "write it as an XPath/SPARQL regular expression")
        raise QuerySyntaxError(f"the REGEX pattern {pattern[:200]!r} is not valid: {why}",
                               fix=hint) from None


def regex_search(text: str, pattern: str, flags: str = "") -> bool:
    """Whether ``pattern`` matches somewhere in ``text`` (SPARQL REGEX)."""
    return compile_regex(pattern, flags).search(text) is not None


def regex_replace(text: str, pattern: str, replacement: str, flags: str = "") -> str:
    """SPARQL REPLACE: every match of ``pattern`` in ``text`` replaced; ``$1`` in the
    replacement is the first group, ``\\$`` a dollar sign."""
    program = compile_regex(pattern, flags)

    def expand(m: Any) -> str:
        def group(ref: re.Match) -> str:
            if ref.group(1) is not None:
                return m.group(int(ref.group(1))) or ""
            return ref.group(2)
        return _GROUP_REF.sub(group, replacement)
    return program.sub(expand, text)


#: characters XPath's regular expressions give a meaning (the rest match themselves)
_META = set("\\|.-^?*+{}()[]$")
_QUANTIFIER = re.compile(r"\{(\d+)(,(\d*))?\}")


@functools.lru_cache(maxsize=512)
def postgres_regex(pattern: str, flags: str = "") -> tuple[str | None, str]:
    """(PostgreSQL's ARE pattern that finds exactly what ``pattern`` with ``flags`` finds,
    or None, and why not). Only the part of XPath's syntax both engines read alike is
    translated: literal characters and escaped metacharacters, ``^ $ . | ( )``, the
    quantifiers (counts up to 255, PostgreSQL's bound), character classes of literal
    characters and ranges; flags ``i``, ``s``, ``q``. ``.`` stops at a newline unless
    ``s`` (PostgreSQL's matches it). Class escapes (``\\d \\w \\s \\p{..}``) are left out:
    PostgreSQL reads them by the server's locale, XPath by Unicode."""
    if set(flags) - set("isq"):
        return None, f"with the flag(s) {''.join(sorted(set(flags) - set('isq')))!r}"
    if "q" in flags:
        return "".join("\\" + c if c in _META else c for c in pattern), ""
    out, i, n = [], 0, len(pattern)
    while i < n:
        piece, i, why = _translate_piece(pattern, i, flags)
        if piece is None:
            return None, why
        out.append(piece)
    return "".join(out), ""


#: (the translated piece or None, where the next piece starts, why not when None)
_Piece = tuple[str | None, int, str]


def _translate_piece(pattern: str, i: int, flags: str) -> _Piece:
    """The translation of the piece of ``pattern`` that starts at ``i``: an escape, ``.``,
    a character class, a count, a group's opening, or one literal character (see
    ``postgres_regex``)."""
    c = pattern[i]
    if c == "\\":
        return _translate_escape(pattern, i)
    if c == ".":
        return ("." if "s" in flags else "[^\\n]"), i + 1, ""
    if c == "[":
        return _translate_class(pattern, i)
    if c == "{":
        m = _QUANTIFIER.match(pattern, i)
        if m is None or max(int(m[1]), int(m[3] or 0)) > 255:
            return None, i, "with a count PostgreSQL does not take"
        return m.group(), m.end(), ""
    if c == "(":
        if pattern[i + 1:i + 2] == "?":
            return None, i, "with a (? group"
        return c, i + 1, ""
    if c in "]}":
        return None, i, f"with an unmatched {c!r}"
    return c, i + 1, ""


def _translate_escape(pattern: str, i: int) -> _Piece:
    """An escaped metacharacter, newline, tab or return; no class escape (``\\d``…)."""
    nxt = pattern[i + 1:i + 2]
    if nxt in _META and nxt:
        return "\\" + nxt, i + 2, ""
    if nxt in ("n", "t", "r"):
        return "\\" + nxt, i + 2, ""
    return None, i, f"with the escape \\{nxt} (PostgreSQL reads it by its locale)"


def _translate_class(pattern: str, i: int) -> _Piece:
    """A character class of literal characters and ranges, as it is."""
    end = pattern.find("]", i + 1)
    body = pattern[i + 1:end] if end > 0 else ""
    inner = body[1:] if body.startswith("^") else body
    if end < 0 or not inner or any(ch in "\\[" for ch in body):
        return None, i, "with a character class PostgreSQL may read otherwise"
    return pattern[i:end + 1], end + 1, ""
