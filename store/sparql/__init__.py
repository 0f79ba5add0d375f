"""kgground's SPARQL engine: from query text to answers over a mirror or an rdflib graph.

The one entry point is ``run(target, query, *, timeout=None, engine="auto", stream=False)
-> Answer`` (``store.sparql.engine``): ``target`` is a ``store.mirror.Mirror`` (SQLite or
PostgreSQL, through its SQLAlchemy engine) or an rdflib ``Graph``. The KBs of ``kb/`` run
every local query through it. The rest of what this package exports serves those who
check a query without running it (the SPARQL validator, the endpoint client, the
few-shot generator).

The modules, in the order a query meets them:

==================  ========================================================================
``syntax``          tree-sitter's concrete syntax tree (``parse``), with positioned errors
``shape``           limits on a query's shape, checked on that tree before anything runs
``prepared``        ``prepare``: parse, refuse updates and foreign SERVICEs, translate; the
                    rdflib copy of a query for rdflib's evaluator (RE2 regexes, repairs)
``algebra``         the SPARQL algebra from the syntax tree (``translate``), without rdflib
``nodes``           ``CompValue``, the algebra's node, rdflib-compatible
``labels``          Wikidata's label service, emulated (an algebra rewrite)
``sql``             the algebra of a SELECT or ASK compiled to one SQL statement (``SqlPlan``)
``expressions``     terms, FILTER and computed expressions of that compiler; SQLite functions
``postgres``        the same functions in PL/pgSQL, for a PostgreSQL mirror
``rdflib_fixes``    repairs to rdflib's algebra and aggregates before its evaluator runs
``engine``          ``run``: the SQL path first, rdflib's evaluator when it must
==================  ========================================================================
"""

from store.sparql.algebra import translate
from store.sparql.engine import GRAPH_EXPLAIN, Answer, Engine, plan, run
from store.sparql.nodes import CompValue
from store.sparql.prepared import (EMULATED_SERVICES, WIKIDATA_PREFIXES, PreparedQuery,
                                   parse_checked, prepare, rdflib_query)
from store.sparql.shape import check as check_query_shape
from store.sparql.syntax import ParsedQuery, parse

__all__ = ["Answer", "CompValue", "EMULATED_SERVICES", "Engine", "GRAPH_EXPLAIN",
           "ParsedQuery", "PreparedQuery", "WIKIDATA_PREFIXES", "check_query_shape", "parse",
           "parse_checked", "plan", "prepare", "rdflib_query", "run", "translate"]
