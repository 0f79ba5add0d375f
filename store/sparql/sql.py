"""SPARQL over the mirror as one SQL statement.

``compile_query(algebra)`` turns the rdflib algebra of a SELECT or ASK query into an
``SqlPlan`` (the SQL text and how to turn its rows back into RDF terms), or raises
``UnsupportedQuery`` (a NotImplementedError) saying what it cannot compile, so that the
caller can fall back to rdflib's evaluator over ``store.rdf_store.MirrorStore``. Both
present the same triples (see that module).

Compiled: basic graph patterns over ``wdt:``, ``p:``, ``ps:``, ``pq:``, a custom KB's own
predicates, ``rdfs:label``, ``skos:altLabel``, ``schema:description``,
``wikibase:propertyType``, ``wikibase:rank``, WDQS's ``wikibase:directClaim``/``claim``/
``statementProperty``/``qualifier`` and ``a wikibase:Item``/``Property``; property paths
(``/``, ``^``, ``|``, and ``*``/``+``/``?`` as recursive CTEs seeded at the bound end, so
they never walk the whole graph); FILTER and computed values (see ``store.sparql.expressions``:
LCASE/UCASE, STRLEN, SUBSTR, YEAR/MONTH/DAY, xsd casts, ...), BIND and computed SELECT
expressions, OPTIONAL, UNION, VALUES, FILTER [NOT] EXISTS, MINUS, sub-SELECTs, DISTINCT
(with ORDER BY on variables not selected too), ORDER BY, LIMIT/OFFSET, COUNT, SUM, AVG,
MIN, MAX, SAMPLE, GROUP_CONCAT with GROUP BY/HAVING (empty groups as the spec says), ASK,
and the label service emulation (``store.sparql.labels``).

Not compiled: variable predicates, negated property sets, ``*``/``+`` paths between two
variables nothing else binds, arithmetic, GRAPH/FROM, CONSTRUCT and DESCRIBE, nested
OPTIONALs, MINUS on a variable that may be unbound. Joins on a variable that an OPTIONAL or
a VALUES UNDEF may leave unbound are compiled with SPARQL's compatibility rule (an unbound
side matches anything).

The plan targets SQLite (it calls SQLite's string functions and Python functions it
registers on the connection). Constants are inlined as quoted SQL literals, so a plan is
one fixed SQL text that SQLite's statement cache keeps prepared.

``compile_query(algebra, "postgresql")`` writes PostgreSQL's SQL where the two differ,
one place per difference: truth values are TRUE/FALSE for both; a path's recursive step
is an indexed join (SQLite's plan is a correlated id lookup); ``instr``, ``char`` and
``LIMIT -1`` are written ``strpos``, ``chr`` and ``LIMIT ALL`` (``spelled``); ORDER BY
puts NULL (unbound) first (``sort``) and compares text in the "C" collation, SPARQL's
code point order (``ExprCompiler.text_key``); a DISTINCT with ORDER BY keeps each row
where it first occurs; the label service concatenates with ``string_agg``; MIN/MAX/
SAMPLE/SUM/AVG/GROUP_CONCAT are array_agg/NUMERIC/float8/string_agg expressions
(``pg_aggregate``; SQLite runs Python aggregates); the date functions and casts are
PL/pgSQL twins of the Python ones (``store.sparql.postgres``), REGEX the ``~`` operator
where the pattern means the same there (``store.regex.postgres_regex``).
``SqlPlan.sqlite_only`` says why a plan PostgreSQL cannot run alike goes to rdflib there:
SUM/AVG(DISTINCT), another REGEX.
"""

from __future__ import annotations

import re
import sqlite3
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterator, cast

from rdflib import BNode, Literal, URIRef, Variable
from rdflib.paths import AlternativePath, InvPath, MulPath, Path, SequencePath

from store.errors import QueryTimeout, QueryTooComplex, UnsupportedQuery
from store.limits import current as current_limits
from store.limits import stop_check
from store.rdf_store import (DATATYPE_IRIS, RANK, RANK_IRIS, TERM_KINDS, WDS, literal_term,
                             node_term, sid_from_iri, statement_iri, to_term)
from store.sparql import labels
from store.sparql.expressions import (INT, NODE, NUMERIC_IN, OBJ, PG_NUMBER, SQL_AGGREGATES,
                                      SQL_FUNCTIONS, STMT, STRING_IN, TEXT, XSD_DECIMAL,
                                      XSD_DOUBLE, XSD_FLOAT, XSD_INTEGER, ExprCompiler, Term,
                                      _get, ex_term, match_constant, q, q_in, same_term)
from store.sparql.nodes import CompValue
from store.sparql.postgres import PG_FUNCTIONS
from store.sparql.postgres import register as register_pg_functions
from store.vocab import (ALIAS, ENTITY_CLASSES, LABEL, PQ, PROPERTY_ID, PROPERTY_LINKS,
                         PROPERTY_TYPE, PS, RDF_TYPE, RDFS_LABEL, WD, WDT, P, iri_to_id,
                         property_from_iri)

if TYPE_CHECKING:
    from store.mirror import Mirror

#: at most this many (start, end) pairs per * or + path: far more than any timeout lets a
#: query walk
CLOSURE_BOUND = 10_000_000
#: the longest SQL a query may be translated into (characters)
MAX_SQL = 1_000_000
#: the most tables one SELECT may join (SQLite's own limit: past it, rdflib's evaluator runs)
MAX_JOIN_TABLES = 64
_ALIAS_REF = re.compile(r"\b(a\d+)\.")
_DATATYPE_CASE = ("CASE {col} " + " ".join(f"WHEN {q(dt)} THEN {q(iri)}"
                                           for dt, iri in sorted(DATATYPE_IRIS.items()))
                  + " ELSE {col} END")


# -- relations: the SQL of a graph pattern while it is being built ----------------------

@dataclass
class Item:
    """One FROM item: a table or subquery with its alias; LEFT items carry ON conditions."""
    alias: str
    sql: str
    left: bool = False
    on: list[str] = field(default_factory=list)


@dataclass
class Rel:
    """A compiled graph pattern: FROM items, WHERE conditions, the variables' Terms, and
    the solution modifiers applied to it so far."""
    items: list[Item] = field(default_factory=list)
    where: list[str] = field(default_factory=list)
    vars: dict[Variable, Term] = field(default_factory=dict)
    group: list[str] | None = None     # None: not grouped; []: one group (COUNT without BY)
    having: list[str] = field(default_factory=list)
    order: list[str] = field(default_factory=list)

    def check_plain(self, what: str) -> None:
        if self.group is not None or self.order:
            raise UnsupportedQuery(f"{what} of a grouped or ordered pattern (a sub-SELECT)")

    def from_sql(self) -> str:
        parts = []
        for i, item in enumerate(self.items):
            if item.left:
                parts.append(f" LEFT JOIN {item.sql} ON {' AND '.join(item.on) or '1 = 1'}")
            else:
                parts.append(item.sql if i == 0 else f", {item.sql}")
        return "".join(parts)

    def select(self, columns: list[str], *, distinct: bool = False, limit: int | None = None,
               offset: int | None = None) -> str:
        if len(self.items) > MAX_JOIN_TABLES:
            raise UnsupportedQuery(f"a join of {len(self.items)} tables (SQLite joins "
                                   f"{MAX_JOIN_TABLES} at most)")
        sql = "SELECT " + ("DISTINCT " if distinct else "") + (", ".join(columns) or "1")
        if self.items:
            sql += " FROM " + self.from_sql()
        if self.where:
            sql += " WHERE " + " AND ".join(self.where)
        if self.group:
            sql += " GROUP BY " + ", ".join(self.group)
        if self.having:
            sql += " HAVING " + " AND ".join(self.having)
        if self.order:
            sql += " ORDER BY " + ", ".join(self.order)
        if limit is not None or offset:
            sql += f" LIMIT {limit if limit is not None else -1}"
            if offset:
                sql += f" OFFSET {offset}"
        return sql


# -- the plan ------------------------------------------------------------------------------

def _decode_node(row: tuple, i: int) -> Any:
    return node_term(row[i])


def _decode_stmt(row: tuple, i: int) -> Any:
    return URIRef(statement_iri(row[i]))


