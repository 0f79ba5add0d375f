"""Loading real files into real SQLite mirrors: counts, idempotency, errors, resumption."""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

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


def test_lexeme_forms_and_senses_are_entities(tmp_path):
    import json
    from store.errors import EntityNotFound
    source = shared_file("wikidata/entity-L3354.json")
    path = tmp_path / "l.sqlite"
    with Mirror(path, create=True) as m:
        report = load(m, source)
        assert m.stats()["entities_by_kind"] == {"lexeme": 1, "form": 2, "sense": 3}
    assert report.entities == 6 and report.errors == 0
    base = MirrorKB(path)
    form, sense = base.entity("L3354-F1"), base.entity("L3354-S1")
    assert (form.kind, form.labels) == ("form", {"en": "bank"})          # representations
    assert sense.kind == "sense"
    assert sense.descriptions["en"] == "financial institution"           # glosses
    item = base.statements("L3354-S1", "P5137")                          # item for this sense
    assert [s.value.value for s in item] == ["Q22687"]
    assert item[0].citation.url == (
        "https://www.wikidata.org/wiki/Lexeme:L3354#L3354-S1$79e6e103-44ac-67ae-faa6-79d83aaec0a9")
    # the lexeme's own triples, in Wikidata's RDF vocabulary
    words = base.sparql("SELECT ?l ?s WHERE { ?l ontolex:sense ?s ; dct:language wd:Q1860 ; "
                        "wikibase:lexicalCategory wd:Q1084 . ?s wdt:P5137 wd:Q22687 }")
    assert [(str(r["l"]), str(r["s"])) for r in words.rows] == [(f"{WD}L3354", f"{WD}L3354-S1")]
    features = base.statements("L3354-F1", "http://wikiba.se/ontology#grammaticalFeature")
    assert [s.value.value for s in features] == ["Q110786"]
    base.close()

    # A newer record without the third sense replaces the lexeme: the sense is gone.
    record = json.loads(source.read_text())
    lexeme = record["entities"]["L3354"] if "entities" in record else record
    dropped = lexeme["senses"].pop()["id"]
    lexeme["lastrevid"] += 1
    newer = tmp_path / "L3354-newer.json"
    newer.write_text(json.dumps(record))
    with Mirror(path) as m:
        load(m, newer)
        assert m.stats()["entities_by_kind"] == {"lexeme": 1, "form": 2, "sense": 2}
    base = MirrorKB(path)
    with pytest.raises(EntityNotFound):
        base.entity(dropped)
    assert base.statements(dropped) == []
    assert {s.value.value for s in base.statements(
        "L3354", "http://www.w3.org/ns/lemon/ontolex#sense")} == {"L3354-S1", "L3354-S2"}
    assert base.entity("L3354-S1").descriptions["en"] == "financial institution"
    base.close()


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


def _claim(pid: str, value: dict | None, rank: str, n: int, *, snaktype: str = "value",
           datatype: str = "wikibase-item", qualifiers: dict | None = None) -> dict:
    snak = {"snaktype": snaktype, "property": pid, "datatype": datatype}
    if value is not None:
        snak["datavalue"] = value
    claim = {"mainsnak": snak, "type": "statement", "id": f"Q1${pid}-{n}", "rank": rank}
    if qualifiers:
        claim["qualifiers"] = qualifiers
        claim["qualifiers-order"] = list(qualifiers)
    return claim


def _item(qid: str) -> dict:
    return {"type": "wikibase-entityid", "value": {"entity-type": "item", "id": qid}}


