"""``chemin-de-fer``'s bots, and the session that deals from a shoe and lets them act.

A bot decides through a :class:`ChemmyStrategy`: the player's draw at a free total, the
banker's draw, and the money (its bank, its stake).  :class:`TableauBot` is the simple
default; the game-theoretic solution's bot is made by
:func:`cardroom.games.chemin_de_fer.analysis.equilibrium_bot`.  :class:`ChemmySession` deals
from a card source, reshuffles where the shoe says so, and lets the bots act until a
person must decide.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol

import numpy as np

from cardroom.core.cards import Card
from cardroom.core.events import CoupEvent, Reshuffled
from cardroom.core.shoe import CardSource, draw_or_reshuffle, reshuffle_if_due
from cardroom.games.baccarat import Tableau
from cardroom.games.base import IllegalAction, Turn
from cardroom.games.chemin_de_fer.engine import ChemmyGame, Phase, TableView
from cardroom.games.chemin_de_fer.rules import ChemmyAction, ChemmyRules


@dataclass(frozen=True)
class Cover:
    """A covering decision: ``banco``, ``stake`` (with an amount) or ``pass``."""

    action: ChemmyAction
    amount: Fraction | None = None


class PlayerDrawStrategy(Protocol):
    """Decides the player's free draw (at 5 under the default rules)."""

    @property
    def name(self) -> str: ...

    def player_draws(self, total: int, rng: np.random.Generator) -> bool: ...


class BankerDrawStrategy(Protocol):
    """Decides the banker's draw, knowing its total and the player's third card (None: stood)."""

    @property
    def name(self) -> str: ...

    def banker_draws(
        self, banker_total: int, player_third: Card | None, rng: np.random.Generator
    ) -> bool: ...


class MoneyPolicy(Protocol):
    """Decides the bank to put up (None: pass the bank) and how to cover a bank."""

    @property
    def name(self) -> str: ...

    def choose_bank(self, view: TableView, rng: np.random.Generator) -> Fraction | None: ...

    def choose_cover(self, view: TableView, rng: np.random.Generator) -> Cover: ...


class ChemmyStrategy(PlayerDrawStrategy, BankerDrawStrategy, MoneyPolicy, Protocol):
    """Everything a seat decides: a bot."""


class AlwaysDrawAtFive:
    """The player draws whenever the rules leave the choice (at 5 by default)."""

    name = "always-draw-at-5"

    def player_draws(self, total: int, rng: np.random.Generator) -> bool:
        return True


class MixedAtFive:
    """The player draws at a free total with probability ``draw`` (a mixed strategy)."""

    def __init__(self, draw: Fraction) -> None:
        if not 0 <= draw <= 1:
            raise ValueError("draw: a probability is 0 to 1")
        self.draw = draw
        self.name = f"draw-at-5-with-{draw}"

    def player_draws(self, total: int, rng: np.random.Generator) -> bool:
        return bool(rng.random() < self.draw)


class CasinoTableauBanker:
    """The banker draws as the punto banco tableau says (``baccarat.Tableau``)."""

    def __init__(self, tableau: Tableau | None = None) -> None:
        self.tableau = tableau or Tableau()
        self.name = "casino-tableau"

    def banker_draws(
        self, banker_total: int, player_third: Card | None, rng: np.random.Generator
    ) -> bool:
        return self.tableau.banker_draws(banker_total, player_third)


class SimpleMoney:
    """A plain money policy, in table minimums.

    - Bank: ``bank_minimums`` minimums, kept inside the legal range (the one legal amount
      when the rules fix it); it never passes the bank.
    - Cover: "Banco" when that is allowed and the bank is at most ``banco_share`` of its
      stack; otherwise a stake of what the bank still needs, at least the minimum, at most
      ``stake_minimums`` minimums and its stack.
    """

    def __init__(
        self,
        bank_minimums: int = 3,
        stake_minimums: int = 2,
        banco_share: Fraction = Fraction(1, 5),
    ) -> None:
        self.bank_minimums = bank_minimums
        self.stake_minimums = stake_minimums
        self.banco_share = banco_share
        self.name = "simple-money"

    def choose_bank(self, view: TableView, rng: np.random.Generator) -> Fraction | None:
        assert view.low is not None and view.high is not None
        wanted = self.bank_minimums * view.minimum
        return min(max(wanted, view.low), view.high)

    def choose_cover(self, view: TableView, rng: np.random.Generator) -> Cover:
        if view.can_banco and view.bank is not None and view.bank <= self.banco_share * view.stack:
            return Cover(ChemmyAction.BANCO)
        amount = min(max(view.uncovered, view.minimum), self.stake_minimums * view.minimum)
        amount = min(amount, view.stack)
        if amount < view.minimum:
            return Cover(ChemmyAction.PASS)
        return Cover(ChemmyAction.STAKE, amount)


class TableauBot:
    """The default bot: money by :class:`SimpleMoney`, the player's choice by
    :class:`AlwaysDrawAtFive`, the banker's by :class:`CasinoTableauBanker`.

    Each part can be swapped for another strategy of the same kind.
    """

    def __init__(
        self,
        money: MoneyPolicy | None = None,
        player: PlayerDrawStrategy | None = None,
        banker: BankerDrawStrategy | None = None,
        name: str = "tableau",
    ) -> None:
        self.money: MoneyPolicy = money or SimpleMoney()
        self.player: PlayerDrawStrategy = player or AlwaysDrawAtFive()
        self.banker: BankerDrawStrategy = banker or CasinoTableauBanker()
        self.name = name

    def choose_bank(self, view: TableView, rng: np.random.Generator) -> Fraction | None:
        return self.money.choose_bank(view, rng)

    def choose_cover(self, view: TableView, rng: np.random.Generator) -> Cover:
        return self.money.choose_cover(view, rng)

    def player_draws(self, total: int, rng: np.random.Generator) -> bool:
        return self.player.player_draws(total, rng)

    def banker_draws(
        self, banker_total: int, player_third: Card | None, rng: np.random.Generator
    ) -> bool:
        return self.banker.banker_draws(banker_total, player_third, rng)


