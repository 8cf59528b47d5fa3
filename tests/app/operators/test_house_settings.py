"""What the house sets, as a chemin de fer table meets it with no web: a closed table
takes no seat, a suspended account no buy-in, and suspending a seated person asks the
table's owner to stand them up after the coup."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path

import pytest
from sqlalchemy import insert, select

from cardroom.app.operators.log import Actor
from cardroom.app.operators.players import Players
from cardroom.app.operators.tables import TableSettings
from cardroom.app.wallet import Wallet
from cardroom.games.base import WagerError
from cardroom.storage import Database
from cardroom.storage.schema import chemmy_commands, chemmy_tables
from tests.app.tables.test_chemmy_table_seats import new_table

F = Fraction
OLGA = Actor(None, "Olga", "127.0.0.1")


@pytest.fixture
def wallet(tmp_path: Path) -> Iterator[Wallet]:
    with Database.open(path=tmp_path / "w.sqlite3") as db:
        yield Wallet(db)


def test_a_closed_table_takes_no_seat_and_an_open_one_does(wallet: Wallet) -> None:
    ann = wallet.accounts.open_account("Ann", F(1000))
    table = new_table(wallet)
    TableSettings(wallet.db).set_open(OLGA, "t2", False, "a dealer's break")
    with pytest.raises(WagerError, match="closed by the house"):
        table.sit_person(0, ann.id, "Ann", F(100))
    assert wallet.accounts.balance(ann.id) == 1000
    TableSettings(wallet.db).set_open(OLGA, "t2", True, "back")
    table.sit_person(0, ann.id, "Ann", F(100))
    assert wallet.accounts.balance(ann.id) == 900


def test_a_suspended_account_buys_no_seat(wallet: Wallet) -> None:
    ann = wallet.accounts.open_account("Ann", F(1000))
    Players(wallet.db, wallet).suspend(OLGA, ann.id, "review")
    with pytest.raises(WagerError, match="suspended"):
        new_table(wallet).sit_person(0, ann.id, "Ann", F(100))
    assert wallet.accounts.balance(ann.id) == 1000


def test_suspending_a_seated_person_asks_the_table_to_stand_them_up(wallet: Wallet) -> None:
    ann = wallet.accounts.open_account("Ann", F(1000))
    table = new_table(wallet)
    table.sit_person(0, ann.id, "Ann", F(100))
    with wallet.db.write() as conn:
        conn.execute(
            insert(chemmy_tables).values(
                id=2,
                table_ref="t2",
                owner=None,
                epoch=0,
                lease_until=0.0,
                updated_at=datetime.now(UTC),
            )
        )
    Players(wallet.db, wallet).suspend(OLGA, ann.id, "self-reported problem")
    with wallet.db.read() as conn:
        [command] = conn.execute(select(chemmy_commands)).all()
    assert (command.table_id, command.account_id, command.kind) == (2, ann.id, "leave")
    assert command.status == "pending" and json.loads(command.body) == {}
    # the stack is the table's until the owner stands the seat up after the coup
    assert wallet.accounts.balance(ann.id) == 900
