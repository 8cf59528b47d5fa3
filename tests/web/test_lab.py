"""The lab: two variants of a game's rules, their exact house edges side by side, a
refused value said in one line, and each variant's rules file and PAR sheet to
download."""

from __future__ import annotations

import base64
import io
import re
import tomllib
from fractions import Fraction
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from cardroom.app.lab import LabError, compare_edges, form_fields, variant
from cardroom.app.operators.log import Actor
from cardroom.app.operators.tables import TableSettings
from cardroom.app.par import rules_digest
from cardroom.app.par_page import pdf_bytes
from cardroom.core.money import fraction_text, percent_text, rounded_text
from cardroom.core.rules import apply_rules, rule_fields, rules_to_toml
from cardroom.games import GAMES, get_game
from cardroom.web.edges import analyser_means
from tests.web.browser import ARTIFACTS, Server
from tests.web.conftest import Person, Web
from tests.web.test_browser import DESKTOP, PHONE, page, register, server

__all__ = ["page", "server"]  # the fixtures, shared with test_browser

GAME = "punto-banco"


def worked_out(person: Person, web: Web, ask: dict[str, Any], game: str = GAME) -> dict[str, Any]:
    answer = person.post(f"/api/lab/{game}", ask)
    assert answer.status_code == 200, answer.text
    web.edges.wait(timeout=120)
    answer = person.post(f"/api/lab/{game}", ask)
    data: dict[str, Any] = answer.json()
    assert data["ready"] is True
    return data


def test_two_variants_side_by_side_with_exact_differences(web: Web) -> None:
    ann = web.person("Ann")
    data = worked_out(ann, web, {"a": {}, "b": {"tie_pays": "9", "shoe.decks": "6"}})
    default = get_game(GAME).default_rules()
    b_rules = apply_rules(default, {"tie_pays": 9, "shoe": {"decks": 6}})
    a_means, b_means = analyser_means(GAME, default), analyser_means(GAME, b_rules)
    rows = {row["wager"]: row for row in data["rows"]}
    assert set(rows) == set(a_means)
    for wager, row in rows.items():
        a, b = -a_means[wager], -b_means[wager]
        assert Fraction(row["a"]["exact"]) == a and Fraction(row["b"]["exact"]) == b
        assert Fraction(row["difference"]["exact"]) == b - a
        assert row["b"]["percent"] == percent_text(b)
    assert rows["tie"]["difference"]["percent"].startswith("-")  # 9:1 is better for the bettor
    assert tomllib.loads(data["b"]["toml"])["tie_pays"] == 9
    assert apply_rules(default, tomllib.loads(data["b"]["toml"])) == b_rules


def test_chemin_de_fer_s_variants_by_the_solved_coup(web: Web) -> None:
    """A commission on the banker's wins: each seat's edge at the solved coup, A and B,
    the analyser's own; the page says so, and a variant has no web table of its own."""
    game = "chemin-de-fer"
    ann = web.person("Ann")
    data = worked_out(ann, web, {"a": {}, "b": {"commission": "1/20"}}, game)
    default = get_game(game).default_rules()
    b_rules = apply_rules(default, {"commission": "1/20"})
    rows = {row["wager"]: row for row in data["rows"]}
    assert set(rows) == {"player", "banker"}
    for seat, row in rows.items():
        assert Fraction(row["a"]["exact"]) == -analyser_means(game, default)[seat]
        assert Fraction(row["b"]["exact"]) == -analyser_means(game, b_rules)[seat]
    assert Fraction(rows["banker"]["difference"]["exact"]) > 0  # the commission is the banker's
    page = ann.http.get(f"/lab?game={game}")
    assert page.status_code == 200 and "Edge against it, A" in page.text
    assert "at a table of its own" not in page.text and 'id="a-commission"' in page.text
    refused = ann.post(f"/api/lab/{game}/table", {"values": {}})
    assert refused.status_code == 404 and "played at seats" in refused.json()["error"]
    # its PAR sheet: the solved coup of the variant
    ask = {"values": {"commission": "1/20"}}
    assert ann.post(f"/api/lab/{game}/par", ask).json()["status"] == "computing"
    assert web.sheets is not None
    web.sheets.wait(timeout=120)
    sheet = ann.post(f"/api/lab/{game}/par", ask).json()
    assert sheet["status"] == "ready" and "commission = &#34;0.05&#34;" in sheet["html"]


