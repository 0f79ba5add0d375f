"""LLM backends behind one small interface (see ``kb.contracts.LLM`` for the contract).

- ``ScriptedLLM``: replies written in advance (a list, a prompt-substring map or a
  function), for testing pipelines; ``n``, an optional delay, thread-safe.
- ``OpenAIChatLLM`` (``reasoning.llm.openai_chat``): any OpenAI-compatible
  chat-completions server (OpenAI, vLLM, llama.cpp, Ollama, ...);
  ``pip install 'kgground[openai]'``.
- ``TransformersLLM`` (``reasoning.llm.transformers_llm``): a local Hugging Face model
  folder; ``pip install 'kgground[transformers]'``.
- ``SimulatedLLM`` and ``FactCatalog`` (``reasoning.llm.simulated``): a *simulation* of an
  LLM that knows a seeded share of a KB's facts, for evaluating the gates without weights.
- ``CachedLLM`` (``reasoning.llm.cache``): record/replay of any backend's calls in SQLite,
  so evaluations rerun offline and deterministically.
- ``llm_from_spec("openai:MODEL" | "hf:PATH" | "scripted:FILE" | "simulated" | "none")``.

Backends that need optional packages import them when constructed, so importing this
package is cheap; a missing package raises ``MissingExtra`` naming the extra to install.
"""

from typing import Any

from reasoning.llm.base import (LLM, BaseLLM, Generation, Message, Request, Usage,
                                apply_stop)
from reasoning.llm.cache import CachedLLM
from reasoning.llm.scripted import ScriptedLLM, ScriptedPrompt
from reasoning.llm.simulated import FactCatalog, SimulatedLLM
from reasoning.llm.spec import llm_from_spec


def __getattr__(name: str) -> Any:
    # the heavy backends, on first use (their modules import nothing heavy until built)
    if name == "OpenAIChatLLM":
        from reasoning.llm.openai_chat import OpenAIChatLLM
        return OpenAIChatLLM
    if name == "TransformersLLM":
        from reasoning.llm.transformers_llm import TransformersLLM
        return TransformersLLM
    raise AttributeError(f"module 'reasoning.llm' has no attribute {name!r}")


__all__ = ["LLM", "BaseLLM", "CachedLLM", "FactCatalog", "Generation", "Message",
           "OpenAIChatLLM", "Request", "ScriptedLLM", "ScriptedPrompt", "SimulatedLLM",
           "TransformersLLM", "Usage", "apply_stop", "llm_from_spec"]
