"""``reasoning.Session``: the one owner of process state — the KB, its one linker, the
models and the endpoint limits — and the scans that keep state out of the modules."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import kb as kb_module
from kb.endpoint import SparqlEndpointKB
from kb.sparql_http import EndpointLimits
from reasoning import Session

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("store", "kb", "linking", "querygen", "chains", "reasoning")


# -- one linker per session ------------------------------------------------------------------

def test_a_session_gives_one_linker_and_two_sessions_two(demo_mirror_path):
    with Session(demo_mirror_path) as one, Session(demo_mirror_path) as two:
        assert one.linker is one.linker
        assert one.linker is not two.linker
        assert one.linker.kb is one.kb
        grounder = one.grounder()
        assert grounder.linker is one.linker and grounder.kb is one.kb
        assert grounder.ranker is grounder.ranker        # kept for the Grounder's life
        assert grounder.ranker.linker is one.linker
        assert grounder.ask("Where was Marie Curie born?").grounded


def test_linker_options_reach_the_linker_the_session_builds(demo_mirror_path):
    with Session(demo_mirror_path, fuzzy=False, embeddings=False) as session:
        assert session.linker.embedder is None and session.linker.properties.embedder is None
    from linking import EntityLinker
    given = EntityLinker(demo_mirror_path, embeddings=False)
    with pytest.raises(ValueError, match="linker was given"):
        Session(demo_mirror_path, linker=given, fuzzy=False)


def test_closing_closes_what_the_session_made_only(demo_mirror_path):
    base = kb_module.open(demo_mirror_path)
    with Session(base) as session:
        session.linker.link("Marie Curie")
    assert base.entity("Q7186").label("en") == "Marie Curie"     # still the caller's, open
    base.close()


def test_the_llm_and_verifier_are_the_sessions(demo_mirror_path):
    from reasoning.llm import ScriptedLLM
    llm, verifier = ScriptedLLM(["Warsaw"]), ScriptedLLM(["Warsaw"])
    with Session(demo_mirror_path, llm=llm, verifier=verifier) as session:
        g = session.grounder(gate="never")
        assert g.llm is llm and session.verifier is verifier


# -- endpoint limits: one owner, explicit sizes -------------------------------------------------

def test_endpoint_limits_are_explicit_and_never_silently_resized():
    limits = EndpointLimits()
    url = "http://127.0.0.1:9/sparql"
    assert limits.size(url) is None
    slots = limits.slots(url, 2)
    assert limits.slots(url, 2) is slots and limits.size(url) == 2
    with pytest.raises(ValueError, match="already has a cap of 2"):
        limits.slots(url, 7)
    with pytest.raises(ValueError):
        EndpointLimits().slots(url, 0)
    a = SparqlEndpointKB(url, no_cache=True, max_concurrency=2, limits=limits)
    assert a.client.slots is slots and a.client.max_concurrency == 2
    with pytest.raises(ValueError, match="already has a cap"):
        SparqlEndpointKB(url, no_cache=True, max_concurrency=3, limits=limits)
    # clients given no limits do not share a cap through the process
    b, c = (SparqlEndpointKB(url, no_cache=True, max_concurrency=n) for n in (1, 4))
    assert b.client.slots is not c.client.slots and c.client.max_concurrency == 4


def test_an_endpoint_the_session_opens_uses_its_limits():
    url = "http://127.0.0.1:9/sparql"
    session = Session(url, cache=False)
    assert isinstance(session.kb, SparqlEndpointKB)
    assert session.kb.client.limits is session.limits and session.limits.size(url) == 5
    session.close()


# -- no process state in the modules --------------------------------------------------------

def _module_level_state(tree: ast.Module) -> set[str]:
    """Names bound at module level to a dict or a weak dictionary."""
    names = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, ast.AnnAssign) else []
        value = getattr(node, "value", None)
        stateful = isinstance(value, (ast.Dict, ast.DictComp)) or (
            isinstance(value, ast.Call) and (getattr(value.func, "attr", None) or getattr(
                value.func, "id", None)) in ("dict", "WeakKeyDictionary",
                                             "WeakValueDictionary", "defaultdict"))
        if stateful:
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return names


def _is_id_call(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
        node.func.id == "id"


def test_no_module_level_cache_is_keyed_by_id_or_weakly():
    """Objects' caches live on an object someone holds (a Session, a Grounder), never in a
    module dict keyed by ``id()`` or in a module-level weak dictionary."""
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text("utf-8"))
            state = _module_level_state(tree)
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and getattr(node.func, "attr", None) in (
                        "WeakKeyDictionary", "WeakValueDictionary") and node in [
                        getattr(n, "value", None) for n in tree.body]:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: module-level "
                                 "weak dictionary")
                keyed = None
                if isinstance(node, ast.Subscript) and _is_id_call(node.slice):
                    keyed = node.value
                elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                      and node.func.attr in ("get", "setdefault", "pop") and node.args
                      and _is_id_call(node.args[0])):
                    keyed = node.func.value
                if isinstance(keyed, ast.Name) and keyed.id in state:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: module-level "
                                 f"{keyed.id} keyed by id()")
    assert not found, "\n".join(found)


def test_no_library_module_switches_the_collector_while_answering():
    """Linking, query generation, chains and answering leave Python's garbage collector
    as the application set it (the bulk loader in ``store.ingest`` is the one exception:
    a load is a process's whole job)."""
    found = []
    for package in ("kb", "linking", "querygen", "chains", "reasoning"):
        for path in sorted((ROOT / package).rglob("*.py")):
            text = path.read_text("utf-8")
            for call in ("gc.disable(", "gc.freeze(", "gc.set_threshold("):
                if call in text:
                    found.append(f"{path.relative_to(ROOT)}: {call}")
    assert not found, found
