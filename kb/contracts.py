"""What the layers above ask of the objects they are handed, as small typed protocols.

querygen, chains and reasoning are given a language model and an entity linker by their
callers; the classes that implement them live in layers those packages may not import
(``reasoning.llm``) or need not (``linking``). The contracts live here, at the bottom, so
that every layer can state in its signatures what it calls:

- ``LLM`` (and ``Message``): a chat model's ``complete``. Backends: ``reasoning.llm``.
  Optional capabilities (token log-probabilities) are their own protocols beside the
  code that uses them (``reasoning.llm.likelihood``), not part of ``LLM``.
- ``Linker``: what querygen and reasoning call on an entity linker; ``MentionLinker``, the
  part chains needs (a text's mentions). ``linking.EntityLinker`` implements both. The
  values they return are described by protocols too (``LinkedText``, ``PropertyLinking``
  ...), so this module imports nothing from the layers above.

Only the members the layers above use are listed: an implementation may offer more (the
callers probe such optional members with ``getattr``, as before).

The knowledge base's own contracts are beside the code that implements them: the
``KnowledgeBase`` protocol and the small capability protocols some KBs offer beside it
(``Closable``, ``HasLinking``, ``Streaming``, ``HasMirror``, ``HasLocal``, ``HasLive``) in
``kb.base``; the linking view ``LinkingKB`` and its optional members' protocols in
``kb.linking``. The layers above test a KB for a capability with ``isinstance``, never
with ``getattr``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from kb.linking import LinkingKB
    from kb.types import Candidate

__all__ = ["LLM", "LinkedSpan", "LinkedText", "Linker", "MentionLinker", "Message",
           "PropertyLinking", "TextSpan"]


# -- the language model -------------------------------------------------------------------

#: an OpenAI-style chat message: ``{"role": ..., "content": ...}``
Message = Mapping[str, str]


@runtime_checkable
class LLM(Protocol):
    """The LLM contract every backend keeps.

    An LLM is any object with a ``model`` name and::

        complete(messages, *, n=1, temperature=0.0, max_tokens=None, stop=None) -> list[str]

    - ``messages``: OpenAI-style chat messages, a non-empty sequence of
      ``{"role": "system" | "user" | "assistant" | "developer", "content": str}``.
    - ``n``: how many completions; exactly ``n`` strings come back, in order.
    - ``temperature``: 0 asks for greedy decoding (the same reply every time where the
      backend can), above 0 for samples.
    - ``max_tokens``: at most this many generated tokens per completion (None: the
      backend's default); ``stop``: a string or strings at which a completion ends (not
      included).
    - Failures raise ``LLMError`` subclasses (``kb.errors``), never an empty list.

    What reasoning (and querygen, chains) need of a language model. ``reasoning.llm.base``
    has ``BaseLLM``, which implements ``complete`` once for the backends there.
    """

    model: str

    def complete(self, messages: Sequence[Message], *, n: int = 1, temperature: float = 0.0,
                 max_tokens: int | None = None,
                 stop: str | Sequence[str] | None = None) -> list[str]: ...


# -- what linking returns -----------------------------------------------------------------

class TextSpan(Protocol):
    """A span of a text: ``text == source[start:end]`` (``linking.types.Mention``)."""

    @property
    def text(self) -> str: ...

    @property
    def start(self) -> int: ...

    @property
    def end(self) -> int: ...


class LinkedSpan(Protocol):
    """A mention and the entities it may name, best first (``linking.types.LinkedMention``);
    ``confidence`` is the best candidate's calibrated confidence (0.0 without one)."""

    @property
    def mention(self) -> TextSpan: ...

    @property
    def candidates(self) -> tuple[Candidate, ...]: ...

    @property
    def best(self) -> Candidate | None: ...

    @property
    def confidence(self) -> float: ...


class LinkedText(Protocol):
    """The mentions found in a text, in text order (``linking.types.LinkResult``)."""

    @property
    def mentions(self) -> Sequence[LinkedSpan]: ...


class PropertyLinking(Protocol):
    """What is asked of a linker's property linker (``linking.properties.PropertyLinker``).
    Optional members callers probe for: ``embedder``, ``prepare(phrases)``."""

    def link(self, phrase: str, *, subject: str | None = None, value: str | None = None,
             lang: str = "en", limit: int = 5) -> list[Candidate]:
        """Properties ``phrase`` may name, best first; with ``subject`` (and ``value``),
        preferring the properties that link them."""
        ...

    def roles(self, entities: Iterable[str]
              ) -> Mapping[str, tuple[frozenset[str], frozenset[str]]]:
        """entity → (properties it has as subject, properties it is the value of)."""
        ...

    def names_in(self, lang: str) -> dict[str, str]:
        """The KB's normalized property names in ``lang``, each with its English label."""
        ...

    def label(self, pid: str, lang: str = "en") -> str | None: ...

    def names(self, pid: str, lang: str = "en") -> list[str]:
        """The label and the aliases of ``pid`` in ``lang``."""
        ...

    def labels(self, lang: str = "en") -> dict[str, str]:
        """Every property's label in ``lang``."""
        ...

    def closest(self, phrase: str, *, lang: str = "en",
                limit: int = 5) -> list[tuple[str, str]]:
        """(PID, label) of the properties whose names are nearest to ``phrase``."""
        ...


# -- the linker ---------------------------------------------------------------------------

@runtime_checkable
class MentionLinker(Protocol):
    """Links a text's mentions to entities: what chains asks of a linker (a linker may
    also have ``properties``, a ``PropertyLinking`` or None, which chains probes for)."""

    def link(self, text: str, *, lang: str = "en") -> LinkedText: ...


@runtime_checkable
class Linker(MentionLinker, Protocol):
    """What querygen and reasoning ask of an entity linker (``linking.EntityLinker``)."""

    def link(self, text: str, *, lang: str = "en", top: int = 5,
             min_score: float | None = None) -> LinkedText:
        """The mentions of ``text`` with their candidates (at most ``top`` each); with
        ``min_score``, those whose best candidate scores below it left out."""
        ...

    def candidates(self, name: str, *, lang: str = "en",
                   limit: int = 10) -> list[Candidate]:
        """The entities ``name`` may stand for, best first, without context."""
        ...

    def closest(self, name: str, *, lang: str = "en",
                limit: int = 5) -> list[tuple[str, str]]:
        """(ID, label) of the entities whose names are nearest to ``name`` in spelling."""
        ...

    @property
    def name(self) -> str:
        """The KB's name, for messages."""
        ...

    @property
    def source(self) -> LinkingKB:
        """The KB the linker reads, through its linking view (``kb.linking``)."""
        ...

    @property
    def properties(self) -> PropertyLinking: ...
