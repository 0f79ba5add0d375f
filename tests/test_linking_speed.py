"""Linking's cost structure, without timing anything: searches that must equal a plain
reference, work per text that must not grow with how much text came before, and caches
that must not outlive the data they were filled from. (Timed targets live in
bench/bench_linking.py.)"""

from __future__ import annotations

import random
import sqlite3

from rapidfuzz.distance import OSA

from store.fuzzy import FuzzyIndex, _grams, compact, max_edits, write_fuzzy


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
            checked += bool(want)
    assert checked > 300          # the queries do find something, often
