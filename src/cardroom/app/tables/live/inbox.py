"""The owner's inbox: the other processes' connections to a live table, and their
commands.

A process that does not drive a table forwards its connections' seats, leavings and
decisions to the owner as commands (:meth:`~cardroom.app.tables.live.link.Link.send`),
and notes each connection it holds there (its presence).  The owner reads both when
woken (a ``NOTIFY``) or every poll while other processes live, carries each command out
under the table's lock and answers it (in the step's transaction where there is one).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

from cardroom.app.tables.live.base import ANSWER_SLACK, DATABASE_FAILED, Connection, Refused
from cardroom.app.tables.live.link import HEARTBEAT, Command, CommandGone, LeaseLost, Presence
from cardroom.app.wallet import Account
from cardroom.core.money import parse_amount
from cardroom.storage import StorageError

if TYPE_CHECKING:
    from cardroom.app.tables.live.table import LiveChemmy

log = logging.getLogger("cardroom.tables")


class Inbox:
    """Reads and carries out what other processes send one live table's owner."""

    def __init__(self, live: LiveChemmy) -> None:
        self.live = live
        #: commands being carried out, or carried out, while this process owns the table
        self.handled: set[int] = set()

    async def run(self) -> None:
        """(The owner.)  Read the other processes' connections to the table and their
        commands, when woken (NOTIFY) or every poll while other processes live."""
        live = self.live
        while live.owner:
            woken = False
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self._poll()):
                    await live.inbox_wake.wait()
                woken = True
            live.inbox_wake.clear()
            if not live.owner:
                return
            if not live.recovered or (not woken and not live.hub.others and not live.remote):
                continue
            try:
                commands, present = await asyncio.to_thread(live.link.table_inbox, live.spec.id)
            except StorageError as err:
                log.warning("chemin de fer table %s: reading its inbox: %s", live.spec.id, err)
                await asyncio.sleep(1)
                continue
            async with live.lock:
                if not live.owner:
                    return
                await self._presence(present)
            for command in commands:
                if command.id not in self.handled:
                    self.handled.add(command.id)
                    asyncio.get_running_loop().create_task(self._handle(command))

    def _poll(self) -> float:
        live = self.live
        if live.hub.others or live.remote:
            return live.link.poll
        return HEARTBEAT

    async def _presence(self, present: Sequence[Presence]) -> None:
        """(Under the lock.)  The other processes' connections are these now."""
        live = self.live
        seen = {(p.process, p.connection): p for p in present}
        gone = [key for key in live.remote if key not in seen]
        new = [
            Connection(p.account_id, p.name, id=p.connection, process=p.process)
            for key, p in seen.items()
            if key not in live.remote
        ]
        if not gone and not new:
            return
        before = live.connected()
        for key in gone:
            del live.remote[key]
        for conn in new:
            live.remote[(str(conn.process), conn.id)] = conn
        live.mark_away()
        seated = {held.account_id for held in live.table.seats if held.is_person}
        changed = (before ^ live.connected()) & seated
        await live.steps.push_now(None if changed else new)
        if changed:
            live.wake.set()

    async def _handle(self, command: Command) -> None:
        """(The owner.)  Carry out a command of another process and answer it."""
        live = self.live
        body = command.body
        name = str(body.get("name", ""))
        try:
            if command.kind == "sit":
                seat = body.get("seat")
                account = Account(command.account_id, name, Fraction(0))
                buy_in = parse_amount(str(body.get("buy_in")))
                give_up = time.monotonic() + max(0.0, command.left - ANSWER_SLACK)
                wanted = seat if isinstance(seat, int) else None
                await live.acts.sit_waiting(account, wanted, buy_in, give_up, command)
            elif command.kind == "leave":
                async with live.lock:
                    if live.owner:
                        await live.acts.leave_account(command.account_id, command)
            elif command.kind == "act":
                async with live.lock:
                    if not live.owner:
                        return
                    error = await live.acts.act(
                        command.account_id, body.get("action"), body.get("amount"), command
                    )
                if error is not None:
                    await self._reply(command, {"error": error})
        except Refused as err:
            await self._reply(command, {"refused": [err.status, err.message]})
        except (CommandGone, asyncio.CancelledError):
            pass
        except LeaseLost:
            live.drop_ownership()
        except StorageError as err:
            log.warning("chemin de fer table %s: a command failed: %s", live.spec.id, err)
            await self._reply(command, {"refused": [503, DATABASE_FAILED]})
        except Exception:
            log.exception("chemin de fer table %s: command %s", live.spec.id, command.id)
            await self._reply(command, {"refused": [500, "something went wrong at the table"]})

    async def _reply(self, command: Command, answer: dict[str, object]) -> None:
        with contextlib.suppress(CommandGone, StorageError):  # the asker gave up, or will
            await asyncio.to_thread(self.live.link.reply, command.id, command.process, answer)


__all__ = ["Inbox"]
