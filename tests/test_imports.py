"""The package's layering (README.md, "Layout"): each layer imports only the layers before it,
the engine imports nothing above it, and no two modules of ``roborally`` import each other.
The package root imports nothing when it is imported: the names it offers (``roborally.Game``)
load on first use, through the table ``roborally.LAZY``.

The modules are read with :mod:`ast`, not imported: every ``import`` and ``from ... import``
counts, at module level and inside functions (a lazy import is still a dependency), and so does
``importlib.import_module("roborally....")`` with a literal name; imports under
``if TYPE_CHECKING:`` do not (they are for the type checker only and never run).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import roborally

ROOT = Path(roborally.__file__).resolve().parent
PACKAGE = "roborally"

#: The layers, lowest first (README.md, "Layout"). A module belongs to the layer of the
#: longest prefix that names it; ``roborally.api`` (the Python API over games and bots) sits
#: with the bots and ``roborally.gallery`` (it draws the courses) with the renderer.
#: Below everything, ``roborally.extras`` (the optional packages, imported on demand) and
#: ``roborally.argtypes`` (checked command-line arguments).
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("support", ("roborally.extras", "roborally.argtypes")),
    ("engine", ("roborally.engine",)),
    ("content", ("roborally.content",)),
    ("render", ("roborally.render", "roborally.gallery")),
    ("bots", ("roborally.bots", "roborally.api")),
    ("rl", ("roborally.rl",)),  # beside the server: the RL environments never import it
    ("server", ("roborally.server",)),
    ("cli", ("roborally.cli", "roborally.__main__")),
)
#: What the engine must never import (nothing of the layers above it).
ENGINE_LAYER = next(i for i, (name, _) in enumerate(LAYERS) if name == "engine")
ABOVE_ENGINE = tuple(prefix for _, prefixes in LAYERS[ENGINE_LAYER + 1 :] for prefix in prefixes)


@dataclass(frozen=True)
class Import:
    """One import statement of ``module``: what it imports, at which line of which file."""

    module: str
    target: str
    path: Path
    line: int

    def __str__(self) -> str:
        where = self.path.relative_to(ROOT.parent)
        return f"{where}:{self.line}: {self.module} imports {self.target}"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(ROOT.rglob("*.py"))}


def is_type_checking(test: ast.expr) -> bool:
    """``if TYPE_CHECKING:`` or ``if typing.TYPE_CHECKING:``."""
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute module name of a ``from`` import (relative ones included)."""
    if not node.level:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base.pop()
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def targets(name: str, names: list[str]) -> list[str]:
    """The package modules that ``from name import names`` loads: each imported name that is a
    submodule, and the module ``name`` itself for the others."""
    known = modules()
    found = [f"{name}.{alias}" for alias in names if f"{name}.{alias}" in known]
    if len(found) < len(names):
        found.append(name)
    return found


def imports_of(module: str, path: Path) -> list[Import]:
    """Every import of ``module`` into the ``roborally`` package, but those for type checking."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    is_package = path.name == "__init__.py"
    found: list[Import] = []

    def add(target: str, node: ast.AST) -> None:
        if target == PACKAGE or target.startswith(PACKAGE + "."):
            found.append(Import(module, target, path, getattr(node, "lineno", 0)))

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, node)
        elif isinstance(node, ast.ImportFrom):
            name = resolve(module, is_package, node)
            for target in targets(name, [alias.name for alias in node.names]):
                add(target, node)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name | ast.Attribute)
            and (node.func.id if isinstance(node.func, ast.Name) else node.func.attr)
            == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            add(node.args[0].value, node)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


@cache
def all_imports() -> tuple[Import, ...]:
    return tuple(imp for module, path in modules().items() for imp in imports_of(module, path))


def layer_of(module: str) -> int | None:
    best: tuple[int, int] | None = None  # (prefix length, layer)
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and (
                best is None or len(prefix) > best[0]
            ):
                best = (len(prefix), index)
    return None if best is None else best[1]


def graph() -> dict[str, dict[str, Import]]:
    """module -> {imported module: the first import of it}, within the package."""
    known = modules()
    edges: dict[str, dict[str, Import]] = {name: {} for name in known}
    for imp in all_imports():
        if imp.target in known and imp.target != imp.module:
            edges[imp.module].setdefault(imp.target, imp)
    return edges


def find_cycle(edges: dict[str, dict[str, Import]]) -> list[Import] | None:
    """One import cycle (its imports in order), or ``None``."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[Import] = []

    def dfs(node: str) -> list[Import] | None:
        state[node] = 1
        for target, imp in sorted(edges[node].items()):
            if state.get(target) == 1:
                start = next(i for i, step in enumerate(path) if step.module == target)
                return [*path[start:], imp] if path else [imp]
            if target not in state:
                path.append(imp)
                cycle = dfs(target)
                if cycle is not None:
                    return cycle
                path.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state:
            cycle = dfs(node)
            if cycle is not None:
                return cycle
    return None


