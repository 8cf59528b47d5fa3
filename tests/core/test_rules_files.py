"""Rules as data: frozen defaults from RULES.md, variants from TOML, bad files refused."""

from __future__ import annotations

import dataclasses
import math
import re
import tomllib
import typing
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cardroom.core.rules import (
    RulesError,
    apply_rules,
    load_rules_file,
    rules_to_dict,
    rules_to_toml,
)
from cardroom.games import GAMES, UnknownGame, get_game
from cardroom.games.finnish.finnish27 import Finnish27Rules
from cardroom.games.finnish.twentyone_24_27 import TwentyOne2427Rules
from cardroom.terminal.cli import app


def test_defaults_are_the_rules_of_the_sources() -> None:
    f = Finnish27Rules()
    assert (f.shoe.decks, f.shoe.jokers_per_deck, f.shoe.reshuffle_after) == (6, 2, 243)
    assert (f.player_pays, f.dealer_pays, f.push_pays) == (1, Fraction(4, 5), 7)
    assert (f.table.minimum, f.bonus.nines_vs_dealer_nines) == (10, 999)
    t = TwentyOne2427Rules()
    assert (t.dealer_hits_hard_below, t.dealer_hits_soft_below, t.win_pays) == (21, 24, 1)


def test_rules_are_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        Finnish27Rules().dealer_pays = Fraction(1)  # type: ignore[misc]


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "variant.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_variant_file_changes_only_what_it_names(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        dealer_pays = "19:20"
        push_pays = 8
        [shoe]
        decks = 8
        jokers_per_deck = 1
        reshuffle_after = 300
        [table]
        minimum = 25
        maximum = 2500
        [bonus]
        finnish_27 = "1:1"
        pair = "1/4"
        """,
    )
    rules = load_rules_file(Finnish27Rules(), path)
    assert rules.dealer_pays == Fraction(19, 20) and rules.push_pays == 8
    assert (rules.shoe.decks, rules.shoe.jokers_per_deck, rules.shoe.reshuffle_after) == (8, 1, 300)
    assert (rules.table.minimum, rules.table.maximum) == (25, 2500)
    assert rules.bonus.finnish_27 == 1 and rules.bonus.pair == Fraction(1, 4)
    assert rules.player_pays == 1 and rules.bonus.flush == 6  # untouched


def test_a_variant_can_rewrite_the_player_table(tmp_path: Path) -> None:
    rows = "\n".join(
        f'[[player_table]]\ndealer = "{kind}"\nlow = {low}\nhigh = {high}\nhard = 24\nsoft = 25'
        for kind, low, high in (("hard", 4, 26), ("soft", 15, 26))
    )
    rules = load_rules_file(Finnish27Rules(), write(tmp_path, rows))
    assert len(rules.player_table) == 2 and rules.player_table[0].hard == 24


def test_reshuffle_point_as_a_fraction_of_the_shoe() -> None:
    rules = apply_rules(Finnish27Rules(), {"shoe": {"reshuffle_fraction": "1/2"}})
    assert rules.shoe.reshuffle_after == 162
    rules = apply_rules(Finnish27Rules(), {"shoe": {"reshuffle_fraction": 0.75, "decks": 8}})
    assert rules.shoe.reshuffle_after == 324


def test_a_smaller_shoe_keeps_the_default_reshuffle_fraction() -> None:
    rules = apply_rules(Finnish27Rules(), {"shoe": {"decks": 2}})
    assert rules.shoe.reshuffle_after == 81  # 3/4 of 108, as 243 is 3/4 of 324


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('dealer_pay = "4:5"', "unknown key 'dealer_pay'"),
        ("[bonus]\nflsh = 6", "unknown key 'bonus.flsh'"),
        ('dealer_pays = "four to five"', "'dealer_pays' must be odds"),
        ('dealer_pays = "-1:5"', "'dealer_pays' must be odds"),
        ("[shoe]\ndecks = 0", "'shoe.decks': must be a whole number between 1 and 64, not 0"),
        ("[shoe]\ndecks = 100000", "'shoe.decks': must be a whole number between 1 and 64"),
        (
            "[shoe]\njokers_per_deck = 9",
            "'shoe.jokers_per_deck': must be a whole number between 0 and 8",
        ),
        (
            "dealer_hits_hard_below = 99",
            "'dealer_hits_hard_below': must be a whole number between 0 and 28, not 99",
        ),
        ("[bonus]\nflush = 5000", "'bonus.flush': must be odds such as \"4:5\" or 2, between 0:1"),
        ('[shoe]\ndecks = "six"', "'shoe.decks' must be a whole number"),
        ("[shoe]\ndecks = 2.5", "'shoe.decks' must be a whole number"),
        ("[shoe]\nreshuffle_after = 400", "'shoe.reshuffle_after'"),
        ('[shoe]\nreshuffle_fraction = "2"', "'shoe.reshuffle_fraction'"),
        ("[table]\nminimum = 0", "'table.minimum'"),
        ("[table]\nminimum = 50\nmaximum = 20", "'table.maximum'"),
        ("shoe = 3", "'shoe' must be a table"),
        (
            '[[player_table]]\ndealer = "hard"\nlow = 4\nhigh = 26\nhard = 23\nsoft = 25',
            "'player_table': no row covers a dealer's soft 15",
        ),
        (
            '[[player_table]]\ndealer = "warm"\nlow = 4\nhigh = 26\nhard = 23\nsoft = 25',
            "'player_table[0].dealer'",
        ),
        ("[[player_table]]\ndealr = 1", "unknown key 'player_table[0].dealr'"),
        ("dealer_pays = ", "not valid TOML"),
        ("player_loses_over = 20", "'player_loses_over'"),
        ("player_loses_over = true", "must be a whole number"),
    ],
)
def test_bad_rules_files_are_refused_naming_the_key(
    tmp_path: Path, text: str, message: str
) -> None:
    with pytest.raises(RulesError, match=message.replace("[", r"\[").replace("]", r"\]")):
        load_rules_file(Finnish27Rules(), write(tmp_path, text))


def test_a_missing_rules_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(RulesError, match="cannot read rules file"):
        load_rules_file(Finnish27Rules(), tmp_path / "nope.toml")


def test_21_24_27_forced_play_is_data(tmp_path: Path) -> None:
    path = write(tmp_path, "[forced]\nmust_hit_hard_below = 13\n")
    assert load_rules_file(TwentyOne2427Rules(), path).forced.must_hit_hard_below == 13
    with pytest.raises(RulesError, match=r"unknown key 'forced\.must_hit_below'"):
        load_rules_file(TwentyOne2427Rules(), write(tmp_path, "[forced]\nmust_hit_below = 3"))


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_game_round_trips_its_rules_through_data(game: str) -> None:
    rules = get_game(game).load_rules()
    assert apply_rules(rules, rules_to_dict(rules)) == rules


def test_unknown_game_names_the_known_ones() -> None:
    with pytest.raises(UnknownGame, match="unknown game 'baccarat': cardroom knows finnish27"):
        get_game("baccarat")


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_printed_rules_file_loads_back_to_the_same_rules(game: str, tmp_path: Path) -> None:
    rules = get_game(game).load_rules()
    text = rules_to_toml(rules)
    assert load_rules_file(rules, write(tmp_path, text)) == rules
    decks = rules.shoe.decks
    changed = text.replace(f"decks = {decks}", f"decks = {decks + 1}")
    assert load_rules_file(rules, write(tmp_path, changed)).shoe.decks == decks + 1


SIZE_EDITS = [
    (game, key, value)
    for game in sorted(GAMES)
    for key, value in (("decks", 1), ("decks", 5), ("jokers_per_deck", 1))
    if not (key == "jokers_per_deck" and game == "chemin-de-fer")  # played without Jokers
]


@pytest.mark.parametrize(("game", "key", "value"), SIZE_EDITS)
def test_editing_only_the_shoe_size_in_the_printed_file_keeps_the_reshuffle_share_or_cut(
    game: str, key: str, value: int, tmp_path: Path
) -> None:
    rules = get_game(game).load_rules()
    shoe = rules.shoe
    text = rules_to_toml(rules)
    edited = text.replace(f"{key} = {getattr(shoe, key)}\n", f"{key} = {value}\n", 1)
    assert edited != text
    changed = load_rules_file(rules, write(tmp_path, edited)).shoe
    assert getattr(changed, key) == value
    if shoe.cut_card is not None:  # the baccarat games: the cut card stays where it was
        assert changed.cut_card == shoe.cut_card
        assert changed.reshuffle_after == changed.size - shoe.cut_card
    else:  # the Finnish games: the same share of the shoe is dealt
        share = Fraction(shoe.reshuffle_after, shoe.size)
        assert changed.reshuffle_after == max(1, math.floor(share * changed.size))


def test_a_variant_printed_again_keeps_its_share_of_the_shoe(tmp_path: Path) -> None:
    one_deck = rules_to_toml(Finnish27Rules()).replace("decks = 6\n", "decks = 1\n")
    variant = load_rules_file(Finnish27Rules(), write(tmp_path, one_deck))
    again = rules_to_toml(variant)
    assert 'reshuffle_fraction = "3/4"' in again  # not 40 of 54 cards, "20/27"
    back = again.replace("decks = 1\n", "decks = 6\n")
    assert load_rules_file(Finnish27Rules(), write(tmp_path, back)) == Finnish27Rules()


def test_the_issue_example_a_one_deck_finnish27_and_punto_banco(tmp_path: Path) -> None:
    finnish = rules_to_toml(Finnish27Rules()).replace("decks = 6\n", "decks = 1\n")
    assert load_rules_file(Finnish27Rules(), write(tmp_path, finnish)).shoe.reshuffle_after == 40
    punto = get_game("punto-banco").load_rules()
    edited = rules_to_toml(punto).replace("decks = 8\n", "decks = 1\n")
    assert load_rules_file(punto, write(tmp_path, edited)).shoe.reshuffle_after == 52 - 16


def test_the_printed_file_states_the_reshuffle_point_in_one_form_that_scales() -> None:
    finnish = rules_to_toml(Finnish27Rules())
    assert 'reshuffle_fraction = "3/4"' in finnish
    punto = rules_to_toml(get_game("punto-banco").load_rules())
    assert "cut_card = 16" in punto
    for text in (finnish, punto):
        assert "reshuffle_after" not in text


def test_an_explicit_reshuffle_count_is_printed_as_its_share_and_loads_back() -> None:
    rules = apply_rules(Finnish27Rules(), {"shoe": {"reshuffle_after": 250}})
    assert 'reshuffle_fraction = "125/162"' in rules_to_toml(rules)
    assert apply_rules(Finnish27Rules(), rules_to_dict(rules)) == rules


@pytest.mark.parametrize("game", ["finnish27", "punto-banco"])
def test_an_explicit_reshuffle_after_still_works(game: str) -> None:
    shoe = apply_rules(get_game(game).load_rules(), {"shoe": {"reshuffle_after": 200}}).shoe
    assert (shoe.reshuffle_after, shoe.cut_card) == (200, None)


@pytest.mark.parametrize(
    ("game", "shoe", "first", "second"),
    [
        (
            "punto-banco",
            {"decks": 1, "reshuffle_after": 400, "cut_card": 16},
            "reshuffle_after",
            "cut_card",
        ),
        (
            "finnish27",
            {"decks": 1, "reshuffle_after": 243, "reshuffle_fraction": "3/4"},
            "reshuffle_after",
            "reshuffle_fraction",
        ),
        (
            "finnish27",
            {"reshuffle_fraction": "1/2", "cut_card": 16},
            "reshuffle_fraction",
            "cut_card",
        ),
    ],
)
def test_two_forms_of_the_reshuffle_point_that_disagree_are_refused(
    game: str, shoe: dict[str, Any], first: str, second: str
) -> None:
    message = rules_error(game, {"shoe": shoe})
    assert f"'shoe.{first}': " in message and f"{second} = " in message
    assert "disagree" in message and "give only one of them" in message


@pytest.mark.parametrize(
    ("game", "shoe", "after"),
    [
        ("punto-banco", {"reshuffle_after": 400, "cut_card": 16}, 400),  # an older printed file
        ("finnish27", {"reshuffle_after": 243, "reshuffle_fraction": "3/4"}, 243),
        ("finnish27", {"decks": 1, "reshuffle_after": 40, "reshuffle_fraction": 0.75}, 40),
    ],
)
def test_two_forms_that_agree_are_accepted(game: str, shoe: dict[str, Any], after: int) -> None:
    assert apply_rules(get_game(game).load_rules(), {"shoe": shoe}).shoe.reshuffle_after == after


def test_the_rules_command_prints_a_file_whose_decks_can_be_edited(tmp_path: Path) -> None:
    for game in sorted(GAMES):
        printed = CliRunner().invoke(app, ["rules", game])
        assert printed.exit_code == 0
        edited = write(tmp_path, re.sub(r"(?m)^decks = \d+$", "decks = 1", printed.stdout))
        again = CliRunner().invoke(app, ["rules", game, "--rules", str(edited)])
        assert again.exit_code == 0, again.stderr
        assert "decks = 1\n" in again.stdout


def rules_error(game: str, data: dict[str, Any]) -> str:
    """The message with which ``data`` is refused as a variant of ``game``."""
    with pytest.raises(RulesError) as caught:
        apply_rules(get_game(game).load_rules(), data)
    return str(caught.value)


@pytest.mark.parametrize("value", [-10, 0, "-10", "0.00"])
def test_a_table_limit_out_of_range_is_worded_as_an_amount(value: object) -> None:
    message = rules_error("finnish27", {"table": {"minimum": value}})
    assert "'table.minimum': must be an amount such as 10 or 12.50, above 0" in message
    assert "odds" not in message


@pytest.mark.parametrize("value", ["ten", "4:5", True, [10]])
def test_a_table_limit_of_the_wrong_kind_is_worded_as_an_amount(value: object) -> None:
    message = rules_error("punto-banco", {"table": {"maximum": value}})
    assert "'table.maximum' must be an amount such as 10 or 12.50, not" in message


def test_odds_out_of_range_are_worded_as_odds() -> None:
    message = rules_error("finnish27", {"dealer_pays": -1})
    assert "'dealer_pays': must be odds such as \"4:5\" or 2, between 0:1 and 1000:1" in message


def test_a_share_is_worded_as_a_share() -> None:
    assert "'commission' must be a share such as 0.05" in rules_error(
        "chemin-de-fer", {"commission": "five percent"}
    )
    assert "'commission': must be a share such as 0.05" in rules_error(
        "chemin-de-fer", {"commission": "1/1"}
    )


@pytest.mark.parametrize("game", ["punto-banco", "baccarat27", "chemin-de-fer"])
@pytest.mark.parametrize("value", [11, 0, -3])
def test_natural_from_out_of_range_says_its_range(game: str, value: int) -> None:
    message = rules_error(game, {"tableau": {"natural_from": value}})
    assert "'tableau.natural_from': must be a whole number between 1 and 10" in message
    assert "needs one row" not in message


FAR_OUT = {"high": 10**12, "low": -(10**12)}


def numeric_fields(rules: Any, prefix: str = "") -> Iterator[tuple[str, str, Any, str]]:
    """Every numeric field of ``rules`` (nested tables and table rows included), found by
    introspection, once set far above and once far below any range: its key, which way,
    the value a file gives for it, and the key the refusal must name (a list's: its
    first element's)."""
    hints = typing.get_type_hints(type(rules))
    for f in dataclasses.fields(rules):
        key, value, tp = f"{prefix}{f.name}", getattr(rules, f.name), hints[f.name]
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if typing.get_origin(tp) is not tuple and args:
            (tp,) = args  # X | None
        if dataclasses.is_dataclass(tp):
            yield from numeric_fields(value if value is not None else tp(), f"{key}.")
        elif typing.get_origin(tp) is tuple:
            item = typing.get_args(tp)[0]
            if dataclasses.is_dataclass(item):
                if not value:
                    continue  # no row to change (another game's default has some)
                rows = rules_to_dict(rules)[f.name]
                for sub, way, bad, named in numeric_fields(value[0], f"{key}[0]."):
                    changed = [dict(rows[0]), *rows[1:]]
                    _set(changed[0], sub.removeprefix(f"{key}[0]."), bad)
                    yield sub, way, changed, named
            elif item in (int, Fraction):
                for way, far in FAR_OUT.items():
                    yield key, way, [far], f"{key}[0]"
        elif tp in (int, Fraction):
            for way, far in FAR_OUT.items():
                yield key, way, far, key


def _set(data: dict[str, Any], dotted: str, value: Any) -> None:
    *tables, last = dotted.split(".")
    for name in tables:
        data = data.setdefault(name, {})
    data[last] = value


def far_out_cases() -> Iterator[Any]:
    for game in sorted(GAMES):
        for key, way, bad, named in numeric_fields(get_game(game).load_rules()):
            yield pytest.param(game, key, bad, named, id=f"{game}:{key}:{way}")


@pytest.mark.parametrize(("game", "key", "bad", "named"), list(far_out_cases()))
def test_every_numeric_rule_has_a_range_named_in_its_error(
    game: str, key: str, bad: Any, named: str
) -> None:
    data: dict[str, Any] = {}
    _set(data, key.split("[0].")[0], bad)  # a row's field: ``bad`` is the whole list of rows
    message = rules_error(game, data)
    range_words = r"(between|above|at least|at most|below)"
    assert re.search(rf"'{re.escape(named)}': must be .*{range_words}", message), message


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"b27_totals": [2, 99]},
            "'b27_totals[1]': must be a whole number between 0 and 9, not 99",
        ),
        ({"b27_totals": [7, 2, 7]}, "'b27_totals': 7 is given twice"),
        (
            {"banker_pays_by_total": [{"total": 2, "pays": 2}, {"total": 2, "pays": 3}]},
            "'banker_pays_by_total': the total 2 is given twice",
        ),
        (
            {"banker_pays_by_total": [{"total": 10, "pays": 2}]},
            "'banker_pays_by_total[0].total': must be a whole number between 0 and 9, not 10",
        ),
        (
            {"tableau": {"banker": [{"banker": 0, "draws_on": [1, 12]}]}},
            "'tableau.banker[0].draws_on[1]': must be a whole number between 0 and 9",
        ),
    ],
)
def test_each_total_of_a_list_is_in_range_and_given_once(
    data: dict[str, Any], message: str
) -> None:
    assert message in rules_error("baccarat27", data)


