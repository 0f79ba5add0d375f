"""SparqlEndpointKB against real endpoints: Virtuoso holding the Wikidata slice (started by
.ci/run, or by hand: bash .ci/virtuoso.sh start DIR FILE), and ``kgground serve``'s server
over a mirror of the conformance data (the KnowledgeBase conformance suite)."""

from __future__ import annotations

import datetime as dt
import threading
import time

import pytest
from rdflib import URIRef

import kb
from store.answer_cache import ResultCache, normalize_query
from kb.endpoint import SparqlEndpointKB, with_prefixes
from kb.mirror import MirrorKB
from kb.testing import CONFORMANCE_DATA, KnowledgeBaseConformance
from store.errors import (EntityNotFound, InvalidId, PropertyNotFound, QueryRefused,
                          QuerySyntaxError)
from store.ingest import load
from store.mirror import Mirror

WD = "http://www.wikidata.org/entity/"


@pytest.fixture
def endpoint(virtuoso, tmp_path) -> SparqlEndpointKB:
    url, graph = virtuoso
    return SparqlEndpointKB(url, graph=graph, cache=tmp_path / "cache.sqlite", timeout=30)


# -- entity, property_info ----------------------------------------------------------------------

def test_entity_terms(endpoint):
    e = endpoint.entity("Q31")
    assert e.id == "Q31" and e.kind == "item"
    assert e.label() == "Belgium"
    assert "Kingdom of Belgium" in e.aliases["en"]
    assert "Belgique" in e.aliases["fr"]
    assert endpoint.entity(WD + "Q31").labels == e.labels


def test_unknown_and_malformed_entities(endpoint):
    with pytest.raises(EntityNotFound, match="Q999999999"):
        endpoint.entity("Q999999999")
    with pytest.raises(InvalidId, match="write Q31"):
        endpoint.entity("q31")
    with pytest.raises(InvalidId):
        endpoint.entity('Q31> } DROP ALL { <x')


def test_property_info(endpoint):
    info = endpoint.property_info("P108")
    assert (info.label, info.datatype) == ("employer", "wikibase-item")
    assert "works at" in info.aliases and info.description
    assert endpoint.entity("P108").datatype == "wikibase-item"
    with pytest.raises(PropertyNotFound):
        endpoint.property_info("P999999")


# -- statements ---------------------------------------------------------------------------------

def test_statements_q42_p108(endpoint):
    before = dt.datetime.now(dt.UTC).replace(microsecond=0)
    (s,) = endpoint.statements("Q42", "P108")
    assert (s.subject, s.property, s.value.kind, s.value.value) == ("Q42", "P108", "entity",
                                                                    "Q9531")
    c = s.citation
    assert c.source == f"sparql:{endpoint.url}"
    assert dt.datetime.fromisoformat(c.retrieved_at) >= before
    assert c.url == "https://www.wikidata.org/wiki/Q42"


def test_statements_any_part_bound(endpoint):
    props = {s.property for s in endpoint.statements("Q42")}
    assert props == {"P103", "P108", "P140"}           # the slice holds these three
    assert "Q42" in {s.subject for s in endpoint.statements(property="P108", value="Q9531",
                                                              limit=1000)}
    assert len(endpoint.statements(value="Q9531", limit=3)) == 3
    assert [s.value.value for s in endpoint.statements("Q42", "P108", "Q9531")] == ["Q9531"]
    assert endpoint.statements("Q42", "P108", "Q31") == []
    assert endpoint.statements("Q999999999") == []
    with pytest.raises(InvalidId):
        endpoint.statements()
    with pytest.raises(InvalidId):
        endpoint.statements("Q42", "p108")


# -- search -------------------------------------------------------------------------------------

def test_search_exact_label_and_alias(endpoint):
    found = endpoint.search("Belgium")
    assert found[0].id == "Q31" and found[0].match == "label"
    assert {"Q31", "Q166776"} <= {c.id for c in found}
    assert endpoint.search("belgium")[0].id == "Q31"            # case variants
    alias = endpoint.search("Kingdom of Belgium")[0]
    assert (alias.id, alias.match, alias.label) == ("Q31", "alias", "Belgium")
    assert endpoint.search("Douglas Adams", limit=1)[0].id == "Q42"
    assert endpoint.search("xqzzy no such thing") == []
    assert endpoint.search("  ") == []


