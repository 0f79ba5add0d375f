"""Loading files into a mirror: Wikidata JSON dumps, N-Triples, and any RDF rdflib reads.

``load(mirror, path)`` streams the file (plain, .gz, .bz2 or .xz) in batched transactions;
each commit also records how far the file has been read, so an interrupted load leaves the
mirror consistent and the same command resumes it. Loading is idempotent: a file already
loaded is skipped, terms and truthy triples are unique, and an entity read from a JSON
record replaces what the mirror held about it (its terms and all its statements).

Malformed records are reported with file and line and skipped; ``strict=True`` stops at
the first one, after committing everything before it.

Big files are parsed in other processes, so that the cores all work. N-Triples go through
one parser process (its duplicate filter must see every line) while this one writes.
JSON dumps, whose entities are independent, go through a pool of processes fed by a
reader thread (decompression lets go of the GIL; .bz2 files decompress on threads of
their own, with indexed_bzip2); each worker parses its chunk and then,
in its turn, writes it through its own connection, so that the chunks reach the mirror in
file order and rows never cross between processes (sending them cost as much as writing
them). Writing is serial either way; this process then builds the indexes. Meanwhile a
thread copies the write-ahead log into the database file (``store.checkpoints``), which
the writers would otherwise stop to do.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import gc
import hashlib
import multiprocessing as mp
import os
import queue
import re
import signal
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Generator, Iterator

import orjson

from store.batches import (MAX_ERROR_SAMPLES, RDF_FORMATS, Batch, Filters, Job, JsonChunk,
                           base_suffix, decompresses_on_threads, json_chunks, open_input,
                           parse_json_chunk, read_batches)
from store.checkpoints import Checkpointer, defer_checkpoints
from store.errors import KGGroundError, LoadError, MirrorError
from store.literals import InvalidLiterals
from store.locks import writing
from store.mirror import MMAP_BYTES, Mirror, executemany
from store.network_guard import no_network
from store.writer import begin_bulk, end_bulk, finish, write_batch

__all__ = ["Filters", "LoadReport", "detect_format", "load"]

#: files at least this big are parsed in worker processes
PARALLEL_BYTES = 512 << 10


@dataclass
class LoadReport:
    """What one ``load`` did. ``status`` is 'loaded', 'resumed' or 'already loaded'. The
    counts are the whole file's, also when the load resumed an interrupted one."""
    path: str
    format: str
    status: str = "loaded"
    records: int = 0          # records read: N-Triples lines, JSON entities, RDF triples
    entities: int = 0         # entity rows written
    statements: int = 0       # statement rows added
    terms: int = 0            # label/description/alias rows added
    qualifiers: int = 0
    references: int = 0
    filtered: int = 0         # records left out by the language/property/entity filters
    errors: int = 0           # malformed records skipped
    invalid_literals: int = 0  # typed literals that do not fit their datatype, kept as text
    error_samples: list[str] = field(default_factory=list)
    #: one line per datatype on the invalid literals (``store.literals``)
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def detect_format(path: Path) -> str:
    """'wikidata-json', 'ntriples' or 'rdf', from the name, else from the first bytes."""
    suffix = base_suffix(path)
    if suffix == ".json":
        return "wikidata-json"
    if suffix == ".nt":
        return "ntriples"
    if suffix in RDF_FORMATS:
        return "rdf"
    stream, raw = open_input(path)
    with raw:
        head = stream.read(4096).lstrip()
    if head[:1] in (b"[", b"{"):
        return "wikidata-json"
    if head[:1] in (b"<", b"_"):
        return "ntriples"
    raise LoadError("cannot tell the format of this file", path=str(path),
                    expected="a Wikidata JSON dump (.json[.gz|.bz2]), N-Triples (.nt[.gz]) "
                             "or RDF (" + ", ".join(sorted(RDF_FORMATS)) + ")",
                    got=head[:40].decode("utf-8", "replace"),
                    fix="rename the file with the extension of its format")


