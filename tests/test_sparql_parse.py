"""store.sparql.syntax: tree-sitter parsing, error positions, what the tree offers."""

from __future__ import annotations

import pickle

import pytest
from rdflib.plugins.sparql import prepareQuery

from store.errors import QuerySyntaxError
from store.sparql.syntax import WIKIDATA_PREFIXES, parse


def error(text: str) -> QuerySyntaxError:
    with pytest.raises(QuerySyntaxError) as info:
        parse(text)
    return info.value


def test_missing_object_points_at_the_closing_brace():
    err = error("SELECT ?x WHERE {\n  ?x wdt:P31 wd:Q5 .\n  ?x wdt:P17 }")
    assert (err.line, err.column) == (3, 14)
    assert err.excerpt == "    ?x wdt:P17 }\n               ^"
    assert "line 3, column 14" in str(err) and str(err).endswith(err.excerpt)
    assert "before '}'" in str(err)


def test_unexpected_token_and_unclosed_group():
    err = error("SELECT ?x WHERE { ?x ?y ?z ?w }")
    assert (err.line, err.column) == (1, 28) and "unexpected '?w'" in str(err)
    err = error("SELECT ?x WHERE { ?x ?y ?z")
    assert err.line == 1 and "'}'" in str(err)
    err = error("SELEC ?x WHERE { ?x ?y ?z }")
    assert (err.line, err.column) == (1, 1)


def test_columns_count_characters_not_bytes():
    err = error('SELECT ?x WHERE { ?x rdfs:label "Zürich" ; ?y ?z ?w }')
    assert err.column == 50
    assert err.excerpt.splitlines()[1].index("^") - 2 == err.column - 1


def test_undeclared_prefix_is_a_syntax_error_with_position():
    err = error("SELECT ?x WHERE {\n ?x foo:bar ?y }")
    assert (err.line, err.column) == (2, 5) and "foo:" in str(err) and "PREFIX foo:" in str(err)
    assert parse("PREFIX foo: <http://f/> SELECT ?x WHERE { ?x foo:bar ?y }").prefixes["foo"] \
        == "http://f/"
    with pytest.raises(QuerySyntaxError):
        parse("SELECT ?x WHERE { ?x wdt:P31 ?y }", prefixes={})


def test_empty_and_prologue_only_queries():
    assert "empty" in str(error("   "))
    error("PREFIX x: <http://x/>")


def test_error_survives_pickling():
    err = pickle.loads(pickle.dumps(error("SELECT ?x WHERE { ?x }")))
    assert err.line == 1 and err.excerpt


@pytest.mark.parametrize("text", [
    # what Wikidata's endpoint accepts and rdflib refuses
    "SELECT ?x WHERE { ?x wdt:P31/wdt:P279 * wd:Q5 }",
    'SELECT ?x WHERE { ?x wdt:P1082 "5"^^ xsd:integer }',
    'SELECT ?x WHERE { ?x wdt:P1082 "5" ^^xsd:integer }',
    "PREFIX wd: <http://www.wikidata.org/entity/> SELECT ?x ?xLabel WHERE { ?x wdt:P31 wd:Q5 "
    "SERVICE wikibase:label { bd:serviceParam wikibase:language \"en\" } }",
])
def test_wdqs_syntax_parses_and_canonical_text_suits_rdflib(text):
    parsed = parse(text)
    assert parsed.form == "SELECT"
    prepareQuery(parsed.canonical(), initNs=WIKIDATA_PREFIXES)


def test_canonical_text_drops_comments_and_query_hints():
    parsed = parse('SELECT ?x WHERE { # find them\n hint:Query hint:optimizer "None" .\n'
                   ' ?x wdt:P31 wd:Q5 ; hint:rangeSafe true ; rdfs:label ?l }')
    assert parsed.canonical() == "SELECT ?x WHERE { ?x wdt:P31 wd:Q5 ; rdfs:label ?l }"


def test_hints_are_found_under_any_prefix_and_only_where_used():
    prologue = "PREFIX hint: <http://www.bigdata.com/queryHints#>\nPREFIX h: <http://www.bigdata.com/queryHints#>\n"
    used = parse(prologue + 'SELECT ?x WHERE { h:Query h:optimizer "None" . ?x wdt:P31 wd:Q5 }')
    assert used.canonical().endswith("WHERE { ?x wdt:P31 wd:Q5 }")
    full = parse('SELECT ?x WHERE { <http://www.bigdata.com/queryHints#Query> '
                 '<http://www.bigdata.com/queryHints#optimizer> "None" . ?x wdt:P31 wd:Q5 }')
    assert full.canonical() == "SELECT ?x WHERE { ?x wdt:P31 wd:Q5 }"
    unused = parse(prologue + "SELECT ?x WHERE { ?x wdt:P31 wd:Q5 }")
    assert unused.canonical().endswith("SELECT ?x WHERE { ?x wdt:P31 wd:Q5 }")


def test_prefix_declarations_read_fast_or_from_the_tree_agree():
    text = ("BASE <http://base.example/>\nPREFIX rel: <rel/>\nprefix  ex :<http://ex/>\n"
            "PREFIX : <http://default/>\nSELECT ?x WHERE { ?x rel:p ex:o , :d }")
    parsed = parse(text)
    assert parsed.prefixes["rel"] == "http://base.example/rel/"
    assert parsed.prefixes["ex"] == "http://ex/" and parsed.prefixes[""] == "http://default/"
    with pytest.raises(QuerySyntaxError, match="undeclared|not declared|prefix"):
        parse("PREFIX ex: <http://ex/>\nSELECT ?x WHERE { ?x ex:p nope:o }", prefixes={})


def test_what_the_tree_offers():
    parsed = parse("PREFIX ex: <http://ex/>\nselect ?b ?a where { ?a a ex:C ; ex:p ?b . "
                   "FILTER(?a != <http://x>) } ORDER BY ?c")
    assert parsed.form == "SELECT"
    assert parsed.variables == ("b", "a", "c")
    assert parsed.query.type == "select_query"
    assert parsed.query.children[0].children[0].type == "SELECT"    # keywords upper-cased
    names = [parsed.iri(n) for n in parsed.walk("prefixed_name", "a", "iri_reference")]
    # the opening PREFIX declarations are read before the tree is built: not in it
    assert names == ["http://www.w3.org/1999/02/22-rdf-syntax-ns#type",
                     "http://ex/C", "http://ex/p", "http://x"]
    assert parsed.prefixes["ex"] == "http://ex/" and not list(parsed.walk("prefix_declaration"))
    later = parse("BASE <http://b/>\nPREFIX ex: <e/>\nSELECT * WHERE { ?a ex:p ?b }")
    assert [later.iri(n) for n in later.walk("iri_reference")] == ["http://b/", "http://b/e/"]
    var = next(parsed.walk("filter"))
    assert parsed.position(var) == (2, 44) and parsed.text_of(var).startswith("FILTER(")
    assert [parse(t).form for t in ("ASK { ?s ?p ?o }", "DESCRIBE <http://x>",
                                    "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }",
                                    "INSERT DATA { <http://a> <http://b> <http://c> }")] \
        == ["ASK", "DESCRIBE", "CONSTRUCT", "UPDATE"]
