"""A read-only SPARQL 1.1 Protocol server over any KnowledgeBase (a mirror, in practice).

``kgground serve`` runs it; in code::

    server = SparqlServer(kb.open("mirror.sqlite"), port=8890)
    server.serve_forever()              # server.url is http://127.0.0.1:8890/sparql

    with running_server(kb.open("mirror.sqlite"), port=0) as server:   # tests: a thread
        SPARQLWrapper(server.url) ...

The protocol, as served at ``/sparql`` (and at ``/``):

- Queries: ``GET ?query=…``, ``POST`` with a form (``application/x-www-form-urlencoded``,
  ``query=…``) or with the query as the body (``application/sparql-query``).
  ``default-graph-uri`` and ``named-graph-uri`` are accepted and ignored: a mirror is one
  graph. ``GET /`` (or ``/sparql``) without a query returns a page saying what this is.
- Results: SELECT and ASK as SPARQL JSON (default), SPARQL XML, CSV or TSV; CONSTRUCT and
  DESCRIBE as Turtle (default), N-Triples, RDF/XML or JSON-LD — chosen by a ``format=`` (or
  ``output=``, ``results=``) parameter as Virtuoso and Fuseki take it, else by the Accept
  header (see ``kb.sparql_formats``).
- Read-only: an ``update=`` parameter, an ``application/sparql-update`` body, or an Update in
  ``query=`` is refused with 400 and a text body saying why.
- Errors are ``text/plain`` bodies that say what went wrong and how to fix it:
  400 a query that does not parse (the parser's message), is refused, or is missing;
  404 another path; 405 another method; 413 a body over 1 MiB; 415 another POST body type;
  500 a query that ran past the per-query timeout (``timeout`` s, default 30; 500 as
  Blazegraph/WDQS and Virtuoso answer it, not 503, so that clients which retry 503 do not
  re-run a query that will time out again) or an internal error;
  501 a query form the KB cannot answer; 503 with ``Retry-After`` when too many queries
  are waiting (that one is worth retrying).
- A result-size cap: at most ``max_rows`` rows (default 10,000), or triples for a graph.
  A truncated answer carries the header ``X-SPARQL-MaxRows: <cap>`` (Virtuoso's convention).
- ``X-Kgground-Engine`` says which engine answered (e.g. ``sql`` or ``rdflib``).
- CORS: every answer allows any origin, and preflight (OPTIONS) requests are answered, so
  YASGUI and other browser clients can use the endpoint.

Concurrency: the standard library's ``ThreadingHTTPServer`` (a thread per connection,
HTTP/1.1 keep-alive) parses requests and writes answers; queries run on the fixed worker
pool of ``kb.query_runner.QueryRunner``, which keeps the mirror's one-connection-per-thread
rule and enforces the timeout. The server listens on 127.0.0.1 unless told otherwise.

Robustness: the listen backlog is deep (``LISTEN_BACKLOG``), so a burst of connections
waits in the kernel instead of being dropped; past ``max_connections`` open connections a
new one is answered 503 with Retry-After at once and closed. A query's limits
(``store.limits``): its timeout interrupts SQLite where it is; at most ``max_heavy``
queries may run longer than a second (the others get 503, so that short queries keep
flowing); rows past the result cap are never fetched; once the process holds
``max_memory`` bytes more than when the server was made, the query that is growing stops
(500, saying so) — counted from the start, so a server inside a larger process (a
notebook, a test run) gets the same headroom as ``kgground serve``. SPARQL REGEX runs on
RE2 (linear time). The page at ``/`` names the knowledge base without its file's folder.
"""

from __future__ import annotations

import contextlib
import html
import re
import socket
import sqlite3
import sys
import threading
import time
import traceback
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import PurePath
from typing import Any, Iterator, TextIO
from urllib.parse import parse_qs, urlsplit

from kb.base import SparqlCapable
from kb.query_runner import QueryRunner
from kb.sparql_formats import negotiate, serialize, shape_of
from store.errors import (KGGroundError, QueryError, QueryRefused, QuerySyntaxError,
                          QueryTimeout, QueryTooLarge, ServerBusy, UnsupportedQuery)
from store.limits import memory_in_use

