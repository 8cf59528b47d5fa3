"""Reading a bankroll file in the CLI tests: balances, rounds and their records."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

from cardroom.app.wallet import StoredRound, Wallet
from cardroom.storage import Database

DEFAULT = "You"


def balance(path: Path, person: str | None = None) -> Fraction:
    with Database.open(path=path, create=False) as db:
        wallet = Wallet(db)
        account = wallet.accounts.account(person or DEFAULT)
        # a bankroll nobody has used yet starts at 1000 when it is first used
        return Fraction(1000) if account is None else account.balance


def rounds_of(path: Path, person: str | None = None, limit: int = 100) -> list[StoredRound]:
    """A person's finished (and void) rounds, oldest first."""
    if not path.exists():
        return []
    with Database.open(path=path, create=False) as db:
        wallet = Wallet(db)
        account = wallet.accounts.account(person or DEFAULT)
        if account is None:
            return []
        return list(reversed(wallet.rounds.latest(account.id, limit=limit)))


def count(path: Path, person: str | None = None) -> int:
    return len(rounds_of(path, person))


def stored(path: Path, person: str | None = None) -> list[dict[str, Any]]:
    """Each round's record (JSON), oldest first, with its id, status and net added."""
    return [
        {
            **(r.record or {}),
            "id": r.id,
            "status": r.status,
            "round_net": r.net,
            "seat": (r.state or {}).get("seat"),
        }
        for r in rounds_of(path, person)
    ]


def wagers(record: dict[str, Any], seat: int = 0) -> dict[str, Fraction]:
    """A record's stakes by wager (of ``seat``)."""
    return {w["wager"]: Fraction(w["stake"]) for w in record.get("wagers", []) if w["seat"] == seat}


def nets(record: dict[str, Any], seat: int = 0) -> dict[str, Fraction]:
    return {w["wager"]: Fraction(w["net"]) for w in record.get("wagers", []) if w["seat"] == seat}
