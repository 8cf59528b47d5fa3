"""How a live chemin de fer table looks on the web: the JSON of the table, and of each
message a person's WebSocket gets.

The tables themselves (seats, the driver, the lease, the other processes) are the
application's (:mod:`cardroom.app.tables.live`); this is their :class:`TableViews`.  A
message (``"type": "update"``) carries the events new to the person (each with its
sentence as told to them and its cards in words: :func:`cardroom.web.events.event_json`),
the table as everybody may see it, the person's own seat and stack, their turn with its
choices and bounds where the table waits for them, whose turn it is and the notices.
"""

from __future__ import annotations

import time
from typing import Any

from cardroom.app.tables.live import Connection, LiveChemmy, TableViews, Told
from cardroom.app.words import capital
from cardroom.core.money import format_amount
from cardroom.games.chemin_de_fer import ChemmyAction
from cardroom.games.chemin_de_fer.words import chemmy_turn_text
from cardroom.web.events import event_json
from cardroom.web.views import money


class ChemmyViews(TableViews):
    """The web's views of a live table (see the module's words)."""

    def table(self, live: LiveChemmy) -> dict[str, Any]:
        table = live.table
        game = table.game
        stacks = table.stacks
        banker = game.banker if game is not None else None
        connected = live.connected()
        seats = []
        for n, held in enumerate(table.seats):
            seats.append(
                {
                    "seat": n,
                    "kind": held.kind,
                    "name": held.name if held.kind != "empty" else None,
                    "stack": money(stacks[n]) if held.kind != "empty" else None,
                    "banker": banker == n and held.kind != "empty",
                    "player": game is not None and game.player == n,
                    "leaving": held.leaving,
                    "away": held.is_person and held.account_id not in connected,
                }
            )
        minimum, maximum = live.buy_in_range()
        playing = game is not None and not game.is_over
        return {
            "id": live.spec.id,
            "name": live.spec.name,
            "seats": seats,
            "people": len(table.people),
            "bots": sum(1 for s in table.seats if s.kind == "bot"),
            "empty": sum(1 for s in table.seats if s.kind == "empty"),
            "time_limit": live.time_limit,
            "playing": playing,
            "coup": game.coup if playing and game is not None else None,
            "banker": banker if playing else None,
            "bank": money(game.bank) if playing and game is not None and game.bank else None,
            "covered": money(game.covered) if playing and game is not None else None,
            "limits": {
                "minimum": money(live.rules.table.minimum),
                "maximum": money(live.rules.table.maximum),
            },
            "buy_in": {"minimum": money(minimum), "maximum": money(maximum)},
            "shoe": live.shoe_json(),
        }

    def update(self, live: LiveChemmy, told: Told, table: dict[str, Any]) -> dict[str, Any]:
        seat = told.seat
        stack = live.table.stacks[seat] if seat is not None else None
        return {
            "type": "update",
            "reset": told.reset,
            "events": [event_json(entry, text) for entry, text in told.events],
            "table": table,
            "you": {
                "name": told.conn.name,
                "seat": seat,
                "stack": None if stack is None else money(stack),
                "leaving": seat is not None and live.table.seats[seat].leaving,
            },
            "turn": _turn_json(live, seat),
            "waiting_for": _waiting_json(live),
            "notices": list(told.notices),
        }

    def first(self, conn: Connection, table: dict[str, Any], seat: int | None) -> dict[str, Any]:
        held = table["seats"][seat] if seat is not None else None
        return {
            "type": "update",
            "reset": True,
            "events": [],
            "table": table,
            "you": {
                "name": conn.name,
                "seat": seat,
                "stack": None if held is None else held["stack"],
                "leaving": bool(held and held["leaving"]),
            },
            "turn": None,
            "waiting_for": None,
            "notices": [],
        }


def _seconds_left(live: LiveChemmy) -> float:
    return round(max(0.0, live.due() - time.monotonic()), 1)


def _waiting_json(live: LiveChemmy) -> dict[str, Any] | None:
    """Whose turn the table waits for, and for how long still."""
    turn = live.pending
    if turn is None:
        return None
    return {
        "seat": turn.seat,
        "name": live.table.seats[turn.seat].name,
        "seconds_left": _seconds_left(live),
    }


def _turn_json(live: LiveChemmy, seat: int | None) -> dict[str, Any] | None:
    """The legal choices of ``seat``, if the table waits for it."""
    turn = live.pending
    game = live.table.game
    if seat is None or turn is None or turn.seat != seat or game is None:
        return None
    data: dict[str, Any] = {
        "id": live.turns,
        "seat": seat,
        "actions": sorted(turn.actions),
        "seconds": live.time_limit,
        "seconds_left": _seconds_left(live),
    }
    if ChemmyAction.PUT_BANK in turn.actions:
        assert turn.low is not None and turn.high is not None
        suggested = game.default_bank
        data["prompt"] = "Put up a bank" + (
            " or pass it on" if ChemmyAction.PASS_BANK in turn.actions else ""
        )
        data["amount"] = {
            "action": ChemmyAction.PUT_BANK.value,
            "low": money(turn.low),
            "high": money(turn.high),
            "suggested": money(suggested if suggested is not None else turn.low),
        }
    elif ChemmyAction.STAKE in turn.actions:
        assert turn.low is not None and turn.high is not None and game.bank is not None
        needed = game.bank - game.covered
        data["prompt"] = f"The bank is {format_amount(game.bank)}: stake, pass" + (
            " or call banco" if ChemmyAction.BANCO in turn.actions else ""
        )
        data["needed"] = money(needed)
        data["amount"] = {
            "action": ChemmyAction.STAKE.value,
            "low": money(turn.low),
            "high": money(turn.high),
            "suggested": money(min(max(turn.low, needed), turn.high)),
        }
        if ChemmyAction.BANCO in turn.actions:
            data["banco"] = money(game.bank)
    else:
        hand = "player" if seat == game.player else "banker"
        data["hand"] = hand
        data["prompt"] = capital(chemmy_turn_text(turn.why))
    return data


__all__ = ["ChemmyViews"]
