# rdflib's warnings about ill-typed literals and odd IRIs are counted, not printed with
# their tracebacks, wherever kgground uses rdflib (see store.rdf_warnings)
from store import rdf_warnings  # noqa: F401