def test_chemin_de_fer_refuses_jokers_naming_the_key() -> None:
    message = rules_error("chemin-de-fer", {"shoe": {"jokers_per_deck": 2}})
    assert "'shoe.jokers_per_deck': must be 0: chemin de fer has no Jokers" in message


def test_a_forced_stand_below_the_forced_hit_is_refused() -> None:
    message = rules_error("21-24-27", {"forced": {"must_stand_hard_from": 14}})
    assert "'forced.must_stand_hard_from': must be a whole number between" in message
    assert "must_hit_hard_below (15) and 28, not 14" in message


def test_a_relative_target_must_stay_between_0_and_28() -> None:
    row = {"dealer": "hard", "low": 24, "high": 26, "relative": 3}
    message = rules_error("finnish27", {"player_table": [row]})
    assert "'player_table[0].relative': must be a whole number between -24 and 2" in message


def test_the_table_has_a_money_unit_printed_as_a_decimal_and_loaded_back() -> None:
    rules = Finnish27Rules()
    assert rules.table.unit == Fraction(1, 100)
    text = rules_to_toml(rules)
    assert 'unit = "0.01"' in text.split("[table]")[1].split("\n\n")[0]
    assert apply_rules(rules, tomllib.loads(text)) == rules
    for written in (0.05, "0.05", "1/20"):
        assert apply_rules(rules, {"table": {"unit": written}}).table.unit == Fraction(1, 20)
    whole = apply_rules(rules, {"table": {"unit": 5, "minimum": 25, "maximum": 500}})
    assert whole.table.unit == 5 and "unit = 5\n" in rules_to_toml(whole)


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"unit": 0}, "'table.unit': must be an amount such as 10 or 12.50, above 0 and at most"),
        ({"unit": -1}, "'table.unit': must be an amount"),
        (
            {"unit": 20},
            "'table.unit': must be an amount such as 10 or 12.50, above 0 and at most the "
            "minimum 10, not 20",
        ),
        ({"unit": "cent"}, "'table.unit' must be an amount such as 10 or 12.50, not 'cent'"),
        (
            {"minimum": "10.005"},
            "'table.minimum': must be a whole multiple of the unit 0.01, not 10.005",
        ),
        ({"unit": 3}, "'table.minimum': must be a whole multiple of the unit 3, not 10"),
        (
            {"unit": 5, "maximum": 1001},
            "'table.maximum': must be a whole multiple of the unit 5, not 1001",
        ),
    ],
)
def test_a_bad_money_unit_is_refused_naming_the_key(table: dict[str, Any], message: str) -> None:
    assert message in rules_error("punto-banco", {"table": table})


