"""Hostile SPARQL (issue 32 items 1-3, issue 29 item 1): every query ends by itself within
1.5 x its timeout + 1 s and under 1 GB above the memory it started with, on every engine
(SQL over a mirror, rdflib over a mirror, rdflib over an RDF file), with a result or one of
kgground's typed errors, and nothing printed.

The queries run in a separate, memory-capped process (``tests.hostile.run_isolated``):
before the fixes, some of them grew to gigabytes or never ended.
"""

from __future__ import annotations

import json
import math
import random
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.hostile import (cross_join, hostile_queries, mutate_query, nested_groups,
                           nested_parens, optional_chain, run_isolated)

GIB = 1 << 30

#: runs queries one after the other in a fresh process: argv = KB location, a JSON list of
#: queries, timeout (seconds, or 'none' for the default); prints a JSON list of what
#: happened to each: outcome, seconds, memory grown (bytes above the query's start)
PROBE = r'''
import json, sys, threading, time
def anon():
    with open("/proc/self/statm", "rb") as f:
        x = f.read().split()
    return (int(x[1]) - int(x[2])) * 4096
import kb
from kb.errors import KGGroundError
base_kb = kb.open(sys.argv[1])
peak = [0]
def sample():
    while True:
        peak[0] = max(peak[0], anon())
        time.sleep(0.02)
threading.Thread(target=sample, daemon=True).start()
timeout = None if sys.argv[3] == "none" else float(sys.argv[3])
results = []
for query in json.loads(sys.argv[2]):
    base = anon()
    peak[0] = base
    started = time.monotonic()
    try:
        result = base_kb.sparql(query, timeout=timeout)
        out = {"outcome": "ok", "rows": [{k: str(v) for k, v in row.items()}
                                         for row in result.rows[:20]]}
    except Exception as exc:
        kind = "typed" if isinstance(exc, KGGroundError) else "untyped"
        out = {"outcome": f"{kind}:{type(exc).__name__}", "message": str(exc)[:300]}
    out["seconds"] = time.monotonic() - started
    time.sleep(0.05)
    out["memory"] = max(peak[0] - base, 0)
    out["query"] = query[:200]
    results.append(out)
print(json.dumps(results))
'''


def probe(location, queries: list[str], timeout: float | None, wall: float = 240) -> list:
    """Run ``queries`` on the KB at ``location`` in one memory-capped process."""
    run = run_isolated(PROBE, timeout=wall, args=(
        str(location), json.dumps(queries), "none" if timeout is None else str(timeout)))
    assert run["returncode"] == 0, f"the queries' process died or hung: {run}"[:3000]
    results = json.loads(run["stdout"].strip().splitlines()[-1])
    for out in results:
        out["stderr"] = run["stderr"]
    return results


def assert_bounded(out: dict, timeout: float) -> None:
    assert out["seconds"] <= 1.5 * timeout + 1.0, out
    assert out["memory"] < GIB, out
    assert out["outcome"] == "ok" or out["outcome"].startswith("typed:"), out
    assert "Traceback" not in out["stderr"], out["stderr"][-2000:]


@pytest.fixture(scope="module")
def turtle_kb(tmp_path_factory) -> object:
    """A 5,000-entity Turtle file: rdflib's evaluator over its own in-memory graph."""
    path = tmp_path_factory.mktemp("ttl") / "kb.ttl"
    lines = ["@prefix ex: <http://example.org/> .",
             "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> ."]
    lines += [f'ex:e{i} rdfs:label "entity {i}"@en ; ex:p ex:e{(i * 7) % 5000} ; ex:n {i} .'
              for i in range(5000)]
    path.write_text("\n".join(lines) + "\n")
    return path


# -- item 1: OPTIONAL chains ---------------------------------------------------------------------

@pytest.mark.timeout(600)
def test_a_chain_of_optionals_ends_within_its_timeout(demo_mirror_path):
    """Issue 32 item 1: 20 OPTIONALs on one variable took 12.8 s and 1.8 GB with timeout=5,
    24 raised MemoryError, 200 grew past 13 GB: the SQL translation doubled with each one,
    before any deadline applied."""
    results = probe(demo_mirror_path, [optional_chain(n) for n in (20, 24, 200)], 3)
    for out in results:
        assert_bounded(out, 3)
    assert results[2]["outcome"] == "typed:QueryTooComplex", results[2]
    assert "OPTIONAL" in results[2]["message"] and "at most 64" in results[2]["message"]


