"""punto-banco and baccarat27 at the terminal: play, the bead plate, history and ``rounds``."""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from cardroom.terminal import render
from cardroom.terminal.cli import app
from cardroom.terminal.prompts import BetError, abbreviation, match_wager, parse_bet, wagers_text
from tests.bank import balance, count, nets, stored, wagers

runner = CliRunner()

B27_WAGERS = ("player", "banker", "tie", "player_pair", "banker_pair", "b27")

# Cards go player, banker, player, banker, then the third cards.
NATURAL = "9h 3c Kd 2s"  # player 9 (natural) against banker 5
BOTH_DRAW = "2h 3c Kd 2s 4d 5c"  # player 2 draws 4 -> 6; banker 5 draws on a 4 -> 0
BANKER_STANDS_ON_3 = "2h 3c Kd Ks 8d"  # player 2 draws 8 -> 0; banker 3 stands on an 8
PLAYER_STANDS = "6h 3c Kd 2s 4c"  # player stands on 6; banker 5 draws 4 -> 9
TIE = "4s 2h 8c 3d 5s 2d"  # player 4 8 5 = 7, banker 2 3 2 = 7
PAIRS = "5h 4c 5s 4d"  # player 5 5 = 0, banker 4 4 = natural 8: both pairs
BANKER_7 = "Kh 3c Qd 4s 5h"  # player 0 draws 5 -> 5; banker 7 stands: banker wins with 7
BANKER_2 = "Kh 2c Qd Ks Jc Qs"  # player 0 draws 0; banker 2 draws 0: banker wins with 2


def run(*args: str, input: str | None = None) -> Result:
    return runner.invoke(app, list(args), input=input)


def play(bank: Path, game: str, *extra: str, input: str) -> Result:
    return run("play", game, "--bankroll-file", str(bank), "--delay", "0", *extra, input=input)


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def lab(game: str, *lines: str, rules: Path | None = None) -> list[dict[str, Any]]:
    extra = [] if rules is None else ["--rules", str(rules)]
    result = run("rounds", game, *extra, input="".join(f"{line}\n" for line in lines))
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


@pytest.fixture
def bank(tmp_path: Path) -> Path:
    return tmp_path / "bankroll.sqlite3"


# -- the bead plate, as a pure function --------------------------------------------------
OUTCOMES_8 = ["player", "banker", "banker", "tie", "player", "player", "banker", "player"]


def test_eight_outcomes_make_two_columns_of_six() -> None:
    plate = render.bead_plate(OUTCOMES_8)
    assert plate.plain.split("\n") == ["P B", "B P", "B ·", "T ·", "P ·", "P ·"]


@pytest.mark.parametrize(
    ("size", "columns"), [(0, 1), (1, 1), (6, 1), (7, 2), (12, 2), (13, 3), (80, 14)]
)
def test_the_plate_grows_a_column_every_six_rounds(size: int, columns: int) -> None:
    rows = render.bead_plate(["banker"] * size).plain.split("\n")
    assert len(rows) == 6
    assert all(len(row.split(" ")) == columns for row in rows)
    assert "".join(rows).count("B") == size


def test_the_marks_are_coloured_player_blue_banker_red_tie_green() -> None:
    plate = render.bead_plate(["player", "banker", "tie"])
    styles = {plate.plain[span.start : span.end]: str(span.style) for span in plate.spans}
    assert "blue" in styles["P"] and "red" in styles["B"] and "green" in styles["T"]


def test_a_compact_plate_keeps_the_latest_columns() -> None:
    outcomes = ["player"] * 6 + ["banker"] * 6 + ["tie"] * 2
    rows = render.bead_plate(outcomes, max_columns=2).plain.split("\n")
    assert rows == ["… B T", "… B T", "… B ·", "… B ·", "… B ·", "… B ·"]
    assert render.bead_plate(outcomes, max_columns=3).plain == render.bead_plate(outcomes).plain


