"""A seat at a chemin de fer table as a Gymnasium environment: its draws as the player
at 5 and as the banker, against the table's bots (``cardroom/CheminDeFerSeat-v0``;
registered by :mod:`cardroom.gym`).

The agent sits at seat 0 of a table of the game's own engine
(:class:`~cardroom.games.chemin_de_fer.engine.ChemmyGame`) with ``bots`` other seats,
dealt by the bots' driver (:class:`~cardroom.games.chemin_de_fer.bots.ChemmySession`)
from a :class:`~cardroom.core.shoe.Shoe` of the rules, shuffled by the generator
Gymnasium seeds at ``reset(seed=...)`` (which also draws the bots' mixed choices).  The
table plays on from one episode to the next, the bank going round as the rules say;
``reset(seed=...)`` starts a new table and shoe.  When the game is over (fewer than two
seats reach the table minimum), or between coups once the agent's stack is below it,
the table starts again with every seat at ``stack``; the shoe goes on.

**An episode** is one coup in which the agent decides a draw: holding the player's hand
(for every punter, as the largest stake) at a total the rules leave free (5 by default),
or holding the bank when the player has drawn or stood (the banker always chooses,
unless the rules force him by the tableau); a ``reset`` before its end plays the draw
as the bots would.  Its money is decided for it by ``money``
(by default :class:`~cardroom.games.chemin_de_fer.bots.SimpleMoney`, the bots' own: a bank
of three minimums, "Banco" on a bank of at most a fifth of its stack, else a stake of two
minimums).  Coups in which it has no draw to decide (another seat holds the hand, a
natural, the draw for the bank) are played inside ``reset``, which says how many there
were and what they gave in its info.

**Actions**: ``Discrete(2)``: 0 stands, 1 draws.  A step after the coup's end raises
:class:`~cardroom.games.base.IllegalAction` (call ``reset``), as does an action outside
the space; both draws are always allowed when the agent is asked.

**Observations** (a ``Dict``; what the seat sees, face-down cards of other seats unseen):

- ``"role"``: ``Discrete(3)``: the hand the seat holds this coup: 1 the player's, 2 the
  banker's (0 none: never while it decides);
- ``"total"``: ``Discrete(10)``: that hand's total;
- ``"cards"``: ``Box(0, n, (13,), int64)``: that hand's cards by rank, Ace to King
  (``n``: the shoe's cards of each rank);
- ``"third"``: ``Discrete(14)``: the player's third card, dealt face up, as its rank's
  number (Ace 1 ... King 13), 0 when the player has none (he stood, or has not drawn yet);
- ``"shoe"`` (with ``shoe_composition=True``): the same shape as ``"cards"``: the cards of
  each rank the seat has not seen since the shoe was last shuffled (its own, every face-up
  card, the draw for the bank and the hands shown at the end of each coup are seen).

**Reward**: the seat's net for the coup per unit it had at stake (its bank's covered
part, or its own stake): 1 a win, 0 a tie, -1 a loss, the house's commission taken off a
banker's win; 0 before the coup ends.

**Info**: ``"action_mask"``, ``int8`` of shape (2,): 1 where the action (stand, draw) is
allowed now (none once the coup is over); from ``reset``, ``"coups_without_choice"`` and
``"net_without_choice"`` (those coups' nets per unit staked, added up); at the end of a
coup, ``"outcome"`` (``player``, ``banker`` or ``tie``).

>>> env = CheminDeFerSeatEnv()
>>> observation, info = env.reset(seed=7)
>>> int(observation["role"]) in (1, 2), info["action_mask"].tolist()
(True, [1, 1])
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any, SupportsFloat, SupportsInt

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.envs.registration import EnvSpec
from numpy.typing import NDArray

from cardroom.core.cards import RANKS, Card
from cardroom.core.events import (
    BankPut,
    CoupEvent,
    DrawForBank,
    HandCard,
    HandShown,
    Outcome,
    PlayerChosen,
    Reshuffled,
    SeatSettled,
)
from cardroom.core.money import parse_amount
from cardroom.core.shoe import SeededShuffler, Shoe
from cardroom.games.baccarat import baccarat_total
from cardroom.games.base import IllegalAction, Turn
from cardroom.games.chemin_de_fer.analysis import equilibrium_bot
from cardroom.games.chemin_de_fer.bots import (
    ChemmySession,
    ChemmyStrategy,
    MoneyPolicy,
    SimpleMoney,
    TableauBot,
    table_bot,
)
from cardroom.games.chemin_de_fer.engine import ChemmyGame
from cardroom.games.chemin_de_fer.rules import HANDS, ChemmyAction, ChemmyRules
from cardroom.games.chemin_de_fer.spec import CHEMIN_DE_FER
from cardroom.games.gym_base import Observation, count_ranks, rules_from

__all__ = ["ACTIONS", "ENVIRONMENTS", "ROLES", "CheminDeFerSeatEnv"]

#: the actions by number
ACTIONS: tuple[ChemmyAction, ChemmyAction] = (ChemmyAction.STAND, ChemmyAction.DRAW)
#: the hands a seat may hold, by their number in ``"role"``
ROLES: tuple[str | None, ...] = (None, "player", "banker")
#: the agent's seat
SEAT = 0
#: coups played in one ``reset`` before it gives up (a money policy that never plays)
MAX_COUPS = 100_000


class CheminDeFerSeatEnv(gymnasium.Env[Observation, np.int64]):
    """A chemin de fer seat's draws against the table's bots (see the module).

    ``rules``: the rules, or the path of a rules TOML file (``cardroom rules
    chemin-de-fer``); the standard rules by default.  ``bots``: how many other seats (1
    to the rules' most seats less one); ``opponents``: ``"table"`` (the web's table bots:
    they draw at 5 and bank by the rules' tableau) or ``"solved"`` (the solved coup's
    equilibrium, ``cardroom strategy chemin-de-fer``); ``stack``: every seat's stack when
    a table starts (100 table minimums by default); ``money``: the agent's bank and stakes.
    """

    #: (typed as Gymnasium's Env types it; ``gymnasium.make`` reads it from the class)
    metadata = {"render_modes": ["ansi"], "render_fps": 4}  # noqa: RUF012

    def __init__(
        self,
        rules: ChemmyRules | str | Path | None = None,
        bots: int = 2,
        opponents: str = "table",
        stack: Fraction | int | str | None = None,
        money: MoneyPolicy | None = None,
        shoe_composition: bool = False,
        render_mode: str | None = None,
    ) -> None:
        self.rules: ChemmyRules = rules_from(CHEMIN_DE_FER, rules)
        rules_ = self.rules
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode: ansi or None, not {render_mode!r}")
        if not rules_.min_seats <= bots + 1 <= rules_.max_seats:
            raise ValueError(
                f"bots: the table seats {rules_.min_seats} to {rules_.max_seats}, so 1 seat "
                f"and {rules_.min_seats - 1} to {rules_.max_seats - 1} bots, not {bots}"
            )
        free_player = rules_.player_must_draw_below < rules_.player_must_stand_from
        if not free_player and rules_.banker_forced_by_tableau:
            raise ValueError(
                "rules: the player's draws and the banker's are all forced, so the seat "
                "would never be asked"
            )
        if opponents == "table":
            bot: ChemmyStrategy = table_bot(rules_)
        elif opponents == "solved":
            bot = equilibrium_bot(rules_)
        else:
            raise ValueError(f'opponents: "table" or "solved", not {opponents!r}')
        self.stack = rules_.table.minimum * 100 if stack is None else parse_amount(stack)
        if self.stack < rules_.table.minimum:
            raise ValueError("stack: a seat needs at least the table minimum to play")
        self.render_mode = render_mode
        self.shoe_composition = shoe_composition
        self.bots: dict[int, ChemmyStrategy] = {seat: bot for seat in range(1, bots + 1)}
        self.money: ChemmyStrategy = TableauBot(money=money or SimpleMoney())
        self._full = count_ranks(rules_.shoe.cards(), RANKS)
        self._unseen = self._full.copy()
        self._shoe: Shoe | None = None
        self._session: ChemmySession | None = None
        self._coup_start = 0  # where this coup's entries start in the table's log
        self._dealt: dict[str, int] = {}  # the cards dealt to each hand this coup
        self._seen_of: dict[str, dict[int, Card]] = {}  # those the seat saw, by place
        cards = spaces.Box(0, self._full, (len(RANKS),), np.int64)
        fields: dict[str, spaces.Space[Any]] = {
            "role": spaces.Discrete(len(ROLES)),
            "total": spaces.Discrete(10),
            "cards": cards,
            "third": spaces.Discrete(len(RANKS) + 1),
        }
        if shoe_composition:
            fields["shoe"] = cards
        self.observation_space = spaces.Dict(fields)
        self.action_space = spaces.Discrete(len(ACTIONS))

    # -- the Gymnasium API ----------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        """Play on to the next coup in which the seat draws or stands (a new table and
        shoe, shuffled from ``seed``, when one is given).  A coup left before its end is
        played out first, the seat drawing as the bots would (counted among the coups
        without a choice)."""
        super().reset(seed=seed)
        if seed is not None or self._shoe is None:
            self._shoe = Shoe(self.rules.shoe, SeededShuffler(self.np_random))
            self._unseen = self._full.copy()
            self._session = None
        skipped, net = 0, 0.0
        if self._session is not None and self._asked():
            turn = self._session.game.to_act
            assert turn is not None
            coup = self._session.game.coup
            self._session.bot_acts(self.money, turn)
            self._look()
            self._play_on(coup)
            skipped, net = 1, self._reward()
        while not self._play_coup():
            skipped += 1
            net += self._reward()
            if skipped >= MAX_COUPS:
                raise RuntimeError(f"{MAX_COUPS} coups played and none asked the seat to draw")
        info = self._info()
        info["coups_without_choice"] = skipped
        info["net_without_choice"] = net
        return self._observation(), info

    def step(
        self, action: SupportsInt
    ) -> tuple[Observation, SupportsFloat, bool, bool, dict[str, Any]]:
        """Stand (0) or draw (1); the coup is played on until it ends."""
        session = self._session
        if session is None or not self._asked():
            raise IllegalAction("the coup is over: call reset() to play the next one")
        number = int(action)
        if not 0 <= number < len(ACTIONS):
            raise IllegalAction(f"action {number}: 0 stands and 1 draws, there is no other")
        coup = session.game.coup
        session.game.act(SEAT, ACTIONS[number])
        self._look()
        asked = self._play_on(coup)
        info = self._info()
        if asked:  # pragma: no cover - a seat draws once a coup
            return self._observation(), 0.0, False, False, info
        info["outcome"] = self._outcome()
        return self._observation(), self._reward(), True, False, info

    def render(self) -> str | None:
        """The coup as the seat sees it, in one line (``render_mode="ansi"``)."""
        if self.render_mode != "ansi" or self._session is None:
            return None
        observation = self._observation()
        role = ROLES[int(observation["role"])]
        if role is None:
            return "the seat holds no hand"
        cards = " ".join(card.code for card in self._hand(role))
        third = int(observation["third"])
        shown = f" · the player's third card {third}" if third else ""
        outcome = self._outcome()
        end = f" · {outcome}" if outcome else ""
        return f"the seat holds the {role}: {cards} ({int(observation['total'])}){shown}{end}"

    def action_masks(self) -> NDArray[np.int8]:
        """The actions allowed now (stand, draw), as ``info["action_mask"]`` gives them."""
        return np.array([self._asked()] * len(ACTIONS), np.int8)

    # -- playing ----------------------------------------------------------------------------
    def _new_table(self) -> None:
        assert self._shoe is not None
        seats = [("You", self.stack)] + [(f"Bot {seat}", self.stack) for seat in self.bots]
        game = ChemmyGame(self.rules, seats)
        self._session = ChemmySession(game, self._shoe, self.bots, self.np_random)

    def _play_coup(self) -> bool:
        """Play the next coup until the seat must draw or stand (True) or it ends."""
        session = self._session
        minimum = self.rules.table.minimum
        if session is None or session.game.is_over or session.game.stacks[SEAT] < minimum:
            self._new_table()
            session = self._session
            assert session is not None
        self._coup_start = len(session.game.log)
        self._dealt = dict.fromkeys(HANDS, 0)
        self._seen_of = {hand: {} for hand in HANDS}
        return self._play_on(session.game.coup)

    def _play_on(self, coup: int) -> bool:
        """Deal and let the bots (and the seat's money) act through ``coup``: True when the
        seat must draw or stand, False when the coup is over."""
        session = self._session
        assert session is not None
        game = session.game
        while game.coup == coup and not game.is_over:
            turn = session.advance()
            self._look()
            if turn is None:
                break
            if turn.actions & set(ACTIONS):
                return True
            session.bot_acts(self.money, turn)
            self._look()
        return False

    def _asked(self) -> bool:
        if self._session is None:
            return False
        turn: Turn | None = self._session.game.to_act
        return turn is not None and turn.seat == SEAT and bool(turn.actions & set(ACTIONS))

    # -- what the seat sees ---------------------------------------------------------------
    def _look(self) -> None:
        """Count the cards the seat saw since it last looked."""
        assert self._session is not None
        for entry in self._session.new_events(SEAT):
            event = entry.event
            if isinstance(event, Reshuffled):
                self._unseen = self._full.copy()
                if event.cause == "ran_out":  # in mid-coup: the cards on the table stay out
                    for seen in self._seen_of.values():
                        for card in seen.values():
                            self._seen(card)
                if event.first_card is not None:
                    self._seen(event.first_card)
            elif isinstance(event, DrawForBank):
                self._seen(event.card)
            elif isinstance(event, HandCard):
                index = self._dealt[event.hand]  # the card's place in its hand
                self._dealt[event.hand] += 1
                if event.card is not None:
                    self._seen(event.card)
                    self._seen_of[event.hand][index] = event.card
            elif isinstance(event, HandShown):
                for index, card in enumerate(event.cards):
                    if index not in self._seen_of[event.hand]:
                        self._seen(card)
                        self._seen_of[event.hand][index] = card

    def _seen(self, card: Card) -> None:
        self._unseen[RANKS.index(card.rank)] -= 1

    def _coup(self) -> list[CoupEvent]:
        assert self._session is not None
        return self._session.game.log[self._coup_start :]

    def _role(self) -> str | None:
        """The hand the seat holds this coup."""
        for entry in self._coup():
            event = entry.event
            if isinstance(event, BankPut) and event.seat == SEAT:
                return "banker"
            if isinstance(event, PlayerChosen) and event.seat == SEAT:
                return "player"
        return None

    def _hand(self, hand: str) -> list[Card]:
        """The cards of ``hand`` this coup (read from the table's record: once a coup is
        settled the table is already at the next one)."""
        return [
            entry.event.card
            for entry in self._coup()
            if isinstance(entry.event, HandCard)
            and entry.event.hand == hand
            and entry.event.card is not None
        ]

    def _observation(self) -> Observation:
        role = self._role()
        cards = self._hand(role) if role else []
        player = self._hand("player")
        third = player[2].rank.number if len(player) > 2 else 0
        observation: Observation = {
            "role": np.int64(ROLES.index(role)),
            "total": np.int64(baccarat_total(cards)),
            "cards": count_ranks(cards, RANKS),
            "third": np.int64(third),
        }
        if self.shoe_composition:
            observation["shoe"] = self._unseen.copy()
        return observation

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self.action_masks()}

    def _reward(self) -> float:
        for entry in self._coup():
            event = entry.event
            if isinstance(event, SeatSettled) and event.seat == SEAT and event.stake:
                return float(event.net / event.stake)
        return 0.0

    def _outcome(self) -> str | None:
        for entry in self._coup():
            if isinstance(entry.event, Outcome):
                return entry.event.outcome
        return None


#: the environments chemin de fer offers (:mod:`cardroom.gym` registers them)
ENVIRONMENTS: tuple[EnvSpec, ...] = (
    EnvSpec(
        id="cardroom/CheminDeFerSeat-v0", entry_point=f"{__name__}:{CheminDeFerSeatEnv.__name__}"
    ),
)
