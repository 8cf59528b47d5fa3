"""Check a shoe's rounds against the shoe rebuilt from its seeds (docs/fairness.md).

The shoe is rebuilt exactly as the table shuffled it: the rules' cards in their
unshuffled order (less the cards on the table, for a shoe shuffled when the last ran out
in the middle of a round), shuffled by :class:`~cardroom.core.fair.HmacShuffler`, the
burn taken off the top.  Then every card each round took from that shoe, in order, must
be the shoe's next.

A coup of a table of seats (chemin de fer) says where its shoe stood as it began
(``start["shoe"]``: the shoe's number and the cards dealt from it, burnt ones included):
not every coup is recorded (the draw for the bank, a coup of bots only), so each coup's
cards are checked from that place on, and places never go back.  A coup that does not
say (one finished after its server stopped) is left out.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from cardroom.app.history import RecordError, RoundRecord
from cardroom.app.tables.house import saved_rules
from cardroom.core.cards import Card
from cardroom.core.events import CardDealt, HandCard, Reshuffled
from cardroom.core.fair import HmacShuffler
from cardroom.core.shoe import Shoe, ShoeRules

__all__ = ["ShoeCheck", "check_shoe", "shoe_of", "shoe_order"]


@dataclass
class ShoeCheck:
    """What the check found: the cards checked, the rounds, and any differences."""

    shoe: int
    rounds: list[int] = field(default_factory=list)
    cards: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems and self.cards > 0


def shoe_order(
    rules: ShoeRules, seed: bytes, client_seed: str, held_out: Iterable[Card] = ()
) -> tuple[tuple[Card, ...], int]:
    """The shoe's cards in order and how many are burnt from the top."""
    shoe = Shoe(rules, HmacShuffler(seed, client_seed))
    event = shoe.shuffle("new_shoe", in_play=tuple(held_out))
    return shoe.order, event.burnt


def check_shoe(
    shoe: int, seed: bytes, client_seed: str, rounds: Sequence[tuple[int, dict[str, Any]]]
) -> ShoeCheck:
    """Check the rounds (``(id, record JSON)``, in the order they were dealt) that took
    cards from shoe number ``shoe``, against the shoe rebuilt from the seeds."""
    check = ShoeCheck(shoe)
    expected: list[Card] | None = None
    at = 0
    burnt_here = 0
    for round_id, data in rounds:
        try:
            record = RoundRecord.from_json(data)
            cards = list(record.cards)
            rules = saved_rules(record.game, record.rules).shoe
        except (RecordError, ValueError) as err:
            check.problems.append(f"round {round_id}: its record cannot be read ({err})")
            continue
        if record.start:  # a coup of a table of seats: where its shoe stood
            place = _place(record.start.get("shoe"))
            if place is None:
                continue  # (a coup finished after its server stopped: no place kept)
            number, dealt_before = place
            if number > shoe:
                if expected is not None:
                    break  # the next shoe's: this one deals no more
                continue
            if number == shoe:
                if expected is None:
                    order, burnt_here = shoe_order(rules, seed, client_seed)
                    expected = list(order[burnt_here:])
                if dealt_before - burnt_here < at:
                    check.problems.append(
                        f"round {round_id}: the coup begins at card {dealt_before + 1} of "
                        f"the shoe, which an earlier coup had dealt"
                    )
                at = max(at, dealt_before - burnt_here)
        dealt = 0  # the record's cards taken so far in this round
        used = False
        for event in record.events:
            if isinstance(event, Reshuffled):
                if event.shoe == shoe:
                    order, burnt = shoe_order(rules, seed, client_seed, cards[:dealt])
                    if event.burnt != burnt:
                        check.problems.append(
                            f"round {round_id}: the record burns {event.burnt} cards, "
                            f"the shoe {burnt}"
                        )
                    first = event.first_card
                    if first is not None and first != order[0]:
                        check.problems.append(
                            f"round {round_id}: the burn card turned is {first.code}, "
                            f"the shoe's first is {order[0].code}"
                        )
                    expected, at, burnt_here = list(order[burnt:]), 0, burnt
                elif expected is not None:
                    expected = []  # the next shoe: this one deals no more
                    if used:
                        check.rounds.append(round_id)
                    break
            elif isinstance(event, CardDealt | HandCard):  # (a card to a coup's hand)
                if expected is not None and dealt < len(cards):
                    used = True
                    card = cards[dealt]
                    if at >= len(expected):
                        check.problems.append(
                            f"round {round_id}: {card.code} dealt after the shoe's last card"
                        )
                    elif expected[at] != card:
                        check.problems.append(
                            f"round {round_id}: card {at + 1} of the shoe was dealt as "
                            f"{card.code}, the shoe holds {expected[at].code} there"
                        )
                    at += 1
                    check.cards += 1
                dealt += 1
        else:
            if used:
                check.rounds.append(round_id)
            continue
        if expected == []:
            break
    if expected is None:
        check.problems.append(f"no round recorded shuffling shoe {shoe}")
    return check


def _place(value: Any) -> tuple[int, int] | None:
    if (
        isinstance(value, list | tuple)
        and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value)
    ):
        return int(value[0]), int(value[1])
    return None


def shoe_of(rounds: Sequence[tuple[int, dict[str, Any]]]) -> ShoeRules | None:
    """The shoe's rules, as the first readable round's record has them."""
    for _, data in rounds:
        try:
            record = RoundRecord.from_json(data)
            return saved_rules(record.game, record.rules).shoe  # type: ignore[no-any-return]
        except (RecordError, ValueError):
            continue
    return None
