"""The punto banco wagers, each written once.

A :class:`Wager` says what wins, at what odds and from which rules field, and which
facts of a finished coup it reads (:class:`CoupFacts`).  Everything that needs a
paytable asks the wager: the engine's settlement (:meth:`Wager.settle`), the kernel's
table of nets per cell (:mod:`.kernel`), the exact analysis's lines (:mod:`.analysis`)
and the rules page's paytable (:meth:`Wager.pays`).  Adding a wager is one
:func:`register` call (or one entry in :data:`WAGERS`) plus its tests.

A wager's *lines* are tried in order and the first one whose test holds settles the
coup; the last line is the loss and holds for every coup.

>>> from fractions import Fraction
>>> from cardroom.games.baccarat.engine import baccarat27_rules
>>> coup = CoupFacts("banker", player_total=5, banker_total=7)
>>> WAGERS["banker"].net(baccarat27_rules(), coup)
Fraction(1, 2)
>>> [line.label for line in WAGERS["b27"].lines(baccarat27_rules())]
['banker wins with 2', 'banker wins with 7', 'loss']
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING

from cardroom.core.events import Why
from cardroom.core.money import format_odds

if TYPE_CHECKING:
    from cardroom.games.baccarat.engine import BaccaratRules

__all__ = [
    "FACTS",
    "MAIN_WAGERS",
    "WAGERS",
    "CoupFacts",
    "PayLine",
    "Wager",
    "register",
    "side_wagers",
    "unregister",
    "wager_names",
]

#: What a wager may read of a finished coup (the fields of :class:`CoupFacts`).
FACTS = ("outcome", "player_total", "banker_total", "player_pair", "banker_pair")


@dataclass(frozen=True)
class CoupFacts:
    """What a finished coup tells its wagers."""

    outcome: str
    player_total: int
    banker_total: int
    player_pair: bool = False
    banker_pair: bool = False

    def pair(self, hand: str) -> bool:
        return self.player_pair if hand == "player" else self.banker_pair


@dataclass(frozen=True)
class PayLine:
    """One way a wager ends: its label, when it holds, its net per unit, and why."""

    label: str
    holds: Callable[[CoupFacts], bool]
    net: Fraction
    why: Callable[[CoupFacts], Why]


def _always(coup: CoupFacts) -> bool:
    return True


@dataclass(frozen=True)
class Wager:
    """A punto banco wager: its lines under a rules set, what it reads, and its words.

    ``lines(rules)`` gives the ways it ends, the loss last; ``reads`` names the
    :data:`FACTS` its lines look at (the kernel and the exact analysis count only what
    they can); ``when(rules)`` says in words when it wins (the paytable and the
    analysis), ``spot(rules)`` what its bet spot says where the odds alone would
    mislead ('' otherwise).
    """

    id: str
    reads: frozenset[str]
    lines: Callable[[BaccaratRules], Sequence[PayLine]]
    when: Callable[[BaccaratRules], str]
    odds: Callable[[BaccaratRules], Fraction]
    spot: Callable[[BaccaratRules], str] = lambda rules: ""
    #: the analysis's note beside its lines ('' for "pays ODDS when WHEN")
    note: Callable[[BaccaratRules], str] = lambda rules: ""
    side: bool = True
    #: the wager in words inside a sentence ('' for its id with spaces: "player pair")
    name: str = ""

    def __post_init__(self) -> None:
        unknown = sorted(self.reads - set(FACTS))
        if unknown:
            raise ValueError(f"reads: {', '.join(unknown)} is not a fact of a coup")

    def lines_for(self, rules: BaccaratRules) -> tuple[PayLine, ...]:
        """``lines(rules)``, made once per rules set."""
        return _lines(self, rules)

    def line_for(self, rules: BaccaratRules, coup: CoupFacts) -> PayLine:
        """The line that settles ``coup``."""
        for line in self.lines_for(rules):
            if line.holds(coup):
                return line
        raise ValueError(f"{self.id}: no line holds for {coup}")  # the last line always holds

    def net(self, rules: BaccaratRules, coup: CoupFacts) -> Fraction:
        """The net result per unit staked."""
        return self.line_for(rules, coup).net

    def settle(
        self, rules: BaccaratRules, coup: CoupFacts, stake: Fraction
    ) -> tuple[Fraction, Why]:
        """The net result of ``stake`` on this wager, and why."""
        line = self.line_for(rules, coup)
        return stake * line.net, line.why(coup)

    @property
    def words(self) -> str:
        """The wager in words inside a sentence: ``player pair``, ``B-27``."""
        return self.name or self.id.replace("_", " ")

    def analysis_note(self, rules: BaccaratRules) -> str:
        return self.note(rules) or f"pays {format_odds(self.odds(rules))} {self.when(rules)}"


@lru_cache(maxsize=256)
def _lines(wager: Wager, rules: BaccaratRules) -> tuple[PayLine, ...]:
    return tuple(wager.lines(rules))


def _distinct(totals: Sequence[int]) -> list[int]:
    """Distinct totals 0-9 in their first order (a repeated total counts once)."""
    return [t for i, t in enumerate(totals) if t not in totals[:i] and 0 <= t <= 9]


def _loss(why: Callable[[CoupFacts], Why]) -> PayLine:
    return PayLine("loss", _always, Fraction(-1), why)


def _push_on_tie() -> PayLine:
    return PayLine(
        "push on a tie", lambda c: c.outcome == "tie", Fraction(0), lambda c: Why("returned_on_tie")
    )


def _won_by(coup: CoupFacts) -> Why:
    return Why.of("won_by", winner=coup.outcome)


def _player_lines(rules: BaccaratRules) -> tuple[PayLine, ...]:
    odds = rules.player_pays
    return (
        PayLine(
            "win",
            lambda c: c.outcome == "player",
            odds,
            lambda c: Why.of("pays", wager="player", odds=odds),
        ),
        _push_on_tie(),
        _loss(_won_by),
    )


def _banker_lines(rules: BaccaratRules) -> tuple[PayLine, ...]:
    special = _distinct([pay.total for pay in rules.banker_pays_by_total])

    def win_with(total: int) -> PayLine:
        odds = rules.banker_odds(total)
        return PayLine(
            f"win with {total}",
            lambda c: c.outcome == "banker" and c.banker_total == total,
            odds,
            lambda c: Why.of("pays", wager="banker", odds=odds),
        )

    usual = rules.banker_pays
    return (
        *(win_with(total) for total in special),
        PayLine(
            "win otherwise" if special else "win",
            lambda c: c.outcome == "banker",
            usual,
            lambda c: Why.of("pays", wager="banker", odds=usual),
        ),
        _push_on_tie(),
        _loss(_won_by),
    )


def _banker_note(rules: BaccaratRules) -> str:
    special = _distinct([pay.total for pay in rules.banker_pays_by_total])
    odds = ", ".join(f"{format_odds(rules.banker_odds(t))} with {t}" for t in special)
    return (
        f"pays {format_odds(rules.banker_pays)}"
        + (f" ({odds})" if odds else "")
        + "; a tie returns the wager"
    )


def _banker_when(rules: BaccaratRules) -> str:
    special = "; ".join(
        f"{format_odds(p.pays)} when it wins with {p.total}" for p in rules.banker_pays_by_total
    )
    return "the banker's hand wins" + (f" ({special})" if special else "") + "; a tie returns it"


def _banker_spot(rules: BaccaratRules) -> str:
    short = ", ".join(f"{format_odds(p.pays)} on a {p.total}" for p in rules.banker_pays_by_total)
    return f"{format_odds(rules.banker_pays)}; {short}" if short else ""


def _tie_lines(rules: BaccaratRules) -> tuple[PayLine, ...]:
    odds = rules.tie_pays
    return (
        PayLine(
            "win",
            lambda c: c.outcome == "tie",
            odds,
            lambda c: Why.of("pays", wager="tie", odds=odds),
        ),
        _loss(lambda c: Why("no_tie")),
    )


def _pair(hand: str) -> Wager:
    def lines(rules: BaccaratRules) -> tuple[PayLine, ...]:
        odds = rules.pair_pays
        return (
            PayLine(
                "win",
                lambda c: c.pair(hand),
                odds,
                lambda c: Why.of("pair_pays", hand=hand, odds=odds),
            ),
            _loss(lambda c: Why.of("no_pair", hand=hand)),
        )

    return Wager(
        id=f"{hand}_pair",
        reads=frozenset({f"{hand}_pair"}),
        lines=lines,
        odds=lambda rules: rules.pair_pays,
        when=lambda rules: f"the {hand}'s first two cards are a pair",
        note=lambda rules: (
            f"pays {format_odds(rules.pair_pays)} when the hand's first two cards share a "
            "rank (K-K, not K-Q)"
        ),
    )


def _b27_lines(rules: BaccaratRules) -> tuple[PayLine, ...]:
    odds = rules.b27_pays

    def win_with(total: int) -> PayLine:
        return PayLine(
            f"banker wins with {total}",
            lambda c: c.outcome == "banker" and c.banker_total == total,
            odds,
            lambda c: Why.of("b27_pays", total=c.banker_total, odds=odds),
        )

    totals = rules.b27_totals
    return (
        *(win_with(total) for total in _distinct(totals)),
        _loss(lambda c: Why.of("no_b27", totals=totals)),
    )


def _b27_note(rules: BaccaratRules) -> str:
    named = " or ".join(str(t) for t in _distinct(rules.b27_totals)) or "no total"
    return f"pays {format_odds(rules.b27_pays)} when the banker wins with {named}"


#: Every punto banco wager, in the order of a table's spots: the three main wagers,
#: then the side wagers a rules set may offer (``BaccaratRules.side_wagers``).
WAGERS: dict[str, Wager] = {
    "player": Wager(
        id="player",
        reads=frozenset({"outcome"}),
        lines=_player_lines,
        odds=lambda rules: rules.player_pays,
        when=lambda rules: "the player's hand wins; a tie returns it",
        note=lambda rules: f"pays {format_odds(rules.player_pays)}; a tie returns the wager",
        side=False,
    ),
    "banker": Wager(
        id="banker",
        reads=frozenset({"outcome", "banker_total"}),
        lines=_banker_lines,
        odds=lambda rules: rules.banker_pays,
        when=_banker_when,
        spot=_banker_spot,
        note=_banker_note,
        side=False,
    ),
    "tie": Wager(
        id="tie",
        reads=frozenset({"outcome"}),
        lines=_tie_lines,
        odds=lambda rules: rules.tie_pays,
        when=lambda rules: "both hands have the same total",
        note=lambda rules: f"pays {format_odds(rules.tie_pays)}",
        side=False,
    ),
    "player_pair": _pair("player"),
    "banker_pair": _pair("banker"),
    "b27": Wager(
        id="b27",
        reads=frozenset({"outcome", "banker_total"}),
        lines=_b27_lines,
        odds=lambda rules: rules.b27_pays,
        when=lambda rules: (
            f"the banker wins with a total of {' or '.join(str(t) for t in rules.b27_totals)}"
        ),
        note=_b27_note,
        name="B-27",
    ),
}

#: The wagers every punto banco table offers.
MAIN_WAGERS = tuple(w.id for w in WAGERS.values() if not w.side)


def side_wagers() -> tuple[str, ...]:
    """The side wagers a rules set may offer, in their spots' order."""
    return tuple(w.id for w in WAGERS.values() if w.side)


