"""Shoes anyone can verify (docs/fairness.md), played through the web: the next shoe's
commitment is shown before its first card, its seed is nowhere while it may deal, it is
revealed once the shoe deals no more, and the shoe rebuilt from it gives every card of
every round; a tampered record is reported."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cardroom.app.tables.verify import check_shoe
from cardroom.core.rules import apply_rules
from cardroom.games import get_game
from cardroom.storage import Database
from cardroom.terminal.cli import app as cli
from cardroom.web.app import create_app
from cardroom.web.edges import HouseEdges, analyser_means
from tests.web.conftest import Person, Web, cheap_sessions

GAME = "punto-banco"
BETS = {"banker": "10"}


@pytest.fixture
def small(tmp_path: Path) -> Iterator[Web]:
    rules = {GAME: apply_rules(get_game(GAME).default_rules(), {"shoe": {"decks": 1}})}
    with Database.open(path=tmp_path / "web.sqlite3") as db:
        edges = HouseEdges(analyser_means, in_process=True)
        app = create_app(db, rules, house_edges=edges, sessions=cheap_sessions(db))
        yield Web(app, db, edges, cheap_sessions(db))
        edges.close()


def _shoes(ann: Person) -> dict[str, Any]:
    answer = ann.http.get(f"/api/shoes?table={GAME}")
    assert answer.status_code == 200, answer.text
    data: dict[str, Any] = answer.json()
    return data


def _secret_nowhere(ann: Person, seed: str, round_id: int) -> None:
    """The seed is in no answer about the shoe or its rounds."""
    for path in (
        f"/api/shoes?table={GAME}",
        f"/api/rounds/{round_id}",
        "/api/history",
        "/history",
        f"/history/{round_id}",
        f"/play/{GAME}",
    ):
        assert seed not in ann.http.get(path).text, path


def test_a_shoe_is_committed_kept_secret_revealed_and_verified(small: Web, tmp_path: Path) -> None:
    ann = small.person("Ann")
    before = _shoes(ann)
    assert before["shoes"] == [] and len(before["next_commitment"]) == 64
    played: list[dict[str, Any]] = []
    shoe_id = None
    while True:
        answer = ann.post(f"/api/games/{GAME}/rounds", {"bets": BETS})
        assert answer.status_code == 201, answer.text
        data = answer.json()
        played.append(data)
        now = _shoes(ann)
        current = now["shoes"][0]
        if shoe_id is None:  # the first shoe is the one committed to before its first card
            shoe_id = current["id"]
            assert current["commitment"] == before["next_commitment"]
            assert current["client_seed"] == before["client_seed"]
            assert now["next_commitment"] != current["commitment"]
        if data["reshuffle_due"]:
            break
        assert not current["revealed"] and current["server_seed"] is None
        with small.db.read() as conn:
            [seed] = conn.exec_driver_sql(
                "SELECT server_seed FROM shoe_seeds WHERE id = ?", (shoe_id,)
            ).one()
        _secret_nowhere(ann, seed, data["id"])
        assert ann.http.get(f"/api/shoes/{shoe_id}").json()["rounds"] == []
        assert len(played) < 30
    # the shoe deals no more: its seed is revealed and matches the commitment
    shown = _shoes(ann)["shoes"][0]
    assert shown["id"] == shoe_id and shown["revealed"]
    seed = bytes.fromhex(shown["server_seed"])
    assert hashlib.sha256(seed).hexdigest() == before["next_commitment"]
    got = ann.http.get(f"/api/shoes/{shoe_id}").json()
    assert [r["id"] for r in got["rounds"]] == [r["id"] for r in played]
    rounds = [(r["id"], r["record"]) for r in got["rounds"]]
    check = check_shoe(1, seed, shown["client_seed"], rounds)
    assert check.ok and check.rounds == [r["id"] for r in played], check.problems
    assert check.cards == sum(len(r["record"]["cards"]) for r in got["rounds"])
    # a card changed in a record is reported
    tampered = json.loads(json.dumps(rounds))
    cards = tampered[-1][1]["cards"]
    cards[-1] = "Ks" if cards[-1] != "Ks" else "Kh"
    bad = check_shoe(1, seed, shown["client_seed"], tampered)
    assert not bad.ok and f"round {played[-1]['id']}" in bad.problems[0]
    # another person sees nothing of it
    bob = small.person("Bob")
    assert bob.http.get(f"/api/shoes/{shoe_id}").status_code == 404
    # the terminal checks it too, and refuses an unknown seed in one line
    db = f"sqlite:///{tmp_path / 'web.sqlite3'}"
    run = CliRunner().invoke(
        cli,
        ["verify-shoe", "--seed", seed.hex(), "--client-seed", shown["client_seed"],
         "--game", GAME, "--db", db],
    )  # fmt: skip
    assert run.exit_code == 0 and "every card" in run.output, run.output
    for bad_seed in ("ab" * 32, "xyz"):
        run = CliRunner().invoke(
            cli,
            ["verify-shoe", "--seed", bad_seed, "--client-seed", "c", "--game", GAME,
             "--db", db],
        )  # fmt: skip
        assert run.exit_code == 2 and len(run.output.strip().splitlines()) == 1, run.output


def test_the_client_seed_is_a_persons_own_and_checked(small: Web) -> None:
    ann = small.person("Ann")
    assert len(ann.http.get("/api/account/client-seed").json()["client_seed"]) == 16
    assert ann.post("/api/account/client-seed", {"client_seed": "lucky 7"}).status_code == 200
    assert ann.http.get("/api/account/client-seed").json() == {"client_seed": "lucky 7"}
    assert ann.post("/api/account/client-seed", {"client_seed": ""}).status_code == 422
    assert ann.post("/api/account/client-seed", {"client_seed": "a\tb"}).status_code == 422
    assert ann.http.post("/api/account/client-seed", json={"client_seed": "x"}).status_code == 403
    assert ann.http.get("/api/shoes?table=nosuchgame").status_code == 404
    answer = ann.post(f"/api/games/{GAME}/rounds", {"bets": BETS})
    assert _shoes(ann)["shoes"][0]["client_seed"] == "lucky 7", answer.text
    page = ann.http.post(
        "/account/client-seed",
        data={"csrf_token": ann.csrf, "client_seed": "from the form"},
        follow_redirects=False,
    )
    assert page.status_code == 303
    assert ann.http.get("/api/account/client-seed").json()["client_seed"] == "from the form"
    assert ann.http.get("/verify").status_code == 200