def _decode_text(row: tuple, i: int) -> Any:
    return literal_term(row[i], row[i + 1], "")


def _decode_obj(row: tuple, i: int) -> Any:
    return to_term(row[i + 1], row[i], row[i + 2], row[i + 3])


def _decode_int(row: tuple, i: int) -> Any:
    return Literal(row[i])


_DECODERS = {NODE: _decode_node, STMT: _decode_stmt, TEXT: _decode_text, OBJ: _decode_obj,
             INT: _decode_int}


@dataclass(frozen=True)
class SqlPlan:
    """A compiled query: ``sql``, and for SELECT the projected ``vars`` with, per variable,
    its first column and the function that builds its rdflib term from a row."""
    sql: str
    ask: bool
    vars: tuple[str, ...]
    decoders: tuple[tuple[str, int, Callable[[tuple, int], Any]], ...]
    functions: frozenset[str]
    #: why only SQLite can run this plan ('' when PostgreSQL can too)
    sqlite_only: str = ""

    def unavailable(self, mirror: Mirror) -> str:
        """Why ``mirror`` cannot run this plan ('' when it can): a PostgreSQL mirror, a
        plan only SQLite runs, or a server that refuses the functions the plan calls."""
        if mirror.is_sqlite:
            return ""
        if self.sqlite_only:
            return f"{self.sqlite_only} (SQLite mirrors only)"
        try:
            register_pg_functions(mirror.raw, self.functions)
        except UnsupportedQuery as exc:
            return str(exc)
        return ""

    def run(self, mirror: Mirror, *, timeout: float | None = None) -> list[dict] | bool:
        """Rows (dicts variable name → rdflib term, unbound left out) or, for ASK, a bool.
        Raises QueryError when ``timeout`` seconds pass first."""
        if self.ask:
            return bool(_execute(mirror, self.sql, self.functions, timeout))
        return list(self.stream(mirror, timeout=timeout))

    def stream(self, mirror: Mirror, *, timeout: float | None = None) -> Iterator[dict]:
        """The rows of a SELECT one by one, as SQLite produces them (memory stays
        bounded); closing the iterator stops the statement."""
        decoders = self.decoders
        for row in _rows(mirror, self.sql, self.functions, timeout):
            yield {name: fn(row, i) for name, i, fn in decoders if row[i] is not None}


def _execute(mirror: Mirror, sql: str, functions: frozenset[str],
             timeout: float | None) -> list[tuple]:
    return list(_rows(mirror, sql, functions, timeout))


def _rows(mirror: Mirror, sql: str, functions: frozenset[str],
          timeout: float | None) -> Iterator[tuple]:
    """The rows of ``sql`` as SQLite produces them; QueryTimeout past ``timeout`` seconds
    (counted from the first row asked for)."""
    if not mirror.is_sqlite:
        if functions:
            register_pg_functions(mirror.raw, functions)
        yield from _postgres_rows(mirror, sql, timeout)
        return
    raw = mirror.raw
    conn = getattr(raw, "driver_connection", raw)
    if functions:
        info = getattr(raw, "info", None)
        known = info.setdefault("kgground_sql_functions", set()) if info is not None else set()
        for name in functions - known:
            if name in SQL_AGGREGATES:
                nargs, cls = SQL_AGGREGATES[name]
                conn.create_aggregate(name, nargs, cls)
            else:
                nargs, fn = SQL_FUNCTIONS[name]
                conn.create_function(name, nargs, fn, deterministic=True)
            known.add(name)
    # the timeout, and the running query's limits (store.limits), stop SQLite where it is;
    # a handler is set even without them: Python runs a signal's handler (Ctrl-C's
    # KeyboardInterrupt) only where SQLite calls back into it
    deadline = time.monotonic() + timeout if timeout is not None else None
    stop = stop_check(deadline) or _never
    conn.set_progress_handler(stop, 10_000)
    query_limits = current_limits()
    cap = query_limits.max_rows if query_limits is not None else None
    cursor = None
    try:
        cursor = conn.execute(sql)
        fetched = 0
        while cap is None or fetched < cap:      # rows past the cap: never built
            batch = cursor.fetchmany(256 if cap is None else min(256, cap - fetched))
            if not batch:
                return
            fetched += len(batch)
            yield from batch
    except sqlite3.Error as exc:
        # stopped by the limits: SQLite says 'interrupted', or a Python function it was
        # calling was interrupted and it says that function failed
        if query_limits is not None and query_limits.tripped is not None:
            raise query_limits.tripped from None
        if "interrupted" in str(exc):
            if deadline is not None and time.monotonic() >= deadline:
                assert timeout is not None          # the deadline is set from it
                raise QueryTimeout(timeout) from None
            # nothing here stopped it: an exception raised in the progress handler, which
            # sqlite3 swallows — Ctrl-C's KeyboardInterrupt, from Python's signal handler
            raise KeyboardInterrupt from None
        if _TOO_BIG_FOR_SQLITE.search(str(exc)):
            raise QueryTooComplex(f"its SQL translation is past SQLite's limits ({exc})",
                                  fix="split the query, or nest fewer parts") from None
        raise
    finally:
        if cursor is not None:
            cursor.close()
        conn.set_progress_handler(None, 0)


def _never() -> bool:
    """A progress handler that never stops the query itself (see ``_sqlite_rows``)."""
    return False


#: what SQLite says of a statement past its own limits
_TOO_BIG_FOR_SQLITE = re.compile(r"too large|too many|stack overflow|at most \d+|too big",
                                 re.I)


def _postgres_rows(mirror: Mirror, sql: str, timeout: float | None) -> Iterator[tuple]:
    """The rows of a plan PostgreSQL can run (``SqlPlan.sqlite_only`` empty), with its
    ``statement_timeout`` as the timeout; the running query's row cap as for SQLite."""
    query_limits = current_limits()
    cap = query_limits.max_rows if query_limits is not None else None
    conn = mirror.raw
    cursor = conn.cursor()
    timed = timeout is not None
    try:
        if timeout is not None:
            cursor.execute(f"SET statement_timeout = {max(1, int(timeout * 1000))}")
        cursor.execute(sql)
        fetched = 0
        while cap is None or fetched < cap:
            batch = cursor.fetchmany(256 if cap is None else min(256, cap - fetched))
            if not batch:
                return
            fetched += len(batch)
            yield from batch
    except Exception as exc:
        conn.rollback()            # a failed statement aborts the transaction it was in
        timed = False              # (and the rollback undid the SET)
        # the statement_timeout; without one, a cancel from elsewhere (pg_cancel_backend)
        # is no timeout: it goes on as it came
        if type(exc).__name__ == "QueryCanceled" and timeout is not None:
            raise QueryTimeout(timeout) from None
        raise
    finally:
        if timed:
            try:
                cursor.execute("SET statement_timeout = 0")
            except Exception:  # noqa: BLE001 - the connection is gone: nothing to reset
                pass
        cursor.close()


#: SQLite-only spellings, in case one reaches a plan no marker excluded: a function
#: PostgreSQL lacks, ``rowid``, ``LIMIT -1``, a bare 1/0 as a condition (truth values are
#: written TRUE/FALSE, which both read)
_SQLITE_ONLY = re.compile(r"\b(?:instr|char|group_concat|glob|printf|julianday|strftime|"
                          r"typeof|unicode|rowid|(?<!pg_temp\.)kg_(?!rn\b|ordered\b)\w+)\b|"
                          r"LIMIT -1|"
                          r"\b(?:WHERE|AND|OR|ON|NOT|WHEN)\s+[01]\b(?!\s*[=<>!+*/|-])")
_SQL_STRING = re.compile(r"'(?:[^']|'')*'")
#: SQLite's functions PostgreSQL has under another name, the same meaning as used here
_RENAMES = {"instr(": "strpos(", "char(": "chr(", "LIMIT -1": "LIMIT ALL"}
_RENAMED = re.compile(r"'(?:[^']|'')*'|\b(?:instr|char)\(|LIMIT -1")


