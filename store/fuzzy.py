"""Fuzzy label lookup: a character-trigram index over a mirror's labels and aliases.

Every label and alias is reduced to its *compact key* — the normalized text without spaces
(``Delta Air Lines`` → ``deltaairlines``) — so spacing differences cost nothing ("Delta
Airlines" finds Delta Air Lines exactly) and misspellings cost their edit distance.

Search uses the q-gram lemma: a key within edit distance k of the query shares all but at
most 3k of the query's padded trigrams. Keys are numbered by length (then alphabetically),
so the keys of one length are a run of numbers and, in every sorted posting list, the
keys within k of the query's length are one slice, found by bisection (a length-bucketed
index at no extra size). The query's trigrams' slices are counted together (``np.unique``),
keys sharing too few are dropped, and the rest verified with rapidfuzz's
optimal-string-alignment distance (a transposition is one edit). The index lives in the
linking sidecar file (``store.link_index``) and is held in memory once opened (about 50 MB
for the 630k keys of a 170k-entity mirror).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
from rapidfuzz.distance import OSA
from rapidfuzz.process import extract

_PAD_START, _PAD_END = "\x02", "\x03"


def compact(norm: str) -> str:
    """The compact key of a normalized text: its characters without spaces."""
    return norm.replace(" ", "")


def max_edits(length: int) -> int:
    """Edits tolerated in a key of ``length`` characters: none below 5, then 1, 2, 3."""
    if length < 5:
        return 0
    if length < 9:
        return 1
    if length < 16:
        return 2
    return 3


def _grams(key: str) -> set[str]:
    padded = _PAD_START + key + _PAD_END
    return {padded[i:i + 3] for i in range(len(padded) - 2)}


def _code(gram: str) -> int:
    """A trigram as one integer (three code points of 21 bits each)."""
    code = 0
    for ch in gram:
        code = (code << 21) | ord(ch)
    return code


@dataclass(frozen=True, slots=True)
class FuzzyMatch:
    """A key near the query: the normalized terms it stands for, and how near it is."""
    key: str
    norms: tuple[str, ...]
    distance: int
    similarity: float      # 1 - distance / max(len(query), len(key))


class RememberedKeys:
    """Which keys a one-column table of a file that never changes holds (the sidecar's
    ``fuzzy_keys``, ``name_words``), each answer remembered: at most ``limit`` of them, all
    forgotten at once past that. Thread-safe."""

    def __init__(self, table: str, column: str, limit: int):
        self._select = f"SELECT {column} FROM {table} WHERE {column} IN "
        self._limit = limit
        self._seen: dict[str, bool] = {}
        self._lock = threading.Lock()

    def present(self, connect: Callable[[], sqlite3.Connection],
                keys: Iterable[str]) -> set[str]:
        """Those of ``keys`` the table holds; ``connect`` is called only when some key's
        answer is not remembered."""
        seen = self._seen
        wanted = list(dict.fromkeys(keys))
        found = {k for k in wanted if seen.get(k)}
        missing = [k for k in wanted if k not in seen]
        if not missing:
            return found
        conn = connect()
        for start in range(0, len(missing), 500):
            chunk = missing[start:start + 500]
            found.update(k for (k,) in conn.execute(
                f"{self._select}({','.join('?' * len(chunk))})", chunk))
        with self._lock:
            if len(seen) + len(missing) > self._limit:
                seen.clear()
            seen.update((k, k in found) for k in missing)
        return found


class FuzzyIndex:
    """Trigram search over the keys stored in a linking sidecar. ``connect`` returns this
    thread's read-only connection to the sidecar. Thread-safe for searching."""

    #: answers kept for names searched again (first in, first out)
    REMEMBERED = 5_000
    #: keys whose presence is remembered (mention detection asks for every span of a
    #: text, and words recur across texts); all forgotten at once past this
    REMEMBERED_KEYS = 50_000

    def __init__(self, connect: Callable[[], sqlite3.Connection]):
        self._connect = connect
        blobs = dict(connect().execute(
            "SELECT name, data FROM blobs WHERE name LIKE 'fuzzy.%'"))
        self._keys = blobs["fuzzy.keys"]
        self._offsets = np.frombuffer(blobs["fuzzy.offsets"], dtype=np.int64)
        # the first key of each length (keys are numbered by length), one past the last
        self._length_starts = np.frombuffer(blobs["fuzzy.length_starts"], dtype=np.int32)
        self._gram_codes = np.frombuffer(blobs["fuzzy.gram_codes"], dtype=np.int64)
        self._gram_starts = np.frombuffer(blobs["fuzzy.gram_starts"], dtype=np.int64)
        self._postings = np.frombuffer(blobs["fuzzy.postings"], dtype=np.int32)
        self.size = len(self._offsets) - 1
        self._recent: dict[tuple[str, int | None, int], tuple[FuzzyMatch, ...]] = {}
        self._lock = threading.Lock()
        self._seen = RememberedKeys("fuzzy_keys", "key", self.REMEMBERED_KEYS)

    def key(self, i: int) -> str:
        return self._keys[self._offsets[i]:self._offsets[i + 1]].decode()

    def exact(self, norm: str) -> tuple[str, ...]:
        """The normalized terms whose compact key equals that of ``norm``."""
        row = self._connect().execute("SELECT norms FROM fuzzy_keys WHERE key = ?",
                                      (compact(norm),)).fetchone()
        return tuple(row[0].split("\n")) if row else ()

    def known(self, keys: list[str]) -> set[str]:
        """The compact ``keys`` that some label or alias has."""
        return self._seen.present(self._connect, keys)

    def _posting_lists(self, grams: set[str], shortest: int, longest: int) -> list[np.ndarray]:
        """The posting lists of those of ``grams`` some key has, each cut to its keys of
        ``shortest`` to ``longest`` characters."""
        codes = np.array(sorted(_code(g) for g in grams), dtype=np.int64)
        at = np.minimum(np.searchsorted(self._gram_codes, codes), len(self._gram_codes) - 1)
        at = at[self._gram_codes[at] == codes]
        starts = self._length_starts
        top = len(starts) - 1
        bounds = starts[[min(max(shortest, 0), top), min(max(longest + 1, 0), top)]]
        out = []
        for s, e in zip(self._gram_starts[at].tolist(), self._gram_starts[at + 1].tolist()):
            postings = self._postings[s:e]
            lo, hi = postings.searchsorted(bounds).tolist()
            out.append(postings[lo:hi])
        return out

    def search(self, norm: str, *, max_distance: int | None = None,
               limit: int = 20) -> list[FuzzyMatch]:
        """Keys within ``max_distance`` edits (default: ``max_edits`` of the query's
        length; at most a third of its trigrams) of the compact key of ``norm``, nearest
        first; the exact key included. The last ``REMEMBERED`` answers are kept (the index
        never changes once written): a name that recurs across texts is searched once."""
        key = (compact(norm), max_distance, limit)
        found = self._recent.get(key)
        if found is None:
            found = tuple(self._search(norm, max_distance, limit))
            with self._lock:
                self._recent[key] = found
                if len(self._recent) > self.REMEMBERED:
                    del self._recent[next(iter(self._recent))]
        return list(found)

    def _search(self, norm: str, max_distance: int | None, limit: int) -> list[FuzzyMatch]:
        query = compact(norm)
        k = max_edits(len(query)) if max_distance is None else max_distance
        grams = _grams(query)
        k = min(k, (len(grams) - 1) // 3)  # the trigram filter needs one shared trigram
        need = len(grams) - 3 * k          # trigrams any key within k edits shares
        if k <= 0:
            found = self.exact(norm)
            return [FuzzyMatch(query, found, 0, 1.0)] if found else []
        lists = self._posting_lists(grams, len(query) - k, len(query) + k)
        if len(lists) < need:
            return []
        # a posting list holds a key once: a key's count in their concatenation is the
        # number of the query's trigrams it shares
        ids, counts = np.unique(np.concatenate(lists), return_counts=True)
        ids = ids[counts >= need]
        if not len(ids):
            return []
        # alphabetically, as extract keeps the first of equally near keys past ``limit``
        keys = sorted(self.key(i) for i in ids.tolist())
        hits = extract(query, keys, scorer=OSA.distance, score_cutoff=k, limit=limit)
        if not hits:
            return []
        rows = dict(self._connect().execute(
            f"SELECT key, norms FROM fuzzy_keys WHERE key IN ({','.join('?' * len(hits))})",
            [h[0] for h in hits]))
        out = []
        for key, dist, _ in sorted(hits, key=lambda h: (h[1], h[0])):
            sim = 1.0 - dist / max(len(query), len(key), 1)
            out.append(FuzzyMatch(key, tuple(rows.get(key, "").split("\n")), int(dist), sim))
        return out


def write_fuzzy(conn: sqlite3.Connection, norms: Iterable[str]) -> int:
    """Write the trigram index of the distinct normalized labels and aliases ``norms`` into
    the sidecar connection ``conn`` (tables ``blobs`` and ``fuzzy_keys``); return the
    number of keys."""
    by_key: dict[str, list[str]] = {}
    for norm in norms:
        by_key.setdefault(compact(norm), []).append(norm)
    keys = sorted(by_key, key=lambda k: (len(k), k))     # numbered by length
    encoded = [k.encode() for k in keys]
    offsets = np.zeros(len(keys) + 1, dtype=np.int64)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    lengths = np.array([len(k) for k in keys], dtype=np.int32)
    length_starts = np.searchsorted(lengths, np.arange(int(lengths.max(initial=0)) + 2)
                                    ).astype(np.int32)
    gram_codes, gram_starts, flat = _postings(keys, lengths)
    conn.executemany("INSERT INTO blobs VALUES (?, ?)", [
        ("fuzzy.keys", b"".join(encoded)), ("fuzzy.offsets", offsets.tobytes()),
        ("fuzzy.length_starts", length_starts.tobytes()),
        ("fuzzy.gram_codes", gram_codes.tobytes()),
        ("fuzzy.gram_starts", gram_starts.tobytes()), ("fuzzy.postings", flat.tobytes())])
    conn.execute("CREATE TABLE fuzzy_keys (key TEXT PRIMARY KEY, norms TEXT NOT NULL) "
                 "WITHOUT ROWID")
    conn.executemany("INSERT INTO fuzzy_keys VALUES (?, ?)",
                     ((k, "\n".join(by_key[k])) for k in sorted(keys)))
    return len(keys)


def _postings(keys: list[str], lengths: np.ndarray) -> tuple[np.ndarray, ...]:
    """Sorted distinct trigram codes, where each one's keys start in the flat posting
    array, and that array (key numbers, ascending within each trigram) — vectorized."""
    padded = "".join(_PAD_START + k + _PAD_END for k in keys)
    cps = np.frombuffer(padded.encode("utf-32-le"), dtype=np.uint32).astype(np.int64)
    per_key = lengths.astype(np.int64)                  # padded length - 2 = grams per key
    key_start = np.zeros(len(keys), dtype=np.int64)
    np.cumsum(per_key[:-1] + 2, out=key_start[1:])
    gram_start = np.zeros(len(keys), dtype=np.int64)
    np.cumsum(per_key[:-1], out=gram_start[1:])
    owner = np.repeat(np.arange(len(keys), dtype=np.int64), per_key)
    pos = np.arange(int(per_key.sum()), dtype=np.int64) - gram_start[owner] + key_start[owner]
    codes = (cps[pos] << 42) | (cps[pos + 1] << 21) | cps[pos + 2]
    order = np.lexsort((owner, codes))
    codes, owner = codes[order], owner[order]
    keep = np.ones(len(codes), dtype=bool)
    keep[1:] = (codes[1:] != codes[:-1]) | (owner[1:] != owner[:-1])
    codes, owner = codes[keep], owner[keep]
    gram_codes, first = np.unique(codes, return_index=True)
    gram_starts = np.append(first, len(codes)).astype(np.int64)
    return gram_codes.astype(np.int64), gram_starts, owner.astype(np.int32)
