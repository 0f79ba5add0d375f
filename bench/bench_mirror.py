"""Benchmarks for the local mirror (issue 2's targets), with anchors measured in the same run.

    python bench/bench_mirror.py [--virtuoso] [--skip-rdflib] [--json out.json]

Sections, each printed as a table (and written with everything else to ``--json``):

1. Slice load: ``trex-slice.nt.gz`` into a fresh SQLite mirror with ``store.ingest.load``
   (wall, peak RSS of the loader process and of its forked parser process, separately and
   summed, CPU per process, and where the wall time goes), the ``kgground mirror load`` CLI
   end to end, and the anchors: pyoxigraph in-memory ``Store().bulk_load`` and rdflib
   ``Graph().parse`` of the decompressed N-Triples, Virtuoso's bulk loader (``--virtuoso``).
   Loaded counts are checked against the distinct triples of the file.
2. JSON dump ingest of ``dump-sample-100.json.bz2``: MB/s of uncompressed JSON from the .bz2
   file and from plain JSON, serial and with the parser process; anchors: orjson alone,
   qwikidata's object model. Statement/qualifier/reference counts are checked.
3. Triplet query: ``MirrorKB.statements(subject, property)`` latency over the (subject,
   property) pairs of ``slice-qa-dev.jsonl``, in-process and warm; pyoxigraph
   ``quads_for_pattern`` over the same pairs.
4. Search: ``MirrorKB.search`` queries/s over the English labels of those subjects, and over
   single common words (frequent first names of humans in the slice).

Every measured system runs in its own fresh child process (this script re-invoked with
``--child``), so that RSS numbers are per system and one system's heap never affects the next.
Within the JSON and query children the measurements are interleaved in rounds (each system
or query set once per round; medians reported), and a fixed probe between rounds shows how
fast the machine ran: this host has slow phases of seconds that no wait counter shows.
Data is read from ``--data`` (default: ../shared/data next to the repository) and never copied
into the repository; scratch files go to a temporary folder that is removed at the end.
"""

from __future__ import annotations

import argparse
import bz2
import contextlib
import gzip
import json
import os
import platform
import re
import resource
import shlex
import shutil
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DATA = REPO.parent / "shared" / "data"
SLICE = "wikidata/trex-slice.nt.gz"
DUMP = "wikidata/dump-sample-100.json.bz2"
QA = "benchmarks/slice-qa-dev.jsonl"
WD, WDT = "http://www.wikidata.org/entity/", "http://www.wikidata.org/prop/direct/"
RESULT_MARK = "@@RESULT@@ "
SAMPLE_INTERVAL = 0.2   # seconds between RSS/PSS samples of a measured process tree

TARGETS = {"load_wall_s": 10.0, "load_rss_mb": 500.0, "json_mb_s": 40.0,
           "statements_median_us": 20.0, "search_qps": 5000.0}

# Term predicates of Wikidata's truthy N-Triples, as the mirror stores them.
PREDICATE_CLASSES = {
    "<http://www.w3.org/2000/01/rdf-schema#label>": "label",
    "<http://www.w3.org/2004/02/skos/core#altLabel>": "alias",
    "<http://schema.org/description>": "description",
    "<http://wikiba.se/ontology#propertyType>": "propertyType",
}


# ---------------------------------------------------------------------------------------------
# small helpers
# ---------------------------------------------------------------------------------------------
def mb(kb: float | None) -> float | None:
    return None if kb is None else round(kb / 1024, 1)


def pct(values: list[float], q: float) -> float:
    """The q-quantile (0..1) of values, nearest rank."""
    s = sorted(values)
    return s[min(len(s) - 1, max(0, int(round(q * (len(s) - 1)))))]


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def rusage_dict(ru: Any) -> dict[str, float]:
    return {"user_s": round(ru.ru_utime, 3), "sys_s": round(ru.ru_stime, 3),
            "maxrss_mb": mb(ru.ru_maxrss)}


def machine_info() -> dict[str, Any]:
    cpu = "?"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    ram = None
    with contextlib.suppress(OSError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                ram = round(int(line.split()[1]) / 1024 / 1024, 1)
    versions = {}
    for mod in ("orjson", "msgspec", "sqlalchemy", "pyoxigraph", "rdflib", "qwikidata"):
        try:
            from importlib.metadata import version
            versions[mod] = version(mod)
        except Exception:  # noqa: BLE001 - not installed
            versions[mod] = None
    virtuoso = None
    if shutil.which("virtuoso-t"):
        with contextlib.suppress(Exception):
            out = subprocess.run(["virtuoso-t", "-?"], capture_output=True, text=True,
                                 timeout=10)
            m = re.search(r"Version (\S+)", out.stdout + out.stderr)
            virtuoso = m.group(1) if m else None
    commit, dirty = None, None
    with contextlib.suppress(Exception):
        commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, timeout=10).stdout.strip()
        # --no-optional-locks: status must not refresh (write) the index
        st = subprocess.run(["git", "--no-optional-locks", "-C", str(REPO), "status",
                             "--porcelain"], capture_output=True, text=True, timeout=10).stdout
        dirty = len([line for line in st.splitlines() if line.strip()])
    return {"cpu": cpu, "cores": os.cpu_count(), "ram_gb": ram,
            "python": platform.python_version(), "sqlite": sqlite3.sqlite_version,
            "platform": platform.platform(), "hostname": socket.gethostname(),
            "versions": versions, "virtuoso": virtuoso, "git_commit": commit,
            "git_changed_files": dirty, "loadavg_start": loadavg()}


# ---------------------------------------------------------------------------------------------
# running a measured child process
# ---------------------------------------------------------------------------------------------
def _children(pid: int) -> list[int]:
    out = []
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError):
                out += [int(c) for c in
                        Path(f"/proc/{pid}/task/{task}/children").read_text().split()]
    return out


def _tree(pid: int) -> list[int]:
    seen, todo = [], [pid]
    while todo:
        p = todo.pop()
        seen.append(p)
        todo += _children(p)
    return seen


def _mem_kb(pid: int) -> tuple[int, int, int]:
    """(RSS, PSS, anonymous) kB of a live process, zeros when it is gone."""
    rss = pss = anon = 0
    with contextlib.suppress(OSError, ValueError):
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Rss:"):
                rss = int(line.split()[1])
            elif line.startswith("Pss:"):
                pss = int(line.split()[1])
            elif line.startswith("Anonymous:"):
                anon = int(line.split()[1])
    return rss, pss, anon


def schedstat(pid: int | str = "self") -> tuple[float, float]:
    """(seconds on a CPU, seconds runnable but waiting for a CPU) of a process, summed over
    its threads (/proc/PID/task/*/schedstat). The wait is what other work on the machine
    costs this process: the benchmark's noise, measured."""
    run = wait = 0
    with contextlib.suppress(OSError):
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError, ValueError):
                f = Path(f"/proc/{pid}/task/{task}/schedstat").read_text().split()
                run += int(f[0])
                wait += int(f[1])
    return run / 1e9, wait / 1e9


