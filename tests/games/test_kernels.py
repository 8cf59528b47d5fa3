"""The simulation kernels against the engine, the shuffle, and the runner.

The differential tests deal the very same shoes to a kernel and to the engine
(:class:`cardroom.games.dealing.Dealer` with a shuffler that replays the kernel's
shuffles) and demand, round by round, the same outcome, the same bonus or totals,
and the same net result on every wager.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import replace
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from scipy import stats

from cardroom.app import runner as runner_module
from cardroom.app.runner import batches, exact_means, kernel_for, run
from cardroom.core.shoe import Shoe, ShoeRules
from cardroom.games import get_game
from cardroom.games.baccarat import BaccaratRound, card_value
from cardroom.games.baccarat.kernel import faces as baccarat_faces
from cardroom.games.base import Action, Round
from cardroom.games.dealing import Dealer
from cardroom.games.finnish.finnish27 import Finnish27Round
from cardroom.games.finnish.hands import finnish_total
from cardroom.games.finnish.kernel import Finnish27Kernel, hand_held
from cardroom.games.finnish.twentyone_24_27 import TableStrategy
from cardroom.games.finnish.twentyone_analysis import solve_21_24_27
from cardroom.simulation.common import JOKER_CODE, card_of
from cardroom.simulation.prng import batch_state, shuffled_orders

ROUNDS = 8_000


class Replay:
    """A shuffler that hands out given permutations, one per shuffle."""

    def __init__(self, orders: np.ndarray) -> None:
        self.orders: Iterator[np.ndarray] = iter(orders)

    def permutation(self, n: int) -> list[int]:
        order = next(self.orders)
        assert len(order) == n
        return [int(i) for i in order]


def engine_cell(game_id: str, rnd: Round) -> int:
    """The kernel's cell of an engine round."""
    if isinstance(rnd, BaccaratRound):
        outcome = ("player", "banker", "tie").index(rnd.outcome or "")
        banker = rnd.total("banker")
        return ((outcome * 10 + banker) * 2 + rnd.pair("player")) * 2 + rnd.pair("banker")
    outcome = ("player", "dealer", "push").index(rnd.outcome or "")
    if isinstance(rnd, Finnish27Round):
        kernel = Finnish27Kernel(rnd.rules)
        bonus = 0 if rnd.bonus_key is None else kernel.bonus_keys.index(rnd.bonus_key) + 1
        return outcome * kernel.bonuses + bonus
    return outcome


def decider(game_id: str, strategy: str, rules: Any) -> Callable[[Round], Action] | None:
    if game_id != "21-24-27":
        return None
    if strategy == "basic":
        return TableStrategy().play
    solution = solve_21_24_27(rules)

    def decide(rnd: Round) -> Action:
        player = finnish_total(rnd.hands["player"])
        dealer = finnish_total(rnd.hands["dealer"][:2])
        return Action.HIT if solution.hits(player, dealer) else Action.STAND

    return decide


@pytest.mark.parametrize(
    ("game_id", "strategy", "rounds"),
    [
        ("punto-banco", "basic", ROUNDS),
        ("baccarat27", "basic", ROUNDS),
        ("finnish27", "basic", ROUNDS),
        ("21-24-27", "basic", ROUNDS),
        # the same kernel with another decision table: fewer rounds suffice
        ("21-24-27", "optimal", 6_000),
    ],
)
def test_kernel_plays_the_engine_s_rounds(game_id: str, strategy: str, rounds: int) -> None:
    replay_against_engine(game_id, get_game(game_id).load_rules(), strategy, rounds)


