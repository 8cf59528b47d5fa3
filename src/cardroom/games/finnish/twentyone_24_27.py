"""``21-24-27``: Finnish 27 with player decisions -- the whole rule set and its engine.

Cards are dealt player, dealer, player, dealer, face up.  Jokers always count 0.

1. Initial 27: only Ace + King (a *Finnish 27*).  The player's alone wins, the
   dealer's alone loses for the player, both push.
2. The player hits or stands, but the rules force the play in many spots
   (:class:`ForcedPlay`), keyed on the dealer's two-card total:
   - dealer hard below 21 or soft below 24: the player must hit hard totals below
     15 and soft below 23, must stand on hard 25 or more and soft 27, and is free
     in between;
   - otherwise: the player must hit below the dealer's total, must stand on a hard
     total at or above it and on a soft total above it, and is free only with a
     soft total equal to the dealer's.
   The engine makes forced plays itself and records them as forced decisions.
3. A player over 27 loses at once.  The dealer hits hard totals below 21 and soft
   totals below 24; a dealer over 27 loses.
4. Otherwise the hand closer to 27 wins; equal distance is a push.  Wins pay 1:1.

Options (issue 21; the defaults are the source's): equal distance to the dealer or
the player, a dealer's 28 as a stalemate or a dealer's win, and a fee per 100 staked
taken off every stake (see :mod:`cardroom.games.finnish.options`).

:data:`BASIC_STRATEGY` is the source's 18-row basic strategy; :class:`TableStrategy`
plays any such table for the player.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar, Protocol

from cardroom.core.events import NO_REASON, Decision, Event, Why
from cardroom.core.rules import ODDS, Between, Ref, check_choices, check_ranges, rule
from cardroom.core.shoe import ShoeRules
from cardroom.games.base import Action, IllegalAction, Round, TableLimits, check_wagers
from cardroom.games.finnish.hands import (
    TARGET,
    TOTAL_LIMIT,
    FinnishRound,
    Initial27,
    TargetRow,
    TargetTable,
    Total,
    counted_27s,
    finnish_total,
    initial_totals,
)
from cardroom.games.finnish.options import FEE, fee_of, with_fee

GAME_ID = "21-24-27"

#: The source's basic strategy (its 18 rows; "25 or 26" is one row for hard and
#: soft dealer totals, written here as two).
BASIC_STRATEGY_ROWS: tuple[TargetRow, ...] = (
    TargetRow("hard", 0, 6, hard=22, soft=24),
    TargetRow("hard", 7, 7, hard=22, soft=23),
    TargetRow("hard", 8, 8, hard=21, soft=23),
    TargetRow("hard", 9, 10, hard=22, soft=23),
    TargetRow("hard", 11, 15, hard=22, soft=24),
    TargetRow("hard", 16, 16, hard=21, soft=24),
    TargetRow("hard", 17, 17, hard=21, soft=23),
    TargetRow("hard", 18, 18, hard=20, soft=23),
    TargetRow("hard", 19, 20, hard=19, soft=23),
    TargetRow("hard", 21, 21, hard=21, soft=22),
    TargetRow("hard", 22, 22, hard=22, soft=23),
    TargetRow("hard", 23, 23, hard=23, soft=24),
    TargetRow("hard", 24, 24, hard=24, soft=25),
    TargetRow("hard", 25, 26, relative=0),
    TargetRow("soft", 25, 26, relative=0),
    TargetRow("soft", 24, 24, hard=24, soft=25),
    TargetRow("soft", 17, 23, hard=22, soft=24),
    TargetRow("soft", 16, 16, hard=22, soft=25),
    TargetRow("soft", 14, 15, hard=23, soft=25),
)
BASIC_STRATEGY = TargetTable(BASIC_STRATEGY_ROWS)


@dataclass(frozen=True)
class ForcedPlay:
    """Where the rules take the decision from the player (defaults: the source)."""

    #: what the rules pages and the lab call this part of the rules
    TITLE: ClassVar[str] = "Forced plays"

    weak_dealer_hard_below: int = rule(
        21,
        ('a dealer\'s hard two-card total below this is "weak": the rows below apply'),
        range=TOTAL_LIMIT,
    )
    weak_dealer_soft_below: int = rule(
        24,
        'a dealer\'s soft two-card total below this is "weak"',
        range=TOTAL_LIMIT,
    )
    must_hit_hard_below: int = rule(
        15,
        "against a weak dealer the player must hit a hard total below this",
        range=TOTAL_LIMIT,
    )
    must_hit_soft_below: int = rule(
        23,
        "against a weak dealer the player must hit a soft total below this",
        range=TOTAL_LIMIT,
    )
    must_stand_hard_from: int = rule(
        25,
        "against a weak dealer the player must stand on a hard total from this",
        range=Between(Ref("must_hit_hard_below"), TARGET + 1),
    )
    must_stand_soft_from: int = rule(
        27,
        "against a weak dealer the player must stand on a soft total from this",
        range=Between(Ref("must_hit_soft_below"), TARGET + 1),
    )

    def __post_init__(self) -> None:
        check_ranges(self)

    def weak(self, dealer: Total) -> bool:
        """Is the dealer's two-card total in the first ("weak dealer") regime?"""
        limit = self.weak_dealer_soft_below if dealer.soft else self.weak_dealer_hard_below
        return dealer.value < limit

    def forced(self, player: Total, dealer: Total) -> tuple[Action | None, Why]:
        """The action the rules force, or None when the player is free, and the rule."""
        if self.weak(dealer):
            against = {"dealer": dealer.points}
            if player.soft:
                if player.value < self.must_hit_soft_below:
                    limit = self.must_hit_soft_below
                    return Action.HIT, Why("must_hit_soft_below", {**against, "limit": limit})
                if player.value >= self.must_stand_soft_from:
                    limit = self.must_stand_soft_from
                    return Action.STAND, Why("must_stand_soft", {**against, "limit": limit})
            else:
                if player.value < self.must_hit_hard_below:
                    limit = self.must_hit_hard_below
                    return Action.HIT, Why("must_hit_hard_below", {**against, "limit": limit})
                if player.value >= self.must_stand_hard_from:
                    limit = self.must_stand_hard_from
                    return Action.STAND, Why("must_stand_hard", {**against, "limit": limit})
            return None, Why("free_against_weak", {**against, "player": player.points})
        if player.value < dealer.value:
            return Action.HIT, Why.of("must_hit_below_dealer", dealer=dealer.points)
        if not player.soft:
            return Action.STAND, Why.of("must_stand_hard_at_dealer", dealer=dealer.points)
        if player.value > dealer.value:
            return Action.STAND, Why.of("must_stand_soft_above_dealer", dealer=dealer.points)
        return None, Why.of("free_against_equal", player=player.points, dealer=dealer.points)


