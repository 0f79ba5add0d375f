"""The SPARQL validator (querygen.validate) and ``kgground validate``: every check, with its
position and fix, on the bundled demo KB, an RDF file KB, and the Virtuoso endpoint."""

from __future__ import annotations

import json
import threading

import pytest

import kb as kbmod
from querygen.negatives import KINDS, negatives
from querygen.validate import Diagnostic, Diagnostics, validate


@pytest.fixture(scope="module")
def demo(demo_mirror_path):
    return kbmod.open(demo_mirror_path)


def codes(d: Diagnostics, severity: str = "error") -> set[str]:
    return {x.code for x in d if x.severity == severity}


def at(d: Diagnostics, code: str) -> Diagnostic:
    return next(x for x in d if x.code == code)


GOLD = [
    "SELECT ?x WHERE { wd:Q7186 wdt:P108 ?x . }",
    "SELECT ?x WHERE { wd:/Marie Curie/ wdt:/employer/ ?x . }",
    "PREFIX wd: <http://www.wikidata.org/entity/>\nSELECT ?p WHERE { ?p wdt:P166 wd:Q38104 ; "
    "wdt:P21 wd:Q6581072 . }",
    "SELECT ?d WHERE { wd:Q7186 wdt:P569 ?d }",
    "ASK { wd:Q7186 wdt:P26 wd:Q37463 }",
    "SELECT (COUNT(?c) AS ?n) WHERE { wd:Q7186 wdt:P40 ?c }",
    "SELECT ?x ?xLabel WHERE { wd:Q7186 wdt:P108 ?x . SERVICE wikibase:label { "
    "bd:serviceParam wikibase:language \"en\" } }",
    "SELECT ?x WHERE { wd:Q7186 wdt:P108 ?x . OPTIONAL { ?x wdt:P571 ?y } }",
]


@pytest.mark.parametrize("query", GOLD)
def test_valid_queries_have_no_errors(demo, query):
    d = validate(query, demo)
    assert d.ok, d.report()
    assert not d.warnings, d.report()


@pytest.mark.parametrize("query", GOLD[:3])
def test_every_negative_kind_is_an_error(demo, query):
    made = negatives(query, demo, seed=1)
    assert {n.kind for n in made} == set(KINDS)
    for n in made:
        assert not validate(n.text, demo).ok, (n.kind, n.text)


def test_syntax_error_points_at_the_line_and_column():
    from store.errors import QuerySyntaxError
    from store.sparql import parse

    query = "SELECT ?x WHERE {\n  wd:Q7186 wdt:P108 ?x\n  wd:Q7186 wdt:P19 ?y }"
    d = validate(query)
    e = at(d, "syntax")
    # the front end's position: the same line and column the KBs report for this query
    with pytest.raises(QuerySyntaxError) as raised:
        parse(query)
    assert (e.line, e.column) == (raised.value.line, raised.value.column) == (2, 21)
    assert "does not parse" in e.message and "unexpected '?x'" in e.message
    assert "  wd:Q7186 wdt:P108 ?x\n                      ^" in d.report()
    e = at(validate("SELECT ?x WHERE {\n  ?x wdt:P31 wd:Q5 .\n  FILTER(?x = ) }"), "syntax")
    assert (e.line, e.column) == (3, 15) and "missing a term" in e.message
    assert codes(validate("")) == {"syntax"}


def test_syntax_error_after_a_placeholder_maps_back_to_the_text(demo):
    d = validate("SELECT ?x WHERE { wd:/Marie Curie/ wdt:/employer/ ?x ) }", demo)
    e = at(d, "syntax")
    assert (e.line, e.column) == (1, 54)            # the ")"


def test_updates_load_clear_and_foreign_services_are_refused():
    for query, word in (("DELETE WHERE { ?s ?p ?o }", "DELETE"),
                        ("LOAD <http://example.org/data.ttl>", "LOAD"),
                        ("CLEAR ALL", "CLEAR"),
                        ("INSERT DATA { <a:b> <a:c> <a:d> }", "INSERT")):
        d = validate(query)
        assert codes(d) == {"update"} and word in d.errors[0].message
    service = "SELECT * WHERE { SERVICE <http://example.org/sparql> { ?s ?p ?o } } LIMIT 1"
    assert codes(validate(service)) == {"service"}
    assert at(validate(service), "service").column == 18
    assert validate(service, allowed_services=["http://example.org/sparql"]).ok


def test_unknown_prefix_suggests_the_near_one():
    e = at(validate("SELECT ?x WHERE { wd:Q7186 wtd:P108 ?x }"), "prefix")
    assert e.column == 28 and "wtd:" in e.message and e.suggestions == ("wdt",)


