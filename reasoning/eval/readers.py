"""Benchmark files → ``EvalItem`` lists. Formats (``read_items(path, format="auto")``):

- ``qald``: QALD JSON (QALD-7 to QALD-10, QALD-9-plus): ``{"questions": [{"id",
  "answertype", "question": [{"language", "string"}, ...], "query": {"sparql"},
  "answers": [SPARQL results JSON]}]}``. Every language asked for becomes an item; gold
  answers are the bindings of the first variable (or the ASK boolean); an empty
  ``answers`` list means none in the file.
- ``jsonl``: one JSON object a line (a JSON array of them works too) with ``question``
  and any of: ``sparql`` (or ``query``), gold results (``info.results`` or ``results``:
  SPARQL JSON bindings, or a full SPARQL results JSON object), ``answers`` (IDs or
  literal values; ``answer_labels`` their names). The slice-qa rows (``question``,
  ``subject``, ``property``, ``answers``, ``answer_labels``) are this format, as are the
  qald7, qald9plus, wwq and simplequestions files of ../shared/data/benchmarks. A ``lang``
  or ``language`` field names the question's language (default ``en``).
- ``mintaka``: Mintaka rows (JSON lines or the official JSON array): ``question``,
  ``translations`` (language → text), ``questionEntity``, ``answer`` (``answerType``,
  ``answer``: entities with ``name``/``label``, or values; ``mention``),
  ``complexityType``. An answer with no Wikidata entity is its mention, compared as text.

``auto`` tells them apart by the file's first object. Each item has a question ``type``
(``sparql_type`` of the gold query for SPARQL benchmarks: yes/no, count, superlative,
qualifier, multi-hop, multi-fact, single-fact; Mintaka's complexity type; ``single-fact``
for slice-qa rows) and, where one property is asked for, its ``relation``.

Malformed input raises ``BenchmarkFormatError`` naming the file, the line and what was
expected.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from reasoning.eval import answers as A
from reasoning.eval.answers import AnswerItem
from store.errors import BenchmarkFormatError

FORMATS = ("auto", "qald", "jsonl", "mintaka")
#: an answer written as an IRI (a custom KB's entity)
_IRI = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://\S+$")
XSD = "http://www.w3.org/2001/XMLSchema#"


@dataclass(frozen=True)
class EvalItem:
    """One question to evaluate.

    ``gold``: the file's gold answers (None when the file has none: they come from running
    ``sparql`` on the KB). ``subject``/``relation``: the fact asked for, when known (used
    for coverage and for simulated models' fact catalogs); ``entities``: the question's
    entities (Mintaka), for coverage.
    """

    id: str
    question: str
    lang: str = "en"
    gold: tuple[AnswerItem, ...] | None = None
    sparql: str | None = None
    type: str = "unknown"
    answer_type: str | None = None
    relation: str | None = None
    subject: str | None = None
    entities: tuple[str, ...] = ()
    line: int | None = None
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)

    @property
    def key(self) -> str:
        """Unique within a run: the ID and, for other languages than English, the
        language."""
        return self.id if self.lang == "en" else f"{self.id}@{self.lang}"


def read_items(path: str | Path, format: str = "auto", *,
               languages: Sequence[str] | None = ("en",), limit: int | None = None,
               sample: int | None = None, seed: int = 0) -> list[EvalItem]:
    """The items of a benchmark file. ``languages``: the question languages to keep
    (None: every language the file has); ``limit``: at most this many questions (counted
    before languages are expanded, so every language of a question is kept), the first
    ones; ``sample``: this many questions drawn at random with ``seed`` (the same seed
    draws the same questions), kept in file order; with ``limit`` too, drawn from the
    first ``limit``."""
    path = Path(path)
    if format not in FORMATS:
        raise BenchmarkFormatError("unknown benchmark format", expected=" | ".join(FORMATS),
                                   got=format)
    try:
        raw = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise BenchmarkFormatError(f"cannot read {path}: {exc.strerror}",
                                   fix="check the path") from exc
    except UnicodeDecodeError as exc:
        raise BenchmarkFormatError(f"{path} is not UTF-8 text",
                                   fix="pass a JSON or JSON-lines benchmark file") from exc
    rows, whole = _rows(raw, path)
    fmt = detect_format(rows, whole, path) if format == "auto" else format
    if fmt == "qald":
        if not isinstance(whole, Mapping) or not isinstance(whole.get("questions"), list):
            raise BenchmarkFormatError(f"{path} is not QALD JSON",
                                       expected='an object with a "questions" list',
                                       got=type(whole).__name__ if whole is not None
                                       else "JSON lines")
        rows = [(i + 1, q) for i, q in enumerate(whole["questions"])]
        reader = _qald_items
    else:
        reader = _mintaka_items if fmt == "mintaka" else _jsonl_items
    if limit is not None:
        rows = rows[:limit]
    if sample is not None and sample < len(rows):
        chosen = set(random.Random(seed).sample(range(len(rows)), sample))
        rows = [row for i, row in enumerate(rows) if i in chosen]
    items: list[EvalItem] = []
    for line, row in rows:
        if not isinstance(row, Mapping):
            raise _bad(path, line, "a JSON object per question", type(row).__name__)
        items.extend(reader(row, line, path, languages))
    keys = set()
    for item in items:
        if item.key in keys:
            raise _bad(path, item.line, "unique question IDs", item.id)
        keys.add(item.key)
    return items


def detect_format(rows: list[tuple[int, Any]], whole: Any, path: Path) -> str:
    """``qald``, ``mintaka`` or ``jsonl``, from the file's shape and its first object."""
    if isinstance(whole, Mapping):
        if isinstance(whole.get("questions"), list):
            return "qald"
        raise BenchmarkFormatError(f"cannot tell the format of {path}",
                                   expected='QALD JSON ({"questions": [...]}), JSON lines '
                                   "or a JSON array of questions",
                                   got=f"an object with keys {sorted(whole)[:8]}",
                                   fix="pass --format")
    if not rows:
        raise BenchmarkFormatError(f"{path} holds no question",
                                   fix="pass a file with at least one question")
    first = rows[0][1]
    if isinstance(first, Mapping):
        answer = first.get("answer")
        if "questionEntity" in first or "complexityType" in first or (
                isinstance(answer, Mapping) and "answerType" in answer):
            return "mintaka"
        if "question" in first:
            return "jsonl"
    raise BenchmarkFormatError(f"cannot tell the format of {path}",
                               expected="objects with a question (and sparql, answers or "
                                        "results)", got=_excerpt(first), fix="pass --format")


def _rows(raw: str, path: Path) -> tuple[list[tuple[int, Any]], Any]:
    """(line, object) pairs, and the whole file's JSON when it is one document."""
    text = raw.lstrip("\ufeff")
    stripped = text.strip()
    if not stripped:
        return [], None
    if stripped[0] in "[{":
        try:
            whole = json.loads(stripped)
        except json.JSONDecodeError:
            whole = None
        if isinstance(whole, list):
            return [(i + 1, r) for i, r in enumerate(whole)], None
        if isinstance(whole, Mapping) and "question" not in whole:
            return [], whole
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rows.append((n, json.loads(line)))
        except json.JSONDecodeError as exc:
            raise _bad(path, n, "one JSON object a line", f"{exc.msg} at column {exc.colno}"
                       ) from None
    return rows, None


# -- QALD JSON ---------------------------------------------------------------------------------

def _qald_items(row: Mapping, line: int, path: Path, languages: Sequence[str] | None
                ) -> Iterable[EvalItem]:
    qid = str(row.get("id", line))
    texts = row.get("question")
    if isinstance(texts, str):
        texts = [{"language": "en", "string": texts}]
    if not isinstance(texts, list) or not texts:
        raise _bad(path, line, 'a "question" list of {"language", "string"}', texts)
    query = row.get("query")
    sparql = query.get("sparql") if isinstance(query, Mapping) else \
        (query if isinstance(query, str) else None)
    gold = _results_gold(row.get("answers"), path, line)
    qtype, relation, subject = sparql_type(sparql) if sparql else ("unknown", None, None)
    answer_type = row.get("answertype")
    for t in texts:
        if not isinstance(t, Mapping) or not isinstance(t.get("string"), str):
            raise _bad(path, line, 'question entries {"language", "string"}', t)
        lang = str(t.get("language") or "en")
        if languages is not None and lang not in languages:
            continue
        if not t["string"].strip():
            continue
        yield EvalItem(qid, t["string"].strip(), lang, gold, sparql, qtype, answer_type,
                       relation, subject, line=line)


def _results_gold(answers: Any, path: Path, line: int) -> tuple[AnswerItem, ...] | None:
    """Gold answers from QALD's ``answers`` (a list of SPARQL results JSON objects)."""
    if answers is None or answers == []:
        return None
    if isinstance(answers, Mapping):
        answers = [answers]
    if not isinstance(answers, list):
        raise _bad(path, line, "answers as SPARQL results JSON", answers)
    out: list[AnswerItem] = []
    for res in answers:
        out.extend(sparql_json_gold(res, path, line))
    return tuple(out)


def sparql_json_gold(res: Any, path: Path | None = None, line: int | None = None
                     ) -> list[AnswerItem]:
    """Answers in a SPARQL results JSON object (``boolean``, or the first variable's
    bindings; a bare bindings list works too)."""
    bindings: list[Any] | None
    if isinstance(res, list):
        bindings, var = res, None
    elif isinstance(res, Mapping):
        if "boolean" in res:
            return [A.literal(bool(res["boolean"]))]
        head_vars = (res.get("head") or {}).get("vars") or []
        bindings = (res.get("results") or {}).get("bindings")
        var = head_vars[0] if head_vars else None
        if bindings is None:
            raise _bad(path, line, "SPARQL results JSON (head, results.bindings or boolean)",
                       _excerpt(res))
    else:
        raise _bad(path, line, "SPARQL results JSON", _excerpt(res))
    out = []
    for b in bindings:
        if not isinstance(b, Mapping) or not b:
            continue
        term = b.get(var) if var else next(iter(b.values()))
        if term is None:
            continue
        out.append(term_gold(term, path, line))
    return out


def term_gold(term: Any, path: Path | None = None, line: int | None = None) -> AnswerItem:
    """One SPARQL JSON term (``{"type": "uri", "value": ...}``) as an answer."""
    if not isinstance(term, Mapping) or "value" not in term:
        raise _bad(path, line, 'SPARQL JSON terms {"type", "value"}', _excerpt(term))
    if term.get("type") == "uri":
        return A.entity(str(term["value"]))
    return A.literal(str(term["value"]), term.get("datatype"))


# -- JSON lines --------------------------------------------------------------------------------

def _jsonl_items(row: Mapping, line: int, path: Path, languages: Sequence[str] | None
                 ) -> Iterable[EvalItem]:
    question = row.get("question")
    if isinstance(question, list):              # QALD-style question lists in a JSONL row
        yield from _qald_items({**row, "query": row.get("sparql") or row.get("query")},
                               line, path, languages)
        return
    if not isinstance(question, str) or not question.strip():
        raise _bad(path, line, 'a "question" string', question)
    lang = str(row.get("lang") or row.get("language") or "en")
    if languages is not None and lang not in languages:
        return
    sparql = row.get("sparql") or row.get("query")
    if sparql is not None and not isinstance(sparql, str):
        sparql = (sparql or {}).get("sparql") if isinstance(sparql, Mapping) else None
    gold = _jsonl_gold(row, path, line)
    qtype, relation, subject = sparql_type(sparql) if sparql else ("unknown", None, None)
    if row.get("property") and row.get("subject"):
        qtype, relation, subject = "single-fact", str(row["property"]), str(row["subject"])
    qid = str(row.get("id") or f"L{line}")
    yield EvalItem(qid, question.strip(), lang, gold, sparql, str(row.get("type") or qtype),
                   row.get("answer_type"), relation, subject, line=line)


def _jsonl_gold(row: Mapping, path: Path, line: int) -> tuple[AnswerItem, ...] | None:
    if "answers" in row and row["answers"] is not None:
        values = row["answers"]
        if not isinstance(values, list):
            values = [values]
        labels = row.get("answer_labels") or []
        out = []
        for i, v in enumerate(values):
            label = labels[i] if i < len(labels) and isinstance(labels[i], str) else None
            out.append(_value_gold(v, label, path, line))
        return tuple(out)
    info = row["info"] if isinstance(row.get("info"), Mapping) else {}
    results = row.get("results", info.get("results"))
    if results is None:
        return None
    return tuple(sparql_json_gold(results, path, line))


def _value_gold(value: Any, label: str | None, path: Path, line: int) -> AnswerItem:
    if isinstance(value, Mapping):
        if "type" in value and "value" in value:
            return term_gold(value, path, line)
        name = value.get("name", value.get("id"))
        if name is None:
            raise _bad(path, line, "answers as IDs, values or {name, label}", value)
        return _value_gold(name, value.get("label") or label, path, line)
    if isinstance(value, str) and (A.entity_id(value) or _IRI.match(value.strip())):
        return A.entity(value, (label,) if label else ())       # a custom KB's IRI too
    if isinstance(value, (str, int, float, bool)):
        return A.literal(value)
    raise _bad(path, line, "answers as IDs, values or {name, label}", value)


# -- Mintaka -----------------------------------------------------------------------------------

def _mintaka_items(row: Mapping, line: int, path: Path, languages: Sequence[str] | None
                   ) -> Iterable[EvalItem]:
    question = row.get("question")
    answer = row.get("answer")
    if not isinstance(question, str) or not isinstance(answer, Mapping):
        raise _bad(path, line, 'Mintaka rows with "question" and "answer"', _excerpt(row))
    gold = _mintaka_gold(answer, path, line)
    entities = tuple(str(e["name"]) for e in row.get("questionEntity") or ()
                     if isinstance(e, Mapping) and e.get("entityType") == "entity"
                     and A.entity_id(str(e.get("name", ""))))
    texts = {"en": question, **{str(k): v for k, v in (row.get("translations") or {}).items()
                                if isinstance(v, str) and v.strip()}}
    qid = str(row.get("id") or f"L{line}")
    for lang, text in texts.items():
        if languages is not None and lang not in languages:
            continue
        yield EvalItem(qid, text.strip(), lang, gold, None,
                       str(row.get("complexityType") or "unknown"),
                       answer.get("answerType"), None, None, entities, line=line,
                       extra={"category": row.get("category")})


def _mintaka_gold(answer: Mapping, path: Path, line: int) -> tuple[AnswerItem, ...]:
    values = answer.get("answer")
    if values is None:
        if answer.get("answerNum") is not None:
            return (A.literal(answer["answerNum"]),)
        mention = answer.get("mention")
        return (A.literal(str(mention)),) if mention else ()
    if not isinstance(values, list):
        values = [values]
    out = []
    for v in values:
        if isinstance(v, Mapping):
            name = str(v.get("name", ""))
            label = v.get("label")
            labels = (label,) if isinstance(label, str) else \
                tuple(x for x in (label or {}).values() if isinstance(x, str)) \
                if isinstance(label, Mapping) else ()
            if A.entity_id(name):
                out.append(A.entity(name, labels))
            elif labels:
                out.append(A.literal(labels[0]))
        elif isinstance(v, (str, int, float, bool)):
            out.append(A.literal(v))
        else:
            raise _bad(path, line, "Mintaka answers: entities {name, label} or values", v)
    return tuple(out)


# -- question types ----------------------------------------------------------------------------

_PROP = re.compile(r"(?<![\w])(?:wdt|p|ps|pq):(P[1-9][0-9]*)")
_SINGLE = re.compile(r"^\s*wd:(Q[1-9][0-9]*)\s+wdt:(P[1-9][0-9]*)\s+\?\w+\s*\.?\s*$")
_SINGLE_INV = re.compile(r"^\s*\?\w+\s+wdt:(P[1-9][0-9]*)\s+wd:(Q[1-9][0-9]*)\s*\.?\s*$")


def sparql_type(query: str) -> tuple[str, str | None, str | None]:
    """(type, relation, subject) of a gold query, by its shape: ``yes/no`` (ASK),
    ``count``, ``superlative`` (ORDER BY … LIMIT), ``qualifier`` (p:/ps:/pq:),
    ``multi-hop`` (a property path), ``multi-fact`` (several triple patterns),
    ``single-fact`` (one; ``relation`` its property, ``subject`` its subject when bound
    and the object asked for)."""
    body = re.sub(r"(?im)^\s*PREFIX\s+\S+\s*<[^>]*>", " ", query)
    body = re.sub(r"(?i)PREFIX\s+\S+\s*<[^>]*>", " ", body)
    upper = body.upper()
    props = _PROP.findall(body)
    relation = props[0] if len(set(props)) == 1 else None
    if re.search(r"\bASK\b", upper):
        return "yes/no", relation, None
    if re.search(r"\bCOUNT\s*\(", upper):
        return "count", relation, None
    if re.search(r"\bORDER\s+BY\b", upper) and re.search(r"\bLIMIT\b", upper):
        return "superlative", relation, None
    if re.search(r"(?<![\w])(?:p|ps|pq):P", body):
        return "qualifier", relation, None
    where = body[body.find("{"):] if "{" in body else body
    if re.search(r"wdt:P\d+\s*[/*+]|\|\s*wdt:|\^wdt:", where):
        return "multi-hop", relation, None
    if len(props) > 1:
        return "multi-fact", relation, None
    inner = where[where.find("{") + 1:where.rfind("}")] if "{" in where else where
    m = _SINGLE.match(inner)
    if m:
        return "single-fact", m.group(2), m.group(1)
    m = _SINGLE_INV.match(inner)
    if m:
        return "single-fact", m.group(1), None
    return ("single-fact" if len(props) == 1 else "other"), relation, None


def with_gold(item: EvalItem, gold: tuple[AnswerItem, ...] | None) -> EvalItem:
    return replace(item, gold=gold)


def _bad(path: Path | None, line: int | None, expected: str, got: Any) -> BenchmarkFormatError:
    where = f"{path}" + (f", line {line}" if line is not None else "") if path else \
        "the benchmark"
    return BenchmarkFormatError(f"{where}: not a question the evaluation can read",
                                expected=expected, got=_excerpt(got))


def _excerpt(value: Any, limit: int = 120) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False,
                                                           default=str)
    return text if len(text) <= limit else text[:limit] + "…"