@pytest.mark.parametrize(
    ("ask", "message"),
    [
        ({"b": {"tie_pays": "nine"}}, "variant B: 'tie_pays' must be odds"),
        ({"a": {"shoe.decks": "0"}}, "variant A: 'shoe.decks': must be a whole number between 1"),
        ({"a": {"no_such_rule": "1"}}, "variant A: unknown key 'no_such_rule'"),
        ({"a": {"tie_pays": 9}}, "a"),  # not text: the body is refused
        ({"a": {"tie_pays": "9" * 201}}, "a"),
        ({"c": {}}, "c"),
        ({"a": {"tableau.banker": "x"}}, "changed only by a rules file"),
    ],
)
def test_a_value_that_cannot_be_used_is_refused_in_one_line(
    web: Web, ask: dict[str, Any], message: str
) -> None:
    ann = web.person("Ann")
    answer = ann.post(f"/api/lab/{GAME}", ask)
    assert answer.status_code == 422
    error = answer.json()["error"]
    assert message in error and "\n" not in error


def test_opening_the_lab_works_out_the_rules_own_figures(web: Web) -> None:
    """The page starts the figures of the rules as they are (variant A until changed)
    while the person picks a change: the first question finds them known."""
    ann = web.person("Ann")
    ask: dict[str, Any] = {"a": {}, "b": {}}
    first = ann.post(f"/api/lab/{GAME}", ask).json()
    assert first["ready"] is False  # nothing asked before: computing
    web.edges.wait(timeout=120)
    game = "baccarat27"
    assert ann.http.get(f"/lab?game={game}").status_code == 200
    web.edges.wait(timeout=120)
    opened = ann.post(f"/api/lab/{game}", ask).json()
    assert opened["ready"] is True and opened["a"]["status"] == "ready"
    assert {row["wager"] for row in opened["rows"]} == set(
        analyser_means(game, get_game(game).default_rules())
    )


def test_the_lab_is_for_people_signed_in_with_their_token(web: Web) -> None:
    anonymous = web.client()
    page = anonymous.get("/lab", follow_redirects=False)
    assert page.status_code == 303 and page.headers["location"] == "/login?next=/lab"
    assert anonymous.post(f"/api/lab/{GAME}", json={}).status_code == 401
    ann = web.person("Ann")
    assert ann.http.post(f"/api/lab/{GAME}", json={}).status_code == 403  # no CSRF token
    assert ann.post("/api/lab/no-such-game", {}).status_code == 404
    assert ann.http.get("/lab?game=no-such-game").status_code == 404


def test_every_game_reads_back_its_own_form_unchanged() -> None:
    for game in GAMES.values():
        rules = game.default_rules()
        fields = form_fields(rules)
        assert variant(rules, {f.key: f.value for f in fields if f.editable}) == rules
    rules = get_game(GAME).default_rules()
    with pytest.raises(LabError, match="at most"):
        variant(rules, {str(i): "1" for i in range(201)})
    assert compare_edges({"tie": Fraction(-1, 7)}, None)[0].b is None


def _deps_missing() -> str | None:
    """Why WeasyPrint cannot lay a PDF out here (one line), or None if it can."""
    try:
        pdf_bytes("<p>test</p>")
    except ValueError as err:
        return str(err)
    return None