def psi() -> dict[str, float]:
    """System-wide pressure stall totals (seconds): time some task waited for a CPU / IO."""
    out = {}
    for res in ("cpu", "io"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            for line in Path(f"/proc/pressure/{res}").read_text().splitlines():
                kind, *fields = line.split()
                total = dict(x.split("=") for x in fields)["total"]
                out[f"{res}_{kind}_s"] = int(total) / 1e6
    return out


def psi_delta(before: dict[str, float]) -> dict[str, float]:
    after = psi()
    return {k: round(after[k] - v, 2) for k, v in before.items() if k in after}


class TreeSampler(threading.Thread):
    """Samples RSS and PSS of a process and its descendants every ``interval`` seconds:
    the peak of the summed RSS/PSS over time (processes that share copy-on-write pages
    after a fork count them once in PSS, twice in RSS)."""

    def __init__(self, pid: int, interval: float = 0.2):
        super().__init__(daemon=True)
        self.pid, self.interval = pid, interval
        self.stop_event = threading.Event()
        self.peak_rss_kb = self.peak_pss_kb = self.peak_anon_kb = 0
        self.max_procs = 0
        self.samples = 0
        self.sched: dict[int, tuple[float, float]] = {}   # pid → last (cpu s, wait s)

    def run(self) -> None:
        while not self.stop_event.is_set():
            rss = pss = anon = 0
            pids = _tree(self.pid)
            for p in pids:
                r, s, a = _mem_kb(p)
                rss += r
                pss += s
                anon += a
                st = schedstat(p)
                if st != (0, 0):
                    self.sched[p] = st
            self.peak_rss_kb = max(self.peak_rss_kb, rss)
            self.peak_pss_kb = max(self.peak_pss_kb, pss)
            self.peak_anon_kb = max(self.peak_anon_kb, anon)
            self.max_procs = max(self.max_procs, len(pids))
            self.samples += 1
            self.stop_event.wait(self.interval)

    def stop(self) -> dict[str, Any]:
        self.stop_event.set()
        if self.is_alive():
            self.join()
        return {"sampled_peak_rss_sum_mb": mb(self.peak_rss_kb),
                "sampled_peak_pss_sum_mb": mb(self.peak_pss_kb),
                "sampled_peak_anon_sum_mb": mb(self.peak_anon_kb),
                "sampled_max_processes": self.max_procs, "samples": self.samples,
                "runqueue_wait_s_by_pid": {str(p): round(w, 3)
                                           for p, (_, w) in self.sched.items()},
                "runqueue_wait_s": round(sum(w for _, w in self.sched.values()), 3)}


def run_measured(cmd: list[str], *, log_path: Path, env: dict[str, str] | None = None,
                 timeout: float | None = None) -> dict[str, Any]:
    """Run ``cmd``; return wall time, wait4 rusage (max RSS over the process and its waited
    descendants; CPU summed over them), sampled tree RSS/PSS, stdout, and the child's
    RESULT line parsed, if it printed one."""
    pressure = psi()
    ru_self = resource.getrusage(resource.RUSAGE_SELF)   # this process: the sampler's cost
    cpu_before = ru_self.ru_utime + ru_self.ru_stime
    with open(log_path, "ab") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, env=env, cwd=REPO)
        sampler = TreeSampler(proc.pid, SAMPLE_INTERVAL)
        if SAMPLE_INTERVAL > 0:
            sampler.start()
        timer = None
        if timeout:
            timer = threading.Timer(timeout, proc.kill)
            timer.start()
        stdout = proc.stdout.read().decode("utf-8", "replace")
        _, status, ru = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        if timer:
            timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        sampled = sampler.stop()
    ru_self = resource.getrusage(resource.RUSAGE_SELF)
    sampled["sampler_cpu_s"] = round(ru_self.ru_utime + ru_self.ru_stime - cpu_before, 3)
    result = None
    for line in stdout.splitlines():
        if line.startswith(RESULT_MARK):
            result = json.loads(line[len(RESULT_MARK):])
    out = {"cmd": " ".join(shlex.quote(c) for c in cmd), "exit_code": proc.returncode,
           "pid": proc.pid,
           "process_wall_s": round(wall, 3), "rusage_tree": rusage_dict(ru), **sampled,
           "pressure_stall_s": psi_delta(pressure), "loadavg_after": loadavg(),
           "result": result, "stdout": stdout if result is None else None}
    if proc.returncode != 0 or (result is not None and result.get("error")):
        tail = log_path.read_text(errors="replace").splitlines()[-15:]
        out["error"] = (result or {}).get("error") or (
            f"exit code {proc.returncode}; stderr tail:\n" + "\n".join(tail))
    return out


def run_child(kind: str, args: dict[str, Any], workdir: Path, **kw: Any) -> dict[str, Any]:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", kind, json.dumps(args)]
    return run_measured(cmd, log_path=workdir / f"child-{kind}.log", **kw)


# ---------------------------------------------------------------------------------------------
# child processes (each prints one RESULT line)
# ---------------------------------------------------------------------------------------------
def _self_rss_now_mb() -> float | None:
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return mb(int(line.split()[1]))
    return None


def child_ntstats(a: dict[str, Any]) -> dict[str, Any]:
    """Lines, distinct triples and distinct triples per predicate class of the .nt file."""
    lines = dup = 0
    seen: set[int] = set()
    per_class: Counter = Counter()
    en_labels = 0
    for line in open(a["nt"], "rb"):
        if not line.strip() or line.startswith(b"#"):
            continue
        lines += 1
        h = hash(line.rstrip())
        if h in seen:
            dup += 1
            continue
        seen.add(h)
        p = line.split(b" ", 2)[1].decode()
        cls = PREDICATE_CLASSES.get(p) or ("wdt" if p.startswith("<" + WDT) else "other")
        per_class[cls] += 1
        if cls == "label" and line.rstrip().endswith(b"@en ."):
            en_labels += 1
    return {"lines": lines, "duplicate_lines": dup, "distinct_triples": len(seen),
            "per_class": dict(per_class), "en_labels": en_labels}


def child_kgground_load(a: dict[str, Any]) -> dict[str, Any]:
    """store.ingest.load into a fresh mirror, with the phases timed by wrapping the loader's
    own functions (a few hundred calls: the wrappers cost microseconds)."""
    t_imp = time.perf_counter()
    import sqlalchemy as sa

    import store.ingest as ingest
    import store.writer as writer
    from store.mirror import Mirror
    import_s = time.perf_counter() - t_imp

    phases: dict[str, float] = defaultdict(float)
    calls: Counter = Counter()

    def timed(name: str, fn: Any) -> Any:
        def wrapper(*args: Any, **kw: Any) -> Any:
            t = time.perf_counter()
            try:
                return fn(*args, **kw)
            finally:
                phases[name] += time.perf_counter() - t
                calls[name] += 1
        return wrapper

    def timed_gen(name: str, fn: Any) -> Any:
        def wrapper(*args: Any, **kw: Any) -> Any:
            it = fn(*args, **kw)
            while True:
                t = time.perf_counter()
                try:
                    item = next(it)
                except StopIteration:
                    phases[name] += time.perf_counter() - t
                    return
                phases[name] += time.perf_counter() - t
                calls[name] += 1
                yield item
        return wrapper

    def table_of(sql: str) -> str:
        m = re.match(r"\s*(INSERT INTO|UPDATE|DELETE FROM)\s+(\w+)", sql)
        return f"{m.group(1).split()[0].lower()} {m.group(2)}" if m else sql[:30]

    orig_exec = writer.executemany

    def executemany(m: Any, sql: str, rows: Any) -> int:
        t = time.perf_counter()
        try:
            return orig_exec(m, sql, rows)
        finally:
            key = f"write_batch: {table_of(sql)}"
            phases[key] += time.perf_counter() - t
            calls[key] += 1

    missing: list[str] = []

    def hook(module: Any, attr: str, wrap: Any, label: str) -> None:
        """Wrap module.attr if the loader still has it (the library changes; the
        benchmark must not break when a helper is renamed: it reports it instead)."""
        fn = getattr(module, attr, None)
        if fn is None:
            missing.append(f"{module.__name__}.{attr}")
        else:
            setattr(module, attr, wrap(label, fn))

    if a.get("phases", True):
        hook(ingest, "begin_bulk", timed, "begin_bulk (drop indexes)")
        hook(ingest, "write_batch", timed, "write_batch (total)")
        hook(ingest, "end_bulk", timed, "end_bulk (build secondary indexes)")
        gens = [n for n in ("_parallel_batches", "_batches_in_worker") if hasattr(ingest, n)]
        if gens:
            hook(ingest, gens[0], timed_gen,
                 "receive batches from parser process (wait + unpickle)")
        else:
            missing.append("store.ingest._parallel_batches")
        hook(ingest, "read_batches", timed_gen, "parse in this process (serial)")
        if hasattr(writer, "executemany"):
            writer.executemany = executemany
        hook(writer, "_with_norms", timed, "write_batch: normalize labels")
        hook(writer, "index_new_terms", timed, "write_batch: FTS5 label index")
        orig_finish = ingest.finish

        def finish(mirror: Any) -> None:
            def query(sql: str, params: Any = ()) -> Any:
                t = time.perf_counter()
                try:
                    return type(mirror).query(mirror, sql, params)
                finally:
                    key = "finish: " + " ".join(sql.split())[:48]
                    phases[key] += time.perf_counter() - t
            mirror.query = query
            try:
                orig_finish(mirror)
            finally:
                del mirror.query
        ingest.finish = timed("finish (total, entity degrees + ANALYZE)", finish)

    db = Path(a["db"])
    m = Mirror(db, create=True)
    if a.get("phases", True):
        starts: dict[int, float] = {}

        @sa.event.listens_for(m.engine, "before_cursor_execute")
        def _before(conn, cursor, statement, *rest):  # noqa: ANN001
            starts[id(cursor)] = time.perf_counter()

        @sa.event.listens_for(m.engine, "after_cursor_execute")
        def _after(conn, cursor, statement, *rest):  # noqa: ANN001
            t = starts.pop(id(cursor), None)
            mm = re.match(r"\s*CREATE (UNIQUE )?INDEX (\w+)", statement)
            if t is not None and mm:
                phases[f"end_bulk: CREATE INDEX {mm.group(2)}"] += time.perf_counter() - t

    rss_before = _self_rss_now_mb()
    sched0 = schedstat()
    t0 = time.perf_counter()
    report = ingest.load(m, a["path"], parallel=a.get("parallel"))
    wall = time.perf_counter() - t0
    sched1 = schedstat()
    ru_self = resource.getrusage(resource.RUSAGE_SELF)
    ru_kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    stats = m.stats()
    stats.pop("sources", None)
    m.close()
    files = {p.name: p.stat().st_size for p in db.parent.glob(db.name + "*")}
    return {"wall_s": round(wall, 3), "import_s": round(import_s, 3),
            "rss_before_load_mb": rss_before,
            "main": rusage_dict(ru_self), "parser": rusage_dict(ru_kids),
            "main_during_load": {"cpu_s": round(sched1[0] - sched0[0], 3),
                                 "runqueue_wait_s": round(sched1[1] - sched0[1], 3)},
            "report": {k: v for k, v in report.as_dict().items() if k != "error_samples"},
            "error_samples": report.error_samples[:5], "stats": stats,
            "phase_hooks_missing": missing,
            "db_bytes": sum(files.values()), "db_files": files,
            "phases": sorted(([k, round(v, 3), calls.get(k, 0)] for k, v in phases.items()),
                             key=lambda r: r[0])}


