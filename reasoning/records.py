"""What each stage of ``Grounder.ask`` produced, as typed records.

    answer.trace.stage("draft").record       # DraftRecord(prompt=[...], reply=..., answer=...)
    answer.trace.stage("draft").details      # its JSON form: record.as_dict()

One record per stage of the policy (``reasoning.policy``):

==========  =========================================================================
draft       ``DraftRecord``: the model's own answer in one sentence
decide      ``DecisionRecord``: the gate's ``Decision`` (its calls are the stage's)
retrieve    ``RetrievalRecord``: the consolidator's ``Consolidation`` (its queries are
            ``GraphQueryRecord`` and ``GeneratedQueryRecord``), the sub-questions the
            model proposed (``Decomposition``) and the evidence gathered with them, the
            options offered to the model
answer      ``AnswerRecord`` (a prompt and the reply) or ``ChoiceRecord`` (a model that
            scores chooses among the options)
verify      ``VerifyRecord``: the utility check of one written answer
revise      ``RevisionRecord``: the model's answer again, given the feedback
finish      ``FinishRecord``: the answer composed and the working memory
==========  =========================================================================

Each record's ``as_dict()`` is its stage's ``details`` in the trace (``kgground ask
--json``), described per stage by the trace's JSON Schema (``chains/schema/
trace-v1.schema.json``, ``reasoning.load_trace_schema()``). Query records are filled in
while the consolidator runs (a query is run after it is recorded; narrowed after it
answered); the stage records are frozen once the stage ends.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from kb.contracts import Message

if TYPE_CHECKING:
    from chains.types import Seed
    from querygen.answer_types import TypeCheck
    from querygen.types import LinkingDecision
    from reasoning.answer import AnswerValue
    from reasoning.choice import Choice, Option
    from reasoning.gates.base import Decision
    from reasoning.utility import Utility

#: what gave the KB's own answer: a query graph of the question, another query (an LLM's,
#: or a sub-question's), or nothing
AnsweredBy = Literal["query graph", "query", "none"]


def _messages(messages: Sequence[Message]) -> list[dict[str, str]]:
    return [dict(m) for m in messages]


# -- the consolidator's records (retrieve) ----------------------------------------------------
@dataclass(frozen=True)
class QueryRun:
    """Where a query ran (``source``: the KB that answered; ``engine``) and how long."""

    source: str
    engine: str
    run_ms: float


@dataclass(frozen=True)
class Narrowed:
    """A number of the question (a year) that narrowed a query's answers to those whose
    statements have a qualifier with it, or within the bound a comparison before it sets
    ("before 1905"): ``kept`` answers of ``of``."""

    numbers: tuple[str, ...]
    kept: int
    of: int

    def as_dict(self) -> dict[str, Any]:
        return {"numbers": list(self.numbers), "kept": self.kept, "of": self.of}


@dataclass
class GraphQueryRecord:
    """One query graph of the question scored by ``querygen.graphs`` (strategy 'rules'):
    the query, its linking decisions, its type check and calibrated confidence, whether it
    is the one that answers, and what it found when it ran."""

    question: str
    rank: int
    label_level: str
    grounded: str
    kind: str
    form: str
    confidence: float
    chosen: bool
    type_check: TypeCheck
    linking: tuple[LinkingDecision, ...]
    answers: int
    count: int | None
    boolean: bool | None
    rank_ms: float
    run: QueryRun | None = None
    diagnostics: Mapping[str, Any] | None = None
    sub_question: int | None = None
    narrowed: Narrowed | None = None
    strategy: str = "rules"

    def as_dict(self) -> dict[str, Any]:
        confidence = round(self.confidence, 6)
        out: dict[str, Any] = {
            "question": self.question, "strategy": self.strategy, "rank": self.rank,
            "label_level": self.label_level, "grounded": self.grounded, "kind": self.kind,
            "form": self.form, "score": confidence, "confidence": confidence,
            "chosen": self.chosen, "type_check": self.type_check.as_dict(),
            "linking": [d.as_dict(alternatives=1) for d in self.linking],
            "answers": self.answers, "count": self.count, "boolean": self.boolean,
            "rank_ms": self.rank_ms}
        if self.run is not None:
            out.update(source=self.run.source, engine=self.run.engine,
                       run_ms=self.run.run_ms)
        if self.diagnostics:
            out["diagnostics"] = dict(self.diagnostics)
        return _tail(out, self.sub_question, self.narrowed)


@dataclass(frozen=True)
class QueryOutcome:
    """What a generated query found when it ran: where, and its answers (their number, a
    count or a yes/no)."""

    run: QueryRun
    answers: int
    count: int | None
    boolean: bool | None


@dataclass
class GeneratedQueryRecord:
    """One query a generator wrote (an LLM's few-shot queries): the query and its linking
    decisions, then why it was skipped (names of the question it leaves out, validator
    errors), the error it ran into, or what it found."""

    question: str
    strategy: str
    rank: int
    label_level: str
    grounded: str
    kind: str
    form: str
    score: float
    linking: tuple[LinkingDecision, ...]
    generate_ms: float
    sub_question: int | None = None
    ignores: Sequence[str] = ()
    #: the validator's errors and warnings ('line:column: severity: message. Fix: ...')
    errors: Sequence[str] | None = None
    warnings: Sequence[str] = ()
    error: str | None = None
    outcome: QueryOutcome | None = None
    narrowed: Narrowed | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "question": self.question, "strategy": self.strategy, "rank": self.rank,
            "label_level": self.label_level, "grounded": self.grounded, "kind": self.kind,
            "form": self.form, "score": round(self.score, 6),
            "linking": [d.as_dict(alternatives=1) for d in self.linking],
            "generate_ms": self.generate_ms}
        if self.sub_question is not None:
            out["sub_question"] = self.sub_question
        if self.ignores:
            out["ignores"] = list(self.ignores)
        if self.errors is not None:
            out["diagnostics"] = {"errors": list(self.errors),
                                  "warnings": list(self.warnings)}
        if self.error is not None:
            out["error"] = self.error
        if self.outcome is not None:
            o = self.outcome
            out.update(source=o.run.source, engine=o.run.engine, run_ms=o.run.run_ms,
                       answers=o.answers, count=o.count, boolean=o.boolean)
        return _tail(out, None, self.narrowed)


QueryRecord = GraphQueryRecord | GeneratedQueryRecord


def _tail(out: dict[str, Any], sub_question: int | None,
          narrowed: Narrowed | None) -> dict[str, Any]:
    if sub_question is not None:
        out["sub_question"] = sub_question
    if narrowed is not None:
        out["narrowed"] = narrowed.as_dict()
    return out


@dataclass(frozen=True)
class Consolidation:
    """One run of the knowledge consolidator (``reasoning.consolidate``): how a question in
    another language was read, every query graph scored and query generated (in the order
    they were tried), the sub-questions asked, the evidence graph's question entities and
    chains, the numbered statements (how many, per source), the KB's own answer with its
    confidence and what it lacks, what gave it, the time of each step and the
    question-level warnings."""

    queries: tuple[QueryRecord, ...]
    seeds: tuple[Seed, ...]
    chains: tuple[str, ...]
    statements: int
    sources: Mapping[str, int]
    kb_answer: tuple[AnswerValue, ...]
    kb_confidence: float
    kb_missing: str | None
    answered_by: AnsweredBy
    queries_ms: float
    chains_ms: float
    number_ms: float
    read_as: str | None = None
    sub_questions: tuple[str, ...] | None = None
    warnings: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.read_as:
            out["read_as"] = self.read_as
        out["queries"] = [q.as_dict() for q in self.queries]
        if self.sub_questions is not None:
            out["sub_questions"] = list(self.sub_questions)
        out.update(seeds=[s.as_dict() for s in self.seeds], chains=list(self.chains),
                   statements=self.statements, sources=dict(self.sources),
                   kb_answer=[v.as_dict() for v in self.kb_answer],
                   kb_confidence=round(self.kb_confidence, 4), kb_missing=self.kb_missing,
                   answered_by=self.answered_by, queries_ms=self.queries_ms,
                   chains_ms=self.chains_ms, number_ms=self.number_ms)
        if self.warnings:
            out["warnings"] = list(self.warnings)
        return out


# -- the stages' records ----------------------------------------------------------------------
@dataclass(frozen=True)
class DraftRecord:
    """draft: the prompt, the model's reply, the answer read from it, and why the reply is
    no answer (empty, repeating itself, the question copied back) when it is none."""

    prompt: Sequence[Message]
    reply: str
    answer: str
    degenerate: str | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"prompt": _messages(self.prompt), "reply": self.reply,
                               "answer": self.answer}
        if self.degenerate:
            out["degenerate"] = self.degenerate
        return out


@dataclass(frozen=True)
class DecisionRecord:
    """decide: the gate's decision (or the policy's, when the draft abstains); its LLM
    calls are the stage's, so they are left out here."""

    decision: Decision

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.decision.as_dict().items() if k != "calls"}


