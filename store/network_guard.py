"""No network from a loader unless the user allows it.

A file a user found can make a parser reach out: a JSON-LD ``@context`` that is a URL
(rdflib fetches it, from the user's machine, whatever the URL), an XML DTD or entity
with a SYSTEM URL. Inside ``no_network()`` such a request is refused before it is made:
an audit hook (PEP 578, installed once per process) sees every socket connection, name
lookup and urllib request, and raises ``NetworkRefused`` for those made in a thread (or
task) that is inside the block. Other threads (a server answering queries, a live
endpoint client) are not affected. ``refused`` on the context says what was asked for,
so that the loader can name it even when the parser wrapped the error in its own.
"""

from __future__ import annotations

import contextlib
import contextvars
import sys
import threading
from typing import Any, Iterator


class NetworkRefused(ConnectionRefusedError):
    """A network request made where none is allowed (a loader's parser)."""


class _Blocked:
    """The state of one ``no_network`` block: the requests it refused."""

    def __init__(self) -> None:
        self.refused: list[str] = []


_blocked: contextvars.ContextVar[_Blocked | None] = contextvars.ContextVar(
    "kgground_no_network", default=None)
_EVENTS = frozenset({"socket.connect", "socket.getaddrinfo", "socket.gethostbyname",
                     "socket.gethostbyaddr", "socket.sendto", "urllib.Request"})
_installed = False
_install_lock = threading.Lock()


def _describe(event: str, args: tuple) -> str:
    if event == "urllib.Request":
        return str(args[0])
    if event in ("socket.connect", "socket.sendto"):
        return str(args[1] if event == "socket.connect" else args[2])
    return str(args[0])


def _hook(event: str, args: tuple) -> None:
    if event not in _EVENTS:
        return
    blocked = _blocked.get()
    if blocked is None:
        return
    if event in ("socket.connect", "socket.sendto"):
        family = getattr(args[0], "family", None)
        if family is not None and int(family) == 1:       # AF_UNIX: not the network
            return
    what = _describe(event, args)
    blocked.refused.append(what)
    raise NetworkRefused(f"network access refused while loading a file ({what})")


def install() -> None:
    """Install the audit hook (once; hooks cannot be removed, so it stays cheap: one set
    lookup per audited event, one context lookup for network events)."""
    global _installed
    with _install_lock:
        if not _installed:
            sys.addaudithook(_hook)
            _installed = True


@contextlib.contextmanager
def no_network(allowed: bool = False) -> Iterator[Any]:
    """Refuse network requests made inside the block (in this thread or task), unless
    ``allowed``. Yields the block's state: ``.refused`` lists what was asked for."""
    state = _Blocked()
    if allowed:
        yield state
        return
    install()
    token = _blocked.set(state)
    try:
        yield state
    finally:
        _blocked.reset(token)
