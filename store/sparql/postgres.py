"""The compiled SPARQL's SQL functions on PostgreSQL (SQLite runs their Python versions,
``store.sparql.expressions.SQL_FUNCTIONS``).

They are created in the session's temporary schema (``pg_temp``: nothing is written to
the mirror, and no privilege beyond a reader's is needed) the first time a connection
runs a plan that calls them, and called by their qualified name ``pg_temp.kg_…``.
Each returns what its Python twin returns, NULL where SPARQL has an error.
"""

from __future__ import annotations

from typing import Any

from store.errors import UnsupportedQuery
from store.sparql.expressions import (NUMERIC_TYPES, XSD_BOOLEAN, XSD_DATE, XSD_DATETIME,
                                      XSD_DECIMAL, XSD_DOUBLE, XSD_FLOAT, XSD_INTEGER,
                                      XSD_STRING, q, q_in)

#: xsd:dateTime's lexical form: sign, year (4+ digits), month, day, hours, minutes,
#: seconds, timezone
_DATETIME = (r"^(-?)([0-9]{4,})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):"
             r"([0-9]{2}(?:\.[0-9]+)?)(Z|[+-][0-9]{2}:[0-9]{2})?$")

_DECIMAL = r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)$"
_DOUBLE = r"^([+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?|[+-]?INF|NaN)$"

