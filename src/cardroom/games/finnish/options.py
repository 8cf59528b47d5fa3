"""What the rule options of the Finnish games share: choice fields, the old switches
read as a choice, and the house's fee per 100 staked.

A *choice* field is a string out of a fixed list (``CHOICES`` of the rules type); an
*alias* is an older rules file's true/false switch that now reads as one choice field
(``ALIASES``: the field, its value if true, its value if false).  A written rules file
says a choice as its old switch where one can say it, and leaves the ``QUIET`` fields
out at their defaults, so the file of the defaults reads as it did before the options.

The fee (``fee_per_100``) is the house's collection, taken off every stake before the
deal: of a stake ``S``, ``S * fee / 100`` goes to the house and the rest is the wager
that plays, paid at the wager's odds.  A lost wager loses the whole stake, fee
included, and never more: what a wager pays back is never below 0.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from cardroom.core.events import Why
from cardroom.core.money import exact_text
from cardroom.core.rules import Between

__all__ = [
    "FEE",
    "check_choices",
    "fee_assumption",
    "fee_of",
    "fee_scale",
    "read_aliases",
    "with_fee",
    "write_aliases",
]

#: the house's fee per 100 staked: 0 (none) up to, not including, the whole stake
FEE = Between(0, 100, below=True, note="per 100 staked")


def check_choices(rules: Any) -> None:
    """Raise ValueError (``"field: must be ..."``) for a choice field of ``rules`` whose
    value is not one of its choices."""
    for name, choices in type(rules).CHOICES.items():
        value = getattr(rules, name)
        if value not in choices:
            words = ", ".join(f'"{c}"' for c in choices[:-1]) + f' or "{choices[-1]}"'
            raise ValueError(f"{name}: must be {words}, not {value!r}")


def read_aliases(
    aliases: Mapping[str, tuple[str, str, str]], data: dict[str, Any]
) -> dict[str, Any]:
    """A rules file's keys with each old switch put as its choice field (both given must
    say the same)."""
    out = dict(data)
    for old, (name, if_true, if_false) in aliases.items():
        if old not in out:
            continue
        value = out.pop(old)
        if not isinstance(value, bool):
            raise ValueError(f"{old}: must be true or false, not {value!r}")
        choice = if_true if value else if_false
        if name in out and out[name] != choice:
            raise ValueError(
                f"{old}: {str(value).lower()} means {name} = {choice!r}, but {name} "
                f"is {out[name]!r}: give one of the two"
            )
        out[name] = choice
    return out


def write_aliases(rules: Any, data: dict[str, Any]) -> dict[str, Any]:
    """The rules' keys as a file writes them: a choice an old switch can say as that
    switch (in the choice's place), the quiet fields left out at their defaults."""
    cls = type(rules)
    defaults = {f.name: f.default for f in dataclasses.fields(cls)}
    switch = {name: (old, t, f) for old, (name, t, f) in cls.ALIASES.items()}
    out: dict[str, Any] = {}
    for key, value in data.items():
        if key in switch and value in switch[key][1:]:
            old, if_true, _ = switch[key]
            out[old] = value == if_true
        elif key in cls.QUIET and getattr(rules, key) == defaults[key]:
            continue
        else:
            out[key] = value
    return out


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
