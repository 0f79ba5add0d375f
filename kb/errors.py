"""kgground's exception hierarchy (defined in ``store.errors``, the lowest layer, so that
every layer can raise it). See that module's docstring for the tree."""

from store.errors import (BenchmarkFormatError, EndpointError,  # noqa: F401
                          EndpointHTTPError, EndpointTimeout,
                          EndpointUnreachable, EntityNotFound, InvalidId, InvalidRequest,
                          InvalidText,
                          KGGroundError, LLMBadReply, LLMCacheMiss, LLMConfigError, LLMError,
                          LLMHTTPError, LLMRateLimited, LLMTimeout, LLMUnreachable, LoadError,
                          MalformedResult, MirrorError, MissingExtra, NotFound,
                          PropertyNotFound, QueryError, QueryRefused, QuerySyntaxError,
                          QueryTimeout, QueryTooComplex, QueryTooLarge,
                          RateLimited, ServerBusy,
                          ReportMismatch, EvalError, UnsupportedQuery, require)

__all__ = ["BenchmarkFormatError", "EndpointError", "EndpointHTTPError", "EndpointTimeout",
           "EndpointUnreachable", "EvalError",
           "EntityNotFound", "InvalidId", "InvalidRequest", "InvalidText", "KGGroundError",
           "LLMBadReply", "LLMCacheMiss", "LLMConfigError", "LLMError", "LLMHTTPError",
           "LLMRateLimited", "LLMTimeout", "LLMUnreachable", "LoadError", "MalformedResult",
           "MirrorError", "MissingExtra", "NotFound", "PropertyNotFound", "QueryError",
           "QueryRefused", "QuerySyntaxError", "QueryTimeout", "QueryTooComplex",
           "QueryTooLarge", "RateLimited",
           "ReportMismatch", "ServerBusy",
           "UnsupportedQuery", "require"]
