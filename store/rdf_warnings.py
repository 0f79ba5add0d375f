"""rdflib's own warnings, counted instead of printed.

rdflib logs a warning with a whole traceback each time it builds a literal whose lexical
form does not fit its datatype (``"2021-02-30"^^xsd:date``: "Failed to convert Literal
lexical form to value … ValueError: day is out of range for month"), and one line for
each IRI it finds odd. With no logging set up, Python prints them on stderr: a user's
file with one bad date printed a traceback on every query. ``install()`` (run when this
module is imported) puts a filter on rdflib's logger that drops those records and counts
them instead; ``counting()`` collects the counts of one block (a file's parse), so that
the loader can report them once, as one line per datatype (``store.literals``). rdflib's
Python warnings about such literals (``UserWarning: Parsing weird boolean``) are silenced
for the same reason.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import re
import threading
import warnings
from collections import Counter
from typing import Iterator

#: records counted since the process started: ("literal", datatype IRI) or ("iri", "")
TOTALS: Counter = Counter()
_lock = threading.Lock()
_collector: contextvars.ContextVar[Counter | None] = contextvars.ContextVar(
    "kgground_rdf_warnings", default=None)
_DATATYPE = re.compile(r"Datatype=(\S+?),")


class _CountingFilter(logging.Filter):
    """Drops rdflib's literal and IRI warnings, counting them (others pass)."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.msg if isinstance(record.msg, str) else str(record.msg)
        if message.startswith("Failed to convert Literal lexical form to value"):
            m = _DATATYPE.search(message)
            key = ("literal", m.group(1) if m else "")
        elif message.endswith("does not look like a valid URI, trying to serialize this "
                              "will break."):
            key = ("iri", "")
        else:
            return True
        with _lock:
            TOTALS[key] += 1
        collector = _collector.get()
        if collector is not None:
            collector[key] += 1
        return False


_FILTER = _CountingFilter()


def install() -> None:
    """Put the counting filter on rdflib's logger (idempotent), and silence the two
    Python warnings rdflib gives about ill-typed literals (a boolean that is not one, a
    number it cannot write): loaders report those literals themselves."""
    logger = logging.getLogger("rdflib.term")
    if _FILTER not in logger.filters:
        logger.addFilter(_FILTER)
        for message in ("Parsing weird boolean", "Serializing weird numerical"):
            warnings.filterwarnings("ignore", message=message, category=UserWarning,
                                    module="rdflib")


@contextlib.contextmanager
def counting() -> Iterator[Counter]:
    """Count the warnings rdflib gives inside the block (in this thread or task)."""
    found: Counter = Counter()
    token = _collector.set(found)
    try:
        yield found
    finally:
        _collector.reset(token)


install()
