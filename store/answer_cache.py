"""An on-disk cache of live SPARQL answers (SQLite, standard library only).

Contract:

- An entry is keyed by the endpoint URL, the default graph (if any), the requested result
  format, and the query text *normalized*: comments dropped and runs of whitespace collapsed
  outside string literals (so reformatting a query still hits, but ``"a  b"`` and ``"a b"``
  stay different queries).
- An entry lives ``ttl`` seconds (default one day); expired entries are never returned and
  are removed by ``purge()`` or when overwritten.
- The cache stores the endpoint's raw answer (body and content type) and the time it was
  fetched, so a cached answer decodes exactly like a fresh one and its citations keep the
  original retrieval time.
- Only successful answers are stored; errors are never cached.
- The cache never breaks a query: if its file cannot be opened or written (read-only disk,
  corrupt file), a warning is logged once and the cache stays out of the way.

The default file is ``<user cache dir>/kgground/sparql-cache.sqlite`` (platformdirs);
``KGGROUND_SPARQL_CACHE`` overrides it.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

DEFAULT_TTL = 24 * 3600.0

#: string literals (long and short, with escapes) and IRIs, kept; runs of whitespace and
#: comments, made one space
_TOKENS = re.compile(
    r'(?P<keep>"""(?:[^"\\]|\\.|"(?!""))*"""|\'\'\'(?:[^\'\\]|\\.|\'(?!\'\'))*\'\'\''
    r'|"(?:[^"\\\n\r]|\\.)*"|\'(?:[^\'\\\n\r]|\\.)*\'|<[^<>"{}|^`\\\x00-\x20]*>)'
    r"|(?P<space>(?:\s|#[^\n\r]*)+)", re.DOTALL)


def normalize_query(query: str) -> str:
    """``query`` with comments removed and whitespace runs outside literals made one space."""
    def repl(m: re.Match[str]) -> str:
        return m.group("keep") if m.group("keep") is not None else " "
    return _TOKENS.sub(repl, query).strip()


def default_cache_path() -> Path:
    """Where the cache lives unless told otherwise."""
    env = os.environ.get("KGGROUND_SPARQL_CACHE")
    if env:
        return Path(env).expanduser()
    import platformdirs
    return Path(platformdirs.user_cache_dir("kgground")) / "sparql-cache.sqlite"


@dataclass(frozen=True)
class CachedAnswer:
    """A stored answer: the raw body, its content type, and when it was fetched (epoch s)."""
    body: bytes
    content_type: str
    fetched_at: float
    expires_at: float


class ResultCache:
    """A TTL cache of endpoint answers in one SQLite file; safe to share between threads
    and processes (SQLite's locking; one connection guarded by a lock per instance)."""

    def __init__(self, path: str | Path | None = None, *, ttl: float = DEFAULT_TTL):
        if ttl <= 0:
            raise ValueError(f"cache ttl must be positive seconds, got {ttl!r}")
        self.path = Path(path).expanduser() if path is not None else default_cache_path()
        self.ttl = float(ttl)
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._broken = False

    def __repr__(self) -> str:
        return f"ResultCache({str(self.path)!r}, ttl={self.ttl})"

    @staticmethod
    def key(endpoint: str, query: str, *, graph: str | None = None, fmt: str = "json") -> str:
        """The cache key of a query sent to ``endpoint``."""
        text = "\x1f".join((endpoint, graph or "", fmt, normalize_query(query)))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def _connect(self) -> sqlite3.Connection | None:
        if self._conn is None and not self._broken:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(self.path, timeout=5.0, check_same_thread=False,
                                       isolation_level=None)
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, "
                             "endpoint TEXT NOT NULL, query TEXT NOT NULL, "
                             "content_type TEXT NOT NULL, body BLOB NOT NULL, "
                             "fetched_at REAL NOT NULL, expires_at REAL NOT NULL)")
                self._conn = conn
            except (OSError, sqlite3.Error) as exc:
                self._give_up(exc)
        return self._conn

    def _give_up(self, exc: Exception) -> None:
        if not self._broken:
            log.warning("SPARQL result cache at %s is unusable (%s); querying without it",
                        self.path, exc)
        self._broken = True
        self._conn = None

    def get(self, key: str, *, now: float | None = None) -> CachedAnswer | None:
        """The live entry for ``key``, or None (absent, expired, or cache unusable)."""
        now = time.time() if now is None else now
        with self._lock:
            conn = self._connect()
            if conn is None:
                return None
            try:
                row = conn.execute("SELECT body, content_type, fetched_at, expires_at "
                                   "FROM answers WHERE key = ?", (key,)).fetchone()
            except sqlite3.Error as exc:
                self._give_up(exc)
                return None
        if row is None or row[3] <= now:
            return None
        return CachedAnswer(bytes(row[0]), row[1], row[2], row[3])

    def put(self, key: str, *, endpoint: str, query: str, body: bytes, content_type: str,
            fetched_at: float | None = None) -> None:
        """Store an answer (replacing any entry under ``key``)."""
        fetched_at = time.time() if fetched_at is None else fetched_at
        with self._lock:
            conn = self._connect()
            if conn is None:
                return
            try:
                conn.execute("INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?, ?, ?, ?)",
                             (key, endpoint, query, content_type, body, fetched_at,
                              fetched_at + self.ttl))
            except sqlite3.Error as exc:
                self._give_up(exc)

    def purge(self, *, expired_only: bool = True) -> int:
        """Remove expired entries (or all of them); return how many went."""
        with self._lock:
            conn = self._connect()
            if conn is None:
                return 0
            if expired_only:
                cur = conn.execute("DELETE FROM answers WHERE expires_at <= ?", (time.time(),))
            else:
                cur = conn.execute("DELETE FROM answers")
            return cur.rowcount

    def __len__(self) -> int:
        with self._lock:
            conn = self._connect()
            return conn.execute("SELECT COUNT(*) FROM answers").fetchone()[0] if conn else 0

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
