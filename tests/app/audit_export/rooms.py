"""A small room for the audit export's tests: rounds of three house games with their
ledger rows, a break, an operator's note, a limit and a reality check; and re-chaining
an export as a forger would, with a key of their own."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from fractions import Fraction
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cardroom.app.audit_export.canonical import canonical, digest, parse_line
from cardroom.app.audit_export.format import end_line, signed_message
from cardroom.app.audit_export.keys import fingerprint
from cardroom.app.limits import Limits
from cardroom.app.operators.log import Actor, OperatorLog
from cardroom.app.protections import Protections
from cardroom.app.tables.house import HouseTable
from cardroom.app.wallet import Wallet
from cardroom.core.shoe import SeededShuffler, Shoe
from cardroom.games import get_game
from cardroom.storage import Database
from cardroom.storage.schema import reality_checks

#: The games dealt, and rounds each: 21-24-27's rounds have decisions in their records.
GAMES = ("finnish27", "punto-banco", "21-24-27")
ROUNDS = 2


def fill(db: Database) -> int:
    """Deal ``ROUNDS`` rounds of each game to Ann, give Bo a break, write a note in the
    operator log, set a limit of Ann's and keep a reality check she acknowledged; the
    number of rounds."""
    wallet = Wallet(db)
    ann = wallet.accounts.account_or_open("Ann").id
    for n, game_id in enumerate(GAMES):
        game = get_game(game_id)
        rules = game.default_rules()
        table = HouseTable(
            game, rules, Shoe(rules.shoe, SeededShuffler(n + 1)), wallet, ann, name="Ann"
        )
        for _ in range(ROUNDS):
            live = table.place_bets({"player": "10"})
            table.play_default(live)
            assert live.is_over
    bo = wallet.accounts.account_or_open("Bo").id
    Protections(db).take_break(bo, "24 hours", "192.0.2.1")
    OperatorLog(db).append(Actor(None, "tester", "-"), "note", f"account:{ann}", "a note")
    Limits(db).change(ann, {"stake_day": Fraction(500)}, "192.0.2.1")
    with db.write() as conn:  # (one is due only after minutes of play)
        now = datetime.now(UTC)
        conn.execute(
            reality_checks.insert().values(
                account_id=ann,
                created_at=now,
                session_started=now - timedelta(minutes=60),
                minutes=60,
                net=-1500,
                address="192.0.2.1",
            )
        )
    return len(GAMES) * ROUNDS


def lines_of(path: Path) -> list[bytes]:
    """The export's lines, their ``\\n`` taken off."""
    return path.read_bytes().split(b"\n")[:-1]


def rechain(lines: list[bytes], key: Ed25519PrivateKey) -> bytes:
    """``lines`` (header first, end last) chained again and signed with ``key``, which the
    header names: what a forger who changed a line but has not the operator's key can
    make."""
    header = parse_line(lines[0])
    header["key"] = fingerprint(key.public_key())
    out = [canonical(header)]
    for line in lines[1:-1]:
        data = parse_line(line)
        data["prev"] = digest(out[-1])
        out.append(canonical(data))
    end = parse_line(lines[-1])
    end["prev"] = digest(out[-1])
    del end["signature"]
    out.append(end_line(end, key.sign(signed_message(end))))
    return b"".join(line + b"\n" for line in out)