def test_the_sql_of_optional_chains_grows_gently():
    from store.sparql import prepare
    from store.sparql.sql import compile_query

    small, double = (len(compile_query(prepare(optional_chain(n)).algebra).sql)
                     for n in (8, 16))
    assert double < 4 * small          # quadratic at most (it was 2^n: 250 times here)


# -- item 2: overruns ----------------------------------------------------------------------------

ITEM_2 = ["SELECT * WHERE { ?a ?b ?c MINUS { ?a ?b ?c } }",
          "SELECT * WHERE { ?a ?b ?c } ORDER BY RAND()",
          "SELECT * WHERE { ?a ?b ?c FILTER NOT EXISTS { ?a ?b ?d FILTER NOT EXISTS "
          "{ ?d ?e ?a } } }",
          "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f }"]


@pytest.mark.timeout(900)
def test_heavy_queries_stop_at_their_timeout_on_the_slice(slice_mirror_path):
    """Issue 32 item 2: with timeout 5 these ran 13.5 to 21.9 s (rdflib's lookups over the
    mirror fetched whole tables, and its sorting and subtracting never looked at the
    deadline)."""
    for out in probe(slice_mirror_path, ITEM_2, 3, wall=600):
        assert_bounded(out, 3)
        assert out["outcome"] == "typed:QueryTimeout", out


@pytest.mark.timeout(600)
def test_heavy_queries_stop_at_their_timeout_on_an_rdf_file(turtle_kb):
    queries = [ITEM_2[0], ITEM_2[1], cross_join(2), cross_join(2, "SELECT DISTINCT ?c0 ?c1"),
               cross_join(2) + " ORDER BY ?c1"]
    for out in probe(turtle_kb, queries, 2):
        assert_bounded(out, 2)


# -- item 3: untyped exceptions, tracebacks ------------------------------------------------------

def test_aggregates_over_values_they_cannot_add_leave_the_group_unbound(demo_mirror_path):
    """Issue 32 item 3: rdflib's SUM raised SPARQLTypeError out of the query."""
    from kb.mirror import MirrorKB
    from store.sparql import run

    base = MirrorKB(demo_mirror_path)
    query = ("SELECT (SUM(?o) AS ?t) (AVG(?o) AS ?a) (MAX(?o) AS ?m) WHERE { ?s ?p ?o } ")
    (row,) = base.sparql(query, timeout=30).rows
    assert "t" not in row and "a" not in row and "m" in row
    grouped = ('SELECT ?g (SUM(?o) AS ?t) (AVG(?o) AS ?a) WHERE { VALUES (?g ?o) '
               '{ (1 1) (1 "x") (2 3) (2 5) } } GROUP BY ?g ORDER BY ?g')
    for engine in ("sql", "rdflib"):
        rows = run(base.mirror, grouped, engine=engine).rows
        assert [{k: float(v) for k, v in r.items()} for r in rows] == \
            [{"g": 1}, {"g": 2, "t": 8, "a": 4}], engine


@pytest.mark.parametrize("query", [nested_groups(3000), nested_parens(3000),
                                   nested_groups(60)], ids=["groups-3000", "parens-3000",
                                                            "groups-60"])
def test_deep_nesting_is_too_complex_not_a_recursion_error(demo_mirror_path, query):
    """Issue 32 item 3: 3,000 nested groups raised RecursionError."""
    from kb.errors import QueryTooComplex
    from kb.mirror import MirrorKB

    with pytest.raises(QueryTooComplex) as err:
        MirrorKB(demo_mirror_path).sparql(query)
    assert "at most" in str(err.value) and "Fix:" in str(err.value)


def test_a_bad_cast_prints_no_traceback(demo_mirror_path):
    """Issue 32 item 3: BIND(STRDT("x", xsd:dateTime)) succeeded but printed rdflib's
    traceback (seen from the command line, where Python's default logging prints it)."""
    code = ("import sys\nfrom reasoning.cli import cli\n"
            "cli(['sparql', 'SELECT ?d WHERE { BIND(STRDT(\"x\", xsd:dateTime) AS ?d) }', "
            "'--db', sys.argv[1]], prog_name='kgground')\n")
    run = run_isolated(code, timeout=120, args=(str(demo_mirror_path),))
    assert run["returncode"] == 0, run["stderr"][-1000:]
    assert "Traceback" not in run["stderr"] and "Failed to convert" not in run["stderr"]
    assert "1 row" in run["stderr"]


