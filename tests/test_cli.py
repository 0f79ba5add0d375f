"""The kgground command line, run as a user would: real mirrors, real files."""

from __future__ import annotations

import json
import lzma
import subprocess
import sys

import pytest

WD = "http://www.wikidata.org/entity/"
WDT = "http://www.wikidata.org/prop/direct/"


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
    # named explicitly: a load never goes into the default mirror by itself
    assert run("mirror", "load", str(data), "--db", str(default)).exit_code == 0
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
    data = tmp_path / "small.nt"
    data.write_text(f"<{WD}Q31> <http://www.wikidata.org/prop/direct/P36> <{WD}Q239> .\n")
    bad_prop = run("mirror", "load", str(data), "--db", str(tmp_path / "p.db"),
                   "--properties", "P31,x")
    assert bad_prop.exit_code == 1
    assert "'x' is not a property ID" in bad_prop.output and "P31" in bad_prop.output
    assert not (tmp_path / "p.db").exists()                     # nothing was started
    bad_date = run("mirror", "load", str(data), "--db", str(tmp_path / "d.db"),
                   "--dump-date", "yesterday")
    assert bad_date.exit_code == 2 and "YYYY-MM-DD" in bad_date.output


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


# -- the options, each checked by what it changes ----------------------------------------------

def _entity(qid: str, labels: dict[str, str], claims: dict[str, list[str]]) -> str:
    def claim(pid: str, value: str, n: int) -> dict:
        return {"mainsnak": {"snaktype": "value", "property": pid, "datatype": "wikibase-item",
                             "datavalue": {"type": "wikibase-entityid", "value": {
                                 "entity-type": "item", "id": value}}},
                "type": "statement", "id": f"{qid}${pid}-{n}", "rank": "normal"}
    return json.dumps({"type": "item", "id": qid,
                       "labels": {k: {"language": k, "value": v} for k, v in labels.items()},
                       "claims": {pid: [claim(pid, v, n) for n, v in enumerate(values)]
                                  for pid, values in claims.items()}})


@pytest.fixture
def dump(tmp_path):
    """A small JSON dump named as Wikidata names its dumps (the date is in the name)."""
    path = tmp_path / "wikidata-20240203-all.json"
    path.write_text("[\n" + ",\n".join([
        _entity("Q31", {"en": "Belgium", "de": "Belgien", "fr": "Belgique"},
                {"P31": ["Q6256"], "P36": ["Q239"], "P47": ["Q55", "Q183"]}),
        _entity("Q239", {"en": "Brussels", "de": "Brüssel"}, {"P31": ["Q515"]}),
        _entity("Q55", {"en": "Netherlands"}, {"P36": ["Q727"]}),
    ]) + "\n]\n")
    return path


def _stats(run, db) -> dict:
    return json.loads(run("mirror", "stats", "--db", str(db), "--json").stdout)


def test_load_languages_properties_entities(run, tmp_path, dump):
    ids = tmp_path / "ids.txt"
    ids.write_text("Q31\nQ239\n")
    db = tmp_path / "m.sqlite"
    out = run("mirror", "load", str(dump), "--db", str(db), "--languages", "en,de",
              "--properties", "P36,P47", "--entities", str(ids), "--json")
    assert out.exit_code == 0, out.output
    rows = json.loads(run("triples", "-s", "Q31", "--db", str(db), "--json").stdout)
    assert sorted(r["property"] for r in rows) == ["P36", "P47", "P47"]   # no P31
    assert run("entity", "Q55", "--db", str(db)).exit_code == 1           # not listed
    belgium = json.loads(run("entity", "Q31", "--db", str(db), "--json").stdout)
    assert set(belgium["labels"]) == {"en", "de"}                          # no fr
    assert _stats(run, db)["languages"] == 2


