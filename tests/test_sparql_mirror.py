"""SPARQL over a mirror, construct by construct, on the bundled demo KB: the SQL compiler,
the rdflib fallback, the label service emulation, refusals, errors and ``explain``.

The facts checked here are the demo KB's (store/demo/build_demo.py); the differential test
(test_sparql_differential.py) checks the same engines against Oxigraph at scale.
"""

from __future__ import annotations

import threading

import pytest
from rdflib import Literal, URIRef, Variable
from rdflib.namespace import XSD

from kb.mirror import MirrorKB
from kb.types import SparqlResult
from store.errors import QueryError, QueryRefused, QuerySyntaxError, UnsupportedQuery
from store.rdf_store import WDS, sid_from_iri, statement_iri
from store.sparql import plan, prepare, run
from store.sparql.expressions import datetime_key
from store.sparql.labels import parse_languages

WD = "http://www.wikidata.org/entity/"


@pytest.fixture(scope="module")
def kb(demo_mirror_path):
    base = MirrorKB(demo_mirror_path)
    yield base
    base.close()


def run_sparql(kb, query, **options):
    """``query`` over ``kb``'s mirror by the engine's entry point (``options`` as
    ``store.sparql.run`` takes them: ``engine``, ``timeout``), as MirrorKB.sparql says it."""
    return SparqlResult.from_answer(run(kb.mirror, query, **options), kb.name)


def ids(result, var):
    return {str(t).replace(WD, "") for t in result.values(var)}


def both(kb, query):
    """The SQL path's result, after checking that it ran as SQL and that rdflib's
    evaluator finds the same rows."""
    sql = run_sparql(kb, query)
    assert sql.engine == "sql", sql.explain
    slow = run_sparql(kb, query, engine="rdflib")
    assert slow.engine == "rdflib"
    assert sql.boolean == slow.boolean
    assert sorted(map(sorted_items, sql.rows)) == sorted(map(sorted_items, slow.rows))
    return sql


def sorted_items(row):
    return sorted((k, v.n3()) for k, v in row.items())


# -- basic graph patterns and the Wikidata layout ---------------------------------------------

def test_bgp_and_the_anchor_shape(kb):
    r = both(kb, "SELECT ?o WHERE { wd:Q937 wdt:P69 ?o }")
    assert ids(r, "o") == {"Q11942", "Q206702"}
    assert r.vars == ("o",) and r.source == kb.name
    assert all(isinstance(t, URIRef) for t in r.values("o"))


def test_wdt_is_truthy_while_p_ps_reach_every_statement(kb):
    assert ids(both(kb, "SELECT ?c WHERE { wd:Q183 wdt:P36 ?c }"), "c") == {"Q64"}
    every = both(kb, "SELECT ?c WHERE { wd:Q183 p:P36 ?s . ?s ps:P36 ?c }")
    assert ids(every, "c") == {"Q64", "Q586"}


def test_statement_nodes_and_qualifiers(kb):
    r = both(kb, "SELECT ?s ?t WHERE { wd:Q937 p:P166 ?s . ?s ps:P166 wd:Q38104 ; "
                 "pq:P585 ?t }")
    assert len(r) == 1
    node = str(r.rows[0]["s"])
    assert node.startswith(WDS + "Q937-")
    t = r.rows[0]["t"]
    assert (str(t), t.datatype) == ("1921-01-01T00:00:00Z", XSD.dateTime)  # as stored
    by_node = both(kb, f"SELECT ?v WHERE {{ <{node}> ps:P166 ?v }}")
    assert ids(by_node, "v") == {"Q38104"}


def test_statement_iris_round_trip():
    for sid in ("Q42$F078E5B3-F9A8-480E-B7AC-D97778CBBEF9", "q233$7cbb5440-4c77",
                "L7-F4$abc-def", "P31$x-y"):
        assert sid_from_iri(statement_iri(sid)) == sid
    assert statement_iri("Q1$a-b") == WDS + "Q1-a-b"
    assert sid_from_iri(WD + "Q42") is None