def test_unresolved_placeholder_names_the_closest_labels(demo):
    d = validate("SELECT ?x WHERE { wd:/Marie Cruie/ wdt:/employer/ ?x }", demo)
    e = at(d, "placeholder")
    assert e.column == 19 and "Marie Cruie" in e.message
    assert "Marie Curie" in e.fix and "wd:/Marie Curie/" in e.suggestions
    d = validate("SELECT ?x WHERE { wd:/Marie Curie/ wdt:/emplyer/ ?x }", demo)
    assert "employer" in at(d, "placeholder").fix
    # no KB: a placeholder cannot be checked, which is said, not failed
    d = validate("SELECT ?x WHERE { wd:/Marie Curie/ wdt:/employer/ ?x }")
    assert d.ok and codes(d, "warning") == {"placeholder"}


def test_a_placeholder_without_prefix(demo):
    d = validate("SELECT ?x WHERE { /Marie Curie/ wdt:/employer/ ?x }", demo)
    assert "unprefixed" in codes(d) and "wd:/Marie Curie/" in at(d, "unprefixed").suggestions


def test_malformed_ids_get_the_id_they_meant(demo):
    e = at(validate("SELECT ?x WHERE { wd:Marie_Curie wdt:P108 ?x }", demo), "malformed-id")
    assert "wd:Q7186" in e.fix and e.suggestions[0] == "wd:Q7186"
    e = at(validate("SELECT ?x WHERE { wd:q7186 wdt:P108 ?x }", demo), "malformed-id")
    assert e.fix == "write wd:Q7186"
    assert "malformed-id" in codes(validate("SELECT ?x WHERE { wd:Q7186 wdt:Q108 ?x }"))


def test_ids_the_kb_does_not_hold(demo):
    d = validate("SELECT ?x WHERE { wd:Q999999999 wdt:P108 ?x }", demo)
    assert codes(d) == {"unknown-id"} and at(d, "unknown-id").column == 19
    d = validate("SELECT ?x WHERE { wd:Q7186 wdt:P999999 ?x }", demo)
    assert codes(d) == {"unknown-property"}
    # without a KB, well-formed IDs pass
    assert validate("SELECT ?x WHERE { wd:Q999999999 wdt:P999999 ?x }").ok


def test_property_against_its_datatype(demo):
    d = validate('SELECT ?x WHERE { ?x wdt:P108 "University of Paris" } LIMIT 5', demo)
    assert "datatype" in codes(d) and "entities" in at(d, "datatype").message
    d = validate("SELECT ?x WHERE { ?x wdt:P569 wd:Q7186 }", demo)
    assert "datatype" in codes(d) and "time" in at(d, "datatype").message


def test_patterns_no_statement_matches(demo):
    d = validate("SELECT ?x WHERE { ?x wdt:P108 wd:Q7186 }", demo)     # reversed
    assert codes(d) == {"no-match"} and at(d, "no-match").column == 31
    # ASK and counts: "no" and 0 can be right, so only a warning
    d = validate("ASK { wd:Q7186 wdt:P108 wd:Q142 }", demo)
    assert d.ok and codes(d, "warning") == {"no-match"}
    d = validate("SELECT (COUNT(?x) AS ?n) WHERE { ?x wdt:P108 wd:Q7186 }", demo)
    assert d.ok and codes(d, "warning") == {"no-match"}
    # an OPTIONAL or MINUS pattern need not match
    assert validate("SELECT ?x WHERE { wd:Q7186 wdt:P108 ?x OPTIONAL { ?x wdt:P26 ?r } }",
                    demo).ok


def test_projected_variable_never_bound():
    d = validate("SELECT ?x ?name WHERE { wd:Q7186 wdt:P108 ?x }")
    e = at(d, "unbound")
    assert "?name" in e.message and (e.line, e.column) == (1, 11)
    assert validate("SELECT ?x ?n WHERE { wd:Q7186 wdt:P108 ?x BIND(1 AS ?n) }").ok
    assert validate("SELECT ?v WHERE { VALUES ?v { 1 2 } }").ok
    assert validate("SELECT ?x WHERE { { SELECT ?x WHERE { ?x wdt:P31 wd:Q5 } LIMIT 2 } }").ok


def test_warnings_for_cartesian_products_and_open_patterns():
    d = validate("SELECT ?a ?b WHERE { ?a wdt:P108 ?x . ?b wdt:P19 ?y } LIMIT 10")
    assert d.ok and codes(d, "warning") == {"cartesian"}
    assert at(d, "cartesian").column == 39
    d = validate("SELECT ?a WHERE { ?a wdt:P108 ?x }")
    assert d.ok and codes(d, "warning") == {"no-limit"}
    assert not validate("SELECT ?a WHERE { ?a wdt:P108 ?x } LIMIT 3").warnings
    assert not validate("SELECT (COUNT(?a) AS ?n) WHERE { ?a wdt:P108 ?x }").warnings


