"""The trained query generator at inference: a folder written by ``querygen.training`` in,
label-level SPARQL out.

    gen = TrainedGenerator("qgen-model", linker=EntityLinker(kb))
    gen.generate("Who employed Douglas Adams?")        # ['SELECT ?x WHERE { wd:/Douglas ...']
    gen.generate("Who employed Douglas Adams?", n=3)   # the 3 best (beam search), best first

The model reads the instruction (``Question: …``, and ``Entities: …`` — the labels the
linker finds in the question, ``querygen.contrastive.linked_entities`` — when it was trained
with them) and the marker ``Correct query:``, and writes until the end of the line, as it
was trained to. With a linker, decoding is constrained (``querygen.constrained``): an
entity slot holds one of the entity labels the model was shown, a property slot a property
label the KB has. The queries come back in canonical form
(``querygen.dataset.canonical``), label-level: ground them with ``linking.ground`` and check
them with ``querygen.validate`` before running them (``querygen.generate(...,
strategy="model")`` does all of that).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from kb.contracts import Linker
from querygen.constrained import LabelTrie, SlotConstraint, token_bytes
from querygen.contrastive import CORRECT, linked_entities, prompt
from querygen.dataset import canonical
from querygen.training import META, TrainingError, load_model
from store.errors import require


class TrainedGenerator:
    """Loads a trained generator from ``path`` (a folder ``kgground querygen train``
    wrote, or any checkpoint trained with the same prompt format). ``linker`` (an
    ``EntityLinker`` over the KB the queries are for) gives the question's entities to a
    model trained with them, and the labels decoding is constrained to (``constrain``).
    Thread-safe."""

    def __init__(self, path: str | Path, *, max_new_tokens: int = 96,
                 linker: Linker | None = None,
                 constrain: bool = True):
        self.path = Path(path)
        if not self.path.is_dir():
            raise TrainingError(f"there is no trained generator at {self.path}",
                                fix="train one: kgground querygen train --data FILE "
                                    "--out DIR --from-scratch")
        meta_path = self.path / META
        self.meta = json.loads(meta_path.read_text("utf-8")) if meta_path.is_file() else {}
        self.torch = require("torch", "transformers", "the trained query generator")
        self.model, self.tokenizer, self.seq2seq = load_model(self.path)
        self.model.eval()
        self.max_new_tokens = max_new_tokens
        self.linker = linker
        self.constrain = constrain
        self._pieces: list[bytes | None] | None = None
        # the property labels of the last linker constrained with, as a trie
        self._properties: tuple[Any, LabelTrie] | None = None
        self._lock = threading.Lock()
        self._newline_ids = {i for tok, i in self.tokenizer.get_vocab().items()
                             if "\n" in self.tokenizer.decode([i])}

    def __repr__(self) -> str:
        return f"TrainedGenerator({str(self.path)!r})"

    @property
    def uses_entities(self) -> bool:
        """Whether the model was trained with the linker's entities in its instruction."""
        return bool(self.meta.get("entities"))

    def generate(self, question: str, n: int = 1, *, linker: Linker | None = None,
                 entities: list[str] | None = None) -> list[str]:
        """Up to ``n`` distinct label-level SPARQL queries for ``question``, best first
        (greedy for n=1, beam search otherwise). Empty lines the model writes are dropped.
        ``linker`` overrides the one given at construction; ``entities`` gives the entity
        labels instead of linking the question."""
        if not isinstance(question, str) or not question.strip():
            raise ValueError("the question is empty")
        if n < 1:
            raise ValueError(f"n must be at least 1, got {n}")
        linker = linker if linker is not None else self.linker
        if entities is None and linker is not None and (self.uses_entities or self.constrain):
            entities = linked_entities(linker, question)
        if self.uses_entities and entities is None:
            raise TrainingError(f"the generator at {self.path} reads the entities the "
                                "linker finds in the question, and no linker was given",
                                fix="pass linker= (an EntityLinker over your KB) or "
                                    "entities=; on the command line, --db")
        torch = self.torch
        tok = self.tokenizer
        from querygen.training import _tokenize
        encode = _tokenize(tok)
        kwargs: dict[str, Any] = {"max_new_tokens": self.max_new_tokens,
                                  "pad_token_id": tok.pad_token_id, "do_sample": False,
                                  "num_beams": max(n, 1) if n > 1 else 1,
                                  "num_return_sequences": n,
                                  "eos_token_id": sorted(self._newline_ids |
                                                         ({tok.eos_token_id} if
                                                          tok.eos_token_id is not None
                                                          else set()))}
        if self.seq2seq:
            shown = entities if self.uses_entities else None
            enc = encode(prompt(question, shown)) + ([tok.eos_token_id] if tok.eos_token_id
                                                     is not None else [])
            start = self.model.config.decoder_start_token_id
            start = tok.pad_token_id if start is None else start
            dec = [start] + encode(CORRECT)
            inputs = {"input_ids": torch.tensor([enc]),
                      "decoder_input_ids": torch.tensor([dec])}
            skip = len(dec)
        else:
            bos = tok.bos_token_id if tok.bos_token_id is not None else tok.eos_token_id
            shown = entities if self.uses_entities else None
            ids = [bos] + encode(prompt(question, shown)) + encode(CORRECT)
            inputs = {"input_ids": torch.tensor([ids]),
                      "attention_mask": torch.ones(1, len(ids), dtype=torch.long)}
            skip = len(ids)
        with self._lock, torch.no_grad():
            if self.constrain and (entities is not None or linker is not None):
                kwargs["logits_processor"] = self._constraint(skip, entities, linker)
            outputs = self.model.generate(**inputs, **kwargs)
        out: list[str] = []
        for row in outputs:
            text = tok.decode(row[skip:], skip_special_tokens=True).split("\n")[0].strip()
            if text:
                query = canonical(text)
                if query not in out:
                    out.append(query)
        return out[:n]

    def _constraint(self, start: int, entities: list[str] | None,
                    linker: Linker | None) -> Any:
        """The logits processors constraining slots (called under the lock)."""
        from transformers import LogitsProcessorList

        if self._pieces is None:
            self._pieces = token_bytes(self.tokenizer)
        properties = None
        if linker is not None and hasattr(linker, "properties"):
            kept = self._properties
            if kept is None or kept[0] is not linker:
                kept = self._properties = (linker,
                                           LabelTrie(linker.properties.labels().values()))
            properties = kept[1]
        ents = LabelTrie(entities) if entities else None
        return LogitsProcessorList([SlotConstraint(self._pieces, start, entities=ents,
                                                   properties=properties)])
