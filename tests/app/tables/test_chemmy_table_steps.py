"""ChemmyTable under the web's many processes: a step made in one database transaction
that fails is put back in memory (checkpoint and restore), so the table plays on exactly
as one that never failed; and a table's coups left in progress by a stopped process are
finished for all its people at once, leaving other tables alone."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from cardroom.app.history import RoundRecord, replay
from cardroom.app.tables.chemmy import ChemmyTable, finish_interrupted_coups, finish_table_coups
from cardroom.app.wallet import Wallet
from cardroom.core.shoe import SeededShuffler, Shoe
from cardroom.games.chemin_de_fer import ChemmyRules, SimpleMoney, TableauBot
from cardroom.storage import Database, StorageError
from tests.app.tables.test_chemmy_table import answer

F = Fraction
RULES = ChemmyRules()


class Injected(StorageError):
    """The failure a test makes the database's transaction end with."""


@pytest.fixture
def wallets(tmp_path: Path) -> Iterator[tuple[Wallet, Wallet]]:
    with (
        Database.open(path=tmp_path / "a.sqlite3") as a,
        Database.open(path=tmp_path / "b.sqlite3") as b,
    ):
        yield Wallet(a), Wallet(b)


def seated(wallet: Wallet, ref: str, seed: int = 6) -> tuple[ChemmyTable, list[int]]:
    """Ann and Bob (people) and a bot at a table of three."""
    table = ChemmyTable(
        RULES,
        Shoe(RULES.shoe, SeededShuffler(seed)),
        wallet,
        np.random.default_rng(seed),
        seat_count=3,
        table_ref=ref,
    )
    people = []
    for seat, name in enumerate(("Ann", "Bob")):
        account = wallet.accounts.account_or_open(name)
        table.sit_person(seat, account.id, name, F(300))
        people.append(account.id)
    table.sit_bot(2, "Aino", F(1000), TableauBot(money=SimpleMoney()))
    table.start()
    return table, people


def step(table: ChemmyTable) -> None:
    """One step as the web makes it: play on, and answer a person's turn."""
    turn = table.advance()
    if turn is not None:
        answer(table, turn)


def in_transaction(wallet: Wallet, table: ChemmyTable, work: Callable[[], None]) -> None:
    """``work`` in one transaction that fails at its end: nothing is written, and the
    table is put back as it was."""
    saved = table.checkpoint()

    def failing(conn: object) -> None:
        work()
        raise Injected("the disk is full")

    with pytest.raises(Injected):
        wallet.db.run(failing)
    table.restore(saved)


def test_a_failed_step_put_back_plays_on_as_if_it_never_happened(
    wallets: tuple[Wallet, Wallet],
) -> None:
    steady_wallet, failing_wallet = wallets
    steady, _ = seated(steady_wallet, "t")
    failing, people = seated(failing_wallet, "t")
    for n in range(60):
        step(steady)
        if n % 3 == 0:  # every third step fails once (twice for every ninth), then succeeds
            in_transaction(failing_wallet, failing, lambda: step(failing))
            if n % 9 == 0:
                in_transaction(failing_wallet, failing, lambda: step(failing))
        failing_wallet.db.run(lambda conn: step(failing))
    assert steady.game is not None and failing.game is not None
    assert failing.game.log == steady.game.log
    assert failing.records == steady.records and len(failing.records) >= 10
    assert failing.game.stacks == steady.game.stacks
    for account_id in people:
        failing_wallet.books.audit(account_id)
        coups = failing_wallet.rounds.latest(account_id, limit=100, game="chemin-de-fer")
        assert len(coups) == len(
            steady_wallet.rounds.latest(account_id, limit=100, game="chemin-de-fer")
        )
        for stored in coups:
            assert replay(RoundRecord.from_json(stored.record)).same
        [seat] = failing_wallet.seats.open_seats(account_id)
        assert seat.stack == failing.game.stacks[people.index(account_id)]


def test_a_seat_taken_in_a_failed_transaction_is_put_back(wallets: tuple[Wallet, Wallet]) -> None:
    wallet, _ = wallets
    table, people = seated(wallet, "t")
    while not (table.game is not None and table.game.between_coups):
        step(table)
    cara = wallet.accounts.open_account("Cara", F(1000))
    assert table.leave(0) is not None  # between coups: Ann stands up
    in_transaction(wallet, table, lambda: table.sit_person(0, cara.id, "Cara", F(200)))
    assert 0 not in table.people and table.seats[0].kind == "empty"
    assert table.game.stacks[0] == 0 and wallet.accounts.balance(cara.id) == 1000
    assert wallet.seats.open_seats(cara.id) == []
    table.sit_person(0, cara.id, "Cara", F(200))  # now for real
    assert table.game.stacks[0] == 200 and wallet.accounts.balance(cara.id) == 800
    while (turn := table.advance()) is not None:
        answer(table, turn)
    for account_id in (*people, cara.id):
        wallet.books.audit(account_id)


def test_a_tables_coups_are_finished_for_all_its_people_and_only_its(
    wallets: tuple[Wallet, Wallet],
) -> None:
    wallet, _ = wallets
    stopped, people = seated(wallet, "web:chemin-de-fer:1", seed=8)
    while True:  # until a coup is under way with both people in it, waiting for one
        turn = stopped.advance()
        if turn is not None and len(wallet.rounds.unfinished_rounds(people[0])) == 1:
            break
        if turn is not None:
            answer(stopped, turn)
    other = ChemmyTable(  # Ann also sits at another table, in a coup there too
        RULES,
        Shoe(RULES.shoe, SeededShuffler(9)),
        wallet,
        np.random.default_rng(9),
        seat_count=2,
        table_ref="web:chemin-de-fer:2",
    )
    other.sit_person(0, people[0], "Ann", F(100))
    other.sit_bot(1, "Eero", F(1000), TableauBot(money=SimpleMoney()))
    other.start()
    while True:
        turn = other.advance()
        if turn is not None and len(wallet.rounds.unfinished_rounds(people[0])) == 2:
            break
        if turn is not None:
            answer(other, turn)
    total = sum(wallet.accounts.balance(a) for a in people) + sum(
        s.stack for a in people for s in wallet.seats.open_seats(a)
    )
    del stopped  # the process stops
    records, cashed = finish_table_coups(wallet, "web:chemin-de-fer:1")
    assert cashed == 2 and len(records) == 2 and records[0] == records[1]
    [record] = records[:1]
    assert record.notes and replay(record).same
    # only table 1's: Ann's coup and seat at table 2 are left as they were
    [left] = wallet.rounds.unfinished_rounds(people[0])
    assert left.table_ref == "web:chemin-de-fer:2"
    assert [s.table_ref for s in wallet.seats.open_seats(people[0])] == ["web:chemin-de-fer:2"]
    assert (
        wallet.seats.open_seats(people[1]) == []
        and wallet.rounds.unfinished_rounds(people[1]) == []
    )
    after = sum(wallet.accounts.balance(a) for a in people) + sum(
        s.stack for a in people for s in wallet.seats.open_seats(a)
    )
    assert after == total + record.net(0) + record.net(1)  # only the coup's own result moved
    assert finish_table_coups(wallet, "web:chemin-de-fer:1") == ([], 0)
    # a person's own recovery leaves the tables it is told to skip
    assert finish_interrupted_coups(wallet, people[0], skip=lambda ref: ref is not None) == []
    assert len(wallet.rounds.unfinished_rounds(people[0])) == 1
    for account_id in people:
        wallet.books.audit(account_id)