# ------------------------------------------------------------------------------- tests
def test_the_scan_sees_the_package() -> None:
    found = modules()
    assert "roborally.engine.game" in found
    assert "roborally.engine.classic.rules" in found
    assert "roborally.engine.core.mechanics" in found
    assert "roborally.engine.rules2023" in found
    assert "roborally.server.app" in found
    assert len(all_imports()) > 100


def test_every_module_has_a_layer() -> None:
    missing = [name for name in modules() if name != PACKAGE and layer_of(name) is None]
    assert not missing, f"modules in no layer (add them to LAYERS in this test): {missing}"


def eager_imports(path: Path) -> list[str]:
    """What the module at ``path`` imports of the package when it is imported: its module-level
    imports (inside ``if``/``try`` blocks too), but not those in functions or for type
    checking."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found: list[str] = []

    def visit(statements: list[ast.stmt]) -> None:
        for node in statements:
            if isinstance(node, ast.If):
                if not is_type_checking(node.test):
                    visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                for block in (node.body, node.orelse, node.finalbody):
                    visit(block)
                for handler in node.handlers:
                    visit(handler.body)
            elif isinstance(node, ast.Import):
                found.extend(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                found.append(resolve(PACKAGE, True, node))
            elif not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                for child in ast.walk(node):  # e.g. importlib.import_module(...) at top level
                    if isinstance(child, ast.Call) and "import" in ast.unparse(child.func):
                        found.append(ast.unparse(child))

    visit(tree.body)
    return [name for name in found if name == PACKAGE or name.startswith(PACKAGE) or "(" in name]


def test_the_package_root_imports_nothing_eagerly() -> None:
    """Every module imports ``roborally/__init__.py`` first, so it imports nothing of the
    package at import time; its names load on first use (the ``if TYPE_CHECKING:`` imports are
    for type checkers only)."""
    bad = eager_imports(ROOT / "__init__.py")
    assert not bad, "roborally/__init__.py imports at import time:\n" + "\n".join(bad)


def test_importing_the_package_loads_no_submodule() -> None:
    code = (
        "import sys, roborally\n"
        "before = sorted(m for m in sys.modules if m.startswith('roborally.'))\n"
        "roborally.__version__\n"
        "after = sorted(m for m in sys.modules if m.startswith('roborally.'))\n"
        "print(before, after)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[] []"


def test_the_lazy_names_resolve_to_their_modules() -> None:
    """Each name of the root's table is defined by the module it names, which is a module of
    the package (so the root's lazy loading follows the layers like any import)."""
    known = modules()
    for name, module in roborally.LAZY.items():
        assert module in known, (name, module)
        assert getattr(roborally, name) is getattr(__import__(module, fromlist=[name]), name)
    for name in roborally.SUBMODULES:
        assert f"{PACKAGE}.{name}" in known
        assert getattr(roborally, name).__name__ == f"{PACKAGE}.{name}"
    assert set(roborally.__all__) <= set(dir(roborally))


def test_scanner_finds_eager_imports_of_the_root(tmp_path: Path) -> None:
    file = tmp_path / "x.py"
    file.write_text(
        "from typing import TYPE_CHECKING\n"
        "import json\n"
        "if TYPE_CHECKING:\n"
        "    from roborally.engine.game import Game\n"
        "else:\n"
        "    from roborally.api import play\n"
        "try:\n"
        "    import roborally.bots\n"
        "except ImportError:\n"
        "    pass\n"
        "from . import extras\n"
        "X = importlib.import_module('roborally.render')\n"
        "def f():\n"
        "    import roborally.server\n",
        encoding="utf-8",
    )
    assert eager_imports(file) == [
        "roborally.api",
        "roborally.bots",
        "roborally",
        "importlib.import_module('roborally.render')",
    ]


def test_the_engine_imports_nothing_above_it() -> None:
    bad = [
        str(imp)
        for imp in all_imports()
        if imp.module.startswith("roborally.engine")
        and any(imp.target == p or imp.target.startswith(p + ".") for p in ABOVE_ENGINE)
    ]
    assert not bad, "the engine imports a layer above it:\n" + "\n".join(bad)


#: Inside the engine: the edition-free core and the two editions beside it (README.md, "Layout").
CORE = "roborally.engine.core"
EDITION_PACKAGES = ("roborally.engine.rules2023", "roborally.engine.classic")


def within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_the_core_imports_no_edition() -> None:
    """engine/core/ knows no edition: it imports neither edition's package."""
    bad = [
        str(imp)
        for imp in all_imports()
        if within(imp.module, CORE) and any(within(imp.target, p) for p in EDITION_PACKAGES)
    ]
    assert not bad, "the engine's core imports an edition:\n" + "\n".join(bad)


def test_the_core_imports_only_the_core() -> None:
    """Nor does it import the engine's public API above it (game, editions, preview, testing)."""
    bad = [
        str(imp)
        for imp in all_imports()
        if within(imp.module, CORE)
        and within(imp.target, "roborally.engine")
        and imp.target != "roborally.engine"
        and not within(imp.target, CORE)
    ]
    assert not bad, "the engine's core imports outside the core:\n" + "\n".join(bad)


def test_the_editions_do_not_import_each_other() -> None:
    bad = [
        str(imp)
        for imp in all_imports()
        for source, other in (EDITION_PACKAGES, EDITION_PACKAGES[::-1])
        if within(imp.module, source) and within(imp.target, other)
    ]
    assert not bad, "one edition imports the other:\n" + "\n".join(bad)


def test_each_layer_imports_only_the_layers_before_it() -> None:
    bad: list[str] = []
    for imp in all_imports():
        source, target = layer_of(imp.module), layer_of(imp.target)
        if source is not None and target is not None and target > source:
            bad.append(f"{imp} (layer {LAYERS[source][0]} imports {LAYERS[target][0]})")
    assert not bad, "imports that go up the layers:\n" + "\n".join(bad)


def test_no_import_cycles() -> None:
    cycle = find_cycle(graph())
    assert cycle is None, "an import cycle:\n" + "\n".join(str(imp) for imp in cycle)


# ------------------------------------------------------------- the scanner's own checks
def scan(tmp_path: Path, name: str, source: str) -> list[str]:
    """The imports the scanner finds in ``source`` as the module ``name``."""
    file = tmp_path / "x.py"
    file.write_text(source, encoding="utf-8")
    return [imp.target for imp in imports_of(name, file)]


def test_scanner_counts_lazy_imports_and_skips_type_checking(tmp_path: Path) -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "import roborally.engine.core.state\n"
        "from roborally.engine import game, nothing_here\n"
        "from . import events\n"
        "from .cards import Card\n"
        "if TYPE_CHECKING:\n"
        "    from roborally.bots.planner import PlannerBot\n"
        "else:\n"
        "    from roborally.engine.core import rng\n"
        "def f():\n"
        "    from roborally.content.cards import damage_deck\n"
        "    import_module('roborally.server.app')\n"
    )
    assert scan(tmp_path, "roborally.engine.core.x", source) == [
        "roborally.engine.core.state",
        "roborally.engine.game",
        "roborally.engine",
        "roborally.engine.core.events",
        "roborally.engine.core.cards",
        "roborally.engine.core.rng",
        "roborally.content.cards",
        "roborally.server.app",
    ]


def test_cycle_finder_reports_the_cycle() -> None:
    here = ROOT / "x.py"
    edges: dict[str, dict[str, Import]] = {
        "a": {"b": Import("a", "b", here, 1)},
        "b": {"c": Import("b", "c", here, 2)},
        "c": {"a": Import("c", "a", here, 3)},
        "d": {"a": Import("d", "a", here, 4)},
    }
    cycle = find_cycle(edges)
    assert cycle is not None
    assert [(imp.module, imp.target) for imp in cycle] == [("a", "b"), ("b", "c"), ("c", "a")]
    del edges["c"]["a"]
    assert find_cycle(edges) is None
