"""Every module of the package imports on its own, first: no import cycle hides behind
the order in which the rest of the suite happens to import things."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import cardroom

SCRIPT = """
import importlib, sys
failed = []
for name in sys.argv[1:]:
    for loaded in [m for m in sys.modules if m == "cardroom" or m.startswith("cardroom.")]:
        del sys.modules[loaded]
    try:
        importlib.import_module(name)
    except Exception as err:
        failed.append(f"{name}: {type(err).__name__}: {err}")
print("\\n".join(failed))
"""


def test_every_module_imports_first() -> None:
    root = Path(cardroom.__file__).parent
    names = sorted(
        ".".join(("cardroom", *path.relative_to(root).with_suffix("").parts)).removesuffix(
            ".__init__"
        )
        for path in root.rglob("*.py")
        if "migrations" not in path.parts
    )
    assert "cardroom.analysis.walk" in names and len(names) > 100
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, *names], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == ""