#: the wagers the game ships with (they cannot be taken away)
_SHIPPED = frozenset(WAGERS)

#: every wager's words, by id; kept by :func:`register` (read on every sentence)
_NAMES: dict[str, str] = {wager.id: wager.words for wager in WAGERS.values()}


def wager_names() -> Mapping[str, str]:
    """Every wager's words, by id (those registered later too)."""
    return _NAMES


def register(wager: Wager) -> Wager:
    """Add a side wager to the game (its id must be new); returns it.

    A rules set offers it by naming it in ``side_wagers``; the engine settles it, the
    kernel simulates it, the analysis counts it and the rules page shows it.
    """
    if wager.id in WAGERS:
        raise ValueError(f"wager: {wager.id} is already a punto banco wager")
    if not wager.side:
        raise ValueError(f"wager: {wager.id}: only side wagers can be added")
    WAGERS[wager.id] = wager
    _NAMES[wager.id] = wager.words
    return wager


def unregister(wager_id: str) -> None:
    """Take an added side wager away again (a test's, a designer's trial)."""
    if wager_id not in WAGERS or not WAGERS[wager_id].side or wager_id in _SHIPPED:
        raise ValueError(f"wager: {wager_id} is not a wager that was added")
    del WAGERS[wager_id]
    del _NAMES[wager_id]