@pytest.mark.parametrize(
    ("game_id", "changes"),
    [
        # the casino burn (first card turned, its value burnt), 6 decks, a nearer cut
        # card, tie 9:1 and every side wager
        (
            "punto-banco",
            {
                "shoe": ShoeRules(decks=6, jokers_per_deck=0, cut_card=14, burn_by_first_card=True),
                "tie_pays": Fraction(9),
                "side_wagers": ("player_pair", "banker_pair", "b27"),
            },
        ),
        # a smaller shoe with one Joker a deck, three cards burnt, Jokers not 27, the
        # dealer winning equal initial 27s replaced by a push
        (
            "finnish27",
            {
                "shoe": ShoeRules(decks=4, jokers_per_deck=1, reshuffle_after=150, burn=3),
                "ace_king_27": False,
                "joanca_27": False,
                "equal_initial_27s": "push",
            },
        ),
        # the casino burn with Jokers in the shoe (a Joker burns one card), Jokers 27
        (
            "21-24-27",
            {
                "shoe": ShoeRules(decks=6, jokers_per_deck=2, cut_card=60, burn_by_first_card=True),
                "jokers_make_27": True,
            },
        ),
    ],
)
def test_kernel_plays_a_variant_as_the_engine_does(game_id: str, changes: dict[str, Any]) -> None:
    """The shoe's handling (burns, cut card, Jokers) and rule switches read from the
    rules: the kernel and the engine on 8,000 rounds of a variant."""
    rules = replace(get_game(game_id).load_rules(), **changes)
    replay_against_engine(game_id, rules, "basic", 8_000)


def replay_against_engine(game_id: str, rules: Any, strategy: str, rounds: int) -> None:
    """Play ``rounds`` rounds through the kernel and the engine on the same shoes and
    demand the same cell and every wager's net, round by round."""
    game = get_game(game_id)
    kernel = kernel_for(game_id, rules, strategy)
    result, cells = kernel.run(batch_state(2026, 7), rounds, record=True)
    assert result.rounds == rounds
    orders = shuffled_orders(batch_state(2026, 7), rules.shoe.size, result.shoes)
    # the plain dealer: no money moves (the books are tested elsewhere)
    table = Dealer(game, rules, Shoe(rules.shoe, Replay(orders)))
    stake = rules.table.minimum
    wagers = {w: stake for w in kernel.wager_ids}
    net = kernel.cell_nets()
    unit = kernel.unit
    decide = decider(game_id, strategy, rules)
    mismatches = 0
    for i in range(rounds):
        rnd = table.play(wagers, decide)
        cell = engine_cell(game_id, rnd)
        if cell != cells[i]:
            mismatches += 1
            assert mismatches < 5, f"round {i}: engine {rnd.outcome} cell {cell}, kernel {cells[i]}"
        for w, wager in enumerate(kernel.wager_ids):
            assert rnd.exact_net[wager] / stake == Fraction(int(net[w, cell]), unit)
    assert mismatches == 0
    assert table.source.shuffles == result.shoes


@pytest.mark.parametrize("game_id", ["punto-banco", "finnish27", "21-24-27"])
def test_a_round_limit_reshuffles_the_kernel_s_shoe_as_the_engine_s(game_id: str) -> None:
    """A new shuffle every 7 rounds (long before the cut card): the kernel and the
    engine deal the same rounds from the same shuffles, 43 of them for 300 rounds."""
    rules = get_game(game_id).load_rules()
    rules = dataclasses.replace(
        rules, shoe=dataclasses.replace(rules.shoe, reshuffle_after_rounds=7)
    )
    replay_against_engine(game_id, rules, "basic", 300)
    result, _ = kernel_for(game_id, rules, "basic").run(batch_state(2026, 7), 300)
    assert result.shoes == 43


def test_rounds_add_up_and_ledger_sums_match() -> None:
    kernel = kernel_for("finnish27", get_game("finnish27").load_rules())
    result, cells = kernel.run(batch_state(1, 0), 20_000, record=True)
    assert result.cells.sum() == 20_000 == result.outcomes.sum()
    assert np.array_equal(np.bincount(cells, minlength=result.cells.size), result.cells)


def test_shuffle_is_uniform() -> None:
    """Each card's position after a shuffle: chi-square over a 13-card deck, and
    every ordered pair of positions of two cards."""
    orders = shuffled_orders(batch_state(5, 0), 13, 60_000)
    where = np.argsort(orders, axis=1)  # where each card went
    for card in (0, 6, 12):
        counts = np.bincount(where[:, card], minlength=13)
        assert stats.chisquare(counts).pvalue > 0.001
    pairs = np.bincount(where[:, 0] * 13 + where[:, 1], minlength=169)
    pairs = pairs[[a * 13 + b for a in range(13) for b in range(13) if a != b]]
    assert stats.chisquare(pairs).pvalue > 0.001