def test_diagnostics_are_frozen_and_serialise(demo):
    d = validate("SELECT ?x WHERE { wd:/Marie Cruie/ wdt:/employer/ ?y }", demo)
    data = json.loads(json.dumps(d.as_dict()))
    assert data["ok"] is False and data["errors"] == 2
    assert {x["code"] for x in data["diagnostics"]} == {"placeholder", "unbound"}
    with pytest.raises(AttributeError):
        d.errors[0].line = 3
    assert str(d.errors[0]).startswith("1:")


def test_concurrent_first_use_is_safe(demo):
    queries = [f"SELECT ?x WHERE {{ wd:Q7186 wdt:P{p} ?x }}" for p in (108, 19, 26, 40, 69)]
    bad: list = []

    def work():
        for q in queries * 3:
            if not validate(q).ok:
                bad.append(q)
    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert bad == []


def test_a_turtle_kb_in_wikidata_layout(tmp_path):
    ttl = tmp_path / "mini.ttl"
    ttl.write_text("""
@prefix wd: <http://www.wikidata.org/entity/> .
@prefix wdt: <http://www.wikidata.org/prop/direct/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix wikibase: <http://wikiba.se/ontology#> .
wd:Q1 rdfs:label "Ada Lovelace"@en ; wdt:P19 wd:Q2 .
wd:Q2 rdfs:label "London"@en .
wd:P19 rdfs:label "place of birth"@en ; wikibase:propertyType wikibase:WikibaseItem .
""", encoding="utf-8")
    mini = kbmod.open(ttl)
    assert validate("SELECT ?x WHERE { wd:/Ada Lovelace/ wdt:/place of birth/ ?x }", mini).ok
    d = validate("SELECT ?x WHERE { ?x wdt:P19 wd:Q1 }", mini)
    assert codes(d) == {"no-match"}
    d = validate("SELECT ?x WHERE { wd:/Ada Lovelace/ wdt:/place of death/ ?x }", mini)
    assert codes(d) == {"placeholder"}


def test_live_endpoint_path(virtuoso):
    from kb.endpoint import SparqlEndpointKB
    url, graph = virtuoso
    live = SparqlEndpointKB(url, graph=graph, cache=False)
    assert validate("SELECT ?x WHERE { wd:/Douglas Adams/ wdt:/employer/ ?x }", live).ok
    assert validate("SELECT ?x WHERE { wd:Q42 wdt:P108 ?x }", live).ok
    for bad, code in (("SELECT ?x WHERE { ?x wdt:P108 wd:Q42 }", "no-match"),
                      ("SELECT ?x WHERE { wd:Q42 wdt:P999999 ?x }", "unknown-property"),
                      ("SELECT ?x WHERE { wd:/Douglas Adamz/ wdt:/employer/ ?x }",
                       "placeholder")):
        assert code in codes(validate(bad, live)), bad


def test_fallback_kb_asks_the_endpoint_for_what_the_mirror_lacks(virtuoso, tmp_path):
    from store.mirror import Mirror
    url, graph = virtuoso
    path = tmp_path / "empty.sqlite"
    Mirror(path, create=True).close()
    from kb.endpoint import SparqlEndpointKB
    both = kbmod.open(path, live=SparqlEndpointKB(url, graph=graph, cache=False))
    assert validate("SELECT ?x WHERE { wd:Q42 wdt:P108 ?x }", both).ok
    assert codes(validate("SELECT ?x WHERE { ?x wdt:P108 wd:Q42 }", both)) == {"no-match"}


# -- the command line -----------------------------------------------------------------------

def test_cli_exit_codes_and_json(run, demo_mirror_path, tmp_path):
    good = tmp_path / "good.rq"
    good.write_text("SELECT ?x WHERE { wd:Q7186 wdt:P108 ?x }", encoding="utf-8")
    bad = tmp_path / "bad.rq"
    bad.write_text("SELECT ?x WHERE { wd:/Marie Cruie/ wdt:P108 ?x }", encoding="utf-8")
    r = run("validate", str(good), "--db", str(demo_mirror_path))
    assert r.exit_code == 0 and r.output.startswith("valid")
    r = run("validate", str(bad), "--db", str(demo_mirror_path))
    assert r.exit_code == 1 and "Marie Curie" in r.output and "^" in r.output
    r = run("validate", str(bad), "--db", str(demo_mirror_path), "--json")
    assert r.exit_code == 1 and json.loads(r.output)["diagnostics"][0]["code"] == "placeholder"
    r = run("validate", str(tmp_path / "missing.rq"))
    assert r.exit_code == 2 and "no file" in r.output
    latin = tmp_path / "latin.rq"
    latin.write_bytes("SELECT ?x WHERE { ?x rdfs:label \"Zürich\" } LIMIT 1".encode("latin-1"))
    r = run("validate", str(latin))
    assert r.exit_code == 2 and "UTF-8" in r.output
    r = run("validate", str(good), "--db", str(tmp_path / "nothing.sqlite"))
    assert r.exit_code == 2
    r = run("validate", str(good))        # no KB: syntax and safety only
    assert r.exit_code == 0 and "no KB" in r.output


