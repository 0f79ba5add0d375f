"""The contracts in kb.contracts (and reasoning.llm.likelihood's capabilities) are kept by
the classes that implement them, and named where a model or a linker is taken: no
signature of the layers above kb takes ``llm`` or ``linker`` as ``Any`` (issue 31).

Likewise for knowledge bases: every KB adapter (and ``MeteredKB`` over it) is a
``KnowledgeBase`` offering exactly its capability protocols (``kb.base``), every linking
view exactly its optional members' (``kb.linking``), checked as Python 3.11 and 3.12+
decide ``isinstance``; no signature above kb takes a KB as ``Any``, and none probes one
with ``getattr``/``hasattr``."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path
from typing import Any, Protocol

import pytest

from kb.contracts import LLM, Linker, MentionLinker, PropertyLinking
from reasoning.llm.likelihood import ScoredLLM, ScoringLLM, can_score, offers_scored

REPO = Path(__file__).resolve().parents[1]
DATA = Path(__file__).parent / "data"
PACKAGES = ["kb", "linking", "querygen", "chains", "reasoning"]


# -- the implementations keep the contracts ------------------------------------------------------

def protocol_members(proto: type) -> dict[str, Any]:
    """name → the protocol's declaration (a function, a property, or None for a plain
    annotated attribute), over the protocol and the protocols it extends."""
    found: dict[str, Any] = {}
    for base in reversed(proto.__mro__):
        if base in (object, Protocol) or not getattr(base, "_is_protocol", False):
            continue
        for name in getattr(base, "__annotations__", {}):
            found[name] = None
        for name, value in vars(base).items():
            if not name.startswith("_") and (callable(value) or isinstance(value, property)):
                found[name] = value
    return found


def signature_problems(target: object, proto: type) -> list[str]:
    """What ``target`` (a class, or an instance for attributes set in ``__init__``) lacks
    of ``proto``: a member, or a method parameter (of the same kind, with a default where
    the protocol has one; ``**options`` takes any keyword-only one); a method may add
    optional parameters."""
    own = target.__name__ if inspect.isclass(target) else type(target).__name__
    problems = []
    for name, declared in protocol_members(proto).items():
        if not hasattr(target, name):
            problems.append(f"{own} has no {name}")
            continue
        if not inspect.isfunction(declared):
            continue
        wanted = list(inspect.signature(declared).parameters.values())[1:]
        params = dict(inspect.signature(getattr(target, name)).parameters)
        if inspect.isclass(target):
            params.pop(next(iter(params)))            # self
        any_keyword = any(q.kind == q.VAR_KEYWORD for q in params.values())
        for p in wanted:
            have = params.pop(p.name, None)
            if have is None and any_keyword and p.kind == p.KEYWORD_ONLY:
                continue
            if have is None or have.kind != p.kind or (
                    p.default is not p.empty and have.default is have.empty):
                problems.append(f"{own}.{name} does not take {p.name}")
        problems += [f"{own}.{name} requires {extra.name}" for extra in params.values()
                     if extra.default is extra.empty
                     and extra.kind not in (extra.VAR_POSITIONAL, extra.VAR_KEYWORD)]
    return problems


def test_the_signature_check_sees_a_missing_parameter() -> None:
    class Short:
        model = "short"

        def complete(self, messages: Any, *, n: int = 1) -> list[str]:
            return []

    assert signature_problems(Short, LLM) == [
        "Short.complete does not take temperature", "Short.complete does not take max_tokens",
        "Short.complete does not take stop"]


def backend_classes() -> dict[str, type]:
    from reasoning.llm import CachedLLM, ScriptedLLM, SimulatedLLM
    from reasoning.llm.openai_chat import OpenAIChatLLM
    from reasoning.llm.transformers_llm import TransformersLLM
    return {"scripted": ScriptedLLM, "simulated": SimulatedLLM, "cached": CachedLLM,
            "openai": OpenAIChatLLM, "transformers": TransformersLLM}


#: the capabilities each backend has beside ``complete``
CAPABILITIES = {"scripted": (), "simulated": (), "openai": (ScoredLLM,),
                "transformers": (ScoredLLM, ScoringLLM), "cached": (ScoredLLM, ScoringLLM)}


@pytest.mark.parametrize("name", sorted(CAPABILITIES))
def test_every_llm_backend_keeps_the_llm_contract(name: str) -> None:
    cls = backend_classes()[name]
    for proto in (LLM, *CAPABILITIES[name]):
        assert signature_problems(cls, proto) == [], proto.__name__


def test_llm_backends_are_llms_at_run_time(tmp_path: Path) -> None:
    from reasoning.llm import CachedLLM, FactCatalog, ScriptedLLM, SimulatedLLM
    from reasoning.llm.openai_chat import OpenAIChatLLM

    scripted = ScriptedLLM(["yes"])
    cached = CachedLLM(scripted, tmp_path / "calls.sqlite")
    openai = OpenAIChatLLM("m", base_url="http://127.0.0.1:9/v1")
    try:
        simulated = SimulatedLLM(FactCatalog.from_rows([{
            "question": "Where was Ada born?", "subject": "Q1", "property": "P19",
            "answers": ["Q2"], "answer_labels": ["Leeds"]}]))
        backends = [scripted, simulated, cached, openai]
        assert all(isinstance(b, LLM) for b in backends)
        assert isinstance(openai, ScoredLLM) and offers_scored(openai)
        assert not can_score(openai) and not can_score(scripted) and not can_score(cached)
        assert not isinstance(scripted, ScoredLLM) and not offers_scored(scripted)
        assert isinstance(cached, ScoringLLM)
    finally:
        cached.close()
        openai.close()


def test_the_entity_linker_keeps_the_linker_contract() -> None:
    from chains.evidence import _NoLinker
    from kb.rdfgraph import RdfGraphKB
    from linking import EntityLinker

    # source, properties and name are set in __init__: checked on an instance
    linker = EntityLinker(RdfGraphKB(DATA / "chains-library.ttl"))
    try:
        assert isinstance(linker, Linker) and isinstance(linker, MentionLinker)
        assert signature_problems(linker, Linker) == []
        assert signature_problems(linker.properties, PropertyLinking) == []
        result = linker.link("Where was Ada Quill born?")
        assert [m.mention.text for m in result.mentions if m.best is not None]
    finally:
        linker.close()
    # what chains falls back to when a KB cannot be linked: mentions only
    assert isinstance(_NoLinker(), MentionLinker) and not isinstance(_NoLinker(), Linker)


# -- nothing above kb takes a model or a linker as Any -------------------------------------------

NAMED = re.compile(r"llm|linker", re.IGNORECASE)
ANY = re.compile(r"\bAny\b")


def any_typed(source: str, where: str, named: re.Pattern[str] = NAMED) -> list[str]:
    """Parameters, annotated attributes and properties named like a model or a linker
    (``llm``, ``verifier_llm``, ``_linker`` ...; or as ``named`` says) whose annotation
    mentions ``Any``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
                if arg is not None and arg.annotation is not None and named.search(arg.arg) \
                        and ANY.search(ast.unparse(arg.annotation)):
                    found.append(f"{where}:{arg.lineno} {node.name}({arg.arg}: "
                                 f"{ast.unparse(arg.annotation)})")
            is_property = any(ast.unparse(d) == "property" for d in node.decorator_list)
            if is_property and node.returns is not None and named.search(node.name) \
                    and ANY.search(ast.unparse(node.returns)):
                found.append(f"{where}:{node.lineno} property {node.name} -> "
                             f"{ast.unparse(node.returns)}")
        elif isinstance(node, ast.AnnAssign) and named.search(ast.unparse(node.target)) \
                and ANY.search(ast.unparse(node.annotation)):
            found.append(f"{where}:{node.lineno} {ast.unparse(node.target)}: "
                         f"{ast.unparse(node.annotation)}")
    return found


