"""Concurrent first use of the SPARQL front end (issue 12's reproduction).

rdflib's parser (pyparsing) decides how to call each parse action on first use, and that is
not thread-safe: a process whose first parses ran on several threads at once kept failing
some later queries ("Param.postParse2() missing 1 required positional argument"). The
reproduction: in a fresh process, 4 threads each run 30 distinct queries at once; then the
same queries, one at a time, must all succeed. Each query here takes rdflib's path (a
variable predicate, or a FILTER the compiler leaves to rdflib), which is where rdflib parses.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

from tests.conftest import REPO

SCRIPT = textwrap.dedent("""
    import json, sys, threading
    from kb.mirror import MirrorKB

    kb = MirrorKB(sys.argv[1])
    forms = [
        'SELECT ?p ?o WHERE {{ wd:Q{n} ?p ?o }} LIMIT {m}',
        'SELECT ?x WHERE {{ ?x ?p wd:Q{n} FILTER(?p != wdt:P{m}) }}',
        'SELECT ?x (SAMPLE(?l) AS ?s) WHERE {{ ?x rdfs:label ?l FILTER(STRLEN(?l) > {m}) '
        'FILTER(?x = wd:Q{n}) }} GROUP BY ?x',
        'ASK {{ wd:Q{n} ?p "{m}"^^xsd:integer }}',
        'SELECT ?o WHERE {{ wd:Q{n} wdt:P166|wdt:P{m} ?o }}',
        'CONSTRUCT {{ wd:Q{n} ?p ?o }} WHERE {{ wd:Q{n} ?p ?o FILTER(isIRI(?o)) }} LIMIT {m}',
    ]
    queries = [[forms[(t * 30 + i) % len(forms)].format(n=7186 + t * 100 + i, m=i + 2)
                for i in range(30)] for t in range(4)]
    errors = []

    def work(batch):
        for q in batch:
            try:
                kb.sparql(q)
            except Exception as exc:
                errors.append(f"concurrent: {type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=work, args=(b,)) for b in queries]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    engines = set()
    for batch in queries:
        for q in batch:
            try:
                engines.add(kb.sparql(q).engine)
            except Exception as exc:
                errors.append(f"afterwards: {type(exc).__name__}: {exc}")
    print(json.dumps({"errors": errors, "engines": sorted(engines)}))
""")


def test_concurrent_first_parses_leave_the_process_healthy(demo_mirror_path):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(demo_mirror_path)], env=env,
                         capture_output=True, text=True, timeout=300, cwd=REPO)
    assert out.returncode == 0, out.stderr[-3000:]
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report["errors"] == []
    assert "rdflib" in report["engines"]
