"""``Session``: the one owner of what a kgground user keeps while it runs.

    from reasoning import Session
    with Session("slice.sqlite", llm=my_llm) as session:
        session.linker.link("Where was Marie Curie born?")      # the session's one linker
        session.grounder().ask("Where was Marie Curie born?")   # a Grounder over its parts

The library's lower layers keep no process state of their own: a linker, a query-graph
ranker, an endpoint's concurrency cap or a model client is an object someone holds and
passes down. A ``Session`` is that someone for an application or one CLI command; a
caller that passes a KB and a linker to ``querygen``, ``chains`` or ``Grounder`` itself
needs none.
"""

from __future__ import annotations

import threading
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

import kb as kb_module
from kb.base import Closable, KnowledgeBase
from kb.contracts import LLM
from kb.errors import KGGroundError
from kb.sparql_http import EndpointLimits

if TYPE_CHECKING:
    from linking import EntityLinker
    from reasoning.gates import Checker, Gate
    from reasoning.grounder import Grounder


class Session:
    """What one application (or one ``kgground`` command) holds while it runs.

    **Owns**

    - ``kb``: the knowledge base. Given as an object, or as a path/URL the session opens
      with ``kb.open`` (``live=``/``offline=`` put an endpoint behind a mirror); an
      endpoint the session opens shares ``limits``.
    - ``limits``: the ``kb.sparql_http.EndpointLimits`` capping the queries in flight to
      each endpoint URL, for the endpoint clients built with it (pass the same object to
      a ``SparqlEndpointKB`` built outside to share its caps). A cap is set once, by its
      size; asking another for the same URL is a ``ValueError``.
    - ``linker``: the one ``EntityLinker`` over ``kb`` (with its lookup memos and linking
      sidecar), built on first use with the options in ``linking`` (``EntityLinker``'s
      ``embeddings``, ``fuzzy``, ``progress``, …), or the one given. Every part that links —
      query generation, the chainer, ``grounder()`` — gets this one.
    - ``llm``, ``verifier`` and ``judge``: the model clients (or None), each with its own
      concurrency limit (``OpenAIChatLLM(max_concurrency=)``) and usage counts; the
      judge decides QA-pair equivalence for Rowen's checker (None: the model does).
      ``gate()`` and ``grounder()`` give them to the gate. A session for the models
      alone (a gate decision) takes no KB: its ``kb`` and ``linker`` then raise.

    **Lifetime**: create one, use it for as many questions as wanted, then ``close()``
    it (or use it as a context manager). Closing closes what the session made: the KB
    when it opened it (or was handed it with ``close_kb=True``), the linker when it
    built it; other objects passed in stay their caller's. A closed session is not used
    again.

    **Threads**: safe to share. The linker is built once, under a lock; the KB, the
    linker, the model clients and Grounders are thread-safe themselves.
    """

    def __init__(self, kb: KnowledgeBase | str | Path | None = None, *,
                 llm: LLM | None = None, verifier: LLM | None = None,
                 judge: LLM | None = None, linker: EntityLinker | None = None,
                 limits: EndpointLimits | None = None, live: str | None = None,
                 offline: bool = False, close_kb: bool | None = None, **linking: Any):
        self.limits = limits if limits is not None else EndpointLimits()
        self._owns_kb = isinstance(kb, (str, Path)) if close_kb is None else close_kb
        if isinstance(kb, (str, Path)):
            kb = kb_module.open(kb, live=live, offline=offline, limits=self.limits)
        elif live is not None:
            raise ValueError("live= is for a KB the session opens from a path; give the "
                             "KB as kb.open(path, live=...) instead")
        self._kb: KnowledgeBase | None = kb
        self.llm, self.verifier, self.judge = llm, verifier, judge
        if linker is not None and linking:
            raise ValueError("linker options are for the linker the session builds; a "
                             "linker was given")
        self._linker = linker
        self._owns_linker = linker is None
        self._linking = linking
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        model = getattr(self.llm, "model", None) if self.llm is not None else "no LLM"
        return f"Session({self._kb.name if self._kb is not None else None!r}, {model})"

    @property
    def kb(self) -> KnowledgeBase:
        """The session's knowledge base (a ``KGGroundError`` for a session without one)."""
        if self._kb is None:
            raise KGGroundError("this session has no knowledge base",
                                fix="create it with one: Session(KB or path, ...)")
        return self._kb

    @property
    def linker(self) -> EntityLinker:
        """The session's ``EntityLinker`` over ``kb``: the same object on every call,
        built on the first (opening a mirror's linking sidecar: seconds on its first
        use)."""
        with self._lock:
            if self._linker is None:
                from linking import EntityLinker
                self._linker = EntityLinker(self.kb, **self._linking)
            return self._linker

    def grounder(self, **options: Any) -> Grounder:
        """A ``Grounder`` over the session's KB, model, verifier and linker; ``options``
        are the Grounder's others (``gate``, ``strategy``, ``hops``, …). Each call makes
        a new one (it keeps its own query-graph ranker): keep it for many questions."""
        from reasoning.grounder import Grounder

        options.setdefault("verifier", self.verifier)
        options.setdefault("judge", self.judge)
        return Grounder(self.kb, self.llm, linker=self.linker, **options)

    def gate(self, name: str = "auto", *, checker: str | Checker = "llm",
             **options: Any) -> Gate:
        """The gate called ``name`` (``reasoning.gates.GATE_CHOICES``; ``auto``:
        rowen-hybrid with a verifier, else rowen-cl) over the session's model, verifier
        and judge; ``options`` are the gate's own (``k``, ``alpha``, ``n``, …). Raises
        ``LLMConfigError`` for a gate the session's models cannot run."""
        from reasoning.gates import auto_gate, make_gate

        if name == "auto":
            name = auto_gate(self.llm, self.verifier)
        return make_gate(name, self.llm, verifier=self.verifier, checker=checker,
                         judge=self.judge, **options)

    def close(self) -> None:
        """Close what the session made: its linker and the KB it opened."""
        with self._lock:
            linker, self._linker = self._linker, None
        if self._owns_linker and isinstance(linker, Closable):
            linker.close()
        if self._owns_kb and isinstance(self._kb, Closable):
            self._kb.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()
