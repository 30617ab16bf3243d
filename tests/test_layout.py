"""The package's shape: its imports form no cycle, and the documented layout names what exists.

The import-linter contract (``lint-imports``, pyproject.toml) keeps the layers in order; this
test catches what a layers contract does not: a cycle between modules of one layer, including
one kept alive by an import inside a function (a later tidy-up of the imports would break it).
Every import statement counts, wherever it is written: module level, inside a function, under
``if TYPE_CHECKING:``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "python" / "tablecert"
DEVELOPMENT = ROOT / "docs" / "development.md"


def module_names() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its ``__init__.py``); the
    package data (``data/``: sample evaluators among the fixtures) is no part of it."""
    out: dict[str, Path] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.relative_to(PACKAGE).parts[0] == "data":
            continue
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def imported(name: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules that ``name`` imports anywhere in its source. ``from a import b``
    names the module ``a.b`` when there is one, else ``a``; an import of a module the package
    does not hold as source (``tablecert._core``) names the nearest enclosing one that it does."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
                anchor = here[: len(here) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.add(full if full in known else base)
    out: set[str] = set()
    for module in found:
        while module and module not in known:
            module = module.rpartition(".")[0]
        if module and module != name and module != "tablecert._core":
            out.add(module)
    return out


def import_graph() -> dict[str, set[str]]:
    modules = module_names()
    known = {*modules, "tablecert._core"}
    return {name: imported(name, path, known) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            step = next(edges, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph.get(step, ())))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_cycle_finder_finds_a_cycle_through_a_function_local_import() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_imports_are_read_wherever_they_are_written(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "from tablecert import _core, rules\n"
        "if TYPE_CHECKING:\n"
        "    from tablecert.io.inputs import read_input\n"
        "def f():\n"
        "    import tablecert.report.plan\n"
        "    from . import sibling\n"
        "    from .sub import thing\n",
        encoding="utf-8",
    )
    known = {
        "tablecert",
        "tablecert._core",
        "tablecert.rules",
        "tablecert.io.inputs",
        "tablecert.report.plan",
        "tablecert.pkg.sibling",
        "tablecert.pkg.sub",
    }
    assert imported("tablecert.pkg.m", source, known) == {
        "tablecert.rules",
        "tablecert.io.inputs",
        "tablecert.report.plan",
        "tablecert.pkg.sibling",
        "tablecert.pkg.sub",
    }


def test_the_package_imports_form_no_cycle() -> None:
    graph = import_graph()
    assert "tablecert.report.entry" in graph["tablecert.report.sections.par_sheet"]
    assert cycles(graph) == []


def documented_layout() -> set[str]:
    """The packages (``name/``) and root modules (``name.py``) the Layout section of the
    development page lists under ``python/tablecert/``."""
    text = DEVELOPMENT.read_text(encoding="utf-8")
    block = text.split("## Layout", 1)[1].split("```", 2)[1]
    lines = block.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("python/tablecert/"))
    names: set[str] = set()
    for line in lines[start + 1 :]:
        if not line.startswith(" "):
            break
        if line.startswith("   "):
            continue  # a description running on
        for token in re.split(r"\s{2,}", line.strip(), maxsplit=1)[0].split():
            names.add(token)
    return names


def existing_layout() -> set[str]:
    out: set[str] = set()
    for path in PACKAGE.iterdir():
        if path.name.startswith("_"):
            continue
        if path.is_dir():
            out.add(f"{path.name}/")
        elif path.suffix == ".py":
            out.add(path.name)
    return out


def test_the_documented_layout_lists_every_package_and_root_module() -> None:
    documented = documented_layout()
    assert {"cli/", "io/", "exact.py", "report/", "poker.py"} <= documented
    assert documented == existing_layout()


def test_no_command_module_calls_the_core() -> None:
    # The CLI is wiring: it reaches the Rust core only through the domain layers.
    cli = {name: path for name, path in module_names().items() if name.startswith("tablecert.cli")}
    assert "tablecert.cli.audit.rounds" in cli
    calling = sorted(
        name
        for name, path in cli.items()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if (
            isinstance(node, ast.ImportFrom)
            and node.module == "tablecert"
            and any(a.name == "_core" for a in node.names)
        )
        or (isinstance(node, ast.Import) and any(a.name == "tablecert._core" for a in node.names))
        or (isinstance(node, ast.ImportFrom) and node.module == "tablecert._core")
    )
    assert calling == []
