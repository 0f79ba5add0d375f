"""The labels of a question's entities that a trained query generator is shown.

``linked_entities`` is what both sides of the contrastive training use: ``querygen.dataset``
when it builds training examples and ``querygen.trained`` at inference (through
``querygen.contrastive``, which puts them in the instruction), so that the model learns
to copy from what the linker gives, errors included.
"""

from __future__ import annotations

import re

from kb.contracts import MentionLinker

#: at most this many entity labels are put in the instruction
MAX_ENTITIES = 4
#: mentions whose best candidate is less likely than this to be meant are left out
MIN_CONFIDENCE = 0.05
_ID_LIKE = re.compile(r"[QPL][1-9][0-9]*")


def linked_entities(linker: MentionLinker, question: str, *, lang: str = "en") -> list[str]:
    """The labels the model is shown as the question's entities: for each mention the
    linker finds (``EntityLinker.link``), its best candidate's label, most confident first,
    at most ``MAX_ENTITIES``; mentions below ``MIN_CONFIDENCE`` and candidates without a
    usable label (none, an ID, control characters, ``;``) are left out. The same function
    runs at training and at inference, so the model learns to copy from what the linker
    gives, errors included."""
    result = linker.link(question, lang=lang)
    ranked = sorted((m for m in result.mentions if m.best is not None),
                    key=lambda m: -m.confidence)
    out: list[str] = []
    for m in ranked:
        best = m.best
        assert best is not None               # ranked keeps mentions with a candidate
        label = " ".join(best.label.split()) if best.label else ""
        if (m.confidence < MIN_CONFIDENCE or not label or _ID_LIKE.fullmatch(label)
                or ";" in label or any(ch < " " for ch in best.label) or label in out):
            continue
        out.append(label)
        if len(out) == MAX_ENTITIES:
            break
    return out
