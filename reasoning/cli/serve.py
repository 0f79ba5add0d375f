"""``kgground serve``: a read-only SPARQL 1.1 endpoint over a mirror (``kb.sparql_server``).

Python runs one query at a time per process, so ``--processes`` server processes (default:
one per CPU, at most 4) listen on the same port (SO_REUSEPORT) and the kernel spreads the
connections among them; each opens the mirror itself and runs ``--workers`` query threads.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from typing import TYPE_CHECKING, Any

import click

from kb.base import Closable, KnowledgeBase
from kb.errors import KGGroundError
from reasoning.cli.common import db_option, finite, not_empty, open_kb, resolve_db

if TYPE_CHECKING:                  # imported when a server starts
    from kb.sparql_server import SparqlServer

#: the most server processes ``--processes`` picks by itself
MAX_DEFAULT_PROCESSES = 4
#: seconds a server process may take to open the mirror and listen
START_TIMEOUT = 120.0


def default_processes() -> int:
    """One server process per CPU this process may use, at most ``MAX_DEFAULT_PROCESSES``."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(1, min(MAX_DEFAULT_PROCESSES, cpus))


@click.command("serve")
@db_option
@click.option("--host", default="127.0.0.1", show_default=True, callback=not_empty,
              help="Address to listen on. Anything but a loopback address exposes the "
                   "mirror to the network.")
@click.option("--port", default=8890, show_default=True, type=click.IntRange(0, 65535),
              help="Port to listen on (0 picks a free one).")
@click.option("--timeout", default=30.0, show_default=True, type=click.FloatRange(min=0.001),
              callback=finite,
              metavar="S", help="Per-query time limit in seconds; a query past it gets "
                                "HTTP 500 with a message saying so.")
@click.option("--max-rows", default=10_000, show_default=True, type=click.IntRange(min=1),
              metavar="N", help="At most N result rows (or triples) per answer; a cut "
                                "answer carries the header X-SPARQL-MaxRows.")
@click.option("--processes", type=click.IntRange(1, 32), default=None, metavar="N",
              help="Server processes sharing the port, each with its own --workers "
                   "(Python answers one query at a time per process: this is what uses "
                   "several cores). [default: one per CPU, at most 4]")
@click.option("--workers", default=4, show_default=True, type=click.IntRange(1, 8),
              help="Queries run at once per process (each worker holds one database "
                   "connection).")
@click.option("--max-memory", default=1024, show_default=True, type=click.IntRange(min=64),
              metavar="MB", help="Memory each server process may grow by once started; a "
                                 "query that makes it grow past this is stopped (HTTP 500, "
                                 "saying so).")
@click.option("--log", "log_requests", is_flag=True, help="Print one line per request "
              "to stderr.")
def serve(db: str | None, host: str, port: int, timeout: float, max_rows: int,
          processes: int | None, workers: int, max_memory: int, log_requests: bool) -> None:
    """Serve a mirror as a SPARQL endpoint (SPARQL 1.1 Protocol, read-only).

    GET and POST queries; results as SPARQL JSON, XML, CSV or TSV (graphs as Turtle,
    N-Triples, RDF/XML or JSON-LD) by Accept header or format=; Update is refused. YASGUI,
    SPARQLWrapper and rdflib's SPARQLStore can use it. Ctrl-C stops it (exit code 130),
    as does SIGTERM (exit code 0).
    """
    processes = processes or default_processes()
    options = {"timeout": timeout, "max_rows": max_rows, "workers": workers,
               "max_memory": max_memory << 20, "log": log_requests}
    if host not in ("127.0.0.1", "localhost", "::1"):
        click.echo(f"Warning: listening on {host}: the mirror is reachable from the network.",
                   err=True)
    previous = signal.signal(signal.SIGTERM, _stop)
    try:
        if processes == 1:
            _serve_here(db, host, port, options)
        else:
            _serve_in_processes(db, host, port, processes, options)
    finally:   # called in process (tests, notebooks): leave SIGTERM as it was
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)


def _limits(options: dict[str, Any]) -> str:
    return f"timeout {options['timeout']:g} s, at most {options['max_rows']:,} rows"


def _serve_here(db: str | None, host: str, port: int, options: dict[str, Any]) -> None:
    """One process: the server runs in this one."""
    interrupted = False
    try:
        base = open_kb(db)
    except KGGroundError as exc:
        raise click.ClickException(str(exc)) from exc
    try:
        server = _server(base, host, port, options, reuse_port=False)
        try:
            click.echo(f"SPARQL endpoint: {server.url}  ({base.name}; {_limits(options)}). "
                       "Ctrl-C stops it.")
            server.serve_forever()
        except KeyboardInterrupt as exc:
            click.echo("stopping", err=True)
            interrupted = not isinstance(exc, _Terminated)
        finally:
            server.close()
    finally:
        if isinstance(base, Closable):
            base.close()
    if interrupted:
        raise KeyboardInterrupt       # Ctrl-C: stopped, and the command ends as interrupted


