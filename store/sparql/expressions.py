"""Terms and expressions of the SPARQL→SQL compiler (``store.sparql.sql``).

Once a triple pattern binds a SPARQL variable, its value lives in SQL columns. ``Term`` says
which columns, in one of five shapes (categories):

======  ==============  ===============================================================
NODE    v               a node: entity ID (``Q42``), other IRI, or ``_:label`` blank node
STMT    v               a statement node: its statement ID (``Q42$…``)
TEXT    v, l            a literal without datatype: its text and language ('' for none)
OBJ     v, k, l, d      any value: value, value_kind, lang, datatype (statements' layout;
                        kinds entity, iri, bnode, literal, somevalue, and 'stmt')
INT     v               an xsd:integer computed by SQL (COUNT)
======  ==============  ===============================================================

``v`` is NULL exactly when the variable is unbound. OBJ is also the common shape UNION
branches are cast to.

Expressions compile to SQL in which NULL stands for SPARQL's error (an unbound variable, a
type error); SQL's three-valued NOT/AND/OR then behave as SPARQL's FILTER logic does.
Comparisons follow the SPARQL 1.1 operator mapping as Oxigraph implements it: numbers
compare by value, simple literals (and xsd:string) as strings, language-tagged literals of
one language as strings, xsd:dateTime by instant; literals of different known types are
unequal, an unknown datatype makes ``=`` an error unless the terms are identical, and IRIs
are never ordered by ``<``.
"""

from __future__ import annotations

import builtins
import dataclasses
import functools
import math
import re
from dataclasses import dataclass
from decimal import ROUND_DOWN, Decimal, localcontext
from typing import Any, Callable, Mapping, Sequence

from rdflib import BNode, Literal, URIRef, Variable

from store.errors import UnsupportedQuery
from store.normalize import normalize
from store.rdf_store import WDS, sid_from_iri
from store.regex import compile_regex, postgres_regex
from store.sparql.nodes import CompValue
from store.vocab import WD, XSD, iri_to_id

NODE, STMT, TEXT, OBJ, INT = "node", "stmt", "text", "obj", "int"
XSD_STRING, XSD_INTEGER = XSD + "string", XSD + "integer"
XSD_DATETIME, XSD_BOOLEAN = XSD + "dateTime", XSD + "boolean"
NUMERIC_TYPES = frozenset(XSD + t for t in (
    "integer", "decimal", "double", "float", "int", "long", "short", "byte",
    "nonNegativeInteger", "positiveInteger", "negativeInteger", "nonPositiveInteger",
    "unsignedLong", "unsignedInt", "unsignedShort", "unsignedByte"))
INTEGER_TYPES = NUMERIC_TYPES - {XSD + t for t in ("decimal", "double", "float")}
NODE_KINDS = "('entity', 'iri', 'bnode')"
NULL_TEXT = "CAST(NULL AS TEXT)"     # typed: PostgreSQL cannot choose a function for NULL


def q(text: str) -> str:
    """``text`` as an SQL string literal (constants are inlined, never concatenated raw)."""
    if "\x00" in text:
        raise UnsupportedQuery("a constant with a NUL character")
    return "'" + text.replace("'", "''") + "'"


def q_in(values: Sequence[str]) -> str:
    return "(" + ", ".join(q(v) for v in values) + ")"


NUMERIC_IN = q_in(sorted(NUMERIC_TYPES))
#: a lexical form PostgreSQL's NUMERIC reads (its CAST fails on others, SQLite's gives 0)
PG_NUMBER = q(r"^\s*[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]{1,4})?\s*$")


def as_number(v: str, pg: bool) -> str:
    """SQL: the numeric value of the lexical form ``v`` (NULL on PostgreSQL when it is not
    a number's; INF and NaN included, which NUMERIC does not order as SPARQL does)."""
    if pg:
        return f"CASE WHEN {v} ~ {PG_NUMBER} THEN CAST({v} AS NUMERIC) END"
    return f"CAST({v} AS NUMERIC)"
STRING_IN = q_in(["", XSD_STRING])


@dataclass(frozen=True)
class Term:
    """Where a variable's value is (see the module docstring)."""
    cat: str
    v: str
    k: str = "NULL"
    l: str = "''"  # noqa: E741 - the four column roles are v, k, l, d throughout
    d: str = "''"
    nullable: bool = False
    norm: str | None = None    # TEXT from label/alias rows: the indexed normalized text
    rowid: str | None = None   # STMT read from a statements row: that row's id

    @property
    def columns(self) -> tuple[str, ...]:
        if self.cat == TEXT:
            return (self.v, self.l)
        if self.cat == OBJ:
            return (self.v, self.k, self.l, self.d)
        return (self.v,)

    def rebased(self, columns: Sequence[str], nullable: bool) -> Term:
        """The same term read from other columns (a subquery's outputs)."""
        if self.cat == TEXT:
            return Term(TEXT, columns[0], l=columns[1], nullable=nullable)
        if self.cat == OBJ:
            return Term(OBJ, columns[0], k=columns[1], l=columns[2], d=columns[3],
                        nullable=nullable)
        return Term(self.cat, columns[0], nullable=nullable)

    def widened(self) -> Term:
        """This term in the OBJ shape."""
        v = self.v
        if self.cat == OBJ:
            return self
        if self.cat == NODE:
            kind = (f"CASE WHEN substr({v}, 1, 2) = '_:' THEN 'bnode' "
                    f"WHEN instr({v}, ':') = 0 THEN 'entity' ELSE 'iri' END")
            return Term(OBJ, v, k=kind, nullable=self.nullable)
        if self.cat == STMT:
            return Term(OBJ, v, k="'stmt'", nullable=self.nullable)
        if self.cat == TEXT:
            return Term(OBJ, v, k="'literal'", l=self.l, nullable=self.nullable)
        return Term(OBJ, f"CAST({v} AS TEXT)", k="'literal'", d=q(XSD_INTEGER),
                    nullable=self.nullable)

    def maybe_unbound(self) -> Term:
        return dataclasses.replace(self, nullable=True)


def same_term(a: Term, b: Term) -> list[str]:
    """SQL conditions true exactly when ``a`` and ``b`` hold the same RDF term (the join
    condition of a shared variable); ``['FALSE']`` when they never can."""
    if a.cat == b.cat:
        if a.cat == TEXT:
            return [f"{a.v} = {b.v}", f"{a.l} = {b.l}"]
        if a.cat == OBJ:
            return [f"{a.v} = {b.v}", f"{a.k} = {b.k}", f"{a.l} = {b.l}", f"{a.d} = {b.d}",
                    f"{a.k} != 'somevalue'"]
        return [f"{a.v} = {b.v}"]
    if b.cat == OBJ:
        a, b = b, a
    if a.cat == OBJ:
        if b.cat == NODE:
            return [f"{a.k} IN {NODE_KINDS}", f"{a.v} = {b.v}"]
        if b.cat == STMT:
            return [f"{a.k} = 'stmt'", f"{a.v} = {b.v}"]
        if b.cat == TEXT:
            return [f"{a.k} = 'literal'", f"{a.v} = {b.v}", f"{a.l} = {b.l}", f"{a.d} = ''"]
        if b.cat == INT:
            return [f"{a.k} = 'literal'", f"{a.d} = {q(XSD_INTEGER)}",
                    f"{a.v} = CAST({b.v} AS TEXT)"]
    return ["FALSE"]


