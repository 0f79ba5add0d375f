"""The one exception hierarchy of kgground.

It lives in the lowest layer so that every layer can raise it; users import it from
``kb.errors``, which re-exports everything here. Every message says what was expected,
what came, and how to fix it::

    KGGroundError
    ├── InvalidId                 an ID or IRI that is not well-formed (also a ValueError)
    │   └── InvalidText           a text that cannot be searched (a NUL character)
    ├── NotFound                  (also a LookupError)
    │   ├── EntityNotFound        no such entity in this KB
    │   └── PropertyNotFound      no such property in this KB
    ├── MirrorError               the local mirror cannot be opened or is inconsistent
    │   └── LoadError             an input file is malformed (file and line say where)
    ├── QueryError                a SPARQL query cannot be run
    │   ├── QuerySyntaxError      the query does not parse
    │   ├── QueryRefused          Update, LOAD, or SERVICE to an endpoint not allowed
    │   ├── QueryTimeout          it ran past its timeout (.timeout in seconds)
    │   ├── QueryTooLarge         it needed more memory than allowed (.max_memory bytes)
    │   ├── QueryTooComplex       past a limit on its shape (.limit names it, .value, .maximum)
    │   └── UnsupportedQuery      this engine cannot answer it (also NotImplementedError)
    ├── EndpointError             a live SPARQL endpoint failed; never an empty result
    │   ├── EndpointTimeout
    │   ├── RateLimited           .retry_after in seconds, when the endpoint said
    │   ├── EndpointHTTPError     .status and .body (an excerpt)
    │   ├── MalformedResult
    │   └── EndpointUnreachable
    ├── ServerBusy                the SPARQL server has too many queries (.retry_after)
    ├── LLMError                  an LLM backend failed (.backend names it); never an empty reply
    │   ├── InvalidRequest        a malformed call: messages, n, temperature (also a ValueError)
    │   ├── LLMConfigError        a backend or gate cannot be set up (also a ValueError)
    │   ├── LLMTimeout
    │   ├── LLMRateLimited        429 after the retries (.retry_after, when the server said)
    │   ├── LLMHTTPError          .status and .body (an excerpt)
    │   ├── LLMUnreachable
    │   ├── LLMBadReply           a reply without the completions asked for; a script out of replies
    │   └── LLMCacheMiss          replay-only: the record/replay cache lacks this request
    ├── MissingExtra              an optional dependency is not installed (also ImportError)
    └── EvalError                 an evaluation cannot run as asked
        ├── BenchmarkFormatError  a benchmark file is malformed or of unknown format (ValueError)
        └── ReportMismatch        a report to resume was written by a different run
"""

from __future__ import annotations

from types import ModuleType
from typing import Any


class KGGroundError(Exception):
    """Base of every error kgground raises on purpose.

    ``what`` is one sentence saying what went wrong; ``expected``/``got`` make the mismatch
    concrete and ``fix`` tells the user what to do. ``str(err)`` joins them.
    """

    def __init__(self, what: str, *, expected: str | None = None, got: object = None,
                 fix: str | None = None):
        self.what, self.expected, self.got, self.fix = what, expected, got, fix
        parts = [what]
        if expected is not None:
            parts.append(f"expected {expected}")
        if got is not None:
            parts.append(f"got {got!r}")
        message = "; ".join(parts)
        if fix:
            message += f". Fix: {fix}"
        super().__init__(message)

    def __reduce__(self) -> tuple[Any, ...]:
        # Subclasses take other constructor arguments than ``args`` holds: rebuild from the
        # state, so that errors cross process boundaries (a loader's parser processes).
        return _restore, (type(self), self.args, self.__dict__)


def _restore(cls: type[KGGroundError], args: tuple, state: dict) -> KGGroundError:
    err = cls.__new__(cls)
    Exception.__init__(err, *args)
    err.__dict__.update(state)
    return err


