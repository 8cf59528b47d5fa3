"""The documentation site builds: ``mkdocs build --strict`` (a link or an anchor that is
not there, a page left out of the navigation or a module the API reference names that
does not exist fails it), with its pages, its search index and its screenshots; and every
name a reference page lists is there, with a docstring (docs/contributing.md, "The
public API").

The build takes some 10 s, on one worker.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import griffe
import pytest

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "docs" / "reference"

pytestmark = pytest.mark.xdist_group("docs-site")


def load_script() -> ModuleType:
    """``scripts/docs_site.py``, the site's build helpers (a script, not the package)."""
    path = ROOT / "scripts" / "docs_site.py"
    spec = importlib.util.spec_from_file_location("cardroom_docs_site", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


docs_site = load_script()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert built.returncode == 0, f"mkdocs build --strict failed:\n{built.stdout}{built.stderr}"
    return out


def test_the_site_builds_with_its_pages_search_and_screenshots(site: Path) -> None:
    home = (site / "index.html").read_text(encoding="utf-8")
    for png in sorted((ROOT / "docs").glob("*.png")):
        assert (site / png.name).is_file()
    assert 'src="web-baccarat27.png"' in home and 'src="web-21-24-27-phone.png"' in home
    for page in ("playing", "analysis", "simulation", "contributing", "reference/games"):
        assert (site / page / "index.html").is_file(), page
    # the GitHub reader's way back to the README is not on the site
    playing = (site / "playing" / "index.html").read_text(encoding="utf-8")
    assert "Back to the README" not in playing and "README.md" not in playing
    index = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    places = {doc["location"].partition("#")[0] for doc in index["docs"]}
    assert {"", "playing/", "reference/games/"} <= places
    game_spec = "reference/games/#cardroom.games.spec.GameSpec"
    assert any(doc["location"] == game_spec for doc in index["docs"])


def test_the_reference_renders_docstrings_as_markdown(site: Path) -> None:
    games = (site / "reference" / "games" / "index.html").read_text(encoding="utf-8")
    assert 'id="cardroom.games.get_game"' in games
    # a role is a link where its target is in the reference, code where it is not
    assert not re.search(r":(class|func|mod|meth|data|attr):`", games)
    assert 'href="#cardroom.games.spec.GameSpec"' in games
    # a #: comment describes its attribute
    assert "description (its rules type unknown to the caller)" in games
    report = (site / "reference" / "analysis" / "index.html").read_text(encoding="utf-8")
    assert '<span class="gp">&gt;&gt;&gt; </span>' in report  # a doctest is a Python code block


# -- the names the reference lists ------------------------------------------------------
BLOCK = re.compile(r"^::: (?P<path>[\w.]+)\n(?P<options>(?:    .*\n)*)", re.MULTILINE)
MEMBERS = re.compile(r"^\s+members: \[(?P<names>[^\]]*)\]", re.MULTILINE)


def listed() -> list[tuple[str, str, list[str]]]:
    """Each ``::: module`` block of the reference: its page, its path, the members it
    picks (none: the module's own public names)."""
    found = []
    for page in sorted(REFERENCE.glob("*.md")):
        for block in BLOCK.finditer(page.read_text(encoding="utf-8")):
            members = MEMBERS.search(block["options"])
            names = [n.strip() for n in members["names"].split(",")] if members else []
            found.append((page.name, block["path"], names))
    return found


#: public names that have no docstring yet (give one a docstring and take it off here)
UNDOCUMENTED = frozenset(
    {
        "cardroom.games.GAMES",
        "cardroom.games.walk.Distribution",
        "cardroom.games.finnish.finnish27.GAME_ID",
        "cardroom.games.finnish.twentyone_24_27.GAME_ID",
        "cardroom.games.finnish.twentyone_24_27.BASIC_STRATEGY",
        "cardroom.games.finnish.shoe.Effects",
        "cardroom.games.baccarat.baccarat27_rules",
        "cardroom.games.baccarat.punto_banco_rules",
        "cardroom.games.chemin_de_fer.GAME_ID",
        "cardroom.games.chemin_de_fer.HANDS",
        "cardroom.games.chemin_de_fer.Amount",
        "cardroom.games.chemin_de_fer.Phase",
        "cardroom.games.chemin_de_fer.chemmy_rules",
        "cardroom.core.events.NO_REASON",
        "cardroom.core.events.Event",
        "cardroom.app.wallet.Account",
    }
)


@pytest.fixture(scope="module")
def package() -> griffe.Module:
    """The package as the reference reads it (statically, docstrings made Markdown)."""
    extensions = griffe.load_extensions(docs_site.SphinxDocstrings)
    loaded = griffe.load("cardroom", search_paths=[ROOT / "src"], extensions=extensions)
    assert isinstance(loaded, griffe.Module)
    return loaded


def test_every_listed_name_is_there_with_a_docstring(package: griffe.Module) -> None:
    blocks = listed()
    assert {path for _, path, _ in blocks} >= {
        "cardroom.games",
        "cardroom.analysis.report",
        "cardroom.simulation.kernel",
        "cardroom.app.wallet",
    }
    missing = []
    for page, path, picked in blocks:
        module = package[path.removeprefix("cardroom.")]
        # a module shown whole: the names of its __all__ (a package's re-exports)
        names = picked or [str(name) for name in module.exports or ()]
        for name in names:
            if name not in module.members:
                missing.append(f"{page}: {path}.{name} is not there")
            elif not module.members[name].docstring and f"{path}.{name}" not in UNDOCUMENTED:
                missing.append(f"{page}: {path}.{name} has no docstring")
    assert missing == []


# -- the helpers ----------------------------------------------------------------------------
def test_sphinx_docstrings_become_markdown(package: griffe.Module) -> None:
    games = package["games"]
    text = docs_site.markdown_of(
        games,
        package,
        "See :class:`GameSpec`, :func:`~cardroom.games.walk.exact` and "
        ":mod:`.finnish`::\n\n    code\n\n>>> 1 + 1\n2\n",
    )
    assert '<autoref identifier="cardroom.games.spec.GameSpec" optional>' in text
    assert '<autoref identifier="cardroom.games.walk.exact" optional><code>exact()</code>' in text
    assert '<autoref identifier="cardroom.games.finnish" optional><code>finnish</code>' in text
    assert "```text\ncode\n```" in text and "```pycon\n>>> 1 + 1\n2\n```" in text


def test_the_site_leaves_out_only_the_way_back_to_the_readme() -> None:
    page = (
        "# Page\n\n[Back to the README](../README.md)\n\n"
        "See [the tools](../README.md#the-tools), not `[it](../README.md)`.\n\n"
        "| a | b |\n|---|---|\n| `x \\| y` | x \\| y |\n"
    )
    shown = docs_site.on_page_markdown(page, None, None, None)
    assert shown == (
        "# Page\n\nSee [the tools](index.md), not `[it](../README.md)`.\n\n"
        "| a | b |\n|---|---|\n| `x | y` | x \\| y |\n"
    )
