"""The integrity monitor: its numbers against hand-computed ones and exact tails, its
false alarms on fair tables (dealt through the application's own tables, and many
thousands of fair tallies drawn from the exact lines), and the faults it finds within the
rounds the power calculation predicts: a finnish27 shoe short of cards, a punto banco
banker who never draws, a chemin de fer table that takes too much commission.

Every table here deals from a seeded shoe: each run deals the same cards."""

from __future__ import annotations

import itertools
import math
import shutil
from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from cardroom.app.operators.integrity import (
    COMMISSION,
    DEFAULT_LIMIT,
    CommissionExpectation,
    CommissionTally,
    ExpectedLine,
    IntegrityMonitor,
    Verdict,
    WagerExpectation,
    WagerTally,
    Window,
    commission_expectation,
    false_alarm_rate,
    judge,
    lattice_span,
    read_wager_tallies,
    rounds_to_detect,
    tail_probability,
    wager_expectations,
)
from cardroom.app.tables.chemmy import ChemmyTable
from cardroom.app.tables.stored import StoredTables
from cardroom.app.variants import Variants
from cardroom.app.wallet import Wallet
from cardroom.core.shoe import SeededShuffler, Shoe
from cardroom.games import GameInfo, get_game, house_games, seats_game
from cardroom.games.base import GameRules
from cardroom.games.spec import AnalysisAsk
from cardroom.storage import Database
from tests.conftest import play

F = Fraction

#: the tests that count finnish27 exactly share a worker (its counts are kept per process)
pytestmark = pytest.mark.xdist_group("integrity")


# -- helpers ------------------------------------------------------------------------------------
@pytest.fixture
def sqlite_db(sqlite_template: Path, tmp_path: Path) -> Iterator[Database]:
    """A migrated SQLite database of this test's own (the tables deal thousands of rounds
    into it: one backend is enough for that; the reader runs on both, below)."""
    path = tmp_path / "cardroom.sqlite3"
    shutil.copyfile(sqlite_template, path)
    with Database.open(path=path) as db:
        yield db


def house_rules() -> dict[str, GameRules]:
    return {game.id: game.default_rules() for game in house_games()}


def new_tables(wallet: Wallet, rules: Mapping[str, GameRules], seed: int) -> StoredTables:
    seeds = itertools.count(seed)
    return StoredTables(
        wallet,
        rules,
        shuffler=lambda: SeededShuffler(next(seeds)),
        variants=Variants(wallet.db),
        own_variants=True,  # (its variants deal without an operator's public table)
    )


def deal(
    tables: StoredTables,
    account: int,
    game: GameInfo,
    rounds: int,
    stakes: Callable[[int], Mapping[str, Fraction]],
    variant: str | None = None,
    batch: int = 250,
) -> None:
    """``rounds`` rounds at the person's table of ``game`` (or its ``variant``), the bets
    of round ``n`` being ``stakes(n)``, each decision the game's own player strategy's;
    ``batch`` rounds to a transaction (the tables' requests join it)."""
    strategy = game.player_strategy() if game.player_strategy is not None else None
    db = tables.db
    for start in range(0, rounds, batch):
        with db.write():
            for n in range(start, min(rounds, start + batch)):
                played = tables.place(account, "Ann", game, dict(stakes(n)), variant=variant)
                live = played.live
                while live is not None and not live.is_over:
                    assert strategy is not None
                    played = tables.act(account, live.id, strategy(live.engine).value)
                    live = played.live


def every_wager(game: GameInfo, rules: GameRules, amounts: tuple[int, ...] = (10,)) -> Any:
    wagers = game.wagers(rules)

    def stakes(n: int) -> dict[str, Fraction]:
        return {w: F(amounts[(n + i) % len(amounts)]) for i, w in enumerate(wagers)}

    return stakes


def binomial_upper(n: int, p: Fraction, k: int) -> float:
    """P(X >= k) for X binomial(n, p), term by term."""
    q = float(p)

    def term(j: int) -> float:
        log = math.lgamma(n + 1) - math.lgamma(j + 1) - math.lgamma(n - j + 1)
        return math.exp(log + j * math.log(q) + (n - j) * math.log1p(-q))

    return math.fsum(term(j) for j in range(k, n + 1))


