"""Copying a mirror's write-ahead log into its database file from a thread of its own.

A SQLite mirror runs in WAL mode: every commit appends pages to the ``-wal`` file, and a
checkpoint copies them into the database file and syncs both. By default the connection
that commits does that itself, every 1,000 pages, so a load's writer stops for it about a
quarter of its writing time (31 ms of 110 ms for the JSON dump sample). During a load the
writing connections leave checkpoints to a ``Checkpointer``, whose thread copies in
parallel with the writing (SQLite lets go of the GIL) and never blocks a writer.

The log starts over from its beginning only when a writer finds it all copied; while
writers keep committing, the thread can be behind each time. So the writers still
checkpoint themselves once the log holds ``LOAD_AUTOCHECKPOINT`` pages (by then the thread
has copied nearly all of them). A writer's checkpoint is skipped when it meets one of the
thread's, so this bounds the log in practice rather than strictly: the slice load's
``-wal`` file peaked at 72–82 MB (38 MB with the writers checkpointing every 1,000 pages).
"""

from __future__ import annotations

import threading

from store.mirror import Mirror

#: pages (4 KiB) in the log from which a writing connection checkpoints itself in a load
LOAD_AUTOCHECKPOINT = 16384


def defer_checkpoints(mirror: Mirror) -> None:
    """Let this thread's connection to ``mirror`` checkpoint only when the log is long
    (a ``Checkpointer`` does it before then). A no-op for databases other than SQLite."""
    if mirror.is_sqlite:
        mirror.query(f"PRAGMA wal_autocheckpoint = {LOAD_AUTOCHECKPOINT}")


class Checkpointer:
    """Checkpoints ``mirror``'s log every ``interval`` seconds from a thread, between
    ``start()`` and ``close()``, and defers the caller's own checkpoints meanwhile; does
    nothing for a database other than SQLite.

    ``start()`` must come after any fork of the calling process: a child forked while the
    thread is inside SQLite would inherit SQLite's locks held. ``close()`` runs a last
    checkpoint, so that everything committed is in the database file, stops the thread,
    restores the caller's checkpoint setting, and raises the error that stopped the
    thread, if one did."""

    def __init__(self, mirror: Mirror, *, interval: float = 0.025):
        self.mirror = mirror
        self.interval = interval
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None
        self._autocheckpoint = None
        if mirror.is_sqlite:
            self._autocheckpoint = int(mirror.query("PRAGMA wal_autocheckpoint")[0][0])
            defer_checkpoints(mirror)

    def start(self) -> None:
        """Start the thread (once; later calls do nothing)."""
        if self._thread is None and self.mirror.is_sqlite:
            self._thread = threading.Thread(target=self._run, name="kgground-checkpoints",
                                            daemon=True)
            self._thread.start()

    def close(self) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            self._thread = None
        if self._autocheckpoint is not None:
            self.mirror.query(f"PRAGMA wal_autocheckpoint = {self._autocheckpoint}")
            self._autocheckpoint = None
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    def _run(self) -> None:
        try:
            try:        # this thread's own connection (Mirror.raw is per thread)
                self.mirror.query("PRAGMA mmap_size = 0")   # it only copies pages
                while True:
                    stopping = self._stop.wait(self.interval)
                    self.mirror.query("PRAGMA wal_checkpoint(PASSIVE)")
                    if stopping:
                        return
            finally:
                self.mirror.release()
        except BaseException as exc:  # noqa: BLE001 - raised again by close()
            self._error = exc