def test_labels_aliases_descriptions_and_literal_typing(kb):
    assert ids(both(kb, 'SELECT ?x WHERE { ?x rdfs:label "Albert Einstein"@en }'), "x") \
        == {"Q937"}
    # a plain literal is not the language-tagged one
    assert len(both(kb, 'SELECT ?x WHERE { ?x rdfs:label "Albert Einstein" }')) == 0
    aliases = both(kb, "SELECT ?a WHERE { wd:Q937 skos:altLabel ?a }")
    assert set(aliases.values("a")) == {Literal("A. Einstein", lang="en"),
                                        Literal("Einstein", lang="en")}
    d = both(kb, "SELECT ?d WHERE { wd:Q937 schema:description ?d }")
    assert str(d.values("d")[0]).startswith("German-born theoretical physicist")
    t = both(kb, "SELECT ?p WHERE { ?p wikibase:propertyType wikibase:Time }")
    assert "P569" in ids(t, "p")


def test_numbers_compare_by_value_but_match_as_terms(kb):
    assert ids(both(kb, "SELECT ?x WHERE { ?x wdt:P1971 ?v FILTER(?v = 2) }"), "x") == \
        {"Q7186", "Q37463"}
    assert ids(both(kb, "SELECT ?x WHERE { ?x wdt:P1971 ?v FILTER(?v > 2.5) }"), "x") == \
        {"Q7085"}
    # in a triple pattern 2 (xsd:integer) is not the stored "2"^^xsd:decimal
    assert len(both(kb, "SELECT ?x WHERE { ?x wdt:P1971 2 }")) == 0
    assert len(both(kb, 'SELECT ?x WHERE { ?x wdt:P1971 "2"^^xsd:decimal }')) == 2


# -- FILTER ------------------------------------------------------------------------------------

@pytest.mark.parametrize("query, expected", [
    ('SELECT ?x WHERE { ?x wdt:P1448 ?n FILTER(lang(?n) = "de") }', {"Q183", "Q40", "Q39"}),
    ('SELECT ?x WHERE { ?x wdt:P1448 ?n FILTER(langMatches(lang(?n), "DE")) }',
     {"Q183", "Q40", "Q39"}),
    ('SELECT ?x WHERE { ?x rdfs:label ?l FILTER(lang(?l) = "de" && contains(?l, "Bohr")) }',
     {"Q7085"}),
    ('SELECT ?x WHERE { ?x wdt:P31 wd:Q5 ; rdfs:label ?l FILTER(strstarts(?l, "Albert E")) }',
     {"Q937"}),
    ('SELECT ?x WHERE { ?x wdt:P31 wd:Q5 ; rdfs:label ?l FILTER(strends(?l, "Einstein"@fr)) }',
     {"Q937"}),
    ('SELECT ?x WHERE { ?x wdt:P31 wd:Q5 ; rdfs:label ?l '
     'FILTER(regex(?l, "^NIELS B", "i") && lang(?l) = "en") }', {"Q7085"}),
    ('SELECT ?x WHERE { ?x wdt:P569 ?d '
     'FILTER(?d < "1840-01-01T00:00:00Z"^^xsd:dateTime) }', None),
    ("SELECT ?x WHERE { ?x wdt:P36 ?c FILTER(?c IN (wd:Q64, wd:Q90)) }", {"Q183", "Q142"}),
    ("SELECT ?x WHERE { wd:Q937 wdt:P69 ?x FILTER(?x != wd:Q11942) }", {"Q206702"}),
    ("SELECT ?x WHERE { wd:Q937 wdt:P69 ?x FILTER(!sameTerm(?x, wd:Q11942)) }", {"Q206702"}),
])
def test_filters(kb, query, expected):
    r = both(kb, "PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> " + query)
    if expected is None:
        assert len(r) > 0 and all(
            str(row["x"]).startswith(WD) for row in r.rows)
    else:
        assert ids(r, "x") == expected


