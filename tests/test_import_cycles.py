"""No import cycle among looplab's modules, every import counted: at module level, inside a
function, under ``if TYPE_CHECKING``. An import moved into a function still ties two modules
together; a cycle hidden that way is still a cycle. A function-level import must say why it waits
(a heavy or optional dependency, a file that also runs where the package is absent)."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("harness", "evals", "reports", "scenarios", "sandboxes")


def module_files(root: Path, packages: tuple[str, ...]) -> dict[str, Path]:
    out = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def imported_names(name: str, path: Path) -> set[str]:
    """Every module name ``name`` imports anywhere in its file (relative imports resolved; for
    ``from m import x`` both ``m`` and ``m.x``, which may be a module)."""
    here = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = here.split(".")[: len(here.split(".")) - (node.level - 1)]
                base = ".".join([*parts, base] if base else parts)
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names)
    return found


def import_graph(files: dict[str, Path]) -> dict[str, set[str]]:
    """Module → the modules importing it runs: the module itself and the packages above it
    that the importer is not inside already (importing a.b.c runs a.b's ``__init__``)."""
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        deps: set[str] = set()
        for dep in imported_names(name, path):
            while dep and dep not in files:
                dep = dep.rpartition(".")[0]
            parts = dep.split(".")
            packages = (".".join(parts[:i]) for i in range(1, len(parts)))
            deps.update(d for d in (dep, *packages)
                        if d in files and d != name and not name.startswith(d + "."))
        graph[name] = deps
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for dep in sorted(graph[node]):
            if dep not in index:
                visit(dep)
                low[node] = min(low[node], low[dep])
            elif dep in stack:
                low[node] = min(low[node], index[dep])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def unexplained_deferred_imports(files: dict[str, Path]) -> list[str]:
    """Function-level imports with no comment on their line, on another line of the same block
    of imports, or on the line above that block."""
    bare = []
    for path in files.values():
        lines = path.read_text(encoding="utf-8").splitlines()
        tree = ast.parse("\n".join(lines))
        # every line of each import (a parenthesised one spans several): one block per run
        starts = {line for fn in ast.walk(tree)
                  if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef)
                  for node in ast.walk(fn) if isinstance(node, ast.Import | ast.ImportFrom)
                  for line in range(node.lineno, (node.end_lineno or node.lineno) + 1)}
        for line in sorted(starts):
            first = last = line
            while first - 1 in starts:
                first -= 1
            while last + 1 in starts:
                last += 1
            block = lines[first - 1:last]
            if not any("#" in text for text in block) and \
                    not lines[first - 2].strip().startswith("#"):
                bare.append(f"{path.as_posix()}:{line}")
    return bare


def _described(found: list[list[str]]) -> str:
    return "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


def test_no_import_cycle_in_any_package() -> None:
    graph = import_graph(module_files(ROOT, PACKAGES))
    found = cycles(graph)
    assert found == [], _described(found)


def test_function_level_imports_each_say_why() -> None:
    # sandboxes/ defers the docker SDK and inspect in many places; its own rule is left to it.
    files = module_files(ROOT, ("harness", "evals", "reports", "scenarios"))
    assert unexplained_deferred_imports(files) == []


def _package(root: Path, files: dict[str, str]) -> dict[str, Path]:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return module_files(root, ("pkg",))


def test_cycles_hidden_in_functions_or_type_checking_are_found(tmp_path: Path) -> None:
    files = _package(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/a.py": "from pkg import b\n",
        "pkg/b.py": "def f():\n    from pkg.a import x  # deferred\n",
        "pkg/c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .d import Y\n",
        "pkg/d.py": "from . import c\n",
        "pkg/e.py": "import pkg.sub.f\n",
        "pkg/sub/__init__.py": "from pkg import e\n",
        "pkg/sub/f.py": "",
        "pkg/g.py": "import pkg.a\n",
    })
    assert cycles(import_graph(files)) == [["pkg.a", "pkg.b"], ["pkg.c", "pkg.d"],
                                           ["pkg.e", "pkg.sub"]]


def test_a_deferred_import_without_a_reason_is_named(tmp_path: Path) -> None:
    files = _package(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/a.py": "def f():\n    import json\n\n\ndef g():\n    import csv  # heavy\n"
                    "    import zlib\n\n\ndef h():\n    # optional\n    import lzma\n",
    })
    assert [p.rsplit("/", 1)[-1] for p in unexplained_deferred_imports(files)] == ["a.py:2"]
