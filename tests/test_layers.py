"""Layers import downward only (docs/DESIGN.md): store → kb → linking → querygen → chains
→ reasoning. An upward import anywhere in a package's source fails here with its place."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LAYERS = ["store", "kb", "linking", "querygen", "chains", "reasoning"]


def imported_modules(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
    return sorted(found)


def upward_imports() -> list[str]:
    problems = []
    for rank, layer in enumerate(LAYERS):
        for path in sorted((REPO / layer).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            for line, module in imported_modules(tree):
                top = module.split(".")[0]
                if top in LAYERS and LAYERS.index(top) > rank:
                    problems.append(f"{path.relative_to(REPO)}:{line} imports {module}")
    return problems


def test_layers_import_downward_only():
    assert upward_imports() == []


def test_the_check_sees_an_upward_import():
    tree = ast.parse("def f():\n    import reasoning.grounder\nfrom kb import open\n")
    assert imported_modules(tree) == [(2, "reasoning.grounder"), (3, "kb")]
