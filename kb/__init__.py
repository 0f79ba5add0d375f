"""kgground's knowledge-base layer: shared data types, the KnowledgeBase protocol, and the
adapters. ``kb.open(location)`` is the front door::

    import kb
    mirror = kb.open("mirror.sqlite")             # a local mirror (MirrorKB)
    mine = kb.open("my-graph.ttl")                # any RDF file rdflib reads (RdfGraphKB)
    wd = kb.open("https://query.wikidata.org/sparql")   # a live endpoint (SparqlEndpointKB)
    wd = kb.open("wikidata")                      # the same, by its alias (ENDPOINT_ALIASES)
    both = kb.open("mirror.sqlite", live="wikidata")    # a mirror with a live fallback
    mirror.statements("Q42", "P69")
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from kb.base import KnowledgeBase
from kb.errors import MirrorError
from kb.types import (Candidate, Citation, Entity, PropertyInfo, Reference, Snak,
                      SparqlResult, Statement, Value)

if TYPE_CHECKING:
    from kb.sparql_http import EndpointLimits

__all__ = ["ENDPOINT_ALIASES", "Candidate", "Citation", "Entity", "KnowledgeBase",
           "PropertyInfo", "Reference", "Snak", "SparqlResult", "Statement", "Value",
           "endpoint_alias", "open"]

#: short names for well-known SPARQL endpoints, accepted wherever an endpoint URL is
ENDPOINT_ALIASES = {"wikidata": "https://query.wikidata.org/sparql",
                    "wdqs": "https://query.wikidata.org/sparql"}

_DB_SCHEMES = ("sqlite", "postgresql", "postgres", "mysql", "mariadb")
_RDF_SUFFIXES = {".ttl", ".turtle", ".nt", ".n3", ".rdf", ".xml", ".owl", ".jsonld", ".nq",
                 ".trig"}


def endpoint_alias(name: str) -> str | None:
    """The endpoint URL an alias names ("wikidata", any case, spaces around), else None."""
    return ENDPOINT_ALIASES.get(name.strip().lower())


def _is_sqlite_file(path: Path) -> bool:
    try:
        with path.open("rb") as f:
            return f.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


def open(location: str | Path, *, live: Any = None, offline: bool = False,  # noqa: A001
         limits: EndpointLimits | None = None, **options: Any) -> KnowledgeBase:
    """The right KnowledgeBase for ``location``:

    - a mirror file (SQLite) or a database URL (``postgresql://…``) → ``MirrorKB``;
    - an RDF file (``.ttl``, ``.nt``, ``.rdf``, ``.jsonld``, … , also ``.gz``) → ``RdfGraphKB``
      (held in memory; for big files build a mirror with ``kgground mirror load``);
    - an ``http(s)://`` SPARQL endpoint URL, or an alias of one (``ENDPOINT_ALIASES``:
      "wikidata") that is not also a file here → ``SparqlEndpointKB``.

    ``live`` (an endpoint URL or alias, or a ``SparqlEndpointKB``) puts a live endpoint behind a
    mirror: the result is a ``FallbackKB``, which asks the endpoint on a miss and writes
    its answers back into the mirror; ``offline=True`` keeps the live side off.
    ``limits`` (``kb.sparql_http.EndpointLimits``) caps the endpoint opened here, shared
    with the other clients given it (without: a cap of its own).
    ``options`` go to the adapter of ``location``. Raises MirrorError when nothing usable
    is there.
    """
    text = str(location)
    url = endpoint_alias(text)
    if url and not Path(text).exists():
        text = url
    if text.lower().startswith(("http://", "https://")):
        from kb.endpoint import SparqlEndpointKB
        if live is not None:
            raise ValueError("live= puts an endpoint behind a mirror; the location is "
                             "already an endpoint")
        return SparqlEndpointKB(text, limits=limits, **options)
    base = _open_local(text, **options)
    if live is None:
        return base
    from kb.endpoint import SparqlEndpointKB
    from kb.fallback import FallbackKB
    from kb.mirror import MirrorKB
    if not isinstance(base, MirrorKB):
        raise MirrorError(f"{text} is not a mirror, and a live fallback writes into one",
                          fix=f"build a mirror from it (kgground mirror load {text} --db "
                              "MIRROR) and open that with live=")
    endpoint = live if isinstance(live, SparqlEndpointKB) else \
        SparqlEndpointKB(endpoint_alias(str(live)) or str(live), limits=limits)
    return FallbackKB(base, endpoint, offline=offline)


def _open_local(text: str, **options: Any) -> KnowledgeBase:
    from kb.mirror import MirrorKB

    scheme = text.split("://", 1)[0].split("+", 1)[0].lower() if "://" in text else ""
    if scheme in _DB_SCHEMES:
        return MirrorKB(text, **options)
    path = Path(text).expanduser()
    suffixes = [s.lower() for s in path.suffixes if s.lower() not in (".gz", ".bz2", ".xz")]
    if path.is_file() and _is_sqlite_file(path):
        return MirrorKB(path, **options)
    if suffixes and suffixes[-1] in _RDF_SUFFIXES and path.is_file():
        from kb.rdfgraph import RdfGraphKB
        return RdfGraphKB(path, **options)
    if not path.exists():
        raise MirrorError(f"nothing at {text}",
                          expected="a mirror file, a database URL, or an RDF file",
                          fix="check the path, or build a mirror: kgground mirror load FILE "
                              f"--db {text}")
    raise MirrorError(f"{text} is neither a kgground mirror nor an RDF file kgground reads",
                      expected="a SQLite mirror, or RDF (" + ", ".join(sorted(_RDF_SUFFIXES))
                      + ")", fix="build a mirror from it with: kgground mirror load FILE")


