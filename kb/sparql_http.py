"""Talking to a live SPARQL endpoint over HTTP, through SPARQLWrapper.

``SparqlClient(url).run(query)`` sends one validated query and returns a ``SparqlResult``.
Its contract:

- **Identification**: every request carries a descriptive User-Agent (``kgground/<version>
  (<contact>) SPARQLWrapper/<version> Python/<version>``); the contact comes from the
  ``contact`` argument or ``$KGGROUND_CONTACT``. Wikimedia blocks anonymous clients, so
  sending to query.wikidata.org without a contact logs a warning once.
- **Content negotiation only**: SELECT/ASK ask for ``application/sparql-results+json``,
  CONSTRUCT/DESCRIBE for Turtle; no ``format=``/``output=`` parameters (endpoints reject
  values they do not know). GET for short queries, URL-encoded POST for long ones.
- **Deadline**: a call has ``timeout`` seconds in all (default 60, query.wikidata.org's own
  limit), whatever the endpoint does: waiting for a slot, connecting, every retry and
  its wait, and reading the answer count against it, and at the deadline the connection
  is cut (an endpoint sending a byte every few seconds cannot stretch it). A caller may
  give the deadline itself (``deadline=``, a ``time.monotonic()`` value), so that several
  queries of one call share it.
- **Concurrency**: at most ``max_concurrency`` (default 5) queries in flight per endpoint
  URL, shared by the clients given the same ``EndpointLimits`` (``limits=``; a
  ``reasoning.Session`` holds one for everything it opens); a client given none has a cap
  of its own. A URL's cap is set once: a second client of the same ``EndpointLimits``
  asking another size for it is a ``ValueError``. Waiting longer than ``timeout`` for a
  slot is an ``EndpointTimeout``.
- **Retries**: HTTP 429 and 503 are retried up to ``retries`` times (so at most
  ``retries + 1`` requests). The wait is the ``Retry-After`` header when the endpoint sends
  one (seconds or an HTTP date), else ``backoff * 2**attempt`` seconds (1, 2, 4 s by
  default). A wait longer than ``max_retry_wait``, or past the call's deadline, is not
  waited for: the typed error is raised at once, carrying the Retry-After. Nothing else
  is retried: a timed-out query would time out again, and an unreachable endpoint should
  fail fast.
- **Typed errors, never an empty result**: ``EndpointTimeout`` (client timeout, HTTP 504,
  or the endpoint reporting its own query timeout), ``RateLimited`` (429, with
  ``retry_after``), ``EndpointHTTPError`` (any other non-2xx, with ``status`` and a body
  excerpt; a 503 also has ``retry_after``), ``MalformedResult`` (a 2xx whose body is not
  the result format asked for), ``EndpointUnreachable`` (DNS failure, refused or dropped
  connection).
- **Cache**: answers are stored in a ``ResultCache`` (see ``store.answer_cache``) when one
  is given; a cached answer has ``engine='cache'`` and says so in ``explain``.
"""

from __future__ import annotations

import ast
import contextlib
import datetime as dt
import email.utils
import http.client
import logging
import os
import platform
import re
import socket
import ssl
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

import orjson
from rdflib import BNode, Graph, Literal, URIRef

from kb.types import SparqlResult
from store.answer_cache import ResultCache
from store.errors import (EndpointError, EndpointHTTPError, EndpointTimeout,
                          EndpointUnreachable, MalformedResult, RateLimited)

log = logging.getLogger(__name__)

WIKIDATA_SPARQL = "https://query.wikidata.org/sparql"
DEFAULT_TIMEOUT = 60.0
DEFAULT_CONCURRENCY = 5
DEFAULT_RETRIES = 3
DEFAULT_BACKOFF = 1.0
DEFAULT_MAX_RETRY_WAIT = 120.0
#: longer queries go by POST (URLs past ~2 KB are cut by some proxies)
MAX_GET_QUERY = 2000
_EXCERPT = 300
#: what endpoints say in the body of a 500 when the query itself ran out of time
_SERVER_TIMEOUT_MARKERS = ("TimeoutException", "S1T00", "Query timeout", "timed out")

