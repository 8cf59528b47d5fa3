"""A chemin de fer table's shoes anyone can verify (docs/fairness.md), on a real server:
a one-deck shoe of two coups, played through its end.  The commitment is shown before
the shoe's first card; the seed of a shoe that still deals appears nowhere (the lobby,
the WebSocket's messages, the shoe API, the history); once the shoe ends its seed is
revealed, matches the commitment, and every coup recorded from it checks; a card
changed in a record is reported."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from cardroom.app.tables.live import TableSpec
from cardroom.app.tables.verify import check_shoe
from cardroom.core.shoe import ShoeRules
from cardroom.games import seats_game
from cardroom.storage.schema import shoe_seeds
from cardroom.terminal.fairness import verify_shoe
from tests.web.browser import Server
from tests.web.chemmy_clients import Socket, Someone
from tests.web.test_chemmy_ws import play

GAME = seats_game()
#: one deck, shuffled again after two coups (the draw for the bank is not one)
RULES = replace(
    GAME.default_rules(),
    shoe=ShoeRules(decks=1, jokers_per_deck=0, reshuffle_after=40, reshuffle_after_rounds=2),
)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    with Server(
        tmp_path / "web.sqlite3",
        rules={GAME.id: RULES},
        chemmy_tables=(TableSpec(1, "Table 1", 2, 1),),
        chemmy_time_limit=20,
        chemmy_pause=0,
    ) as found:
        yield found


def seeds(server: Server) -> list[Any]:
    with server.db.read() as conn:
        return list(conn.execute(select(shoe_seeds).order_by(shoe_seeds.c.id)).all())


def table(person: Someone) -> dict[str, Any]:
    found: dict[str, Any] = person.http.get("/api/chemin-de-fer/tables").json()["tables"][0]
    return found


def play_through_a_shoe(ann: Someone) -> Socket:
    """Ann sits down with the bot and plays until the first shoe ends and a coup of the
    next has been played; her socket, with every message it got."""
    ann.sit(1, "500")
    sock = ann.socket(1)
    play([sock], until=lambda: sock.messages and sock.messages[-1]["table"]["shoe"]["revealed"])
    play([sock], coups=1)  # a coup from the next shoe
    sock.close()
    return sock


def test_a_chemmy_shoe_is_committed_to_kept_secret_then_revealed_and_verified(
    server: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db_path = tmp_path / "web.sqlite3"
    ann, other = Someone.register(server), Someone.register(server)
    before = table(ann)["shoe"]
    assert before["shoe"] is None and before["revealed"] is None
    promised = before["next_commitment"]
    assert len(promised) == 64 and before["client_seed"]
    sock = play_through_a_shoe(ann)
    messages = [json.dumps(m) for m in sock.messages]
    first = next(m["table"]["shoe"] for m in sock.messages if m["table"]["shoe"]["shoe"])
    assert (first["shoe"], first["commitment"]) == (1, promised)
    at = next(n for n, m in enumerate(sock.messages) if m["table"]["shoe"]["revealed"])
    revealed = sock.messages[at]["table"]["shoe"]["revealed"]
    assert revealed["shoe"] == 1 and revealed["commitment"] == promised

    rows = seeds(server)
    shoe1 = next(r for r in rows if r.shoe == 1)
    secret = [r.server_seed for r in rows if r.revealed_at is None]
    assert shoe1.revealed_at is not None and secret  # the next shoe deals (or is to come)
    # while a shoe deals its seed is nowhere: not in a message, the API or the history
    assert not any(shoe1.server_seed in m for m in messages[:at])
    shown = [
        *messages,
        ann.http.get("/api/chemin-de-fer/tables").text,
        ann.http.get("/history").text,
        ann.http.get("/api/history").text,
        ann.http.get("/chemin-de-fer/1").text,
    ]
    shown += [ann.http.get(f"/api/shoes/{r.id}").text for r in rows]
    for seed in secret:
        assert not any(seed in text for text in shown)

    # the revealed shoe: its seed matches, every coup from it checks
    answer = ann.http.get(f"/api/shoes/{shoe1.id}").json()
    seed = bytes.fromhex(answer["shoe"]["server_seed"])
    assert hashlib.sha256(seed).hexdigest() == promised == answer["shoe"]["commitment"]
    assert len(answer["unshuffled"]) == 52
    found = [(r["id"], r["record"]) for r in answer["rounds"]]
    check = check_shoe(1, seed, answer["shoe"]["client_seed"], found)
    assert check.ok, check.problems
    assert len(check.rounds) == 2 and check.cards >= 8
    # a card changed in a record is reported
    round_id, record = found[0]
    card = record["cards"][0]
    record = {**record, "cards": ["Ks" if card != "Ks" else "Qs", *record["cards"][1:]]}
    tampered = check_shoe(1, seed, answer["shoe"]["client_seed"], [(round_id, record), *found[1:]])
    assert not tampered.ok and any(f"round {round_id}: card" in p for p in tampered.problems)
    # at the terminal too
    verify_shoe(seed.hex(), answer["shoe"]["client_seed"], GAME.id, f"sqlite:///{db_path}")
    assert "every card of 2 rounds" in capsys.readouterr().out
    # someone who played no coup from it does not find it
    assert other.http.get(f"/api/shoes/{shoe1.id}").status_code == 404
    assert ann.http.get("/api/shoes/999999").status_code == 404