#: largest POST body read, in bytes
MAX_BODY = 1 << 20
#: largest refused body still read (and dropped) before answering, to answer cleanly
DRAIN_LIMIT = 64 << 20
#: seconds a socket read or write may block (a backstop; see REQUEST_TIMEOUT)
IDLE_TIMEOUT = 60
#: seconds a client has to send a whole request (line, headers, body), counted from when
#: the connection opens or the previous answer was sent: an idle keep-alive connection,
#: or one that trickles its request, is closed then
REQUEST_TIMEOUT = 10.0
#: connections the kernel queues before they are accepted (the standard library's: 5)
LISTEN_BACKLOG = 1024
#: bytes of memory the server process may grow by before a growing query is stopped
DEFAULT_MAX_MEMORY = 1 << 30
_BUSY = (b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
         b"Retry-After: 1\r\nConnection: close\r\nContent-Length: 72\r\n\r\n"
         b"503 Service Unavailable: too many open connections; retry in 1 s please\n")

_UPDATE_REFUSED = ("SPARQL Update is refused: this endpoint is read-only (a kgground mirror). "
                   "Send a SELECT, ASK, CONSTRUCT or DESCRIBE query as query=; "
                   "change the mirror with `kgground mirror load`.")
_CORS = (("Access-Control-Allow-Origin", "*"),
         ("Access-Control-Expose-Headers", "X-SPARQL-MaxRows, X-Kgground-Engine, Retry-After"))
_FORMAT_PARAMS = ("format", "output", "results")


def public_name(kb: SparqlCapable) -> str:
    """The KB's name as the landing page shows it: files by their name, without the
    folders they are in; endpoints without credentials."""
    parts = []
    for part in str(kb.name).split("+"):
        kind, _, where = part.partition(":")
        if kind in ("mirror", "rdf") and where and "://" not in where:
            where = PurePath(where).name
        elif "@" in where:
            where = re.sub(r"//[^/@]*@", "//", where)
        parts.append(f"{kind}:{where}" if where else kind)
    return "+".join(parts)


class HttpError(Exception):
    """An answer other than 200: status, text body, extra headers."""

    def __init__(self, status: int, message: str, headers: tuple[tuple[str, str], ...] = ()):
        super().__init__(message)
        self.status, self.message, self.headers = status, message, headers


def _version() -> str:
    try:
        from importlib.metadata import version
        return version("kgground")
    except Exception:  # noqa: BLE001 - running from a source tree
        return "dev"


class SparqlServer(ThreadingHTTPServer):
    """The SPARQL endpoint over ``kb`` (see the module docstring).

    ``port=0`` picks a free port; ``url`` says which. ``reuse_port``: other processes
    may listen on the same port too (SO_REUSEPORT). ``serve_forever()`` serves until
    ``shutdown()``; ``close()`` stops serving, closes the socket and stops the workers
    (the KB itself stays open: its owner closes it). ``log`` gets one line per request
    (None: only internal errors are written, to stderr).
    """

    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = LISTEN_BACKLOG

    def __init__(self, kb: SparqlCapable, host: str = "127.0.0.1", port: int = 8890, *,
                 timeout: float = 30.0, max_rows: int = 10_000, workers: int = 4,
                 max_pending: int = 64, log: TextIO | None = None,
                 max_connections: int = 512, max_memory: int | None = DEFAULT_MAX_MEMORY,
                 max_heavy: int | None = None, reuse_port: bool = False,
                 request_timeout: float = REQUEST_TIMEOUT):
        if max_rows < 1:
            raise ValueError(f"max_rows must be at least 1, got {max_rows}")
        self.kb, self.max_rows, self.log = kb, max_rows, log
        self.query_timeout = float(timeout)
        self.max_connections = max_connections
        self._connections = 0
        self._connections_lock = threading.Lock()
        self.request_timeout = float(request_timeout)
        self._reaper = _Reaper(self.request_timeout)
        if max_memory is not None:
            max_memory += memory_in_use() or 0
        # one row past the cap: enough to know the answer was cut
        self.runner = QueryRunner(kb, workers=workers, timeout=timeout, max_pending=max_pending,
                                  max_rows=max_rows + 1, max_memory=max_memory,
                                  max_heavy=max_heavy)
        self.version = _version()
        # several processes may listen on one port (``kgground serve --processes``): the
        # kernel spreads the connections among them
        self.allow_reuse_port = reuse_port
        try:
            super().__init__((host, port), SparqlHandler)
        except BaseException:
            self.runner.close()
            raise
        self._serving = threading.Event()

    @property
    def url(self) -> str:
        address, port = self.server_address[:2]
        host = str(address)             # a str: the address it was bound to
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{port}/sparql"

    def serve_forever(self, poll_interval: float = 0.5) -> None:
        self._serving.set()
        try:
            super().serve_forever(poll_interval)
        finally:
            self._serving.clear()

    def close(self) -> None:
        """Stop serving (if serving, from another thread), close the socket, stop the
        query workers."""
        if self._serving.is_set():
            self.shutdown()
        self.server_close()
        self._reaper.close()
        self.runner.close()

    def __enter__(self) -> SparqlServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def process_request(self, request: Any, client_address: Any) -> None:
        """A thread for the connection, or, past ``max_connections``, an immediate 503."""
        with self._connections_lock:
            busy = self._connections >= self.max_connections
            if not busy:
                self._connections += 1
        if busy:
            try:
                request.settimeout(0.5)
                request.sendall(_BUSY)
            except OSError:
                pass
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            with self._connections_lock:
                self._connections -= 1

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return              # the client went away: nothing to report
        super().handle_error(request, client_address)


