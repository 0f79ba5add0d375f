"""The small pieces under the loaders: N-Triples lines, IDs, label normalization (and the
PostgreSQL row reader of the SQL path, which needs no server to fail)."""

from __future__ import annotations

import pytest

from store.errors import InvalidId
from store.normalize import normalize
from store.ntriples import parse_line
from store.vocab import (check_id, check_property, entity_kind, id_to_iri, iri_to_id,
                         property_from_iri)

WD = "http://www.wikidata.org/entity/"


@pytest.mark.parametrize("line, expected", [
    (f"<{WD}Q1> <http://p> <{WD}Q2> .\n", (f"{WD}Q1", "http://p", f"{WD}Q2", None, None, None)),
    ('<http://s> <http://p> "Brüssel"@de-CH .', ("http://s", "http://p", None, "Brüssel",
                                                  "de-CH", None)),
    ('<http://s> <http://p> "5"^^<http://www.w3.org/2001/XMLSchema#integer> .',
     ("http://s", "http://p", None, "5", None, "http://www.w3.org/2001/XMLSchema#integer")),
    ('<http://s> <http://p> "say \\"hi\\"\\n\\u00e9\\U0001F600" .',
     ("http://s", "http://p", None, 'say "hi"\né\U0001F600', None, None)),
    ("_:b1 <http://p> _:b2 .", ("_:b1", "http://p", "_:b2", None, None, None)),
    ('<http://s>\t<http://p>\t"tabs" .', ("http://s", "http://p", None, "tabs", None, None)),
])
def test_parse_line(line, expected):
    assert tuple(parse_line(line)) == expected


@pytest.mark.parametrize("line, reason", [
    ("<http://s> <http://p> <http://o>", "does not end"),
    ('<http://s> <http://p> "open .', "not closed"),
    ("<http://s> _:p <http://o> .", "predicate must be an IRI"),
    ("s p o .", "expected <IRI>"),
    ('<http://s> <http://p> "x"@@en .', "language tag"),
    ('<http://s> <http://p> "x\\q" .', "unknown escape"),
])
def test_parse_line_errors(line, reason):
    with pytest.raises(ValueError, match=reason):
        parse_line(line)


def test_ids():
    assert check_id("Q42") == "Q42" and check_id("L3354-F1") == "L3354-F1"
    assert check_id(f"{WD}Q42") == "Q42"
    assert check_id("http://example.org/x") == "http://example.org/x"
    with pytest.raises(InvalidId, match="write Q42"):
        check_id(" q42")
    with pytest.raises(InvalidId):
        check_id("Q42", kinds="P")
    with pytest.raises(InvalidId):
        check_id(42)
    assert check_property("http://www.wikidata.org/prop/direct/P31") == "P31"
    assert iri_to_id(f"{WD}Q5") == "Q5" and iri_to_id(f"{WD}statement/x") == f"{WD}statement/x"
    assert id_to_iri("P31") == f"{WD}P31" and id_to_iri("http://x/y") == "http://x/y"
    assert property_from_iri("http://www.wikidata.org/prop/direct/P31") == "P31"
    assert [entity_kind(i) for i in ("Q1", "P2", "L3", "L3-F1", "L3-S12", f"{WD}Q1")] == [
        "item", "property", "lexeme", "form", "sense", "resource"]


@pytest.mark.parametrize("bad", ["Q0", "Q042", "P0", "Q42 ", "Q42\n", "Q42x", "QQ42", "Q-42",
                                 "L1-X1", "L1-F0", "Q42$abc", ""])
def test_malformed_ids_are_refused(bad):
    with pytest.raises(InvalidId):
        check_id(bad, allow_iri=False)


@pytest.mark.parametrize("char", list('<>"{}|^`\\') + [" ", "\t", "\n"])
def test_iris_that_could_break_out_of_a_sparql_iri_are_refused(char):
    """The check that guards every IRI kgground writes into a SPARQL query: none of the
    characters that end an IRI or start a new clause may be in it."""
    assert check_id("http://example.org/a-b") == "http://example.org/a-b"
    with pytest.raises(InvalidId, match="absolute IRI"):
        check_id(f"http://example.org/a{char}b")


@pytest.mark.parametrize("text, key", [
    ("  Élysée-Palace ", "elysee palace"), ("St. John's College", "st johns college"),
    ("U.S.A.", "usa"), ("Straße", "strasse"), ("Łódź", "łodz"), ("मुंबई", "मुंबई"),
    ("阿尔伯特·爱因斯坦", "阿尔伯特 爱因斯坦"), ("MOSCOW", "moscow"), ("Москва", "москва"),
])
def test_normalize(text, key):
    assert normalize(text) == key
    assert normalize(key) == key


