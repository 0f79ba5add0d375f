"""``kgground sparql``: run a SPARQL query against a mirror or a live endpoint.

``--db``/``--endpoint``/``--offline`` choose the KB as for every command (``common.open_kb``):
``--endpoint`` alone queries the endpoint, with a mirror it backs the mirror up.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import click

from reasoning.cli.common import emit_json, fail_clearly, kb_options, open_kb

_GRAPH_FORMATS = {"table": "turtle", "json": "json-ld", "csv": "nt"}
_PLAIN_DATATYPES = {"integer", "decimal", "double", "float", "dateTime", "date", "boolean",
                    "int", "long"}
_MAX_WIDTH = 60


def read_query(source: str) -> str:
    """QUERY as given: ``-`` reads stdin, an existing file is read, anything else is the
    query text itself."""
    if source == "-":
        return sys.stdin.read()
    path = Path(source)
    try:
        if path.is_file():
            return path.read_text(encoding="utf-8")
    except OSError:         # a query text too long to be a path
        pass
    if "{" not in source and path.suffix.lower() in (".rq", ".sparql", ".txt", ".ru"):
        raise click.BadParameter(f"there is no file {source}", param_hint="QUERY")
    return source


@click.command("sparql")
@click.argument("query", metavar="QUERY|FILE|-")
@kb_options
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table",
              show_default=True, help="table: aligned columns for reading; json: SPARQL 1.1 "
              "JSON results; csv: SPARQL 1.1 CSV results (graphs: Turtle, JSON-LD, "
              "N-Triples).")
@click.option("--explain", is_flag=True, help="Also print, on stderr, which engine answered "
              "and how: the SQL run over the mirror, or why rdflib's evaluator ran instead.")
@click.option("--timeout", type=click.FloatRange(min=0.001), metavar="S",
              help="Stop the query after S seconds.")
def sparql_cmd(query: str, db: str | None, endpoint: str | None, offline: bool,
               no_cache: bool, fmt: str, explain: bool, timeout: float | None) -> None:
    """Run a SPARQL query (the text, a file, or - for stdin) and print its results.

    Queries written for query.wikidata.org work as they are: wd:, wdt:, p:, ps:, pq:,
    rdfs:, schema: and the other WDQS prefixes are predeclared, and
    SERVICE wikibase:label { bd:serviceParam wikibase:language "en" } is emulated
    locally. Updates, LOAD and other SERVICE calls are refused.

    \b
    Examples:
      kgground sparql 'SELECT ?o WHERE { wd:Q937 wdt:P69 ?o }'
      kgground sparql query.rq --format csv > out.csv
      kgground sparql --explain --db mirror.sqlite -
    """
    fail_clearly(_run)(query, db, endpoint, offline, no_cache, fmt, explain, timeout)


def _run(query: str, db: str | None, endpoint: str | None, offline: bool, no_cache: bool,
         fmt: str, explain: bool, timeout: float | None) -> None:
    text = read_query(query)
    base = open_kb(db, endpoint, offline, no_cache)
    started = time.perf_counter()
    result = base.sparql(text, timeout=timeout)
    elapsed = time.perf_counter() - started
    if explain:
        click.echo(f"-- engine: {result.engine or '?'} ({result.source}), "
                   f"{elapsed * 1000:.2f} ms", err=True)
        for line in (result.explain or "").splitlines():
            click.echo(f"-- {line}", err=True)
    if result.boolean is not None:
        _emit_boolean(result, fmt)
    elif result.graph is not None:
        _emit_graph(result, fmt)
    elif fmt == "json":
        emit_json(result.to_json())
    elif fmt == "csv":
        from kb.sparql_formats import negotiate, serialize
        click.echo(serialize(result, negotiate("table", format_values=["csv"]))[0]
                   .decode("utf-8"), nl=False)
    else:
        click.echo(render_table(result.vars, result.rows))
        click.echo(f"{len(result.rows)} row{'s' if len(result.rows) != 1 else ''}"
                   f" ({result.engine}, {elapsed * 1000:.1f} ms)", err=True)


def _emit_boolean(result: Any, fmt: str) -> None:
    if fmt == "json":
        emit_json(result.to_json())
    elif fmt == "csv":
        click.echo("_askResult")
        click.echo("true" if result.boolean else "false")
    else:
        click.echo("yes" if result.boolean else "no")


def _emit_graph(result: Any, fmt: str) -> None:
    from kb.sparql_formats import negotiate, serialize

    body, _ = serialize(result, negotiate("graph", format_values=[_GRAPH_FORMATS[fmt]]))
    click.echo(body.decode("utf-8"), nl=False)


def render_table(vars: tuple[str, ...], rows: tuple[dict, ...]) -> str:
    """Aligned columns: IRIs shortened with the WDQS prefixes, literals in a short form,
    cells cut at 60 characters."""
    cells = [[_short(row.get(v)) for v in vars] for row in rows]
    widths = [min(_MAX_WIDTH, max([len(v) + 1] + [len(r[i]) for r in cells]))
              for i, v in enumerate(vars)]
    lines = ["  ".join(f"?{v}".ljust(w) for v, w in zip(vars, widths, strict=True)).rstrip(),
             "  ".join("─" * w for w in widths)]
    for r in cells:
        cut = (_cut(c, w).ljust(w) for c, w in zip(r, widths, strict=True))
        lines.append("  ".join(cut).rstrip())
    return "\n".join(lines)


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"


def _short(term: Any) -> str:
    from rdflib import BNode, Literal, URIRef

    from kb.sparql_check import WIKIDATA_PREFIXES

    if term is None:
        return ""
    if isinstance(term, URIRef):
        best = max((ns for ns in WIKIDATA_PREFIXES.values() if str(term).startswith(ns)),
                   key=len, default=None)
        if best is not None:
            prefix = next(k for k, v in WIKIDATA_PREFIXES.items() if v == best)
            return f"{prefix}:{str(term)[len(best):]}"
        return f"<{term}>"
    if isinstance(term, BNode):
        return f"_:{term}"
    if isinstance(term, Literal):
        text = str(term).replace("\n", " ")
        if term.language:
            return f"{text}@{term.language}"
        if term.datatype is not None:
            name = str(term.datatype).rsplit("#", 1)[-1]
            if name not in _PLAIN_DATATYPES and name != "string":
                return f"{text}^^{_short(term.datatype)}"
        return text
    return str(term)