def fingerprint(path: Path) -> str:
    """Size plus a hash of the first MiB and the last 64 KiB: cheap even for 100 GB dumps."""
    size = path.stat().st_size
    digest = hashlib.sha1()
    with open(path, "rb") as f:
        digest.update(f.read(1 << 20))
        if size > (1 << 20):
            f.seek(max(size - (1 << 16), 1 << 20))
            digest.update(f.read())
    return f"{size}:{digest.hexdigest()}"


def _dump_date(path: Path) -> str | None:
    m = re.search(r"(?<!\d)(20\d\d)-?([01]\d)-?([0-3]\d)(?!\d)", path.name)
    return f"{m.group(1)}-{m.group(2)}-{m.group(3)}" if m else None


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def load(mirror: Mirror, path: str | Path, *, filters: Filters | None = None,
         strict: bool = False, force: bool = False, progress: bool = False,
         dump_date: str | None = None, parallel: bool | None = None,
         allow_network: bool = False) -> LoadReport:
    """Load one file into ``mirror`` and return what happened.

    Raises LoadError when the file is missing or unreadable, holds no valid record, or
    (``strict``) at its first malformed record; everything committed before the error
    stays in the mirror, and loading the same file again resumes where it stopped.
    Raises MirrorError when another load is writing the mirror (one load per mirror at a
    time: ``store.locks``), when the disk is full, or when the mirror is read-only.
    ``parallel`` parses in worker processes (default: ``parses_in_processes``). Nothing
    is fetched from the network (a JSON-LD ``@context`` URL, an XML DTD) unless
    ``allow_network``: such a file is refused with a LoadError naming the URL.
    Literals that do not fit their datatype are loaded as text and counted
    (``invalid_literals``, one line per datatype in ``warnings``).
    """
    path = Path(path)
    if not path.is_file():
        raise LoadError("no such file", path=str(path),
                        fix="check the path (a Wikidata JSON dump, N-Triples or RDF file)")
    try:
        with writing(mirror), no_network(allow_network):
            return _load(mirror, path, filters=filters, strict=strict, force=force,
                         progress=progress, dump_date=dump_date, parallel=parallel,
                         allow_network=allow_network)
    except Exception as exc:
        clear = storage_error(exc, mirror, f"loading {path}")
        if clear is exc and not isinstance(exc, KGGroundError):
            # kgground's errors only (issue 32): what else failed, named, as a LoadError
            clear = LoadError(f"the load stopped: {type(exc).__name__}: {str(exc)[:300]}",
                              path=str(path), fix="what was committed is kept, and the same "
                              "command resumes; if the file is valid, please report this")
        if clear is exc:
            raise
        raise clear from exc


def storage_error(exc: Exception, mirror: Mirror, doing: str) -> Exception:
    """``exc``, or a MirrorError saying clearly that the disk is full or the mirror is
    read-only when that is what ``exc`` is about."""
    if isinstance(exc, MirrorError):
        return exc
    text = str(exc)
    folder = Path(mirror.path).resolve().parent if mirror.path is not None else None
    where = f"the disk holding {folder}" if folder is not None else "the database's disk"
    if ("database or disk is full" in text or getattr(exc, "errno", None) == errno.ENOSPC
            or "No space left on device" in text):
        return MirrorError(f"{where} is full: {doing} stopped",
                           fix="free some space (or move the mirror to a bigger disk), then "
                               "run the same command again: what was committed is kept, and "
                               "the load resumes where it stopped")
    if "readonly database" in text or "read-only transaction" in text:
        return MirrorError(f"{mirror.location} is read-only: {doing} cannot write it",
                           fix="load into a mirror file you can write (check the file's and "
                               "its folder's permissions)")
    return exc


