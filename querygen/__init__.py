"""Query generation: questions → label-level and grounded triplet queries and SPARQL.

``querygen.types`` holds what generation returns (``GeneratedQuery``, ``LinkingDecision``).
"""

from querygen.types import GeneratedQuery, LinkingDecision

__all__ = ["GeneratedQuery", "LinkingDecision"]
