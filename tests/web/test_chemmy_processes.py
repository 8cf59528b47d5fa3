"""Chemin de fer tables served by several real ``cardroom serve`` processes on one
PostgreSQL database (a throwaway cluster; skipped with the reason when there is none).

People connected to different processes sit, decide and see one table live for several
coups: every coup's record replays and no client is ever sent another seat's face-down
card.  The process that drives the table, killed with SIGKILL in the middle of a coup,
is replaced by the other within seconds: the coup is finished as a restart finishes it,
every stack goes back to its wallet, no money is lost or made, and the table goes on.
A process that dies leaves nobody marked present: its people stand up after the time
limit, their stacks back in their wallets."""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from pathlib import Path
from typing import Any

import httpx
import pytest

from cardroom.app.history import RoundRecord, replay
from cardroom.app.wallet import Wallet
from tests.databases import pg_migrated_url, pg_server, pg_template  # noqa: F401
from tests.web.chemmy_clients import Socket, Someone, answer
from tests.web.chemmy_processes import Served
from tests.web.test_chemmy_ws import cashed_out, check_private, drain, play, records, seated

F = Fraction

#: The processes of these tests share the machine's cores: one test at a time.
pytestmark = pytest.mark.xdist_group("chemmy-processes")


def serve_two(url: str, folder: Path) -> Iterator[tuple[Served, Served]]:
    """Two processes on one database; the first drives both tables (it started first)."""
    with Served(url, folder, "first") as first:
        first.ready()
        assert first.owns(1) and first.owns(2)
        with Served(url, folder, "second") as second:
            second.ready()
            yield first, second


@pytest.fixture
def two(pg_migrated_url: str, tmp_path: Path) -> Iterator[tuple[Served, Served]]:  # noqa: F811
    """Two processes on one PostgreSQL database."""
    yield from serve_two(pg_migrated_url, tmp_path)


@pytest.fixture(params=["postgresql", "sqlite"])
def two_anywhere(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Served, Served]]:
    """Two processes on one PostgreSQL database, or on one SQLite file (no NOTIFY: the
    processes poll)."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'web.sqlite3'}"
    else:
        url = request.getfixturevalue("pg_migrated_url")
    yield from serve_two(url, tmp_path)


def on(person: Someone, server: Served) -> Someone:
    """The person's requests (with the same session) go to ``server`` from now on."""
    person.server = server  # type: ignore[assignment]
    person.http.base_url = httpx.URL(server.url)
    return person


def post_via(person: Someone, server: Served, path: str, body: object) -> httpx.Response:
    """A request of the person's to ``server``, whichever their own requests go to."""
    return httpx.post(
        f"{server.url}{path}",
        json=body,
        cookies=person.http.cookies,
        headers={"X-CSRF-Token": person.csrf},
        timeout=120,
    )


def both_sit(ann: Someone, bob: Someone, table: int, stakes: tuple[str, str]) -> list[Any]:
    """Ann sits at ``table`` and connects; Bob sits while her coups go on (he waits for
    one to end) and connects: their two WebSockets."""
    ann.sit(table, stakes[0])
    sa = ann.socket(table)
    with ThreadPoolExecutor(1) as pool:
        bob_sits = pool.submit(bob.sit, table, stakes[1])
        play([sa], until=bob_sits.done)
        bob_sits.result()
    return [sa, bob.socket(table)]


def money_everywhere(wallet: Wallet) -> Fraction:
    """Every account's balance and every open seat's stack."""
    total = F(0)
    for account in wallet.accounts.all():
        total += account.balance + sum((s.stack for s in wallet.seats.open_seats(account.id)), F(0))
    return total


