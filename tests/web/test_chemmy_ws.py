"""The chemin de fer WebSocket on a real server (uvicorn on a loopback port, a SQLite
file): two people and a bot at one table for several coups, every message each client
gets checked against the coups' full records so that no client ever receives another
seat's face-down card; refusals; the time limit; a dropped connection; the handshake."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus

from cardroom.app.history import RoundRecord, replay
from cardroom.app.tables.live import TableSpec
from cardroom.app.wallet import Wallet
from cardroom.core.events import HandCard
from tests.web.browser import Server
from tests.web.chemmy_clients import TABLES, Socket, Someone, answer, chemmy_server

F = Fraction


@pytest.fixture
def quick(tmp_path: Path) -> Iterator[Server]:
    """A server whose tables give 3 seconds for each decision (short, yet long enough
    that a reconnection on a busy machine lands within it)."""
    yield from chemmy_server(tmp_path, time_limit=3)


@pytest.fixture
def patient(tmp_path: Path) -> Iterator[Server]:
    """A server whose tables give 20 seconds (the people answer at once)."""
    yield from chemmy_server(tmp_path, time_limit=20)


def records(server: Server, person: Someone) -> dict[int, RoundRecord]:
    """The person's finished coups by coup number, from the wallet."""
    wallet = Wallet(server.db)
    account = wallet.accounts.account(person.name)
    assert account is not None
    out = {}
    for stored in wallet.rounds.latest(account.id, limit=100, game="chemin-de-fer"):
        if stored.status == "finished" and stored.record:
            record = RoundRecord.from_json(stored.record)
            out[int(record.start["coup"])] = record
    return out


def check_private(sock: Socket, full: dict[int, RoundRecord], cut: bool = False) -> int:
    """Every message ``sock`` got shows it only its own face-down cards and its own
    hand's decisions (others' as announcements), card for card as the coups' records
    have them (``cut``: the socket was closed during play, and its last coup's cards may
    stop short).  Returns how many cards of coups with a record were compared."""
    holders: dict[tuple[int, str], int] = {}
    cards: dict[int, list[dict[str, Any]]] = {}
    compared = 0
    for message in sock.messages:
        if message.get("type") != "update":
            continue
        if message["reset"] and message["events"]:  # the coups it sends again start over
            again = message["events"][0]["coup"]
            cards = {coup: seen for coup, seen in cards.items() if coup < again}
        mine = message["you"]["seat"]
        if message["turn"] is not None:
            assert message["turn"]["seat"] == mine
        for event in message["events"]:
            coup = event["coup"]
            if event["event"] == "hand_card":
                holders[(coup, event["hand"])] = event["seat"]
                cards.setdefault(coup, []).append({**event, "mine": mine})
                if event["seat"] != mine and not event["face_up"]:
                    assert event["card"] is None and event["total"] is None
                    assert event["card_alt"] is None and "face down" in event["text"]
            elif event["event"] == "decision":
                assert holders.get((coup, event["hand"])) == mine, event
    for coup, seen in cards.items():
        record = full.get(coup)
        if record is None:
            continue
        dealt = [e for e in record.events if isinstance(e, HandCard)]
        if cut and coup == max(cards):
            dealt = dealt[: len(seen)]
        assert len(seen) == len(dealt), coup
        for shown, real in zip(seen, dealt, strict=True):
            assert (shown["hand"], shown["seat"], shown["face_up"]) == (
                real.hand,
                real.seat,
                real.face_up,
            )
            assert real.card is not None
            if real.face_up or real.seat == shown["mine"]:
                assert shown["card"] == real.card.code
            else:
                assert shown["card"] is None
            compared += 1
    return compared