def _load(mirror: Mirror, path: Path, *, filters: Filters | None, strict: bool, force: bool,
          progress: bool, dump_date: str | None, parallel: bool | None,
          allow_network: bool) -> LoadReport:
    fmt = detect_format(path)
    report = LoadReport(path=str(path), format=fmt)
    started = time.perf_counter()
    source = _source_row(mirror, path, report, force=force, dump_date=dump_date)
    if source is None:
        return report
    source_id, skip = source

    bulk = mirror.get_meta("indexed") == "0" or not mirror.query(
        "SELECT 1 FROM statements UNION ALL SELECT 1 FROM terms LIMIT 1")
    job = Job(path=path, format=fmt, source_id=source_id, filters=filters or Filters(),
              skip=skip, strict=strict, bulk=bulk, allow_network=allow_network)
    if parallel is None:
        parallel = parses_in_processes(path)
    parallel = parallel and "fork" in mp.get_all_start_methods()
    if bulk:
        begin_bulk(mirror)
    if mirror.is_sqlite:   # mapped pages of the file would count in the loader's RSS
        mirror.query("PRAGMA mmap_size = 0")
    bar = _progress_bar(path, progress)
    checkpointer = Checkpointer(mirror)
    batches = _parallel_batches(job, mirror.url) if parallel else read_batches(job)
    # The rows in flight are acyclic tuples and strings, freed by reference counting: the
    # cyclic collector would only re-scan them, again and again (a sixth of a JSON load).
    collecting = gc.isenabled()
    gc.disable()
    parsed = 0          # records read whole
    invalid = InvalidLiterals()
    try:
        for batch in batches:
            # not before the first batch: the parser processes fork when it is asked for
            checkpointer.start()
            if batch.added is None:         # not written by a worker process
                _write(mirror, batch, job)
            parsed += _count_batch(report, batch, invalid)
            if bar is not None and batch.raw_offset:
                bar.update(batch.raw_offset - bar.n)
            if batch.error is not None:
                raise batch.error
    except UnicodeDecodeError as exc:
        raise LoadError(f"not UTF-8 text ({exc.reason})", path=str(path),
                        fix="convert the file to UTF-8; what came before is loaded") from exc
    except (EOFError, OSError) as exc:
        if getattr(exc, "errno", None) == errno.ENOSPC:
            raise
        raise LoadError(f"the file is truncated or its compression is broken ({exc})",
                        path=str(path),
                        fix="get a complete copy; what was read before the damage is kept, "
                            "and loading the repaired file resumes") from exc
    finally:
        batches.close()          # ends the parser processes now, even after an error
        if bar is not None:
            bar.close()
        _wind_down(mirror, bulk=bulk, collecting=collecting, checkpointer=checkpointer)

    if not parsed and not skip:
        _refuse_empty(mirror, source_id, report, path)
    if invalid.total:
        if fmt == "rdf":            # rdflib gives no lines: find them in the file
            invalid.locate(path)
        report.warnings = invalid.summary()
    report.seconds = round(time.perf_counter() - started, 3)
    _complete_source(mirror, source_id, report)
    return report


def _wind_down(mirror: Mirror, *, bulk: bool, collecting: bool,
               checkpointer: Checkpointer) -> None:
    """After a load, also one that failed: the mirror's indexes and statistics restored
    (``end_bulk`` after a bulk load, ``finish``), then — whatever they raise — the cyclic
    collector back on if it was, the file mapped again, and the last checkpoint taken."""
    try:
        if bulk:
            end_bulk(mirror)     # also after an error: the mirror stays queryable
        finish(mirror)
    finally:
        if collecting:
            gc.enable()
        if mirror.is_sqlite:
            mirror.query(f"PRAGMA mmap_size = {MMAP_BYTES}")
        checkpointer.close()     # the last checkpoint: all of the load is in the file


def _complete_source(mirror: Mirror, source_id: int, report: LoadReport) -> None:
    """Mark the load's ``sources`` row complete, with its counts."""
    counts = {k: v for k, v in report.as_dict().items() if k in COUNTED}
    executemany(mirror, "UPDATE sources SET status = 'complete', finished_at = ?, counts = ? "
                        "WHERE id = ?", [(_now(), orjson.dumps(counts).decode(), source_id)])
    mirror.raw.commit()


