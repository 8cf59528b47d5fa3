"""Hostile rules files: nested too deeply for the parser, a whole number too long for
Python to read, a list of millions of values; each a one-line error, soon."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cardroom.core.rules import (
    Between,
    RulesError,
    apply_rules,
    check_ranges,
    load_rules_file,
    load_rules_text,
    rule,
)
from cardroom.games import get_game
from cardroom.games.finnish.finnish27 import Finnish27Rules
from cardroom.terminal.cli import app

DEEP = "x = " + "[" * 100_000 + "]" * 100_000 + "\n"
DIGITS = sys.get_int_max_str_digits() or 4300
LONG = "9" * (DIGITS + 1)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "hostile.toml"
    path.write_text(text, encoding="utf-8")
    return path


def one_line_error(caught: pytest.ExceptionInfo[RulesError]) -> str:
    message = str(caught.value)
    assert "\n" not in message and len(message) < 300
    return message


def test_a_rules_file_nested_too_deeply_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(RulesError) as caught:
        load_rules_file(Finnish27Rules(), write(tmp_path, DEEP))
    assert one_line_error(caught) == (
        f"rules file {str(tmp_path / 'hostile.toml')!r} is nested too deeply "
        "(lists or tables inside one another)"
    )


@pytest.mark.parametrize(
    "text",
    [DEEP, "x = " + "{a = " * 100_000 + "1" + "}" * 100_000],
    ids=["lists", "inline tables"],
)
def test_rules_text_nested_too_deeply_as_a_record_replays_it_is_a_one_line_error(
    text: str,
) -> None:
    with pytest.raises(RulesError) as caught:
        load_rules_text(Finnish27Rules(), text, "the finnish27 record")
    assert one_line_error(caught).startswith("the finnish27 record is nested too deeply")


def test_the_rules_command_refuses_a_deep_file_in_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["rules", "finnish27", "--rules", str(write(tmp_path, DEEP))])
    assert result.exit_code not in (0, None) and not isinstance(result.exception, RecursionError)
    assert "nested too deeply" in result.stderr
    assert result.stderr.strip().count("\n") == 0 and "Traceback" not in result.output


@pytest.mark.parametrize(
    ("game", "text", "where"),
    [
        ("finnish27", f"player_pays = {LONG}\n", "'player_pays'"),
        ("finnish27", f"push_pays = 7\n[shoe]\ndecks = {LONG}\n", "'shoe.decks'"),
        ("finnish27", f"shoe.decks = -{LONG}  # a comment\n", "'shoe.decks'"),
        ("punto-banco", f"b27_totals = [2, {LONG}]\n", "'b27_totals'"),
        ("punto-banco", f"# {LONG}\nb27_totals = [\n  2,\n  {LONG},\n]\n", "line 4"),
    ],
    ids=["key", "table's key", "dotted key", "in a list", "on a line of its own"],
)
def test_a_whole_number_too_long_to_read_names_its_key(
    game: str, text: str, where: str, tmp_path: Path
) -> None:
    with pytest.raises(RulesError) as caught:
        load_rules_file(get_game(game).load_rules(), write(tmp_path, text))
    assert one_line_error(caught).endswith(
        f"hostile.toml': {where}: the number is too long (more than {DIGITS} digits)"
    )
    with pytest.raises(RulesError) as caught:
        load_rules_text(get_game(game).load_rules(), text, "the round")
    assert one_line_error(caught).startswith(f"the round: {where}: the number is too long")


def test_the_rules_command_refuses_a_too_long_number_in_one_line(tmp_path: Path) -> None:
    path = write(tmp_path, "player_pays = " + "9" * 100_000 + "\n")
    result = CliRunner().invoke(app, ["rules", "finnish27", "--rules", str(path)])
    assert result.exit_code not in (0, None) and not isinstance(result.exception, ValueError)
    assert "'player_pays': the number is too long" in result.stderr
    assert result.stderr.strip().count("\n") == 0 and "Traceback" not in result.output


def test_a_long_number_that_python_can_read_is_still_checked_as_before() -> None:
    with pytest.raises(RulesError) as caught:
        load_rules_text(Finnish27Rules(), "player_pays = " + "9" * DIGITS)
    assert "'player_pays' must be odds" in one_line_error(caught)


class Counted(int):
    """A whole number that counts how often it is compared for equality."""

    compared = 0

    def __eq__(self, other: object) -> bool:
        Counted.compared += 1
        return int(self) == other

    def __hash__(self) -> int:
        return int.__hash__(self)


@dataclass(frozen=True)
class Wide:
    values: tuple[int, ...] = rule((), "any whole numbers", range=Between(0, 10**9))


def test_a_value_given_twice_is_found_in_linear_time() -> None:
    n = 3000
    Counted.compared = 0
    values = (*(Counted(i) for i in range(n)), Counted(n - 1))
    with pytest.raises(ValueError, match=rf"^values: {n - 1} is given twice$"):
        check_ranges(Wide(values))
    assert Counted.compared < 10 * n  # not n * n / 2


@pytest.mark.parametrize(
    ("values", "twice"), [((3, 5, 5, 3), 5), ((3, 5, 3, 5), 3), ((1, 2, 2, 2, 1), 2)]
)
def test_the_first_value_given_again_is_the_one_reported(
    values: tuple[int, ...], twice: int
) -> None:
    with pytest.raises(ValueError, match=rf"^values: {twice} is given twice$"):
        check_ranges(Wide(values))


def test_a_list_longer_than_its_range_allows_is_refused_naming_the_key() -> None:
    with pytest.raises(RulesError) as caught:
        apply_rules(get_game("punto-banco").load_rules(), {"b27_totals": [1] * 2_000_001})
    assert one_line_error(caught) == (
        "rules: 'b27_totals' may list at most 10 values, not 2000001: each must be a whole "
        "number between 0 and 9, and none given twice"
    )


def test_a_list_in_a_row_longer_than_its_range_allows_is_refused_naming_the_key() -> None:
    data = {"tableau": {"banker": [{"banker": 0, "draws_on": list(range(10)) * 2}]}}
    with pytest.raises(RulesError) as caught:
        apply_rules(get_game("baccarat27").load_rules(), data)
    assert one_line_error(caught).startswith(
        "rules: 'tableau.banker[0].draws_on' may list at most 10 values, not 20"
    )


def test_a_list_of_every_value_its_range_allows_is_still_taken() -> None:
    rules = apply_rules(get_game("punto-banco").load_rules(), {"b27_totals": list(range(10))})
    assert rules.b27_totals == tuple(range(10))
    with pytest.raises(RulesError, match=r"'b27_totals': 8 is given twice"):
        apply_rules(get_game("punto-banco").load_rules(), {"b27_totals": [*range(9), 8]})