def test_no_model_or_linker_is_taken_as_any() -> None:
    found = []
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            found += any_typed(path.read_text(encoding="utf-8"), str(path.relative_to(REPO)))
    assert found == []


def test_the_scan_sees_any_in_its_forms() -> None:
    source = ("def f(llm: Any, *, judge_llm: Any | None = None, linker: 'Optional[Any]' = None,"
              " kb: Any = None) -> None: ...\n"
              "class C:\n"
              "    _linker: Any\n"
              "    @property\n"
              "    def linker(self) -> Any: ...\n"
              "    def g(self, llm: LLM, linker: Linker | None) -> Any: ...\n")
    assert [f.split(" ", 1)[1] for f in any_typed(source, "x")] == [
        "f(llm: Any)", "f(judge_llm: Any | None)", "f(linker: 'Optional[Any]')",
        "_linker: Any", "property linker -> Any"]


# -- the KB adapters keep KnowledgeBase and exactly their capabilities (issue 31) ----------------

def kb_protocols() -> dict[str, type]:
    from kb.base import (Closable, HasLinking, HasLive, HasLocal, HasMirror, KnowledgeBase,
                         Searchable, SparqlCapable, Streaming)
    return {p.__name__: p for p in (KnowledgeBase, Searchable, SparqlCapable, Closable,
                                    HasLinking, Streaming, HasMirror, HasLocal, HasLive)}