@pytest.mark.parametrize("value", ["1e5000", "1e-5000", "1e999999999", "1" + "0" * 5000, 1e308])
@pytest.mark.parametrize(
    ("game", "key"),
    [
        ("finnish27", "dealer_pays"),
        ("finnish27", "table.minimum"),
        ("punto-banco", "shoe.reshuffle_fraction"),
    ],
)
def test_an_absurd_number_is_a_one_line_error_naming_the_key(
    game: str, key: str, value: object
) -> None:
    data: dict[str, Any] = {}
    _set(data, key, value)
    message = rules_error(game, data)
    assert f"'{key}'" in message and "\n" not in message and len(message) < 300


@pytest.mark.parametrize(
    ("game", "data", "message"),
    [
        (
            "finnish27",
            {"dealer_pays": "1:1001"},
            "'dealer_pays': must be odds such as \"4:5\" or 2, with at most 1000 on the right, "
            "not 1:1001",
        ),
        (
            "finnish27",
            {"bonus": {"nines_suited": "1/1024"}},
            "'bonus.nines_suited': must be a number such as 9 or 99, with a denominator of at "
            "most 1000",
        ),
        (
            "chemin-de-fer",
            {"commission": "1/100001"},
            "'commission': must be a share such as 0.05 or \"1/20\", with a denominator of at "
            "most 10000",
        ),
        (
            "punto-banco",
            {"table": {"unit": "0.0000001"}},
            "'table.unit': must be an amount such as 10 or 12.50, with a denominator of at most "
            "1000000",
        ),
    ],
)
def test_a_payout_finer_than_the_engines_count_is_refused(
    game: str, data: dict[str, Any], message: str
) -> None:
    assert message in rules_error(game, data)


@pytest.mark.parametrize(
    ("game", "data", "message"),
    [
        (
            "finnish27",
            {"player_table": [{"dealer": "hard"}]},
            "'player_table[0]': needs low and high",
        ),
        (
            "baccarat27",
            {"banker_pays_by_total": [{"total": 2}]},
            "'banker_pays_by_total[0]': needs pays",
        ),
        (
            "punto-banco",
            {"tableau": {"banker": [{"banker": 0}]}},
            "'tableau.banker[0]': needs draws_on",
        ),
        ("punto-banco", {"b27_totals": 7}, "'b27_totals' must be a list, not 7"),
        (
            "chemin-de-fer",
            {"banker_forced_by_tableau": True, "natural_from": 9},
            "'tableau.natural_from': must equal natural_from (9) when banker_forced_by_tableau "
            "is true, not 8",
        ),
    ],
)
def test_structural_errors_read_right_for_the_key(
    game: str, data: dict[str, Any], message: str
) -> None:
    assert message in rules_error(game, data)
