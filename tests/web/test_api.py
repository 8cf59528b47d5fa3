"""The JSON API against the real app on a real SQLite file: the contract, every refusal,
idempotency, another person's round, restarts, and concurrent requests."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from typing import Any

import httpx
import pytest

from cardroom.app.wallet import Wallet
from cardroom.web.app import create_app
from tests.web.conftest import Person, Web

F = Fraction


def rounds_of(web: Web, name: str) -> int:
    wallet = Wallet(web.db)
    account = wallet.accounts.account(name)
    assert account is not None
    return wallet.rounds.count_rounds(account.id, statuses=("in_progress", "finished", "void"))


def decimal_strings(data: dict[str, Any]) -> None:
    """Every amount of a round is an exact decimal string."""
    assert isinstance(data["balance"], str) and F(data["balance"]) >= 0
    for amounts in (data["stakes"], data["net"]):
        for value in amounts.values():
            assert isinstance(value, str) and "/" not in value
            F(value)


def play_until(person: Person, game: str, state: str, bets: dict[str, str]) -> dict[str, Any]:
    """Rounds of ``game`` until one is in ``state`` (finishing the others with stand)."""
    for _ in range(60):
        response = person.post(f"/api/games/{game}/rounds", {"bets": bets})
        assert response.status_code == 201, response.text
        data: dict[str, Any] = response.json()
        if data["state"] == state:
            return data
        while data["state"] == "awaiting_action":
            data = person.post(f"/api/rounds/{data['id']}/actions", {"action": "stand"}).json()
    raise AssertionError(f"no {game} round was {state} in 60 rounds")


# -- accounts -------------------------------------------------------------------------------
def test_registering_signs_in_with_1000_and_a_safe_cookie(web: Web) -> None:
    client = web.client()
    response = client.post("/api/accounts", json={"username": "Ann", "password": "a good password"})
    assert response.status_code == 201
    body = response.json()
    assert body["username"] == "Ann" and body["balance"] == "1000" and len(body["csrf_token"]) > 20
    cookie = response.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=lax" in cookie and "secure" not in cookie
    assert client.get("/api/me").json() == {"username": "Ann", "balance": "1000"}
    ledger = client.get("/api/ledger").json()
    assert [(r["kind"], r["amount"], r["balance_after"]) for r in ledger["rows"]] == [
        ("deposit", "1000", "1000")
    ]
    # the database keeps an Argon2 hash, and only a hash of the session's token
    hashed = Wallet(web.db).accounts.password_hash("Ann")
    assert hashed is not None and hashed[1].startswith("$argon2")
    token = client.cookies["cardroom_session"]
    with web.db.read() as conn:
        stored = conn.exec_driver_sql("SELECT token_hash FROM web_sessions").scalars().all()
    assert token not in stored and len(stored) == 1


def test_the_cookie_is_secure_over_https(web: Web) -> None:
    response = web.client(https=True).post(
        "/api/accounts", json={"username": "Bea", "password": "a good password"}
    )
    assert response.status_code == 201 and "secure" in response.headers["set-cookie"].lower()


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"username": "Ann"}, 422),
        ({"username": 5, "password": "a good password"}, 422),
        ({"username": "Ann", "password": "short"}, 422),
        ({"username": "Ann, Bob", "password": "a good password"}, 422),
        ({"username": "  ", "password": "a good password"}, 422),
        ({"username": "Ann", "password": "a good password", "admin": True}, 422),
        ({"username": "x" * 500, "password": "a good password"}, 422),
        ({"username": "ANN", "password": "another password"}, 409),
    ],
)
def test_bad_or_taken_registrations_are_refused(
    web: Web, body: dict[str, Any], status: int
) -> None:
    web.person("Ann")
    response = web.client().post("/api/accounts", json=body)
    assert response.status_code == status
    assert set(response.json()) == {"error"} and response.json()["error"]
    assert len(Wallet(web.db).accounts.all()) == 1


@pytest.mark.parametrize(
    ("content", "content_type"),
    [
        (b'{"username": "Ann", "password": ', "application/json"),
        (b'{"username": "\xff\xfe", "password": "a good password"}', "application/json"),
        (b"username=Ann&password=a+good+password", "application/x-www-form-urlencoded"),
        (b'{"username": "Ann", "password": "a good password"}', "text/plain"),
        (b"[1, 2, 3]", "application/json"),
    ],
)
def test_malformed_bodies_get_a_json_4xx(web: Web, content: bytes, content_type: str) -> None:
    response = web.client().post(
        "/api/accounts", content=content, headers={"content-type": content_type}
    )
    assert 400 <= response.status_code < 500
    assert list(response.json()) == ["error"]
    assert Wallet(web.db).accounts.all() == []


def test_a_huge_body_is_refused(web: Web) -> None:
    response = web.client().post(
        "/api/accounts",
        content=b'{"username": "' + b"a" * 100_000 + b'"}',
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 413 and response.json() == {
        "error": "the request body is too large"
    }


def test_login_logout_and_me(web: Web) -> None:
    web.person("Ann", "the right password")
    client = web.client()
    assert client.get("/api/me").status_code == 401
    wrong = client.post("/api/login", json={"username": "Ann", "password": "the wrong password"})
    assert wrong.status_code == 401 and wrong.json() == {"error": "wrong name or password"}
    nobody = client.post("/api/login", json={"username": "Zed", "password": "the right password"})
    assert nobody.status_code == 401
    ok = client.post("/api/login", json={"username": "ann", "password": "the right password"})
    assert ok.status_code == 200
    assert ok.json()["username"] == "Ann" and ok.json()["balance"] == "1000"
    assert client.get("/api/me").json()["username"] == "Ann"
    # signing out is a change: without the CSRF token it is refused
    assert client.post("/api/logout").status_code == 403
    assert client.get("/api/me").status_code == 200
    out = client.post("/api/logout", headers={"X-CSRF-Token": ok.json()["csrf_token"]})
    assert out.status_code == 204
    assert client.get("/api/me").status_code == 401


def test_guessing_passwords_is_stopped_after_five_wrong_ones(web: Web) -> None:
    web.person("Ann", "the right password")
    client = web.client()
    for _ in range(5):
        wrong = client.post("/api/login", json={"username": "Ann", "password": "a guess!!"})
        assert wrong.status_code == 401
    blocked = client.post("/api/login", json={"username": "ANN", "password": "the right password"})
    assert blocked.status_code == 429 and "too many wrong passwords" in blocked.json()["error"]
    assert client.get("/api/me").status_code == 401
    # another name is not held back
    web.person("Bob", "the right password")
    ok = client.post("/api/login", json={"username": "Bob", "password": "the right password"})
    assert ok.status_code == 200


def test_the_games_with_their_wagers_and_limits(web: Web) -> None:
    games = {g["id"]: g for g in web.client().get("/api/games").json()["games"]}
    assert set(games) == {"finnish27", "21-24-27", "punto-banco", "baccarat27", "chemin-de-fer"}
    assert games["baccarat27"]["wagers"] == [
        "player",
        "banker",
        "tie",
        "player_pair",
        "banker_pair",
        "b27",
    ]
    assert games["finnish27"]["outcomes"] == ["player", "dealer", "push"]
    assert games["punto-banco"]["limits"] == {"minimum": "10", "maximum": "1000", "unit": "0.01"}
    assert games["chemin-de-fer"]["kind"] == "seats" and games["21-24-27"]["decisions"]


# -- rounds ---------------------------------------------------------------------------------
@pytest.mark.parametrize("game", ["finnish27", "21-24-27", "punto-banco", "baccarat27"])
def test_a_round_of_each_game_moves_exactly_its_net(web: Web, game: str) -> None:
    ann = web.person("Ann")
    wagers = {g["id"]: g["wagers"] for g in ann.http.get("/api/games").json()["games"]}[game]
    bets = {wager: "10.50" for wager in wagers}
    response = ann.post(f"/api/games/{game}/rounds", {"bets": bets})
    assert response.status_code == 201, response.text
    data = response.json()
    assert data["game"] == game and data["state"] in ("finished", "awaiting_action")
    decimal_strings(data)
    assert F(data["balance"]) == 1000 - F("10.50") * len(wagers) or data["state"] == "finished"
    while data["state"] == "awaiting_action":
        assert data["legal_actions"] and set(data["legal_actions"]) <= {"hit", "stand"}
        data = ann.post(f"/api/rounds/{data['id']}/actions", {"action": "stand"}).json()
    assert (
        data["outcome"]
        in {g["id"]: g["outcomes"] for g in ann.http.get("/api/games").json()["games"]}[game]
    )
    assert set(data["net"]) == set(wagers) and data["legal_actions"] == []
    total = sum((F(v) for v in data["net"].values()), F(0))
    assert F(data["total_net"]) == total
    assert F(data["balance"]) == 1000 + total == ann.balance()
    cards = [e for e in data["events"] if e["event"] == "card"]
    assert len(cards) >= 4 and all(e["text"] and e["card_alt"] for e in cards)
    settled = [e for e in data["events"] if e["event"] == "settled"]
    assert {e["wager"]: F(e["net"]) for e in settled} == {w: F(v) for w, v in data["net"].items()}
    again = ann.http.get(f"/api/rounds/{data['id']}").json()
    assert again["net"] == data["net"] and again["outcome"] == data["outcome"]
    assert [e["card"] for e in again["events"] if e["event"] == "card"] == [
        e["card"] for e in cards
    ]


BAD_BETS = [
    ({"banker": "10"}, "finnish27", 422, "no wager 'banker'"),
    ({"player": "5"}, "punto-banco", 422, "below the table minimum"),
    ({"player": "1000.01"}, "punto-banco", 422, "above the table maximum"),
    ({"player": "ten"}, "punto-banco", 422, "is not an amount"),
    ({"player": "-10"}, "punto-banco", 422, "cannot be negative"),
    ({"player": "1e3"}, "punto-banco", 422, "is not an amount"),
    ({"player": "9" * 400}, "punto-banco", 422, "at most 40 characters"),
    ({"player": "9" * 41}, "punto-banco", 422, "at most 40 characters"),
    ({"player": " 10"}, "punto-banco", 422, "without spaces around it"),
    ({"player": "10\u00a0"}, "punto-banco", 422, "without spaces around it"),
    ({"player": "10\n"}, "punto-banco", 422, "without spaces around it"),
    ({"player": "10.001"}, "punto-banco", 422, "whole cents"),
    ({"player": 10}, "punto-banco", 422, "decimal strings"),
    ({"player": 10.5}, "punto-banco", 422, "decimal strings"),
    ({"player": None}, "punto-banco", 422, "decimal strings"),
    ({}, "punto-banco", 422, "place at least one bet"),
    ({"player": "10", "dealer": "10"}, "punto-banco", 422, "no wager 'dealer'"),
    ({f"w{i}": "10" for i in range(50)}, "punto-banco", 422, "bets"),
]


@pytest.mark.parametrize(("bets", "game", "status", "message"), BAD_BETS)
def test_bad_bets_are_refused_and_change_nothing(
    web: Web, bets: dict[str, Any], game: str, status: int, message: str
) -> None:
    ann = web.person("Ann")
    response = ann.post(f"/api/games/{game}/rounds", {"bets": bets})
    assert response.status_code == status
    assert list(response.json()) == ["error"] and message in response.json()["error"]
    assert ann.balance() == 1000 and rounds_of(web, "Ann") == 0


def test_stakes_above_the_balance_are_refused_with_409(web: Web) -> None:
    ann = web.person("Ann")
    account = Wallet(web.db).accounts.account("Ann")
    assert account is not None
    Wallet(web.db).accounts.set_balance(account.id, F(15))
    response = ann.post("/api/games/punto-banco/rounds", {"bets": {"player": "10", "tie": "10"}})
    assert response.status_code == 409
    assert response.json() == {"error": "the stakes (20) are more than your balance (15)"}
    assert ann.balance() == 15 and rounds_of(web, "Ann") == 0


def test_bets_need_a_session_and_the_csrf_token(web: Web) -> None:
    ann = web.person("Ann")
    body = {"bets": {"player": "10"}}
    assert web.client().post("/api/games/punto-banco/rounds", json=body).status_code == 401
    missing = ann.http.post("/api/games/punto-banco/rounds", json=body)
    assert missing.status_code == 403 and "X-CSRF-Token" in missing.json()["error"]
    bob = web.person("Bob")
    other = ann.http.post(
        "/api/games/punto-banco/rounds", json=body, headers={"X-CSRF-Token": bob.csrf}
    )
    assert other.status_code == 403
    assert ann.balance() == 1000 and rounds_of(web, "Ann") == 0


@pytest.mark.parametrize("game", ["poker", "chemin-de-fer"])
def test_only_the_house_games_take_bets_here(web: Web, game: str) -> None:
    ann = web.person("Ann")
    response = ann.post(f"/api/games/{game}/rounds", {"bets": {"player": "10"}})
    assert response.status_code == 404 and list(response.json()) == ["error"]


def test_an_unfinished_round_blocks_a_second_one_of_that_game(web: Web) -> None:
    ann = web.person("Ann")
    waiting = play_until(ann, "21-24-27", "awaiting_action", {"player": "10"})
    balance = ann.balance()
    refused = ann.post("/api/games/21-24-27/rounds", {"bets": {"player": "10"}})
    assert refused.status_code == 409 and "is not finished yet" in refused.json()["error"]
    assert ann.balance() == balance
    # another game is another table
    assert ann.post("/api/games/punto-banco/rounds", {"bets": {"tie": "10"}}).status_code == 201
    done = ann.post(f"/api/rounds/{waiting['id']}/actions", {"action": "stand"})
    assert done.status_code == 200 and done.json()["state"] == "finished"


def test_the_same_idempotency_key_gives_the_same_round_and_takes_nothing_again(web: Web) -> None:
    ann = web.person("Ann")
    body = {"bets": {"banker": "10", "tie": "10"}}
    first = ann.post("/api/games/punto-banco/rounds", body, **{"Idempotency-Key": "abc-1"})
    again = ann.post("/api/games/punto-banco/rounds", body, **{"Idempotency-Key": "abc-1"})
    assert first.status_code == again.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true"
    a, b = first.json(), again.json()
    assert (a["id"], a["events"], a["net"], a["outcome"]) == (
        b["id"],
        b["events"],
        b["net"],
        b["outcome"],
    )
    assert ann.balance() == 1000 + F(a["total_net"]) and rounds_of(web, "Ann") == 1
    stakes = [r for r in ann.http.get("/api/ledger").json()["rows"] if r["kind"] == "stake"]
    assert len(stakes) == 2
    other = ann.post(
        "/api/games/punto-banco/rounds", {"bets": {"tie": "20"}}, **{"Idempotency-Key": "abc-1"}
    )
    assert other.status_code == 409 and "other bets" in other.json()["error"]
    elsewhere = ann.post("/api/games/baccarat27/rounds", body, **{"Idempotency-Key": "abc-1"})
    assert elsewhere.status_code == 409 and rounds_of(web, "Ann") == 1
    bad = ann.post("/api/games/punto-banco/rounds", body, **{"Idempotency-Key": "x" * 300})
    assert bad.status_code == 422
    for key in ("a\tb", "x" * 101):  # not printable ASCII, or over 100 characters
        bad = ann.post("/api/games/punto-banco/rounds", body, **{"Idempotency-Key": key})
        assert bad.status_code == 422 and rounds_of(web, "Ann") == 1


def test_a_bet_the_quick_way_and_through_the_schemas_route_answer_alike(web: Web) -> None:
    """A well-formed bet skips FastAPI's work on each request (api.QuickBet); another
    content type, a repeated header or a body the model refuses go on to the FastAPI
    route: the answers are the same but for the round itself."""
    ann = web.person("Ann")
    body = b'{"bets": {"player": "10"}}'
    headers = {"X-CSRF-Token": ann.csrf}
    answers = []
    for kind in ("application/json", "application/json; charset=utf-8"):
        sent = {**headers, "Content-Type": kind}
        answers.append(ann.http.post("/api/games/punto-banco/rounds", content=body, headers=sent))
    quick, slow = answers
    assert quick.status_code == slow.status_code == 201
    assert quick.headers["content-type"] == slow.headers["content-type"]
    assert list(quick.json()) == list(slow.json())
    assert slow.json()["id"] == quick.json()["id"] + 1
    # the same key: the first round given back, either way
    keyed = {**headers, "Content-Type": "application/json", "Idempotency-Key": "k-1"}
    first = ann.http.post("/api/games/punto-banco/rounds", content=body, headers=keyed)
    again = ann.http.post(
        "/api/games/punto-banco/rounds",
        content=body,
        headers={**keyed, "Content-Type": "application/json; charset=utf-8"},
    )
    assert first.status_code == again.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true"
    assert (again.json()["id"], again.json()["net"]) == (first.json()["id"], first.json()["net"])
    # a key sent twice, a body the model refuses: the FastAPI route's refusals
    twice = ann.http.post(
        "/api/games/punto-banco/rounds",
        content=body,
        headers=[*keyed.items(), ("Idempotency-Key", "k-2")],
    )
    assert twice.status_code in (201, 422)
    refused = ann.http.post(
        "/api/games/punto-banco/rounds",
        content=b'{"bets": {"player": 10}}',
        headers={**headers, "Content-Type": "application/json"},
    )
    assert refused.status_code == 422 and "decimal strings" in refused.json()["error"]


def test_decisions_only_where_the_rules_ask(web: Web) -> None:
    ann = web.person("Ann")
    waiting = play_until(ann, "21-24-27", "awaiting_action", {"player": "10"})
    assert waiting["legal_actions"] == ["hit", "stand"] and waiting["asked"]
    assert waiting["net"] == {} and waiting["outcome"] is None
    path = f"/api/rounds/{waiting['id']}/actions"
    split = ann.post(path, {"action": "split"})  # no game has it: not a decision at all
    assert split.status_code == 422 and "'hit' or 'stand'" in split.json()["error"]
    assert ann.post(path, {"action": 1}).status_code == 422
    assert ann.http.post(path, json={"action": "hit"}).status_code == 403  # no CSRF token
    data = ann.post(path, {"action": "hit"}).json()
    while data["state"] == "awaiting_action":
        data = ann.post(path, {"action": "stand"}).json()
    chosen = [e for e in data["events"] if e["event"] == "decision" and not e["forced"]]
    assert chosen[0]["action"] == "hit" and "your choice" in chosen[0]["text"]
    over = ann.post(path, {"action": "stand"})
    assert over.status_code == 409 and over.json() == {
        "error": "the round is over: nothing is asked"
    }
    finished = play_until(ann, "punto-banco", "finished", {"player": "10"})
    no_choice = ann.post(f"/api/rounds/{finished['id']}/actions", {"action": "hit"})
    assert no_choice.status_code == 409


def test_another_persons_round_is_not_found(web: Web) -> None:
    ann, bob = web.person("Ann"), web.person("Bob")
    waiting = play_until(ann, "21-24-27", "awaiting_action", {"player": "10"})
    path = f"/api/rounds/{waiting['id']}"
    assert bob.http.get(path).status_code == 404
    refused = bob.post(f"{path}/actions", {"action": "stand"})
    assert refused.status_code == 404 and list(refused.json()) == ["error"]
    assert bob.http.get(f"{path}/replay").status_code == 404
    assert ann.http.get(path).json()["state"] == "awaiting_action"
    for bad in ("999999", str(2**70), "-1", "abc"):
        response = ann.http.get(f"/api/rounds/{bad}")
        assert response.status_code in (404, 422) and list(response.json()) == ["error"]


def test_history_newest_first_with_every_card_and_a_replay(web: Web) -> None:
    ann = web.person("Ann")
    ids = [play_until(ann, "punto-banco", "finished", {"banker": "10"})["id"] for _ in range(3)]
    waiting = play_until(ann, "21-24-27", "awaiting_action", {"player": "10"})
    history = ann.http.get("/api/history", params={"limit": 10}).json()["rounds"]
    listed = [r["id"] for r in history]
    assert listed[:3] == sorted(ids, reverse=True)[:3] or listed == sorted(listed, reverse=True)
    assert waiting["id"] not in listed  # only finished rounds
    assert listed == sorted(listed, reverse=True)
    newest = history[0]
    assert newest["cards"] == [e["card"] for e in newest["events"] if e["event"] == "card"]
    assert newest["stakes"] and newest["net"] and newest["played_at"]
    assert len(ann.http.get("/api/history", params={"limit": 2}).json()["rounds"]) == 2
    assert ann.http.get("/api/history", params={"limit": 0}).status_code == 422
    assert ann.http.get("/api/history", params={"limit": 10**30}).status_code == 422
    replayed = ann.http.get(f"/api/rounds/{ids[0]}/replay").json()
    assert replayed == {"id": ids[0], "same": True, "differences": []}
    assert ann.http.get(f"/api/rounds/{waiting['id']}/replay").status_code == 409
    assert web.client().get("/api/history").status_code == 401


def test_a_round_in_play_goes_on_after_a_restart(web: Web) -> None:
    ann = web.person("Ann")
    waiting = play_until(ann, "21-24-27", "awaiting_action", {"player": "10"})
    before = ann.balance()  # the stake is taken
    # a new app on the same database: the round is only in the database now
    restarted = create_app(web.db, house_edges=web.edges, sessions=web.sessions)
    ann.moves_to(restarted)
    assert not hasattr(restarted.state.services.tables, "_seats")  # nothing kept in memory
    again = ann.http.get(f"/api/rounds/{waiting['id']}").json()
    assert again["state"] == "awaiting_action" and again["events"] == waiting["events"]
    table = ann.http.get("/api/games/21-24-27/table").json()
    assert table["round_in_play"] == waiting["id"]
    data = ann.post(f"/api/rounds/{waiting['id']}/actions", {"action": "stand"}).json()
    while data["state"] == "awaiting_action":
        data = ann.post(f"/api/rounds/{waiting['id']}/actions", {"action": "stand"}).json()
    assert F(data["balance"]) == before + 10 + F(data["total_net"]) == ann.balance()
    assert ann.http.get(f"/api/rounds/{waiting['id']}/replay").json()["same"]


def test_many_requests_at_once_lose_no_cent(web: Web) -> None:
    ann = web.person("Ann")

    def bet(n: int) -> httpx.Response:
        return ann.post("/api/games/punto-banco/rounds", {"bets": {"banker": "10.50"}})

    with ThreadPoolExecutor(max_workers=6) as pool:
        responses = list(pool.map(bet, range(24)))
    assert all(r.status_code == 201 for r in responses)
    nets = [F(r.json()["total_net"]) for r in responses]
    assert len({r.json()["id"] for r in responses}) == 24
    assert ann.balance() == 1000 + sum(nets)
    account = Wallet(web.db).accounts.account("Ann")
    assert account is not None
    Wallet(web.db).books.audit(account.id)
    rows = ann.http.get("/api/ledger", params={"limit": 500}).json()["rows"]
    assert F(rows[0]["balance_after"]) == ann.balance()


def test_the_scoreboards_of_this_shoe(web: Web) -> None:
    ann = web.person("Ann")
    outcomes = [
        play_until(ann, "punto-banco", "finished", {"player": "10"})["outcome"] for _ in range(5)
    ]
    table = ann.http.get("/api/games/punto-banco/table").json()
    assert [c["outcome"] for c in table["bead_plate"]] == outcomes
    assert table["shoe"] == 1 and table["reshuffle_due"] is False and table["round_in_play"] is None
    wins = [o for o in outcomes if o != "tie"]
    assert [c["outcome"] for c in table["big_road"]] == wins
    assert sum(c["ties"] for c in table["big_road"]) == outcomes.count("tie") or not wins


def test_the_exact_house_edges_are_disclosed(web: Web) -> None:
    client = web.client()
    first = client.get("/api/games/punto-banco/edges").json()
    assert first["status"] in ("computing", "ready")
    web.edges.wait()
    edges = client.get("/api/games/punto-banco/edges").json()
    assert edges["status"] == "ready"
    banker = edges["wagers"]["banker"]
    assert banker["house_edge_percent"] == "1.0579"
    assert F(banker["house_edge"]) > 0 and "/" in banker["house_edge"]
    assert client.get("/api/games/nothing/edges").status_code == 404


def test_an_unexpected_failure_is_a_500_with_one_line(
    web: Web, monkeypatch: pytest.MonkeyPatch
) -> None:
    ann = web.person("Ann")

    def broken(*args: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(web.app.state.services.tables, "table_state", broken)
    response = ann.http.get("/api/games/punto-banco/table")
    assert response.status_code == 500
    assert response.json() == {"error": "something went wrong on the server"}


def test_the_api_is_documented(web: Web) -> None:
    schema = web.client().get("/openapi.json").json()
    paths = schema["paths"]
    for path in (
        "/api/accounts",
        "/api/login",
        "/api/logout",
        "/api/me",
        "/api/games",
        "/api/games/punto-banco/rounds",
        "/api/rounds/{round_id}/actions",
        "/api/rounds/{round_id}",
        "/api/history",
    ):
        assert path in paths, path
    assert "/login" not in paths  # pages are not the API
    assert web.client().get("/docs").status_code == 404  # its viewer would need a CDN
    assert web.client().get("/api/nothing").json() == {"error": "not found"}


class FrontShuffler:
    """A shuffle that deals ``codes`` first (in order), then the rest of the shoe."""

    def __init__(self, codes: list[str], shoe: Any) -> None:
        self.codes = codes
        self.shoe = shoe

    def permutation(self, n: int) -> list[int]:
        from cardroom.core.cards import Card

        pool = list(self.shoe.cards())
        front = []
        for code in self.codes:
            index = next(i for i, c in enumerate(pool) if c == Card.parse(code) and i not in front)
            front.append(index)
        return front + [i for i in range(n) if i not in front]


def test_finnish27s_bonus_is_paid_and_shown(web: Web) -> None:
    from cardroom.games import get_game

    shoe = get_game("finnish27").default_rules().shoe
    app = create_app(
        web.db,
        house_edges=web.edges,
        sessions=web.sessions,
        shuffler=lambda: FrontShuffler(["As", "5h", "Ks", "6c"], shoe),
    )
    ann = web.person("Ann")
    ann.moves_to(app)
    data = ann.post(
        "/api/games/finnish27/rounds", {"bets": {"player": "10", "dealer": "10"}}
    ).json()
    assert [e["card"] for e in data["events"] if e["event"] == "card"] == ["As", "5h", "Ks", "6c"]
    assert data["outcome"] == "player" and data["bonus"] == "Finnish 27"
    assert data["net"] == {"player": "15", "dealer": "-10"}  # 1:1 and the Finnish 27's 1:2
    [player] = [e for e in data["events"] if e["event"] == "settled" and e["wager"] == "player"]
    assert player["text"] == "Bet on player 10: +15 (player pays 1:1 + bonus Finnish 27 1:2)"
    assert ann.balance() == 1005
    recalled = ann.http.get("/api/history").json()["rounds"][0]
    assert recalled["bonus"] == "Finnish 27" and recalled["total_net"] == "5"
