"""Bankroll files as older cardrooms wrote them, for the upgrade tests."""

from __future__ import annotations

import sqlite3
from fractions import Fraction
from pathlib import Path
from typing import Any

from cardroom.app.words import points_text
from cardroom.core.cards import parse_cards
from cardroom.core.events import event_to_json
from cardroom.core.money import exact_json
from cardroom.core.shoe import StackedShoe
from cardroom.games import get_game
from cardroom.games.dealing import Dealer

# A file as cardroom wrote it before named bankrolls (schema 1), with one saved round.
SCHEMA_1 = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE bankroll (
    id INTEGER PRIMARY KEY CHECK (id = 1), balance TEXT NOT NULL, updated TEXT NOT NULL
);
CREATE TABLE rounds (
    id INTEGER PRIMARY KEY AUTOINCREMENT, game TEXT NOT NULL, played_at TEXT NOT NULL,
    balance_before TEXT NOT NULL, balance_after TEXT NOT NULL, rules_file TEXT,
    labels TEXT NOT NULL, record TEXT NOT NULL
);
CREATE INDEX rounds_by_game ON rounds (game, id);
INSERT INTO meta VALUES ('app', 'cardroom'), ('schema', '1');
INSERT INTO bankroll VALUES (1, '2031/2', '2024-01-01T00:00:00+00:00');
INSERT INTO rounds (game, played_at, balance_before, balance_after, rules_file, labels, record)
VALUES ('finnish27', '2024-01-01T00:00:00+00:00', '1000', '2031/2', NULL, '{}', '{"events": []}');
"""


def schema_1_file(path: Path) -> Path:
    db = sqlite3.connect(path)
    try:
        db.executescript(SCHEMA_1)
        db.commit()
    finally:
        db.close()
    return path


def finished_round(
    cards: str, wagers: dict[str, Fraction], game_id: str = "finnish27"
) -> tuple[dict[str, Any], dict[str, str]]:
    """A round of ``game_id`` dealt from ``cards``, as cardroom 0.1 recorded it."""
    game = get_game(game_id)
    rnd = Dealer(game, game.load_rules(None), StackedShoe(parse_cards(cards))).play(wagers)
    record = {
        "game": game_id,
        "wagers": {k: exact_json(v) for k, v in rnd.wagers.items()},
        "events": [event_to_json(e) for e in rnd.events],
        "outcome": rnd.outcome,
        "net": {k: exact_json(v) for k, v in rnd.net.items()},
        "summary": rnd.summary(),
    }
    return record, {hand: points_text(p) for hand, p in rnd.points().items()}