def _sqlite_only(sql: str, reasons: list[str], functions: set[str]) -> str:
    """Why PostgreSQL cannot run ``sql`` ('' when it can)."""
    if reasons:
        return reasons[0]
    python_only = functions - PG_FUNCTIONS.keys()
    if python_only:
        return "Python functions (" + ", ".join(sorted(python_only)) + ")"
    found = _SQLITE_ONLY.search(_SQL_STRING.sub("''", sql))
    return f"SQLite's {found.group()!r}" if found else ""


_PRETTY_TOKENS = re.compile(r"'(?:[^']|'')*'|[()]| (?:FROM|WHERE|GROUP BY|HAVING|ORDER BY|"
                            r"LIMIT|LEFT JOIN|UNION ALL) ")


def pretty_sql(sql: str) -> str:
    """``sql`` with its top-level clauses on lines of their own, for ``explain``."""
    out, depth, start = [], 0, 0
    for m in _PRETTY_TOKENS.finditer(sql):
        token = m.group()
        if token == "(":
            depth += 1
        elif token == ")":
            depth -= 1
        elif token[0] == " " and depth == 0:
            out.append(sql[start:m.start()])
            start = m.start() + 1
    out.append(sql[start:])
    return "\n".join(out)


# -- the compiler --------------------------------------------------------------------------

def compile_query(algebra: CompValue, dialect: str = "sqlite") -> SqlPlan:
    """The SqlPlan of a SELECT or ASK query's algebra; UnsupportedQuery when the query
    needs something the compiler does not do (the message says what). ``dialect``
    'postgresql' writes what the two engines plan differently PostgreSQL's way."""
    return _Compiler(dialect).query(algebra)


