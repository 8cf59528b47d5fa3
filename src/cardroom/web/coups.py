"""A chemin de fer coup as its person saw it, for the history and a round's page.

A coup's record (:class:`cardroom.app.history.RoundRecord`) is the whole coup: every card,
the hidden ones too, and every seat's decisions.  One record is kept for each person
who took part, with their seat in the round's state; this module shows it to that
person as the table did: their seat and part (banker, punter, or watcher), the events
they could see in the table's own sentences
(:class:`~cardroom.games.chemin_de_fer.words.ChemmyNarrator`, told to them: "You stake
10"), another seat's face-down card as a card back until the hands were turned over, both
hands as they ended, their stake and result, and their own decisions in words.  Nothing of
the state a coup in progress keeps (the shoe to come) is ever shown.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from cardroom.app.history import Decided, RecordError, RoundRecord
from cardroom.app.tables.live import WEB_TABLE
from cardroom.app.wallet import StoredRound
from cardroom.app.words import plain
from cardroom.core.cards import Card
from cardroom.core.events import (
    BancoCalled,
    BankPut,
    CoupEvent,
    HandCard,
    HandShown,
    PlayerChosen,
    Staked,
)
from cardroom.core.money import format_amount, format_decimal
from cardroom.games import seats_game
from cardroom.games.chemin_de_fer.engine import visible
from cardroom.games.chemin_de_fer.words import ChemmyNarrator
from cardroom.web.cards import card_label
from cardroom.web.events import event_json

__all__ = ["PARTS", "coup_json", "decision_words", "table_name"]

#: A person's part in a coup, in words.
PARTS = {
    "banker": "You held the bank",
    "punter": "You staked against the bank",
    "watcher": "You watched: no stake of yours",
}


def table_name(table_ref: str | None, names: Mapping[str, str] | None = None) -> str:
    """A table as a person knows it: its name ("Table 1"), never its internal reference.

    >>> table_name("web:chemin-de-fer:2"), table_name("terminal:5f0c"), table_name(None)
    ('Table 2', 'a table in the terminal', 'a table')
    >>> table_name("web:chemin-de-fer:2", {"web:chemin-de-fer:2": "The salon"})
    'The salon'
    """
    if table_ref is None:
        return "a table"
    if names and table_ref in names:
        return names[table_ref]
    if table_ref.startswith(WEB_TABLE) and table_ref[len(WEB_TABLE) :].isdigit():
        return f"Table {table_ref[len(WEB_TABLE) :]}"
    if table_ref.startswith("terminal:"):
        return "a table in the terminal"
    return "a table"


def decision_words(decided: Decided, part: str) -> str:
    """One of the person's own decisions in words.

    >>> decision_words(Decided(0, "put_bank", Fraction(30)), "banker")
    'You put up a bank of 30'
    >>> decision_words(Decided(0, "stand", None, "default"), "punter")
    'You stand as the player (played for you: you had gone or did not answer in time)'
    """
    amount = "" if decided.amount is None else format_amount(decided.amount)
    hand = "the banker" if part == "banker" else "the player"
    words = {
        "put_bank": f"You put up a bank of {amount}",
        "pass_bank": "You pass the bank on",
        "stake": f"You stake {amount}",
        "banco": 'You call "Banco!"',
        "pass": "You pass: no stake",
        "draw": f"You draw a third card as {hand}",
        "stand": f"You stand as {hand}",
    }.get(decided.action, f"You {decided.action.replace('_', ' ')}")
    if decided.by == "default":
        words += " (played for you: you had gone or did not answer in time)"
    return words


def _card(card: Card | None) -> dict[str, str | None]:
    if card is None:
        return {"card": None, "card_alt": "a card face down"}
    return {"card": card.code, "card_alt": card_label(card)}


def _hands(
    seen: Sequence[CoupEvent], names: Sequence[str], you: int | None
) -> list[dict[str, Any]]:
    """Both hands as the person last saw them: turned over at the end of the coup, else
    the cards they saw (another seat's face-down card as a back)."""
    hands: dict[str, dict[str, Any]] = {}
    for entry in seen:
        event = entry.event
        if isinstance(event, HandCard):
            hand = hands.setdefault(event.hand, {"hand": event.hand, "seat": event.seat})
            hand.setdefault("cards", []).append(_card(event.card))
            if event.total is not None:
                hand["total"] = event.total.value
        elif isinstance(event, HandShown):
            hands[event.hand] = {
                "hand": event.hand,
                "seat": event.seat,
                "cards": [_card(card) for card in event.cards],
                "total": event.total,
                "shown": True,
            }
    out = []
    for name in ("player", "banker"):
        if name in hands:
            hand = hands[name]
            seat = int(hand["seat"])
            out.append(
                {
                    "hand": name,
                    "seat": seat,
                    "name": "You" if seat == you else _name(names, seat),
                    "cards": hand.get("cards", []),
                    "total": hand.get("total"),
                    "shown": bool(hand.get("shown")),
                }
            )
    return out


def _name(names: Sequence[str], seat: int) -> str:
    return names[seat] if 0 <= seat < len(names) else f"Seat {seat + 1}"


def _seat_of(stored: StoredRound) -> int | None:
    seat = (stored.state or {}).get("seat")
    return seat if isinstance(seat, int) and not isinstance(seat, bool) else None


def _table_page(table_ref: str | None) -> str | None:
    """The page of the web's table ``table_ref`` (None for a table elsewhere).

    >>> _table_page("web:chemin-de-fer:2"), _table_page("terminal:5f0c")
    ('/chemin-de-fer/2', None)
    """
    if table_ref is not None and table_ref.startswith(WEB_TABLE):
        number = table_ref[len(WEB_TABLE) :]
        return f"/{seats_game().id}/{number}" if number.isdigit() else None
    return None


def coup_json(
    stored: StoredRound, balance: Fraction, tables: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """A person's coup (``stored``: their round of it) as the history shows it, in the
    shape of the house games' rounds (``stakes``, ``net`` and ``total_net`` are the
    person's own) with a ``coup`` of its own: the table, the coup's number, the seat,
    the part, both hands."""
    seat = _seat_of(stored)
    base: dict[str, Any] = {
        "id": stored.id,
        "game": stored.game,
        "state": "finished" if stored.status == "finished" else stored.status,
        "legal_actions": [],
        "asked": "",
        "events": [],
        "outcome": None,
        "stakes": {},
        "net": {},
        "total_net": "0" if stored.status != "in_progress" else None,
        "bonus": None,
        "balance": format_decimal(balance),
        "notes": [],
        "played_at": stored.created_at.isoformat(),
        "cards": [],
        "decisions": [],
    }
    coup: dict[str, Any] = {
        "table": table_name(stored.table_ref, tables),
        "number": None,
        "seat": seat,
        "name": None,
        "part": None,
        "part_text": "",
        "hands": [],
    }
    base["coup"] = coup
    data = stored.record or {}
    if stored.status == "in_progress":
        where = table_name(stored.table_ref, tables)
        page = _table_page(stored.table_ref)
        base["notes"] = [
            f"This coup is still being played at {where}"
            + (f": follow it at {page}." if page else ".")
        ]
        return base
    if stored.status == "void" or "void" in data:
        why = str(data.get("void", "")).strip()
        base["notes"] = [f"This coup was called off{': ' + why if why else ''}; no money moved."]
        return base
    try:
        record = RoundRecord.from_json(data)
    except RecordError as err:
        base["notes"] = [f"The record of this coup cannot be read ({err})."]
        return base
    names = tuple(record.seats)
    you = seat if seat is not None and 0 <= seat < len(names) else None
    number = int(record.start.get("coup", 0) or 0)
    seen = visible([CoupEvent(number, e) for e in record.events], you)
    narrator = ChemmyNarrator(names, you=you)
    start_banker = record.start.get("banker")
    narrator.banker = start_banker if isinstance(start_banker, int) else None
    base["events"] = [event_json(entry, plain(narrator.line(entry.event))) for entry in seen]
    banker = next((e.seat for e in record.events if isinstance(e, BankPut)), None)
    punters = {e.seat for e in record.events if isinstance(e, Staked | BancoCalled)}
    part = "watcher"
    if you is not None and you == banker:
        part = "banker"
    elif you is not None and you in punters:
        part = "punter"
    wager = "bank" if part == "banker" else "stake"
    mine = [w for w in record.wagers if w.seat == you]
    net = sum((w.net for w in mine), Fraction(0))
    staked = sum((w.stake for w in mine), Fraction(0))
    if part != "watcher" and mine:
        base["stakes"] = {wager: format_decimal(staked)}
        base["net"] = {wager: format_decimal(net)}
    elif part == "punter":  # staked, but the coup was not played (nothing was covered)
        stake = next(e.amount for e in record.events if isinstance(e, Staked) and e.seat == you)
        base["stakes"] = {wager: format_decimal(stake)}
        base["net"] = {wager: "0"}
    base["total_net"] = format_decimal(net)
    base["outcome"] = record.outcome
    base["notes"] = list(record.notes)
    hands = _hands(seen, names, you)
    base["cards"] = [c["card"] for hand in hands for c in hand["cards"] if c["card"]]
    base["decisions"] = [
        {"action": d.action, "by": d.by, "text": decision_words(d, part)}
        for d in record.decisions
        if d.seat == you
    ]
    player = next((e.seat for e in record.events if isinstance(e, PlayerChosen)), None)
    coup.update(
        number=number,
        name=None if you is None else names[you],
        part=part,
        part_text=_part_text(part, you is not None and you == player),
        hands=hands,
    )
    return base


def _part_text(part: str, holds_player: bool) -> str:
    if part == "punter" and holds_player:
        return "You staked against the bank and held the player's hand"
    return PARTS[part]
