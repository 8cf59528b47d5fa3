"""What the owner of a live table does for a person: a seat, a leaving, a decision.

Each is asked for by one of this process's connections or, through the inbox, by
another process's (then ``command`` is the command to answer, in the step's own
transaction).  Each is one step (:class:`~cardroom.app.tables.live.steps.Steps`): done
whole or not at all.
"""

from __future__ import annotations

import asyncio
import logging
import time
from fractions import Fraction
from typing import TYPE_CHECKING

from cardroom.app.names import name_skeleton
from cardroom.app.tables.chemmy import HouseRefusedSeat
from cardroom.app.tables.live.base import (
    DATABASE_FAILED,
    MOVED,
    Refused,
    bot_name,
    seated_names,
)
from cardroom.app.tables.live.link import Command, LeaseLost
from cardroom.app.tables.live.steps import reply_to
from cardroom.app.wallet import Account
from cardroom.core.money import AmountError, format_amount, format_decimal, parse_amount
from cardroom.games.base import IllegalAction, WagerError
from cardroom.games.chemin_de_fer import ChemmyAction
from cardroom.storage import StorageError

if TYPE_CHECKING:
    from cardroom.app.tables.live.table import LiveChemmy

log = logging.getLogger("cardroom.tables")


class Acts:
    """The owner's side of a person's requests at one live table."""

    def __init__(self, live: LiveChemmy) -> None:
        self.live = live

    async def sit_waiting(
        self,
        account: Account,
        seat: int | None,
        buy_in: Fraction,
        give_up: float,
        command: Command | None,
    ) -> dict[str, object] | None:
        """Sit ``account`` down once the table is between coups (409 past ``give_up``);
        None if the table moved to another process meanwhile."""
        live = self.live
        live.joining += 1
        live.wake.set()
        try:
            while live.owner:
                async with live.lock:
                    if not live.owner:
                        break
                    self._check_seat(account, seat)
                    if live.quiet():
                        try:
                            return await self._sit(account, seat, buy_in, command)
                        except LeaseLost:  # nothing was done: the new owner is asked
                            live.drop_ownership()
                            break
                if time.monotonic() > give_up:
                    raise Refused(409, "a coup is still under way at this table: try again")
                await asyncio.sleep(0.05)
            return None
        finally:
            live.joining -= 1
            live.wake.set()

    def _check_seat(self, account: Account, seat: int | None) -> int:
        """The seat ``account`` may take now (409 if none)."""
        live = self.live
        table = live.table
        if live.seat_of(account.id) is not None:
            raise Refused(409, "you already have a seat at this table")
        if seat is None:
            empty = [n for n, held in enumerate(table.seats) if held.kind == "empty"]
            if not empty:
                raise Refused(409, "every seat of this table is taken")
            return empty[0]
        if table.seats[seat].kind != "empty":
            raise Refused(409, f"seat {seat + 1} is taken by {table.seats[seat].name}")
        return seat

    async def _sit(
        self, account: Account, wanted: int | None, buy_in: Fraction, command: Command | None
    ) -> dict[str, object]:
        live = self.live
        seat = self._check_seat(account, wanted)

        def step() -> dict[str, object]:
            table = live.table
            game = table.game
            if game is not None and game.is_over:
                live.new_game()
            self._make_way(account.name)
            logged = live.logged()
            table.sit_person(seat, account.id, account.name, buy_in)
            live.mark_away()
            if live.logged() == logged:  # no game yet: its log does not tell it
                live.notices.append(
                    f"{account.name} sits down at seat {seat + 1} with {format_amount(buy_in)}"
                )
            return {"table": live.spec.id, "seat": seat, "stack": format_decimal(buy_in)}

        try:
            answer = reply_to(command, lambda r: {"ok": r})
            seated = await live.steps.transact(step, reply=answer)
        except WagerError as err:
            conflict = isinstance(err, HouseRefusedSeat)
            status = 409 if conflict or "balance" in str(err) or "already" in str(err) else 422
            raise Refused(status, str(err)) from None
        live.wake.set()
        return seated

    def _make_way(self, name: str) -> None:
        """(In a step, between coups.)  A bot that goes by ``name`` (whatever its case)
        takes another name, so that the person of that name can sit down: two seats
        never share a name, and a bot's name never keeps a person out."""
        live = self.live
        table = live.table
        for seat, held in enumerate(table.seats):
            if held.kind == "bot" and name_skeleton(held.name) == name_skeleton(name):
                old = held.name
                new = bot_name([*seated_names(table), name], alike=name_skeleton)
                table.rename_bot(seat, new)
                live.notices.append(f"{old} (a bot) is now called {new}, to make way for {name}")

    async def leave_account(self, account_id: int, command: Command | None) -> dict[str, object]:
        """(Under the lock.)  The account's person stands up (409 if they have no seat)."""
        seat = self.live.seat_of(account_id)
        if seat is None:
            raise Refused(409, "you have no seat at this table")
        return await self.leave(seat, None, command)

    async def leave(
        self, seat: int, why: str | None, command: Command | None = None
    ) -> dict[str, object]:
        """(Under the lock.) The person at ``seat`` goes (``why``: a line for the log that
        says why, when it is not their own choice)."""
        live = self.live

        def step() -> dict[str, object]:
            held = live.table.seats[seat]
            account_id, name = held.account_id, held.name
            logged = live.logged()
            stack = live.table.leave(seat)
            if live.pending is not None and live.pending.seat == seat:
                live.pending = None  # the absent policy plays that turn now
            if stack is None:
                later = f"{name} stands up after this coup"
                live.notices.append(f"{why}: {later}" if why else later)
                return {"table": live.spec.id, "seat": seat, "left": False, "stack": None}
            if account_id is not None:
                live.away.pop(account_id, None)
            if why:
                live.notices.append(why)
            if live.logged() == logged:  # (the game's log tells it where there is a game)
                live.notices.append(f"{name} stands up with {format_amount(stack)}")
            return {
                "table": live.spec.id,
                "seat": seat,
                "left": True,
                "stack": format_decimal(stack),
            }

        result = await live.steps.transact(step, reply=reply_to(command, lambda r: {"ok": r}))
        live.wake.set()
        return result

    async def act(
        self, account_id: int, action: object, amount: object, command: Command | None
    ) -> str | None:
        """(Under the lock.)  The decision, or why it is refused."""
        live = self.live
        seat = live.seat_of(account_id)
        if seat is None:
            return "you have no seat at this table"
        turn = live.pending
        if turn is None or turn.seat != seat:
            return "it is not your turn"
        if not isinstance(action, str) or action not in turn.actions:
            allowed = ", ".join(sorted(turn.actions))
            return f"{str(action)[:40]!r} is not a choice now (choose {allowed})"
        value: Fraction | None = None
        if action in (ChemmyAction.PUT_BANK, ChemmyAction.STAKE):
            if not isinstance(amount, str):
                return f'{action} needs an amount, as a decimal string such as "20"'
            try:
                value = parse_amount(amount)
            except AmountError as err:
                return str(err)
        chosen = value

        def step() -> None:
            live.table.act(seat, action, chosen)
            live.pending = None

        try:
            await live.steps.transact(step, reply=reply_to(command, lambda _: {"error": None}))
        except (IllegalAction, WagerError) as err:
            return str(err)
        except LeaseLost:
            live.drop_ownership()
            return MOVED
        except StorageError as err:
            log.warning("chemin de fer table %s: a decision failed: %s", live.spec.id, err)
            return DATABASE_FAILED
        live.wake.set()
        return None


__all__ = ["Acts"]