def test_the_workbench_in_a_browser(page: Page, server: Server) -> None:
    register(page)
    page.goto(f"/lab?game={GAME}")
    expect(page.locator("h1")).to_contain_text("The lab")
    expect(page.locator("#b-tie_pays-help")).to_have_text(
        'tie_pays: what the tie wager pays; odds such as "4:5" or 2, between 0:1 and 1000:1'
    )
    # the fields are grouped as the rules pages group them, each control of its type
    groups = page.locator('fieldset[data-side="b"] .lab-group > legend')
    expect(groups).to_have_text(
        ["What each wager pays", "How it is played", "The shoe", "Table limits", "The tableau"]
    )
    decks = page.locator("#b-shoe\\.decks")
    assert (decks.get_attribute("type"), decks.get_attribute("min")) == ("number", "1")
    assert decks.get_attribute("max") == "64"
    assert page.locator("#b-shoe\\.burn_by_first_card").get_attribute("type") == "checkbox"
    # a value changed from the standard rules is marked, and can be put back
    field = page.locator('fieldset[data-side="b"] .lab-field[data-key="player_pays"]')
    page.locator("#b-player_pays").fill("2")
    expect(field).to_have_class(re.compile(r"\bchanged\b"))
    expect(field.locator(".lab-standard")).to_contain_text("Not the standard rules' 1.")
    page.locator("#b-shoe\\.burn_by_first_card").check()
    expect(page.locator('fieldset[data-side="b"] .lab-changed-count')).to_have_text(
        "2 values changed from the standard rules."
    )
    field.get_by_role("button", name="Reset to the standard").click()
    expect(page.locator("#b-player_pays")).to_have_value("1")
    expect(field).not_to_have_class(re.compile(r"\bchanged\b"))
    burn = page.locator('fieldset[data-side="b"] .lab-field[data-key="shoe.burn_by_first_card"]')
    burn.get_by_role("button", name="Reset to the standard").click()
    expect(page.locator("#b-shoe\\.burn_by_first_card")).not_to_be_checked()
    expect(page.locator('fieldset[data-side="b"] .lab-changed-count')).to_have_text(
        "The standard rules."
    )
    page.locator("#b-tie_pays").fill("9")
    page.get_by_role("button", name="Work out the edges").click()
    table = page.locator("#lab-edges")
    expect(table).to_have_attribute("data-status", "ready", timeout=120_000)
    default = get_game(GAME).default_rules()
    b_mean = analyser_means(GAME, apply_rules(default, {"tie_pays": 9}))["tie"]
    tie = table.locator('tr[data-wager="tie"] td')
    expect(tie.nth(1)).to_have_text(f"{percent_text(-b_mean)}%")
    expect(tie.nth(0)).to_have_text(f"{percent_text(-analyser_means(GAME, default)['tie'])}%")

    with page.expect_download() as download:
        page.get_by_role("button", name="Download variant B's rules (TOML)").click()
    saved = download.value.path()
    assert tomllib.loads(saved.read_text())["tie_pays"] == 9

    # the PAR sheet, worked out in a child process of the server
    with page.expect_download(timeout=120_000) as download:
        page.get_by_role("button", name="Download variant B's PAR sheet (HTML)").click()
    assert download.value.suggested_filename == f"{GAME}-variant-b-par.html"
    sheet = download.value.path().read_text()
    assert "tie_pays = 9" in sheet and percent_text(-b_mean) in sheet
    expect(page.locator("#lab-status")).to_have_text("Variant B's PAR sheet is downloaded.")
    if _deps_missing() is None:  # the PDF of the same sheet
        with page.expect_download(timeout=120_000) as download:
            page.get_by_role("button", name="Download variant B's PAR sheet (PDF)").click()
        assert download.value.suggested_filename == f"{GAME}-variant-b-par.pdf"
        assert download.value.path().read_bytes().startswith(b"%PDF-")

    ARTIFACTS.mkdir(exist_ok=True)
    page.set_viewport_size(DESKTOP)
    page.screenshot(path=str(ARTIFACTS / "lab-1280x800.png"), full_page=True)
    page.set_viewport_size(PHONE)
    page.screenshot(path=str(ARTIFACTS / "lab-390x844.png"))
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.set_viewport_size(DESKTOP)

    page.locator("#a-shoe\\.decks").fill("0")
    page.get_by_role("button", name="Work out the edges").click()
    expect(page.locator("#lab-error")).to_contain_text(
        "variant A: 'shoe.decks': must be a whole number between 1 and 64, not 0"
    )

    # variant B kept for a public table (this server deals only those): once an operator
    # put it on one, a round is dealt at its rules, and its page says so
    page.locator("#a-shoe\\.decks").fill("8")
    page.locator("#b-shoe\\.reshuffle_after_rounds").fill("1")  # a new shoe every round
    page.get_by_role("button", name="Keep variant B for a public table").click()
    status = page.locator('.lab-kept[data-side="b"]')
    expect(status).to_contain_text("an operator can put it on a public table")
    kept = re.search(r"kept as ([0-9a-f]{20})", status.inner_text())
    assert kept is not None
    floor = Actor(None, "test operator", "127.0.0.1")
    TableSettings(server.db).publish(floor, GAME, kept[1], "Nines", "the lab's browser test")
    page.goto(f"/play/{GAME}?variant={kept[1]}")
    expect(page.locator("#not-public")).to_have_count(0)
    expect(page.locator("#variant-rules pre")).to_contain_text("tie_pays = 9")
    expect(page.locator('.spot[data-wager="tie"]')).to_contain_text("9:1")
    table = page.locator("#table")
    expect(table).to_have_attribute("data-ready", "true")
    page.locator('.add[data-wager="player"]').click()
    page.get_by_role("button", name="Deal", exact=True).click()
    expect(table).to_have_attribute("data-state", "finished")
    expect(page.locator("#bead-plate .mark")).to_have_count(1)
    expect(page.locator("#reshuffle")).to_have_text(
        "⟳ This shoe's rounds have all been dealt: the next round starts from a freshly "
        "shuffled shoe."
    )
    page.set_viewport_size(DESKTOP)
    page.screenshot(path=str(ARTIFACTS / "lab-variant-table-1280x800.png"))
    page.set_viewport_size(PHONE)
    page.screenshot(path=str(ARTIFACTS / "lab-variant-table-390x844.png"))
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.set_viewport_size(DESKTOP)
    page.goto(f"/play/{GAME}")  # the house's own table: no round dealt there
    expect(page.locator("#table")).to_have_attribute("data-ready", "true")
    expect(page.locator("#bead-plate .mark")).to_have_count(0)
    expect(page.locator("#variant-rules")).to_have_count(0)

    # chemin de fer: each seat's edge at the solved coup
    page.goto("/lab?game=chemin-de-fer")
    page.locator("#b-commission").fill("1/20")
    page.get_by_role("button", name="Work out the edges").click()
    expect(page.locator("#lab-edges")).to_have_attribute("data-status", "ready", timeout=120_000)
    expect(page.locator('#lab-edges tr[data-wager="banker"] td').nth(2)).to_contain_text("%")
    page.screenshot(path=str(ARTIFACTS / "lab-chemin-de-fer-1280x800.png"))

    # a variant the real shoe's count refuses: its line says why, and it has no figures
    page.goto("/lab?game=finnish27")
    for side in ("a", "b"):
        page.locator(f"#{side}-bonus\\.poker_against_dealer").select_option("higher")
    page.get_by_role("button", name="Work out the edges").click()
    expect(page.locator("#lab-edges")).to_have_attribute("data-status", "ready", timeout=120_000)
    expect(page.locator("#lab-status")).to_contain_text(
        "variant A: poker_against_dealer: the real shoe's count keeps no table"
    )
    expect(page.locator("#lab-edges")).to_be_hidden()  # no figures on either side