def test_a_filter_on_text_uses_the_label_index(kb):
    sql = plan('SELECT ?x WHERE { ?x rdfs:label ?l FILTER(?l = "Niels Bohr"@en) }')[1].sql
    assert "norm = 'niels bohr'" in sql


def test_invalid_dates_are_errors_not_values():
    assert datetime_key("2016-06-31T00:00:00Z") is None      # Wikidata has such dates
    assert datetime_key("2016-02-29T00:00:00Z") is not None
    assert datetime_key("-0500-01-01T00:00:00Z") < datetime_key("0001-01-01T00:00:00Z")
    assert datetime_key("2000-03-01T12:30:00+02:00") == datetime_key("2000-03-01T10:30:00Z")


# -- OPTIONAL, UNION, VALUES, EXISTS, MINUS, paths --------------------------------------------

def test_optional_is_all_or_nothing_over_several_patterns(kb):
    r = both(kb, "SELECT ?x ?b WHERE { ?x wdt:P166 wd:Q38104 "
                 "OPTIONAL { ?x wdt:P19 ?b . ?b wdt:P17 wd:Q183 } }")
    rows = {str(row["x"]).replace(WD, ""): row.get("b") for row in r.rows}
    assert rows["Q7085"] is None           # Bohr was born in Copenhagen: no German city
    assert rows["Q937"] is not None        # Einstein was born in Ulm
    assert "b" not in r.rows[[str(x["x"]) for x in r.rows].index(WD + "Q7085")]


def test_optional_group_binds_all_its_variables_or_none(kb):
    """Each pattern of the group binds a variable of its own, so a partial match would
    show: a laureate born somewhere but with no place of death gets neither."""
    r = both(kb, "SELECT ?x ?b ?d WHERE { ?x wdt:P166 wd:Q38104 "
                 "OPTIONAL { ?x wdt:P19 ?b ; wdt:P20 ?d } }")
    rows = {str(row["x"]).replace(WD, ""): row for row in r.rows}
    assert all(("b" in row) == ("d" in row) for row in r.rows)
    assert set(rows["Q41269"]) == {"x"}         # born in Paris, alive in the demo KB
    assert set(rows["Q28189"]) == {"x"}         # a place of death, no place of birth
    assert set(rows["Q937"]) == {"x", "b", "d"}
    chain = both(kb, "SELECT ?x ?b ?k WHERE { VALUES ?x { wd:Q937 wd:Q7085 } OPTIONAL { "
                     "?x wdt:P19 ?b . ?b wdt:P17 ?k . ?k wdt:P36 wd:Q64 } }")
    found = {str(row["x"]).replace(WD, ""): set(row) for row in chain.rows}
    assert found == {"Q937": {"x", "b", "k"}, "Q7085": {"x"}}   # Copenhagen: not Berlin's


def test_a_filter_inside_optional_limits_the_optional_part_only(kb):
    """Rows the FILTER rejects keep their required part, unbound in the optional one."""
    r = both(kb, "SELECT ?x ?d WHERE { ?x wdt:P31 wd:Q5 OPTIONAL { ?x wdt:P570 ?d "
                 'FILTER(?d < "1900-01-01T00:00:00Z"^^xsd:dateTime) } }')
    assert len(r) == 115                         # every human, died before 1900 or not
    died = {str(row["x"]).replace(WD, ""): str(row["d"]) for row in r.rows if "d" in row}
    assert len(died) == 2 and all(d < "1900" for d in died.values())
    ja = both(kb, 'SELECT ?x ?l WHERE { ?x wdt:P31 wd:Q5 OPTIONAL { ?x rdfs:label ?l '
                  'FILTER(lang(?l) = "ja") } }')
    assert len(ja) == 115 and not any("l" in row for row in ja.rows)   # no Japanese labels