def child_pyoxigraph(a: dict[str, Any]) -> dict[str, Any]:
    import pyoxigraph as ox
    rss_before = _self_rss_now_mb()
    ru0 = resource.getrusage(resource.RUSAGE_SELF)
    store = ox.Store()
    t0 = time.perf_counter()
    store.bulk_load(path=a["nt"], format=ox.RdfFormat.N_TRIPLES)
    wall = time.perf_counter() - t0
    ru1 = resource.getrusage(resource.RUSAGE_SELF)
    n = len(store)
    out: dict[str, Any] = {
        "wall_s": round(wall, 3), "triples": n, "rss_before_load_mb": rss_before,
        "maxrss_mb": mb(ru1.ru_maxrss),
        "cpu_s": round(ru1.ru_utime + ru1.ru_stime - ru0.ru_utime - ru0.ru_stime, 3)}
    pairs = a.get("pairs") or []
    if pairs:
        NamedNode = ox.NamedNode

        def q(s: str, p: str) -> list:
            return list(store.quads_for_pattern(NamedNode(WD + s), NamedNode(WDT + p),
                                                None, None))
        for s, p in pairs:   # warm
            q(s, p)
        lat = []
        for _ in range(a.get("passes", 5)):
            for s, p in pairs:
                t = time.perf_counter_ns()
                q(s, p)
                lat.append(time.perf_counter_ns() - t)
        found = sum(1 for s, p in pairs if q(s, p))
        gold_ok = sum(1 for (s, p), gold in zip(pairs, a["gold"])
                      if set(gold) <= {str(x.object.value)[len(WD):] for x in q(s, p)})
        out["query"] = _latency(lat) | {"pairs": len(pairs), "non_empty": found,
                                        "gold_answers_found": gold_ok}
    return out


def _latency(ns: list[int]) -> dict[str, Any]:
    us = [x / 1000 for x in ns]
    return {"calls": len(us), "median_us": round(statistics.median(us), 2),
            "p90_us": round(pct(us, 0.9), 2), "p99_us": round(pct(us, 0.99), 2),
            "mean_us": round(statistics.fmean(us), 2)}


def _probe_once() -> float:
    """ms for a fixed piece of pure-Python work (~8 ms on this machine at full speed)."""
    t = time.perf_counter()
    total = 0
    for i in range(200_000):
        total += i * i
    return (time.perf_counter() - t) * 1000


class SpeedProbe:
    """How fast the machine ran while a child measured: the same small piece of work, timed
    between rounds (never during one). This machine shares its host: for seconds at a time
    the same code runs up to 70 % slower, while our process waits for no CPU (so neither
    the run-queue wait nor the pressure numbers show it); the probe does."""

    def __init__(self) -> None:
        self.ms: list[float] = []

    def __call__(self) -> None:
        self.ms.append(_probe_once())

    def summary(self) -> dict[str, Any]:
        if not self.ms:
            return {}
        best, med = min(self.ms), statistics.median(self.ms)
        return {"probes": len(self.ms), "best_ms": round(best, 2), "median_ms": round(med, 2),
                "slow_probes": sum(1 for m in self.ms if m > 1.3 * best),
                "normal_rounds": sorted(self.normal_rounds())}

    def normal_rounds(self) -> set[int]:
        """The rounds of ``run_rounds`` (numbered from 0) that ran at the machine's normal
        speed: the probes before and after them within 30 % of the best probe."""
        if not self.ms:
            return set()
        limit = 1.3 * min(self.ms)
        return {i for i in range(len(self.ms) - 1)
                if self.ms[i] <= limit and self.ms[i + 1] <= limit}


def run_rounds(items: dict[str, Any], rounds: int, probe: SpeedProbe) -> dict[str, Any]:
    """Time each of ``items`` (name → fn; fn returns its seconds, or None to be timed
    here, and a result) once per round, the items interleaved, so that a slow phase of the
    machine falls on all of them alike. Returns name → {"times": [...], "last": result} or
    {"error": ...} for an item that raised (it is dropped from later rounds)."""
    out: dict[str, Any] = {name: {"times": []} for name in items}
    live = dict(items)
    for _ in range(rounds):
        probe()
        for name, fn in list(live.items()):
            t = time.perf_counter()
            try:
                seconds, result = fn()
            except Exception as exc:  # noqa: BLE001 - one broken item must not hide the others
                out[name] = {"error": f"{type(exc).__name__}: {exc}"}
                del live[name]
                continue
            out[name]["times"].append(time.perf_counter() - t if seconds is None else seconds)
            out[name]["last"] = result
    probe()
    return out


def child_rdflib(a: dict[str, Any]) -> dict[str, Any]:
    import rdflib
    rss_before = _self_rss_now_mb()
    g = rdflib.Graph()
    t0 = time.perf_counter()
    g.parse(a["nt"], format="nt")
    wall = time.perf_counter() - t0
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return {"wall_s": round(wall, 3), "triples": len(g), "rss_before_load_mb": rss_before,
            "maxrss_mb": mb(ru.ru_maxrss), "cpu_s": round(ru.ru_utime + ru.ru_stime, 3)}


def _json_lines(data: bytes) -> list[bytes]:
    out = []
    for line in data.split(b"\n"):
        line = line.rstrip()
        if line.endswith(b","):
            line = line[:-1]
        if line and line not in (b"[", b"]"):
            out.append(line)
    return out


