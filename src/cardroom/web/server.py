"""Running the web table: ``cardroom serve``, on one process or on several.

:func:`run` reads a rules folder, opens the database (migrating it) and checks that it
can write to it, takes the port and serves; anything that stops it from starting is a
:class:`ServerError` of one line.  Uvicorn's access log writes one line per request.

With ``workers`` above one, uvicorn's own supervisor (``uvicorn.supervisors.Multiprocess``,
as :class:`Balanced`) starts that many worker processes on the port taken here, each
building the app with :class:`AppFactory` from the same options (the database URL, the
rules folder, the time limit); it restarts a worker that dies, and Ctrl-C (or SIGTERM)
stops them all.  On Linux each worker listens on a socket of its own on the port
(``SO_REUSEPORT``), so that the kernel shares the connections out evenly
(:func:`listen_each`).  Each access log line then names the process that served it.
"""

from __future__ import annotations

import copy
import gc
import logging
import pickle
import socket
import sys
import time
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
from uvicorn.supervisors.multiprocess import Process

from cardroom.core.rules import RulesError
from cardroom.core.textfile import TextInputError
from cardroom.games import GAMES
from cardroom.storage import Database, StorageError
from cardroom.storage.schema import login_failures, metadata
from cardroom.web.app import create_app
from cardroom.web.passwords import MAX_WAITING, PARAMETERS, shared_pool

log = logging.getLogger("cardroom.web")
#: uvicorn's own log, where its supervisor says what it does with the workers
uvicorn_log = logging.getLogger("uvicorn.error")


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


#: The connections waiting to be accepted on a listening socket.
BACKLOG = 2048