def test_optional_with_filter_and_bound(kb):
    r = both(kb, 'SELECT ?x ?l WHERE { ?x wdt:P36 ?c OPTIONAL { ?x rdfs:label ?l '
                 'FILTER(lang(?l) = "zh") } FILTER(bound(?l)) }')
    assert len(r) > 0 and all(row["l"].language == "zh" for row in r.rows)


def test_union_values_exists_minus_and_paths(kb):
    r = both(kb, "SELECT ?x WHERE { { wd:Q937 wdt:P69 ?x } UNION { wd:Q937 wdt:P108 ?x } }")
    assert ids(r, "x") >= {"Q11942", "Q206702"} and len(r) == 6
    r = both(kb, "SELECT ?c ?cap WHERE { VALUES (?c ?cap) { (wd:Q183 wd:Q64) (wd:Q142 UNDEF) } "
                 "?c wdt:P36 ?cap }")
    assert {(str(row["c"])[len(WD):], str(row["cap"])[len(WD):]) for row in r.rows} == \
        {("Q183", "Q64"), ("Q142", "Q90")}
    no_spouse = both(kb, "SELECT ?x WHERE { ?x wdt:P31 wd:Q5 FILTER NOT EXISTS "
                         "{ ?x wdt:P26 ?s } }")
    minus = both(kb, "SELECT ?x WHERE { ?x wdt:P31 wd:Q5 MINUS { ?x wdt:P26 ?s } }")
    assert ids(no_spouse, "x") == ids(minus, "x") and "Q7186" not in ids(minus, "x")
    path = both(kb, "SELECT ?cap WHERE { wd:Q937 wdt:P27/wdt:P36 ?cap }")
    inverse = both(kb, "SELECT ?cap WHERE { ?c ^wdt:P27 wd:Q937 . ?c wdt:P36 ?cap }")
    assert ids(path, "cap") == ids(inverse, "cap") != set()


# -- solution modifiers and aggregates --------------------------------------------------------

def test_distinct_order_limit_offset(kb):
    dates = both(kb, "SELECT ?x ?d WHERE { ?x wdt:P569 ?d } ORDER BY ?d ?x")
    lexical = [str(d) for d in dates.values("d")]
    assert lexical == sorted(lexical) and len(lexical) > 50
    page = both(kb, "SELECT ?x ?d WHERE { ?x wdt:P569 ?d } ORDER BY ?d ?x LIMIT 5 OFFSET 10")
    assert [str(d) for d in page.values("d")] == lexical[10:15]
    desc = both(kb, "SELECT ?x ?v WHERE { ?x wdt:P1971 ?v } ORDER BY DESC(?v) ?x")
    assert [str(x)[len(WD):] for x in desc.values("x")] == ["Q7085", "Q37463", "Q7186"]
    distinct = both(kb, "SELECT DISTINCT ?c WHERE { ?x wdt:P27 ?c }")
    assert len(distinct) == len(ids(distinct, "c"))


def test_count_group_by_having(kb):
    n = both(kb, "SELECT (COUNT(?x) AS ?n) WHERE { ?x wdt:P31 wd:Q5 }")
    assert n.rows[0]["n"] == Literal(115)
    assert n.rows[0]["n"].datatype == XSD.integer
    per = both(kb, "SELECT ?c (COUNT(?x) AS ?n) WHERE { ?x wdt:P27 ?c } GROUP BY ?c "
                   "HAVING (COUNT(?x) >= 10) ORDER BY DESC(?n) ?c")
    counts = [int(t) for t in per.values("n")]
    assert counts == sorted(counts, reverse=True) and min(counts) >= 10
    distinct = both(kb, "SELECT (COUNT(DISTINCT ?c) AS ?n) (COUNT(*) AS ?all) "
                        "WHERE { ?x wdt:P27 ?c }")
    assert int(distinct.rows[0]["n"]) < int(distinct.rows[0]["all"])


def test_ask(kb):
    assert both(kb, "ASK { wd:Q937 wdt:P31 wd:Q5 }").boolean is True
    assert both(kb, "ASK { wd:Q937 wdt:P31 wd:Q515 }").boolean is False


