"""A streaming N-Triples line parser, fast on Wikidata's dumps.

``parse_line`` turns one line into a ``Triple``: subject and predicate are IRIs (or
``_:label`` blank nodes); the object is either ``iri`` (an IRI or ``_:label``) or a literal
``lexical`` form with ``lang`` or ``datatype``. It checks the N-Triples grammar's shape
(terms, separators, the final ``.``), that IRIs hold no character IRIs cannot hold (also
once unescaped) and that escapes name Unicode characters (no lone surrogates), and raises
``ValueError`` with a reason on anything else; the loader turns that into file:line
errors. Whether an IRI is absolute the caller checks (``is_absolute``).
"""

from __future__ import annotations

import re

from store.validity import is_absolute, iri_problem

__all__ = ["Triple", "is_absolute", "parse_line", "unescape"]

#: (subject, predicate, iri, lexical, lang, datatype): exactly one of iri/lexical is not
#: None; lang and datatype are None when absent — the shape of the fast regex's groups
Triple = tuple[str, str, "str | None", "str | None", "str | None", "str | None"]


_ESCAPE = re.compile(r"\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))")
_SIMPLE_ESCAPES = {"t": "\t", "b": "\b", "n": "\n", "r": "\r", "f": "\f",
                   '"': '"', "'": "'", "\\": "\\"}
_BNODE = re.compile(r"_:[\w-]+(?:\.[\w-]+)*")
_LANG = re.compile(r"[A-Za-z]+(?:-[A-Za-z0-9]+)*\Z")


def _unescape_match(m: re.Match) -> str:
    if m.group(3) is not None:
        try:
            return _SIMPLE_ESCAPES[m.group(3)]
        except KeyError:
            raise ValueError(f"unknown escape \\{m.group(3)}") from None
    code = int(m.group(1) or m.group(2), 16)
    if 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:
        raise ValueError(f"escape {m.group()} is not a Unicode character"
                         + (" (a lone surrogate)" if code <= 0xDFFF else ""))
    return chr(code)


def unescape(text: str) -> str:
    return _ESCAPE.sub(_unescape_match, text) if "\\" in text else text


def _node(line: str, start: int, what: str) -> tuple[str, int]:
    """Parse an IRI or blank node at ``start``; return it and the index after it."""
    if line.startswith("<", start):
        end = line.find(">", start + 1)
        if end < 0:
            raise ValueError(f"{what}: IRI opened with '<' is not closed with '>'")
        iri = line[start + 1:end]
        if " " in iri or not iri:
            raise ValueError(f"{what}: IRI <{iri}> is empty or contains a space")
        return _checked_iri(unescape(iri), what), end + 1
    if line.startswith("_:", start):
        m = _BNODE.match(line, start)
        if m is None or m.end() == len(line) or line[m.end()] not in " \t":
            raise ValueError(f"{what}: a blank node label is letters, digits, '_', '-' and "
                             "inner '.', followed by a space")
        return m.group(), m.end()
    found = line[start:start + 20]
    raise ValueError(f"{what}: expected <IRI> or _:blank, found {found!r}")


def _checked_iri(iri: str, what: str) -> str:
    problem = iri_problem(iri)
    if problem is not None:
        raise ValueError(f"{what}: {problem}")
    return iri


# One regex for the lines Wikidata's dumps are made of (IRIs without escapes or characters
# IRIs cannot hold, plain/lang/typed literals without escapes): a single C-level match
# instead of a dozen Python string operations. Everything else takes the slow path, which
# unescapes and checks each IRI. That an IRI is absolute (has a scheme) is left to the
# caller, which sees each subject and predicate once (checking it here made the match 14 %
# slower).
_I = r'([^\x00-\x20<>"{}|^`\\]+)'
_FAST = re.compile(rf'<{_I}> <{_I}> (?:<{_I}>|"([^"\\]*)"'
                   rf'(?:@([a-zA-Z]+(?:-[a-zA-Z0-9]+)*)|\^\^<{_I}>)?) \.\s*\Z')


def parse_line(line: str) -> Triple:
    """Parse one N-Triples line (its newline may be left on)."""
    m = _FAST.match(line)
    if m is not None:
        # the six groups (subject and predicate always set) are a Triple; a cast would
        # cost a call per line
        return m.groups()  # type: ignore[return-value]
    return _parse_slow(line.rstrip("\r\n"))


def _skip_space(line: str, i: int, after: str) -> int:
    """The index past the whitespace at ``i``, of which there must be some."""
    j = i
    while line[j:j + 1] in (" ", "\t"):
        j += 1
    if j == i:
        raise ValueError(f"expected a space after the {after}")
    return j


def _parse_slow(line: str) -> Triple:
    line = line.lstrip(" \t")
    subject, i = _node(line, 0, "subject")
    predicate, i = _node(line, _skip_space(line, i, "subject"), "predicate")
    if predicate.startswith("_:"):
        raise ValueError("predicate must be an IRI, not a blank node")
    rest = line[_skip_space(line, i, "predicate"):].rstrip()
    if not rest.endswith("."):
        raise ValueError("line does not end with ' .'")
    rest = rest[:-1].rstrip()
    if rest.startswith('"'):
        close = rest.rfind('"')
        if close == 0:
            raise ValueError("literal opened with '\"' is not closed")
        lexical, suffix = rest[1:close], rest[close + 1:]
        lang = datatype = None
        if suffix.startswith("@"):
            lang = suffix[1:]
            if not _LANG.match(lang):
                raise ValueError(f"bad language tag {suffix!r}")
        elif suffix.startswith("^^<") and suffix.endswith(">"):
            datatype = _checked_iri(unescape(suffix[3:-1]), "datatype")
        elif suffix:
            raise ValueError(f"unexpected {suffix[:20]!r} after the literal")
        return subject, predicate, None, unescape(lexical), lang, datatype
    obj, end = _node(rest + " ", 0, "object")
    if rest[end:].strip():
        raise ValueError(f"unexpected {rest[end:end + 20]!r} after the object")
    return subject, predicate, obj, None, None, None