def test_the_bead_board_titles_and_counts() -> None:
    board = render.bead_board(OUTCOMES_8, 3, indent="")
    assert board.plain.split("\n") == [
        "P B   Bead plate · shoe 3",
        "B P   P 4 · B 3 · T 1",
        "B ·",
        "T ·",
        "P ·",
        "P ·",
    ]
    assert render.bead_counts([]).plain == "P 0 · B 0 · T 0"
    assert render.has_bead_plate(("player", "banker", "tie"))
    assert not render.has_bead_plate(("player", "dealer", "push"))


# -- bets --------------------------------------------------------------------------------
def test_baccarat_short_forms() -> None:
    assert [abbreviation(w, B27_WAGERS) for w in B27_WAGERS] == ["p", "b", "t", "pp", "bp", "b27"]
    assert wagers_text(B27_WAGERS) == (
        "player (p), banker (b), tie (t), player_pair (pp), banker_pair (bp), b27"
    )
    assert parse_bet("p 10 b 20 t 5 pp 10 bp 10 b27 15", B27_WAGERS) == {
        "player": 10,
        "banker": 20,
        "tie": 5,
        "player_pair": 10,
        "banker_pair": 10,
        "b27": 15,
    }
    assert match_wager("B-27", B27_WAGERS) == "b27"
    assert match_wager("Banker-Pair", B27_WAGERS) == "banker_pair"
    # the Finnish games keep their short forms
    assert [abbreviation(w, ("player", "dealer", "push")) for w in ("player", "push")] == [
        "p",
        "pu",
    ]


def test_a_side_wager_of_another_table_is_named() -> None:
    with pytest.raises(BetError, match="player_pair is not offered at this table"):
        parse_bet("pp 10", ("player", "banker", "tie"), B27_WAGERS)
    with pytest.raises(BetError, match="this game has no wager 'x'"):
        parse_bet("x 10", ("player", "banker", "tie"), B27_WAGERS)


# -- play and rounds on the same cards ---------------------------------------------------
def test_a_punto_banco_round_through_play_and_rounds(bank: Path, tmp_path: Path) -> None:
    stack = write(tmp_path / "pb.txt", f"# banker 7 against player 5\n{BANKER_7}\n")
    result = play(bank, "punto-banco", "--stack", str(stack), input="p 10 b 10 t 10\n")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "wagers: player (p), banker (b), tie (t)" in out
    for shown in ("13♥", "3♣", "12♦", "4♠", "5♥"):
        assert shown in out
    assert "Kh" not in out and "Qd" not in out  # machine codes are not shown
    assert "Player 13♥ 12♦  0" in out and "Banker 3♣ 4♠  7" in out
    assert "Player draws on 0 (0-5)" in out
    assert "Player 13♥ 12♦ 5♥  5" in out
    assert "Banker stands on 7 when the player's third card is a 5" in out
    assert "Banker wins: banker's 7 beats player's 5" in out
    assert "Bet on banker 10: +9.50 (banker pays 19:20)" in out
    assert "Bet on player 10: -10 (banker won)" in out
    assert "Bet on tie 10: -10 (no tie)" in out
    assert "Bankroll 1000 → 989.50 (-10.50)" in out
    assert "Bead plate · shoe 1" in out and "P 0 · B 1 · T 0" in out
    assert balance(bank) == Fraction(1979, 2)

    [saved] = stored(bank)
    [line] = lab("punto-banco", BANKER_7)
    assert line["outcome"] == saved["outcome"] == "banker"
    assert line["net"] == {"player": -10, "banker": "9.5", "tie": -10}
    assert nets(saved) == {"player": -10, "banker": Fraction(19, 2), "tie": -10}
    assert line["player"] == ["Kh", "Qd", "5h"] and line["banker"] == ["3c", "4s"]
    assert saved["cards"] == ["Kh", "3c", "Qd", "4s", "5h"]