def view_protocols() -> dict[str, type]:
    from kb.base import Closable
    from kb.linking import (Batched, Capitalized, Concepts, HasKB, Indexed, LinkingKB,
                            Nearest, PreparesSimilar, Related, WarmsUp)
    return {p.__name__: p for p in (LinkingKB, Closable, Batched, PreparesSimilar,
                                    Capitalized, Concepts, Nearest, Related, Indexed,
                                    WarmsUp, HasKB)}


def static_isinstance(obj: object, proto: type) -> bool:
    """``isinstance(obj, proto)`` as Python 3.12+ decides it: every member found without
    running ``__getattr__`` (``inspect.getattr_static``), no method set to None."""
    missing = object()
    for name, declared in protocol_members(proto).items():
        found = inspect.getattr_static(obj, name, missing)
        if found is missing or (inspect.isfunction(declared) and found is None):
            return False
    return True


def offered(obj: object, protocols: dict[str, type]) -> set[str]:
    """The protocols ``obj`` is an instance of, checked both ways (3.11 and 3.12+)."""
    found = {n for n, p in protocols.items() if isinstance(obj, p)}
    assert found == {n for n, p in protocols.items() if static_isinstance(obj, p)}, \
        f"{type(obj).__name__}: isinstance differs from a 3.12-style check"
    return found


ALWAYS = {"KnowledgeBase", "Searchable", "SparqlCapable"}
#: the capabilities of each adapter, beside KnowledgeBase (and its parts)
KB_CAPABILITIES = {
    "mirror": {"Closable", "HasLinking", "Streaming", "HasMirror"},
    "rdf": {"Streaming"},
    "endpoint": {"Closable"},
    "fallback": {"Closable", "HasLinking", "HasLocal", "HasLive"},
}


@pytest.fixture
def adapters(demo_mirror_path: Path) -> Any:
    from kb.endpoint import SparqlEndpointKB
    from kb.fallback import FallbackKB
    from kb.mirror import MirrorKB
    from kb.rdfgraph import RdfGraphKB

    made = {"mirror": MirrorKB(demo_mirror_path),
            "rdf": RdfGraphKB(DATA / "chains-library.ttl"),
            "endpoint": SparqlEndpointKB("http://127.0.0.1:9/sparql", cache=False),
            "fallback": FallbackKB(MirrorKB(demo_mirror_path),
                                   SparqlEndpointKB("http://127.0.0.1:9/sparql", cache=False),
                                   offline=True)}
    yield made
    for kb in made.values():
        close = vars(type(kb)).get("close")
        if close is not None:
            close(kb)


@pytest.mark.parametrize("name", sorted(KB_CAPABILITIES))
def test_every_kb_adapter_offers_exactly_its_capabilities(adapters: Any, name: str) -> None:
    kb = adapters[name]
    protocols = kb_protocols()
    assert offered(kb, protocols) == ALWAYS | KB_CAPABILITIES[name]
    for proto in sorted(ALWAYS | KB_CAPABILITIES[name]):
        assert signature_problems(kb, protocols[proto]) == [], proto      # name: an attribute


@pytest.mark.parametrize("name", sorted(KB_CAPABILITIES))
def test_a_metered_kb_offers_the_capabilities_of_the_kb_it_wraps(adapters: Any,
                                                                  name: str) -> None:
    from reasoning.metered import MeteredKB, unwrap

    kb = adapters[name]
    metered = MeteredKB(kb)
    protocols = kb_protocols()
    assert isinstance(metered, MeteredKB) and unwrap(metered) is kb
    assert offered(metered, protocols) == ALWAYS | KB_CAPABILITIES[name]
    for proto in sorted(ALWAYS | KB_CAPABILITIES[name]):
        assert signature_problems(metered, protocols[proto]) == [], proto
    assert type(MeteredKB(kb)) is type(metered)        # one class per set of capabilities


