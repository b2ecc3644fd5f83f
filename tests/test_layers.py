"""The package's imports run one way: no circle among its modules, and every module
imports only modules of its own layer or the layers below it.

Every module of the package has its place in LAYERS, so a new module must be placed
before the tests pass. Imports are read from the source, those inside functions included
(a function-local import hides a circle from Python, not from a reader), so nothing here
is run.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from .helpers import ROOT

SRC = ROOT / "src"

# From the ground up: a module imports only modules of its own layer or the layers before
# it. Names are below `blackhole` ("encode" is encode/__init__.py); "__init__" is the
# package itself, the public API. Each layer lives in one folder of src/blackhole (the
# second field; "" for the package's own files), so `ls src/blackhole` shows the layers:
# the folders in this table's order, each holding its layers' modules and no other.
LAYERS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("ground", "base", ("base.errors", "base.exits", "base.environment", "base.deadline",
                        "base.version", "base.extras", "base.children", "base")),
    ("proof checker", "drat", ("drat.parse", "drat.propagation", "drat.python_engine",
                               "drat.check", "drat")),
    ("cards", "model", ("model.cards", "model")),
    ("deals", "model", ("model.games", "model.tableau", "model.deal")),
    ("formats", "model", ("model.rows", "model.formats")),
    ("sources", "model", ("model.sources",)),
    ("rules", "model", ("model.rules",)),
    ("solutions", "model", ("model.solutions",)),
    ("positions", "model", ("model.positions",)),
    ("problem", "model", ("model.problem", "model.longest")),
    ("encodings", "encode", ("encode.layout", "encode.cnf_variables", "encode.cnf_clauses",
                             "encode.cnf_cell", "encode.cnf", "encode.cpsat_names",
                             "encode.cpsat_built", "encode.cpsat_boolean", "encode.cpsat",
                             "encode")),
    ("look", "look", ("look.cuts", "look.walk", "look.covers", "look")),
    ("backend interface", "backends", ("backends.base", "backends")),
    ("backends", "backends", ("backends.search", "backends.pysat_tools", "backends.seeding",
                              "backends.look", "backends.sat", "backends.cpsat",
                              "backends.maxsat", "backends.external", "backends.kissat",
                              "backends.auto")),
    ("position questions", "questions", ("questions.pipeline", "questions.best", "questions.turns",
                                         "questions.hint_engines", "questions.advice",
                                         "questions")),
    ("certificates", "certificates", ("certificates.drat_trim", "certificates.files",
                                      "certificates.place", "certificates.labels",
                                      "certificates.make", "certificates.verification",
                                      "certificates", "certificates.batch")),
    ("bench", "bench", ("bench.record", "bench.stats", "bench.checks", "bench.plan",
                        "bench.worker", "bench.pool", "bench.cluster", "bench.report",
                        "bench.render", "bench.plots", "bench.run", "bench")),
    ("atlas", "atlas", ("atlas", "atlas.build")),
    ("play", "play", ("play", "play.game", "play.board", "play.slots", "play.engine",
                      "play.session", "play.widgets", "play.app")),
    ("answer documents", "answers", ("answers",)),
    ("web", "web", ("web.api", "web.app", "web")),
    ("command line", "cli", ("cli.output", "cli.options", "cli.guard", "cli.commands",
                             "cli.atlas", "cli.bench", "cli.certificates", "cli.deals",
                             "cli.play", "cli.questions", "cli.solving", "cli.web", "cli")),
    ("package", "", ("__main__", "__init__")),
)


def _dotted(name: str) -> str:
    return "blackhole" if name == "__init__" else f"blackhole.{name}"


LAYER = {_dotted(name): height for height, (_, _, names) in enumerate(LAYERS)
         for name in names}
# The compiled cores (a .c file beside the modules): they import nothing of the package.
COMPILED = {".".join(path.relative_to(SRC).with_suffix("").parts)
            for path in (SRC / "blackhole").rglob("*.c")}


def _modules() -> dict[str, Path]:
    """Every module of the package by its dotted name (a package by its own name)."""
    found = {}
    for path in (SRC / "blackhole").rglob("*.py"):
        parts = path.relative_to(SRC).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _imports(name: str, path: Path, modules: dict[str, Path],
             source: str | None = None) -> set[str]:
    """The package's modules that `name` imports anywhere in its source (the file at
    `path`, or `source` when given)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets: set[str] = set()
    text = path.read_text(encoding="utf-8") if source is None else source
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            for alias in node.names:
                named = f"{base}.{alias.name}"
                if named not in COMPILED:  # `from blackhole import _look_core`: the core
                    targets.add(named if named in modules else base)
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
    assert {"blackhole.model.deal", "blackhole.model.rules", "blackhole.cli.guard"} <= set(graph)
    assert _circle(graph) is None