def play(
    sockets: list[Socket],
    coups: int = 0,
    until: Callable[[], bool] = lambda: False,
    timeout: float = 60,
) -> None:
    """Answer every turn at once (smallest amounts; draw for one, stand for the other)
    until ``coups`` coups have been settled (or ``until`` says so)."""
    give_up = time.monotonic() + timeout
    settled = 0
    while settled < coups or (coups == 0 and not until()):
        assert time.monotonic() < give_up, f"only {settled} coups in {timeout} s"
        for n, sock in enumerate(sockets):
            try:
                message = sock.next(timeout=0.05)
            except TimeoutError:
                continue
            if message.get("type") == "error":
                pytest.fail(f"{sock.name}: {message['error']}")
            if n == 0:
                ends = ("outcome", "coup_void")
                settled += sum(1 for e in message["events"] if e["event"] in ends)
            if (turn := sock.new_turn(message)) is not None:
                sock.send(answer(turn, low=n == 0))


def drain(sockets: list[Socket], quiet: float = 1.0, timeout: float = 30) -> None:
    """Read what is still on its way to each socket (until none comes for ``quiet``
    seconds): the last coup's last messages may trail the moment its end was seen."""
    give_up = time.monotonic() + timeout
    for sock in sockets:
        while time.monotonic() < give_up:
            try:
                sock.next(timeout=quiet)
            except TimeoutError:
                break


def test_two_people_and_a_bot_never_see_each_others_face_down_cards(patient: Server) -> None:
    ann, bob = Someone.register(patient), Someone.register(patient)
    assert ann.sit(1, "200")["seat"] == 0  # the game starts: Ann and the bot
    sockets = [ann.socket(1)]
    with ThreadPoolExecutor(1) as pool:  # Bob sits down once Ann's coup is over
        bob_sits = pool.submit(bob.sit, 1, "300")
        play(sockets, until=bob_sits.done)
        assert bob_sits.result()["seat"] == 1
    assert ann.balance() == 800 and bob.balance() == 700
    watcher = Someone.register(patient)
    sockets += [bob.socket(1), watcher.socket(1)]
    play(sockets, coups=8)
    # both stand up (after the coup in progress, played on meanwhile): stacks back
    for person in (ann, bob):
        response = person.post("/api/chemin-de-fer/tables/1/leave")
        assert response.status_code == 200, response.text
    play(sockets, until=lambda: seated(ann, 1) is None and seated(bob, 1) is None)
    drain(sockets)
    for sock in sockets:
        sock.close()
    full = {**records(patient, ann), **records(patient, bob)}
    assert len(full) >= 6
    for record in full.values():
        assert replay(record).same
    compared = sum(check_private(sock, full) for sock in sockets)
    assert compared >= 6 * 4 * 3  # every card of every coup, for each of the three
    # the watcher saw no card face down that a seat holds
    for message in sockets[2].messages:
        assert message["you"]["seat"] is None and message["turn"] is None
    for person, buy_in in ((ann, 200), (bob, 300)):
        wallet = Wallet(patient.db)
        account = wallet.accounts.account(person.name)
        assert account is not None
        assert wallet.seats.open_seats(account.id) == []
        wallet.books.audit(account.id)
        nets = sum(
            (r.net(r.seats.index(person.name)) for r in records(patient, person).values()),
            F(0),
        )
        assert person.balance() == 1000 - buy_in + cashed_out(person) == 1000 + nets


def seated(person: Someone, table: int) -> int | None:
    """The person's seat at ``table`` as the table shows it."""
    seats = person.http.get(f"/api/chemin-de-fer/tables/{table}").json()["seats"]
    return next((s["seat"] for s in seats if s["name"] == person.name), None)


def cashed_out(person: Someone) -> Fraction:
    """What the person's last cash-out brought back to the wallet."""
    rows = person.http.get("/api/ledger").json()["rows"]
    return F(next(r for r in rows if r["kind"] == "cash_out")["amount"])


def wait_for_empty(person: Someone, table: int, timeout: float = 30) -> Fraction:
    """Wait until the person has no seat at ``table``; the stack their cash-out brought."""
    give_up = time.monotonic() + timeout
    while seated(person, table) is not None:
        assert time.monotonic() < give_up, f"{person.name} still sits at table {table}"
        time.sleep(0.1)
    return cashed_out(person)