def test_search_escapes_the_text(endpoint):
    assert endpoint.search('Belgium" } } DROP ALL { "') == []
    assert endpoint.search("back\\slash 'quote' \"dq\"\nnewline") == []


# -- SPARQL -------------------------------------------------------------------------------------

def test_sparql_select_ask_construct(endpoint):
    result = endpoint.sparql("SELECT ?o WHERE { wd:Q42 wdt:P108 ?o }")   # WDQS prefixes
    assert result.vars == ("o",) and result.values("o") == [URIRef(WD + "Q9531")]
    assert result.source == f"sparql:{endpoint.url}" and result.engine == "endpoint"
    assert endpoint.sparql("ASK { wd:Q42 wdt:P108 wd:Q9531 }").boolean is True
    assert endpoint.sparql("ASK { wd:Q42 wdt:P108 wd:Q31 }").boolean is False
    graph = endpoint.sparql("CONSTRUCT { wd:Q42 ?p ?o } WHERE { wd:Q42 ?p ?o }").graph
    assert (URIRef(WD + "Q42"), URIRef("http://www.wikidata.org/prop/direct/P108"),
            URIRef(WD + "Q9531")) in graph


def test_sparql_counts_and_typed_literals(endpoint):
    result = endpoint.sparql("SELECT (COUNT(?p) AS ?n) WHERE { ?p wdt:P108 ?o }")
    (n,) = result.values("n")
    assert n.datatype == URIRef("http://www.w3.org/2001/XMLSchema#integer")
    assert n.toPython() == 3208                       # employer statements in the slice


def test_sparql_is_validated_before_sending(endpoint):
    with pytest.raises(QueryRefused):
        endpoint.sparql("INSERT DATA { wd:Q42 wdt:P31 wd:Q515 }")
    with pytest.raises(QueryRefused):
        endpoint.sparql("SELECT * WHERE { SERVICE <http://example.org/sparql> { ?s ?p ?o } }")
    with pytest.raises(QuerySyntaxError):
        endpoint.sparql("SELECT ?o WHERE { wd:Q42 wdt:P108 ?o ")


def test_declared_prefixes_are_not_added_twice():
    q = "PREFIX wd: <http://example.org/> SELECT * WHERE { wd:x wdt:P31 ?o }"
    head = with_prefixes(q)
    assert head.count("PREFIX wd:") == 1 and "PREFIX wdt:" in head


# -- the cache ----------------------------------------------------------------------------------

def test_second_query_is_a_cache_hit(endpoint, tmp_path):
    q = "SELECT ?c WHERE { wd:Q42 wdt:P108 ?e . ?e wdt:P17 ?c }"
    t0 = time.perf_counter()
    first = endpoint.sparql(q)
    t1 = time.perf_counter()
    second = endpoint.sparql("SELECT ?c\n  WHERE {  wd:Q42 wdt:P108 ?e .\n ?e wdt:P17 ?c }")
    t2 = time.perf_counter()
    assert first.engine == "endpoint" and second.engine == "cache"
    assert "cached answer" in second.explain and second.source == first.source
    assert second.rows == first.rows
    print(f"\nfirst (endpoint) {1000 * (t1 - t0):.2f} ms, "
          f"second (cache) {1000 * (t2 - t1):.2f} ms")
    # a fresh client on the same cache file hits too; no_cache bypasses it
    url, graph = endpoint.url, endpoint.graph
    again = SparqlEndpointKB(url, graph=graph, cache=tmp_path / "cache.sqlite").sparql(q)
    assert again.engine == "cache"
    assert SparqlEndpointKB(url, graph=graph, no_cache=True).sparql(q).engine == "endpoint"
    # the graph is part of the key
    other = SparqlEndpointKB(url, graph="http://example.org/empty",
                             cache=tmp_path / "cache.sqlite").sparql(q)
    assert other.engine == "endpoint" and other.rows == ()


def test_cached_statements_keep_their_retrieval_time(endpoint, tmp_path):
    (first,) = endpoint.statements("Q42", "P108")
    import sqlite3
    with sqlite3.connect(tmp_path / "cache.sqlite") as conn:     # as if fetched an hour ago
        assert conn.execute("UPDATE answers SET fetched_at = fetched_at - 3600").rowcount == 1
    (second,) = endpoint.statements("Q42", "P108")
    an_hour = dt.datetime.fromisoformat(first.citation.retrieved_at) - \
        dt.datetime.fromisoformat(second.citation.retrieved_at)
    assert an_hour == dt.timedelta(hours=1)          # the time it was read, not served