_warned_contact = False


class EndpointLimits:
    """The caps on queries in flight to each endpoint URL, for the clients that share this
    object (see the module docstring). Thread-safe.

    ``slots(url, size)`` is the semaphore capping ``url``, made with ``size`` slots by the
    first ask; asking again with another size raises ``ValueError`` (a cap is set once,
    never silently replaced by whichever caller came first). ``size(url)`` is the cap set
    for ``url``, None before any."""

    def __init__(self) -> None:
        self._slots: dict[str, tuple[threading.BoundedSemaphore, int]] = {}
        self._lock = threading.Lock()

    def slots(self, url: str, size: int = DEFAULT_CONCURRENCY) -> threading.BoundedSemaphore:
        if size < 1:
            raise ValueError(f"an endpoint's cap must be at least 1, got {size}")
        with self._lock:
            found = self._slots.get(url)
            if found is None:
                found = self._slots[url] = (threading.BoundedSemaphore(size), size)
            elif found[1] != size:
                raise ValueError(f"{url} already has a cap of {found[1]} queries at once in "
                                 f"these EndpointLimits; {size} was asked for (give the "
                                 "client its own EndpointLimits, or the same size)")
            return found[0]

    def size(self, url: str) -> int | None:
        with self._lock:
            found = self._slots.get(url)
        return found[1] if found is not None else None


def default_user_agent(contact: str | None = None) -> str:
    """kgground's User-Agent, in the form Wikimedia's policy asks for."""
    from importlib.metadata import PackageNotFoundError, version

    import SPARQLWrapper

    try:
        ours = version("kgground")
    except PackageNotFoundError:
        ours = "0"
    contact = contact or os.environ.get("KGGROUND_CONTACT") or ""
    who = contact.strip() or "no contact configured; set KGGROUND_CONTACT"
    return (f"kgground/{ours} ({who}) SPARQLWrapper/{SPARQLWrapper.__version__} "
            f"Python/{platform.python_version()}")


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or HTTP date); None if
    absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    now = time.time() if now is None else now
    return max(when.timestamp() - now, 0.0)


def iso_time(epoch: float) -> str:
    """Epoch seconds → ISO 8601 UTC, the format of the mirror's ``loaded_at``."""
    return dt.datetime.fromtimestamp(epoch, dt.UTC).isoformat(timespec="seconds")


def excerpt(body: bytes | str, size: int = _EXCERPT) -> str:
    """The start of a response body as one line of text."""
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    text = " ".join(text.split())
    return text if len(text) <= size else text[:size] + "…"