def test_multi_row_insert_sql():
    from store.mirror import _multi_row
    sql = "INSERT INTO t (a, b) VALUES (? + 5, lower(?)) ON CONFLICT DO NOTHING"
    assert _multi_row(sql, 3) == ("INSERT INTO t (a, b) VALUES (? + 5, lower(?)), "
                                  "(? + 5, lower(?)), (? + 5, lower(?)) ON CONFLICT DO NOTHING")
    assert _multi_row("UPDATE t SET a = ? WHERE b = ?", 3) is None
    assert _multi_row("INSERT INTO t SELECT * FROM u", 3) is None


def test_executemany_binds_base_once_per_statement(tmp_path):
    from store.mirror import MULTI_ROWS, Mirror, executemany
    with Mirror(tmp_path / "m.sqlite", create=True) as m:
        m.query("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)")
        rows = [(i, f"v{i}") for i in range(MULTI_ROWS + 3)]   # a whole statement and a rest
        sql = "INSERT INTO t (k, v) VALUES ({base} + ?, ?)"
        assert executemany(m, sql, rows, base=1000) == len(rows)
        assert executemany(m, sql, [(0, "w")], base=5000) == 1  # the same text, a new base
        got = m.query("SELECT k, v FROM t ORDER BY k")
        assert got == [(1000 + i, f"v{i}") for i in range(len(rows))] + [(5000, "w")]
        with pytest.raises(ValueError, match="before the first"):
            executemany(m, "INSERT INTO t (k, v) VALUES (?, {base} + ?)", rows, base=1)
        m.raw.rollback()


def test_executemany_runs_rows_in_order_in_multi_row_statements(tmp_path):
    from store.mirror import MULTI_ROWS, Mirror, executemany
    with Mirror(tmp_path / "m.sqlite", create=True) as m:
        m.query("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT, n INTEGER DEFAULT 0)")
        n = 2 * MULTI_ROWS + 5                      # whole statements and a remainder
        rows = ((i % (n - 3), f"v{i}") for i in range(n))   # a generator; 3 repeated keys
        added = executemany(m, "INSERT INTO t (k, v) VALUES (?, ?) ON CONFLICT DO NOTHING",
                            rows)
        assert added == n - 3
        assert m.query("SELECT v FROM t WHERE k IN (0, 2, 7) ORDER BY k") == [
            ("v0",), ("v2",), ("v7",)]                    # the first of each key kept
        upsert = ("INSERT INTO t (k, v) VALUES (?, ?) "
                  "ON CONFLICT (k) DO UPDATE SET v = excluded.v, n = t.n + 1")
        executemany(m, upsert, [(1, "a"), (1, "b")] * MULTI_ROWS)   # one key, in one statement
        assert m.query("SELECT v, n FROM t WHERE k = 1") == [("b", 2 * MULTI_ROWS)]
        assert executemany(m, "INSERT INTO t (k, v) VALUES (?, ?)", []) == 0
        m.raw.commit()


@pytest.mark.parametrize("data, lines", [
    (b"", []),
    (b"[\n", [b"["]),
    (b'{"a":1},\n{"b":2},\r\n{"c":3}  \n]', [b'{"a":1}', b'{"b":2}', b'{"c":3}', b"]"]),
    (b"x,\n\n  \ny", [b"x", b"", b"", b"y"]),       # blank lines, no line end at the end
    (b"a , \n", [b"a "]),                           # whitespace, then one comma, go
])
def test_dump_records_are_lines_without_line_end_and_comma(data, lines):
    from store.batches import _count_lines, _records
    got = list(_records(data, 7))
    assert [bytes(line) for _, line in got] == lines
    assert [n for n, _ in got] == list(range(7, 7 + len(lines)))
    assert _count_lines(data) == len(lines) == len(data.splitlines())


class _QueryCanceled(Exception):
    """Stands for psycopg's QueryCanceled, which store.sparql.sql knows by its name."""


_QueryCanceled.__name__ = "QueryCanceled"


class _CancelledCursor:
    def execute(self, sql):
        if not sql.startswith("SET "):
            raise _QueryCanceled("canceling statement due to user request")

    def close(self):
        pass


class _Connection:
    def cursor(self):
        return _CancelledCursor()

    def rollback(self):
        pass


@pytest.mark.parametrize("timeout", [None, 5.0])
def test_a_cancelled_postgres_statement_is_a_timeout_only_under_one(timeout):
    """PostgreSQL's QueryCanceled is the statement_timeout's when one was set; without one
    (pg_cancel_backend) it goes on as it came, not as QueryTimeout(None), whose message
    cannot be written (a TypeError)."""
    from types import SimpleNamespace

    from store.errors import QueryTimeout
    from store.sparql.sql import _postgres_rows

    mirror = SimpleNamespace(raw=_Connection())
    with pytest.raises(_QueryCanceled if timeout is None else QueryTimeout):
        list(_postgres_rows(mirror, "SELECT 1", timeout))
