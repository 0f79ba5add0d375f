"""Linking's cost structure, without timing anything: searches that must equal a plain
reference, work per text that must not grow with how much text came before, and caches
that must not outlive the data they were filled from. (Timed targets live in
bench/bench_linking.py.)"""

from __future__ import annotations

import contextlib
import gc
import random
import shutil
import sqlite3
import sys
from pathlib import Path

from rapidfuzz.distance import OSA

from linking import EntityLinker
from store.fuzzy import FuzzyIndex, _grams, compact, max_edits, write_fuzzy
from store.ingest import load
from store.link_queries import _Memo
from store.mirror import Mirror
from store.vocab import ALIAS, DESCRIPTION


# -- the fuzzy index: its pruned trigram count equals a plain count -------------------------

def _reference(keys: dict[str, list[str]], norm: str, k: int) -> list[tuple[str, int]]:
    """(key, distance) of every key within ``k`` edits that shares at least as many
    trigrams as the q-gram filter needs: FuzzyIndex.search's contract, by brute force."""
    query = compact(norm)
    grams = _grams(query)
    k = min(k, (len(grams) - 1) // 3)
    need = len(grams) - 3 * k
    out = []
    for key in keys:
        if k <= 0:
            if key == query:
                out.append((key, 0))
            continue
        if abs(len(key) - len(query)) > k or len(grams & _grams(key)) < need:
            continue
        d = OSA.distance(query, key)
        if d <= k:
            out.append((key, d))
    return sorted(out, key=lambda x: (x[1], x[0]))


def test_fuzzy_search_equals_a_brute_force_count(tmp_path):
    rnd = random.Random(7)
    letters = "abcdeilmnorst"
    norms = sorted({" ".join("".join(rnd.choice(letters) for _ in range(rnd.randint(2, 7)))
                             for _ in range(rnd.randint(1, 3))) for _ in range(3000)})
    conn = sqlite3.connect(tmp_path / "fuzzy.sqlite")
    conn.execute("CREATE TABLE blobs (name TEXT PRIMARY KEY, data BLOB NOT NULL)")
    write_fuzzy(conn, norms)
    conn.commit()
    index = FuzzyIndex(lambda: conn)
    keys: dict[str, list[str]] = {}
    for n in norms:
        keys.setdefault(compact(n), []).append(n)
    queries = []
    for n in rnd.sample(norms, 300):
        chars = list(n)
        for _ in range(rnd.randint(0, 3)):                 # up to three random edits
            i = rnd.randrange(len(chars))
            op = rnd.randrange(3)
            if op == 0 and len(chars) > 1:
                del chars[i]
            elif op == 1:
                chars[i] = rnd.choice(letters)
            else:
                chars.insert(i, rnd.choice(letters))
        queries.append("".join(chars))
    checked = 0
    for q in queries:
        for k in (None, 1, 2, 3):
            want = _reference(keys, q, max_edits(len(compact(q))) if k is None else k)
            got = index.search(q, max_distance=k, limit=10_000)
            assert [(m.key, m.distance) for m in got] == want, (q, k)
            assert all(m.norms == tuple(keys[m.key]) for m in got)
            # past ``limit``, the first of equally near keys alphabetically
            for limit in (1, 2, 3):
                assert [(m.key, m.distance) for m in index.search(
                    q, max_distance=k, limit=limit)] == want[:limit], (q, k, limit)
            checked += bool(want)
    assert checked > 300          # the queries do find something, often
    longest = max(len(k) for k in keys)
    assert index.search("a" * (longest + 5), max_distance=3) == []    # longer than any key
    assert index.search("x", max_distance=3) == []
    asked = sorted({compact(q) for q in queries} | set(rnd.sample(sorted(keys), 100)))
    for _ in range(2):                   # the second time from what the index remembers
        assert index.known(asked) == {k for k in asked if k in keys}
    # answers are remembered: asked again, the same (and a caller's changes stay its own)
    for q in queries[:50]:
        first = index.search(q, limit=10_000)
        first.clear()
        assert index.search(q, limit=10_000) == index._search(q, None, 10_000)


def test_fuzzy_search_keeps_the_alphabetically_first_of_equally_near_keys(tmp_path):
    """Keys are numbered by length; past ``limit`` a search still keeps the first of the
    equally near keys alphabetically (as when they were numbered so), not the shortest."""
    conn = sqlite3.connect(tmp_path / "fuzzy.sqlite")
    conn.execute("CREATE TABLE blobs (name TEXT PRIMARY KEY, data BLOB NOT NULL)")
    write_fuzzy(conn, ["abcdefx", "abcdfg", "abcdeg", "zzzzzz"])
    index = FuzzyIndex(lambda: conn)
    assert [m.key for m in index.search("abcdefg", max_distance=1)] == [
        "abcdefx", "abcdeg", "abcdfg"]
    assert [m.key for m in index.search("abcdefg", max_distance=1, limit=1)] == ["abcdefx"]


# -- remembered answers: reused across texts, forgotten when the mirror changes ------------

NEW_ENTITY = "Q999000001"


def _copy(demo_mirror_path: Path, tmp_path: Path) -> EntityLinker:
    path = tmp_path / "demo.sqlite"
    shutil.copy(demo_mirror_path, path)
    return EntityLinker(path, index_path=tmp_path / "demo.linking")


def _add_entity(path: Path, tmp_path: Path) -> None:
    """Load a name, a type and a statement for NEW_ENTITY, through a load of its own (its
    own connection, as another process's load would be)."""
    wd = "http://www.wikidata.org/entity/"
    nt = tmp_path / "more.nt"
    nt.write_text(
        f'<{wd}{NEW_ENTITY}> <http://www.w3.org/2000/01/rdf-schema#label> '
        f'"Zorblax Quenderby"@en .\n'
        f'<{wd}{NEW_ENTITY}> <http://www.wikidata.org/prop/direct/P31> <{wd}Q5> .\n',
        encoding="utf-8")
    with Mirror(path) as mirror:
        load(mirror, nt)


def test_a_load_into_the_mirror_is_seen_by_an_open_linker(demo_mirror_path, tmp_path):
    linker = _copy(demo_mirror_path, tmp_path)
    source = linker.source
    # asked before the load: nothing, and that nothing is remembered
    for _ in range(2):
        assert source.names(["zorblax quenderby"]) == []
        assert linker.candidates("Zorblax Quenderby") == []
        assert source.labels([NEW_ENTITY]) == {NEW_ENTITY: (NEW_ENTITY, None)}
        assert source.profiles([NEW_ENTITY])[NEW_ENTITY].types == frozenset()
        assert linker.link("Zorblax Quenderby met Marie Curie.").mentions[0].mention.text \
            == "Marie Curie"
    _add_entity(linker.mirror.path, tmp_path)
    assert [n.entity for n in source.names(["zorblax quenderby"])] == [NEW_ENTITY]
    assert source.labels([NEW_ENTITY]) == {NEW_ENTITY: ("Zorblax Quenderby", None)}
    assert source.profiles([NEW_ENTITY])[NEW_ENTITY].types == frozenset({"Q5"})
    assert [c.id for c in linker.candidates("Zorblax Quenderby")] == [NEW_ENTITY]
    linked = linker.link("Zorblax Quenderby met Marie Curie.")
    assert linked.mentions[0].best.id == NEW_ENTITY


def _full_text(linker: EntityLinker, words: list[str]) -> list[str]:
    """What the mirror's full-text index says about ``words`` (the query word_matches
    would run, without its limit)."""
    match = " ".join(f'"{w}"' for w in words)
    return sorted({n for (n,) in linker.mirror.query(
        "SELECT DISTINCT t.norm FROM terms t JOIN terms_fts f ON t.id = f.rowid "
        f"WHERE terms_fts MATCH ? AND t.kind != {DESCRIPTION}", (match,)) if n})


def test_words_no_name_has_skip_the_full_text_query_with_the_same_answer(
        demo_mirror_path, tmp_path):
    linker = _copy(demo_mirror_path, tmp_path)
    queries = linker.source.queries
    norms = [n for (n,) in linker.mirror.query(
        f"SELECT DISTINCT norm FROM terms WHERE kind != {DESCRIPTION} AND norm IS NOT NULL")]
    vocabulary = sorted({w for n in norms for w in n.split()})
    rnd = random.Random(3)
    asks = [rnd.sample(n.split(), min(2, len(n.split()))) for n in rnd.sample(norms, 150)]
    asks += [[rnd.choice(vocabulary), rnd.choice(vocabulary)] for _ in range(150)]
    asks += [[w + "zq"] for w in rnd.sample(vocabulary, 50)]             # in no name
    asks += [["curie", "zqxv"], ["zqxv", "marie"], ["curié"], ["\u0915\u093f"]]
    absent = [words for words in asks if any(w.isascii() and w.endswith("zq") or w == "zqxv"
                                             for w in words)]
    assert len(absent) > 30
    for words in asks:
        want = _full_text(linker, words)
        with _counting_queries(linker) as asked:
            got = queries.word_matches(words)
        if got is not None:
            assert sorted(got) == want, words
        else:
            assert len(want) > 150, words
        if words in absent:            # an ASCII word no name has: the mirror is not asked
            assert got == [] and asked["mirror"] == 0, words


def test_a_word_only_a_load_brings_is_found_by_an_open_linker(demo_mirror_path, tmp_path):
    linker = _copy(demo_mirror_path, tmp_path)
    assert linker.source.similar("quenderby", "words") == []
    _add_entity(linker.mirror.path, tmp_path)      # a word the sidecar's list lacks
    assert linker.source.similar("quenderby", "words") == [("zorblax quenderby", 0.5)]
    assert [c.id for c in linker.candidates("Quenderby")] == [NEW_ENTITY]


def test_a_live_answer_written_back_turns_the_word_shortcut_off(demo_mirror_path, tmp_path):
    # written-back names rebuild no sidecar, so its word list no longer describes the
    # mirror: word matches are asked of the full-text index again
    from store.vocab import LABEL
    from store.writeback import write_back

    linker = _copy(demo_mirror_path, tmp_path)
    queries = linker.source.queries
    assert queries.word_matches(["nonesuchia"]) == []
    with Mirror(linker.mirror.path) as mirror:
        write_back(mirror, endpoint="http://127.0.0.1:1/sparql",
                   retrieved_at="2025-01-01T00:00:00", key="test",
                   terms=[("Q900000097", LABEL, "en", "Nonesuchia Island")])
    with _counting_queries(linker) as asked:
        got = queries.word_matches(["nonesuchia", "island"])
    assert asked["mirror"] > 0
    assert sorted(got) == _full_text(linker, ["nonesuchia", "island"])


def test_a_write_through_the_linkers_own_connection_is_seen(demo_mirror_path, tmp_path):
    linker = _copy(demo_mirror_path, tmp_path)
    before = {n.entity for n in linker.source.names(["marie curie"])}
    assert before and NEW_ENTITY not in before
    conn = linker.mirror.raw                  # the connection the linker reads through
    conn.cursor().execute(
        "INSERT INTO terms (entity, kind, lang, text, norm) VALUES (?, ?, ?, ?, ?)",
        (NEW_ENTITY, ALIAS, "en", "Marie Curie", "marie curie"))
    conn.commit()
    after = {n.entity for n in linker.source.names(["marie curie"])}
    assert after == before | {NEW_ENTITY}


def test_answers_are_reused_across_texts(demo_mirror_path, tmp_path):
    linker = _copy(demo_mirror_path, tmp_path)
    text = "Marie Curie and Pierre Curie worked in Paris with Albert Einstein."
    first = linker.link(text)
    with _counting_queries(linker) as asked:
        again = linker.link(text)
    assert again == first
    # the same text again asks the mirror nothing it was told (the names of its spans,
    # its candidates' labels and statements); what is left are the sidecar's lookups
    assert asked["mirror"] == 0, asked


def test_memo_forgets_the_least_recently_used_beyond_its_budget():
    memo = _Memo(10)
    memo.put("a", "A", 4)
    memo.put("b", "B", 4)
    assert memo.get("a") == "A"          # a is now the most recently used
    memo.put("c", "C", 4)                # 15 rows > 10: b goes, then nothing more
    assert memo.get("b") is None
    assert memo.get("a") == "A" and memo.get("c") == "C"
    assert memo.rows == 10


# -- linear growth: work per text, not timed ------------------------------------------------

@contextlib.contextmanager
def _counting_queries(linker: EntityLinker):
    """Count the mirror's and the sidecar's queries while the block runs."""
    asked = {"mirror": 0, "sidecar": 0}
    mirror = linker.mirror
    index = linker.index
    real_query, real_conn = mirror.query, index._conn

    def query(sql, params=()):
        asked["mirror"] += 1
        return real_query(sql, params)

    class Counted:
        def __init__(self, conn):
            self.conn = conn

        def execute(self, *args):
            asked["sidecar"] += 1
            return self.conn.execute(*args)

    mirror.query = query
    index._conn = lambda: Counted(real_conn())
    index.fuzzy._connect = index._conn
    try:
        yield asked
    finally:
        del mirror.query
        index._conn = real_conn
        index.fuzzy._connect = real_conn


def _calls(fn) -> int:
    """Python and C function calls made by ``fn()`` (deterministic, unlike time)."""
    count = 0

    def profile(frame, event, arg):
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return count


def _sentences(n: int, seed: int) -> str:
    """n sentences naming the demo KB's people and places, in a varying order."""
    names = ["Marie Curie", "Pierre Curie", "Albert Einstein", "Niels Bohr", "Paris",
             "Warsaw", "Max Planck", "Germany", "France", "Poland", "Ernest Rutherford"]
    verbs = ["met", "wrote to", "visited", "worked with", "spoke of"]
    rnd = random.Random(seed)
    return " ".join(f"{rnd.choice(names)} {rnd.choice(verbs)} {rnd.choice(names)} in "
                    f"{rnd.choice(names)} in {1890 + k}." for k in range(n))


def test_linking_work_grows_linearly_with_the_text(demo_mirror_path, tmp_path):
    linker = _copy(demo_mirror_path, tmp_path)
    linker.link(_sentences(40, seed=0))                   # load lexicons, fill the memos
    small, large = _sentences(40, seed=1), _sentences(160, seed=2)
    calls_small = _calls(lambda: linker.link(small))
    calls_large = _calls(lambda: linker.link(large))
    # 4x the text: 4x the work, give or take; the old whole-text context made it ~16x
    assert calls_large < 4.6 * calls_small, (calls_small, calls_large)
    # lookups are batched per text: 4x the mentions do not take 4x the queries (counted
    # with nothing remembered across texts, as for a mirror that cannot tell changes)
    linker.mirror.change_token = lambda: None
    with _counting_queries(linker) as asked_small:
        linker.link(_sentences(40, seed=3))
    with _counting_queries(linker) as asked_large:
        linker.link(_sentences(160, seed=4))
    total = sum(asked_small.values()), sum(asked_large.values())
    assert total[1] <= 2 * total[0] + 5, (asked_small, asked_large)


def test_short_texts_cost_a_bounded_number_of_queries(demo_mirror_path, tmp_path):
    linker = _copy(demo_mirror_path, tmp_path)
    linker.link("Marie Curie was born in Warsaw.")         # lexicons
    linker.mirror.change_token = lambda: None              # nothing remembered
    counts = []
    for text in ("Where did Niels Bohr work?", "Albert Einstein visited Paris in 1913.",
                 "Max Planck wrote to Ernest Rutherford."):
        with _counting_queries(linker) as asked:
            linker.link(text)
        counts.append(sum(asked.values()))
    assert max(counts) <= 14, counts


# -- linking leaves the cyclic garbage collector alone -----------------------------------------

def test_linking_a_long_text_never_touches_the_collector(demo_mirror_path, tmp_path):
    """The collector stays on throughout the call, seen from inside it and from another
    thread (it once was paused process-wide for texts of 10,000+ characters)."""
    import threading
    linker = _copy(demo_mirror_path, tmp_path)
    seen, watching = [], threading.Event()
    detect = linker.detector.detect

    def watched(text, **kw):
        seen.append(gc.isenabled())
        return detect(text, **kw)

    def watch() -> None:
        while not watching.is_set():
            seen.append(gc.isenabled())
            watching.wait(0.001)

    linker.detector.detect = watched
    long_ = _sentences(400, seed=6)
    assert len(long_) >= 10_000
    thread = threading.Thread(target=watch)
    thread.start()
    try:
        linker.link(long_)
    finally:
        watching.set()
        thread.join()
    assert seen and all(seen) and gc.isenabled()
    gc.disable()                         # and a caller's own choice is kept
    try:
        linker.link(long_)
        assert not gc.isenabled()
    finally:
        gc.enable()