def match_constant(t: Term, c: Any) -> list[str]:
    """SQL conditions that hold when ``t`` is the constant term ``c`` (triple patterns:
    exact RDF term identity)."""
    if isinstance(c, URIRef):
        sid = sid_from_iri(str(c))
        if sid is not None:
            if t.cat == STMT:
                return [f"{t.v} = {q(sid)}"]
            return [f"{t.k} = 'stmt'", f"{t.v} = {q(sid)}"] if t.cat == OBJ else ["FALSE"]
        node = iri_to_id(str(c))
        if t.cat == NODE:
            return [f"{t.v} = {q(node)}"]
        if t.cat == OBJ:
            kind = "entity" if node != str(c) else "iri"
            return [f"{t.v} = {q(node)}", f"{t.k} = {q(kind)}"]
        return ["FALSE"]
    if isinstance(c, Literal):
        lang = (c.language or "").lower()
        dtype = str(c.datatype) if c.datatype else ""
        if t.cat == TEXT:
            if dtype:
                return ["FALSE"]
            out = [f"{t.v} = {q(str(c))}", f"{t.l} = {q(lang)}"]
            if t.norm is not None:   # a label or alias: the label index finds it
                out.append(f"{t.norm} = {q(normalize(str(c)))}")
            return out
        if t.cat == OBJ:
            return [f"{t.v} = {q(str(c))}", f"{t.k} = 'literal'", f"{t.l} = {q(lang)}",
                    f"{t.d} = {q(dtype)}"]
        if t.cat == INT and dtype == XSD_INTEGER:
            return [f"{t.v} = {int(c)}"]
        return ["FALSE"]
    raise UnsupportedQuery(f"a {type(c).__name__} constant in a triple pattern")


# -- values of xsd:dateTime ---------------------------------------------------------------

_DATETIME = re.compile(r"(-?)(\d{4,})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d(?:\.\d+)?)"
                       r"(Z|[+-]\d\d:\d\d)?\Z")


_MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


@functools.lru_cache(maxsize=4096)
def datetime_key(text: Any) -> float | None:
    """Seconds since 1970 (proleptic Gregorian, UTC) of an xsd:dateTime lexical form, or
    None; negative and 5-digit years included, which Python's datetime cannot hold."""
    m = _DATETIME.match(str(text).strip()) if text is not None else None
    if m is None:
        return None
    y, mo, d = int(m[1] + m[2]), int(m[3]), int(m[4])
    hh, mi, ss = int(m[5]), int(m[6]), float(m[7])
    leap = y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)
    if not (1 <= mo <= 12 and 1 <= d <= _MONTH_DAYS[mo - 1] + (mo == 2 and leap)
            and mi < 60 and ss < 60 and (hh < 24 or (hh == 24 and mi == 0 and ss == 0))):
        return None                # e.g. Wikidata's 2016-06-31: not a date, as Oxigraph says
    y -= mo <= 2                                  # days from civil (H. Hinnant)
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (mo + (-3 if mo > 2 else 9)) + 2) // 5 + d - 1
    days = era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468
    offset = 0
    if m[8] and m[8] != "Z":
        sign = -1 if m[8][0] == "-" else 1
        offset = sign * (int(m[8][1:3]) * 3600 + int(m[8][4:6]) * 60)
    return days * 86400 + hh * 3600 + mi * 60 + ss - offset


def regex_match(text: Any, pattern: str, flags: str) -> int | None:
    """SPARQL REGEX as an SQL function (``kg_regex``): 1/0, NULL for a NULL text. RE2
    (``store.regex``): linear time, and the GIL let go while it matches."""
    if text is None:
        return None
    return int(compile_regex(pattern, flags).search(text) is not None)


_DATE_PARTS = {"Builtin_YEAR": "year", "Builtin_MONTH": "month", "Builtin_DAY": "day",
               "Builtin_HOURS": "hours", "Builtin_MINUTES": "minutes"}
_DATE = re.compile(r"(-?\d{4,})-(\d\d)-(\d\d)(?:T(\d\d):(\d\d))?")
XSD_DATE = XSD + "date"


@functools.lru_cache(maxsize=4096)
def date_part(text: Any, datatype: Any, part: str) -> int | None:
    """YEAR/MONTH/DAY/HOURS/MINUTES of an xsd:dateTime or xsd:date literal (SQL function
    ``kg_datepart``); None for other values (an error in SPARQL)."""
    if text is None or datatype not in (XSD_DATETIME, XSD_DATE):
        return None
    m = _DATE.match(text.strip())
    if m is None or (datatype == XSD_DATETIME and datetime_key(text) is None):
        return None
    index = ("year", "month", "day", "hours", "minutes").index(part)
    value = m[index + 1]
    return None if value is None else int(value)


def lower_case(text: Any) -> str | None:
    return None if text is None else str(text).lower()


def upper_case(text: Any) -> str | None:
    return None if text is None else str(text).upper()


XSD_DECIMAL, XSD_DOUBLE = XSD + "decimal", XSD + "double"
XSD_FLOAT = XSD + "float"
CASTS = frozenset({XSD_INTEGER, XSD_DECIMAL, XSD_DOUBLE, XSD_FLOAT, XSD_STRING, XSD_BOOLEAN,
                   XSD_DATETIME})
_INTEGER = re.compile(r"[+-]?\d+\Z")
_DECIMAL = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)\Z")
_DOUBLE = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\Z|[+-]?INF\Z|NaN\Z")


@functools.lru_cache(maxsize=4096)
def cast_value(text: Any, datatype: Any, target: str) -> str | None:
    """The lexical form of the literal (``text``, ``datatype``; '' for a plain string)
    cast to ``target`` as XPath's constructor functions do (SQL function ``kg_cast``), or
    None where the cast is an error."""
    if text is None:
        return None
    text, datatype = str(text).strip(), datatype or ""
    if datatype in ("", XSD_STRING):
        return _cast_string(text, target)
    try:
        number = _source_number(text, datatype)
    except (ValueError, ArithmeticError):
        return None
    if number is None:          # neither a number nor a boolean: only dateTime → dateTime
        return text if target == XSD_DATETIME and datatype == XSD_DATETIME else None
    return _cast_number(number, target)


def _source_number(text: str, datatype: str) -> Any:
    """The value of a numeric literal (Decimal, or float for xsd:double and xsd:float) or
    of an xsd:boolean (0 or 1); None for other datatypes. ValueError or ArithmeticError
    for a malformed number."""
    if datatype in NUMERIC_TYPES:
        return Decimal(text) if datatype not in (XSD_DOUBLE, XSD_FLOAT) else float(text)
    if datatype == XSD_BOOLEAN:
        return int(text in ("true", "1"))
    return None


