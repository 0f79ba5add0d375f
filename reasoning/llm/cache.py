"""``CachedLLM``: record and replay any backend's calls, so evaluations rerun offline and
deterministically.

    llm = CachedLLM(OpenAIChatLLM("gpt-4o-mini"), "calls.sqlite")              # record
    llm = CachedLLM(None, "calls.sqlite", mode="replay", model="gpt-4o-mini")  # offline

A call is keyed by its whole request (``Request.key``: model, messages, n, temperature,
max_tokens, stop), so sampled completions replay exactly as recorded. Modes:

- ``"auto"`` (default): recorded → replayed; not recorded → the inner model is called and
  its completions recorded.
- ``"replay"``: recorded → replayed; not recorded → ``LLMCacheMiss`` (the inner model, which
  may be None, is never called).
- ``"record"``: always call the inner model and record (replacing earlier recordings).

``hits`` and ``misses`` count how calls were served. Errors are never recorded.

``complete_scored`` and ``score`` (``reasoning.llm.likelihood``) are recorded and replayed
the same way, keyed by the request and the operation (and the continuations scored), when
the inner model offers them (``supports_scoring``; ``complete_scored`` of a model without
probabilities is its plain reply); replaying without the model, ``scores=True`` says the
recorded model scored (``llm_from_spec`` sets it for ``local`` and ``hf:``).
"""

from __future__ import annotations

import threading
from pathlib import Path

import hashlib
import json
from collections.abc import Callable, Sequence
from typing import Any

from reasoning.llm.base import LLM, BaseLLM, Generation, Message, Request
from reasoning.llm.likelihood import ScoredReply, can_score
from store.errors import LLMCacheMiss, LLMConfigError
from store.llm_calls import LLMCallLog

MODES = ("auto", "replay", "record")


class CachedLLM(BaseLLM):
    def __init__(self, inner: LLM | None, path: str | Path, *, mode: str = "auto",
                 model: str | None = None, scores: bool | None = None):
        super().__init__()
        if mode not in MODES:
            raise LLMConfigError("unknown cache mode", backend="cache",
                                 expected=" | ".join(MODES), got=mode)
        if inner is None and mode != "replay":
            raise LLMConfigError(f"mode {mode!r} needs a model to call", backend="cache",
                                 fix="pass the backend, or use mode='replay'")
        self.model = model or getattr(inner, "model", None) or "llm"
        self.inner, self.mode = inner, mode
        self.log = LLMCallLog(path)
        self.hits = self.misses = 0
        self._count_lock = threading.Lock()
        # replaying without the model: the caller says whether it scored (its recordings
        # then hold scores); otherwise the model itself says
        self.supports_scoring = can_score(inner) if scores is None else scores

    def __repr__(self) -> str:
        return f"CachedLLM({self.inner!r}, {str(self.log.path)!r}, mode={self.mode!r})"

    def _generate(self, request: Request) -> Generation:
        key = request.key()
        if self.mode != "record":
            recorded = self.log.get(key)
            if recorded is not None:
                with self._count_lock:
                    self.hits += 1
                return Generation(recorded)
            if self.mode == "replay":
                raise LLMCacheMiss(
                    f"no recorded reply for this request (n={request.n}, "
                    f"temperature={request.temperature:g}): "
                    f"{request.last_user[:120]!r}", backend=f"cache:{self.log.path}", key=key,
                    fix="record it first (mode='auto' with the model), or check that the "
                        "prompts and parameters match the recording")
        with self._count_lock:
            self.misses += 1
        assert self.inner is not None
        completions = self.inner.complete(request.message_dicts(), n=request.n,
                                          temperature=request.temperature,
                                          max_tokens=request.max_tokens,
                                          stop=list(request.stop) or None)
        self.log.put(key, model=self.model, request=request.as_dict(),
                     completions=list(completions))
        return Generation(list(completions))

    # -- probabilities ------------------------------------------------------------------------
    def complete_scored(self, messages: Sequence[Message], *, max_tokens: int | None = None,
                        stop: str | Sequence[str] | None = None) -> ScoredReply:
        request = Request.build(self.model, messages, max_tokens=max_tokens, stop=stop)
        got = self._recorded("complete_scored", request, (), lambda: [json.dumps(
            self._inner_scored(request.message_dicts(), max_tokens, stop).as_dict(),
            ensure_ascii=False)])
        return ScoredReply.from_dict(json.loads(got[0]))

    def _inner_scored(self, messages: list[dict[str, str]], max_tokens: int | None,
                      stop: str | Sequence[str] | None) -> ScoredReply:
        """The inner model's scored reply; a model without probabilities gives its plain
        greedy reply (a ``ScoredReply`` without log-probabilities)."""
        fn = getattr(self.inner, "complete_scored", None)
        if callable(fn):
            return fn(messages, max_tokens=max_tokens, stop=stop)
        assert self.inner is not None      # called from _recorded, after its same check
        return ScoredReply(self.inner.complete(messages, max_tokens=max_tokens, stop=stop)[0])

    def score(self, messages: Sequence[Message],
              continuations: Sequence[str]) -> list[tuple[float, ...]]:
        request = Request.build(self.model, messages)
        # ``score`` is optional, not part of the LLM protocol (reasoning.llm.likelihood)
        inner: Any = self.inner
        got = self._recorded("score", request, tuple(continuations), lambda: [
            json.dumps(list(s)) for s in inner.score(request.message_dicts(),
                                                     list(continuations))])
        return [tuple(json.loads(s)) for s in got]

    def _recorded(self, op: str, request: Request, extra: tuple[str, ...],
                  call: Callable[[], list[str]]) -> list[str]:
        blob = json.dumps([op, request.key(), list(extra)], ensure_ascii=False)
        key = hashlib.sha256(blob.encode()).hexdigest()
        if self.mode != "record":
            recorded = self.log.get(key)
            if recorded is not None:
                with self._count_lock:
                    self.hits += 1
                return recorded
            if self.mode == "replay":
                raise LLMCacheMiss(f"no recorded {op} for this request: "
                                   f"{request.last_user[:120]!r}",
                                   backend=f"cache:{self.log.path}", key=key,
                                   fix="record it first (mode='auto' with the model)")
        with self._count_lock:
            self.misses += 1
        assert self.inner is not None
        got = call()
        self.log.put(key, model=self.model, request={"op": op, **request.as_dict(),
                                                     "continuations": list(extra)},
                     completions=got)
        return got

    def close(self) -> None:
        self.log.close()