class SparqlClient:
    """The HTTP side of one endpoint (see the module docstring for the contract)."""

    def __init__(self, url: str, *, graph: str | None = None, user_agent: str | None = None,
                 contact: str | None = None, timeout: float = DEFAULT_TIMEOUT,
                 max_concurrency: int = DEFAULT_CONCURRENCY, retries: int = DEFAULT_RETRIES,
                 backoff: float = DEFAULT_BACKOFF,
                 max_retry_wait: float = DEFAULT_MAX_RETRY_WAIT,
                 cache: ResultCache | None = None, limits: EndpointLimits | None = None):
        if not re.match(r"https?://[^\s/]+", url or ""):
            raise ValueError(f"a SPARQL endpoint URL must start with http:// or https://, "
                             f"got {url!r}")
        if timeout <= 0 or max_concurrency < 1 or retries < 0 or backoff < 0:
            raise ValueError("timeout must be > 0, max_concurrency >= 1, retries >= 0 and "
                             "backoff >= 0")
        self.url, self.graph = url, graph
        self.user_agent = user_agent or default_user_agent(contact)
        self.timeout, self.retries = float(timeout), int(retries)
        self.backoff, self.max_retry_wait = float(backoff), float(max_retry_wait)
        self.limits = limits if limits is not None else EndpointLimits()
        self.slots = self.limits.slots(url, max_concurrency)
        self.max_concurrency = max_concurrency
        self.cache = cache
        self._warn_anonymous()

    def _warn_anonymous(self) -> None:
        global _warned_contact
        if (self.url.startswith(WIKIDATA_SPARQL) and "no contact configured" in self.user_agent
                and not _warned_contact):
            _warned_contact = True
            log.warning("querying %s without contact details in the User-Agent; Wikimedia "
                        "may block such clients. Set KGGROUND_CONTACT to an email or URL.",
                        self.url)

    # -- one query ------------------------------------------------------------------------
    def run(self, query: str, *, kind: str, timeout: float | None = None,
            use_cache: bool = True, deadline: float | None = None) -> SparqlResult:
        """Answer ``query`` (already validated; ``kind`` is 'SELECT', 'ASK', 'CONSTRUCT' or
        'DESCRIBE'): from the cache when it holds a live entry, else from the endpoint,
        within ``timeout`` seconds in all (or by ``deadline``, a ``time.monotonic()``
        value)."""
        return self.run_timed(query, kind=kind, timeout=timeout, use_cache=use_cache,
                              deadline=deadline)[0]

    def deadline(self, timeout: float | None = None) -> float:
        """The deadline of a call starting now (``timeout``, else the client's)."""
        return time.monotonic() + (timeout or self.timeout)

    def run_timed(self, query: str, *, kind: str, timeout: float | None = None,
                  use_cache: bool = True, deadline: float | None = None
                  ) -> tuple[SparqlResult, float]:
        """``run``, plus when the answer was fetched from the endpoint (epoch seconds; for
        a cached answer, when it was first fetched)."""
        if deadline is None:
            deadline = self.deadline(timeout)
        fmt = "json" if kind in ("SELECT", "ASK") else "turtle"
        key = ResultCache.key(self.url, query, graph=self.graph, fmt=fmt)
        cache = self.cache if use_cache else None
        if cache is not None:
            hit = cache.get(key)
            if hit is not None:
                out = decode(hit.body, hit.content_type, kind=kind, endpoint=self.url)
                explain = (f"cached answer of {self.url}, fetched {iso_time(hit.fetched_at)}, "
                           f"expires {iso_time(hit.expires_at)}")
                return _mark(out, self.url, "cache", explain, hit.fetched_at), hit.fetched_at
        body, ctype, fetched_at, max_rows = self._with_retries(query, fmt, deadline,
                                                               timeout or self.timeout)
        out = decode(body, ctype, kind=kind, endpoint=self.url)
        if cache is not None:
            cache.put(key, endpoint=self.url, query=query, body=body, content_type=ctype,
                      fetched_at=fetched_at)
        explain = f"answered by {self.url} at {iso_time(fetched_at)}"
        if max_rows:
            log.warning("%s cut its answer at %s rows (X-SPARQL-MaxRows); add a LIMIT or "
                        "page with OFFSET", self.url, max_rows)
            explain += f"; truncated by the endpoint at {max_rows} rows (X-SPARQL-MaxRows)"
        return _mark(out, self.url, "endpoint", explain, fetched_at), fetched_at

    def _with_retries(self, query: str, fmt: str, deadline: float, total: float
                      ) -> tuple[bytes, str, float, str | None]:
        """The answer by ``deadline`` (the end of a call of ``total`` seconds)."""
        started = time.monotonic()
        for attempt in range(self.retries + 1):
            try:
                return self._send(query, fmt, deadline, total)
            except (RateLimited, EndpointHTTPError) as exc:
                status = 429 if isinstance(exc, RateLimited) else exc.status
                if status not in (429, 503):
                    raise
                wait = getattr(exc, "retry_after", None)
                if wait is None:
                    wait = self.backoff * 2 ** attempt
                left = deadline - time.monotonic()
                if attempt == self.retries or wait > self.max_retry_wait or wait >= left:
                    raise _gave_up(exc, attempt + 1, time.monotonic() - started,
                                   beyond=max(left, 0.0) if wait >= left else None) from None
                log.info("%s answered HTTP %s; retry %d of %d in %.2f s", self.url, status,
                         attempt + 1, self.retries, wait)
                time.sleep(wait)
        raise AssertionError("unreachable")  # pragma: no cover

    def _send(self, query: str, fmt: str, deadline: float, total: float
              ) -> tuple[bytes, str, float, str | None]:
        """One HTTP exchange, inside a concurrency slot, cut at ``deadline`` (``total``
        seconds after the call began): (body, content type, when it was sent, the
        X-SPARQL-MaxRows header if the endpoint truncated the answer). Errors are mapped
        to typed ones."""
        from SPARQLWrapper import GET, JSON, POST, TURTLE, SPARQLWrapper

        sw = SPARQLWrapper(self.url, agent=self.user_agent)
        sw.setOnlyConneg(True)
        sw.setQuery(query)
        sw.setReturnFormat(JSON if fmt == "json" else TURTLE)
        if self.graph:
            sw.addDefaultGraph(self.graph)
        long = len(urllib.parse.quote_plus(query)) > MAX_GET_QUERY
        sw.setMethod(POST if long else GET)
        if not self.slots.acquire(timeout=max(deadline - time.monotonic(), 0.0)):
            raise EndpointTimeout(f"no free query slot within {total:g} s (at most "
                                  f"{self.max_concurrency} queries run at once)",
                                  endpoint=self.url,
                                  fix="ask fewer queries in parallel, or raise the timeout")
        watch = _Watch(deadline)
        try:
            left = deadline - time.monotonic()
            if left <= 0:
                raise _timed_out(self.url, total)
            fetched_at = time.time()
            # SPARQLWrapper builds the request; it is sent through connections the watch
            # can cut at the deadline (urllib's timeout is per read, not per answer)
            request = sw._createRequest()
            with watch:
                response = watch.opener().open(request, timeout=left)
                body = response.read()
            if watch.expired:
                raise _timed_out(self.url, total)
            ctype = response.headers.get("Content-Type", "") or ""
            return body, ctype, fetched_at, response.headers.get("X-SPARQL-MaxRows")
        except EndpointError:
            raise
        except Exception as exc:  # noqa: BLE001 - every transport failure gets a typed error
            if watch.expired:
                raise _timed_out(self.url, total) from exc
            raise map_error(exc, self.url, total) from exc
        finally:
            self.slots.release()