def test_a_variant_s_par_sheet_is_the_report_s_page(web: Web) -> None:
    ann = web.person("Ann")
    ask = {"values": {"tie_pays": "9"}}
    first = ann.post(f"/api/lab/{GAME}/par", ask)
    assert first.status_code == 200 and first.json()["status"] == "computing"
    assert web.sheets is not None
    web.sheets.wait(timeout=120)
    answer = ann.post(f"/api/lab/{GAME}/par", ask)
    data = answer.json()
    assert data["status"] == "ready", data
    rules = apply_rules(get_game(GAME).default_rules(), {"tie_pays": 9})
    page = data["html"]
    assert page.startswith("<!DOCTYPE html>") and "tie_pays = 9" in page
    assert rules_digest(rules_to_toml(rules)) in page
    assert percent_text(-analyser_means(GAME, rules)["tie"]) in page
    # the same sheet as a PDF (WeasyPrint, in the same background work)
    pdf = ann.post(f"/api/lab/{GAME}/par", {**ask, "format": "pdf"}).json()
    missing = _deps_missing()
    if missing is None:
        from pypdf import PdfReader

        assert pdf["status"] == "ready" and "html" not in pdf
        reader = PdfReader(io.BytesIO(base64.b64decode(pdf["pdf"])))
        texts = [p.extract_text() for p in reader.pages]
        assert all(text.strip() for text in texts)
        assert rules_digest(rules_to_toml(rules)) in "".join(texts).replace("\n", "")
    else:  # one line on what to install
        assert pdf["status"] == "failed" and pdf["error"] == missing
    # and its every exact figure as CSV
    figures = ann.post(f"/api/lab/{GAME}/par", {**ask, "format": "csv"}).json()
    assert figures["status"] == "ready" and "html" not in figures
    lines = figures["csv"].splitlines()
    assert lines[0] == "section,figure,decimal,exact"
    tie = -analyser_means(GAME, rules)["tie"]
    assert f"wager tie,house edge,{rounded_text(tie, 16)},{fraction_text(tie)}" in lines
    assert ann.post(f"/api/lab/{GAME}/par", {**ask, "format": "doc"}).status_code == 422
    # a value that cannot be used: one line, and nothing worked out
    bad = ann.post(f"/api/lab/{GAME}/par", {"values": {"tie_pays": "nine"}})
    assert bad.status_code == 422 and "'tie_pays' must be odds" in bad.json()["error"]
    assert ann.http.post(f"/api/lab/{GAME}/par", json=ask).status_code == 403  # no CSRF token
    assert ann.post(f"/api/lab/{GAME}/par", {"values": {}, "other": 1}).status_code == 422