@dataclass(frozen=True)
class Decomposition:
    """The model's sub-questions: the prompt, its reply, and those worth asking."""

    prompt: Sequence[Message]
    reply: str
    kept: tuple[str, ...]


@dataclass(frozen=True)
class RetrievalRecord:
    """retrieve: the consolidator's run over the question; with an LLM, the model's
    sub-questions (when the question's own query found nothing), the consolidator's run
    with them (when there were two or more worth asking), and the options the evidence
    offers the model.

    In ``as_dict`` the run with the sub-questions is written over the first (as one log
    that both runs wrote into): a key only the first run has — its warnings, say —
    stays; ``without_sub_questions`` keeps the first run's answer."""

    consolidation: Consolidation
    decomposition: Decomposition | None = None
    with_sub_questions: Consolidation | None = None
    options: tuple[Option, ...] | None = None

    @property
    def final(self) -> Consolidation:
        """The run whose evidence the answer reads."""
        return self.with_sub_questions or self.consolidation

    def as_dict(self) -> dict[str, Any]:
        first = self.consolidation.as_dict()
        out = dict(first)
        if self.decomposition is not None:
            d = self.decomposition
            out.update(decompose_prompt=_messages(d.prompt), decompose_reply=d.reply,
                       sub_questions_kept=list(d.kept))
        if self.with_sub_questions is not None:
            out.update(self.with_sub_questions.as_dict())
            out["without_sub_questions"] = {k: first.get(k) for k in
                                            ("answered_by", "kb_answer")}
        if self.options is not None:
            out["options"] = [o.as_dict() for o in self.options]
        return out


