"""One writer of a mirror's files at a time: a load (or a reindex) holds the mirror's lock.

For a SQLite mirror the lock is an advisory ``flock`` on ``<mirror>.lock``, beside the
database file, holding the writer's process id. The operating system lets go of it when
the process ends, however it ends (a SIGKILLed load leaves no stale lock: running it
again resumes). Forked worker processes of a load share it. For PostgreSQL it is a
session advisory lock, with the writer's process id in the ``meta`` table.

Readers never take it: they keep reading while a load writes (SQLite's WAL mode).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from store.errors import MirrorError

if TYPE_CHECKING:
    from store.mirror import Mirror

#: PostgreSQL advisory lock key (any constant: one lock per database)
_PG_KEY = 0x6B67_6772  # "kggr"


def lock_path(mirror: Mirror) -> Path | None:
    """The lock file of a SQLite mirror; None for a database URL."""
    return Path(f"{mirror.path}.lock") if mirror.path is not None else None


def holder(mirror: Mirror) -> int | None:
    """The process id of the load writing ``mirror`` now, or None when none is."""
    path = lock_path(mirror)
    if path is None:
        return None
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            return _pid_in(fd)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def _pid_in(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
        return int(text) if text.isdigit() else None
    except OSError:
        return None


@contextlib.contextmanager
def writing(mirror: Mirror, what: str = "load") -> Iterator[None]:
    """Hold ``mirror``'s writer lock for the block, or raise MirrorError at once naming the
    process that holds it."""
    if mirror.path is None:
        with _pg_lock(mirror, what):
            yield
        return
    path = lock_path(mirror)
    assert path is not None         # a SQLite mirror: mirror.path is set
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise MirrorError(f"cannot {what} {mirror.location}: its lock file {path} cannot be "
                          f"written ({exc.strerror}); the mirror can be read, not written",
                          fix="make the mirror's folder writable, or load into a mirror "
                              "in a folder you can write") from exc
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise
            pid = _pid_in(fd)
            raise MirrorError(
                f"another load (pid {pid if pid is not None else 'unknown'}) is writing "
                f"{mirror.location}",
                fix="wait for it to finish (readers can query the mirror meanwhile), or "
                    "stop it and run your command again") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode("ascii"), 0)
        try:
            yield
        finally:
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


@contextlib.contextmanager
def _pg_lock(mirror: Mirror, what: str) -> Iterator[None]:
    got = mirror.query("SELECT pg_try_advisory_lock(?)", (_PG_KEY,))[0][0]
    mirror.raw.commit()
    if not got:
        pid = mirror.get_meta("writer_pid", "unknown")
        raise MirrorError(f"another load (pid {pid}) is writing {mirror.location}",
                          fix="wait for it to finish, or stop it and run your command again")
    try:
        mirror.query("DELETE FROM meta WHERE key = 'writer_pid'")
        mirror.query("INSERT INTO meta (key, value) VALUES ('writer_pid', ?)",
                     (str(os.getpid()),))
        mirror.raw.commit()
        yield
    finally:
        mirror.raw.rollback()
        mirror.query("SELECT pg_advisory_unlock(?)", (_PG_KEY,))
        mirror.raw.commit()
