"""21-24-27 as a Gymnasium environment: the player's hit-or-stand decisions, dealt from
the real shoe (``cardroom/TwentyOne2427-v0``; registered by :mod:`cardroom.gym`).

The environment deals rounds of the game's own engine
(:class:`~cardroom.games.finnish.twentyone_24_27.TwentyOne2427Round`) from a
:class:`~cardroom.core.shoe.Shoe` of the rules, shuffled by the generator Gymnasium seeds
at ``reset(seed=...)``.  The shoe is dealt on from one episode to the next and
shuffled again where the rules say (by default once three quarters of its 324 cards are
dealt); ``reset(seed=...)`` starts a new shoe, ``reset()`` goes on with the same one.

**An episode** is one round in which the player decides.  The rules force most plays
(:class:`~cardroom.games.finnish.twentyone_24_27.ForcedPlay`): the environment makes
those itself, as the table does, so that every observation asks a free choice.  A round
that asks none (an initial 27, or every play forced) is dealt and settled inside
``reset``, which says how many there were and what they won in its info; a ``reset``
before a round's end leaves that round unfinished (its cards stay dealt).  With
``ask_forced=True`` the agent is asked at every play instead, and the action mask allows
only the play the rules force.

**Actions**: ``Discrete(2)``: 0 stands, 1 hits.  A masked action (one the rules do not
allow now) raises :class:`~cardroom.games.base.IllegalAction` and changes nothing, and so
does a step after the round's end (call ``reset``).

**Observations** (a ``Dict``; every card face up, as the game deals them):

- ``"totals"``: ``MultiDiscrete([41, 2, 41, 2])``: the player's total (0-40), 1 if it
  is soft (an Ace counts 14), the dealer's total and 1 if soft.  While the player
  decides the dealer holds two cards; in the last observation of a round, the hands
  as they ended (an initial 27 counts 27, a hand over 27 its total);
- ``"player"``, ``"dealer"``: ``Box(0, n, (14,), int64)``: the hand's cards by rank,
  Ace to King, then the Joker (``n``: the shoe's cards of each rank);
- ``"shoe"`` (with ``shoe_composition=True``): the same shape: the cards of each rank
  not seen since the shoe was last shuffled (a card turned over to burn is seen; burnt
  cards are not), the count a card counter keeps.

**Reward**: the player wager's exact net at the end of the round, per unit staked (1 a
win at even money, 0 a push, -1 a loss; the rules' ``win_pays`` and fee change it), 0
before.  The wager is the table minimum.

**Info**: ``"action_mask"``, ``int8`` of shape (2,): 1 where the action (stand, hit) is
allowed now (none once the round is over); from ``reset``, ``"rounds_without_choice"``
and ``"net_without_choice"`` (those rounds' nets per unit staked, added up); at the end
of a round, ``"outcome"`` (``player``, ``dealer`` or ``push``).

>>> env = TwentyOne2427Env()
>>> observation, info = env.reset(seed=7)
>>> sorted(observation), info["action_mask"].tolist()
(['dealer', 'player', 'totals'], [1, 1])
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any, SupportsFloat, SupportsInt

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.envs.registration import EnvSpec
from numpy.typing import NDArray

from cardroom.core.cards import RANK_ORDER, Card
from cardroom.core.events import Reshuffled
from cardroom.core.shoe import SeededShuffler, Shoe, draw_or_reshuffle, reshuffle_if_due
from cardroom.games.base import PLAYER_SEAT, Action, IllegalAction
from cardroom.games.finnish.hands import TARGET, Total, initial_totals
from cardroom.games.finnish.spec import TWENTYONE_24_27
from cardroom.games.finnish.twentyone_24_27 import TwentyOne2427Round, TwentyOne2427Rules
from cardroom.games.finnish.twentyone_analysis import solve_21_24_27
from cardroom.games.gym_base import RANKED, Observation, count_ranks, rules_from

__all__ = [
    "ACTIONS",
    "ENVIRONMENTS",
    "TwentyOne2427Env",
    "exact_return",
    "free_decisions",
    "optimal_policy",
    "totals_key",
]

#: the actions by number
ACTIONS: tuple[Action, Action] = (Action.STAND, Action.HIT)
#: the highest total a hand can show: 27 hit once more with a King
HIGHEST = TARGET + 13
#: rounds dealt in one ``reset`` before it gives up (rules that leave the player nothing)
MAX_ROUNDS = 100_000


def free_decisions(rules: TwentyOne2427Rules) -> list[tuple[Total, Total]]:
    """Every (player total, dealer two-card total) where the rules let the player choose."""
    dealers = initial_totals(rules.initial_27s)
    players = [Total(v, s) for s in (False, True) for v in range(TARGET + 1) if not s or v >= 14]
    return [
        (player, dealer)
        for dealer in dealers
        for player in players
        if rules.forced.forced(player, dealer)[0] is None
    ]


#: a decision as the observation's ``"totals"`` key it: the player's total, 1 if soft, the
#: dealer's two-card total, 1 if soft
Key = tuple[int, int, int, int]


def totals_key(player: Total, dealer: Total) -> Key:
    """The observation's ``"totals"`` (as a tuple) when the player decides on ``player``
    against the dealer's two-card ``dealer``."""
    return (player.value, int(player.soft), dealer.value, int(dealer.soft))


