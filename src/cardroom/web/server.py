"""Running the web table (placeholder until the web table is built)."""

from __future__ import annotations

from pathlib import Path


class ServerError(ValueError):
    """The server cannot start (a bad address, database or rules folder)."""


def run(host: str, port: int, db_url: str | None, rules_dir: Path | None) -> None:
    """Serve the web table on ``host``:``port``."""
    raise ServerError("the web table is not built yet")
