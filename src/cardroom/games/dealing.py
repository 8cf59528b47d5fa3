"""Dealing rounds of one game from one card source, with no money and no I/O.

A :class:`Dealer` is where randomness meets a pure engine when nothing else is at
stake: it deals from a :class:`~cardroom.core.shoe.Shoe` (or a stacked one), reshuffles
at the rules' reshuffle point between rounds (a ``reshuffled`` event in the round), and
in mid-round when a variant's shoe runs dry (the cards on the table stay out).  It is
the reference play the simulator's kernels are checked against, and what benchmarks
and property tests drive; a table with people and money is
:class:`~cardroom.app.tables.house.HouseTable`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction

from cardroom.core.events import Event
from cardroom.core.shoe import CardSource, draw_or_reshuffle, reshuffle_if_due
from cardroom.games import GameInfo
from cardroom.games.base import PLAYER_SEAT, Action, GameRules, Round

Decide = Callable[[Round], Action]


class Dealer:
    """Deals rounds of one game from one card source."""

    def __init__(self, game: GameInfo, rules: GameRules, source: CardSource) -> None:
        self.game = game
        self.rules = rules
        self.source = source
        self.rounds_played = 0

    def start_round(self, wagers: Mapping[str, Fraction | int | str]) -> Round:
        """Check the wagers, reshuffle if due, and open a round.

        A wager that cannot be accepted raises :class:`~cardroom.games.base.WagerError`
        and changes nothing.
        """
        rnd = self.game.new_round(self.rules, wagers)
        reshuffle_if_due(self.source, rnd.events.append)
        return rnd

    def step(self, rnd: Round) -> list[Event]:
        """Deal the one card the round wants next; returns the new events."""
        if rnd.next_hand is None:
            raise ValueError("the round wants no card now")
        start = len(rnd.events)
        card = draw_or_reshuffle(self.source, rnd.cards_in_play, rnd.events.append)
        reshuffled = rnd.events[start:]
        return [*reshuffled, *rnd.deal(card)]

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
        self.rounds_played += 1
        return rnd