#: a wager by hand: the player wins 1 with 9/20, loses 1 with 11/20 (edge 1/10, variance 99/100)
EVEN = WagerExpectation(
    "hand",
    "even",
    (ExpectedLine("win", F(9, 20), F(1)), ExpectedLine("loss", F(11, 20), F(-1))),
    unit=F(1, 100),
    minimum=F(10),
)


# -- (d) the numbers ----------------------------------------------------------------------------
def test_a_hand_made_tally_has_the_hand_computed_hold_z_and_p() -> None:
    # 2,500 rounds at 10 and 2,500 at 30: staked 100,000, squared stakes 2,500,000; the
    # house should keep 10,000 (1/10) with a variance of 99/100 * 2,500,000 = 2,475,000
    tally = WagerTally("web:hand", "hand", "even", ((F(10), 2500), (F(30), 2500)), F(93_000))
    verdict = judge(tally, EVEN)
    assert verdict.rounds == 5000 and verdict.staked == 100_000 and verdict.paid == 93_000
    assert verdict.taken == 7000 and verdict.hold == F(7, 100)
    assert verdict.expected_hold == F(1, 10) and verdict.edge == F(1, 10)
    assert verdict.variance == F(99, 100) and verdict.stake_squares == 2_500_000
    z = -3000 / math.sqrt(2_475_000)  # -1.9069...
    assert verdict.z == pytest.approx(z, rel=1e-12)
    assert verdict.z == pytest.approx(-1.906925, abs=1e-6)
    assert verdict.standard_error == pytest.approx(math.sqrt(2_475_000) / 100_000)
    # near the middle of a two-point wager's sum the normal's tail: p = erfc(|z| / sqrt 2)
    assert verdict.p == pytest.approx(math.erfc(abs(z) / math.sqrt(2)), rel=0.02)
    assert verdict.p == pytest.approx(0.0565, abs=0.0015)
    assert not verdict.alert
    assert "wager even" in verdict.text and "all rounds" in verdict.text
    # 4.2 standard errors the other way: an alert
    far = judge(replace(tally, paid=F(100_000) - F(10_000) - 6600), EVEN)
    assert far.z == pytest.approx(6600 / math.sqrt(2_475_000)) and far.z > DEFAULT_LIMIT
    assert far.alert and far.p < false_alarm_rate(DEFAULT_LIMIT)
    assert far.text.startswith("ALERT: web:hand wager even")


def test_the_tail_is_the_exact_binomial_tail() -> None:
    """Sums of a coin and of punto banco's tie (8 to 1, a long tail): the saddlepoint's
    tail against the exact binomial one, where the normal's is off by half or more."""
    half = F(1, 2)
    coin = [(100, [half, half], [F(1), F(-1)])]
    exact = binomial_upper(100, half, 60)  # the sum is 20 or more: 60 heads or more
    assert tail_probability(coin, F(20)) == pytest.approx(exact, rel=1e-3)
    tie = F(951559680236402, 10**16)
    for n, ties in [(1000, 130), (300, 50), (100, 20)]:
        # the house keeps 1 on each round but a tie, and pays 8 on a tie
        bet = [(n, [tie, 1 - tie], [F(-8), F(1)])]
        exact = binomial_upper(n, tie, ties)
        assert tail_probability(bet, F(n - 9 * ties)) == pytest.approx(exact, rel=0.01)
        mean = n * (1 - 9 * tie)
        z = (n - 9 * ties - mean) / math.sqrt(n * tie * (1 - tie) * 81)
        assert abs(0.5 * math.erfc(abs(float(z)) / math.sqrt(2)) / exact - 1) > 0.3


def test_the_lattice_and_the_power_calculation() -> None:
    assert lattice_span([[F(-10), F(19, 2), F(0)], [F(-30), F(57, 2), F(0)]]) == F(1, 2)
    assert lattice_span([[F(1)]]) == 0
    # a shift of 0.01 at a spread of 1: (4 / 0.01)^2 rounds for an even chance of an alert
    assert rounds_to_detect(F(1, 100), 1.0) == pytest.approx(160_000)
    assert rounds_to_detect(0.01, 1.0, power=0.99) == pytest.approx((4 + 2.326348) ** 2 * 1e4)
    assert rounds_to_detect(0, 1.0) == math.inf
    assert false_alarm_rate(4.0) == pytest.approx(6.334e-5, rel=1e-3)


