"""Opening a mirror: a SQLite file (the default) or a database URL, with the schema in place.

The SQLAlchemy engine owns the schema and the admin queries; hot paths (triplet lookups,
bulk inserts) go straight to the DB-API connection, where SQLAlchemy's per-call overhead
would cost more than the query itself.
"""

from __future__ import annotations

import functools
import itertools
import os
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, overload
from urllib.parse import quote

import sqlalchemy as sa

from store import schema
from store.errors import MirrorError
from store.limits import shielded
from store.normalize import NORMALIZER_VERSION, normalize
from store.vocab import DESCRIPTION, LABEL, PROPERTY_ID

MMAP_BYTES = 256 << 20

_SQLITE_PRAGMAS = (
    "PRAGMA journal_mode=WAL",        # readers never block the loader; commits are atomic
    "PRAGMA synchronous=NORMAL",      # WAL + NORMAL: durable at checkpoints, never corrupt
    "PRAGMA cache_size=-65536",       # 64 MiB page cache
    "PRAGMA temp_store=FILE",         # big sorts (index builds) spill to disk, not to RSS
    f"PRAGMA mmap_size={MMAP_BYTES}",  # reads map the file (the loader turns it off)
)


def _url_for(location: str | Path) -> tuple[str, Path | None]:
    text = str(location)
    if "://" in text:
        if text.startswith("sqlite:///"):
            return text, Path(text[len("sqlite:///"):])
        return text, None
    path = Path(text).expanduser()
    return f"sqlite:///{path}", path


def _writable(path: Path) -> bool:
    """Whether this process may write the mirror file and create files beside it (SQLite's
    write-ahead log and its index)."""
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)


def _read_only_url(path: Path) -> str:
    """A URL opening ``path`` read-only. Where the folder is not writable and no
    write-ahead log index exists, nothing can be writing the file (a writer would have
    made one), so it is opened as immutable: SQLite then needs no files beside it."""
    shm = Path(f"{path}-shm")
    immutable = not os.access(path.parent, os.W_OK) and not shm.exists()
    uri = f"file:{quote(str(path.resolve()))}?mode=ro" + ("&immutable=1" if immutable else "")
    return f"sqlite:///{uri}&uri=true"