# -- the label service ------------------------------------------------------------------------

LABELS = ("SELECT ?x ?xLabel ?xDescription ?xAltLabel WHERE {{ VALUES ?x {{ wd:Q937 }} "
          'SERVICE wikibase:label {{ bd:serviceParam wikibase:language "{langs}". }} }}')


def test_label_service_fills_label_description_aliases_with_fallback(kb):
    row = both(kb, LABELS.format(langs="fr,en")).rows[0]
    assert row["xLabel"] == Literal("Albert Einstein", lang="fr")
    assert row["xDescription"].language == "en"          # no French description: English
    assert row["xAltLabel"] == Literal("A. Einstein, Einstein", lang="en")
    zh = both(kb, LABELS.format(langs="zh")).rows[0]
    assert zh["xLabel"] == Literal("阿尔伯特·爱因斯坦", lang="zh")
    assert "xDescription" not in zh and "xAltLabel" not in zh


def test_label_service_falls_back_to_the_id(kb):
    row = both(kb, LABELS.format(langs="xx")).rows[0]
    assert row["xLabel"] == Literal("Q937")          # a plain literal, as on WDQS
    assert set(row) == {"x", "xLabel"}


def test_label_service_forms(kb):
    auto = both(kb, LABELS.format(langs="[AUTO_LANGUAGE]")).rows[0]
    assert auto["xLabel"] == Literal("Albert Einstein", lang="en")
    explicit = both(kb, 'SELECT ?name WHERE { wd:Q937 wdt:P69 ?u SERVICE wikibase:label { '
                        'bd:serviceParam wikibase:language "de" . ?u rdfs:label ?name } }')
    assert len(explicit) == 2 and all(t.language == "de" for t in explicit.values("name"))
    ordered = both(kb, 'SELECT ?x ?xLabel WHERE { ?x wdt:P31 wd:Q5 SERVICE wikibase:label { '
                       'bd:serviceParam wikibase:language "en". } } ORDER BY ?xLabel LIMIT 5')
    labels = [str(t) for t in ordered.values("xLabel")]
    assert labels == sorted(labels) and len(labels) == 5
    grouped = both(kb, 'SELECT ?c ?cLabel (COUNT(?x) AS ?n) WHERE { ?x wdt:P27 ?c SERVICE '
                       'wikibase:label { bd:serviceParam wikibase:language "en". } } '
                       'GROUP BY ?c ?cLabel')
    assert any(str(t) == "Germany" for t in grouped.values("cLabel"))


def test_label_service_is_allowed_and_never_fetched():
    prepared = prepare(LABELS.format(langs="en"))
    text = repr(prepared.algebra)
    assert "ServiceGraphPattern" not in text and "urn:kgground:label-service" in text
    assert parse_languages(["en, fr", "[AUTO_LANGUAGE]", "FR"]) == ("en", "fr")


def test_label_service_outside_the_pattern_is_refused_clearly():
    with pytest.raises(UnsupportedQuery, match="graph patterns only"):
        prepare("SELECT ?x WHERE { ?x wdt:P31 wd:Q5 FILTER EXISTS { SERVICE wikibase:label "
                '{ bd:serviceParam wikibase:language "en" } } }')


# -- refusals, errors, explain, fallback ----------------------------------------------------------

@pytest.mark.parametrize("query", [
    "INSERT DATA { wd:Q1 wdt:P31 wd:Q5 }",
    "DELETE WHERE { ?s ?p ?o }",
    "LOAD <http://example.org/data.ttl>",
    "CLEAR ALL",
])
def test_updates_and_load_are_refused(kb, query):
    with pytest.raises(QueryRefused, match="read-only"):
        kb.sparql(query)


def test_service_to_other_endpoints_is_refused(kb):
    with pytest.raises(QueryRefused, match="allow-list") as err:
        kb.sparql("SELECT * WHERE { SERVICE <http://example.org/sparql> { ?s ?p ?o } }")
    assert "http://example.org/sparql" in str(err.value)


