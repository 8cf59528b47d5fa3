"""Each game's rule words live in its package; together with the shared ones they name
every rule the engines write, and no rule is given two sentences."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

import numpy as np
import pytest

from cardroom.app.words import TEMPLATES, explain, template_of
from cardroom.core.events import CoupEvent, Event, Why
from cardroom.core.shoe import SeededShuffler, Shoe
from cardroom.games import GAMES
from cardroom.games.chemin_de_fer import ChemmyGame, TableauBot
from cardroom.games.chemin_de_fer.bots import ChemmySession
from cardroom.games.dealing import Dealer


def test_no_rule_has_two_sentences() -> None:
    seen: dict[str, str] = dict.fromkeys(TEMPLATES, "shared")
    for game in GAMES.values():
        for rule, template in game.rule_words.items():
            if rule in seen and seen[rule] != game.id:
                other = TEMPLATES.get(rule) or next(
                    g.rule_words[rule] for g in GAMES.values() if g.id == seen[rule]
                )
                assert other is template, f"{rule!r} has words in {seen[rule]} and {game.id}"
            seen.setdefault(rule, game.id)


def _whys(event: Event) -> Iterator[Why]:
    why = getattr(event, "why", None)
    if isinstance(why, Why):
        yield why


def _house_rules_written(game_id: str, rounds: int) -> set[str]:
    game = GAMES[game_id]
    rules = game.default_rules()
    dealer = Dealer(game, rules, Shoe(rules.shoe, SeededShuffler(7)))
    strategy = game.player_strategy() if game.player_strategy is not None else None
    stakes = dict.fromkeys(game.wagers(rules), 10)
    written: set[str] = set()
    for _ in range(rounds):
        rnd = dealer.play(stakes, strategy)
        for event in rnd.events:
            written |= {w.rule for w in _whys(event)}
    return written


@pytest.mark.parametrize("game_id", [g.id for g in GAMES.values() if g.kind == "house"])
def test_every_rule_a_house_game_writes_has_its_words(game_id: str) -> None:
    written = _house_rules_written(game_id, 400)
    assert len(written) > 5
    missing = sorted(rule for rule in written if template_of(rule) is None)
    assert missing == []


def test_every_rule_chemin_de_fer_writes_has_its_words() -> None:
    game_id = next(g.id for g in GAMES.values() if g.kind == "seats")
    rules = GAMES[game_id].default_rules()
    game = ChemmyGame(rules, [(name, 400) for name in ("Ann", "Bob", "Cy", "Di")])
    session = ChemmySession(
        game,
        Shoe(rules.shoe, SeededShuffler(3)),
        {seat: TableauBot() for seat in range(4)},
        np.random.default_rng(3),
    )
    session.play_coups(150)
    written = {w.rule for entry in game.log for w in _whys(entry.event)}
    assert isinstance(game.log[0], CoupEvent) and len(written) > 8
    missing = sorted(rule for rule in written if template_of(rule) is None)
    assert missing == []
    assert explain(Why.of("banker_choice", banker=5, third=None)) == (
        "banker on 5 by choice (the player stood)"
    )


def test_a_rule_without_words_reads_as_its_id() -> None:
    assert template_of("no_such_rule") is None
    assert explain(Why.of("no_such_rule")) == "no such rule"


def test_a_fee_taken_on_the_stake_is_said_with_the_settlement() -> None:
    fee = Fraction(1, 10)
    assert explain(Why.of("pays", wager="player", odds=Fraction(1), fee=fee)) == (
        "player pays 1:1, less a fee of 0.10"
    )
    assert explain(Why.of("push_returned", fee=fee)).endswith(", less a fee of 0.10")
    assert explain(Why.of("pays", wager="player", odds=Fraction(1))) == "player pays 1:1"
