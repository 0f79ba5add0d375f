"""Mutation check: put known bugs into a copy of kgground, one at a time, and see whether
the tests named for them fail.

Each mutation replaces one exact piece of source text (it must occur exactly once) in a
module where a silent bug costs most: the SPARQL compiler, ID and IRI validation,
truthiness and ranks, resuming a load, Retry-After and the concurrency cap, the command
line's options. A mutation is *killed* when its tests fail, *survives* when they pass,
and is *stale* when its text is no longer in the source (the code moved on: update the
mutation). The working tree is never touched: the project is copied (tracked and new
files, no caches) into a temporary folder, and the tests run there.

    python bench/mutations.py                 # all mutations, a table, exit 1 if any survive
    python bench/mutations.py --list          # what each mutation does and its tests
    python bench/mutations.py truthy-deprecated optional-all-or-nothing   # some of them
    python bench/mutations.py --json out.json

The tests read ../shared/data (``--data``) and, when their variables are set, the dev
Virtuoso and PostgreSQL, as the suite does. Survivors are recorded in bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Mutation:
    name: str
    file: str                 # path in the repository
    old: str                  # exact text, found exactly once
    new: str
    tests: tuple[str, ...]    # pytest arguments: files, node IDs, -k expressions
    why: str                  # the bug it stands for


INGEST = "tests/test_store_ingest.py::"
DIFFERENTIAL = "tests/test_sparql_differential.py::"
RANKS = INGEST + "test_ranks_truthiness_and_values_as_wikidata_rdf_has_them"

MUTATIONS = [
    # -- truthiness and ranks (store/wikidata_json.py) ------------------------------------------
    Mutation("truthy-deprecated", "store/wikidata_json.py",
             "if rank == best and rank > 0:", "if rank == best:",
             (RANKS, DIFFERENTIAL + "test_the_mirror_holds_what_wikidata_rdf_says"),
             "a property whose statements are all deprecated gets truthy wdt: triples"),
    Mutation("truthy-ignores-preferred", "store/wikidata_json.py",
             "best = max(ranks, default=1)", "best = 1",
             (RANKS,),
             "normal statements stay truthy beside preferred ones"),
    Mutation("truthy-novalue", "store/rdf_store.py",
             'where = _Where("truthy = 1", "value_kind != \'novalue\'")',
             'where = _Where("truthy = 1")',
             (RANKS,),
             "'no value' statements show up as wdt: triples in rdflib's view"),
    # -- the SPARQL compiler (store/sparql/sql.py) ---------------------------------------------
    Mutation("optional-all-or-nothing", "store/sparql/sql.py",
             "            on.append(f\"EXISTS ({probe.select(['1'])})\")",
             "            pass",
             ("tests/test_sparql_mirror.py",),
             "an OPTIONAL group of several patterns binds the part that matched"),
    Mutation("filter-inside-optional-to-where", "store/sparql/sql.py",
             "            conds.append(self.expr({**r2.vars, **r1.vars}).bool(expr))",
             "            r1.where.append(self.expr({**r2.vars, **r1.vars}).bool(expr))",
             ("tests/test_sparql_mirror.py",),
             "a FILTER inside OPTIONAL removes whole rows instead of the optional part"),
    Mutation("filter-inside-optional-dropped", "store/sparql/sql.py",
             "            conds.append(self.expr({**r2.vars, **r1.vars}).bool(expr))",
             "            pass",
             ("tests/test_sparql_mirror.py",),
             "a FILTER inside OPTIONAL is ignored"),
    Mutation("optional-join-incompatible", "store/sparql/sql.py",
             '    guards = [f"{t.v} IS NULL" for t in (t1, t2) if t.nullable]',
             "    guards = []",
             ("tests/test_sparql_mirror.py", DIFFERENTIAL + "test_demo_mirror_corpus"),
             "a join on a variable an OPTIONAL left unbound matches nothing"),
    Mutation("truthy-only-in-sql", "store/sparql/sql.py",
             'rel.where += [f"{a}.truthy = 1", f"{a}.value_kind != \'novalue\'"]',
             "rel.where += [f\"{a}.value_kind != 'novalue'\"]",
             ("tests/test_sparql_mirror.py",),
             "wdt: in SQL reaches every statement, not the truthy ones"),
    # -- rdflib's VALUES + OPTIONAL repair (store/sparql/rdflib_fixes.py) ------------------
    Mutation("values-scope-repair-off", "store/sparql/prepared.py",
             "            values_scope(found.algebra)", "            pass",
             (DIFFERENTIAL + "test_values_before_an_optional_on_every_engine",
              "tests/test_store_postgres.py::test_values_before_an_optional_keeps_every_row"),
             "rdflib's evaluator drops VALUES rows a following OPTIONAL does not extend"),
    # -- IDs and IRIs (store/vocab.py) ----------------------------------------------------------
    Mutation("iri-check-allows-injection", "store/vocab.py",
             '_IRI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:[^\\s<>\\"{}|\\\\^`]+\\Z")',
             '_IRI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:[^\\s|\\\\^`]+\\Z")',
             ("tests/test_store_units.py", "tests/test_endpoint_failures.py"),
             "IRIs with <>{}\" pass the check that guards SPARQL sent to endpoints"),
    Mutation("entity-id-leading-zero", "store/vocab.py",
             'ENTITY_ID = re.compile(r"[QPL][1-9][0-9]*\\Z")',
             'ENTITY_ID = re.compile(r"[QPL][0-9]+\\Z")',
             ("tests/test_store_units.py", "tests/test_cli.py"),
             "Q0 and Q042 pass as entity IDs"),
    Mutation("entity-id-unanchored", "store/vocab.py",
             'ENTITY_ID = re.compile(r"[QPL][1-9][0-9]*\\Z")',
             'ENTITY_ID = re.compile(r"[QPL][1-9][0-9]*")',
             ("tests/test_store_units.py", "tests/test_cli.py"),
             "'Q42 junk' passes as an entity ID"),
    # -- resuming a load (store/batches.py) -----------------------------------------------------
    Mutation("ntriples-resume-from-start", "store/batches.py",
             'if lineno <= skip or line.startswith("#")',
             'if lineno <= 0 or line.startswith("#")',
             (INGEST + "test_interrupted_load_resumes_to_the_same_result",),
             "a resumed N-Triples load reads the file again from line 1"),
    Mutation("json-resume-from-start", "store/batches.py",
             "            if lineno - 1 <= job.skip:",
             "            if False:",
             (INGEST + "test_interrupted_json_load_resumes_to_the_same_result",),
             "a resumed JSON load parses blocks it had committed"),
    # -- the live endpoint client (kb/sparql_http.py) -------------------------------------------
    Mutation("retry-after-cap-removed", "kb/sparql_http.py",
             "if attempt == self.retries or wait > self.max_retry_wait or wait >= left:",
             "if attempt == self.retries:",
             ("tests/test_endpoint_failures.py::test_a_retry_after_too_long_is_not_waited_for",),
             "a Retry-After of an hour (beyond the call's deadline too) is waited for"),
    Mutation("retry-after-cap-ignored", "kb/sparql_http.py",
             "if attempt == self.retries or wait > self.max_retry_wait or wait >= left:",
             "if attempt == self.retries or wait >= left:",
             ("tests/test_endpoint_failures.py",),
             "a Retry-After longer than max_retry_wait is waited for when the deadline allows"),
    Mutation("retry-after-ignored", "kb/sparql_http.py",
             '                wait = getattr(exc, "retry_after", None)',
             "                wait = None",
             ("tests/test_endpoint_failures.py",),
             "Retry-After is ignored: exponential backoff instead"),
    Mutation("slot-wait-bypassed", "kb/sparql_http.py",
             "if not self.slots.acquire(timeout=max(deadline - time.monotonic(), 0.0)):",
             "if not self.slots.acquire(blocking=False):",
             ("tests/test_endpoint_failures.py::test_waiting_too_long_for_a_slot_is_a_timeout",),
             "a query finding every slot taken fails at once instead of waiting its timeout"),
    Mutation("slot-timeout-ignored", "kb/sparql_http.py",
             "if not self.slots.acquire(timeout=max(deadline - time.monotonic(), 0.0)):",
             "if not self.slots.acquire():",
             ("tests/test_endpoint_failures.py::test_waiting_too_long_for_a_slot_is_a_timeout",),
             "a query finding every slot taken waits for one however long it takes"),
    # -- the live fallback's write-back (kb/fallback.py) ----------------------------------------
    Mutation("fallback-entity-not-written-back", "kb/fallback.py",
             'self._write(f"entity {id}", ', '(lambda *a, **k: None)(f"entity {id}", ',
             ("tests/test_fallback_loopback.py",),
             "an entity fetched live is not written back into the mirror"),
    Mutation("fallback-search-not-written-back", "kb/fallback.py",
             "        self._write(key, next((c.retrieved_at for c in got",
             "        (lambda *a, **k: None)(key, next((c.retrieved_at for c in got",
             ("tests/test_fallback_loopback.py",),
             "search results fetched live are not written back"),
    Mutation("fallback-property-not-written-back", "kb/fallback.py",
             'self._write(f"property_info {info.id}", ',
             '(lambda *a, **k: None)(f"property_info {info.id}", ',
             ("tests/test_fallback_loopback.py",),
             "property info fetched live is not written back"),
    Mutation("fallback-asks-again", "kb/fallback.py",
             "        for earlier in self._fetched(key):", "        for earlier in []:",
             ("tests/test_fallback_loopback.py",),
             "a triplet question the endpoint answered is asked again"),
    # -- input formats and provenance (store/) ---------------------------------------------------
    Mutation("xz-not-decompressed", "store/batches.py",
             r'if magic == b"\xfd7zXZ\x00":', "if False:",
             ("tests/test_cli.py::test_xz_input",),
             ".xz files are read as if they were plain text"),
    Mutation("jsonld-read-as-turtle", "store/batches.py",
             '".jsonld": "json-ld"', '".jsonld": "turtle"',
             ("tests/test_kb_open.py",),
             "a JSON-LD custom KB is parsed as Turtle"),
    Mutation("dump-date-not-from-the-name", "store/ingest.py",
             "dump_date or _dump_date(path)", "dump_date",
             ("tests/test_cli.py::test_force_loads_again_and_the_dump_date_reaches_citations",),
             "a dump's date in its file name does not reach citations"),
    # -- entity linking (linking/) ----------------------------------------------------------------
    Mutation("linker-weights-ignored", "linking/ranking.py",
             "return {k: getattr(self, k) * v for k, v in raw.items()}",
             "return {k: getattr(DEFAULT_WEIGHTS, k) * v for k, v in raw.items()}",
             ("tests/test_linking_weights.py",),
             "a linker given custom Weights scores with the default ones"),
    Mutation("linker-tie-break-reversed", "linking/linker.py",
             "    return entity[:1], len(entity), entity",
             "    return entity[:1], -len(entity), entity",
             ("tests/test_linking_weights.py",),
             "equal scores go to the newer item"),
    # -- the command line (reasoning/cli/) ------------------------------------------------------
    Mutation("cli-properties-unchecked", "reasoning/cli/mirror.py",
             '        check_id(pid, kinds="P", allow_iri=False, what="a property ID")',
             "        pass",
             ("tests/test_cli.py",),
             "mirror load --properties accepts 'x' and loads nothing for it"),
    Mutation("cli-entity-ignores-offline", "reasoning/cli/read.py",
             "    base = open_kb(db, endpoint, offline, no_cache)\n    ent = base.entity(id)",
             "    base = open_kb(db, endpoint, False, no_cache)\n    ent = base.entity(id)",
             ("tests/test_cli_live.py",),
             "kgground entity --offline still asks the endpoint"),
    Mutation("cli-languages-ignored", "reasoning/cli/mirror.py",
             "Filters(languages=csv_set(languages)", "Filters(languages=None",
             ("tests/test_cli.py::test_load_languages_properties_entities",),
             "mirror load --languages keeps every language"),
    Mutation("cli-search-limit-ignored", "reasoning/cli/read.py",
             ".search(text, lang=lang, limit=limit)", ".search(text, lang=lang)",
             ("tests/test_cli.py::test_search_lang_and_limit",),
             "search --limit is ignored"),
    Mutation("cli-search-lang-ignored", "reasoning/cli/read.py",
             ".search(text, lang=lang, limit=limit)", ".search(text, limit=limit)",
             ("tests/test_cli.py::test_search_lang_and_limit",),
             "search --lang is ignored"),
    Mutation("cli-triples-limit-ignored", "reasoning/cli/read.py",
             "base.statements(subject, prop, value, limit=limit)",
             "base.statements(subject, prop, value)",
             ("tests/test_cli.py::test_triples_value_and_limit",),
             "triples --limit is ignored"),
    Mutation("cli-serve-max-rows-ignored", "reasoning/cli/serve.py",
             "timeout=timeout, max_rows=max_rows,", "timeout=timeout, max_rows=10_000,",
             ("tests/test_serve.py::test_cli_options_reach_the_server",),
             "serve --max-rows is ignored"),
    Mutation("cli-sparql-timeout-ignored", "reasoning/cli/sparql.py",
             "result = base.sparql(text, timeout=timeout)", "result = base.sparql(text)",
             ("tests/test_cli.py::test_sparql_timeout",),
             "sparql --timeout is ignored"),
]


@dataclass
class Outcome:
    name: str
    status: str               # killed | survived | stale | error
    seconds: float
    detail: str = ""
    tests: list[str] = field(default_factory=list)


def copy_project(target: Path) -> None:
    """Copy the files git knows of (tracked and new, not ignored) into ``target``."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], cwd=REPO, capture_output=True,
                            check=True).stdout.decode().split("\0")
    for rel in filter(None, listed):
        src = REPO / rel
        if src.is_file() and "__pycache__" not in rel:
            dest = target / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest)


