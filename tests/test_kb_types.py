"""The shared data types: display, serialization, URLs."""

from __future__ import annotations

from kb.types import Citation, Entity, SparqlResult, Value, wikidata_url

XSD_DATETIME = "http://www.w3.org/2001/XMLSchema#dateTime"


def test_time_values_show_their_precision():
    def t(value: str, precision: int | None) -> str:
        return str(Value("literal", value, datatype=XSD_DATETIME,
                         details={"precision": precision} if precision else None))
    assert t("1903-01-01T00:00:00Z", 9) == "1903"
    assert t("1903-05-01T00:00:00Z", 10) == "1903-05"
    assert t("1867-11-07T00:00:00Z", 11) == "1867-11-07"
    assert t("-0500-01-01T00:00:00Z", 9) == "-0500"
    assert t("1867-11-07T00:00:00Z", None) == "1867-11-07T00:00:00Z"
    assert str(Value("literal", "Belgique", lang="fr")) == "Belgique@fr"
    assert str(Value("somevalue", "")) == "(unknown value)"


def test_urls_and_citations():
    assert wikidata_url("Q42") == "https://www.wikidata.org/wiki/Q42"
    assert wikidata_url("P31") == "https://www.wikidata.org/wiki/Property:P31"
    assert wikidata_url("L3354") == "https://www.wikidata.org/wiki/Lexeme:L3354"
    assert wikidata_url("L3354-F1") == "https://www.wikidata.org/wiki/Lexeme:L3354#L3354-F1"
    assert wikidata_url("L3354-S1", "L3354-S1$ab") == (
        "https://www.wikidata.org/wiki/Lexeme:L3354#L3354-S1$ab")
    assert wikidata_url("http://example.org/x") == "http://example.org/x"
    c = Citation("Q42", "P69", Value("entity", "Q691283"), "mirror:/tmp/m.sqlite",
                 statement_id="Q42$abc")
    assert c.url == "https://www.wikidata.org/wiki/Q42#Q42$abc"
    assert c.as_dict()["value"] == {"kind": "entity", "value": "Q691283"}


def test_entity_label_fallback():
    e = Entity("Q1", labels={"de": "Universum", "en": "universe"})
    assert e.label("de-ch") == "Universum" and e.label("fr") == "universe"
    assert Entity("Q2").label() == "Q2"


def test_sparql_result_json():
    from rdflib import Literal, URIRef
    r = SparqlResult(vars=("s", "l"), rows=({"s": URIRef("http://x"), "l": Literal("a", lang="en")},
                                            {"s": URIRef("http://y")}))
    assert r.to_json()["results"]["bindings"][0]["l"] == {"type": "literal", "value": "a",
                                                           "xml:lang": "en"}
    assert "l" not in r.to_json()["results"]["bindings"][1]
    assert SparqlResult(boolean=True).to_json() == {"head": {}, "boolean": True}
