"""The KnowledgeBase conformance suite: the contract of ``kb.base.KnowledgeBase`` as tests.

Any adapter — ours or a user's own — passes it like this::

    import pytest
    from kb.testing import CONFORMANCE_DATA, KnowledgeBaseConformance

    class TestMyKB(KnowledgeBaseConformance):
        @pytest.fixture(scope="class")
        def kb(self):
            return MyKB.from_turtle(CONFORMANCE_DATA)   # loaded with the conformance data

``CONFORMANCE_DATA`` is a small Turtle file in Wikidata's truthy layout (true facts about
Douglas Adams and a few neighbours). The suite checks behaviour, not speed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.base import KnowledgeBase
from kb.types import Candidate, Entity, PropertyInfo, SparqlResult, Statement, Value
from store.errors import (EntityNotFound, InvalidId, KGGroundError, PropertyNotFound,
                          QueryRefused, QuerySyntaxError)

CONFORMANCE_DATA = Path(__file__).with_name("conformance.ttl")

XSD_DATETIME = "http://www.w3.org/2001/XMLSchema#dateTime"


class KnowledgeBaseConformance:
    """Subclass it and provide a ``kb`` fixture loaded with ``CONFORMANCE_DATA``."""

    @pytest.fixture
    def kb(self) -> KnowledgeBase:  # pragma: no cover - subclasses provide it
        raise NotImplementedError("provide a `kb` fixture loaded with CONFORMANCE_DATA")

    # -- identity -----------------------------------------------------------------------------
    def test_has_a_name(self, kb: KnowledgeBase) -> None:
        assert isinstance(kb.name, str) and kb.name

    # -- entity -------------------------------------------------------------------------------
    def test_entity_terms_in_every_language(self, kb: KnowledgeBase) -> None:
        e = kb.entity("Q42")
        assert isinstance(e, Entity) and e.id == "Q42"
        assert e.labels["en"] == "Douglas Adams"
        assert e.labels["zh"] == "道格拉斯·亚当斯"
        assert set(e.aliases["en"]) == {"Douglas Noël Adams", "DNA"}
        assert e.descriptions["en"] == "English writer and humorist"
        assert e.label("fr") == "Douglas Adams"          # falls back to English

    def test_entity_accepts_wikidata_iri(self, kb: KnowledgeBase) -> None:
        assert kb.entity("http://www.wikidata.org/entity/Q42").id == "Q42"

    def test_unknown_entity_raises_entity_not_found(self, kb: KnowledgeBase) -> None:
        with pytest.raises(EntityNotFound) as err:
            kb.entity("Q999999999")
        assert "Q999999999" in str(err.value)

    @pytest.mark.parametrize("bad", ["q42", "Q042", "Q", "42", "", "Q42 ", "P-1"])
    def test_malformed_ids_raise_invalid_id(self, kb: KnowledgeBase, bad: str) -> None:
        with pytest.raises(InvalidId) as err:
            kb.entity(bad)
        assert isinstance(err.value, ValueError)
        assert "expected" in str(err.value)

    def test_invalid_id_suggests_the_fix(self, kb: KnowledgeBase) -> None:
        with pytest.raises(InvalidId, match="write Q42"):
            kb.entity("q42")

    # -- statements ---------------------------------------------------------------------------
    def test_statements_by_subject_and_property(self, kb: KnowledgeBase) -> None:
        found = kb.statements("Q42", "P106")
        assert {s.value.value for s in found} == {"Q36180", "Q28389"}
        assert all(isinstance(s, Statement) and s.value.kind == "entity" for s in found)
        assert all(s.subject == "Q42" and s.property == "P106" for s in found)

    def test_statements_by_subject_only(self, kb: KnowledgeBase) -> None:
        found = kb.statements("Q42")
        assert {s.property for s in found} == {"P31", "P19", "P69", "P106", "P569"}

    def test_statements_by_property_and_value(self, kb: KnowledgeBase) -> None:
        found = kb.statements(property="P31", value="Q5")
        assert {s.subject for s in found} == {"Q42", "Q937"}

    def test_statements_by_value_only(self, kb: KnowledgeBase) -> None:
        assert {s.subject for s in kb.statements(value="Q350")} == {"Q42", "Q691283"}

    def test_literal_values_keep_their_datatype(self, kb: KnowledgeBase) -> None:
        (dob,) = kb.statements("Q42", "P569")
        assert dob.value.kind == "literal"
        assert dob.value.value == "1952-03-11T00:00:00Z"
        assert dob.value.datatype == XSD_DATETIME
        again = kb.statements(property="P569", value=Value("literal", "1952-03-11T00:00:00Z",
                                                           datatype=XSD_DATETIME))
        assert [s.subject for s in again] == ["Q42"]

    def test_limit_is_respected(self, kb: KnowledgeBase) -> None:
        assert len(kb.statements("Q42", limit=2)) == 2

    def test_no_match_is_an_empty_list(self, kb: KnowledgeBase) -> None:
        assert kb.statements("Q42", "P27") == []
        assert kb.statements("Q999999999") == []

    def test_unbound_triplet_query_is_refused(self, kb: KnowledgeBase) -> None:
        with pytest.raises((InvalidId, ValueError)):
            kb.statements()

    def test_statement_ids_are_validated(self, kb: KnowledgeBase) -> None:
        with pytest.raises(InvalidId):
            kb.statements("Q42", "p106")

    def test_every_statement_carries_its_citation(self, kb: KnowledgeBase) -> None:
        for s in kb.statements("Q42"):
            c = s.citation
            assert c is not None
            assert (c.subject, c.property, c.value) == (s.subject, s.property, s.value)
            assert c.source and ":" in c.source
            assert c.url.startswith("https://www.wikidata.org/wiki/Q42")

    def test_values_carry_their_source(self, kb: KnowledgeBase) -> None:
        """Provenance travels on the values (never in "last call" state on the KB)."""
        e = kb.entity("Q42")
        assert e.source and ":" in e.source
        for kind, lang, text in [("label", "en", "Douglas Adams"),
                                 ("description", "en", "English writer and humorist")]:
            source, _ = e.term_source(kind, lang, text)
            assert source and ":" in source
        found = kb.search("Douglas Adams")
        assert found and all(c.source and ":" in c.source for c in found)
        info = kb.property_info("P106")
        assert info.source and ":" in info.source

    # -- search -------------------------------------------------------------------------------
    def test_search_exact_label_first(self, kb: KnowledgeBase) -> None:
        found = kb.search("Douglas Adams")
        assert found and isinstance(found[0], Candidate)
        assert found[0].id == "Q42" and found[0].label == "Douglas Adams"

    def test_search_ignores_case_accents_and_punctuation(self, kb: KnowledgeBase) -> None:
        assert kb.search("douglas  ADAMS")[0].id == "Q42"
        assert kb.search("Douglas Noel Adams")[0].id == "Q42"
        assert kb.search("St Johns College")[0].id == "Q691283"

    def test_search_finds_aliases_and_other_languages(self, kb: KnowledgeBase) -> None:
        assert kb.search("Einstein")[0].id == "Q937"
        assert kb.search("爱因斯坦", lang="zh")[0].id == "Q937"
        assert kb.search("Mensch", lang="de")[0].id == "Q5"

    def test_search_finds_the_beginning_of_a_name(self, kb: KnowledgeBase) -> None:
        found = kb.search("Douglas Ad")
        assert found and found[0].id == "Q42"
        assert (found[0].match, found[0].matched) == ("prefix", "Douglas Adams")

    def test_search_label_in_language_outranks_other_languages(self, kb: KnowledgeBase) -> None:
        found = kb.search("道格拉斯·亚当斯", lang="zh")
        assert found[0].id == "Q42" and found[0].label == "道格拉斯·亚当斯"

    def test_search_returns_every_entity_sharing_a_label(self, kb: KnowledgeBase) -> None:
        found = kb.search("Cambridge")
        assert {"Q350", "Q49111"} <= {c.id for c in found[:3]}
        assert all(c.score >= found[-1].score for c in found)   # best first
        assert all(0.0 <= c.prior <= 1.0 for c in found)

    def test_search_limit_and_no_match(self, kb: KnowledgeBase) -> None:
        assert len(kb.search("Cambridge", limit=1)) == 1
        assert kb.search("xqzzy no such thing") == []
        assert kb.search("   ") == []

    # -- properties ---------------------------------------------------------------------------
    def test_property_info(self, kb: KnowledgeBase) -> None:
        info = kb.property_info("P569")
        assert isinstance(info, PropertyInfo)
        assert (info.id, info.label, info.datatype) == ("P569", "date of birth", "time")
        assert "birthplace" in kb.property_info("P19").aliases
        assert kb.property_info("P31").datatype == "wikibase-item"

    def test_unknown_property_raises(self, kb: KnowledgeBase) -> None:
        with pytest.raises(PropertyNotFound):
            kb.property_info("P999999")
        with pytest.raises(InvalidId):
            kb.property_info("Q42")

    # -- SPARQL -------------------------------------------------------------------------------
    def test_sparql_select(self, kb: KnowledgeBase) -> None:
        result = kb.sparql("SELECT ?o WHERE { wd:Q42 wdt:P106 ?o }")
        assert isinstance(result, SparqlResult) and result.vars == ("o",)
        assert sorted(str(o) for o in result.values("o")) == [
            "http://www.wikidata.org/entity/Q28389", "http://www.wikidata.org/entity/Q36180"]
        assert result.source

    def test_sparql_join_and_labels(self, kb: KnowledgeBase) -> None:
        result = kb.sparql('SELECT ?place WHERE { ?p rdfs:label "Douglas Adams"@en ; '
                           'wdt:P19 ?x . ?x rdfs:label ?place FILTER(lang(?place) = "en") }')
        assert [str(v) for v in result.values("place")] == ["Cambridge"]

    def test_sparql_ask(self, kb: KnowledgeBase) -> None:
        assert kb.sparql("ASK { wd:Q42 wdt:P31 wd:Q5 }").boolean is True
        assert kb.sparql("ASK { wd:Q42 wdt:P31 wd:Q515 }").boolean is False

    def test_sparql_update_is_refused(self, kb: KnowledgeBase) -> None:
        with pytest.raises(QueryRefused):
            kb.sparql("INSERT DATA { wd:Q42 wdt:P31 wd:Q515 }")
        assert kb.sparql("ASK { wd:Q42 wdt:P31 wd:Q515 }").boolean is False

    def test_sparql_service_is_refused(self, kb: KnowledgeBase) -> None:
        with pytest.raises(QueryRefused):
            kb.sparql("SELECT * WHERE { SERVICE <http://example.org/sparql> { ?s ?p ?o } }")

    def test_sparql_syntax_error(self, kb: KnowledgeBase) -> None:
        with pytest.raises(QuerySyntaxError) as err:
            kb.sparql("SELECT ?o WHERE { wd:Q42 wdt:P106 ?o ")
        assert isinstance(err.value, KGGroundError)