def test_a_metered_mirror_offers_its_capabilities_and_still_meters(
        demo_mirror_path: Path) -> None:
    from kb.base import Closable, HasLinking, HasMirror, Streaming
    from kb.linking import LinkingKB
    from kb.mirror import MirrorKB
    from reasoning.metered import MeteredKB, meter_delta

    base = MirrorKB(demo_mirror_path)
    metered = MeteredKB(base)
    assert isinstance(metered, (Closable)) and isinstance(metered, HasLinking)
    assert isinstance(metered, Streaming) and isinstance(metered, HasMirror)
    before = metered.meter.snapshot()
    assert metered.mirror is base.mirror                  # an attribute: passed, not counted
    metered.statements("Q7186", "P19")
    metered.search("Marie Curie")
    stream = metered.sparql_stream("SELECT ?o WHERE { wd:Q7186 wdt:P19 ?o }")
    assert [str(row["o"]) for row in stream.rows]
    view = metered.linking()
    assert isinstance(view, LinkingKB) and view.names(["marie curie"])
    view.close()
    metered.close()
    calls = {k: v["calls"] for k, v in meter_delta(before, metered.meter.snapshot()).items()}
    assert calls == {"statements": 1, "search": 1, "sparql_stream": 1, "linking": 1,
                     "close": 1}


def test_a_metered_fallback_kb_passes_its_live_side_on(demo_mirror_path: Path) -> None:
    from kb.endpoint import SparqlEndpointKB
    from kb.fallback import FallbackKB
    from kb.mirror import MirrorKB
    from reasoning.eval.gold import lookup_kb
    from reasoning.metered import MeteredKB

    live = SparqlEndpointKB("http://127.0.0.1:9/sparql", cache=False)
    for offline in (True, False):
        fallback = FallbackKB(MirrorKB(demo_mirror_path), live, offline=offline)
        metered = MeteredKB(fallback)
        assert metered.live is live and metered.offline is offline
        assert metered.local is fallback.local
        assert lookup_kb(metered) is (metered if offline else live)
        assert lookup_kb(fallback) is (fallback if offline else live)
        fallback.local.close()
    rdf_metered = MeteredKB(__import__("kb.rdfgraph").rdfgraph.RdfGraphKB(
        DATA / "chains-library.ttl"))
    assert lookup_kb(rdf_metered) is rdf_metered
    assert not hasattr(rdf_metered, "close") and not hasattr(rdf_metered, "mirror")


def test_the_linking_views_offer_exactly_their_capabilities(demo_kb_copy: Any) -> None:
    from kb.fallback import FallbackKB
    from kb.linking import linking_view
    from kb.mirror import MirrorKB
    from kb.mirror_linking import MirrorLinking
    from kb.rdfgraph import RdfGraphKB

    protocols = view_protocols()
    mirror_view = linking_view(demo_kb_copy)
    assert isinstance(mirror_view, MirrorLinking)
    mirror_caps = set(protocols) - {"WarmsUp"}
    assert offered(mirror_view, protocols) == mirror_caps
    fallback = FallbackKB(MirrorKB(mirror=demo_kb_copy.mirror), None)
    fallback_view = linking_view(fallback)
    assert offered(fallback_view, protocols) == mirror_caps | {"WarmsUp"}
    generic = linking_view(RdfGraphKB(DATA / "chains-library.ttl"))
    assert offered(generic, protocols) == {"LinkingKB", "Related", "HasKB"}
    for view in (mirror_view, fallback_view, generic):
        for name in offered(view, protocols):
            assert signature_problems(view, protocols[name]) == [], \
                f"{type(view).__name__} {name}"


