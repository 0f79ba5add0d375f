"""What ``Grounder.ask`` returns: the ``Answer``, its citations, and the trace of every stage.

    answer = grounder.ask("Where was Marie Curie born?")
    answer.text                  # 'Warsaw [1]'
    answer.grounded              # True: every value it asserts is in a cited statement
    answer.citations[0].number   # 1 — the [1] of the text
    answer.citations[0].citation.url, .statement_id, .source, .retrieved_at
    answer.values                # the entities and values the answer asserts (IDs, labels)
    answer.graph                 # the chains.EvidenceGraph (None when the KB was not asked)
    answer.decision              # the gate's Decision (None without an LLM)
    answer.trace.stages          # every stage: prompts, replies, scores, queries, timings
    answer.as_dict()             # JSON-ready

``mode`` says who answered: ``kb`` (no LLM: the KB's statements alone), ``llm`` (the
model's own answer: the gate did not consult, or the KB had nothing), ``llm+kb`` (the
model answering from numbered evidence). ``grounded`` is True only when the cited
statements form a query graph whose relation path and answer type match the question
(``querygen.graphs``: the chosen graph reached the calibrated confidence threshold) and,
for a model's answer, every entity and value the text asserts is in a statement it cites;
``confidence`` is the calibrated probability that the KB's answer is right (None when
the KB was not asked); ``query_graph`` is the chosen graph — its label-level and ID-level
SPARQL, its answers, its type check — the answer's explanation; ``missing`` says what
the KB lacks when it has no answer (``entity``, ``relation``, ``fact``, ``confidence``,
``negation``, ``question``). ``note`` says in words why the answer is (or is not)
grounded, and, without an LLM, what one would add.

Citation numbers are the evidence's numbers (``evidence``, the statements the prompt
listed, numbered as in ``graph.citations``); ``citations`` are those the text refers to,
in the order it first does.

``as_dict()`` (what ``kgground ask --json`` prints) is described by the JSON Schema at
``ANSWER_SCHEMA_PATH`` (``load_answer_schema()``), shipped beside the evidence graph's
(``chains.SCHEMA_PATH``), whose $id it refers to for ``graph`` and the citations, and the
trace's (``TRACE_SCHEMA_PATH``, ``load_trace_schema()``: ``AnswerTrace.as_dict()``, each
stage's details the JSON of its ``reasoning.records`` record), whose $id it refers to for
``trace``. ``schemas_by_id()`` gives all three, for a validator's registry. A change that
removes or renames a field raises its schema's version; new optional fields do not.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from kb.types import Citation
from reasoning.gates.base import CallRecord, Decision, plain

Mode = Literal["kb", "llm", "llm+kb"]


def _schema_folder() -> Path:
    """chains/schema, found without importing chains (which loads networkx)."""
    spec = importlib.util.find_spec("chains")
    assert spec is not None and spec.origin is not None, "the chains package is missing"
    return Path(spec.origin).with_name("schema")


ANSWER_SCHEMA_PATH = _schema_folder() / "answer-v1.schema.json"
TRACE_SCHEMA_PATH = _schema_folder() / "trace-v1.schema.json"
_EVIDENCE_GRAPH_SCHEMA_PATH = _schema_folder() / "evidence-graph-v1.schema.json"


def _load(path: Path) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return schema


def load_answer_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of ``Answer.as_dict()``. Its ``graph`` and citations
    refer to the evidence graph's schema by its $id (``chains.load_schema()``), its
    ``trace`` (and values, decision, utility, missing) to the trace's
    (``load_trace_schema()``): a validator needs all three (e.g. a ``referencing.Registry``
    holding ``schemas_by_id()``)."""
    return _load(ANSWER_SCHEMA_PATH)


