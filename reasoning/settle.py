"""Never worse than the KB alone: the final answer when an LLM consulted the KB.

    settled = settle(model_option, probabilities, kb_option, kb_grounded)
    settled.source     # 'model', 'kb' or 'none'
    settled.option     # the answer's values and their statement numbers (None: no answer)
    settled.grounded   # whether it may be called grounded

The model's answer is one of the KB's options (``reasoning.choice``): the one it chose by
likelihood, or the one its written answer names after the utility check passed. The
rules, in order:

1. The model chose the KB's own answer, or nothing ("none of these", an answer that
   failed the check or names no option): the **KB's own cited answer**, when the KB has
   one; else **no answer**.
2. The model chose another option: its answer, cited, when the KB has no answer of its
   own, or when the model gives it at least ``SWITCH_MARGIN`` more probability than the
   KB's (written answers have no probability: a passing one is taken). It is **not called
   grounded**: the statements are the KB's, but the KB's own reading of the question was
   another, so nothing but the model says these statements answer it.
3. The KB's answer keeps ``grounded`` (the KB's own check) only when the model does not
   find it unlikely: with a probability below ``GROUNDED_MIN`` it is still the answer, but
   not called grounded.

The thresholds were fitted on the dev split of ``bench/llm_questions.jsonl`` with
SmolLM2-135M (``bench/bench_llm.py``) and are reported on its held-out split in
bench/RESULTS.md. The KB's own confidence, when it has one, belongs here too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

#: a non-KB option replaces the KB's answer only with this much more probability
SWITCH_MARGIN = 0.2
#: the KB's answer is called grounded only when the model gives it at least this
GROUNDED_MIN = 0.1


@dataclass(frozen=True)
class Settled:
    """The final answer: who gives it, its option (None: no answer), whether it may be
    called grounded, and why, in words."""

    source: Literal["model", "kb", "none"]
    option: Any
    grounded: bool
    reason: str


def settle(model_option: Any, kb_option: Any, kb_grounded: bool, *,
           model_probability: float | None = None,
           kb_probability: float | None = None) -> Settled:
    """The final answer (see the module docstring). ``model_option``: the option the model
    chose (None: none, or its answer failed); ``kb_option``: the KB's own answer as an
    option (None: the KB has none); ``kb_grounded``: the KB's own check of it; the
    probabilities: the model's, where it gave them."""
    if model_option is not None and model_option is not kb_option:
        margin = None if model_probability is None or kb_probability is None \
            else model_probability - kb_probability
        if kb_option is None or margin is None or margin >= SWITCH_MARGIN:
            why = "the KB has no answer of its own" if kb_option is None else \
                f"the model prefers it to the KB's answer ({kb_option.text})" + \
                (f" by {margin:.2f}" if margin is not None else "")
            return Settled("model", model_option, False,
                           f"The model's choice among the KB's statements ({why}); not "
                           "called grounded: the KB's own reading of the question was "
                           "another.")
    if kb_option is None:
        return Settled("none", None, False,
                       "The KB has no answer to this question and the model chose none of "
                       "its statements: no answer.")
    doubted = kb_probability is not None and kb_probability < GROUNDED_MIN
    if model_option is kb_option:
        lead = "The model chose the KB's answer"
    elif model_option is None:
        lead = "The model chose none of the KB's answers: the KB's own answer stands"
    else:
        lead = "The model's preference for another answer was too slight: the KB's own " \
               "answer stands"
    if doubted:
        return Settled("kb", kb_option, False,
                       f"{lead}; not called grounded: the model finds it unlikely "
                       f"(probability {kb_probability:.2f} < {GROUNDED_MIN}).")
    return Settled("kb", kb_option, kb_grounded, f"{lead}.")