def _timed_out(url: str, total: float) -> EndpointTimeout:
    return EndpointTimeout(f"no complete answer within {total:g} s", endpoint=url,
                           fix="raise the timeout, or simplify the query")


class _Watch:
    """Cuts the connections of one HTTP exchange at its deadline: urllib's timeout bounds
    each read, so an endpoint trickling bytes could otherwise hold a call for ever. Used
    as a context manager around the exchange; ``expired`` says whether it cut."""

    def __init__(self, deadline: float):
        self.deadline = deadline
        self.expired = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None

    def __enter__(self) -> _Watch:
        self._timer = threading.Timer(max(self.deadline - time.monotonic(), 0.0), self.expire)
        self._timer.daemon = True
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._timer is not None:
            self._timer.cancel()

    def track(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.append(sock)
            if self.expired:
                _cut(sock)

    def expire(self) -> None:
        with self._lock:
            self.expired = True
            for sock in self._sockets:
                _cut(sock)

    def opener(self) -> urllib.request.OpenerDirector:
        """A urllib opener whose connections this watch tracks (redirects included)."""
        watch = self

        class Http(http.client.HTTPConnection):
            def connect(self) -> None:
                super().connect()
                watch.track(self.sock)

        class Https(http.client.HTTPSConnection):
            def connect(self) -> None:
                super().connect()
                watch.track(self.sock)

        class HttpHandler(urllib.request.HTTPHandler):
            def http_open(self, req: Any) -> Any:
                return self.do_open(Http, req)

        class HttpsHandler(urllib.request.HTTPSHandler):
            _context: ssl.SSLContext | None     # set by HTTPSHandler.__init__, not in typeshed

            def https_open(self, req: Any) -> Any:
                return self.do_open(Https, req, context=self._context)

        return urllib.request.build_opener(HttpHandler, HttpsHandler)


def _cut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


def _mark(out: SparqlResult, url: str, engine: str, explain: str,
          fetched_at: float) -> SparqlResult:
    return SparqlResult(vars=out.vars, rows=out.rows, boolean=out.boolean, graph=out.graph,
                        source=f"sparql:{url}", engine=engine, explain=explain,
                        retrieved_at=iso_time(fetched_at))


def _gave_up(exc: RateLimited | EndpointHTTPError, attempts: int, seconds: float, *,
             beyond: float | None = None) -> EndpointError:
    """The final error after the retries ran out (or when the wait asked for would pass
    the call's deadline, ``beyond`` seconds away), saying how many were made."""
    retry_after = getattr(exc, "retry_after", None)
    when = f"; it asked to wait {retry_after:g} s" if retry_after is not None else ""
    if beyond is not None:
        when += f", past this call's deadline ({beyond:.1f} s left): not waited for"
    what = (f"still failing after {attempts} attempt{'s' * (attempts > 1)} over "
            f"{seconds:.1f} s{when}")
    endpoint = exc.endpoint
    if isinstance(exc, RateLimited):
        return RateLimited(f"rate limited (HTTP 429), {what}", endpoint=endpoint,
                           retry_after=retry_after,
                           fix="wait before asking again, and send fewer queries at once")
    return EndpointHTTPError(f"HTTP {exc.status} (service unavailable), {what}",
                             endpoint=endpoint, status=exc.status, body=exc.body,
                             retry_after=retry_after, got=exc.body or None,
                             fix="try again later")


def _http_error(status: int, headers: Any, body: bytes, url: str) -> EndpointError:
    text = excerpt(body)
    retry_after = parse_retry_after(headers.get("Retry-After") if headers else None)
    if status == 429:
        return RateLimited("rate limited (HTTP 429)", endpoint=url, retry_after=retry_after,
                           fix="wait before asking again, and send fewer queries at once")
    if status == 504 or (status == 500 and any(m in text for m in _SERVER_TIMEOUT_MARKERS)):
        return EndpointTimeout(f"the query ran out of time at the endpoint (HTTP {status})",
                               endpoint=url, got=text or None,
                               fix="simplify the query or bind more of it (add a LIMIT, "
                                   "fewer OPTIONALs, a more selective pattern first)")
    hint = {400: "the endpoint rejected the query; check it against the endpoint's dialect",
            401: "the endpoint needs credentials", 403: "the endpoint refused access",
            404: "check the endpoint URL", 414: "the query is too long for a GET request",
            503: "the endpoint is overloaded or down; try again later"}
    return EndpointHTTPError(f"HTTP {status}", endpoint=url, status=status, body=text,
                             retry_after=retry_after, got=text or None,
                             fix=hint.get(status, "see the endpoint's message above"))


def _read_error_body(exc: urllib.error.HTTPError) -> bytes:
    try:
        return exc.read() or b""
    except (OSError, http.client.HTTPException):
        return b""


def map_error(exc: BaseException, url: str, timeout: float) -> EndpointError:
    """A transport exception (urllib's, SPARQLWrapper's, socket's) → kgground's typed one."""
    from SPARQLWrapper.SPARQLExceptions import SPARQLWrapperException

    if isinstance(exc, EndpointError):
        return exc
    if isinstance(exc, urllib.error.HTTPError):
        return _http_error(exc.code, exc.headers, _read_error_body(exc), url)
    if isinstance(exc, SPARQLWrapperException):
        # SPARQLWrapper turns 400/401/404/414/500 into its own exceptions, raised while
        # handling urllib's HTTPError (kept as __context__) with the body in the message.
        inner = exc.__context__
        status = getattr(inner, "code", None) or {
            "QueryBadFormed": 400, "Unauthorized": 401, "EndPointNotFound": 404,
            "URITooLong": 414, "EndPointInternalError": 500}.get(type(exc).__name__, 500)
        return _http_error(status, getattr(inner, "headers", None), _body_of(exc), url)
    reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
    if isinstance(reason, (TimeoutError, socket.timeout)) or "timed out" in str(reason):
        return EndpointTimeout(f"no answer within {timeout:g} s", endpoint=url,
                               fix="raise the timeout, or simplify the query")
    if isinstance(exc, http.client.IncompleteRead):
        return MalformedResult("the answer was cut off before its end", endpoint=url,
                               fix="try again; if it persists, add a LIMIT")
    if isinstance(reason, (OSError, http.client.HTTPException)):
        return EndpointUnreachable(f"cannot reach the endpoint ({reason})", endpoint=url,
                                   fix="check the URL and the network, or work offline "
                                       "(--offline) from the local mirror")
    return MalformedResult(f"unexpected failure while reading the answer "
                           f"({type(exc).__name__}: {exc})", endpoint=url)


def _body_of(exc: BaseException) -> bytes:
    """The response body SPARQLWrapper put into its exception message (as a bytes repr)."""
    text = str(exc)
    _, sep, tail = text.partition("\n\nResponse:\n")
    if not sep:
        return b""
    try:
        body = ast.literal_eval(tail)
    except (ValueError, SyntaxError):
        return tail.encode()
    return body if isinstance(body, bytes) else str(body).encode()


# -- decoding answers ------------------------------------------------------------------------

def decode(body: bytes, content_type: str, *, kind: str, endpoint: str) -> SparqlResult:
    """An endpoint's answer → SparqlResult (source/engine are set by the caller); raises
    MalformedResult when the body is not what was asked for."""
    if kind in ("SELECT", "ASK"):
        return _decode_json(body, content_type, kind, endpoint)
    fmt = ("nt" if "n-triples" in content_type else "xml" if "rdf+xml" in content_type
           else "json-ld" if "ld+json" in content_type else "turtle")
    from store import rdf_parse  # noqa: F401 - XML entity guards in rdflib's readers
    from store.network_guard import no_network

    graph = Graph()
    try:
        with no_network():     # a JSON-LD @context URL in an answer is not followed
            graph.parse(data=body.decode("utf-8"), format=fmt)
    except Exception as exc:  # noqa: BLE001 - rdflib's parsers raise many types
        raise MalformedResult(f"the {kind} answer is not valid {fmt} ({exc})",
                              endpoint=endpoint, got=excerpt(body, 120)) from None
    return SparqlResult(graph=graph)


def _decode_json(body: bytes, content_type: str, kind: str, endpoint: str) -> SparqlResult:
    def bad(why: str) -> MalformedResult:
        return MalformedResult(f"the answer is not SPARQL JSON results: {why}",
                               endpoint=endpoint, expected="application/sparql-results+json",
                               got=f"{content_type or 'no content type'}: "
                                   f"{excerpt(body, 120)}",
                               fix="check that the URL is a SPARQL endpoint")
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise bad(f"invalid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise bad("the top level is not an object")
    if kind == "ASK" or "boolean" in data:
        if not isinstance(data.get("boolean"), bool):
            raise bad("an ASK answer without a boolean")
        return SparqlResult(boolean=data["boolean"])
    head, results = data.get("head"), data.get("results")
    names = head.get("vars") if isinstance(head, dict) else None
    bindings = results.get("bindings") if isinstance(results, dict) else None
    if not isinstance(names, list) or not isinstance(bindings, list):
        raise bad("head.vars or results.bindings is missing")
    rows = []
    try:
        for binding in bindings:
            rows.append({name: _term(cell) for name, cell in binding.items()})
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise bad(f"a binding is malformed ({type(exc).__name__}: {exc})") from None
    return SparqlResult(vars=tuple(str(n) for n in names), rows=tuple(rows))


def _term(cell: dict[str, str]) -> Any:
    kind, value = cell["type"], cell["value"]
    if not isinstance(value, str):
        raise ValueError(f"value {value!r} is not a string")
    if kind == "uri":
        return URIRef(value)
    if kind in ("literal", "typed-literal"):
        lang, datatype = cell.get("xml:lang"), cell.get("datatype")
        # normalize=False keeps the lexical form as sent ("…Z", not rdflib's "…+00:00")
        return Literal(value, lang=lang or None,
                       datatype=URIRef(datatype) if datatype and not lang else None,
                       normalize=False)
    if kind == "bnode":
        return BNode(value)
    raise ValueError(f"unknown term type {kind!r}")