#: name → CREATE statement (run in this order: kg_datepart calls kg_datetime)
PG_FUNCTIONS: dict[str, str] = {
    # seconds since 1970 (proleptic Gregorian, UTC) of an xsd:dateTime, as datetime_key
    "kg_datetime": f"""
CREATE OR REPLACE FUNCTION pg_temp.kg_datetime(t text) RETURNS double precision
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  m text[]; y bigint; mo int; d int; hh int; mi int; ss numeric; era bigint; yoe bigint;
  days bigint; off int := 0;
BEGIN
  m := regexp_match(btrim(t, E' \\t\\n\\r'), {q(_DATETIME)});
  IF m IS NULL THEN RETURN NULL; END IF;
  y := (m[1] || m[2])::bigint; mo := m[3]::int; d := m[4]::int;
  hh := m[5]::int; mi := m[6]::int; ss := m[7]::numeric;
  IF mo < 1 OR mo > 12 OR d < 1
     OR d > (ARRAY[31,28,31,30,31,30,31,31,30,31,30,31])[mo]
            + (CASE WHEN mo = 2 AND y % 4 = 0 AND (y % 100 <> 0 OR y % 400 = 0) THEN 1 ELSE 0 END)
     OR mi >= 60 OR ss >= 60 OR NOT (hh < 24 OR (hh = 24 AND mi = 0 AND ss = 0)) THEN
    RETURN NULL;     -- e.g. Wikidata's 2016-06-31: not a date
  END IF;
  IF mo <= 2 THEN y := y - 1; END IF;            -- days from civil (H. Hinnant)
  era := floor(y / 400.0);
  yoe := y - era * 400;
  days := era * 146097 + yoe * 365 + yoe / 4 - yoe / 100
          + (153 * (mo + CASE WHEN mo > 2 THEN -3 ELSE 9 END) + 2) / 5 + d - 1 - 719468;
  IF m[8] IS NOT NULL AND m[8] <> 'Z' THEN
    off := (CASE WHEN left(m[8], 1) = '-' THEN -1 ELSE 1 END)
           * (substr(m[8], 2, 2)::int * 3600 + substr(m[8], 5, 2)::int * 60);
  END IF;
  RETURN days * 86400 + hh * 3600 + mi * 60 + ss - off;
END $$""",
    # YEAR/MONTH/DAY/HOURS/MINUTES of an xsd:dateTime or xsd:date, as date_part
    "kg_datepart": f"""
CREATE OR REPLACE FUNCTION pg_temp.kg_datepart(t text, dt text, part text) RETURNS bigint
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE m text[];
BEGIN
  IF t IS NULL OR dt IS NULL OR dt NOT IN ({q(XSD_DATETIME)}, {q(XSD_DATE)}) THEN
    RETURN NULL;
  END IF;
  m := regexp_match(btrim(t, E' \\t\\n\\r'),
                    '^(-?[0-9]{{4,}})-([0-9]{{2}})-([0-9]{{2}})(?:T([0-9]{{2}}):([0-9]{{2}}))?');
  IF m IS NULL OR (dt = {q(XSD_DATETIME)} AND pg_temp.kg_datetime(t) IS NULL) THEN
    RETURN NULL;
  END IF;
  RETURN (CASE part WHEN 'year' THEN m[1] WHEN 'month' THEN m[2] WHEN 'day' THEN m[3]
                    WHEN 'hours' THEN m[4] ELSE m[5] END)::bigint;
END $$""",
    # a literal cast to xsd:integer/decimal/double/float/boolean/dateTime, as cast_value
    "kg_cast": f"""
CREATE OR REPLACE FUNCTION pg_temp.kg_cast(t text, dt text, target text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  s text := btrim(t, E' \\t\\n\\r');
  d text := COALESCE(dt, '');
  exact numeric; approx double precision; is_double boolean := FALSE;
BEGIN
  IF t IS NULL THEN RETURN NULL; END IF;
  IF d IN ('', {q(XSD_STRING)}) THEN           -- from a string: its lexical form decides
    IF target = {q(XSD_INTEGER)} THEN
      RETURN CASE WHEN s ~ '^[+-]?[0-9]+$' THEN CAST(CAST(s AS numeric) AS text) END;
    ELSIF target = {q(XSD_DECIMAL)} THEN
      RETURN CASE WHEN s ~ {q(_DECIMAL)} THEN CAST(CAST(s AS numeric) AS text) END;
    ELSIF target IN ({q(XSD_DOUBLE)}, {q(XSD_FLOAT)}) THEN
      RETURN CASE WHEN s ~ {q(_DOUBLE)}
                  THEN CAST(CAST(replace(s, 'INF', 'Infinity') AS double precision) AS text) END;
    ELSIF target = {q(XSD_BOOLEAN)} THEN
      RETURN CASE s WHEN 'true' THEN 'true' WHEN '1' THEN 'true' WHEN 'false' THEN 'false'
                    WHEN '0' THEN 'false' END;
    ELSIF target = {q(XSD_DATETIME)} THEN
      RETURN CASE WHEN pg_temp.kg_datetime(s) IS NOT NULL THEN s END;
    END IF;
    RETURN NULL;
  END IF;
  IF d IN ({q(XSD_DOUBLE)}, {q(XSD_FLOAT)}) THEN
    IF s !~ {q(_DOUBLE)} THEN RETURN NULL; END IF;
    approx := CAST(replace(s, 'INF', 'Infinity') AS double precision); is_double := TRUE;
  ELSIF d IN {q_in(sorted(NUMERIC_TYPES))} THEN
    IF s !~ '^[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][+-]?[0-9]{{1,4}})?$' THEN
      RETURN NULL;
    END IF;
    exact := CAST(s AS numeric);
  ELSIF d = {q(XSD_BOOLEAN)} THEN
    exact := CASE WHEN s IN ('true', '1') THEN 1 ELSE 0 END;
  ELSE
    RETURN CASE WHEN target = {q(XSD_DATETIME)} AND d = {q(XSD_DATETIME)} THEN s END;
  END IF;
  IF is_double AND target IN ({q(XSD_INTEGER)}, {q(XSD_DECIMAL)}) THEN
    IF approx IN ('Infinity', '-Infinity', 'NaN') THEN RETURN NULL; END IF;
    exact := CAST(approx AS numeric);
  END IF;
  IF target = {q(XSD_INTEGER)} THEN RETURN CAST(trunc(exact) AS text);
  ELSIF target = {q(XSD_DECIMAL)} THEN RETURN CAST(exact AS text);
  ELSIF target IN ({q(XSD_DOUBLE)}, {q(XSD_FLOAT)}) THEN
    RETURN CAST(CASE WHEN is_double THEN approx ELSE CAST(exact AS double precision) END
                AS text);
  ELSIF target = {q(XSD_BOOLEAN)} THEN
    RETURN CASE WHEN (is_double AND (approx = 0 OR approx = 'NaN'))
                     OR (NOT is_double AND exact = 0) THEN 'false' ELSE 'true' END;
  END IF;
  RETURN NULL;
END $$""",
}


def register(conn: Any, names: frozenset[str] | set[str]) -> None:
    """Create the functions among ``names`` this DB-API connection lacks (all of them the
    first time: they call each other), and commit, so that a later failed statement's
    rollback keeps them. UnsupportedQuery when the server refuses (a read-only role or a
    standby cannot create even temporary functions): the query then goes to rdflib."""
    info = getattr(conn, "info", None)
    state = info if info is not None else {}
    known = state.setdefault("kgground_pg_functions", set())
    if not (set(names) & PG_FUNCTIONS.keys()) - known:
        return
    if "kgground_pg_refused" in state:          # asked once per connection
        raise UnsupportedQuery(state["kgground_pg_refused"])
    cursor = conn.cursor()
    try:
        for create in PG_FUNCTIONS.values():
            cursor.execute(create)
        conn.commit()
    except Exception as exc:  # noqa: BLE001 - any refusal: the driver's error classes vary
        conn.rollback()
        state["kgground_pg_refused"] = (
            "the date and cast functions, which PostgreSQL refused to create in the "
            f"session's pg_temp schema ({str(exc).splitlines()[0]})")
        raise UnsupportedQuery(state["kgground_pg_refused"]) from None
    finally:
        cursor.close()
    known.update(PG_FUNCTIONS)