class Mirror:
    """A local mirror database.

    ``Mirror(location)`` opens an existing mirror and raises MirrorError when there is none;
    ``Mirror(location, create=True)`` creates it (and its folder) when missing.
    ``location`` is a file path (SQLite) or a SQLAlchemy URL (``postgresql://…``, with
    ``pip install 'kgground[postgres]'``; SPARQL over such a mirror runs on rdflib's
    evaluator, and search has no word matches: both need SQLite).
    ``verified=True`` skips checking the schema, for a process that opens a mirror its
    parent has just opened (a load's worker processes).

    A mirror file this process may not write (or whose folder it may not write) is opened
    read-only (``read_only``): every read works, and writing raises a clear error.
    """

    def __init__(self, location: str | Path, *, create: bool = False,
                 verified: bool = False):
        self.url, self.path = _url_for(location)
        self.location = str(self.path) if self.path else self.url
        self.read_only = False
        if self.path is not None:
            if not self.path.exists():
                if not create:
                    raise MirrorError(
                        f"there is no mirror at {self.path}",
                        fix=f"build one with: kgground mirror load FILE --db {self.path}")
                try:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                except OSError as exc:
                    raise MirrorError(f"cannot create the folder of {self.path} "
                                      f"({exc.strerror})",
                                      fix="choose a mirror path in a folder you can "
                                          "write") from exc
                if not os.access(self.path.parent, os.W_OK):
                    raise MirrorError(f"cannot create {self.path}: its folder is not "
                                      "writable", fix="choose a mirror path in a folder "
                                                      "you can write")
            elif self.path.is_dir():
                raise MirrorError(f"{self.path} is a folder, not a mirror file",
                                  fix="pass the path of a .sqlite file")
            elif not _writable(self.path):
                self.read_only = True
                self.url = _read_only_url(self.path)
        try:
            self.engine = sa.create_engine(self.url)
        except ImportError as exc:     # the URL's database driver is not installed
            extra = "postgres" if self.url.startswith("postgres") else None
            raise MirrorError(
                f"{self.url.split(':', 1)[0]} mirrors need a database driver that is not "
                f"installed ({exc})",
                fix=(f"pip install 'kgground[{extra}]'" if extra else
                     "install the SQLAlchemy driver the URL names")) from exc
        except sa.exc.ArgumentError as exc:
            raise MirrorError(f"{location} is not a database URL SQLAlchemy knows ({exc})",
                              fix="pass a mirror file path, or a URL such as "
                                  "postgresql://user@host/dbname") from exc
        self.is_sqlite = self.engine.dialect.name == "sqlite"
        if self.is_sqlite:
            sa.event.listen(self.engine, "connect",
                            _set_read_pragmas if self.read_only else _set_pragmas)
        self._local = threading.local()
        self.stale_label_index = False
        if verified:
            return
        try:
            self._ensure_schema(create)
        except sa.exc.DatabaseError as exc:
            raise MirrorError(f"{self.location} is not a usable mirror ({exc.orig})",
                              fix="point --db at a mirror built by kgground, "
                                  "or at a new path to build one") from exc

    def _ensure_schema(self, create: bool) -> None:
        with self.engine.begin() as conn:
            has_meta = sa.inspect(conn).has_table("meta")
            if not has_meta:
                if not create and sa.inspect(conn).get_table_names():
                    raise MirrorError(f"{self.location} is a database, but not a kgground mirror",
                                      fix="use a new path for the mirror")
                if not create:       # an empty database (a file would not exist)
                    raise MirrorError(
                        f"there is no mirror in {self.location} (the database is empty)",
                        fix=f"build one with: kgground mirror load FILE --db {self.location}")
                schema.metadata.create_all(conn)
                conn.execute(schema.meta.insert(), [
                    {"key": "schema_version", "value": schema.SCHEMA_VERSION},
                    {"key": "normalizer", "value": NORMALIZER_VERSION},
                    {"key": "fts_upto", "value": "0"},
                    {"key": "indexed", "value": "1"},
                ])
                if self.is_sqlite:
                    conn.exec_driver_sql(
                        "CREATE VIRTUAL TABLE terms_fts USING fts5("
                        "norm, content='terms', content_rowid='id', tokenize='unicode61', "
                        "detail=none, columnsize=0)")
            version = conn.execute(sa.select(schema.meta.c.value).where(
                schema.meta.c.key == "schema_version")).scalar()
            if version != schema.SCHEMA_VERSION:
                raise MirrorError(f"{self.location} has mirror schema {version}",
                                  expected=f"schema {schema.SCHEMA_VERSION}",
                                  fix="rebuild the mirror from its source files")
            normalizer = conn.execute(sa.select(schema.meta.c.value).where(
                schema.meta.c.key == "normalizer")).scalar()
            self.stale_label_index = normalizer != NORMALIZER_VERSION

    def reindex_labels(self) -> int:
        """Recompute every label and alias's normalized key and rebuild the full-text label
        index, after ``store.normalize`` changed. Returns the number of terms reindexed."""
        rows = self.query(f"SELECT id, text FROM terms WHERE kind != {DESCRIPTION}")
        executemany(self, "UPDATE terms SET norm = ? WHERE id = ?",
                    [(normalize(text), tid) for tid, text in rows])
        if self.is_sqlite:
            self.query("INSERT INTO terms_fts (terms_fts) VALUES ('rebuild')")
        self.query("DELETE FROM meta WHERE key = 'normalizer'")
        self.query("INSERT INTO meta (key, value) VALUES ('normalizer', ?)",
                   (NORMALIZER_VERSION,))
        self.raw.commit()
        self.stale_label_index = False
        return len(rows)

    # -- the DB-API fast path ------------------------------------------------------------
    @property
    def raw(self) -> Any:
        """This thread's DB-API connection (kept open for the life of the Mirror)."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            with shielded():            # a query's deadline never interrupts the pool
                conn = self._local.conn = self.engine.raw_connection()
        return conn

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        """Run a read query written with ``?`` placeholders; return all rows."""
        if self.is_sqlite:             # straight to sqlite3, past the pool's cursor wrapper
            cur = self.raw.driver_connection.execute(sql, params)
            try:
                return cur.fetchall() if cur.description is not None else []
            finally:
                cur.close()
        sql = sql.replace("?", "%s")
        cur = self.raw.cursor()
        try:
            cur.execute(sql, params)
            return cur.fetchall() if cur.description is not None else []
        finally:
            cur.close()

    def change_token(self) -> tuple[int, int] | None:
        """A value that changes whenever the mirror's data may have changed, as this
        thread's connection sees it: SQLite's ``PRAGMA data_version`` (commits by any other
        connection) and the connection's own ``total_changes``. Tokens compare only within
        one thread. None for databases that cannot tell this cheaply (PostgreSQL): callers
        must then not cache what they read."""
        if not self.is_sqlite:
            return None
        conn = self.raw.driver_connection
        return conn.execute("PRAGMA data_version").fetchone()[0], conn.total_changes

    def release(self) -> None:
        """Close this thread's connection (threads that end call it)."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    @overload
    def get_meta(self, key: str) -> str | None: ...
    @overload
    def get_meta(self, key: str, default: str) -> str: ...      # (meta values are NOT NULL)

    def get_meta(self, key: str, default: str | None = None) -> str | None:
        rows = self.query("SELECT value FROM meta WHERE key = ?", (key,))
        return rows[0][0] if rows else default

    # -- summaries --------------------------------------------------------------------------
    def stats(self) -> dict[str, Any]:
        """Counts of entities (by kind), statements, terms (by kind), qualifiers, references,
        properties with a datatype, and the loaded sources."""
        q = self.query
        entity_kinds = dict(q("SELECT kind, COUNT(*) FROM entities GROUP BY kind"))
        term_kinds = {("label", "description", "alias")[k]: n
                      for k, n in q("SELECT kind, COUNT(*) FROM terms GROUP BY kind")}
        return {
            "mirror": self.location,
            "entities": sum(entity_kinds.values()),
            "entities_by_kind": entity_kinds,
            "statements": q("SELECT COUNT(*) FROM statements")[0][0],
            "qualifiers": q("SELECT COUNT(*) FROM qualifiers")[0][0],
            "references": q("SELECT COUNT(*) FROM statement_references")[0][0],
            "terms": sum(term_kinds.values()),
            "terms_by_kind": term_kinds,
            "languages": q("SELECT COUNT(DISTINCT lang) FROM terms")[0][0],
            "properties": q("SELECT COUNT(*) FROM entities WHERE kind = 'property'")[0][0],
            "properties_with_datatype":
                q("SELECT COUNT(*) FROM entities WHERE datatype IS NOT NULL")[0][0],
            "sources": self.sources(),
        }

    def used_properties(self) -> list[str]:
        """The distinct properties of the mirror's statements, in ID order (one index seek
        per property, however many statements there are)."""
        rows = self.query(
            "WITH RECURSIVE p(x) AS (SELECT MIN(property) FROM statements UNION ALL "
            "SELECT (SELECT MIN(property) FROM statements WHERE property > p.x) FROM p "
            "WHERE p.x IS NOT NULL) SELECT x FROM p WHERE x IS NOT NULL")
        return [x for (x,) in rows]

    def unnamed_properties(self) -> list[str]:
        """Wikidata properties (P-IDs) the mirror's statements use and it has no label for,
        in any language — what a dump without its property entities (a partial dump)
        leaves: listings then show the IDs, and questions cannot name them."""
        used = [p for p in self.used_properties() if PROPERTY_ID.match(p)]
        named: set[str] = set()
        for i in range(0, len(used), 500):
            chunk = used[i:i + 500]
            named.update(e for (e,) in self.query(
                f"SELECT DISTINCT entity FROM terms WHERE kind = {LABEL} AND entity IN "
                f"({', '.join('?' * len(chunk))})", tuple(chunk)))
        return [p for p in used if p not in named]

    def statement_counts(self, properties: Sequence[str]) -> dict[str, int]:
        """How many statements use each of ``properties``."""
        return {p: self.query("SELECT COUNT(*) FROM statements WHERE property = ?", (p,))[0][0]
                for p in properties}

    def sources(self) -> list[dict[str, Any]]:
        cols = ("id", "location", "format", "dump_date", "loaded_at", "finished_at",
                "status", "position", "counts")
        rows = self.query(f"SELECT {', '.join(cols)} FROM sources ORDER BY id")
        return [dict(zip(cols, row)) for row in rows]

    def close(self) -> None:
        self.release()
        self.engine.dispose()

    def __enter__(self) -> Mirror:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Mirror({self.location!r})"