def test_cli_reads_stdin(demo_mirror_path):
    from click.testing import CliRunner

    from reasoning.cli import cli
    r = CliRunner().invoke(cli, ["validate", "-", "--db", str(demo_mirror_path)],
                           input="DELETE WHERE { ?s ?p ?o }")
    assert r.exit_code == 1 and "refused" in r.output


def test_grouped_queries_with_no_match_are_errors(demo):
    q = ("SELECT ?x WHERE { ?x wdt:P108 wd:Q7186 . ?x wdt:P31 ?t } GROUP BY ?x "
         "ORDER BY DESC(COUNT(?t)) LIMIT 1")
    assert codes(validate(q, demo)) == {"no-match"}


def test_syntax_is_the_front_ends_not_rdflibs(demo, monkeypatch):
    """The validator accepts what the KBs run (tree-sitter front end), also where rdflib's
    parser refuses it, and parses SELECT/ASK without rdflib at all."""
    import querygen.validate as validate_mod

    def no_rdflib(*args, **kwargs):
        raise AssertionError("rdflib parsed a SELECT/ASK query")

    monkeypatch.setattr(validate_mod, "rdflib_query", no_rdflib)
    # WDQS writes these; rdflib's parser refuses both (store.sparql.syntax's docstring)
    for query in ("SELECT ?x WHERE { ?x wdt:P31/wdt:P279 * wd:Q5 . } LIMIT 3",
                  'SELECT ?x WHERE { ?x wdt:P31 wd:Q5 . FILTER(1 = "1"^^ xsd:integer) } '
                  "LIMIT 3",
                  "ASK { wd:Q7186 wdt:P108 ?x }"):
        d = validate(query, demo)
        assert d.ok, (query, d.report())
        demo.sparql(query)                  # and the mirror runs it


def test_construct_and_describe_are_checked_like_the_mirror_runs_them(demo):
    ok = validate("CONSTRUCT { wd:Q7186 wdt:P108 ?x } WHERE { wd:Q7186 wdt:P108 ?x }", demo)
    assert ok.ok, ok.report()
    bad = validate("CONSTRUCT { wd:Q7186 wdt:P108 ?x } WHERE { wd:Q7186 wdt:P108 ?x", demo)
    assert codes(bad) == {"syntax"} and bad.errors[0].line == 1
    unknown = validate("CONSTRUCT { ?s ?p ?o } WHERE { wd:Q7186 wdt:P999999 ?o }", demo)
    assert "unknown-property" in codes(unknown)


def test_language_tags_survive_the_label_level_rewrite(demo):
    from querygen.dataset import canonical, to_label_level

    gold = 'ASK WHERE { wd:Q7186 wdt:P108 ?x . ?x rdfs:label "University of Paris"@en }'
    label = to_label_level(gold, demo)
    assert '"University of Paris" @en }' in label and "@ en" not in canonical(gold)
    assert "syntax" not in codes(validate(label, demo)), validate(label, demo).report()
    assert "syntax" not in codes(validate(gold, demo))


def test_suggestions_use_the_linker_given(demo, monkeypatch):
    """closest_labels asks the linker it is given (a Session's) — no second linker (and
    linking index) of its own; without one it builds one for the call."""
    import linking
    from querygen.terms import closest_labels
    kept = linking.EntityLinker(demo)
    built = []
    real = linking.EntityLinker
    monkeypatch.setattr(linking, "EntityLinker",
                        lambda *a, **k: built.append(a) or real(*a, **k))
    near = closest_labels(demo, "Marie Curi", "entity", linker=kept)
    assert near and near[0][1] == "Marie Curie"
    assert built == []
    assert closest_labels(demo, "Marie Curi", "entity") == near and len(built) == 1
    checked = validate("SELECT ?x WHERE { wd:/Marie Curi/ wdt:P19 ?x }", demo, linker=kept)
    assert "Marie Curie" in checked.report() and len(built) == 1