def exact_return(decide: Callable[[Key], int], rules: TwentyOne2427Rules | None = None) -> Fraction:
    """The exact expected net per round, per unit staked, of playing the free decisions
    as ``decide`` says (given the observation's ``"totals"`` as a tuple: 0 stands, 1
    hits), the forced plays as the rules force them, every round dealt off the top of the
    rules' full shoe, without replacement (the count of ``cardroom analyze``)."""
    from cardroom.games.finnish.shoe import analyze_21_24_27_shoe  # lazy: Numba

    def hits(player: Total, dealer: Total) -> bool:
        return decide(totals_key(player, dealer)) == 1

    report = analyze_21_24_27_shoe(rules or TwentyOne2427Rules(), hits=hits, label="a policy")
    return report.wagers["player"].expected


def optimal_policy(rules: TwentyOne2427Rules | None = None) -> dict[Key, int]:
    """The action of each free decision by the optimal table of ``cardroom strategy
    21-24-27`` (each decision made on the totals, the cards drawn with replacement), as
    the observation's ``"totals"`` key it."""
    rules = rules or TwentyOne2427Rules()
    table = solve_21_24_27(rules)
    return {
        totals_key(player, dealer): int(table.hits(player, dealer))
        for player, dealer in free_decisions(rules)
    }