@dataclass(frozen=True)
class AnswerRecord:
    """answer: the model's answer from the numbered evidence — the prompt and its reply."""

    prompt: Sequence[Message]
    reply: str

    def as_dict(self) -> dict[str, Any]:
        return {"prompt": _messages(self.prompt), "reply": self.reply}


@dataclass(frozen=True)
class ChoiceRecord:
    """answer, by a model that scores: its choice among the options by likelihood."""

    choice: Choice

    def as_dict(self) -> dict[str, Any]:
        return {"choice": self.choice.as_dict()}


@dataclass(frozen=True)
class VerifyRecord:
    """verify: the utility check of the written answer of ``round`` (1: the first)."""

    round: int
    utility: Utility

    def as_dict(self) -> dict[str, Any]:
        return {"round": self.round, **self.utility.as_dict()}


@dataclass(frozen=True)
class RevisionRecord:
    """revise: the model's answer of ``round`` (2 on), written again given the feedback;
    ``stalled`` when it repeats an earlier one (the rounds end)."""

    round: int
    prompt: Sequence[Message]
    reply: str
    stalled: bool

    def as_dict(self) -> dict[str, Any]:
        return {"round": self.round, "prompt": _messages(self.prompt), "reply": self.reply,
                "stalled": self.stalled}


@dataclass(frozen=True)
class FinishRecord:
    """finish: the answer composed (its text, whether it is grounded, who answered) and
    the working memory the policy read (``WorkingMemory.as_dict()``, taken when the stage
    ended)."""

    text: str
    grounded: bool
    mode: str
    memory: Mapping[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"text": self.text, "grounded": self.grounded, "mode": self.mode,
                "memory": dict(self.memory)}


__all__ = ["AnswerRecord", "AnsweredBy", "ChoiceRecord", "Consolidation", "DecisionRecord",
           "Decomposition", "DraftRecord", "FinishRecord", "GeneratedQueryRecord",
           "GraphQueryRecord", "Narrowed", "QueryOutcome", "QueryRecord", "QueryRun",
           "RetrievalRecord", "RevisionRecord", "VerifyRecord"]