class _Compiler:
    def __init__(self, dialect: str = "sqlite") -> None:
        self.dialect = dialect
        self.n = 0
        self.functions: set[str] = set()
        self.sqlite_only: list[str] = []     # what makes the plan SQLite's alone

    def spelled(self, sql: str) -> str:
        """``sql`` in this dialect's names for the functions both have."""
        if self.dialect == "sqlite":
            return sql
        return _RENAMED.sub(lambda m: _RENAMES.get(m.group(), m.group()), sql)

    def only_sqlite(self, what: str) -> None:
        if what not in self.sqlite_only:
            self.sqlite_only.append(what)

    def alias(self) -> str:
        self.n += 1
        return f"a{self.n}"

    def expr(self, vars: dict[Variable, Term]) -> ExprCompiler:
        return ExprCompiler(vars, self.functions,
                            lambda g, negated: self.exists(vars, g, negated),
                            self.dialect, self.only_sqlite)

    # -- the query form and its solution modifiers -----------------------------------------
    def query(self, algebra: CompValue) -> SqlPlan:
        form = algebra.name
        if form not in ("SelectQuery", "AskQuery"):
            raise UnsupportedQuery(f"{form.replace('Query', '').upper()} queries")
        if _get(algebra, "datasetClause"):
            raise UnsupportedQuery("FROM / FROM NAMED")
        node = _get(algebra, "p")
        if form == "AskQuery":
            while node.name in ("Slice", "Distinct", "Reduced", "Project"):
                node = _get(node, "p")
            rel = self.pattern(node)
            sql = self.spelled(rel.select(["1"], limit=1))
            _check_size(sql)
            return SqlPlan(sql, True, (), (), frozenset(self.functions),
                           _sqlite_only(sql, self.sqlite_only, self.functions))
        sql, projection, terms = self.select(node)
        sql = self.spelled(sql)
        _check_size(sql)
        decoders, i = [], 0
        for var, term in terms:
            decoders.append((str(var), i, _DECODERS[term.cat]))
            i += len(term.columns)
        return SqlPlan(sql, False, tuple(str(v) for v in projection), tuple(decoders),
                       frozenset(self.functions),
                       _sqlite_only(sql, self.sqlite_only, self.functions))

    def select(self, node: CompValue, *, named: bool = False
               ) -> tuple[str, list[Variable], list[tuple[Variable, Term]]]:
        """(SQL, projected variables, [(variable, Term)] of those ever bound, in column
        order) of a SELECT's algebra below the query node. ``named``: columns c0, c1, ..."""
        limit = offset = None
        distinct = False
        if node.name == "Slice":
            offset, limit = _get(node, "start") or 0, _get(node, "length")
            node = _get(node, "p")
        if node.name in ("Distinct", "Reduced"):
            distinct = node.name == "Distinct"    # REDUCED may keep duplicates: it does
            node = _get(node, "p")
        projection: list[Variable] = []
        if node.name == "Project":
            projection = list(_get(node, "PV") or [])
            node = _get(node, "p")
        rel = self.pattern(node)
        first_seen = False
        if distinct and rel.order:
            wanted = set(projection)
            first_seen = any(v not in wanted for v in _order_vars(node))
        columns: list[str] = []
        terms = []
        for var in projection:
            term = rel.vars.get(var)
            if term is None:
                continue            # never bound: absent from every row
            terms.append((var, term))
            columns.extend(term.columns)
        if distinct and rel.order and self.dialect != "sqlite":
            first_seen = True     # PostgreSQL sorts a DISTINCT only by selected columns
        if first_seen and columns:
            sql = _distinct_in_order(rel, columns, limit, offset)
        else:
            if named:
                columns = [f"{c} AS c{i}" for i, c in enumerate(columns)]
            sql = rel.select(columns, distinct=distinct, limit=limit, offset=offset)
        return sql, projection, terms

    def subselect(self, node: CompValue) -> Rel:
        """A sub-SELECT: its SQL as a subquery, its projected variables read from it."""
        sql, _, terms = self.select(node, named=True)
        alias = self.alias()
        out = Rel([Item(alias, f"({sql}) AS {alias}")])
        i = 0
        for var, term in terms:
            width = len(term.columns)
            out.vars[var] = term.rebased([f"{alias}.c{i + j}" for j in range(width)],
                                         term.nullable)
            i += width
        return out

    # -- graph patterns --------------------------------------------------------------------
    def pattern(self, node: Any) -> Rel:
        query_limits = current_limits()       # translating counts toward the deadline too
        if query_limits is not None:
            query_limits.raise_if_stopped()
        if not isinstance(node, CompValue):
            raise UnsupportedQuery(f"the pattern {node!r}")
        method = getattr(self, "p_" + node.name, None)
        if method is None:
            raise UnsupportedQuery(_UNSUPPORTED.get(node.name, f"the construct {node.name}"))
        return method(node)

    def p_BGP(self, node: CompValue, outer: Rel | None = None) -> Rel:
        """A basic graph pattern. ``outer``: the pattern it will be joined to, whose
        variables may seed its * and + paths (the join then applies it in full)."""
        triples: list[tuple] = []
        later: list[tuple] = []
        for s, p, o in _get(node, "triples") or []:
            for t in self.expand_path(_hide_bnode(s), p, _hide_bnode(o)):
                (triples if isinstance(t[1], URIRef) else later).append(t)
        # qualifiers last, so that their statement row is already known
        triples.sort(key=lambda t: str(t[1]).startswith(PQ))
        rel = Rel()
        for s, p, o in triples:
            self.triple(rel, s, p, o)
        # alternatives next (they bind like triples); closures last, seeded from what the
        # rest of the pattern binds
        later.sort(key=lambda t: isinstance(t[1], MulPath))
        while later:
            i = next((i for i, (s, p, o) in enumerate(later)
                      if isinstance(p, AlternativePath) or self.anchored(rel, s, o, outer)),
                     None)
            if i is None:
                raise UnsupportedQuery(f"the property path {later[0][1].n3()} between two "
                                       "variables nothing else binds")
            s, p, o = later.pop(i)
            if isinstance(p, AlternativePath):
                branches = [CompValue("BGP", triples=[(s, alt, o)]) for alt in p.args]
                union = branches[0]
                for b in branches[1:]:
                    union = CompValue("Union", p1=union, p2=b)
                rel = self.join(rel, self.p_Union(union, distinct=True))
            else:
                self.closure(rel, s, p, o, outer)
        return rel

    def expand_path(self, s: Any, p: Any, o: Any) -> list[tuple]:
        """Triples whose predicate is an IRI, an AlternativePath or a MulPath."""
        if isinstance(p, URIRef):
            return [(s, p, o)]
        if isinstance(p, InvPath):
            return self.expand_path(o, p.arg, s)
        if isinstance(p, SequencePath):
            out, current = [], s
            for i, step in enumerate(p.args):
                nxt = o if i == len(p.args) - 1 else Variable(f"__path{self.alias()}")
                out.extend(self.expand_path(current, step, nxt))
                current = nxt
            return out
        if isinstance(p, (AlternativePath, MulPath)):
            return [(s, p, o)]
        if isinstance(p, Variable):
            raise UnsupportedQuery("a variable in predicate position")
        if isinstance(p, Path):
            raise UnsupportedQuery(f"the property path {p.n3()} (a negated property set)")
        raise UnsupportedQuery(f"the predicate {p!r}")

    @staticmethod
    def anchored(rel: Rel, s: Any, o: Any, outer: Rel | None = None) -> bool:
        return any(not isinstance(x, Variable) or x in rel.vars or _seeds(outer, x)
                   for x in (s, o))

    def closure(self, rel: Rel, s: Any, path: MulPath, o: Any,
                outer: Rel | None = None) -> None:
        """``s path* o`` (also ``+``, ``?``) as a recursive CTE over the statements, seeded
        with the constant or the values the pattern binds at one end and walking to the
        other. UNION (not UNION ALL) keeps each (seed, node) pair once, so cycles end."""
        steps = _closure_steps(path.path)
        # Seed from a constant end when there is one (it reaches few nodes, where the
        # values a pattern binds may be thousands), else from the end already bound.
        if not isinstance(o, Variable):
            forward = False
        elif not isinstance(s, Variable):
            forward = True
        else:
            forward = s in rel.vars or (o not in rel.vars and _seeds(outer, s))
        if not forward:
            steps = [(pid, not inverse) for pid, inverse in steps]
        start = s if forward else o
        seeding = outer if isinstance(start, Variable) and start not in rel.vars else rel
        assert seeding is not None      # anchored: outer binds the end rel does not
        seed = self.seed(seeding, start)

        def hop(start: str, source: str) -> str:       # one step from each row of source
            if self.dialect != "sqlite":     # PostgreSQL: a join, read through the index
                return " UNION ".join(
                    f"SELECT {start}, CAST(st.{'subject' if inverse else 'value'} AS TEXT) "
                    f"FROM {source} JOIN statements st ON st.{'value' if inverse else 'subject'}"
                    f" = r.node AND st.property = {q(pid)} AND st.truthy = 1 AND "
                    "st.value_kind IN ('entity', 'iri', 'bnode')" for pid, inverse in steps)
            # the rows are found by id through a correlated subquery: a plain join makes
            # SQLite build a Bloom filter over the whole statements table at every step
            return " UNION ".join(
                f"SELECT {start}, CAST(st.{'subject' if inverse else 'value'} AS TEXT) "
                f"FROM {source}, statements st WHERE st.id IN (SELECT id FROM statements WHERE "
                f"{'value' if inverse else 'subject'} = r.node AND property = {q(pid)} "
                "AND truthy = 1 AND value_kind IN ('entity', 'iri', 'bnode'))"
                for pid, inverse in steps)

        step, first = hop("r.seed", "r"), hop("r.node", "seeds r")
        # a zero-length path matches a node of the graph only (as Oxigraph does)
        # (CAST: PostgreSQL wants the recursive and the first part of a CTE of one type)
        zero = ("SELECT CAST(node AS TEXT), CAST(node AS TEXT) FROM seeds WHERE "
                "EXISTS (SELECT 1 FROM statements WHERE subject = node) OR "
                "EXISTS (SELECT 1 FROM statements WHERE value = node "
                "AND value_kind IN ('entity', 'iri', 'bnode')) OR "
                "EXISTS (SELECT 1 FROM terms WHERE entity = node)")
        if path.mod == "*":
            start, recursive = zero, True
        elif path.mod == "+":
            start, recursive = first, True
        else:                                         # ?: zero or one step
            start, recursive = f"{zero} UNION {first}", False
        body = f"{start} UNION {step}" if recursive else start
        begin, end = (s, o) if forward else (o, s)
        if not isinstance(begin, Variable) and isinstance(end, Variable) and end in rel.vars:
            # from a constant to a variable the pattern binds: a filter on that variable
            # (an IN list SQLite builds once), so the pattern's own join order stays
            t = rel.vars[end]
            members = (f"(WITH RECURSIVE seeds(node) AS ({seed}), r(seed, node) AS ({body}) "
                       f"SELECT node FROM r LIMIT {CLOSURE_BOUND})")
            if t.cat == NODE:
                rel.where.append(f"{t.v} IN {members}")
            elif t.cat == OBJ:
                rel.where.append(f"({t.k} IN ('entity', 'iri', 'bnode') AND {t.v} IN {members})")
            else:
                rel.where.append("FALSE")
            return
        a = self.alias()
        # The LIMIT bounds the walk, and keeps SQLite from building a Bloom filter over the
        # whole statements table for the join that reads the result.
        cte = (f"(WITH RECURSIVE seeds(node) AS ({seed}), r(seed, node) AS ({body}) "
               f"SELECT seed, node FROM r LIMIT {CLOSURE_BOUND}) AS {a}")
        rel.items.append(Item(a, cte))
        start_term, end_term = Term(NODE, f"{a}.seed"), Term(NODE, f"{a}.node")
        self.bind(rel, s, start_term if forward else end_term)
        self.bind(rel, o, end_term if forward else start_term)

    def seed(self, rel: Rel, node: Any) -> str:
        """SQL: the distinct node IDs ``node`` (a constant, or a variable ``rel`` binds)
        can be."""
        if not isinstance(node, Variable):
            if not isinstance(node, URIRef) or sid_from_iri(str(node)) is not None:
                raise UnsupportedQuery(f"a property path from {node.n3()}")
            return f"SELECT {q(iri_to_id(str(node)))}"
        t = rel.vars[node]
        probe = Rel(rel.items, list(rel.where), rel.vars)
        if t.cat == OBJ:
            probe.where.append(f"{t.k} IN ('entity', 'iri', 'bnode')")
        elif t.cat != NODE:
            raise UnsupportedQuery(f"a property path from ?{node}, which holds literals")
        return probe.select([t.v], distinct=True)

    def triple(self, rel: Rel, s: Any, p: URIRef, o: Any) -> None:
        pred = str(p)
        a = self.alias()
        if pred in PROPERTY_LINKS:              # wd:P31 wikibase:directClaim wdt:P31, ...
            rel.items.append(Item(a, f"entities {a}"))
            rel.where.append(f"{a}.kind = 'property'")
            self.bind(rel, s, Term(NODE, f"{a}.id"))
            namespace = PROPERTY_LINKS[pred]
            if isinstance(o, URIRef):
                rel.where.append(f"{a}.id = {q(str(o)[len(namespace):])}"
                                 if str(o).startswith(namespace) else "FALSE")
            else:
                self.bind(rel, o, Term(NODE, f"{q(namespace)} || {a}.id"))
            return
        if pred == RDF_TYPE and isinstance(o, URIRef) and str(o) in ENTITY_CLASSES:
            rel.items.append(Item(a, f"entities {a}"))   # ?x a wikibase:Item
            rel.where.append(f"{a}.kind = {q(ENTITY_CLASSES[str(o)])}")
            self.bind(rel, s, Term(NODE, f"{a}.id"))
            return
        if pred in TERM_KINDS:
            term_kind = TERM_KINDS[pred]
            rel.items.append(Item(a, f"terms {a}"))
            rel.where.append(f"{a}.kind = {term_kind}")
            self.bind(rel, s, Term(NODE, f"{a}.entity"))
            self.bind(rel, o, Term(TEXT, f"{a}.text", l=f"{a}.lang",
                                   norm=f"{a}.norm" if term_kind in (LABEL, ALIAS) else None))
            return
        if pred == PROPERTY_TYPE:
            rel.items.append(Item(a, f"entities {a}"))
            rel.where.append(f"{a}.datatype IS NOT NULL")
            self.bind(rel, s, Term(NODE, f"{a}.id"))
            self.bind(rel, o, Term(NODE, _DATATYPE_CASE.format(col=f"{a}.datatype")))
            return
        value = Term(OBJ, f"{a}.value", k=f"{a}.value_kind", l=f"{a}.lang", d=f"{a}.datatype")
        stmt = Term(STMT, f"{a}.sid", rowid=f"{a}.id")
        if pred == RANK:
            rel.items.append(Item(a, f"statements {a}"))
            rel.where.append(f"{a}.sid != ''")
            self.bind(rel, s, stmt)
            if isinstance(o, URIRef) and str(o) in RANK_IRIS:    # the rank column, directly
                rel.where.append(f"{a}.rank = {RANK_IRIS.index(str(o))}")
            else:
                self.bind(rel, o, Term(NODE, "CASE " + f"{a}.rank " + " ".join(
                    f"WHEN {i} THEN {q(iri)}" for i, iri in enumerate(RANK_IRIS)) + " END"))
            return
        for prefix, name in ((WDT, "wdt"), (PS, "ps"), (PQ, "pq"), (P, "p")):
            if pred.startswith(prefix):
                kind, pid = name, pred[len(prefix):]
                break
        else:
            kind, pid = "custom", pred
        if pred.startswith("http://www.wikidata.org/") and not (
                kind != "custom" and PROPERTY_ID.match(pid)):
            kind = "none"           # a Wikidata predicate the mirror does not present
        if kind == "pq":
            self.qualifier(rel, a, s, pid, o)
            return
        rel.items.append(Item(a, f"statements {a}"))
        rel.where.append(f"{a}.property = {q(pid)}")
        if kind in ("wdt", "custom", "none"):
            rel.where += [f"{a}.truthy = 1", f"{a}.value_kind != 'novalue'"]
            if kind == "none":
                rel.where.append("FALSE")
            self.bind(rel, s, Term(NODE, f"{a}.subject"))
            self.bind(rel, o, value)
        elif kind == "p":
            rel.where.append(f"{a}.sid != ''")
            self.bind(rel, s, Term(NODE, f"{a}.subject"))
            self.bind(rel, o, stmt)
        else:   # ps
            rel.where += [f"{a}.sid != ''", f"{a}.value_kind != 'novalue'"]
            self.bind(rel, s, stmt)
            self.bind(rel, o, value)

    def qualifier(self, rel: Rel, a: str, s: Any, pid: str, o: Any) -> None:
        rel.items.append(Item(a, f"qualifiers {a}"))
        rel.where += [f"{a}.property = {q(pid)}", f"{a}.value_kind != 'novalue'"]
        known = rel.vars.get(s) if isinstance(s, Variable) else None
        if known is not None and known.rowid is not None:
            rel.where.append(f"{a}.statement_id = {known.rowid}")
        else:                       # find the statement row the qualifier belongs to
            st = self.alias()
            rel.items.append(Item(st, f"statements {st}"))
            rel.where += [f"{st}.id = {a}.statement_id", f"{st}.sid != ''"]
            self.bind(rel, s, Term(STMT, f"{st}.sid", rowid=f"{st}.id"))
        self.bind(rel, o, Term(OBJ, f"{a}.value", k=f"{a}.value_kind", l=f"{a}.lang",
                               d=f"{a}.datatype"))

    def bind(self, rel: Rel, node: Any, term: Term) -> None:
        """A triple pattern's subject or object ``node`` is read from ``term``."""
        if isinstance(node, Variable):
            known = rel.vars.get(node)
            if known is None:
                rel.vars[node] = term
            else:
                rel.where.extend(same_term(known, term))
        else:
            rel.where.extend(match_constant(term, node))

    def p_Join(self, node: CompValue) -> Rel:
        r1, p2 = self.pattern(_get(node, "p1")), _get(node, "p2")
        if isinstance(p2, CompValue) and p2.name == "BGP":
            return self.join(r1, self.p_BGP(p2, outer=r1))
        return self.join(r1, self.pattern(p2))

    def join(self, r1: Rel, r2: Rel) -> Rel:
        r1.check_plain("a join")
        r2.check_plain("a join")
        out = Rel(r1.items + r2.items, r1.where + r2.where, {**r2.vars, **r1.vars})
        for var in r1.vars.keys() & r2.vars.keys():
            t1, t2 = r1.vars[var], r2.vars[var]
            out.where.extend(_compatible(t1, t2))
            out.vars[var] = _merged(t1, t2)
        return out

    def p_LeftJoin(self, node: CompValue) -> Rel:
        r1 = self.pattern(_get(node, "p1"))
        r2 = self.pattern(_get(node, "p2"))
        r1.check_plain("OPTIONAL")
        r2.check_plain("OPTIONAL")
        if any(i.left for i in r2.items):
            raise UnsupportedQuery("an OPTIONAL inside an OPTIONAL")
        conds = list(r2.where)
        for var in r1.vars.keys() & r2.vars.keys():
            conds.extend(_compatible(r1.vars[var], r2.vars[var]))
        expr = _get(node, "expr")
        if expr is not None and getattr(expr, "name", "") != "TrueFilter":
            conds.append(self.expr({**r2.vars, **r1.vars}).bool(expr))
        out = Rel(list(r1.items), list(r1.where), dict(r1.vars))
        if not out.items:
            out.items.append(Item("", "(SELECT 1)"))
        if not r2.items:
            raise UnsupportedQuery("an OPTIONAL without triple patterns")
        out.items.extend(_left_chain(r2.items, conds, {i.alias for i in r1.items}))
        for var, term in r2.vars.items():
            known = out.vars.get(var)
            out.vars[var] = term.maybe_unbound() if known is None else \
                _merged(known, term.maybe_unbound())
        return out

    def p_Filter(self, node: CompValue) -> Rel:
        rel = self.pattern(_get(node, "p"))
        cond = self.expr(rel.vars).bool(_get(node, "expr"))
        (rel.having if rel.group is not None else rel.where).append(cond)
        return rel

    def p_Union(self, node: CompValue, distinct: bool = False) -> Rel:
        """UNION: one subquery whose branches are cast to common shapes. ``distinct``:
        each solution once (property path alternatives, as Oxigraph evaluates them)."""
        branches: list[Any] = []
        stack = [node]
        while stack:
            n = stack.pop()
            if isinstance(n, CompValue) and n.name == "Union":
                stack += [_get(n, "p2"), _get(n, "p1")]
            else:
                branches.append(n)
        rels = [self.pattern(b) for b in branches]
        for r in rels:
            r.check_plain("UNION")
        names: list[Variable] = []
        for r in rels:
            names += [v for v in r.vars if v not in names]
        alias = self.alias()
        shapes: dict[Variable, Term] = {}
        for var in names:
            terms = [r.vars[var] for r in rels if var in r.vars]
            cats = {t.cat for t in terms}
            shapes[var] = terms[0] if len(cats) == 1 else terms[0].widened()
        selects = []
        for r in rels:
            columns: list[str] = []
            for var in names:
                shape, term = shapes[var], r.vars.get(var)
                if term is None:
                    values = ["NULL"] * len(shape.columns)
                else:
                    values = list((term if term.cat == shape.cat else term.widened()).columns)
                columns += [f"{v} AS c{len(columns) + i}" for i, v in enumerate(values)]
            selects.append(r.select(columns))
        joiner = " UNION " if distinct else " UNION ALL "
        out = Rel([Item(alias, f"({joiner.join(selects)}) AS {alias}")])
        i = 0
        for var in names:
            width = len(shapes[var].columns)
            nullable = any(var not in r.vars or r.vars[var].nullable for r in rels)
            out.vars[var] = shapes[var].rebased([f"{alias}.c{i + j}" for j in range(width)],
                                                nullable)
            i += width
        return out

    def p_ToMultiSet(self, node: CompValue) -> Rel:
        inner = _get(node, "p")
        if not isinstance(inner, CompValue):
            raise UnsupportedQuery(f"the pattern {inner!r}")
        if inner.name != "values":
            return self.subselect(inner)
        return self.inline_values(inner)

    def inline_values(self, node: CompValue) -> Rel:
        """A VALUES block as a SQL ``VALUES`` table: one column (NODE) for a variable
        whose values are all plain IRIs, four (OBJ) for the others; a variable that some
        row leaves UNDEF is nullable."""
        rows, names = _values_rows(node)
        shapes = _values_shapes(rows, names)
        alias = self.alias()
        tuples = []
        for row in rows:
            cells: list[str] = []
            for var in names:
                cells += _value_cells(row.get(var), shapes[var])
            tuples.append("(" + ", ".join(cells) + ")")
        out = Rel([Item(alias, f"(VALUES {', '.join(tuples)}) AS {alias}")])
        col = 1
        for var in names:
            width = 1 if shapes[var] == NODE else 4
            cols = [f"{alias}.column{col + j}" for j in range(width)]
            nullable = any(var not in row for row in rows)
            out.vars[var] = (Term(NODE, cols[0], nullable=nullable) if width == 1 else
                             Term(OBJ, cols[0], k=cols[1], l=cols[2], d=cols[3],
                                  nullable=nullable))
            col += width
        return out

    def p_Extend(self, node: CompValue) -> Rel:
        rel = self.pattern(_get(node, "p"))
        var, expr = _get(node, "var"), _get(node, "expr")
        if var in rel.vars:
            raise UnsupportedQuery(f"BIND to ?{var}, which is already bound")
        if isinstance(expr, Variable):
            if expr in rel.vars:
                rel.vars[var] = rel.vars[expr]
            return rel
        if isinstance(expr, CompValue) and expr.name == "Function" and \
                _get(expr, "iri") == labels.LABEL_FUNCTION:
            rel.vars[var] = self.label(rel, *_get(expr, "expr"))
            return rel
        rel.vars[var] = ex_term(self.expr(rel.vars).operand(expr))
        return rel

    def label(self, rel: Rel, subject: Any, languages: Literal, predicate: URIRef) -> Term:
        """The label service's value, as SQL subqueries over the terms table."""
        if isinstance(subject, Variable):
            t = rel.vars.get(subject)
            if t is None:
                return Term(TEXT, "NULL", nullable=True)
        else:
            t = Term(NODE, q(str(subject)[len(WD):] if str(subject).startswith(WD)
                             else str(subject)))
        if t.cat == NODE:
            node = t.v
        elif t.cat == OBJ:
            node = f"(CASE WHEN {t.k} IN ('entity', 'iri', 'bnode') THEN {t.v} END)"
        else:
            node = "NULL"
        kind = TERM_KINDS[str(predicate)]
        langs = str(languages).split(",")
        lookup = f"FROM terms WHERE entity = {node} AND kind = {kind}"
        if len(langs) == 1:
            best = q(langs[0])
        else:
            rank = " ".join(f"WHEN {q(lang)} THEN {i}" for i, lang in enumerate(langs))
            best = (f"(SELECT lang {lookup} AND lang IN {q_in(langs)} "
                    f"ORDER BY CASE lang {rank} END LIMIT 1)")
        concat = "group_concat(text, ', ')" if self.dialect == "sqlite" else \
            "string_agg(text, ', ')"
        text = f"(SELECT {concat} {lookup} AND lang = {best})"
        lang = f"COALESCE((SELECT lang {lookup} AND lang = {best} LIMIT 1), '')"
        if str(predicate) == RDFS_LABEL:
            text = f"COALESCE({text}, {_fallback_label(t)})"
        return Term(TEXT, text, l=lang, nullable=True)

    def p_AggregateJoin(self, node: CompValue) -> Rel:
        group = _get(node, "p")
        rel = self.pattern(_get(group, "p"))
        rel.check_plain("GROUP BY")
        keys = _get(group, "expr") or []
        if any(not isinstance(k, Variable) for k in keys):
            raise UnsupportedQuery("GROUP BY an expression")
        rel.group = [c for k in keys if k in rel.vars for c in rel.vars[k].columns]
        if keys and not rel.group:
            rel.group = ["NULL"]     # grouped by unbound variables: no group when no rows
        aggregates: dict[Variable, Term] = {}
        for agg in _get(node, "A") or []:
            var = _get(agg, "vars")
            if agg.name == "Aggregate_Sample" and var in keys:
                if var in rel.vars:
                    aggregates[_get(agg, "res")] = rel.vars[var]
                continue
            distinct = _get(agg, "distinct") == "DISTINCT"
            if agg.name != "Aggregate_Count":
                aggregates[_get(agg, "res")] = self.aggregate(rel, agg, distinct)
                continue
            if var == "*":
                if not distinct:
                    count = "COUNT(*)"
                else:
                    keyed = [f"COALESCE({_distinct_key(t)}, char(30))"
                             for v, t in sorted(rel.vars.items()) if not v.startswith("__")]
                    count = f"COUNT(DISTINCT {' || char(29) || '.join(keyed) or '1'})"
            elif isinstance(var, Variable):
                t = rel.vars.get(var)
                if t is None:
                    count = "0"
                else:
                    count = (f"COUNT(DISTINCT {_distinct_key(t)})" if distinct
                             else f"COUNT({t.v})")
            else:
                raise UnsupportedQuery("COUNT of an expression")
            aggregates[_get(agg, "res")] = Term(INT, count)
        rel.vars = aggregates
        return rel

    def aggregate(self, rel: Rel, agg: CompValue, distinct: bool) -> Term:
        """SUM, AVG, MIN, MAX, SAMPLE, GROUP_CONCAT as SQL aggregates. They follow SPARQL
        on empty groups (SUM and AVG 0, GROUP_CONCAT "", MIN/MAX/SAMPLE unbound) and on
        errors (a value SUM cannot add makes the sum unbound)."""
        kind = agg.name.split("_", 1)[1]
        arg = _get(agg, "vars")
        compiler = self.expr(rel.vars)
        t = ex_term(compiler.operand(arg)).widened()
        if self.dialect != "sqlite":
            return self.pg_aggregate(kind, t, distinct, agg, compiler)
        cols = ", ".join(t.columns)
        if kind in ("Min", "Max", "Sample"):
            self.functions.add("kg_pick")
            mode = q(kind.lower())
            parts = [f"kg_pick({mode}, {i}, {cols})" for i in range(4)]
            return Term(OBJ, parts[0], k=parts[1], l=parts[2], d=parts[3], nullable=True)
        if kind in ("Sum", "Avg"):
            fn = "kg_sum_distinct" if distinct else "kg_sum"
            self.functions.add(fn)
            mode = q(kind.lower())
            # Python's sqlite3 gives NULL for an aggregate that saw no row: an empty group
            # sums to 0 here
            return Term(OBJ, f"CASE WHEN COUNT(*) = 0 THEN '0' ELSE "
                             f"{fn}({mode}, 0, {t.v}, {t.k}, {t.d}) END", k="'literal'",
                        d=f"CASE WHEN COUNT(*) = 0 THEN {q(XSD_INTEGER)} ELSE "
                          f"{fn}({mode}, 1, {t.v}, {t.k}, {t.d}) END", nullable=True)
        if kind == "GroupConcat":
            self.functions.update(("kg_concat", "kg_concat_lang"))
            sep = _get(agg, "separator")
            sep = " " if sep is None else str(sep)
            return Term(TEXT, f"CASE WHEN COUNT(*) = 0 THEN '' ELSE "
                              f"kg_concat({q(sep)}, {int(distinct)}, {cols}) END",
                        l=f"COALESCE(kg_concat_lang({t.k}, {t.l}, {t.d}), '')", nullable=True)
        raise UnsupportedQuery(f"the aggregate {kind.upper()}")

    def pg_aggregate(self, kind: str, t: Term, distinct: bool, agg: CompValue,
                     compiler: ExprCompiler) -> Term:
        """``aggregate`` in PostgreSQL's SQL (SQLite runs Python aggregates): the same
        values, written with array_agg, string_agg and NUMERIC/float8 sums."""
        present = f"{t.v} IS NOT NULL"
        if kind in ("Min", "Max", "Sample"):
            # every column of the one term that sorts first: each array_agg sorts alike
            if kind == "Sample":
                keys = [f"{c} NULLS LAST" for c in t.columns]
            else:
                way = "ASC NULLS LAST" if kind == "Min" else "DESC NULLS FIRST"
                keys = [f"{k} {way}" for k in compiler.term_keys(t)] + \
                    [f"{c} {way}" for c in t.columns]
            order = ", ".join(keys)
            parts = [f"(array_agg(CAST({c} AS TEXT) ORDER BY {order}) "
                     f"FILTER (WHERE {present}))[1]" for c in t.columns]
            return Term(OBJ, parts[0], k=parts[1], l=parts[2], d=parts[3], nullable=True)
        if kind in ("Sum", "Avg"):
            if distinct:
                self.only_sqlite(f"{kind.upper()}(DISTINCT …) (a Python aggregate)")
            number = (f"({present} AND {t.k} = 'literal' AND {t.d} IN {NUMERIC_IN} "
                      f"AND {t.v} ~ {PG_NUMBER})")
            failed = f"bool_or(NOT COALESCE({number}, FALSE))"
            rank = (f"MAX(CASE {t.d} WHEN {q(XSD_DOUBLE)} THEN 3 WHEN {q(XSD_FLOAT)} THEN 2 "
                    f"WHEN {q(XSD_DECIMAL)} THEN 1 ELSE 0 END)")
            exact = f"CASE WHEN {number} THEN CAST({t.v} AS NUMERIC) END"
            double = f"CASE WHEN {number} THEN CAST({t.v} AS DOUBLE PRECISION) END"
            if kind == "Sum":
                value = (f"CASE WHEN {rank} >= 2 THEN CAST(SUM({double}) AS TEXT) "
                         f"WHEN {rank} = 1 THEN {_decimal_text(f'SUM({exact})')} "
                         f"ELSE CAST(SUM({exact}) AS TEXT) END")
                integer = q(XSD_INTEGER)
            else:     # xsd:decimal division as Oxigraph does it: 18 digits, cut
                value = (f"CASE WHEN {rank} >= 2 THEN CAST(AVG({double}) AS TEXT) ELSE "
                         + _decimal_text(f"trunc(round(SUM({exact}), 40) / COUNT(*), 18)")
                         + " END")
                integer = q(XSD_DECIMAL)
            dtype = (f"CASE WHEN {rank} = 0 THEN {integer} WHEN {rank} = 1 THEN "
                     f"{q(XSD_DECIMAL)} WHEN {rank} = 2 THEN {q(XSD_FLOAT)} "
                     f"ELSE {q(XSD_DOUBLE)} END")
            return Term(OBJ, f"CASE WHEN COUNT(*) = 0 THEN '0' WHEN {failed} THEN NULL "
                             f"ELSE {value} END", k="'literal'",
                        d=f"CASE WHEN COUNT(*) = 0 THEN {q(XSD_INTEGER)} ELSE {dtype} END",
                        nullable=True)
        if kind == "GroupConcat":
            sep = _get(agg, "separator")
            sep = " " if sep is None else str(sep)
            string = f"({present} AND {t.k} = 'literal' AND {t.d} IN {STRING_IN})"
            values = f"{'DISTINCT ' if distinct else ''}{t.v}"
            lang = f"COALESCE({t.l}, '')"
            return Term(TEXT, f"CASE WHEN COUNT(*) = 0 THEN '' "
                              f"WHEN bool_or(NOT COALESCE({string}, FALSE)) THEN NULL "
                              f"ELSE string_agg({values}, {q(sep)}) END",
                        l=f"CASE WHEN COUNT(DISTINCT {lang}) = 1 THEN MIN({lang}) ELSE '' END",
                        nullable=True)
        raise UnsupportedQuery(f"the aggregate {kind.upper()}")

    def p_OrderBy(self, node: CompValue) -> Rel:
        rel = self.pattern(_get(node, "p"))
        compiler = self.expr(rel.vars)
        for cond in _get(node, "expr") or []:
            expr, desc = cond, False
            if isinstance(cond, CompValue) and cond.name == "OrderCondition":
                expr, desc = _get(cond, "expr"), _get(cond, "order") == "DESC"
            rel.order += [self.sort(k, desc) for k in compiler.order_keys(expr)]
        if not rel.order:
            rel.order.append("1")    # ordered by constants: keep it marked as ordered
        return rel

    def sort(self, key: str, desc: bool) -> str:
        """An ORDER BY item: unbound (NULL) first, as SPARQL and SQLite order it
        (PostgreSQL puts NULL last unless told)."""
        if self.dialect == "sqlite":
            return f"{key} DESC" if desc else key
        return f"{key} DESC NULLS LAST" if desc else f"{key} NULLS FIRST"

    def p_Minus(self, node: CompValue) -> Rel:
        rel = self.pattern(_get(node, "p1"))
        rel.check_plain("MINUS")
        inner = self.pattern(_get(node, "p2"))
        shared = rel.vars.keys() & inner.vars.keys()
        if not shared:
            return rel               # MINUS removes only solutions sharing a variable
        for var in shared:
            if rel.vars[var].nullable or inner.vars[var].nullable:
                raise UnsupportedQuery(f"MINUS on ?{var}, which an OPTIONAL may leave unbound")
        rel.where.append("NOT " + _exists(inner, [c for v in shared
                                                  for c in same_term(rel.vars[v],
                                                                     inner.vars[v])]))
        return rel

    def exists(self, outer: dict[Variable, Term], graph: Any, negated: bool) -> str:
        """SQL for FILTER [NOT] EXISTS { graph }: correlated on the shared variables."""
        if isinstance(graph, CompValue) and graph.name.startswith("GroupGraphPattern"):
            from rdflib.plugins.sparql import parserutils
            from rdflib.plugins.sparql.algebra import translateGroupGraphPattern

            # rdflib's parser's node (store.sparql.algebra's EXISTS graphs are translated)
            graph = translateGroupGraphPattern(cast(parserutils.CompValue, graph))
        inner = self.pattern(graph)
        conds = []
        for var in outer.keys() & inner.vars.keys():
            t_out, t_in = outer[var], inner.vars[var]
            match = " AND ".join(same_term(t_out, t_in))
            # an unbound outer variable leaves the inner one free
            conds.append(f"({t_out.v} IS NULL OR {match})" if t_out.nullable else match)
        sql = _exists(inner, conds)
        return f"(NOT {sql})" if negated else sql

    # -- what it does not compile ----------------------------------------------------------
    def p_Project(self, node: CompValue) -> Rel:
        raise UnsupportedQuery("a sub-SELECT")


