"""``kgground sparql``: run a SPARQL query against a mirror or a live endpoint.

``--db``/``--endpoint``/``--offline`` choose the KB as for every command (``common.open_kb``):
``--endpoint`` alone queries the endpoint, with a mirror it backs the mirror up.

Bounded by default: a query stops after 60 s (``--timeout``), and a SELECT answered by SQL
streams its rows to the output as SQLite produces them (table, CSV, TSV, JSON), so memory
stays flat however many rows come; ``--limit N`` stops after N rows.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path
from typing import Any, Iterator, cast

import click

from kb.base import KnowledgeBase, Streaming
from kb.errors import KGGroundError
from kb.types import SparqlStream
from reasoning.cli.common import (check_text, emit_json, fail_clearly, finite, kb_options,
                                  open_session)

_GRAPH_FORMATS = {"table": "turtle", "json": "json-ld", "csv": "nt", "tsv": "nt"}
_PLAIN_DATATYPES = {"integer", "decimal", "double", "float", "dateTime", "date", "boolean",
                    "int", "long"}
_MAX_WIDTH = 60
#: rows read before the table's column widths are fixed (later cells are cut to them)
_TABLE_SAMPLE = 200
DEFAULT_TIMEOUT = 60.0


def _decoded(data: bytes, what: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise click.BadParameter(
            f"{what} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}; "
            "Latin-1 or Windows-1252 perhaps). Convert it, e.g. iconv -f latin1 -t utf-8",
            param_hint="QUERY") from None


def read_query(source: str) -> str:
    """QUERY as given: ``-`` reads stdin, an existing file is read, anything else is the
    query text itself. Text that is not UTF-8 is refused with a clear message."""
    if source == "-":
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None:
            return sys.stdin.read()
        return _decoded(stream.read(), "standard input")
    try:
        source.encode("utf-8")
    except UnicodeEncodeError:          # bytes the locale could not decode (surrogateescape)
        bad = next(i for i, ch in enumerate(source) if "\udc80" <= ch <= "\udcff")
        raise click.BadParameter(
            f"the query argument is not UTF-8 text (byte 0x{ord(source[bad]) - 0xDC00:02x} at "
            f"character {bad + 1}; Latin-1 perhaps). Pass it as UTF-8, or put it in a UTF-8 "
            "file", param_hint="QUERY") from None
    path = Path(source)
    try:
        if path.is_file():
            return _decoded(path.read_bytes(), str(path))
    except OSError:         # a query text too long to be a path
        pass
    if "{" not in source and path.suffix.lower() in (".rq", ".sparql", ".txt", ".ru"):
        raise click.BadParameter(f"there is no file {source}", param_hint="QUERY")
    return source


@click.command("sparql")
@click.argument("query", metavar="QUERY|FILE|-", callback=check_text)
@kb_options
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv", "tsv"]),
              default="table", show_default=True, help="table: aligned columns for reading; "
              "json: SPARQL 1.1 JSON results; csv / tsv: SPARQL 1.1 CSV / TSV results "
              "(graphs: Turtle, JSON-LD, N-Triples).")
@click.option("--json", "as_json", is_flag=True, help="Same as --format json (for scripts).")
@click.option("--explain", is_flag=True, help="Also print, on stderr, which engine answered "
              "and how: the SQL run over the mirror, or why rdflib's evaluator ran instead.")
@click.option("--timeout", type=click.FloatRange(min=0), default=DEFAULT_TIMEOUT, callback=finite,
              show_default=True, metavar="S", help="Stop the query after S seconds "
              "(0: no limit).")
@click.option("--limit", type=click.IntRange(min=0), metavar="N",
              help="Print at most N rows; the query stops there.")
def sparql_cmd(query: str, db: str | None, endpoint: str | None, offline: bool,
               no_cache: bool, fmt: str, as_json: bool, explain: bool, timeout: float,
               limit: int | None) -> None:
    """Run a SPARQL query (the text, a file, or - for stdin) and print its results.

    Queries written for query.wikidata.org work as they are: wd:, wdt:, p:, ps:, pq:,
    rdfs:, schema: and the other WDQS prefixes are predeclared, query hints (hint:) are
    ignored, and SERVICE wikibase:label { bd:serviceParam wikibase:language "en" } is
    emulated locally. Updates, LOAD and other SERVICE calls are refused. SELECT * lists
    the variables in the order they first appear in the query.

    \b
    Examples:
      kgground sparql 'SELECT ?o WHERE { wd:Q937 wdt:P69 ?o }'
      kgground sparql query.rq --format csv > out.csv
      kgground sparql --explain --db mirror.sqlite --timeout 5 --limit 100 -
    """
    fail_clearly(_run)(query, db, endpoint, offline, no_cache, "json" if as_json else fmt,
                       explain, timeout or math.inf, limit)


def _run(query: str, db: str | None, endpoint: str | None, offline: bool, no_cache: bool,
         fmt: str, explain: bool, timeout: float | None, limit: int | None) -> None:
    text = read_query(query)
    with open_session(db, endpoint, offline, no_cache) as session:
        _print_answer(session.kb, text, fmt, explain, timeout, limit)


def _print_answer(base: KnowledgeBase, text: str, fmt: str, explain: bool,
                  timeout: float | None, limit: int | None) -> None:
    started = time.perf_counter()
    answer = _answer(base, text, timeout)
    for note in answer.notes:
        click.echo(f"Note: {note}", err=True)
    if explain:
        click.echo(f"-- engine: {answer.engine or '?'} ({base.name})",
                   err=True)
        for line in (answer.explain or "").splitlines():
            click.echo(f"-- {line}", err=True)
    whole = answer.result
    if whole is not None and whole.boolean is not None:
        _emit_boolean(whole, fmt)
        return
    if whole is not None and whole.graph is not None:
        _emit_graph(whole, fmt)
        return
    rows: Iterator[dict] = answer.rows
    if limit is not None:
        rows = _first(rows, limit)
    taken = [0]
    try:
        count = {"json": _stream_json, "csv": _stream_csv, "tsv": _stream_tsv}.get(
            fmt, _stream_table)(answer.vars, _counted(rows, taken))
    except KGGroundError:
        sys.stdout.flush()              # the rows printed so far stay printed
        if taken[0]:
            click.echo(f"{taken[0]:,} row{'s' if taken[0] != 1 else ''} came before the "
                       "query stopped", err=True)
        raise
    elapsed = time.perf_counter() - started
    cut = " (--limit reached)" if limit is not None and count >= limit else ""
    click.echo(f"{count} row{'s' if count != 1 else ''}{cut} ({answer.engine}, "
               f"{elapsed * 1000:.1f} ms)", err=True)


def _answer(base: KnowledgeBase, text: str, timeout: float | None) -> Any:
    """A streamed answer where the KB can stream (a mirror), else the whole result."""
    if isinstance(base, Streaming):
        return base.sparql_stream(text, timeout=timeout)
    result = base.sparql(text, timeout=timeout)
    whole = result if result.boolean is not None or result.graph is not None else None
    # the rows of every KB's SparqlResult are dicts (typed as the Mappings they are read as)
    rows = cast("tuple[dict, ...]", result.rows)
    return SparqlStream(result.vars, iter(rows), result.engine, result.explain,
                        getattr(result, "notes", ()), result=whole)


def _counted(rows: Iterator[dict], taken: list[int]) -> Iterator[dict]:
    for row in rows:
        taken[0] += 1
        yield row


def _first(rows: Iterator[dict], n: int) -> Iterator[dict]:
    if n == 0:
        close = getattr(rows, "close", None)
        if close:
            close()
        return
    for i, row in enumerate(rows, 1):
        yield row
        if i >= n:
            close = getattr(rows, "close", None)
            if close:
                close()         # stops the SQL statement
            return


def _write(text: str) -> None:
    click.echo(text, nl=False)


def _stream_json(vars: tuple[str, ...], rows: Iterator[dict]) -> int:
    import json

    from kb.types import SparqlResult

    _write('{"head": {"vars": ' + json.dumps(list(vars)) + '}, "results": {"bindings": [')
    count = 0
    for row in rows:
        binding = SparqlResult(vars=vars, rows=(row,)).to_json()["results"]["bindings"][0]
        _write(("," if count else "") + "\n  " + json.dumps(binding, ensure_ascii=False))
        count += 1
    _write("\n]}}\n")
    return count


def _stream_csv(vars: tuple[str, ...], rows: Iterator[dict]) -> int:
    from kb.sparql_formats import table_csv

    _write(table_csv(vars, []).decode("utf-8"))
    count = 0
    for row in rows:
        _write(table_csv(vars, [row]).decode("utf-8").split("\r\n", 1)[1])
        count += 1
    return count


def _stream_tsv(vars: tuple[str, ...], rows: Iterator[dict]) -> int:
    from kb.sparql_formats import tsv_term

    _write("\t".join(f"?{v}" for v in vars) + "\n")
    count = 0
    for row in rows:
        _write("\t".join(tsv_term(row.get(v)) for v in vars) + "\n")
        count += 1
    return count


def _stream_table(vars: tuple[str, ...], rows: Iterator[dict]) -> int:
    """Aligned columns: widths from the first rows, later cells cut to them."""
    head: list[dict] = []
    for row in rows:
        head.append(row)
        if len(head) >= _TABLE_SAMPLE:
            break
    cells = [[_short(row.get(v)) for v in vars] for row in head]
    widths = [min(_MAX_WIDTH, max([len(v) + 1] + [len(r[i]) for r in cells]))
              for i, v in enumerate(vars)]
    click.echo("  ".join(f"?{v}".ljust(w) for v, w in zip(vars, widths)).rstrip())
    click.echo("  ".join("─" * w for w in widths))
    count = 0
    for r in cells:
        click.echo(_line(r, widths))
        count += 1
    if len(head) >= _TABLE_SAMPLE:
        for row in rows:
            click.echo(_line([_short(row.get(v)) for v in vars], widths))
            count += 1
    return count


def _line(cells: list[str], widths: list[int]) -> str:
    return "  ".join(_cut(c, w).ljust(w) for c, w in zip(cells, widths)).rstrip()


def _emit_boolean(result: Any, fmt: str) -> None:
    if fmt == "json":
        emit_json(result.to_json())
    elif fmt in ("csv", "tsv"):
        click.echo("_askResult" if fmt == "csv" else "?_askResult")
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
    lines.extend(_line(r, widths) for r in cells)
    return "\n".join(lines)


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"


def _short(term: Any) -> str:
    from rdflib import BNode, Literal, URIRef

    from store.sparql import WIKIDATA_PREFIXES

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
