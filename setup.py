"""The package's build, as pyproject.toml declares it, with one addition: the wheel and
the sdist record the commit they are built from (cardroom/_commit.txt, which
``cardroom --version`` prints), since an installed package has no git to ask."""

from __future__ import annotations

import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

sys.path.insert(0, str(Path(__file__).resolve().parent / "src"))
from cardroom import COMMIT_FILE, build_commit


def _record(folder: Path) -> None:
    commit = build_commit()
    if commit is not None and folder.is_dir():
        (folder / COMMIT_FILE).write_text(commit + "\n", encoding="ascii")


class BuildPy(build_py):
    """build_py, then the commit beside the built package."""

    def run(self) -> None:
        super().run()
        _record(Path(self.build_lib) / "cardroom")


class Sdist(sdist):
    """sdist, with the commit in the source tree it packs (the wheel built from it
    finds it there)."""

    def make_release_tree(self, base_dir: str, files: list[str]) -> None:
        super().make_release_tree(base_dir, files)
        _record(Path(base_dir) / "src" / "cardroom")


setup(cmdclass={"build_py": BuildPy, "sdist": Sdist})
