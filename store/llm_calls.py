"""Recorded LLM calls in one SQLite file (the record/replay cache's storage).

``LLMCallLog(path)`` maps a request key (a hash the caller computes, see
``reasoning.llm.base.Request.key``) to the completions the model gave, with the request
itself (JSON) and when it was recorded, so a recording can be read and audited. Safe to
share between threads (one connection under a lock) and processes (SQLite's locking, WAL).
Unlike the SPARQL result cache, failures are errors, not silence: a replayed evaluation
that quietly called the model again would not be the evaluation it claims to be.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path

from store.errors import LLMConfigError

_SCHEMA = ("CREATE TABLE IF NOT EXISTS llm_calls (key TEXT PRIMARY KEY, model TEXT NOT NULL, "
           "request TEXT NOT NULL, completions TEXT NOT NULL, recorded_at REAL NOT NULL)")


class LLMCallLog:
    def __init__(self, path: str | Path):
        self.path = Path(path).expanduser()
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(self.path, timeout=10.0, check_same_thread=False,
                                         isolation_level=None)
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute(_SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise LLMConfigError(f"cannot open the LLM call cache ({exc})",
                                 backend=f"cache:{self.path}",
                                 fix="check the path and its permissions, or choose another "
                                     "cache file") from exc

    def __repr__(self) -> str:
        return f"LLMCallLog({str(self.path)!r})"

    def get(self, key: str) -> list[str] | None:
        """The completions recorded under ``key``, or None."""
        with self._lock:
            row = self._conn.execute("SELECT completions FROM llm_calls WHERE key = ?",
                                     (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def put(self, key: str, *, model: str, request: dict, completions: list[str]) -> None:
        """Record (or replace) the completions for ``key``."""
        with self._lock:
            self._conn.execute(
                "INSERT OR REPLACE INTO llm_calls VALUES (?, ?, ?, ?, ?)",
                (key, model, json.dumps(request, ensure_ascii=False, sort_keys=True),
                 json.dumps(completions, ensure_ascii=False), time.time()))

    def __len__(self) -> int:
        with self._lock:
            return self._conn.execute("SELECT COUNT(*) FROM llm_calls").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._conn.close()
