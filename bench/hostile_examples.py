"""The examples of issues 32 and 29 (items 1-2), before and after: each run in a fresh,
memory-capped process against each source tree given (``--tree``, default this one), so
that an older tree's blow-ups end as numbers instead of taking the machine down.

    python bench/hostile_examples.py --db /work/slice.sqlite --tree /path/to/main --tree .

Prints a table (markdown) of what each example did in each tree: seconds, memory grown
over the process's start (MB), and the outcome (a result, a typed error, an untyped one,
'killed' at the wall limit or the 3 GB cap, a traceback printed).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE))

from tests.hostile import optional_chain  # noqa: E402

#: common head of every example: memory sampling and a typed/untyped verdict
HEAD = r'''
import json, sys, threading, time
def anon():
    with open("/proc/self/statm", "rb") as f:
        x = f.read().split()
    return (int(x[1]) - int(x[2])) * 4096
peak = [0]
def sample():
    while True:
        peak[0] = max(peak[0], anon())
        time.sleep(0.02)
def verdict(exc):
    from store.errors import KGGroundError
    return ("typed " if isinstance(exc, KGGroundError) else "UNTYPED ") + type(exc).__name__
def report(out, started, base):
    out["seconds"] = round(time.monotonic() - started, 2)
    time.sleep(0.05)
    out["memory_mb"] = round(max(peak[0] - base, 0) / 2**20)
    print("RESULT " + json.dumps(out))
threading.Thread(target=sample, daemon=True).start()
'''

QUERY = HEAD + r'''
import kb
k = kb.open(sys.argv[1])
base = anon(); peak[0] = base; started = time.monotonic()
try:
    r = k.sparql(sys.argv[2], timeout=float(sys.argv[3]))
    out = {"outcome": f"{len(r.rows)} rows" if r.boolean is None else str(r.boolean)}
except Exception as exc:
    out = {"outcome": verdict(exc)}
report(out, started, base)
'''

CLI = HEAD + r'''
from reasoning.cli import cli
base = anon(); started = time.monotonic()
try:
    cli(sys.argv[1:], prog_name="kgground", standalone_mode=False)
    out = {"outcome": "exit 0"}
except SystemExit as exc:
    out = {"outcome": f"exit {exc.code}"}
except Exception as exc:
    out = {"outcome": verdict(exc)}
report(out, started, base)
'''

VALIDATE = HEAD + r'''
from querygen.validate import validate
base = anon(); started = time.monotonic()
try:
    d = validate(sys.argv[1])
    out = {"outcome": "diagnostics: " + (", ".join(sorted(d.codes())) or "ok")}
except Exception as exc:
    out = {"outcome": verdict(exc)}
report(out, started, base)
'''

LOAD = HEAD + r'''
from pathlib import Path
from store.ingest import load
from store.mirror import Mirror
import socket
listener = socket.socket(); listener.bind(("127.0.0.1", int(sys.argv[3]))); listener.listen(4)
hits = [0]
def accept():
    while True:
        c, _ = listener.accept(); hits[0] += 1; c.close()
threading.Thread(target=accept, daemon=True).start()
base = anon(); started = time.monotonic()
try:
    with Mirror(Path(sys.argv[2]), create=True) as m:
        rep = load(m, Path(sys.argv[1]))
        keep = m.query("SELECT COUNT(*) FROM entities WHERE id = 'Q999999'")[0][0]
        nul = m.query("SELECT COUNT(*) FROM statements WHERE instr(value, char(0)) > 0")[0][0]
        empty = m.query("SELECT COUNT(*) FROM statements WHERE value = ''")[0][0]
    out = {"outcome": f"loaded: {rep.records} records, {rep.errors} errors, "
                      f"valid record kept: {bool(keep)}"
                      + (f", {nul} NUL values stored" if nul else "")
                      + (f", {empty} empty literals" if empty else "")
                      + (f", {getattr(rep, 'invalid_literals', 0)} ill-typed reported"
                         if getattr(rep, "invalid_literals", 0) else "")}
except Exception as exc:
    out = {"outcome": verdict(exc) + ": " + str(exc)[:80]}
out["connections"] = hits[0]
report(out, started, base)
'''

SERVE = HEAD + r'''
import socket
import kb
from kb.sparql_server import running_server
k = kb.open(sys.argv[1])
with running_server(k, timeout=5) as srv:
    host, port = srv.server_address[:2]
    def until_closed(payload):
        s = socket.create_connection((host, port), timeout=40)
        t = time.monotonic(); s.sendall(payload); data = b""
        try:
            while True:
                d = s.recv(4096)
                if not d:
                    break
                data += d
                if b"\r\n\r\n" in data and payload:
                    break
        except OSError:
            pass
        s.close()
        return time.monotonic() - t, data.split(b"\r\n", 1)[0].decode("latin-1")
    base = anon(); started = time.monotonic()
    seconds, status = until_closed(sys.argv[2].encode().decode("unicode_escape").encode("latin-1"))
    out = {"outcome": f"{status or 'closed'} after {seconds:.1f} s"}
report(out, started, base)
'''


def run(tree: Path, code: str, args: list[str], wall: float = 150.0) -> dict:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    started = time.monotonic()
    try:
        proc = subprocess.run([sys.executable, "-c", code, *args], cwd=tree, timeout=wall,
                              capture_output=True, preexec_fn=limit,
                              env={**os.environ, "PYTHONPATH": str(tree)})
    except subprocess.TimeoutExpired:
        return {"outcome": f"killed after {wall:.0f} s", "seconds": wall}
    err = proc.stderr.decode("utf-8", "replace")
    lines = [line for line in proc.stdout.decode("utf-8", "replace").splitlines()
             if line.startswith("RESULT ")]
    if not lines:
        died = "MemoryError" if "MemoryError" in err else f"died (exit {proc.returncode})"
        return {"outcome": died, "seconds": round(time.monotonic() - started, 1)}
    out = json.loads(lines[-1][7:])
    if "Traceback" in err:
        out["outcome"] += " + traceback printed"
    return out


def examples(db: str, folder: Path) -> list[tuple[str, str, list[str], float]]:
    """(name, code, args, wall) for each example."""
    ttl = folder / "big.ttl"
    lines = ["@prefix ex: <http://example.org/> .",
             "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> ."]
    lines += [f'ex:e{i} rdfs:label "entity {i}"@en ; ex:p ex:e{(i * 7) % 20000} .'
              for i in range(20000)]
    ttl.write_text("\n".join(lines) + "\n")
    bad_ttl = folder / "bad.ttl"
    bad_ttl.write_text('@prefix ex: <http://example.org/> .\n'
                       'ex:a ex:born "2021-02-30"^^<http://www.w3.org/2001/XMLSchema#date> .\n')
    files = folder / "files"
    files.mkdir()
    from tests.hostile import hostile_files
    port = 18000 + os.getpid() % 1000
    hostile = {f.path.name: f.path for f in hostile_files(
        files, url=f"http://127.0.0.1:{port}/context.jsonld")}
    overflow = files / "overflow-one.json"
    overflow.write_text('[\n{"type": "item", "id": "Q1", "lastrevid": 18446744073709551616, '
                        '"labels": {}, "claims": {}},\n{"type": "item", "id": "Q999999", '
                        '"lastrevid": 5, "labels": {}, "claims": {}}\n]\n')
    out = []
    for n in (20, 24, 200):
        out.append((f"item 1: {n} OPTIONALs (timeout 5)", QUERY, [db, optional_chain(n), "5"],
                    150))
    for name, q in (("MINUS of itself", "SELECT * WHERE { ?a ?b ?c MINUS { ?a ?b ?c } }"),
                    ("ORDER BY RAND()", "SELECT * WHERE { ?a ?b ?c } ORDER BY RAND()"),
                    ("two nested NOT EXISTS", "SELECT * WHERE { ?a ?b ?c FILTER NOT EXISTS "
                     "{ ?a ?b ?d FILTER NOT EXISTS { ?d ?e ?a } } }"),
                    ("COUNT(*) of a cross join",
                     "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f }")):
        out.append((f"item 2: {name} (timeout 5)", QUERY, [db, q, "5"], 150))
    out.append(("item 3: SUM/AVG/MAX over every value", QUERY,
                [db, "SELECT (SUM(?o) AS ?t) (AVG(?o) AS ?a) (MAX(?o) AS ?m) WHERE { ?s ?p ?o }",
                 "30"], 150))
    out.append(("item 3: 3,000 nested groups", QUERY,
                [db, "SELECT * WHERE " + "{ " * 3000 + "?s ?p ?o" + " }" * 3000, "30"], 150))
    out.append(("item 3: BIND(STRDT(\"x\", xsd:dateTime))", CLI,
                ["sparql", 'SELECT ?d WHERE { BIND(STRDT("x", xsd:dateTime) AS ?d) }', "--db",
                 db], 150))
    out.append(("item 4: validate BIND(1+1 AS ?x)", VALIDATE,
                ["SELECT ?x WHERE { BIND(1+1 AS ?x) }"], 60))
    out.append(("item 4: validate BIND(LCASE(STR(?l)))", VALIDATE,
                ["SELECT ?x WHERE { ?s rdfs:label ?l BIND(LCASE(STR(?l)) AS ?x) }"], 60))
    for name, path in (("item 5: lastrevid 2^64, then a valid entity", overflow),
                       ("item 6: billion laughs (RDF/XML)", hostile["laughs.rdf"]),
                       ("item 7: JSON-LD @context URL", hostile["remote-context.jsonld"]),
                       ("item 9: BOM before the first N-Triples line", hostile["bom.nt"]),
                       ("item 9: XXE entity", hostile["xxe-file.rdf"]),
                       ("item 9: NUL in literals", hostile["nul.nt"]),
                       ("item 9: ill-typed literals", hostile["ill-typed.nt"]),
                       ("item 9: JSON dump of 1 entity", hostile["bom.json"])):
        out.append((name, LOAD, [str(path), str(folder / f"{path.name}.sqlite"), str(port)],
                    300))
    out.append(("item 9: serve, a connection that sends nothing", SERVE, [db, ""], 60))
    out.append(("item 9: serve, a header line without a colon", SERVE,
                [db, r"GET /sparql?query=ASK%7B%7D HTTP/1.1\r\nHost: x\r\nno colon\r\n\r\n"],
                60))
    out.append(("issue 29.1: Turtle, cross join, --timeout 3", CLI,
                ["sparql", "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f }", "--db", str(ttl),
                 "--timeout", "3", "--format", "csv"], 150))
    out.append(("issue 29.2: Turtle with 2021-02-30, a query", CLI,
                ["sparql", "SELECT * WHERE { ?s ?p ?o }", "--db", str(bad_ttl)], 60))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", default=str(HERE.parent / "slice.sqlite"))
    parser.add_argument("--tree", action="append", type=Path)
    parser.add_argument("--json", dest="json_path")
    parser.add_argument("--only", help="run the examples whose name contains this")
    args = parser.parse_args()
    trees = [t.resolve() for t in (args.tree or [HERE])]
    rows = []
    with tempfile.TemporaryDirectory(prefix="hostile-examples-") as tmp:
        for name, code, argv, wall in examples(args.db, Path(tmp)):
            if args.only and args.only not in name:
                continue
            row = {"example": name}
            for tree in trees:
                row[str(tree)] = run(tree, code, argv, wall)
            rows.append(row)
            print(json.dumps(row), flush=True)
    print("\n| example | " + " | ".join(t.name for t in trees) + " |")
    print("|---|" + "---|" * len(trees))
    for row in rows:
        cells = []
        for tree in trees:
            r = row[str(tree)]
            extra = f", {r['memory_mb']} MB" if "memory_mb" in r else ""
            conn = f", {r['connections']} connections" if r.get("connections") else ""
            cells.append(f"{r['outcome']} ({r['seconds']} s{extra}{conn})")
        print(f"| {row['example']} | " + " | ".join(cells) + " |")
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
