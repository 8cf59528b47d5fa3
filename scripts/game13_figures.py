"""cardroom's exact figures beside the inventor's simulated counts for "game13".

The inventor of the Finnish 27 games published the text output of his simulator
BIGS908 for one rule set, "game13" (GitHub: Finnish27GamesLLC/Finnish-27-908docs).
Most of its figures depend on the player's strategy and on game13's own rules
(splits, doubles, surrender), which cardroom does not play. A few do not:

* how often the player's first two cards are an initial 27 that the dealer's first
  two cards neither match nor outrank (the count game13 prints is of the times "the
  dealer paid the player" for Jo Jo, Ace-King and Joker-plus-card); these depend on
  the first four cards of a fresh shoe only;
* how the 8-9-10 and the 9-9-9 hands split by suits. Whether a hand reaches 8-9-10 or
  9-9-9 depends on the strategy, but game13's strategy tables and its settlement read
  ranks only, and in a shuffled shoe the suits of the cards of one rank are a random
  draw from that rank's cards, independent of the other ranks. So the suit shares
  among the counted hands are fixed by the shoe alone.

This script computes those figures exactly (fractions) with cardroom's own functions
(the shoe of :class:`~cardroom.core.shoe.ShoeRules`, :func:`initial_27` and the
ranking of :class:`Initial27`, :func:`find_bonus` for the suit classes), for game13's
shoe (6 decks of 52 cards and 2 Jokers), and sets the published counts beside them:
implied frequency, binomial standard error, and standard errors apart.

Run: ``python scripts/game13_figures.py`` (add ``--check-source GITDIR`` with the
git directory of a fetched Finnish-27-908docs to read the counts again from it).
"""

from __future__ import annotations

import argparse
import itertools
import math
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from cardroom.core.cards import JOKER, Card, Rank, Suit
from cardroom.core.shoe import ShoeRules
from cardroom.games.finnish.finnish27 import find_bonus
from cardroom.games.finnish.hands import Initial27, initial_27

#: game13's shoe: BIGS903's input file (Finnish-27-903docs, wc6di.txt) gives 4 cards
#: of each value 1-13 and 2 Jokers per deck, and game13i.txt 6 decks (324 cards,
#: which BIGS908's output confirms).
GAME13_SHOE = ShoeRules(decks=6, jokers_per_deck=2, reshuffle_after=1)

REPO = "Finnish27GamesLLC/Finnish-27-908docs"
KINDS = (Initial27.JO_JO, Initial27.FINNISH_27, Initial27.JOANCA)
EIGHT_NINE_TEN = ("eight_nine_ten_mixed", "eight_nine_ten_suited", "eight_nine_ten_spades")
NINES = ("nines_mixed", "nines_suited")
#: the printed label of each of game13's lines, by cardroom's key
LABELS = {
    "jo_jo": "joker joker",
    "finnish_27": "ace and king",
    "joanca": "joker any card",
    "eight_nine_ten_mixed": "89T mixed suits",
    "eight_nine_ten_suited": "89T same suit",
    "eight_nine_ten_spades": "89T spades suit",
    "nines_mixed": "999 mixed suits",
    "nines_suited": "999 same suit",
    "nines_mixed_vs_99": "ms999+dealer 99",
    "nines_suited_vs_99": "ss999+dealer 99",
}
#: the "joker any card" counter stops at 2**24 (a single-precision float that no
#: longer grows by 1) during session 26 in both runs: only sessions 1-25 count
JOANCA_SESSIONS = 25


@dataclass(frozen=True)
class Run:
    """One BIGS908 run of game13 as published: its file and its line totals."""

    name: str
    path: str
    commit: str
    sessions: int
    rounds_per_session: int
    #: each line summed over all sessions ("joanca": over the first 25 only)
    counts: Mapping[str, int]

    @property
    def rounds(self) -> int:
        return self.sessions * self.rounds_per_session

    def trials(self, key: str) -> int:
        """Rounds behind a line of initial 27s."""
        sessions = JOANCA_SESSIONS if key == "joanca" else self.sessions
        return sessions * self.rounds_per_session