@contextlib.contextmanager
def running_server(kb: SparqlCapable, host: str = "127.0.0.1", port: int = 0,
                   **options: Any) -> Iterator[SparqlServer]:
    """A ``SparqlServer`` serving from a background thread until the block ends (for tests
    and notebooks); ``options`` go to ``SparqlServer``. The KB stays open."""
    server = SparqlServer(kb, host, port, **options)
    thread = threading.Thread(target=server.serve_forever, name="sparql-server", daemon=True)
    thread.start()
    server._serving.wait(5)
    try:
        yield server
    finally:
        server.close()
        thread.join(5)


class _Reaper:
    """Closes connections whose request did not arrive in time: each connection waiting
    for (the rest of) a request is ``watch``ed with a deadline, and shut down past it, so
    that the thread reading it sees the end of the stream at once."""

    def __init__(self, timeout: float):
        self.timeout = timeout
        self._deadlines: dict[Any, float] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def watch(self, sock: Any) -> None:
        with self._lock:
            self._deadlines[sock] = time.monotonic() + self.timeout
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="sparql-reaper",
                                                daemon=True)
                self._thread.start()

    def done(self, sock: Any) -> bool:
        """Stop watching ``sock``; False when it was shut down already."""
        with self._lock:
            return self._deadlines.pop(sock, None) is not None

    def _run(self) -> None:
        while not self._stop.wait(min(0.2, self.timeout / 4)):
            now = time.monotonic()
            with self._lock:
                late = [sock for sock, deadline in self._deadlines.items() if deadline < now]
                for sock in late:
                    del self._deadlines[sock]
            for sock in late:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        self._stop.set()


