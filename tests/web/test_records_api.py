"""The history, the wallet and the top-up through the API and the pages: pages by cursor
that add up, a chemin de fer coup as its person saw it, a round's own page (nobody
else's), names that pass for another refused, and a broke account's way on."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from cardroom.app.tables.chemmy import ChemmyTable
from cardroom.app.wallet import Wallet
from cardroom.core.shoe import SeededShuffler, Shoe
from cardroom.games.chemin_de_fer import ChemmyRules
from tests.app.tables.test_chemmy_records import decide
from tests.app.tables.test_chemmy_table_seats import bot
from tests.web.conftest import Person, Web

F = Fraction


def seated(web: Web, name: str, seed: int, bots: int) -> tuple[ChemmyTable, int]:
    """``name`` (an account) in seat 1 of the web's chemin de fer table 9 with ``bots``
    bots, the game started; the table and the account's id."""
    wallet = Wallet(web.db)
    account = wallet.accounts.account(name)
    assert account is not None
    rules = ChemmyRules()
    table = ChemmyTable(
        rules,
        Shoe(rules.shoe, SeededShuffler(seed)),
        wallet,
        np.random.default_rng(seed),
        seat_count=3,
        table_ref="web:chemin-de-fer:9",
    )
    table.sit_person(0, account.id, name, F(200))
    for n in range(bots):
        table.sit_bot(n + 1, f"Bot {'AB'[n]}", F(1000), bot())
    table.start()
    return table, account.id


def play_coups(web: Web, person: Person, coups: int) -> None:
    """``person`` at a chemin de fer table with two bots for ``coups`` coups, then up."""
    table, _ = seated(web, person.name, 8, bots=2)
    rng = np.random.default_rng(8)
    while len(table.records) < coups:
        while (turn := table.advance()) is not None:
            decide(table, turn, rng)
    table.leave(0)


def bet(person: Person, amount: str = "10") -> int:
    answer = person.post("/api/games/punto-banco/rounds", {"bets": {"banker": amount}})
    assert answer.status_code == 201, answer.text
    return int(answer.json()["id"])


def test_pages_of_history_and_ledger_add_up_and_coups_show_as_seen(web: Web) -> None:
    ann = web.person("Ann")
    rounds = [bet(ann) for _ in range(12)]
    play_coups(web, ann, 6)
    # the history, newest first, a page at a time both ways
    first = ann.http.get("/api/history", params={"limit": 10}).json()
    assert first["newer"] is None and first["older"] == first["rounds"][-1]["id"]
    older = ann.http.get("/api/history", params={"limit": 10, "before": first["older"]}).json()
    assert older["older"] is None and older["newer"] == older["rounds"][0]["id"]
    back = ann.http.get("/api/history", params={"limit": 10, "after": older["newer"]}).json()
    assert back["rounds"] == first["rounds"]
    listed = [r["id"] for r in first["rounds"] + older["rounds"]]
    assert listed == sorted(listed, reverse=True) and set(rounds) <= set(listed)
    # a coup as Ann saw it: her seat, part, stake and result, her decisions in words
    coups = [r for r in first["rounds"] if r["game"] == "chemin-de-fer"]
    assert len(coups) >= 5
    for coup in coups:
        seen = coup["coup"]
        assert seen["table"] == "Table 9" and seen["seat"] == 0 and seen["name"] == "Ann"
        assert seen["part"] in {"banker", "punter", "watcher"}
        assert F(coup["total_net"]) == sum((F(n) for n in coup["net"].values()), F(0))
        assert all(d["text"].startswith("You ") for d in coup["decisions"])
        assert all("text" in e and "_" not in e["text"] for e in coup["events"])
        one = ann.http.get(f"/api/rounds/{coup['id']}").json()
        assert one["coup"] == seen and one["total_net"] == coup["total_net"]
        assert ann.http.get(f"/api/rounds/{coup['id']}/replay").json()["same"] is True
    # the ledger a page at a time: each page adds up from the balance before it
    seen_rows = []
    cursor: dict[str, int] = {}
    while True:
        page = ann.http.get("/api/ledger", params={"limit": 7, **cursor}).json()
        rows = page["rows"]
        running = F(page["balance_before"])
        for row in reversed(rows):
            running += F(row["amount"])
            assert running == F(row["balance_after"])
        seen_rows += rows
        if page["older"] is None:
            break
        cursor = {"before": page["older"]}
    assert seen_rows[-1]["memo"] == "Opening deposit" and page["balance_before"] == "0"
    assert F(seen_rows[0]["balance_after"]) == ann.balance()
    memos = {row["memo"] for row in seen_rows}
    assert {"Buy-in at Table 9", "Cash-out from Table 9", "Stake on banker"} <= memos
    assert not any("web:" in memo for memo in memos)
    # a round's own page, linked from the wallet; nobody else's
    page_html = ann.http.get("/wallet").text
    assert f'href="/rounds/{rounds[-1]}"' in page_html and "web:chemin" not in page_html
    assert "Before your first row" in page_html  # (one page: fewer than 50 rows)
    mine = ann.http.get(f"/rounds/{coups[0]['id']}")
    assert mine.status_code == 200 and "Table 9" in mine.text and "You " in mine.text
    bob = web.person("Bob")
    for path in (f"/rounds/{rounds[0]}", f"/api/rounds/{rounds[0]}"):
        assert bob.http.get(path).status_code == 404
    assert bob.http.get("/rounds/0").status_code == 422
    assert ann.http.get("/history", params={"before": first["older"]}).status_code == 200


