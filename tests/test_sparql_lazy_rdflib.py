"""rdflib's SPARQL grammar (pyparsing, 0.3–1.5 s to build) is imported only when rdflib's
evaluator must run a query: a fresh process answering through the SQL compiler never
builds it, and the first query that needs rdflib still gets the right answer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

from tests.conftest import REPO

SCRIPT = textwrap.dedent("""
    import json, sys
    from reasoning.cli import cli

    def loaded():
        return {m: m in sys.modules for m in ("rdflib.plugins.sparql.parser", "pyparsing")}

    out = {"after_import": loaded()}
    from kb.mirror import MirrorKB
    kb = MirrorKB(sys.argv[1])
    fast = [
        "SELECT ?o WHERE { wd:Q937 wdt:P108 ?o }",
        'SELECT ?x ?xLabel WHERE { wd:Q937 wdt:P108 ?x '
        'SERVICE wikibase:label { bd:serviceParam wikibase:language "en" } }',
        "SELECT ?x WHERE { ?x wdt:P108 ?e FILTER NOT EXISTS { ?x wdt:P27 ?c } "
        'FILTER(REGEX(STR(?x), "Q9")) } LIMIT 3',
        "ASK { wd:Q937 wdt:P31 wd:Q5 }",
    ]
    out["fast"] = [kb.sparql(q).engine for q in fast]
    out["after_fast"] = loaded()
    try:
        cli.main(["sparql", "--db", sys.argv[1], fast[0]], standalone_mode=False)
    except SystemExit:
        pass
    out["after_cli"] = loaded()
    slow = kb.sparql('SELECT ?p ?xLabel WHERE { wd:Q937 ?p ?x . FILTER(?p = wdt:P108) '
                     'SERVICE wikibase:label { bd:serviceParam wikibase:language "en" } }')
    out["slow"] = [slow.engine, sorted(str(r.get("xLabel")) for r in slow.rows)]
    out["labels_fast"] = sorted(str(r.get("xLabel")) for r in kb.sparql(fast[1]).rows)
    out["after_slow"] = loaded()
    print(json.dumps(out))
""")


def test_sql_answers_never_build_rdflib_grammar(demo_mirror_path):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    run = subprocess.run([sys.executable, "-c", SCRIPT, str(demo_mirror_path)], env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout.strip().splitlines()[-1])
    nothing = {"rdflib.plugins.sparql.parser": False, "pyparsing": False}
    assert out["after_import"] == nothing
    assert out["fast"] == ["sql"] * 4
    assert out["after_fast"] == nothing and out["after_cli"] == nothing
    assert out["slow"][0] == "rdflib"
    assert out["slow"][1] == out["labels_fast"] and out["labels_fast"]   # the same labels
    assert out["after_slow"]["rdflib.plugins.sparql.parser"]