_UNSUPPORTED = {
    "Graph": "GRAPH patterns", "ServiceGraphPattern": "SERVICE (other than the label service)",
    "Distinct": "a sub-SELECT", "Slice": "a sub-SELECT", "Reduced": "a sub-SELECT",
    "Group": "GROUP BY without aggregates", "values": "VALUES here",
}


def _compatible(t1: Term, t2: Term) -> list[str]:
    """Join conditions for a variable both sides bind: SPARQL's compatibility, under which
    an unbound side (a VALUES UNDEF, an OPTIONAL that did not match) matches anything."""
    conds = same_term(t1, t2)
    guards = [f"{t.v} IS NULL" for t in (t1, t2) if t.nullable]
    if not guards:
        return conds
    return [f"({' OR '.join(guards)} OR ({' AND '.join(conds)}))"]


def _check_size(sql: str) -> None:
    if len(sql) > MAX_SQL:
        raise QueryTooComplex("translated SQL size in characters", len(sql), MAX_SQL,
                              fix="join fewer OPTIONAL or UNION parts on the same variables, "
                                  "or split the query")


def _merged(t1: Term, t2: Term) -> Term:
    """The variable after a join: whichever side bound it."""
    if not t1.nullable:
        return t1
    if not t2.nullable:
        return t2
    a, b = (t1, t2) if t1.cat == t2.cat else (t1.widened(), t2.widened())
    _check_size(a.v)
    _check_size(b.v)
    # the value column as COALESCE, not CASE: each merge then repeats the one before once,
    # not twice (a chain of OPTIONALs on one variable grew the SQL as 2^n: issue 32)
    return a.rebased([f"COALESCE({a.v}, {b.v})"]
                     + [f"CASE WHEN {a.v} IS NULL THEN {cb} ELSE {ca} END"
                        for ca, cb in zip(a.columns[1:], b.columns[1:], strict=True)],
                     nullable=True)