def test_a_page_between_two_cursors(web: Web) -> None:
    ann = web.person("Ann")
    rounds = [bet(ann) for _ in range(6)]
    # the newest rounds between them, with the cursors of the pages around (a client
    # may send both, as the schema lets it)
    between = ann.http.get(
        "/api/history", params={"before": rounds[4], "after": rounds[0], "limit": 2}
    ).json()
    assert [r["id"] for r in between["rounds"]] == [rounds[3], rounds[2]]
    assert (between["older"], between["newer"]) == (rounds[2], rounds[3])
    none = ann.http.get("/api/history", params={"before": rounds[1], "after": rounds[0]}).json()
    assert (none["rounds"], none["older"], none["newer"]) == ([], None, None)
    rows = ann.http.get("/api/ledger").json()["rows"]
    page = ann.http.get(
        "/api/ledger", params={"before": rows[0]["id"], "after": rows[-1]["id"], "limit": 3}
    ).json()
    assert page["rows"] == rows[1:4]
    assert (page["older"], page["newer"]) == (rows[3]["id"], rows[1]["id"])
    running = F(page["balance_before"])
    for row in reversed(page["rows"]):
        running += F(row["amount"])
        assert running == F(row["balance_after"])


def test_a_broke_account_is_offered_a_top_up_once_a_day(web: Web) -> None:
    eve = web.person("Eve")
    refused = eve.post("/api/wallet/top-up", {})
    assert refused.status_code == 409 and "below every table's minimum" in refused.json()["error"]
    assert eve.http.get("/api/ledger").json()["top_up"] is None
    wallet = Wallet(web.db)
    account = wallet.accounts.account("Eve")
    assert account is not None
    wallet.accounts.withdraw(account.id, F(995))  # (as if lost at the tables)
    # the bet refused says the way on; so do the wallet page and the API
    broke = eve.post("/api/games/punto-banco/rounds", {"bets": {"banker": "10"}})
    assert broke.status_code == 409
    assert "top it up to 1000 on your Wallet page" in broke.json()["error"]
    seat = eve.post("/api/chemin-de-fer/tables/1/seats", {"buy_in": "10"})
    assert seat.status_code == 409 and "top it up to 1000" in seat.json()["error"]
    offer = eve.http.get("/api/ledger").json()["top_up"]
    assert offer["due"] is True and offer["to"] == "1000" and offer["minimum"] == "10"
    assert "Top up to 1000" in eve.http.get("/wallet").text
    done = eve.post("/api/wallet/top-up", {})
    assert done.status_code == 200 and done.json() == {"balance": "1000", "amount": "995"}
    wallet.accounts.withdraw(account.id, F(1000))
    again = eve.post("/api/wallet/top-up", {})
    assert again.status_code == 409 and "one top-up a day" in again.json()["error"]
    offer = eve.http.get("/api/ledger").json()["top_up"]
    assert offer["due"] is False and offer["next_at"]
    page = eve.http.get("/wallet").text
    assert "less than a day ago" in page and "Top up to" not in page
    # the form on the wallet page, refused the same way, changes nothing
    form = eve.http.post("/wallet/top-up", data={"csrf_token": eve.csrf})
    assert form.status_code == 409 and "One top-up a day" in form.text
    assert eve.balance() == 0
    rows = eve.http.get("/api/ledger").json()["rows"]
    assert [r["kind"] for r in rows[:2]] == ["withdrawal", "top_up"]
    assert rows[1]["memo"] == "Top-up to 1000 (play money)"


