"""Every module of the package imports on its own, first: no import cycle hides behind
the order in which the rest of the suite happens to import things.  Imports are at the
top of their module, except those that keep a heavy dependency lazy, each marked so;
and the exact analysis never imports the simulator."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import cardroom

SCRIPT = """
import importlib, sys
fresh, rest = sys.argv[1].split(","), sys.argv[2].split(",")
failed = []
def load(name):
    try:
        importlib.import_module(name)
    except Exception as err:
        failed.append(f"{name}: {type(err).__name__}: {err}")
for name in fresh:
    for loaded in [m for m in sys.modules if m == "cardroom" or m.startswith("cardroom.")]:
        del sys.modules[loaded]
    load(name)
for name in rest:
    load(name)
print("\\n".join(failed))
"""


def _module_names(root: Path) -> dict[str, Path]:
    return {
        ".".join(("cardroom", *path.relative_to(root).with_suffix("").parts)).removesuffix(
            ".__init__"
        ): path
        for path in root.rglob("*.py")
        if "migrations" not in path.parts
    }


def _module_level_imports(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements that run when the module is imported: not those inside a
    function, nor under ``if TYPE_CHECKING:``."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        if isinstance(child, ast.If) and _is_type_checking(child.test):
            for other in child.orelse:
                yield from _module_level_imports(other)
            continue
        if isinstance(child, ast.Import | ast.ImportFrom):
            yield child
        yield from _module_level_imports(child)


def in_cycles(modules: dict[str, Path]) -> set[str]:
    """The modules on a cycle of imports that run at import time (a package and the
    submodules its ``__init__`` imports, at least: a submodule imports its package
    first), and those that import by name at run time, whose imports a reader cannot
    see.  Only these can fail for the order in which modules are first imported: a
    module on no cycle imports what it needs completely before its own code runs."""
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        source = path.read_text(encoding="utf-8")
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found = {name.rpartition(".")[0]} if "." in name else set()
        for node in _module_level_imports(ast.parse(source, str(path))):
            for target in _names(node, package):
                parts = target.split(".")
                found |= {".".join(parts[: n + 1]) for n in range(len(parts))}
        graph[name] = (found & modules.keys()) - {name}
    cyclic = {name for name, path in modules.items() if "import_module(" in path.read_text()}
    for start in graph:
        seen, stack = set(), list(graph[start])
        while stack:
            here = stack.pop()
            if here == start:
                cyclic.add(start)
                break
            if here not in seen:
                seen.add(here)
                stack.extend(graph[here])
    return cyclic


def test_every_module_imports_first() -> None:
    """Each module on an import cycle is imported first, in a fresh interpreter's view
    of the package; then every other module is imported, each once."""
    modules = _module_names(Path(cardroom.__file__).parent)
    assert "cardroom.games.walk" in modules and len(modules) > 100
    fresh = sorted(in_cycles(modules))
    assert {"cardroom.games", "cardroom.games.baccarat.engine"} <= set(fresh)
    rest = sorted(modules.keys() - set(fresh))
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, ",".join(fresh), ",".join(rest)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == ""


def test_the_cycles_are_found() -> None:
    """A package whose ``__init__`` imports its submodules is a cycle with them; a
    module that imports only down the tree is on none."""
    modules = _module_names(Path(cardroom.__file__).parent)
    cyclic = in_cycles(modules)
    assert "cardroom.app.wallet" in cyclic and "cardroom.app.wallet.accounts" in cyclic
    assert "cardroom.core.cards" not in cyclic and "cardroom.web.app" not in cyclic


#: The mark an import inside a function carries: ``# lazy: <the heavy thing it keeps
#: off import>`` (Numba, Ray, Matplotlib, uvicorn and FastAPI, Alembic...).
LAZY = re.compile(r"# lazy: \S")

#: Imports inside functions not marked yet, as (file under src/cardroom, module), in
#: files that another change owns at the moment: an entry goes when its file gains the
#: mark (and this test fails while an entry is no longer needed).
UNMARKED: set[tuple[str, str]] = set()


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _local_imports(
    node: ast.AST, in_function: bool = False
) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements inside function bodies under ``node`` (those under ``if
    TYPE_CHECKING:`` left out: they never run)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _is_type_checking(child.test):
            for other in child.orelse:
                yield from _local_imports_of(other, in_function)
            continue
        yield from _local_imports_of(child, in_function)


def _local_imports_of(node: ast.AST, in_function: bool) -> Iterator[ast.Import | ast.ImportFrom]:
    if in_function and isinstance(node, ast.Import | ast.ImportFrom):
        yield node
    inside = in_function or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    yield from _local_imports(node, inside)


def _imported(node: ast.Import | ast.ImportFrom) -> str:
    if isinstance(node, ast.Import):
        return ", ".join(alias.name for alias in node.names)
    return "." * node.level + (node.module or "")


def test_imports_inside_functions_say_what_they_keep_lazy() -> None:
    root = Path(cardroom.__file__).parent
    unmarked: set[tuple[str, str]] = set()
    seen = 0
    for path in sorted(root.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        where = path.relative_to(root).as_posix()
        for node in _local_imports(ast.parse(source, str(path))):
            seen += 1
            text = lines[node.lineno - 1 : (node.end_lineno or node.lineno)]
            if not any(LAZY.search(line) for line in text):
                unmarked.add((where, _imported(node)))
    assert seen > 10  # the walk finds them (the kernels' imports are lazy)
    assert unmarked - UNMARKED == set(), (
        "an import inside a function: move it to the top of the module, or say what "
        "heavy dependency it keeps lazy with '# lazy: <what>' at the end of its line"
    )
    assert UNMARKED - unmarked == set(), "marked now: take it off UNMARKED"


def _names(node: ast.Import | ast.ImportFrom, package: str) -> list[str]:
    """The modules an import statement in ``package`` names, made absolute (``from a
    import b``: both ``a`` and ``a.b``, as ``b`` may be a module)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    parts = package.split(".")
    base = ".".join(parts[: len(parts) - node.level + 1]) if node.level else ""
    module = ".".join(part for part in (base, node.module or "") if part)
    return [module, *(f"{module}.{alias.name}" for alias in node.names)]


def test_the_analysis_does_not_import_the_simulator() -> None:
    """The simulator uses the exact analysis (its exact column), never the other way."""
    root = Path(cardroom.__file__).parent
    found = []
    for path in sorted((root / "analysis").rglob("*.py")):
        package = ".".join(("cardroom", *path.relative_to(root).parent.parts))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import | ast.ImportFrom):
                found += [
                    f"{path.name}: {name}"
                    for name in _names(node, package)
                    if name == "cardroom.simulation" or name.startswith("cardroom.simulation.")
                ]
    assert found == []
