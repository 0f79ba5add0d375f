"""The linking sidecar: indexes the linker derives from a mirror, cached on disk beside it.

``LinkIndex.for_mirror(mirror)`` opens ``<mirror file>.linking`` (or, for a database URL or
a folder it may not write to, a file in the user cache folder) and builds it first when it
is missing or stale — about 10–15 s for a 180k-entity, 950k-term mirror, announced through
the ``progress`` callback and the ``kgground.linking`` logger (its start and end as notices,
which the command line always prints). It holds:

- the fuzzy trigram index over labels and aliases (``store.fuzzy``);
- *entity facts*: for every entity, the properties it has as subject and as value —
  context ranking asks "is this candidate the value of some P19?" for thousands of
  candidates, which the mirror answers slowly for popular values (Q5 is the value of 18k
  statements) — and how many languages its labels and aliases are in, a popularity
  signal for mirrors without sitelinks (Barack Obama has terms in all 22 languages of the
  T-REx slice, the Japanese city Obama in one); for an entity without aliases, whose
  count is unknown, at least the mean count of entities of its degree that have aliases.
  Facts asked for are cached in memory;
- *heads*: labels and aliases with a qualifier ("Nirvana (band)", "Concord, California")
  by their head, so that "Nirvana" finds the band as well as an exact label would;
- *value types*: for every property, the most common types (P31) of its entity values
  and the share of its values that are entities — what kind of answer it gives;
- *name words*: every run of ASCII letters and digits in a label or alias — a word the
  mirror's full-text index has (``LinkIndex.has_words``): most partial-name searches ask
  for a word no name has, and are answered without the full-text query.

The file records the mirror's fingerprint (the highest term and statement row IDs and the
state of every loaded source); any load into the mirror makes the sidecar stale and it is
rebuilt on next open. It is written under a temporary name and renamed into place, so
concurrent builders never expose half an index.
"""

from __future__ import annotations

import hashlib
import logging
import math
import os
import re
import sqlite3
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from store.fuzzy import FuzzyIndex, RememberedKeys, compact, write_fuzzy
from store.mirror import MMAP_BYTES, Mirror
from store.normalize import normalize
from store.sounds import SoundIndex
from store.vocab import ALIAS, DESCRIPTION

log = logging.getLogger("kgground.linking")

#: bump when the file layout changes; older sidecars are rebuilt
INDEX_VERSION = "9"
#: types kept per property in ``value_types``
VALUE_TYPES = 8
#: entities whose facts are kept in memory once asked for (the cache is then emptied)
CACHE_SIZE = 200_000
#: entities whose property lists, read with their language share, are kept for ``facts``
RAW_SIZE = 50_000
#: the words ``name_words`` holds: what the full-text index's unicode61 tokenizer makes of
#: ASCII text (a word of other characters is never looked up there)
ASCII_WORD = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True, slots=True)
class Facts:
    langs: float                      # share of the mirror's languages, in [0, 1]
    subject_of: frozenset[str]
    value_of: frozenset[str]


_NO_FACTS = Facts(0.0, frozenset(), frozenset())


def fingerprint(mirror: Mirror) -> str:
    """A string that changes whenever terms or statements are loaded into the mirror."""
    q = mirror.query
    terms = q("SELECT COALESCE(MAX(id), 0) FROM terms")[0][0]
    statements = q("SELECT COALESCE(MAX(id), 0) FROM statements")[0][0]
    sources = ",".join(f"{i}:{s}:{p}" for i, s, p in
                       q("SELECT id, status, position FROM sources ORDER BY id"))
    return f"{INDEX_VERSION}|{terms}|{statements}|{sources}"


def default_path(mirror: Mirror, *, want: str | None = None) -> Path:
    """``<mirror file>.linking`` when the mirror is a SQLite file in a writable folder (or
    a fresh sidecar, fingerprint ``want``, already lies there), else a file in the user
    cache folder named after the mirror's location."""
    if mirror.path is not None:
        beside = mirror.path.with_name(mirror.path.name + ".linking")
        if os.access(mirror.path.parent, os.W_OK) or (
                want is not None and _stored_fingerprint(beside) == want):
            return beside
    return cache_path(mirror)