def test_breakage_is_the_tables_rounding() -> None:
    """A banker win at 10.01 pays 9.50 (0.95 x 10.01 = 9.5095, rounded down to the
    cent), as the engine pays it: the expectation rounds each line the same way."""
    game = get_game("punto-banco")
    rules = game.default_rules()
    banker = wager_expectations(game, rules)["banker"]
    rnd = play(game.new_round(rules, {"banker": "10.01"}), "2s 9s 3h Kh")
    assert rnd.outcome == "banker" and rnd.net["banker"] == F("9.50")
    takes = dict(
        (line.name, take)
        for line, (_, take) in zip(banker.lines, banker.takes(F("10.01")), strict=True)
    )
    assert takes["win"] == -F("9.50") and takes["loss"] == F("10.01")
    tally = WagerTally("web:punto-banco", game.id, "banker", ((F("10.01"), 1000),), F(0))
    verdict = judge(tally, banker)
    win = next(line.probability for line in banker.lines if line.name == "win")
    assert verdict.expected_hold == banker.edge + win * F("0.0095") / F("10.01")


@given(
    rounds=st.integers(1, 5000),
    losses=st.floats(0.0, 1.0),
    scale=st.integers(1, 20),
    limit=st.floats(0.5, 8.0),
)
def test_z_and_p_do_not_depend_on_the_size_of_the_stakes(
    rounds: int, losses: float, scale: int, limit: float
) -> None:
    """Invariants: every stake k times as large (whole units, no rounding) and the
    payouts with them give the same z and p; p is a chance; the alert is p below the
    limit's false-alarm rate; z has the sign of the gap."""
    lost = round(losses * rounds)
    paid = F(20) * (rounds - lost)  # a win returns twice the stake of 10
    small = judge(WagerTally("t", "hand", "even", ((F(10), rounds),), paid), EVEN, limit)
    large = judge(
        WagerTally("t", "hand", "even", ((F(10 * scale), rounds),), paid * scale), EVEN, limit
    )
    assert small.z == pytest.approx(large.z, rel=1e-9, abs=1e-12)
    assert small.p == pytest.approx(large.p, rel=1e-6, abs=1e-300)
    assert 0.0 <= small.p <= 1.0
    assert small.alert == (small.p < false_alarm_rate(limit))
    gap = small.taken - small.expected_hold * small.staked
    assert (small.z > 0) == (gap > 0) and (small.z < 0) == (gap < 0)


@given(rounds=st.integers(50, 3000), near=st.integers(0, 40), further=st.integers(1, 40))
def test_a_larger_gap_is_less_likely(rounds: int, near: int, further: int) -> None:
    mean = rounds * F(9, 20)  # wins
    for side in (1, -1):
        edge = math.ceil(mean) if side > 0 else math.floor(mean)
        wins = [edge + side * (near + k) for k in (0, further)]
        if not all(0 <= w <= rounds for w in wins):
            continue
        ps = [
            judge(WagerTally("t", "hand", "even", ((F(10), rounds),), F(20 * w)), EVEN).p
            for w in wins
        ]
        assert ps[1] <= ps[0] * (1 + 1e-9)


# -- false alarms -------------------------------------------------------------------------------
def fair_alerts(
    expectation: WagerExpectation,
    stake: Fraction,
    rounds: int,
    tallies: int,
    limit: float,
    seed: int,
) -> tuple[int, int]:
    """(the monitor's alerts, the alerts of |z| > limit) among ``tallies`` fair tallies of
    ``rounds`` rounds each, drawn from the exact lines."""
    takes = expectation.takes(stake)
    chances = np.array([float(p) for p, _ in takes])
    counts = np.random.default_rng(seed).multinomial(rounds, chances / chances.sum(), size=tallies)
    values = np.array([float(x) for _, x in takes])
    mean = rounds * sum(float(p * x) for p, x in takes)
    sd = math.sqrt(
        rounds * float(sum(p * x * x for p, x in takes) - sum(p * x for p, x in takes) ** 2)
    )
    z = (counts @ values - mean) / sd
    alerts = 0
    for i in np.flatnonzero(np.abs(z) > limit - 2):  # (the rest are far inside)
        taken = sum((int(c) * x for c, (_, x) in zip(counts[i], takes, strict=True)), F(0))
        tally = WagerTally(
            "t", expectation.game, expectation.wager, ((stake, rounds),), rounds * stake - taken
        )
        alerts += judge(tally, expectation, limit).alert
    return alerts, int((np.abs(z) > limit).sum())


