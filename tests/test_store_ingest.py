"""Loading real files into real SQLite mirrors: counts, idempotency, errors, resumption."""

from __future__ import annotations

import gzip
import json
import shutil
import signal
import subprocess
import sys
import time

import pytest

import store.ingest as ingest
from kb.mirror import MirrorKB
from store.errors import LoadError, MirrorError
from store.ingest import Filters, load
from store.mirror import Mirror
from tests.conftest import shared_file

WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"


def nt(*lines: str) -> str:
    return "\n".join(lines) + "\n"


def write(path, text: str, *, gz: bool = False):
    if gz:
        with gzip.open(path, "wt", encoding="utf-8") as f:
            f.write(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def counts(path) -> dict[str, int]:
    with Mirror(path) as m:
        s = m.stats()
    return {k: s[k] for k in ("entities", "statements", "terms", "qualifiers", "references")}


SMALL_NT = nt(
    f'<{WD}Q31> <{LABEL}> "Belgium"@en .',
    f'<{WD}Q31> <{LABEL}> "Belgique"@fr .',
    f'<{WD}Q31> <{WDT}P36> <{WD}Q239> .',
    f'<{WD}Q239> <{LABEL}> "Brussels"@en .',
    f'<{WD}Q239> <{WDT}P17> <{WD}Q31> .',
    f'<{WD}Q239> <{WDT}P1082> "1208542"^^<http://www.w3.org/2001/XMLSchema#decimal> .',
)


# -- the real slice and the real dump --------------------------------------------------------

def test_slice_loads_with_exact_counts(slice_mirror_path):
    with Mirror(slice_mirror_path) as m:
        stats = m.stats()
        assert stats["statements"] == 218_762
        assert stats["terms_by_kind"]["label"] == 175_997        # 172,640 items + 3,357 props
        assert stats["terms_by_kind"]["description"] == 3_304
        # 766,075 altLabel lines, of which 654 repeat an earlier line
        assert stats["terms_by_kind"]["alias"] == 766_075 - 654
        assert stats["properties"] == 3_357
        assert stats["properties_with_datatype"] == 3_357
        assert stats["languages"] == 22
        (source,) = stats["sources"]
        assert source["status"] == "complete" and source["position"] == 1_167_495
    base = MirrorKB(slice_mirror_path)
    assert base.entity("Q31").labels["en"] == "Belgium"
    assert [s.value.value for s in base.statements("Q42", "P108")] == ["Q9531"]
    assert base.property_info("P108").label == "employer"
    assert base.property_info("P108").datatype == "wikibase-item"


def test_dump_sample_loads_full_statements(dump_mirror_path):
    with Mirror(dump_mirror_path) as m:
        stats = m.stats()
    assert stats["entities"] == 100
    assert stats["statements"] == 12_599
    assert stats["qualifiers"] == 6_948
    assert stats["references"] == 5_708
    base = MirrorKB(dump_mirror_path)
    belgium = base.entity("Q31")
    assert belgium.labels["en"] == "Belgium" and belgium.labels["de"] == "Belgien"
    assert belgium.sitelinks > 100
    capital = base.statements("Q31", "P36")
    assert [s.value.value for s in capital] == ["Q239"]
    assert capital[0].id.upper().startswith("Q31$")           # real dumps mix q31$/Q31$
    assert capital[0].citation.statement_id == capital[0].id


def test_single_entity_json_with_qualifiers_and_references(tmp_path):
    path = tmp_path / "q42.sqlite"
    with Mirror(path, create=True) as m:
        report = load(m, shared_file("wikidata/entity-Q42.json"))
        load(m, shared_file("wikidata/entity-P279.json"))
        load(m, shared_file("wikidata/entity-L3354.json"))
    assert report.entities == 1 and report.errors == 0
    base = MirrorKB(path)
    educated = {s.value.value: s for s in base.statements("Q42", "P69")}
    assert set(educated) == {"Q691283", "Q4961791"}
    st_johns = educated["Q691283"]
    assert st_johns.id == "q42$0E9C4724-C954-4698-84A7-5CE0D296A6F2"
    assert [q.property for q in st_johns.qualifiers] == ["P582", "P812", "P512", "P580"]
    start = next(q for q in st_johns.qualifiers if q.property == "P580")
    assert start.value.value == "1971-01-01T00:00:00Z"           # "+1971-00-00…" made valid
    assert start.value.details["precision"] == 9
    assert len(st_johns.references) == 2
    assert st_johns.references[0].snaks[0].property == "P248"
    assert st_johns.references[0].snaks[0].value.value == "Q5375741"
    assert st_johns.citation.revision == 716282445
    assert st_johns.citation.url.endswith("#q42$0E9C4724-C954-4698-84A7-5CE0D296A6F2")
    assert base.property_info("P279").datatype == "wikibase-item"
    assert base.entity("L3354").labels["en"] == "bank"


# -- idempotency and resumption --------------------------------------------------------------

def test_loading_the_same_file_twice_does_not_duplicate(tmp_path):
    src = write(tmp_path / "small.nt", SMALL_NT)
    db = tmp_path / "m.sqlite"
    with Mirror(db, create=True) as m:
        first = load(m, src)
        again = load(m, src)
        forced = load(m, src, force=True)
    assert first.status == "loaded" and first.statements == 3 and first.terms == 3
    assert again.status == "already loaded"
    assert forced.statements == 0 and forced.terms == 0
    assert counts(db)["statements"] == 3 and counts(db)["terms"] == 3


def test_json_record_replaces_what_the_mirror_held(tmp_path):
    def entity(label: str, capital: str) -> str:
        return json.dumps({"type": "item", "id": "Q31",
                           "labels": {"en": {"language": "en", "value": label}},
                           "claims": {"P36": [{"mainsnak": {
                               "snaktype": "value", "property": "P36", "datatype": "wikibase-item",
                               "datavalue": {"type": "wikibase-entityid",
                                             "value": {"entity-type": "item", "id": capital}}},
                               "type": "statement", "id": f"Q31${capital}", "rank": "normal"}]}})
    db = tmp_path / "m.sqlite"
    with Mirror(db, create=True) as m:
        load(m, write(tmp_path / "v1.json", f"[\n{entity('Belgium', 'Q239')}\n]\n"))
        load(m, write(tmp_path / "v2.json", f"[\n{entity('Kingdom of Belgium', 'Q240')}\n]\n"))
    base = MirrorKB(db)
    assert base.entity("Q31").labels == {"en": "Kingdom of Belgium"}
    assert [s.value.value for s in base.statements("Q31", "P36")] == ["Q240"]
    assert base.search("Belgium") == [] or base.search("Belgium")[0].match != "label"


def test_interrupted_load_resumes_to_the_same_result(tmp_path, monkeypatch):
    lines = [f'<{WD}Q{i}> <{LABEL}> "entity {i}"@en .' for i in range(1, 10001)]
    lines += [f'<{WD}Q{i}> <{WDT}P31> <{WD}Q5> .' for i in range(1, 10001)]
    src = write(tmp_path / "big.nt.gz", nt(*lines), gz=True)
    monkeypatch.setattr("store.batches.BATCH_ROWS", 1000)
    real_write = ingest.write_batch
    calls = {"n": 0}

    def crash_on_third(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt      # as if the user pressed Ctrl-C mid-load
        return real_write(*args, **kwargs)

    db = tmp_path / "m.sqlite"
    with Mirror(db, create=True) as m:
        monkeypatch.setattr(ingest, "write_batch", crash_on_third)
        with pytest.raises(KeyboardInterrupt):
            load(m, src, parallel=False)
        partial = m.stats()
        assert 0 < partial["terms"] + partial["statements"] < 20000    # two batches are in
        assert partial["sources"][0]["status"] == "loading"
        monkeypatch.setattr(ingest, "write_batch", real_write)
        resumed = load(m, src, parallel=False)
    assert resumed.status == "resumed"
    assert counts(db)["terms"] == 10000 and counts(db)["statements"] == 10000
    base = MirrorKB(db)
    assert base.search("entity 9999")[0].id == "Q9999"


def test_killed_load_of_the_slice_resumes(tmp_path):
    """A real interruption: the loader process is killed mid-file, then run again."""
    src = shared_file("wikidata/trex-slice.nt.gz")
    db = tmp_path / "killed.sqlite"
    cmd = [sys.executable, "-m", "reasoning", "mirror", "load", str(src), "--db", str(db)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(4.0)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    with Mirror(db) as m:
        position = m.sources()[0]["position"]
    assert 0 < position < 1_167_495, "the kill should land mid-file"
    done = subprocess.run(cmd + ["--json"], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout)["loads"][0]["status"] == "resumed"
    assert counts(db)["statements"] == 218_762
    assert counts(db)["terms"] == 175_997 + 3_304 + 766_075 - 654


# -- bad input -------------------------------------------------------------------------------

def test_malformed_lines_are_reported_and_skipped(tmp_path):
    text = SMALL_NT + nt(
        f'<{WD}Q1> <{WDT}P31> <{WD}Q5>',                      # no final dot
        f'<{WD}Q2> <{LABEL}> "unterminated@en .',
        "this is not a triple .",
        f'<{WD}Q3> <{LABEL}> "fine"@en .',
    )
    src = write(tmp_path / "bad.nt", text)
    with Mirror(tmp_path / "m.sqlite", create=True) as m:
        report = load(m, src)
    assert report.errors == 3
    assert report.error_samples[0].startswith(f"{src}:7: ")
    assert "does not end with ' .'" in report.error_samples[0]
    assert report.error_samples[2].startswith(f"{src}:9: ")
    assert report.terms == 4 and report.statements == 3


def test_strict_stops_at_the_first_error_and_keeps_what_came_before(tmp_path):
    text = SMALL_NT + nt("garbage", f'<{WD}Q3> <{LABEL}> "after"@en .')
    src = write(tmp_path / "bad.nt", text)
    db = tmp_path / "m.sqlite"
    with Mirror(db, create=True) as m:
        with pytest.raises(LoadError) as err:
            load(m, src, strict=True)
    assert err.value.line == 7 and str(err.value).startswith(f"{src}:7: ")
    assert "Fix:" in str(err.value)
    assert counts(db)["statements"] == 3 and counts(db)["terms"] == 3
    assert MirrorKB(db).search("after") == []


def test_malformed_json_entities(tmp_path):
    good = json.dumps({"type": "item", "id": "Q1",
                       "labels": {"en": {"language": "en", "value": "universe"}}})
    text = f'[\n{good},\n{{"id": "Q2", "labels": \n{{"type": "item"}},\n{{"id": "bad"}}\n]\n'
    src = write(tmp_path / "dump.json", text)
    with Mirror(tmp_path / "m.sqlite", create=True) as m:
        report = load(m, src)
    assert report.errors == 3
    assert any(":3: not valid JSON" in e for e in report.error_samples)
    assert any(":4: expected a Wikidata entity" in e for e in report.error_samples)
    assert any("'bad' is not a Wikidata ID" in e for e in report.error_samples)
    assert report.entities == 1


def test_missing_and_unreadable_files(tmp_path):
    with Mirror(tmp_path / "m.sqlite", create=True) as m:
        with pytest.raises(LoadError, match="no such file"):
            load(m, tmp_path / "nope.nt")
        odd = write(tmp_path / "data.bin", "hello world")
        with pytest.raises(LoadError, match="cannot tell the format"):
            load(m, odd)
        latin1 = tmp_path / "latin1.nt"
        latin1.write_bytes(f'<{WD}Q1> <{LABEL}> "caf\xe9"@fr .\n'.encode("latin-1"))
        with pytest.raises(LoadError, match="not UTF-8"):
            load(m, latin1)


def test_truncated_gzip_keeps_what_was_read(tmp_path, monkeypatch):
    lines = [f'<{WD}Q{i}> <{LABEL}> "entity {i}"@en .' for i in range(1, 20001)]
    full = write(tmp_path / "full.nt.gz", nt(*lines), gz=True)
    cut = tmp_path / "cut.nt.gz"
    data = full.read_bytes()
    cut.write_bytes(data[: len(data) * 2 // 3])
    monkeypatch.setattr("store.batches.BATCH_ROWS", 2000)
    db = tmp_path / "m.sqlite"
    with Mirror(db, create=True) as m:
        with pytest.raises(LoadError, match="truncated"):
            load(m, cut, parallel=False)
    assert 0 < counts(db)["terms"] < 20000
    assert MirrorKB(db).search("entity 1")[0].id == "Q1"     # the mirror is usable


def test_not_a_mirror(tmp_path):
    with pytest.raises(MirrorError, match="there is no mirror"):
        Mirror(tmp_path / "absent.sqlite")
    other = tmp_path / "other.sqlite"
    import sqlite3
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.commit()
    with pytest.raises(MirrorError, match="not a kgground mirror"):
        Mirror(other)


# -- filters and other formats ---------------------------------------------------------------

def test_filters(tmp_path):
    src = write(tmp_path / "small.nt", SMALL_NT)
    db = tmp_path / "m.sqlite"
    with Mirror(db, create=True) as m:
        report = load(m, src, filters=Filters(languages={"en"}, properties={"P36"},
                                              entities={"Q31"}))
    assert report.filtered == 4        # the fr label, and Q239's three lines
    base = MirrorKB(db)
    assert base.entity("Q31").labels == {"en": "Belgium"}
    assert [s.property for s in base.statements("Q31")] == ["P36"]


def test_custom_turtle_kb_with_its_own_namespace(tmp_path):
    ttl = write(tmp_path / "team.ttl", """
        @prefix ex: <http://example.org/team/> .
        @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
        @prefix skos: <http://www.w3.org/2004/02/skos/core#> .
        ex:alice rdfs:label "Alice Liddell"@en ; skos:altLabel "Ali"@en ;
                 ex:worksWith ex:bob ; ex:age 31 .
        ex:bob rdfs:label "Bob"@en ; ex:mentor [ rdfs:label "someone"@en ] .
    """)
    db = tmp_path / "m.sqlite"
    with Mirror(db, create=True) as m:
        report = load(m, ttl)
    assert report.errors == 0
    base = MirrorKB(db)
    alice = "http://example.org/team/alice"
    assert base.entity(alice).aliases["en"] == ("Ali",)
    works = base.statements(alice, "http://example.org/team/worksWith")
    assert [(s.value.kind, s.value.value) for s in works] == [
        ("iri", "http://example.org/team/bob")]
    (age,) = base.statements(alice, "http://example.org/team/age")
    assert age.value.value == "31" and age.value.datatype.endswith("#integer")
    assert base.search("ali")[0].id == alice
    (mentor,) = base.statements("http://example.org/team/bob",
                                "http://example.org/team/mentor")
    assert mentor.value.kind == "bnode"


def test_mirror_copy_is_self_contained(tmp_path, demo_mirror_path):
    """A mirror is one file (after a checkpoint): copying it copies the KB."""
    copy = tmp_path / "copy.sqlite"
    shutil.copy(demo_mirror_path, copy)
    assert MirrorKB(copy).entity("Q937").labels["en"] == "Albert Einstein"


def test_a_stale_label_index_is_refused_until_reindexed(tmp_path):
    src = write(tmp_path / "small.nt", SMALL_NT)
    db = tmp_path / "m.sqlite"
    with Mirror(db, create=True) as m:
        load(m, src)
        # as if built by an older normalizer: keys differ from what normalize() gives now
        m.query("UPDATE terms SET norm = upper(norm)")
        m.query("UPDATE meta SET value = '1' WHERE key = 'normalizer'")
        m.raw.commit()
    with pytest.raises(MirrorError, match="kgground mirror reindex"):
        MirrorKB(db)
    from click.testing import CliRunner

    from reasoning.cli import cli
    result = CliRunner().invoke(cli, ["mirror", "reindex", "--db", str(db)])
    assert result.exit_code == 0 and "reindexed 3 labels" in result.output
    assert MirrorKB(db).search("belgium")[0].id == "Q31"
