"""An event as the pages and the API get it: the one function that turns any event into
JSON (:func:`event_json`), a house game's or a chemin de fer coup's.

An event goes out as the event registry writes it (:func:`event_to_json`), with more keys
for people: ``text``, its sentence, and its cards in words: ``card_alt`` for a dealt card
(null for a card face down, which has no words) and ``cards_alt`` for a hand turned over.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cardroom.core.events import (
    CardDealt,
    CoupEvent,
    DrawForBank,
    Event,
    HandCard,
    HandShown,
    event_to_json,
)
from cardroom.web.cards import card_label


def event_json(
    event: Event | CoupEvent, text: str, encoded: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """``event`` (a coup's comes with its number) with its sentence ``text`` and its
    cards in words; ``encoded``: the registry's JSON of it, where it was written already.

    >>> from cardroom.core.cards import Card
    >>> from cardroom.core.events import Points
    >>> seen = HandCard("banker", 0, Card.parse("Qh"), False, Points(2))
    >>> event_json(CoupEvent(3, seen), "You get a 12 of hearts")["card_alt"]
    '12 of hearts'
    >>> event_json(CoupEvent(3, HandCard("player", 1, None, False, None)), "...")["card_alt"]
    """
    data = event_to_json(event) if encoded is None else dict(encoded)
    data["text"] = text
    bare = event.event if isinstance(event, CoupEvent) else event
    if isinstance(bare, CardDealt):
        data["card_alt"] = card_label(bare.card)
    elif isinstance(bare, HandCard | DrawForBank):
        data["card_alt"] = None if bare.card is None else card_label(bare.card)
    elif isinstance(bare, HandShown):
        data["cards_alt"] = [card_label(card) for card in bare.cards]
    return data


def says_card(kind: type[Any]) -> bool:
    """Does a house game's event of this class come with its card in words?"""
    return issubclass(kind, CardDealt)


def card_words(kind: type[Any]) -> dict[str, bool]:
    """The cards in words a coup's event of class ``kind`` comes with, beyond its
    sentence: each key, and whether it may be null (a card face down has no words).

    >>> card_words(HandCard), card_words(HandShown), card_words(CardDealt)
    ({'card_alt': True}, {'cards_alt': False}, {})
    """
    if issubclass(kind, HandCard):
        return {"card_alt": True}
    if issubclass(kind, DrawForBank):
        return {"card_alt": False}
    if issubclass(kind, HandShown):
        return {"cards_alt": False}
    return {}


__all__ = ["card_words", "event_json", "says_card"]