def test_syntax_errors_say_where(kb):
    with pytest.raises(QuerySyntaxError, match=r"line 1, column \d+"):
        kb.sparql("SELECT ?x WHERE { ?x wdt:P31 }")
    with pytest.raises(QuerySyntaxError, match=r"line 2, column \d+"):
        kb.sparql("SELECT ?x WHERE {\n ?x wdt:P31 wd:Q5 . FILTER( }")
    with pytest.raises(QuerySyntaxError, match="empty"):
        kb.sparql("   ")


def test_explain_shows_the_sql_or_the_reason(kb):
    sql = kb.sparql("SELECT ?o WHERE { wd:Q937 wdt:P69 ?o }")
    assert sql.engine == "sql"
    assert "FROM statements" in sql.explain and "'Q937'" in sql.explain
    slow = kb.sparql("SELECT ?p WHERE { wd:Q937 ?p wd:Q5 }")
    assert slow.engine == "rdflib"
    assert "variable in predicate position" in slow.explain
    assert [str(p) for p in slow.values("p")] == ["http://www.wikidata.org/prop/direct/P31"]


def test_what_only_rdflib_answers(kb):
    graph = kb.sparql("CONSTRUCT { wd:Q937 ?p ?o } WHERE { wd:Q937 wdt:P69 ?o . "
                      "BIND(wdt:P69 AS ?p) }")
    assert graph.engine == "rdflib" and len(graph.graph) == 2
    with pytest.raises(UnsupportedQuery) as err:
        run_sparql(kb, "SELECT ?x ?y WHERE { ?x wdt:P279* ?y }", engine="sql")
    assert isinstance(err.value, NotImplementedError)
    assert "property path" in str(err.value)


def test_timeouts_stop_both_engines(kb):
    heavy = ("SELECT (COUNT(*) AS ?n) WHERE { ?a rdfs:label ?x . ?b rdfs:label ?y . "
             "?c rdfs:label ?z }")
    with pytest.raises(QueryError, match="timeout"):
        kb.sparql(heavy, timeout=0.05)
    with pytest.raises(QueryError, match="timeout"):
        run_sparql(kb, "SELECT ?a ?b WHERE { ?a ?p ?x . ?b ?q ?y }", timeout=0.05)
    assert kb.sparql("ASK { wd:Q937 wdt:P31 wd:Q5 }").boolean    # the connection still works


def test_parsing_and_compiling_are_cached():
    query = "SELECT ?o WHERE { wd:Q7085 wdt:P69 ?o }"
    first = plan(query)
    hits = plan.cache_info().hits
    assert plan(query) is first and plan.cache_info().hits == hits + 1


def test_threads_share_a_kb(kb):
    query = 'SELECT ?x WHERE { ?x rdfs:label ?l FILTER(regex(?l, "^Niels")) }'
    errors, found = [], []

    def work():
        try:
            for _ in range(20):
                found.append(ids(kb.sparql(query), "x"))
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(found) == 80 and all(f == {"Q7085"} for f in found)


def test_threads_share_a_kb_on_the_fallback_path(kb):
    """rdflib writes into a parsed query while evaluating it: threads get their own."""
    query = ('SELECT ?p ?xLabel WHERE { VALUES ?x { wd:Q937 wd:Q7085 } ?x ?p wd:Q5 '
             'SERVICE wikibase:label { bd:serviceParam wikibase:language "en". } }')
    want = sorted(map(sorted_items, kb.sparql(query).rows))
    assert len(want) == 2
    errors, found = [], []

    def work():
        try:
            for _ in range(15):
                r = kb.sparql(query)
                assert r.engine == "rdflib"
                found.append(sorted(map(sorted_items, r.rows)))
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(found) == 60 and all(f == want for f in found)


