"""``OpenAIChatLLM``: any server speaking OpenAI's chat-completions protocol.

    pip install 'kgground[openai]'
    llm = OpenAIChatLLM("gpt-4o-mini")                                  # api.openai.com
    llm = OpenAIChatLLM("Qwen2.5-7B-Instruct", base_url="http://localhost:8000/v1")  # vLLM

- ``base_url`` and ``api_key`` come from the arguments, else from the standard
  ``OPENAI_BASE_URL`` and ``OPENAI_API_KEY`` (read by the ``openai`` package). A server of
  your own (a ``base_url`` that is not api.openai.com) needs no key: a placeholder is sent.
- ``timeout`` seconds per HTTP request; ``max_retries`` retries on 408/409/429/5xx and
  connection errors, with the ``openai`` client's exponential backoff, honouring
  ``Retry-After`` (up to two minutes).
- ``n`` completions: asked for in one request; a server that answers fewer (llama.cpp,
  some Ollama versions) is sent the missing ones as concurrent ``n=1`` requests, and is
  remembered as one that ignores ``n`` (``n_support="emulate"`` skips the first try,
  ``"native"`` trusts the server).
- ``complete_scored`` (``reasoning.llm.likelihood``): the greedy reply with its tokens'
  log-probabilities, asked for with ``logprobs``; a server that ignores it gives a
  ``ScoredReply`` without them (``scored`` False). There is no ``score``: the chat protocol
  cannot return the probability of a reply it did not generate.
- Sampling: emulated ``n`` requests at a temperature above 0 carry distinct ``seed``s.
  Some servers decode greedily whatever temperature they are sent (``transformers serve``
  with a model whose generation config does not sample): ``sampling_works()`` asks twice
  for a random number at temperature 1.0 with different seeds and remembers whether the
  replies differed; gates that measure agreement between samples refuse to run on a
  server that does not sample (``require_sampling``).
- At most ``max_concurrency`` requests of this backend are in flight at once, across all
  threads that share it.
- Failures become ``LLMError`` subclasses: ``LLMTimeout``, ``LLMUnreachable``,
  ``LLMRateLimited`` (after the retries), ``LLMHTTPError`` (``.status``, ``.body``) with a fix
  fitting the status, ``LLMBadReply`` for a reply without choices.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlparse

from collections.abc import Sequence
from typing import Any

from reasoning.llm.base import BaseLLM, Generation, Message, Request
from reasoning.llm.likelihood import ScoredReply
from store.errors import (LLMBadReply, LLMConfigError, LLMError, LLMHTTPError, LLMRateLimited,
                          LLMTimeout, LLMUnreachable, require)

PURPOSE = "the OpenAI-compatible LLM backend"
PLACEHOLDER_KEY = "no-key-needed"
N_SUPPORT = ("auto", "native", "emulate")
SAMPLING_PROBE = "Write a random number of ten digits. Reply with the number only."

_STATUS_FIXES = {
    400: "the server refused the request's parameters: check the model's limits "
         "(max_tokens, n, stop) and the messages",
    401: "check the API key (api_key=... or OPENAI_API_KEY)",
    403: "the key may not use this model: check its permissions",
    404: "check the model name and the base URL (it usually ends in /v1)",
    422: "the server refused the request's parameters: check the model's limits",
}


class OpenAIChatLLM(BaseLLM):
    """Chat completions from an OpenAI-compatible server (see the module docstring)."""

    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | None = None,
                 timeout: float = 60.0, max_retries: int = 3, max_concurrency: int = 8,
                 n_support: str = "auto"):
        super().__init__()
        if not model:
            raise LLMConfigError("no model named", backend="openai",
                                 fix="pass the model, e.g. OpenAIChatLLM('gpt-4o-mini') or "
                                     "--llm openai:gpt-4o-mini")
        if n_support not in N_SUPPORT:
            raise LLMConfigError("unknown n_support", backend="openai",
                                 expected=" | ".join(N_SUPPORT), got=n_support)
        if max_concurrency < 1:
            raise LLMConfigError("max_concurrency must be at least 1", backend="openai",
                                 got=max_concurrency)
        openai = require("openai", "openai", PURPOSE)
        import os
        base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
        if not api_key and not os.environ.get("OPENAI_API_KEY"):
            if base_url and (urlparse(base_url).hostname or "") != "api.openai.com":
                api_key = PLACEHOLDER_KEY
            else:
                raise LLMConfigError(
                    "no API key for api.openai.com", backend=f"openai:{model}",
                    fix="set OPENAI_API_KEY (or pass api_key=...); for a server of your own "
                        "set OPENAI_BASE_URL (or base_url=...), e.g. http://localhost:8000/v1")
        self._openai = openai
        self._client = openai.OpenAI(base_url=base_url, api_key=api_key or None,
                                     timeout=timeout, max_retries=max_retries)
        self.model = model
        self.base_url = str(self._client.base_url).rstrip("/")
        self.backend = f"openai:{model}@{self.base_url}"
        self.timeout, self.max_retries = timeout, max_retries
        self.max_concurrency = max_concurrency
        self._n_native: bool | None = {"auto": None, "native": True, "emulate": False}[n_support]
        self._slots = threading.BoundedSemaphore(max_concurrency)
        self._samples: bool | None = None
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"OpenAIChatLLM({self.model!r}, base_url={self.base_url!r})"

    @property
    def ignores_n(self) -> bool | None:
        """True once the server was seen answering fewer choices than ``n``; None: not known."""
        return None if self._n_native is None else not self._n_native

    def close(self) -> None:
        """Close the HTTP client and the worker threads."""
        with self._pool_lock:
            if self._pool is not None:
                self._pool.shutdown(wait=False)
                self._pool = None
        self._client.close()

    def _generate(self, request: Request) -> Generation:
        n = request.n
        if n == 1 or self._n_native is False:
            return self._concurrently(request, n)
        got = self._post(request, n)
        if len(got.completions) >= n:
            self._n_native = True
            return Generation(got.completions[:n], got.prompt_tokens, got.completion_tokens)
        if self._n_native is True:
            raise LLMBadReply(f"asked for {n} choices, the server sent "
                              f"{len(got.completions)}", backend=self.backend,
                              fix="use n_support='auto' or 'emulate' for servers without n")
        self._n_native = False
        rest = self._concurrently(request, n - len(got.completions))
        return _merge([got, rest])

    def _concurrently(self, request: Request, count: int) -> Generation:
        """``count`` completions as ``count`` requests with n=1, run concurrently."""
        if count == 1:
            return self._post(request, 1)
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.max_concurrency,
                                                thread_name_prefix="openai-llm")
            pool = self._pool
        seeds = range(count) if request.temperature > 0 else [None] * count
        futures = [pool.submit(self._post, request, 1, seed) for seed in seeds]
        return _merge([f.result() for f in futures])

    def sampling_works(self) -> bool:
        """Whether the server samples at temperature > 0 (see the module docstring)."""
        if self._samples is None:
            ask = Request.build(self.model, [{"role": "user", "content": SAMPLING_PROBE}],
                                temperature=1.0, max_tokens=16)
            replies = {self._post(ask, 1, seed).completions[0] for seed in (1, 2)}
            self._samples = len(replies) > 1
        return self._samples

    def complete_scored(self, messages: Sequence[Message], *, max_tokens: int | None = None,
                        stop: str | Sequence[str] | None = None) -> ScoredReply:
        """The greedy reply with its tokens' log-probabilities when the server gives them."""
        request = Request.build(self.model, messages, max_tokens=max_tokens, stop=stop)
        resp = self._create(request, 1, logprobs=True)
        choice = sorted(resp.choices or [], key=lambda c: c.index)
        if not choice:
            raise LLMBadReply("the reply has no choices", backend=self.backend,
                              fix="check that the server speaks chat completions")
        text = (choice[0].message.content or "") if choice[0].message else ""
        content = getattr(getattr(choice[0], "logprobs", None), "content", None) or []
        tokens = tuple(t.token for t in content)
        logprobs = tuple(float(t.logprob) for t in content)
        self._meter.add(completions=1)
        return ScoredReply(text, tokens, logprobs,
                           truncated=getattr(choice[0], "finish_reason", None) == "length")

    def _post(self, request: Request, n: int, seed: int | None = None) -> Generation:
        """One chat-completions request, errors made typed."""
        resp = self._create(request, n, **({"seed": seed} if seed is not None else {}))
        choices = sorted(resp.choices or [], key=lambda c: c.index)
        if not choices:
            raise LLMBadReply("the reply has no choices", backend=self.backend,
                              fix="check that the server speaks chat completions")
        texts = [(c.message.content or "") if c.message else "" for c in choices]
        usage = resp.usage
        return Generation(texts, usage.prompt_tokens if usage else None,
                          usage.completion_tokens if usage else None)

    def _create(self, request: Request, n: int, **extra: Any) -> Any:
        """One chat-completions request, errors made typed (the openai client's
        ``ChatCompletion``; the package is optional, imported when the backend is built)."""
        openai = self._openai
        params: dict = {"model": self.model, "messages": request.message_dicts(),
                        "temperature": request.temperature, **extra}
        if n != 1:
            params["n"] = n
        if request.max_tokens is not None:
            params["max_tokens"] = request.max_tokens
        if request.stop:
            params["stop"] = list(request.stop)
        with self._slots:
            try:
                resp = self._client.chat.completions.create(**params)
            except openai.APITimeoutError as exc:
                raise LLMTimeout(f"no reply within {self.timeout:g} s "
                                 f"({self.max_retries} retries)", backend=self.backend,
                                 fix="raise timeout=..., or ask for fewer tokens") from exc
            except openai.APIConnectionError as exc:
                raise LLMUnreachable(f"cannot connect ({exc.__cause__ or exc})",
                                     backend=self.backend,
                                     fix="check that the server runs and the base URL") from exc
            except openai.RateLimitError as exc:
                raise LLMRateLimited("rate limited (HTTP 429) after "
                                     f"{self.max_retries} retries", backend=self.backend,
                                     retry_after=_retry_after(exc.response),
                                     fix="send fewer requests at once (max_concurrency), "
                                         "or raise max_retries") from exc
            except openai.APIStatusError as exc:
                status = exc.status_code
                body = _excerpt(exc.response)
                fix = _STATUS_FIXES.get(status) or (
                    "the server failed; retry later or raise max_retries" if status >= 500
                    else "check the request")
                raise LLMHTTPError(f"HTTP {status}: {body}", backend=self.backend,
                                   status=status, body=body, fix=fix) from exc
            except openai.OpenAIError as exc:
                raise LLMError(f"the openai client failed: {exc}", backend=self.backend) from exc
        return resp


def _merge(parts: list[Generation]) -> Generation:
    def total(values: list[int | None]) -> int | None:
        known = [v for v in values if v is not None]
        return sum(known) if len(known) == len(values) else None
    # every request carries the prompt: count it once per request, as the server bills it
    return Generation([c for p in parts for c in p.completions],
                      total([p.prompt_tokens for p in parts]),
                      total([p.completion_tokens for p in parts]))


def _retry_after(response: Any) -> float | None:
    try:
        value = response.headers.get("retry-after")
        return float(value) if value is not None else None
    except (AttributeError, ValueError):
        return None


def _excerpt(response: Any, limit: int = 300) -> str:
    try:
        text = response.text
    except Exception:  # noqa: BLE001 - a body we cannot read is no reason to lose the error
        return ""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "…"
