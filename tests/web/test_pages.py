"""The pages and their forms through the real app: sign-in forms with their own CSRF
token, sign-out with the session's, redirects, the cards, and error pages."""

from __future__ import annotations

import html
import re
from fractions import Fraction
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from cardroom.app.tables.live import TableSpec
from cardroom.app.wallet import Wallet
from cardroom.core.cards import RANKS, Card, Suit
from cardroom.games.baccarat import Tableau
from cardroom.games.chemin_de_fer import GAME_ID as CHEMMY
from cardroom.games.chemin_de_fer import CasinoTableauBanker, ChemmyRules
from cardroom.games.chemin_de_fer.analysis import ChemmySolution, solve_table
from cardroom.games.chemin_de_fer.bots import table_bot
from cardroom.storage import Database
from cardroom.web.app import create_app
from cardroom.web.cards import card_label, card_svg
from tests.web.conftest import Web, cheap_sessions


def form_token(html: str) -> str:
    found = re.search(r'name="form_token" value="([^"]+)"', html)
    assert found is not None
    return found.group(1)


def test_registering_and_signing_in_with_the_forms(web: Web) -> None:
    client = web.client()
    page = client.get("/register?next=/play/baccarat27")
    token = form_token(page.text)
    form = {"username": "Aino", "password": "a good password", "form_token": token}
    done = client.post(
        "/register", data={**form, "next": "/play/baccarat27"}, follow_redirects=False
    )
    assert done.status_code == 303 and done.headers["location"] == "/play/baccarat27"
    assert client.get("/api/me").json() == {"username": "Aino", "balance": "1000"}
    table = client.get("/play/baccarat27")
    assert table.status_code == 200 and 'data-game="baccarat27"' in table.text
    csrf = re.search(r'name="csrf-token" content="([^"]+)"', table.text)
    assert csrf is not None
    # signing out needs the session's token
    assert client.post("/logout", data={"csrf_token": "wrong"}).status_code == 403
    out = client.post("/logout", data={"csrf_token": csrf.group(1)}, follow_redirects=False)
    assert out.status_code == 303 and client.get("/api/me").status_code == 401
    # back in, with the form
    token = form_token(client.get("/login").text)
    wrong = client.post(
        "/login", data={"username": "Aino", "password": "nope nope", "form_token": token}
    )
    assert wrong.status_code == 401 and "wrong name or password" in wrong.text
    back = client.post(
        "/login",
        data={"username": "aino", "password": "a good password", "form_token": token},
        follow_redirects=False,
    )
    assert back.status_code == 303 and client.get("/api/me").status_code == 200


@pytest.mark.parametrize("target", ["https://evil.example/", "//evil.example", "/\\evil"])
def test_signing_in_never_sends_a_person_elsewhere(web: Web, target: str) -> None:
    web.person("Aino")
    client = web.client()
    token = form_token(client.get("/login").text)
    done = client.post(
        "/login",
        data={
            "username": "Aino",
            "password": "a good password",
            "form_token": token,
            "next": target,
        },
        follow_redirects=False,
    )
    assert done.status_code == 303 and done.headers["location"] == "/"


def test_a_form_from_elsewhere_is_refused(web: Web) -> None:
    client = web.client()  # no form cookie: the post did not come from our page
    refused = client.post(
        "/register", data={"username": "Aino", "password": "a good password", "form_token": "x"}
    )
    assert refused.status_code == 403 and Wallet(web.db).accounts.all() == []
    missing = client.post("/register", data={"username": "Aino"})
    assert missing.status_code == 422 and Wallet(web.db).accounts.all() == []


def test_pages_that_need_a_person_send_them_to_sign_in(web: Web) -> None:
    client = web.client()
    for path in ("/play/finnish27", "/history", "/wallet"):
        response = client.get(path, follow_redirects=False)
        assert response.status_code == 303 and response.headers["location"] == f"/login?next={path}"
    for path in ("/", "/rules/21-24-27", "/rules/baccarat27", "/login", "/register"):
        assert client.get(path).status_code == 200
    missing = client.get("/play/poker")
    assert missing.status_code == 404 and "text/html" in missing.headers["content-type"]
    assert client.get("/rules/poker").status_code == 404


def test_every_card_has_its_finnish_index_and_suit() -> None:
    for suit in Suit:
        for rank in RANKS:
            card = Card(rank, suit)
            svg = card_svg(card)
            assert f">{rank.number}<" in svg and suit.symbol in svg
            assert card_label(card) in svg  # the title: a text alternative
    joker = card_svg(Card.parse("Jo"))
    assert "JOKER" in joker and not re.search(r">\d+<", joker)


def test_the_cards_are_served_as_svg(web: Web) -> None:
    client = web.client()
    king = client.get("/cards/Kh.svg")
    assert king.status_code == 200 and king.headers["content-type"] == "image/svg+xml"
    assert ">13<" in king.text
    assert client.get("/cards/back.svg").status_code == 200
    for bad in ("10h", "Zz", "KH", "x" * 50):
        assert client.get(f"/cards/{bad}.svg").status_code == 404