def test_ranks_truthiness_and_values_as_wikidata_rdf_has_them(tmp_path):
    """Every rank combination and value kind the loader maps, checked against the
    independent reading (tests/wikidata_rdf.py) rather than against expectations written
    from the loader: truthy = the best non-deprecated rank of a property, never
    'novalue'; a property whose statements are all deprecated has no truthy triple."""
    wikidata_rdf = pytest.importorskip("tests.wikidata_rdf", reason="needs pyoxigraph")
    from rdflib import BNode, Graph, URIRef

    from store.rdf_store import MirrorStore
    claims = {
        "P31": [_claim("P31", _item("Q5"), "normal", 1),
                _claim("P31", _item("Q6"), "normal", 2)],
        "P36": [_claim("P36", _item("Q64"), "preferred", 1),      # preferred wins
                _claim("P36", _item("Q586"), "normal", 2),
                _claim("P36", _item("Q1"), "deprecated", 3)],
        "P17": [_claim("P17", _item("Q30"), "deprecated", 1),     # all deprecated
                _claim("P17", _item("Q31"), "deprecated", 2)],
        "P166": [_claim("P166", _item("Q38104"), "normal", 1),    # won twice: one triple
                 _claim("P166", _item("Q38104"), "normal", 2)],
        "P26": [_claim("P26", None, "normal", 1, snaktype="novalue")],
        "P40": [_claim("P40", None, "preferred", 1, snaktype="somevalue"),
                _claim("P40", _item("Q9"), "normal", 2)],
        "P1082": [_claim("P1082", {"type": "quantity", "value": {"amount": "+1208542",
                                                                 "unit": "1"}},
                         "preferred", 1, datatype="quantity", qualifiers={"P585": [
                             {"snaktype": "value", "property": "P585", "datatype": "time",
                              "hash": "h1", "datavalue": {"type": "time", "value": {
                                  "time": "+2016-00-00T00:00:00Z", "precision": 9}}}],
                             "P459": [{"snaktype": "novalue", "property": "P459",
                                       "datatype": "wikibase-item", "hash": "h2"}]})],
        "P18": [_claim("P18", {"type": "string", "value": "Flag of X (civil).svg"}, "normal",
                       1, datatype="commonsMedia")],
        "P3896": [_claim("P3896", {"type": "string", "value": "Data:Belgium map.map"},
                         "normal", 1, datatype="geo-shape")],
        "P1448": [_claim("P1448", {"type": "monolingualtext", "value": {
            "text": "Königreich", "language": "de"}}, "normal", 1,
            datatype="monolingualtext")],
        "P625": [_claim("P625", {"type": "globecoordinate", "value": {
            "latitude": 50.8, "longitude": 4.35, "globe": "http://www.wikidata.org/entity/Q2"}},
            "normal", 1, datatype="globe-coordinate")],
    }
    record = {"type": "item", "id": "Q1", "labels": {"en": {"language": "en", "value": "x"}},
              "aliases": {"en": [{"language": "en", "value": "ex"}]},
              "descriptions": {"fr": {"language": "fr", "value": "un x"}}, "claims": claims}
    src = tmp_path / "q1.json"
    src.write_text(json.dumps(record))
    db = tmp_path / "m.sqlite"
    with Mirror(db, create=True) as m:
        assert load(m, src).errors == 0
        graph = Graph(store=MirrorStore(m))

        def canon(t):
            if isinstance(t, BNode):
                return "_"
            return str(t) if isinstance(t, URIRef) else (str(t), t.language,
                                                          str(t.datatype or ""))
        mine = sorted(tuple(map(canon, t)) for t in graph)          # a set: no repeats

    def canon_ox(t):
        if isinstance(t, wikidata_rdf.ox.BlankNode):
            return "_"
        if isinstance(t, wikidata_rdf.ox.NamedNode):
            return t.value
        datatype = t.datatype.value if t.datatype and t.language is None else ""
        return (t.value, t.language, "" if datatype.endswith("#string") else datatype)
    theirs = sorted({tuple(map(canon_ox, t)) for t in wikidata_rdf.entity_triples(record)})
    assert mine == theirs
    wdt = {(p.rsplit("/", 1)[1], o) for _, p, o in mine if "/direct/" in p}
    assert not any(p == "P17" for p, _ in wdt)                 # all deprecated: no triple
    assert {o for p, o in wdt if p == "P36"} == {WD + "Q64"}


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


