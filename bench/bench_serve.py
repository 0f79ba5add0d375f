"""Load test of ``kgground serve``: queries/s and latency percentiles from a local generator.

It starts ``kgground serve`` over a mirror (or uses a running one, ``--url``; loopback
only), then runs two scenarios, each for ``--duration`` seconds (at most ``--max-requests``
requests per scenario):

- ``anchors``: the five anchor queries of issue 3, round-robin;
- ``trivial``: ``ASK {}``, which measures what the server itself costs per request
  (HTTP, the worker hand-off, the KB's fixed cost, the JSON answer), apart from the query.

The generator runs ``--processes`` processes with ``--connections`` keep-alive connections
each; every connection sends a request, reads the whole answer, and sends the next (a closed
loop), so the rate is what the server sustains at that concurrency. It also reports each
anchor query's median cost in-process (``MirrorKB.sparql``), to tell the server's share from
the queries' own. Build the slice mirror first::

    kgground mirror load ../shared/data/wikidata/trex-slice.nt.gz --db /tmp/serve-bench.sqlite
    python bench/bench_serve.py --db /tmp/serve-bench.sqlite [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from concurrent.futures import ProcessPoolExecutor
from typing import Any

#: this tree's packages, for this process and the server it starts (not an installed copy)
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

ANCHORS = [
    "SELECT ?o WHERE { wd:Q42 wdt:P108 ?o }",
    'SELECT ?s WHERE { ?s rdfs:label "Douglas Adams"@en }',
    "SELECT ?c WHERE { wd:Q42 wdt:P108 ?e . ?e wdt:P17 ?c }",
    "SELECT ?p WHERE { ?p wdt:P19 wd:Q84 . ?p wdt:P106 ?o } LIMIT 50",
    "SELECT (COUNT(?p) AS ?n) WHERE { ?p wdt:P27 wd:Q145 }",
]
TRIVIAL = ["ASK {}"]
LOOPBACK = ("127.0.0.1", "localhost", "::1")


# -- the client ------------------------------------------------------------------------------

def _request_bytes(host: str, port: int, path: str, query: str) -> bytes:
    target = f"{path}?{urllib.parse.urlencode({'query': query})}"
    return (f"GET {target} HTTP/1.1\r\nHost: {host}:{port}\r\n"
            "Accept: application/sparql-results+json\r\n\r\n").encode()


_PATH = ["/sparql"]


def _read_chunked(sock: socket.socket, buf: bytearray, start: int) -> int:
    """The end offset in ``buf`` of a chunked body starting at ``start`` (read as needed)."""
    pos = start
    while True:
        while (eol := buf.find(b"\r\n", pos)) < 0:
            chunk = sock.recv(65536)
            if not chunk:
                raise ConnectionError("the server closed the connection mid-answer")
            buf += chunk
        size = int(bytes(buf[pos:eol]).split(b";")[0], 16)
        end = eol + 2 + size + 2
        while len(buf) < end:
            chunk = sock.recv(65536)
            if not chunk:
                raise ConnectionError("the server closed the connection mid-answer")
            buf += chunk
        pos = end
        if size == 0:
            return pos


def _read_response(sock: socket.socket, buf: bytearray) -> int:
    """Read one whole HTTP response (Content-Length or chunked) from ``sock``; its status.
    ``buf`` carries bytes already received past the previous response."""
    while (end := buf.find(b"\r\n\r\n")) < 0:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("the server closed the connection")
        buf += chunk
    head = bytes(buf[:end]).decode("latin-1")
    status = int(head.split(" ", 2)[1])
    length = 0
    chunked = False
    for line in head.split("\r\n")[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-length":
            length = int(value)
        elif name.strip().lower() == "transfer-encoding" and "chunked" in value.lower():
            chunked = True
    if chunked:
        del buf[:_read_chunked(sock, buf, end + 4)]
        return status
    total = end + 4 + length
    while len(buf) < total:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("the server closed the connection mid-answer")
        buf += chunk
    del buf[:total]
    return status


def _connection(host: str, port: int, requests: list[Any], offset: int, start_at: float,
                stop_at: float, budget: int, out: list[tuple[int, float]],
                errors: list[str], stride: int = 1) -> None:
    """One keep-alive connection: send, read, repeat until ``stop_at`` or ``budget``;
    appends (query index, seconds) per answer. ``offset`` staggers where it starts;
    ``stride``: how far it steps (the number of connections, for distinct queries: then no
    two connections send the same text)."""
    sock = socket.create_connection((host, port), timeout=60)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    buf = bytearray()
    i = 0
    time.sleep(max(0.0, start_at - time.time()))
    try:
        while i < budget and time.time() < stop_at:
            which = (i * stride + offset) % len(requests)
            t0 = time.perf_counter()
            request = requests[which]
            if isinstance(request, str):        # distinct texts: encoded as they are sent
                request = _request_bytes(host, port, _PATH[0], request)
            sock.sendall(request)
            status = _read_response(sock, buf)
            elapsed = time.perf_counter() - t0
            if status == 200:
                out.append((which, elapsed))
            else:
                errors.append(f"HTTP {status}")
            i += 1
    except OSError as exc:
        errors.append(f"{type(exc).__name__}: {exc}")
    finally:
        sock.close()


def client_process(host: str, port: int, path: str, queries: list[str], connections: int,
                   start_at: float, duration: float, budget: int, first: int = 0,
                   stride: int = 0) -> tuple[list[tuple[int, float]], list[str], float]:
    """Run ``connections`` keep-alive connections in threads; (samples, errors, end time).
    ``stride`` > 0: connection k starts at query ``first + k`` and steps by ``stride``."""
    _PATH[0] = path
    requests: list[Any] = (list(queries) if stride else
                           [_request_bytes(host, port, path, q) for q in queries])
    out: list[tuple[int, float]] = []
    errors: list[str] = []
    threads = [threading.Thread(target=_connection,
                                args=(host, port, requests, first + k if stride else k,
                                      start_at, start_at + duration, budget, out, errors,
                                      stride or 1))
               for k in range(connections)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out, errors, time.time()


def _percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(pct / 100 * len(ordered)) - 1))]


def run_scenario(host: str, port: int, path: str, queries: list[str], *, processes: int,
                 connections: int, duration: float, max_requests: int,
                 distinct: bool = False) -> dict[str, Any]:
    """``distinct``: no query text is sent twice (each connection walks its own share of
    ``queries``, which must outnumber the requests), so no cache can answer."""
    per_connection = max(1, max_requests // (processes * connections))
    start_at = time.time() + 0.5
    stride = processes * connections if distinct else 0
    with ProcessPoolExecutor(processes) as pool:
        futures = [pool.submit(client_process, host, port, path, queries, connections,
                               start_at, duration, per_connection, p * connections, stride)
                   for p in range(processes)]
        parts = [f.result() for f in futures]
    samples = [s for part in parts for s in part[0]]
    errors = [e for part in parts for e in part[1]]
    elapsed = max(part[2] for part in parts) - start_at
    latencies = [s[1] * 1000 for s in samples]
    report: dict[str, Any] = {
        "queries": queries if len(queries) <= 10 else f"{len(queries)} texts",
        "processes": processes, "connections": processes * connections,
        "requests": len(samples), "errors": len(errors), "error_samples": errors[:5],
        "seconds": round(elapsed, 2),
        "queries_per_s": round(len(samples) / elapsed, 1) if elapsed > 0 else 0.0,
    }
    if latencies:
        report["latency_ms"] = {f"p{p}": round(_percentile(latencies, p), 3)
                                for p in (50, 90, 99)}
        report["latency_ms"]["max"] = round(max(latencies), 3)
        if 1 < len(queries) <= 10:
            report["median_ms_by_query"] = {
                q: round(statistics.median([s[1] * 1000 for s in samples if s[0] == i]), 3)
                for i, q in enumerate(queries) if any(s[0] == i for s in samples)}
    return report


# -- the server and the in-process baseline ----------------------------------------------------

def start_server(db: str, workers: int, timeout: float, stderr: Any,
                 processes: int | None = None) -> tuple[subprocess.Popen, str]:
    """``kgground serve`` on a free loopback port; (process, endpoint URL)."""
    # -c, not -m reasoning.cli: the CLI module must not run twice (as __main__ and as itself)
    extra = ["--processes", str(processes)] if processes else []
    proc = subprocess.Popen([sys.executable, "-c", "from reasoning.cli import main; main()",
                             "serve", "--db", db, "--port", "0", "--workers", str(workers),
                             "--timeout", str(timeout), *extra],
                            stdout=subprocess.PIPE, stderr=stderr, text=True,
                            env={**os.environ, "PYTHONPATH": REPO})
    line = proc.stdout.readline() if proc.stdout else ""
    if not line.startswith("SPARQL endpoint: "):
        proc.kill()
        raise SystemExit(f"kgground serve did not start: {line!r}")
    return proc, line.split()[2]


def _prefixes() -> dict[str, str]:
    from store.sparql import WIKIDATA_PREFIXES
    return WIKIDATA_PREFIXES


def distinct_queries(n: int, base: int = 200) -> list[str]:
    """``n`` distinct texts: ``base`` gold queries of the benchmark files (no SERVICE, which
    Oxigraph would try to call), spread over the files, each repeated with a different
    trailing comment."""
    from pathlib import Path

    from store.errors import KGGroundError
    from store.sparql import parse

    shared = Path(os.environ.get("KGGROUND_SHARED_DATA",
                                 Path(__file__).resolve().parent.parent.parent / "shared" /
                                 "data")) / "benchmarks"
    pool = []
    for name in ("qald7-test", "qald7-train", "qald9plus-train", "wwq-dev",
                 "simplequestions-dev"):
        for line in (shared / f"{name}.jsonl").read_text(encoding="utf-8").splitlines():
            text = json.loads(line).get("sparql") if line.strip() else None
            if not text or "SERVICE" in text.upper():
                continue
            try:
                parse(text)
            except KGGroundError:
                continue
            pool.append(text)
    step = max(1, len(pool) // base)
    chosen = pool[::step][:base]
    return [f"{chosen[i % len(chosen)]}\n# {i}\n" for i in range(n)]


def start_oxigraph(slice_path: str) -> tuple[subprocess.Popen, int]:
    """``oxigraph serve-read-only`` over a store holding the slice, on a free loopback port."""
    workdir = tempfile.mkdtemp(prefix="oxigraph-bench-")
    subprocess.run(["oxigraph", "load", "--location", workdir, "--file", slice_path],
                   check=True, capture_output=True)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(["oxigraph", "serve-read-only", "--location", workdir,
                             "--bind", f"127.0.0.1:{port}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc, port
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("oxigraph serve did not start")


def in_process_medians(db: str, queries: list[str], repeat: int = 30) -> dict[str, float]:
    """Median ms of ``MirrorKB.sparql`` per query, in this process (no HTTP)."""
    import kb
    base = kb.open(db)
    out = {}
    for q in queries:
        base.sparql(q)
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            base.sparql(q)
            times.append(time.perf_counter() - t0)
        out[q] = round(statistics.median(times) * 1000, 3)
    base.close()
    return out


def check_answers(host: str, port: int, path: str, queries: list[str]) -> dict[str, int]:
    """Each query once; its row count (or raise with the server's message)."""
    import http.client
    conn = http.client.HTTPConnection(host, port, timeout=120)
    counts = {}
    for q in queries:
        conn.request("GET", f"{path}?{urllib.parse.urlencode({'query': q})}",
                     headers={"Accept": "application/sparql-results+json"})
        resp = conn.getresponse()
        body = resp.read()
        if resp.status != 200:
            raise SystemExit(f"{q!r} failed: HTTP {resp.status} {body[:300]!r}")
        data = json.loads(body)
        counts[q] = len(data["results"]["bindings"]) if "results" in data else 1
    conn.close()
    return counts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    where = ap.add_mutually_exclusive_group(required=True)
    where.add_argument("--db", help="mirror to serve (starts kgground serve on a free port)")
    where.add_argument("--url", help="a running kgground serve (loopback only)")
    ap.add_argument("--duration", type=float, default=10.0,
                    help="seconds per scenario (at most 120) [10]")
    ap.add_argument("--max-requests", type=int, default=200_000,
                    help="at most this many requests per scenario [200000]")
    ap.add_argument("--processes", type=int, default=1, help="client processes [1]")
    ap.add_argument("--connections", type=int, default=8,
                    help="keep-alive connections per client process [8]")
    ap.add_argument("--workers", type=int, default=4,
                    help="server query workers per server process [4]")
    ap.add_argument("--server-processes", type=int, default=None, metavar="N",
                    help="kgground serve --processes (default: serve's own, one per CPU)")
    ap.add_argument("--timeout", type=float, default=30.0, help="server query timeout [30]")
    ap.add_argument("--scenarios", default="anchors,trivial",
                    help="comma-separated: anchors, trivial [both]")
    ap.add_argument("--query", action="append", default=[], metavar="SPARQL",
                    help="add a 'custom' scenario of these queries (repeatable)")
    ap.add_argument("--distinct", type=int, default=0, metavar="N",
                    help="add a 'distinct' scenario: N distinct query texts (200 benchmark "
                    "queries, each made unique by a trailing comment; none is sent twice)")
    ap.add_argument("--oxigraph", action="store_true", help="also run every scenario "
                    "against `oxigraph serve-read-only` holding the slice (pip oxigraph), "
                    "right after kgground's")
    ap.add_argument("--slice", default=os.path.join(os.path.dirname(__file__), "..", "..",
                                                    "shared", "data", "wikidata",
                                                    "trex-slice.nt.gz"))
    ap.add_argument("--json", action="store_true", help="print one JSON document")
    args = ap.parse_args(argv)
    if not 0 < args.duration <= 120:
        ap.error("--duration must be in (0, 120]")
    if not (1 <= args.processes <= 8 and 1 <= args.connections <= 64):
        ap.error("--processes must be 1..8 and --connections 1..64")

    proc = None
    server_log = tempfile.TemporaryFile("w+")
    if args.db:
        proc, url = start_server(args.db, args.workers, args.timeout, server_log,
                                 args.server_processes)
    else:
        url = args.url
    parts = urllib.parse.urlsplit(url)
    host, port, path = parts.hostname or "", parts.port or 80, parts.path or "/sparql"
    if host not in LOOPBACK:
        ap.error(f"the load generator only targets loopback addresses, not {host}")
    scenarios = {"anchors": ANCHORS, "trivial": TRIVIAL}
    chosen = [s.strip() for s in args.scenarios.split(",") if s.strip()]
    unknown = set(chosen) - set(scenarios)
    if unknown:
        ap.error(f"unknown scenarios {sorted(unknown)}; known: {sorted(scenarios)}")
    if args.query:
        scenarios["custom"] = args.query
        chosen.append("custom")
    if args.distinct:
        scenarios["distinct"] = distinct_queries(args.distinct)
        chosen.append("distinct")
    prologue = "".join(f"PREFIX {k}: <{v}>\n" for k, v in _prefixes().items())
    oxigraph = start_oxigraph(args.slice) if args.oxigraph else None
    report: dict[str, Any] = {
        "url": url, "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                                "platform": platform.platform()},
        "server": {"workers": args.workers if args.db else None, "timeout": args.timeout,
                   "processes": args.server_processes},
        "scenarios": {},
    }
    report["machine"]["loadavg_before"] = _loadavg()
    try:
        for name in chosen:
            queries = [prologue + q for q in scenarios[name]]
            if name != "distinct":
                report.setdefault("rows", {}).update(check_answers(host, port, path, queries))
            report["scenarios"][name] = run_scenario(
                host, port, path, queries, processes=args.processes,
                connections=args.connections, duration=args.duration,
                max_requests=args.max_requests, distinct=name == "distinct")
            if not args.json:
                _print_scenario(name, report["scenarios"][name])
            if oxigraph is not None:
                other = run_scenario(
                    "127.0.0.1", oxigraph[1], "/query", queries, processes=args.processes,
                    connections=args.connections, duration=args.duration,
                    max_requests=args.max_requests, distinct=name == "distinct")
                report["scenarios"][f"oxigraph-{name}"] = other
                if not args.json:
                    _print_scenario(f"ox-{name}", other)
    finally:
        if oxigraph is not None:
            oxigraph[0].terminate()
            oxigraph[0].wait(10)
        if proc is not None:
            proc.terminate()
            proc.wait(10)
            server_log.seek(0)
            logged = server_log.read().replace("stopping", "").strip()
            if logged:
                print(f"kgground serve wrote to stderr:\n{logged}", file=sys.stderr)
        server_log.close()
    report["machine"]["loadavg_after"] = _loadavg()
    if args.db:
        report["in_process_median_ms"] = in_process_medians(args.db, ANCHORS + TRIVIAL)
        if not args.json:
            print("in-process MirrorKB.sparql median per query:")
            for q, ms in report["in_process_median_ms"].items():
                print(f"  {ms:8.3f} ms  {q}")
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"load average before {report['machine']['loadavg_before']}, after "
              f"{report['machine']['loadavg_after']} on {os.cpu_count()} CPUs")
    return 0


def _loadavg() -> str | None:
    """The 1/5/15-minute load averages: other work on the machine skews the numbers."""
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return None


def _print_scenario(name: str, r: dict[str, Any]) -> None:
    lat = r.get("latency_ms", {})
    print(f"{name:8} {r['queries_per_s']:9.1f} queries/s  {r['requests']:7,} requests in "
          f"{r['seconds']} s over {r['connections']} connections, {r['errors']} errors; "
          f"latency ms p50 {lat.get('p50')} p90 {lat.get('p90')} p99 {lat.get('p99')} "
          f"max {lat.get('max')}")
    for sample in r["error_samples"]:
        print(f"  error: {sample}")


if __name__ == "__main__":
    sys.exit(main())
