"""The one codec: events, records and saved table state go out and come back the same,
and data cardroom did not write is refused in one line that says where."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cardroom.app.history import Decided, RecordError, RoundRecord, WagerResult
from cardroom.app.tables.state import (
    CoupState,
    HouseDecision,
    HouseState,
    StateError,
    read_coup_state,
    read_house_state,
)
from cardroom.core.cards import Card
from cardroom.core.codec import Amount, Codec, CodecError
from cardroom.core.events import (
    CardDealt,
    Decision,
    EventDataError,
    Points,
    Reshuffled,
    Settled,
    Why,
    event_from_json,
    event_to_json,
)

F = Fraction
amounts = st.fractions(max_denominator=400).filter(lambda f: abs(f) < 10**9)
cards = st.sampled_from([Card.parse(c) for c in ("Kh", "2c", "10d", "As", "Jo")])


@given(amounts, amounts, amounts)
def test_a_settlement_comes_back_the_same_through_json_text(
    stake: Fraction, net: Fraction, breakage: Fraction
) -> None:
    event = Settled("main", stake, net, Why.of("pays", odds=F(4, 5), card=None), breakage)
    data = json.loads(json.dumps(event_to_json(event)))
    assert event_from_json(data) == event


@given(st.lists(st.one_of(cards, amounts, st.integers(-5, 40), st.text(max_size=5)), max_size=4))
def test_a_reasons_facts_keep_their_types(facts: list[object]) -> None:
    why = Why("rule", {f"f{i}": v for i, v in enumerate(facts)} | {"t": tuple(facts)})  # type: ignore[misc]
    event = Decision("player", "stand", True, why)
    back = event_from_json(json.loads(json.dumps(event_to_json(event))))
    assert back == event
    assert [type(v) for v in back.why.facts.values()] == [type(v) for v in why.facts.values()]


def test_amounts_are_exact_decimals_on_the_wire() -> None:
    data = event_to_json(Settled("tie", F(21, 2), F(-1, 3)))
    assert (data["stake"], data["net"], data["breakage"]) == ("10.5", "-1/3", "0")
    assert event_to_json(CardDealt("dealer", Card.parse("Kh"), Points(13, False)))["card"] == "Kh"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"stake": True}, "event 'settled': stake: True is not an exact amount"),
        ({"stake": 1.5}, "event 'settled': stake: 1.5 is not an exact amount"),
        ({"wager": 3}, "event 'settled': wager: Input should be a valid string, not 3"),
        ({"wager": None}, "event 'settled': wager: Input should be a valid string, not None"),
        ({"why": {"rule": "x", "facts": {"a": {"zz": 1}}}}, "{'zz': 1} is not a fact"),
        ({"why": "x"}, "event 'settled': why: Input should be"),
    ],
)
def test_an_event_cardroom_did_not_write_is_refused_saying_where(
    change: dict[str, object], message: str
) -> None:
    data = {**event_to_json(Settled("main", F(10), F(-10))), **change}
    with pytest.raises(EventDataError) as err:
        event_from_json(data)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_an_event_missing_a_field_is_refused() -> None:
    with pytest.raises(EventDataError, match=r"event 'settled': wager: missing"):
        event_from_json({"event": "settled", "stake": "1", "net": "1"})


def test_a_whole_number_field_refuses_true_and_text() -> None:
    data = event_to_json(Reshuffled(2, "new_shoe", 3, Card.parse("2c")))
    assert event_from_json(data) == Reshuffled(2, "new_shoe", 3, Card.parse("2c"))
    for bad in (True, "3", 3.0):
        with pytest.raises(EventDataError, match="burnt"):
            event_from_json({**data, "burnt": bad})


def record() -> RoundRecord:
    return RoundRecord(
        game="g",
        rules="x = 1\n",
        seats=("Ann",),
        cards=(Card.parse("Kh"), Card.parse("2c")),
        decisions=(Decided(0, "stand"), Decided(0, "bank", F(25, 2), "bot")),
        wagers=(WagerResult(0, "main", F(10), F(-10)),),
        outcome="dealer",
        events=(Settled("main", F(10), F(-10)),),
        start={"coup": 3, "stacks": (F(100), F(201, 2)), "default_bank": F(50)},
        notes=("a note",),
    )


def test_a_record_comes_back_the_same_and_begins_with_its_version() -> None:
    data = json.loads(json.dumps(record().to_json()))
    assert next(iter(data)) == "version"
    assert data["start"] == {"coup": 3, "stacks": ["100", "100.5"], "default_bank": "50"}
    assert RoundRecord.from_json(data) == record()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"version": 2}, "a round record of version 2"),
        ({"cards": ["Zz"]}, "the round record is damaged: cards.0: 'Zz' is not a card"),
        ({"wagers": [{"seat": 0, "wager": "main", "stake": "x", "net": "0"}]}, "wagers.0.stake"),
        ({"events": [{"event": "nope"}]}, "events.0: unknown event 'nope'"),
        ({"seats": "Ann"}, "seats: Input should be a valid"),
    ],
)
def test_a_damaged_record_is_refused_saying_where(change: dict[str, object], message: str) -> None:
    with pytest.raises(RecordError) as err:
        RoundRecord.from_json({**record().to_json(), **change})
    assert message in str(err.value)


def test_a_house_rounds_state_comes_back_and_an_older_one_still_reads() -> None:
    state = HouseState(
        rules="x = 1\n",
        name="Ann",
        stakes={"player": F(21, 2)},
        shoe=(("Kh", "2c"), ("3d",)),
        reshuffled=Reshuffled(1, "new_shoe"),
        decisions=(HouseDecision("hit"),),
    )
    data = json.loads(json.dumps(state.to_json()))
    assert data["stakes"] == {"player": "10.5"}
    assert read_house_state(data) == state
    older = {**data, "stakes": {"player": "21/2"}}  # as str(Fraction) wrote it
    assert read_house_state(older) == state
    with pytest.raises(StateError, match="unknown kind"):
        read_house_state({**data, "version": 9})
    with pytest.raises(StateError, match=r"damaged: stakes.player"):
        read_house_state({**data, "stakes": {"player": [1]}})


def test_a_coups_state_comes_back() -> None:
    state = CoupState(
        rules="x = 1\n",
        table="web:t",
        seat=1,
        wallet_seat=2,
        start={"coup": 4, "stacks": (F(100), F(50)), "default_bank": None, "banker": 0},
        shoe=(("Kh",),),
        decisions=(Decided(1, "banco", F(25, 2)),),
    )
    assert read_coup_state(json.loads(json.dumps(state.to_json()))) == state


def test_a_codec_refuses_what_is_not_json_data() -> None:
    with pytest.raises(CodecError, match="is not JSON data"):
        Codec(Amount, "amount").decode(object())
