"""Names that cannot pass for another's, and top-ups of play money: in the database, with
several processes at once, and a database of revision 0004 brought up to them."""

from __future__ import annotations

from datetime import timedelta
from fractions import Fraction

import pytest
from alembic import command
from sqlalchemy import create_engine, select, text

from cardroom.app.wallet import NameTaken, TopUpRefused, Wallet
from cardroom.app.wallet.values import now as _now
from cardroom.storage import Database
from cardroom.storage.migrate import alembic_config
from cardroom.storage.schema import accounts, ledger
from tests.conftest import assert_books_and_rounds
from tests.storage.workers import run_together

F = Fraction


def test_names_alike_are_refused_and_a_broke_account_is_topped_up_once_a_day(
    db: Database,
) -> None:
    wallet = Wallet(db)
    eero = wallet.accounts.open_account("Eero", F(5))
    for alike, why in (("Еего", "looks too much like 'Eero'"), ("ＥＥＲＯ", "called 'EERO'")):
        with pytest.raises(NameTaken, match=why):
            wallet.accounts.open_account(alike)
    assert wallet.accounts.account(" ＥＥＲＯ ") == wallet.accounts.account(
        "eero"
    )  # found as registered
    assert wallet.accounts.open_account("Eerika").name == "Eerika"
    # a top-up: below every table's minimum (10), back to 1,000, then not again for a day
    assert wallet.accounts.top_up_due(eero.id, F(10)) == (True, None)
    assert wallet.accounts.top_up(eero.id, F(10)) == 1000
    with pytest.raises(TopUpRefused, match=r"below every table's minimum \(10\): yours is 1000"):
        wallet.accounts.top_up(eero.id, F(10))
    wallet.accounts.withdraw(eero.id, F(995))
    due, again = wallet.accounts.top_up_due(eero.id, F(10))
    assert not due and again is not None
    with pytest.raises(TopUpRefused, match="one top-up a day: the next one may be made from"):
        wallet.accounts.top_up(eero.id, F(10))
    assert wallet.accounts.top_up(eero.id, F(10), now=_now() + timedelta(days=1, seconds=1)) == 1000
    # money at a table counts: no top-up while a stack there would do
    wallet.accounts.withdraw(eero.id, F(991))
    seat = wallet.seats.buy_in(eero.id, F(9), "web:chemin-de-fer:1")
    wallet.seats.update_stack(seat, F(40))
    with pytest.raises(TopUpRefused, match="yours is 40 with what you have at the tables"):
        wallet.accounts.top_up(eero.id, F(10), now=_now() + timedelta(days=3))
    wallet.seats.cash_out(seat)
    kinds = [row.kind for row in wallet.books.ledger(eero.id)]
    assert kinds.count("top_up") == 2 and wallet.accounts.balance(eero.id) == 40


def test_two_processes_register_names_alike_and_top_up_at_once(pg_migrated_url: str) -> None:
    # (on PostgreSQL, where two transactions truly run at once; SQLite's write lock takes
    # them one after the other, which the other tests cover)
    migrated_url = pg_migrated_url
    with Database.open(migrated_url) as db:
        broke = Wallet(db).accounts.open_account("Broke", F(0)).id
    results = run_together(
        [["alike", migrated_url, "Eero", str(broke)], ["alike", migrated_url, "Еего", str(broke)]]
    )
    assert sorted(r["registered"] for r in results) == [False, True]
    assert sorted(r["topped_up"] for r in results) == [False, True]
    with Database.open(migrated_url) as db:
        wallet = Wallet(db)
        assert [row.kind for row in wallet.books.ledger(broke)] == ["top_up"]
        assert wallet.accounts.balance(broke) == 1000
        assert_books_and_rounds(db, rounds=False)


def test_revision_0005_renames_names_alike_and_keeps_the_books(db_url: str) -> None:
    engine = create_engine(db_url)
    with engine.begin() as conn:
        command.upgrade(alembic_config(conn), "0004")
        for name in ("Eero", "Еего", "ＥＥＲＯ", "Aino"):
            conn.execute(
                text(
                    "INSERT INTO accounts (name, name_key, balance, created_at) "
                    "VALUES (:name, :key, 500, CURRENT_TIMESTAMP)"
                ),
                {"name": name, "key": name.casefold()},
            )
        conn.execute(
            text(
                "INSERT INTO ledger (account_id, created_at, kind, amount, balance_after, memo) "
                "SELECT id, CURRENT_TIMESTAMP, 'deposit', 500, 500, 'opening deposit' "
                "FROM accounts"
            )
        )
    engine.dispose()
    with Database.open(db_url) as db:  # brings it to the newest revision
        with db.read() as conn:
            names = conn.execute(select(accounts.c.name).order_by(accounts.c.id)).scalars()
            assert list(names) == ["Eero", "Еего (2)", "EERO (3)", "Aino"]
            assert conn.execute(select(ledger.c.kind)).scalars().all() == ["deposit"] * 4
        wallet = Wallet(db)
        for name in ("Eero", "Еего (2)", "EERO (3)", "ｅｅｒｏ (3)"):  # each signs in as before
            assert wallet.accounts.account(name) is not None
        with pytest.raises(NameTaken):
            wallet.accounts.open_account("Еего")  # looks like "Eero"
        aino = wallet.accounts.account("Aino")
        assert aino is not None
        wallet.accounts.withdraw(aino.id, F(5))  # (5: the rows above are in cents)
        assert wallet.accounts.top_up(aino.id, F(10)) == 1000  # the ledger takes the new kind
        assert_books_and_rounds(db, rounds=False)