# -- issue 29 item 1: the rdflib path honours --timeout and the default ----------------------

@pytest.mark.timeout(300)
def test_sparql_command_stops_a_turtle_query_at_its_timeout(turtle_kb):
    """Issue 29 item 1: on a Turtle file `kgground sparql ... --timeout 3` ran past 60 s.
    It stops by itself now, says why, exits non-zero, and keeps the rows it printed."""
    code = ("import sys\nfrom reasoning.cli import cli\n"
            "cli(['sparql', 'SELECT * WHERE { ?a ?b ?c . ?d ?e ?f }', '--db', sys.argv[1], "
            "'--timeout', '2', '--format', 'tsv'], prog_name='kgground')\n")
    run = run_isolated(code, timeout=120, args=(str(turtle_kb),))
    assert run["returncode"] == 1, run["stderr"][-1000:]
    assert "timeout" in run["stderr"] and "Traceback" not in run["stderr"]
    assert "came before the query stopped" in run["stderr"]
    assert run["stdout"].startswith("?a\t?b\t?c") and run["stdout"].count("\n") > 10


@pytest.mark.timeout(300)
def test_a_query_without_a_timeout_stops_at_the_default_one(turtle_kb, demo_mirror_path):
    """No timeout given: ``store.limits.DEFAULT_TIMEOUT`` (shortened here) holds on every
    engine, as inside ask, chain and eval, which call ``kb.sparql`` without one."""
    code = ("import sys, time, json\nimport store.limits as L\nL.DEFAULT_TIMEOUT = 1.5\n"
            "import kb\nout = []\n"
            "for where in sys.argv[1:]:\n"
            "    k = kb.open(where)\n"
            "    t = time.monotonic()\n"
            "    try:\n"
            "        k.sparql('SELECT * WHERE { ?a ?b ?c . ?d ?e ?f } ORDER BY ?c ?f')\n"
            "        out.append('finished')\n"
            "    except Exception as e:\n"
            "        out.append([type(e).__name__, time.monotonic() - t])\n"
            "print(json.dumps(out))\n")
    run = run_isolated(code, timeout=120, args=(str(turtle_kb), str(demo_mirror_path)))
    assert run["returncode"] == 0, run["stderr"][-1000:]
    for name, seconds in json.loads(run["stdout"]):
        assert name == "QueryTimeout" and seconds <= 1.5 * 1.5 + 1


@pytest.mark.timeout(300)
def test_serve_over_a_turtle_kb_stops_a_heavy_query_and_keeps_answering(turtle_kb):
    """Issue 29 item 1 in ``serve``: the worker running a heavy rdflib query is freed at the
    timeout (it was left to finish in the background, holding its worker)."""
    import urllib.error
    import urllib.parse
    import urllib.request

    from kb.rdfgraph import RdfGraphKB
    from kb.sparql_server import running_server

    with running_server(RdfGraphKB(turtle_kb), timeout=1.5, workers=1) as server:
        def ask(query: str) -> tuple[int, float]:
            started = time.monotonic()
            url = server.url + "?" + urllib.parse.urlencode({"query": query})
            try:
                with urllib.request.urlopen(url, timeout=60) as response:
                    status = response.status
            except urllib.error.HTTPError as exc:
                status = exc.code
            return status, time.monotonic() - started

        status, seconds = ask(cross_join(2) + " ORDER BY ?c0")
        assert status == 500 and seconds <= 1.5 * 1.5 + 1
        # The one worker is free again: uninterrupted, the cross join (225 M rows) would hold
        # it for minutes. A loaded machine may take a moment to unwind the interrupted query,
        # so the small query may be retried for a few seconds (each try has its own deadline).
        freed_by = time.monotonic() + 6.0
        status, seconds = ask("ASK { ?s ?p ?o }")
        while status != 200 and time.monotonic() < freed_by:
            time.sleep(0.2)
            status, seconds = ask("ASK { ?s ?p ?o }")
        assert status == 200 and seconds < 2.0


