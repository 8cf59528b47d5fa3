"""A table: one game, one shoe, one bankroll; it runs rounds and keeps the books.

The table is where randomness meets the pure engines: it deals from a
:class:`~cardroom.core.shoe.Shoe` (or a stacked shoe), reshuffles at the rules'
reshuffle point between rounds (recording a ``reshuffled`` event in the round),
and posts every wager's net result to the :class:`~cardroom.core.money.Ledger`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from cardroom.core.events import Event, Reshuffled, event_to_json
from cardroom.core.money import Ledger, exact_json, format_amount
from cardroom.core.shoe import CardSource, ShoeExhausted, StackedShoe
from cardroom.games import GameInfo
from cardroom.games.base import PLAYER_SEAT, Action, Round, WagerError

Decide = Callable[[Round], Action]


@dataclass
class RoundRecord:
    """What a finished round leaves behind: enough to show it again or replay it."""

    game: str
    number: int
    shoe: int
    wagers: dict[str, Fraction]
    events: list[Event]
    outcome: str
    net: dict[str, Fraction]
    balance_before: Fraction | None
    balance_after: Fraction | None
    summary: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "number": self.number,
            "shoe": self.shoe,
            "wagers": {k: exact_json(v) for k, v in self.wagers.items()},
            "events": [event_to_json(e) for e in self.events],
            "outcome": self.outcome,
            "net": {k: exact_json(v) for k, v in self.net.items()},
            "balance_before": None
            if self.balance_before is None
            else exact_json(self.balance_before),
            "balance_after": None if self.balance_after is None else exact_json(self.balance_after),
            "summary": self.summary,
        }


class Table:
    """Runs rounds of one game from one card source, with an optional bankroll."""

    def __init__(
        self,
        game: GameInfo,
        rules: Any,
        source: CardSource,
        ledger: Ledger | None = None,
    ) -> None:
        self.game = game
        self.rules = rules
        self.source = source
        self.ledger = ledger
        self.rounds_played = 0
        self._before: Fraction | None = None

    def start_round(self, wagers: Mapping[str, Fraction | int | str]) -> Round:
        """Check the wagers (and the bankroll), reshuffle if due, and open a round.

        A wager that cannot be accepted raises :class:`WagerError` and changes nothing.
        """
        rnd = self.game.new_round(self.rules, wagers)  # type: ignore[arg-type]
        staked = sum(rnd.wagers.values(), Fraction(0))
        if self.ledger is not None and staked > self.ledger.balance:
            raise WagerError(
                f"the stakes ({format_amount(staked)}) are more than the bankroll "
                f"({format_amount(self.ledger.balance)})"
            )
        if self.source.needs_reshuffle:
            rnd.events.append(self.source.shuffle(self.source.next_cause))
        self._before = None if self.ledger is None else self.ledger.balance
        return rnd

    def step(self, rnd: Round) -> list[Event]:
        """Deal the one card the round wants next; returns the new events."""
        if rnd.next_hand is None:
            raise ValueError("the round wants no card now")
        try:
            card = self.source.draw()
        except ShoeExhausted:
            if isinstance(self.source, StackedShoe):
                raise
            event: Reshuffled = self.source.shuffle("ran_out", in_play=rnd.cards_in_play())
            rnd.events.append(event)
            return [event, *rnd.deal(self.source.draw())]
        return rnd.deal(card)

    def finish(self, rnd: Round) -> RoundRecord:
        """Post a complete round to the ledger and return its record."""
        if not rnd.is_complete or rnd.outcome is None:
            raise ValueError("the round is not complete")
        if self.ledger is not None:
            for net in rnd.net.values():
                self.ledger.post(net)
        self.rounds_played += 1
        return RoundRecord(
            game=self.game.id,
            number=self.rounds_played,
            shoe=self.source.shuffles,
            wagers=dict(rnd.wagers),
            events=list(rnd.events),
            outcome=rnd.outcome,
            net=dict(rnd.net),
            balance_before=self._before,
            balance_after=None if self.ledger is None else self.ledger.balance,
            summary=rnd.summary(),
        )

    def play(
        self, wagers: Mapping[str, Fraction | int | str], decide: Decide | None = None
    ) -> Round:
        """Play a whole round; ``decide`` answers the player's free decisions."""
        rnd = self.start_round(wagers)
        while not rnd.is_complete:
            if rnd.next_hand is not None:
                self.step(rnd)
            elif decide is None:
                raise ValueError(
                    f"{self.game.id} needs a player decision and no strategy was given"
                )
            else:
                rnd.act(PLAYER_SEAT, decide(rnd))
        return rnd