class InvalidId(KGGroundError, ValueError):
    """An entity, property or lexeme ID (or IRI) that is not well-formed."""


class InvalidText(InvalidId):
    """A text argument that cannot be searched or stored (it holds a NUL character)."""


class NotFound(KGGroundError, LookupError):
    """Something well-formed that the KB does not hold."""


class EntityNotFound(NotFound):
    def __init__(self, id: str, *, kb: str, fix: str | None = None):
        self.id: str | None = id        # None: a label that names nothing (linking.errors)
        super().__init__(f"entity {id} is not in {kb}",
                         fix=fix or "check the ID, or load data that contains it "
                                    "(kgground mirror load FILE)")


class PropertyNotFound(NotFound):
    def __init__(self, id: str, *, kb: str, fix: str | None = None):
        self.id: str | None = id        # None: a label that names nothing (linking.errors)
        super().__init__(f"property {id} is not in {kb}",
                         fix=fix or "check the PID, or load the property definitions "
                                    "(the dump or RDF file that defines it)")


class MirrorError(KGGroundError):
    """The local mirror cannot be opened, or is not in a usable state."""


class LoadError(MirrorError):
    """An input file could not be read; ``path`` and ``line`` say where."""

    def __init__(self, what: str, *, path: str, line: int | None = None, **kw: Any):
        self.path, self.line = path, line
        where = f"{path}:{line}" if line is not None else path
        super().__init__(f"{where}: {what}", **kw)


class QueryError(KGGroundError):
    """A SPARQL query that cannot be run."""


class QuerySyntaxError(QueryError):
    """The query does not parse. Where the parser can tell, ``line`` and ``column`` (1-based,
    the column in characters) say where, and ``excerpt`` is that line with a caret under the
    spot (also at the end of the message); otherwise all three are None."""

    def __init__(self, what: str, *, line: int | None = None, column: int | None = None,
                 excerpt: str | None = None, **kw: Any):
        self.line, self.column, self.excerpt = line, column, excerpt
        super().__init__(what, **kw)
        if excerpt:
            self.args = (f"{self.args[0]}\n{excerpt}",)

    def __str__(self) -> str:
        return self.args[0] if self.args else ""


class QueryRefused(QueryError):
    pass


class UnsupportedQuery(QueryError, NotImplementedError):
    pass


class QueryTimeout(QueryError):
    """A query did not finish within its timeout."""

    def __init__(self, timeout: float, *, fix: str | None = None):
        self.timeout = timeout
        super().__init__(f"the query ran past its {timeout:g} s timeout",
                         fix=fix or "add a LIMIT, bind more of the pattern, or raise the timeout")


class QueryTooLarge(QueryError):
    """A query needed more memory than it may use (``max_memory``: the process's memory
    at which it was stopped, in bytes; ``what`` says it otherwise, e.g. as a budget)."""

    def __init__(self, max_memory: int, *, what: str | None = None, fix: str | None = None):
        self.max_memory = max_memory
        super().__init__(what or f"the query needed more than the "
                                 f"{max_memory / (1 << 20):,.0f} MiB of memory allowed",
                         fix=fix or "add a LIMIT or bind more of the pattern (ORDER BY, "
                                    "DISTINCT and GROUP BY over many rows hold them all)")


class QueryTooComplex(QueryError):
    """A query past one of the limits on its shape (``store.sparql.shape``): ``limit`` names
    the limit ('nesting depth', 'OPTIONAL clauses', 'translated SQL size', ...), ``value``
    is what the query has and ``maximum`` what is allowed. Without the two numbers (an
    engine found the query past its own limits), ``limit`` says so in a few words."""

    def __init__(self, limit: str, value: int | None = None, maximum: int | None = None, *,
                 fix: str | None = None):
        self.limit, self.value, self.maximum = limit, value, maximum
        what = (f"its {limit} is {value:,} (at most {maximum:,})"
                if value is not None and maximum is not None else limit)
        super().__init__(f"the query is too complex to run: {what}",
                         fix=fix or "split it into simpler queries, or flatten the nesting")