def _exists(inner: Rel, conds: list[str]) -> str:
    probe = Rel(inner.items, inner.where + conds, inner.vars)
    return f"EXISTS ({probe.select(['1'])})"


def _left_chain(items: list[Item], conds: list[str], outer: set[str]) -> list[Item]:
    """The OPTIONAL group ``items`` (inner-joined under ``conds``) as LEFT JOINs.

    SQLite would materialize a parenthesized group in full before joining it, so each table
    becomes its own LEFT JOIN instead, and ``EXISTS`` over the tables after it makes it
    match only rows that complete the whole group: all of the group matches, or none.
    """
    aliases = {i.alias for i in items}
    refs = [set(_ALIAS_REF.findall(c)) for c in conds]
    # Tables tied to the outer pattern first, then tables tied to those: each LEFT JOIN
    # probes an index instead of scanning.
    order: list[Item] = []
    placed = set(outer)
    remaining = list(items)
    while remaining:
        pick = next((it for it in remaining
                     if any(it.alias in r and (r - {it.alias}) & placed for r in refs)), None)
        if pick is None:
            pick = next((it for it in remaining
                         if any(r & aliases == {it.alias} for r in refs)), remaining[0])
        order.append(pick)
        placed.add(pick.alias)
        remaining.remove(pick)
    index = {it.alias: n for n, it in enumerate(order)}
    levels = [max((index[a] for a in r if a in index), default=0) for r in refs]
    out = []
    for n, item in enumerate(order):
        on = [c for c, lvl in zip(conds, levels, strict=True) if lvl == n]
        rest = order[n + 1:]
        if rest:
            later = [c for c, lvl in zip(conds, levels, strict=True) if lvl > n]
            probe = Rel([Item(i.alias, i.sql) for i in rest], later)
            on.append(f"EXISTS ({probe.select(['1'])})")
        out.append(Item(item.alias, item.sql, left=True, on=on))
    return out