# -- chemin de fer's rules page ----------------------------------------------------------------
def exact(page: str, where: str) -> Fraction:
    """The exact figure the page gives in the element marked ``where``."""
    found = re.search(where + r'.*?data-exact="([^"]+)"', page, re.S)
    assert found is not None, where
    return Fraction(found.group(1))


def words(page: str) -> str:
    """What the page says: its text without the tags, each run of white space one space."""
    return " ".join(re.sub(r"<[^>]+>", "", page).split())


def shows(page: str, solution: ChemmySolution) -> None:
    """The page's figures are the analyser's, exactly."""
    assert exact(page, 'data-wager="punter"') == solution.player_value
    assert exact(page, 'data-wager="bank"') == solution.value
    assert exact(page, 'id="player-draw"') == solution.player_draw_at_5
    if solution.commission:
        assert exact(page, 'id="house-edge"') == -(solution.value + solution.player_value)


#: One table: each table's absent policy solves the rules when the app is made.
ONE = (TableSpec(1, "Table 1", 3, 1),)


def variant_page(tmp_path: Path, rules: ChemmyRules) -> str:
    """``/rules/chemin-de-fer`` of a server whose tables play ``rules`` (a rules folder's)."""
    with Database.open(path=tmp_path / "variant.sqlite3") as db:
        app = create_app(db, {CHEMMY: rules}, sessions=cheap_sessions(db), chemmy_tables=ONE)
        page = TestClient(app).get("/rules/chemin-de-fer")
    assert page.status_code == 200
    return html.unescape(page.text)


def test_chemin_de_fer_has_its_rules_page_with_the_solved_coup(web: Web) -> None:
    anonymous = web.client().get("/rules/chemin-de-fer")
    assert anonymous.status_code == 200
    signed_in = web.person("Aino").http.get("/rules/chemin-de-fer")
    assert signed_in.status_code == 200 and "Aino" in signed_in.text
    page = html.unescape(anonymous.text)
    shows(page, solve_table(ChemmyRules()))
    for said in [
        "must draw on 0 to 4, chooses freely on 5",
        "the banker chooses freely to draw or stand",
        "This table takes no commission, so the house has no edge",
        "The banker holding 0+6 (6) when the player stood draws with probability",
        "Banker 5 against the player's third card 4: draws holding 0+5 or 6+9 or 7+8",
        "off the top of a full shoe of 6 decks",
        "they always draw on 5, and as the banker they follow the table's tableau: they "
        "draw on 0 to 5 when the player stood",
        "The bots' banker: his third card when the player drew",
    ]:
        assert said in words(page), said
    assert 'href="/chemin-de-fer"' in page  # back to the tables


def test_every_chemin_de_fer_page_links_to_its_rules(web: Web) -> None:
    client = web.client()
    for path in ("/", "/chemin-de-fer"):
        page = client.get(path)
        assert page.status_code == 200 and 'href="/rules/chemin-de-fer"' in page.text, path
    # the table page's link: tests/web/test_chemmy_api.py (it needs a running table)


def test_the_chemin_de_fer_rules_page_follows_the_table_rules(tmp_path: Path) -> None:
    rules = ChemmyRules(
        commission=Fraction(1, 20), player_must_draw_below=6, player_must_stand_from=7
    )
    page = variant_page(tmp_path, rules)
    shows(page, solve_table(rules))
    for said in [
        "must draw on 0 to 5, chooses freely on 6",
        "less the house's commission of 5% of those winnings",
        "The house edge at this table is its commission:",
        "the house takes 5% of the banker's winnings and has no stake otherwise",
        "a Nash equilibrium",
        "never draws at 6",  # at 6 standing is better, whatever the banker does
        "19:20",
    ]:
        assert said in words(page), said
    assert "takes no commission" not in page and "chooses freely on 5" not in page


def test_the_bots_bank_by_the_tableau_of_the_table_rules(tmp_path: Path) -> None:
    tableau = Tableau(banker_draws_below_when_player_stands=5)
    rules = ChemmyRules(tableau=tableau)
    bot = table_bot(rules)
    assert isinstance(bot.banker, CasinoTableauBanker) and bot.banker.tableau == tableau
    page = words(variant_page(tmp_path, rules))
    assert "they follow the table's tableau: they draw on 0 to 4 when the player stood" in page


def test_the_casino_variant_gets_its_page(tmp_path: Path) -> None:
    casino = ChemmyRules(banker_forced_by_tableau=True)
    page = variant_page(tmp_path, casino)
    shows(page, solve_table(casino))
    assert "the banker has no choice" in page and "(he must follow it)" in page
    assert "his best answer to the tableau" in page and "The bots' banker" not in page
    assert "The banker never mixes" in page and 'id="banker-cards"' not in page