def child_json(a: dict[str, Any]) -> dict[str, Any]:
    import orjson

    bz, plain, repeat = Path(a["bz2"]), Path(a["plain"]), a["repeat"]
    scratch = Path(a["scratch"])
    out: dict[str, Any] = {"rows": []}
    data = bz2.decompress(bz.read_bytes())
    size = len(data)
    out["json_bytes"] = size
    out["bz2_bytes"] = bz.stat().st_size

    lines = _json_lines(data)
    ref: Counter = Counter()     # reference counts, straight from the JSON
    for line in lines:
        e = orjson.loads(line)
        ref["entities"] += 1
        for group in (e.get("claims") or {}).values():
            for st in group:
                ref["statements"] += 1
                ref["qualifiers"] += sum(len(v) for v in (st.get("qualifiers") or {}).values())
                ref["references"] += len(st.get("references") or [])
    out["expected_counts"] = dict(ref)

    def untimed(fn: Any) -> Any:
        """An item timed by run_rounds as a whole."""
        return lambda: (None, fn())

    def t_bz2() -> int:
        return len(bz2.decompress(bz.read_bytes()))

    def t_indexed_bzip2() -> int:
        import indexed_bzip2
        with indexed_bzip2.open(str(bz), parallelization=os.cpu_count() or 1) as f:
            return len(f.read())

    def t_orjson() -> int:
        loads = orjson.loads
        for line in lines:
            loads(line)
        return len(lines)

    def t_orjson_bz2() -> int:
        n = 0
        with bz2.open(bz) as f:
            for line in f:
                line = line.rstrip()
                if line.endswith(b","):
                    line = line[:-1]
                if line and line not in (b"[", b"]"):
                    orjson.loads(line)
                    n += 1
        return n

    def qw_classes() -> dict[str, Any]:
        from qwikidata.entity import WikidataItem, WikidataLexeme, WikidataProperty
        return {"item": WikidataItem, "property": WikidataProperty, "lexeme": WikidataLexeme}

    def touch(ent: Any, c: Counter) -> None:
        for group in ent.get_claim_groups().values():
            for claim in group:
                c["statements"] += 1
                _ = claim.mainsnak.datavalue
                for qs in claim.qualifiers.values():
                    for q in qs:
                        _ = q.snak.datavalue
                        c["qualifiers"] += 1
                for r in claim.references:
                    c["references"] += 1
                    for snaks in r.snaks.values():
                        for sn in snaks:
                            _ = sn.datavalue

    def t_qwikidata() -> Counter:
        classes, c = qw_classes(), Counter()
        for line in lines:
            d = orjson.loads(line)
            touch(classes[d["type"]](d), c)
        return c

    def t_qwikidata_dump() -> Counter:
        from qwikidata.json_dump import WikidataJsonDump
        classes, c = qw_classes(), Counter()
        for d in WikidataJsonDump(str(bz)):
            touch(classes[d["type"]](d), c)
        return c

    def t_parse_only() -> int:
        from store.batches import Filters, Job, read_batches
        job = Job(path=plain, format="wikidata-json", source_id=1, filters=Filters(),
                  bulk=True)
        return sum(len(b.statements) for b in read_batches(job))

    items: dict[str, Any] = {
        "bz2 decompression alone (bz2.decompress)": untimed(t_bz2),
        f"indexed_bzip2 decompression alone ({os.cpu_count()} threads)":
            untimed(t_indexed_bzip2),
        "orjson.loads of every line (in memory)": untimed(t_orjson),
        "orjson.loads, streaming from the .bz2": untimed(t_orjson_bz2),
        "qwikidata object model (orjson + WikidataItem, all claims)": untimed(t_qwikidata),
        "qwikidata WikidataJsonDump(.bz2) (bz2 + json) + WikidataItem":
            untimed(t_qwikidata_dump),
        "kgground parser only (read_batches, serial, no database)": untimed(t_parse_only),
    }
    loads: list[str] = []
    try:
        from store.ingest import load, parses_in_processes
        from store.mirror import Mirror
    except ImportError as exc:
        out["rows"].append({"name": "kgground load()", "error": str(exc)})
    else:
        k = 0

        def loader(path: Path, parallel: bool) -> Any:
            def t_load() -> tuple[float, Any]:
                nonlocal k
                k += 1
                db = scratch / f"json-{k}.sqlite"
                m = Mirror(db, create=True)      # not timed: only the load is
                t = time.perf_counter()
                report = load(m, path, parallel=parallel)
                seconds = time.perf_counter() - t
                stats = m.stats()
                m.close()
                for f in scratch.glob(db.name + "*"):
                    f.unlink()
                return seconds, (report, stats)
            return t_load

        for label, path in ((".bz2 file", bz), ("plain JSON", plain)):
            default_parallel = parses_in_processes(path)
            for parallel in (False, True):
                mode = "parser processes" if parallel else "serial"
                tag = " [default]" if parallel == default_parallel else ""
                name = f"kgground load() from {label}, {mode}{tag}"
                items[name] = loader(path, parallel)
                loads.append(name)

    probe = SpeedProbe()
    measured = run_rounds(items, repeat, probe)
    out["speed_probe"] = probe.summary()
    normal = probe.normal_rounds()
    for name, m in measured.items():
        if "error" in m:
            out["rows"].append({"name": name, "error": m["error"]})
            continue
        best, med = min(m["times"]), statistics.median(m["times"])
        row = {"name": name, "best_s": round(best, 4), "median_s": round(med, 4),
               "mb_s": round(size / 1e6 / med, 1), "mb_s_best": round(size / 1e6 / best, 1)}
        at_normal = [t for i, t in enumerate(m["times"]) if i in normal]
        if at_normal:
            row["mb_s_normal"] = round(size / 1e6 / statistics.median(at_normal), 1)
            row["normal_rounds"] = len(at_normal)
        if name in loads:
            report, stats = m["last"]
            row["counts"] = {key: getattr(report, key, None) for key in
                             ("records", "entities", "statements", "qualifiers", "references",
                              "terms", "errors")}
            row["mirror"] = {key: stats.get(key) for key in
                             ("entities", "statements", "qualifiers", "references", "terms")}
        elif name.startswith("qwikidata object model"):
            row["counts"] = dict(m["last"])
        out["rows"].append(row)
    return out


def child_query(a: dict[str, Any]) -> dict[str, Any]:
    from kb.mirror import MirrorKB
    kb = MirrorKB(a["db"])
    pairs = [tuple(p) for p in a["pairs"]]
    gold = a["gold"]
    out: dict[str, Any] = {}

    # -- triplet query and search, in interleaved rounds (a slow phase of the machine falls
    # on all of them alike): per round one pass over the pairs, then each search set for at
    # least its share of --min-search-s
    statements = kb.statements
    for s, p in pairs:
        statements(subject=s, property=p)
    subjects = sorted({s for s, _ in pairs})
    q = kb.mirror.query
    label_of: dict[str, str] = {}
    for i in range(0, len(subjects), 500):
        chunk = subjects[i:i + 500]
        for eid, text in q("SELECT entity, text FROM terms WHERE kind = 0 AND lang = 'en' "
                           f"AND entity IN ({','.join('?' * len(chunk))}) ORDER BY id", chunk):
            label_of.setdefault(eid, text)
    label_queries = [(label_of[s], s) for s in subjects if s in label_of]
    human_labels = [r[0] for r in q(
        "SELECT t.text FROM statements s JOIN terms t ON t.entity = s.subject AND t.kind = 0 "
        "AND t.lang = 'en' WHERE s.property = 'P31' AND s.value = 'Q5'")]
    source = "English labels of humans (P31 Q5)"
    if len(human_labels) < 1000:
        human_labels = [r[0] for r in q("SELECT text FROM terms WHERE kind = 0 AND lang = 'en'")]
        source = "all English labels"
    first = Counter(w[0] for w in (lab.split() for lab in human_labels)
                    if len(w) >= 2 and w[0].isalpha() and len(w[0]) >= 3)
    words = [w for w, _ in first.most_common(a["hard_words"])]
    out["search_sets"] = {
        "labels": {"queries": len(label_queries), "subjects": len(subjects),
                   "subjects_without_en_label": len(subjects) - len(label_queries),
                   "sample": [t for t, _ in label_queries[:5]]},
        "common_words": {"queries": len(words), "source": f"most common first words of {source}",
                         "sample": words[:12]}}
    sets = {"labels": [t for t, _ in label_queries], "common_words": words}
    search = kb.search
    for texts in sets.values():           # warm
        for t in texts:
            search(t)
    lat: list[int] = []
    search_lat: dict[str, list[int]] = {name: [] for name in sets}
    round_qps: dict[str, list[float]] = {name: [] for name in sets}
    rounds, share = a["passes"], a["min_search_s"] / a["passes"]
    probe = SpeedProbe()
    for _ in range(rounds):
        probe()
        for s, p in pairs:
            t = time.perf_counter_ns()
            statements(subject=s, property=p)
            lat.append(time.perf_counter_ns() - t)
        for name, texts in sets.items():
            n, t_start = 0, time.perf_counter()
            while True:
                for text in texts:
                    t0 = time.perf_counter_ns()
                    search(text)
                    search_lat[name].append(time.perf_counter_ns() - t0)
                n += len(texts)
                elapsed = time.perf_counter() - t_start
                if elapsed >= share:
                    break
            round_qps[name].append(n / elapsed)
    probe()
    out["speed_probe"] = probe.summary()
    results = [statements(subject=s, property=p) for s, p in pairs]
    out["statements"] = _latency(lat) | {
        "pairs": len(pairs), "distinct_pairs": len(set(pairs)), "rounds": rounds,
        "non_empty": sum(1 for r in results if r),
        "gold_answers_found": sum(1 for r, g in zip(results, gold)
                                  if set(g) <= {st.value.value for st in r}),
        "mean_rows": round(statistics.fmean(len(r) for r in results), 2)}
    for name, texts in sets.items():
        found = [search(t) for t in texts]
        out[f"search_{name}"] = _latency(search_lat[name]) | {
            "qps": round(statistics.median(round_qps[name]), 1),
            "qps_rounds": [round(x, 1) for x in round_qps[name]],
            "mean_results": round(statistics.fmean(len(r) for r in found), 2)}
    hit1 = hit10 = 0
    for text, s in label_queries:
        ids = [c.id for c in kb.search(text)]
        hit1 += bool(ids) and ids[0] == s
        hit10 += s in ids
    out["search_labels"] |= {"subject_at_1": hit1, "subject_in_top10": hit10}

    out["statements_sql"] = sql_profile(kb, lambda: [statements(subject=s, property=p)
                                                     for s, p in pairs], len(pairs))
    out["search_labels_sql"] = sql_profile(
        kb, lambda: [kb.search(t) for t, _ in label_queries], len(label_queries))
    out["search_common_words_sql"] = sql_profile(kb, lambda: [kb.search(w) for w in words],
                                                 len(words))
    return out


