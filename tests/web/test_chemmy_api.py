"""The chemin de fer tables' HTTP API on a real server (uvicorn, a SQLite file): the lobby,
taking a seat (the buy-in leaves the wallet, a ledger row says so), every refusal
changing nothing, leaving (the stack comes back), a person named like a bot, and the
pages."""

from __future__ import annotations

import time
from collections.abc import Iterator
from fractions import Fraction

import httpx
import pytest

from cardroom.app.names import name_skeleton
from cardroom.app.tables.live import BOT_NAMES
from cardroom.app.wallet import Wallet
from tests.web.browser import Server
from tests.web.chemmy_clients import Someone, chemmy_server

F = Fraction


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """Thirty seconds for each decision: the people here never answer."""
    yield from chemmy_server(tmp_path_factory.mktemp("chemmy"), time_limit=30)


def unchanged(server: Server, person: Someone, balance: int = 1000) -> None:
    wallet = Wallet(server.db)
    account = wallet.accounts.account(person.name)
    assert account is not None
    assert person.balance() == balance and wallet.seats.open_seats(account.id) == []
    wallet.books.audit(account.id)


def test_the_lobby_lists_the_tables_with_their_seats_and_bots(server: Server) -> None:
    data = httpx.get(f"{server.url}/api/chemin-de-fer/tables").json()
    assert data["you"] is None
    first, second = data["tables"]
    assert (first["id"], first["name"], len(first["seats"]), first["bots"]) == (1, "Table 1", 3, 1)
    assert (second["id"], len(second["seats"]), second["bots"]) == (2, 4, 2)
    bot = first["seats"][2]
    assert bot["kind"] == "bot" and bot["name"] and bot["stack"] == first["limits"]["maximum"]
    assert first["time_limit"] == 30 and first["buy_in"] == {"minimum": "10", "maximum": "10000"}
    page = httpx.get(f"{server.url}/chemin-de-fer")
    assert page.status_code == 200 and "Table 1" in page.text and "Table 2" in page.text
    signed_out = httpx.get(f"{server.url}/chemin-de-fer/1", follow_redirects=False)
    assert signed_out.status_code == 303 and "/login" in signed_out.headers["location"]


def test_refusals_change_nothing(server: Server) -> None:
    ann = Someone.register(server)
    seats = "/api/chemin-de-fer/tables/2/seats"
    cases: list[tuple[object, int, str, bool]] = [
        ({"buy_in": "100"}, 403, "X-CSRF-Token", False),
        ({"buy_in": "5000"}, 409, "more than your balance of 1000", True),
        ({"buy_in": "5"}, 422, "a buy-in is 10 to 10000", True),
        ({"buy_in": "abc"}, 422, "is not an amount", True),
        ({"buy_in": "-50"}, 422, "cannot be negative", True),
        ({"buy_in": "1e3"}, 422, "is not an amount", True),
        ({"buy_in": "9" * 50}, 422, "at most 40 characters", True),
        ({"buy_in": "100.001"}, 422, "whole cents", True),
        ({"buy_in": " 100"}, 422, "without spaces around it", True),
        ({"buy_in": "9" * 30}, 422, "is too large", True),
        ({"buy_in": 100}, 422, "buy_in", True),
        ({"buy_in": "100", "seat": 3}, 409, "seat 4 is taken by", True),
        # 3.0 is the integer 3 to JSON Schema, and so to the server
        ({"buy_in": "100", "seat": 3.0}, 409, "seat 4 is taken by", True),
        ({"buy_in": "100", "seat": 2.5}, 422, "seat: Input should be a valid integer", True),
        ({"buy_in": "100", "seat": "2"}, 422, "seat: Input should be a valid integer", True),
        ({"buy_in": "100", "seat": 9}, 422, "seat: Input should be less than or equal to", True),
        ({"buy_in": "100", "extra": 1}, 422, "extra", True),
    ]
    for body, status, said, csrf in cases:
        response = ann.post(seats, body, csrf=csrf)
        assert response.status_code == status, (body, response.text)
        assert said in response.json()["error"], (body, response.text)
    unchanged(server, ann)
    nobody = httpx.post(f"{server.url}{seats}", json={"buy_in": "100"})
    assert nobody.status_code == 401 and nobody.json() == {"error": "sign in first"}
    missing = ann.post("/api/chemin-de-fer/tables/7/seats", {"buy_in": "100"})
    assert missing.status_code == 404
    assert ann.post("/api/chemin-de-fer/tables/2/leave").status_code == 409
    unchanged(server, ann)


