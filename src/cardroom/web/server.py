"""Running the web table: ``cardroom serve``, on one process or on several.

:func:`run` reads a rules folder, opens the database (migrating it) and checks that it
can write to it, takes the port and serves; anything that stops it from starting is a
:class:`ServerError` of one line.  Uvicorn's access log writes one line per request.

With ``workers`` above one, uvicorn's own supervisor (``uvicorn.supervisors.Multiprocess``)
starts that many worker processes on the port taken here, each building the app with
:class:`AppFactory` from the same options (the database URL, the rules folder, the time
limit); it restarts a worker that dies, and Ctrl-C (or SIGTERM) stops them all.  Each
access log line then names the process that served it.
"""

from __future__ import annotations

import copy
import logging
import socket
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import uvicorn
from fastapi import FastAPI
from sqlalchemy import false, update
from uvicorn.config import LOGGING_CONFIG, STARTUP_FAILURE
from uvicorn.supervisors import Multiprocess

from cardroom.core.rules import RulesError
from cardroom.core.textfile import TextInputError
from cardroom.games import GAMES
from cardroom.storage import Database, StorageError
from cardroom.storage.schema import login_failures, metadata
from cardroom.web.app import create_app
from cardroom.web.passwords import MAX_WAITING, PARAMETERS, shared_pool

log = logging.getLogger("cardroom.web")


class ServerError(ValueError):
    """The server cannot start (a bad address, database or rules folder)."""


def load_rules_dir(folder: Path) -> dict[str, Any]:
    """The rules in ``folder``: ``GAME.toml`` for each game it changes (``punto-banco.toml``...).

    A file that names no game, or that does not load, is a :class:`ServerError`.
    """
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
            if game.check is not None:
                game.check(rules[game.id])
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


@dataclass(frozen=True)
class Options:
    """What every server process builds its app from."""

    db_url: str | None
    rules_dir: Path | None
    chemmy_time_limit: float = 30.0
    #: sign-ins that may wait for a password check beyond those running
    password_queue: int = MAX_WAITING


def check_writable(db: Database) -> None:
    """Refuse a database this server cannot write to (a read-only file, a user without
    the rights), with one line: a real write to each table, rolled back."""

    class RolledBack(Exception):
        pass

    try:
        with db.write() as conn:
            now = datetime.now(UTC)
            conn.execute(login_failures.insert().values(name_key="", address="", created_at=now))
            for table in metadata.sorted_tables:  # the right to change each (nothing does)
                first = next(iter(table.columns))
                conn.execute(update(table).where(false()).values({first.name: first}))
            raise RolledBack
    except RolledBack:
        return
    except StorageError as err:
        raise ServerError(f"the web table cannot write to its database: {err}") from None


def build_app(
    options: Options, db: Database | None = None, rules: dict[str, Any] | None = None
) -> FastAPI:
    """The web table of ``options`` on ``db`` (else opened here, and closed with the
    app) with ``rules`` (else read from the options' folder)."""
    if rules is None:
        rules = load_rules_dir(options.rules_dir) if options.rules_dir is not None else {}
    owned = db is None
    db = db if db is not None else Database.open(options.db_url)
    app = create_app(
        db,
        rules,
        chemmy_time_limit=options.chemmy_time_limit,
        passwords=shared_pool(PARAMETERS, waiting=options.password_queue),
    )
    services = app.state.services
    inner = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[Any]:
        try:
            async with inner(app) as state:
                yield state
        finally:
            log.info("%s", services.passwords.stats())
            services.passwords.close()
            if owned:
                db.close()

    app.router.lifespan_context = lifespan
    return app


class AppFactory:
    """Builds the app in a worker process (uvicorn calls it there); pickled to the
    workers with its options.  What stops it is one line in the log, and the
    supervisor stops rather than start it again and again."""

    def __init__(self, options: Options) -> None:
        self.options = options

    def __call__(self) -> FastAPI:
        try:
            return build_app(self.options)
        except (ServerError, StorageError) as err:
            log.error("%s", err)
            sys.exit(STARTUP_FAILURE)