def _sql_kind(sql: str) -> str:
    s = " ".join(sql.split())
    for needle, name in (("t.norm = ?", "exact label match"), ("t.norm > ?", "prefix range"),
                         ("MATCH ?", "FTS5 token match"),
                         ("kind BETWEEN", "labels/descriptions"),
                         ("FROM terms WHERE id IN", "matched texts by row id"),
                         ("FROM statements WHERE", "statements lookup"),
                         ("FROM qualifiers", "qualifiers"),
                         ("FROM statement_references", "references")):
        if needle in s:
            return name
    return s[:40]


def sql_profile(kb: Any, work: Any, n_calls: int) -> dict[str, Any]:
    """One more pass of ``work`` with Mirror.query timed per kind of SQL statement: mean µs
    per call of the API method spent in each, and the rest (Python around the SQL)."""
    mirror = kb.mirror
    spent: dict[str, float] = defaultdict(float)
    count: Counter = Counter()

    def query(sql: str, params: Any = ()) -> Any:
        t = time.perf_counter_ns()
        try:
            return type(mirror).query(mirror, sql, params)
        finally:
            k = _sql_kind(sql)
            spent[k] += time.perf_counter_ns() - t
            count[k] += 1
    mirror.query = query
    try:
        t = time.perf_counter_ns()
        work()
        total = time.perf_counter_ns() - t
    finally:
        del mirror.query
    per = {k: {"us_per_call": round(v / 1000 / n_calls, 2),
               "queries_per_call": round(count[k] / n_calls, 2)} for k, v in spent.items()}
    return {"total_us_per_call": round(total / 1000 / n_calls, 2),
            "outside_sql_us_per_call": round((total - sum(spent.values())) / 1000 / n_calls, 2),
            "sql": per}


CHILDREN = {"ntstats": child_ntstats, "kgground-load": child_kgground_load,
            "pyoxigraph": child_pyoxigraph, "rdflib": child_rdflib, "json": child_json,
            "query": child_query}


def child_main(kind: str, args_json: str) -> None:
    sys.path.insert(0, str(REPO))
    try:
        result = CHILDREN[kind](json.loads(args_json))
    except Exception as exc:  # noqa: BLE001 - reported to the parent
        import traceback
        traceback.print_exc()
        result = {"error": f"{type(exc).__name__}: {exc}"}
    print(RESULT_MARK + json.dumps(result), flush=True)


# ---------------------------------------------------------------------------------------------
# Virtuoso (driven from this process: a server, not a library)
# ---------------------------------------------------------------------------------------------
def _proc_status_kb(pid: int, field: str) -> int | None:
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return None


def _proc_cpu_s(pid: int) -> float | None:
    with contextlib.suppress(OSError, ValueError, IndexError):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return None


def bench_virtuoso(slice_gz: Path, workdir: Path, http_port: int, sql_port: int) -> dict[str, Any]:
    script = REPO / ".ci" / "virtuoso.sh"
    vdir, load_dir = workdir / "virtuoso-db", workdir / "virtuoso-load"
    load_dir.mkdir(parents=True, exist_ok=True)
    # ld_dir may only read folders in DirsAllowed, which the script sets to the folder of
    # the file it loads: start it with a one-triple file next to a copy of the slice
    # (in the scratch folder), then time the bulk load of the slice ourselves.
    shutil.copy(slice_gz, load_dir / slice_gz.name)
    tiny = load_dir / "warmup.nt"
    tiny.write_text("<http://kgground.test/s> <http://kgground.test/p> \"o\" .\n")
    env = os.environ | {"VIRTUOSO_HTTP_PORT": str(http_port), "VIRTUOSO_SQL_PORT": str(sql_port)}
    graph = "http://kgground.test/bench-slice"
    out: dict[str, Any] = {"ports": {"http": http_port, "sql": sql_port}}

    def isql(sql: str) -> str:
        r = subprocess.run(["isql-vt", f"127.0.0.1:{sql_port}", "dba", "dba", "VERBOSE=OFF",
                            "BANNER=OFF", "PROMPT=OFF", "ECHO=OFF", "ERRORS=STDOUT",
                            f"exec={sql}"], capture_output=True, text=True,
                           stdin=subprocess.DEVNULL, timeout=900)
        text = r.stdout + r.stderr
        if r.returncode != 0 or "*** Error" in text:
            raise RuntimeError(f"isql-vt failed: {text.strip()[:500]}")
        return text

    t0 = time.perf_counter()
    r = subprocess.run(["bash", str(script), "start", str(vdir), str(tiny),
                        "http://kgground.test/warmup"], env=env, capture_output=True, text=True,
                       timeout=300)
    out["startup_s"] = round(time.perf_counter() - t0, 2)
    if r.returncode != 0:
        raise RuntimeError(f"virtuoso.sh start failed: {r.stderr.strip()[-800:]}")
    try:
        pid = int((vdir / "virtuoso.pid").read_text())
        cpu0 = _proc_cpu_s(pid)
        out["rss_before_load_mb"] = mb(_proc_status_kb(pid, "VmRSS"))
        t0 = time.perf_counter()
        isql(f"ld_dir('{load_dir}', '{slice_gz.name}', '{graph}'); rdf_loader_run();")
        t1 = time.perf_counter()
        isql("checkpoint;")
        t2 = time.perf_counter()
        cpu1 = _proc_cpu_s(pid)
        errors = isql("SELECT 'LOADERR', ll_file, ll_error FROM DB.DBA.LOAD_LIST "
                      "WHERE ll_error IS NOT NULL;")
        if "LOADERR" in errors:
            raise RuntimeError(f"bulk load reported errors: {errors.strip()[:500]}")
        count = isql(f"SPARQL SELECT COUNT(*) FROM <{graph}> WHERE {{ ?s ?p ?o }};")
        nums = re.findall(r"^\s*(\d+)\s*$", count, re.M)
        out |= {"ld_dir_rdf_loader_run_s": round(t1 - t0, 2), "checkpoint_s": round(t2 - t1, 2),
                "wall_s": round(t2 - t0, 2), "triples": int(nums[-1]) if nums else None,
                "server_cpu_s": round(cpu1 - cpu0, 2) if cpu0 is not None and cpu1 else None,
                "server_peak_rss_mb": mb(_proc_status_kb(pid, "VmHWM")),
                "server_rss_after_mb": mb(_proc_status_kb(pid, "VmRSS"))}
    finally:
        subprocess.run(["bash", str(script), "stop", str(vdir)], env=env, capture_output=True,
                       timeout=120)
    return out


# ---------------------------------------------------------------------------------------------
# the run
# ---------------------------------------------------------------------------------------------
def decompress(src: Path, dst: Path) -> None:
    opener = gzip.open if src.suffix == ".gz" else bz2.open
    with opener(src, "rb") as f, open(dst, "wb") as g:
        shutil.copyfileobj(f, g, 1 << 20)


def load_qa(path: Path) -> tuple[list[list[str]], list[list[str]]]:
    pairs, gold = [], []
    for line in path.read_text().splitlines():
        if line.strip():
            d = json.loads(line)
            pairs.append([d["subject"], d["property"]])
            gold.append(d.get("answers") or [])
    return pairs, gold