def _cast_string(text: str, target: str) -> str | None:
    """``cast_value`` of a simple literal or xsd:string: its text read as ``target``'s
    lexical form (None where it is not one)."""
    if target == XSD_INTEGER:
        return str(int(text)) if _INTEGER.match(text) else None
    if target == XSD_DECIMAL:
        return str(Decimal(text)) if _DECIMAL.match(text) else None
    if target in (XSD_DOUBLE, XSD_FLOAT):
        return repr(float(text)) if _DOUBLE.match(text) else None
    if target == XSD_BOOLEAN:
        return {"true": "true", "1": "true", "false": "false", "0": "false"}.get(text)
    if target == XSD_DATETIME:
        return text if datetime_key(text) is not None else None
    return None


def _cast_number(number: Any, target: str) -> str | None:
    """``cast_value`` of a number or boolean (``_source_number``'s value) to ``target``
    (None where the cast is an error: infinities and NaN to integers and decimals,
    anything to xsd:dateTime or xsd:string)."""
    if target == XSD_INTEGER:
        if isinstance(number, float) and not math.isfinite(number):
            return None
        return str(int(number))
    if target == XSD_DECIMAL:
        if isinstance(number, float) and not math.isfinite(number):
            return None
        return str(Decimal(str(number)) if isinstance(number, float) else Decimal(number))
    if target in (XSD_DOUBLE, XSD_FLOAT):
        return repr(float(number))
    if target == XSD_BOOLEAN:
        return "false" if number == 0 or number != number else "true"
    return None


# -- aggregates (SQLite: Python classes registered on the connection) --------------------

def sparql_sort_key(v: Any, k: Any, l: Any, d: Any) -> tuple:  # noqa: E741
    """A term's place in SPARQL's ORDER BY (blank nodes, IRIs, literals; numbers by value,
    dates by instant, other literals by text), as a comparable tuple."""
    if k in ("bnode", "somevalue"):
        return (1, 0, 0.0, str(v), "")
    if k == "entity":                      # IRIs by their full text
        return (2, 0, 0.0, WD + str(v), "")
    if k == "stmt":
        return (2, 0, 0.0, WDS + str(v).replace("$", "-", 1), "")
    if k != "literal":
        return (2, 0, 0.0, str(v), "")
    if d in NUMERIC_TYPES:
        try:
            return (3, 0, float(v), str(v), l or "")
        except ValueError:
            pass
    if d == XSD_DATETIME and datetime_key(v) is not None:
        return (3, 1, datetime_key(v), str(v), l or "")
    return (3, 2, 0.0, str(v), l or "")


class PickAggregate:
    """``kg_pick(mode, part, v, k, l, d)``: MIN, MAX (SPARQL's order) or SAMPLE of the
    terms in a group; returns one column (``part``) of the chosen term. The four calls of
    one aggregate choose the same term."""

    def __init__(self) -> None:
        self.best: tuple | None = None
        self.key: tuple | None = None
        self.part = 0

    def step(self, mode: str, part: int, v: Any, k: Any, l: Any, d: Any) -> None:  # noqa: E741
        self.part = part
        if v is None:
            return
        if self.best is None:
            self.best, self.key = (v, k, l, d), sparql_sort_key(v, k, l, d)
        elif mode != "sample":
            key = sparql_sort_key(v, k, l, d)
            assert self.key is not None         # set with self.best
            if (key < self.key) if mode == "min" else (key > self.key):
                self.best, self.key = (v, k, l, d), key

    def finalize(self) -> Any:
        return None if self.best is None else self.best[self.part]


_TOWER = (XSD_INTEGER, XSD + "decimal", XSD + "float", XSD + "double")


class SumAggregate:
    """``kg_sum(mode, part, v, k, d)``: SUM or AVG of numeric literals; part 0 is the
    lexical form, 1 the datatype. Empty: 0 (xsd:integer); a value that is not a number
    (or unbound) makes the result unbound, as in SPARQL."""
    distinct = False

    def __init__(self) -> None:
        self.total: Any = 0
        self.type = 0
        self.count = 0
        self.failed = False
        self.mode, self.part = "sum", 0
        self.seen: set = set()

    def step(self, mode: str, part: int, v: Any, k: Any, d: Any) -> None:
        self.mode, self.part = mode, part
        if self.failed:
            return
        if v is None or k != "literal" or d not in NUMERIC_TYPES:
            self.failed = True
            return
        if self.distinct:
            if (v, d) in self.seen:
                return
            self.seen.add((v, d))
        rank = 0 if d not in _TOWER else _TOWER.index(d)
        if d not in _TOWER:
            rank = 0                          # integer subtypes (int, long, ...)
        try:
            number: Any = int(v) if rank == 0 else Decimal(v) if rank == 1 else float(v)
        except ValueError:
            self.failed = True
            return
        self.type = max(self.type, rank)
        if self.type >= 2:
            self.total = float(self.total) + float(number)
        elif self.type == 1:
            self.total = Decimal(self.total) + Decimal(number)
        else:
            self.total += number
        self.count += 1

    def finalize(self) -> Any:
        if self.failed:
            return None
        total, rank = self.total, self.type
        if self.mode == "avg" and self.count:
            if rank == 0:
                total, rank = Decimal(total), 1
            if rank == 1:      # xsd:decimal division as Oxigraph does it: 18 digits, cut
                with localcontext() as ctx:
                    ctx.prec = 80
                    total = (total / self.count).quantize(Decimal(1).scaleb(-18),
                                                          rounding=ROUND_DOWN)
            else:
                total = total / self.count
        if self.part == 1:
            return _TOWER[rank]
        if rank == 1:
            text = format(Decimal(total).normalize(), "f")
            return text if "." in text else text + ".0"
        return repr(float(total)) if rank >= 2 else str(total)


class DistinctSumAggregate(SumAggregate):
    distinct = True


