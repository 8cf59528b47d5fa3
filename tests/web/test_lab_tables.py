"""A lab variant played at a table of its own (issue 21): kept in the database by its
id, dealt at its own rules and shoe, its bets checked against its own limits, its
rounds recorded with its rules; the game's own table untouched beside it; another
server process on the same database deals at it too.  A variant's table takes bets at a
server that lets anyone play their own variants (``own_variant_tables``, the ``web``
fixture of this module), or once an operator put the variant on a public table (the
``room`` fixture: a server as it starts by default)."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from fractions import Fraction as F
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from cardroom.app.disclosure import rules_text
from cardroom.app.operators.log import Actor
from cardroom.app.operators.tables import TableSettings
from cardroom.app.wallet import Wallet
from cardroom.core.rules import apply_rules
from cardroom.games import get_game
from cardroom.storage.schema import rounds
from cardroom.web.app import create_app
from cardroom.web.edges import HouseEdges, analyser_means
from tests.web.conftest import Person, Web, cheap_sessions, served
from tests.web.test_api import BAD_BETS

GAME = "punto-banco"
#: a variant whose least stake (5) the house's table refuses (its minimum is 10)
VALUES = {"tie_pays": "9", "table.minimum": "5"}


@pytest.fixture
def web(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Web]:
    """A server that lets anyone play a lab variant at a table of their own."""
    yield from served(tmp_path, request, own_variant_tables=True)


@pytest.fixture
def room(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Web]:
    """A server as it starts by default: only public variants take bets."""
    yield from served(tmp_path, request)


def open_variant(person: Person, values: dict[str, str] = VALUES, *, playable: bool = True) -> str:
    answer = person.post(f"/api/lab/{GAME}/table", {"values": values})
    assert answer.status_code == 200, answer.text
    data = answer.json()
    assert re.fullmatch(r"[0-9a-f]{20}", data["variant"])
    assert data["url"] == f"/play/{GAME}?variant={data['variant']}"
    assert data["playable"] is playable
    return str(data["variant"])


def publish(web: Web, variant: str, name: str = "Nines") -> None:
    """An operator puts ``variant`` on a public table (as ``POST /api/operator/variants``)."""
    floor = Actor(None, "test operator", "127.0.0.1")
    TableSettings(web.db).publish(floor, GAME, variant, name, "a variant for the lobby")


def bet(person: Person, variant: str, bets: dict[str, Any]) -> Any:
    return person.post(f"/api/variants/{GAME}/{variant}/rounds", {"bets": bets})


def test_a_variant_deals_at_its_own_rules_beside_the_house_table(web: Web) -> None:
    ann = web.person("Ann")
    variant = open_variant(ann)
    assert open_variant(ann) == variant  # the same rules: the same variant
    played = bet(ann, variant, {"tie": "5"})
    assert played.status_code == 201, played.text
    data = played.json()
    assert data["state"] == "finished" and F(data["balance"]) == 1000 + F(data["total_net"])
    if data["outcome"] == "tie":
        assert F(data["net"]["tie"]) == 45  # 9:1
    stored = Wallet(web.db).rounds.round(data["id"])
    assert stored.table_ref == f"web:{GAME}~{variant}"
    assert stored.record is not None and "tie_pays = 9" in stored.record["rules"]
    # the house's table keeps its own limits and its own scoreboard
    house = ann.post(f"/api/games/{GAME}/rounds", {"bets": {"tie": "5"}})
    assert house.status_code == 422 and "below the table minimum" in house.json()["error"]
    assert ann.http.get(f"/api/games/{GAME}/table").json()["rounds_played"] == 0
    mine = ann.http.get(f"/api/variants/{GAME}/{variant}/table").json()
    assert mine["rounds_played"] == 1 and len(mine["bead_plate"]) == 1
    # the page of the variant's table says whose rules they are
    page = ann.http.get(f"/play/{GAME}?variant={variant}")
    assert page.status_code == 200
    assert f'data-variant="{variant}"' in page.text and "tie_pays = 9" in page.text  # the file
    # the history names the variant's round as such; the house's rounds as before
    history = ann.http.get("/history").text
    assert f"#{data['id']}</a> · Punto banco · lab variant {variant[:8]}" in history
    # another person at the same variant: a table of their own
    bob = web.person("Bob")
    assert bob.http.get(f"/api/variants/{GAME}/{variant}/table").json()["rounds_played"] == 0
    assert bob.http.get(f"/api/rounds/{data['id']}").status_code == 404


def test_a_variant_takes_no_bets_until_an_operator_puts_it_on_a_public_table(
    room: Web,
) -> None:
    """Anyone signed in may make a variant, so its payouts and its shoe are anyone's
    choice: a tie paying 1000:1 from a shoe of nines alone would pay every round.  At a
    server as it starts, such a table takes no bets (409, nothing taken, nothing
    recorded) until an operator has put the variant on a public table."""
    ann = room.person("Ann")
    rigged = {
        "tie_pays": "1000",
        "shoe.cards_per_rank": "0,0,0,0,0,0,0,0,4,0,0,0,0",
        "shoe.decks": "1",
        "shoe.cut_card": "0",
        "shoe.reshuffle_after": "4",
    }
    variant = open_variant(ann, rigged, playable=False)
    refused = bet(ann, variant, {"tie": "10"})
    assert refused.status_code == 409, refused.text
    assert refused.json()["error"] == (
        f"variant {variant} is not on a public table: an operator puts a lab variant on one "
        "before its bets are taken"
    )
    assert ann.balance() == 1000
    with room.db.read() as conn:
        assert conn.execute(select(func.count()).select_from(rounds)).scalar() == 0
    assert ann.http.get(f"/api/variants/{GAME}/{variant}/table").json()["rounds_played"] == 0
    page = ann.http.get(f"/play/{GAME}?variant={variant}").text
    assert 'id="not-public"' in page and variant in page
    lab = ann.http.get(f"/lab?game={GAME}").text
    assert "Keep variant A for a public table" in lab and "at a table of its own" not in lab

    # a variant an operator put on a public table deals as the house's own tables do
    fair = open_variant(ann, {"tie_pays": "9"}, playable=False)
    publish(room, fair)
    assert open_variant(ann, {"tie_pays": "9"}) == fair
    played = bet(ann, fair, {"player": "10"})
    assert played.status_code == 201, played.text
    assert ann.balance() == 1000 + F(played.json()["total_net"])
    assert 'id="not-public"' not in ann.http.get(f"/play/{GAME}?variant={fair}").text
    # the rigged one still takes nothing
    assert bet(ann, variant, {"tie": "10"}).status_code == 409


def test_a_designer_s_server_deals_at_anyone_s_variant(web: Web) -> None:
    ann = web.person("Ann")
    lab = ann.http.get(f"/lab?game={GAME}").text
    assert "Play variant A at a table of its own" in lab and "for a public table" not in lab
    variant = open_variant(ann)
    assert 'id="not-public"' not in ann.http.get(f"/play/{GAME}?variant={variant}").text


def test_another_process_deals_at_the_variant(web: Web) -> None:
    ann = web.person("Ann")
    variant = open_variant(ann)
    assert bet(ann, variant, {"player": "5"}).status_code == 201
    edges = HouseEdges(analyser_means, in_process=True)
    try:  # a second server on the same database knows the variant only from there
        ann.moves_to(
            create_app(
                web.db,
                house_edges=edges,
                sessions=cheap_sessions(web.db),
                own_variant_tables=True,
            )
        )
        again = bet(ann, variant, {"player": "5"})
        assert again.status_code == 201, again.text
        assert ann.http.get(f"/api/variants/{GAME}/{variant}/table").json()["rounds_played"] == 2
    finally:
        edges.close()


def test_unknown_or_malformed_variants_are_refused(web: Web) -> None:
    ann = web.person("Ann")
    variant = open_variant(ann)
    unknown = "0" * 20
    assert bet(ann, unknown, {"player": "10"}).status_code == 404
    assert ann.http.get(f"/api/variants/{GAME}/{unknown}/table").status_code == 404
    assert ann.http.get(f"/play/{GAME}?variant={unknown}").status_code == 404
    # a variant is of its game only
    dealt = bet(ann, variant, {"player": "10"})
    assert dealt.status_code == 201
    other = ann.post(f"/api/variants/baccarat27/{variant}/rounds", {"bets": {"player": "10"}})
    assert other.status_code == 404
    for bad in ("XYZ", "0" * 21, "g" * 20):
        assert bet(ann, bad, {"player": "10"}).status_code == 422
        assert ann.http.get(f"/play/{GAME}?variant={bad}").status_code == 422
    # a value that cannot be a variant, and no CSRF token: nothing kept
    refused = ann.post(f"/api/lab/{GAME}/table", {"values": {"tie_pays": "nine"}})
    assert refused.status_code == 422 and "'tie_pays' must be odds" in refused.json()["error"]
    no_token = ann.http.post(f"/api/lab/{GAME}/table", json={"values": VALUES})
    assert no_token.status_code == 403
    no_token = ann.http.post(
        f"/api/variants/{GAME}/{variant}/rounds", json={"bets": {"player": "10"}}
    )
    assert no_token.status_code == 403
    assert ann.balance() == 1000 + F(dealt.json()["total_net"])


@pytest.mark.parametrize(
    ("bets", "status", "message"), [(b, s, m) for b, game, s, m in BAD_BETS if game == GAME]
)
def test_bad_bets_at_a_variant_get_the_house_table_s_answers(
    web: Web, bets: dict[str, Any], status: int, message: str
) -> None:
    ann = web.person("Ann")
    variant = open_variant(ann, {"tie_pays": "9"})  # the house's limits
    refused = bet(ann, variant, bets)
    assert refused.status_code == status and message in refused.json()["error"], refused.text
    assert ann.balance() == 1000
    assert ann.http.get(f"/api/variants/{GAME}/{variant}/table").json()["rounds_played"] == 0


def test_a_variant_s_round_limit_reshuffles_its_table(web: Web) -> None:
    """A shoe reshuffled every 3 rounds: any request (the table is set up again from
    the database each time) counts this shoe's rounds, and the fourth comes from a
    new shuffle that says why."""
    ann = web.person("Ann")
    variant = open_variant(ann, {"shoe.reshuffle_after_rounds": "3"})
    path = f"/api/variants/{GAME}/{variant}/table"
    for n in range(1, 4):
        dealt = bet(ann, variant, {"player": "10"})
        assert dealt.status_code == 201
        cause = "round_limit" if n == 3 else None
        round_ = dealt.json()
        assert round_["reshuffle_due"] == (n == 3) and round_["reshuffle_cause"] == cause
        state = ann.http.get(path).json()
        assert state["shoe"] == 1 and len(state["bead_plate"]) == n
        assert state["reshuffle_due"] == (n == 3) and state["reshuffle_cause"] == cause
    fourth = bet(ann, variant, {"player": "10"}).json()
    shuffled = [e for e in fourth["events"] if e["event"] == "reshuffled"]
    assert [(e["shoe"], e["cause"]) for e in shuffled] == [(2, "round_limit")]
    state = ann.http.get(path).json()
    assert state["shoe"] == 2 and len(state["bead_plate"]) == 1


def test_a_finnish27_variant_with_the_new_options_deals_and_replays(web: Web) -> None:
    """Wild Jokers, a five-card Charlie and Jokers as bugs at a variant's table: every
    round settles, and every round's record replays through the engine as dealt."""
    ann = web.person("Ann")
    values = {"jokers_wild": "true", "charlie": "5", "bonus.poker_jokers": "bug"}
    answer = ann.post("/api/lab/finnish27/table", {"values": values})
    assert answer.status_code == 200, answer.text
    variant = answer.json()["variant"]
    reasons: set[str] = set()
    for _ in range(40):
        dealt = ann.post(f"/api/variants/finnish27/{variant}/rounds", {"bets": {"player": "10"}})
        assert dealt.status_code == 201, dealt.text
        data = dealt.json()
        assert data["state"] == "finished"
        reasons |= {e["why"]["rule"] for e in data["events"] if e["event"] == "outcome"}
        replayed = ann.http.get(f"/api/rounds/{data['id']}/replay").json()
        assert replayed == {"id": data["id"], "same": True, "differences": []}
    assert ann.balance() != 1000  # (the rounds moved the wallet)
    assert reasons  # (the outcomes said why)