def run(opts: argparse.Namespace) -> dict[str, Any]:
    data = Path(opts.data)
    slice_gz, dump_bz2, qa = data / SLICE, data / DUMP, data / QA
    for p in (slice_gz, dump_bz2, qa):
        if not p.is_file():
            raise SystemExit(f"bench_mirror: data file not found: {p} (set --data)")
    workdir = Path(tempfile.mkdtemp(prefix="kgground-bench-", dir=opts.workdir))
    res: dict[str, Any] = {"command": opts.command, "machine": machine_info(),
                           "data": str(data), "targets": TARGETS, "workdir": str(workdir),
                           "sample_interval_s": SAMPLE_INTERVAL}
    pairs, gold = load_qa(qa)
    try:
        log(f"scratch folder {workdir}; decompressing the slice and the dump sample")
        nt = workdir / "trex-slice.nt"
        decompress(slice_gz, nt)
        plain_json = workdir / "dump-sample-100.json"
        decompress(dump_bz2, plain_json)
        res["files"] = {"slice_gz_bytes": slice_gz.stat().st_size,
                        "slice_nt_bytes": nt.stat().st_size,
                        "dump_bz2_bytes": dump_bz2.stat().st_size,
                        "dump_json_bytes": plain_json.stat().st_size}
        st = run_child("ntstats", {"nt": str(nt)}, workdir)
        res["slice_file"] = st.get("result") or {"error": st.get("error")}

        # 1. slice load
        load_runs = []
        for i in range(opts.repeat):
            log(f"kgground load() of the slice, run {i + 1}/{opts.repeat} "
                f"(load average {loadavg()})")
            db = workdir / f"slice-{i}.sqlite"
            r = run_child("kgground-load", {"path": str(slice_gz), "db": str(db),
                                            "parallel": None, "phases": True}, workdir)
            r["loadavg_before"] = loadavg()
            load_runs.append(r)
        res["kgground_load"] = load_runs
        mirror_db = workdir / "slice-0.sqlite"

        if not opts.skip_cli:
            log("kgground mirror load (CLI, end to end)")
            exe = Path(sys.executable).parent / "kgground"
            exe_s = str(exe) if exe.exists() else shutil.which("kgground") or "kgground"
            res["kgground_cli"] = run_measured(
                [exe_s, "mirror", "load", str(slice_gz), "--db", str(workdir / "cli.sqlite")],
                log_path=workdir / "cli.log")

        log("pyoxigraph Store().bulk_load + quads_for_pattern")
        res["pyoxigraph"] = run_child("pyoxigraph", {"nt": str(nt), "pairs": pairs,
                                                     "gold": gold, "passes": opts.passes},
                                      workdir)
        if not opts.skip_rdflib:
            log("rdflib Graph().parse (about 70 s)")
            res["rdflib"] = run_child("rdflib", {"nt": str(nt)}, workdir)
        if opts.virtuoso:
            log("Virtuoso bulk load")
            try:
                res["virtuoso"] = bench_virtuoso(slice_gz, workdir, opts.virtuoso_http_port,
                                                 opts.virtuoso_sql_port)
            except Exception as exc:  # noqa: BLE001 - reported in the table
                res["virtuoso"] = {"error": f"{type(exc).__name__}: {exc}"}

        # 2. JSON
        log("JSON dump ingest")
        scratch = workdir / "json"
        scratch.mkdir()
        res["json"] = run_child("json", {"bz2": str(dump_bz2), "plain": str(plain_json),
                                         "repeat": opts.json_repeat, "scratch": str(scratch)},
                                workdir)

        # 3 + 4. queries
        log("triplet queries and search")
        if (load_runs[0].get("result") or {}).get("wall_s") is not None:
            res["query"] = run_child("query", {"db": str(mirror_db), "pairs": pairs,
                                               "gold": gold, "passes": opts.passes,
                                               "hard_words": 200,
                                               "min_search_s": opts.min_search_s}, workdir)
        else:
            res["query"] = {"error": "skipped: the slice load failed"}
    finally:
        res["machine"]["loadavg_end"] = loadavg()
        if opts.keep:
            log(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    return res


# ---------------------------------------------------------------------------------------------
# the report
# ---------------------------------------------------------------------------------------------
def fmt(v: Any, nd: int = 2) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:,.{nd}f}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


def table(headers: list[str], rows: list[list[Any]]) -> str:
    cells = [[fmt(c) for c in r] for r in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h)
              for i, h in enumerate(headers)]
    line = lambda r: "  ".join(  # noqa: E731
        (c.ljust(w) if i == 0 else c.rjust(w)) for i, (c, w) in enumerate(zip(r, widths)))
    return "\n".join([line(headers), "  ".join("-" * w for w in widths)] + [line(r) for r in cells])


def verdict(ok: bool | None) -> str:
    return "-" if ok is None else ("PASS" if ok else "FAIL")


def noise(r: dict[str, Any] | None, scope: str = "") -> str:
    """How much other work got in the way of one measured child process (``scope``: what
    the child measured, when it is more than one section)."""
    if not r or "process_wall_s" not in r:
        return ""
    ps = r.get("pressure_stall_s") or {}
    return (f"   noise: this child ran {r['process_wall_s']:.1f} s and waited "
            f"{r.get('runqueue_wait_s', 0):.1f} s for a CPU; machine-wide CPU pressure "
            f"(some) {ps.get('cpu_some_s', '?')} s, IO pressure {ps.get('io_some_s', '?')} s; "
            f"load average after {r.get('loadavg_after')}; the RSS sampler used "
            f"{r.get('sampler_cpu_s')} s CPU{scope}" + speed_note((r.get("result") or {})
                                                          .get("speed_probe")))


def speed_note(sp: dict[str, Any] | None) -> str:
    """The speed probe's summary: how fast the machine ran during the rounds."""
    if not sp:
        return ""
    return (f"\n   machine speed: a fixed probe between rounds took {sp['median_ms']} ms "
            f"(median), {sp['best_ms']} ms at best; {sp['slow_probes']} of {sp['probes']} "
            "probes were over 30 % slower than the best")


def profile_line(what: str, prof: dict[str, Any] | None) -> str:
    if not prof:
        return ""
    parts = [f"{k} {v['us_per_call']} µs ({v['queries_per_call']}x)"
             for k, v in sorted(prof["sql"].items(), key=lambda kv: -kv[1]["us_per_call"])]
    return (f"   where {what} time goes (one profiled pass, mean µs per call): total "
            f"{prof['total_us_per_call']}; SQL: " + ", ".join(parts) +
            f"; Python outside SQL {prof['outside_sql_us_per_call']}")


