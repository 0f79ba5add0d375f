"""What the command line does around every command: what it says on stderr besides its
output, and how it ends on Ctrl-C.

- **Warnings** logged by the library (any logger, WARNING and above) are printed once
  each, as ``Warning: …``, without tracebacks.
- **Errors** a command ends with are printed once, as ``Error: …`` (``error_text``; a
  file the system cannot read or write, ``os_error_text``): an
  error a warning already showed (an unreachable endpoint that linking went on without,
  then the answer that needed it) is referred to, not repeated.
- **Notices**: work done once, on first use, that makes a command slow (building the
  demo mirror, a mirror's linking index, the embeddings of a KB's property names) is
  announced when it starts and when it ends, with how long it took — also when stderr is
  not a terminal (a script's log should say why the first run took a minute). The
  library logs these at INFO level on a ``kgground.*`` logger with ``extra={"notice":
  True}``; its other INFO messages there are the steps of that work, printed only on a
  terminal.
- **Ctrl-C** (SIGINT) ends every command with exit status 130 (128 + SIGINT, as shells
  report it) and one line saying what was kept, never a traceback. Commands that have
  something to say about what was kept (a load, an evaluation) say it and raise
  ``interrupted(message)``; any other KeyboardInterrupt gets the generic line. ``main``
  then leaves without waiting for worker threads still blocked on the network or a model.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
from typing import Iterator, NoReturn

import click

from kb.errors import EndpointError

#: the exit status of a command stopped by Ctrl-C
INTERRUPTED = 130
#: the loggers whose INFO messages are notices and progress (``kgground.linking``, …)
NOTICE_LOGGER = "kgground"
#: the handler of the command running (``reporting``)
_active: _Stderr | None = None


def interrupted(message: str | None = None) -> NoReturn:
    """End the command as interrupted: ``message`` (what was kept, how to resume) on
    stderr, exit status 130."""
    click.echo(f"\nInterrupted: {message}" if message else "\nInterrupted.", err=True)
    raise click.exceptions.Exit(INTERRUPTED)


def error_text(exc: BaseException) -> str:
    """What follows ``Error:`` when a command ends with ``exc``: its message, or a pointer
    to the warning above when one already printed it (or the error it stems from)."""
    handler = _active
    if handler is not None:
        for cause in _causes(exc):
            if handler.said(str(cause)):
                kind = "endpoint error" if isinstance(cause, EndpointError) else "error"
                return f"stopped by the {kind} above."
    return str(exc)


def os_error_text(exc: OSError) -> str:
    """An error of the operating system (a file that cannot be read or written, a full
    disk) as the end of a command says it: what, and which file."""
    what = exc.strerror or str(exc) or type(exc).__name__
    files = [f for f in (exc.filename, getattr(exc, "filename2", None)) if f]
    return what + (f": {' → '.join(map(str, files))}" if files else "") + (
        " (check the path and its permissions)" if files else "")


def _causes(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


class _Stderr(logging.Handler):
    """Warnings (once each) and notices on stderr, in the words the library logged."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self._said: set[str] = set()
        self._said_lock = threading.Lock()

    def said(self, text: str) -> bool:
        """Whether a warning printed so far holds ``text``."""
        with self._said_lock:
            return bool(text) and any(text in line for line in self._said)

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = record.getMessage()
        except Exception:  # noqa: BLE001 - a malformed log call must not end the command
            text = str(record.msg)
        if record.levelno >= logging.WARNING:
            with self._said_lock:
                if text in self._said:
                    return
                self._said.add(text)
            line = f"Warning: {text}"
        elif getattr(record, "notice", False) or _terminal():
            line = text
        else:
            return
        try:
            click.echo(line, err=True)
        except (OSError, ValueError):        # stderr closed (a pipe that went away)
            pass


def _terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


@contextlib.contextmanager
def reporting() -> Iterator[None]:
    """Within: the library's warnings and notices go to stderr (see the module docstring).
    Nests (the outermost installs the handler); leaves logging as it found it."""
    root, notices = logging.getLogger(), logging.getLogger(NOTICE_LOGGER)
    if any(isinstance(h, _Stderr) for h in root.handlers):
        yield
        return
    global _active
    handler, level = _Stderr(), notices.level
    root.addHandler(handler)
    if notices.getEffectiveLevel() > logging.INFO:
        notices.setLevel(logging.INFO)
    _active = handler
    try:
        yield
    finally:
        _active = None
        root.removeHandler(handler)
        notices.setLevel(level)


def leave(code: int) -> NoReturn:
    """Exit now with ``code``, output flushed, without waiting for threads (an interrupted
    command's workers may be blocked for a minute on an endpoint or a model; what they
    were writing is kept by transactions and atomic renames)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)
