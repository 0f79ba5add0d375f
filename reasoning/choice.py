"""The model chooses among the KB's candidate answers by likelihood, "none of these" included.

    options = answer_options(evidence)          # the KB's own answer first, then the others
    choice = choose(llm, question, evidence, options)
    choice.option          # the chosen Option, or None for "none of these"
    choice.probabilities   # one per option, then "none of these" (they sum to 1)

A small model writes a cited answer badly (no "[n]", the wrong subject, a loop), but it can
say which of a few answers it finds likely. So where the KB offers candidates, kgground
scores, for each candidate value, the model's log-probability of the reply
``Answer: <value>`` to the question, and of ``Answer: I don't know`` ("none of these") —
nothing is generated: one forward pass over the question and one batch over the replies
(``reasoning.llm.likelihood``). An option's score is its best value's total
log-probability; the probabilities are the softmax of the scores over the options and
"none of these". Citations come from the chosen option's statements, so the model never
has to write one.

The question alone is the prompt, without the evidence: the options come from the KB
already, and what the model adds is its own belief in each. On the dev split of
``bench/data/llm_questions.jsonl`` (SmolLM2-135M) this chose better than prompts listing the
evidence (which a small model copies from) and than mean token log-probabilities, and
it is three times shorter to run (bench/HISTORY.md, issue 28).

**Options** (``answer_options``): the KB's own answer (``Evidence.kb_answer``, the values
of the question's query graph) as one option, then each other relation the evidence
chains follow from a question entity (same start, same properties in the same directions:
its ends are the option's values), best chain first, at most ``MAX_OPTIONS`` in all.
Chains that go out along a property and come back along the same one (Douglas Adams —
employer → BBC ← employer — David Hatch) are left out: they find what shares a value with
the question's entity, which no one-fact question asks for.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from reasoning.answer import AnswerValue
from reasoning.evidence import Evidence
from reasoning.llm.base import Message
from reasoning.llm.likelihood import ScoringLLM, softmax

#: options offered to the model (the KB's own answer and the best other relations)
MAX_OPTIONS = 4
#: values of one option scored (the first, in the KB's order)
MAX_VALUES = 5
NONE = "none of these"
#: the reply that stands for "none of these" (the question alone is the prompt)
NONE_REPLY = "Answer: I don't know"


@dataclass(frozen=True)
class Option:
    """One candidate answer: its values (with their statement numbers), the relation the
    chains follow from the question's entity ((start, ((property, forward), ...)); None
    for the KB's own answer when it came from a query), and whether it is the KB's own."""

    values: tuple[AnswerValue, ...]
    relation: tuple | None = None
    from_kb: bool = False

    @property
    def text(self) -> str:
        return ", ".join(v.label for v in self.values)

    @property
    def numbers(self) -> tuple[int, ...]:
        return tuple(dict.fromkeys(n for v in self.values for n in v.numbers))

    def as_dict(self) -> dict[str, Any]:
        return {"text": self.text, "from_kb": self.from_kb,
                "values": [v.as_dict() for v in self.values]}


@dataclass(frozen=True)
class Choice:
    """The model's choice: the option (None: "none of these"), each option's probability
    and then that of "none of these", the scores they came from, the prompt and the
    scored replies (for the trace)."""

    option: Option | None
    options: tuple[Option, ...]
    probabilities: tuple[float, ...]
    scores: tuple[float, ...]
    messages: tuple[Message, ...] = ()
    replies: tuple[str, ...] = ()
    value_scores: tuple[float, ...] = field(default=(), compare=False)

    @property
    def none(self) -> float:
        """The probability of "none of these"."""
        return self.probabilities[-1]

    @property
    def kb_probability(self) -> float | None:
        """The probability of the KB's own answer (None when it offered none)."""
        for option, p in zip(self.options, self.probabilities):
            if option.from_kb:
                return p
        return None

    @property
    def kb_vs_none(self) -> float | None:
        """The probability of the KB's own answer against "none of these" alone (the other
        options left out): how much the model doubts the KB's answer, whatever else it
        finds likely (None when the KB offered no answer)."""
        for option, score in zip(self.options, self.scores):
            if option.from_kb:
                return 1.0 / (1.0 + math.exp(min(700.0, self.scores[-1] - score)))
        return None

    @property
    def probability(self) -> float:
        """The probability of what was chosen."""
        if self.option is None:
            return self.none
        return self.probabilities[self.options.index(self.option)]

    def as_dict(self) -> dict[str, Any]:
        return {"chosen": self.option.text if self.option else NONE,
                "probability": round(self.probability, 4),
                "options": [{**o.as_dict(), "probability": round(p, 4), "score": round(s, 4)}
                            for o, p, s in zip(self.options, self.probabilities, self.scores)],
                "none": round(self.none, 4),
                "kb_vs_none": None if self.kb_vs_none is None else round(self.kb_vs_none, 4),
                "replies": list(self.replies),
                "value_scores": [round(s, 4) for s in self.value_scores]}


