"""The designer's lab: a game's rules as a form, a variant read back from it, and two
variants' exact figures side by side.  No I/O: the web's workbench (``/lab``) shows
these and computes the figures off the request path.

A form field is one value of the rules as a rules file writes it, under its dotted key
(``shoe.decks``, ``bonus.flush``), with its range in words; a list of plain values
(``side_wagers``) is one field of comma-separated items.  Lists of rows (a strategy
table, the tableau) are shown but changed only by a rules file.

>>> from cardroom.games import GAMES
>>> game = next(g for g in GAMES.values() if g.kind == "house")
>>> fields = form_fields(game.default_rules())
>>> any(f.key == "shoe.decks" and f.kind == "number" for f in fields)
True
"""

from __future__ import annotations

import dataclasses
import inspect
import re
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, TypeVar

from cardroom.core.money import percent_text
from cardroom.core.rules import (
    KIND_WORDS,
    Between,
    RulesError,
    apply_rules,
    rule_fields,
    rules_to_dict,
    show_value,
)
from cardroom.core.rules import RuleField as RulesField

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

#: a rules dataclass
R = TypeVar("R", bound="DataclassInstance")

__all__ = [
    "MAX_FIELDS",
    "EdgeRow",
    "FieldGroup",
    "FormField",
    "LabError",
    "compare_edges",
    "field_groups",
    "form_fields",
    "variant",
]

#: the most values a variant may give (the largest game has about 60 fields)
MAX_FIELDS = 200
#: the longest value a field may be given
MAX_VALUE = 200
_WHOLE = re.compile(r"[+-]?\d{1,18}")


class LabError(ValueError):
    """A variant that cannot be read: one line naming the key."""


@dataclass(frozen=True)
class FormField:
    """One value of the rules, as the form shows it."""

    key: str
    #: "number", "odds", "amount", "share", "multiple", "bool", "choice", "text", "list"
    #: or "rows"
    kind: str
    value: str
    #: the range or the kind of value, in words
    help: str
    editable: bool = True
    #: what the field means, as its rules type says it beside it ("" if it says nothing)
    words: str = ""
    #: a choice field's values, in order
    choices: tuple[str, ...] = ()
    #: a whole number's least and greatest values where they are fixed ("" where they
    #: follow another value, such as the shoe's size)
    low: str = ""
    high: str = ""

    @property
    def label(self) -> str:
        """The field's name in words: ``jokers_per_deck`` -> ``Jokers per deck``."""
        name = self.key.rsplit(".", 1)[-1].replace("_", " ")
        return name[:1].upper() + name[1:]


@dataclass(frozen=True)
class FieldGroup:
    """The form's fields of one part of the rules: the game's own values (its payouts,
    then the rest), then each nested table (the shoe, the limits...) in the order the
    rules give them, each with its title and what it is."""

    title: str
    about: str
    fields: tuple[FormField, ...]


def form_fields(rules: DataclassInstance) -> list[FormField]:
    """Every value of ``rules``, in the order of its dataclass (nested ones by dotted key)."""
    fields: list[FormField] = []
    _walk(rules, rules_to_dict(rules), "", fields)
    return fields


#: the kinds of value that say what a wager pays
_PAYS = frozenset({"odds", "multiple"})


def field_groups(rules: DataclassInstance) -> list[FieldGroup]:
    """:func:`form_fields` in groups, as the rules pages group what they say: what each
    wager pays, how the game is played, then each nested table of the rules."""
    fields = form_fields(rules)
    top = [f for f in fields if "." not in f.key]
    groups = [
        FieldGroup("What each wager pays", "the odds of each wager", _only(top, _PAYS)),
        FieldGroup("How it is played", "the game's own rules", _without(top, _PAYS)),
    ]
    for f in dataclasses.fields(rules):
        value = getattr(rules, f.name)
        if not dataclasses.is_dataclass(value) or isinstance(value, type):
            continue
        inside = tuple(x for x in fields if x.key.startswith(f"{f.name}."))
        about = (inspect.getdoc(type(value)) or "").split("\n\n", 1)[0].replace("\n", " ")
        title = getattr(type(value), "TITLE", f.name.replace("_", " ").capitalize())
        groups.append(FieldGroup(title, about, inside))
    return [g for g in groups if g.fields]


def _only(fields: list[FormField], kinds: frozenset[str]) -> tuple[FormField, ...]:
    return tuple(f for f in fields if f.kind in kinds)


def _without(fields: list[FormField], kinds: frozenset[str]) -> tuple[FormField, ...]:
    return tuple(f for f in fields if f.kind not in kinds)


def _walk(
    obj: DataclassInstance, data: Mapping[str, Any], prefix: str, out: list[FormField]
) -> None:
    """The form fields of ``obj`` (its values as ``data``, a written file, says them), by
    the one walk of every rules field (:func:`cardroom.core.rules.rule_fields`)."""
    for f in rule_fields(type(obj)):
        value = getattr(obj, f.name)
        key = f"{prefix}{f.name}"
        if f.kind == "table":
            _walk(value, data.get(f.name) or rules_to_dict(value), f"{key}.", out)
            continue
        # (a field a written file leaves out: at its default, or said by an older switch)
        shown = data[f.name] if f.name in data else _as_written(value, f.kind)
        if shown is None:
            continue
        out.append(_field(obj, f, key, shown))


