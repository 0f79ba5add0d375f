"""kgground's exception hierarchy (defined in ``store.errors``, the lowest layer, so that
every layer can raise it). See that module's docstring for the tree."""

from store.errors import (EndpointError, EndpointHTTPError, EndpointTimeout,  # noqa: F401
                          EndpointUnreachable, EntityNotFound, InvalidId, InvalidRequest,
                          InvalidText,
                          KGGroundError, LLMBadReply, LLMCacheMiss, LLMConfigError, LLMError,
                          LLMHTTPError, LLMRateLimited, LLMTimeout, LLMUnreachable, LoadError,
                          MalformedResult, MirrorError, MissingExtra, NotFound,
                          PropertyNotFound, QueryError, QueryRefused, QuerySyntaxError,
                          QueryTimeout, QueryTooLarge, RateLimited, ServerBusy,
                          UnsupportedQuery, require)

__all__ = ["EndpointError", "EndpointHTTPError", "EndpointTimeout", "EndpointUnreachable",
           "EntityNotFound", "InvalidId", "InvalidRequest", "InvalidText", "KGGroundError",
           "LLMBadReply", "LLMCacheMiss", "LLMConfigError", "LLMError", "LLMHTTPError",
           "LLMRateLimited", "LLMTimeout", "LLMUnreachable", "LoadError", "MalformedResult",
           "MirrorError", "MissingExtra", "NotFound", "PropertyNotFound", "QueryError",
           "QueryRefused", "QuerySyntaxError", "QueryTimeout", "QueryTooLarge", "RateLimited",
           "ServerBusy",
           "UnsupportedQuery", "require"]
