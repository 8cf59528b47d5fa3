"""What the rule options of the Finnish games share: the house's fee per 100 staked.

(Their choice fields, the old switches read as a choice and the fields a written file
leaves out at their defaults are said beside each field: :func:`cardroom.core.rules.rule`.)

The fee (``fee_per_100``) is the house's collection, taken off every stake before the
deal: of a stake ``S``, ``S * fee / 100`` goes to the house and the rest is the wager
that plays, paid at the wager's odds.  A lost wager loses the whole stake, fee
included, and never more: what a wager pays back is never below 0.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from cardroom.core.events import Why
from cardroom.core.money import exact_text
from cardroom.core.rules import Between

__all__ = [
    "FEE",
    "fee_assumption",
    "fee_of",
    "fee_scale",
    "with_fee",
]

#: the house's fee per 100 staked: 0 (none) up to, not including, the whole stake
FEE = Between(0, 100, below=True, note="per 100 staked")


def fee_of(fee_per_100: Fraction, stake: Fraction) -> Fraction:
    """The house's fee on ``stake``."""
    return fee_per_100 * stake / 100


def with_fee(net: Fraction, why: Why, fee: Fraction) -> tuple[Fraction, Why]:
    """A wager's settlement of the stake that played, less the house's ``fee`` (a fact
    of the rule, when there is one)."""
    if not fee:
        return net, why
    return net - fee, Why(why.rule, {**why.facts, "fee": fee})


def fee_scale(fee_per_100: Fraction) -> Callable[[Fraction], Fraction]:
    """A net per unit of the stake that plays -> the net per unit staked, the fee lost
    (a whole lost stake stays -1)."""
    share = fee_per_100 / 100

    def paid(net: Fraction) -> Fraction:
        return net * (1 - share) - share

    return paid


def fee_assumption(fee_per_100: Fraction) -> tuple[str, ...]:
    """An analysis's line about the fee, if there is one."""
    if not fee_per_100:
        return ()
    return (
        f"a fee of {exact_text(fee_per_100)} per 100 staked comes off every stake before "
        "the deal: the rest plays, and every net result is per unit staked, fee included",
    )