def load_trace_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of ``AnswerTrace.as_dict()``, the answer's
    ``trace``: each known stage's details are its record's (``reasoning.records``). Its
    retrieve stage's seeds refer to the evidence graph's schema by its $id."""
    return _load(TRACE_SCHEMA_PATH)


def schemas_by_id() -> dict[str, dict[str, Any]]:
    """The answer's, the trace's and the evidence graph's schemas by their $id: what a
    validator of either document resolves references in, e.g.
    ``referencing.Registry().with_contents(schemas_by_id().items())``."""
    schemas = (load_answer_schema(), load_trace_schema(), _load(_EVIDENCE_GRAPH_SCHEMA_PATH))
    return {s["$id"]: s for s in schemas}


@dataclass(frozen=True)
class CitedStatement:
    """One numbered statement of the evidence: its number (the ``[n]`` of texts and
    prompts), the statement as a sentence, and its ``kb.Citation`` (subject, property,
    value, statement ID, source KB, retrieval time, URL)."""

    number: int
    text: str
    citation: Citation

    @property
    def url(self) -> str:
        return self.citation.url

    def as_dict(self) -> dict[str, Any]:
        return {"number": self.number, "text": self.text, **self.citation.as_dict()}


@dataclass(frozen=True)
class AnswerValue:
    """An entity or value the answer asserts: the evidence node it was matched to (an
    entity ID, or a literal's text), its label, and the evidence numbers that hold it."""

    id: str | None
    label: str
    numbers: tuple[int, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "label": self.label, "citations": list(self.numbers)}


class StageDetails(Protocol):
    """What a stage produced, as a typed record (``reasoning.records``: ``DraftRecord``,
    ``RetrievalRecord``, …) whose ``as_dict()`` is the stage's details in the trace."""

    def as_dict(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class StageRecord:
    """One stage of an ask: what it produced (``record``, a ``reasoning.records`` record;
    ``details``, its JSON form: prompts, replies, scores, queries), the LLM calls it made,
    the KB calls (per method: calls, seconds) and its wall time."""

    name: str
    seconds: float
    record: StageDetails | None = None
    llm_calls: tuple[CallRecord, ...] = ()
    kb_calls: Mapping[str, Mapping[str, float]] = field(default_factory=dict)

    @property
    def details(self) -> dict[str, Any]:
        """The record as JSON-ready data ({} for a stage that recorded none: one that
        failed)."""
        return self.record.as_dict() if self.record is not None else {}

    @property
    def n_kb_calls(self) -> int:
        return int(sum(v["calls"] for v in self.kb_calls.values()))

    def as_dict(self) -> dict[str, Any]:
        return {"stage": self.name, "seconds": round(self.seconds, 6),
                "details": plain(self.details),
                "llm_calls": [c.as_dict() for c in self.llm_calls],
                "kb_calls": {k: dict(v) for k, v in self.kb_calls.items()}}


@dataclass(frozen=True)
class AnswerTrace:
    """Every stage of one ask, in order, and the totals. ``as_dict()`` follows the JSON
    Schema at ``TRACE_SCHEMA_PATH``."""

    stages: tuple[StageRecord, ...] = ()
    seconds: float = 0.0

    @property
    def llm_calls(self) -> tuple[CallRecord, ...]:
        return tuple(c for s in self.stages for c in s.llm_calls)

    @property
    def n_llm_calls(self) -> int:
        return len(self.llm_calls)

    @property
    def n_kb_calls(self) -> int:
        return sum(s.n_kb_calls for s in self.stages)

    def stage(self, name: str) -> StageRecord | None:
        """The first stage called ``name`` (None when there was none)."""
        return next((s for s in self.stages if s.name == name), None)

    def timings(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for s in self.stages:
            out[s.name] = out.get(s.name, 0.0) + s.seconds
        return {**out, "total": self.seconds}

    def as_dict(self) -> dict[str, Any]:
        return {"seconds": round(self.seconds, 6), "n_llm_calls": self.n_llm_calls,
                "n_kb_calls": self.n_kb_calls,
                "timings": {k: round(v, 6) for k, v in self.timings().items()},
                "stages": [s.as_dict() for s in self.stages]}


@dataclass(frozen=True)
class Answer:
    """The answer to one question (see the module docstring)."""

    question: str
    text: str
    mode: Mode
    grounded: bool
    note: str
    values: tuple[AnswerValue, ...] = ()
    citations: tuple[CitedStatement, ...] = ()
    evidence: tuple[CitedStatement, ...] = ()
    graph: Any = field(default=None, compare=False)
    decision: Decision | None = None
    utility: Any = None
    rounds: int = 0
    confidence: float | None = None
    query_graph: Mapping[str, Any] | None = None
    missing: str | None = None
    trace: AnswerTrace = field(default_factory=AnswerTrace, compare=False)
    #: the language the question was read in
    lang: str = "en"

    @property
    def ids(self) -> list[str]:
        """The IDs of the entities the answer asserts (literals left out)."""
        return [v.id for v in self.values if v.id]

    def as_dict(self) -> dict[str, Any]:
        return {"question": self.question, "text": self.text, "mode": self.mode,
                "grounded": self.grounded, "note": self.note,
                "values": [v.as_dict() for v in self.values],
                "citations": [c.as_dict() for c in self.citations],
                "evidence": [c.as_dict() for c in self.evidence],
                "decision": self.decision.as_dict() if self.decision else None,
                "utility": self.utility.as_dict() if self.utility is not None else None,
                "rounds": self.rounds,
                "confidence": None if self.confidence is None else round(self.confidence, 4),
                "query_graph": plain(self.query_graph) if self.query_graph else None,
                "missing": self.missing, "lang": self.lang,
                "graph": self.graph.as_dict() if self.graph is not None else None,
                "trace": self.trace.as_dict()}
