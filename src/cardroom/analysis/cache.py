"""A disk cache of exact results, keyed by the rules' content and the code that made them.

Some exact analyses take tens of seconds (finnish27's poker bonus); the simulator
shows them beside every run.  They depend only on the game, its rules, the player's
strategy and cardroom's own analysis code, so they are kept on disk under a key made
of exactly those: the rules as TOML, and a digest of the source of the engines and
the analysis.  Change any of them and the key changes; a damaged or unreadable entry
is computed again.  The cache is an optimisation only: when it cannot be written,
nothing fails.

The folder is ``$CARDROOM_CACHE_DIR`` if set, else cardroom's folder in the user's
cache directory.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Mapping
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

import platformdirs

from cardroom.analysis.report import fraction_text
from cardroom.core.rules import rules_to_toml

#: Bumped when the layout of an entry changes.
FORMAT = 1


def cache_dir() -> Path:
    """Where entries are kept."""
    override = os.environ.get("CARDROOM_CACHE_DIR")
    if override:
        return Path(override)
    return Path(platformdirs.user_cache_dir("cardroom")) / "exact"


@cache
def code_digest() -> str:
    """A digest of the source of the core, the engines and the analysis (what results
    depend on)."""
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for folder in ("core", "games", "analysis"):
        for path in sorted((root / folder).rglob("*.py")):
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def cache_key(kind: str, game_id: str, rules: Any, extra: str = "") -> str:
    """The key of a result: what it is, the game, its rules (as TOML), and the code."""
    text = "\n".join(
        [f"format {FORMAT}", kind, game_id, extra, code_digest(), rules_to_toml(rules)]
    )
    return hashlib.sha256(text.encode()).hexdigest()


def cached_fractions(
    kind: str,
    game_id: str,
    rules: Any,
    compute: Callable[[], Mapping[str, Fraction]],
    extra: str = "",
) -> dict[str, Fraction]:
    """``compute()``'s named fractions, from the cache when it has them."""
    key = cache_key(kind, game_id, rules, extra)
    path = cache_dir() / f"{key}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("key") == key:
            return {str(k): Fraction(str(v)) for k, v in data["values"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError, ZeroDivisionError):
        pass
    values = dict(compute())
    entry = {
        "key": key,
        "kind": kind,
        "game": game_id,
        "values": {k: fraction_text(v) for k, v in values.items()},
    }
    _write(path, json.dumps(entry, indent=1))
    return values


def _write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all (another process may read it)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(name, path)
    except OSError:
        return
