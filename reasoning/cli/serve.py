"""``kgground serve``: a read-only SPARQL 1.1 endpoint over a mirror (``kb.sparql_server``).
"""

from __future__ import annotations

import signal
import sys
from typing import Any

import click

from kb.errors import KGGroundError
from reasoning.cli.common import db_option, open_kb


@click.command("serve")
@db_option
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on. Anything but a loopback address exposes the "
                   "mirror to the network.")
@click.option("--port", default=8890, show_default=True, type=click.IntRange(0, 65535),
              help="Port to listen on (0 picks a free one).")
@click.option("--timeout", default=30.0, show_default=True, type=click.FloatRange(min=0.001),
              metavar="S", help="Per-query time limit in seconds; a query past it gets "
                                "HTTP 500 with a message saying so.")
@click.option("--max-rows", default=10_000, show_default=True, type=click.IntRange(min=1),
              metavar="N", help="At most N result rows (or triples) per answer; a cut "
                                "answer carries the header X-SPARQL-MaxRows.")
@click.option("--workers", default=4, show_default=True, type=click.IntRange(1, 8),
              help="Queries run at once (each worker holds one database connection).")
@click.option("--max-memory", default=1024, show_default=True, type=click.IntRange(min=64),
              metavar="MB", help="Memory the server may use; a query that makes it grow "
                                 "past this is stopped (HTTP 500, saying so).")
@click.option("--log", "log_requests", is_flag=True, help="Print one line per request "
              "to stderr.")
def serve(db: str | None, host: str, port: int, timeout: float, max_rows: int, workers: int,
          max_memory: int, log_requests: bool) -> None:
    """Serve a mirror as a SPARQL endpoint (SPARQL 1.1 Protocol, read-only).

    GET and POST queries; results as SPARQL JSON, XML, CSV or TSV (graphs as Turtle,
    N-Triples, RDF/XML or JSON-LD) by Accept header or format=; Update is refused. YASGUI,
    SPARQLWrapper and rdflib's SPARQLStore can use it. Ctrl-C stops it.
    """
    from kb.sparql_server import SparqlServer

    try:
        base = open_kb(db)
    except KGGroundError as exc:
        raise click.ClickException(str(exc)) from exc
    try:
        server = SparqlServer(base, host, port, timeout=timeout, max_rows=max_rows,
                              workers=workers, log=sys.stderr if log_requests else None,
                              max_memory=max_memory << 20)
    except OSError as exc:
        raise click.ClickException(f"cannot listen on {host}:{port} ({exc.strerror or exc}); "
                                   "choose another --port or --host") from exc
    if host not in ("127.0.0.1", "localhost", "::1"):
        click.echo(f"Warning: listening on {host}: the mirror is reachable from the network.",
                   err=True)
    signal.signal(signal.SIGTERM, _stop)
    try:
        click.echo(f"SPARQL endpoint: {server.url}  ({base.name}; timeout {timeout:g} s, "
                   f"at most {max_rows:,} rows). Ctrl-C stops it.")
        server.serve_forever()
    except KeyboardInterrupt:
        click.echo("stopping", err=True)
    finally:
        server.close()
        close = getattr(base, "close", None)
        if callable(close):
            close()


def _stop(signum: int, frame: Any) -> None:
    """SIGTERM stops the server as Ctrl-C does."""
    raise KeyboardInterrupt