class ConcatAggregate:
    """``kg_concat(separator, distinct, v, k, l, d)``: GROUP_CONCAT of string literals
    (another value makes it unbound); empty: ''."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self.failed = False
        self.sep, self.distinct = " ", 0

    def step(self, sep: str, distinct: int, v: Any, k: Any, l: Any, d: Any) -> None:  # noqa: E741
        self.sep, self.distinct = sep, distinct
        if v is None or k != "literal" or d not in ("", XSD_STRING):
            self.failed = True
        elif not distinct or v not in self.items:
            self.items.append(v)

    def finalize(self) -> Any:
        return None if self.failed else self.sep.join(self.items)


class ConcatLangAggregate:
    """``kg_concat_lang(k, l, d)``: the language of a GROUP_CONCAT: the one all values
    share, else none."""

    def __init__(self) -> None:
        self.langs: set = set()

    def step(self, k: Any, l: Any, d: Any) -> None:  # noqa: E741
        self.langs.add(l or "")

    def finalize(self) -> str:
        return next(iter(self.langs)) if len(self.langs) == 1 else ""


#: SQL aggregates the compiled SQL may call: name → (number of arguments, class)
SQL_AGGREGATES: dict[str, tuple[int, type]] = {
    "kg_pick": (6, PickAggregate),
    "kg_sum": (5, SumAggregate),
    "kg_sum_distinct": (5, DistinctSumAggregate),
    "kg_concat": (6, ConcatAggregate),
    "kg_concat_lang": (3, ConcatLangAggregate),
}


#: SQL functions the compiled SQL may call, registered on the connection when it does
SQL_FUNCTIONS: dict[str, tuple[int, Callable]] = {
    "kg_regex": (3, regex_match),
    "kg_datetime": (1, datetime_key),
    "kg_datepart": (3, date_part),
    "kg_lcase": (1, lower_case),
    "kg_ucase": (1, upper_case),
    "kg_cast": (3, cast_value),
}


# -- expressions -------------------------------------------------------------------------

@dataclass(frozen=True)
class Ex:
    """A compiled expression: 'term' (a variable's Term), 'const' (an rdflib term),
    'bool' (SQL 1/0/NULL), 'str' (SQL text of a string literal, ``lang`` its tag)."""
    kind: str
    sql: str = "NULL"
    term: Term | None = None    # set exactly when kind is 'term'
    const: Any = None
    lang: str = "''"


_UNBOUND = Ex("const", const=None)


def _iri_string(t: Term) -> str:
    """SQL: the IRI string of a node/statement term (NULL for blank nodes)."""
    if t.cat == NODE:
        return (f"CASE WHEN substr({t.v}, 1, 2) = '_:' THEN NULL "
                f"WHEN instr({t.v}, ':') = 0 THEN {q(WD)} || {t.v} ELSE {t.v} END")
    return _stmt_iri(t.v)


def _stmt_iri(v: str) -> str:
    return (f"{q(WDS)} || substr({v}, 1, instr({v}, '$') - 1) || '-' || "
            f"substr({v}, instr({v}, '$') + 1)")


class _View:
    """An operand seen as a node and as a literal: SQL pieces, or None when it never is
    one. ``node`` is a string that identifies the node (statement IDs are kept apart)."""

    def __init__(self, ex: Ex, pg: bool = False):
        self.pg = pg
        self.present = "TRUE"          # SQL: NULL/FALSE when unbound
        self.node: str | None = None
        self.is_node = "FALSE"
        self.lit: tuple[str, str, str] | None = None    # (v, l, d)
        self.is_lit = "FALSE"
        self.num = "NULL"
        if ex.kind == "const":
            self._const(ex.const)
        elif ex.kind == "str":
            self.lit, self.is_lit = (ex.sql, ex.lang, "''"), "TRUE"
            self.present = f"{ex.sql} IS NOT NULL"
        elif ex.kind == "term":
            assert ex.term is not None
            self._term(ex.term)
        else:
            raise UnsupportedQuery("a boolean expression compared as a value")

    def _const(self, c: Any) -> None:
        if c is None:
            self.present = "NULL"
        elif isinstance(c, URIRef):
            sid = sid_from_iri(str(c))
            self.node = q("\x01" + sid) if sid else q(iri_to_id(str(c)))
            self.is_node = "TRUE"
        elif isinstance(c, Literal):
            dtype = str(c.datatype) if c.datatype else ""
            self.lit = (q(str(c)), q((c.language or "").lower()), q(dtype))
            self.is_lit = "TRUE"
            if dtype in NUMERIC_TYPES:
                value = c.toPython()
                if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)) \
                        or not math.isfinite(value):
                    raise UnsupportedQuery(f"the number {c.n3()}")
                self.num = str(value) if isinstance(value, int) else repr(float(value))
        else:
            raise UnsupportedQuery(f"a {type(c).__name__} in an expression")

    def _term(self, t: Term) -> None:
        self.present = f"{t.v} IS NOT NULL"
        if t.cat == NODE:
            self.node, self.is_node = t.v, "TRUE"
        elif t.cat == STMT:
            self.node, self.is_node = f"char(1) || {t.v}", "TRUE"
        elif t.cat == TEXT:
            self.lit, self.is_lit = (t.v, t.l, "''"), "TRUE"
        elif t.cat == INT:
            self.lit, self.is_lit = (f"CAST({t.v} AS TEXT)", "''", q(XSD_INTEGER)), "TRUE"
            self.num = t.v
        else:
            # 'somevalue' is a blank node equal to nothing: neither branch takes it
            self.node = f"CASE {t.k} WHEN 'stmt' THEN char(1) || {t.v} ELSE {t.v} END"
            self.is_node = f"{t.k} IN ('entity', 'iri', 'bnode', 'stmt')"
            self.lit, self.is_lit = (t.v, t.l, t.d), f"{t.k} = 'literal'"
            self.num = f"CASE WHEN {t.d} IN {NUMERIC_IN} THEN {as_number(t.v, self.pg)} END"

    def cls(self) -> str:
        """SQL: the literal's comparison class (num, str, lang, dt, bool, other)."""
        assert self.lit is not None                             # literal views only
        _, lang, d = self.lit
        return (f"CASE WHEN {lang} != '' THEN 'lang' WHEN {d} IN {STRING_IN} THEN 'str' "
                f"WHEN {d} IN {NUMERIC_IN} THEN 'num' WHEN {d} = {q(XSD_DATETIME)} "
                f"THEN 'dt' WHEN {d} = {q(XSD_BOOLEAN)} THEN 'bool' ELSE 'other' END")


class ExprCompiler:
    """Compiles rdflib algebra expressions over ``vars``; notes the SQL functions used.

    ``dialect`` 'postgresql' writes PostgreSQL's SQL where the two differ (each difference
    in one helper: ``as_number``, ``text_key``, ``call``, ...); what PostgreSQL cannot
    run alike is reported to ``only_sqlite`` with the reason, and the plan goes to rdflib
    there."""

    def __init__(self, vars: Mapping[Variable, Term], functions: set[str],
                 exists: Callable[[Any, bool], str] | None = None, dialect: str = "sqlite",
                 only_sqlite: Callable[[str], None] | None = None):
        self.vars = vars
        self.functions = functions
        self.exists = exists
        self.pg = dialect == "postgresql"
        self.only_sqlite = only_sqlite or (lambda reason: None)

    def _view(self, x: Ex) -> _View:
        return _View(x, self.pg)

    def call(self, name: str) -> str:
        """The name to call the SQL function ``name`` (``SQL_FUNCTIONS``) by: SQLite's is
        registered on the connection, PostgreSQL's created in the session's pg_temp
        schema (``store.sparql.postgres``), where only a qualified name finds it."""
        self.functions.add(name)
        return f"pg_temp.{name}" if self.pg else name

    def text_key(self, sql: str) -> str:
        """``sql`` compared in code point order (SPARQL's): SQLite's default, PostgreSQL's
        "C" collation."""
        return f"({sql}) COLLATE \"C\"" if self.pg else sql

    # -- boolean ---------------------------------------------------------------------------
    def bool(self, e: Any, positive: bool = True) -> str:
        """SQL for a FILTER condition. ``positive``: only its truth matters (not under
        NOT), which lets equality use the label index."""
        if isinstance(e, (Variable, URIRef, Literal)) or not isinstance(e, CompValue):
            raise UnsupportedQuery("a FILTER on a term's effective boolean value",
                                   got=str(e))
        name = e.name
        if name == "TrueFilter":
            return "TRUE"
        if name in ("ConditionalAndExpression", "ConditionalOrExpression"):
            parts = [self.bool(x, positive) for x in [_get(e, "expr")] + (_get(e, "other") or [])]
            joiner = " AND " if name == "ConditionalAndExpression" else " OR "
            return "(" + joiner.join(parts) + ")" if len(parts) > 1 else parts[0]
        if name == "UnaryNot":
            return f"(NOT {self.bool(_get(e, 'expr'), not positive)})"
        if name == "RelationalExpression":
            return self._relational(e, positive)
        if name == "Builtin_BOUND":
            arg = self.operand(_get(e, "arg"))
            return f"({arg.term.v} IS NOT NULL)" if arg.term is not None else "FALSE"
        if name in ("Builtin_isIRI", "Builtin_isURI", "Builtin_isBLANK", "Builtin_isLITERAL",
                    "Builtin_isNUMERIC"):
            return self._is(name, self.operand(_get(e, "arg")))
        if name == "Builtin_sameTerm":
            return self._same_term(self.operand(_get(e, "arg1")), self.operand(_get(e, "arg2")))
        if name == "Builtin_LANGMATCHES":
            return self._langmatches(_get(e, "arg1"), _get(e, "arg2"))
        if name in ("Builtin_CONTAINS", "Builtin_STRSTARTS", "Builtin_STRENDS"):
            return self._string_test(name, _get(e, "arg1"), _get(e, "arg2"))
        if name == "Builtin_REGEX":
            return self._regex(_get(e, "text"), _get(e, "pattern"), _get(e, "flags"))
        if name in ("Builtin_EXISTS", "Builtin_NOTEXISTS") and self.exists is not None:
            return self.exists(_get(e, "graph"), name == "Builtin_NOTEXISTS")
        raise UnsupportedQuery(f"the function or operator {_describe(name)}")

    # -- values ----------------------------------------------------------------------------
    def operand(self, e: Any) -> Ex:
        if isinstance(e, Variable):
            t = self.vars.get(e)
            return Ex("term", term=t) if t is not None else _UNBOUND
        if isinstance(e, (URIRef, Literal)):
            return Ex("const", const=e)
        if isinstance(e, BNode):
            raise UnsupportedQuery("a blank node in an expression")
        if isinstance(e, CompValue):
            if e.name == "Builtin_LANG":
                return self._lang(self.operand(_get(e, "arg")))
            if e.name == "Builtin_STR":
                return self._str(self.operand(_get(e, "arg")))
            computed = self._computed(e)
            if computed is not None:
                return computed
            return Ex("bool", sql=self.bool(e))
        raise UnsupportedQuery(f"the expression {e!r}")

    def _computed(self, e: CompValue) -> Ex | None:
        """Functions that compute a value (not a truth value); None for the others."""
        name = e.name
        if name in ("Builtin_LCASE", "Builtin_UCASE"):
            return self._case_mapped(e)
        if name == "Builtin_SUBSTR":
            return self._substr(e)
        if name == "Builtin_STRLEN":
            return self._strlen(e)
        if name in _DATE_PARTS:
            return self._date_part(e)
        if name in ("UnaryMinus", "UnaryPlus"):
            return self._signed(e)
        if name == "Function" and str(_get(e, "iri")) in CASTS:
            return self._cast(e)
        return None

    def _case_mapped(self, e: CompValue) -> Ex:
        """LCASE or UCASE of a string (a constant folded here)."""
        name = e.name
        x = self.operand(_get(e, "arg"))
        if x.kind == "const":
            c = x.const
            if not isinstance(c, Literal) or (c.datatype is not None and
                                              str(c.datatype) != XSD_STRING):
                return Ex("str", sql="NULL")
            text = str(c).lower() if name == "Builtin_LCASE" else str(c).upper()
            return Ex("const", const=Literal(text, lang=c.language))
        text, lang = self._string_arg(x)
        if self.pg:     # ICU's root locale maps case on all of Unicode, as Python does
            fn = "lower" if name == "Builtin_LCASE" else "upper"
            return Ex("str", sql=f'{fn}({text} COLLATE "und-x-icu")', lang=lang)
        fn = "kg_lcase" if name == "Builtin_LCASE" else "kg_ucase"
        self.functions.add(fn)
        return Ex("str", sql=f"{fn}({text})", lang=lang)

    def _substr(self, e: CompValue) -> Ex:
        """SUBSTR(text, start[, length])."""
        text, lang = self._string_arg(self.operand(_get(e, "arg")))
        # the characters at positions start <= p < start + length (1-based); both
        # engines' substr read from a position >= 1 alike (SQLite counts a negative
        # one from the end)
        start = self._integer(self.operand(_get(e, "start")))
        first = self._greatest(start, "1")
        length = _get(e, "length")
        if length is None:
            return Ex("str", sql=f"substr({text}, {first})", lang=lang)
        size = self._integer(self.operand(length))
        count = self._greatest(f"{start} + {size} - {first}", "0")
        return Ex("str", sql=f"substr({text}, {first}, {count})", lang=lang)

    def _strlen(self, e: CompValue) -> Ex:
        """STRLEN(text): an integer."""
        text, _ = self._string_arg(self.operand(_get(e, "arg")))
        return Ex("term", term=Term(INT, f"length({text})", nullable=True))

    def _date_part(self, e: CompValue) -> Ex:
        """YEAR, MONTH, DAY, HOURS or MINUTES of a date: an integer (a constant folded
        here)."""
        name = e.name
        x = self.operand(_get(e, "arg"))
        if x.kind == "const":
            c = x.const
            part = date_part(str(c), str(c.datatype or ""), _DATE_PARTS[name]) \
                if isinstance(c, Literal) else None
            return Ex("term", term=Term(INT, "NULL" if part is None else str(part),
                                        nullable=part is None))
        if x.term is None or x.term.cat != OBJ:
            return Ex("term", term=Term(INT, "NULL", nullable=True))
        t = x.term
        value = f"CASE WHEN {t.k} = 'literal' THEN {t.v} END"
        return Ex("term", term=Term(
            INT, f"{self.call('kg_datepart')}({value}, {t.d}, {q(_DATE_PARTS[name])})",
            nullable=True))

    def _signed(self, e: CompValue) -> Ex:
        """A sign (unary + or -) applied to a numeric constant; UnsupportedQuery
        for a computed operand."""
        name = e.name
        x = self.operand(_get(e, "expr"))
        if x.kind == "const" and isinstance(x.const, Literal) and \
                str(x.const.datatype or "") in NUMERIC_TYPES:
            if name == "UnaryPlus":
                return x
            text = str(x.const)
            text = text[1:] if text.startswith("-") else "-" + text.lstrip("+")
            return Ex("const", const=Literal(text, datatype=x.const.datatype))
        raise UnsupportedQuery("a sign applied to a computed value")

    def _cast(self, e: CompValue) -> Ex:
        """An xsd cast (``CASTS``) of one argument (a constant folded here)."""
        target = str(_get(e, "iri"))
        args = _get(e, "expr") or []
        if len(args) != 1:
            raise UnsupportedQuery(f"a cast to <{target}> with {len(args)} arguments")
        x = self.operand(args[0])
        if target == XSD_STRING:
            s = self._str(x)
            return s if s.kind == "const" else Ex("term", term=Term(
                OBJ, s.sql, k="'literal'", d=q(XSD_STRING), nullable=True))
        if x.kind == "const":
            c = x.const
            lexical = cast_value(str(c), str(c.datatype or ""), target) \
                if isinstance(c, Literal) else None
            return Ex("const", const=None if lexical is None else
                      Literal(lexical, datatype=URIRef(target), normalize=False))
        v, d = self._literal_parts(x)
        return Ex("term", term=Term(OBJ, f"{self.call('kg_cast')}({v}, {d}, {q(target)})",
                                    k="'literal'", d=q(target), nullable=True))

    def _integer(self, x: Ex) -> str:
        """SQL: the value of an xsd:integer operand (SUBSTR's positions); NULL for any
        other value (an error, as Oxigraph has it for 1.0 or 2e0)."""
        if x.kind == "const":
            c = x.const
            if isinstance(c, Literal) and str(c.datatype or "") in INTEGER_TYPES:
                return str(int(c))
            return "NULL"
        if x.term is not None and x.term.cat == INT:
            return x.term.v
        if x.term is not None and x.term.cat == OBJ:
            t = x.term
            value = as_number(t.v, True) if self.pg else t.v
            return (f"CASE WHEN {t.k} = 'literal' AND {t.d} IN {q_in(sorted(INTEGER_TYPES))} "
                    f"THEN CAST({value} AS INTEGER) END")
        return "NULL"

    @staticmethod
    def _greatest(a: str, b: str) -> str:
        """SQL: the larger of two numbers, NULL if either is (PostgreSQL's GREATEST skips
        NULLs, SQLite's MAX has no such twin)."""
        return f"CASE WHEN {a} < {b} THEN {b} ELSE {a} END"

    def _literal_parts(self, x: Ex) -> tuple[str, str]:
        """(SQL lexical form, SQL datatype) of a literal operand; NULL form otherwise."""
        if x.kind == "str":
            return x.sql, "''"
        if x.kind != "term":
            raise UnsupportedQuery("a cast of a truth value")
        t = x.term
        assert t is not None
        if t.cat == TEXT:
            return f"CASE WHEN {t.l} = '' THEN {t.v} END", "''"
        if t.cat == INT:
            return f"CAST({t.v} AS TEXT)", q(XSD_INTEGER)
        if t.cat == OBJ:
            return f"CASE WHEN {t.k} = 'literal' THEN {t.v} END", t.d
        return "NULL", "''"

    def _lang(self, x: Ex) -> Ex:
        if x.kind == "const":
            if isinstance(x.const, Literal):
                return Ex("const", const=Literal((x.const.language or "").lower()))
            return Ex("str", sql="NULL")
        if x.kind == "str":
            return Ex("str", sql=f"CASE WHEN {x.sql} IS NOT NULL THEN {x.lang} END")
        if x.kind != "term":
            raise UnsupportedQuery("LANG() of a boolean")
        t = x.term
        assert t is not None
        if t.cat == TEXT:
            return Ex("str", sql=f"CASE WHEN {t.v} IS NOT NULL THEN {t.l} END")
        if t.cat == OBJ:
            return Ex("str", sql=f"CASE WHEN {t.k} = 'literal' THEN {t.l} END")
        if t.cat == INT:
            return Ex("str", sql=f"CASE WHEN {t.v} IS NOT NULL THEN '' END")
        return Ex("str", sql="NULL")

    def _str(self, x: Ex) -> Ex:
        if x.kind == "const":
            if x.const is None or isinstance(x.const, BNode):
                return Ex("str", sql="NULL")
            return Ex("const", const=Literal(str(x.const)))
        if x.kind == "str":
            return Ex("str", sql=x.sql)
        if x.kind != "term":
            raise UnsupportedQuery("STR() of a boolean")
        t = x.term
        assert t is not None
        if t.cat in (NODE, STMT):
            return Ex("str", sql=_iri_string(t))
        if t.cat == TEXT:
            return Ex("str", sql=t.v)
        if t.cat == INT:
            return Ex("str", sql=f"CAST({t.v} AS TEXT)")
        return Ex("str", sql=f"CASE {t.k} WHEN 'entity' THEN {q(WD)} || {t.v} "
                             f"WHEN 'stmt' THEN {_stmt_iri(t.v)} WHEN 'iri' THEN {t.v} "
                             f"WHEN 'literal' THEN {t.v} END")

    def _string_arg(self, x: Ex) -> tuple[str, str]:
        """(SQL text, SQL language tag) of a string literal argument; text NULL if the
        argument is not a string literal (a type error)."""
        if x.kind == "const":
            c = x.const
            if isinstance(c, Literal) and (c.datatype is None or str(c.datatype) == XSD_STRING):
                return q(str(c)), q((c.language or "").lower())
            return NULL_TEXT, "''"
        if x.kind == "str":
            return x.sql, x.lang
        if x.kind != "term":
            raise UnsupportedQuery("a string function applied to a boolean")
        t = x.term
        assert t is not None
        if t.cat == TEXT:
            return t.v, t.l
        if t.cat == OBJ:
            return (f"CASE WHEN {t.k} = 'literal' AND {t.d} IN {STRING_IN} THEN {t.v} END",
                    t.l)
        return NULL_TEXT, "''"

    def _string_test(self, name: str, a: Any, b: Any) -> str:
        (av, al), (bv, bl) = self._string_arg(self.operand(a)), self._string_arg(self.operand(b))
        if name == "Builtin_CONTAINS":
            test = f"instr({av}, {bv}) > 0"
        elif name == "Builtin_STRSTARTS":
            test = f"substr({av}, 1, length({bv})) = {bv}"
        else:
            test = (f"right({av}, length({bv})) = {bv}" if self.pg else
                    f"(length({bv}) = 0 OR substr({av}, -length({bv})) = {bv})")
        if bl == "''":
            return f"({test})"
        # "argument compatible": the second may carry a language only if the first has it
        return f"(CASE WHEN {bl} = '' OR {bl} = {al} THEN {test} END)"

    def _regex(self, text: Any, pattern: Any, flags: Any) -> str:
        if not isinstance(pattern, Literal) or not (flags is None or isinstance(flags, Literal)):
            raise UnsupportedQuery("REGEX with a pattern or flags that are not constants")
        flag_text = str(flags) if flags is not None else ""
        compile_regex(str(pattern), flag_text)      # QuerySyntaxError: the user's to fix
        tv, _ = self._string_arg(self.operand(text))
        if self.pg:
            translated, why = postgres_regex(str(pattern), flag_text)
            if translated is not None:
                op = "~*" if "i" in flag_text else "~"
                return f"({tv} {op} {q(translated)})"
            self.only_sqlite(f"REGEX {why}")
        self.functions.add("kg_regex")
        return f"kg_regex({tv}, {q(str(pattern))}, {q(flag_text)})"

    def _langmatches(self, tag: Any, rng: Any) -> str:
        tv, _ = self._string_arg(self.operand(tag))
        if not isinstance(rng, Literal):
            raise UnsupportedQuery("LANGMATCHES with a range that is not a constant")
        r = str(rng).lower()
        if r == "*":
            return f"({tv} != '')"
        return f"(lower({tv}) = {q(r)} OR substr(lower({tv}), 1, {len(r) + 1}) = {q(r + '-')})"

    def _is(self, name: str, x: Ex) -> str:
        if x.kind == "const":
            c = x.const
            test = {"Builtin_isIRI": isinstance(c, URIRef), "Builtin_isURI": isinstance(c, URIRef),
                    "Builtin_isBLANK": isinstance(c, BNode),
                    "Builtin_isLITERAL": isinstance(c, Literal),
                    "Builtin_isNUMERIC": isinstance(c, Literal) and c.datatype is not None
                    and str(c.datatype) in NUMERIC_TYPES}[name]
            return "NULL" if c is None else _truth(test)
        if x.kind == "str":
            return f"(CASE WHEN {x.sql} IS NOT NULL THEN {_truth(name == 'Builtin_isLITERAL')} END)"
        if x.kind != "term":
            raise UnsupportedQuery(f"{_describe(name)} of a boolean")
        t = x.term
        assert t is not None
        zero = f"(CASE WHEN {t.v} IS NOT NULL THEN FALSE END)"
        one = f"(CASE WHEN {t.v} IS NOT NULL THEN TRUE END)"
        if t.cat == NODE:
            blank = f"(substr({t.v}, 1, 2) = '_:')"
            return {"Builtin_isBLANK": blank, "Builtin_isLITERAL": zero,
                    "Builtin_isNUMERIC": zero}.get(name, f"(NOT {blank})")
        if t.cat == STMT:
            return zero if name in ("Builtin_isBLANK", "Builtin_isLITERAL",
                                    "Builtin_isNUMERIC") else one
        if t.cat in (TEXT, INT):
            if name == "Builtin_isLITERAL" or (name == "Builtin_isNUMERIC" and t.cat == INT):
                return one
            return zero
        return {"Builtin_isBLANK": f"({t.k} IN ('bnode', 'somevalue'))",
                "Builtin_isLITERAL": f"({t.k} = 'literal')",
                "Builtin_isNUMERIC": f"({t.k} = 'literal' AND {t.d} IN {NUMERIC_IN})"
                }.get(name, f"({t.k} IN ('entity', 'iri', 'stmt'))")

    def _same_term(self, a: Ex, b: Ex) -> str:
        if a.kind == "const" and b.kind == "const":
            return "NULL" if a.const is None or b.const is None else _truth(a.const == b.const)
        if a.kind == "const":
            a, b = b, a
        if a.term is None:
            raise UnsupportedQuery("sameTerm on a computed value")
        if b.kind == "const":
            if b.const is None:
                return "NULL"
            conds = match_constant(a.term, b.const)
        elif b.term is not None:
            conds = same_term(a.term, b.term)
        else:
            raise UnsupportedQuery("sameTerm on a computed value")
        return "(" + " AND ".join(conds) + ")"

    # -- comparisons -----------------------------------------------------------------------
    def _relational(self, e: CompValue, positive: builtins.bool) -> str:
        op = _get(e, "op")
        left = self.operand(_get(e, "expr"))
        if op in ("IN", "NOT IN"):
            others = [self.operand(x) for x in _get(e, "other") or []]
            if not others:
                return "FALSE" if op == "IN" else "TRUE"
            if op == "IN":
                return "(" + " OR ".join(self._eq(left, o, positive) for o in others) + ")"
            return "(" + " AND ".join(f"(NOT {self._eq(left, o, False)})"
                                      for o in others) + ")"
        right = self.operand(_get(e, "other"))
        if op == "=":
            return self._eq(left, right, positive)
        if op == "!=":
            return f"(NOT {self._eq(left, right, False)})"
        if op in ("<", ">", "<=", ">="):
            return self._order(left, op, right)
        raise UnsupportedQuery(f"the operator {op}")

    def _eq(self, a: Ex, b: Ex, positive: builtins.bool) -> str:
        """SQL for SPARQL's ``a = b`` (1, 0, or NULL for an error)."""
        if a.kind == "const" and b.kind != "const":
            a, b = b, a
        if positive and a.term is not None and b.kind == "const" and b.const is not None:
            fast = self._eq_fast(a.term, b.const)
            if fast is not None:
                return fast
        va, vb = self._view(a), self._view(b)
        branches = []
        if va.node is not None and vb.node is not None:
            branches.append((f"{va.is_node} AND {vb.is_node}", f"{va.node} = {vb.node}"))
        if va.lit is not None and vb.lit is not None:
            branches.append((f"{va.is_lit} AND {vb.is_lit}", self._literal_eq(va, vb)))
        return _case(va, vb, branches, otherwise="FALSE")

    def _eq_fast(self, t: Term, c: Any) -> str | None:
        """``t = c`` where only truth matters, written so that indexes serve it; None when
        no shortcut applies (numbers, dates and unknown datatypes compare by value)."""
        if isinstance(c, URIRef):
            return "(" + " AND ".join(match_constant(t, c)) + ")"
        if not isinstance(c, Literal):
            return None
        dtype = str(c.datatype) if c.datatype else ""
        if c.language:
            return "(" + " AND ".join(match_constant(t, c)) + ")"
        if dtype in ("", XSD_STRING):
            if t.cat == TEXT:
                out = [f"{t.v} = {q(str(c))}", f"{t.l} = ''"]
                if t.norm is not None:
                    out.append(f"{t.norm} = {q(normalize(str(c)))}")
                return "(" + " AND ".join(out) + ")"
            if t.cat == OBJ:
                return (f"({t.v} = {q(str(c))} AND {t.k} = 'literal' AND {t.l} = '' "
                        f"AND {t.d} IN {STRING_IN})")
            if t.cat in (NODE, STMT):
                return "FALSE"
        return None

    def _literal_eq(self, a: _View, b: _View) -> str:
        assert a.lit is not None and b.lit is not None      # both literal views
        (av, al, ad), (bv, bl, bd) = a.lit, b.lit
        ca, cb = a.cls(), b.cls()
        dt = self._datetime_pair(a, b)
        return (f"CASE WHEN {ca} = 'num' AND {cb} = 'num' THEN {a.num} = {b.num} "
                f"WHEN {ca} = 'dt' AND {cb} = 'dt' THEN {dt[0]} = {dt[1]} "
                f"WHEN {av} = {bv} AND {al} = {bl} AND {ad} = {bd} THEN TRUE "
                f"WHEN {ca} = 'str' AND {cb} = 'str' THEN {av} = {bv} "
                f"WHEN {ca} = 'lang' OR {cb} = 'lang' THEN FALSE "
                f"WHEN {ca} = 'other' OR {cb} = 'other' THEN NULL "
                f"WHEN {ca} = {cb} THEN {av} = {bv} ELSE FALSE END")

    def _order(self, a: Ex, op: str, b: Ex) -> str:
        va, vb = self._view(a), self._view(b)
        if va.lit is None or vb.lit is None:
            return _case(va, vb, [], otherwise="NULL")
        (av, al, _), (bv, bl, _) = va.lit, vb.lit
        ca, cb = va.cls(), vb.cls()
        dt = self._datetime_pair(va, vb)
        test = (f"CASE WHEN {ca} = 'num' AND {cb} = 'num' THEN {va.num} {op} {vb.num} "
                f"WHEN {ca} = 'str' AND {cb} = 'str' THEN {self.text_key(av)} {op} {bv} "
                f"WHEN {ca} = 'lang' AND {cb} = 'lang' AND {al} = {bl} "
                f"THEN {self.text_key(av)} {op} {bv} "
                f"WHEN {ca} = 'dt' AND {cb} = 'dt' THEN {dt[0]} {op} {dt[1]} END")
        return _case(va, vb, [(f"{va.is_lit} AND {vb.is_lit}", test)], otherwise="NULL")

    def _datetime_pair(self, a: _View, b: _View) -> tuple[str, str]:
        out = []
        for view in (a, b):
            assert view.lit is not None                         # literal views only
            v, _, d = view.lit
            if d == q(XSD_DATETIME) and v.startswith("'"):      # a constant: compute now
                key = datetime_key(v[1:-1].replace("''", "'"))
                out.append("NULL" if key is None else repr(key))
            elif d.startswith("'") and d != q(XSD_DATETIME):     # a constant of another type
                out.append("NULL")
            else:
                out.append(f"{self.call('kg_datetime')}({v})")
        return out[0], out[1]

    # -- ORDER BY --------------------------------------------------------------------------
    def order_keys(self, e: Any) -> list[str]:
        """SQL sort keys that order values as SPARQL does: unbound, blank nodes, IRIs,
        literals; numbers by value, dates by instant, other literals by their text."""
        x = self.operand(e)
        if x.kind == "const":
            return []
        if x.kind == "bool":
            return [x.sql]
        if x.kind == "str":
            return [self.text_key(x.sql)]
        t = x.term
        assert t is not None
        v = t.v
        if t.cat == NODE:
            return [f"CASE WHEN {v} IS NULL THEN NULL WHEN substr({v}, 1, 2) = '_:' THEN 1 "
                    f"ELSE 2 END", self.text_key(f"CASE WHEN instr({v}, ':') = 0 THEN "
                                                 f"{q(WD)} || {v} ELSE {v} END")]
        if t.cat == STMT:
            return [self.text_key(_stmt_iri(v))]
        if t.cat == TEXT:
            return [self.text_key(v), self.text_key(t.l)]
        if t.cat == INT:
            return [v]
        return self.term_keys(t)

    def term_keys(self, t: Term) -> list[str]:
        """Sort keys of an OBJ term: kind (unbound, blank, IRI, literal), number, instant,
        text (an IRI's in full), language; NULL where a key does not apply."""
        v = t.v
        return [f"CASE WHEN {v} IS NULL THEN NULL WHEN {t.k} IN ('bnode', 'somevalue') THEN 1 "
                f"WHEN {t.k} = 'literal' THEN 3 ELSE 2 END",
                f"CASE WHEN {t.k} = 'literal' AND {t.d} IN {NUMERIC_IN} "
                f"THEN {as_number(v, self.pg)} END",
                f"CASE WHEN {t.k} = 'literal' AND {t.d} = {q(XSD_DATETIME)} "
                f"THEN {self.call('kg_datetime')}({v}) END",
                self.text_key(f"CASE {t.k} WHEN 'entity' THEN {q(WD)} || {v} WHEN 'stmt' "
                              f"THEN {_stmt_iri(v)} ELSE {v} END"), self.text_key(t.l)]


def ex_term(x: Ex) -> Term:
    """A compiled expression as a variable's Term (BIND, computed SELECT values); NULL
    (unbound) where the expression is an error."""
    if x.term is not None:
        return x.term
    if x.kind == "str":
        return Term(TEXT, x.sql, l=x.lang, nullable=True)
    if x.kind == "bool":
        return Term(OBJ, f"CASE WHEN {x.sql} THEN 'true' WHEN NOT {x.sql} THEN 'false' END",
                    k="'literal'", d=q(XSD_BOOLEAN), nullable=True)
    c = x.const
    if c is None:
        return Term(TEXT, "NULL", nullable=True)
    if isinstance(c, URIRef):
        sid = sid_from_iri(str(c))
        return Term(STMT, q(sid)) if sid else Term(NODE, q(iri_to_id(str(c))))
    if isinstance(c, Literal):
        if c.datatype is None:
            return Term(TEXT, q(str(c)), l=q((c.language or "").lower()))
        return Term(OBJ, q(str(c)), k="'literal'", d=q(str(c.datatype)))
    raise UnsupportedQuery(f"the value {c!r}")


def _case(a: _View, b: _View, branches: list[tuple[str, str]], otherwise: str) -> str:
    """CASE: unbound → NULL, then ``branches``, else ``otherwise``."""
    parts = [f"WHEN NOT ({a.present} AND {b.present}) THEN NULL"]
    if "NULL" in (a.present, b.present):
        return "NULL"
    if a.present == "TRUE" and b.present == "TRUE":
        parts = []
    parts += [f"WHEN {cond} THEN {then}" for cond, then in branches]
    return f"(CASE {' '.join(parts)} ELSE {otherwise} END)"


def _truth(value: bool) -> str:
    """A constant truth value, spelled so both SQLite (3.23+) and PostgreSQL read it."""
    return "TRUE" if value else "FALSE"


def _get(node: CompValue, key: str) -> Any:
    """A raw field of an algebra node (CompValue's own accessors evaluate it in a context
    when another thread is evaluating the same cached query)."""
    return dict.get(node, key)


def _describe(name: str) -> str:
    return name.replace("Builtin_", "").replace("_", " ")