# -- an interrupted query leaves the interpreter as it found it ------------------------------

AFTER_INTERRUPTIONS = r'''
import sys
import kb
from kb.errors import QueryTimeout
base = kb.open(sys.argv[1])
for _ in range(3):
    try:
        base.sparql("SELECT * WHERE { ?a ?b ?c . ?d ?e ?f } ORDER BY ?f", timeout=0.5)
        raise SystemExit("the cross join was not stopped")
    except QueryTimeout:
        pass
calls = 0
def profile(frame, event, arg):
    global calls
    calls += 1
sys.setprofile(profile)
sum(len(str(i)) for i in range(1000))
sys.setprofile(None)
print(calls)
'''


def test_an_interrupted_query_leaves_profiling_and_the_interpreter_working(turtle_kb):
    """The watchdog's interruptions are drained, never cancelled: cancelling one through
    PyThreadState_SetAsyncExc(id, NULL) left CPython's eval breaker set for good, and the
    next function run under sys.setprofile spun for ever (the linking-speed test hung
    after the hostile queries' test)."""
    run = run_isolated(AFTER_INTERRUPTIONS, timeout=60, args=(str(turtle_kb),))
    assert run["returncode"] == 0, run
    assert int(run["stdout"].strip().splitlines()[-1]) > 1000


SWALLOWS_AN_INTERRUPTION = r'''
import time
from store.limits import QueryInterrupted, bounded, new_limits
from store.errors import QueryTimeout
started, swallowed = time.monotonic(), 0
try:
    with bounded(new_limits(0.3)):
        try:
            while True:
                pass
        except QueryInterrupted:        # lost, as in a finalizer or a closing generator
            swallowed += 1
        while True:
            pass
except QueryTimeout:
    print(swallowed, round(time.monotonic() - started, 2))
'''


def test_a_query_that_loses_an_interruption_is_interrupted_again():
    """An interruption that lands where it is only reported (a finalizer, a generator being
    closed) is lost; the watchdog sends another while the query runs on. With one
    interruption only, such a query ran on in a server's worker, growing until the test
    run was killed for want of memory."""
    run = run_isolated(SWALLOWS_AN_INTERRUPTION, timeout=60)
    assert run["returncode"] == 0, run
    swallowed, seconds = run["stdout"].split()
    assert int(swallowed) >= 1 and float(seconds) < 0.3 + 0.25 + 3 * 1.0, run

# -- the limits say what they are -----------------------------------------------------------------

def test_timeout_must_be_a_positive_number(demo_mirror_path):
    from kb.errors import QueryError
    from kb.mirror import MirrorKB

    base = MirrorKB(demo_mirror_path)
    for bad in (0, -1, float("nan"), "5"):
        with pytest.raises(QueryError):
            base.sparql("ASK { ?s ?p ?o }", timeout=bad)
    assert base.sparql("ASK { ?s ?p ?o }", timeout=math.inf).boolean is True


# -- property-based: any hostile query, any engine -------------------------------------------

_CORPUS = [q for _, q in hostile_queries()]


@pytest.fixture(scope="module")
def engines(demo_mirror_path, turtle_kb):
    import kb
    return [kb.open(demo_mirror_path), kb.open(turtle_kb)]


@pytest.mark.timeout(300)
@settings(max_examples=30, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow])
@given(seed=st.integers(0, 2 ** 32), pick=st.integers(0, len(_CORPUS) - 1),
       steps=st.integers(0, 4), engine=st.integers(0, 1))
def test_hostile_and_mutated_queries_stay_bounded_and_typed(engines, capfd, seed, pick, steps,
                                                            engine):
    """Any query of the corpus, mutated a few times, on a mirror or an RDF file: a result
    or a typed error within 1.5 x timeout + 1 s, and nothing printed."""
    from kb.errors import KGGroundError

    query = _CORPUS[pick]
    if steps:
        query = mutate_query(query, random.Random(seed), steps)
    timeout = 1.0
    started = time.monotonic()
    try:
        engines[engine].sparql(query, timeout=timeout)
    except KGGroundError:
        pass
    assert time.monotonic() - started <= 1.5 * timeout + 1.0, query[:300]
    captured = capfd.readouterr()
    assert "Traceback" not in captured.err and "Failed to convert" not in captured.err