def answer_options(evidence: Evidence) -> list[Option]:
    """The candidate answers the evidence offers (see the module docstring)."""
    out: list[Option] = []
    if evidence.kb_answer:
        out.append(Option(tuple(evidence.kb_answer), None, True))
    graph = evidence.graph
    if graph is None:
        return out
    taken = {frozenset(v.id or v.label for v in o.values) for o in out}
    groups: dict[tuple, list[AnswerValue]] = {}
    for chain in graph.chains:
        if chain.kind != "answer" or not chain.steps or _returns(chain):
            continue
        relation = (chain.start, tuple((s.property, s.forward) for s in chain.steps))
        values = groups.setdefault(relation, [])
        data = graph.graph.nodes.get(chain.end, {})
        node = chain.end if data.get("value") is None else None
        if all((v.id or v.label) != (node or graph.label(chain.end)) for v in values):
            values.append(AnswerValue(node, graph.label(chain.end), tuple(chain.numbers)))
    for relation, values in groups.items():
        if len(out) >= MAX_OPTIONS:
            break
        key = frozenset(v.id or v.label for v in values)
        if key in taken or any(key <= t for t in taken):
            continue
        taken.add(key)
        out.append(Option(tuple(values), relation, False))
    return out


def _returns(chain: Any) -> bool:
    """Whether the chain comes back along the property it went out on (x —p→ y ←p— z)."""
    steps = chain.steps
    return any(a.property == b.property and a.forward != b.forward
               for a, b in zip(steps, steps[1:]))


def choice_messages(question: str) -> list[Message]:
    """The prompt the replies are scored after: the question alone."""
    return [{"role": "user", "content": question}]


def option_block(evidence: Evidence, options: Sequence[Option]) -> str:
    """The statements behind the options' values, as '[n] S — P → O' lines (what a model
    that writes its answer is shown: the question's entity and relations only)."""
    numbers = sorted({n for o in options for v in o.values[:MAX_VALUES] for n in v.numbers})
    return "\n".join(f"[{n}] {s.text}" for n in numbers if (s := evidence.get(n)) is not None)


def option_of(values: Sequence[AnswerValue], options: Sequence[Option]) -> Option | None:
    """The first option holding every one of ``values`` (by ID, else by label)."""
    keys = {v.id or v.label for v in values}
    for option in options:
        if keys and keys <= {v.id or v.label for v in option.values}:
            return option
    return None


def choose(llm: ScoringLLM, question: str, options: Sequence[Option], *,
           record: Any = None) -> Choice:
    """The model's choice among ``options`` and "none of these" (see the module
    docstring). ``record(messages, replies, call)``, when given, makes the scoring call
    (``call()``) and records it."""
    options = tuple(options)
    messages = choice_messages(question)
    owners: list[int] = []
    replies: list[str] = []
    for i, option in enumerate(options):
        for value in option.values[:MAX_VALUES]:
            owners.append(i)
            replies.append(f"Answer: {value.label}")
    replies.append(NONE_REPLY)
    def call() -> list[tuple[float, ...]]:
        return llm.score(messages, replies)
    scored = record(messages, replies, call) if record is not None else call()
    value_scores = [sum(s) if s else -math.inf for s in scored]
    scores = [max(v for o, v in zip(owners, value_scores) if o == i)
              for i in range(len(options))] + [value_scores[-1]]
    probabilities = softmax(scores)
    best = max(range(len(scores)), key=lambda i: scores[i])
    chosen = options[best] if best < len(options) else None
    return Choice(chosen, options, tuple(probabilities), tuple(scores), tuple(messages),
                  tuple(replies), tuple(value_scores))
