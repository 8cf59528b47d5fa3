"""chemin-de-fer at the terminal: you (or several people) and bots, through CliRunner.

Stacked shoes make every coup exact.  The first cards are the draw for the bank, one per
seat in seat order (the highest rank takes the bank, Ace low); then each coup deals player,
banker, player, banker and any third cards.  Seats by default: You (1), Colette, Henri and
Sylvie (bots with 1000 each).  A bot banks 30, calls "Banco" on a bank up to 200 when it
may, and otherwise stakes what the bank still needs, 10 to 20; the bot banker draws by the
casino tableau and a bot player always draws at 5.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from rich.console import Console
from rich.text import Text
from typer.testing import CliRunner, Result

from cardroom.app.wallet import Wallet
from cardroom.core.cards import parse_cards
from cardroom.core.events import CoupEvent, event_from_json, event_to_json
from cardroom.core.shoe import StackedShoe
from cardroom.games import get_game
from cardroom.games.base import IllegalAction
from cardroom.games.chemin_de_fer import ChemmyGame
from cardroom.games.chemin_de_fer.engine import visible
from cardroom.storage import Database
from cardroom.terminal.chemmy import ChemmyPlay
from cardroom.terminal.cli import app
from tests.bank import balance, nets, stored

runner = CliRunner()

# The draw for the bank with Sylvie (seat 4) on a King: she banks 30, and you are first to
# cover it.  With You on the King instead, you hold the first bank.
SYLVIE_BANKS = "2h 3h 4h Ks"
YOU_BANK = "Ks 2h 3h 4h"
CLEARED = "screen cleared"


def play(bank: Path, tmp_path: Path, cards: str, *extra: str, input: str) -> Result:
    stack = tmp_path / "stack.txt"
    stack.write_text(cards + "\n", encoding="utf-8")
    args = ["play", "chemin-de-fer", "--bankroll-file", str(bank), "--delay", "0"]
    return runner.invoke(app, [*args, "--stack", str(stack), *extra], input=input)


def finnish(codes: str) -> list[str]:
    return [card.finnish for card in parse_cards(codes)]


def before(out: str, marker: str) -> str:
    """The output up to the first line holding ``marker`` (which must be there)."""
    assert marker in out, out
    return out[: out.index(marker)]


@pytest.fixture
def bank(tmp_path: Path) -> Path:
    return tmp_path / "bankroll.sqlite3"


# -- you as a punter ------------------------------------------------------------------------
def test_a_coup_as_a_punter_from_stake_to_bankroll(bank: Path, tmp_path: Path) -> None:
    # You stake 20 and Colette 10 against Sylvie's 30: your 20 is the largest, so you hold
    # the player's hand: 1♥ 2♦ = 3 must draw, 5♣ makes 8; Sylvie's 13♣ 6♠ = 6 stands.
    result = play(bank, tmp_path, f"{SYLVIE_BANKS}  Ah Kc 2d 6s 5c", input="20\n")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Seats: 1 You (bankroll 1000) · 2 Colette (bot) · 3 Henri (bot) · 4 Sylvie (bot)" in out
    assert "each bot has 1000 for this session only" in out
    assert "→ Sylvie draws the highest card (13♠) and takes the bank" in out
    assert "Coup 1 · Sylvie holds the bank" in out
    assert "Sylvie puts up a bank of 30" in out
    assert "Sylvie's bank of 30: 30 to cover · your stack 1000" in out
    assert "Cover (banco · an amount 10-1000 · Enter = pass" in out
    assert "You stake 20" in out and "Colette stakes 10" in out
    assert "You hold the player's hand (stake 20)" in out
    assert "Player (You)      1♥ 2♦  3" in out
    assert "Player draws on 3 (must draw on 0-4)" in out
    assert "Player (You)      1♥ 2♦ 5♣  8" in out
    assert "Sylvie stands (banker)" in out
    assert "You show the player's hand: 1♥ 2♦ 5♣ = 8" in out
    assert "Sylvie shows the banker's hand: 13♣ 6♠ = 6" in out
    assert "Player wins: player's 8 beats banker's 6" in out
    assert "You: +20 on 20 (the bank pays 1:1)" in out
    assert "Colette: +10 on 10 (the bank pays 1:1)" in out
    assert "Sylvie (bank): -30 on 30 (the bank pays every stake)" in out
    assert "→ The bank passes to you" in out
    assert "Stacks: You 1020 (bank) · Colette 1010 · Henri 1000 · Sylvie 970" in out
    assert "Your stack 1000 → 1020 (+20)" in out
    assert "P 1 · B 0 · T 0" in out  # the bead plate
    assert "The stacked shoe has no cards left" in out
    assert "Goodbye! Your bankroll is 1020 (1 coup played; everything is saved)." in out
    assert balance(bank) == 1020
    [record] = stored(bank)
    assert record["game"] == "chemin-de-fer" and record["round_net"] == 0  # no money moved
    assert record["start"]["coup"] == 1 and record["outcome"] == "player"
    assert record["seats"] == ["You", "Colette", "Henri", "Sylvie"]
    assert nets(record) == {"stake": 20}  # your 20 won 20
    shown = {e["hand"]: e["total"] for e in record["events"] if e["event"] == "shown"}
    assert shown == {"player": 8, "banker": 6}


def test_a_bots_face_down_cards_never_show_before_the_hands_are_shown(
    bank: Path, tmp_path: Path
) -> None:
    result = play(bank, tmp_path, f"{SYLVIE_BANKS}  Ah Kc 2d 6s 5c", input="20\n")
    out = result.stdout
    hidden = before(out, "Sylvie shows the banker's hand")
    for card in finnish("Kc 6s"):
        assert card not in hidden
    assert "Banker (Sylvie)   [?] [?]" in hidden
    for code in ("Kc", "6s", "Ah", "2d", "5c"):  # machine codes are never shown
        assert code not in out


def test_your_choice_at_5(bank: Path, tmp_path: Path) -> None:
    # your 2♠ 3♦ = 5 is yours to play: you stand; Sylvie's 13♣ 6♠ = 6 stands and wins
    result = play(bank, tmp_path, f"{SYLVIE_BANKS}  2s Kc 3d 6s", input="20\nx\nstand\n")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Your hand as the player: 2♠ 3♦ = 5 · the player may draw or stand on 5" in out
    assert "'x' is not a move: type d to draw a third card or s to stand" in out
    assert out.count("Draw or stand?") == 2
    assert "Player stands on 5 (may draw or stand on 5)" in out
    assert "Banker wins: banker's 6 beats player's 5" in out
    for card in finnish("Kc 6s"):
        assert card not in before(out, "Sylvie shows the banker's hand")
    assert "Your stack 1000 → 980 (-20)" in out
    assert balance(bank) == 980


def test_banco_by_you(bank: Path, tmp_path: Path) -> None:
    # you call "Banco" on Sylvie's 30: nobody else stakes; your natural 9 wins at once
    result = play(bank, tmp_path, f"{SYLVIE_BANKS}  9h 5c Kd 2s", input="banco\n")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert 'You call "Banco!": you cover the whole bank of 30' in out
    assert "Colette" not in before(out, "Sylvie shows").split("Coup 1")[1]  # nobody else
    assert "You show the player's hand: 9♥ 13♦ = 9" in out
    assert "Player wins: player's natural 9 beats banker's 7" in out
    assert "Draw or stand?" not in out  # a natural ends the deal
    assert "Your stack 1000 → 1030 (+30)" in out
    assert balance(bank) == 1030


# -- you as the banker ----------------------------------------------------------------------
def test_a_coup_as_the_banker_with_your_draw(bank: Path, tmp_path: Path) -> None:
    # your bank of 50: Colette calls "Banco", draws at 5 (2♣ 3♣) and gets 9♦: 4; your
    # 4♥ 12♦ = 4, you draw 3♠: 7 wins
    cards = f"{YOU_BANK}  2c 4h 3c Qd 9d 3s"
    result = play(bank, tmp_path, cards, input="abc\n5\n2000\n50\nd\n")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "→ You draw the highest card (13♠) and take the bank" in out
    assert "Coup 1 · You hold the bank" in out
    assert "Next coup" not in out  # your bank prompt is the pause
    assert "Your stack 1000 · a bank of 10 to 1000" in out
    assert "Your bank (Enter = 10 · an amount · pass · ? help · q leave)" in out
    assert "'abc' is not a bank: type an amount, Enter for 10, or pass" in out
    assert "a bank of 5 is below the table minimum of 10" in out
    assert "You cannot put up 2000: the stack is 1000" in out
    assert out.count("Your bank (") == 4
    assert "You put up a bank of 50" in out
    assert 'Colette calls "Banco!": covers the whole bank of 50' in out
    assert "Colette draws (player)" in out
    assert "Player (Colette)  [?] [?] 9♦" in out
    assert (
        "Your hand as the banker: 4♥ 12♦ = 4 · the banker draws or stands freely on 4 "
        "(the player's third card is 9♦)"
    ) in out
    assert "Banker draws on 4 by choice (the player's third card is 9♦)" in out
    assert "Banker (You)      4♥ 12♦ 3♠  7" in out
    for card in finnish("2c 3c"):
        assert card not in before(out, "Colette shows the player's hand")
    assert "Banker wins: banker's 7 beats player's 4" in out
    assert "You (bank): +50 on 50 (the banker collects every stake)" in out
    assert "→ You keep the bank" in out
    assert "Your stack 1000 → 1050 (+50)" in out
    assert balance(bank) == 1050


def test_enter_puts_up_the_suggested_bank_and_a_bank_can_be_passed(
    bank: Path, tmp_path: Path
) -> None:
    # coup 1: your 10 (Enter) wins with a natural 8; coup 2: Enter is the whole bank plus
    # the win (20); you pass the bank and Colette's bank of 30 is Henri's Banco
    cards = f"{YOU_BANK}  2c 4h 3c 4d  9s 5c Kd Kh"
    result = play(bank, tmp_path, cards, input="\npass\n")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "You put up a bank of 10" in out
    assert "Banker wins: banker's natural 8 beats player's 5" in out
    assert "Your bank (Enter = 20 · an amount · pass" in out
    assert "You pass the bank" in out and "→ The bank passes to Colette" in out
    assert "Colette puts up a bank of 30" in out
    assert 'Henri calls "Banco!"' in out
    assert "Player wins: player's natural 9 beats banker's 5" in out
    assert balance(bank) == 1010
    assert [sum(nets(r).values(), Fraction(0)) for r in stored(bank)] == [10, 0]


# -- bad input and leaving --------------------------------------------------------------------
def test_bad_cover_input_is_refused_and_changes_nothing(bank: Path, tmp_path: Path) -> None:
    lines = ["lots", "5", "2000", "-10", "10.001", "draw", "?", "beads", "20"]
    result = play(bank, tmp_path, f"{SYLVIE_BANKS}  Ah Kc 2d 6s 5c", input="\n".join(lines))
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "'lots' is not a stake: type banco, an amount, or pass (Enter)" in out
    assert "a stake of 5 is below the table minimum of 10" in out
    assert "You cannot cover a stake of 2000: the stack is 1000" in out
    assert "'-10' is not a stake" in out
    assert "'10.001' is not a stake" in out
    assert "'draw' is not a stake" in out
    assert 'call "Banco": cover the whole bank alone' in out  # the help
    assert "The bead plate is empty" in out
    assert out.count("Cover (") == len(lines)
    assert "You stake 20" in out and out.count("You stake") == 1
    assert balance(bank) == 1020


def test_q_at_a_cover_prompt_passes_and_the_coup_is_saved(bank: Path, tmp_path: Path) -> None:
    # you leave: you pass, and Colette calls "Banco"; her 1♥ 2♦ draws 5♣: 8 beats 6
    result = play(bank, tmp_path, f"{SYLVIE_BANKS}  Ah Kc 2d 6s 5c", input="q\n")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert (
        "q: the coup in progress is finished (you pass or stand wherever there is a choice) "
        "and saved, then the session ends."
    ) in out
    assert "You pass" in out and 'Colette calls "Banco!"' in out
    assert "Player wins: player's 8 beats banker's 6" in out
    assert "Your stack 1000 → 1000 (±0)" in out
    assert "Goodbye! Your bankroll is 1000 (1 coup played; everything is saved)." in out
    assert balance(bank) == 1000 and len(stored(bank)) == 1


def test_end_of_input_at_your_choice_stands_and_saves(bank: Path, tmp_path: Path) -> None:
    result = play(bank, tmp_path, f"{SYLVIE_BANKS}  2s Kc 3d 6s", input="20\n")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "No more input: the coup in progress is finished" in out
    assert "Player stands on 5" in out and "Banker wins" in out
    assert balance(bank) == 980 and len(stored(bank)) == 1


@pytest.mark.parametrize("leave", ["q\n", ""])
def test_leaving_at_your_bank_prompt_plays_no_coup(bank: Path, tmp_path: Path, leave: str) -> None:
    result = play(bank, tmp_path, f"{YOU_BANK}  2c 4h 3c 4d", input=leave)
    assert result.exit_code == 0, result.output
    assert "no bank is put up, so there is no coup" in result.stdout
    assert "Goodbye! Your bankroll is 1000 (0 coups played" in result.stdout
    assert balance(bank) == 1000 and stored(bank) == []


def test_the_prompt_between_coups(bank: Path, tmp_path: Path) -> None:
    # you pass; Sylvie's natural 9 beats Colette: she keeps the bank, and the next coup
    # waits for Enter (cards are left in the shoe)
    cards = f"{SYLVIE_BANKS}  2s 9h 3d Kh  2c 3c 4c 5c"
    result = play(bank, tmp_path, cards, input="\ns\nwhat\n?\nq\n")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert out.count("Next coup: Enter · s bead plate · ? help · q leave") == 4
    assert "→ The bank stays with Sylvie" in out
    assert "Bead plate · shoe 1" in out.split("Next coup")[1]
    assert "'what': press Enter for the next coup (s bead plate, q leave)" in out
    assert "deal the next coup" in out  # the help
    assert "Coup 2" not in out
    assert balance(bank) == 1000 and len(stored(bank)) == 1


def test_a_seeded_session_keeps_every_bankroll_change(bank: Path) -> None:
    args = ["play", "chemin-de-fer", "--bankroll-file", str(bank), "--delay", "0", "--seed", "3"]
    result = runner.invoke(app, [*args, "--seats", "3"], input="\nd\n" * 30 + "q\n")
    assert result.exit_code == 0, result.output
    rounds = stored(bank)
    assert len(rounds) >= 5
    won = sum((sum(nets(r).values(), Fraction(0)) for r in rounds), Fraction(0))
    assert balance(bank) == 1000 + won  # the stack came back whole
    beads = re.findall(r"P (\d+) · B (\d+) · T (\d+)", result.stdout)
    outcomes = [r["outcome"] for r in rounds if r["outcome"]]
    assert sum(map(int, beads[-1])) == len(outcomes)  # one shoe: every coup is on the plate


# -- several people at one terminal -----------------------------------------------------------
# Ann and Bob, then Colette and Henri.  Bob (King) banks 500: Colette and Henri stake 20
# each, Ann 100, the largest: she holds the player's hand.
HOT_DRAW = "2h Ks 3h 4h"


def hot(bank: Path, tmp_path: Path, cards: str, input: str) -> Result:
    return play(bank, tmp_path, f"{HOT_DRAW}  {cards}", "--people", "Ann,Bob", input=input)


def test_two_people_see_only_their_own_cards(bank: Path, tmp_path: Path) -> None:
    # Ann 2♦ 3♦ = 5 draws 3♥: 8; Bob 4♣ 2♣ = 6 stands; the player wins 8 to 6
    result = hot(bank, tmp_path, "2d 4c 3d 2c 3h", "500\n100\n\nd\n\ns\n")
    assert result.exit_code == 0, result.output
    out = result.stdout
    ann, bob = finnish("2d 3d"), finnish("4c 2c")
    assert "Bob's bank (Enter = 10" in out  # the bank and the stakes are public
    assert "Ann, cover (an amount 10-1000 · Enter = pass" in out
    assert "The bank of 500 is covered for 140 only: it plays for 140" in out
    first, second, rest = out.split(CLEARED)
    # Ann's look: her cards, none of Bob's; the terminal is passed before anything private
    assert "Pass the terminal to Ann — press Enter when only Ann is looking" in first
    private = first[first.index("Pass the terminal to Ann") :]
    assert "Ann's hand as the player: 2♦ 3♦ = 5 · the player may draw or stand on 5" in private
    for card in ann:
        assert card not in before(first, "Pass the terminal to Ann")
    assert not any(card in first for card in bob)
    # after the clear: the public coup again, then Bob's look; none of Ann's cards
    assert "Coup 1 · Bob holds the bank" in second
    assert "Pass the terminal to Bob" in second
    assert not any(card in second for card in ann)
    assert "Ann draws (player)" in second and "3♥" in second
    assert "Bob's hand as the banker: 4♣ 2♣ = 6 · the banker draws or stands freely on 6" in second
    assert not any(card in before(second, "Pass the terminal to Bob") for card in bob)
    # after the second clear: nothing private until the hands are shown
    assert "Bob stands (banker)" in rest
    assert "Ann shows the player's hand: 2♦ 3♦ 3♥ = 8" in rest
    assert "Bob shows the banker's hand: 4♣ 2♣ = 6" in rest
    assert not any(card in before(rest, "Ann shows") for card in ann + bob)
    assert "may draw or stand" not in rest and "freely" not in rest
    assert "Ann's stack 1000 → 1100 (+100)" in out
    assert "Bob's stack 1000 → 860 (-140)" in out
    assert "Goodbye! Bankrolls: Ann 1100 · Bob 860 (1 coup played" in out
    # each person's bankroll and history are their own; the default one is untouched
    assert (balance(bank, "Ann"), balance(bank, "bob"), balance(bank)) == (1100, 860, 1000)
    [ann_coup], [bob_coup] = stored(bank, "Ann"), stored(bank, "Bob")
    assert stored(bank) == []
    assert (ann_coup["seat"], bob_coup["seat"]) == (0, 1)
    assert nets(ann_coup, 0) == {"stake": 100} and nets(bob_coup, 1) == {"bank": -140}
    # each person's record shows them what they saw: their own cards, the other's as backs
    ann_seen = hand_cards(seen_by(ann_coup))
    bob_seen = hand_cards(seen_by(bob_coup))
    assert ann_seen == [("player", "2d"), ("banker", None), ("player", "3d"), ("banker", None)]
    assert bob_seen == [("player", None), ("banker", "4c"), ("player", None), ("banker", "2c")]


def seen_by(record: dict[str, Any]) -> list[dict[str, Any]]:
    """A coup's events as the person of the record's seat may see them (as JSON)."""
    coup = record["start"]["coup"]
    entries = [CoupEvent(coup, event_from_json(e)) for e in record["events"]]
    return [event_to_json(entry.event) for entry in visible(entries, record["seat"])]


def hand_cards(events: list[dict[str, Any]]) -> list[tuple[str, str | None]]:
    """The face-down deal as a record saw it: (hand, card code or None when hidden)."""
    return [(e["hand"], e["card"]) for e in events if e["event"] == "hand_card"][:4]


def test_a_forced_hand_gets_the_same_private_look_as_a_free_one(bank: Path, tmp_path: Path) -> None:
    # Ann's 1♦ 2♦ = 3 must draw: she is still passed the terminal (a look only at a free 5
    # would tell everybody that she holds 5); Bob 4♣ 2♣ = 6 stands against her 3 + 9♥ = 2
    result = hot(bank, tmp_path, "Ad 4c 2d 2c 9h", "500\n100\n\n\n\ns\n")
    assert result.exit_code == 0, result.output
    first, second, rest = result.stdout.split(CLEARED)
    assert "Pass the terminal to Ann" in first
    assert "Ann's hand as the player: 1♦ 2♦ = 3" in first
    assert "Player draws on 3 (must draw on 0-4)" in first
    assert "Press Enter when you have seen it" in first
    assert not any(card in second for card in finnish("Ad 2d"))
    assert "Pass the terminal to Bob" in second
    assert "Banker wins: banker's 6 beats player's 2" in rest
    assert (balance(bank, "Ann"), balance(bank, "Bob")) == (900, 1140)


def test_a_person_who_leaves_ends_the_session_for_everybody(bank: Path, tmp_path: Path) -> None:
    # Ann leaves at the terminal passing: nothing private is shown; she stands
    result = hot(bank, tmp_path, "2d 4c 3d 2c", "500\n100\nq\n")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "q: the coup in progress is finished (every person passes or stands" in out
    assert "Ann's hand as the player" not in out and "Bob's hand as the banker" not in out
    assert "Banker wins: banker's 6 beats player's 5" in out
    assert (balance(bank, "Ann"), balance(bank, "Bob")) == (900, 1140)


# -- history, bankrolls and options -----------------------------------------------------------
def test_history_shows_each_persons_coups_as_they_saw_them(bank: Path, tmp_path: Path) -> None:
    play(bank, tmp_path, f"{SYLVIE_BANKS}  Ah Kc 2d 6s 5c", input="20\n")
    hot(bank, tmp_path, "2d 4c 3d 2c 3h", "500\n100\n\nd\n\ns\n")
    mine = runner.invoke(app, ["history", "--bankroll-file", str(bank)])
    assert mine.exit_code == 0, mine.output
    out = mine.stdout
    assert "The only round" in out
    assert "chemin-de-fer" in out and "coup 1 · You, seat 1" in out
    assert "Player (You)      1♥ 2♦  3" in out
    assert "Banker (Sylvie)   [?] [?]" in out
    for card in finnish("Kc 6s"):
        assert card not in before(out, "Sylvie shows the banker's hand")
    assert "Sylvie shows the banker's hand: 13♣ 6♠ = 6" in out
    assert "You: +20 on 20 (the bank pays 1:1)" in out
    assert "Your net on the coup: +20" in out

    anns = runner.invoke(app, ["history", "--bankroll-file", str(bank), "--person", "ann"])
    out = anns.stdout
    assert "Ann's only round" in out and "coup 1 · Ann, seat 1" in out
    assert "Player (Ann)      2♦ 3♦  5" in out and "Banker (Bob)      [?] [?]" in out
    assert "Player draws on 5 (may draw or stand on 5)" in out
    assert "Ann's net on the coup: +100" in out
    as_json = runner.invoke(
        app, ["history", "--bankroll-file", str(bank), "--person", "Bob", "--json"]
    )
    [line] = [json.loads(text) for text in as_json.stdout.splitlines()]
    assert line["game"] == "chemin-de-fer" and line["status"] == "finished"
    assert nets(line["record"], 1) == {"bank": -140}

    shown = runner.invoke(app, ["bankroll", "--bankroll-file", str(bank)])
    assert "Bankroll 1020" in shown.stdout
    assert "Named bankrolls (--person NAME): Ann 1100 · Bob 860" in shown.stdout
    reset = runner.invoke(app, ["bankroll", "--bankroll-file", str(bank), "--person", "Bob"])
    assert "Bob's bankroll 860" in reset.stdout
    runner.invoke(app, ["bankroll", "--bankroll-file", str(bank), "--person", "Bob", "--reset"])
    assert (balance(bank, "Bob"), balance(bank, "Ann"), balance(bank)) == (1000, 1100, 1020)


def test_a_bankroll_below_the_minimum_cannot_sit_down(bank: Path, tmp_path: Path) -> None:
    runner.invoke(app, ["bankroll", "--bankroll-file", str(bank), "--person", "Bob", "--set", "5"])
    result = hot(bank, tmp_path, "2d 4c 3d 2c", "500\n")
    assert result.exit_code == 0, result.output
    assert "Bob's bankroll of 5 is below the table minimum of 10, so Bob cannot sit down" in (
        result.stdout
    )
    # the hint names the bankroll file in use, so that it resets the right bankroll
    assert f"cardroom bankroll --reset --bankroll-file {bank} --person Bob" in result.stdout
    assert "Coup 1" not in result.stdout and balance(bank, "Bob") == 5


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--seats", "9"], "--seats: the table seats 2 to 8, not 9"),
        (["--seats", "1"], "--seats: the table seats 2 to 8, not 1"),
        (["--people", "Ann,ann"], "--people: two people have the same name"),
        (["--people", "Ann,,Bob"], "--people: write the names with commas"),
        (["--people", "You,Ann"], "with several people give each a name"),
        (
            ["--people", "A,B,C", "--seats", "2"],
            "3 people need 3 seats, and --seats gives the table 2",
        ),
        (
            ["--people", "A,B,C,D,E,F,G,H,I"],
            "the table seats at most 8, so at most 8 people can play (9 are named)",
        ),
    ],
)
def test_bad_table_options(bank: Path, extra: list[str], message: str) -> None:
    args = ["play", "chemin-de-fer", "--bankroll-file", str(bank), *extra]
    result = runner.invoke(app, args, input="")
    assert result.exit_code == 2
    assert message in result.stderr and result.stderr.startswith("error: ")
    assert not bank.exists()


def test_seats_and_people_are_for_chemin_de_fer_only(bank: Path) -> None:
    args = ["play", "finnish27", "--bankroll-file", str(bank), "--seats", "3"]
    result = runner.invoke(app, args, input="")
    assert result.exit_code == 2
    assert "--seats, --people and --buy-in are for chemin-de-fer, not finnish27" in result.stderr


def test_a_stacked_shoe_running_out_mid_coup_changes_nothing(bank: Path, tmp_path: Path) -> None:
    result = play(bank, tmp_path, f"{SYLVIE_BANKS}  Ah Kc", input="20\n")
    assert result.exit_code == 2
    assert "in the middle of a coup: the coup is void" in result.stderr
    [void] = stored(bank)
    assert balance(bank) == 1000 and void["status"] == "void"


# -- rules variants, the shoe, leaving at odd moments ------------------------------------------
VARIANT = 'commission = "1/20"\nbanker_may_pass = false\n\n[table]\nminimum = 100\n'


def test_a_rules_variant_refuses_banco_too_late_and_takes_commission(
    bank: Path, tmp_path: Path
) -> None:
    rules = tmp_path / "variant.toml"
    rules.write_text(VARIANT, encoding="utf-8")
    # Colette banks 300; Henri stakes 200 (too much for his Banco), you cover the last 100;
    # Colette's natural 9 wins, less 5% commission
    cards = "2h Ks 3h  2c 9h 3c Kh"
    lines = "banco\n50\n100\n"
    result = play(bank, tmp_path, cards, "--seats", "3", "--rules", str(rules), input=lines)
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert f"rules: {rules}" in out
    assert '"Banco" is too late: somebody has already staked this coup' in out
    assert "a stake of 50 is below the table minimum of 100" in out
    assert "Henri stakes 200" in out and "You stake 100" in out
    assert (
        "Colette (bank): +285 on 300 (the banker collects every stake, less 15 commission)" in out
    )
    assert "Commission to the house: 15 (5% of Colette's winnings)" in out
    assert balance(bank) == 900

    # you bank: passing is not allowed, Enter puts up the minimum; your natural 9 wins 100
    mine = tmp_path / "mine.sqlite3"
    cards = "Ks 2h 3h  2c 9h 3c Kh"
    result = play(mine, tmp_path, cards, "--seats", "3", "--rules", str(rules), input="pass\n\n")
    out = result.stdout
    assert "Your bank (Enter = 100 · an amount · ? help · q leave)" in out
    assert "the rules do not let the banker pass the bank" in out
    assert "Commission to the house: 5 (5% of your winnings)" in out
    assert balance(mine) == 1095


def test_the_shoe_is_reshuffled_at_the_cut_card_and_the_bead_plate_starts_again(
    bank: Path,
) -> None:
    rules = bank.parent / "small.toml"
    rules.write_text("[shoe]\ndecks = 1\ncut_card = 36\n", encoding="utf-8")
    args = ["play", "chemin-de-fer", "--bankroll-file", str(bank), "--delay", "0"]
    args += ["--seed", "2", "--rules", str(rules)]
    result = runner.invoke(app, args, input="\nd\n" * 12 + "q\n")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "⟳ The shoe is shuffled (new shoe; shoe 1)" in out
    assert "⟳ The shoe is reshuffled (the cut card came out; shoe 2)" in out
    assert "cut card out: the next coup starts a new shoe" in out
    assert "Bead plate · shoe 2" in out
    reshuffled = [any(e["event"] == "reshuffled" for e in r["events"]) for r in stored(bank)]
    assert not reshuffled[0] and any(reshuffled)  # the coup at the cut card: a new shoe


def test_a_person_who_has_lost_their_stack_leaves_the_table(bank: Path, tmp_path: Path) -> None:
    runner.invoke(app, ["bankroll", "--bankroll-file", str(bank), "--set", "20"])
    result = play(bank, tmp_path, f"{SYLVIE_BANKS}  2s Kc 3d 6s  2c 3c", input="20\ns\n")
    assert result.exit_code == 0, result.output
    assert "Seats: 1 You (bankroll 20)" in result.stdout
    assert "Your stack 20 → 0 (-20)" in result.stdout
    assert "The session ends: your stack is below the table minimum of 10." in result.stdout
    assert balance(bank) == 0


def test_one_named_person_plays_with_their_own_bankroll(bank: Path, tmp_path: Path) -> None:
    result = play(
        bank, tmp_path, f"{SYLVIE_BANKS}  Ah Kc 2d 6s 5c", "--people", "Ann", input="20\n"
    )
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Seats: 1 Ann (bankroll 1000)" in out
    assert "Ann, cover (banco" in out and "Ann holds the player's hand" in out
    assert "Pass the terminal" not in out and CLEARED not in out  # alone: nothing to hide
    assert "Ann's stack 1000 → 1020 (+20)" in out
    assert "Goodbye! Ann's bankroll is 1020" in out
    assert (balance(bank, "Ann"), balance(bank)) == (1020, 1000)


def test_ctrl_c_at_a_prompt_finishes_the_coup(bank: Path) -> None:
    def read(prompt: Text) -> str:
        if "Draw or stand" in prompt.plain:
            raise KeyboardInterrupt
        return "20"

    game = get_game("chemin-de-fer")
    console = Console(record=True, width=100)
    shoe = StackedShoe(parse_cards(f"{SYLVIE_BANKS}  2s Kc 3d 6s"))
    with Database.open(path=bank) as db:
        session = ChemmyPlay(
            console,
            game,
            game.default_rules(),
            shoe,
            Wallet(db),
            bank,
            ["You"],
            4,
            np.random.default_rng(0),
            read=read,
            delay=0,
        )
        assert session.run() == 0
    out = console.export_text()
    assert "Ctrl-C: the coup in progress is finished (you pass or stand" in out
    assert "Player stands on 5" in out
    assert balance(bank) == 980 and len(stored(bank)) == 1


def test_refusals_name_you_in_lower_case_inside_a_sentence(bank: Path, tmp_path: Path) -> None:
    """The person at the terminal is "You" at the start of a sentence, "you" inside one."""
    game = ChemmyGame(get_game("chemin-de-fer").default_rules(), [("You", 100), ("Henri", 100)])
    game.deal(parse_cards("Ks")[0])
    game.deal(parse_cards("2h")[0])  # you draw the King: your bank to put up
    with pytest.raises(IllegalAction) as refused:
        game.put_bank(1, 20)
    assert str(refused.value) == (
        "Henri cannot put up a bank now: the table waits for you to put up a bank"
    )
