"""The package's imports run one way: no circle among its modules, and the layers that read
a deal import only the layers below them.

Imports are read from the source, those inside functions included (a function-local
import hides a circle from Python, not from a reader), so nothing here is run.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from .conftest import ROOT

SRC = ROOT / "src"

# From the ground up: a module here imports only modules before it in this list.
DEAL_LAYERS = ("blackhole.errors", "blackhole.cards", "blackhole.deal", "blackhole.formats",
               "blackhole.sources", "blackhole.rules", "blackhole.solutions",
               "blackhole.positions")


def _modules() -> dict[str, Path]:
    """Every module of the package by its dotted name (a package by its own name)."""
    found = {}
    for path in (SRC / "blackhole").rglob("*.py"):
        parts = path.relative_to(SRC).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules that `name` imports anywhere in its source."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            targets.update(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules
                           else base for alias in node.names)
    return {target for target in targets if target in modules and target != name}


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    """Each module of the package and the package's modules it imports."""
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def _circle(graph: dict[str, set[str]]) -> list[str] | None:
    """One loop of imports, as the modules along it, or None."""
    done: set[str] = set()
    path: list[str] = []

    def visit(name: str) -> list[str] | None:
        if name in path:
            return [*path[path.index(name):], name]
        if name in done:
            return None
        path.append(name)
        for target in sorted(graph[name]):
            if (loop := visit(target)) is not None:
                return loop
        path.pop()
        done.add(name)
        return None

    return next((loop for name in sorted(graph) if (loop := visit(name)) is not None), None)


def test_no_module_of_the_package_imports_itself_through_others(
        graph: dict[str, set[str]]) -> None:
    assert {"blackhole.deal", "blackhole.rules", "blackhole.cli.guard"} <= set(graph)
    assert _circle(graph) is None


def test_the_deal_layers_import_only_the_layers_below(graph: dict[str, set[str]]) -> None:
    for height, name in enumerate(DEAL_LAYERS):
        above = set(DEAL_LAYERS[height:])
        assert graph[name] & above == set(), f"{name} imports a layer at or above its own"
    assert "blackhole.rules" in graph["blackhole.positions"]  # the reader sees imports


def test_the_shared_modules_import_no_command(graph: dict[str, set[str]]) -> None:
    """The SAT toolkit is below the backends that use it; the CLI's shared modules are
    below the commands: output and options import nothing of the CLI, the guard only
    output (it loads the commands by name, when they run); the plots sit on the report."""
    assert "blackhole.backends.sat" not in graph["blackhole.backends.pysat_tools"]
    for user in ("blackhole.backends.maxsat", "blackhole.backends.external",
                 "blackhole.certificates.make", "blackhole.best"):
        assert "blackhole.backends.pysat_tools" in graph[user]
        assert "blackhole.backends.sat" not in graph[user], user
    cli = {name for name in graph if name.startswith("blackhole.cli.")}
    assert graph["blackhole.cli.output"] & cli == set()
    assert graph["blackhole.cli.options"] & cli == set()
    assert graph["blackhole.cli.guard"] & cli == {"blackhole.cli.output"}
    assert "blackhole.bench.plots" not in graph["blackhole.bench.report"]
    assert "blackhole.bench.report" in graph["blackhole.bench.plots"]


def test_a_circle_is_found() -> None:
    """The finder itself: a loop of three is named, a chain is not."""
    assert _circle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _circle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


BUILT_IN_ERRORS = {"ValueError", "RuntimeError", "TypeError", "KeyError", "IndexError",
                   "AttributeError", "AssertionError", "OSError", "Exception"}


def test_the_library_raises_only_its_own_errors() -> None:
    """errors.py promises that every error raised on purpose is a BlackholeError: no
    `raise` in src/ names a built-in exception (a bare `raise`, re-raising, is fine), save
    the AttributeError of a module's `__getattr__`, which Python's protocol asks for."""
    bare = []
    for path in sorted((SRC / "blackhole").rglob("*.py")):
        tree = ast.parse(path.read_text())
        protocol = {id(node) for function in ast.walk(tree)
                    if isinstance(function, ast.FunctionDef) and function.name == "__getattr__"
                    for node in ast.walk(function)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Raise) and node.exc is not None \
                    and id(node) not in protocol:
                raised = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
                if isinstance(raised, ast.Name) and raised.id in BUILT_IN_ERRORS:
                    bare.append(f"{path.relative_to(SRC)}:{node.lineno} {raised.id}")
    assert bare == []
