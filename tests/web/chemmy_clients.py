"""People at the chemin de fer tables of a real server: an HTTP client each (registered,
signed in) and WebSocket connections, as a browser makes them."""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import ClientConnection, connect

from cardroom.app.tables.live import TableSpec
from tests.web.browser import Server

F = Fraction
#: One table of three seats with a bot at the last: two people and a bot.
TABLES = (TableSpec(1, "Table 1", 3, 1), TableSpec(2, "Table 2", 4, 2))


def chemmy_server(tmp: Path, time_limit: float, pause: float = 0) -> Iterator[Server]:
    with Server(
        tmp / "web.sqlite3",
        chemmy_tables=TABLES,
        chemmy_time_limit=time_limit,
        chemmy_pause=pause,
    ) as server:
        yield server


@dataclass
class Someone:
    """A registered person with their HTTP client."""

    server: Server
    name: str
    http: httpx.Client
    csrf: str

    @classmethod
    def register(cls, server: Server, name: str | None = None) -> Someone:
        name = name or f"p{secrets.token_hex(4)}"
        http = httpx.Client(base_url=server.url, timeout=90)
        response = http.post("/api/accounts", json={"username": name, "password": "a good pw"})
        assert response.status_code == 201, response.text
        return cls(server, name, http, response.json()["csrf_token"])

    def post(self, path: str, body: object = None, csrf: bool = True) -> httpx.Response:
        headers = {"X-CSRF-Token": self.csrf} if csrf else {}
        return self.http.post(path, json=body, headers=headers)

    def balance(self) -> Fraction:
        return F(self.http.get("/api/me").json()["balance"])

    def sit(self, table: int, buy_in: str, seat: int | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {"buy_in": buy_in}
        if seat is not None:
            body["seat"] = seat
        response = self.post(f"/api/chemin-de-fer/tables/{table}/seats", body)
        assert response.status_code == 201, response.text
        data: dict[str, Any] = response.json()
        return data

    def socket(self, table: int, origin: str | None = None, hello: bool = True) -> Socket:
        token = self.http.cookies.get("cardroom_session")
        opened = connect(
            f"ws://127.0.0.1:{self.server.port}/api/chemin-de-fer/tables/{table}/ws",
            origin=origin or self.server.url,  # type: ignore[arg-type]
            additional_headers={"Cookie": f"cardroom_session={token}"},
            open_timeout=10,
            proxy=None,
        )
        ws = opened.__enter__()  # (closed by Socket.close)
        sock = Socket(ws, self.name)
        if hello:
            ws.send(json.dumps({"type": "hello", "csrf": self.csrf}))
        return sock


@dataclass
class Socket:
    """A WebSocket at a table and every message it has been sent."""

    ws: ClientConnection
    name: str
    messages: list[dict[str, Any]] = field(default_factory=list)
    answered: set[int] = field(default_factory=set)

    def new_turn(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """The message's turn for this seat, unless it has been answered already (every
        message repeats the turn in progress)."""
        turn: dict[str, Any] | None = message.get("turn")
        if turn is None or turn["id"] in self.answered:
            return None
        self.answered.add(turn["id"])
        return turn

    def next(self, timeout: float = 20) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(self.ws.recv(timeout=timeout))
        self.messages.append(message)
        return message

    def until(self, done: Callable[[dict[str, Any]], bool], timeout: float = 30) -> dict[str, Any]:
        """Messages until one for which ``done`` is true."""
        give_up = time.monotonic() + timeout
        while True:
            left = give_up - time.monotonic()
            if left <= 0:
                pytest.fail(f"{self.name}: the message waited for did not come")
            message = self.next(timeout=left)
            if done(message):
                return message

    def send(self, data: object) -> None:
        self.ws.send(data if isinstance(data, str) else json.dumps(data))

    def close(self) -> None:
        self.ws.close()


def answer(turn: dict[str, Any], low: bool = True) -> dict[str, Any]:
    """A legal choice: bank or stake the smallest amount, else draw or stand."""
    actions = turn["actions"]
    if "put_bank" in actions:
        return {"action": "put_bank", "amount": turn["amount"]["low"]}
    if "stake" in actions:
        return {"action": "stake", "amount": turn["amount"]["low"]}
    return {"action": "stand" if low else "draw"}