class ServerBusy(KGGroundError):
    """Too many queries are waiting for a worker, or running long; retry after
    ``retry_after`` seconds."""

    def __init__(self, pending: int, retry_after: int = 1, *, what: str | None = None):
        self.retry_after = retry_after
        super().__init__(what or f"the server is busy ({pending} queries waiting or running)",
                         fix=f"retry in {retry_after} s, or send fewer queries at once")


class EndpointError(KGGroundError):
    """A live endpoint failed. ``endpoint`` is its URL."""

    def __init__(self, what: str, *, endpoint: str, **kw: Any):
        self.endpoint = endpoint
        super().__init__(f"{endpoint}: {what}", **kw)


class EndpointTimeout(EndpointError):
    pass


class RateLimited(EndpointError):
    def __init__(self, what: str, *, endpoint: str, retry_after: float | None = None, **kw: Any):
        self.retry_after = retry_after
        super().__init__(what, endpoint=endpoint, **kw)


class EndpointHTTPError(EndpointError):
    """An HTTP error status; ``retry_after``: the seconds the endpoint asked to wait, if it
    said (a 503 may)."""

    def __init__(self, what: str, *, endpoint: str, status: int, body: str = "",
                 retry_after: float | None = None, **kw: Any):
        self.status, self.body, self.retry_after = status, body, retry_after
        super().__init__(what, endpoint=endpoint, **kw)


class MalformedResult(EndpointError):
    pass


class EndpointUnreachable(EndpointError):
    pass


class LLMError(KGGroundError):
    """An LLM backend failed. ``backend`` names it (e.g. ``openai:gpt-4o-mini@URL``)."""

    def __init__(self, what: str, *, backend: str, **kw: Any):
        self.backend = backend
        super().__init__(f"{backend}: {what}", **kw)


class InvalidRequest(LLMError, ValueError):
    """A call that no backend could answer: bad messages, n, temperature, max_tokens."""


class LLMConfigError(LLMError, ValueError):
    """A backend or gate that cannot be set up (unknown spec or name, missing model, key,
    file or verifier)."""


class LLMTimeout(LLMError):
    pass


class LLMRateLimited(LLMError):
    def __init__(self, what: str, *, backend: str, retry_after: float | None = None, **kw: Any):
        self.retry_after = retry_after
        super().__init__(what, backend=backend, **kw)


class LLMHTTPError(LLMError):
    def __init__(self, what: str, *, backend: str, status: int, body: str = "", **kw: Any):
        self.status, self.body = status, body
        super().__init__(what, backend=backend, **kw)


class LLMUnreachable(LLMError):
    pass


class LLMBadReply(LLMError):
    pass


class LLMCacheMiss(LLMError):
    """A replay-only cache was asked for a request it never recorded (``.key``)."""

    def __init__(self, what: str, *, backend: str, key: str, **kw: Any):
        self.key = key
        super().__init__(what, backend=backend, **kw)


class MissingExtra(KGGroundError, ImportError):
    """An optional dependency is missing; the message names the extra that installs it."""

    def __init__(self, module: str, extra: str, purpose: str):
        super().__init__(f"{purpose} needs the Python package {module!r}, which is not installed",
                         fix=f"pip install 'kgground[{extra}]'")


class EvalError(KGGroundError):
    """An evaluation (``kgground eval``) cannot run as asked."""


class BenchmarkFormatError(EvalError, ValueError):
    """A benchmark file is malformed, or its format cannot be told (file and line say where)."""


class ReportMismatch(EvalError):
    """The report an evaluation would resume was written by a run with other settings."""


def require(module: str, extra: str, purpose: str) -> ModuleType:
    """Import an optional module, or raise MissingExtra naming the extra that provides it."""
    import importlib
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtra(module, extra, purpose) from exc
