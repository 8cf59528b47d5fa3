"""The floors of the code, named once here: a module imports from its own floor and the
floors below it, never from one above (read from every module's syntax tree, imports
inside functions included), and docs/layout.md draws the same floors in the same order.
A migration uses only what it keeps inside the migrations package."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import cardroom

ROOT = Path(cardroom.__file__).parent
DOCS = ROOT.parents[1] / "docs" / "layout.md"

#: the floors, the lowest first, each with its packages (``cardroom`` alone: the
#: package's own ``__init__``, its version)
FLOORS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("core", ("cardroom", "cardroom.core")),
    ("machinery", ("cardroom.analysis", "cardroom.simulation")),
    ("games", ("cardroom.games",)),
    ("storage", ("cardroom.storage",)),
    ("application", ("cardroom.app", "cardroom.gym")),
    ("presentation", ("cardroom.terminal", "cardroom.web")),
)
MIGRATIONS = "cardroom.storage.migrations.versions"
#: what a migration may import of cardroom: what the migrations package keeps, and the
#: storage's errors
MIGRATIONS_USE = ("cardroom.storage.migrations", "cardroom.storage.errors")


def floor_of(module: str) -> int:
    """The floor of ``module`` (the deepest package of :data:`FLOORS` it is in)."""
    found = [
        (len(package), n)
        for n, (_, packages) in enumerate(FLOORS)
        for package in packages
        if module == package or module.startswith(package + ".")
    ]
    assert found, f"{module} is on no floor"
    return max(found)[1]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path) -> list[tuple[int, str]]:
    """Every ``cardroom`` module ``path`` imports, with the line, however deep."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        found += [(node.lineno, name) for name in names if name.split(".")[0] == "cardroom"]
    return found


def upward(paths: list[Path]) -> list[str]:
    """Each import that points up a floor, one line each."""
    found = []
    for path in paths:
        here = module_name(path)
        for line, target in imports(path):
            if floor_of(target) > floor_of(here):
                found.append(
                    f"{path.relative_to(ROOT.parent)}:{line}: {here} ({FLOORS[floor_of(here)][0]}) "
                    f"imports {target} ({FLOORS[floor_of(target)][0]})"
                )
    return found


def test_no_module_imports_from_a_floor_above_its_own() -> None:
    paths = sorted(ROOT.rglob("*.py"))
    assert len(paths) > 100
    assert upward(paths) == []


def test_the_check_sees_an_import_up_a_floor(tmp_path: Path) -> None:
    games = ROOT / "games"
    fake = games / "_floor_probe_do_not_commit.py"
    assert not fake.exists()
    fake.write_text(
        "def f() -> None:\n    from cardroom.app.wallet import Wallet  # lazy: here\n",
        encoding="utf-8",
    )
    try:
        [found] = upward([fake])
    finally:
        fake.unlink()
    assert "(games) imports cardroom.app.wallet (application)" in found
    assert floor_of("cardroom.games.walk") == 2 and floor_of("cardroom.app.runner") == 4
    assert floor_of("cardroom") == 0 and floor_of("cardroom.web.routes.api") == 5


def test_a_migration_uses_only_what_the_migrations_keep() -> None:
    versions = ROOT / "storage" / "migrations" / "versions"
    paths = sorted(versions.glob("v*.py"))
    assert len(paths) >= 6
    found = [
        f"{path.name}:{line}: imports {target}"
        for path in paths
        for line, target in imports(path)
        if not any(target == kept or target.startswith(kept + ".") for kept in MIGRATIONS_USE)
    ]
    assert found == []


def test_the_layout_page_draws_these_floors() -> None:
    """docs/layout.md's drawing: a line a floor, the highest first, each naming its
    packages (``core/`` also holds the package's own ``__init__``)."""
    text = DOCS.read_text(encoding="utf-8")
    drawing = re.search(r"```\n(.*?)```", text, re.S)
    assert drawing is not None
    lines = [line for line in drawing.group(1).splitlines() if line.strip()]
    drawn = [re.findall(r"\b([a-z]+)/", line) for line in lines]
    expected = [
        [p.split(".")[1] for p in packages if p != "cardroom"] for _, packages in reversed(FLOORS)
    ]
    assert drawn == expected