@dataclass(frozen=True)
class TwentyOne2427Rules:
    """Every rule of ``21-24-27`` that a variant may change (defaults: the source)."""

    shoe: ShoeRules = rule(
        words="six decks with two Jokers each, reshuffled once three quarters are dealt",
        factory=lambda: ShoeRules(reshuffle_fraction=Fraction(3, 4)),
    )
    table: TableLimits = rule(factory=TableLimits)
    win_pays: Fraction = rule(Fraction(1), "what a winning player wager pays", range=ODDS)
    forced: ForcedPlay = rule(
        words="where the player must hit or stand whatever he would choose",
        factory=ForcedPlay,
    )
    dealer_hits_hard_below: int = rule(
        21,
        "the dealer hits a hard total below this",
        range=TOTAL_LIMIT,
    )
    dealer_hits_soft_below: int = rule(
        24,
        "the dealer hits a soft total below this",
        range=TOTAL_LIMIT,
    )
    jokers_make_27: bool = rule(
        False,
        "a Joker as a first or second card makes the hand 27 (not in the source's game)",
    )
    both_initial_27s: str = rule(
        "push",
        'when both initial hands are Finnish 27s: "push", "dealer" or "player"',
        choices=("push", "dealer", "player"),
    )
    equal_distance: str = rule(
        "push",
        'hands equally close to 27: "push", "dealer" or "player"',
        choices=("push", "dealer", "player"),
    )
    dealer_28: str = rule(
        "normal",
        (
            "a dealer's final 28 against any total of the player's but 27: \"normal\" "
            '(the dealer is over 27 and loses), "stalemate" (a push) or "dealer_wins"'
        ),
        choices=("normal", "stalemate", "dealer_wins"),
        quiet=True,
    )
    fee_per_100: Fraction = rule(
        Fraction(0),
        "the house's collection per 100 staked, taken off the stake before the "
        "deal: the rest of the stake is the wager that plays",
        kind="amount",
        range=FEE,
        quiet=True,
    )

    def __post_init__(self) -> None:
        check_ranges(self)
        check_choices(self)

    @property
    def initial_27s(self) -> frozenset[Initial27]:
        """The two-card hands that are 27 at once: Ace + King, and Jokers if they make 27."""
        return counted_27s(self.jokers_make_27)

    @property
    def joanca_joker_second(self) -> bool:
        """A Joker makes its 27 in either place (the option is finnish27's)."""
        return False

    @property
    def jokers_wild(self) -> bool:
        """A Joker drawn after the deal counts 0 (the option is finnish27's)."""
        return False