def run_tests(copy: Path, tests: tuple[str, ...], data: Path, timeout: int) -> tuple[int, str]:
    env = {**os.environ, "PYTHONPATH": str(copy), "KGGROUND_SHARED_DATA": str(data),
           "PYTHONDONTWRITEBYTECODE": "1"}
    args = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
            f"--timeout={timeout}", *tests]
    proc = subprocess.run(args, cwd=copy, env=env, capture_output=True, text=True)
    tail = (proc.stdout + proc.stderr).strip().splitlines()
    return proc.returncode, (tail[-1] if tail else "")


def check(mutation: Mutation, copy: Path, data: Path, timeout: int) -> Outcome:
    path = copy / mutation.file
    source = path.read_text(encoding="utf-8")
    found = source.count(mutation.old)
    if found != 1:
        return Outcome(mutation.name, "stale", 0.0,
                       f"its text occurs {found} times in {mutation.file}", list(mutation.tests))
    started = time.monotonic()
    path.write_text(source.replace(mutation.old, mutation.new), encoding="utf-8")
    try:
        code, last = run_tests(copy, mutation.tests, data, timeout)
    finally:
        path.write_text(source, encoding="utf-8")
    seconds = round(time.monotonic() - started, 1)
    # pytest: 0 all passed, 1 some failed, 2 interrupted (a collection error), 5 none ran
    status = {0: "survived", 1: "killed", 2: "killed"}.get(code, "error")
    return Outcome(mutation.name, status, seconds, last, list(mutation.tests))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="mutations to run (default: all)")
    parser.add_argument("--list", action="store_true", help="list the mutations and exit")
    parser.add_argument("--data", type=Path, default=Path(os.environ.get(
        "KGGROUND_SHARED_DATA", REPO.parent / "shared" / "data")),
                        help="the shared data folder [default: $KGGROUND_SHARED_DATA, else "
                             "../shared/data]")
    parser.add_argument("--timeout", type=int, default=60,
                        help="seconds per test before it counts as failed [default: 60]")
    parser.add_argument("--json", type=Path, help="also write the outcomes here")
    args = parser.parse_args(argv)

    chosen = [m for m in MUTATIONS if not args.names or m.name in args.names]
    unknown = set(args.names) - {m.name for m in MUTATIONS}
    if unknown:
        parser.error(f"no such mutation: {', '.join(sorted(unknown))} (see --list)")
    if args.list:
        for m in chosen:
            print(f"{m.name}\n    {m.file}: {m.why}\n    tests: {' '.join(m.tests)}")
        return 0

    outcomes = []
    with tempfile.TemporaryDirectory(prefix="kgground-mutants-") as tmp:
        copy = Path(tmp) / "kgground"
        copy_project(copy)
        baseline = sorted({t for m in chosen for t in m.tests})
        code, last = run_tests(copy, tuple(baseline), args.data.resolve(), args.timeout)
        if code != 0:
            print(f"the tests fail without any mutation ({last}): fix them first",
                  file=sys.stderr)
            return 2
        for m in chosen:
            outcome = check(m, copy, args.data.resolve(), args.timeout)
            outcomes.append(outcome)
            print(f"{outcome.status:9} {outcome.seconds:6.1f} s  {m.name}: {m.why}"
                  + (f"  [{outcome.detail}]" if outcome.status in ("stale", "error") else ""),
                  flush=True)
    counts = {s: sum(o.status == s for o in outcomes)
              for s in ("killed", "survived", "stale", "error")}
    print(", ".join(f"{n} {s}" for s, n in counts.items()))
    if args.json:
        args.json.write_text(json.dumps([asdict(o) for o in outcomes], indent=2))
    return 0 if counts["survived"] == counts["stale"] == counts["error"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
