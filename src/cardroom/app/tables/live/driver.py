"""The driver of a live table: the one asyncio task that plays its coups, in the process
that holds its lease.

While at least one person sits at the table it plays coups one after the other; where a
person must decide it waits for their answer up to the table's time limit, then lets the
absent policy play for them (:meth:`~cardroom.app.tables.chemmy.ChemmyTable.play_for`).
Between coups it stands up the people who cannot play on (and those away too long),
gives the bots' seats fresh bots and starts a new game where the last one ended.  When
it takes a table over, it first finishes what the last owner left.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from fractions import Fraction
from typing import TYPE_CHECKING

from cardroom.app.names import name_skeleton
from cardroom.app.operators.tables import TableSettings
from cardroom.app.tables.chemmy import finish_table_coups
from cardroom.app.tables.live.base import (
    FAILURES_BEFORE_RESET,
    SEATS,
    Connection,
    bot_name,
    seated_names,
)
from cardroom.app.tables.live.link import LeaseLost
from cardroom.app.tables.seeds import FairShoe
from cardroom.core.money import format_amount
from cardroom.games.base import Turn
from cardroom.storage import StorageError

if TYPE_CHECKING:
    from cardroom.app.tables.live.table import LiveChemmy

log = logging.getLogger("cardroom.tables")


class Driver:
    """Plays one live table's coups (see the module's words)."""

    def __init__(self, live: LiveChemmy) -> None:
        self.live = live

    async def run(self) -> None:
        """Drive the table while this process owns it; a failed step is tried again (the
        table is as before it), and after :data:`FAILURES_BEFORE_RESET` unexpected ones
        in a row the table is set up again from the database."""
        live = self.live
        failures = 0
        while live.owner:
            try:
                if not live.recovered:
                    await self.recover()
                await self._cycle()
                failures = 0
            except asyncio.CancelledError:
                raise
            except LeaseLost:
                live.drop_ownership()
                return
            except StorageError as err:  # the table is as before the step: try it again
                failures += 1
                log.warning(
                    "chemin de fer table %s: %s (the step is tried again)", live.spec.id, err
                )
                await asyncio.sleep(min(5.0, 0.5 * failures))
            except Exception:  # the table must go on: log it, wait a moment, go on
                failures += 1
                log.exception("chemin de fer table %s", live.spec.id)
                if failures >= FAILURES_BEFORE_RESET:
                    live.recovered = False  # set it up again from the database
                await asyncio.sleep(1)

    async def recover(self) -> None:
        """Finish what the table's last owner left (its coup in progress, its people's
        stacks back to their wallets) and start the table again with its bots, its coups
        numbered on from the last one saved there (a person's coups at a table never
        share a number)."""
        live = self.live
        # the other processes' connections first, so that the people there are told too
        _, present = await asyncio.to_thread(live.link.table_inbox, live.spec.id)
        async with live.lock:
            fresh = live.new_table()
            live.remote = {
                (p.process, p.connection): Connection(
                    p.account_id, p.name, id=p.connection, process=p.process
                )
                for p in present
            }

            def step() -> tuple[int, int]:
                records, cashed = finish_table_coups(live.wallet, live.table_ref)
                fresh.number_on()
                source = fresh.source
                if isinstance(source, FairShoe):
                    # the shoes the last owner dealt deal no more; the next one's
                    # commitment is shown before its first card
                    live.seeds.table_ended(live.table_ref)
                    source.prepare()
                live.table = fresh
                live.game_number += 1
                live.pending = None
                live.away.clear()
                if records or cashed:
                    live.notices.append(
                        "The table starts again: the server that ran it stopped, the coup in "
                        "progress was finished with the same cards (the absent policy made "
                        "the rest of its choices) and every stack went back to its wallet"
                    )
                return len(records), cashed

            finished, cashed = await live.steps.transact(step)
            live.recovered = True
            live.settled.set()
            if finished or cashed:
                log.warning(
                    "chemin de fer table %s: taken over from a stopped process: finished %d "
                    "coup records (one per person in the coup), cashed out %d seats",
                    live.spec.id,
                    finished,
                    cashed,
                )
        live.inbox_wake.set()

    async def _cycle(self) -> None:
        live = self.live
        turn = live.pending
        if turn is not None:  # a person's turn: wait for the answer up to the time limit
            left = live.due() - time.monotonic()
            if left > 0:
                live.wake.clear()
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(left):
                        await live.wake.wait()
                return
            async with live.lock:
                if live.pending is turn:
                    await self._time_up(turn)
            return
        async with live.lock:
            now = time.monotonic()
            gone = [a for a, since in live.away.items() if now - since >= live.time_limit]
            for away_id in gone:
                seat = live.seat_of(away_id)
                if seat is None:
                    live.away.pop(away_id, None)
                elif not live.table.seats[seat].leaving:
                    name = live.table.seats[seat].name
                    await live.acts.leave(seat, f"{name} has been away too long")
            if live.table.people:
                step, turn = await live.steps.transact(self._step)
            else:  # nobody's money is at the table: in memory only
                step, turn = self._step()
                if live.notices:
                    await live.steps.push_now()
        if step == "idle":
            live.wake.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(0.25):
                    await live.wake.wait()
            return
        if turn is None and live.pause > 0:  # a coup (or the draw for the bank) has ended
            await asyncio.sleep(live.pause)

    async def _time_up(self, turn: Turn) -> None:
        """(Under the lock.)  The time for ``turn`` is up: the absent policy plays it."""
        live = self.live
        waiting = live.table.waiting_for()
        if waiting is None or waiting.seat != turn.seat:
            live.pending = None
            await live.steps.push_now()
            return
        name = live.table.seats[turn.seat].name
        late = turn.seat

        def play_for() -> None:
            live.table.play_for(late)
            live.pending = None
            live.notices.append(f"time is up: {name}'s turn is played for them")

        await live.steps.transact(play_for)

    def _step(self) -> tuple[str, Turn | None]:
        """(In a worker thread, under the lock.)  Between coups: stand up the people who
        cannot play on, replace the bots that cannot, start a new game where needed;
        then play on until a person must decide (the turn waited for) or the coup ends."""
        live = self.live
        table = live.table
        minimum = live.rules.table.minimum
        if live.quiet():
            self._stand_up_the_broke()
            game = table.game
            if game is not None and game.is_over:
                live.new_game()
            self._seat_bots()
            if not table.people or live.joining or self._closed():
                return "idle", None
            if table.game is None:
                if sum(1 for s in table.stacks if s >= minimum) < 2:
                    return "idle", None
                table.start()
                live.game_number += 1
                return "draw", None
        turn = table.advance(live.steps.moved)
        if turn is None:
            return "ended", None
        live.pending = turn
        live.turns += 1
        live.deadline = time.monotonic() + live.time_limit
        return "turn", turn

    def _closed(self) -> bool:
        """(Between coups.)  If the house has closed the table: everybody stands up with
        their stack, and no new coup begins."""
        live = self.live
        table = live.table
        if TableSettings(table.wallet.db).is_open(live.table_ref):
            return False
        for seat in sorted(table.people, key=lambda s: table.seats[s].account_id or 0):
            name = table.seats[seat].name
            logged = live.logged()
            left = table.leave(seat) or Fraction(0)
            live.notices.append(f"The house has closed this table: {name} stands up")
            if live.logged() == logged:
                live.notices.append(f"{name} stands up with {format_amount(left)}")
        return True

    def _stand_up_the_broke(self) -> None:
        """(Between coups.)  The people whose stack is below the table minimum stand up."""
        live = self.live
        table = live.table
        minimum = live.rules.table.minimum
        stacks = table.stacks
        broke = [seat for seat in table.people if stacks[seat] < minimum]
        for seat in sorted(broke, key=lambda s: table.seats[s].account_id or 0):
            name = table.seats[seat].name
            logged = live.logged()
            left = table.leave(seat) or Fraction(0)
            live.notices.append(
                f"{name}'s stack is below the table minimum of {format_amount(minimum)}"
            )
            if live.logged() == logged:
                live.notices.append(f"{name} stands up with {format_amount(left)}")

    def _seat_bots(self) -> None:
        """(Between coups.)  A bot that cannot play on stands up; every bot seat that is
        empty gets a fresh bot."""
        live = self.live
        table = live.table
        minimum = live.rules.table.minimum
        for n, seat in enumerate(live.bot_seats):
            held = table.seats[seat]
            if held.kind == "bot" and table.stacks[seat] >= minimum:
                continue
            if held.kind == "bot":
                table.stand_bot(seat)
                if table.game is not None and table.game.is_over:
                    live.new_game()
            if table.seats[seat].kind == "empty":
                name = bot_name(seated_names(table), n, alike=name_skeleton)
                logged = live.logged()
                table.sit_bot(seat, name, live.bot_stack, SEATS.table_bot(live.rules))
                if live.logged() == logged:
                    live.notices.append(f"{name} (a bot) sits down at seat {seat + 1}")


__all__ = ["Driver"]
