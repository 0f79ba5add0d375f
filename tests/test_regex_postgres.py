"""REGEX on PostgreSQL (store.regex.postgres_regex): the patterns it translates find on
the server exactly what RE2 (SQLite's REGEX, store.regex) finds; the others are refused
with a reason, and their queries go to rdflib there."""

from __future__ import annotations

import pytest

from store.regex import compile_regex, postgres_regex

TEXTS = ["Albert Einstein", "albert einstein", "Marie Curie", "a.b", "a\nb", "Österreich",
         "österreich", "Straße", "aa", "a{2}", "x|y", "[a]", "", "1867", "ab\ncd", "A-B"]

TRANSLATED = [
    ("^Al.*n$", ""), ("EINSTEIN", "i"), ("[A-C]ur|^Ma(x|rie) ", ""), ("s{2}|\\.", ""),
    ("Ö", "i"), ("a.b", ""), ("a.b", "s"), ("^a.*d$", "s"), ("a{2}", "q"), ("x|y", "q"),
    ("[^a-z ]", ""), ("^[0-9]{4}$", ""), ("a+?b", ""), ("\\[a\\]", ""), ("A-B", ""),
    ("b$", ""), ("a\\nb", ""), ("(Curie)?$", ""),
]

REFUSED = [("\\w+", ""), ("\\d", ""), ("[\\w]", ""), ("a", "m"), ("a b", "x"),
           ("x{300}", ""), ("[[:alpha:]]", ""), ("\\p{L}", "")]


@pytest.mark.parametrize("pattern, flags", REFUSED)
def test_what_postgres_reads_otherwise_is_refused(pattern, flags):
    translated, why = postgres_regex(pattern, flags)
    assert translated is None and why


@pytest.fixture(scope="module")
def postgres(postgres_server):
    import psycopg
    from sqlalchemy.engine import make_url
    url = make_url(postgres_server)
    with psycopg.connect(host=url.host, port=url.port, user=url.username,
                         dbname=url.database) as conn:
        yield conn


@pytest.mark.parametrize("pattern, flags", TRANSLATED)
def test_translated_patterns_find_what_re2_finds(postgres, pattern, flags):
    translated, why = postgres_regex(pattern, flags)
    assert translated is not None, why
    op = "~*" if "i" in flags else "~"
    for text in TEXTS:
        found = postgres.execute(f"SELECT %s {op} %s", (text, translated)).fetchone()[0]
        assert found == (compile_regex(pattern, flags).search(text) is not None), \
            (pattern, flags, text, translated)