def test_wrong_moves_are_refused_and_a_silent_seat_is_played_for(quick: Server) -> None:
    ann = Someone.register(quick)
    sock = ann.socket(2)
    first = sock.next()
    assert first["you"]["seat"] is None and first["reset"] is True
    sock.send({"action": "stand"})
    assert sock.until(lambda m: m["type"] == "error")["error"] == "you have no seat at this table"
    ann.sit(2, "100")
    message = sock.until(lambda m: m.get("turn") is not None)
    turn = message["turn"]
    for bad, said in (
        ("not json", "send a JSON object"),
        ([1, 2], "send a JSON object"),
        ({"action": "fold"}, "'fold' is not a choice now"),
        ({"action": 7}, "is not a choice now"),
    ):
        sock.send(bad)
        assert said in sock.until(lambda m: m["type"] == "error")["error"]
    if "amount" in turn:
        high = F(turn["amount"]["high"])
        sock.send({"action": turn["amount"]["action"], "amount": str(high + 1)})
        assert sock.until(lambda m: m["type"] == "error")["error"]
        sock.send({"action": turn["amount"]["action"], "amount": 10})
        assert "needs an amount" in sock.until(lambda m: m["type"] == "error")["error"]
        sock.send({"action": turn["amount"]["action"], "amount": "1e3"})
        assert "is not an amount" in sock.until(lambda m: m["type"] == "error")["error"]
    # then silence: after the time limit the seat's turn is played for it, and so on
    played = sock.until(lambda m: any("time is up" in n for n in m["notices"]))
    assert played["turn"] is None
    sock.send({"action": "stand"})
    error = sock.until(lambda m: m["type"] == "error")["error"]
    # refused out of turn; or, where the next coup has already offered Ann the bank by the
    # time the move arrives, refused as no choice there (a race CI's runs can lose)
    assert error == "it is not your turn" or error.startswith("'stand' is not a choice now")
    # the coup's record says so: Ann's decisions made by the absent policy
    deadline = time.monotonic() + 30
    while not any(
        d.by == "default" and d.seat == 0 for r in records(quick, ann).values() for d in r.decisions
    ):
        assert time.monotonic() < deadline, "no coup of Ann's was finished"
        sock.until(lambda m: True)
    sock.close()


def test_a_dropped_connection_keeps_the_seat_for_the_time_limit_then_stands_up(
    quick: Server,
) -> None:
    ann = Someone.register(quick)
    ann.sit(2, "150")
    sock = ann.socket(2)
    sock.until(lambda m: m["you"]["seat"] == 0)
    sock.close()
    stack = wait_for_empty(ann, 2)
    wallet = Wallet(quick.db)
    account = wallet.accounts.account(ann.name)
    assert account is not None
    assert (
        wallet.seats.open_seats(account.id) == []
        and wallet.rounds.unfinished_rounds(account.id) == []
    )
    wallet.books.audit(account.id)
    assert ann.balance() == 1000 - 150 + stack
    # a reconnection within the limit keeps the seat
    ann.sit(2, "150")
    sock = ann.socket(2)
    sock.until(lambda m: m["you"]["seat"] == 0)
    sock.close()
    sock = ann.socket(2)
    time.sleep(1.0)
    sock.close()
    sock = ann.socket(2)
    assert sock.until(lambda m: m["type"] == "update")["you"]["seat"] == 0
    sock.close()


