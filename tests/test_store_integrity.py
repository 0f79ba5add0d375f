"""The mirror under faults and hostile input: the label index after every kind of write,
one load at a time, files with nothing valid, records that must be skipped, IRIs that
must be refused, a full disk and a read-only file system (real tmpfs mounts where this
process may mount, as root does in CI).
"""

from __future__ import annotations

import bz2
import contextlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import store.ingest as ingest
from kb.mirror import MirrorKB
from store.errors import LoadError, MirrorError
from store.ingest import load
from store.locks import holder
from store.mirror import Mirror
from store.validity import iri_problem
from store.vocab import LABEL, DESCRIPTION
from store.writeback import write_back
from store.writer import label_index_problem
from tests.conftest import shared_file

WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
CLI = [sys.executable, "-m", "reasoning"]


def nt_file(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def index_ok(db: Path) -> None:
    """The label index matches the labels (FTS5's own check), and word search works."""
    with Mirror(db) as m:
        assert label_index_problem(m) is None


def word_search(db: Path, text: str) -> list[str]:
    kb = MirrorKB(db)
    try:
        return [c.id for c in kb.search(text)]
    finally:
        kb.close()


# -- 1. the label index after every kind of write ----------------------------------------------

def test_reloading_an_entity_keeps_word_search(tmp_path):
    q42 = shared_file("wikidata/entity-Q42.json")
    db = tmp_path / "m.sqlite"
    with Mirror(db, create=True) as m:
        load(m, q42)
    index_ok(db)
    assert word_search(db, "Adams Douglas Noel") == ["Q42"]
    with Mirror(db) as m:
        assert load(m, q42, force=True).status == "loaded"      # the record replaces itself
    index_ok(db)
    assert word_search(db, "Adams Douglas Noel") == ["Q42"]
    result = subprocess.run(CLI + ["mirror", "check", "--db", str(db)], capture_output=True,
                            text=True)
    assert result.returncode == 0 and "ok" in result.stdout


def test_an_updated_record_in_a_copy_of_a_mirror_keeps_word_search(tmp_path,
                                                                   dump_mirror_path):
    db = tmp_path / "copy.sqlite"
    shutil.copy(dump_mirror_path, db)
    with Mirror(db) as m:
        (eid, text), = m.query("SELECT entity, text FROM terms WHERE kind = 0 AND lang = 'en' "
                               "ORDER BY id DESC LIMIT 1")
    record = {"id": eid, "type": "item",
              "labels": {"en": {"language": "en", "value": "Zebulon Quartermain"}},
              "aliases": {"en": [{"language": "en", "value": text}]}}
    updated = tmp_path / "updated.json"
    updated.write_text(json.dumps(record))
    with Mirror(db) as m:
        load(m, updated)
    index_ok(db)
    assert word_search(db, "Quartermain Zebulon") == [eid]


def test_the_label_index_after_a_fresh_load_a_resume_and_a_live_write_back(tmp_path,
                                                                          monkeypatch):
    lines = [f'<{WD}Q{i}> <{RDFS_LABEL}> "entity number {i}"@en .' for i in range(1, 10001)]
    lines += [f"<{WD}Q{i}> <{WDT}P31> <{WD}Q5> ." for i in range(1, 10001)]
    src = nt_file(tmp_path / "big.nt", lines)
    monkeypatch.setattr("store.batches.BATCH_ROWS", 1000)
    db = tmp_path / "m.sqlite"
    write, calls = ingest.write_batch, {"n": 0}

    def interrupted(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return write(*args, **kwargs)

    with Mirror(db, create=True) as m:
        monkeypatch.setattr(ingest, "write_batch", interrupted)
        with pytest.raises(KeyboardInterrupt):
            load(m, src, parallel=False)
        monkeypatch.setattr(ingest, "write_batch", write)
    index_ok(db)                                     # after an interrupted fresh load
    with Mirror(db) as m:
        assert load(m, src, parallel=False).status == "resumed"
    index_ok(db)
    assert word_search(db, "number 9999 entity") == ["Q9999"]

    with Mirror(db) as m:                           # a live answer written back
        write_back(m, endpoint="http://127.0.0.1:1/sparql", retrieved_at="2025-01-01T00:00:00",
                   key="test", terms=[("Q20001", LABEL, "en", "Nonesuch Island"),
                                      ("Q20001", DESCRIPTION, "en", "an island")])
    index_ok(db)
    assert word_search(db, "Island Nonesuch") == ["Q20001"]


# -- 2. one load per mirror at a time ----------------------------------------------------------

def test_a_second_load_is_refused_while_the_first_writes_and_readers_keep_working(tmp_path):
    db = tmp_path / "m.sqlite"
    small = nt_file(tmp_path / "small.nt", [f'<{WD}Q42> <{RDFS_LABEL}> "Douglas Adams"@en .',
                                           f"<{WD}Q42> <{WDT}P31> <{WD}Q5> ."])
    with Mirror(db, create=True) as m:
        load(m, small)
    big = nt_file(tmp_path / "big.nt", [f"<{WD}Q{i}> <{WDT}P{1 + i % 50}> <{WD}Q{i + 7}> ."
                                        for i in range(1, 400_001)])
    first = subprocess.Popen(CLI + ["mirror", "load", str(big), "--db", str(db)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        with Mirror(db) as m:
            deadline = time.monotonic() + 60
            while holder(m) is None and first.poll() is None and time.monotonic() < deadline:
                time.sleep(0.02)
            assert holder(m) == first.pid, "the first load should be writing by now"
        second = subprocess.run(CLI + ["mirror", "load", str(big), "--db", str(db)],
                                capture_output=True, text=True, timeout=60)
        assert second.returncode == 1
        assert f"another load (pid {first.pid}) is writing" in second.stderr
        kb = MirrorKB(db)                             # readers keep working meanwhile
        assert kb.entity("Q42").label() == "Douglas Adams"
        assert kb.search("Douglas Adams")[0].id == "Q42"
        kb.close()
        with Mirror(db) as m:
            assert holder(m) == first.pid, "the first load should still be running"
    finally:
        _, err = first.communicate(timeout=300)
    assert first.returncode == 0, err
    with Mirror(db) as m:
        assert holder(m) is None
        (source,) = [s for s in m.sources() if s["location"].endswith("big.nt")]
        assert source["status"] == "complete" and source["position"] == 400_000
        assert m.query("SELECT COUNT(*) FROM statements")[0][0] == 400_001
    index_ok(db)


def test_a_killed_load_leaves_no_lock_behind(tmp_path):
    db = tmp_path / "m.sqlite"
    big = nt_file(tmp_path / "big.nt", [f'<{WD}Q{i}> <{RDFS_LABEL}> "n {i}"@en .'
                                        for i in range(1, 300_001)])
    proc = subprocess.Popen(CLI + ["mirror", "load", str(big), "--db", str(db)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if Path(f"{db}.lock").exists() and db.exists():
            with Mirror(db) as m:
                if holder(m) == proc.pid:
                    break
        time.sleep(0.02)
    proc.kill()
    proc.wait()
    time.sleep(1.0)                 # forked parser processes notice within half a second
    done = subprocess.run(CLI + ["mirror", "load", str(big), "--db", str(db), "--json"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["loads"][0]["status"] in ("resumed", "loaded")
    index_ok(db)


# -- 3. a file with no valid record ------------------------------------------------------------

def _garbage_files(tmp: Path) -> list[Path]:
    rand = tmp / "random.json"
    rand.write_bytes(os.urandom(4096))
    fake_bz2 = tmp / "dump.json.bz2"
    fake_bz2.write_bytes(b"BZh9" + os.urandom(4096))
    damaged = tmp / "damaged.nt.bz2"
    data = bz2.compress(b"".join(f"<{WD}Q{i}> <{WDT}P31> <{WD}Q5> .\n".encode()
                                 for i in range(2000)))
    damaged.write_bytes(data[:30] + bytes(400) + data[430:])
    allbad = nt_file(tmp / "allbad.nt", ["not a triple", f"<{WD}Q1> <{WDT}P31>",
                                         "<relative> <p> <o> ."])
    empty = tmp / "empty.nt"
    empty.write_text("")
    return [rand, fake_bz2, damaged, allbad, empty]


def test_a_file_with_no_valid_record_is_an_error(tmp_path):
    db = tmp_path / "m.sqlite"
    for path in _garbage_files(tmp_path):
        with Mirror(db, create=True) as m, pytest.raises(LoadError) as err:
            load(m, path)
        assert str(path) in str(err.value)
        with Mirror(db) as m:
            assert not [s for s in m.sources() if s["status"] == "complete"], path
        result = subprocess.run(CLI + ["mirror", "load", str(path), "--db", str(db)],
                                capture_output=True, text=True)
        assert result.returncode == 1 and "Error:" in result.stderr, path


# -- 4. one bad record is skipped, with file:line ------------------------------------------

def test_a_lone_surrogate_escape_skips_its_line_only(tmp_path):
    src = nt_file(tmp_path / "s.nt", [f'<{WD}Q1> <{RDFS_LABEL}> "one"@en .',
                                      f'<{WD}Q2> <{RDFS_LABEL}> "x\\uD800y"@en .',
                                      f'<{WD}Q3> <{RDFS_LABEL}> "three \\U0001F600"@en .'])
    db = tmp_path / "m.sqlite"
    with Mirror(db, create=True) as m:
        report = load(m, src)
    assert report.errors == 1 and report.error_samples[0].startswith(f"{src}:2: ")
    assert "surrogate" in report.error_samples[0]
    assert MirrorKB(db).entity("Q3").label() == "three \U0001F600"


def test_json_nested_100000_deep_skips_its_record_only(tmp_path):
    deep = b'{"id":"Q2","claims":' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    src = tmp_path / "deep.json"
    src.write_bytes(b"[\n" + deep + b",\n"
                    + json.dumps({"id": "Q3", "labels": {"en": {"language": "en",
                                                                "value": "three"}}}).encode()
                    + b"\n]\n")
    db = tmp_path / "m.sqlite"
    with Mirror(db, create=True) as m:
        report = load(m, src)
    assert report.errors == 1 and report.error_samples[0].startswith(f"{src}:2: ")
    assert "nested too deeply" in report.error_samples[0]
    assert MirrorKB(db).entity("Q3").label() == "three"


# -- 5. invalid IRIs are refused ---------------------------------------------------------------

def _stored_iris(db: Path) -> list[str]:
    with Mirror(db) as m:
        rows = m.query("SELECT subject FROM statements UNION SELECT property FROM statements "
                       "UNION SELECT value FROM statements WHERE value_kind IN ('iri', "
                       "'entity') UNION SELECT datatype FROM statements WHERE datatype != '' "
                       "UNION SELECT id FROM entities")
    return [r[0] for r in rows]


def test_invalid_iris_are_refused_with_file_and_line(tmp_path):
    src = nt_file(tmp_path / "iris.nt", [
        f"<{WD}Q1> <{WDT}P31> <{WD}Q5> .",
        '<http://x/\\u003E\\u0020"y> <http://x/p> <http://x/o> .',   # > and " once unescaped
        "<http://x/a{b}> <http://x/p> <http://x/o> .",                # { } are not in IRIs
        "<relative> <http://x/p> <http://x/o> .",                      # not absolute
        '<http://x/s> <http://x/p> "v"^^<http://x/\\u0020t> .',         # a bad datatype
        "<http://x/s> <http://x/p> <http://x/\\u0041> .",              # fine: \u0041 is A
    ])
    db = tmp_path / "m.sqlite"
    with Mirror(db, create=True) as m:
        report = load(m, src)
    assert report.errors == 4
    assert [s.split(": ")[0] for s in report.error_samples] == [f"{src}:{n}" for n in (2, 3, 4,
                                                                                         5)]
    iris = _stored_iris(db)
    assert "http://x/A" in iris
    assert [i for i in iris if i[:1] not in "QPL" and iri_problem(i)] == []


def test_turtle_with_an_invalid_iri_is_refused(tmp_path):
    src = tmp_path / "kb.ttl"
    src.write_text('@prefix ex: <http://example.org/> .\n'
                   'ex:a ex:p <http://example.org/b c> .\n'
                   'ex:a ex:p ex:good .\n', encoding="utf-8")
    db = tmp_path / "m.sqlite"
    with Mirror(db, create=True) as m:
        report = load(m, src)
    assert report.errors == 1 and "cannot contain" in report.error_samples[0]
    assert [i for i in _stored_iris(db) if iri_problem(i)] == []


def test_a_json_url_that_is_not_an_iri_is_kept_as_text(tmp_path):
    record = {"id": "Q7", "claims": {"P856": [{
        "mainsnak": {"snaktype": "value", "property": "P856", "datatype": "url",
                     "datavalue": {"type": "string", "value": 'http://x/> "y'}},
        "type": "statement", "rank": "normal", "id": "Q7$1"}]}}
    src = tmp_path / "q7.json"
    src.write_text(json.dumps(record))
    db = tmp_path / "m.sqlite"
    with Mirror(db, create=True) as m:
        load(m, src)
    (s,) = MirrorKB(db).statements("Q7", "P856")
    assert s.value.kind == "literal" and s.value.value == 'http://x/> "y'


# -- 6. a full disk, 7. a read-only mirror ---------------------------------------------------

@contextlib.contextmanager
def tmpfs(path: Path, size: str):
    """A real tmpfs of ``size`` at ``path``, or a skip where this process may not mount."""
    path.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip() or 'not root'})")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def test_a_full_disk_is_a_clear_error_and_the_load_resumes_with_space(tmp_path):
    lines = [f'<{WD}Q{i}> <{RDFS_LABEL}> "label number {i} of a long list"@en .'
             for i in range(1, 200_001)]
    src = nt_file(tmp_path / "big.nt", lines)
    with tmpfs(tmp_path / "disk", "6m") as disk:
        db = disk / "m.sqlite"
        result = subprocess.run(CLI + ["mirror", "load", str(src), "--db", str(db)],
                                capture_output=True, text=True, timeout=300)
        assert result.returncode == 1
        assert "is full" in result.stderr and "Traceback" not in result.stderr
        assert "run the same command again" in result.stderr
        subprocess.run(["mount", "-o", "remount,size=200m", str(disk)], check=True)
        done = subprocess.run(CLI + ["mirror", "load", str(src), "--db", str(db), "--json"],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        with Mirror(db) as m:
            assert m.query("SELECT COUNT(*) FROM terms")[0][0] == 200_000
        index_ok(db)


def _read_only(folder: Path) -> Any:
    """Make ``folder`` read-only: a read-only remount where this process may mount (root
    ignores file modes), else file modes."""
    if os.geteuid() != 0:
        for path in folder.iterdir():
            path.chmod(0o444)
        folder.chmod(0o555)
        return
    subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True)


def test_a_read_only_mirror_opens_read_only(tmp_path):
    q42 = shared_file("wikidata/entity-Q42.json")
    with tmpfs(tmp_path / "ro", "50m") as folder:
        db = folder / "m.sqlite"
        with Mirror(db, create=True) as m:
            load(m, q42)
        Path(f"{db}.lock").unlink()
        _read_only(folder)
        for args in (["entity", "Q42"], ["search", "Douglas Adams"],
                     ["triples", "-s", "Q42", "-p", "P69"],
                     ["sparql", "SELECT ?o WHERE { wd:Q42 wdt:P69 ?o }"],
                     ["mirror", "stats"]):
            result = subprocess.run(CLI + args + ["--db", str(db)], capture_output=True,
                                    text=True, timeout=120)
            assert result.returncode == 0, (args, result.stderr)
            assert "readonly" not in result.stderr
        assert sorted(os.listdir(folder)) == ["m.sqlite"]      # nothing was written
        m = Mirror(db)
        assert m.read_only
        with pytest.raises(MirrorError, match="can be read, not written"):
            load(m, q42, force=True)
        m.close()