def poisson_bounds(mean: float, sds: float = 5.0) -> tuple[float, float]:
    return mean - sds * math.sqrt(mean) - 1, mean + sds * math.sqrt(mean) + 1


def test_fair_tallies_raise_alerts_at_the_limits_false_alarm_rate() -> None:
    """40,000 fair tallies of 2,000 rounds of punto banco's banker and of its tie: the
    alerts at limits 3 and 4 are as many as the limits' false-alarm rates say (within
    five standard deviations of the count; at 4 about 2.5 in all)."""
    game = get_game("punto-banco")
    figures = wager_expectations(game, game.default_rules())
    tallies = 40_000
    for n, wager in enumerate(("banker", "tie")):
        for limit in (3.0, 4.0):
            alerts, _ = fair_alerts(figures[wager], F(10), 2000, tallies, limit, seed=n)
            low, high = poisson_bounds(tallies * false_alarm_rate(limit))
            assert low <= alerts <= high, (wager, limit, alerts)


@pytest.mark.long
def test_a_wager_with_a_long_tail_raises_no_more_false_alarms() -> None:
    """finnish27's bonus pays 1000 for 1 about once in 680,000 rounds: in 10,000 rounds a
    single such win moves z by -5.9, so |z| > 4 would alert on 1.5% of fair tables, 230
    times the limit's rate.  The monitor's tail is the sum's own: its alerts stay at the
    rate."""
    game = get_game("finnish27")
    player = wager_expectations(game, game.default_rules(), any_stake=False)["player"]
    tallies = 40_000
    for limit in (3.0, 4.0):
        alerts, plain = fair_alerts(player, F(10), 10_000, tallies, limit, seed=7)
        expected = tallies * false_alarm_rate(limit)
        _, high = poisson_bounds(expected)
        assert alerts <= high, (limit, alerts, expected)
        assert plain > 2 * high  # (|z| alone: hundreds of false alarms)


# -- the reader ---------------------------------------------------------------------------------
def test_the_reader_sums_what_the_wallet_holds(db: Database) -> None:
    """One grouped query gives, per table, wager and stake, what the rounds' own ledger
    rows say; only finished rounds begun in the window count; a variant is a table of its
    own; a table whose rules are not known is left unjudged, and says why."""
    wallet = Wallet(db)
    ann = wallet.accounts.open_account("Ann", F(100_000)).id
    bob = wallet.accounts.open_account("Bob", F(100_000)).id
    rules = house_rules()
    tables = new_tables(wallet, rules, seed=11)
    punto = get_game("punto-banco")
    variant = Variants(db).save(punto, replace(rules[punto.id], tie_pays=F(9)))
    deal(tables, ann, punto, 12, every_wager(punto, rules[punto.id], (10, 25)), batch=6)
    since = datetime.now(UTC)
    deal(tables, ann, punto, 20, every_wager(punto, rules[punto.id], (10, 25, 40)), batch=7)
    deal(tables, bob, punto, 15, every_wager(punto, rules[punto.id], (10, 15)))
    deal(tables, bob, punto, 9, lambda n: {"banker": F(20)}, variant=variant)
    twentyone = get_game("21-24-27")
    # a round that waits for a decision (in progress), and one called off (void)
    waiting = []
    for _ in range(40):
        played = tables.place(ann, "Ann", twentyone, {"player": F(10)})
        assert played.live is not None
        if not played.live.is_over:
            waiting.append(played.live.id)
            if len(waiting) == 2:
                break
            tables.act(ann, played.live.id, "stand")
    assert len(waiting) == 2
    wallet.rounds.void_round(waiting[1], {"void": "a test"})
    until = datetime.now(UTC)
    deal(tables, ann, punto, 5, lambda n: {"player": F(10)})  # (after the window)

    window = Window(since, until)
    with db.read() as conn:
        found = read_wager_tallies(conn, window)
    expected: dict[tuple[str, str, str], tuple[dict[Fraction, int], Fraction]] = {}
    for account in (ann, bob):
        for stored in wallet.rounds.latest(account, limit=1000, statuses=("finished",)):
            if not since <= stored.created_at < until:
                continue
            for wager, stake in stored.stakes.items():
                key = (str(stored.table_ref), stored.game, wager)
                counts, paid = expected.setdefault(key, ({}, F(0)))
                counts[stake] = counts.get(stake, 0) + 1
                expected[key] = (counts, paid + stored.paid.get(wager, F(0)))
    assert {(t.table, t.game, t.wager): (dict(t.stakes), t.paid) for t in found} == expected
    refs = {t.table for t in found}
    assert refs == {"web:punto-banco", f"web:punto-banco~{variant}", "web:21-24-27"}
    assert next(t for t in found if t.table == "web:21-24-27").rounds < 40  # (not the open ones)

    def rules_for(key: str) -> GameRules:
        if key.startswith("21-24-27"):
            raise KeyError("no rules for this table in the test")
        return tables.rules_for(key)

    report = IntegrityMonitor(db, rules_for).check(since, until)
    judged = {(v.table, v.wager) for v in report.verdicts}
    assert (f"web:punto-banco~{variant}", "banker") in judged and len(judged) == 4
    variant_banker = next(v for v in report.verdicts if v.key == f"punto-banco~{variant}")
    assert (
        variant_banker.edge
        == wager_expectations(punto, tables.rules_for(variant_banker.key))["banker"].edge
    )
    [unjudged] = report.unjudged
    assert unjudged.table == "web:21-24-27" and "no rules" in unjudged.reason
    assert report.window == window and not report.alerts


