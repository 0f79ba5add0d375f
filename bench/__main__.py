"""The benchmark runner.

    python -m bench                      # every script: its name and what it does
    python -m bench NAME [ARGS...]       # run one, as python bench/SCRIPT.py [ARGS...] would

NAME is the script's file name without ``.py`` and, for the benchmarks, without their
``bench_`` prefix: ``python -m bench qgraph --db slice.sqlite`` runs
``bench/bench_qgraph.py --db slice.sqlite``; ``fit_graphs``, ``make_ask_questions``,
``mutations``, ``check_gold`` … keep their names. A script is any ``bench/*.py`` with an
``if __name__ == "__main__":`` block; it runs as ``__main__`` with ``sys.argv`` and
``sys.path[0]`` set as when it is run directly, so both ways stay the same.
"""

from __future__ import annotations

import ast
import runpy
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PREFIX = "bench_"


def _is_script(tree: ast.Module) -> bool:
    """Whether a module has an ``if __name__ == "__main__":`` block at its top level."""
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Compare):
            left, right = node.test.left, node.test.comparators
            if (isinstance(left, ast.Name) and left.id == "__name__" and len(right) == 1
                    and isinstance(right[0], ast.Constant) and right[0].value == "__main__"):
                return True
    return False


def scripts() -> dict[str, tuple[Path, str]]:
    """Runner name -> (script path, first line of its docstring), benchmarks first. Read
    with ``ast``, so listing imports none of them."""
    found: dict[str, tuple[Path, str]] = {}
    for path in sorted(HERE.glob("*.py"), key=lambda p: (not p.stem.startswith(PREFIX), p.stem)):
        if path.stem.startswith("_"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        if not _is_script(tree):
            continue
        doc = (ast.get_docstring(tree) or "").strip()
        name = path.stem[len(PREFIX):] if path.stem.startswith(PREFIX) else path.stem
        found[name] = (path, doc.splitlines()[0] if doc else "")
    return found


def listing() -> str:
    found = scripts()
    width = max(len(name) for name in found)
    lines = ["usage: python -m bench NAME [ARGS...]   (NAME --help: the script's options)", ""]
    groups = [("benchmarks (bench/bench_NAME.py)", lambda p: p.stem.startswith(PREFIX)),
              ("other scripts (bench/NAME.py)", lambda p: not p.stem.startswith(PREFIX))]
    for title, keep in groups:
        lines.append(title + ":")
        lines += [f"  {name:<{width}}  {first}" for name, (path, first) in found.items()
                  if keep(path)]
        lines.append("")
    lines.append("Figures: bench/RESULTS.md (current), bench/HISTORY.md (dated sessions).")
    return "\n".join(lines)


def run(name: str, args: list[str]) -> None:
    """Run the script called ``name`` as ``__main__`` with ``args``; its exit (SystemExit)
    is the runner's."""
    path = scripts()[name][0]
    sys.argv = [str(path), *args]
    # python bench/SCRIPT.py puts the script's folder first on sys.path: some scripts import
    # their neighbours (from bench_ask import f1)
    sys.path.insert(0, str(path.parent))
    runpy.run_path(str(path), run_name="__main__")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help", "--list"):
        print(listing())
        return 0
    name, args = argv[0], argv[1:]
    if name.endswith(".py"):                       # python -m bench bench_qgraph.py ...
        name = Path(name).stem
    if name not in scripts() and name.startswith(PREFIX):
        name = name[len(PREFIX):]
    if name not in scripts():
        print(f"python -m bench: no script called {name!r}\n\n{listing()}", file=sys.stderr)
        return 2
    run(name, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
