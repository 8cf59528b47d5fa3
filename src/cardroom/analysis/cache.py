"""A disk cache of exact results, keyed by the rules' content and the code that made them.

Some exact analyses take tens of seconds (finnish27's poker bonus); the simulator
shows them beside every run.  They depend only on the game, its rules, the player's
strategy and cardroom's own analysis code, so they are kept on disk under a key made
of exactly those: the rules (each field's value, as JSON), and a digest of the source
of the engines and the analysis.  Change any of them and the key changes; a damaged or
unreadable entry is computed again.  The cache is an optimisation only: when it cannot
be written, nothing fails.

The folder is ``$CARDROOM_CACHE_DIR`` if set, else cardroom's folder in the user's
cache directory; ``$CARDROOM_NO_CACHE`` set (to anything but the empty string) turns
the cache off: every result is computed (the benchmarks time the count that way).

Besides each wager's mean (:func:`cached_fractions`), the real shoe's counts of the
Finnish games are kept here (:func:`cached_json`, from
:mod:`cardroom.games.finnish.shoe_cache`): whole numbers of card sequences per result,
from which every exact figure is made again the same way, so that a figure read from
the cache is the very fraction the count gives.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

import platformdirs

from cardroom.analysis.report import fraction_text
from cardroom.core.rules import rules_to_dict

#: Bumped when the layout of an entry changes.
FORMAT = 1

T = TypeVar("T")


def enabled() -> bool:
    """Whether results are kept and read (``$CARDROOM_NO_CACHE`` unset or empty)."""
    return not os.environ.get("CARDROOM_NO_CACHE")


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
    """The key of a result: what it is, the game, its rules, and the code.

    The rules are written as :func:`~cardroom.core.rules.rules_to_dict` gives them, in
    JSON with sorted keys: what their TOML holds, without TOML's writer (its import and
    its work were 8 ms of a simulation's parent process while the workers deal)."""
    written = json.dumps(rules_to_dict(rules), sort_keys=True, ensure_ascii=False)
    text = "\n".join([f"format {FORMAT}", kind, game_id, extra, code_digest(), written])
    return hashlib.sha256(text.encode()).hexdigest()


def cached_fractions(
    kind: str,
    game_id: str,
    rules: Any,
    compute: Callable[[], Mapping[str, Fraction]],
    extra: str = "",
) -> dict[str, Fraction]:
    """``compute()``'s named fractions, from the cache when it has them."""
    if not enabled():
        return dict(compute())
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


def cached_json(
    kind: str,
    parts: Sequence[str],
    compute: Callable[[], T],
    encode: Callable[[T], Any],
    decode: Callable[[Any], T],
) -> T:
    """``compute()``, from the cache when it has it: the key is ``kind``, the code
    (:func:`code_digest`) and ``parts`` (everything the result depends on, as text);
    ``encode`` makes the result JSON (whole numbers of any size are kept exactly) and
    ``decode`` makes it again.  An entry that cannot be read or decoded is computed
    again."""
    if not enabled():
        return compute()
    text = "\n".join([f"format {FORMAT}", kind, code_digest(), *parts])
    key = hashlib.sha256(text.encode()).hexdigest()
    path = cache_dir() / f"{key}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("key") == key:
            return decode(data["value"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError, IndexError):
        pass
    value = compute()
    _write(path, json.dumps({"key": key, "kind": kind, "value": encode(value)}))
    return value


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