def test_a_baccarat27_round_through_play_and_rounds(bank: Path, tmp_path: Path) -> None:
    stack = write(tmp_path / "b27.txt", BANKER_2)
    bets = "p 10 b 10 t 10 pp 10 bp 10 b27 10\n"
    result = play(bank, "baccarat27", "--stack", str(stack), input=bets)
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "player_pair (pp), banker_pair (bp), b27" in out
    assert "Banker draws on 2 when the player's third card is a 0" in out
    assert "Banker wins: banker's 2 beats player's 0" in out
    assert "Bet on banker 10: +20 (banker pays 2:1)" in out
    assert "Bet on B-27 10: +80 (banker won with 2: B-27 pays 8:1)" in out
    assert "Bet on player pair 10: -10 (no player pair)" in out
    assert "Bankroll 1000 → 1060 (+60)" in out
    [saved] = stored(bank)
    [line] = lab("baccarat27", BANKER_2)
    assert line["outcome"] == saved["outcome"] == "banker"
    assert line["net"] == nets(saved)
    assert line["net"] == {
        "player": -10,
        "banker": 20,
        "tie": -10,
        "player_pair": -10,
        "banker_pair": -10,
        "b27": 80,
    }
    assert balance(bank) == Fraction(1060)


def test_several_wagers_in_one_baccarat27_round(bank: Path, tmp_path: Path) -> None:
    stack = write(tmp_path / "pairs.txt", PAIRS)
    bets = "b 10 pp 20 bp 10 b27 15 t 10 p 10\n"
    result = play(bank, "baccarat27", "--stack", str(stack), input=bets)
    assert result.exit_code == 0, result.output
    out = result.stdout
    # too long for the round's rule line: the bets get a line of their own
    assert "Bets: banker 10, player_pair 20, banker_pair 10, b27 15, tie 10, player 10\n" in out
    assert "…" not in out
    assert "Banker wins: banker's natural 8 beats player's 0" in out
    assert "draws" not in out and "stands" not in out  # a natural: nobody draws
    assert "Bet on player pair 20: +220 (player pair pays 11:1)" in out
    assert "Bet on banker pair 10: +110 (banker pair pays 11:1)" in out
    assert "Bet on banker 10: +10 (banker pays 1:1)" in out
    assert "Bet on B-27 15: -15 (the banker did not win with 2 or 7)" in out
    assert "Bet on tie 10: -10" in out and "Bet on player 10: -10" in out
    [saved] = stored(bank)
    net = nets(saved)
    assert net == {
        "banker": 10,
        "player_pair": 220,
        "banker_pair": 110,
        "b27": -15,
        "tie": -10,
        "player": -10,
    }
    assert 1000 + sum(net.values()) == saved["round_net"] + 1000 == balance(bank) == 1305
    assert "Bankroll 1000 → 1305 (+305)" in out


def test_enter_repeats_a_several_wager_bet(bank: Path) -> None:
    result = play(bank, "baccarat27", "--seed", "5", input="b 10 b27 10 pp 10\n\n\nq\n")
    assert result.exit_code == 0, result.output
    assert "Enter = b 10 b27 10 pp 10 again" in result.stdout  # the short forms fit in 80
    long = play(bank, "baccarat27", "--seed", "5", input="b 10 pp 10 bp 10 b27 10 t 10\nq\n")
    assert "(Enter = b 10 pp 10 bp 10 b27 10 t 10 again · s beads" in long.stdout
    rounds = stored(bank)
    assert len(rounds) == 4
    assert all(wagers(r) == {"banker": 10, "b27": 10, "player_pair": 10} for r in rounds[:3])
    assert balance(bank) == 1000 + sum(r["round_net"] for r in rounds)


# -- bad input: asked again, nothing changes ---------------------------------------------
@pytest.mark.parametrize(
    ("game", "line", "message"),
    [
        ("baccarat27", "x 10", "this game has no wager 'x'"),
        ("baccarat27", "pp", "write each bet as a wager and a stake"),
        ("baccarat27", "b 5", "stake on banker is below the table minimum of 10"),
        ("baccarat27", "b 10 pp 1001", "stake on player_pair is above the table maximum of 1000"),
        ("baccarat27", "b 500 p 400 b27 200", "the stakes (1100) are more than your balance"),
        ("baccarat27", "bp 10 banker_pair 10", "banker_pair is named twice"),
        ("baccarat27", "b27 lots", "'lots' is not a stake for b27"),
        ("punto-banco", "pp 10", "player_pair is not offered at this table"),
        ("punto-banco", "b 10 b27 10", "b27 is not offered at this table"),
        ("punto-banco", "t 0", "stake on tie must be positive"),
        ("punto-banco", "", "there is no last bet to repeat"),
    ],
)
def test_bad_bets_are_refused_and_change_nothing(
    bank: Path, game: str, line: str, message: str
) -> None:
    result = play(bank, game, "--seed", "1", input=f"{line}\nq\n")
    assert result.exit_code == 0, result.output
    assert message in result.stdout
    assert result.stdout.count("Your bets") == 2  # asked again after the refusal
    assert "Round 1" not in result.stdout
    assert balance(bank) == Fraction(1000) and count(bank) == 0


