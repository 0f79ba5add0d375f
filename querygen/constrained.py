"""Decoding constrained to slots the KB can ground: inside ``wd:/…/`` a trained generator
may only write one of the entity labels it was given, inside ``wdt:/…/`` (``p:``, ``ps:``,
``pq:``, ``pr:``) only a property label the KB has.

    constraint = SlotConstraint(tokenizer, start=len(prompt_ids),
                                entities=LabelTrie(["Douglas Adams"]),
                                properties=LabelTrie(linker.properties.labels().values()))
    model.generate(..., logits_processor=LogitsProcessorList([constraint]))

A small model trained from scratch learns the shape of a query and its property quickly but
copies names from the question badly; with the constraint, copying a name becomes choosing
among a few labels, token by token, by the model's own scores. Everything outside slots is
left to the model. The check works on bytes (a byte-level BPE token may hold part of a
UTF-8 character): a token is allowed in a slot when the slot's content so far followed by
the token's bytes is still a prefix of an allowed label, or completes one and closes the
slot with ``/``. A slot whose content has already left every allowed label (only possible
for a prefix the constraint does not know) is not constrained.
"""

from __future__ import annotations

import re
from typing import Any, Iterable

from querygen.terms import ENTITY_PREFIXES, PROPERTY_PREFIXES, slot

_END = -1                               # the key marking a node where a label ends
_SLASH = ord("/")
#: the generated text ends inside an open slot: group 1 the prefix, group 2 its content
_OPEN_SLOT = re.compile(rb"([A-Za-z][\w-]*):/((?:\\.|[^/\\\n])*\\?)\Z")


class LabelTrie:
    """The labels a slot may hold, escaped as in a slot (``AC\\/DC``), as a byte trie;
    remembers which tokens fit at each node (filled by ``SlotConstraint``)."""

    def __init__(self, labels: Iterable[str]):
        self.root: dict[int, Any] = {}
        self.size = 0
        self.fits: dict[int, list[int]] = {}
        for label in labels:
            if label and label.strip():
                self.add(slot("x", label)[3:-1])

    def add(self, escaped: str) -> None:
        node = self.root
        for b in escaped.encode("utf-8"):
            node = node.setdefault(b, {})
        if _END not in node:
            node[_END] = True
            self.size += 1

    def walk(self, data: bytes) -> dict[int, Any] | None:
        """The node ``data`` leads to from the root; None if no label starts so."""
        node = self.root
        for b in data:
            child = node.get(b)
            if child is None:
                return None
            node = child
        return node

    def __len__(self) -> int:
        return self.size


def _fits(node: dict[int, Any], data: bytes) -> bool:
    """Whether ``data`` continues a label from ``node`` (or completes one and closes the
    slot with ``/``)."""
    for b in data:
        if b == _SLASH and _END in node:
            return True
        child = node.get(b)
        if child is None:
            return False
        node = child
    return True


def token_bytes(tokenizer: Any) -> list[bytes | None]:
    """The bytes each token ID stands for (None for special tokens): exact for byte-level
    BPE vocabularies (GPT-2's byte-to-character table reversed), else the token decoded
    alone."""
    vocab = tokenizer.get_vocab()
    size = max(vocab.values()) + 1
    special = set(getattr(tokenizer, "all_special_ids", ()) or ())
    table = _byte_decoder()
    byte_level = all(all(ch in table for ch in tok) for tok in vocab
                     if vocab[tok] not in special)
    out: list[bytes | None] = [None] * size
    for tok, i in vocab.items():
        if i in special:
            continue
        if byte_level:
            out[i] = bytes(table[ch] for ch in tok)
        else:
            out[i] = tokenizer.decode([i]).encode("utf-8")
    return out


def _byte_decoder() -> dict[str, int]:
    """GPT-2's printable character for each byte, reversed."""
    bs = (list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1))
          + list(range(ord("®"), ord("ÿ") + 1)))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(bs, cs)}


class SlotConstraint:
    """A transformers logits processor: masks every token that would write a slot's
    content outside its allowed labels (see the module docstring). ``start`` is where the
    generated part of ``input_ids`` begins; ``entities``/``properties`` None leave those
    slots free. ``pieces`` is ``token_bytes(tokenizer)``, shared across calls."""

    def __init__(self, pieces: list[bytes | None], start: int, *,
                 entities: LabelTrie | None = None, properties: LabelTrie | None = None):
        self.pieces = pieces
        self.start = start
        self.tries = {}
        for prefix in ENTITY_PREFIXES:
            self.tries[prefix] = entities
        for prefix in PROPERTY_PREFIXES:
            self.tries[prefix] = properties
        self.by_first: dict[int, list[int]] = {}
        for i, data in enumerate(pieces):
            if data:
                self.by_first.setdefault(data[0], []).append(i)

    def allowed(self, trie: LabelTrie, content: bytes) -> list[int] | None:
        """Token IDs that may follow ``content`` in a slot of ``trie``; None when
        ``content`` is outside the trie (the slot is left free)."""
        node = trie.walk(content)
        if node is None:
            return None
        key = id(node)
        found = trie.fits.get(key)
        if found is None:
            firsts = [b for b in node if b != _END] + ([_SLASH] if _END in node else [])
            # ``by_first`` holds only tokens with bytes
            found = [i for b in firsts for i in self.by_first.get(b, ())
                     if (piece := self.pieces[i]) is not None and _fits(node, piece)]
            trie.fits[key] = found
        return found

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        import torch

        for row in range(input_ids.shape[0]):
            ids = input_ids[row, self.start:].tolist()
            text = b"".join(self.pieces[i] or b"" for i in ids)
            m = _OPEN_SLOT.search(text[-400:])
            if m is None:
                continue
            trie = self.tries.get(m.group(1).decode("ascii"))
            if not trie:
                continue
            allowed = self.allowed(trie, m.group(2))
            if not allowed:
                continue
            keep = torch.tensor(allowed, dtype=torch.long, device=scores.device)
            masked = torch.full_like(scores[row], float("-inf"))
            masked[keep] = scores[row, keep]
            # renormalized over the allowed tokens: a beam must not pay for the mass the
            # model put on labels the slot cannot hold (greedy choices are unchanged)
            scores[row] = torch.log_softmax(masked, dim=-1)
        return scores