def test_cache_ttl_and_normalization(tmp_path):
    cache = ResultCache(tmp_path / "c.sqlite", ttl=0.2)
    key = ResultCache.key("http://e/sparql", "SELECT  *  WHERE { ?s ?p ?o }")
    assert key == ResultCache.key("http://e/sparql", "SELECT *\n WHERE\t{ ?s ?p ?o }  # note")
    assert key != ResultCache.key("http://e/sparql", "SELECT * WHERE { ?s ?p ?o }", graph="g")
    assert ResultCache.key("http://e/sparql", 'SELECT * { ?s ?p "a  b" }') != \
        ResultCache.key("http://e/sparql", 'SELECT * { ?s ?p "a b" }')
    assert normalize_query('SELECT  ?x # a comment\n WHERE { ?x <http://e/#frag> "#  x" }') \
        == 'SELECT ?x WHERE { ?x <http://e/#frag> "#  x" }'
    cache.put(key, endpoint="http://e/sparql", query="q", body=b"{}", content_type="x")
    assert cache.get(key) is not None
    assert cache.get(key, now=time.time() + 0.25) is None        # past its ttl
    old = ResultCache.key("http://e/sparql", "ASK {}")
    cache.put(old, endpoint="http://e/sparql", query="q", body=b"{}", content_type="x",
              fetched_at=time.time() - 0.25)
    assert cache.get(old) is None and cache.purge() == 1 and cache.get(key) is not None


def test_unusable_cache_file_does_not_break_queries(endpoint, tmp_path):
    folder = tmp_path / "not-a-file.sqlite"
    folder.mkdir()
    kb_ = SparqlEndpointKB(endpoint.url, graph=endpoint.graph, cache=folder)
    assert kb_.sparql("ASK { wd:Q42 wdt:P108 wd:Q9531 }").boolean is True


# -- concurrency and kb.open --------------------------------------------------------------------

def test_parallel_queries_share_one_cap(endpoint, tmp_path):
    other = SparqlEndpointKB(endpoint.url, graph=endpoint.graph, no_cache=True,
                             limits=endpoint.client.limits)
    assert other.client.slots is endpoint.client.slots
    assert endpoint.client.max_concurrency == 5
    results: list[int] = []

    def ask(base: SparqlEndpointKB, i: int) -> None:
        results.append(len(base.statements(property="P108", limit=i + 1)))

    threads = [threading.Thread(target=ask, args=(other if i % 2 else endpoint, i))
               for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == list(range(1, 21))


def test_kb_open_endpoint_and_fallback(virtuoso, demo_mirror_path):
    url, _ = virtuoso
    live = kb.open(url, no_cache=True)
    assert isinstance(live, SparqlEndpointKB) and live.name == f"sparql:{url}"
    from kb.fallback import FallbackKB
    both = kb.open(demo_mirror_path, live=url, offline=True)
    assert isinstance(both, FallbackKB) and both.offline
    assert isinstance(both.local, MirrorKB) and both.live.url == url
    with pytest.raises(ValueError):
        kb.open(url, live=url)


# -- the conformance suite over `kgground serve` ------------------------------------------------

FUZZY = "the live endpoint's search matches exact labels only (documented limit)"


class TestEndpointKBConformance(KnowledgeBaseConformance):
    """SparqlEndpointKB over HTTP, against the SPARQL server of `kgground serve` running
    over a mirror of the conformance data."""

    @pytest.fixture(scope="class")
    def kb(self, tmp_path_factory):
        from kb.sparql_server import SparqlServer

        path = tmp_path_factory.mktemp("served") / "mirror.sqlite"
        with Mirror(path, create=True) as mirror:
            load(mirror, CONFORMANCE_DATA)
        base = MirrorKB(path)
        server = SparqlServer(base, port=0)
        thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
        thread.start()
        yield SparqlEndpointKB(server.url, no_cache=True, timeout=10)
        server.close()
        base.close()

    @pytest.mark.xfail(reason=FUZZY, strict=True)
    def test_search_ignores_case_accents_and_punctuation(self, kb):
        super().test_search_ignores_case_accents_and_punctuation(kb)

    @pytest.mark.xfail(reason=FUZZY, strict=True)
    def test_search_finds_the_beginning_of_a_name(self, kb):
        super().test_search_finds_the_beginning_of_a_name(kb)
