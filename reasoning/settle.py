"""Never worse than the KB alone: the final answer when an LLM consulted the KB.

    settled = settle(model_option, kb_option, kb_grounded, kb_probability=p)
    settled.source     # 'model', 'kb' or 'none'
    settled.option     # the answer's values and their statement numbers (None: no answer)
    settled.grounded   # whether it may be called grounded

The model's answer is one of the KB's options (``reasoning.choice``): the one it chose by
likelihood, or the one its written answer names after the utility check passed. The
rules, in order:

1. The model chose the KB's own answer, or nothing ("none of these", an answer that
   failed the check or names no option): the **KB's own cited answer**, when the KB has
   one; else **no answer**.
2. The model chose another option and the KB has **no answer of its own**: the model's
   answer, cited, but **not called grounded**: the statements are the KB's, but nothing
   but the model says they answer the question. Where the KB has an answer, the model's
   preference for another relation's values does not replace it: a small model's
   likelihood favours frequent words ("Who was the employer of Douglas Adams?" →
   "English", Adams's native language), and only the question's analysis (the relation
   and the answer type it asks for) can say which relation answers.
3. The KB's answer keeps ``grounded`` (the KB's own check) only when the model does not
   doubt it: ``kb_probability`` — the KB's answer against "none of these" alone
   (``Choice.kb_vs_none``) — below ``GROUNDED_MIN`` leaves it the answer, not called
   grounded.

``GROUNDED_MIN`` was fitted on the dev split of ``bench/data/llm_questions.jsonl`` with
SmolLM2-135M (``bench/bench_llm.py``) and is reported on its held-out split in
bench/RESULTS.md. The KB's own confidence, when it has one, belongs here too: it decides
between the KB's answer and "no answer" in rule 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

#: the KB's answer is called grounded only when the model gives it at least this against
#: "none of these"
GROUNDED_MIN = 0.3


@dataclass(frozen=True)
class Settled:
    """The final answer: who gives it, its option (None: no answer), whether it may be
    called grounded, and why, in words."""

    source: Literal["model", "kb", "none"]
    option: Any
    grounded: bool
    reason: str


def settle(model_option: Any, kb_option: Any, kb_grounded: bool, *,
           kb_probability: float | None = None) -> Settled:
    """The final answer (see the module docstring). ``model_option``: the option the model
    chose (None: none, or its answer failed); ``kb_option``: the KB's own answer as an
    option (None: the KB has none); ``kb_grounded``: the KB's own check of it;
    ``kb_probability``: the model's probability of the KB's answer against "none of
    these", where it gave one."""
    if kb_option is None:
        if model_option is not None:
            return Settled("model", model_option, False,
                           "The model's choice among the KB's statements (the KB has no "
                           "answer of its own); not called grounded: nothing but the model "
                           "says these statements answer the question.")
        return Settled("none", None, False,
                       "The KB has no answer to this question and the model chose none of "
                       "its statements: no answer.")
    if model_option is kb_option:
        lead = "The model chose the KB's answer"
    elif model_option is None:
        lead = "The model chose none of the KB's answers: the KB's own answer stands"
    else:
        lead = (f"The model preferred another relation's values ({model_option.text}); the "
                "KB's own answer stands")
    if kb_probability is not None and kb_probability < GROUNDED_MIN:
        return Settled("kb", kb_option, False,
                       f"{lead}; not called grounded: the model doubts it (probability "
                       f"{kb_probability:.2f} against none of these, < {GROUNDED_MIN}).")
    return Settled("kb", kb_option, kb_grounded, f"{lead}.")
