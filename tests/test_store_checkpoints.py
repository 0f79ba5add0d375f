"""The load's background checkpoints: the log is copied while writing, stays bounded, and
the mirror's own settings come back afterwards."""

from __future__ import annotations

import sqlite3
import threading

import pytest

import store.checkpoints as checkpoints
from store.checkpoints import Checkpointer
from store.ingest import load
from store.mirror import Mirror

WD = "http://www.wikidata.org/entity/"
LABEL = "http://www.w3.org/2000/01/rdf-schema#label"


def _log_state(path) -> tuple[int, int, int]:
    """(busy, pages in the log, pages already copied), from a connection of its own."""
    conn = sqlite3.connect(path)
    try:
        return conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    finally:
        conn.close()


def _checkpoint_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "kgground-checkpoints"]


@pytest.mark.parametrize("parallel", [False, True])
def test_a_load_ends_with_its_log_copied_and_the_setting_restored(tmp_path, parallel):
    lines = [f"<{WD}Q{i}> <{LABEL}> \"entity number {i} with a longer label\"@en ."
             for i in range(1, 30_001)]
    src = tmp_path / "labels.nt"
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    db = tmp_path / "m.sqlite"
    with Mirror(db, create=True) as m:
        before = m.query("PRAGMA wal_autocheckpoint")[0][0]
        report = load(m, src, parallel=parallel)
        assert report.terms == 30_000
        assert m.query("PRAGMA wal_autocheckpoint")[0][0] == before
        assert not _checkpoint_threads()
        busy, pages, copied = _log_state(db)
        assert busy == 0 and pages == copied      # nothing left only in the log
        assert m.query("SELECT COUNT(*) FROM terms")[0][0] == 30_000


def _write_pages(m: Mirror, commits: int, start: int = 0) -> int:
    """Commit 10 rows of 3 KB ``commits`` times (numbered from ``start``); return the
    largest size the log reached."""
    log = m.path.parent / (m.path.name + "-wal")
    biggest, text = 0, "x" * 3000
    for n in range(start, start + commits):
        m.raw.executemany("INSERT INTO terms (entity, kind, lang, text, norm, source_id)"
                          " VALUES (?, 0, 'en', ?, NULL, NULL)",
                          [(f"Q{n}", f"{text}{n}-{i}") for i in range(10)])
        m.raw.commit()
        biggest = max(biggest, log.stat().st_size)
    return biggest


def test_deferred_writers_still_bound_the_log(tmp_path, monkeypatch):
    monkeypatch.setattr(checkpoints, "LOAD_AUTOCHECKPOINT", 64)
    with Mirror(tmp_path / "m.sqlite", create=True) as m:
        checkpoints.defer_checkpoints(m)
        assert m.query("PRAGMA wal_autocheckpoint")[0][0] == 64
        biggest = _write_pages(m, 400)
    # 4,000 pages were written: the log restarts once it passes 64 pages
    assert biggest < 150 * 4096


def test_the_thread_copies_the_log_while_a_writer_keeps_committing(tmp_path):
    db = tmp_path / "m.sqlite"
    with Mirror(db, create=True) as m:
        cp = Checkpointer(m, interval=0.001)
        cp.start()
        # Keep committing until the file itself holds 500 pages (only checkpoints write
        # it: the writer's own would start at 16,384 log pages), or give up after ~9,500
        # pages. Waiting on the outcome, not on a fixed count, keeps a loaded machine
        # that schedules the thread late from failing the test.
        commits, in_file_meanwhile = 0, 0
        while commits < 300 and in_file_meanwhile <= 500 * 4096:
            _write_pages(m, 20, start=commits)
            commits += 20
            in_file_meanwhile = db.stat().st_size
        cp.close()
        assert m.query("SELECT COUNT(*) FROM terms")[0][0] == commits * 10
    assert in_file_meanwhile > 500 * 4096
    busy, pages, copied = _log_state(db)
    assert busy == 0 and pages == copied


def test_an_error_in_the_thread_is_raised_by_close(tmp_path, monkeypatch):
    with Mirror(tmp_path / "m.sqlite", create=True) as m:
        cp = Checkpointer(m)

        def broken() -> None:
            raise sqlite3.OperationalError("disk I/O error")
        monkeypatch.setattr(m.engine, "raw_connection", broken)
        cp.start()
        with pytest.raises(sqlite3.OperationalError, match="disk I/O error"):
            cp.close()
        assert m.query("PRAGMA wal_autocheckpoint")[0][0] == 1000
        cp.close()                          # once raised, closing again is quiet
