"""Typed literals that do not fit their datatype: found, counted, reported once.

``"2021-02-30"^^xsd:date`` or ``"abc"^^xsd:integer`` are legal RDF (an ill-typed literal is
still a literal), so loaders keep them, as text; but a user should hear of them once, with
where they are, instead of a traceback from rdflib on every query. ``literal_problem``
checks a lexical form against the XSD datatypes kgground reads (numbers, booleans, dates
and times) by XSD's rules — not Python's: years past 9999 and before 1 are fine — in about
a microsecond. ``InvalidLiterals`` collects what a load found; ``summary()`` writes one
line per datatype::

    1 literal with an invalid xsd:date kept as text: line 3
    2 literals with an invalid xsd:integer kept as text: lines 7, 9
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

XSD = "http://www.w3.org/2001/XMLSchema#"
_TZ = r"(?:Z|[+-](?:(?:0[0-9]|1[0-3]):[0-5][0-9]|14:00))?"
_YEAR = r"-?(?:[1-9][0-9]{4,}|[0-9]{4})"
_FRACTION = r"(?:\.[0-9]+)?"
_DATE = re.compile(rf"({_YEAR})-([0-9]{{2}})-([0-9]{{2}}){_TZ}\Z")
_DATETIME = re.compile(rf"({_YEAR})-([0-9]{{2}})-([0-9]{{2}})T([0-9]{{2}}):([0-9]{{2}}):"
                       rf"([0-9]{{2}}{_FRACTION}){_TZ}\Z")
_TIME = re.compile(rf"([0-9]{{2}}):([0-9]{{2}}):([0-9]{{2}}{_FRACTION}){_TZ}\Z")
_GYEAR = re.compile(rf"{_YEAR}{_TZ}\Z")
_GYEARMONTH = re.compile(rf"{_YEAR}-(0[1-9]|1[0-2]){_TZ}\Z")
_INTEGER = re.compile(r"[+-]?[0-9]+\Z")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)\Z")
_DOUBLE = re.compile(r"(?:[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?INF|"
                     r"NaN)\Z")
_BOOLEAN = frozenset({"true", "false", "1", "0"})
#: integer types with bounds (inclusive; None: unbounded)
_INTEGER_RANGES = {
    "integer": (None, None), "nonNegativeInteger": (0, None), "positiveInteger": (1, None),
    "nonPositiveInteger": (None, 0), "negativeInteger": (None, -1),
    "long": (-2**63, 2**63 - 1), "int": (-2**31, 2**31 - 1), "short": (-2**15, 2**15 - 1),
    "byte": (-128, 127), "unsignedLong": (0, 2**64 - 1), "unsignedInt": (0, 2**32 - 1),
    "unsignedShort": (0, 2**16 - 1), "unsignedByte": (0, 255),
}
_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _leap(year: int) -> bool:
    # XSD 1.1 counts year 0 (1 BCE) and the years before it proleptically
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _day_problem(year: str, month: str, day: str) -> str | None:
    m, d = int(month), int(day)
    if not 1 <= m <= 12:
        return f"month {month} does not exist"
    limit = 29 if m == 2 and _leap(int(year)) else (_DAYS[m - 1] if m != 2 else 28)
    if not 1 <= d <= limit:
        return f"day {day} is out of range for month {month}"
    return None


def _clock_problem(hour: str, minute: str, second: str) -> str | None:
    h, mi, s = int(hour), int(minute), float(second)
    if h == 24 and mi == 0 and s == 0:
        return None
    if h > 23 or mi > 59 or s >= 60:
        return f"{hour}:{minute}:{second} is not a time of day"
    return None


def literal_problem(lexical: str, datatype: str | None) -> str | None:
    """Why ``lexical`` is not a valid value of ``datatype`` (an XSD datatype kgground
    reads), or None when it is valid or the datatype is one this does not check."""
    if not datatype or not datatype.startswith(XSD):
        return None
    local = datatype[len(XSD):]
    text = lexical.strip(" \t\n\r")
    if local in _INTEGER_RANGES:
        return _integer_problem(local, text)
    if local == "decimal":
        return None if _DECIMAL.match(text) else "not a decimal number"
    if local in ("double", "float"):
        return None if _DOUBLE.match(text) else "not a floating-point number"
    if local == "boolean":
        return None if text in _BOOLEAN else "not true, false, 1 or 0"
    return _temporal_problem(local, text)


def _integer_problem(local: str, text: str) -> str | None:
    """Why ``text`` is not a value of the integer datatype xsd:``local`` (not an integer,
    or out of its range), or None."""
    if _INTEGER.match(text) is None:
        return "not an integer"
    low, high = _INTEGER_RANGES[local]
    if (low is not None or high is not None) and len(text) < 40:
        value = int(text)
        if (low is not None and value < low) or (high is not None and value > high):
            return f"out of the range of xsd:{local}"
    return None


def _temporal_problem(local: str, text: str) -> str | None:
    """Why ``text`` is not a value of xsd:``local`` when that is a date, time or year
    datatype, or None (also for a datatype this does not check)."""
    if local == "date":
        m = _DATE.match(text)
        return _day_problem(*m.groups()) if m else "not a date (YYYY-MM-DD)"
    if local in ("dateTime", "dateTimeStamp"):
        m = _DATETIME.match(text)
        if m is None:
            return "not a date and time (YYYY-MM-DDThh:mm:ss)"
        return _day_problem(*m.groups()[:3]) or _clock_problem(*m.groups()[3:])
    if local == "time":
        m = _TIME.match(text)
        return _clock_problem(*m.groups()) if m else "not a time (hh:mm:ss)"
    if local == "gYear":
        return None if _GYEAR.match(text) else "not a year"
    if local == "gYearMonth":
        return None if _GYEARMONTH.match(text) else "not a year and month (YYYY-MM)"
    return None


def short_datatype(datatype: str) -> str:
    return "xsd:" + datatype[len(XSD):] if datatype.startswith(XSD) else f"<{datatype}>"


@dataclass
class InvalidLiterals:
    """The ill-typed literals a load found: counts per datatype, and where the first few
    of each are (line numbers, or 'triple N' where the parser gives no lines)."""
    counts: dict[str, int] = field(default_factory=dict)
    where: dict[str, list[str]] = field(default_factory=dict)
    #: (datatype, lexical form) of the first few of each datatype, to find their lines
    examples: dict[str, list[str]] = field(default_factory=dict)

    KEEP = 5

    def add(self, datatype: str, lexical: str, where: str | None = None) -> None:
        self.counts[datatype] = self.counts.get(datatype, 0) + 1
        if self.counts[datatype] <= self.KEEP:
            if where is not None:
                self.where.setdefault(datatype, []).append(where)
            self.examples.setdefault(datatype, []).append(lexical)

    def merge(self, other: InvalidLiterals) -> None:
        for datatype, n in other.counts.items():
            room = self.KEEP - self.counts.get(datatype, 0)
            self.counts[datatype] = self.counts.get(datatype, 0) + n
            if room > 0:
                self.where.setdefault(datatype, []).extend(other.where.get(datatype, [])[:room])
                self.examples.setdefault(datatype, []).extend(
                    other.examples.get(datatype, [])[:room])

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def locate(self, path: Path, max_bytes: int = 256 << 20) -> None:
        """Find the lines of the examples that have no place yet, by their quoted lexical
        forms in the file (for parsers that give no lines: Turtle, RDF/XML, JSON-LD)."""
        missing = {dt: lex for dt, lex in self.examples.items() if not self.where.get(dt)}
        if not missing:
            return
        try:
            from store.batches import open_input

            stream, raw = open_input(path)
            with raw:
                data = stream.read(max_bytes)
        except OSError:
            return
        text = data.decode("utf-8", "replace")
        starts = [0] + [m.end() for m in re.finditer("\n", text)]
        import bisect
        for datatype, lexicals in missing.items():
            lines = []
            for lexical in lexicals:
                for quote in ('"', "'", ">"):
                    at = text.find(f"{quote}{lexical}{'<' if quote == '>' else quote}")
                    if at >= 0:
                        lines.append(f"line {bisect.bisect_right(starts, at)}")
                        break
            if lines:
                self.where[datatype] = lines

    def summary(self) -> list[str]:
        """One line per datatype (see the module docstring)."""
        out = []
        for datatype, n in sorted(self.counts.items()):
            places = self.where.get(datatype, [])
            where = ""
            if places:
                nums = [p.split(" ", 1)[1] for p in places if p.startswith("line ")]
                if len(nums) == len(places):
                    where = (": line " if len(nums) == 1 else ": lines ") + ", ".join(nums)
                else:
                    where = ": " + ", ".join(places)
                if n > len(places):
                    where += ", …"
            out.append(f"{n:,} literal{'s' if n != 1 else ''} with an invalid "
                       f"{short_datatype(datatype)} kept as text{where}")
        return out


def invalid_literals(graph: object, path: Path | None = None) -> InvalidLiterals:
    """The ill-typed literals of an rdflib ``graph`` (each distinct literal once), with
    their lines in ``path`` when it is given."""
    from rdflib import Literal

    found = InvalidLiterals()
    seen: set = set()
    for o in graph.objects(unique=True) if hasattr(graph, "objects") else ():
        if isinstance(o, Literal) and o.datatype is not None and o not in seen:
            problem = literal_problem(str(o), str(o.datatype))
            if problem is not None:
                seen.add(o)
                found.add(str(o.datatype), str(o))
    if found.counts and path is not None:
        found.locate(path)
    return found