def test_variants_cannot_pile_up_work_without_end(
    web: Web, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("cardroom.web.edges.MAX_WAITING", 0)  # the analyser counts as busy
    ann = web.person("Ann")
    answer = ann.post(f"/api/lab/{GAME}", {"b": {"tie_pays": "10"}})
    assert answer.status_code == 503 and answer.headers["Retry-After"] == "5"
    assert answer.json()["error"] == "the analyser is busy: ask again in a moment"
    assert ann.http.get(f"/api/games/{GAME}/edges").status_code == 200  # the tables' own: never


def test_the_inventors_options_are_in_the_form_with_their_choices() -> None:
    for game in GAMES.values():
        fields = {f.key: f for f in form_fields(game.default_rules())}
        choices = {f.name: f.about.choices for f in rule_fields(type(game.default_rules()))}
        for name, options in choices.items():  # every choice, at its default or not
            if not options:
                continue
            assert fields[name].help == "one of " + ", ".join(options)
        if "player_over" in choices:
            rules = variant(game.default_rules(), {"player_over": "loses", "fee_per_100": "1"})
            assert (rules.player_over, rules.fee_per_100) == ("loses", 1)


def test_every_field_of_every_game_says_what_it_means() -> None:
    """Each value of a game's rules has its words (said beside its field, with the rest
    of it), which the form shows beside its range."""
    for game in GAMES.values():
        for f in form_fields(game.default_rules()):
            assert f.words, f"{game.id}: {f.key} has no words"
    fields = {f.key: f for f in form_fields(get_game("finnish27").default_rules())}
    assert fields["jo_jo_27"].words == (
        "two Jokers as the first two cards (Jo Jo) are an initial 27"
    )
    assert fields["shoe.decks"].words == "the number of 52-card decks in the shoe"


def test_a_variant_the_real_shoe_cannot_count_says_so(web: Web) -> None:
    """The poker award held against the dealer's hand in finnish27: the lab's edges
    come back as the analyser's one-line refusal, not a wrong figure."""
    ann = web.person("Ann")
    against = {"bonus.poker_against_dealer": "higher"}
    ask = {"a": against, "b": {**against, "both_27": "stalemate"}}
    assert ann.post("/api/lab/finnish27", ask).status_code == 200
    web.edges.wait(timeout=300)
    answer = ann.post("/api/lab/finnish27", ask)
    assert answer.status_code == 200, answer.text
    data = answer.json()
    for side in ("a", "b"):
        assert data[side]["status"] == "failed"
        assert data[side]["error"].startswith("poker_against_dealer: the real shoe's count")
        assert "\n" not in data[side]["error"]
    assert all(row["b"] is None and row["difference"] is None for row in data["rows"])