def test_a_seat_is_bought_into_and_left_with_the_stack(server: Server) -> None:
    ann, bob = Someone.register(server), Someone.register(server)
    seated = ann.sit(2, "250", seat=1)
    assert seated["seat"] == 1 and seated["stack"] == "250" and seated["balance"] == "750"
    assert ann.balance() == 750
    rows = ann.http.get("/api/ledger").json()["rows"]
    last = rows[0]
    assert (last["kind"], last["amount"], last["balance_after"]) == ("buy_in", "-250", "750")
    again = ann.post("/api/chemin-de-fer/tables/2/seats", {"buy_in": "100"})
    assert again.status_code == 409 and "already have a seat" in again.json()["error"]
    taken = bob.post("/api/chemin-de-fer/tables/2/seats", {"buy_in": "100", "seat": 1})
    assert taken.status_code == 409 and "is taken by" in taken.json()["error"]
    unchanged(server, bob)
    lobby = ann.http.get("/api/chemin-de-fer/tables").json()
    assert lobby["you"] == [{"table": 2, "seat": 1}]
    table = lobby["tables"][1]
    assert table["people"] == 1 and table["seats"][1]["name"] == ann.name
    page = ann.http.get("/chemin-de-fer/2")
    assert page.status_code == 200 and 'href="/rules/chemin-de-fer"' in page.text
    left = ann.post("/api/chemin-de-fer/tables/2/leave")
    assert left.status_code == 200, left.text
    if not left.json()["left"]:  # a coup was under way: she stands up after it
        assert left.json()["stack"] is None
    wallet = Wallet(server.db)
    account = wallet.accounts.account(ann.name)
    assert account is not None
    for _ in range(600):
        if not wallet.seats.open_seats(account.id):
            break
        time.sleep(0.1)
    rows = ann.http.get("/api/ledger").json()["rows"]
    cash_out = next(r for r in rows if r["kind"] == "cash_out")
    # she passed and stood wherever the table played for her: no money was at risk
    assert F(cash_out["amount"]) == 250 and ann.balance() == 1000
    unchanged(server, ann)


def test_a_person_named_like_any_bot_sits_at_every_table(server: Server) -> None:
    """Every name a bot at these tables may have is a person's too (a bot takes the first
    free name of :data:`BOT_NAMES`, and a table has at most two bots and a person to
    avoid): each sits at every table, never refused for it (the bot of that name takes
    another), and no two seats share a name or look alike.  The first has the first bot's
    name with a Cyrillic А: a name that looks like a bot's makes the bot take another too."""
    assert BOT_NAMES[0].startswith("A")
    names = ["\u0410" + BOT_NAMES[0][1:], *BOT_NAMES[1:4]]
    people = [Someone.register(server, name) for name in names]
    for table in (1, 2):
        for person in people:
            seated = person.post(f"/api/chemin-de-fer/tables/{table}/seats", {"buy_in": "100"})
            assert seated.status_code == 201, (person.name, table, seated.text)
            seats = person.http.get(f"/api/chemin-de-fer/tables/{table}").json()["seats"]
            assert seats[seated.json()["seat"]]["name"] == person.name
            seen = [name_skeleton(s["name"]) for s in seats if s["kind"] != "empty"]
            assert len(set(seen)) == len(seen) and seen.count(name_skeleton(person.name)) == 1
            assert all(s["kind"] == "bot" for s in seats[-1 if table == 1 else -2 :])
            left = person.post(f"/api/chemin-de-fer/tables/{table}/leave")
            assert left.status_code == 200, left.text
    wallet = Wallet(server.db)
    for person in people:  # (each stands up once the coup in progress, if any, is over)
        account = wallet.accounts.account(person.name)
        assert account is not None
        for _ in range(600):
            if not wallet.seats.open_seats(account.id):
                break
            time.sleep(0.05)
        assert wallet.seats.open_seats(account.id) == []
        wallet.books.audit(account.id)