def listen(host: str, port: int, *, share: bool = False) -> socket.socket:
    """A socket listening on ``host``:``port`` (a :class:`ServerError` if it cannot);
    ``share``: with ``SO_REUSEPORT``, so that other such sockets of this user may listen
    on the same port (the kernel then shares the new connections out among them)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as err:
        raise ServerError(f"cannot listen on {host}:{port}: {err.strerror}") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if share:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind(address)
        sock.listen(BACKLOG)
    except OSError as err:
        sock.close()
        reason = "the port is in use" if err.errno == 98 else err.strerror
        raise ServerError(f"cannot listen on {host}:{port}: {reason}") from None
    sock.set_inheritable(True)
    return sock


#: Whether the kernel shares connections out among sockets listening on one port with
#: ``SO_REUSEPORT`` (Linux does; elsewhere the option means something else).
BALANCES = sys.platform.startswith("linux") and hasattr(socket, "SO_REUSEPORT")


def listen_each(host: str, port: int, count: int) -> list[socket.socket]:
    """``count`` sockets listening on ``host``:``port``, one for each worker process,
    that the kernel shares the new connections out among (``SO_REUSEPORT``).

    One socket shared by the workers shares them out badly: every worker wakes up for
    a connection and uvloop accepts all that are waiting at once, so under a crowd one
    worker took 162 of 208 connections and its requests waited while the other idled.
    The port must be free (another server's sockets with the option would otherwise
    take a share): a plain socket is bound to it first.
    """
    probe = listen(host, port)
    if port == 0:
        port = probe.getsockname()[1]
    probe.close()
    sockets: list[socket.socket] = []
    try:
        for _ in range(count):
            sockets.append(listen(host, port, share=True))
    except ServerError:
        for sock in sockets:
            sock.close()
        raise
    return sockets


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
    #: anyone signed in may play a lab variant at a table of their own
    own_variant_tables: bool = False


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
        own_variant_tables=options.own_variant_tables,
    )
    services = app.state.services
    inner = app.router.lifespan_context

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[Any]:
        try:
            async with inner(app) as state:
                settle_memory()
                yield state
        finally:
            log.info("%s", services.passwords.stats())
            services.passwords.close()
            if owned:
                db.close()

    app.router.lifespan_context = lifespan
    return app


def settle_memory() -> None:
    """Put every object alive once a server process has started (its modules, the
    games, the app: some 170,000 of them) out of the garbage collector's reach for
    good (:func:`gc.freeze`).  A full collection otherwise walks them all, 50 to 100 ms
    of a core with the process stopped, and every answer under way waits as long;
    after this it walks only what was made since.  What is frozen is still freed when
    nothing refers to it, but never as part of a cycle: only a served process does
    this, once, when it starts (not the tests' apps, made and dropped by the hundred)."""
    gc.collect()
    gc.freeze()


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


def answers(process: Process, timeout: float) -> bool:
    """Is the worker alive, and does it answer a health check within ``timeout``?  As
    uvicorn's ``Process.is_alive``, but the wait for the answer ends as soon as the
    worker is seen to be gone: one killed just before the check (its exit not yet
    visible) is replaced at once, not after the whole timeout (a minute: a worker takes
    seconds to start on a busy machine)."""
    if not process.process.is_alive():
        return False
    deadline = time.monotonic() + timeout
    try:
        process.parent_conn.send(b"ping")
        while not process.parent_conn.poll(0.1):
            if not process.process.is_alive() or time.monotonic() > deadline:
                return False
        process.parent_conn.recv()
    except (OSError, EOFError, pickle.UnpicklingError):
        return False
    return True


class Balanced(Multiprocess):
    """uvicorn's supervisor (``uvicorn.supervisors.Multiprocess``: it starts the workers,
    replaces one that dies or hangs, and stops them all on Ctrl-C or SIGTERM) with a
    listening socket of each worker's own: worker ``i`` serves ``sockets[i]`` (see
    :func:`listen_each`), and its replacement the same socket, which holds the
    connections that come meanwhile.  SIGTTIN adds a worker on a new socket, SIGTTOU
    stops the last one and closes its socket."""

    def __init__(self, config: uvicorn.Config, sockets: list[socket.socket]) -> None:
        super().__init__(config, sockets)
        self.own = list(sockets)
        self.where = sockets[0].getsockname()

    def _start(self, index: int) -> Process:
        process = Process(self.config, [self.own[index]])
        process.start()
        return process

    def init_processes(self) -> None:
        for index in range(self.processes_num):
            self.processes.append(self._start(index))

    def keep_subprocess_alive(self) -> None:
        if self.should_exit.is_set():
            return
        for index, process in enumerate(self.processes):
            if answers(process, timeout=self.config.timeout_worker_healthcheck):
                continue
            process.kill()  # hung
            process.join()
            if process.exitcode == STARTUP_FAILURE:
                # it failed before serving (the app, the database): so would the next
                uvicorn_log.error(
                    f"Child process [{process.pid}] failed to start, stopping the parent process."
                )
                self.should_exit.set()
                return
            if self.should_exit.is_set():
                return
            uvicorn_log.info(f"Child process [{process.pid}] died")
            self.processes[index] = self._start(index)

    def restart_all(self) -> None:
        """SIGHUP: each worker replaced in turn, its replacement serving first."""
        for index, old in enumerate(self.processes):
            if self.should_exit.is_set():
                return
            new = self._start(index)
            if not new.wait_until_ready(self.config.timeout_worker_healthcheck, self.should_exit):
                new.kill()
                new.join()
                if not self.should_exit.is_set():
                    uvicorn_log.error(
                        f"New child process [{new.pid}] was not ready in time; "
                        f"keeping worker [{old.pid}] and aborting the restart."
                    )
                return
            old.terminate()
            old.join()
            self.processes[index] = new

    def handle_ttin(self) -> None:
        uvicorn_log.info("Received SIGTTIN, increasing the number of processes.")
        try:
            self.own.append(listen(self.where[0], self.where[1], share=True))
        except ServerError as err:
            uvicorn_log.error(f"{err}; the processes stay as they are")
            return
        self.processes_num += 1
        self.processes.append(self._start(len(self.own) - 1))

    def handle_ttou(self) -> None:
        uvicorn_log.info("Received SIGTTOU, decreasing number of processes.")
        if self.processes_num <= 1:
            uvicorn_log.info(
                "Already reached one process, cannot decrease the number of processes anymore."
            )
            return
        self.processes_num -= 1
        process = self.processes.pop()
        process.terminate()
        process.join()
        self.own.pop().close()


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
    own_variant_tables: bool = False,
) -> None:
    """Serve the web table on ``host``:``port`` until stopped (Ctrl-C) in ``workers``
    processes; a chemin de fer seat has ``chemmy_time_limit`` seconds for each decision.
    ``forwarded_allow_ips``: the proxies whose ``X-Forwarded-For`` gives the client's
    address (uvicorn's setting; by default ``FORWARDED_ALLOW_IPS`` or the loopback).
    ``password_queue``: the sign-ins that may wait for a password check beyond those
    running (more are refused at once).  ``keep_alive``: the seconds an idle connection
    is kept for its next request (see :data:`KEEP_ALIVE`).  ``own_variant_tables``:
    anyone signed in may play a lab variant at a table of their own, for the wallet's
    money, at payouts and a shoe they chose (a designer's server; a room leaves it off
    and puts the variants it offers on public tables)."""
    options = Options(db_url, rules_dir, chemmy_time_limit, password_queue, own_variant_tables)
    rules = load_rules_dir(rules_dir) if rules_dir is not None else {}
    try:
        db = Database.open(db_url)
    except StorageError as err:
        raise ServerError(str(err)) from None
    try:
        check_writable(db)
        sockets = listen_each(host, port, workers) if workers > 1 and BALANCES else []
        sock = sockets[0] if sockets else listen(host, port)
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
            if sockets:
                Balanced(config, sockets).run()
            else:
                Multiprocess(config, sockets=[sock]).run()
    finally:
        db.close()
