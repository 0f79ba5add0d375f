"""Chain of Knowledge's contrastive training sequences and their loss mask.

One sequence holds the instruction (the question), one correct query and the incorrect
ones, each query on its own line after its marker::

    Question: Who employed Douglas Adams?
    Entities: Douglas Adams
    Correct query: SELECT ?x WHERE { wd:/Douglas Adams/ wdt:/employer/ ?x . }
    Incorrect query 1: SELECT ?x WHERE { /Douglas Adams/ wdt:/employer/ ?x . }
    ...
    Incorrect query 4: SELECT ?x WHERE { ?x wdt:/employer/ wd:/Douglas Adams/ . }

The objective is the log-likelihood of the query tokens only (the paper's equation):

    L(θ) = − Σ_t m_t · log p_θ(x_t | x_<t),   m_t = 1 if x_t is inside a query, else 0

so the instruction (the question and, for models trained with them, the labels of the
entities the linker found in it: ``linked_entities``) and the markers (``Correct query:``,
``Incorrect query k:``) are context, never targets. A query's tokens include its closing
newline, which is how the model learns where a query ends. ``segments`` splits an example
into (text, inside-a-query) parts; ``encode`` tokenizes part by part, so every token's mask
is exact (no offset guessing); for an encoder-decoder the question is the encoder's input
and the rest the decoder's.
``masked_nll`` is the loss, averaged over the masked tokens of a batch (a constant scale
of the sum, so the learning rate does not depend on how long the queries are).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence

from querygen.question_entities import (  # noqa: F401 (linked_entities: part of this API)
    MAX_ENTITIES, MIN_CONFIDENCE, linked_entities)

if TYPE_CHECKING:
    from querygen.dataset import Example

QUESTION = "Question:"
ENTITIES = "Entities:"
CORRECT = "Correct query:"
#: ``INCORRECT.format(k)`` is the marker of the k-th incorrect query (from 1)
INCORRECT = "Incorrect query {}:"


def prompt(question: str, entities: Sequence[str] | None = None) -> str:
    """The instruction part: what the model reads before it writes the correct query —
    the question and, unless ``entities`` is None, an ``Entities:`` line listing them."""
    text = f"{QUESTION} {' '.join(question.split())}\n"
    if entities is not None:
        text += f"{ENTITIES} {'; '.join(entities)}\n" if entities else f"{ENTITIES}\n"
    return text


def segments(example: Example, *, with_negatives: bool = True) -> list[tuple[str, bool]]:
    """(text, inside a query) parts of an example's training sequence, in order."""
    parts: list[tuple[str, bool]] = [(prompt(example.question, example.entities), False),
                                     (CORRECT, False),
                                     (f" {example.query}\n", True)]
    if with_negatives:
        for k, neg in enumerate(example.negatives, 1):
            parts += [(INCORRECT.format(k), False), (f" {' '.join(neg.text.split())}\n", True)]
    return parts


def encode(parts: Sequence[tuple[str, bool]],
           tokenize: Callable[[str], list[int]]) -> tuple[list[int], list[int]]:
    """Token IDs and their mask (1 inside a query, 0 elsewhere), tokenizing part by part."""
    ids: list[int] = []
    mask: list[int] = []
    for text, is_query in parts:
        toks = tokenize(text)
        ids += toks
        mask += [1 if is_query else 0] * len(toks)
    return ids, mask


def masked_nll(logits: Any, targets: Any, mask: Any) -> Any:
    """− Σ m_t log p(x_t | x_<t) / Σ m_t, for logits already aligned with their targets
    (``logits[:, t]`` predicts ``targets[:, t]``). torch tensors: (B, T, V), (B, T), (B, T)."""
    import torch.nn.functional as F

    logp = F.log_softmax(logits.float(), dim=-1)
    token_logp = logp.gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    mask = mask.to(token_logp.dtype)
    return -(token_logp * mask).sum() / mask.sum().clamp(min=1.0)