def _load_interrupted(monkeypatch, mirror, src, *, on_write: int, parallel: bool) -> dict:
    """Load ``src`` with the ``on_write``-th batch write (in each process) raising
    KeyboardInterrupt, as if the user pressed Ctrl-C mid-load; return the mirror's stats
    after it. Later loads write normally."""
    write, calls = ingest.write_batch, {"n": 0}

    def interrupted(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == on_write:
            raise KeyboardInterrupt
        return write(*args, **kwargs)
    monkeypatch.setattr(ingest, "write_batch", interrupted)
    try:
        with pytest.raises(KeyboardInterrupt):
            load(mirror, src, parallel=parallel)
    finally:
        monkeypatch.setattr(ingest, "write_batch", write)
    return mirror.stats()


def _sigterm_interrupts(signum, frame):
    raise KeyboardInterrupt


def _parser_sigterm(out) -> None:
    ingest._end_with_parent(os.getppid())
    out.put(signal.getsignal(signal.SIGTERM) == signal.SIG_DFL)


def test_a_parser_process_ends_on_sigterm_whatever_the_loader_installed():
    """Parser processes inherit the loader's signal handlers through fork. One that turns
    SIGTERM into KeyboardInterrupt (``kgground serve`` left such a handler in the test
    process) kept a terminated parser alive, blocked handing that exception to a loader
    no longer reading: the loader hung in ``join`` (seen in CI). A parser process takes
    the default action back."""
    import multiprocessing as mp

    previous = signal.signal(signal.SIGTERM, _sigterm_interrupts)
    try:
        ctx = mp.get_context("fork")
        out = ctx.Queue()
        proc = ctx.Process(target=_parser_sigterm, args=(out,))
        proc.start()
        assert out.get(timeout=30) is True
        proc.join(30)
    finally:
        signal.signal(signal.SIGTERM, previous)


@pytest.mark.parametrize("parallel", [False, True])
def test_interrupted_load_resumes_to_the_same_result(tmp_path, monkeypatch, parallel):
    lines = ["not a triple ."]            # reported by the first attempt, not by the resume
    lines += [f'<{WD}Q{i}> <{LABEL}> "entity {i}"@en .' for i in range(1, 10001)]
    lines += [f'<{WD}Q{i}> <{WDT}P31> <{WD}Q5> .' for i in range(1, 10001)]
    src = write(tmp_path / "big.nt.gz", nt(*lines), gz=True)
    monkeypatch.setattr("store.batches.BATCH_ROWS", 1000)
    db = tmp_path / "m.sqlite"
    with Mirror(db, create=True) as m:
        partial = _load_interrupted(monkeypatch, m, src, on_write=3, parallel=parallel)
        assert 0 < partial["terms"] + partial["statements"] < 20000    # two batches are in
        (source,) = partial["sources"]
        assert source["status"] == "loading" and 1 < source["position"] < 20001
        resumed = load(m, src, parallel=parallel)
    assert resumed.status == "resumed"
    # the resume starts after the committed lines: it does not meet the bad first line
    # again (no sample of it), and reports the whole file's counts (issue 32), the bad
    # line counted by the first attempt included
    assert resumed.errors == 1 and resumed.error_samples == []
    assert resumed.terms + resumed.statements == 20000
    assert resumed.records == 20001
    assert counts(db)["terms"] == 10000 and counts(db)["statements"] == 10000
    base = MirrorKB(db)
    assert base.search("entity 9999")[0].id == "Q9999"


def _committed_position(db: Path, proc: subprocess.Popen, timeout: float = 60.0) -> int:
    """Poll the mirror ``proc`` is loading until a batch is committed (the source's
    position moved past 0); return that position, or 0 if none came within ``timeout``."""
    import sqlite3
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        with contextlib.suppress(sqlite3.Error):
            with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True,
                                                    timeout=1)) as conn:
                row = conn.execute("SELECT MAX(position) FROM sources").fetchone()
            if row and row[0]:
                return row[0]
        time.sleep(0.05)
    return 0


