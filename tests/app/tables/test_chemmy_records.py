"""Every coup's record, for every person at a chemin de fer table, replays and shows
the coup as that person saw it: over a long sitting of people and bots in which the
people pass the bank, stake, call banco, go, and sit down again at other seats."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import numpy as np

from cardroom.app.history import RoundRecord, replay
from cardroom.app.tables.chemmy import ChemmyTable
from cardroom.app.tables.state import CoupState, read_coup_state
from cardroom.app.wallet import Wallet
from cardroom.core.shoe import SeededShuffler, Shoe
from cardroom.games.base import Turn
from cardroom.games.chemin_de_fer import GAME_ID, ChemmyAction, ChemmyRules
from cardroom.storage import Database
from cardroom.web.views import stored_round_json
from tests.app.tables.test_chemmy_table_seats import bot
from tests.conftest import assert_books_and_rounds

F = Fraction
RULES = ChemmyRules()
PEOPLE = ("Ann", "Bob", "Cyrille")
#: a class name of the event registry (HandCard, SeatSettled) where words belong
CLASS_NAME = re.compile(r"\b[A-Z][a-z]+[A-Z][a-z]+")


def decide(table: ChemmyTable, turn: Turn, rng: np.random.Generator) -> None:
    """A person who sometimes passes the bank, stakes, calls banco or passes, and draws
    or stands at random."""
    actions = turn.actions
    roll = rng.random()
    if ChemmyAction.PUT_BANK in actions:
        if ChemmyAction.PASS_BANK in actions and roll < 0.35:
            table.act(turn.seat, ChemmyAction.PASS_BANK)
        else:
            table.act(turn.seat, ChemmyAction.PUT_BANK, turn.low)
    elif ChemmyAction.STAKE in actions:
        if ChemmyAction.BANCO in actions and roll < 0.2:
            table.act(turn.seat, ChemmyAction.BANCO)
        elif roll < 0.7:
            table.act(turn.seat, ChemmyAction.STAKE, turn.low)
        else:
            table.act(turn.seat, ChemmyAction.PASS)
    else:
        table.act(turn.seat, ChemmyAction.DRAW if roll < 0.5 else ChemmyAction.STAND)


def test_every_record_of_every_person_replays_and_shows_their_own_coup(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    with Database.open(path=tmp_path / "w.sqlite3") as db:
        wallet = Wallet(db)
        accounts = {name: wallet.accounts.open_account(name, F(5000)).id for name in PEOPLE}
        table = ChemmyTable(
            RULES,
            Shoe(RULES.shoe, SeededShuffler(3)),
            wallet,
            np.random.default_rng(3),
            seat_count=5,
            table_ref="web:chemin-de-fer:1",
        )
        for n, name in enumerate(PEOPLE):
            table.sit_person(n, accounts[name], name, F(300))
        table.sit_bot(3, "Bot A", F(1000), bot())
        table.sit_bot(4, "Bot B", F(1000), bot())
        table.start()
        away: list[str] = []
        moved = 0  # people who sat down again at another seat than their last
        last_seat: dict[str, int] = {}
        while len(table.records) < 60:
            game = table.game
            assert game is not None
            if game.is_over:
                table.new_game()
                table.start()
                continue
            # between coups: somebody goes, somebody comes back at another seat
            empty = [n for n, held in enumerate(table.seats) if held.kind == "empty"]
            if away and empty and rng.random() < 0.5:
                name = away.pop(0)
                seat = next((n for n in empty if n != last_seat[name]), empty[0])
                moved += seat != last_seat[name]
                table.sit_person(seat, accounts[name], name, F(300))
            elif len(table.people) > 1 and rng.random() < 0.15:
                seat = int(rng.choice(table.people))
                last_seat[table.seats[seat].name] = seat
                away.append(table.seats[seat].name)
                table.leave(seat)
            for seat, held in enumerate(table.seats):
                if held.kind == "bot" and game.stacks[seat] < RULES.table.minimum:
                    table.stand_bot(seat)
                    table.sit_bot(seat, f"Bot {seat}", F(1000), bot())
            while (turn := table.advance()) is not None:
                if rng.random() < 0.05:  # goes in the middle of the coup
                    last_seat[table.seats[turn.seat].name] = turn.seat
                    away.append(table.seats[turn.seat].name)
                    table.leave(turn.seat)
                else:
                    decide(table, turn, rng)
        for seat in table.people:
            table.leave(seat)
        while table.people and (turn := table.advance()) is not None:  # pragma: no cover
            decide(table, turn, rng)
        assert moved >= 2

        parts: set[str] = set()
        passed_bank = 0
        for name, account in accounts.items():
            coups = wallet.rounds.latest(
                account, limit=500, game=GAME_ID, statuses=("finished", "void")
            )
            assert len(coups) >= 20
            assert {c.status for c in coups} == {"finished"}  # leaving leaves no void coup
            for stored in coups:
                record = RoundRecord.from_json(stored.record)
                result = replay(record)
                assert result.same, (name, stored.id, result.differences)
                view = stored_round_json(stored, F(0))
                coup = view["coup"]
                you = coup["seat"]
                assert coup["name"] == name and coup["table"] == "Table 1"
                parts.add(coup["part"])
                # their stake and result, with the record's own figure for their seat
                assert F(view["total_net"]) == record.net(you)
                if coup["part"] == "banker":
                    assert set(view["stakes"]) == {"bank"}
                # their own decisions, in words
                assert all(d["text"].startswith("You ") for d in view["decisions"])
                assert len(view["decisions"]) == sum(d.seat == you for d in record.decisions)
                passed_bank += any(d["action"] == "pass_bank" for d in view["decisions"])
                # every step in sentences, told to them; no other seat's card face down
                shown = False
                for event in view["events"]:
                    assert event["text"] and not CLASS_NAME.search(event["text"]), event
                    if event["event"] == "hand_card" and event["seat"] != you:
                        assert event["card"] is None or event["face_up"], event
                    shown |= event["event"] == "shown"
                for hand in coup["hands"]:
                    assert all(c["card"] for c in hand["cards"]) == hand["shown"] or (
                        hand["seat"] == you
                    )
                if record.outcome is not None:
                    assert shown and len(coup["hands"]) == 2
                    assert all(hand["shown"] for hand in coup["hands"])
        assert parts == {"banker", "punter", "watcher"} and passed_bank > 0
        # a record of an older cardroom named the wagers by the coup's first banker, who
        # had passed the bank: it still replays (each seat's result is what counts)
        stored = next(
            r
            for r in wallet.rounds.latest(accounts["Ann"], limit=500, game=GAME_ID)
            if any(d["action"] == "pass_bank" for d in r.record["decisions"])
            and any(w["net"] != "0" for w in r.record["wagers"])
        )
        old = dict(stored.record)
        first = old["start"]["banker"]
        old["wagers"] = [
            {**w, "wager": "bank" if w["seat"] == first else "stake"} for w in old["wagers"]
        ]
        assert old["wagers"] != stored.record["wagers"]
        assert replay(RoundRecord.from_json(old)).same
        assert_books_and_rounds(db)


def test_a_coups_saved_amounts_are_written_as_the_records_write_them() -> None:
    start = {"coup": 2, "stacks": (Fraction(21, 2), Fraction(200)), "default_bank": Fraction(5, 2)}
    state = CoupState(rules="", table="t", seat=0, wallet_seat=1, start=start)
    written = state.to_json()
    assert written["start"]["stacks"] == ["10.5", "200"]
    assert written["start"]["default_bank"] == "2.5"
    assert read_coup_state(written) == state
    # a state an older cardroom saved as fractions still reads back
    older = {**written, "start": {"coup": 2, "stacks": ["21/2", "200"], "default_bank": "5/2"}}
    assert read_coup_state(older) == state
