"""LLM backends behind one small interface (see ``reasoning.llm.base`` for the contract).

- ``ScriptedLLM``: replies written in advance (a list, a prompt-substring map or a
  function), for testing pipelines; ``n``, an optional delay, thread-safe.

Heavy backends import their packages when constructed, so importing this package is cheap.
"""

from reasoning.llm.base import (LLM, BaseLLM, Generation, Message, Request, Usage,
                                apply_stop)
from reasoning.llm.scripted import ScriptedLLM, ScriptedPrompt

__all__ = ["LLM", "BaseLLM", "Generation", "Message", "Request", "Usage", "apply_stop",
           "ScriptedLLM", "ScriptedPrompt"]