class SparqlHandler(BaseHTTPRequestHandler):
    """One HTTP connection (keep-alive) to a ``SparqlServer``."""

    server: SparqlServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    wbufsize = 1 << 16              # headers and body leave in one write (flushed per answer)
    timeout = IDLE_TIMEOUT
    _watched = False

    def version_string(self) -> str:
        return f"kgground/{self.server.version}"

    def handle_one_request(self) -> None:
        """One request, which must arrive within the server's ``request_timeout``."""
        self.server._reaper.watch(self.connection)
        self._watched = True
        try:
            super().handle_one_request()
        finally:
            self._request_read()

    def parse_request(self) -> bool:
        """The standard parse, and 400 (then close) for a header line without a colon:
        the standard library would take it as the end of the headers and read what
        follows as the body, leaving the client waiting for an answer."""
        if not super().parse_request():
            return False
        defects = getattr(self.headers, "defects", None)
        if defects:
            self.close_connection = True
            self._send_error(HttpError(400, "malformed request headers: every header line "
                                       "must be 'Name: value' "
                                       f"({type(defects[0]).__name__})"))
            return False
        return True

    def _request_read(self) -> None:
        """The request is all in (or the connection ends): its time limit ends (the query
        has its own)."""
        if self._watched:
            self._watched = False
            if not self.server._reaper.done(self.connection):
                self.close_connection = True        # shut down: nothing more comes

    # -- methods ------------------------------------------------------------------------------
    def do_GET(self) -> None:
        self._dispatch(post=False)

    def do_POST(self) -> None:
        self._dispatch(post=True)

    def do_HEAD(self) -> None:
        path = urlsplit(self.path).path
        if path in ("/", "/sparql"):
            content_type, body = self._page_body()
            self._send(200, body, content_type, head_only=True)
        else:
            self._send_error(HttpError(404, f"nothing at {path}; the endpoint is /sparql"),
                             head_only=True)

    def do_OPTIONS(self) -> None:
        """CORS preflight."""
        asked = self.headers.get("Access-Control-Request-Headers") or "Content-Type, Accept"
        self._send(204, b"", None, (("Access-Control-Allow-Methods", "GET, POST, OPTIONS"),
                                    ("Access-Control-Allow-Headers", asked),
                                    ("Access-Control-Max-Age", "86400"),
                                    ("Allow", "GET, POST, HEAD, OPTIONS")))

    def _not_allowed(self) -> None:
        self._discard_body()
        self._send_error(HttpError(405, f"{self.command} is not allowed: this SPARQL endpoint "
                                   "is read-only; query it with GET or POST",
                                   (("Allow", "GET, POST, HEAD, OPTIONS"),)))

    do_PUT = do_DELETE = do_PATCH = _not_allowed

    # -- the protocol -------------------------------------------------------------------------
    def _dispatch(self, post: bool) -> None:
        try:
            url = urlsplit(self.path)
            if url.path not in ("/", "/sparql"):
                self._discard_body()
                raise HttpError(404, f"nothing at {url.path}; the SPARQL endpoint is /sparql")
            params = parse_qs(url.query, keep_blank_values=True)
            if post:
                self._read_post(params)
            else:
                self._discard_body()        # a GET with a body: keep the stream in step
            self._request_read()
            if "update" in params:
                raise HttpError(400, _UPDATE_REFUSED)
            queries = params.get("query")
            if not queries:
                if post:
                    raise HttpError(400, "no query: send the SPARQL query as query= (a form "
                                    "field or URL parameter) or as an application/"
                                    "sparql-query body")
                content_type, body = self._page_body()
                self._send(200, body, content_type)
                return
            if len(queries) > 1:
                raise HttpError(400, f"{len(queries)} queries sent; send exactly one query=")
            self._answer(queries[0], params)
        except HttpError as err:
            self._send_error(err)

    def _read_post(self, params: dict[str, list[str]]) -> None:
        """Merge a POST body into ``params`` (form fields, or the query itself)."""
        if self.headers.get("Transfer-Encoding", "").lower() not in ("", "identity"):
            self.close_connection = True
            raise HttpError(411, "chunked bodies are not supported: send a Content-Length")
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            self.close_connection = True
            raise HttpError(400, "the Content-Length header is not a number") from None
        if length > MAX_BODY:
            self._discard_body()
            raise HttpError(413, f"the request body is {length:,} bytes; at most "
                            f"{MAX_BODY:,} are read")
        body = self.rfile.read(length) if length > 0 else b""
        media = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise HttpError(400, f"the request body is not UTF-8 ({exc.reason} at byte "
                            f"{exc.start})") from None
        if media == "application/x-www-form-urlencoded":
            for key, values in parse_qs(text, keep_blank_values=True).items():
                params.setdefault(key, []).extend(values)
        elif media == "application/sparql-query":
            if "query" in params:
                raise HttpError(400, "the query came both as the body and as query=; "
                                "send it once")
            params["query"] = [text]
        elif media == "application/sparql-update":
            raise HttpError(400, _UPDATE_REFUSED)
        else:
            raise HttpError(415, f"POST bodies of type {media or '(none)'!r} are not "
                            "understood; send application/x-www-form-urlencoded "
                            "(query=...) or application/sparql-query")

    def _answer(self, query: str, params: dict[str, list[str]]) -> None:
        try:
            result = self.server.runner.run(query)
        except (QuerySyntaxError, QueryRefused) as exc:
            raise HttpError(400, str(exc)) from None
        except (QueryTimeout, QueryTooLarge) as exc:
            raise HttpError(500, str(exc)) from None
        except ServerBusy as exc:
            raise HttpError(503, str(exc), (("Retry-After", str(exc.retry_after)),)) from None
        except UnsupportedQuery as exc:
            raise HttpError(501, str(exc)) from None
        except QueryError as exc:
            raise HttpError(400, str(exc)) from None
        except KGGroundError as exc:
            raise HttpError(500, str(exc)) from None
        except (RecursionError, OverflowError, sqlite3.DataError, sqlite3.IntegrityError,
                sqlite3.OperationalError) as exc:
            # what the engines say of a query too big or odd for them: the query's to fix
            raise HttpError(400, f"the query cannot be run: {exc or type(exc).__name__}; "
                            "simplify it (fewer nested parts, smaller numbers)") from None
        except Exception as exc:  # noqa: BLE001 - a bug: report it, keep serving
            traceback.print_exc(file=sys.stderr)
            raise HttpError(500, f"internal error: {type(exc).__name__}: {exc}") from None
        format_values = [v for key in _FORMAT_PARAMS for v in params.get(key, ())]
        fmt = negotiate(shape_of(result), self.headers.get("Accept"), format_values)
        try:
            body, truncated = serialize(result, fmt, self.server.max_rows)
        except Exception as exc:  # noqa: BLE001 - e.g. a graph RDF/XML cannot express
            raise HttpError(500, f"the result cannot be written as {fmt.content_type}: "
                            f"{exc}; ask for another format") from None
        headers = [("Vary", "Accept")]
        if result.engine:
            headers.append(("X-Kgground-Engine", result.engine))
        if truncated:
            headers.append(("X-SPARQL-MaxRows", str(self.server.max_rows)))
        self._send(200, body, fmt.content_type, headers)

    # -- writing ------------------------------------------------------------------------------
    def _page_body(self) -> tuple[str, bytes]:
        server = self.server
        wants_html = "text/html" in (self.headers.get("Accept") or "")
        facts = [("Endpoint", server.url), ("Knowledge base", public_name(server.kb)),
                 ("Timeout", f"{server.query_timeout:g} s per query"),
                 ("Result cap", f"{server.max_rows:,} rows (header X-SPARQL-MaxRows when hit)"),
                 ("Formats", "SPARQL JSON, XML, CSV, TSV; Turtle, N-Triples, RDF/XML, JSON-LD "
                             "(Accept header or format=)"),
                 ("Read-only", "SPARQL Update is refused")]
        example = "SELECT ?o WHERE { wd:Q42 wdt:P108 ?o } LIMIT 10"
        if not wants_html:
            lines = [f"kgground {server.version}: a read-only SPARQL 1.1 endpoint", ""]
            lines += [f"{k:<15} {v}" for k, v in facts]
            lines += ["", f"Try: curl '{server.url}' --data-urlencode 'query={example}'", ""]
            return "text/plain; charset=utf-8", "\n".join(lines).encode("utf-8")
        rows = "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>"
                       for k, v in facts)
        page = f"""<!doctype html>
<html><head><meta charset="utf-8"><title>kgground SPARQL endpoint</title></head>
<body style="font-family: sans-serif; max-width: 50em; margin: 2em auto">
<h1>kgground SPARQL endpoint</h1>
<p>A read-only SPARQL 1.1 endpoint over a kgground knowledge base. Point SPARQLWrapper,
rdflib's SPARQLStore or YASGUI (e.g. <a href="https://yasgui.triply.cc">yasgui.triply.cc</a>)
at <code>{html.escape(server.url)}</code>. Wikidata's prefixes (wd:, wdt:, rdfs:, ...) are
predefined.</p>
<table>{rows}</table>
<form action="/sparql" method="get">
<p><textarea name="query" rows="6" cols="80">{html.escape(example)}</textarea></p>
<p><select name="format"><option>json</option><option>xml</option><option>csv</option>
<option>tsv</option></select> <button type="submit">Run</button></p>
</form></body></html>
"""
        return "text/html; charset=utf-8", page.encode("utf-8")

    def _send(self, status: int, body: bytes, content_type: str | None,
              headers: Any = (), head_only: bool = False) -> None:
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in _CORS:
            self.send_header(name, value)
        for name, value in headers:
            self.send_header(name, value)
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if body and not head_only:
            self.wfile.write(body)

    def _send_error(self, err: HttpError, head_only: bool = False) -> None:
        reason = HTTPStatus(err.status).phrase
        body = f"{err.status} {reason}: {err.message}\n".encode("utf-8")
        self._send(err.status, body, "text/plain; charset=utf-8", err.headers, head_only)

    def _discard_body(self) -> None:
        """Read and drop a request body (up to ``DRAIN_LIMIT`` bytes), so that the client
        reads our answer instead of a connection reset; bigger ones close the connection."""
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = 0
        if length > DRAIN_LIMIT:
            self.close_connection = True
            return
        while length > 0:
            chunk = self.rfile.read(min(length, 1 << 16))
            if not chunk:
                self.close_connection = True
                return
            length -= len(chunk)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base's name
        if self.server.log is not None:
            self.server.log.write(f"{self.address_string()} - [{self.log_date_time_string()}] "
                                  f"{format % args}\n")
            self.server.log.flush()


__all__ = ["MAX_BODY", "SparqlHandler", "SparqlServer", "running_server"]
