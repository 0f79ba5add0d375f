"""The SPARQL engine is one package with one entry point, and SQL lives in store/ only
(docs/DESIGN.md): kb/ holds no SQL text, no SQLAlchemy, no call that runs SQL, and runs
SPARQL over its own data through ``store.sparql.run``, importing the engine from the
package, never from its modules."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import store.sparql
from store.sparql import Answer, run

REPO = Path(__file__).resolve().parents[1]

#: text that reads as a SQL statement, its keywords in capitals as this code writes SQL
#: (SPARQL's ``SELECT ?x WHERE {`` and ``FROM <iri>``, and prose, do not match)
SQL_TEXT = re.compile(
    r"\bSELECT\b[^{}?\n]*?\bFROM\s+[A-Za-z_]|\bINSERT\s+(?:OR\s+\w+\s+)?INTO\b"
    r"|\bDELETE\s+FROM\b|\bUPDATE\s+\w+\s+SET\b|\bCREATE\s+(?:TEMP\s+|TEMPORARY\s+)?"
    r"(?:TABLE|INDEX|VIEW|TRIGGER)\b|\bPRAGMA\s|\bDROP\s+(?:TABLE|INDEX)\b"
    r"|\bWHERE\s+\w+(?:\.\w+)?\s*(?:=|IN\s*\(|>|<)\s*(?:\?|%s|:\w)")
#: calls that run SQL: DB-API and SQLAlchemy's, and the mirror's raw query
SQL_CALLS = {"execute", "executemany", "executescript", "exec_driver_sql", "text"}


def _strings(tree: ast.AST) -> list[tuple[int, str]]:
    """Every string constant, with an f-string's literal parts joined around its fields
    (so that ``f"SELECT a FROM {t}"`` reads as ``SELECT a FROM  ``)."""
    found = []
    inside_fstrings: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            parts = [v.value if isinstance(v, ast.Constant) and isinstance(v.value, str)
                     else " x " for v in node.values]
            found.append((node.lineno, "".join(parts)))
            inside_fstrings.update(id(v) for v in node.values)
    for node in ast.walk(tree):
        if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                and id(node) not in inside_fstrings):
            found.append((node.lineno, node.value))
    return found


def sql_in(tree: ast.AST) -> list[str]:
    """Where ``tree`` writes or runs SQL: SQL text, a SQLAlchemy or sqlite3 import, a call
    that runs SQL (``execute``, ``text``, ...) or a call of ``Mirror.query``."""
    problems = [f"{line}: SQL text {text.strip()[:60]!r}" for line, text in _strings(tree)
                if SQL_TEXT.search(text)]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            problems += [f"{node.lineno}: imports {a.name}" for a in node.names
                         if a.name.split(".")[0] == "sqlalchemy"]
        elif isinstance(node, ast.ImportFrom) and node.module and \
                node.module.split(".")[0] == "sqlalchemy":
            problems.append(f"{node.lineno}: imports from {node.module}")
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else \
                func.id if isinstance(func, ast.Name) else ""
            if name in SQL_CALLS:
                problems.append(f"{node.lineno}: calls {name}()")
            elif name == "query" and isinstance(func, ast.Attribute) and (
                    isinstance(func.value, ast.Attribute) and func.value.attr == "mirror"
                    or isinstance(func.value, ast.Name) and func.value.id == "mirror"):
                problems.append(f"{node.lineno}: calls mirror.query()")
    return problems


def _kb_files() -> list[Path]:
    return sorted((REPO / "kb").rglob("*.py"))


def test_kb_holds_no_sql():
    problems = [f"{path.relative_to(REPO)}:{p}" for path in _kb_files()
                for p in sql_in(ast.parse(path.read_text(encoding="utf-8")))]
    assert problems == []


def test_the_sql_check_sees_sql():
    source = '''
import sqlalchemy as sa
from sqlalchemy import text
def f(mirror, conn, kb, table):
    kb.mirror.query("SELECT kind FROM entities WHERE id = ?", ("Q1",))
    mirror.query(f"SELECT id FROM {table} WHERE norm = ?", ())
    conn.execute(text("DELETE FROM answers"))
    q = "SELECT ?x WHERE { ?x wdt:P31 wd:Q5 } LIMIT 1"
'''
    found = sql_in(ast.parse(source))
    assert any("imports sqlalchemy" in p for p in found)
    assert any("imports from sqlalchemy" in p for p in found)
    assert sum("mirror.query()" in p for p in found) == 2
    assert any("calls execute()" in p for p in found) and any("calls text()" in p
                                                              for p in found)
    assert sum("SQL text" in p for p in found) == 3        # the SPARQL query is not SQL
    assert not any("?x wdt:P31" in p for p in found)


def _imports_of(path: Path) -> list[tuple[str, list[str]]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [(node.module, [a.name for a in node.names]) for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module
            and node.module.startswith("store.sparql")]


def test_layers_above_store_import_the_engine_from_its_package_only():
    """kb/ (and every layer above) names ``store.sparql``, never its modules."""
    deep = []
    for layer in ("kb", "linking", "querygen", "chains", "reasoning"):
        for path in sorted((REPO / layer).rglob("*.py")):
            deep += [f"{path.relative_to(REPO)}: from {module} import ..."
                     for module, _ in _imports_of(path) if module != "store.sparql"]
    assert deep == []


def test_the_kbs_run_sparql_through_the_one_entry_point():
    """MirrorKB and RdfGraphKB answer SPARQL by ``store.sparql.run``, which is the
    package's ``run``; nothing in kb/ reaches for the engine's internals to run a query."""
    users = {path.name for path in _kb_files()
             if any("run" in names for module, names in _imports_of(path))}
    assert {"mirror.py", "rdfgraph.py"} <= users
    assert store.sparql.run is run and "run" in store.sparql.__all__
    runners = {"plan", "compile_query", "rdflib_answer", "evalQuery"}
    for path in _kb_files():
        text = path.read_text(encoding="utf-8")
        assert not any(re.search(rf"\b{name}\(", text) for name in runners), path


def test_the_entry_point_answers_a_mirror_and_a_graph(demo_mirror_path):
    from rdflib import Graph, Literal, URIRef

    from store.mirror import Mirror

    with Mirror(demo_mirror_path) as mirror:
        answer = run(mirror, "SELECT ?o WHERE { wd:Q937 wdt:P69 ?o }")
        assert isinstance(answer, Answer) and answer.engine == "sql"
        assert answer.vars == ("o",) and len(tuple(answer.rows)) == 2
        assert run(mirror, "ASK { wd:Q937 wdt:P31 wd:Q5 }").boolean is True
        streamed = run(mirror, "SELECT ?o WHERE { wd:Q937 wdt:P69 ?o }", stream=True)
        assert not isinstance(streamed.rows, tuple) and len(list(streamed.rows)) == 2
    graph = Graph()
    graph.add((URIRef("http://example.org/a"), URIRef("http://example.org/p"), Literal(1)))
    answer = run(graph, "SELECT ?s WHERE { ?s <http://example.org/p> 1 }")
    assert answer.engine == "rdflib" and [str(r["s"]) for r in answer.rows] == \
        ["http://example.org/a"]