RUNS = (
    Run(
        "B",
        "J23h25s6dgame13Bo.txt",
        "1f0111f271cbf9201037fa1ba059bf8fad66f2cb",
        100,
        10_000_000,
        {
            "jo_jo": 1_260_290,
            "finnish_27": 10_881_447,
            "joanca": 16_485_074,
            "eight_nine_ten_mixed": 1_922_103,
            "eight_nine_ten_suited": 95_819,
            "eight_nine_ten_spades": 31_978,
            "nines_mixed": 306_198,
            "nines_suited": 12_750,
            "nines_mixed_vs_99": 1_391,
            "nines_suited_vs_99": 60,
        },
    ),
    Run(
        "TDA5",
        "J23h25s6dgame13TDA5o.txt",
        "e4c0f13b17671cf779cc20b5d7dbd14b6b7e2e58",
        100,
        10_000_000,
        {
            "jo_jo": 1_259_470,
            "finnish_27": 10_881_539,
            "joanca": 16_479_991,
            "eight_nine_ten_mixed": 1_635_187,
            "eight_nine_ten_suited": 81_047,
            "eight_nine_ten_spades": 27_027,
            "nines_mixed": 305_988,
            "nines_suited": 12_686,
            "nines_mixed_vs_99": 1_415,
            "nines_suited_vs_99": 60,
        },
    ),
)


# -- the exact figures ---------------------------------------------------------------
def rank_counts(cards: Iterable[Card]) -> dict[Rank, int]:
    """How many cards of each rank (the Joker one of them)."""
    return dict(Counter(card.rank for card in cards))


def suit_counts(cards: Iterable[Card], rank: Rank) -> dict[Suit, int]:
    """How many cards of ``rank`` in each suit."""
    found = Counter(card.suit for card in cards if card.rank is rank)
    return {suit: found[suit] for suit in Suit}


def _sample(rank: Rank) -> Card:
    return JOKER if rank is Rank.JOKER else Card(rank, Suit.SPADES)


def _kind(first: Rank, second: Rank) -> Initial27 | None:
    return initial_27((_sample(first), _sample(second)), jokers_make_27=True)


def _falling(counts: Mapping[Rank, int], ranks: Sequence[Rank]) -> int:
    """Ordered ways to deal cards of ``ranks`` in turn off a shoe of ``counts``."""
    ways = 1
    taken: Counter[Rank] = Counter()
    for rank in ranks:
        ways *= counts.get(rank, 0) - taken[rank]
        taken[rank] += 1
        if ways <= 0:
            return 0
    return ways


def initial_27_chances(counts: Mapping[Rank, int]) -> dict[str, Fraction]:
    """The chance that two cards off the top are each initial 27."""
    total = sum(counts.values())
    ranks = [rank for rank, n in counts.items() if n]
    ways: Counter[str] = Counter()
    for pair in itertools.product(ranks, repeat=2):
        kind = _kind(*pair)
        if kind is not None:
            ways[kind.key] += _falling(counts, pair)
    return {kind.key: Fraction(ways[kind.key], total * (total - 1)) for kind in KINDS}


def paid_initial_27_chances(counts: Mapping[Rank, int]) -> dict[str, Fraction]:
    """The chance that the player's first two cards are each initial 27 and the
    dealer's first two are no initial 27 of the same or a higher rank (Jo Jo over
    Finnish 27 over Joanca): the player's initial 27 is paid. The deal's order does
    not matter off the top of a shuffled shoe, so the player's cards are taken
    first."""
    total = sum(counts.values())
    ranks = [rank for rank, n in counts.items() if n]
    ways: Counter[str] = Counter()
    for deal in itertools.product(ranks, repeat=4):
        player = _kind(deal[0], deal[1])
        if player is None:
            continue
        dealer = _kind(deal[2], deal[3])
        if dealer is None or player > dealer:
            ways[player.key] += _falling(counts, deal)
    sequences = total * (total - 1) * (total - 2) * (total - 3)
    return {kind.key: Fraction(ways[kind.key], sequences) for kind in KINDS}


def eight_nine_ten_shares(suits: Mapping[Rank, Mapping[Suit, int]]) -> dict[str, Fraction]:
    """How a three-card 8-9-10 splits by suits (its cards' ranks given): each card's
    suit is drawn from its rank's cards, independently between the three ranks."""
    ranks = (Rank.EIGHT, Rank.NINE, Rank.TEN)
    shares: Counter[str] = Counter()
    for chosen in itertools.product(Suit, repeat=3):
        weight = math.prod(suits[rank][suit] for rank, suit in zip(ranks, chosen, strict=True))
        if weight:
            key = find_bonus([Card(r, s) for r, s in zip(ranks, chosen, strict=True)], [])
            assert key is not None
            shares[key] += weight
    whole = math.prod(sum(suits[rank].values()) for rank in ranks)
    return {key: Fraction(shares[key], whole) for key in EIGHT_NINE_TEN}


