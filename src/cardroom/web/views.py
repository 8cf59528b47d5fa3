"""Rounds, events and money as the web table sends them: JSON with decimal strings.

Events go out as :func:`cardroom.web.events.event_json` writes them, with the sentence
:mod:`cardroom.app.words` makes of each.  Money is always an exact decimal string.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from cardroom.app.scoreboards import bead_plate, big_road, counts
from cardroom.app.tables.house import HouseRound
from cardroom.app.wallet import StoredRound
from cardroom.app.words import (
    explain,
    house_line,
    name_of,
    outcome_line,
    plain,
    points_text,
    wager_label,
)
from cardroom.core.events import (
    CardDealt,
    Event,
    EventDataError,
    Outcome,
    Settled,
    event_from_json,
)
from cardroom.core.money import AmountError, format_amount, format_decimal, parse_exact
from cardroom.games import GAMES
from cardroom.games.base import Turn
from cardroom.web import events
from cardroom.web.coups import coup_json


def money(value: Fraction) -> str:
    """An amount on the wire: the shortest exact decimal (``"9.5"``)."""
    return format_decimal(value)


def shown(amount: Fraction | str | int) -> str:
    """An amount as a person reads it, whether from the wire (``"9.5"``) or exact:
    :func:`~cardroom.core.money.format_amount` (``9.50``), the rule the pages' script
    follows too (``showMoney`` in ``static/api.js``)."""
    try:
        return format_amount(amount if isinstance(amount, Fraction) else parse_exact(amount))
    except AmountError:
        return str(amount)


def add_filters(env: Any) -> None:
    """The templates' filters: ``money`` (an amount for a person) and ``wager`` (a wager
    id in words, as a label: ``player_pair`` -> ``Player pair``)."""
    env.filters["money"] = shown
    env.filters["wager"] = wager_label


def event_text(event: Event) -> str:
    """One event of a house game as the line a person reads (:mod:`cardroom.app.words`)."""
    return plain(house_line(event))


def event_json(event: Event, encoded: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A house game's event for the page (:func:`cardroom.web.events.event_json`), with
    its line (``encoded``: the registry's JSON of it, if it was written already)."""
    return events.event_json(event, event_text(event), encoded)


def events_json(events: Iterable[Event]) -> list[dict[str, Any]]:
    return [event_json(event) for event in events]


def live_round_json(game: str, live: HouseRound, balance: Fraction) -> dict[str, Any]:
    """A round the server holds (in play, or just finished)."""
    step = live.to_move()
    engine = live.engine
    over = live.record is not None
    asked = explain(step.why) if isinstance(step, Turn) else ""
    stored = (live.record_json or {}).get("events")
    if isinstance(stored, list) and len(stored) == len(live.events):
        events = [event_json(e, data) for e, data in zip(live.events, stored, strict=True)]
    else:
        events = events_json(live.events)
    return {
        "id": live.id,
        "game": game,
        "state": "finished" if over else "awaiting_action",
        "legal_actions": sorted(step.actions) if isinstance(step, Turn) else [],
        "asked": asked,
        "events": events,
        "outcome": engine.outcome if over else None,
        "hands": final_totals(live.events),
        "outcome_text": outcome_text(live.events) if over else "",
        "stakes": {w: money(s) for w, s in engine.wagers.items()},
        "net": {w: money(n) for w, n in engine.net.items()} if over else {},
        "total_net": money(sum(engine.net.values(), Fraction(0))) if over else None,
        "bonus": engine.bonus if over else None,
        "balance": money(balance),
        "notes": list(live.notes),
    }


def stored_round_json(
    stored: StoredRound, balance: Fraction, tables: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """A finished (or void) round from the database, from its record; a chemin de fer
    coup as its person saw it (:mod:`cardroom.web.coups`; ``tables``: the tables' names
    by their ``table_ref``)."""
    if stored.game in GAMES and GAMES[stored.game].kind == "seats":
        return coup_json(stored, balance, tables)
    record = stored.record or {}
    events: list[Event] = []
    for data in record.get("events", []) or []:
        try:
            events.append(event_from_json(data))
        except EventDataError:
            continue
    net: dict[str, str] = {}
    for wager in record.get("wagers", []) or []:
        try:
            net[str(wager["wager"])] = money(parse_exact(wager["net"]))
        except (KeyError, TypeError, ValueError):
            continue
    if stored.status != "finished":
        net = {w: money(stored.paid.get(w, Fraction(0)) - s) for w, s in stored.stakes.items()}
    bonus = next(
        (e.why.get("bonus") for e in events if isinstance(e, Settled) and e.why.get("bonus")),
        None,
    )
    return {
        "id": stored.id,
        "game": stored.game,
        "state": "finished" if stored.status == "finished" else stored.status,
        "legal_actions": [],
        "asked": "",
        "events": events_json(events),
        "outcome": record.get("outcome"),
        "hands": final_totals(events),
        "outcome_text": next(
            (plain(outcome_line(e)) for e in events if isinstance(e, Outcome)), ""
        ),
        "stakes": {w: money(s) for w, s in stored.stakes.items()},
        "net": net,
        "total_net": money(stored.net),
        "bonus": None if bonus is None else _bonus_name(str(bonus)),
        "balance": money(balance),
        "notes": [str(n) for n in record.get("notes", []) or []],
        "played_at": stored.created_at.isoformat(),
        "cards": [str(c) for c in record.get("cards", []) or []],
        "decisions": [
            {
                "action": str(d.get("action")),
                "by": str(d.get("by", "person")),
                "text": _decision_text(str(d.get("action")), str(d.get("by", "person"))),
            }
            for d in record.get("decisions", []) or []
            if isinstance(d, Mapping)
        ],
    }


def outcome_text(events: Iterable[Event]) -> str:
    """Who won the round and why, in words (empty where the record has no outcome)."""
    return next((plain(outcome_line(e)) for e in events if isinstance(e, Outcome)), "")


def final_totals(events: Iterable[Event]) -> list[dict[str, str]]:
    """Each hand of a round, in the order it got its first card, and its last total in
    words (``hard 20``, ``7``; empty where the record gives none)."""
    totals: dict[str, str] = {}
    for event in events:
        if isinstance(event, CardDealt):
            totals[event.hand] = points_text(event.total) or totals.get(event.hand, "")
    return [{"hand": hand, "total": total} for hand, total in totals.items()]


def _decision_text(action: str, by: str) -> str:
    """A house round's decision in words: ``Hit``, ``Stand (played for you)``."""
    text = action.replace("_", " ").capitalize()
    return text if by == "person" else f"{text} (played for you)"


def _bonus_name(key: str) -> str:
    return name_of(key)


def beads_json(
    beads: Sequence[str], shoe: int | None, pairs: Sequence[Sequence[str]] | None = None
) -> dict[str, Any]:
    """A table's scoreboards (see :mod:`cardroom.app.scoreboards`); with ``pairs`` (the hands
    whose first two cards were a pair, round by round), the bead plate's cells say them."""
    plate = []
    for c in bead_plate(beads, pairs=pairs):
        cell: dict[str, Any] = {"column": c.column, "row": c.row, "outcome": c.outcome}
        if pairs is not None:
            cell["pairs"] = list(c.pairs)
        plate.append(cell)
    return {
        "shoe": shoe,
        "bead_plate": plate,
        "big_road": [
            {"column": c.column, "row": c.row, "outcome": c.outcome, "ties": c.ties}
            for c in big_road(beads)
        ],
        "counts": counts(beads),
    }