# -- (a) fair tables ----------------------------------------------------------------------------
@pytest.mark.xdist_group("integrity-fair")
def test_fair_tables_of_every_house_game_raise_no_alert(sqlite_db: Database) -> None:
    """About 825 rounds at fair tables of the four house games and a variant, every
    wager staked at several amounts, each variant judged on its own rules: no alert (the
    chance of one among these 16 verdicts is 16 x 6.3e-5, about 1 in 1,000), and every
    hold within the limit of its exact expectation."""
    wallet = Wallet(sqlite_db)
    ann = wallet.accounts.open_account("Ann", F(10_000_000)).id
    rules = house_rules()
    tables = new_tables(wallet, rules, seed=100)
    plan = {"punto-banco": 200, "baccarat27": 200, "finnish27": 200, "21-24-27": 125}
    for game_id, rounds in plan.items():
        game = get_game(game_id)
        amounts = (10,) if game_id == "finnish27" else (10, 20, 35)
        deal(tables, ann, game, rounds, every_wager(game, rules[game_id], amounts))
    punto = get_game("punto-banco")
    variant = Variants(sqlite_db).save(punto, replace(rules[punto.id], banker_pays=F(1)))
    deal(tables, ann, punto, 100, every_wager(punto, rules[punto.id], (10, 50)), variant=variant)

    report = IntegrityMonitor(sqlite_db, tables.rules_for).check()
    assert not report.unjudged and report.damaged_records == 0
    assert len(report.verdicts) == 3 + 6 + 3 + 1 + 3
    assert report.alerts == ()
    for verdict in report.verdicts:
        assert abs(verdict.z) < DEFAULT_LIMIT and verdict.p > false_alarm_rate(DEFAULT_LIMIT)
        assert verdict.rounds == plan.get(verdict.key, 100)
    # the variant's banker pays even money: its edge is the variant's, not the game's
    edges = {v.key: v.edge for v in report.verdicts if v.wager == "banker"}
    assert edges[f"punto-banco~{variant}"] < 0 < edges["punto-banco"]


# -- (b), (c) faults found within the rounds the power calculation gives --------------------------
def first_alert(
    db: Database,
    monitor: IntegrityMonitor,
    tables: StoredTables,
    account: int,
    game: GameInfo,
    stakes: Callable[[int], Mapping[str, Fraction]],
    most: int,
    step: int,
) -> tuple[int, Verdict] | None:
    """Deal ``step`` rounds at a time, judging the table after each step, until an alert
    (the rounds dealt and the verdict) or ``most`` rounds."""
    dealt = 0
    while dealt < most:
        now, done = min(step, most - dealt), dealt

        def bets(n: int, done: int = done) -> Mapping[str, Fraction]:
            return stakes(done + n)

        deal(tables, account, game, now, bets)
        dealt += now
        alerts = monitor.check().alerts
        if alerts:
            return dealt, max(alerts, key=lambda v: abs(v.z))
    return None


