"""The SQL behind linking over a mirror: names by normalized key, entity facts, properties.

``LinkQueries(mirror)`` answers what ``kb.linking.LinkingKB`` asks, in plain tuples (the
kb layer wraps them in its types): every query the entity and property linkers run on a
mirror lives here, so that the linkers themselves work on any KB. It opens the linking
sidecar (``store.link_index``) on first need — building it when missing or stale, with
``progress`` hearing about it.

Answers that depend on one key only (the names of a normalized text, the labels or the
statements of an entity, the names containing some words) are remembered across calls, so
that texts about the same things cost fewer queries: per thread, within a budget of rows
(``MEMO_ROWS``), least recently used first out, and forgotten as soon as the mirror's
data changes (``Mirror.change_token``; a database that cannot tell, PostgreSQL, is never
remembered). When the data changed because a load into the mirror has completed (a
``sources`` row other than a live answer written back), the open sidecar is stale too: it
is let go, and the next lookup that needs it opens a fresh one (rebuilding it, as on first
use). Live answers a FallbackKB writes back rebuild nothing (their names are found in the
mirror's own tables; a rebuild per answer would cost seconds each), nor does a load still
running.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Generic, TypeVar

from rapidfuzz.fuzz import ratio

from store.fuzzy import compact
from store.link_index import ASCII_WORD, LinkIndex, fingerprint
from store.mirror import Mirror
from store.sounds import sound_key, sound_keys
from store.vocab import DESCRIPTION, LABEL

#: a word shared by more labels than this is too common to search names by
WORD_MATCH_MAX_ROWS = 150
#: at most this many neighbours per entity are read for coherence
MAX_NEIGHBOURS = 200
#: properties whose values type an entity
TYPE_PROPERTIES = ("P31", "P279")
_CHUNK = 500
#: rows (names, label texts, statements) each remembered kind of answer may hold, per thread
MEMO_ROWS = 20_000


def _chunks(items: Sequence[str], size: int = _CHUNK) -> Iterable[list[str]]:
    for start in range(0, len(items), size):
        yield list(items[start:start + size])


def _marks(n: int) -> str:
    return ",".join("?" * n)


#: (entity, kind, lang, text, norm, prior, languages share): a name ``names`` finds
NameRow = tuple[str, int, str, str, str, float, float]
_V = TypeVar("_V")


class _Memo(Generic[_V]):
    """Answers by key, least recently used first out once their rows exceed ``budget``."""

    def __init__(self, budget: int):
        self.budget = budget
        self.rows = 0
        self.items: OrderedDict[Any, tuple[_V, int]] = OrderedDict()

    def get(self, key: object) -> _V | None:
        found = self.items.get(key)
        if found is not None:
            self.items.move_to_end(key)
            return found[0]
        return None

    def lookup(self, keys: Sequence, key: Callable[[Any], object] | None = None
               ) -> tuple[dict[Any, _V], list]:
        """({k: remembered answer} for the ``keys`` remembered, [the others]); ``key`` maps
        a k to its memo key (default: k itself)."""
        known: dict[Any, _V] = {}
        missing = []
        for k in keys:
            found = self.get(key(k) if key else k)
            if found is None:
                missing.append(k)
            else:
                known[k] = found
        return known, missing

    def put(self, key: object, value: _V, rows: int) -> None:
        old = self.items.pop(key, None)
        if old is not None:
            self.rows -= old[1]
        self.items[key] = (value, rows + 1)
        self.rows += rows + 1
        while self.rows > self.budget and self.items:
            self.rows -= self.items.popitem(last=False)[1][1]


class _Memos:
    """One thread's remembered answers, with the mirror's change token they are valid for."""

    def __init__(self, token: tuple[int, int]):
        self.token = token
        self.names: _Memo[tuple[NameRow, ...]] = _Memo(MEMO_ROWS)
        self.labels: _Memo[dict[int, dict[str, str]]] = _Memo(MEMO_ROWS)
        #: (types, neighbours)
        self.statements: _Memo[tuple[tuple[str, ...], tuple[str, ...]]] = _Memo(MEMO_ROWS)
        #: (the names containing the words; None: too many to search by)
        self.words: _Memo[tuple[tuple[str, ...] | None]] = _Memo(MEMO_ROWS)
        #: (whether the name is written so)
        self.cased: _Memo[tuple[bool]] = _Memo(MEMO_ROWS)
        #: whether the sidecar's word list still describes the mirror (None: not checked)
        self.words_current: bool | None = None


#: the words of the mirror's names that sound like a mention of one word, nearest in
#: spelling first, that ``sounds_like`` offers
SOUNDING_WORDS = 8
#: for a name of several words, the words that sound like its first and like its last
#: word (each group: nearest in spelling first), and the names holding one of each read
SOUNDING_MANY = 400
SOUNDED_NAMES = 2000
#: how much less alike in spelling than the nearest such name another may be
SOUNDED_MARGIN = 0.2


class LinkQueries:
    """Linking's queries over one mirror (thread-safe, as the mirror and sidecar are)."""

    def __init__(self, mirror: Mirror, *, index_path: str | Path | None = None,
                 progress: Callable[[str], None] | None = None):
        self.mirror = mirror
        self.index_path = index_path
        self.progress = progress
        self._index: LinkIndex | None = None
        self._index_loads: str | None = None      # ``_loads()`` when the sidecar was opened
        self._lock = threading.Lock()
        self._scale: tuple[float, float] | None = None
        self._local = threading.local()
        #: (the mirror's change token, {language: ``names_in_language`` then}), shared by
        #: all threads
        self._languages: tuple[Any, dict[str, bool]] = (None, {})

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Within, the mirror is asked whether it changed once, on entry, instead of by
        every call (a text's lookups then cost no extra query each, and see one state of
        the remembered answers). Nests; per thread."""
        if getattr(self._local, "depth", 0):
            self._local.depth += 1
        else:
            self._local.held = self._checked_memos()
            self._local.depth = 1
        try:
            yield
        finally:
            self._local.depth -= 1
            if not self._local.depth:
                self._local.held = None

    def _memos(self) -> _Memos | None:
        """This thread's remembered answers, valid for the mirror as it is now (or as it
        was when the current ``batch`` began); None when the mirror cannot say whether it
        changed."""
        if getattr(self._local, "depth", 0):
            return self._local.held
        return self._checked_memos()

    def _checked_memos(self) -> _Memos | None:
        token = self.mirror.change_token()
        if token is None:
            return None
        memos = getattr(self._local, "memos", None)
        if memos is None or memos.token != token:
            self._drop_stale_index()
            memos = self._local.memos = _Memos(token)
        return memos

    def _drop_stale_index(self) -> None:
        """After the mirror's data changed (or on a thread's first lookup): when a load
        made the open sidecar stale, let it go — with the popularity scale, which the load
        may have moved — so that the next use opens a fresh one."""
        if self._index is None:
            return
        now = self._loads()
        if now is None or now == self._index_loads:
            return
        with self._lock:
            if self._index is not None and self._index_loads != now:
                self._index = None        # threads still reading the old one finish with it
                self._scale = None

    def _loads(self) -> str | None:
        """The mirror's completed loads (live answers written back left out); None while
        one is still running."""
        rows = self.mirror.query(
            "SELECT id, status FROM sources WHERE format != 'live' ORDER BY id")
        if any(status != "complete" for _, status in rows):
            return None
        return ",".join(str(i) for i, _ in rows)

    @property
    def index(self) -> LinkIndex:
        """The linking sidecar (opened, or built, on first use)."""
        if self._index is None:
            with self._lock:
                if self._index is None:
                    self._index_loads = self._loads()
                    self._index = LinkIndex.for_mirror(self.mirror, path=self.index_path,
                                                       progress=self.progress)
        return self._index

    def close(self) -> None:
        if self._index is not None:
            self._index.close()

    # -- popularity -------------------------------------------------------------------------
    def prior(self, sitelinks: int | None, degree: int | None) -> float:
        """Popularity in [0, 1]: log sitelinks when the mirror has sitelinks (JSON dumps),
        else log degree, each scaled by the mirror's maximum; entities without sitelinks
        in a mirror that has some get half weight."""
        if self._scale is None:
            links, deg = self.mirror.query(
                "SELECT COALESCE(MAX(sitelinks), 0), COALESCE(MAX(degree), 0) FROM entities")[0]
            self._scale = (math.log1p(links), math.log1p(deg))
        log_links, log_degree = self._scale
        by_degree = math.log1p(degree or 0) / log_degree if log_degree else 0.0
        if log_links:
            return math.log1p(sitelinks) / log_links if sitelinks else 0.5 * by_degree
        return by_degree

    # -- names ------------------------------------------------------------------------------
    def names(self, norms: Sequence[str]) -> list[NameRow]:
        """Labels and aliases of entities (not properties) whose normalized text is one of
        ``norms``: (entity, kind, lang, text, norm, prior, languages share)."""
        norms = list(dict.fromkeys(n for n in norms if n))
        memos = self._memos()
        known: dict[str, Sequence[NameRow]] = {}
        if memos is not None:
            for n in norms:
                found = memos.names.get(n)
                if found is not None:
                    known[n] = found
        missing = [n for n in norms if n not in known]
        rows = []
        for chunk in _chunks(missing):
            rows.extend(self.mirror.query(
                "SELECT t.entity, t.kind, t.lang, t.text, t.norm, e.kind, e.sitelinks, "
                "e.degree FROM terms t LEFT JOIN entities e ON e.id = t.entity "
                f"WHERE t.norm IN ({_marks(len(chunk))}) AND t.kind != {DESCRIPTION}", chunk))
        rows = [r for r in rows if r[5] != "property" and not (r[5] is None and r[0][:1] == "P"
                                                              and r[0][1:].isdigit())]
        langs = self.index.languages({r[0] for r in rows}) if rows else {}
        found_rows = [(e, kind, lang, text, norm, self.prior(links, degree), langs.get(e, 0.0))
                      for e, kind, lang, text, norm, _k, links, degree in rows]
        if memos is None:
            return found_rows
        fresh: dict[str, list[NameRow]] = {n: [] for n in missing}
        for row in found_rows:
            fresh[row[4]].append(row)
        for n in missing:
            memos.names.put(n, tuple(fresh[n]), len(fresh[n]))
        known.update(fresh)
        # in the order the query gives: norm by norm in sorted order, per chunk of norms
        return [row for chunk in _chunks(norms) for n in sorted(chunk) for row in known[n]]

    def names_in_language(self, lang: str) -> bool:
        """Whether some entity (not a property) has a label or alias in ``lang``: a query
        that stops at the first such name (a scan of the terms only when there is none),
        remembered per language until the mirror changes."""
        memos = self._memos()
        token = memos.token if memos is not None else None
        held_token, held = self._languages
        if token is not None and held_token == token and lang in held:
            return held[lang]
        found = bool(self.mirror.query(
            "SELECT 1 FROM terms t LEFT JOIN entities e ON e.id = t.entity "
            f"WHERE t.lang = ? AND t.kind != {DESCRIPTION} "
            "AND (e.kind IS NULL OR e.kind != 'property') LIMIT 1", (lang,)))
        with self._lock:
            if self._languages[0] != token:
                self._languages = (token, {})
            self._languages[1][lang] = found
        return found

    def known(self, norms: Sequence[str]) -> set[str]:
        """The ``norms`` that equal some label or alias once spaces are ignored."""
        by_key: dict[str, list[str]] = {}
        for n in norms:
            by_key.setdefault(compact(n), []).append(n)
        found = self.index.fuzzy.known(sorted(by_key))
        return {n for key in found for n in by_key[key]}

    def capitalized(self, norms: Sequence[str], *, lower: bool = False) -> set[str]:
        """The ``norms`` that some label or alias written with a capital letter has (with
        ``lower``: written all in lower case)."""
        # SQLite's lower() folds ASCII only: "Ørnåsen" = lower("Ørnåsen") there. Names it
        # leaves alone are checked again in Python, which folds every script.
        wanted = sorted(set(norms))
        memos = self._memos()
        if memos is None:
            return self._capitalized(wanted, lower)
        known, missing = memos.cased.lookup(wanted, key=lambda n: (n, lower))
        out = {n for n, (has,) in known.items() if has}
        found = self._capitalized(missing, lower) if missing else set()
        for n in missing:
            memos.cased.put((n, lower), (n in found,), 0)
        return out | found

    def _capitalized(self, wanted: list[str], lower: bool) -> set[str]:
        out: set[str] = set()
        if not lower:
            for chunk in _chunks(wanted):
                out.update(n for (n,) in self.mirror.query(
                    f"SELECT DISTINCT norm FROM terms WHERE norm IN ({_marks(len(chunk))}) "
                    f"AND kind != {DESCRIPTION} AND text != lower(text)", chunk))
            wanted = [n for n in wanted if n not in out]
        for chunk in _chunks(wanted):
            out.update(n for n, text in self.mirror.query(
                f"SELECT DISTINCT norm, text FROM terms WHERE norm IN ({_marks(len(chunk))}) "
                f"AND kind != {DESCRIPTION} AND text = lower(text)", chunk)
                if (text == text.lower()) == lower)
        return out

    def spaced(self, norm: str) -> tuple[list[str], list[str]]:
        """Labels and aliases equal to ``norm`` but for spaces, and those that are ``norm``
        plus a qualifier ("nirvana" → "nirvana band"): normalized, in one query."""
        return self.index.near_names(norm)

    def spaced_many(self, norms: Sequence[str]) -> dict[str, tuple[list[str], list[str]]]:
        """``spaced`` of every norm, in one query."""
        return self.index.near_names_many(norms)

    def fuzzy(self, norm: str, *, max_distance: int | None = None,
              limit: int = 20) -> list[tuple[str, float, int]]:
        """(normalized term, similarity, edits) of names within a few edits of ``norm``."""
        return [(n, m.similarity, m.distance)
                for m in self.index.fuzzy.search(norm, max_distance=max_distance, limit=limit)
                for n in m.norms]

    def sounds_like(self, norm: str, *, limit: int = 20) -> list[tuple[str, float]]:
        """(normalized name, spelling similarity) of labels and aliases that sound like
        ``norm`` (``store.sounds``): a name of one word, or one whose words sound like
        ``norm``'s from first to last, words between them left out ("fedor shalyapin"
        finds "fyodor ivanovich shalyapin", similar as "fyodor shalyapin" is; "iogann
        kristian bakh" no Johann Sebastian Bach). Nearest in spelling first."""
        words = norm.split()
        if not words:
            return []
        sounds = self.index.sounds
        if len(words) == 1:
            near = [(w, ratio(w, norm) / 100)
                    for w in sounds.sounding(norm, limit=SOUNDING_WORDS) if w != norm]
        else:
            keys = [sound_keys(w) for w in words]
            found = set(self._names_with_one_of_each(
                [sounds.sounding(words[0], limit=SOUNDING_MANY),
                 sounds.sounding(words[-1], limit=SOUNDING_MANY)])) - {norm}
            near = [(n, ratio(f"{n.split()[0]} {n.split()[-1]}", norm) / 100) for n in found
                    if _sounds_through(keys, [sound_key(w) for w in n.split()])]
            # the many names a coarse key reaches are kept only near the nearest ("tonya
            # khoar": Tony Hoare, not "tin bird choir")
            top = max((x[1] for x in near), default=0.0)
            near = [x for x in near if x[1] >= top - SOUNDED_MARGIN]
        return sorted(near, key=lambda x: -x[1])[:limit]

    def _names_with_one_of_each(self, groups: Sequence[Sequence[str]]) -> list[str]:
        """Normalized labels and aliases that contain a word of every group (at most
        ``SOUNDED_NAMES``, in one full-text query; none without the SQLite word index):
        the names whose first and last words sound like a mention's ("robert guk" is
        Robert Hooke, though "hooke" is far down the words that sound like "guk")."""
        if not self.mirror.is_sqlite or not all(groups):
            return []
        match = " AND ".join(
            "(" + " OR ".join('"' + w.replace('"', '""') + '"' for w in group) + ")"
            for group in groups)
        rows = self.mirror.query(
            f"SELECT DISTINCT t.norm FROM terms t JOIN terms_fts f ON t.id = f.rowid "
            f"WHERE terms_fts MATCH ? AND t.kind != {DESCRIPTION} LIMIT ?",
            (match, SOUNDED_NAMES))
        return [n for (n,) in rows if n]

    def word_matches(self, words: Sequence[str]) -> list[str] | None:
        """Normalized labels and aliases that contain every one of ``words``; None when
        the words are too common to search by (or the mirror has no word index)."""
        if not words or not self.mirror.is_sqlite:
            return None
        memos = self._memos()
        key = tuple(words)
        if memos is not None:
            known = memos.words.get(key)
            if known is not None:
                return list(known[0]) if known[0] is not None else None
        if memos is not None and self._has_no_name(words, memos):
            memos.words.put(key, ((),), 0)
            return []
        match = " ".join(f'"{w}"' for w in words)
        rows = self.mirror.query(
            f"SELECT DISTINCT t.norm FROM terms t JOIN terms_fts f ON t.id = f.rowid "
            f"WHERE terms_fts MATCH ? AND t.kind != {DESCRIPTION} LIMIT ?",
            (match, WORD_MATCH_MAX_ROWS + 1))
        found = None if len(rows) > WORD_MATCH_MAX_ROWS else [n for (n,) in rows if n]
        if memos is not None:
            memos.words.put(key, (tuple(found) if found is not None else None,),
                            len(found or ()))
        return found

    def _has_no_name(self, words: Sequence[str], memos: _Memos) -> bool:
        """Whether one of ``words`` is an ASCII word that no label or alias has, by the
        sidecar's word list (``LinkIndex.has_words``) — then no name contains them all,
        and the full-text query can be skipped. Only while the list is current: a load
        into the mirror since the sidecar was built turns the shortcut off until it is
        rebuilt."""
        ascii_words = [w for w in words if ASCII_WORD.fullmatch(w)]
        if not ascii_words:
            return False
        if memos.words_current is None:
            memos.words_current = self.index.fingerprint == fingerprint(self.mirror)
        if not memos.words_current:
            return False
        return len(self.index.has_words(ascii_words)) < len(set(ascii_words))

    # -- entities ---------------------------------------------------------------------------
    def labels(self, ids: Sequence[str]) -> dict[str, dict[int, dict[str, str]]]:
        """id → term kind (label, description) → lang → text."""
        found: dict[str, dict[int, dict[str, str]]] = {}
        ids = list(dict.fromkeys(ids))
        memos = self._memos()
        missing = ids
        if memos is not None:
            known, missing = memos.labels.lookup(ids)
            found.update((i, terms) for i, terms in known.items() if terms)
        fresh: dict[str, dict[int, dict[str, str]]] = {}
        for chunk in _chunks(missing, 900):
            for eid, kind, lang, text in self.mirror.query(
                    f"SELECT entity, kind, lang, text FROM terms WHERE entity IN "
                    f"({_marks(len(chunk))}) AND kind BETWEEN {LABEL} AND {DESCRIPTION}",
                    chunk):
                fresh.setdefault(eid, {}).setdefault(kind, {}).setdefault(lang, text)
        found.update(fresh)
        if memos is not None:       # remembered read-only: callers get the same dicts
            for i in missing:
                terms = fresh.get(i, {})
                memos.labels.put(i, terms, sum(len(t) for t in terms.values()))
        return found

    def profiles(self, ids: Sequence[str]) -> dict[str, tuple[frozenset[str], frozenset[str],
                                                              set[str], list[str], float]]:
        """id → (properties it has as subject, properties it is the value of, its types,
        up to ``MAX_NEIGHBOURS`` entities it names as values, languages share)."""
        ids = list(dict.fromkeys(ids))
        facts = self.index.facts(ids)
        out: dict[str, tuple[frozenset[str], frozenset[str], set[str], list[str], float]] = {
            i: (f.subject_of, f.value_of, set(), [], f.langs) for i, f in facts.items()}
        memos = self._memos()
        missing = ids
        if memos is not None:
            known, missing = memos.statements.lookup(ids)
            for i, remembered in known.items():
                out[i][2].update(remembered[0])
                out[i][3].extend(remembered[1])
        for chunk in _chunks(missing):
            for subject, prop, value in self.mirror.query(
                    f"SELECT subject, property, value FROM statements WHERE subject IN "
                    f"({_marks(len(chunk))}) AND value_kind = 'entity' AND rank > 0", chunk):
                p = out[subject]
                if prop in TYPE_PROPERTIES:
                    p[2].add(value)
                if len(p[3]) < MAX_NEIGHBOURS:
                    p[3].append(value)
        if memos is not None:
            for i in missing:
                types, neighbours = out[i][2], out[i][3]
                memos.statements.put(i, (tuple(types), tuple(neighbours)),
                                     len(types) + len(neighbours))
        return out

    def related(self, values: Sequence[str], properties: Sequence[str],
                *, limit: int = 50) -> dict[str, list[tuple[str, str]]]:
        """value → up to ``limit`` (subject, property) of statements with one of
        ``properties`` and that value ("what is headquartered in Q100")."""
        out: dict[str, list[tuple[str, str]]] = {}
        props = list(dict.fromkeys(properties))
        if not props:
            return out
        for chunk in _chunks(list(dict.fromkeys(values))):
            for subject, prop, value in self.mirror.query(
                    f"SELECT subject, property, value FROM statements WHERE value IN "
                    f"({_marks(len(chunk))}) AND property IN ({_marks(len(props))}) "
                    "AND value_kind = 'entity' AND rank > 0", [*chunk, *props]):
                found = out.setdefault(value, [])
                if len(found) < limit:
                    found.append((subject, prop))
        return out

    def connecting(self, subject: str, value: str) -> frozenset[str]:
        """Properties of statements from ``subject`` to ``value``."""
        return frozenset(p for (p,) in self.mirror.query(
            "SELECT DISTINCT property FROM statements WHERE subject = ? AND value = ? "
            "AND rank > 0", (subject, value)))

    # -- properties -------------------------------------------------------------------------
    def properties(self) -> list[tuple[str, str | None, list[tuple[int, str, str]], int,
                                       float, list[tuple[str, float]]]]:
        """Every property: (id, datatype, [(term kind, lang, text)], statements using it,
        share of its values that are entities, [(value type, share)])."""
        props: dict[str, list] = {}
        for pid, datatype in self.mirror.query(
                "SELECT id, datatype FROM entities WHERE kind = 'property'"):
            props[pid] = [pid, datatype, [], 0, 0.0, []]
        for pid, kind, lang, text in self.mirror.query(
                "SELECT t.entity, t.kind, t.lang, t.text FROM terms t "
                "JOIN entities e ON e.id = t.entity WHERE e.kind = 'property'"):
            props[pid][2].append((kind, lang, text))
        for pid, (share, types) in self.index.value_types().items():
            if pid in props:
                props[pid][4], props[pid][5] = share, types
        for pid, count in self.mirror.query(
                "SELECT property, COUNT(*) FROM statements WHERE rank > 0 GROUP BY property"):
            if pid in props:
                props[pid][3] = count
        return [tuple(p) for p in props.values()]


def _sounds_through(keys: Sequence[frozenset[str]], name: Sequence[str]) -> bool:
    """Whether a mention's words, by their sound keys ``keys`` (``sound_keys``), sound
    like the words of a name, whose keys are ``name``, in order, first like first and
    last like last (the name may have more)."""
    if len(name) < len(keys) or name[0] not in keys[0] or name[-1] not in keys[-1]:
        return False
    rest = iter(name[1:-1])
    return all(any(n in k for n in rest) for k in keys[1:-1])
