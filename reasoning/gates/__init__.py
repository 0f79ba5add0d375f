"""Policies deciding when to consult the KB, behind one interface (``Gate.decide``).

    from reasoning.gates import make_gate
    gate = make_gate("rowen-hybrid", llm, verifier=other_llm)      # or "cok", "always", ...
    decision = gate.decide(question)
    decision.consult, decision.score, decision.scores, len(decision.calls)

Names: ``always``, ``never``, ``likelihood``, ``cok``, ``rowen-cl``, ``rowen-cm``,
``rowen-hybrid`` (see ``reasoning.gates.policies`` for what each does). ``checker`` for
Rowen: ``"llm"`` (the LLM judge; ``judge=`` picks its model, default the main one),
``"similarity"`` (MiniLM, no LLM call) or any ``Checker``. Other keyword arguments go to
the gate (``n``, ``temperature`` for cok; ``k``, ``alpha``, ``threshold``, ``target_language``,
``max_workers`` for Rowen).
"""

from __future__ import annotations

from typing import Any

from reasoning.gates.base import CallRecord, Decision, Gate, Trace, run_all
from reasoning.gates.checkers import QA, Check, Checker, LLMJudge, SimilarityChecker
from reasoning.gates.policies import (AlwaysGate, CoKGate, LikelihoodGate, NeverGate,
                                     RowenGate)
from reasoning.llm.base import LLM
from store.errors import LLMConfigError

GATES = ("always", "never", "likelihood", "cok", "rowen-cl", "rowen-cm", "rowen-hybrid")
#: what a user may ask for: a gate, or "auto" (``auto_gate``)
GATE_CHOICES = ("auto", *GATES)


def auto_gate(llm: LLM | None, verifier: LLM | None = None) -> str:
    """The gate "auto" means: "always" without an LLM (the KB alone answers), Rowen's
    cross-model check with a verifier model, else its cross-language check."""
    if llm is None:
        return "always"
    return "rowen-hybrid" if verifier is not None else "rowen-cl"


def make_checker(checker: str | Checker, llm: LLM | None) -> Checker:
    if isinstance(checker, Checker):
        return checker
    if checker in ("llm", "judge", "llm-judge"):
        if llm is None:
            raise LLMConfigError("the LLM judge needs a model", backend="checker",
                                 fix="pass llm= or judge=, or use checker='similarity'")
        return LLMJudge(llm)
    if checker in ("similarity", "minilm"):
        return SimilarityChecker()
    raise LLMConfigError("unknown checker", backend="checker",
                         expected="'llm', 'similarity' or a Checker", got=checker)


def make_gate(name: str, llm: LLM | None = None, *, verifier: LLM | None = None,
              checker: str | Checker = "llm", judge: LLM | None = None,
              **options: Any) -> Gate:
    """The gate called ``name`` (one of ``GATES``). Raises ``LLMConfigError`` (a
    ValueError) naming what is missing or unknown."""
    if name == "always":
        return AlwaysGate()
    if name == "never":
        return NeverGate()
    if name not in GATES:
        raise LLMConfigError("unknown gate", backend="gate", expected=" | ".join(GATES),
                             got=name)
    if llm is None:
        raise LLMConfigError(f"the {name} gate asks the model itself and has none",
                             backend=f"gate {name}",
                             fix="pass an LLM (--llm), or use the 'always' or 'never' gate")
    if name == "cok":
        return CoKGate(llm, **options)
    if name == "likelihood":
        return LikelihoodGate(llm, **options)
    mode = name.removeprefix("rowen-")
    return RowenGate(llm, mode=mode, verifier=verifier,
                     checker=make_checker(checker, judge or llm), **options)


__all__ = ["GATES", "GATE_CHOICES", "AlwaysGate", "CallRecord", "Check", "Checker",
           "CoKGate", "Decision", "Gate", "LikelihoodGate", "LLMJudge", "NeverGate", "QA",
           "RowenGate", "SimilarityChecker", "Trace", "auto_gate", "make_checker",
           "make_gate", "run_all"]
