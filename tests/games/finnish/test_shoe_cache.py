"""The real shoe's counts kept on disk: read back, they are the counts made; anything that
changes a count changes its key; a damaged entry is counted again; the cache can be
turned off."""

from __future__ import annotations

from pathlib import Path

import pytest

from cardroom.core.cards import Rank
from cardroom.games.finnish.finnish27 import Finnish27Rules
from cardroom.games.finnish.shoe_cache import play_text
from cardroom.games.finnish.shoe_deal import ShoeMakeup
from cardroom.games.finnish.shoe_finnish27 import _count_finnish27, count_finnish27
from cardroom.games.finnish.shoe_twentyone import _twentyone_counts, twentyone_counts
from cardroom.games.finnish.twentyone_24_27 import BASIC_STRATEGY, TwentyOne2427Rules

SHOE = ShoeMakeup.of_counts(
    {Rank.ACE: 1, Rank.FOUR: 3, Rank.FIVE: 1, Rank.EIGHT: 1, Rank.NINE: 2, Rank.KING: 2,
     Rank.JOKER: 2},
    {Rank.ACE: (1, 0, 0, 0), Rank.FOUR: (3, 0, 0, 0), Rank.FIVE: (1, 0, 0, 0),
     Rank.EIGHT: (1, 0, 0, 0), Rank.NINE: (1, 1, 0, 0), Rank.KING: (1, 1, 0, 0)},
)  # fmt: skip
TWENTYONE_SHOE = ShoeMakeup.of_counts(
    {Rank.ACE: 2, Rank.FIVE: 2, Rank.EIGHT: 2, Rank.TEN: 3, Rank.KING: 3, Rank.JOKER: 1}
)


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv("CARDROOM_CACHE_DIR", str(folder))
    monkeypatch.delenv("CARDROOM_NO_CACHE", raising=False)
    return folder


def test_a_count_read_back_is_the_count_made(cache: Path) -> None:
    rules = Finnish27Rules()
    made = count_finnish27(rules, SHOE)
    assert len(list(cache.iterdir())) == 1
    read = count_finnish27(rules, SHOE)
    assert read == made == _count_finnish27(rules, SHOE, None, None)
    assert list(read.results) == list(made.results)  # the lines' order too
    # another shoe, another play, other rules: each its own entry
    count_finnish27(rules, SHOE.without(Rank.NINE))
    count_finnish27(rules, SHOE, BASIC_STRATEGY.hits)
    count_finnish27(Finnish27Rules(player_loses_over=28), SHOE)
    assert len(list(cache.iterdir())) == 4
    plays = twentyone_counts(TwentyOne2427Rules(), TWENTYONE_SHOE, BASIC_STRATEGY.hits)
    assert plays == _twentyone_counts(TwentyOne2427Rules(), TWENTYONE_SHOE, BASIC_STRATEGY.hits)


def test_a_damaged_entry_is_counted_again(cache: Path) -> None:
    rules = Finnish27Rules()
    made = count_finnish27(rules, SHOE)
    (entry,) = cache.iterdir()
    entry.write_text(entry.read_text().replace('"total": ', '"total": 1'), encoding="utf-8")
    assert count_finnish27(rules, SHOE) == made
    entry.write_text("{", encoding="utf-8")
    assert count_finnish27(rules, SHOE) == made


def test_the_cache_can_be_turned_off(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CARDROOM_NO_CACHE", "1")
    count_finnish27(Finnish27Rules(), SHOE)
    assert not cache.exists()


def test_a_play_is_written_by_its_decisions() -> None:
    text = play_text(BASIC_STRATEGY.hits)
    assert text is not None and text == play_text(BASIC_STRATEGY.hits)
    assert play_text(lambda total, dealer: total.value < 20) != text

    def odd_play(total: object, dealer: object) -> bool:
        raise RuntimeError(total)

    assert play_text(odd_play) is None
