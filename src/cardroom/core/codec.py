"""The one codec: cardroom's data as JSON and back, through pydantic.

Events, round records and a table's saved state are frozen dataclasses.  A
:class:`Codec` turns one of them into JSON-able data and reads it back, checked
strictly (a string is not a number, ``true`` is not 1, a list of the wrong things is
refused), with pydantic doing the walk over the fields.  What is cardroom's own is
only how its two leaf types are written, once, here:

- :data:`Amount`: an exact amount or rate (a ``Fraction``) as the shortest exact
  decimal string, ``"9.5"`` (``"n/d"`` only where no decimal is exact); read back from
  that, from ``"19/2"`` or from a whole number.
- :data:`CardCode`: a card as its code, ``"Kh"``.

>>> from dataclasses import dataclass
>>> from fractions import Fraction
>>> @dataclass(frozen=True)
... class Bet:
...     card: CardCode
...     stake: Amount
>>> bets = Codec(Bet)
>>> bets.encode(Bet(Card.parse("Kh"), Fraction(19, 2)))
{'card': 'Kh', 'stake': '9.5'}
>>> bets.decode({"card": "Kh", "stake": "19/2"})
Bet(card=Card(rank=<Rank.KING: 'K'>, suit=<Suit.HEARTS: 'h'>), stake=Fraction(19, 2))
>>> bets.decode({"card": "Kh", "stake": True})
Traceback (most recent call last):
...
cardroom.core.codec.CodecError: stake: True is not an exact amount
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING, Annotated, Any, Generic, TypeVar

from cardroom.core.cards import Card, CardError
from cardroom.core.money import AmountError, format_decimal, parse_exact

if TYPE_CHECKING:
    from pydantic import TypeAdapter, ValidationError
    from pydantic_core import CoreSchema

__all__ = ["Amount", "CardCode", "Codec", "CodecError", "Plain"]

T = TypeVar("T")


class CodecError(ValueError):
    """Data that is not what cardroom writes: one line, naming where (``wagers.0.net``)."""


def _read_card(raw: Any) -> Card:
    if not isinstance(raw, str):
        raise ValueError(f"a card code is wanted, not {raw!r}")
    try:
        return Card.parse(raw)
    except CardError as err:
        raise ValueError(str(err)) from None


def _read_amount(raw: Any) -> Fraction:
    try:
        return parse_exact(raw)
    except AmountError as err:
        raise ValueError(str(err)) from None


def _card_code(card: Card) -> str:
    return card.code


class Plain:
    """How a leaf type is read and written, as an ``Annotated`` mark: what pydantic's
    ``PlainValidator(read)`` with ``PlainSerializer(write, return_type=writes)`` say,
    without importing pydantic until a :class:`Codec` is first made (the types that
    carry it, the events, are imported by every command; pydantic is a fifth of a
    simulation's start-up).

    ``read`` takes the raw data (a ``ValueError`` is a refusal); ``write`` gives what is
    written, of type ``writes`` where that is given.
    """

    __slots__ = ("read", "write", "writes")

    def __init__(
        self, read: Callable[[Any], Any], write: Callable[[Any], Any], writes: Any = None
    ) -> None:
        self.read = read
        self.write = write
        self.writes = writes

    def __get_pydantic_core_schema__(self, source: Any, handler: Any) -> CoreSchema:
        from pydantic_core import core_schema  # lazy: pydantic, when a codec is made

        written = None if self.writes is None else handler.generate_schema(self.writes)
        return core_schema.no_info_plain_validator_function(
            self.read,
            json_schema_input_schema=core_schema.any_schema(),  # (as PlainValidator's)
            serialization=core_schema.plain_serializer_function_ser_schema(
                self.write, return_schema=written, when_used="always"
            ),
        )


#: An exact amount, share or rate: ``"9.5"`` on the wire, a ``Fraction`` in Python.
Amount = Annotated[Fraction, Plain(_read_amount, format_decimal, str)]
#: A card: ``"Kh"`` on the wire.
CardCode = Annotated[Card, Plain(_read_card, _card_code, str)]


class Codec(Generic[T]):
    """Writes and reads one type (a dataclass, a tuple of them, a union...)."""

    __slots__ = ("_adapter", "name")

    def __init__(self, tp: Any, name: str | None = None) -> None:
        from pydantic import TypeAdapter  # lazy: pydantic (see :class:`Plain`)

        self._adapter: TypeAdapter[T] = TypeAdapter(tp)
        self.name = name or getattr(tp, "__name__", str(tp))

    def encode(self, value: T) -> Any:
        """``value`` as JSON-able data (dicts, lists, strings, numbers, None)."""
        return self._adapter.dump_python(value, mode="json")

    def encode_json(self, value: T) -> bytes:
        """``value`` as JSON text (UTF-8), in one step."""
        return self._adapter.dump_json(value)

    def decode(self, data: Any) -> T:
        """Read back what :meth:`encode` wrote, strictly; :class:`CodecError` otherwise."""
        from pydantic_core import PydanticSerializationError, to_json  # lazy: pydantic

        try:
            text = to_json(data)
        except PydanticSerializationError:
            raise CodecError(f"{self.name}: {data!r} is not JSON data") from None
        return self.decode_json(text)

    def decode_json(self, text: str | bytes) -> T:
        """Read JSON text; :class:`CodecError` names the first thing wrong in one line."""
        from pydantic import ValidationError  # lazy: pydantic

        try:
            return self._adapter.validate_json(text, strict=True)
        except ValidationError as err:
            raise CodecError(_first(err)) from None


def _first(err: ValidationError) -> str:
    first = err.errors(include_url=False)[0]
    where = ".".join(str(part) for part in first["loc"])
    message = str(first["msg"]).removeprefix("Value error, ")
    if first["type"] == "missing":
        message = "missing"
    elif first["type"] not in ("value_error",):
        message = f"{message}, not {first.get('input')!r}"
    return f"{where}: {message}" if where else message