def _source_row(mirror: Mirror, path: Path, report: LoadReport, *, force: bool,
                dump_date: str | None) -> tuple[int, int] | None:
    """The ``sources`` row this load of ``path`` writes under, as (its id, the records to
    skip): a load of the same file left unfinished is resumed where its last checkpoint
    was (from the start for RDF, whose parser cannot skip), its counts restored; else a
    new row is added. None (``report.status`` saying so) when the file is loaded already
    and ``force`` is not set."""
    fmt = report.format
    fp = fingerprint(path)
    previous = mirror.query("SELECT id, status, position FROM sources WHERE fingerprint = ? "
                            "ORDER BY id DESC LIMIT 1", (fp,))
    if previous and previous[0][1] == "complete" and not force:
        report.status = "already loaded"
        return None
    if previous and previous[0][1] == "loading":
        source_id, skip = previous[0][0], (previous[0][2] if fmt != "rdf" else 0)
        report.status = "resumed"
        if skip:                # the counts of the part committed before: the whole file's
            _restore_counts(report, mirror, source_id)
        else:                   # read again from the start: counted again from 0
            executemany(mirror, "UPDATE sources SET counts = NULL WHERE id = ?", [(source_id,)])
            mirror.raw.commit()
    else:
        executemany(mirror, "INSERT INTO sources (location, format, fingerprint, dump_date, "
                            "loaded_at, status, position) VALUES (?, ?, ?, ?, ?, 'loading', 0)",
                    [(str(path.resolve()), fmt, fp, dump_date or _dump_date(path), _now())])
        mirror.raw.commit()
        source_id, skip = mirror.query("SELECT MAX(id) FROM sources")[0][0], 0
    return source_id, skip


def _count_batch(report: LoadReport, batch: Batch, invalid: InvalidLiterals) -> int:
    """Add a written batch's counts, invalid literals and first error samples (up to
    ``MAX_ERROR_SAMPLES`` in all) to the load's; returns the records it read whole."""
    assert batch.added is not None      # written: by a worker process or by ``_write``
    for key, n in batch.added.items():
        setattr(report, key, getattr(report, key) + n)
    report.records += batch.parsed + batch.errors
    report.filtered += batch.filtered
    report.errors += batch.errors
    report.invalid_literals += batch.invalid.total
    invalid.merge(batch.invalid)
    room = MAX_ERROR_SAMPLES - len(report.error_samples)
    report.error_samples.extend(batch.error_samples[:max(room, 0)])
    return batch.parsed


def _refuse_empty(mirror: Mirror, source_id: int, report: LoadReport, path: Path) -> None:
    """A file with no valid record is no source: drop its row and raise the LoadError
    that says why (the parser's own message when it refused the whole file)."""
    fmt = report.format
    executemany(mirror, "DELETE FROM sources WHERE id = ?", [(source_id,)])
    mirror.raw.commit()
    whole = f"{path}:0: "                # the parser refused the whole file
    if report.errors == 1 and report.error_samples[0].startswith(whole):
        what, _, fix = report.error_samples[0][len(whole):].partition(". Fix: ")
        raise LoadError(what, path=str(path), fix=fix or None)
    what = (f"{report.errors:,} malformed record{'s' * (report.errors != 1)} and no valid "
            "one" if report.errors else "no record")
    samples = "; ".join(report.error_samples[:3])
    raise LoadError(f"the file holds {what}" + (f" ({samples})" if samples else ""),
                    path=str(path),
                    expected=f"{fmt} records" + (" (the format was told by the file's "
                                                 "name)" if base_suffix(path) else ""),
                    fix="check that this is the file you meant, that it is not damaged, "
                        "and that its extension names its format")

#: the counts of a load, kept in its ``sources`` row (also while it runs: see
#: ``store.writer.write_batch``), so that a resumed load reports the whole file's
COUNTED = ("records", "entities", "statements", "terms", "qualifiers", "references",
           "filtered", "errors", "invalid_literals")


def _restore_counts(report: LoadReport, mirror: Mirror, source_id: int) -> None:
    row = mirror.query("SELECT counts FROM sources WHERE id = ?", (source_id,))
    try:
        stored = orjson.loads(row[0][0]) if row and row[0][0] else {}
    except orjson.JSONDecodeError:
        stored = {}
    for key in COUNTED:
        if isinstance(stored.get(key), int):
            setattr(report, key, stored[key])


def parses_in_processes(path: Path) -> bool:
    """Whether ``load`` parses ``path`` in worker processes when not told: for files of
    ``PARALLEL_BYTES`` or more, when there are cores for the workers beside the loader.
    A .bz2 file's decompression threads take about one: on two cores the dump sample
    loads in 364 ms in one process against 388 ms with parser processes."""
    spare = (os.cpu_count() or 1) - decompresses_on_threads(path)
    return path.stat().st_size >= PARALLEL_BYTES and spare >= 2