def test_a_variant_s_table_gives_its_rules_in_words_its_edges_and_its_par_sheet(
    web: Web,
) -> None:
    """Issue 32: the variant's own table showed its rules only as TOML."""
    ann = web.person("Ann")
    variant = open_variant(ann)
    rules = apply_rules(get_game(GAME).default_rules(), {"tie_pays": 9, "table": {"minimum": 5}})
    words = rules_text(GAME, rules)
    play = html.unescape(ann.http.get(f"/play/{GAME}?variant={variant}").text)
    for sentence in words.sentences:  # the same generator as the rules pages
        assert sentence in play
    assert f'href="/rules/{GAME}?variant={variant}"' in play
    assert f'href="/rules/{GAME}/par?variant={variant}"' in play
    # its rules page: the variant's words, paytable and exact edges, and its PAR sheet
    page = html.unescape(ann.http.get(f"/rules/{GAME}", params={"variant": variant}).text)
    assert f"of variant {variant[:8]}" in page and "not the house's standard rules" in page
    for sentence in words.sentences:
        assert sentence in page
    assert "9:1" in page
    web.edges.wait(timeout=120)
    edges = ann.http.get(f"/api/games/{GAME}/edges", params={"variant": variant}).json()
    tie = -analyser_means(GAME, rules)["tie"]
    assert edges["status"] == "ready" and edges["wagers"]["tie"]["house_edge"] == str(tie)
    ann.http.get(f"/api/games/{GAME}/edges")
    web.edges.wait(timeout=120)
    house = ann.http.get(f"/api/games/{GAME}/edges").json()
    assert house["wagers"]["tie"]["house_edge"] != str(tie)  # the house's own figures
    first = ann.http.get(f"/rules/{GAME}/par", params={"variant": variant, "format": "csv"})
    assert first.status_code == 202 and 'http-equiv="refresh"' in first.text
    assert web.sheets is not None
    web.sheets.wait(timeout=120)
    for form, starts in (("csv", b"section,figure"), ("html", b"<!DOCTYPE html>"), ("pdf", b"")):
        sheet = ann.http.get(f"/rules/{GAME}/par", params={"variant": variant, "format": form})
        if form == "pdf" and sheet.status_code == 503:  # no Pango here: said in one line
            assert "not available" in sheet.json()["error"]
            continue
        assert sheet.status_code == 200, sheet.text
        assert sheet.content.startswith(starts or b"%PDF-")
        name = f"{GAME}-variant-{variant[:8]}-par.{form}"
        assert sheet.headers["content-disposition"] == f'attachment; filename="{name}"'
    # an unknown variant, a malformed one, an unknown form: refused, nothing worked out
    unknown = "0" * 20
    assert ann.http.get(f"/rules/{GAME}", params={"variant": unknown}).status_code == 404
    assert ann.http.get(f"/rules/{GAME}/par", params={"variant": unknown}).status_code == 404
    assert ann.http.get(f"/api/games/{GAME}/edges", params={"variant": unknown}).status_code == 404
    assert ann.http.get(f"/rules/{GAME}", params={"variant": "XYZ"}).status_code == 422
    assert ann.http.get(f"/rules/{GAME}/par", params={"format": "doc"}).status_code == 422
