"""Play money for a broke account: a top-up back to the starting balance when the
balance (with any stack at a table) is below every table's minimum, at most once a day.

The wallet makes it (:meth:`cardroom.app.wallet.Accounts.top_up`: one transaction under the
account's lock, a ``top_up`` ledger row); this module says when it is offered, in the
same words on the wallet page, where a bet or a buy-in is refused, and in the API.
"""

from __future__ import annotations

from datetime import datetime
from fractions import Fraction
from typing import Any

from cardroom.app.wallet import START_BALANCE
from cardroom.core.money import format_amount, format_decimal

__all__ = ["hint", "lowest_minimum", "offer"]


def lowest_minimum(svc: Any) -> Fraction:
    """The smallest table minimum of this server: the house games' and chemin de fer's."""
    minimums = [rules.table.minimum for rules in svc.rules.values()]
    chemmy = getattr(svc, "chemmy", None)
    if chemmy is not None:
        minimums.append(chemmy.rules.table.minimum)
    return min(minimums) if minimums else Fraction(1)


def _when(at: datetime) -> str:
    return at.strftime("%Y-%m-%d %H:%M") + " UTC"


def offer(svc: Any, account_id: int) -> dict[str, Any] | None:
    """The top-up as the wallet page and the API tell it: ``due`` (it may be made now)
    with its words, or when the next may be made; None when the balance is enough."""
    minimum = lowest_minimum(svc)
    due, next_at = svc.wallet.accounts.top_up_due(account_id, minimum)
    start = format_amount(START_BALANCE)
    if due:
        text = (
            f"Your balance is below every table's minimum ({format_amount(minimum)}). "
            f"This is play money: you may top it up to {start}, once a day."
        )
    elif next_at is not None:
        text = (
            f"Your balance is below every table's minimum ({format_amount(minimum)}), and "
            f"you had a top-up less than a day ago: the next one may be made from "
            f"{_when(next_at)}."
        )
    else:
        return None
    return {
        "due": due,
        "to": format_decimal(START_BALANCE),
        "minimum": format_decimal(minimum),
        "next_at": None if next_at is None else next_at.isoformat(),
        "text": text,
    }


def hint(svc: Any, account_id: int, refusal: str) -> str:
    """A refusal for want of money, with the way on when the account may be topped up."""
    found = offer(svc, account_id)
    if found is None:
        return refusal
    if found["due"]:
        start = format_amount(START_BALANCE)
        return (
            f"{refusal}. Your balance is below every table's minimum: this is play money, "
            f"so you may top it up to {start} on your Wallet page (once a day)"
        )
    return f"{refusal}. {found['text']}"
