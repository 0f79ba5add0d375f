"""The kgground command line, run as a user would: real mirrors, real files."""

from __future__ import annotations

import json
import subprocess
import sys



WD = "http://www.wikidata.org/entity/"


def test_first_use_builds_the_demo_mirror(run, tmp_path):
    result = run("entity", "Q937")
    assert result.exit_code == 0, result.output
    assert "building the demo KB" in result.output
    assert "Q937  Albert Einstein" in result.output
    assert "P166 (award received): Q38104 (Nobel Prize in Physics)" in result.output
    assert (tmp_path / "cache" / "mirror.sqlite").exists()
    again = run("entity", "Q937")
    assert "building the demo KB" not in again.output


def _set_meta(db, key: str, value: str) -> None:
    import sqlite3
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE meta SET value = ? WHERE key = ?", (value, key))


def test_a_demo_mirror_from_another_version_is_built_again(run, tmp_path):
    default = tmp_path / "cache" / "mirror.sqlite"
    run("entity", "Q937")
    _set_meta(default, "schema_version", "0")
    result = run("entity", "Q937")
    assert result.exit_code == 0, result.output
    assert "built by another kgground version: building it again" in result.stderr
    assert "Albert Einstein" in result.stdout
    assert "another kgground version" not in run("entity", "Q937").stderr


def test_an_old_default_mirror_holding_more_than_the_demo_is_left_alone(run, tmp_path):
    default = tmp_path / "cache" / "mirror.sqlite"
    run("entity", "Q937")
    data = tmp_path / "mine.nt"
    data.write_text(f'<{WD}Q31> <http://www.w3.org/2000/01/rdf-schema#label> "Belgium"@en .\n')
    assert run("mirror", "load", str(data)).exit_code == 0      # into the default mirror
    _set_meta(default, "schema_version", "0")
    result = run("entity", "Q31")
    assert result.exit_code == 1 and "has mirror schema 0" in result.output
    assert "building it again" not in result.output


def test_search_and_triples_json(run):
    first = run("search", "marie curie", "--json")        # builds the demo mirror first
    assert "building the demo KB" in first.stderr       # progress talk goes to stderr
    found = json.loads(first.stdout)
    assert found[0]["id"] == "Q7186" and found[0]["match"] == "label"
    rows = json.loads(run("triples", "--subject", "Q7186", "--property", "P166",
                          "--json").stdout)
    assert {r["value"]["value"] for r in rows} >= {"Q38104", "Q44585"}
    assert all(r["citation"]["source"].startswith("mirror:") for r in rows)
    assert all(r["citation"]["url"].startswith("https://www.wikidata.org/wiki/Q7186#")
               for r in rows)


def test_mirror_load_and_stats(run, tmp_path):
    data = tmp_path / "small.nt"
    data.write_text(f'<{WD}Q31> <http://www.w3.org/2000/01/rdf-schema#label> "Belgium"@en .\n'
                    f'<{WD}Q31> <http://www.wikidata.org/prop/direct/P36> <{WD}Q239> .\n'
                    "broken line\n")
    db = tmp_path / "m.sqlite"
    result = run("mirror", "load", str(data), "--db", str(db))
    assert result.exit_code == 0
    assert "1 statements" in result.output
    assert f"{data}:3:" in result.output           # the malformed line, with its place
    again = run("mirror", "load", str(data), "--db", str(db))
    assert "already loaded" in again.output
    stats = json.loads(run("mirror", "stats", "--db", str(db), "--json").stdout)
    assert stats["statements"] == 1 and stats["terms"] == 1
    assert stats["sources"][0]["status"] == "complete"
    strict = run("mirror", "load", str(data), "--db", str(tmp_path / "n.sqlite"), "--strict")
    assert strict.exit_code == 1 and f"{data}:3:" in strict.output


def test_errors_are_clear_not_tracebacks(run, tmp_path):
    bad_id = run("entity", "q937")
    assert bad_id.exit_code == 1
    assert "Error: 'q937' is not an entity ID" in bad_id.output and "write Q937" in bad_id.output
    missing = run("entity", "Q999999999")
    assert missing.exit_code == 1 and "Q999999999 is not in mirror:" in missing.output
    no_db = run("search", "x", "--db", str(tmp_path / "absent.sqlite"))
    assert no_db.exit_code == 1 and "kgground mirror load" in no_db.output
    unbound = run("triples")
    assert unbound.exit_code == 2 and "bind at least one" in unbound.output
    no_file = run("mirror", "load", str(tmp_path / "nope.nt"), "--db", str(tmp_path / "x.db"))
    assert no_file.exit_code == 1 and "no such file" in no_file.output
    bad_prop = run("mirror", "load", str(tmp_path), "--properties", "P31,x")
    assert bad_prop.exit_code != 0


def test_every_command_has_help(run):
    for args in (["--help"], ["mirror", "--help"], ["mirror", "load", "--help"],
                 ["mirror", "stats", "--help"], ["mirror", "reindex", "--help"],
                 ["entity", "--help"], ["search", "--help"], ["sparql", "--help"],
                 ["serve", "--help"], ["link", "--help"],
                 ["triples", "--help"]):
        result = run(*args)
        assert result.exit_code == 0 and len(result.output) > 100, args


def test_console_script_runs(tmp_path, demo_mirror_path):
    out = subprocess.run([sys.executable, "-m", "reasoning", "triples", "-s", "Q7186",
                          "-p", "P19", "--db", str(demo_mirror_path)],
                         capture_output=True, text=True, check=True)
    assert "Q270 (Warsaw)" in out.stdout
