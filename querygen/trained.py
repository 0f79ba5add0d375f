"""The trained query generator at inference: a folder written by ``querygen.training`` in,
label-level SPARQL out.

    gen = TrainedGenerator("qgen-model")
    gen.generate("Who employed Douglas Adams?")        # ['SELECT ?x WHERE { wd:/Douglas ...']
    gen.generate("Who employed Douglas Adams?", n=3)   # the 3 best (beam search), best first

The model reads the instruction (``Question: …``) and the marker ``Correct query:``, and
writes until the end of the line, as it was trained to. The queries come back in canonical
form (``querygen.dataset.canonical``), label-level: ground them with ``linking.ground`` and
check them with ``querygen.validate`` before running them.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from querygen.contrastive import CORRECT, prompt
from querygen.dataset import canonical
from querygen.training import META, TrainingError, load_model
from store.errors import require


class TrainedGenerator:
    """Loads a trained generator from ``path`` (a folder ``kgground querygen train``
    wrote, or any checkpoint trained with the same prompt format). Thread-safe."""

    def __init__(self, path: str | Path, *, max_new_tokens: int = 96):
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
        self._lock = threading.Lock()
        self._newline_ids = {i for tok, i in self.tokenizer.get_vocab().items()
                             if "\n" in self.tokenizer.decode([i])}

    def __repr__(self) -> str:
        return f"TrainedGenerator({str(self.path)!r})"

    def generate(self, question: str, n: int = 1) -> list[str]:
        """Up to ``n`` distinct label-level SPARQL queries for ``question``, best first
        (greedy for n=1, beam search otherwise). Empty lines the model writes are dropped."""
        if not isinstance(question, str) or not question.strip():
            raise ValueError("the question is empty")
        if n < 1:
            raise ValueError(f"n must be at least 1, got {n}")
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
            enc = encode(prompt(question)) + ([tok.eos_token_id] if tok.eos_token_id
                                              is not None else [])
            start = self.model.config.decoder_start_token_id
            start = tok.pad_token_id if start is None else start
            dec = [start] + encode(CORRECT)
            inputs = {"input_ids": torch.tensor([enc]),
                      "decoder_input_ids": torch.tensor([dec])}
            skip = len(dec)
        else:
            bos = tok.bos_token_id if tok.bos_token_id is not None else tok.eos_token_id
            ids = [bos] + encode(prompt(question)) + encode(CORRECT)
            inputs = {"input_ids": torch.tensor([ids]),
                      "attention_mask": torch.ones(1, len(ids), dtype=torch.long)}
            skip = len(ids)
        with self._lock, torch.no_grad():
            outputs = self.model.generate(**inputs, **kwargs)
        out: list[str] = []
        for row in outputs:
            text = tok.decode(row[skip:], skip_special_tokens=True).split("\n")[0].strip()
            if text:
                query = canonical(text)
                if query not in out:
                    out.append(query)
        return out[:n]
