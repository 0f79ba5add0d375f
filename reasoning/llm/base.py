"""What the LLM backends share. The contract every backend keeps, ``LLM`` (and its
``Message``), is stated in ``kb.contracts``, at the bottom of the layers, so that querygen
and chains can name it too; it is re-exported here.

``BaseLLM`` implements ``complete`` once for every backend here: it validates the call into
a frozen ``Request`` (also the record/replay cache's key), asks the backend's ``_generate``,
checks that ``n`` completions came back, and counts usage (``llm.usage``: calls,
completions, prompt and completion tokens, errors, seconds). Usage counters are totals over
the backend's life and are thread-safe; what one call returned travels on its return value,
never in "last call" state.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass

from kb.contracts import LLM as LLM
from kb.contracts import Message as Message
from store.errors import InvalidRequest, LLMBadReply

ROLES = frozenset({"system", "user", "assistant", "developer"})


@dataclass(frozen=True)
class Request:
    """One validated call: what a backend is asked, and the record/replay cache's key."""

    model: str
    messages: tuple[tuple[str, str], ...]     # (role, content) pairs
    n: int = 1
    temperature: float = 0.0
    max_tokens: int | None = None
    stop: tuple[str, ...] = ()

    @classmethod
    def build(cls, model: str, messages: Sequence[Message], *, n: int = 1,
              temperature: float = 0.0, max_tokens: int | None = None,
              stop: str | Sequence[str] | None = None) -> Request:
        """Validate a ``complete`` call; raises ``InvalidRequest`` saying what is wrong."""
        def bad(what: str, expected: str, got: object) -> InvalidRequest:
            return InvalidRequest(what, backend=model, expected=expected, got=got)

        if isinstance(messages, (str, bytes)) or not isinstance(messages, Sequence) \
                or not messages:
            raise bad("messages must be a non-empty list of chat messages",
                      '[{"role": "user", "content": "..."}]', messages)
        pairs = []
        for i, m in enumerate(messages):
            if not isinstance(m, Mapping) or not isinstance(m.get("content"), str):
                raise bad(f"message {i} is not a chat message",
                          'a dict with "role" and a string "content"', m)
            if m.get("role") not in ROLES:
                raise bad(f"message {i} has an unknown role", f"one of {sorted(ROLES)}",
                          m.get("role"))
            pairs.append((m["role"], m["content"]))
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise bad("n must be a positive integer", "n >= 1", n)
        if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) \
                or not 0 <= temperature <= 2:
            raise bad("temperature must be a number in [0, 2]", "0 <= temperature <= 2",
                      temperature)
        if max_tokens is not None and (isinstance(max_tokens, bool)
                                       or not isinstance(max_tokens, int) or max_tokens < 1):
            raise bad("max_tokens must be None or a positive integer", "max_tokens >= 1",
                      max_tokens)
        if stop is None:
            stops: tuple[str, ...] = ()
        elif isinstance(stop, str):
            stops = (stop,)
        else:
            stops = tuple(stop)
        if any(not isinstance(s, str) or not s for s in stops):
            raise bad("stop must be a string or a list of non-empty strings",
                      '"\\n\\n" or ["Q:", "\\n"]', stop)
        return cls(model, tuple(pairs), n, float(temperature), max_tokens, stops)

    def message_dicts(self) -> list[dict[str, str]]:
        return [{"role": r, "content": c} for r, c in self.messages]

    @property
    def text(self) -> str:
        """Every message's content, joined by newlines (what scripts match against)."""
        return "\n".join(c for _, c in self.messages)

    @property
    def last_user(self) -> str:
        """The content of the last user message ('' when there is none)."""
        return next((c for r, c in reversed(self.messages) if r == "user"), "")

    def as_dict(self) -> dict:
        d = asdict(self)
        d["messages"] = self.message_dicts()
        d["stop"] = list(self.stop)
        return d

    def key(self) -> str:
        """A stable hash of everything that shapes the reply (model included)."""
        blob = json.dumps(self.as_dict(), sort_keys=True, ensure_ascii=False,
                          separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()


@dataclass(frozen=True)
class Generation:
    """What a backend's ``_generate`` returns: the completions and token counts (None when
    the backend does not know them)."""

    completions: list[str]
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


@dataclass(frozen=True)
class Usage:
    """Totals over a backend's life (``llm.usage``)."""

    calls: int = 0
    completions: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    errors: int = 0
    seconds: float = 0.0

    def as_dict(self) -> dict:
        return asdict(self)


class UsageMeter:
    """Thread-safe usage counters."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._usage = Usage()

    def add(self, *, completions: int = 0, prompt_tokens: int | None = 0,
            completion_tokens: int | None = 0, seconds: float = 0.0, error: bool = False) -> None:
        with self._lock:
            u = self._usage
            self._usage = Usage(u.calls + 1, u.completions + completions,
                                u.prompt_tokens + (prompt_tokens or 0),
                                u.completion_tokens + (completion_tokens or 0),
                                u.errors + int(error), u.seconds + seconds)

    def snapshot(self) -> Usage:
        with self._lock:
            return self._usage

    def reset(self) -> None:
        with self._lock:
            self._usage = Usage()


def apply_stop(text: str, stop: Sequence[str]) -> str:
    """``text`` cut before the earliest stop sequence (OpenAI's semantics)."""
    cut = min((i for i in (text.find(s) for s in stop) if i >= 0), default=-1)
    return text if cut < 0 else text[:cut]


def approx_tokens(text: str) -> int:
    """A rough token count (whitespace words) for backends without a tokenizer."""
    return len(text.split())


class BaseLLM:
    """``complete`` once for every backend: validation, the count check and usage.

    Subclasses set ``model`` and implement ``_generate(request) -> Generation``.
    """

    model: str = "llm"

    def __init__(self) -> None:
        self._meter = UsageMeter()

    @property
    def usage(self) -> Usage:
        return self._meter.snapshot()

    def complete(self, messages: Sequence[Message], *, n: int = 1, temperature: float = 0.0,
                 max_tokens: int | None = None,
                 stop: str | Sequence[str] | None = None) -> list[str]:
        request = Request.build(self.model, messages, n=n, temperature=temperature,
                                max_tokens=max_tokens, stop=stop)
        return self.complete_request(request)

    def complete_request(self, request: Request) -> list[str]:
        """``complete`` for an already validated request."""
        start = time.perf_counter()
        try:
            gen = self._generate(request)
            if len(gen.completions) != request.n or \
                    not all(isinstance(c, str) for c in gen.completions):
                raise LLMBadReply(f"asked for {request.n} completions, got "
                                  f"{len(gen.completions)}", backend=self.model,
                                  fix="check the backend (a server ignoring n is retried by "
                                      "OpenAIChatLLM; a script must return strings)")
        except BaseException:
            self._meter.add(seconds=time.perf_counter() - start, error=True)
            raise
        self._meter.add(completions=request.n, prompt_tokens=gen.prompt_tokens,
                        completion_tokens=gen.completion_tokens,
                        seconds=time.perf_counter() - start)
        return list(gen.completions)

    def _generate(self, request: Request) -> Generation:  # pragma: no cover - abstract
        raise NotImplementedError
