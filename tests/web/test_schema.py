"""What the API's schema says, item by item: what each operation takes (names, passwords,
amounts, each game's wagers, each table's seats), what it gives (a model for every
answer), its refusals, the security schemes and the links; and the refusals and answers
that go with them.  (Schemathesis checks the whole against a live server:
tests/web/test_schema_live.py.)"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

import pytest

from cardroom.app.tables.live import DEFAULT_TABLES
from cardroom.core.money import amount_pattern
from cardroom.games import house_games
from cardroom.web.models import name_pattern
from tests.web.conftest import Web

JsonDict = dict[str, Any]


@pytest.fixture
def schema(web: Web) -> JsonDict:
    found: JsonDict = web.client().get("/openapi.json").json()
    return found


def resolved(schema: JsonDict, node: JsonDict) -> JsonDict:
    while "$ref" in node:
        node = schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[1]]
    return node


def body_of(schema: JsonDict, path: str) -> JsonDict:
    content = schema["paths"][path]["post"]["requestBody"]["content"]["application/json"]
    return resolved(schema, content["schema"])


def answer_of(schema: JsonDict, path: str, method: str, status: str) -> JsonDict:
    return schema["paths"][path][method]["responses"][status]


def test_names_and_passwords_are_described_as_the_server_takes_them(schema: JsonDict) -> None:
    new = body_of(schema, "/api/accounts")["properties"]
    assert (new["password"]["minLength"], new["password"]["maxLength"]) == (8, 256)
    assert (new["username"]["minLength"], new["username"]["maxLength"]) == (1, 40)
    assert new["username"]["pattern"] == name_pattern()
    known = body_of(schema, "/api/login")["properties"]
    assert known["password"]["maxLength"] == 256 and known["username"]["maxLength"] == 40
    names = re.compile(name_pattern())
    for taken in ("Ann", "  Ann ", "Ann Bee", "ＡＮＮ", "Åsa", "e\u0301", "a\u00a0b"):
        assert names.match(taken), taken
    for refused in ("", "   ", "Ann, Bee", "Ann\uff0cBee", "a\tb", "a\x00", "Ann\u200b"):
        assert not names.match(refused), refused


def test_each_game_takes_its_own_wagers_as_amounts_within_its_limits(
    web: Web, schema: JsonDict
) -> None:
    rules = web.app.state.services.rules
    for game in house_games():
        body = body_of(schema, f"/api/games/{game.id}/rounds")
        assert body["required"] == ["bets"] and body["additionalProperties"] is False
        stakes = resolved(schema, body["properties"]["bets"])
        assert stakes["minProperties"] == 1 and stakes["additionalProperties"] is False
        assert list(stakes["properties"]) == list(game.wagers(rules[game.id]))
        table = rules[game.id].table
        pattern = amount_pattern(table.minimum, table.maximum, table.unit)
        for stake in stakes["properties"].values():
            assert stake["type"] == "string" and stake["pattern"] == pattern
            assert stake["maxLength"] == 40
        responses = schema["paths"][f"/api/games/{game.id}/rounds"]["post"]["responses"]
        assert {"400", "401", "403", "409", "413", "422", "503"} <= set(responses)
    stake = re.compile(amount_pattern(Fraction(10), Fraction(1000)))
    for good in ("10", "10.5", "10.50", "1000", "999.99", "0010"):
        assert stake.match(good), good
    for bad in ("9.99", "1000.01", "10.001", " 10", "10\u00a0", "1e3", "-10", "ten", ""):
        assert not stake.match(bad), bad


def test_each_table_takes_its_own_seats(schema: JsonDict) -> None:
    for spec in DEFAULT_TABLES:
        body = body_of(schema, f"/api/chemin-de-fer/tables/{spec.id}/seats")
        seat = body["properties"]["seat"]
        assert (seat["type"], seat["minimum"], seat["maximum"]) == ("integer", 0, spec.seats - 1)
        assert body["required"] == ["buy_in"] and "pattern" in body["properties"]["buy_in"]


def test_every_answer_has_a_model(schema: JsonDict) -> None:
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            for status, answer in operation["responses"].items():
                if status == "204":
                    assert "content" not in answer, (path, status)
                    continue
                given = answer["content"]["application/json"]["schema"]
                model = resolved(schema, given)
                assert model.get("additionalProperties") is False, (method, path, status)
                assert model["properties"], (method, path, status)
    models = schema["components"]["schemas"]
    events = models["RoundOut"]["properties"]["events"]["items"]["anyOf"]
    assert all("discriminator" in union for union in events)
    assert len(models["HouseTable"]["properties"]["bead_plate"]["items"]) == 1
    assert resolved(schema, models["ChemmyTableOut"]["properties"]["seats"]["items"])["required"]


def test_the_cookie_and_the_csrf_header_are_security_schemes(schema: JsonDict) -> None:
    schemes = schema["components"]["securitySchemes"]
    assert schemes["session"] == {
        "type": "apiKey",
        "in": "cookie",
        "name": "cardroom_session",
        "description": schemes["session"]["description"],
    }
    assert (schemes["csrf"]["in"], schemes["csrf"]["name"]) == ("header", "X-CSRF-Token")
    paths = schema["paths"]
    assert paths["/api/me"]["get"]["security"] == [{"session": []}]
    assert paths["/api/wallet/top-up"]["post"]["security"] == [{"session": [], "csrf": []}]
    assert paths["/api/games/punto-banco/rounds"]["post"]["security"] == [
        {"session": [], "csrf": []}
    ]
    assert paths["/api/accounts"]["post"]["security"] == []
    for path, operations in paths.items():
        for method, operation in operations.items():
            if method == "post" and operation["security"]:
                assert {"400", "401", "403", "413"} <= set(operation["responses"]), path


def test_a_round_links_to_its_actions(schema: JsonDict) -> None:
    made = answer_of(schema, "/api/games/punto-banco/rounds", "post", "201")["links"]
    assert {name: link["operationId"] for name, link in made.items()} == {
        "GetRound": "get_round",
        "Act": "act",
        "ReplayRound": "replay_round",
    }
    assert made["Act"]["parameters"] == {"round_id": "$response.body#/id"}
    assert "links" in answer_of(schema, "/api/rounds/{round_id}/actions", "post", "200")