def test_people_on_two_processes_play_one_table_live(
    two_anywhere: tuple[Served, Served],
) -> None:
    owner, other = two_anywhere
    ann = Someone.register(owner)  # her requests and her WebSocket go to the table's owner
    bob = Someone.register(other)  # his to the other process, which forwards them
    watcher = Someone.register(other)
    assert ann.sit(1, "200")["seat"] == 0
    sockets = [ann.socket(1)]
    with ThreadPoolExecutor(1) as pool:  # Bob sits down (from the other process) between coups
        bob_sits = pool.submit(bob.sit, 1, "300")
        play(sockets, until=bob_sits.done)
        assert bob_sits.result()["seat"] == 1
    # nobody sits twice, whichever process they ask (and Ann's first request to the other
    # process leaves her seat and coups at the table the owner drives alone)
    for person, server in ((bob, owner), (bob, other), (ann, other)):
        again = post_via(person, server, "/api/chemin-de-fer/tables/1/seats", {"buy_in": "50"})
        assert again.status_code == 409 and "already have a seat" in again.json()["error"]
    assert ann.balance() == 800 and bob.balance() == 700
    lobby = bob.http.get("/api/chemin-de-fer/tables").json()  # as the other process reads it
    assert lobby["you"] == [{"table": 1, "seat": 1}]
    sockets += [bob.socket(1), watcher.socket(1)]
    play(sockets, coups=6)
    assert sockets[1].answered  # Bob decided, from the other process
    # Bob's connection (to the other process) closes: the owner shows him away at once,
    # not when the time limit runs out, and present again when he comes back
    gone = sockets[1]
    gone.close()
    play([sockets[0], sockets[2]], until=lambda: bob_shown(sockets[0], away=True))
    sockets[1] = bob.socket(1)
    play(sockets, until=lambda: bob_shown(sockets[0], away=False))
    for person in (ann, bob):  # Ann at the owner, Bob forwarded: both stand up
        response = person.post("/api/chemin-de-fer/tables/1/leave")
        assert response.status_code == 200, response.text
    play(sockets, until=lambda: seated(ann, 1) is None and seated(bob, 1) is None)
    drain(sockets)  # (the other process's sockets get the last messages a moment later)
    for sock in sockets:
        sock.close()
    full = {**records(owner, ann), **records(owner, bob)}
    assert len(full) >= 5
    for record in full.values():
        assert replay(record).same
    compared = sum(check_private(sock, full) for sock in sockets) + check_private(gone, full, True)
    assert compared >= 5 * 4 * 3  # every card of every coup, for each of the three
    for message in sockets[2].messages:  # the watcher, at the other process
        assert message["you"]["seat"] is None and message["turn"] is None
    wallet = Wallet(owner.db)
    for person, buy_in in ((ann, 200), (bob, 300)):
        account = wallet.accounts.account(person.name)
        assert account is not None and wallet.seats.open_seats(account.id) == []
        nets = sum(
            (r.net(r.seats.index(person.name)) for r in records(owner, person).values()), F(0)
        )
        assert person.balance() == 1000 - buy_in + cashed_out(person) == 1000 + nets
    assert wallet.books.audit_all() == 3


def bob_shown(ann: Socket, away: bool) -> bool:
    """Has Ann's last message shown Bob (seat 2) away (or present), still seated and
    with no word of his time running out?"""
    last = next((m for m in reversed(ann.messages) if m.get("type") == "update"), None)
    if last is None:
        return False
    bob = last["table"]["seats"][1]
    assert bob["kind"] == "person" and not any("too long" in n for n in last["notices"])
    return bool(bob["away"]) is away


def wait_for_turn_in_a_coup(
    mine: Socket, others: list[Socket], wallet: Wallet, account_id: int
) -> dict[str, Any]:
    """Answer every turn (everybody's) until one of ``mine`` comes in a coup saved in
    progress; that turn, unanswered."""
    give_up = time.monotonic() + 120
    while True:
        assert time.monotonic() < give_up, "no turn in a coup came"
        for sock in others:
            try:
                message = sock.next(timeout=0.05)
            except TimeoutError:
                continue
            if (turn := sock.new_turn(message)) is not None:
                sock.send(answer(turn))
        try:
            message = mine.next(timeout=0.05)
        except TimeoutError:
            continue
        if (turn := mine.new_turn(message)) is None:
            continue
        if wallet.rounds.unfinished_rounds(account_id):
            return turn
        mine.send(answer(turn))


def test_the_owner_killed_mid_coup_is_replaced_and_no_money_moves(
    two: tuple[Served, Served],
) -> None:
    owner, other = two
    ann, bob = Someone.register(owner), Someone.register(other)
    sa, sb = both_sit(ann, bob, 2, ("200", "300"))
    play([sa, sb], coups=2)
    wallet = Wallet(other.db)
    bob_account = wallet.accounts.account(bob.name)
    assert bob_account is not None
    wait_for_turn_in_a_coup(sb, [sa], wallet, bob_account.id)
    [open_round] = wallet.rounds.unfinished_rounds(bob_account.id)
    coup = int(open_round.state["start"]["coup"])
    before = money_everywhere(wallet)
    owner.kill()  # in the middle of the coup, Bob's decision awaited
    killed = time.monotonic()
    restarted = sb.until(
        lambda m: (
            m.get("type") == "update"
            and m["you"]["seat"] is None
            and any("starts again" in n for n in m["notices"])
        ),
        timeout=90,
    )
    took = time.monotonic() - killed
    print(f"the other process took the table over {took:.1f} s after the kill")
    assert other.owns(2)
    assert [s["kind"] for s in restarted["table"]["seats"]] == ["empty"] * 3 + ["bot"] * 2
    # the coup was finished as a restart finishes it, for both of them, and cashed out
    for person in (ann, bob):
        account = wallet.accounts.account(person.name)
        assert account is not None
        assert wallet.rounds.unfinished_rounds(account.id) == []
        assert wallet.seats.open_seats(account.id) == []
    interrupted: RoundRecord = records(other, bob)[coup]
    assert interrupted == records(other, ann)[coup]
    assert interrupted.notes and replay(interrupted).same
    nets = sum((interrupted.net(interrupted.seats.index(p.name)) for p in (ann, bob)), F(0))
    assert money_everywhere(wallet) == before + nets  # only the coup's own result
    assert wallet.books.audit_all() == 2
    # the table goes on at the other process: both sit down again and play
    on(ann, other)
    assert ann.sit(2, "100")["seat"] == 0
    sa = ann.socket(2)
    with ThreadPoolExecutor(1) as pool:
        bob_sits = pool.submit(bob.sit, 2, "100")
        play([sa], until=bob_sits.done)
        bob_sits.result()
    play([sa, sb], coups=2)
    for person in (ann, bob):
        assert person.post("/api/chemin-de-fer/tables/2/leave").status_code == 200
    play([sa, sb], until=lambda: seated(ann, 2) is None and seated(bob, 2) is None)
    for person in (ann, bob):
        for record in records(other, person).values():
            assert replay(record).same
    assert wallet.books.audit_all() == 2
    sa.close()
    sb.close()