def _server(base: KnowledgeBase, host: str, port: int, options: dict[str, Any], *,
            reuse_port: bool) -> SparqlServer:
    from kb.sparql_server import SparqlServer

    try:
        return SparqlServer(base, host, port, timeout=options["timeout"],
                            max_rows=options["max_rows"], workers=options["workers"],
                            log=sys.stderr if options["log"] else None,
                            max_memory=options["max_memory"], reuse_port=reuse_port)
    except OSError as exc:
        raise click.ClickException(f"cannot listen on {host}:{port} ({exc.strerror or exc}); "
                                   "choose another --port or --host") from exc


def _serve_in_processes(db: str | None, host: str, port: int, processes: int,
                        options: dict[str, Any]) -> None:
    """``processes`` children serve on one port; this process starts and stops them."""
    path = resolve_db(db)
    try:
        base = open_kb(path)                # fail here, clearly, on a mirror that won't open
    except KGGroundError as exc:
        raise click.ClickException(str(exc)) from exc
    name = base.name
    if isinstance(base, Closable):
        base.close()
    placeholder, port = _reserve(host, port)
    children: list[subprocess.Popen] = []
    interrupted = False
    try:
        config = json.dumps({"db": path, "host": host, "port": port, **options})
        for _ in range(processes):
            children.append(_start_child(config))
        deadline = time.monotonic() + START_TIMEOUT
        for proc in children:
            line = _readline(proc, deadline)
            if not line.startswith("listening"):
                raise click.ClickException("a server process did not start (its error is "
                                           "above); nothing is served")
        placeholder.close()
        url_host = f"[{host}]" if ":" in host else host
        click.echo(f"SPARQL endpoint: http://{url_host}:{port}/sparql  ({name}; "
                   f"{_limits(options)}; {processes} processes × {options['workers']} "
                   "workers). Ctrl-C stops it.")
        while all(proc.poll() is None for proc in children):
            time.sleep(0.5)
        failed = next(proc for proc in children if proc.poll() is not None)
        raise click.ClickException(f"a server process stopped (exit code {failed.returncode})"
                                   "; stopping the others")
    except KeyboardInterrupt as exc:
        click.echo("stopping", err=True)
        interrupted = not isinstance(exc, _Terminated)
    finally:
        placeholder.close()
        _stop_all(children)
    if interrupted:
        raise KeyboardInterrupt       # Ctrl-C: stopped, and the command ends as interrupted


def _start_child(config: str) -> subprocess.Popen:
    """A server process that ignores Ctrl-C from birth (an ignored signal stays ignored
    across exec, and Python then installs no handler of its own): Ctrl-C reaches the
    whole process group, and a child still importing would print a traceback; the
    parent stops its children itself."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        return subprocess.Popen(
            [sys.executable, "-c", "from reasoning.cli.serve import child; child()", config],
            stdout=subprocess.PIPE, text=True)
    finally:
        signal.signal(signal.SIGINT, previous)


def _reserve(host: str, port: int) -> tuple[socket.socket, int]:
    """A socket bound (not listening) to ``host:port`` that the server processes may share:
    port 0 becomes a free port. A port another program listens on is refused here."""
    def fail(exc: OSError) -> click.ClickException:
        return click.ClickException(f"cannot listen on {host}:{port} "
                                    f"({exc.strerror or exc}); choose another --port or "
                                    "--host")

    if port:
        try:                                   # without SO_REUSEPORT: is anyone there?
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                probe.bind((host, port))
        except OSError as exc:
            raise fail(exc) from exc
    placeholder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        placeholder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        placeholder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        placeholder.bind((host, port))
    except OSError as exc:
        placeholder.close()
        raise fail(exc) from exc
    return placeholder, placeholder.getsockname()[1]


def _readline(proc: subprocess.Popen, deadline: float) -> str:
    """The child's first line on stdout ('' if it exits or the deadline passes first)."""
    import selectors

    assert proc.stdout is not None      # the children are started with stdout=PIPE
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        if not sel.select(max(0.0, deadline - time.monotonic())):
            return ""
    return proc.stdout.readline()


def _stop_all(children: list[subprocess.Popen]) -> None:
    for proc in children:
        if proc.poll() is None:
            proc.terminate()
    for proc in children:
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


def child() -> None:
    """A server process started by ``_serve_in_processes`` (its options as JSON in argv).
    SIGTERM from the parent stops it quietly wherever it is — opening the mirror, saying
    it listens, serving — as the parent sends it when Ctrl-C comes during the start."""
    config = json.loads(sys.argv[1])
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, signal.SIG_IGN)      # Ctrl-C: the parent stops us
    try:
        _child(config)
    except KeyboardInterrupt:
        pass


def _child(config: dict[str, Any]) -> None:
    import kb

    base = None
    try:
        try:
            base = kb.open(config["db"])
            server = _server(base, config["host"], config["port"], config, reuse_port=True)
        except (KGGroundError, click.ClickException) as exc:
            print(f"Error: {exc.message if isinstance(exc, click.ClickException) else exc}",
                  file=sys.stderr)
            sys.exit(1)
        try:
            print("listening", flush=True)
            server.serve_forever()
        finally:
            server.close()
    finally:
        if isinstance(base, Closable):
            base.close()


class _Terminated(KeyboardInterrupt):
    """SIGTERM: the server was asked to stop (exit code 0; Ctrl-C ends it with 130)."""


def _stop(signum: int, frame: Any) -> None:
    """SIGTERM stops the server as Ctrl-C does, but as asked: not an interruption."""
    raise _Terminated