def test_a_refused_bet_then_a_good_one(bank: Path, tmp_path: Path) -> None:
    stack = write(tmp_path / "tie.txt", TIE)
    result = play(bank, "punto-banco", "--stack", str(stack), input="pp 10\nb 2\nt 10 b 10\n")
    assert result.exit_code == 0, result.output
    assert "Tie: both hands total 7" in result.stdout
    assert "Bet on tie 10: +80 (tie pays 8:1)" in result.stdout
    assert "Bet on banker 10: ±0 (a tie returns the wager)" in result.stdout
    assert balance(bank) == Fraction(1080) and count(bank) == 1


def test_a_rules_variant_can_offer_pairs_at_punto_banco(bank: Path, tmp_path: Path) -> None:
    rules = write(tmp_path / "pairs.toml", 'side_wagers = ["player_pair", "banker_pair"]\n')
    stack = write(tmp_path / "pairs.txt", PAIRS)
    result = play(
        bank, "punto-banco", "--rules", str(rules), "--stack", str(stack), input="pp 10\n"
    )
    assert result.exit_code == 0, result.output
    assert "player_pair (pp), banker_pair (bp)" in result.stdout
    assert "Bet on player pair 10: +110" in result.stdout
    [line] = lab("punto-banco", PAIRS, rules=rules)
    assert line["net"] == {
        "player": -10,
        "banker": "9.5",
        "tie": -10,
        "player_pair": 110,
        "banker_pair": 110,
    }


# -- the bead plate at the table ---------------------------------------------------------
PLATE_TITLE = re.compile(r"^  (?P<cells>.*?)   Bead plate · shoe (?P<shoe>\d+)$")
MARK = {"P": "player", "B": "banker", "T": "tie"}
OUTCOME_LINE = re.compile(r"^  (Player wins|Banker wins|Tie):")


def plates(out: str) -> list[tuple[int, list[str], str]]:
    """Every bead plate shown: (shoe, its outcomes top to bottom, left to right, counts)."""
    lines = [line.rpartition("› ")[2] for line in out.splitlines()]
    found = []
    for i, line in enumerate(lines):
        title = PLATE_TITLE.match(line)
        if title is None:
            continue
        width = len(title["cells"])
        rows = [row[2 : 2 + width].ljust(width) for row in lines[i : i + 6]]
        cells = [row[c] for c in range(0, width, 2) for row in rows]
        assert set(cells) <= {*MARK, "·"}
        counts = lines[i + 1][2 + width :].strip()
        found.append((int(title["shoe"]), [MARK[c] for c in cells if c in MARK], counts))
    return found


def test_the_bead_plate_follows_the_shoe_and_starts_again_after_a_reshuffle(
    bank: Path, tmp_path: Path
) -> None:
    rules = write(tmp_path / "small.toml", "[shoe]\ndecks = 1\nreshuffle_after = 20\n")
    bets = "s\nb 10\n" + "\n" * 7 + "beads\nq\n"
    result = play(bank, "punto-banco", "--seed", "3", "--rules", str(rules), input=bets)
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "`s` bead plate" in out and "s beads" in out
    assert "The bead plate is empty" in out  # `s` before the first round
    assert "The shoe is reshuffled (reshuffle point reached; shoe 2)" in out
    # a shoe reshuffled after so many cards dealt, not by a cut card: the plate says so
    assert "reshuffle point reached: the next round starts a new shoe" in out
    assert "cut card out" not in out
    shown = plates(out)
    after_rounds, command = shown[:-1], shown[-1]
    assert len(after_rounds) == count(bank) == 8
    winners = [MARK[m[1][0]] for m in (OUTCOME_LINE.match(line) for line in out.splitlines()) if m]
    saved = stored(bank)
    assert winners == [r["outcome"] for r in saved]
    plate: list[str] = []
    record_shoe = 0
    for i, ((shoe, beads, counts), record) in enumerate(zip(after_rounds, saved, strict=True)):
        record_shoe += any(e["event"] == "reshuffled" for e in record["events"])
        assert shoe == record_shoe
        if i and shoe != after_rounds[i - 1][0]:
            plate = []  # a new shoe: the plate starts again
        plate.append(record["outcome"])
        assert beads == plate
        assert counts == " · ".join(f"{mark} {plate.count(name)}" for mark, name in MARK.items())
    assert [s for s, _, _ in after_rounds] == [1, 1, 1, 1, 2, 2, 2, 2]
    assert len(after_rounds[4][1]) == 1  # the new shoe's plate starts empty
    assert command[:2] == after_rounds[-1][:2]  # `beads` shows the current shoe's plate


