"""What the chemin de fer tables send, without a server: each event's sentence, a face-down
card that carries nothing to tell, the WebSocket's same-site check and the bots'
names."""

from __future__ import annotations

from fractions import Fraction

from cardroom.app.names import name_skeleton
from cardroom.app.tables.live import BOT_NAMES, bot_name
from cardroom.app.words import plain
from cardroom.core.cards import Card
from cardroom.core.events import (
    Announcement,
    BancoCalled,
    BankPut,
    CoupEvent,
    HandCard,
    HandShown,
    Points,
    SeatSettled,
)
from cardroom.games.chemin_de_fer.words import ChemmyNarrator
from cardroom.web.events import event_json
from cardroom.web.routes.chemmy import same_site

NAMES = ("Ann", "Bob", "Aino")


def told(entry: CoupEvent, narrator: ChemmyNarrator) -> dict[str, object]:
    """``entry`` as a connection whose person ``narrator`` tells it gets it."""
    return event_json(entry, plain(narrator.line(entry.event)))


def test_a_face_down_card_of_another_seat_carries_no_card() -> None:
    ann = ChemmyNarrator(NAMES, you=0)
    hidden = told(CoupEvent(3, HandCard("player", 1, None, False, None)), ann)
    assert hidden["card"] is None and hidden["total"] is None and hidden["card_alt"] is None
    assert hidden["text"] == "A card face down to Bob (player)"
    own = told(CoupEvent(3, HandCard("banker", 0, Card.parse("Qh"), False, Points(2))), ann)
    assert own["card"] == "Qh" and own["card_alt"] == "12 of hearts"
    assert own["text"] == "12♥ to you as the banker (only you see it): 2"


def test_every_kind_of_event_reads_as_a_sentence() -> None:
    events = [
        BankPut(0, Fraction(30)),
        BancoCalled(2, Fraction(30)),
        Announcement("player", 2, "draw"),
        HandShown("player", 2, (Card.parse("As"), Card.parse("9d")), 0),
        SeatSettled(0, Fraction(30), Fraction(-30)),
    ]
    # told to Bob, who watches, and to Ann, the banker, from the same events
    bob, ann = ChemmyNarrator(NAMES, you=1), ChemmyNarrator(NAMES, you=0)
    assert [told(CoupEvent(1, e), bob)["text"] for e in events] == [
        "Ann puts up a bank of 30",
        'Aino calls "Banco!": covers the whole bank of 30',
        "Aino draws (player)",
        "Aino shows the player's hand: 1♠ 9♦ = 0",
        "Ann (bank): -30 on 30",
    ]
    assert [told(CoupEvent(1, e), ann)["text"] for e in events] == [
        "You put up a bank of 30",
        'Aino calls "Banco!": covers the whole bank of 30',
        "Aino draws (player)",
        "Aino shows the player's hand: 1♠ 9♦ = 0",
        "You (bank): -30 on 30",
    ]
    shown = told(CoupEvent(1, events[3]), bob)
    assert shown["cards_alt"] == ["1 of spades", "9 of diamonds"]


def test_the_websocket_takes_only_this_site() -> None:
    assert same_site("http://127.0.0.1:8000", "127.0.0.1:8000")
    assert same_site("https://cards.example", "cards.example")
    assert not same_site("http://evil.example", "cards.example")
    assert not same_site("null", "cards.example")
    assert not same_site(None, "cards.example")
    assert not same_site("ftp://cards.example", "cards.example")


def test_a_bot_takes_a_name_nobody_at_the_table_has() -> None:
    assert bot_name([]) == "Aino" and bot_name(["Ann"], 1) == "Eero"
    assert bot_name(["aino", "EERO"]) == "Helmi"  # (without regard to case)
    assert bot_name(BOT_NAMES) == "Aino 2"
    assert bot_name([*BOT_NAMES, "Aino 2", "Eero 2"], 1) == "Helmi 2"
    # a name that looks like a bot's (a Cyrillic А) is one with it, as at registration
    assert bot_name(["\u0410ino"]) == "Aino"
    assert bot_name(["\u0410ino"], alike=name_skeleton) == "Eero"
