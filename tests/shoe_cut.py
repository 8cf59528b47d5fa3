"""A table's rounds held against its shoe's reshuffle point: a new shoe comes exactly when
the cut card (or the share of the shoe) has come out, never sooner and never later.

The rounds are given as the web's JSON (their events), in the order they were dealt at
one table; the checker counts the cards taken since each shuffle (burnt ones included,
as :class:`~cardroom.core.shoe.Shoe` counts them) and asks of every round but the first:
does it open with a reshuffle exactly when the last one left ``reshuffle_after`` cards or
more dealt?
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ShoeWalk:
    """What the rounds showed: the shoes shuffled, the reshuffles at the cut, and the
    cards dealt from the shoe in use after the last round."""

    shoes: int
    cuts: int
    dealt: int


def check_cut(rounds: Sequence[Mapping[str, Any]], reshuffle_after: int) -> ShoeWalk:
    """Fail (AssertionError, naming the round) on a reshuffle before the cut or a cut
    passed without one, a shoe numbered out of turn, or a finished round whose
    ``reshuffle_due`` says otherwise."""
    shoe = 0
    cuts = 0
    dealt = 0
    for n, data in enumerate(rounds):
        events = list(data["events"])
        opening = events[0] if events and events[0]["event"] == "reshuffled" else None
        new_shoe = opening is not None and opening["cause"] != "ran_out"
        where = f"round {n + 1} (#{data['id']})"
        if n == 0:
            assert new_shoe, f"{where}: the first round at a table opens a new shoe"
        else:
            reached = dealt >= reshuffle_after
            assert new_shoe == reached, (
                f"{where}: {dealt} cards dealt from shoe {shoe} (the cut is at "
                f"{reshuffle_after}), but it {'opened' if new_shoe else 'did not open'} "
                f"with a new shoe: {opening}"
            )
            if new_shoe:
                assert opening is not None and opening["cause"] in ("cut_card", "reshuffle_point")
                cuts += 1
        for event in events:
            if event["event"] == "reshuffled":
                shoe += 1
                assert event["shoe"] == shoe, f"{where}: shoe {event['shoe']} after {shoe - 1}"
                dealt = int(event["burnt"])
            elif event["event"] == "card":
                dealt += 1
        if data.get("state") == "finished" and data.get("reshuffle_due") is not None:
            assert data["reshuffle_due"] == (dealt >= reshuffle_after), (
                f"{where}: reshuffle_due {data['reshuffle_due']} with {dealt} cards dealt"
            )
    return ShoeWalk(shoe, cuts, dealt)
