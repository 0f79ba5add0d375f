"""``ScriptedLLM``: deterministic replies for testing pipelines that take an LLM.

Three ways to script it::

    ScriptedLLM(["Paris", "Lyon"])                    # replies in order, one per completion
    ScriptedLLM({"capital": "Paris", "river": ["Seine", "Loire"]}, default="I don't know")
    ScriptedLLM(lambda p: p.last_user.upper())        # a function of the prompt

- A **list**: each completion takes the next reply; when they are used up the call raises
  ``LLMBadReply`` (``cycle=True`` starts over instead).
- A **mapping** of prompt substrings to replies: the first key (in the mapping's order) that
  occurs in any message's content answers. A string value answers every completion; a list
  value gives successive completions (across calls too) its items in turn, cycling. No key
  matching → ``default`` (a string, or a function like below) or ``LLMBadReply`` naming the
  keys.
- A **function** ``fn(prompt) -> str`` called once per completion with a ``ScriptedPrompt``
  (``messages``, ``text``, ``last_user``, ``n``, ``index`` of the completion, ``temperature``,
  ``max_tokens``, ``stop``, ``call`` — how many calls came before this one).

Every reply is cut at ``stop`` and at ``max_tokens`` whitespace words. ``delay`` seconds are
slept once per call (not per completion, like a server answering ``n`` at once), outside any
lock, so concurrent calls overlap as they would against a server. Thread-safe: replies are
handed out under a lock. ``history`` lists every (Request, completions) pair answered.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from reasoning.llm.base import BaseLLM, Generation, Request, apply_stop, approx_tokens
from store.errors import LLMBadReply, LLMConfigError


@dataclass(frozen=True)
class ScriptedPrompt:
    """What a script function sees for one completion."""

    request: Request
    index: int        # which of the call's n completions (0-based)
    call: int         # how many calls this ScriptedLLM answered before this one

    @property
    def messages(self) -> list[dict[str, str]]:
        return self.request.message_dicts()

    @property
    def text(self) -> str:
        return self.request.text

    @property
    def last_user(self) -> str:
        return self.request.last_user

    @property
    def n(self) -> int:
        return self.request.n

    @property
    def temperature(self) -> float:
        return self.request.temperature

    @property
    def max_tokens(self) -> int | None:
        return self.request.max_tokens

    @property
    def stop(self) -> tuple[str, ...]:
        return self.request.stop


Script = Sequence[str] | Mapping[str, "str | Sequence[str]"] | Callable[[ScriptedPrompt], str]


class ScriptedLLM(BaseLLM):
    """An LLM whose replies are written in advance (see the module docstring)."""

    def __init__(self, script: Script, *, default: str | Callable[[ScriptedPrompt], str]
                 | None = None, delay: float = 0.0, cycle: bool = False,
                 model: str = "scripted"):
        super().__init__()
        self.model = model
        self.delay = float(delay)
        self.cycle = cycle
        self.default = default
        self._lock = threading.Lock()
        self._calls = 0
        self._position = 0                       # list scripts: the next reply
        self._key_positions: dict[str, int] = {}  # mapping scripts: per key
        self.history: list[tuple[Request, list[str]]] = []
        self._fn: Callable[[ScriptedPrompt], str] | None
        self._replies: list[str] | None
        self._map: dict[str, str | Sequence[str]] | None
        if callable(script):
            self._fn, self._replies, self._map = script, None, None
        elif isinstance(script, Mapping):
            for key, value in script.items():
                if not isinstance(key, str) or not key:
                    raise LLMConfigError("a script's keys must be non-empty strings",
                                         backend=model, got=key)
                if not isinstance(value, str) and (not isinstance(value, Sequence) or not value
                                                   or not all(isinstance(v, str) for v in value)):
                    raise LLMConfigError(f"the reply for {key!r} must be a string or a "
                                         "non-empty list of strings", backend=model, got=value)
            self._fn, self._replies, self._map = None, None, dict(script)
        elif isinstance(script, Sequence) and not isinstance(script, (str, bytes)) \
                and all(isinstance(r, str) for r in script):
            self._fn, self._replies, self._map = None, list(script), None
        else:
            raise LLMConfigError("a script is a list of replies, a mapping of prompt "
                                 "substrings to replies, or a function of the prompt",
                                 backend=model, got=script)

    def _generate(self, request: Request) -> Generation:
        with self._lock:
            call = self._calls
            self._calls += 1
        if self.delay:
            time.sleep(self.delay)
        replies = [self._reply(ScriptedPrompt(request, i, call)) for i in range(request.n)]
        replies = [self._shape(r, request) for r in replies]
        with self._lock:
            self.history.append((request, replies))
        return Generation(replies, approx_tokens(request.text),
                          sum(approx_tokens(r) for r in replies))

    def _reply(self, prompt: ScriptedPrompt) -> str:
        if self._fn is not None:
            reply = self._fn(prompt)
            if not isinstance(reply, str):
                raise LLMBadReply("the script function must return a string",
                                  backend=self.model, got=reply)
            return reply
        if self._replies is not None:
            with self._lock:
                if self._position >= len(self._replies):
                    if not self.cycle or not self._replies:
                        raise LLMBadReply(
                            f"the script's {len(self._replies)} replies are used up",
                            backend=self.model,
                            fix="add replies, or pass cycle=True to start over")
                    self._position = 0
                reply = self._replies[self._position]
                self._position += 1
                return reply
        assert self._map is not None
        for key, value in self._map.items():
            if key in prompt.text:
                if isinstance(value, str):
                    return value
                with self._lock:
                    i = self._key_positions.get(key, 0)
                    self._key_positions[key] = i + 1
                return value[i % len(value)]
        if self.default is not None:
            return self.default(prompt) if callable(self.default) else self.default
        excerpt = prompt.last_user[:200]
        raise LLMBadReply("no scripted reply matches the prompt", backend=self.model,
                          expected=f"a prompt containing one of {list(self._map)}", got=excerpt,
                          fix="add a key for it, or pass default=...")

    @staticmethod
    def _shape(reply: str, request: Request) -> str:
        reply = apply_stop(reply, request.stop)
        if request.max_tokens is not None:
            words = reply.split(" ")
            if len(words) > request.max_tokens:
                reply = " ".join(words[:request.max_tokens])
        return reply
