"""The one exact method for every game: walk the engine's chance outcomes.

From a round in progress, every rank that is left in the shoe is dealt in turn
(with probability count / cards left), decisions are taken by a strategy, and
the walk recurses until the round is complete.  Results are exact fractions.
Sub-walks are memoised on the shoe's composition and the round's
:meth:`~cardroom.games.base.Round.state_key`, so a game needs no analysis code of
its own: a new rules variant is analysed by the same walk.

Cards are dealt as one representative card per rank (suit spades); suits never
change how a round is played, and wagers whose pay depends on suits (the
finnish27 bonus) are valued afterwards from the ranks of each finished hand.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping
from fractions import Fraction

from cardroom.core.cards import JOKER, Card, Rank, Suit
from cardroom.core.cards import RANK_ORDER as RANK_ORDER
from cardroom.games.base import PLAYER_SEAT, Action, Round

Distribution = dict[Hashable, Fraction]
Decide = Callable[[Round], Action]
LeafOf = Callable[[Round], Hashable]

_REPRESENTATIVE: tuple[Card, ...] = tuple(
    JOKER if rank is Rank.JOKER else Card(rank, Suit.SPADES) for rank in RANK_ORDER
)


def composition(cards: Iterable[Card]) -> tuple[int, ...]:
    """Cards per rank, in :data:`RANK_ORDER`."""
    counts = Counter(card.rank for card in cards)
    return tuple(counts[rank] for rank in RANK_ORDER)


def outcome_leaf(rnd: Round) -> Hashable:
    """The default leaf: the outcome, the bonus and each wager's net."""
    return (rnd.outcome, rnd.bonus, tuple(sorted(rnd.exact_net.items())))


class Walker:
    """Exact distribution over the leaves of a round, from a given shoe composition."""

    def __init__(
        self, decide: Decide | None = None, leaf: LeafOf = outcome_leaf, replacement: bool = False
    ) -> None:
        self.decide = decide
        self.leaf = leaf
        #: deal with replacement (an infinite shoe): the composition never changes,
        #: and a card that leaves the round's state as it was (a Joker hit that counts
        #: 0) is a loop, summed as a geometric series.  The round's state key must
        #: then ignore such cards, or the walk never ends.
        self.replacement = replacement
        self.memo: dict[Hashable, Distribution] = {}
        self.nodes = 0

    def walk(self, rnd: Round, counts: tuple[int, ...]) -> Distribution:
        """The distribution of leaves of ``rnd`` dealt from a shoe holding ``counts``."""
        self.nodes += 1
        if rnd.is_complete:
            return {self.leaf(rnd): Fraction(1)}
        if rnd.next_hand is None:
            return self.walk(self._decided(rnd), counts)
        key = (counts, rnd.state_key())
        known = self.memo.get(key)
        if known is not None:
            return known
        left = sum(counts)
        if left == 0:
            raise ValueError("the shoe ran out in the middle of a round")
        result: dict[Hashable, Fraction] = {}
        stay = Fraction(0)
        for index, count in enumerate(counts):
            if not count:
                continue
            nxt = rnd.clone()
            nxt.deal(_REPRESENTATIVE[index])
            weight = Fraction(count, left)
            if self.replacement:
                rest = counts
                while not nxt.is_complete and nxt.next_hand is None:
                    nxt = self._decided(nxt)
                if not nxt.is_complete and nxt.state_key() == key[1]:
                    stay += weight
                    continue
            else:
                rest = (*counts[:index], count - 1, *counts[index + 1 :])
            for leaf, p in self.walk(nxt, rest).items():
                result[leaf] = result.get(leaf, Fraction(0)) + weight * p
        if stay:
            if stay == 1:
                raise ValueError("the round can never end: every card leaves it as it was")
            result = {leaf: p / (1 - stay) for leaf, p in result.items()}
        self.memo[key] = result
        return result

    def _decided(self, rnd: Round) -> Round:
        """A copy of ``rnd`` after the decision it waits for."""
        if self.decide is None:
            raise ValueError(f"{rnd.game} asks for a decision and no strategy was given")
        nxt = rnd.clone()
        nxt.act(PLAYER_SEAT, self.decide(rnd))
        return nxt


def exact(
    new_round: Callable[[], Round],
    counts: Mapping[Rank, int] | tuple[int, ...],
    decide: Decide | None = None,
    leaf: LeafOf = outcome_leaf,
    replacement: bool = False,
) -> Distribution:
    """The exact distribution of a fresh round's leaves from a shoe of ``counts``
    (dealt with replacement if ``replacement``: an infinite shoe of those proportions)."""
    if isinstance(counts, Mapping):
        counts = tuple(counts.get(rank, 0) for rank in RANK_ORDER)
    return Walker(decide, leaf, replacement).walk(new_round(), counts)