def _set_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    for pragma in _SQLITE_PRAGMAS:
        cur.execute(pragma)
    cur.close()


def _set_read_pragmas(dbapi_conn: Any, _record: Any) -> None:
    """A read-only connection's settings: the same, but the journal mode (setting it is a
    write)."""
    cur = dbapi_conn.cursor()
    for pragma in _SQLITE_PRAGMAS[1:]:
        cur.execute(pragma)
    cur.close()


#: rows per statement when an INSERT … VALUES runs as a multi-row INSERT
MULTI_ROWS = 64


def executemany(mirror: Mirror, sql: str, rows: Iterable[Sequence[Any]], *,
                base: int = 0) -> int:
    """Run ``sql`` (``?`` placeholders) for every row on this thread's connection;
    return the number of rows changed. The caller owns the transaction.

    ``{base}`` in ``sql`` stands for ``base``, one number for all the rows (a batch's first
    row id), and must come before the first ``?``. SQLite gets it as a parameter, so that
    the statement's text, by which sqlite3 caches its compiled form, is the same from
    batch to batch (compiling the statements anew for each batch was 3 % of a JSON load).

    On SQLite an ``INSERT … VALUES (…)`` runs ``MULTI_ROWS`` rows per statement (the same
    effect, row by row in order): the driver's per-row work costs more than SQLite's
    insert itself."""
    cur = mirror.raw.cursor()
    try:
        if not mirror.is_sqlite:
            cur.executemany(sql.replace("{base}", str(int(base))).replace("?", "%s"), rows)
            return max(cur.rowcount, 0)
        shared: list[Any] = []
        if "{base}" in sql:
            if sql.index("{base}") > sql.find("?") >= 0:
                raise ValueError("{base} must come before the first ? in " + sql)
            # ?1 before any plain ?: the plain ones are numbered 2, 3, … after it
            sql, shared = sql.replace("{base}", "?1"), [base]
        multi = _multi_row(sql, MULTI_ROWS)
        if multi is None:       # rows stream through, as the caller gives them
            cur.executemany(sql, ((*shared, *row) for row in rows) if shared else rows)
            return max(cur.rowcount, 0)
        rows = rows if isinstance(rows, list) else list(rows)
        whole = len(rows) - len(rows) % MULTI_ROWS
        changed = 0
        if whole:
            flat = list(itertools.chain.from_iterable(rows[:whole]))
            step = MULTI_ROWS * len(rows[0])            # parameters per statement
            cur.executemany(multi, [shared + flat[i:i + step]
                                    for i in range(0, len(flat), step)])
            changed += max(cur.rowcount, 0)
        if whole < len(rows):
            rest = rows[whole:]
            cur.executemany(sql, [(*shared, *row) for row in rest] if shared else rest)
            changed += max(cur.rowcount, 0)
        return changed
    finally:
        cur.close()


@functools.lru_cache(maxsize=64)
def _multi_row(sql: str, n: int) -> str | None:
    """``sql`` with its ``VALUES (…)`` tuple repeated ``n`` times; None if it has none."""
    start = sql.find("VALUES (")
    if not sql.startswith("INSERT") or start < 0:
        return None
    depth, end = 0, start + len("VALUES ")
    for end in range(start + len("VALUES "), len(sql)):  # noqa: B007 - read after the loop
        depth += {"(": 1, ")": -1}.get(sql[end], 0)
        if depth == 0:
            break
    values = sql[start + len("VALUES "):end + 1]
    return sql[:start + len("VALUES ")] + ", ".join([values] * n) + sql[end + 1:]