def report(res: dict[str, Any]) -> str:
    out: list[str] = []
    p = out.append
    m = res["machine"]
    p("kgground mirror benchmarks")
    p(f"command : {res['command']}")
    p(f"machine : {m['cpu']}, {m['cores']} cores, {m['ram_gb']} GB RAM; {m['platform']}")
    p(f"software: Python {m['python']}, SQLite {m['sqlite']}, " + ", ".join(
        f"{k} {v}" for k, v in m["versions"].items()) + f", Virtuoso {m['virtuoso']}")
    p(f"code    : git {m['git_commit']} with {m['git_changed_files']} changed/untracked files "
      "in the working tree")
    p(f"load avg: {m['loadavg_start']} at start, {m.get('loadavg_end')} at end "
      f"({m['cores']} cores; a load above ~0.5 means other work shared the CPU)")
    f = res.get("files", {})
    p(f"data    : {res['data']}")
    sf = res.get("slice_file") or {}
    if "lines" in sf:
        p(f"slice   : {f['slice_gz_bytes'] / 1e6:.1f} MB gz, {f['slice_nt_bytes'] / 1e6:.1f} MB "
          f"N-Triples; {sf['lines']:,} lines, {sf['distinct_triples']:,} distinct triples "
          f"({sf['duplicate_lines']:,} duplicate lines): " + ", ".join(
              f"{k} {v:,}" for k, v in sorted(sf["per_class"].items())))

    # 1. load
    p("")
    p("1. Slice load (trex-slice.nt.gz) — target: <= 10 s wall, peak RSS <= 500 MB, "
      "indexes and label index included")
    rows = []
    best_wall = best_rss = None
    for i, r in enumerate(res.get("kgground_load", [])):
        k = r.get("result") or {}
        if "wall_s" not in k:
            rows.append([f"kgground load() run {i + 1}", "ERROR", "", "", "", "", "",
                         r.get("error")])
            continue
        summed = (k["main"]["maxrss_mb"] or 0) + (k["parser"]["maxrss_mb"] or 0)
        cpu_main = k["main"]["user_s"] + k["main"]["sys_s"]
        cpu_parser = k["parser"]["user_s"] + k["parser"]["sys_s"]
        waits = r.get("runqueue_wait_s_by_pid") or {}
        wait_parser = sum(w for pid, w in waits.items() if pid != str(r.get("pid")))
        rows.append([f"kgground load() -> SQLite, run {i + 1}", k["wall_s"],
                     f"{k['main']['maxrss_mb']:.0f} + {k['parser']['maxrss_mb']:.0f} = "
                     f"{summed:.0f}", r.get("sampled_peak_pss_sum_mb"),
                     f"{cpu_main:.1f} + {cpu_parser:.1f}",
                     f"{k['main_during_load']['runqueue_wait_s']:.1f} + {wait_parser:.1f}",
                     k["stats"]["statements"],
                     f"process wall {r['process_wall_s']:.1f} s (imports {k['import_s']:.2f} s)"
                     f"; anon RSS peak {r.get('sampled_peak_anon_sum_mb')} MB"])
        best_wall = k["wall_s"] if best_wall is None else min(best_wall, k["wall_s"])
        best_rss = summed if best_rss is None else min(best_rss, summed)
    cli = res.get("kgground_cli")
    if cli:
        rows.append(["kgground mirror load (CLI, whole process)",
                     cli["process_wall_s"] if not cli.get("error") else "ERROR",
                     cli["rusage_tree"]["maxrss_mb"], cli.get("sampled_peak_pss_sum_mb"),
                     cli["rusage_tree"]["user_s"] + cli["rusage_tree"]["sys_s"],
                     cli.get("runqueue_wait_s"), "",
                     "max RSS of any one process; incl. start-up"
                     if not cli.get("error") else cli["error"][:80]])
    ox = res.get("pyoxigraph")
    if ox:
        k = ox.get("result") or {}
        rows.append(["pyoxigraph Store().bulk_load (in memory)", k.get("wall_s", "ERROR"),
                     k.get("maxrss_mb"), ox.get("sampled_peak_pss_sum_mb"), k.get("cpu_s"),
                     ox.get("runqueue_wait_s"), k.get("triples"), ox.get("error", "")[:80] or
                     f"RSS {k.get('rss_before_load_mb')} MB before the load"])
    rd = res.get("rdflib")
    if rd:
        k = rd.get("result") or {}
        rows.append(["rdflib Graph().parse(format='nt')", k.get("wall_s", "ERROR"),
                     k.get("maxrss_mb"), rd.get("sampled_peak_pss_sum_mb"), k.get("cpu_s"),
                     rd.get("runqueue_wait_s"), k.get("triples"), rd.get("error", "")[:80] or
                     f"RSS {k.get('rss_before_load_mb')} MB before the parse"])
    else:
        rows.append(["rdflib Graph().parse(format='nt')", "skipped", "", "", "", "", "", ""])
    v = res.get("virtuoso")
    if v:
        if "error" in v:
            rows.append(["Virtuoso bulk load", "ERROR", "", "", "", "", "", v["error"][:100]])
        else:
            rows.append(["Virtuoso ld_dir + rdf_loader_run + checkpoint", v["wall_s"],
                         v["server_peak_rss_mb"], "", v["server_cpu_s"], "", v["triples"],
                         f"loader {v['ld_dir_rdf_loader_run_s']} s + checkpoint "
                         f"{v['checkpoint_s']} s; server start {v['startup_s']} s not included"])
    else:
        rows.append(["Virtuoso bulk load", "skipped (--virtuoso)", "", "", "", "", "", ""])
    p(table(["system", "wall s", "peak RSS MB", "PSS MB", "CPU s", "CPU wait s",
             "triples/stmts", "notes"], rows))
    p("  peak RSS for kgground: main loader + parser process (ru_maxrss each; their sum is an")
    p("  upper bound: they share copy-on-write pages after the fork and need not peak together).")
    p("  PSS MB: peak over time of the summed proportional set size of the process tree,")
    p(f"  sampled every {res.get('sample_interval_s')} s (shared pages counted once). "
      "CPU s for kgground: main + parser.")
    p("  CPU wait s: time the process was runnable but waiting for a CPU (schedstat): what")
    p("  other work on the machine cost this run. kgground: main during load() + parser.")
    for i, r in enumerate(res.get("kgground_load", [])):
        p(noise(r).replace("this child", f"kgground run {i + 1}"))
    ok_wall = best_wall is not None and best_wall <= TARGETS["load_wall_s"]
    ok_rss = best_rss is not None and best_rss <= TARGETS["load_rss_mb"]
    p(f"  verdict (best run): wall {verdict(ok_wall)} ({fmt(best_wall)} s), "
      f"RSS {verdict(ok_rss)} ({fmt(best_rss, 0)} MB, main + parser ru_maxrss summed)")

    k0 = ((res.get("kgground_load") or [{}])[0].get("result")) or {}
    if "phases" in k0:
        p("")
        p("   where the kgground load's wall time goes (run 1, main process; the parser works")
        p("   in parallel, its CPU is in the table above)")
        prow = [[name, secs, n or ""] for name, secs, n in k0["phases"]]
        accounted = sum(s for name, s, _ in k0["phases"] if ":" not in name)
        prow.append(["load() wall", k0["wall_s"], ""])
        prow.append(["  not in a phase above (setup, fingerprint, final commit)",
                     round(k0["wall_s"] - accounted, 3), ""])
        p(table(["phase", "s", "calls"], prow))
        md = k0.get("main_during_load") or {}
        if md:
            blocked = k0["wall_s"] - md["cpu_s"] - md["runqueue_wait_s"]
            p(f"   main process during load(): on a CPU {md['cpu_s']:.1f} s, runnable but "
              f"waiting for a CPU {md['runqueue_wait_s']:.1f} s, blocked (I/O, waiting for "
              f"the parser) {blocked:.1f} s; parser CPU "
              f"{k0['parser']['user_s'] + k0['parser']['sys_s']:.1f} s")
        if k0.get("phase_hooks_missing"):
            p("   (not timed, the loader no longer has: " + ", ".join(k0["phase_hooks_missing"])
              + ")")
        p(f"   mirror file {k0['db_bytes'] / 1e6:.0f} MB; LoadReport: " + ", ".join(
            f"{key} {k0['report'][key]:,}" for key in
            ("records", "entities", "statements", "terms", "errors", "filtered")))

    # counts check
    if "stats" in k0 and "per_class" in sf:
        p("")
        p("   counts: mirror vs the file's distinct triples (and the other systems)")
        s = k0["stats"]
        tk = s.get("terms_by_kind", {})
        pc = sf["per_class"]
        checks = [["wdt: statements", pc.get("wdt"), s["statements"]],
                  ["rdfs:label terms", pc.get("label"), tk.get("label")],
                  ["skos:altLabel terms", pc.get("alias"), tk.get("alias")],
                  ["schema:description terms", pc.get("description"), tk.get("description")],
                  ["wikibase:propertyType", pc.get("propertyType"),
                   s.get("properties_with_datatype")],
                  ["other predicates (not stored)", pc.get("other", 0), None]]
        crow = [[n, a, b, "" if b is None else ("ok" if a == b else f"MISMATCH ({b - a:+,})")]
                for n, a, b in checks]
        for name, key in (("pyoxigraph", "pyoxigraph"), ("rdflib", "rdflib")):
            t = ((res.get(key) or {}).get("result") or {}).get("triples")
            if t is not None:
                crow.append([f"{name}: triples", sf["distinct_triples"], t,
                             "ok" if t == sf["distinct_triples"] else
                             f"MISMATCH ({t - sf['distinct_triples']:+,})"])
        if v and v.get("triples") is not None:
            crow.append(["Virtuoso: triples", sf["distinct_triples"], v["triples"],
                         "ok" if v["triples"] == sf["distinct_triples"] else
                         f"MISMATCH ({v['triples'] - sf['distinct_triples']:+,})"])
        p(table(["what", "file", "loaded", "check"], crow))
        p(f"   mirror: {s['entities']:,} entities, {s['languages']} languages, "
          f"{s['properties']:,} properties; file has English labels {sf['en_labels']:,}")

    # 2. JSON
    p("")
    p("2. JSON dump ingest (dump-sample-100.json.bz2) — target: >= 40 MB/s of uncompressed JSON")
    j = (res.get("json") or {}).get("result") or {}
    if "rows" in j:
        p(f"   {j['json_bytes'] / 1e6:.2f} MB of JSON ({j['bz2_bytes'] / 1e6:.2f} MB bz2); "
          "expected from the JSON: " + ", ".join(f"{k} {v:,}" for k, v in
                                                j["expected_counts"].items()))
        jrows = []
        best_json = None
        for r in j["rows"]:
            if "error" in r:
                jrows.append([r["name"], "ERROR", "", "", "", "", r["error"][:60]])
                continue
            note = ""
            if "counts" in r:
                c = r["counts"]
                exp = j["expected_counts"]
                bad = [f"{k} {c.get(k)} != {exp[k]}" for k in
                       ("statements", "qualifiers", "references") if c.get(k) != exp[k]]
                note = ("counts ok" if not bad else "MISMATCH: " + "; ".join(bad))
                if r["name"].startswith("kgground load()"):
                    note += f"; terms {c.get('terms'):,}, errors {c.get('errors')}"
                    best_json = max(best_json or 0, r["mb_s"])
            normal = (f"{r['mb_s_normal']} ({r['normal_rounds']})" if "mb_s_normal" in r
                      else "")
            jrows.append([r["name"], r["mb_s"], r["mb_s_best"], normal, r["median_s"],
                          r["best_s"], note])
        p(table(["system", "MB/s", "MB/s best", "MB/s normal speed (rounds)", "median s",
                 "best s", "notes"], jrows))
        p(noise(res.get("json")))
        p("   normal speed: the median over the rounds whose probes before and after ran "
          "within 30 % of the best probe")
        ok_json = best_json is not None and best_json >= TARGETS["json_mb_s"]
        p(f"   MB/s from the median. verdict: {verdict(ok_json)}"
          f" (best kgground mode {fmt(best_json, 1)} MB/s)")
    else:
        p(f"   ERROR: {(res.get('json') or {}).get('error')}")

    # 3 + 4
    q = (res.get("query") or {}).get("result") or {}
    p("")
    p("3. Triplet query statements(subject=, property=) over slice-qa-dev pairs, in-process, "
      "warm — target: median <= 20 µs")
    if "statements" in q:
        s = q["statements"]
        oq = ((res.get("pyoxigraph") or {}).get("result") or {}).get("query")
        qrows = [["MirrorKB.statements (-> Statement objects with Citations)", s["median_us"],
                  s["p90_us"], s["p99_us"], s["mean_us"], s["calls"],
                  f"{s['non_empty']}/{s['pairs']} non-empty, gold found {s['gold_answers_found']}"]]
        if oq:
            qrows.append(["pyoxigraph quads_for_pattern (list of quads)", oq["median_us"],
                          oq["p90_us"], oq["p99_us"], oq["mean_us"], oq["calls"],
                          f"{oq['non_empty']}/{oq['pairs']} non-empty, gold found "
                          f"{oq['gold_answers_found']}"])
        p(table(["system", "median µs", "p90 µs", "p99 µs", "mean µs", "calls", "notes"], qrows))
        p(profile_line("statements()", q.get("statements_sql")))
        p(noise(res.get("query"), " (sections 3 and 4)"))
        p(f"   {s['distinct_pairs']:,} distinct pairs, {s['mean_rows']} rows per answer on "
          f"average. verdict: {verdict(s['median_us'] <= TARGETS['statements_median_us'])}")
    else:
        p(f"   ERROR: {(res.get('query') or {}).get('error')}")

    p("")
    p("4. search(text) — target: >= 5,000 queries/s")
    if "search_labels" in q:
        sl, sc, sets = q["search_labels"], q["search_common_words"], q["search_sets"]
        srows = [[f"English labels of the QA subjects ({sets['labels']['queries']:,})", sl["qps"],
                  sl["median_us"], sl["p90_us"], sl["p99_us"], sl["mean_results"],
                  f"subject ranked 1st {sl['subject_at_1']}, in top 10 {sl['subject_in_top10']}"],
                 [f"single common words ({sets['common_words']['queries']})", sc["qps"],
                  sc["median_us"], sc["p90_us"], sc["p99_us"], sc["mean_results"],
                  ", ".join(sets["common_words"]["sample"][:8])]]
        p(table(["query set", "queries/s", "median µs", "p90 µs", "p99 µs", "results", "notes"],
                srows))
        p(f"   queries/s: the median over {len(sl.get('qps_rounds', []))} rounds (labels "
          f"{', '.join(f'{x:,.0f}' for x in sl.get('qps_rounds', []))}; common words "
          f"{', '.join(f'{x:,.0f}' for x in sc.get('qps_rounds', []))})")
        p(profile_line("search(label)", q.get("search_labels_sql")))
        p(profile_line("search(common word)", q.get("search_common_words_sql")))
        p(f"   common words: {sets['common_words']['source']}; "
          f"{sets['labels']['subjects_without_en_label']} QA subjects have no English label. "
          f"verdict: labels {verdict(sl['qps'] >= TARGETS['search_qps'])}, "
          f"common words {verdict(sc['qps'] >= TARGETS['search_qps'])}")
    errors = [f"{k}: {v.get('error')}" for k, v in res.items()
              if isinstance(v, dict) and v.get("error")]
    errors += [f"kgground_load: {r.get('error')}" for r in res.get("kgground_load", [])
               if r.get("error")]
    if errors:
        p("")
        p("ERRORS")
        for e in errors:
            p("  " + e.replace("\n", "\n  "))
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    global SAMPLE_INTERVAL
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        child_main(argv[1], argv[2])
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--virtuoso", action="store_true",
                    help="also time Virtuoso's bulk loader (starts .ci/virtuoso.sh on loopback)")
    ap.add_argument("--skip-rdflib", action="store_true", help="skip the rdflib anchor (~70 s)")
    ap.add_argument("--skip-cli", action="store_true",
                    help="skip the end-to-end `kgground mirror load` run")
    ap.add_argument("--json", metavar="FILE", help="write all measurements to FILE")
    ap.add_argument("--data", default=str(DEFAULT_DATA),
                    help=f"shared data folder [default: {DEFAULT_DATA}]")
    ap.add_argument("--repeat", type=int, default=1,
                    help="kgground slice loads to run (each into a fresh mirror) [1]")
    ap.add_argument("--json-repeat", type=int, default=3,
                    help="rounds of the JSON ingest measurements, each measured once per "
                         "round, interleaved (median reported) [3]")
    ap.add_argument("--passes", type=int, default=5,
                    help="rounds of the query measurements: each round one timed pass over "
                         "the QA pairs for triplet queries, then each search set [5]")
    ap.add_argument("--min-search-s", type=float, default=2.0,
                    help="time each search set for at least this long, in all rounds "
                         "together (queries/s is the median over the rounds) [2.0]")
    ap.add_argument("--virtuoso-http-port", type=int,
                    default=int(os.environ.get("VIRTUOSO_HTTP_PORT", 18892)))
    ap.add_argument("--virtuoso-sql-port", type=int,
                    default=int(os.environ.get("VIRTUOSO_SQL_PORT", 11113)))
    ap.add_argument("--sample-interval", type=float, default=SAMPLE_INTERVAL,
                    help="seconds between RSS/PSS samples of a measured process tree; 0 turns "
                         f"the sampler off (its CPU use is reported) [{SAMPLE_INTERVAL}]")
    ap.add_argument("--workdir", help="where to make the scratch folder [system temp]")
    ap.add_argument("--keep", action="store_true", help="keep the scratch folder")
    opts = ap.parse_args(argv)
    opts.command = "python " + " ".join(shlex.quote(a) for a in
                                        [os.path.relpath(__file__)] + argv)
    SAMPLE_INTERVAL = opts.sample_interval
    res = run(opts)
    text = report(res)
    print(text)
    res["report"] = text
    if opts.json:
        Path(opts.json).write_text(json.dumps(res, indent=1, default=str) + "\n")
        log(f"wrote {opts.json}")
    failed = any(isinstance(v, dict) and v.get("error") for v in res.values()) or any(
        r.get("error") for r in res.get("kgground_load", []))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