def nines_shares(suits: Mapping[Suit, int]) -> dict[str, Fraction]:
    """How a three-card 9-9-9 splits by suits: three of the Nines, without
    replacement (the dealer's cards are no 9-9, as cardroom classes it)."""
    shares: Counter[str] = Counter()
    for chosen in itertools.product(Suit, repeat=3):
        weight = 1
        taken: Counter[Suit] = Counter()
        for suit in chosen:
            weight *= suits[suit] - taken[suit]
            taken[suit] += 1
        if weight > 0:
            key = find_bonus([Card(Rank.NINE, s) for s in chosen], [])
            assert key is not None
            shares[key] += weight
    nines = sum(suits.values())
    whole = nines * (nines - 1) * (nines - 2)
    return {key: Fraction(shares[key], whole) for key in NINES}


# -- the comparison ------------------------------------------------------------------
@dataclass(frozen=True)
class Comparison:
    """A published count of ``trials`` beside cardroom's exact chance."""

    label: str
    run: str
    count: int
    trials: int
    exact: Fraction

    @property
    def frequency(self) -> float:
        return self.count / self.trials

    @property
    def error(self) -> float:
        """The binomial standard error of the implied frequency."""
        p = self.frequency
        return math.sqrt(p * (1 - p) / self.trials)

    @property
    def z(self) -> float:
        """Standard errors from the exact value."""
        return (self.frequency - float(self.exact)) / self.error


def comparisons(shoe: ShoeRules = GAME13_SHOE) -> list[Comparison]:
    """Every published figure that cardroom's exact counts can stand beside, per run
    and for both runs together."""
    cards = shoe.cards()
    paid = paid_initial_27_chances(rank_counts(cards))
    by_rank = {rank: suit_counts(cards, rank) for rank in (Rank.EIGHT, Rank.NINE, Rank.TEN)}
    eight_nine_ten = eight_nine_ten_shares(by_rank)
    nines = nines_shares(by_rank[Rank.NINE])
    nines_vs_99 = {f"{key}_vs_99": share for key, share in nines.items()}
    out: list[Comparison] = []
    for name, runs in [(run.name, [run]) for run in RUNS] + [("both", list(RUNS))]:
        for key, exact in paid.items():
            trials = sum(run.trials(key) for run in runs)
            out.append(_compare(key, name, runs, trials, exact))
        for group in (eight_nine_ten, nines, nines_vs_99):
            hands = sum(run.counts[key] for run in runs for key in group)
            out.extend(_compare(key, name, runs, hands, exact) for key, exact in group.items())
    return out


def _compare(key: str, name: str, runs: Sequence[Run], trials: int, exact: Fraction) -> Comparison:
    count = sum(run.counts[key] for run in runs)
    return Comparison(LABELS[key], name, count, trials, exact)


# -- reading the counts again from the published files -------------------------------
def read_run(gitdir: str, run: Run) -> dict[str, int]:
    """The line totals of ``run`` as its file at its commit gives them."""
    text = subprocess.run(
        ["git", "-C", gitdir, "show", f"{run.commit}:{run.path}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    sessions = text.split("number of cards is")[1:]
    if len(sessions) != run.sessions:
        raise ValueError(f"{run.path}: {len(sessions)} sessions, not {run.sessions}")
    totals: dict[str, int] = {}
    for key, label in LABELS.items():
        found = [
            int(m.group(1))
            for block in sessions
            if (m := re.search(re.escape(label) + r"\s+(\d+)\s", block))
        ]
        if len(found) != run.sessions:
            raise ValueError(f"{run.path}: {label!r} in {len(found)} sessions")
        totals[key] = sum(found[:JOANCA_SESSIONS] if key == "joanca" else found)
    return totals


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check-source", metavar="GITDIR", help="a Finnish-27-908docs git dir")
    args = parser.parse_args(argv)
    if args.check_source:
        for run in RUNS:
            found = read_run(args.check_source, run)
            if found != dict(run.counts):
                print(f"{run.path}: the file says {found}", file=sys.stderr)
                return 1
        print(f"the counts agree with {REPO} at the commits cited")
    cards = GAME13_SHOE.cards()
    print(f"game13's shoe: {len(cards)} cards")
    for key, chance in initial_27_chances(rank_counts(cards)).items():
        print(f"two-card hand is {key}: {chance} = {float(chance):.6%}")
    print()
    print(
        f"{'line':<16} {'run':<5} {'count':>11} {'of':>11} {'frequency':>10} "
        f"{'s.e.':>9} {'exact':>10} {'fraction':>22} {'z':>6}"
    )
    for c in comparisons():
        print(
            f"{c.label:<16} {c.run:<5} {c.count:>11,} {c.trials:>11,} {c.frequency:>10.6%} "
            f"{c.error:>9.6%} {float(c.exact):>10.6%} {c.exact!s:>22} {c.z:>+6.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
