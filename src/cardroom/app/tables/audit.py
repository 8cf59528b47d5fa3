"""The audit of a whole database: every account's books, and every round in progress.

What a round's path keeps right by construction (each ledger row written with the
balance it leaves, under the account's lock; a round written all at once or left as it
was) is checked here as a whole, away from any request: ``cardroom audit`` runs it, and
the tests run it after every test that moves money.

- The books (:meth:`Books.audit_all`): each account's balance is the sum of its
  ledger, and each ledger row's running balance is the one before plus its amount.
- The rounds in progress: a house round in progress must be waiting for a decision the
  person may make (replayed from its saved cards and decisions); one that waits for
  nothing would be stuck, its stakes held.  A web table's round in play must be the one
  its table's row names, and the other way round.  A chemin de fer coup in progress is
  counted (its table finishes it).

>>> import tempfile
>>> from pathlib import Path
>>> from cardroom.storage import Database
>>> with tempfile.TemporaryDirectory() as tmp, Database.open(path=Path(tmp) / "a.db") as db:
...     wallet = Wallet(db)
...     _ = wallet.accounts.open_account("Ann")
...     report = audit(wallet)
>>> report.ok, report.accounts, report.rounds_in_progress
(True, 1, 0)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import select

from cardroom.app.tables.house import Segments, saved_rules
from cardroom.app.tables.state import StateError, is_coup_state, read_house_state
from cardroom.app.wallet import AuditError, StoredRound, Wallet
from cardroom.core.cards import parse_cards
from cardroom.core.rules import RulesError
from cardroom.core.shoe import ShoeExhausted
from cardroom.games import GAMES, UnknownGame, get_game
from cardroom.games.base import CardWanted, IllegalAction, Turn, WagerError
from cardroom.storage.schema import house_tables, rounds

__all__ = ["AuditReport", "audit", "awaited_turn"]


@dataclass
class AuditReport:
    """What :func:`audit` found: how much it looked at, and each problem in one line."""

    accounts: int = 0
    rounds_in_progress: int = 0
    coups_in_progress: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def audit(wallet: Wallet) -> AuditReport:
    """Audit every account's books and every round in progress."""
    report = AuditReport()
    try:
        report.accounts = wallet.books.audit_all()
    except AuditError as err:
        report.problems.append(str(err))
    in_play: dict[tuple[int, str], int] = {}
    with wallet.db.read() as conn:
        for account_id, game, round_id in conn.execute(
            select(house_tables.c.account_id, house_tables.c.game, house_tables.c.round_id).where(
                house_tables.c.round_id.is_not(None)
            )
        ):
            in_play[(int(account_id), str(game))] = int(round_id)
        open_ids = conn.execute(
            select(rounds.c.id).where(rounds.c.status == "in_progress").order_by(rounds.c.id)
        ).scalars()
        ids = [int(i) for i in open_ids]
    named: set[int] = set()
    for round_id in ids:
        stored = wallet.rounds.round(round_id)
        if (
            stored.game in GAMES
            and GAMES[stored.game].kind == "seats"
            and is_coup_state(stored.state)
        ):
            report.coups_in_progress += 1
            continue
        report.rounds_in_progress += 1
        why = awaited_turn(stored)
        if isinstance(why, str):
            report.problems.append(
                f"round {stored.id} ({stored.game}, account {stored.account_id}) is in "
                f"progress but waits for no decision: {why}"
            )
        if stored.table_ref == f"web:{stored.game}":
            if in_play.get((stored.account_id, stored.game)) != stored.id:
                report.problems.append(
                    f"round {stored.id} ({stored.game}, account {stored.account_id}) is in "
                    "progress but its table does not name it as the round in play"
                )
            named.add(stored.id)
    for (account_id, game), round_id in sorted(in_play.items()):
        if round_id not in named:
            report.problems.append(
                f"the {game} table of account {account_id} names round {round_id} as in "
                "play, but that round is not in progress"
            )
    return report


def awaited_turn(stored: StoredRound) -> Turn | str:
    """The decision a house round in progress waits for, replayed from its saved state
    with the engine alone (nothing is written); or why it waits for none."""
    try:
        state = read_house_state(stored.state)
        game = get_game(stored.game)
        rules = saved_rules(game.id, state.rules)
        engine = game.new_round(rules, dict(state.stakes))
        source = Segments([parse_cards(codes) for codes in state.shoe])

        def deal() -> None:
            while isinstance(engine.to_move(), CardWanted):
                engine.deal(source.draw())

        deal()
        for made in state.decisions:
            step = engine.to_move()
            action = made.action
            if not isinstance(step, Turn) or action not in step.actions:
                return f"its saved decision {action!r} is not one the round allows"
            engine.act(step.seat, action)
            deal()
    except ShoeExhausted:
        return "its saved cards run out before the next decision"
    except StateError as err:
        return str(err)
    except (UnknownGame, RulesError, ValueError) as err:
        return f"its saved state cannot be read ({err})"
    except (IllegalAction, WagerError) as err:
        return f"it does not replay ({err})"
    step = engine.to_move()
    if step is None:
        return "its cards and decisions end the round, which was never settled"
    if not isinstance(step, Turn) or not step.actions:
        return "it has no legal action"
    return step