@pytest.mark.timeout(300)
def test_killed_load_of_the_slice_resumes(tmp_path):
    """A real interruption: the loader process is killed mid-file, then run again."""
    src = shared_file("wikidata/trex-slice.nt.gz")
    db = tmp_path / "killed.sqlite"
    cmd = [sys.executable, "-m", "reasoning", "mirror", "load", str(src), "--db", str(db)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert _committed_position(db, proc) > 0, "the loader committed nothing"
    parser = _children(proc.pid) if HAS_PROC_CHILDREN else set()
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert _all_gone(parser), "the parser process outlived the killed loader"
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


@pytest.fixture(params=["indexed_bzip2", "bz2 module"])
def bz2_decoder(request, monkeypatch):
    """Both .bz2 decoders: indexed_bzip2's threads, and the standard library without it."""
    if request.param == "bz2 module":
        monkeypatch.setattr("store.batches.indexed_bzip2", None)
    return request.param


def test_multistream_bz2_loads_like_the_plain_file(tmp_path, bz2_decoder):
    import bz2
    plain = shared_file("wikidata/dump-sample-100.json.bz2")
    text = bz2.decompress(plain.read_bytes())
    half = text.index(b"\n", len(text) // 2) + 1
    two = tmp_path / "two-streams.json.bz2"          # as parallel compressors write them
    two.write_bytes(bz2.compress(text[:half]) + bz2.compress(text[half:]))
    with Mirror(tmp_path / "m.sqlite", create=True) as m:
        report = load(m, two, parallel=False)
    assert (report.entities, report.statements, report.qualifiers, report.references) == (
        100, 12_599, 6_948, 5_708)


@pytest.mark.parametrize("compression", ["gzip", "bz2, indexed_bzip2", "bz2, bz2 module"])
def test_truncated_file_keeps_what_was_read(tmp_path, monkeypatch, compression):
    import bz2
    # 7 MB of N-Triples: several bz2 blocks (900 kB each), and more than indexed_bzip2
    # hands over at once (4 MiB), so that some is readable before the cut
    lines = [f'<{WD}Q{i}> <{LABEL}> "entity {i} {i * 7919 % 10007}"@en .'
             for i in range(1, 120_001)]
    text = nt(*lines).encode()
    data = gzip.compress(text) if compression == "gzip" else bz2.compress(text)
    if compression == "bz2, bz2 module":
        monkeypatch.setattr("store.batches.indexed_bzip2", None)
    cut = tmp_path / ("cut.nt.gz" if compression == "gzip" else "cut.nt.bz2")
    cut.write_bytes(data[: len(data) * 4 // 5])
    monkeypatch.setattr("store.batches.BATCH_ROWS", 2000)
    db = tmp_path / "m.sqlite"
    with Mirror(db, create=True) as m:
        with pytest.raises(LoadError, match="truncated"):
            load(m, cut, parallel=False)
    assert 0 < counts(db)["terms"] < 120_000
    assert MirrorKB(db).search("entity 1 7919")[0].id == "Q1"      # the mirror is usable


def test_parser_processes_only_with_cores_to_spare(tmp_path, monkeypatch):
    import bz2
    from store.ingest import PARALLEL_BYTES, parses_in_processes
    big = tmp_path / "big.json"
    big.write_bytes(b"x" * PARALLEL_BYTES)
    big_bz2 = tmp_path / "big.json.bz2"
    big_bz2.write_bytes(bz2.compress(os.urandom(PARALLEL_BYTES)))   # stays big compressed
    small = write(tmp_path / "small.nt", SMALL_NT)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert parses_in_processes(big) and not parses_in_processes(small)
    assert not parses_in_processes(big_bz2)      # its decompression threads take a core
    monkeypatch.setattr(os, "cpu_count", lambda: 4)
    assert parses_in_processes(big_bz2)
    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    assert not parses_in_processes(big)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr("store.batches.indexed_bzip2", None)      # the bz2 module: one thread
    assert parses_in_processes(big_bz2)


def test_progress_reaches_the_end_of_a_bz2_file(tmp_path, bz2_decoder):
    from store.batches import open_input
    sample = shared_file("wikidata/dump-sample-100.json.bz2")
    stream, raw = open_input(sample)
    seen = []
    with raw:
        while stream.read(1 << 20):
            seen.append(raw.tell())
        assert raw.tell() == sample.stat().st_size
    assert seen == sorted(seen) and 0 < seen[0] < sample.stat().st_size


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


# -- JSON dumps: chunks, worker pool, resumption ---------------------------------------------

def _json_entity(i: int, *, broken: bool = False) -> dict:
    """An item with labels in two languages, an alias, and two statements, one with a
    qualifier and a reference that recurs on other items (as real references do)."""
    def item(qid: str) -> dict:
        return {"type": "wikibase-entityid", "value": {"entity-type": "item", "id": qid}}

    ref = {"hash": f"r{i % 3}", "snaks": {"P248": [{"snaktype": "value", "property": "P248",
                                                     "datavalue": item(f"Q{i % 3 + 1}")}]},
           "snaks-order": ["P248"]}
    claims = {
        "P31": [{"mainsnak": {"snaktype": "value", "property": "P31", "datavalue": item("Q5")},
                 "type": "statement", "id": f"Q{i}$a", "rank": "normal",
                 "qualifiers": {"P580": [{"snaktype": "value", "property": "P580", "datavalue": {
                     "type": "time", "value": {"time": "+1990-00-00T00:00:00Z", "precision": 9,
                                               "timezone": 0, "before": 0, "after": 0,
                                               "calendarmodel": f"{WD}Q1985727"}}}]},
                 "references": [ref]}],
        "P1082": [{"mainsnak": {"snaktype": "value", "property": "P1082", "datavalue": {
            "type": "quantity", "value": {"amount": f"+{i}", "unit": "1"}}},
            "type": "statement", "id": f"Q{i}$b", "rank": "preferred"}],
    }
    if broken:      # a claim without its main snak, after a good one
        claims["P1082"].append({"type": "statement", "id": f"Q{i}$c", "rank": "normal"})
    return {"type": "item", "id": f"Q{i}", "labels": {
        "en": {"language": "en", "value": f"thing {i}"},
        "de": {"language": "de", "value": f"Ding {i}"}},
        "aliases": {"en": [{"language": "en", "value": f"item number {i}"}]},
        "claims": claims, "sitelinks": {}}


def _json_dump(path, n: int, *, broken: set[int] = frozenset(), newline: str = "\n"):
    lines = [json.dumps(_json_entity(i, broken=i in broken)) for i in range(1, n + 1)]
    path.write_bytes(("[" + newline + ("," + newline).join(lines) + newline + "]"
                      + newline).encode())
    return path


def _rows(db) -> list[tuple]:
    import sqlite3
    with sqlite3.connect(db) as conn:
        out = []
        for table in ("entities", "terms", "statements", "qualifiers", "statement_references",
                      "reference_snaks"):
            out += [(table,) + row for row in conn.execute(f"SELECT * FROM {table} ORDER BY 1, 2")]
        out += conn.execute("SELECT rowid FROM terms_fts WHERE terms_fts MATCH 'thing' "
                            "ORDER BY 1").fetchall()
    return [tuple(v for v in row if not (isinstance(v, str) and "T" in v and ":" in v
                                          and v[:2] == "20")) for row in out]


@pytest.fixture
def small_chunks(monkeypatch):
    """JSON chunks of a few entities, so that small files make many chunks and batches."""
    monkeypatch.setattr("store.batches.CHUNK_BYTES", 3000)


def test_json_chunks_hold_whole_lines_and_skip_committed_ones(tmp_path, small_chunks):
    from store.batches import Job, json_chunks
    for newline in ("\n", "\r\n"):
        src = _json_dump(tmp_path / "d.json", 60, newline=newline)
        lines = src.read_bytes().split(b"\n")
        for skip in (0, 1, 2, 7, 30, 61, 62, 70):
            chunks = list(json_chunks(Job(path=src, format="wikidata-json", source_id=1,
                                          filters=Filters(), skip=skip)))
            assert len(chunks) > 3 or skip > 50
            got, expected_first = [], max(skip, 1) + 1
            for chunk in chunks:
                assert chunk.first_line == expected_first
                assert chunk.in_file and chunk.detached().lines(src) == chunk.data
                piece = chunk.data.split(b"\n")
                if chunk.data.endswith(b"\n"):
                    piece.pop()
                got += piece
                expected_first += len(piece)
            assert got == lines[max(skip, 1):len(lines) - 1]


def test_json_dump_without_final_newline(tmp_path):
    src = _json_dump(tmp_path / "d.json", 3)
    src.write_bytes(src.read_bytes().rstrip(b"\n"))
    with Mirror(tmp_path / "m.sqlite", create=True) as m:
        report = load(m, src)
    assert report.entities == 3 and report.errors == 0 and report.records == 3


@pytest.mark.parametrize("parallel", [False, True])
def test_json_load_in_chunks_is_exact(tmp_path, small_chunks, parallel):
    src = _json_dump(tmp_path / "d.json", 120)
    db = tmp_path / "m.sqlite"
    with Mirror(db, create=True) as m:
        report = load(m, src, parallel=parallel)
    assert (report.entities, report.statements, report.qualifiers, report.references,
            report.terms, report.records) == (120, 240, 120, 120, 360, 120)
    base = MirrorKB(db)
    (inst,) = base.statements("Q77", "P31")
    assert inst.id == "Q77$a" and inst.value.value == "Q5"
    assert [(q.property, q.value.value, q.value.details["precision"])
            for q in inst.qualifiers] == [("P580", "1990-01-01T00:00:00Z", 9)]
    assert [r.snaks[0].value.value for r in inst.references] == ["Q3"]       # 77 % 3 + 1
    assert base.search("thing 77")[0].id == "Q77"
    assert base.search("item number 120")[0].id == "Q120"


def test_json_serial_and_parallel_loads_agree(tmp_path, small_chunks):
    src = _json_dump(tmp_path / "d.json", 90, broken={10, 45})
    results = []
    for parallel in (False, True):
        db = tmp_path / f"m{parallel}.sqlite"
        with Mirror(db, create=True) as m:
            report = load(m, src, parallel=parallel)
            load(m, shared_file("wikidata/entity-Q42.json"), parallel=parallel)
        results.append((report.errors, report.entities, _rows(db)))
    assert results[0] == results[1]
    assert results[0][:2] == (2, 88)


def test_a_malformed_entity_leaves_no_rows(tmp_path):
    src = _json_dump(tmp_path / "d.json", 3, broken={2})
    db = tmp_path / "m.sqlite"
    with Mirror(db, create=True) as m:
        report = load(m, src)
    assert report.errors == 1 and "entity Q2: malformed record" in report.error_samples[0]
    with Mirror(db) as m:
        assert m.query("SELECT DISTINCT subject FROM statements ORDER BY 1") == [("Q1",),
                                                                                  ("Q3",)]
        assert m.query("SELECT COUNT(*) FROM terms WHERE entity = 'Q2'") == [(0,)]
        assert m.query("SELECT COUNT(*) FROM qualifiers") == [(2,)]


def test_a_reference_is_stored_once_however_many_statements_cite_it(tmp_path):
    src = _json_dump(tmp_path / "d.json", 30)
    db = tmp_path / "m.sqlite"
    with Mirror(db, create=True) as m:
        report = load(m, src)
        assert report.references == 30
        assert m.query("SELECT hash FROM reference_snaks ORDER BY 1") == [("r0",), ("r1",),
                                                                            ("r2",)]
    cited = [MirrorKB(db).statements(f"Q{i}", "P31")[0].references[0] for i in (3, 4, 29)]
    assert [(r.hash, r.snaks[0].value.value) for r in cited] == [("r0", "Q1"), ("r1", "Q2"),
                                                                 ("r2", "Q3")]


def test_a_malformed_entity_does_not_take_a_shared_reference_with_it(tmp_path):
    """Q2 is the first to cite reference r2 and is rejected after its P31 statement was
    read: Q5, citing r2 too, must still find r2's snaks."""
    src = _json_dump(tmp_path / "d.json", 6, broken={2})
    db = tmp_path / "m.sqlite"
    with Mirror(db, create=True) as m:
        assert load(m, src).errors == 1
    (st,) = MirrorKB(db).statements("Q5", "P31")
    assert [(r.hash, r.snaks[0].value.value) for r in st.references] == [("r2", "Q3")]


def test_a_reference_without_a_hash_is_keyed_by_its_snaks(tmp_path):
    entity = _json_entity(1)
    del entity["claims"]["P31"][0]["references"][0]["hash"]
    src = tmp_path / "q1.json"
    src.write_text(json.dumps(entity))
    db = tmp_path / "m.sqlite"
    with Mirror(db, create=True) as m:
        load(m, src)
    (ref,) = MirrorKB(db).statements("Q1", "P31")[0].references
    assert len(ref.hash) == 40 and ref.snaks[0].value.value == "Q2"


@pytest.mark.parametrize("parallel", [False, True])
def test_interrupted_json_load_resumes_to_the_same_result(tmp_path, monkeypatch, small_chunks,
                                                          parallel):
    src = _json_dump(tmp_path / "d.json", 150)
    clean = tmp_path / "clean.sqlite"
    with Mirror(clean, create=True) as m:
        load(m, src, parallel=False)
    db = tmp_path / "m.sqlite"
    with Mirror(db, create=True) as m:
        partial = _load_interrupted(monkeypatch, m, src, on_write=5, parallel=parallel)
        assert 0 < partial["statements"] < 300 and partial["sources"][0]["status"] == "loading"
        assert MirrorKB(db).search("thing 1")[0].id == "Q1"   # the label index is in step
        resumed = load(m, src, parallel=parallel)
    assert resumed.status == "resumed"
    assert _rows(db) == _rows(clean)


def test_the_worker_pool_reads_a_bounded_number_of_chunks_ahead(tmp_path, monkeypatch,
                                                                small_chunks):
    import store.batches as batches
    from store.batches import Job
    src = _json_dump(tmp_path / "d.json", 400)
    read = {"n": 0}
    real_chunks = batches.json_chunks

    def counted(job):
        for chunk in real_chunks(job):
            read["n"] += 1
            yield chunk

    monkeypatch.setattr(ingest, "json_chunks", counted)
    job = Job(path=src, format="wikidata-json", source_id=1, filters=Filters(), bulk=True)
    mirror = Mirror(tmp_path / "m.sqlite", create=True)
    stream = ingest._parallel_batches(job, mirror.url)
    first = next(stream)
    time.sleep(0.5)                   # the feeder would read the whole file by now
    ahead = read["n"]
    stream.close()                    # ends the pool, also with chunks in flight
    mirror.close()
    assert first.position > 1
    # the bound the docstring promises, whatever the cores: 2-4 workers with 2 chunks each
    # read ahead, the first chunk, and one in the reader's hand
    assert ahead <= 2 * 4 + 2
    assert len(list(real_chunks(job))) > 40


def test_strict_json_load_in_parallel_stops_at_the_first_error(tmp_path, small_chunks):
    src = _json_dump(tmp_path / "d.json", 200, broken={150})
    db = tmp_path / "m.sqlite"
    started = time.perf_counter()
    with Mirror(db, create=True) as m:
        with pytest.raises(LoadError, match="entity Q150: malformed record"):
            load(m, src, strict=True, parallel=True)
    assert time.perf_counter() - started < 30
    assert counts(db)["entities"] == 149


def _die_on_a_late_chunk(job, chunk):
    if chunk.first_line > 100:
        os._exit(3)                   # as if the kernel killed the worker
    from store.batches import parse_json_chunk
    return parse_json_chunk(job, chunk)


def test_a_dead_parser_process_fails_the_load_instead_of_hanging(tmp_path, monkeypatch,
                                                                 small_chunks):
    src = _json_dump(tmp_path / "d.json", 200)
    monkeypatch.setattr(ingest, "parse_json_chunk", _die_on_a_late_chunk)
    db = tmp_path / "m.sqlite"
    with Mirror(db, create=True) as m:
        with pytest.raises(LoadError, match="a parser process died"):
            load(m, src, parallel=True)
        position = m.sources()[0]["position"]
        assert 0 < position < 150 and m.sources()[0]["status"] == "loading"
        monkeypatch.undo()
        assert load(m, src, parallel=True).status == "resumed"
    assert counts(db)["entities"] == 200 and counts(db)["statements"] == 400


#: Linux lists a process's children under /proc (CONFIG_PROC_CHILDREN)
HAS_PROC_CHILDREN = Path(f"/proc/self/task/{os.getpid()}/children").exists()


def _children(pid: int) -> set[int]:
    found = set()
    for task in (Path("/proc") / str(pid) / "task").glob("*"):
        with contextlib.suppress(OSError):
            found |= {int(c) for c in (task / "children").read_text().split()}
    return found


def _gone(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().split(") ")[1][0] in "ZX"
    except OSError:
        return True


def _all_gone(pids: set[int], timeout: float = 10.0) -> bool:
    """Whether every process of ``pids`` has ended, waiting up to ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not all(map(_gone, pids)) and time.monotonic() < deadline:
        time.sleep(0.1)
    return all(map(_gone, pids))


_SLOW_JSON_LOAD = """
import sys, time
import store.batches as batches, store.ingest as ingest
from store.mirror import Mirror
real = batches.parse_json_chunk
def slow(job, chunk):
    time.sleep(0.2)
    return real(job, chunk)
ingest.parse_json_chunk = slow
batches.CHUNK_BYTES = 4000
with Mirror(sys.argv[2], create=True) as m:
    ingest.load(m, sys.argv[1], parallel=True)
"""


@pytest.mark.skipif(not HAS_PROC_CHILDREN, reason="needs /proc/PID/task/TID/children (Linux)")
def test_parser_processes_end_when_the_loader_is_killed(tmp_path):
    src = _json_dump(tmp_path / "d.json", 400)
    proc = subprocess.Popen([sys.executable, "-c", _SLOW_JSON_LOAD, str(src),
                             str(tmp_path / "m.sqlite")])
    try:
        deadline = time.monotonic() + 20
        while len(_children(proc.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        workers = _children(proc.pid)
        assert len(workers) >= 2, "the load should have started its parser processes"
        time.sleep(0.5)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert _all_gone(workers), "orphaned parser processes"
