"""The contracts in kb.contracts (and reasoning.llm.likelihood's capabilities) are kept by
the classes that implement them, and named where a model or a linker is taken: no
signature of the layers above kb takes ``llm`` or ``linker`` as ``Any`` (issue 31)."""

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
    the protocol has one); a method may add optional parameters."""
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
        for p in wanted:
            have = params.pop(p.name, None)
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


def any_typed(source: str, where: str) -> list[str]:
    """Parameters, annotated attributes and properties named like a model or a linker
    (``llm``, ``verifier_llm``, ``_linker`` ...) whose annotation mentions ``Any``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
                if arg is not None and arg.annotation is not None and NAMED.search(arg.arg) \
                        and ANY.search(ast.unparse(arg.annotation)):
                    found.append(f"{where}:{arg.lineno} {node.name}({arg.arg}: "
                                 f"{ast.unparse(arg.annotation)})")
            is_property = any(ast.unparse(d) == "property" for d in node.decorator_list)
            if is_property and node.returns is not None and NAMED.search(node.name) \
                    and ANY.search(ast.unparse(node.returns)):
                found.append(f"{where}:{node.lineno} property {node.name} -> "
                             f"{ast.unparse(node.returns)}")
        elif isinstance(node, ast.AnnAssign) and NAMED.search(ast.unparse(node.target)) \
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