def _fallback_label(t: Term) -> str:
    """SQL: what ?xLabel is when ?x has no label (see store.sparql.labels)."""
    # the node string is already the ID for entities and the full IRI for other nodes
    stmt = f"'statement/' || replace({t.v}, '$', '-')"
    if t.cat == NODE:
        return f"CASE WHEN substr({t.v}, 1, 2) = '_:' THEN NULL ELSE {t.v} END"
    if t.cat == STMT:
        return stmt
    if t.cat in (TEXT, INT):
        return f"CAST({t.v} AS TEXT)"
    return (f"CASE {t.k} WHEN 'stmt' THEN {stmt} WHEN 'bnode' THEN NULL "
            f"WHEN 'somevalue' THEN NULL ELSE {t.v} END")


def _decimal_text(number: str) -> str:
    """SQL: an xsd:decimal's text as the SQLite path writes it (no trailing zeros, '.0'
    on a whole number)."""
    text = f"CAST(trim_scale({number}) AS TEXT)"
    return f"CASE WHEN strpos({text}, '.') = 0 THEN {text} || '.0' ELSE {text} END"


def _distinct_key(t: Term) -> str:
    return " || char(31) || ".join(t.columns) if len(t.columns) > 1 else t.v


def _values_rows(node: CompValue) -> tuple[list[dict[Variable, Any]], list[Variable]]:
    """The rows of a VALUES block (variable → term, UNDEF left out) and its variables in
    order of first appearance; UnsupportedQuery for an empty block."""
    # rdflib spells UNDEF as the plain string 'UNDEF' (terms are str subclasses)
    rows = [{v: t for v, t in row.items() if type(t) is not str}
            for row in _get(node, "res") or []]
    names: list[Variable] = []
    for row in rows:
        names += [v for v in row if v not in names]
    if not rows or not names:
        raise UnsupportedQuery("an empty VALUES block")
    return rows, names