class TwentyOne2427Env(gymnasium.Env[Observation, np.int64]):
    """21-24-27's free hit-or-stand decisions against the real shoe (see the module).

    ``rules``: the rules, or the path of a rules TOML file (a variant of
    ``cardroom rules 21-24-27``); the game's standard rules by default.
    ``shoe_composition`` adds the unseen cards of the shoe to the observation;
    ``ask_forced`` asks the agent at forced plays too (the mask allows the forced one).
    """

    #: (typed as Gymnasium's Env types it; ``gymnasium.make`` reads it from the class)
    metadata = {"render_modes": ["ansi"], "render_fps": 4}  # noqa: RUF012

    def __init__(
        self,
        rules: TwentyOne2427Rules | str | Path | None = None,
        shoe_composition: bool = False,
        ask_forced: bool = False,
        render_mode: str | None = None,
    ) -> None:
        self.rules: TwentyOne2427Rules = rules_from(TWENTYONE_24_27, rules)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode: ansi or None, not {render_mode!r}")
        if not ask_forced and not free_decisions(self.rules):
            raise ValueError(
                "rules: they force every play of the player, so the environment would never "
                "ask for one (give ask_forced=True to be asked at forced plays)"
            )
        self.render_mode = render_mode
        self.shoe_composition = shoe_composition
        self.ask_forced = ask_forced
        self.stake = self.rules.table.minimum
        self._full = count_ranks(self.rules.shoe.cards())
        self._unseen = self._full.copy()
        self._shoe: Shoe | None = None
        self._round: TwentyOne2427Round | None = None
        hands = spaces.Box(0, self._full, (len(RANKED),), np.int64)
        fields: dict[str, spaces.Space[Any]] = {
            "totals": spaces.MultiDiscrete([HIGHEST + 1, 2, HIGHEST + 1, 2]),
            "player": hands,
            "dealer": hands,
        }
        if shoe_composition:
            fields["shoe"] = hands
        self.observation_space = spaces.Dict(fields)
        self.action_space = spaces.Discrete(len(ACTIONS))

    # -- the Gymnasium API ----------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        """Deal on to the next round in which the player decides (a new shoe, shuffled
        from ``seed``, when one is given)."""
        super().reset(seed=seed)
        if seed is not None or self._shoe is None:
            self._shoe = Shoe(self.rules.shoe, SeededShuffler(self.np_random))
        skipped, net = 0, 0.0
        while True:
            rnd = self._deal_round()
            if not rnd.is_complete:
                break
            skipped += 1
            net += self._reward(rnd)
            if skipped >= MAX_ROUNDS:  # pragma: no cover - free_decisions says there are
                raise RuntimeError(f"{MAX_ROUNDS} rounds dealt and none asked the player")
        info = self._info()
        info["rounds_without_choice"] = skipped
        info["net_without_choice"] = net
        return self._observation(), info

    def step(
        self, action: SupportsInt
    ) -> tuple[Observation, SupportsFloat, bool, bool, dict[str, Any]]:
        """Stand (0) or hit (1); the cards are dealt and forced plays made until the
        player decides again or the round ends."""
        rnd = self._round
        if rnd is None or rnd.is_complete:
            raise IllegalAction("the round is over: call reset() to deal the next one")
        number = int(action)
        if not 0 <= number < len(ACTIONS):
            raise IllegalAction(f"action {number}: 0 stands and 1 hits, there is no other")
        rnd.act(PLAYER_SEAT, ACTIONS[number])
        self._deal_on(rnd)
        info = self._info()
        if rnd.is_complete:
            info["outcome"] = rnd.outcome
            return self._observation(), self._reward(rnd), True, False, info
        return self._observation(), 0.0, False, False, info

    def render(self) -> str | None:
        """The round so far in one line (``render_mode="ansi"``)."""
        if self.render_mode != "ansi" or self._round is None:
            return None
        rnd = self._round
        hands = [
            f"{name} {' '.join(c.code for c in rnd.hands[name])} ({rnd.total(name)})"
            for name in rnd.hand_names
        ]
        done = f" · {rnd.outcome} wins" if rnd.outcome in ("player", "dealer") else ""
        return " · ".join(hands) + (" · push" if rnd.outcome == "push" else done)

    def action_masks(self) -> NDArray[np.int8]:
        """The actions allowed now (stand, hit), as ``info["action_mask"]`` gives them."""
        legal = self._round.legal_actions() if self._round is not None else frozenset()
        return np.array([action in legal for action in ACTIONS], np.int8)

    # -- dealing ----------------------------------------------------------------------------
    def _deal_round(self) -> TwentyOne2427Round:
        """A new round, dealt until the player decides or it ends."""
        assert self._shoe is not None
        wagers = {"player": self.stake}
        rnd = TwentyOne2427Round(self.rules, wagers, auto_forced=not self.ask_forced)
        self._round = rnd
        reshuffle_if_due(self._shoe, lambda event: self._reshuffled(rnd, event))
        self._deal_on(rnd)
        return rnd

    def _deal_on(self, rnd: TwentyOne2427Round) -> None:
        assert self._shoe is not None
        while rnd.next_hand is not None:
            card = draw_or_reshuffle(
                self._shoe, rnd.cards_in_play, lambda event: self._reshuffled(rnd, event)
            )
            self._seen(card)
            rnd.deal(card)

    def _reshuffled(self, rnd: TwentyOne2427Round, event: Reshuffled) -> None:
        rnd.events.append(event)
        self._unseen = self._full.copy()
        for card in rnd.cards_in_play():  # a shoe that ran out in mid-round keeps them out
            self._seen(card)
        if event.first_card is not None:
            self._seen(event.first_card)

    def _seen(self, card: Card) -> None:
        self._unseen[RANK_ORDER.index(card.rank)] -= 1

    # -- what the agent is told -------------------------------------------------------------
    def _observation(self) -> Observation:
        assert self._round is not None
        rnd = self._round
        player, dealer = rnd.total("player"), rnd.total("dealer")
        observation = {
            "totals": np.array([player.value, player.soft, dealer.value, dealer.soft], np.int64),
            "player": count_ranks(rnd.hands["player"]),
            "dealer": count_ranks(rnd.hands["dealer"]),
        }
        if self.shoe_composition:
            observation["shoe"] = self._unseen.copy()
        return observation

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self.action_masks()}

    def _reward(self, rnd: TwentyOne2427Round) -> float:
        return float(rnd.exact_net["player"] / self.stake)


#: the environments the Finnish games offer (:mod:`cardroom.gym` registers them)
ENVIRONMENTS: tuple[EnvSpec, ...] = (
    EnvSpec(id="cardroom/TwentyOne2427-v0", entry_point=f"{__name__}:{TwentyOne2427Env.__name__}"),
)
