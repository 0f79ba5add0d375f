"""``kgground serve`` under hostile load (issue 14): a burst of connections, the landing page
while a catastrophic regex runs, light queries beside heavy ones, and a heavy query's memory.

Each scenario runs against a fresh ``kgground serve`` process per source tree given with
``--tree`` (default: this one), one tree after the other within a scenario, so that an
older tree (e.g. a worktree of main before the fixes) is measured beside this one under
the same machine load. Targets: the burst all answered (200 or 503) within 5 s; the page
within 2 s while any query runs; a heavy query's peak memory (the server's VmHWM) <= 1 GB.

    python bench/bench_robust.py --db slice.sqlite [--tree /path/to/old/tree] [--json]
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
import threading
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent
LIGHT = "ASK { wd:Q42 wdt:P31 wd:Q5 }"
#: a three-way cartesian product counted: minutes of work for SQLite
HEAVY = ("SELECT (COUNT(*) AS ?n) WHERE { ?a wdt:P36 ?x . ?b wdt:P36 ?y . "
         "?c wdt:P36 ?z }")
#: the same product selected: rows without end
CARTESIAN = "SELECT ?a ?b ?c WHERE { ?a wdt:P36 ?x . ?b wdt:P36 ?y . ?c wdt:P36 ?z }"


def catastrophic(length: int) -> str:
    """REGEX(^(.+)+Z$) over one string of ``length`` characters without a Z: exponential
    time for a backtracking engine."""
    return ('SELECT ?l WHERE { VALUES ?l { "' + "a" * length + '" } '
            'FILTER(REGEX(?l, "^(.+)+Z$")) }')


def start(tree: Path, db: str, timeout: float) -> tuple[subprocess.Popen, str, int]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    proc = subprocess.Popen([sys.executable, "-c", "from reasoning.cli import main; main()",
                             "serve", "--db", db, "--port", "0", "--timeout", str(timeout)],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env=env, cwd=tree)
    line = proc.stdout.readline() if proc.stdout else ""
    if not line.startswith("SPARQL endpoint: "):
        proc.kill()
        raise SystemExit(f"kgground serve from {tree} did not start: {line!r}")
    url = line.split()[2]
    return proc, url, int(urllib.parse.urlsplit(url).port)


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


def request(port: int, query: str | None, timeout: float) -> tuple[int, float]:
    """(HTTP status or 0 when not answered in ``timeout`` s, seconds)."""
    target = "/" if query is None else "/sparql?" + urllib.parse.urlencode({"query": query})
    started = time.monotonic()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            s.settimeout(max(timeout - (time.monotonic() - started), 0.01))
            s.sendall(f"GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                      .encode())
            head = s.recv(64)
            status = int(head.split()[1]) if head else 0
    except (OSError, ValueError, IndexError):
        status = 0
    return status, time.monotonic() - started


def burst(port: int, n: int = 200, timeout: float = 60.0) -> dict[str, Any]:
    results: list[tuple[int, float]] = []
    lock = threading.Lock()
    go = threading.Event()

    def one() -> None:
        go.wait()
        out = request(port, LIGHT, timeout)
        with lock:
            results.append(out)

    threads = [threading.Thread(target=one) for _ in range(n)]
    for t in threads:
        t.start()
    go.set()
    for t in threads:
        t.join()
    times = sorted(s for _, s in results)
    codes = [c for c, _ in results]
    return {"connections": n, "ok_200": codes.count(200), "busy_503": codes.count(503),
            "unanswered": codes.count(0), "other": sum(c not in (0, 200, 503) for c in codes),
            "answered_within_5s": sum(1 for c, s in results if c and s <= 5.0),
            "p50_s": round(statistics.median(times), 3), "max_s": round(times[-1], 3)}


def page_during(port: int, query: str, probes: int = 10) -> dict[str, Any]:
    with ThreadPoolExecutor(1) as pool:
        running = pool.submit(request, port, query, 120.0)
        time.sleep(0.3)
        pages = []
        for _ in range(probes):
            pages.append(request(port, None, 60.0)[1])
            time.sleep(0.2)
        status, seconds = running.result()
    return {"query_status": status, "query_s": round(seconds, 2),
            "page_max_s": round(max(pages), 3), "page_p50_s": round(statistics.median(pages),
                                                                     3)}


def heavy_beside_light(port: int, pid: int, seconds: float = 8.0) -> dict[str, Any]:
    with ThreadPoolExecutor(4) as pool:
        heavy = [pool.submit(request, port, HEAVY, 120.0) for _ in range(4)]
        time.sleep(1.5)
        light = []
        until = time.monotonic() + seconds
        while time.monotonic() < until:
            light.append(request(port, LIGHT, 60.0))
        done = [f.result() for f in heavy]
    times = sorted(s for _, s in light)
    return {"light_answered": sum(c == 200 for c, _ in light), "light_sent": len(light),
            "light_p50_s": round(statistics.median(times), 3),
            "light_max_s": round(times[-1], 3),
            "heavy_statuses": sorted(c for c, _ in done),
            "heavy_s": [round(s, 1) for _, s in done], "server_peak_rss_mb": peak_rss_mb(pid)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", required=True, help="the mirror to serve (the slice)")
    ap.add_argument("--tree", action="append", default=[], metavar="DIR",
                    help="a kgground source tree to serve from (repeatable; default: this)")
    ap.add_argument("--timeout", type=float, default=30.0, help="server query timeout [30]")
    ap.add_argument("--regex-length", type=int, default=24,
                    help="characters the catastrophic regex runs over [24]")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    trees = [Path(t).resolve() for t in args.tree] or [HERE]
    out: dict[str, Any] = {"machine": {"python": platform.python_version(),
                                       "cpus": os.cpu_count(),
                                       "load_before": os.getloadavg()}, "trees": {}}
    scenarios = [
        ("burst_200", lambda port, pid: burst(port)),
        ("page_during_regex", lambda port, pid: page_during(
            port, catastrophic(args.regex_length))),
        ("page_during_heavy", lambda port, pid: page_during(port, HEAVY)),
        ("heavy_beside_light", heavy_beside_light),
        ("cartesian_memory", lambda port, pid: {
            "status_s": request(port, CARTESIAN, 120.0),
            "server_peak_rss_mb": peak_rss_mb(pid)}),
    ]
    for name, run in scenarios:
        for tree in trees:                        # one tree after the other, per scenario
            proc, _, port = start(tree, args.db, args.timeout)
            try:
                request(port, LIGHT, 60.0)        # warm up: parser, connection
                result = run(port, proc.pid)
            finally:
                stop(proc)
            out["trees"].setdefault(str(tree), {})[name] = result
            if not args.json:
                print(f"{name:<20} {tree.name:<14} {json.dumps(result)}", flush=True)
    out["machine"]["load_after"] = os.getloadavg()
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        print(f"load average before {out['machine']['load_before']}, "
              f"after {out['machine']['load_after']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
