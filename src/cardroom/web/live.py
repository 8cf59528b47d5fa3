"""The tables in play: each person's table at each house game, held in this process.

A person's table at a game deals from its own shoe (shuffled with the operating
system's entropy) and keeps that shoe's bead plate; the round in play is held beside
it.  A round the database has in progress but this process does not (the server was
restarted) is set up again with :func:`~cardroom.tables.house.restore_round` when a
request needs it, and goes on where it stopped.

Requests run in a thread pool; each (person, game) has a lock, so two requests for
the same table (a double click, a retry) are served one after the other, and the
money itself is safe in any case (the wallet checks every stake in the database).
One process holds the shoes: run one server process per database.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from cardroom.core.shoe import SecureShuffler, Shoe, Shuffler
from cardroom.games import GameInfo, get_game
from cardroom.games.base import IllegalAction
from cardroom.tables.house import ExistingRound, HouseRound, HouseTable, restore_round
from cardroom.wallet import Account, StoredRound, Wallet, WalletError
from cardroom.web import views


class NotFound(LookupError):
    """No such round for this person (someone else's is not found either)."""


@dataclass
class Seat:
    """One person's table at one game, and the round in play there."""

    table: HouseTable
    lock: threading.Lock = field(default_factory=threading.Lock)
    live: HouseRound | None = None
    #: the table that deals ``live`` (a restored round deals from its own saved shoe)
    live_table: HouseTable | None = None


class LiveTables:
    """Every person's tables, made when first needed."""

    def __init__(
        self,
        wallet: Wallet,
        rules: Mapping[str, Any],
        shuffler: Callable[[], Shuffler] = SecureShuffler,
    ) -> None:
        self.wallet = wallet
        self.rules = dict(rules)
        self.shuffler = shuffler
        self._seats: dict[tuple[int, str], Seat] = {}
        self._lock = threading.Lock()

    def seat(self, account: Account, game: GameInfo) -> Seat:
        key = (account.id, game.id)
        with self._lock:
            found = self._seats.get(key)
            if found is None:
                rules = self.rules[game.id]
                table = HouseTable(
                    game,
                    rules,
                    Shoe(rules.shoe, self.shuffler()),
                    self.wallet,
                    account.id,
                    name=account.name,
                    table_ref=f"web:{game.id}",
                )
                found = self._seats[key] = Seat(table)
            return found

    # -- what requests do ---------------------------------------------------------------
    def place(
        self, account: Account, game: GameInfo, bets: Mapping[str, str], key: str | None
    ) -> tuple[dict[str, Any], bool]:
        """Open a round and deal it as far as it goes; its JSON and whether it is new
        (False: the idempotency key's round, given back)."""
        seat = self.seat(account, game)
        with seat.lock:
            try:
                live = seat.table.place_bets(bets, key)
            except ExistingRound as known:
                return self._view(seat, known.stored), False
            seat.live, seat.live_table = live, seat.table
            seat.table.advance(live)
            return self._live_view(seat, live), True

    def act(self, account: Account, round_id: int, action: str) -> dict[str, Any]:
        """The person's decision in their round ``round_id``."""
        stored = self._own(account, round_id)
        seat = self.seat(account, get_game(stored.game))
        with seat.lock:
            live = self._in_play(seat, round_id)
            if live is None:
                raise IllegalAction("the round is over: nothing is asked")
            assert seat.live_table is not None
            seat.live_table.act(live, action)
            return self._live_view(seat, live)

    def get(self, account: Account, round_id: int) -> dict[str, Any]:
        """The person's round ``round_id`` as it stands."""
        stored = self._own(account, round_id)
        if stored.game not in self.rules or get_game(stored.game).kind != "house":
            return views.stored_round_json(stored, self.wallet.balance(account.id))
        seat = self.seat(account, get_game(stored.game))
        with seat.lock:
            return self._view(seat, self.wallet.round(round_id))

    def table_state(self, account: Account, game: GameInfo) -> dict[str, Any]:
        """The person's table: this shoe's scoreboards, the reshuffle notice, the round
        in play (if any)."""
        seat = self.seat(account, game)
        with seat.lock:
            unfinished = self.wallet.unfinished_rounds(account.id, game.id)
            table = seat.table
            return {
                "game": game.id,
                "balance": views.money(self.wallet.balance(account.id)),
                "reshuffle_due": table.reshuffle_due,
                "rounds_played": table.rounds_played,
                "round_in_play": unfinished[0].id if unfinished else None,
                **views.beads_json(table.beads, table.bead_shoe),
            }

    # -- inside -------------------------------------------------------------------------
    def _own(self, account: Account, round_id: int) -> StoredRound:
        try:
            stored = self.wallet.round(round_id)
        except WalletError:
            raise NotFound(f"there is no round {round_id} of yours") from None
        if stored.account_id != account.id:
            raise NotFound(f"there is no round {round_id} of yours")
        return stored

    def _in_play(self, seat: Seat, round_id: int) -> HouseRound | None:
        """The round in play with that id, set up again from the database if need be."""
        if seat.live is not None and seat.live.id == round_id and seat.live.record is None:
            return seat.live
        stored = self.wallet.round(round_id)
        if stored.status != "in_progress":
            return None
        table, live = restore_round(self.wallet, stored)
        seat.live, seat.live_table = live, table
        return live

    def _view(self, seat: Seat, stored: StoredRound) -> dict[str, Any]:
        if seat.live is not None and seat.live.id == stored.id:
            return self._live_view(seat, seat.live)
        if stored.status == "in_progress":
            live = self._in_play(seat, stored.id)
            if live is not None:
                return self._live_view(seat, live)
        return views.stored_round_json(stored, self.wallet.balance(stored.account_id))

    def _live_view(self, seat: Seat, live: HouseRound) -> dict[str, Any]:
        balance: Fraction = self.wallet.balance(seat.table.account_id)
        data = views.live_round_json(seat.table.game.id, live, balance)
        data["reshuffle_due"] = seat.table.reshuffle_due if live.record is not None else False
        return data