def test_the_handshake_wants_this_site_a_session_and_its_token(quick: Server) -> None:
    ann = Someone.register(quick)
    with pytest.raises(InvalidStatus) as refused:
        ann.socket(1, origin="http://elsewhere.example")
    assert refused.value.response.status_code == 403
    stranger = Someone(quick, "nobody", ann.http.__class__(base_url=quick.url), "x")
    with pytest.raises(InvalidStatus):
        stranger.socket(1)
    wrong = Someone(quick, ann.name, ann.http, "not the token")
    sock = wrong.socket(1)
    assert sock.next()["error"] == "send the page's CSRF token"
    with pytest.raises(ConnectionClosed):
        sock.next()
    # a hello nested 990 deep is no hello (it was a RecursionError in the handler), and
    # a message nested so deep after a good hello is refused in one line
    sock = ann.socket(1, hello=False)
    sock.send("[" * 990 + "]" * 990)
    assert sock.next()["error"] == "send the page's CSRF token"
    sock = ann.socket(1)
    sock.send('{"action": ' + "[" * 990 + "]" * 990 + "}")
    message = sock.until(lambda m: m.get("type") == "error")
    assert message["error"].startswith("send a JSON object")
    sock.close()


def test_a_coup_a_stopped_server_left_is_finished_on_the_next_start(tmp_path: Path) -> None:
    first = Server(
        tmp_path / "web.sqlite3", chemmy_tables=TABLES, chemmy_time_limit=20, chemmy_pause=0
    )
    with first:
        ann = Someone.register(first)
        ann.sit(2, "300")
        sock = ann.socket(2)
        wallet = Wallet(first.db)
        account = wallet.accounts.account(ann.name)
        assert account is not None
        # answer until a coup of Ann's is under way (saved in progress) and waits for her,
        # then stop without answering: with 20 s to decide, the coup cannot end first
        give_up = time.monotonic() + 60
        while True:
            assert time.monotonic() < give_up, "no coup waited for Ann"
            message = sock.next()
            if (turn := sock.new_turn(message)) is None:
                continue
            if wallet.rounds.unfinished_rounds(account.id):
                break
            sock.send(answer(turn))
        sock.close()
    second = Server(
        tmp_path / "web.sqlite3", chemmy_tables=TABLES, chemmy_time_limit=20, chemmy_pause=0
    )
    with second:
        ann.server = second
        ann.http.base_url = httpx.URL(second.url)
        # the new process takes the table over as it starts (before it answers her first
        # request): it finishes the coup and cashes her out
        lobby = ann.http.get("/api/chemin-de-fer/tables").json()
        assert lobby["you"] == []
        wallet = Wallet(second.db)
        assert wallet.rounds.unfinished_rounds(account.id) == []
        assert wallet.seats.open_seats(account.id) == []
        wallet.books.audit(account.id)
        finished = [
            RoundRecord.from_json(r.record)
            for r in wallet.rounds.latest(account.id, limit=50, game="chemin-de-fer")
        ]
        assert all(replay(record).same for record in finished)
        assert [r for r in finished if r.notes]  # the coup the stop cut short
        assert ann.balance() == 1000 - 300 + cashed_out(ann)


def played_in_order(server: Server, person: Someone) -> list[RoundRecord]:
    """The person's finished coups in the order they were played (by round id)."""
    wallet = Wallet(server.db)
    account = wallet.accounts.account(person.name)
    assert account is not None
    stored = wallet.rounds.latest(account.id, limit=100, game="chemin-de-fer")
    return [
        RoundRecord.from_json(r.record)
        for r in sorted(stored, key=lambda r: r.id)
        if r.status == "finished" and r.record
    ]