def log_config(workers: int) -> dict[str, Any]:
    """uvicorn's logging, with cardroom's own log lines (and with several workers, each
    access line saying which process served it)."""
    config = copy.deepcopy(LOGGING_CONFIG)
    config["loggers"]["cardroom"] = {"handlers": ["default"], "level": "INFO", "propagate": False}
    if workers > 1:
        access = config["formatters"]["access"]
        access["fmt"] = access["fmt"].replace("%(levelprefix)s", "%(levelprefix)s [%(process)d]")
    return config


#: The seconds an idle keep-alive connection is kept open.  uvicorn's own 5 s closed
#: connections that clients and proxies still held to reuse: a request sent as the close
#: came was reset (seen under load, on the second request of a reused connection).
#: Longer than the idle limits of the proxies and clients in front (nginx keeps an idle
#: upstream connection 60 s), so that they close first.
KEEP_ALIVE = 75

#: How long, in seconds, uvicorn's supervisor waits for a worker of ``--workers N`` to
#: answer its health check before taking it for hung (uvicorn's own default, 5 s, is
#: about what a worker takes to import cardroom).
WORKER_HEALTHCHECK = 60


def run(
    host: str,
    port: int,
    db_url: str | None,
    rules_dir: Path | None,
    chemmy_time_limit: float = 30.0,
    workers: int = 1,
    forwarded_allow_ips: str | None = None,
    password_queue: int = MAX_WAITING,
    keep_alive: int = KEEP_ALIVE,
) -> None:
    """Serve the web table on ``host``:``port`` until stopped (Ctrl-C) in ``workers``
    processes; a chemin de fer seat has ``chemmy_time_limit`` seconds for each decision.
    ``forwarded_allow_ips``: the proxies whose ``X-Forwarded-For`` gives the client's
    address (uvicorn's setting; by default ``FORWARDED_ALLOW_IPS`` or the loopback).
    ``password_queue``: the sign-ins that may wait for a password check beyond those
    running (more are refused at once).  ``keep_alive``: the seconds an idle connection
    is kept for its next request (see :data:`KEEP_ALIVE`)."""
    options = Options(db_url, rules_dir, chemmy_time_limit, password_queue)
    rules = load_rules_dir(rules_dir) if rules_dir is not None else {}
    try:
        db = Database.open(db_url)
    except StorageError as err:
        raise ServerError(str(err)) from None
    try:
        check_writable(db)
        sock = listen(host, port)
        settings: dict[str, Any] = {
            "log_level": "info",
            "log_config": log_config(workers),
            "access_log": True,
            "proxy_headers": True,
            "forwarded_allow_ips": forwarded_allow_ips,
            "server_header": False,
            "timeout_graceful_shutdown": 5,
            "timeout_keep_alive": keep_alive,
        }
        where = db.where
        processes = f" in {workers} worker processes" if workers > 1 else ""
        print(
            f"cardroom is serving the web table at {address(host, port)}{processes} "
            f"(database {where}; Ctrl-C stops it)",
            file=sys.stderr,
            flush=True,
        )
        if workers == 1:
            app = build_app(options, db, rules)
            uvicorn.Server(uvicorn.Config(app, **settings)).run(sockets=[sock])
        else:
            db.close()  # each worker opens its own
            # uvicorn's supervisor takes a worker that does not answer its ping within
            # 5 s for hung and replaces it; a worker spends about 4 s importing cardroom
            # before it can answer, more on a busy machine, so they were killed while
            # starting, in a loop
            settings["timeout_worker_healthcheck"] = WORKER_HEALTHCHECK
            config = uvicorn.Config(AppFactory(options), factory=True, workers=workers, **settings)
            Multiprocess(config, sockets=[sock]).run()
    finally:
        db.close()
