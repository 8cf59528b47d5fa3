"""The example notebook (docs/notebooks/paytables.ipynb) runs from the top in a real
Jupyter kernel and finds what it says: the tie's exact edges of both paytables, which
differ by exactly the chance of a tie; and the copy in docs/ is the one
scripts/make_notebook.py writes (run it after changing the cells)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import nbformat

ROOT = Path(__file__).resolve().parents[2]


def _script() -> ModuleType:
    path = ROOT / "scripts" / "make_notebook.py"
    spec = importlib.util.spec_from_file_location("cardroom_make_notebook", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_example_notebook_runs_and_shows_the_exact_edges(tmp_path: Path) -> None:
    script = _script()
    stored = nbformat.read(script.NOTEBOOK, as_version=4)
    built = script.build()
    assert [(c.cell_type, c.source) for c in stored.cells] == [
        (c.cell_type, c.source) for c in built.cells
    ], "docs/notebooks/paytables.ipynb is stale: run scripts/make_notebook.py"
    ran = script.execute(built, tmp_path)
    errors = [o for c in ran.cells for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors, errors
    printed = "".join(
        o.text for c in ran.cells for o in c.get("outputs", []) if o.output_type == "stream"
    )
    assert "Fraction(103841353768, 723147898655)" in printed  # 8:1, 14.36%
    assert "Fraction(63053127805, 1301666217579)" in printed  # 9:1, 4.84%
    assert "True 619306544887/6508331087895" in printed
    images = [
        o for c in ran.cells for o in c.get("outputs", []) if "image/png" in o.get("data", {})
    ]
    assert len(images) == 1