def test_a_name_that_passes_for_another_is_refused(web: Web) -> None:
    web.person("Eero")
    for alike in ("Еего", "ＥＥＲＯ", "eero"):
        answer = web.client().post(
            "/api/accounts", json={"username": alike, "password": "a good password"}
        )
        assert answer.status_code == 409, alike
    answer = web.client().post("/api/accounts", json={"username": "Еего", "password": "x" * 9})
    assert "looks too much like 'Eero'" in answer.json()["error"]
    signed = web.client().post(
        "/api/login", json={"username": "ＥＥＲＯ", "password": "a good password"}
    )
    assert signed.status_code == 200 and signed.json()["username"] == "Eero"


def test_a_house_round_in_the_history_says_each_hand_s_total_and_who_won(web: Web) -> None:
    """As at the table: each hand's final total and the outcome in words, for every house
    game (issue 32: the history showed only cards and the net)."""
    ann = web.person("Ann")
    bets = {
        "finnish27": {"player": "10"},
        "21-24-27": {"player": "10"},
        "punto-banco": {"banker": "10"},
        "baccarat27": {"banker": "10", "b27": "10"},
    }
    for game_id, wagers in bets.items():
        data = ann.post(f"/api/games/{game_id}/rounds", {"bets": wagers}).json()
        while data["state"] == "awaiting_action":
            data = ann.post(f"/api/rounds/{data['id']}/actions", {"action": "stand"}).json()
        live = data
        stored = ann.http.get(f"/api/rounds/{live['id']}").json()
        listed = ann.http.get("/api/history", params={"limit": 1}).json()["rounds"][0]
        for shown in (live, stored, listed):
            hands = {h["hand"]: h["total"] for h in shown["hands"]}
            last = {}
            for event in shown["events"]:
                if event["event"] == "card":
                    last[event["hand"]] = event["text"].rsplit(": ", 1)[-1]
            assert hands == last and all(hands.values()), (game_id, shown["hands"])
            said = next(e["text"] for e in shown["events"] if e["event"] == "outcome")
            assert shown["outcome_text"] == said and said.split(":")[0].endswith(
                ("wins", "push", "tie", "Tie", "Push", "stalemate")
            ), said
    page = ann.http.get("/history").text
    assert page.count('class="outcome-line"') == 4
    assert "B-27" in page and "B27" not in page  # the wager as the table names it


def test_a_coup_in_play_is_shown_as_it_stands_and_its_decisions_are_made_at_its_table(
    web: Web,
) -> None:
    """``GET /api/rounds/ID`` of one's own coup still in play was a 500 ("its saved state
    is damaged"), and a decision on it a 409 in the same words (issue 32)."""
    ann = web.person("Ann")
    wallet = Wallet(web.db)
    table, account_id = seated(web, "Ann", 3, bots=1)
    rng = np.random.default_rng(3)
    for _ in range(200):  # to a turn of Ann's in a coup she has money in
        turn = table.advance()
        if turn is None:
            continue
        if turn.seat == 0 and wallet.rounds.unfinished_rounds(account_id):
            break
        decide(table, turn, rng)
    [coup] = [r for r in wallet.rounds.unfinished_rounds(account_id) if r.game == "chemin-de-fer"]
    shown = ann.http.get(f"/api/rounds/{coup.id}")
    assert shown.status_code == 200, shown.text
    data = shown.json()
    assert data["state"] == "in_progress" and data["coup"]["table"] == "Table 9"
    assert data["notes"] == [
        "This coup is still being played at Table 9: follow it at /chemin-de-fer/9."
    ]
    acted = ann.post(f"/api/rounds/{coup.id}/actions", {"action": "stand"})
    assert acted.status_code == 409
    error = acted.json()["error"]
    assert error == (
        f"round {coup.id} is a coup of Chemin de fer, played at its table: make its decisions there"
    )
    assert "damaged" not in error
    assert ann.http.get(f"/rounds/{coup.id}").status_code == 200  # its page, as it stands
    # nobody else sees it
    assert web.person("Bob").http.get(f"/api/rounds/{coup.id}").status_code == 404
    while (turn := table.advance()) is not None:
        decide(table, turn, rng)
    table.leave(0)
