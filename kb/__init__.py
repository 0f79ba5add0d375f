"""kgground's knowledge-base layer: shared data types, the KnowledgeBase protocol, and the
adapters. ``kb.open(location)`` is the front door::

    import kb
    mirror = kb.open("mirror.sqlite")             # a local mirror (MirrorKB)
    mine = kb.open("my-graph.ttl")                # any RDF file rdflib reads (RdfGraphKB)
    mirror.statements("Q42", "P69")
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kb.base import KnowledgeBase
from kb.errors import MirrorError
from kb.types import (Candidate, Citation, Entity, PropertyInfo, Reference, Snak,
                      SparqlResult, Statement, Value)

__all__ = ["Candidate", "Citation", "Entity", "KnowledgeBase", "PropertyInfo", "Reference",
           "Snak", "SparqlResult", "Statement", "Value", "open"]

_DB_SCHEMES = ("sqlite", "postgresql", "postgres", "mysql", "mariadb")
_RDF_SUFFIXES = {".ttl", ".turtle", ".nt", ".n3", ".rdf", ".xml", ".owl", ".jsonld", ".nq",
                 ".trig"}


def _is_sqlite_file(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


def open(location: str | Path, **options: Any) -> KnowledgeBase:  # noqa: A001 - the front door
    """The right KnowledgeBase for ``location``:

    - a mirror file (SQLite) or a database URL (``postgresql://…``) → ``MirrorKB``;
    - an RDF file (``.ttl``, ``.nt``, ``.rdf``, ``.jsonld``, … , also ``.gz``) → ``RdfGraphKB``
      (held in memory; for big files build a mirror with ``kgground mirror load``).

    ``options`` go to the adapter. Raises MirrorError when nothing usable is there.
    """
    from kb.mirror import MirrorKB
    from kb.rdfgraph import RdfGraphKB

    text = str(location)
    scheme = text.split("://", 1)[0].split("+", 1)[0].lower() if "://" in text else ""
    if scheme in _DB_SCHEMES:
        return MirrorKB(text, **options)
    path = Path(text).expanduser()
    suffixes = [s.lower() for s in path.suffixes if s.lower() not in (".gz", ".bz2", ".xz")]
    if path.is_file() and _is_sqlite_file(path):
        return MirrorKB(path, **options)
    if suffixes and suffixes[-1] in _RDF_SUFFIXES and path.is_file():
        return RdfGraphKB(path, **options)
    if not path.exists():
        raise MirrorError(f"nothing at {text}",
                          expected="a mirror file, a database URL, or an RDF file",
                          fix="check the path, or build a mirror: kgground mirror load FILE "
                              f"--db {text}")
    raise MirrorError(f"{text} is neither a kgground mirror nor an RDF file kgground reads",
                      expected="a SQLite mirror, or RDF (" + ", ".join(sorted(_RDF_SUFFIXES))
                      + ")", fix="build a mirror from it with: kgground mirror load FILE")


