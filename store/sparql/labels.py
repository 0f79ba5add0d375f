"""Wikidata's label service, emulated locally.

Queries pasted from query.wikidata.org end with
``SERVICE wikibase:label { bd:serviceParam wikibase:language "en,fr" . }``. WDQS then fills
every projected ``?xLabel``, ``?xAltLabel`` and ``?xDescription`` from ``?x``'s
``rdfs:label``, ``skos:altLabel`` and ``schema:description`` (automatic mode), or, when the
service holds triples such as ``?x rdfs:label ?name``, just those (explicit mode).
Semantics, as WDQS's own LabelService implements them:

- languages are tried in the order given (``"en,fr"``, several ``wikibase:language``
  params, ``[AUTO_LANGUAGE]`` meaning English here); the first language that has a value
  wins; several values in that language are joined with ``", "`` (aliases, usually);
- with no value in any language, a label falls back to the entity's ID (``Q42``; a
  literal's own text; other IRIs in full); descriptions and aliases stay unbound.

``rewrite(algebra)`` replaces each label SERVICE (which rdflib would otherwise try to fetch
over HTTP) by ``Extend`` nodes that bind the label variables with a private SPARQL function,
placed above the service's whole group so that FILTER, GROUP BY and ORDER BY see the
labels. rdflib evaluates that function with ``resolve`` below; the SQL compiler
(``store.sparql.sql``) recognises it and writes the same lookup as SQL subqueries.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rdflib import Literal, URIRef, Variable

from store.errors import UnsupportedQuery
from store.sparql.nodes import CompValue, is_rdflib_node
from store.vocab import RDFS_LABEL, SCHEMA_DESCRIPTION, SKOS_ALT_LABEL, WD

LABEL_SERVICE = "http://wikiba.se/ontology#label"
SERVICE_PARAM = "http://www.bigdata.com/rdf#serviceParam"
LANGUAGE_PARAM = "http://wikiba.se/ontology#language"
#: the private function the rewrite calls: (subject, languages "en,fr", predicate IRI)
LABEL_FUNCTION = URIRef("urn:kgground:label-service")
AUTO_LANGUAGE = "en"
#: automatic mode: variable-name suffix → predicate (AltLabel before Label: a suffix of it)
SUFFIXES = (("AltLabel", SKOS_ALT_LABEL), ("Label", RDFS_LABEL),
            ("Description", SCHEMA_DESCRIPTION))
PREDICATES = {RDFS_LABEL, SKOS_ALT_LABEL, SCHEMA_DESCRIPTION}


@dataclass(frozen=True)
class Resolution:
    """Bind ``target`` to ``subject``'s ``predicate`` values in the first of ``languages``
    that has one."""
    subject: Any            # a Variable or a constant IRI
    predicate: str
    target: Variable
    languages: tuple[str, ...]


def parse_languages(values: list[str]) -> tuple[str, ...]:
    """``["en,fr", "[AUTO_LANGUAGE]"]`` → ``("en", "fr")``: in order, lowercased, once."""
    out: list[str] = []
    for value in values:
        for code in value.split(","):
            code = code.strip()
            code = AUTO_LANGUAGE if code.upper() == "[AUTO_LANGUAGE]" else code.lower()
            if code and code not in out:
                out.append(code)
    return tuple(out) or (AUTO_LANGUAGE,)


def rewrite(algebra: CompValue) -> CompValue:
    """The query algebra with every label SERVICE emulated (see the module docstring).
    Returns ``algebra`` itself when it has none. Raises UnsupportedQuery for a service
    body the label service does not understand."""
    if not _has_label_service(algebra):
        return algebra
    projection = [v for v in (algebra.get("PV") or []) if isinstance(v, Variable)]
    new, _ = _rewrite(algebra, projection, _rdflib_kind() if is_rdflib_node(algebra)
                      else _OWN_KIND)
    if _has_label_service(new):   # e.g. inside FILTER EXISTS, which WDQS rejects too
        raise UnsupportedQuery("the label service is emulated in the query's graph "
                               "patterns only", fix="move the SERVICE wikibase:label "
                               "clause into the WHERE clause")
    return new


def _has_label_service(node: Any) -> bool:
    if isinstance(node, CompValue):
        if node.name == "ServiceGraphPattern" and str(node.get("term")) == LABEL_SERVICE:
            return True
        return any(_has_label_service(v) for v in node.values())
    if isinstance(node, (list, tuple)):
        return any(_has_label_service(v) for v in node)
    return False


#: how rewritten nodes are made: (node class, the label function's expression node class
#: and its evaluation function). kgground's algebra: its own nodes (the SQL compiler
#: reads the function by name); rdflib's: rdflib's, which its evaluator can run.
_OWN_KIND: tuple[Any, Any, Any] = (CompValue, CompValue, None)


def _rdflib_kind() -> tuple[Any, Any, Any]:
    from rdflib.plugins.sparql.operators import Function, register_custom_function
    from rdflib.plugins.sparql.parserutils import CompValue as RdflibCompValue
    from rdflib.plugins.sparql.parserutils import Expr

    register_custom_function(LABEL_FUNCTION, resolve, raw=True, override=True)
    return RdflibCompValue, Expr, Function


def _rewrite(node: Any, projection: list[Variable],
             kind: tuple[Any, Any, Any]) -> tuple[Any, list[Resolution]]:
    """(rewritten node, resolutions still to place). A Join passes its services up so that
    they land above the whole join chain of their group; any other node places them."""
    if not isinstance(node, CompValue):
        return node, []
    make = kind[0]
    if node.name == "ServiceGraphPattern" and str(node.get("term")) == LABEL_SERVICE:
        return make("BGP", triples=[], _vars=set()), _resolutions(node, projection)
    if node.name == "Join":
        p1, r1 = _rewrite(node["p1"], projection, kind)
        p2, r2 = _rewrite(node["p2"], projection, kind)
        out = make("Join", **{**node, "p1": p1, "p2": p2})
        return out, r1 + r2
    fields = {}
    for key, value in node.items():
        if isinstance(value, CompValue) and key in ("p", "p1", "p2"):
            value, pending = _rewrite(value, projection, kind)
            value = _bind(value, pending, kind)
        fields[key] = value
    return make(node.name, **fields), []


def _bind(node: CompValue, resolutions: list[Resolution],
          kind: tuple[Any, Any, Any]) -> CompValue:
    """``node`` wrapped in one Extend per resolution whose subject it can bind."""
    make, make_expr, evaluate = kind
    scope = _bound(node)
    for r in resolutions:
        if isinstance(r.subject, Variable) and r.subject not in scope:
            continue
        if r.target in scope:
            continue          # bound by the query itself: WDQS leaves such variables alone
        args = [r.subject, Literal(",".join(r.languages)), URIRef(r.predicate)]
        expr = (make_expr("Function", evaluate, iri=LABEL_FUNCTION, expr=args)
                if evaluate is not None else make_expr("Function", iri=LABEL_FUNCTION,
                                                       expr=args))
        expr["_vars"] = {r.subject} if isinstance(r.subject, Variable) else set()
        scope = scope | {r.target}
        node = make("Extend", p=node, expr=expr, var=r.target, _vars=set(scope))
    return node


def _bound(node: Any) -> set[Variable]:
    """Variables a graph pattern can bind (rdflib's ``_vars`` misses VALUES)."""
    out: set[Variable] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if not isinstance(n, CompValue):
            continue
        if n.name == "BGP":
            out.update(t for triple in n.get("triples") or [] for t in triple
                       if isinstance(t, Variable))
        elif n.name == "values":
            out.update(v for row in n.get("res") or [] for v in row)
        elif n.name == "Extend":
            out.add(n.get("var"))
        elif n.name == "Project":
            out.update(n.get("PV") or [])
            continue                    # a sub-SELECT binds only what it projects
        stack.extend(v for k, v in n.items() if k in ("p", "p1", "p2"))
    return out


def _resolutions(service: CompValue, projection: list[Variable]) -> list[Resolution]:
    languages: list[str] = []
    explicit: list[tuple[Any, str, Variable]] = []
    for s, p, o in _service_triples(service.get("graph")):
        if str(s) == SERVICE_PARAM:
            if str(p) == LANGUAGE_PARAM and isinstance(o, Literal):
                languages.append(str(o))
                continue
            raise UnsupportedQuery(f"the label service has no parameter <{p}> here",
                                   expected="bd:serviceParam wikibase:language \"en\"")
        if str(p) not in PREDICATES or not isinstance(o, Variable) \
                or not isinstance(s, (Variable, URIRef)):
            raise UnsupportedQuery(
                "the label service takes triples ?x rdfs:label|skos:altLabel|"
                "schema:description ?out", got=f"{s.n3()} {p.n3()} {o.n3()}")
        explicit.append((s, str(p), o))
    langs = parse_languages(languages)
    if explicit:
        return [Resolution(s, p, o, langs) for s, p, o in explicit]
    out = []
    for var in projection:
        for suffix, predicate in SUFFIXES:
            if var.endswith(suffix) and len(var) > len(suffix):
                out.append(Resolution(Variable(var[:-len(suffix)]), predicate, var, langs))
                break
    return out


def _service_triples(graph: Any) -> list[tuple]:
    """The triples written in a SERVICE body (rdflib keeps it as a parse tree)."""
    triples: list[tuple] = []
    if not isinstance(graph, CompValue):
        return triples
    for part in graph.get("part") or []:
        if not isinstance(part, CompValue) or part.name != "TriplesBlock":
            raise UnsupportedQuery("the label service body may hold only triples",
                                   got=getattr(part, "name", part))
        for triple in part.get("triples") or []:
            triples.extend(tuple(triple[i:i + 3]) for i in range(0, len(triple), 3))
    return triples


# -- the rdflib side ----------------------------------------------------------------------

def pick(values: list[Literal], languages: tuple[str, ...]) -> Literal | None:
    """The label-service choice among ``values``: the literals in the first language of
    ``languages`` that has any, sorted and joined with ", "; None when there are none."""
    by_lang: dict[str, list[str]] = {}
    for v in values:
        if isinstance(v, Literal) and v.language:
            by_lang.setdefault(v.language.lower(), []).append(str(v))
    for lang in languages:
        if lang in by_lang:
            return Literal(", ".join(sorted(by_lang[lang])), lang=lang)
    return None


def fallback_label(subject: Any) -> Literal | None:
    """What ?xLabel is when ?x has no label: the entity ID, a literal's text, an IRI."""
    if isinstance(subject, URIRef):
        text = str(subject)
        return Literal(text[len(WD):] if text.startswith(WD) else text)
    if isinstance(subject, Literal):
        return Literal(str(subject))
    return None


def resolve(e: Any, ctx: Any) -> Any:
    """The label function for rdflib's evaluator: looks the values up in the queried graph
    (a MirrorStore-backed one, or any rdflib graph)."""
    subject, languages, predicate = e.expr   # evaluated by rdflib; unbound raises
    graph = ctx.ctx.graph
    found = None
    if not isinstance(subject, Literal):
        found = pick(list(graph.objects(subject, predicate)), tuple(str(languages).split(",")))
    if found is None and str(predicate) == RDFS_LABEL:
        found = fallback_label(subject)
    if found is None:
        from rdflib.plugins.sparql.sparql import SPARQLError

        raise SPARQLError("no value in the requested languages")
    return found