def test_linking_takes_a_kb_without_the_optional_members() -> None:
    """A KB with nothing but KnowledgeBase's members is linked through the generic view,
    which offers no optional member but ``related``; the linker does without them."""
    from kb.base import Closable
    from kb.rdfgraph import RdfGraphKB
    from linking import EntityLinker

    class Plain:
        def __init__(self, inner: RdfGraphKB) -> None:
            self.inner, self.name = inner, "plain"

        def entity(self, id: str) -> Any:
            return self.inner.entity(id)

        def search(self, text: str, *, lang: str = "en", limit: int = 10) -> Any:
            return self.inner.search(text, lang=lang, limit=limit)

        def statements(self, subject: Any = None, property: Any = None, value: Any = None,
                       *, limit: int = 100) -> Any:
            return self.inner.statements(subject, property, value, limit=limit)

        def sparql(self, query: str, *, timeout: float | None = None) -> Any:
            return self.inner.sparql(query, timeout=timeout)

        def property_info(self, pid: str) -> Any:
            return self.inner.property_info(pid)

    plain = Plain(RdfGraphKB(DATA / "chains-library.ttl"))
    linker = EntityLinker(plain)
    assert linker.name == "plain" and linker.mirror is None
    assert not isinstance(linker.source, Closable)
    assert [m.best.id for m in linker.link("Where was Ada Quill born?").mentions
            if m.best is not None] == ["http://example.org/lib/ada"]
    # without ``nearest``, the closest names come from ``similar(..., "words")``
    assert linker.closest("Quill") == [("http://example.org/lib/ada", "Ada Quill")]
    linker.close()                        # nothing to close: a no-op


# -- nothing above kb takes a KB as Any, or probes one with getattr ------------------------------

KB_NAMED = re.compile(r"(^|\.)_?(kb|kb_|source|mirror|base)$")
LAYERS = ["linking", "querygen", "chains", "reasoning"]


def kb_any_typed(source: str, where: str) -> list[str]:
    """``any_typed`` for parameters, attributes and properties that name a KB (``kb``,
    ``source``, ``mirror``, ``base``, ``self._kb`` ...; not ``kb_graph``)."""
    return any_typed(source, where, KB_NAMED)


def kb_probes(source: str, where: str) -> list[str]:
    """``getattr``/``hasattr`` probes on a KB-named object: ``hasattr(kb, ...)``, and
    ``getattr`` with a literal name or a default (``getattr(self.source, "batch", None)``).
    A proxy's forwarding by a variable name (``getattr(self._kb, name)``) is no probe."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "hasattr") and node.args
                and KB_NAMED.search(ast.unparse(node.args[0]))):
            continue
        literal = len(node.args) > 1 and isinstance(node.args[1], ast.Constant)
        if node.func.id == "hasattr" or literal or len(node.args) > 2:
            found.append(f"{where}:{node.lineno} {ast.unparse(node)}")
    return found


def layer_sources() -> list[tuple[str, str]]:
    return [(path.read_text(encoding="utf-8"), str(path.relative_to(REPO)))
            for package in LAYERS for path in sorted((REPO / package).rglob("*.py"))]


def test_no_kb_is_taken_as_any() -> None:
    assert [f for text, where in layer_sources() for f in kb_any_typed(text, where)] == []


def test_no_kb_is_probed_with_getattr() -> None:
    assert [f for text, where in layer_sources() for f in kb_probes(text, where)] == []


def test_the_kb_scans_see_what_they_look_for() -> None:
    source = ("def f(kb: Any, source: 'Any | None' = None, *, mirror: Optional[Any] = None,"
              " kb_graph: Any = None, base: KnowledgeBase) -> None:\n"
              "    getattr(kb, 'name', '')\n"
              "    hasattr(self.source, 'batch')\n"
              "    getattr(getattr(self._kb, 'mirror', None), 'release', None)\n"
              "    getattr(self._kb, name)\n"
              "    getattr(linker, 'source', None)\n"
              "class C:\n"
              "    _kb: Any\n"
              "    @property\n"
              "    def mirror(self) -> Any: ...\n")
    assert [f.split(" ", 1)[1] for f in kb_any_typed(source, "x")] == [
        "f(kb: Any)", "f(source: 'Any | None')", "f(mirror: Optional[Any])", "_kb: Any",
        "property mirror -> Any"]
    assert [f.split(" ", 1)[1] for f in kb_probes(source, "x")] == [
        "getattr(kb, 'name', '')", "hasattr(self.source, 'batch')",
        "getattr(self._kb, 'mirror', None)"]             # the probe inside the nested one