def test_seeds_give_their_own_stream() -> None:
    a = shuffled_orders(batch_state(1, 0), 52, 3)
    assert np.array_equal(a, shuffled_orders(batch_state(1, 0), 52, 3))
    assert not np.array_equal(a, shuffled_orders(batch_state(1, 1), 52, 3))
    assert not np.array_equal(a, shuffled_orders(batch_state(2, 0), 52, 3))
    with pytest.raises(ValueError, match="seed"):
        batch_state(-1, 0)


def test_results_do_not_depend_on_workers() -> None:
    rules = get_game("punto-banco").load_rules()
    one = run("punto-banco", rules, 2_500_000, seed=9, workers=1)
    two = run("punto-banco", rules, 2_500_000, seed=9, workers=2)
    assert len(batches(2_500_000)) == 3
    assert one.rounds == two.rounds == 2_500_000
    assert list(one.outcomes) == list(two.outcomes)
    assert list(one.net) == list(two.net) and list(one.net_squared) == list(two.net_squared)
    other = run("punto-banco", rules, 2_500_000, seed=10, workers=2)
    assert list(other.outcomes) != list(one.outcomes)


def test_a_process_pool_where_workers_are_not_forked_gives_the_same_counts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Off Linux the workers come from a process pool: the same batches, the same sums."""
    rules = get_game("punto-banco").load_rules()
    forked = run("punto-banco", rules, 2_500_000, seed=9, workers=2, session=1000)
    monkeypatch.setattr(runner_module, "can_fork", lambda: False)
    pooled = run("punto-banco", rules, 2_500_000, seed=9, workers=2, session=1000)
    assert list(pooled.outcomes) == list(forked.outcomes)
    assert list(pooled.net_squared) == list(forked.net_squared)
    assert np.array_equal(pooled.sessions, forked.sessions)


def test_batches_keep_sessions_whole() -> None:
    assert list(batches(10, 0, size=4)) == [4, 4, 2]
    assert list(batches(10, 3, size=4)) == [3, 3, 3, 1]
    with pytest.raises(ValueError, match="rounds"):
        batches(0)


@pytest.mark.parametrize(
    "game_id",
    [
        "punto-banco",
        "baccarat27",
        # its exact values come from the finite-shoe kernels: compiled on their worker
        pytest.param("21-24-27", marks=pytest.mark.xdist_group("finnish-shoe")),
    ],
)
def test_simulation_agrees_with_the_exact_analysis(game_id: str) -> None:
    """Means within 4 standard errors of the exact values (off the top: the cut
    card and the reshuffle point shift real shoes very slightly)."""
    rules = get_game(game_id).load_rules()
    result = run(game_id, rules, 400_000, seed=3)
    exact = exact_means(game_id, rules)
    for i, wager in enumerate(result.wager_ids):
        figures = result.wager(i, exact[wager])
        assert figures.z is not None and abs(figures.z) < 4, (wager, figures)


def test_poker_category_matches_the_evaluator_on_long_hands() -> None:
    """The compiled evaluator against the engine's on random hands with Jokers (wild,
    and bugs), in this game's order and in a shuffled one; in this game's order with
    wild Jokers, against the evaluator of best hands as well."""
    from cardroom.games.finnish.poker import STANDARD, best_category, best_hand, best_held
    from cardroom.simulation.common import card_of

    rng = np.random.default_rng(4)
    for _ in range(3000):
        n = int(rng.integers(5, 12))
        codes = rng.integers(0, 53, n)
        cards = [card_of(int(c)) for c in codes]
        scratch = np.zeros(15, np.int64), np.zeros(4, np.int64), np.zeros(4, np.int64)
        shuffled = (0, *(int(p) + 1 for p in rng.permutation(9)))
        for bug in (False, True):  # Jokers wild, and Jokers as bugs
            held = hand_held(codes.astype(np.int8), n, *scratch, bug)
            for ranking in (STANDARD, shuffled):
                category = best_held(held, ranking)
                assert category == best_category(cards, bug, ranking), (cards, bug, ranking)
        assert best_held(hand_held(codes.astype(np.int8), n, *scratch, False)) == (
            best_hand(cards).category
        ), cards


@pytest.mark.long
def test_ray_backend_gives_the_local_results() -> None:
    """A local Ray instance runs the same batches: identical sums."""
    ray = pytest.importorskip("ray")
    rules = get_game("punto-banco").load_rules()
    local = run("punto-banco", rules, 1_500_000, seed=4, workers=1)
    try:
        remote = run("punto-banco", rules, 1_500_000, seed=4, backend="ray")
    finally:
        ray.shutdown()
    assert remote.backend == "ray"
    assert list(remote.outcomes) == list(local.outcomes)
    assert list(remote.net) == list(local.net)
    assert list(remote.net_squared) == list(local.net_squared)


def test_punto_banco_s_faces_hold_each_card_s_rank_and_points() -> None:
    """The punto banco kernel shuffles one byte a card: its rank and its points."""
    codes = np.arange(JOKER_CODE + 1)
    faces = baccarat_faces(codes)
    points = [0 if c == JOKER_CODE else card_value(card_of(int(c))) for c in codes]
    assert faces.dtype == np.uint8
    assert list(faces >> 4) == [code // 4 for code in codes]
    assert list(faces & 15) == points


@pytest.mark.parametrize("game_id", ["punto-banco", "finnish27", "chemin-de-fer"])
def test_shared_tables_cannot_be_changed(game_id: str) -> None:
    """The tables are built once per process and shared by every batch."""
    kernel: Any = kernel_for(game_id, get_game(game_id).load_rules())
    tables = kernel.tables()
    arrays = list(tables.values()) if isinstance(tables, dict) else list(tables)
    assert arrays and not any(array.flags.writeable for array in arrays)
    with pytest.raises(ValueError, match="read-only"):
        arrays[-1][0] = 1


@pytest.mark.parametrize(
    ("game_id", "strategy", "changes"),
    [
        ("finnish27", "basic", {}),
        ("finnish27", "basic", {"charlie": 6, "jokers_wild": False}),
        ("21-24-27", "basic", {}),
        ("21-24-27", "optimal", {}),
    ],
)
def test_the_finnish_kernels_tables_read_from_the_disk_are_the_ones_built(
    game_id: str,
    strategy: str,
    changes: dict[str, Any],
    tmp_path: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A Finnish kernel's tables are kept on disk (building them asks the engine tens of
    thousands of questions before a run's workers start): what a second process reads
    back is each table as built, its type, shape and every entry."""
    from cardroom.games.finnish import kernel as finnish_kernel

    monkeypatch.setenv("CARDROOM_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("CARDROOM_NO_CACHE", raising=False)
    rules = replace(get_game(game_id).default_rules(), **changes)
    if game_id == "finnish27":
        built = finnish_kernel.Finnish27Kernel(rules)._build_tables()
        kind, extra = "finnish27 kernel tables", repr(Finnish27Kernel(rules).bonus_keys)
    else:
        built = finnish_kernel._tables_2124(rules)
        kind, extra = "21-24-27 kernel tables", ""
        kernel = finnish_kernel.TwentyOne2427Kernel.build(rules, strategy)  # (kept, then read)
        again = finnish_kernel.TwentyOne2427Kernel.build(rules, strategy)
        assert again.decisions.dtype == np.bool_
        assert np.array_equal(again.decisions, kernel.decisions)
    calls: list[int] = []

    def build() -> dict[str, np.ndarray]:
        calls.append(1)
        return built

    first = finnish_kernel.kept_tables(kind, rules, extra, build)
    second = finnish_kernel.kept_tables(kind, rules, extra, build)
    assert calls == [1]  # the second read the disk
    assert list(second) == list(built)
    for name, table in built.items():
        assert first[name] is table
        assert second[name].dtype == table.dtype and second[name].shape == table.shape, name
        assert np.array_equal(second[name], table), name
    # one entry for the tables, and for 21-24-27 one for the strategy's decisions
    assert len(list(tmp_path.glob("*.json"))) == (1 if game_id == "finnish27" else 2)