def test_a_burnt_first_card_is_shown_by_its_finnish_index(bank: Path, tmp_path: Path) -> None:
    rules = write(tmp_path / "burn.toml", "[shoe]\nburn_by_first_card = true\n")
    result = play(bank, "punto-banco", "--seed", "2", "--rules", str(rules), input="b 10\nq\n")
    assert result.exit_code == 0, result.output
    turned = re.search(r"The shoe is shuffled \(new shoe; first card (\S+) turned", result.stdout)
    assert turned is not None and turned[1] == "12♥"  # the Queen of hearts, not `Qh`


def test_finnish_games_have_no_bead_plate(bank: Path) -> None:
    result = play(bank, "finnish27", "--seed", "1", input="p 10\ns\nq\n")
    assert "Bead plate" not in result.stdout and "s beads" not in result.stdout
    assert "write each bet as a wager and a stake" in result.stdout  # `s` is no command here


# -- history -----------------------------------------------------------------------------
def test_history_shows_baccarat_rounds(bank: Path, tmp_path: Path) -> None:
    play(bank, "punto-banco", "--stack", str(write(tmp_path / "a", BOTH_DRAW)), input="b 20\n")
    play(bank, "baccarat27", "--stack", str(write(tmp_path / "b", BANKER_7)), input="b27 10\n")
    result = run("history", "--bankroll-file", str(bank))
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert out.index("punto-banco") < out.index("baccarat27")
    assert "Player draws on 2 (0-5)" in out
    assert "Banker draws on 5 when the player's third card is a 4" in out
    assert "Player wins: player's 6 beats banker's 0" in out
    assert "Bet on banker 20: -20 (player won)" in out
    assert "Bet on B-27 10: +80 (banker won with 7: B-27 pays 8:1)" in out
    assert "13♥ 12♦ 5♥" in out
    assert "Net -20 (staked 20, paid back 0)" in out and "Net +80 (staked 10, paid back 90)" in out
    only = run("history", "--bankroll-file", str(bank), "--game", "baccarat27", "--json")
    [record] = [json.loads(line) for line in only.stdout.splitlines()]
    assert nets(record["record"]) == {"b27": 80} and record["net"] == "80"


# -- the rounds tool ---------------------------------------------------------------------
def test_rounds_records_every_offered_wager_at_the_minimum() -> None:
    [pb] = lab("punto-banco", NATURAL)
    [b27] = lab("baccarat27", NATURAL)
    assert list(pb)[:6] == ["line", "outcome", "player", "banker", "totals", "bonus"]
    assert list(pb["net"]) == ["player", "banker", "tie"]
    assert list(b27["net"]) == list(B27_WAGERS)


