"""Hostile queries and files, at volume (issue 32): does every stage stay bounded and typed?

Families (``--families``, default all):

- ``queries``: the hand-made hostile corpus (``tests/hostile.py``) and ``--mutants``
  mutations of it and of the benchmarks' real queries, each run with ``--timeout`` on a
  mirror (``--db``) and on an RDF file read by rdflib (``--rdf``, default a 20,000-entity
  Turtle file made here). Targets: done within 1.5 x timeout + 1 s, under 1 GB above the
  memory held when the query started, a result or one of kgground's typed errors, nothing
  printed on stderr.
- ``validator``: the same queries through ``querygen.validate`` (without and with the
  mirror): Diagnostics for every one, never an exception.
- ``loaders``: the hostile files of ``tests/hostile.py`` and ``--file-mutants`` mutations
  of real and hostile files, each loaded into a fresh mirror and opened as an RDF KB where
  it is RDF: a report or a LoadError; the valid sentinel record kept beside a bad one;
  entity bombs refused within 1 s; no connection to the loopback listener the files point
  at; the local file an XXE names never read into the mirror.
- ``http``: malformed and idle connections to ``kgground serve``: each answered or closed
  within its request timeout + 1 s, the server alive and silent at the end.
- ``cli``: hostile invocations of the command line: a message and a non-zero exit, never a
  traceback or a hang.

Each query or file runs in a worker process (restarted if it dies or hangs), which samples
its own memory every 20 ms and reports what reached its stderr.

    python bench/fuzz_hostile.py --db /work/slice.sqlite --timeout 5 --mutants 1000 \\
        --file-mutants 1000 --json /tmp/fuzz.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import select
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.hostile import (SENTINEL, hostile_files, hostile_queries,  # noqa: E402
                           mutate_lines, mutate_query)

GIB = 1 << 30
SHARED = Path(os.environ.get("KGGROUND_SHARED_DATA", REPO.parent / "shared" / "data"))


# -- the worker: runs one task at a time, reports JSON lines --------------------------------

def _anon_rss() -> int:
    with open("/proc/self/statm", "rb") as f:
        fields = f.read().split()
    return (int(fields[1]) - int(fields[2])) * os.sysconf("SC_PAGE_SIZE")


class _Sampler(threading.Thread):
    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.peak = 0

    def run(self) -> None:
        while True:
            self.peak = max(self.peak, _anon_rss())
            time.sleep(0.02)


def worker(args: argparse.Namespace) -> None:
    import kb as kbmod
    from kb.errors import KGGroundError

    # everything written on fd 2 (tracebacks, logging, C code) goes to a file we read back
    err_path = Path(tempfile.mkstemp(prefix="fuzz-stderr-")[1])
    err_fd = os.open(err_path, os.O_RDWR | os.O_TRUNC)
    os.dup2(err_fd, 2)
    sys.stderr = os.fdopen(2, "w", buffering=1, closefd=False)
    sampler = _Sampler()
    sampler.start()
    kbs: dict[str, Any] = {}
    out = sys.stdout

    def kb_of(location: str) -> Any:
        if location not in kbs:
            kbs[location] = kbmod.open(location)
        return kbs[location]

    for line in sys.stdin:
        task = json.loads(line)
        if task.get("kb"):
            try:
                kb_of(task["kb"])         # opened (and its file parsed) before the clock
            except Exception:  # noqa: BLE001 - reported by the task itself
                pass
        before_err = os.lseek(err_fd, 0, os.SEEK_END)
        base = _anon_rss()
        sampler.peak = base
        started = time.monotonic()
        result: dict[str, Any] = {}
        try:
            result = _run_task(task, kb_of)
            outcome = "ok"
        except KGGroundError as exc:
            outcome = f"typed:{type(exc).__name__}"
            result["message"] = str(exc)[:200]
        except BaseException as exc:  # noqa: BLE001 - what the fuzz looks for
            outcome = f"untyped:{type(exc).__name__}"
            result["message"] = f"{exc}"[:300]
        elapsed = time.monotonic() - started
        time.sleep(0.03)
        sys.stderr.flush()
        size = os.lseek(err_fd, 0, os.SEEK_END)
        os.lseek(err_fd, before_err, os.SEEK_SET)
        printed = os.read(err_fd, min(size - before_err, 4000)).decode("utf-8", "replace")
        out.write(json.dumps({"id": task["id"], "outcome": outcome, "elapsed": elapsed,
                              "memory": max(sampler.peak - base, 0), "stderr": printed,
                              **result}) + "\n")
        out.flush()


def _run_task(task: dict, kb_of: Any) -> dict[str, Any]:
    kind = task["kind"]
    if kind == "query":
        kb = kb_of(task["kb"])
        stream = getattr(kb, "sparql_stream", None)
        if task.get("stream") and stream is not None:
            answer = stream(task["query"], timeout=task["timeout"])
            rows = 0
            for _ in answer.rows:
                rows += 1
            return {"rows": rows, "engine": answer.engine}
        result = kb.sparql(task["query"], timeout=task["timeout"])
        return {"rows": len(result.rows), "engine": result.engine}
    if kind == "validate":
        from querygen.validate import Diagnostics, validate
        diagnostics = validate(task["query"], kb_of(task["kb"]) if task.get("kb") else None)
        assert isinstance(diagnostics, Diagnostics)
        return {"codes": sorted(diagnostics.codes())}
    if kind == "load":
        return _load_task(task)
    raise ValueError(kind)


def _load_task(task: dict) -> dict[str, Any]:
    from store.errors import LoadError
    from store.ingest import load
    from store.mirror import Mirror

    path = Path(task["path"])
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "m.sqlite"
        started = time.monotonic()
        try:
            with Mirror(db, create=True) as m:
                report = load(m, path)
                out.update(errors=report.errors, invalid=report.invalid_literals)
                out["sentinel"] = bool(m.query("SELECT 1 FROM entities WHERE id = ?",
                                               (SENTINEL,)))
                secret = task.get("secret")
                if secret:
                    out["secret_leaked"] = bool(m.query(
                        "SELECT 1 FROM statements WHERE value LIKE ? UNION ALL "
                        "SELECT 1 FROM terms WHERE text LIKE ?", (f"%{secret}%",) * 2))
        except LoadError as exc:
            out["load_error"] = str(exc)[:200]
        out["load_seconds"] = time.monotonic() - started
        if task.get("rdf"):
            from kb.rdfgraph import RdfGraphKB
            try:
                RdfGraphKB(path)
                out["rdf"] = "ok"
            except LoadError as exc:
                out["rdf"] = f"typed:{type(exc).__name__}"
    return out


# -- the parent: hands tasks to workers, checks the targets --------------------------------

class Pool:
    """One worker process; tasks one at a time with a hard wall limit each."""

    def __init__(self, argv: list[str]):
        self.argv = argv
        self.proc: subprocess.Popen | None = None

    def _start(self) -> None:
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        self.proc = subprocess.Popen([sys.executable, __file__, "--worker", *self.argv],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env,
                                     text=True, bufsize=1)

    def run(self, task: dict, limit: float) -> dict:
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        assert self.proc is not None and self.proc.stdin and self.proc.stdout
        started = time.monotonic()
        try:
            self.proc.stdin.write(json.dumps(task) + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            self.proc = None
            return {"id": task["id"], "outcome": "died", "elapsed": 0.0, "memory": 0}
        ready, _, _ = select.select([self.proc.stdout], [], [], limit)
        line = self.proc.stdout.readline() if ready else ""
        wall = time.monotonic() - started
        if not line:
            outcome = "died" if ready else "hang"
            self.close()
            return {"id": task["id"], "outcome": outcome, "elapsed": wall, "memory": 0,
                    "stderr": ""}
        result = json.loads(line)
        result["wall"] = wall
        return result

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None


def real_queries(limit: int = 400) -> list[str]:
    """Gold SPARQL of the benchmarks in ../shared/data (empty when absent)."""
    found: list[str] = []
    for path in sorted((SHARED / "benchmarks").glob("*.jsonl")):
        for line in path.read_text().splitlines():
            try:
                row = json.loads(line)
            except ValueError:
                continue
            q = row.get("sparql") or row.get("query")
            if isinstance(q, str) and q.strip():
                found.append(q)
    random.Random(7).shuffle(found)
    return found[:limit]


def make_rdf_file(folder: Path, entities: int = 20_000) -> Path:
    path = folder / "kb.ttl"
    lines = ["@prefix ex: <http://example.org/> .",
             "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .",
             "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> ."]
    for i in range(entities):
        lines.append(f'ex:e{i} rdfs:label "entity {i}"@en ; ex:p ex:e{(i * 7) % entities} ; '
                     f'ex:n {i} .')
    lines.append('ex:e0 ex:born "2021-02-30"^^xsd:date .')
    path.write_text("\n".join(lines) + "\n")
    return path


def query_tasks(args: argparse.Namespace, rdf: Path) -> list[dict]:
    rng = random.Random(args.seed)
    corpus = hostile_queries()
    seeds = [q for _, q in corpus] + real_queries()
    mutants = [("mutant", mutate_query(rng.choice(seeds), rng)) for _ in range(args.mutants)]
    tasks = []
    for n, (family, query) in enumerate(corpus + mutants):
        for where in ([args.db] if args.db else []) + [str(rdf)]:
            # big results are streamed, as the command line does; others taken whole
            tasks.append({"id": f"q{n}@{Path(where).suffix}", "kind": "query", "kb": where,
                          "query": query, "timeout": args.timeout, "family": family,
                          "stream": n % 2 == 0})
    return tasks


def check_queries(results: list[dict], timeout: float) -> dict:
    limit = 1.5 * timeout + 1.0
    bad: dict[str, list] = defaultdict(list)
    for r in results:
        if r["outcome"].startswith("untyped") or r["outcome"] in ("died", "hang"):
            bad["untyped or died"].append(r)
        if r["elapsed"] > limit:
            bad["over time"].append(r)
        if r["memory"] > GIB:
            bad["over memory"].append(r)
        if _unexpected_output(r.get("stderr", "")):
            bad["printed"].append(r)
    return bad


def run_queries(args: argparse.Namespace, rdf: Path) -> dict:
    tasks = query_tasks(args, rdf)
    pool = Pool([])
    results = []
    started = time.monotonic()
    for task in tasks:
        r = pool.run(task, 1.5 * args.timeout + 1 + 30)
        r.update(family=task["family"], query=task["query"][:160], kb=task["kb"])
        results.append(r)
        if args.verbose and (r["outcome"].startswith("untyped") or r["elapsed"] >
                             1.5 * args.timeout + 1 or r.get("stderr")):
            print(json.dumps(r)[:600], flush=True)
    pool.close()
    bad = check_queries(results, args.timeout)
    outcomes = Counter(r["outcome"].split(":")[0] if r["outcome"].startswith("typed")
                       else r["outcome"] for r in results)
    return {"runs": len(results), "seconds": round(time.monotonic() - started, 1),
            "outcomes": dict(outcomes),
            "slowest": round(max(r["elapsed"] for r in results), 2),
            "slowest_runs": [_short(r) for r in sorted(results, key=lambda r: -r["elapsed"])[:5]],
            "max_memory_mb": round(max(r["memory"] for r in results) / 2**20),
            "parsed": sum(r["outcome"] not in ("typed:QuerySyntaxError",) for r in results),
            "typed_errors": dict(Counter(r["outcome"][6:] for r in results
                                         if r["outcome"].startswith("typed"))),
            "failures": {k: [_short(r) for r in v[:10]] for k, v in bad.items()},
            "failure_counts": {k: len(v) for k, v in bad.items()}}


def run_validator(args: argparse.Namespace) -> dict:
    rng = random.Random(args.seed + 1)
    corpus = [q for _, q in hostile_queries()]
    seeds = corpus + real_queries()
    queries = corpus + [mutate_query(rng.choice(seeds), rng) for _ in range(args.mutants)]
    pool = Pool([])
    results = []
    for n, query in enumerate(queries):
        for where in (None, args.db):
            r = pool.run({"id": f"v{n}", "kind": "validate", "query": query, "kb": where},
                         60)
            r["query"] = query[:160]
            results.append(r)
    pool.close()
    bad = [r for r in results if r["outcome"] != "ok" or _unexpected_output(r.get("stderr", ""))
           or "internal" in r.get("codes", [])]
    return {"runs": len(results), "failures": [_short(r) for r in bad[:10]],
            "failure_count": len(bad),
            "slowest": round(max(r["elapsed"] for r in results), 2),
            "codes": dict(Counter(c for r in results for c in r.get("codes", [])))}


class Listener:
    """A loopback TCP listener counting connections (a file's remote references)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/context.jsonld"
        self.connections = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            conn.close()


def run_loaders(args: argparse.Namespace, folder: Path) -> dict:
    listener = Listener()
    secret = folder / "secret.txt"
    secret.write_text("kgground-secret-token-4711\n")
    files = hostile_files(folder / "hostile", secret=secret, url=listener.url)
    rng = random.Random(args.seed + 2)
    seeds = [f.path for f in files if f.path.stat().st_size < 200_000]
    slice_nt = SHARED / "wikidata" / "trex-slice.nt.gz"
    dump = SHARED / "wikidata" / "dump-sample-100.json.bz2"
    real: list[tuple[str, bytes]] = []
    if slice_nt.exists():
        import gzip
        with gzip.open(slice_nt) as f:
            real.append((".nt", b"".join(next(f) for _ in range(300))))
    if dump.exists():
        import bz2
        with bz2.open(dump) as f:
            real.append((".json", b"".join(next(f) for _ in range(6)) + b"]\n"))
    demo_ttl = REPO / "kb" / "conformance.ttl"
    real.append((".ttl", demo_ttl.read_bytes()))
    mutants = []
    for i in range(args.file_mutants):
        if real and rng.random() < 0.6:
            suffix, data = rng.choice(real)
        else:
            seed = rng.choice(seeds)
            suffix, data = "".join(seed.suffixes), seed.read_bytes()
        path = folder / "mutants" / f"m{i}{suffix}"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(mutate_lines(data, rng))
        mutants.append(path)
    pool = Pool([])
    results = []
    rdf_suffixes = (".ttl", ".rdf", ".jsonld", ".nt")
    for f in [*files, *mutants]:
        path = f.path if hasattr(f, "path") else f
        task = {"id": str(path.name), "kind": "load", "path": str(path),
                "secret": "kgground-secret-token-4711",
                "rdf": path.suffix in rdf_suffixes}
        r = pool.run(task, 120)
        r["file"] = path.name
        if hasattr(f, "family"):
            r.update(family=f.family, expect_sentinel=f.sentinel, expect_refused=f.refused)
        else:
            r["family"] = "mutant"
        results.append(r)
    pool.close()
    bad: dict[str, list] = defaultdict(list)
    for r in results:
        if not r["outcome"].startswith(("ok", "typed")):
            bad["untyped or died"].append(r)
        if r.get("rdf", "ok") != "ok" and not r["rdf"].startswith("typed"):
            bad["untyped rdf"].append(r)
        if _unexpected_output(r.get("stderr", "")):
            bad["printed"].append(r)
        if r.get("expect_sentinel") and not r.get("sentinel"):
            bad["lost the valid record"].append(r)
        if r.get("expect_refused") and "load_error" not in r:
            bad["not refused"].append(r)
        if r.get("family") == "xml-bomb" and r.get("load_seconds", 0) > 1.0:
            bad["bomb slower than 1 s"].append(r)
        if r.get("secret_leaked"):
            bad["xxe read the file"].append(r)
        if r["elapsed"] > 60:
            bad["slow load"].append(r)
    return {"files": len(results), "hostile": len(files), "mutants": len(mutants),
            "network_connections": listener.connections,
            "outcomes": dict(Counter(r["outcome"] for r in results)),
            "refused": sum("load_error" in r for r in results),
            "bomb_seconds": [round(r.get("load_seconds", 0), 2) for r in results
                             if r.get("family") == "xml-bomb"],
            "slowest": round(max(r["elapsed"] for r in results), 2),
            "failures": {k: [_short(r) for r in v[:10]] for k, v in bad.items()},
            "failure_counts": {k: len(v) for k, v in bad.items()}}


def run_http(args: argparse.Namespace) -> dict:
    """Malformed, idle and trickling connections to a ``kgground serve`` subprocess."""
    port_sock = socket.socket()
    port_sock.bind(("127.0.0.1", 0))
    port = port_sock.getsockname()[1]
    port_sock.close()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    server = subprocess.Popen([sys.executable, "-m", "reasoning", "serve", "--db", args.db,
                               "--port", str(port), "--timeout", str(args.timeout)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.2)
    request_timeout = 10.0
    cases = {
        "idle": [],
        "no colon": [b"GET /sparql?query=ASK%7B%7D HTTP/1.1\r\nHost: x\r\nbadheader\r\n\r\n"],
        "no colon, POST": [b"POST /sparql HTTP/1.1\r\nbad\r\nContent-Length: 5\r\n"
                           b"Content-Type: application/sparql-query\r\n\r\nASK{}"],
        "half a request": [b"GET /sparql?query=ASK%7B%7D HTTP/1.1\r\nHos"],
        "trickle": [b"G", b"E", b"T", b" ", b"/", b"?"] * 10,
        "huge header": [b"GET / HTTP/1.1\r\nX: " + b"a" * 70_000 + b"\r\n\r\n"],
        "many headers": [b"GET / HTTP/1.1\r\n" + b"X: y\r\n" * 200 + b"\r\n"],
        "bad method": [b"BREW /sparql HTTP/1.1\r\nHost: x\r\n\r\n"],
        "bad version": [b"GET / HTTP/9.9\r\n\r\n"],
        "bad length": [b"POST /sparql HTTP/1.1\r\nContent-Length: -5\r\n\r\n"],
        "short body": [b"POST /sparql HTTP/1.1\r\nContent-Type: application/sparql-query\r\n"
                       b"Content-Length: 100\r\n\r\nASK{}"],
        "not utf-8": [b"POST /sparql HTTP/1.1\r\nContent-Type: application/sparql-query\r\n"
                      b"Content-Length: 2\r\n\r\n\xff\xfe"],
        "garbage": [bytes(random.Random(3).randrange(256) for _ in range(2000))],
        "hostile query": [b"GET /sparql?query=" + __import__("urllib.parse").parse.quote(
            hostile_queries()[0][1]).encode() + b" HTTP/1.1\r\nHost: x\r\n\r\n"],
    }
    results = {}
    for name, chunks in cases.items():
        sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        started = time.monotonic()
        answer = b""
        try:
            for chunk in chunks:
                sock.sendall(chunk)
                if name == "trickle":
                    time.sleep(0.5)
            while True:
                data = sock.recv(65536)
                if not data:
                    break
                answer += data
                if b"\r\n\r\n" in answer and name not in ("idle", "half a request",
                                                           "trickle", "short body"):
                    break
        except OSError as exc:
            answer += f"<{type(exc).__name__}>".encode()
        finally:
            sock.close()
        results[name] = {"seconds": round(time.monotonic() - started, 2),
                         "status": answer.split(b"\r\n", 1)[0].decode("latin-1")[:60]}
    alive = server.poll() is None
    server.terminate()
    try:
        _, err = server.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()
        _, err = server.communicate()
    limit = request_timeout + 1.0 + (1.5 * args.timeout + 1 if True else 0)
    late = {k: v for k, v in results.items() if v["seconds"] > limit}
    return {"cases": results, "alive": alive, "late": late,
            "tracebacks": err.decode("utf-8", "replace").count("Traceback")}


CLI_CASES = [
    ["sparql", "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f }", "--timeout", "2", "--format", "csv"],
    ["sparql", "SELECT (SUM(?o) AS ?t) WHERE { ?s ?p ?o }", "--timeout", "3"],
    ["sparql", "SELECT * WHERE " + "{ " * 3000 + "?s ?p ?o" + " }" * 3000],
    ["sparql", "SELECT * WHERE { " + " ".join(f"OPTIONAL {{ ?s wdt:P{i} ?o{i} }}"
                                              for i in range(1, 201)) + " }"],
    ["sparql", "SELECT ?d WHERE { BIND(STRDT(\"x\", xsd:dateTime) AS ?d) }"],
    ["sparql", ""], ["sparql", "{"], ["sparql", "missing-file.rq"],
    ["sparql", "ASK {}", "--timeout", "-1"], ["sparql", "ASK {}", "--limit", "x"],
    ["validate", "-"], ["entity", "Q0"], ["entity", "not an id"], ["search", ""],
    ["triples", "--subject", "Q42", "--limit", "-1"],
    ["mirror", "load", "/nonexistent.nt"], ["serve", "--port", "99999"],
]


def run_cli(args: argparse.Namespace, folder: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    files = hostile_files(folder / "cli-files", url="http://127.0.0.1:9/x")
    cases = [[*c, "--db", args.db] if c[0] in ("sparql", "entity", "search", "triples")
             else c for c in CLI_CASES]
    cases += [["mirror", "load", str(f.path), "--db", str(folder / f"cli-{i}.sqlite")]
              for i, f in enumerate(files)]
    cases += [["sparql", "SELECT * WHERE { ?s ?p ?o } LIMIT 3", "--db", str(f.path)]
              for f in files if f.path.suffix in (".ttl", ".rdf", ".jsonld")]
    out = []
    for argv in cases:
        started = time.monotonic()
        try:
            run = subprocess.run([sys.executable, "-m", "reasoning", *argv], env=env,
                                 capture_output=True, timeout=120, input=b"SELECT {")
            code, err = run.returncode, run.stderr.decode("utf-8", "replace")
        except subprocess.TimeoutExpired:
            code, err = "hang", ""
        out.append({"argv": " ".join(a[:40] for a in argv)[:160], "exit": code,
                    "seconds": round(time.monotonic() - started, 1),
                    "traceback": "Traceback" in err, "stderr": err[-300:]})
    bad = [r for r in out if r["traceback"] or r["exit"] == "hang"]
    return {"invocations": len(out), "failures": bad[:20], "failure_count": len(bad),
            "exit_codes": dict(Counter(str(r["exit"]) for r in out))}


def _unexpected_output(text: str) -> bool:
    """Output other than the one line per datatype on ill-typed literals a file's first
    use gives (``store.literals``)."""
    return any(line.strip() and "kept as text" not in line for line in text.splitlines())


def _short(r: dict) -> dict:
    keep = ("id", "family", "outcome", "elapsed", "memory", "message", "query", "file", "kb",
            "stderr", "load_seconds", "load_error")
    return {k: (round(r[k], 2) if isinstance(r[k], float) else
                (r[k][:300] if isinstance(r[k], str) else r[k])) for k in keep if k in r}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", default=str(REPO.parent / "slice.sqlite"))
    parser.add_argument("--rdf", help="an RDF file for the rdflib path (default: one made here)")
    parser.add_argument("--timeout", type=float, default=5.0)
    parser.add_argument("--mutants", type=int, default=300)
    parser.add_argument("--file-mutants", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--families", default="queries,validator,loaders,http,cli")
    parser.add_argument("--json", dest="json_path")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args)
        return 0
    families = set(args.families.split(","))
    report: dict[str, Any] = {"machine": f"{platform.node()} {platform.processor() or ''} "
                                         f"{os.cpu_count()} cores, load "
                                         f"{os.getloadavg()[0]:.1f}",
                              "timeout": args.timeout, "seed": args.seed}
    with tempfile.TemporaryDirectory(prefix="fuzz-hostile-") as tmp:
        folder = Path(tmp)
        rdf = Path(args.rdf) if args.rdf else make_rdf_file(folder)
        for name, fn in (("queries", lambda: run_queries(args, rdf)),
                         ("validator", lambda: run_validator(args)),
                         ("loaders", lambda: run_loaders(args, folder)),
                         ("http", lambda: run_http(args)),
                         ("cli", lambda: run_cli(args, folder))):
            if name in families:
                started = time.monotonic()
                report[name] = fn()
                report[name]["family_seconds"] = round(time.monotonic() - started, 1)
                print(json.dumps({name: report[name]}, indent=1)[:4000], flush=True)
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