def _write(mirror: Mirror, batch: Batch, job: Job) -> None:
    """Write ``batch``; the rows added go to ``batch.added``."""
    # A JSON record replaces what the mirror held about its entity. A fresh mirror holds
    # nothing, and a dump lists each entity once: no deletes in bulk mode.
    batch.added = write_batch(mirror, batch, job.source_id,
                              replace=[] if job.bulk else batch.entity_ids)


def _parallel_batches(job: Job, location: str) -> Generator[Batch, None, None]:
    """The batches of ``job``, in file order, parsed in other processes: JSON chunks by a
    pool of workers that also write them into the mirror at ``location`` (entities are
    independent), N-Triples by one worker (its duplicate filter must see every line)."""
    # fork, not spawn: spawn re-imports the caller's __main__, which breaks scripts that
    # call load() without a __main__ guard. Workers never touch the parent's database
    # connections (JSON workers open their own), and they end with os._exit.
    ctx = mp.get_context("fork")
    if job.format == "wikidata-json":
        yield from _pool_batches(job, ctx, location)
        return
    out = ctx.Queue(maxsize=3)
    proc = ctx.Process(target=_worker, args=(job, out, os.getpid()), name="kgground-parser",
                       daemon=True)
    proc.start()
    try:
        while True:
            try:
                item = out.get(timeout=1.0)
            except queue.Empty:
                if not proc.is_alive():
                    raise LoadError(f"the parser process died (exit code {proc.exitcode})",
                                    path=str(job.path),
                                    fix="run the load again; it resumes") from None
                continue
            if item is None:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        if proc.is_alive():
            proc.terminate()
        proc.join(10)
        if proc.is_alive():        # never hang the loader on its parser
            proc.kill()
            proc.join()


class _Turns:
    """Whose turn it is to write, shared by the processes of a load: chunks are numbered
    in file order, parsed in parallel and written one at a time, in that order. A writer
    that fails, or stops at a strict-mode error, stops the turns: nothing after it is
    written."""

    def __init__(self, ctx: Any):
        self._cond = ctx.Condition()
        self._next = ctx.RawValue("q", 0)       # guarded by the condition's lock
        self._stopped = ctx.RawValue("b", 0)

    def wait(self, seq: int) -> bool:
        """Block until chunk ``seq`` may be written; False if the load is stopping."""
        with self._cond:
            while self._next.value != seq and not self._stopped.value:
                self._cond.wait(0.5)
            return not self._stopped.value

    def done(self, seq: int, *, stop: bool = False) -> None:
        """Chunk ``seq`` is written (or, with ``stop``, the load ends here)."""
        with self._cond:
            self._next.value = seq + 1
            self._stopped.value = self._stopped.value or stop
            self._cond.notify_all()

    def stop(self) -> None:
        with self._cond:
            self._stopped.value = 1
            self._cond.notify_all()


#: in a pool worker: its own connection to the mirror, and the turns it shares
_pool_worker: dict[str, Any] = {}


def _init_pool_worker(parent: int, location: str, turns: _Turns) -> None:
    """Open the worker's own connection to the mirror; end the worker if the loader is
    killed."""
    _end_with_parent(parent)
    mirror = Mirror(location, verified=True)
    if mirror.is_sqlite:
        mirror.query("PRAGMA mmap_size = 0")
    defer_checkpoints(mirror)           # the loader's Checkpointer does them
    _pool_worker.update(mirror=mirror, turns=turns)


def _parse_and_write(job: Job, seq: int, chunk: JsonChunk) -> list[Batch]:
    """In a pool worker: parse chunk number ``seq``, wait for its turn, write its batches.
    Returns them written, without their rows (none written if the load is stopping)."""
    batches = parse_json_chunk(job, chunk)
    turns: _Turns = _pool_worker["turns"]
    if not turns.wait(seq):
        return []
    failed = True
    try:
        for batch in batches:
            _write(_pool_worker["mirror"], batch, job)
            batch.drop_rows()
        failed = any(batch.error is not None for batch in batches)
        return batches
    finally:
        turns.done(seq, stop=failed)


