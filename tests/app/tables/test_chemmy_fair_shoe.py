"""A table of seats' shoe anyone can verify (docs/fairness.md), without a server: the
commitment drawn before the first card is the first shoe's; the table's JSON never
carries a dealing shoe's seed; a process that takes the table over reveals the shoes
the last one dealt and numbers its own on from them."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from cardroom.app.tables.seeds import FairShoe, ShoeSeeds, table_client_seed
from cardroom.core.shoe import ShoeRules
from cardroom.games import seats_game
from cardroom.storage import Database

REF = "web:test:1"
RULES = ShoeRules(decks=1, jokers_per_deck=0, reshuffle_after=40)


@pytest.fixture
def seeds(tmp_path: Path) -> Iterator[ShoeSeeds]:
    with Database.open(path=tmp_path / "s.sqlite3") as db:
        yield ShoeSeeds(db)


def test_committed_before_the_first_card_revealed_when_taken_over(seeds: ShoeSeeds) -> None:
    game = seats_game().id
    first = FairShoe(RULES, seeds, REF, game)
    first.prepare()
    promised = first.upcoming
    assert promised is not None and first.to_json()["commitment"] is None
    event = first.shuffle("new_shoe")
    shown = first.to_json()
    assert (event.shoe, shown["shoe"], shown["commitment"]) == (1, 1, promised)
    assert shown["client_seed"] == table_client_seed(REF) and shown["revealed"] is None
    assert first.taken is not None and first.taken.seed.hex() not in json.dumps(shown)
    dealing = seeds.latest(None, REF)[0]
    assert dealing.server_seed is None and not dealing.revealed_at

    # the coup after which the shoe is due ends: its seed is revealed, shown at the table
    first.draw()
    first.ended()
    shown = first.to_json()
    assert shown["commitment"] is None and shown["revealed"]["shoe"] == 1
    seed = bytes.fromhex(shown["revealed"]["server_seed"])
    assert hashlib.sha256(seed).hexdigest() == promised
    assert seeds.latest(None, REF)[0].server_seed == seed.hex()

    # shoe 2 deals; then another process takes the table over
    first.shuffle("reshuffle_point")
    assert seeds.latest(None, REF)[0].server_seed is None
    seeds.table_ended(REF)
    assert all(s.server_seed is not None for s in seeds.latest(None, REF))
    again = FairShoe(RULES, seeds, REF, game)
    again.prepare()
    assert again.shuffle("new_shoe").shoe == 3 and again.shuffles == 3
    assert [s.shoe for s in seeds.latest(None, REF, 5)] == [3, 2, 1]
