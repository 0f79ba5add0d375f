"""The mirror's schema, in SQLAlchemy Core so that it stays portable (SQLite by default,
PostgreSQL by URL).

Entities and properties are keyed by their Wikidata short IDs (``Q42``, ``P31``) or, for a
user's own KB, by full IRIs. A value is stored in its RDF lexical form (an entity ID for
entity values) with kind, language and datatype beside it, and the full Wikibase datavalue,
where the source had one, as JSON in ``details``.
"""

from __future__ import annotations

from sqlalchemy import Column, Index, Integer, MetaData, String, Table, Text, text

SCHEMA_VERSION = "3"

metadata = MetaData()

#: key/value facts about the mirror itself (schema version, label-index high-water mark)
meta = Table(
    "meta", metadata,
    Column("key", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)

#: one row per loaded input: where it came from, how far loading got, what it held
sources = Table(
    "sources", metadata,
    Column("id", Integer, primary_key=True),
    Column("location", Text, nullable=False),      # path or endpoint URL
    Column("format", String(32), nullable=False),  # wikidata-json | ntriples | rdf | live
    Column("fingerprint", String(80), nullable=False),
    Column("dump_date", String(32)),
    Column("loaded_at", String(32), nullable=False),
    Column("finished_at", String(32)),
    Column("status", String(16), nullable=False),  # loading | complete
    Column("position", Integer, nullable=False, server_default="0"),  # records committed
    Column("counts", Text),                         # JSON summary
)

#: kinds: item | property | lexeme | form | sense | resource (a custom KB's IRI)
entities = Table(
    "entities", metadata,
    Column("id", String(255), primary_key=True),
    Column("kind", String(16), nullable=False),
    Column("datatype", String(32)),                 # properties only: wikibase-item, time, ...
    Column("sitelinks", Integer, nullable=False, server_default="0"),
    Column("degree", Integer, nullable=False, server_default="0"),
    Column("revision", Integer),
    Column("modified", String(32)),
    Column("source_id", Integer),
    # clustered by ID: a lookup (every search candidate's prior) is one B-tree seek, not an
    # index seek and then a row fetch
    sqlite_with_rowid=False,
)

#: labels (kind 0), descriptions (1) and aliases (2) per language; ``norm`` is the
#: normalized text behind the label index (NULL for descriptions)
terms = Table(
    "terms", metadata,
    Column("id", Integer, primary_key=True),
    Column("entity", String(255), nullable=False),
    Column("kind", Integer, nullable=False),
    Column("lang", String(32), nullable=False),
    Column("text", Text, nullable=False),
    Column("norm", Text),
    Column("source_id", Integer),
    Index("uq_terms", "entity", "kind", "lang", "text", unique=True),
    # (norm, entity) and the row id: a prefix search reads only this index
    Index("ix_terms_norm", "norm", "entity"),
)

#: value kinds: entity | literal | iri | somevalue | novalue.
#: rank: 0 deprecated, 1 normal, 2 preferred. truthy: best non-deprecated rank of its
#: (subject, property) group, as Wikidata's wdt: triples define it.
statements = Table(
    "statements", metadata,
    Column("id", Integer, primary_key=True),
    Column("sid", String(120), nullable=False, server_default=""),  # statement ID, or ''
    Column("subject", String(255), nullable=False),
    Column("property", String(255), nullable=False),
    Column("rank", Integer, nullable=False, server_default="1"),
    Column("truthy", Integer, nullable=False, server_default="1"),
    Column("value_kind", String(12), nullable=False),
    Column("value", Text, nullable=False),
    Column("lang", String(32), nullable=False, server_default=""),
    Column("datatype", Text, nullable=False, server_default=""),
    Column("details", Text),
    Column("source_id", Integer),
    # Serves (subject[, property]) lookups and makes a truthy triple (sid '') unique.
    Index("uq_statements_spv", "subject", "property", "value", "lang", "datatype", "sid",
          unique=True),
    Index("ix_statements_pv", "property", "value"),
    Index("ix_statements_v", "value"),
    Index("uq_statements_sid", "sid", unique=True,
          sqlite_where=text("sid != ''"), postgresql_where=text("sid != ''")),
)

#: a statement's qualifiers in order; clustered by statement (no rowid: rows are looked up
#: by statement only, and a separate key index would be written for nothing)
qualifiers = Table(
    "qualifiers", metadata,
    Column("statement_id", Integer, primary_key=True),
    Column("ord", Integer, primary_key=True),
    Column("property", String(255), nullable=False),
    Column("value_kind", String(12), nullable=False),
    Column("value", Text, nullable=False),
    Column("lang", String(32), nullable=False, server_default=""),
    Column("datatype", Text, nullable=False, server_default=""),
    Column("details", Text),
    Index("ix_qualifiers_pv", "property", "value"),
    sqlite_with_rowid=False,
)

#: one row per reference of a statement, naming its snaks by hash
references = Table(
    "statement_references", metadata,
    Column("statement_id", Integer, primary_key=True),
    Column("ord", Integer, primary_key=True),
    Column("hash", String(64), nullable=False),
    sqlite_with_rowid=False,
)

#: a reference's snaks as JSON (``{"P248": [snak, ...]}`` as Wikidata spells them), keyed by
#: the hash Wikibase derives from them: stored once however many statements cite it (in
#: real dumps a reference recurs on five statements on average). Rows are never deleted
#: with their statements: another statement may cite the same reference later. A rowid
#: table: rows average ~450 bytes, too long to cluster by hash (inserting them in hash
#: order took twice as long as appending them and indexing the hash).
reference_snaks = Table(
    "reference_snaks", metadata,
    Column("hash", String(64), primary_key=True),
    Column("snaks", Text, nullable=False),
)