def _values_shapes(rows: list[dict[Variable, Any]], names: list[Variable]
                   ) -> dict[Variable, str]:
    """Each VALUES variable's shape: NODE when all its values are plain IRIs (no
    statement nodes), else OBJ; UnsupportedQuery for a blank node."""
    shapes = {}
    for var in names:
        values = [row[var] for row in rows if var in row]
        if any(isinstance(v, BNode) for v in values):
            raise UnsupportedQuery("a blank node in VALUES")
        plain = all(isinstance(v, URIRef) and not str(v).startswith(WDS) for v in values)
        shapes[var] = NODE if plain else OBJ
    return shapes


def _value_cells(value: Any, shape: str) -> list[str]:
    """SQL cells of one VALUES entry in the NODE or OBJ shape (UNDEF: NULLs)."""
    from store.rdf_store import sid_from_iri
    from store.vocab import iri_to_id

    if value is None:
        return ["NULL"] * (1 if shape == NODE else 4)
    if isinstance(value, URIRef):
        sid = sid_from_iri(str(value))
        if sid is not None:
            return [q(sid), "'stmt'", "''", "''"]
        node = iri_to_id(str(value))
        if shape == NODE:
            return [q(node)]
        return [q(node), q("entity" if node != str(value) else "iri"), "''", "''"]
    if isinstance(value, Literal):
        return [q(str(value)), "'literal'", q((value.language or "").lower()),
                q(str(value.datatype) if value.datatype else "")]
    raise UnsupportedQuery(f"the VALUES entry {value!r}")


def _distinct_in_order(rel: Rel, columns: list[str], limit: int | None,
                       offset: int | None) -> str:
    """SELECT DISTINCT ``columns`` in the order of ``rel``'s ORDER BY, which may sort on
    columns not selected: each distinct row sits where it first occurs (as SPARQL's
    DISTINCT over an ordered sequence, and Oxigraph, keep it)."""
    names = [f"c{i}" for i in range(len(columns))]
    order = ", ".join(rel.order)
    inner = Rel(rel.items, rel.where, rel.vars, rel.group, rel.having)
    inner_sql = inner.select([f"{c} AS {n}" for c, n in zip(columns, names)]
                             + [f"ROW_NUMBER() OVER (ORDER BY {order}) AS kg_rn"])
    sql = (f"SELECT {', '.join(names)} FROM ({inner_sql}) AS kg_ordered "
           f"GROUP BY {', '.join(names)} ORDER BY MIN(kg_rn)")
    if limit is not None or offset:
        sql += f" LIMIT {limit if limit is not None else -1}"
        if offset:
            sql += f" OFFSET {offset}"
    return sql


def _seeds(outer: Rel | None, var: Any) -> bool:
    """Whether ``outer`` binds ``var`` on every row (so it can seed a path closure)."""
    if outer is None or not isinstance(var, Variable) or var not in outer.vars:
        return False
    return not outer.vars[var].nullable and outer.group is None and not outer.order


def _closure_steps(path: Any) -> list[tuple[str, bool]]:
    """(property, inverse?) of each alternative one step of a ``*``/``+``/``?`` path takes:
    predicates held in the statements table, possibly inverted (``^``) or in ``|``."""
    if isinstance(path, AlternativePath):
        return [step for alt in path.args for step in _closure_steps(alt)]
    if isinstance(path, InvPath):
        return [(pid, not inverse) for pid, inverse in _closure_steps(path.arg)]
    if isinstance(path, URIRef):
        pred = str(path)
        pid = property_from_iri(pred)
        if pred in TERM_KINDS or pred in (PROPERTY_TYPE, RANK) or (
                pred.startswith("http://www.wikidata.org/") and not PROPERTY_ID.match(pid)):
            raise UnsupportedQuery(f"a * or + path over {path.n3()}")
        return [(pid, False)]
    raise UnsupportedQuery(f"the property path {path.n3()} under * or +")


def _hide_bnode(node: Any) -> Any:
    """A blank node in a query pattern acts as a variable that is never projected."""
    return Variable(f"__bnode_{node}") if isinstance(node, BNode) else node


def _order_vars(node: Any) -> set[Variable]:
    """Variables the ORDER BY under ``node`` sorts on."""
    out: set[Variable] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, CompValue):
            if n.name == "OrderBy":
                for cond in _get(n, "expr") or []:
                    out |= _variables(cond)
                continue
            stack.extend(v for k, v in n.items() if k in ("p", "p1", "p2"))
    return out


def _variables(node: Any) -> set[Variable]:
    if isinstance(node, Variable):
        return {node}
    if isinstance(node, CompValue):
        return set().union(*(_variables(v) for k, v in node.items() if k != "_vars"))
    if isinstance(node, (list, tuple)):
        return set().union(*(_variables(v) for v in node))
    return set()
