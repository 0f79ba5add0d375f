"""Answers as the evaluation compares them: entities by ID, literals by normalized value,
free text by label.

An ``AnswerItem`` is one answer:

- ``entity``: ``value`` is a Wikidata ID (``Q42``; other IRIs stay whole), ``labels`` the
  names it may be written as (its label and aliases, when known);
- ``literal``: ``value`` is the normalized literal (``normalize_literal``): ISO dates
  (``1926-04-21``, ``1984``), canonical numbers (``51``, ``0.5``), ``true``/``false``, or
  a string key (``prompts.normalize_answer``: casefolded, no accents or punctuation);
- ``text``: an answer a model wrote in words, not linked to anything (``value`` is its
  text; it matches an entity by label, a literal by value).

``matches(pred, gold)`` says whether a predicted item is a gold one:

- two entities: the same ID;
- an entity and a text: the text's key equals the key of one of the entity's labels;
- an entity against a literal: one of the entity's labels has the literal's key;
- a text against a yes/no answer: its first word (yes, no, true, false);
- a literal or text against a literal: equal normalized values, where numbers compare as
  numbers and a year (``1984``) or a year-month matches every date that starts with it
  (Wikidata writes a year as ``1984-01-01``; a question asking for a year is answered by
  the full date).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import Any, Literal

from reasoning.prompts import normalize_answer

Kind = Literal["entity", "literal", "text"]

WD_ENTITY = "http://www.wikidata.org/entity/"
_ID = re.compile(r"^[QPL][1-9][0-9]*$")
_ISO_DATE = re.compile(r"^[+]?(-?\d{1,4})(?:-(\d{2})(?:-(\d{2}))?)?(?:T[\d:.]+Z?)?$")
_NUMBER = re.compile(r"^[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][+-]?\d+)?$")
_TEXT_DATES = ("%d %B %Y", "%B %d, %Y", "%B %d %Y", "%d %b %Y", "%b %d, %Y", "%B %Y",
               "%Y/%m/%d", "%d.%m.%Y")
_TRUE = {"true", "yes"}
_FALSE = {"false", "no"}
_MARKERS = re.compile(r"\s*\[\d+\]")


@dataclass(frozen=True)
class AnswerItem:
    """One answer (see the module docstring)."""

    kind: Kind
    value: str
    labels: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "value": self.value}
        if self.labels:
            out["labels"] = list(self.labels)
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> AnswerItem:
        return cls(d["kind"], d["value"], tuple(d.get("labels", ())))

    @property
    def label(self) -> str:
        """What to show: the first label, else the value."""
        return self.labels[0] if self.labels else self.value


def entity_id(value: str) -> str | None:
    """``Q42`` for ``Q42`` or ``http://www.wikidata.org/entity/Q42``; None otherwise."""
    value = value.strip()
    if value.startswith(WD_ENTITY):
        value = value[len(WD_ENTITY):]
    return value if _ID.match(value) else None


def entity(value: str, labels: tuple[str, ...] | list[str] = ()) -> AnswerItem:
    """An entity answer; a Wikidata IRI becomes its ID, other IRIs stay whole."""
    return AnswerItem("entity", entity_id(value) or value.strip(), tuple(labels))


def literal(value: Any, datatype: str | None = None) -> AnswerItem:
    return AnswerItem("literal", normalize_literal(value, datatype))


def text(value: str) -> AnswerItem:
    return AnswerItem("text", strip_markers(value))


def strip_markers(value: str) -> str:
    """The text without citation markers ('Warsaw [1][2]' → 'Warsaw')."""
    return _MARKERS.sub("", value).strip()


def normalize_literal(value: Any, datatype: str | None = None) -> str:
    """A literal's comparable form: ``true``/``false``, an ISO date (as precise as given), a
    canonical number, else ``normalize_answer`` of its text."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, Decimal)):
        return _canonical_number(Decimal(str(value)))
    s = str(value).strip().strip(".!?;:\"'“”").strip()
    low = s.lower()
    if low in _TRUE or low in _FALSE:
        return "true" if low in _TRUE else "false"
    iso = _iso_date(s)
    if iso is not None and (not datatype or "date" in datatype.lower()
                            or "gyear" in datatype.lower() or not _NUMBER.match(s)):
        return iso
    if _NUMBER.match(s):
        try:
            return _canonical_number(Decimal(s.replace(",", "")))
        except InvalidOperation:
            pass
    worded = _worded_date(s)
    if worded is not None:
        return worded
    return normalize_answer(s)


def _canonical_number(d: Decimal) -> str:
    if d == d.to_integral_value():
        return str(d.quantize(Decimal(1)))
    return format(d.normalize(), "f")


def _iso_date(s: str) -> str | None:
    m = _ISO_DATE.match(s)
    if not m:
        return None
    year, month, day = m.groups()
    if month is None and "T" not in s and len(year.lstrip("-")) != 4:
        return None                       # a bare number, not a year
    out = year.zfill(4) if not year.startswith("-") else year
    if month is not None:
        out += f"-{month}"
        if day is not None:
            out += f"-{day}"
    # Wikidata writes a year as YYYY-01-01T00:00:00Z: 'YYYY-01-01' matches 'YYYY' anyway
    return out


def _worded_date(s: str) -> str | None:
    for fmt in _TEXT_DATES:
        try:
            d = datetime.strptime(s, fmt)
        except ValueError:
            continue
        return d.strftime("%Y-%m") if fmt == "%B %Y" else d.strftime("%Y-%m-%d")
    return None


def _as_number(s: str) -> Decimal | None:
    if not _NUMBER.match(s):
        return None
    try:
        return Decimal(s.replace(",", ""))
    except InvalidOperation:
        return None


def literal_matches(a: str, b: str) -> bool:
    """Two normalized literals denote the same value (see the module docstring)."""
    if a == b:
        return True
    na, nb = _as_number(a), _as_number(b)
    if na is not None and nb is not None:
        return na == nb
    da, db = _date_parts(a), _date_parts(b)
    if da and db:
        short, long = (da, db) if len(da) <= len(db) else (db, da)
        return long[:len(short)] == short
    return False


def _date_parts(s: str) -> tuple[str, ...] | None:
    m = re.match(r"^(-?\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$", s)
    if not m:
        return None
    return tuple(p for p in m.groups() if p is not None)


def matches(pred: AnswerItem, gold: AnswerItem) -> bool:
    """Whether ``pred`` is the answer ``gold`` (see the module docstring)."""
    if gold.kind == "entity":
        if pred.kind == "entity":
            return pred.value == gold.value
        key = normalize_answer(pred.value)
        return bool(key) and any(normalize_answer(label) == key for label in gold.labels)
    # a literal gold answer: an entity is right when it is named so (Mintaka's answers
    # without a Wikidata ID are their names)
    if pred.kind == "entity":
        return any(normalize_answer(label) == gold.value for label in pred.labels)
    value = pred.value if pred.kind == "literal" else normalize_literal(pred.value)
    if gold.value in ("true", "false") and pred.kind == "text":
        first = re.match(r"\W*(\w+)", pred.value.lower())   # 'Yes, it does.'
        if first and first.group(1) in _TRUE | _FALSE:
            value = "true" if first.group(1) in _TRUE else "false"
    return literal_matches(value, gold.value)


def split_text(answer: str) -> list[str]:
    """A free-text answer read as a list: split at commas, semicolons and 'and'."""
    parts = re.split(r"\s*(?:[,;]|\band\b|&)\s*", strip_markers(answer))
    return [p.strip() for p in parts if p.strip()]