def _pool_batches(job: Job, ctx: Any, location: str) -> Iterator[Batch]:
    """JSON chunks parsed and written by a pool of worker processes, their batches (written)
    in file order.

    The workers take turns to write (``_Turns``), so the mirror gets the chunks in file
    order, as a serial load writes them, while parsing runs in parallel; rows never cross
    between processes. A reader thread reads (and decompresses: bz2 and zlib let go of the
    GIL) the file and hands the chunks to the pool. The first chunk (a small one) is
    parsed and written here, while the workers start. At most ``ahead`` chunks are read
    and not yet taken, so memory stays bounded however slow writing is. A worker that
    dies (killed, out of memory) fails the load instead of hanging it."""
    workers = max(2, min(4, os.cpu_count() or 2))
    ahead = 2 * workers
    pending: queue.Queue = queue.Queue(maxsize=ahead)  # the first chunk, futures, None
    stop = threading.Event()
    turns = _Turns(ctx)

    def hand_over(item: Any) -> bool:
        while not stop.is_set():
            try:
                pending.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def read(pool: ProcessPoolExecutor) -> None:
        try:
            with contextlib.closing(json_chunks(job)) as chunks:
                first = next(chunks, None)
                for seq, chunk in enumerate(chunks, 1):
                    # a plain file's bytes are read by the worker: cheaper than a pipe
                    future = pool.submit(_parse_and_write, job, seq, chunk.detached())
                    # the first chunk goes to the writing thread once a worker has work
                    if first is not None and not hand_over(first):
                        return
                    first = None
                    if not hand_over(future):
                        return
            if first is not None and not hand_over(first):
                return
            hand_over(None)
        except BaseException as exc:  # noqa: BLE001 - re-raised by the writing thread
            hand_over(exc)

    pool = ProcessPoolExecutor(workers, mp_context=ctx, initializer=_init_pool_worker,
                               initargs=(os.getpid(), location, turns))
    pool.submit(os.getpid)  # forks the workers now, from this thread, before others start
    reader = threading.Thread(target=read, args=(pool,), name="kgground-reader", daemon=True)
    reader.start()
    try:
        while True:
            item = pending.get()
            if item is None:
                return
            if isinstance(item, BaseException):
                raise item
            if isinstance(item, JsonChunk):      # chunk 0: written by the caller
                yield from parse_json_chunk(job, item)
                turns.done(0)
                continue
            try:
                batches = item.result()
            except BrokenProcessPool:
                raise LoadError("a parser process died", path=str(job.path),
                                fix="run the load again; it resumes") from None
            yield from batches
    finally:
        stop.set()
        turns.stop()
        reader.join()
        pool.shutdown(wait=True, cancel_futures=True)


def _end_with_parent(parent: int) -> None:
    """A parser process whose loader was killed would wait forever for it (holding its
    memory): watch the parent, and end when it is gone. SIGTERM (the loader's
    ``terminate``) ends the process at once: a handler inherited through fork (one that
    raises KeyboardInterrupt, as ``kgground serve`` installs) would leave it blocked
    handing that exception to a loader no longer reading. Ctrl-C, which reaches the whole
    process group, is ignored: the loader stops its parsers itself (a parser's own
    KeyboardInterrupt would print a traceback from an idle pool worker)."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)
    threading.Thread(target=watch, name="kgground-orphan-guard", daemon=True).start()


def _worker(job: Job, out: Any, parent: int) -> None:
    """Worker process: parse ``job``'s file and send its batches; None ends the stream,
    an exception is sent as such."""
    _end_with_parent(parent)
    try:
        for batch in read_batches(job):
            out.put(batch)
        out.put(None)
    except BaseException as exc:  # noqa: BLE001 - handed to the parent, which re-raises
        out.put(exc)


def _progress_bar(path: Path, enabled: bool) -> Any:
    if not enabled:
        return None
    from tqdm import tqdm
    return tqdm(total=path.stat().st_size, unit="B", unit_scale=True, unit_divisor=1024,
                desc=f"loading {path.name}", leave=False)