def test_blank_nodes_in_patterns_act_as_variables(kb):
    r = both(kb, "SELECT ?x WHERE { ?x wdt:P26 [] }")
    assert len(r) > 0
    assert Variable("__bnode") not in r.vars


def test_wdt_triples_are_a_set_even_when_statements_repeat_a_value(demo_mirror_path):
    """John Bardeen won the Nobel Prize in Physics twice: two P166 statements, one triple."""
    from kb.mirror import MirrorKB
    base = MirrorKB(demo_mirror_path)
    assert [s.value.value for s in base.statements("Q949", "P166")].count("Q38104") == 2
    for engine_query in ("SELECT ?p WHERE { ?p wdt:P166 wd:Q38104 }",
                         "SELECT ?p WHERE { ?p wdt:P166 wd:Q38104 OPTIONAL { ?p wdt:P31 ?t } }"):
        winners = [str(v) for v in base.sparql(engine_query).values("p")]
        assert winners.count("http://www.wikidata.org/entity/Q949") == 1
    assert base.sparql("SELECT (COUNT(*) AS ?n) WHERE { wd:Q949 wdt:P166 wd:Q38104 }"
                       ).rows[0]["n"].toPython() == 1


# -- WDQS vocabulary derived from the mirror's property IDs (issue 12) -----------------------------

@pytest.mark.parametrize("query", [
    "SELECT ?p ?d WHERE { ?p wikibase:directClaim ?d } ORDER BY ?p LIMIT 5",
    "SELECT ?p WHERE { ?p wikibase:claim p:P166 ; wikibase:statementProperty ps:P166 ; "
    "wikibase:qualifier pq:P166 }",
    "SELECT ?p WHERE { ?p wikibase:directClaim wd:Q5 }",
    "SELECT (COUNT(?x) AS ?n) WHERE { ?x a wikibase:Property }",
    "SELECT ?x WHERE { ?x a wikibase:Item ; wdt:P166 wd:Q38104 }",
    "ASK { wd:Q937 a wikibase:Item }",
    "ASK { wd:Q937 a wikibase:Property }",
])
def test_wdqs_vocabulary_in_both_engines(kb, query):
    sql = run_sparql(kb, query)
    assert sql.engine == "sql", sql.explain
    fallback = run_sparql(kb, query, engine="rdflib")
    assert sql.boolean == fallback.boolean
    assert sql.rows == fallback.rows or sorted(map(str, sql.rows)) == \
        sorted(map(str, fallback.rows))


def test_wdqs_vocabulary_finds_what_it_should(kb):
    claims = run_sparql(kb, "SELECT ?d WHERE { wd:P166 wikibase:directClaim ?d }")
    assert [str(r["d"]) for r in claims.rows] == ["http://www.wikidata.org/prop/direct/P166"]
    assert run_sparql(kb, "ASK { wd:Q937 a wikibase:Item }").boolean
    assert not run_sparql(kb, "ASK { wd:Q937 a wikibase:Property }").boolean


def test_unmirrored_vocabulary_is_noted(kb):
    result = run_sparql(kb, "SELECT ?x ?n WHERE { ?x wdt:P31 wd:Q5 ; wikibase:sitelinks ?n }")
    assert result.rows == () and any("wikibase:sitelinks" in n for n in result.notes)
    assert "wikibase:sitelinks" in result.explain
    assert run_sparql(kb, "SELECT ?x WHERE { ?x wdt:P31 wd:Q5 } LIMIT 1").notes == ()
    declared_only = ("PREFIX prov: <http://www.w3.org/ns/prov#>\n"
                     "PREFIX pr: <http://www.wikidata.org/prop/reference/>\n"
                     "SELECT ?x WHERE { ?x wdt:P31 wd:Q5 } LIMIT 1")
    assert run_sparql(kb, declared_only).notes == ()
    used = run_sparql(kb, "SELECT ?x ?r WHERE { ?x p:P31 ?s . ?s prov:wasDerivedFrom ?r }")
    assert any("prov:" in n for n in used.notes)