def test_force_loads_again_and_the_dump_date_reaches_citations(run, tmp_path, dump):
    db = tmp_path / "m.sqlite"
    first = json.loads(run("mirror", "load", str(dump), "--db", str(db), "--json").stdout)
    assert first["loads"][0]["status"] == "loaded"
    again = json.loads(run("mirror", "load", str(dump), "--db", str(db), "--json").stdout)
    assert again["loads"][0]["status"] == "already loaded"
    forced = json.loads(run("mirror", "load", str(dump), "--db", str(db), "--force",
                            "--dump-date", "2024-05-06", "--json").stdout)
    assert forced["loads"][0]["status"] == "loaded"
    dates = sorted(s["dump_date"] for s in _stats(run, db)["sources"])
    assert dates == ["2024-02-03", "2024-05-06"]             # from the name, then as given
    (capital,) = json.loads(run("triples", "-s", "Q31", "-p", "P36", "--db", str(db),
                                "--json").stdout)
    assert capital["citation"]["dump_date"] == "2024-05-06"  # the record last loaded


def test_xz_input(run, tmp_path):
    src = tmp_path / "small.nt.xz"
    src.write_bytes(lzma.compress(
        f'<{WD}Q31> <http://www.w3.org/2000/01/rdf-schema#label> "Belgium"@en .\n'
        f"<{WD}Q31> <{WDT}P36> <{WD}Q239> .\n".encode()))
    db = tmp_path / "m.sqlite"
    out = json.loads(run("mirror", "load", str(src), "--db", str(db), "--json").stdout)
    assert out["loads"][0]["format"] == "ntriples" and out["loads"][0]["statements"] == 1
    assert json.loads(run("search", "belgium", "--db", str(db), "--json").stdout)[0]["id"] \
        == "Q31"


def test_search_lang_and_limit(run, demo_mirror_path):
    db = str(demo_mirror_path)
    many = json.loads(run("search", "Curie", "--db", db, "--json").stdout)
    one = json.loads(run("search", "Curie", "--db", db, "--limit", "1", "--json").stdout)
    assert len(many) > 1 and len(one) == 1 and one[0]["id"] == many[0]["id"]
    zh = json.loads(run("search", "阿尔伯特·爱因斯坦", "--db", db, "--lang", "zh",
                        "--json").stdout)
    assert zh[0]["id"] == "Q937" and zh[0]["label"] == "阿尔伯特·爱因斯坦"
    assert zh[0]["lang"] == "zh" and zh[0]["match"] == "label"
    en = json.loads(run("search", "阿尔伯特·爱因斯坦", "--db", db, "--json").stdout)
    assert en[0]["label"] == "Albert Einstein"                # shown in --lang (en)
    assert run("search", "x", "--db", db, "--limit", "0").exit_code == 2


def test_triples_value_and_limit(run, demo_mirror_path):
    db = str(demo_mirror_path)
    winners = json.loads(run("triples", "-p", "P166", "-v", "Q38104", "--db", db,
                             "--json").stdout)
    assert len(winners) > 3 and {r["value"]["value"] for r in winners} == {"Q38104"}
    three = json.loads(run("triples", "-p", "P166", "-v", "Q38104", "--db", db, "--limit",
                           "3", "--json").stdout)
    assert len(three) == 3 and three == winners[:3]
    by_value = json.loads(run("triples", "--value", "Q142", "--db", db, "--json").stdout)
    assert len(by_value) > 3 and all(r["value"]["value"] == "Q142" for r in by_value)
    assert {r["property"] for r in by_value} >= {"P17", "P27"}


def test_entity_lang(run, demo_mirror_path):
    db = str(demo_mirror_path)
    german = run("entity", "Q183", "--db", db, "--lang", "de")
    assert german.output.startswith("Q183  Deutschland")
    assert "P36 (Hauptstadt): Q64 (Berlin)" in german.output    # labels in German too
    assert run("entity", "Q183", "--db", db).output.startswith("Q183  Germany")


@pytest.mark.timeout(30)              # without its timeout the query would run for hours
def test_sparql_timeout(run, demo_mirror_path):
    heavy = ("SELECT (COUNT(*) AS ?n) WHERE { ?a rdfs:label ?x . ?b rdfs:label ?y . "
             "?c rdfs:label ?z }")
    out = run("sparql", heavy, "--db", str(demo_mirror_path), "--timeout", "0.05")
    assert out.exit_code == 1 and "timeout" in out.output
