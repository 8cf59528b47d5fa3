"""Writes docs/notebooks/paytables.ipynb, the example notebook of cardroom's data frames,
and runs it so that the stored copy shows its tables and its plot (the tests run it again
from the top: tests/app/test_notebook.py).

    .venv/bin/python scripts/make_notebook.py
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).resolve().parents[1] / "docs" / "notebooks" / "paytables.ipynb"

CELLS: list[tuple[str, str]] = [
    (
        "markdown",
        "# Two paytables of punto banco, exactly\n\n"
        "A variant read from a rules file (a tie paying 9 to 1 instead of 8 to 1) beside "
        "the standard game: each analysed exactly from the real eight-deck shoe, as "
        "pandas DataFrames (`cardroom.app.frames`), and the house edges of both plotted.",
    ),
    (
        "code",
        "import tempfile\n"
        "from pathlib import Path\n\n"
        "import matplotlib.pyplot as plt\n"
        "import pandas as pd\n\n"
        "from cardroom.app.frames import lines_frame, wagers_frame\n"
        "from cardroom.games import GAMES\n"
        "from cardroom.games.spec import AnalysisAsk\n\n"
        'game = GAMES["punto-banco"]\n'
        'variant_file = Path(tempfile.mkdtemp()) / "tie-9.toml"\n'
        'variant_file.write_text("tie_pays = 9\\n")\n'
        "tables = {\n"
        '    "standard": game.default_rules(),\n'
        '    "tie pays 9:1": game.load_rules(variant_file),\n'
        "}",
    ),
    (
        "code",
        "edges = pd.concat(\n"
        "    {\n"
        "        name: wagers_frame(game.analyze(rules, AnalysisAsk()).report)\n"
        "        for name, rules in tables.items()\n"
        "    },\n"
        '    names=["paytable", "wager"],\n'
        ")\n"
        'edges[["house_edge", "hit_frequency", "std_dev"]]',
    ),
    (
        "markdown",
        "Every figure is also kept exact, as a `Fraction`. The better payout gives the "
        "player one more unit on each tie, so the two edges differ by exactly the chance "
        "of a tie.",
    ),
    (
        "code",
        'tie = edges.xs("tie", level="wager")["house_edge_exact"]\n'
        'chance_of_a_tie = edges.loc[("standard", "tie"), "hit_frequency_exact"]\n'
        "print(tie.to_dict())\n"
        'print(tie["standard"] - tie["tie pays 9:1"] == chance_of_a_tie, chance_of_a_tie)',
    ),
    (
        "code",
        'lines = lines_frame(game.analyze(tables["tie pays 9:1"], AnalysisAsk()).report)\n'
        'lines[lines["wager"] == "tie"]',
    ),
    (
        "code",
        'plotted = edges["house_edge"].unstack("paytable") * 100\n'
        "axes = plotted.plot.bar(rot=0, figsize=(7, 3.5))\n"
        'axes.set_ylabel("house edge, % of the stake")\n'
        'axes.set_title("punto banco: two paytables, exact edges")\n'
        "axes.axhline(0, color='black', linewidth=0.6)\n"
        "plt.tight_layout()",
    ),
]


def build() -> nbformat.NotebookNode:
    """The notebook, not yet run."""
    notebook: nbformat.NotebookNode = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    for kind, text in CELLS:
        if kind == "markdown":
            notebook.cells.append(nbformat.v4.new_markdown_cell(text))
        else:
            notebook.cells.append(nbformat.v4.new_code_cell(text))
    return notebook


def execute(notebook: nbformat.NotebookNode, folder: Path) -> nbformat.NotebookNode:
    """``notebook`` run from the top in a Jupyter kernel, in ``folder``."""
    NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(folder)}}
    ).execute()
    return notebook


def main() -> None:
    notebook = execute(build(), NOTEBOOK.parent)
    for n, cell in enumerate(notebook.cells):
        cell["id"] = f"cell-{n}"  # stable ids: the file changes only when a cell does
    nbformat.write(notebook, NOTEBOOK)
    print(f"wrote {NOTEBOOK}")


if __name__ == "__main__":
    main()