def power(
    game: GameInfo, stated: GameRules, true: GameRules, wager: str, probability: float = 0.99
) -> float:
    """The rounds the power calculation gives for ``wager`` of a table dealing ``true``
    rules judged on the ``stated`` ones, at one stake of the table minimum."""
    said = wager_expectations(game, stated, any_stake=False)[wager]
    assert game.analyze is not None
    report = game.analyze(true, AnalysisAsk()).report.wagers[wager]
    return rounds_to_detect(
        report.house_edge - said.edge,
        math.sqrt(float(said.variance)),
        math.sqrt(float(report.variance)),
        power=probability,
    )


@pytest.mark.long
def test_a_finnish27_shoe_short_of_its_jokers_raises_an_alert(sqlite_db: Database) -> None:
    """The table's shoe quietly holds no Jokers (its rules say twelve): its push wager
    is held at -2.6% where 11.84% is stated, so the power calculation gives 12,654 rounds
    for an alert with 99% chance (4,816 for an even chance); it comes within them."""
    game = get_game("finnish27")
    stated = game.default_rules()
    short = replace(stated, shoe=replace(stated.shoe, jokers_per_deck=0))
    predicted = power(game, stated, short, "push")
    assert 12_000 < predicted < 13_500
    wallet = Wallet(sqlite_db)
    ann = wallet.accounts.open_account("Ann", F(10_000_000)).id
    tables = new_tables(wallet, {game.id: short}, seed=200)
    monitor = IntegrityMonitor(sqlite_db, lambda key: stated)
    found = first_alert(
        sqlite_db, monitor, tables, ann, game, every_wager(game, short), math.ceil(predicted), 500
    )
    assert found is not None, f"no alert in {predicted:.0f} rounds"
    _, verdict = found
    assert verdict.wager == "push" and verdict.z < -DEFAULT_LIMIT and verdict.hold < verdict.edge
    assert verdict.table == "web:finnish27" and "ALERT" in verdict.text


def test_a_punto_banco_banker_who_never_draws_raises_an_alert(sqlite_db: Database) -> None:
    """A tableau on which the banker never draws (a wrong third-card rule) swings the
    banker wager from a 1.06% edge to 20.4%: the power calculation gives 912 rounds for
    an alert with 99% chance; it comes within them."""
    game = get_game("punto-banco")
    stated = game.default_rules()
    tableau = stated.tableau
    never = replace(
        tableau,
        banker_draws_below_when_player_stands=0,
        banker=tuple(replace(row, draws_on=()) for row in tableau.banker),
    )
    wrong = replace(stated, tableau=never)
    predicted = power(game, stated, wrong, "banker")
    assert 850 < predicted < 1000
    wallet = Wallet(sqlite_db)
    ann = wallet.accounts.open_account("Ann", F(10_000_000)).id
    tables = new_tables(wallet, {game.id: wrong}, seed=300)
    monitor = IntegrityMonitor(sqlite_db, lambda key: stated)
    found = first_alert(
        sqlite_db, monitor, tables, ann, game, every_wager(game, wrong), math.ceil(predicted), 50
    )
    assert found is not None, f"no alert in {predicted:.0f} rounds"
    _, verdict = found
    assert verdict.wager in ("banker", "player") and abs(verdict.z) > DEFAULT_LIMIT


@pytest.mark.long
def test_a_finnish27_shoe_short_of_its_nines_raises_an_alert(sqlite_db: Database) -> None:
    """The example of the issue: every 9 out of finnish27's shoe.  Its push wager is held
    at 13.80% where 11.84% is stated: the power calculation gives 259,366 rounds for an
    even chance of an alert and 644,089 for 99%; it comes within them (some minutes of
    dealing through the tables)."""
    game = get_game("finnish27")
    stated = game.default_rules()
    counts = tuple(0 if rank == 8 else 4 * stated.shoe.decks for rank in range(13))
    short = replace(stated, shoe=replace(stated.shoe, cards_per_rank=counts))
    predicted = power(game, stated, short, "push")
    assert 640_000 < predicted < 650_000
    wallet = Wallet(sqlite_db)
    ann = wallet.accounts.open_account("Ann", F(10**9)).id
    tables = new_tables(wallet, {game.id: short}, seed=400)
    monitor = IntegrityMonitor(sqlite_db, lambda key: stated)
    found = first_alert(
        sqlite_db,
        monitor,
        tables,
        ann,
        game,
        every_wager(game, short),
        math.ceil(predicted),
        25_000,
    )
    assert found is not None, f"no alert in {predicted:.0f} rounds"
    assert found[1].wager in ("push", "player")