def cache_path(mirror: Mirror) -> Path:
    """The sidecar's place in the user cache folder (for mirrors in read-only folders and
    database URLs)."""
    where = str(mirror.path.resolve()) if mirror.path is not None else mirror.url
    digest = hashlib.sha1(where.encode()).hexdigest()[:16]
    return Path(platformdirs.user_cache_dir("kgground")) / f"linking-{digest}.sqlite"


class LinkIndex:
    """An open linking sidecar. Thread-safe: each thread reads through its own connection."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._local = threading.local()
        self._cache: dict[str, Facts] = {}
        self._langs: dict[str, float] = {}         # shares read without the facts
        # the property lists read with those shares, unsplit, for ``facts`` to take up
        # (candidates are profiled right after their names were looked up); None: no row
        self._raw: dict[str, tuple[float, str, str] | None] = {}
        # one frozenset per distinct property list: many entities share theirs ("P31"),
        # and fewer live containers make fewer and cheaper cyclic-GC passes while a long
        # text is linked
        self._property_sets: dict[str, frozenset[str]] = {}
        self._words = RememberedKeys("name_words", "word", CACHE_SIZE)    # has_words answers
        meta = dict(self._conn().execute("SELECT key, value FROM meta"))
        self.max_langs = max(1, int(meta.get("max_langs", 1)))
        #: the mirror's fingerprint when the sidecar was built (``fingerprint``)
        self.fingerprint = meta.get("fingerprint")
        self.fuzzy = FuzzyIndex(self._conn)
        #: the name words by how they sound, read from ``name_words`` when first asked
        self.sounds = SoundIndex(self._all_words())

    @classmethod
    def for_mirror(cls, mirror: Mirror, *, path: str | Path | None = None,
                   rebuild: bool = False,
                   progress: Callable[[str], None] | None = None) -> LinkIndex:
        """The mirror's sidecar, built (or rebuilt, when stale or ``rebuild``) as needed;
        ``progress`` hears what a build is doing (also logged)."""
        want = fingerprint(mirror)
        target = Path(path) if path is not None else default_path(mirror, want=want)
        if not rebuild and _stored_fingerprint(target) == want:
            return cls(target)
        try:
            build(mirror, target, fingerprint=want, progress=progress)
        except (OSError, sqlite3.OperationalError) as exc:
            fallback = cache_path(mirror)
            if path is not None or target == fallback:
                raise
            # the folder looked writable but is not (a read-only mount, a foreign owner)
            message = f"cannot write the linking index at {target} ({exc}); using {fallback}"
            log.warning(message)
            if progress is not None:
                progress(message)
            if rebuild or _stored_fingerprint(fallback) != want:
                build(mirror, fallback, fingerprint=want, progress=progress)
            target = fallback
        return cls(target)

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = sqlite3.connect(
                f"file:{self.path}?mode=ro", uri=True, check_same_thread=False)
            # the file never changes once written (a rebuild replaces it): reads map it
            conn.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")
        return conn

    def _all_words(self) -> Iterable[str]:
        for (word,) in self._conn().execute("SELECT word FROM name_words"):
            yield word

    def has_words(self, words: Iterable[str]) -> set[str]:
        """Those of ``words`` (ASCII letters and digits, ``ASCII_WORD``) that some label
        or alias of the mirror, as it was when the sidecar was built, has as a word."""
        return self._words.present(self._conn, words)

    def facts(self, entities: Iterable[str]) -> dict[str, Facts]:
        """Per-entity facts (languages, properties as subject and as value), from a cache
        of recently asked entities or else one query per 500."""
        cache = self._cache
        out: dict[str, Facts] = {}
        missing = []
        for e in dict.fromkeys(entities):
            found = cache.get(e)
            if found is None:
                missing.append(e)
            else:
                out[e] = found
        if missing:
            if len(cache) > CACHE_SIZE:
                cache.clear()
                self._property_sets.clear()
            raw = self._raw
            sets = self._property_sets

            def properties(listed: str) -> frozenset[str]:
                found = sets.get(listed)
                if found is None:
                    found = sets[listed] = frozenset(listed.split())
                return found

            ask = []
            for e in missing:
                if e not in raw:
                    ask.append(e)
                elif (row := raw[e]) is not None:
                    out[e] = Facts(row[0], properties(row[1]), properties(row[2]))
            conn = self._conn()
            for start in range(0, len(ask), 500):
                chunk = ask[start:start + 500]
                for entity, n, as_subject, as_value in conn.execute(
                        f"SELECT entity, langs, subject_of, value_of FROM entity_facts "
                        f"WHERE entity IN ({','.join('?' * len(chunk))})", chunk):
                    out[entity] = Facts(n / self.max_langs, properties(as_subject),
                                        properties(as_value))
            for e in missing:
                cache[e] = out.setdefault(e, _NO_FACTS)
        return out

    def roles(self, entities: Iterable[str]) -> dict[str, tuple[frozenset[str], frozenset[str]]]:
        """entity → (properties it has as subject, properties it is the value of);
        entities in no statement are left out."""
        return {e: (f.subject_of, f.value_of) for e, f in self.facts(entities).items()
                if f.subject_of or f.value_of}

    def languages(self, entities: Iterable[str]) -> dict[str, float]:
        """entity → share of the mirror's languages it has a label or alias in, in [0, 1]
        (the most multilingual entity has 1.0; an entity without aliases has at least the
        mean share of the entities of its degree that have some); entities without terms
        are left out."""
        cache, langs = self._cache, self._langs
        out: dict[str, float] = {}
        missing = []
        for e in dict.fromkeys(entities):
            found = cache.get(e)
            share = found.langs if found is not None else langs.get(e)
            if share is None:
                missing.append(e)
            elif share:
                out[e] = share
        if missing:                        # the share, and the property lists unsplit
            raw = self._raw
            if len(langs) > CACHE_SIZE:
                langs.clear()
            if len(raw) > RAW_SIZE:
                raw.clear()
            conn = self._conn()
            for start in range(0, len(missing), 500):
                chunk = missing[start:start + 500]
                for entity, n, as_subject, as_value in conn.execute(
                        f"SELECT entity, langs, subject_of, value_of FROM entity_facts "
                        f"WHERE entity IN ({','.join('?' * len(chunk))})", chunk):
                    share = langs[entity] = n / self.max_langs
                    raw[entity] = (share, as_subject, as_value)
            for e in missing:
                share = langs.setdefault(e, 0.0)
                if share:
                    out[e] = share
                raw.setdefault(e, None)
        return out

    def near_names(self, norm: str) -> tuple[list[str], list[str]]:
        """Normalized labels and aliases equal to ``norm`` but for spaces, and those that
        are ``norm`` plus a qualifier — in one query."""
        spaced: list[str] = []
        qualified: list[str] = []
        for kind, names in self._conn().execute(
                "SELECT 0, norms FROM fuzzy_keys WHERE key = ? "
                "UNION ALL SELECT 1, norm FROM heads WHERE head = ?", (compact(norm), norm)):
            if kind:
                qualified.append(names)
            else:
                spaced.extend(names.split("\n"))
        return spaced, qualified

    def near_names_many(self, norms: Iterable[str]) -> dict[str, tuple[list[str], list[str]]]:
        """``near_names`` of every norm, in one query per 400 of them."""
        wanted = list(dict.fromkeys(norms))
        out: dict[str, tuple[list[str], list[str]]] = {n: ([], []) for n in wanted}
        by_key: dict[str, list[str]] = {}
        for n in wanted:
            by_key.setdefault(compact(n), []).append(n)
        conn = self._conn()
        for start in range(0, len(wanted), 400):
            chunk = wanted[start:start + 400]
            keys = list(dict.fromkeys(compact(n) for n in chunk))
            for kind, key, names in conn.execute(
                    f"SELECT 0, key, norms FROM fuzzy_keys WHERE key IN "
                    f"({','.join('?' * len(keys))}) UNION ALL SELECT 1, head, norm FROM heads "
                    f"WHERE head IN ({','.join('?' * len(chunk))})", keys + chunk):
                if kind:
                    out[key][1].append(names)
                else:
                    for n in by_key[key]:
                        out[n][0].extend(names.split("\n"))
        return out

    def value_types(self) -> dict[str, tuple[float, list[tuple[str, float]]]]:
        """property → (share of its values that are entities, [(type, share of its
        entity values that are instances of the type)] most common first)."""
        out: dict[str, tuple[float, list[tuple[str, float]]]] = {}
        for prop, entity_share, types in self._conn().execute(
                "SELECT property, entity_share, types FROM value_types"):
            pairs = [t.split("=") for t in types.split()] if types else []
            out[prop] = (entity_share, [(t, float(n)) for t, n in pairs])
        return out

    def qualified(self, head: str) -> list[str]:
        """Normalized labels and aliases that are ``head`` plus a qualifier
        ("nirvana" → ["nirvana band", …])."""
        return [n for (n,) in self._conn().execute(
            "SELECT norm FROM heads WHERE head = ?", (head,))]

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None


def _stored_fingerprint(path: Path) -> str | None:
    if not path.exists():
        return None
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            row = conn.execute("SELECT value FROM meta WHERE key = 'fingerprint'").fetchone()
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        return None       # a broken or foreign file: build over it
    return row[0] if row else None


#: a label's trailing qualifier: "Nirvana (band)", "Concord, California"
_QUALIFIED = re.compile(r"^(.+?)(?:\s+\([^()]+\)|,\s+[^,]+)\s*$")


def _write_heads(conn: sqlite3.Connection, mirror: Mirror) -> int:
    """Labels and aliases with a qualifier, by their head: "nirvana" → "nirvana band",
    "concord" → "concord california" (heads and terms both normalized)."""
    conn.execute("CREATE TABLE heads (head TEXT NOT NULL, norm TEXT NOT NULL)")
    rows = set()
    for text, norm in mirror.query(
            f"SELECT text, norm FROM terms WHERE kind != {DESCRIPTION} AND "
            "(text LIKE '%)' OR text LIKE '%, %')"):
        m = _QUALIFIED.match(text)
        head = normalize(m.group(1)) if m else ""
        if head and norm and head != norm:
            rows.add((head, norm))
    conn.executemany("INSERT INTO heads VALUES (?, ?)", sorted(rows))
    conn.execute("CREATE INDEX ix_heads ON heads (head)")
    return len(rows)


def _write_words(conn: sqlite3.Connection, norms: list[str]) -> int:
    """Every ``ASCII_WORD`` run of the normalized labels and aliases ``norms``: a superset
    of the ASCII words the mirror's full-text index (unicode61 over ``norm``) holds for them
    — a word absent here is in no name."""
    words: set[str] = set()
    for norm in norms:
        words.update(ASCII_WORD.findall(norm))
    conn.execute("CREATE TABLE name_words (word TEXT PRIMARY KEY) WITHOUT ROWID")
    conn.executemany("INSERT INTO name_words VALUES (?)", ((w,) for w in sorted(words)))
    return len(words)


def _degree_bucket(degree: int | None) -> int:
    """Entities of similar degree: ⌊log2(degree + 1)⌋, at most 16."""
    return min(int(math.log2((degree or 0) + 1)), 16)


def _write_facts(conn: sqlite3.Connection, mirror: Mirror) -> int:
    """Per entity: the number of languages of its labels and aliases (expected, for an
    entity without aliases: see ``_expected_languages``), and the properties it has as
    subject and as value."""
    facts: dict[str, list] = {}
    counts = mirror.query(
        f"SELECT t.entity, COUNT(DISTINCT t.lang), MAX(t.kind = {ALIAS}), e.degree FROM terms t "
        f"LEFT JOIN entities e ON e.id = t.entity WHERE t.kind != {DESCRIPTION} "
        "GROUP BY t.entity")
    expected = _expected_languages(counts)
    for entity, langs, has_alias, degree in counts:
        if not has_alias:
            langs = max(langs, expected.get(_degree_bucket(degree), 0.0))
        facts[entity] = [langs, set(), set()]
    for subject, prop in mirror.query(
            "SELECT DISTINCT subject, property FROM statements WHERE rank > 0"):
        facts.setdefault(subject, [0, set(), set()])[1].add(prop)
    for value, prop in mirror.query(
            "SELECT DISTINCT value, property FROM statements "
            "WHERE rank > 0 AND value_kind = 'entity'"):
        facts.setdefault(value, [0, set(), set()])[2].add(prop)
    conn.execute("CREATE TABLE entity_facts (entity TEXT PRIMARY KEY, langs REAL NOT NULL, "
                 "subject_of TEXT NOT NULL, value_of TEXT NOT NULL) WITHOUT ROWID")
    conn.executemany("INSERT INTO entity_facts VALUES (?, ?, ?, ?)",
                     ((e, n, " ".join(sorted(s)), " ".join(sorted(v)))
                      for e, (n, s, v) in facts.items()))
    top = max((c[1] for c in counts), default=0)
    conn.execute("INSERT INTO meta VALUES ('max_langs', ?)", (str(top),))
    return len(facts)


def _expected_languages(counts: list[tuple]) -> dict[int, float]:
    """Degree bucket → mean number of name languages of the entities with aliases whose
    degree falls in it. An entity without any alias has an unknown language count rather
    than a count of one: a mirror may hold aliases for a sample of its entities only (the
    T-REx slice has them for a third, Madonna the singer not among them), so such an
    entity is given what entities as connected as it usually have."""
    sums: dict[int, list[float]] = {}
    for _entity, langs, has_alias, degree in counts:
        if has_alias:
            acc = sums.setdefault(_degree_bucket(degree), [0.0, 0])
            acc[0] += langs
            acc[1] += 1
    return {bucket: total / n for bucket, (total, n) in sums.items()}


def _write_value_types(conn: sqlite3.Connection, mirror: Mirror) -> int:
    """Per property: the share of its values that are entities, and the most common types
    (P31) of those values with the share of values that have each."""
    totals: dict[str, list[int]] = {}
    for prop, is_entity, n in mirror.query(
            "SELECT property, value_kind = 'entity', COUNT(*) FROM statements WHERE rank > 0 "
            "GROUP BY property, value_kind = 'entity'"):
        totals.setdefault(prop, [0, 0])[0 if is_entity else 1] += n
    types: dict[str, list[tuple[int, str]]] = {}
    for prop, typ, n in mirror.query(
            "SELECT s.property, t.value, COUNT(*) FROM statements s JOIN statements t "
            "ON t.subject = s.value AND t.property = 'P31' AND t.value_kind = 'entity' "
            "WHERE s.value_kind = 'entity' AND s.rank > 0 GROUP BY s.property, t.value"):
        types.setdefault(prop, []).append((n, typ))
    conn.execute("CREATE TABLE value_types (property TEXT PRIMARY KEY, entity_share REAL, "
                 "types TEXT NOT NULL) WITHOUT ROWID")
    rows = []
    for prop, (entities, others) in totals.items():
        top = sorted(types.get(prop, []), key=lambda x: (-x[0], x[1]))[:VALUE_TYPES]
        rows.append((prop, entities / max(entities + others, 1),
                     " ".join(f"{t}={n / max(entities, 1):.4f}" for n, t in top)))
    conn.executemany("INSERT INTO value_types VALUES (?, ?, ?)", rows)
    return len(rows)


def build(mirror: Mirror, target: Path, *, fingerprint: str,
          progress: Callable[[str], None] | None = None) -> Path:
    """Write the sidecar of ``mirror`` to ``target`` (atomically replacing it). Its start
    and end are logged as notices (``extra={"notice": True}``: the command line prints
    them even when stderr is not a terminal), its steps as plain INFO."""
    def say(message: str, notice: bool = False) -> None:
        log.info(message, extra={"notice": notice})
        if progress is not None:
            progress(message)

    started = time.monotonic()
    say(f"building the linking index of {mirror.location} at {target} (once; about 10 s "
        "per 200k entities)", notice=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=target.name + ".", suffix=".tmp", dir=target.parent)
    os.close(fd)
    try:
        conn = sqlite3.connect(tmp)
        try:
            with conn:
                conn.execute("PRAGMA journal_mode=OFF")
                conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
                conn.execute("CREATE TABLE blobs (name TEXT PRIMARY KEY, data BLOB NOT NULL)")
                say("linking index: fuzzy name index and name words")
                norms = [norm for (norm,) in mirror.query(
                    f"SELECT DISTINCT norm FROM terms WHERE kind != {DESCRIPTION} "
                    "AND norm IS NOT NULL AND norm != ''")]
                keys = write_fuzzy(conn, norms)
                _write_words(conn, norms)
                del norms
                say("linking index: entity facts")
                entities = _write_facts(conn, mirror)
                say("linking index: qualified names and property value types")
                _write_heads(conn, mirror)
                _write_value_types(conn, mirror)
                conn.executemany("INSERT INTO meta VALUES (?, ?)", [
                    ("fingerprint", fingerprint), ("mirror", mirror.location),
                    ("fuzzy_keys", str(keys)), ("entities", str(entities))])
        finally:
            conn.close()
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    say(f"linking index built in {time.monotonic() - started:.1f} s", notice=True)
    return target