def test_a_process_that_dies_leaves_nobody_present(two: tuple[Served, Served]) -> None:
    owner, other = two
    ann, bob = Someone.register(owner), Someone.register(other)
    sa, sb = both_sit(ann, bob, 1, ("200", "300"))
    play([sa, sb], coups=1)
    other.kill()  # Bob's only connection goes with it
    gone = sa.until(
        lambda m: (
            m.get("type") == "update"
            and any(f"{bob.name} has been away too long" in n for n in m["notices"])
        ),
        timeout=90,
    )
    assert any(n.startswith(f"{bob.name} has been away too long") for n in gone["notices"])
    wallet = Wallet(owner.db)
    account = wallet.accounts.account(bob.name)
    assert account is not None
    give_up = time.monotonic() + 60
    while wallet.seats.open_seats(account.id):  # (after the coup in progress, if any)
        assert time.monotonic() < give_up, "Bob's stack never came back"
        if (turn := sa.new_turn(sa.next())) is not None:
            sa.send(answer(turn))
    on(bob, owner)
    assert bob.balance() == 1000 - 300 + cashed_out(bob)
    sa.close()
    assert wallet.books.audit_all() == 2


def test_a_paused_owner_loses_the_table_and_writes_nothing_more(
    two: tuple[Served, Served],
) -> None:
    owner, other = two
    ann, bob = Someone.register(owner), Someone.register(other)
    sa, sb = both_sit(ann, bob, 1, ("200", "300"))
    wallet = Wallet(other.db)
    bob_account = wallet.accounts.account(bob.name)
    assert bob_account is not None
    wait_for_turn_in_a_coup(sb, [sa], wallet, bob_account.id)
    [open_round] = wallet.rounds.unfinished_rounds(bob_account.id)
    coup = int(open_round.state["start"]["coup"])
    before = money_everywhere(wallet)
    owner.popen.send_signal(signal.SIGSTOP)  # the owner stops in its tracks, then goes on
    try:
        sb.until(
            lambda m: m.get("type") == "update" and m["you"]["seat"] is None,
            timeout=90,
        )
    finally:
        owner.popen.send_signal(signal.SIGCONT)
    assert other.owns(1) and not owner.owns(1)
    # Ann is connected to the process that was paused: it learns it lost the table and
    # sends her the table as the new owner has it
    sa.until(lambda m: m.get("type") == "update" and m["you"]["seat"] is None, timeout=90)
    give_up = time.monotonic() + 30
    while time.monotonic() < give_up and "drives it now" not in owner.output:
        time.sleep(0.2)
    assert "another process drives it now" in owner.output
    for person in (ann, bob):  # the coup was finished once, by the new owner
        [finished] = [
            RoundRecord.from_json(r.record)
            for r in wallet.rounds.latest(
                wallet_id(wallet, person), limit=100, game="chemin-de-fer"
            )
            if r.record and int(RoundRecord.from_json(r.record).start["coup"]) == coup
        ]
        assert finished.notes and replay(finished).same
    interrupted = records(other, bob)[coup]
    nets = sum((interrupted.net(interrupted.seats.index(p.name)) for p in (ann, bob)), F(0))
    assert money_everywhere(wallet) == before + nets
    # the paused process serves on, forwarding to the new owner: Ann sits down through it
    assert ann.sit(1, "100")["seat"] == 0
    play([sa], coups=1)
    assert ann.post("/api/chemin-de-fer/tables/1/leave").status_code == 200
    play([sa], until=lambda: seated(ann, 1) is None)
    assert wallet.books.audit_all() == 2
    sa.close()
    sb.close()


def wallet_id(wallet: Wallet, person: Someone) -> int:
    account = wallet.accounts.account(person.name)
    assert account is not None
    return account.id