# -- (e) chemin de fer's commission ---------------------------------------------------------------
def chemmy_coups(db: Database, rules: Any, coups: int, seed: int) -> None:
    """``coups`` coups at a table of three solved bots and a person the absent policy
    plays (who passes: the bots bank and cover each other), each coup kept for her."""
    wallet = Wallet(db)
    game = seats_game()
    ann = wallet.accounts.open_account(f"Ann{seed}", F(1000)).id
    table = ChemmyTable(
        rules,
        Shoe(rules.shoe, SeededShuffler(seed)),
        wallet,
        np.random.default_rng(seed),
        seat_count=4,
        table_ref="web:chemin-de-fer:1",
    )
    table.sit_person(0, ann, "Ann", F(500))
    for seat in (1, 2, 3):
        table.sit_bot(seat, f"Bot{seat}", F(10**6), game.seated().solved_bot(rules, None))
    table.start()
    assert table.game is not None
    for _ in range(coups):
        assert not table.game.is_over
        while (turn := table.advance()) is not None:
            table.play_for(turn.seat)


def test_chemin_de_fer_commission_is_judged_against_the_solved_coup(sqlite_db: Database) -> None:
    """At 5% of the banker's winnings the house should take 5% of the banks covered
    times the chance that the bank wins when both sides play the solved coup (46.02%):
    600 coups of a fair table raise no alert; a table that takes 10% raises one within
    the 88 coups the power calculation gives."""
    game = seats_game()
    rules = replace(game.default_rules(), commission=F(1, 20))
    expectation = commission_expectation(game, rules)
    assert expectation is not None and expectation.edge == F(1, 20) * expectation.bank_wins
    assert 0.459 < float(expectation.bank_wins) < 0.461
    assert commission_expectation(game, game.default_rules()) is None  # (no commission)
    chemmy_coups(sqlite_db, rules, 600, seed=1)
    monitor = IntegrityMonitor(sqlite_db, lambda key: rules)
    [fair] = monitor.check().verdicts
    assert fair.wager == COMMISSION and fair.table == "web:chemin-de-fer:1"
    assert fair.rounds == 600 and fair.paid is None and not fair.alert
    assert abs(fair.z) < DEFAULT_LIMIT and "commission" in fair.text

    sd, shift = 0.05 * math.sqrt(0.4602 * 0.5398), 0.05 * 0.4602
    predicted = rounds_to_detect(shift, sd, 2 * sd, power=0.99)
    assert 85 < predicted < 90
    greedy = replace(rules, commission=F(1, 10))
    since = datetime.now(UTC)
    chemmy_coups(sqlite_db, greedy, math.ceil(predicted), seed=2)
    [verdict] = monitor.check(since).verdicts
    assert (
        verdict.alert and verdict.z > DEFAULT_LIMIT and verdict.hold > 2 * fair.expected_hold * 0.9
    )


def test_a_commission_tally_by_hand() -> None:
    rates = CommissionExpectation("hand", F(1, 20), F(1, 2), F(1, 100))
    assert rates.fee(F(30)) == F("1.50") and rates.fee(F("10.01")) == F("0.51")  # rounded up
    tally = CommissionTally("web:hand:1", "hand", ((F(30), 400),), F(300))
    verdict = judge(tally, rates)
    # expected 400 x 1/2 x 1.50 = 300, variance 400 x 1.5^2 x 1/4 = 225
    assert verdict.expected_hold == F(300, 12_000) and verdict.z == 0 and verdict.p == 1.0
    again = judge(replace(tally, commission=F(300) + 60), rates)
    assert again.z == pytest.approx(4.0) and again.p < 1e-4