def table_bot(rules: ChemmyRules) -> TableauBot:
    """The bot that holds a seat at the web's tables under ``rules``: it draws whenever the
    player may choose and, as the banker, by the rules' tableau (the rules page tells so)."""
    return TableauBot(money=SimpleMoney(), banker=CasinoTableauBanker(rules.tableau))


def bot_choice(
    bot: ChemmyStrategy, game: ChemmyGame, turn: Turn, rng: np.random.Generator
) -> tuple[str, Fraction | None]:
    """What ``bot`` decides at ``turn``: an action and its amount (a bank or a stake)."""
    seat = turn.seat
    if ChemmyAction.PUT_BANK in turn.actions:
        amount = bot.choose_bank(game.table_view(seat), rng)
        if amount is None:
            return ChemmyAction.PASS_BANK, None
        return ChemmyAction.PUT_BANK, amount
    if ChemmyAction.STAKE in turn.actions:
        choice = bot.choose_cover(game.table_view(seat), rng)
        return choice.action, choice.amount
    if game.phase is Phase.PLAYER:
        draws = bot.player_draws(game.total("player"), rng)
    else:
        holding = getattr(bot, "banker_draws_holding", None)
        if holding is not None:  # a strategy that uses the banker's two cards, not his total
            draws = bool(holding(tuple(game.hands["banker"]), game.player_third, rng))
        else:
            draws = bot.banker_draws(game.total("banker"), game.player_third, rng)
    return (ChemmyAction.DRAW if draws else ChemmyAction.STAND), None


# -- the driver ------------------------------------------------------------------------------
class ChemmySession:
    """Runs a game from a card source: deals, reshuffles, and lets the bots act.

    ``bots`` maps seats to strategies; every other seat is a person, whose decisions the
    caller makes on the game itself (``session.game.stake(...)``) when :meth:`advance`
    returns their :class:`Turn`.  The shoe is reshuffled at its cut card before a coup's
    first card, and in mid-coup only if it runs dry (the cards on the table stay out).
    """

    def __init__(
        self,
        game: ChemmyGame,
        source: CardSource,
        bots: Mapping[int, ChemmyStrategy],
        rng: np.random.Generator,
    ) -> None:
        for seat in bots:
            game._check_seat(seat)
        self.game = game
        self.source = source
        self.bots = dict(bots)
        self.rng = rng
        self._seen: dict[int | None, int] = {}

    def waiting_for(self) -> Turn | None:
        """The person's turn the game waits for now (None: a card, a bot, or the game is over)."""
        turn = self.game.to_act
        if turn is None or turn.seat in self.bots:
            return None
        return turn

    def advance(self) -> Turn | None:
        """Deal and let bots act until a person must decide (their Turn) or the coup ends (None)."""

        def bot_plays(turn: Turn) -> bool:
            bot = self.bots.get(turn.seat)
            if bot is not None:
                self.bot_acts(bot, turn)
            return bot is not None

        return advance_coup(self.game, self.deal_one, bot_plays)

    def play_coups(self, count: int) -> int:
        """Play up to ``count`` coups with bots only; returns how many ended."""
        played = 0
        while played < count and not self.game.is_over:
            if self.advance() is not None:
                raise IllegalAction("a person must decide: play_coups runs bots only")
            played += 1
        return played

    def deal_one(self) -> list[CoupEvent]:
        """Deal the card the game wants, reshuffling first where the shoe says so."""
        game, source = self.game, self.source
        new: list[CoupEvent] = []

        def record(event: Reshuffled) -> None:
            new.extend(game.record(event))

        if game.at_deal_start:
            reshuffle_if_due(source, record, begins_round=game.at_coup_start)
        card = draw_or_reshuffle(source, game.cards_in_play, record)
        return new + game.deal(card)

    def bot_acts(self, bot: ChemmyStrategy, turn: Turn) -> list[CoupEvent]:
        """Let ``bot`` make the decision ``turn`` asks for."""
        action, amount = bot_choice(bot, self.game, turn, self.rng)
        return self.game.act(turn.seat, action, amount)

    def new_events(self, seat: int | None) -> list[CoupEvent]:
        """What ``seat`` (None: an onlooker) may see of what happened since it last asked."""
        start = self._seen.get(seat, 0)
        events = self.game.visible_events(seat, start)
        self._seen[seat] = start + len(events)
        return events


def advance_coup(
    game: ChemmyGame,
    deal: Callable[[], object],
    plays_for: Callable[[Turn], bool],
    moved: Callable[[], object] | None = None,
) -> Turn | None:
    """Deal the coup on (``deal``: one card) and let the seats that are played for act
    (``plays_for`` makes the decision and says True, or says False for a person who
    decides) until a person must decide (their Turn) or the coup ends (None); ``moved``
    is called after each card and each decision.  The bots' driver and the table with
    people both go on this way."""
    coup = game.coup
    while not game.is_over and game.coup == coup:
        if game.next_card_for is not None:
            deal()
        else:
            turn = game.to_act
            assert turn is not None
            if not plays_for(turn):
                return turn
        if moved is not None:
            moved()
    return None
