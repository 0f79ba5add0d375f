"""Mirrors in PostgreSQL (a real server on loopback, started by .ci/run): the schema, the
loaders serial and with worker processes, and MirrorKB through the conformance suite."""

from __future__ import annotations

import sys

import pytest

from kb.mirror import MirrorKB
from kb.testing import CONFORMANCE_DATA, KnowledgeBaseConformance
from store.errors import MirrorError
from store.ingest import load
from store.mirror import Mirror
from tests.conftest import shared_file

#: the dump sample's contents, counted from its JSON (as in test_store_ingest)
SAMPLE = {"entities": 100, "statements": 12_599, "qualifiers": 6_948, "references": 5_708,
          "terms": 17_364}


class TestPostgresMirrorKB(KnowledgeBaseConformance):
    @pytest.fixture
    def kb(self, postgres_database):
        with Mirror(postgres_database, create=True) as mirror:
            assert load(mirror, CONFORMANCE_DATA).errors == 0
        base = MirrorKB(postgres_database)
        yield base
        base.close()


@pytest.mark.parametrize("parallel", [False, True], ids=["serial", "worker processes"])
def test_json_dump_loads_into_postgres(postgres_database, parallel):
    sample = shared_file("wikidata/dump-sample-100.json.bz2")
    with Mirror(postgres_database, create=True) as mirror:
        report = load(mirror, sample, parallel=parallel)
        assert {k: getattr(report, k) for k in SAMPLE} == SAMPLE
        assert report.errors == 0
        assert {k: mirror.stats()[k] for k in SAMPLE} == SAMPLE
        assert load(mirror, sample).status == "already loaded"
        assert mirror.stats()["statements"] == SAMPLE["statements"]
    kb = MirrorKB(postgres_database)
    try:
        assert kb.entity("Q31").label("en") == "Belgium"
        assert kb.search("belgium")[0].id == "Q31"
    finally:
        kb.close()


def test_statements_with_references_and_sparql(postgres_database):
    with Mirror(postgres_database, create=True) as mirror:
        load(mirror, shared_file("wikidata/entity-Q42.json"))
    kb = MirrorKB(postgres_database)
    try:
        found = kb.statements("Q42", "P69")
        assert {s.value.value for s in found} == {"Q4961791", "Q691283"}
        assert any(s.references for s in found) and any(s.qualifiers for s in found)
        result = kb.sparql("SELECT ?o WHERE { wd:Q42 wdt:P69 ?o }")
        assert result.engine == "sql"          # a plan PostgreSQL reads as SQLite does
        assert {str(r["o"]).rsplit("/", 1)[1] for r in result.rows} == {"Q4961791", "Q691283"}
    finally:
        kb.close()


def test_missing_driver_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "psycopg", None)    # import psycopg → ImportError
    with pytest.raises(MirrorError, match=r"pip install 'kgground\[postgres\]'"):
        Mirror("postgresql://nobody@127.0.0.1:1/none")
    with pytest.raises(MirrorError, match="not a database URL SQLAlchemy knows"):
        Mirror("nosuchdb://somewhere/x")


def test_an_empty_database_is_not_opened_as_a_mirror(postgres_database):
    with pytest.raises(MirrorError, match="there is no mirror in .*the database is empty"):
        MirrorKB(postgres_database)
    import sqlalchemy as sa
    engine = sa.create_engine(postgres_database)
    try:
        assert sa.inspect(engine).get_table_names() == []      # nothing was created
    finally:
        engine.dispose()


def test_cli_loads_and_reads_a_postgres_mirror(run, postgres_database):
    import json
    entity = shared_file("wikidata/entity-Q42.json")
    assert run("mirror", "stats", "--db", postgres_database).exit_code == 1
    loaded = run("mirror", "load", str(entity), "--db", postgres_database)
    assert loaded.exit_code == 0, loaded.output
    stats = json.loads(run("mirror", "stats", "--db", postgres_database, "--json").stdout)
    assert stats["entities"] >= 1 and stats["sources"][0]["status"] == "complete"
    rows = json.loads(run("triples", "--subject", "Q42", "--property", "P69",
                          "--db", postgres_database, "--json").stdout)
    assert {r["value"]["value"] for r in rows} == {"Q4961791", "Q691283"}


def test_values_before_an_optional_keeps_every_row(postgres_database, tmp_path):
    """On PostgreSQL rdflib's evaluator answers SPARQL (so far): its VALUES-before-OPTIONAL
    bug, repaired by store/sparql/rdflib_fixes.py, must not drop Q937, which has no capital."""
    wd, wdt = "http://www.wikidata.org/entity/", "http://www.wikidata.org/prop/direct/"
    src = tmp_path / "capitals.nt"
    src.write_text(f"<{wd}Q183> <{wdt}P36> <{wd}Q64> .\n<{wd}Q937> <{wdt}P31> <{wd}Q5> .\n")
    with Mirror(postgres_database, create=True) as mirror:
        load(mirror, src)
    kb = MirrorKB(postgres_database)
    try:
        rows = kb.sparql("SELECT ?x ?c WHERE { VALUES ?x { wd:Q183 wd:Q937 } "
                         "OPTIONAL { ?x wdt:P36 ?c } }").rows
        assert sorted((str(r["x"])[len(wd):], str(r.get("c", ""))[len(wd):]) for r in rows) \
            == [("Q183", "Q64"), ("Q937", "")]
    finally:
        kb.close()