def compare(
    player: Total, dealer: Total, rules: TwentyOne2427Rules | None = None
) -> tuple[str, Why]:
    """Settle a player hand of 27 or less against the dealer's complete hand."""
    equal = "push" if rules is None else rules.equal_distance
    totals = {"player": player.value, "dealer": dealer.value}
    dealer_28 = "normal" if rules is None else rules.dealer_28
    if dealer_28 != "normal" and dealer.value == TARGET + 1 and player.value != TARGET:
        if dealer_28 == "stalemate":
            return "push", Why("dealer_28_stalemate", totals)
        return "dealer", Why("dealer_28_wins", totals)
    if dealer.bust:
        return "player", Why.of("dealer_busts", total=dealer.value)
    if player.distance < dealer.distance:
        return "player", Why("player_closer", totals)
    if player.distance > dealer.distance:
        return "dealer", Why("dealer_closer", totals)
    if equal == "push":
        return equal, Why("equally_close_push", totals)
    return equal, Why("equally_close", {**totals, "winner": equal})


class Strategy(Protocol):
    """Decides a free hit/stand for the player."""

    name: str

    def decide(self, player: Total, dealer: Total) -> Action: ...


class TableStrategy:
    """Plays a hit-to-target table (by default the source's basic strategy)."""

    def __init__(self, table: TargetTable = BASIC_STRATEGY, name: str = "basic") -> None:
        table.check_covers(initial_totals(False))  # the source's game: no Joker 27s
        self.table = table
        self.name = name

    def decide(self, player: Total, dealer: Total) -> Action:
        return Action.HIT if self.table.hits(player, dealer) else Action.STAND

    def play(self, rnd: Round) -> Action:
        """The decision for a round that is waiting for one."""
        dealer = finnish_total(rnd.hands["dealer"][:2])
        return self.decide(finnish_total(rnd.hands["player"]), dealer)


class TwentyOne2427Round(FinnishRound):
    """One round of ``21-24-27``.

    With ``auto_forced`` (the default) the engine makes forced plays itself; without
    it the player is asked even then, and only the forced action is legal.
    """

    game = GAME_ID
    wager_ids = ("player",)

    def __init__(
        self,
        rules: TwentyOne2427Rules | None = None,
        wagers: Mapping[str, Fraction | int | str] | None = None,
        auto_forced: bool = True,
    ) -> None:
        self.rules = rules or TwentyOne2427Rules()
        super().__init__(check_wagers(wagers or {}, self.wager_ids, self.rules.table), self.rules)
        self.auto_forced = auto_forced
        self._legal: frozenset[Action] = frozenset()
        self._why: Why = NO_REASON

    def legal_actions(self) -> frozenset[Action]:
        return self._legal

    @property
    def decision_reason(self) -> Why:
        """Why the player may (or must) decide as :meth:`legal_actions` says."""
        return self._why if self._legal else NO_REASON

    def _decide(self, action: Action) -> list[Event]:
        if not self._legal:
            if self.is_complete:
                raise IllegalAction("the round is over: no decision is asked")
            raise IllegalAction(f"no decision is asked now: the next card goes to {self.next_hand}")
        action = Action(action)
        if action not in self._legal:
            [only] = self._legal
            raise IllegalAction(f"you cannot {action.value}: the rules make you {only.value}")
        start = len(self.events)
        forced = len(self._legal) == 1
        self._legal = frozenset()
        self.events.append(Decision("player", action, forced, self._why))
        self._apply(action)
        return self.events[start:]

    def _after_deal(self) -> None:
        player, dealer = self.initial["player"], self.initial["dealer"]
        if player and dealer:
            self._finish(self.rules.both_initial_27s, Why("both_27s"))
        elif player:
            self._finish("player", Why.of("named_27", hand="player", name=player.key))
        elif dealer:
            self._finish("dealer", Why.of("named_27", hand="dealer", name=dealer.key))
        else:
            self._phase = "player"
            self._player_turn()

    def _player_turn(self) -> None:
        player = self.total("player")
        if player.bust:
            self._finish("dealer", Why.of("player_busts", total=player.value))
            return
        action, why = self.rules.forced.forced(player, self.dealer_initial)
        self._why = why
        if action is not None and self.auto_forced:
            self.events.append(Decision("player", action, True, why))
            self._apply(action)
        elif action is not None:
            self._legal = frozenset({action})
        else:
            self._legal = frozenset({Action.HIT, Action.STAND})

    def _apply(self, action: Action) -> None:
        if action is Action.HIT:
            self._hit_pending = True
        else:
            self._dealer_turn()

    def _showdown(self, player: Total, dealer: Total) -> None:
        self._finish(*compare(player, dealer, self.rules))

    def settle(self, wager: str, stake: Fraction) -> tuple[Fraction, Why]:
        """The wager's net: the stake less the house's fee plays, and the fee is lost."""
        fee = fee_of(self.rules.fee_per_100, stake)
        return with_fee(*self._settle(wager, stake - fee), fee)

    def _settle(self, wager: str, stake: Fraction) -> tuple[Fraction, Why]:
        if self.outcome == "player":
            odds = self.rules.win_pays
            return stake * odds, Why.of("pays", wager="player", odds=odds)
        if self.outcome == "push":
            return Fraction(0), Why("push_returned")
        return -stake, Why.of("won_by", winner="dealer")
