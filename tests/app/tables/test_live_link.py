"""The chemin de fer tables' traffic between processes, on SQLite and on PostgreSQL: two
processes' links on one database take, renew and lose leases; a lost lease fences every
later transaction out, and a takeover never overlaps the owner's transaction in flight;
a command is done or given up, never both; messages come in order and once; presence of
a dead process does not count."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy import Connection, update

from cardroom.app.tables.live.link import CommandGone, LeaseLost, Link
from cardroom.app.wallet import Wallet
from cardroom.storage import Database
from cardroom.storage.schema import chemmy_processes, chemmy_tables

TABLES = {1: "web:chemin-de-fer:1", 2: "web:chemin-de-fer:2"}


def expire(db: Database, *, table: int | None = None, process: str | None = None) -> None:
    """Make a lease (or a process's heartbeat) run out now."""
    with db.write() as conn:
        if table is not None:
            conn.execute(
                update(chemmy_tables).where(chemmy_tables.c.id == table).values(lease_until=0.0)
            )
        if process is not None:
            conn.execute(
                update(chemmy_processes)
                .where(chemmy_processes.c.id == process)
                .values(alive_until=0.0)
            )


def test_leases_are_taken_once_renewed_and_taken_over(db: Database) -> None:
    first, second = Link(db), Link(db)
    beat = first.beat(TABLES, {})
    assert beat.taken == {1: 1, 2: 1} and beat.others == 0 and beat.registered
    beat = second.beat(TABLES, {})
    assert beat.taken == {} and beat.others == 1
    assert first.beat(TABLES, {1: 1, 2: 1}).held == {1: 1, 2: 1}
    assert first.live_refs() == set(TABLES.values())
    db.run(lambda conn: first.fence(conn, 1, 1))
    with pytest.raises(LeaseLost):
        db.run(lambda conn: second.fence(conn, 1, 1))
    expire(db, table=1)  # the first process fell silent on table 1
    assert second.beat(TABLES, {}).taken == {1: 2}
    with pytest.raises(LeaseLost):  # fenced out: it can write nothing at that table
        db.run(lambda conn: first.fence(conn, 1, 1))
    assert first.beat(TABLES, {1: 1, 2: 1}).held == {2: 1}  # it sees it lost table 1
    first.release([2])  # it stops: the other takes table 2 at its next heartbeat
    assert second.beat(TABLES, {1: 2}).taken == {2: 2}


def test_a_takeover_never_overlaps_the_owners_transaction(db: Database) -> None:
    owner, taker = Link(db), Link(db)
    owner.beat(TABLES, {})
    taker.beat(TABLES, {})
    expire(db, table=1)  # the lease has run out, but the owner is inside a step
    inside, finish = threading.Event(), threading.Event()
    wallet = Wallet(db)
    ann = wallet.accounts.open_account("Ann")

    def step(conn: Connection) -> None:
        owner.fence(conn, 1, 1)
        wallet.accounts.deposit(ann.id, 1)  # part of the step: all of it or none
        inside.set()
        assert finish.wait(30)

    with ThreadPoolExecutor(2) as pool:
        running = pool.submit(db.run, step)
        assert inside.wait(30)
        if db.is_sqlite:  # the taker waits for the database's write lock ...
            taking = pool.submit(taker.beat, TABLES, {})
            finish.set()
            running.result()
            assert taking.result().taken == {1: 2}
        else:  # ... or, on PostgreSQL, passes over the row locked by the step
            assert taker.beat(TABLES, {}).taken == {}
            finish.set()
            running.result()
            assert taker.beat(TABLES, {}).taken == {1: 2}
    assert wallet.accounts.balance(ann.id) == 1001  # the step, made under the lease, stands
    with pytest.raises(LeaseLost):
        db.run(lambda conn: owner.fence(conn, 1, 1))


def test_a_command_is_done_or_given_up_never_both(db: Database) -> None:
    owner, asker = Link(db), Link(db)
    owner.beat(TABLES, {})
    asker.beat(TABLES, {})
    ann = Wallet(db).accounts.open_account("Ann")
    first = asker.send(1, ann.id, "act", {"action": "stand"}, wait=30)
    [waiting], _ = owner.table_inbox(1)
    assert (waiting.id, waiting.kind, waiting.body) == (first, "act", {"action": "stand"})
    assert 0 < waiting.left <= 30
    owner.reply(first, asker.process, {"error": None})
    assert asker.cancel(first) == {"error": None}  # too late to give up: the answer
    assert asker.collect([first])[1] == {first: {"error": None}}
    second = asker.send(1, ann.id, "leave", {}, wait=30)
    assert asker.cancel(second) is None  # given up first: the owner cannot do it now
    with pytest.raises(CommandGone):
        owner.reply(second, asker.process, {"ok": {}})
    assert owner.table_inbox(1)[0] == []


def test_messages_come_in_order_once_and_a_dead_processs_presence_does_not_count(
    db: Database,
) -> None:
    owner, other = Link(db), Link(db)
    owner.beat(TABLES, {})
    other.beat(TABLES, {})
    for n in range(3):
        db.run(lambda conn, n=n: owner.post(conn, other.process, 1, 1, [(7, {"n": n})]))
    posted, _ = other.collect([])
    assert [(p.table_id, p.epoch, p.messages) for p in posted] == [
        (1, 1, [(7, {"n": n})]) for n in range(3)
    ]
    assert other.collect([]) == ([], {})
    ann = Wallet(db).accounts.open_account("Ann")
    other.add_presence(7, 1, ann.id, "Ann")
    owner.add_presence(1, 1, ann.id, "Ann")  # the owner's own: it knows them already
    [present] = owner.table_inbox(1)[1]
    assert (present.process, present.connection, present.name) == (other.process, 7, "Ann")
    expire(db, process=other.process)  # the other process died
    assert owner.table_inbox(1)[1] == []
    other.beat(TABLES, {})  # (it was only slow: its heartbeat counts again)
    assert len(owner.table_inbox(1)[1]) == 1
    other.drop_presence(7, 1)
    assert owner.table_inbox(1)[1] == []
