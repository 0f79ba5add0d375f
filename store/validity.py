"""What may be stored in a mirror: RDF 1.1 IRIs, language tags, texts of bounded size.

Loaders and the live write-back check values here before they reach the database, so that
nothing a result format cannot write back out (an IRI with a space or a ``>`` in it, a
lone surrogate) is ever stored. Each check returns ``None`` when the value is fine and
else one sentence saying what is wrong with it, for file:line reports and logs.
"""

from __future__ import annotations

import re

#: characters RDF 1.1 IRIs cannot hold (N-Triples' IRIREF excludes them, also escaped)
_NOT_IN_IRI = re.compile(r'[\x00-\x20<>"{}|^`\\]')
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_LANG = re.compile(r"[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*\Z")
_SURROGATE = re.compile("[\ud800-\udfff]")

#: longest IRI kept (Wikidata's URLs are at most 500 characters)
MAX_IRI = 4096
#: longest label, description or alias from a live endpoint (Wikidata allows 250)
MAX_TERM = 1000
#: longest literal value from a live endpoint (Wikidata's strings are at most 1,500)
MAX_LITERAL = 10_000
#: schemes an entity IRI from a live endpoint may have (never javascript:, data:, file:)
ENTITY_SCHEMES = ("http", "https", "urn")


def is_absolute(iri: str) -> bool:
    """Whether ``iri`` starts with a scheme (``http:``, ``urn:``, …)."""
    return _SCHEME.match(iri) is not None


def iri_problem(iri: str) -> str | None:
    """Why ``iri`` is not an absolute RDF 1.1 IRI (after unescaping), or None."""
    if not isinstance(iri, str) or not iri:
        return "an IRI must not be empty"
    bad = _NOT_IN_IRI.search(iri)
    if bad is not None:
        return f"IRI <{iri[:80]}> holds {bad.group()!r}, which IRIs cannot contain"
    if _SCHEME.match(iri) is None:
        return f"IRI <{iri[:80]}> is not absolute (no scheme such as http:)"
    if len(iri) > MAX_IRI:
        return f"IRI is {len(iri):,} characters long (at most {MAX_IRI:,})"
    return text_problem(iri)


def text_problem(text: str, limit: int | None = None) -> str | None:
    """Why ``text`` cannot be stored (a lone surrogate, a NUL; longer than ``limit``), or
    None."""
    if not isinstance(text, str):
        return f"expected text, got {type(text).__name__}"
    if _SURROGATE.search(text) is not None:
        return "the text holds a lone surrogate (not a Unicode character)"
    if "\x00" in text:
        return "the text holds a NUL character (U+0000), which kgground does not store"
    if limit is not None and len(text) > limit:
        return f"the text is {len(text):,} characters long (at most {limit:,})"
    return None


def lang_problem(lang: str) -> str | None:
    """Why ``lang`` is not a language tag (BCP 47 shape), or None; '' (none) is fine."""
    if lang == "":
        return None
    if not isinstance(lang, str) or _LANG.match(lang) is None:
        return f"{str(lang)[:40]!r} is not a language tag"
    return None


def entity_iri_problem(iri: str) -> str | None:
    """``iri_problem``, and an entity's IRI must be http(s) or urn."""
    problem = iri_problem(iri)
    if problem is None and iri.split(":", 1)[0].lower() not in ENTITY_SCHEMES:
        return f"IRI <{iri[:80]}> has a scheme entities do not have here"
    return problem