def _field(obj: DataclassInstance, f: RulesField, key: str, value: Any) -> FormField:
    """The form field of one value."""
    words = f.about.words
    if f.kind == "choice":
        options = f.about.choices
        return FormField(
            key, "choice", str(value), "one of " + ", ".join(options), words=words,
            choices=options,
        )  # fmt: skip
    if f.kind == "rows":
        return FormField(key, "rows", f"{len(value)} rows", "a rules file", False, words)
    if f.listed:
        items = ", ".join(str(v) for v in value)
        return FormField(key, "list", items, "items separated by commas", words=words)
    if f.kind == "bool":
        return FormField(key, "bool", "true" if value else "false", "true or false", words=words)
    if f.kind in KIND_WORDS:
        bound = f.about.range
        help_ = bound.text(obj, f.kind) if bound is not None else KIND_WORDS[f.kind]
        low, high = _whole_bounds(bound) if f.kind == "number" else ("", "")
        return FormField(key, f.kind, str(value), help_, words=words, low=low, high=high)
    return FormField(key, "text", str(value), "text", words=words)


def _whole_bounds(bound: Between | None) -> tuple[str, str]:
    """A whole number's fixed least and greatest values ("" for one that follows another
    value, or for none)."""
    if bound is None:
        return "", ""
    low = bound.low + bound.above if isinstance(bound.low, int) else None
    high = bound.high - bound.below if isinstance(bound.high, int) else None
    return ("" if low is None else str(low)), ("" if high is None else str(high))


def _as_written(value: object, kind: str) -> object:
    """A field's value as a rules file writes it (None: one the form does not show)."""
    if isinstance(value, bool | int | str):
        return value
    if isinstance(value, Fraction):
        return show_value(value, kind)
    if isinstance(value, tuple) and all(isinstance(v, str | int) for v in value):
        return list(value)  # a list of plain values (a bonus table's flat awards)
    return None


def variant(default: R, values: Mapping[str, object], label: str = "the variant") -> R:
    """``default`` with the form's ``values`` (text by dotted key) put in, checked as a
    rules file is: :class:`LabError` names the first key that cannot be used."""
    if not isinstance(values, Mapping):
        raise LabError(f"{label}: the values are an object of keys and texts")
    if len(values) > MAX_FIELDS:
        raise LabError(f"{label}: at most {MAX_FIELDS} values, not {len(values)}")
    fields = {f.key: f for f in form_fields(default)}
    data: dict[str, Any] = {}
    for key, raw in values.items():
        field = fields.get(key)
        if field is None:
            raise LabError(f"{label}: unknown key {key[:60]!r}")
        if not isinstance(raw, str) or len(raw) > MAX_VALUE:
            raise LabError(f"{label}: '{key}' is text of at most {MAX_VALUE} characters")
        if not field.editable:
            raise LabError(f"{label}: '{key}' is changed only by a rules file")
        if raw.strip() == field.value:
            continue  # unchanged: keeps the default exactly as it is
        node = data
        *parents, name = key.split(".")
        for parent in parents:
            node = node.setdefault(parent, {})
        node[name] = _typed(field, raw.strip())
    try:
        return apply_rules(default, data, label)
    except RulesError as err:
        raise LabError(str(err)) from None


def _typed(field: FormField, text: str) -> object:
    """A form's text as the value a rules file would hold for ``field``."""
    if field.kind == "bool":
        return {"true": True, "false": False}.get(text.lower(), text)
    if field.kind == "list":
        items = [item.strip() for item in text.split(",") if item.strip()]
        return [int(item) if _WHOLE.fullmatch(item) else item for item in items]
    if field.kind == "number":
        return int(text) if _WHOLE.fullmatch(text) else text
    if field.kind in ("odds", "amount", "share", "multiple"):
        return int(text) if _WHOLE.fullmatch(text) else text
    return text


@dataclass(frozen=True)
class EdgeRow:
    """A wager's house edge under two variants, and how much more B's is."""

    wager: str
    a: Fraction | None
    b: Fraction | None

    @property
    def difference(self) -> Fraction | None:
        return None if self.a is None or self.b is None else self.b - self.a

    def to_json(self) -> dict[str, Any]:
        def shown(value: Fraction | None) -> dict[str, str] | None:
            if value is None:
                return None
            return {
                "exact": f"{value.numerator}/{value.denominator}",
                "percent": percent_text(value),
            }

        return {
            "wager": self.wager,
            "a": shown(self.a),
            "b": shown(self.b),
            "difference": shown(self.difference),
        }


def compare_edges(
    a: Mapping[str, Fraction] | None, b: Mapping[str, Fraction] | None
) -> list[EdgeRow]:
    """Each wager's house edge (minus its exact mean) under A and under B, in A's order
    then B's new wagers; a side not yet known is None."""
    order = list(a or {}) + [w for w in (b or {}) if w not in (a or {})]
    return [
        EdgeRow(
            wager,
            None if a is None or wager not in a else -a[wager],
            None if b is None or wager not in b else -b[wager],
        )
        for wager in order
    ]
