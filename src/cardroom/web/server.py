"""Running the web table: ``cardroom serve`` (uvicorn on one process).

:func:`run` opens the database (migrating it), reads a rules folder, takes the port and
serves; anything that stops it from starting is a :class:`ServerError` of one line.
Uvicorn's access log writes one line per request.
"""

from __future__ import annotations

import logging
import socket
import sys
from pathlib import Path
from typing import Any

from cardroom.core.rules import RulesError
from cardroom.core.textfile import TextInputError
from cardroom.games import GAMES


class ServerError(ValueError):
    """The server cannot start (a bad address, database or rules folder)."""


def load_rules_dir(folder: Path) -> dict[str, Any]:
    """The rules in ``folder``: ``GAME.toml`` for each game it changes (``punto-banco.toml``...).

    A file that names no game, or that does not load, is a :class:`ServerError`.
    """
    from cardroom.analysis.chemin_de_fer import check_solvable
    from cardroom.games.chemin_de_fer import ChemmyRules

    if not folder.is_dir():
        raise ServerError(f"the rules folder {str(folder)!r} is not a folder")
    rules: dict[str, Any] = {}
    for path in sorted(folder.glob("*.toml")):
        game = GAMES.get(path.stem)
        if game is None:
            raise ServerError(
                f"{path}: no game is called {path.stem!r} (name the file after one of "
                f"{', '.join(GAMES)})"
            )
        try:
            rules[game.id] = game.load_rules(path)
            if isinstance(rules[game.id], ChemmyRules):
                check_solvable(rules[game.id])  # its tables' bots play the solved coup
        except (RulesError, TextInputError, OSError, ValueError) as err:
            message = str(err)
            raise ServerError(message if str(path) in message else f"{path}: {message}") from None
    return rules


def listen(host: str, port: int) -> socket.socket:
    """A socket listening on ``host``:``port`` (a :class:`ServerError` if it cannot)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as err:
        raise ServerError(f"cannot listen on {host}:{port}: {err.strerror}") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as err:
        sock.close()
        reason = "the port is in use" if err.errno == 98 else err.strerror
        raise ServerError(f"cannot listen on {host}:{port}: {reason}") from None
    sock.set_inheritable(True)
    return sock


def address(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


def run(
    host: str,
    port: int,
    db_url: str | None,
    rules_dir: Path | None,
    chemmy_time_limit: float = 30.0,
) -> None:
    """Serve the web table on ``host``:``port`` until stopped (Ctrl-C); a chemin de
    fer seat has ``chemmy_time_limit`` seconds for each decision."""
    import uvicorn

    from cardroom.storage import Database, StorageError
    from cardroom.web.app import create_app

    rules = load_rules_dir(rules_dir) if rules_dir is not None else {}
    try:
        db = Database.open(db_url)
    except StorageError as err:
        raise ServerError(str(err)) from None
    try:
        sock = listen(host, port)
        app = create_app(db, rules, chemmy_time_limit=chemmy_time_limit)
        config = uvicorn.Config(
            app,
            log_level="info",
            access_log=True,
            proxy_headers=True,
            server_header=False,
            timeout_graceful_shutdown=5,
        )
        server = uvicorn.Server(config)
        print(
            f"cardroom is serving the web table at {address(host, port)} "
            f"(database {db.where}; Ctrl-C stops it)",
            file=sys.stderr,
            flush=True,
        )
        logging.getLogger("cardroom.web").setLevel(logging.INFO)
        server.run(sockets=[sock])
    finally:
        db.close()