@pytest.mark.parametrize(
    ("game", "cards", "outcome", "totals", "decisions", "net"),
    [
        pytest.param(
            "punto-banco",
            NATURAL,
            "player",
            (9, 5),
            [],
            {"player": 10, "banker": -10, "tie": -10},
            id="natural",
        ),
        pytest.param(
            "punto-banco",
            BOTH_DRAW,
            "player",
            (6, 0),
            [("player", "hit"), ("banker", "hit")],
            {"player": 10, "banker": -10, "tie": -10},
            id="player-draws-banker-draws-by-the-tableau",
        ),
        pytest.param(
            "punto-banco",
            BANKER_STANDS_ON_3,
            "banker",
            (0, 3),
            [("player", "hit"), ("banker", "stand")],
            {"player": -10, "banker": "9.5", "tie": -10},
            id="banker-3-stands-on-an-8",
        ),
        pytest.param(
            "punto-banco",
            PLAYER_STANDS,
            "banker",
            (6, 9),
            [("player", "stand"), ("banker", "hit")],
            {"player": -10, "banker": "9.5", "tie": -10},
            id="player-stands-banker-draws",
        ),
        pytest.param(
            "punto-banco",
            TIE,
            "tie",
            (7, 7),
            [("player", "hit"), ("banker", "hit")],
            {"player": 0, "banker": 0, "tie": 80},
            id="tie",
        ),
        pytest.param(
            "punto-banco",
            BANKER_7,
            "banker",
            (5, 7),
            [("player", "hit"), ("banker", "stand")],
            {"player": -10, "banker": "9.5", "tie": -10},
            id="punto-banco-banker-19-20",
        ),
        pytest.param(
            "baccarat27",
            PAIRS,
            "banker",
            (0, 8),
            [],
            {
                "player": -10,
                "banker": 10,
                "tie": -10,
                "player_pair": 110,
                "banker_pair": 110,
                "b27": -10,
            },
            id="pairs",
        ),
        pytest.param(
            "baccarat27",
            TIE,
            "tie",
            (7, 7),
            [("player", "hit"), ("banker", "hit")],
            {
                "player": 0,
                "banker": 0,
                "tie": 80,
                "player_pair": -10,
                "banker_pair": -10,
                "b27": -10,
            },
            id="baccarat27-tie",
        ),
        pytest.param(
            "baccarat27",
            BANKER_7,
            "banker",
            (5, 7),
            [("player", "hit"), ("banker", "stand")],
            {
                "player": -10,
                "banker": 5,
                "tie": -10,
                "player_pair": -10,
                "banker_pair": -10,
                "b27": 80,
            },
            id="b27-banker-wins-with-7",
        ),
        pytest.param(
            "baccarat27",
            BANKER_2,
            "banker",
            (0, 2),
            [("player", "hit"), ("banker", "hit")],
            {
                "player": -10,
                "banker": 20,
                "tie": -10,
                "player_pair": -10,
                "banker_pair": -10,
                "b27": 80,
            },
            id="b27-banker-wins-with-2",
        ),
    ],
)
def test_rounds_outcomes_and_exact_nets(
    game: str,
    cards: str,
    outcome: str,
    totals: tuple[int, int],
    decisions: list[tuple[str, str]],
    net: dict[str, int | str],
) -> None:
    [line] = lab(game, cards)
    codes = cards.split()
    assert line["outcome"] == outcome
    assert line["totals"] == {"player": totals[0], "banker": totals[1]}
    assert line["player"][:2] == codes[0:4:2] and line["banker"][:2] == codes[1:4:2]
    assert sorted(line["player"] + line["banker"]) == sorted(codes)
    assert [(d["hand"], d["action"]) for d in line["decisions"]] == decisions
    assert all(d["forced"] for d in line["decisions"])
    assert line["net"] == net


def test_rounds_stops_at_a_short_line() -> None:
    result = run("rounds", "baccarat27", input=f"{NATURAL}\n9h 3c Kd\n")
    assert result.exit_code == 2
    assert len(result.stdout.splitlines()) == 1
    assert result.stderr == "error: line 2: the round needs more cards than the 3 given\n"


def test_a_round_limit_is_said_on_the_plate_and_in_the_reshuffle(
    bank: Path, tmp_path: Path
) -> None:
    rules = write(tmp_path / "two.toml", "[shoe]\nreshuffle_after_rounds = 2\n")
    result = play(bank, "punto-banco", "--seed", "3", "--rules", str(rules), input="p 10\n\n\nq\n")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "the shoe's rounds all dealt: the next round starts a new shoe" in out
    assert "The shoe is reshuffled (the shoe's rounds were all dealt; shoe 2)" in out