def test_every_module_has_a_layer(graph: dict[str, set[str]]) -> None:
    """The table places every module of the tree, once, and names no module that is gone."""
    placed = [_dotted(name) for _, _, names in LAYERS for name in names]
    assert len(placed) == len(set(placed)), "a module placed twice"
    assert sorted(set(graph) - set(placed)) == [], "modules without a layer in LAYERS"
    assert sorted(set(placed) - set(graph)) == [], "LAYERS names modules not in the tree"


def test_no_module_imports_a_layer_above_its_own(graph: dict[str, set[str]]) -> None:
    upward = sorted(f"{name} ({LAYERS[LAYER[name]][0]}) imports {target} "
                    f"({LAYERS[LAYER[target]][0]})"
                    for name, targets in graph.items() if name in LAYER
                    for target in targets if LAYER.get(target, -1) > LAYER[name])
    assert upward == []
    assert "blackhole.model.rules" in graph["blackhole.model.positions"]  # imports are seen
    assert "blackhole" not in graph["blackhole.look"]  # the compiled core is no package


def test_the_folders_show_the_layers() -> None:
    """Each module lies in its layer's folder, `ls src/blackhole` lists those folders
    and no loose module but the package's own, and a folder's layers sit together in
    the table, so the folders come in layer order."""
    for _, folder, names in LAYERS:
        for name in names:
            top = name.split(".")[0] if "." in name or (SRC / "blackhole" / name).is_dir() \
                else ""
            assert top == folder, f"{name} lies in {top or 'src/blackhole'}, not {folder}"
    listed = {path.name for path in (SRC / "blackhole").iterdir()
              if path.suffix == ".py" or (path.is_dir() and (path / "__init__.py").exists())}
    folders = [folder for _, folder, _ in LAYERS]
    assert listed == {*filter(None, folders), "__init__.py", "__main__.py"}
    runs = [folder for i, folder in enumerate(folders) if i == 0 or folders[i - 1] != folder]
    assert len(runs) == len(set(runs)), "a folder's layers apart in the table"


def test_an_upward_import_is_found() -> None:
    """The reader itself: a layer's import of one above it is seen, in a function too."""
    modules = {"blackhole.model.cards": SRC / "blackhole" / "model" / "cards.py",
               "blackhole.cli": SRC / "blackhole" / "cli" / "__init__.py"}
    source = "def f():\n    from blackhole.cli import app\n"
    found = _imports("blackhole.model.cards", modules["blackhole.model.cards"], modules, source)
    assert found == {"blackhole.cli"} and LAYER["blackhole.cli"] > LAYER["blackhole.model.cards"]


def test_the_shared_modules_import_no_command(graph: dict[str, set[str]]) -> None:
    """The SAT toolkit is below the backends that use it; the CLI's shared modules are
    below the commands: output and options import nothing of the CLI, the guard only
    output, and the app only the guard (it loads the commands by name, when they run);
    the plots sit on the report."""
    assert "blackhole.backends.sat" not in graph["blackhole.backends.pysat_tools"]
    for user in ("blackhole.backends.maxsat", "blackhole.backends.external",
                 "blackhole.certificates.make", "blackhole.questions.hint_engines"):
        assert "blackhole.backends.pysat_tools" in graph[user]
        assert "blackhole.backends.sat" not in graph[user], user
    cli = {name for name in graph if name.startswith("blackhole.cli.")}
    assert graph["blackhole.cli.output"] & cli == set()
    assert graph["blackhole.cli.options"] & cli == set()
    assert graph["blackhole.cli.guard"] & cli == {"blackhole.cli.output"}
    assert graph["blackhole.cli.commands"] & cli == {"blackhole.cli.guard"}
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
    those Python's protocols ask for: the AttributeError of a module's `__getattr__` and
    the IndexError of a sequence's `__getitem__`."""
    bare = []
    for path in sorted((SRC / "blackhole").rglob("*.py")):
        tree = ast.parse(path.read_text())
        protocol = {id(node) for function in ast.walk(tree)
                    if isinstance(function, ast.FunctionDef)
                    and function.name in ("__getattr__", "__getitem__")
                    for node in ast.walk(function)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Raise) and node.exc is not None \
                    and id(node) not in protocol:
                raised = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
                if isinstance(raised, ast.Name) and raised.id in BUILT_IN_ERRORS:
                    bare.append(f"{path.relative_to(SRC)}:{node.lineno} {raised.id}")
    assert bare == []
