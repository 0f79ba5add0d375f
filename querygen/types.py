"""What query generation returns: generated queries and the linking decisions behind them.

A ``GeneratedQuery`` is one query for one question, in three forms:

``label_level``  as Chain of Knowledge writes it, names in slots:
                 ``wd:/Douglas Adams/ wdt:/employer/ ?x`` (a triplet) or a whole SPARQL query
                 ``SELECT ?x WHERE { wd:/Douglas Adams/ wdt:/employer/ ?x }``;
``grounded``     the same with every slot replaced by the ID it was linked to:
                 ``wd:Q42 wdt:P108 ?x``;
``text``         the SPARQL to run (the grounded query; a triplet wrapped in a SELECT),
                 with the PREFIX declarations it needs, ready for ``KnowledgeBase.sparql``.

``kind`` is ``triplet`` (one pattern, at most one unknown part: ``(s, p, ?)``, ``(?, p, o)``
or ``(s, ?, o)``; ``triple`` then holds its grounded IDs with None for the unknown, so the
caller can run it as ``kb.statements(*triple)`` and get citations) or ``sparql``
(anything else: counts, ASK, chains, ordering, type constraints). ``form`` says what shape
of answer it asks for: ``select`` (entities or values), ``count`` (a number) or ``ask``
(yes/no). ``strategy`` is who wrote it (``rules``, ``llm``, ``model``); ``score`` orders
the queries of one question (higher is better; comparable within one result list only).

``decisions`` are the linking choices the grounded form rests on: for each slot, the
label, what it was linked to, and the runner-up candidates — so a caller can explain a
query or try the alternatives.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from kb.types import Candidate

QueryKind = Literal["triplet", "sparql"]
AnswerForm = Literal["select", "count", "ask"]


@dataclass(frozen=True, slots=True)
class LinkingDecision:
    """One slot of a label-level query and what it was grounded to.

    ``kind`` is ``entity``, ``property`` or ``class`` (an entity used as a type constraint);
    ``label`` the name written in the slot; ``mention`` the words of the question it came
    from, when known (``start``/``end`` are their offsets in the question, else -1);
    ``candidates`` best first, the first being the one chosen."""
    kind: Literal["entity", "property", "class"]
    label: str
    candidates: tuple[Candidate, ...]
    mention: str | None = None
    start: int = -1
    end: int = -1

    def __post_init__(self) -> None:
        if not self.candidates:
            raise ValueError(f"a linking decision for {self.label!r} needs at least the "
                             "chosen candidate")

    @property
    def chosen(self) -> Candidate:
        return self.candidates[0]

    @property
    def id(self) -> str:
        return self.candidates[0].id

    def as_dict(self, alternatives: int = 3) -> dict[str, Any]:
        """JSON-ready; at most ``alternatives`` runner-up candidates are included."""
        out: dict[str, Any] = {"kind": self.kind, "label": self.label, "id": self.id,
                               "chosen": self.chosen.as_dict(),
                               "alternatives": [c.as_dict() for c in
                                                self.candidates[1:1 + alternatives]]}
        if self.mention is not None:
            out.update(mention=self.mention, start=self.start, end=self.end)
        return out


@dataclass(frozen=True, slots=True)
class GeneratedQuery:
    """One query for a question (see the module docstring for the fields)."""
    text: str
    label_level: str
    grounded: str
    kind: QueryKind
    strategy: str
    score: float
    decisions: tuple[LinkingDecision, ...] = ()
    form: AnswerForm = "select"
    triple: tuple[str | None, str | None, str | None] | None = None
    #: the variable whose bindings answer the question (``x`` for ``?x``); '' for ASK
    answer_var: str = "x"
    question: str = ""
    #: the grounded triple patterns of the query (variables as ``?name``), in order, so an
    #: executor can fetch the statement behind every edge of an answer and cite it
    patterns: tuple[tuple[str, str, str], ...] = ()
    #: free-form notes on how the query came to be (the rule that fired, repair steps)
    notes: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        if self.kind not in ("triplet", "sparql"):
            raise ValueError(f"kind must be 'triplet' or 'sparql', got {self.kind!r}")
        if self.form not in ("select", "count", "ask"):
            raise ValueError(f"form must be 'select', 'count' or 'ask', got {self.form!r}")
        if self.kind == "triplet":
            if self.triple is None or len(self.triple) != 3:
                raise ValueError("a triplet query needs its grounded triple (s, p, o), "
                                 "None for the unknown part")
            if sum(part is None for part in self.triple) != 1:
                raise ValueError(f"a triplet query has exactly one unknown part, got "
                                 f"{self.triple!r}")

    def as_dict(self) -> dict[str, Any]:
        return {"text": self.text, "label_level": self.label_level,
                "grounded": self.grounded, "kind": self.kind, "form": self.form,
                "strategy": self.strategy, "score": round(self.score, 6),
                "triple": list(self.triple) if self.triple is not None else None,
                "answer_var": self.answer_var, "question": self.question,
                "patterns": [list(p) for p in self.patterns],
                "decisions": [d.as_dict() for d in self.decisions],
                "notes": list(self.notes)}


__all__ = ["AnswerForm", "GeneratedQuery", "LinkingDecision", "QueryKind"]