def test_a_table_taken_over_numbers_its_coups_on(tmp_path: Path) -> None:
    """A process that takes a table over (here the next start, after the last one
    stopped) numbers its coups on from the last one the table saved, and deals from a
    new shoe numbered on: a person's coups at the table never share a number, the page
    shows the numbers of their records, and their places in the shoes only go forward."""

    def serve() -> Server:
        return Server(
            tmp_path / "web.sqlite3", chemmy_tables=TABLES, chemmy_time_limit=20, chemmy_pause=0
        )

    with serve() as first:
        ann = Someone.register(first)
        ann.sit(2, "300")
        sock = ann.socket(2)
        play([sock], coups=3)
        sock.close()  # (the server stops with Ann seated, maybe in the middle of a coup)
    with serve() as second:
        ann.server = second
        ann.http.base_url = httpx.URL(second.url)
        assert ann.http.get("/api/chemin-de-fer/tables").json()["you"] == []  # taken over
        before = played_in_order(second, ann)
        assert len(before) >= 3
        ann.sit(2, "300")
        sock = ann.socket(2)
        play([sock], coups=3)
        assert ann.post("/api/chemin-de-fer/tables/2/leave").status_code == 200
        play([sock], until=lambda: seated(ann, 2) is None)
        drain([sock])
        sock.close()
        every = played_in_order(second, ann)
    after = every[len(before) :]
    assert len(after) >= 3
    numbers = [int(record.start["coup"]) for record in every]
    assert numbers == sorted(set(numbers)), numbers  # on and on: never a number twice
    last = int(before[-1].start["coup"])
    assert int(after[0].start["coup"]) == last + 1, numbers  # the next after the last
    # the page tells the coups by the numbers of their records, and shows no number of
    # the coups before (the draw for the bank, which the socket may open too late to
    # see, has the last one's, as a first game's has 0)
    updates = [m for m in sock.messages if m.get("type") == "update"]
    told = {int(e["coup"]) for m in updates for e in m["events"]}
    assert {int(r.start["coup"]) for r in after} <= told and min(told) >= last
    shown = {int(m["table"]["coup"]) for m in updates if m["table"]["banker"] is not None}
    assert min(shown) > last
    # every recorded place in the shoes comes after the one before; the new process
    # deals from a new shoe (the interrupted coup, if any, keeps no place)
    places = [tuple(r.start["shoe"]) for r in every if "shoe" in r.start]
    assert places == sorted(set(places)), places
    shoes_before = {r.start["shoe"][0] for r in before if "shoe" in r.start}
    assert after[0].start["shoe"][0] > max(shoes_before)
    assert replay(after[0]).same


def test_a_seat_whose_page_closed_waits_once_for_the_time_limit_not_turn_after_turn(
    tmp_path: Path,
) -> None:
    """The time away counts from when the page closed: a turn of the away seat that comes
    later waits only for what is left of it (it waited a whole time limit of its own, so
    a closed page kept the seat for two or three time limits).  Two people alone at a
    table of two seats: each has a turn in every coup (the bank, or the stake against it)."""
    with Server(
        tmp_path / "web.sqlite3",
        chemmy_tables=(TableSpec(3, "Table 3", 2, 0),),
        chemmy_time_limit=20,
        chemmy_pause=0,
    ) as server:
        ann, bob = Someone.register(server, "Ann"), Someone.register(server, "Bob")
        ann.sit(3, "300")
        bob.sit(3, "300")
        a, b = ann.socket(3), bob.socket(3)
        bobs: dict[str, Any] | None = None
        while bobs is None:  # both play until it is Bob's turn: then Ann's page closes
            for sock in (a, b):
                try:
                    message = sock.next(timeout=0.2)
                except TimeoutError:
                    continue
                turn = sock.new_turn(message)
                if turn is None or turn["seat"] != message["you"]["seat"]:
                    continue
                if sock is b:
                    bobs = turn
                    break
                a.send({"type": "act", "id": turn["id"], **answer(turn)})
        a.close()
        time.sleep(3)  # Bob takes his time: Ann has been away 3 of her 20 seconds
        b.send({"type": "act", "id": bobs["id"], **answer(bobs)})

        def for_ann(message: dict[str, Any]) -> bool:
            turn = b.new_turn(message)  # Bob plays on meanwhile
            if turn is not None and turn["seat"] == message["you"]["seat"]:
                b.send({"type": "act", "id": turn["id"], **answer(turn)})
            waiting = message.get("waiting_for")
            return bool(waiting) and waiting["name"] == "Ann"

        waited = b.until(for_ann, timeout=60)["waiting_for"]
        # not a fresh 20: her time away runs on (3 s, less by however late the server
        # saw her page close on a busy machine)
        assert waited["seconds_left"] <= 19
        b.close()
