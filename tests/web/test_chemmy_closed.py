"""A chemin de fer table the house closes: the coup in play ends, everybody stands up with
their stack, and no seat is taken until it opens again (a server of its own, with two
seconds a decision, since the person here never answers)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from fractions import Fraction

import pytest

from cardroom.app.operators.log import Actor
from cardroom.app.operators.tables import TableSettings
from cardroom.app.wallet import Wallet
from tests.web.browser import Server
from tests.web.chemmy_clients import Someone, chemmy_server

F = Fraction
OLGA = Actor(None, "Olga", "-")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    yield from chemmy_server(tmp_path_factory.mktemp("chemmy-closed"), time_limit=2)


def test_a_table_the_house_closes_stands_everybody_up_and_takes_no_seat(
    server: Server,
) -> None:
    ann = Someone.register(server)
    ann.sit(1, "200")
    settings = TableSettings(server.db)
    ref = "web:chemin-de-fer:1"
    settings.set_open(OLGA, ref, False, "the room closes")
    try:
        wallet = Wallet(server.db)
        account = wallet.accounts.account(ann.name)
        assert account is not None
        for _ in range(600):  # after the coup in play, if any
            if not wallet.seats.open_seats(account.id):
                break
            time.sleep(0.1)
        assert not wallet.seats.open_seats(account.id)
        assert ann.balance() == 1000 + sum(  # her stack came back, whatever the coups did
            F(r["amount"])
            for r in ann.http.get("/api/ledger").json()["rows"]
            if r["kind"] in ("buy_in", "cash_out")
        )
        refused = ann.post("/api/chemin-de-fer/tables/1/seats", {"buy_in": "100"})
        assert refused.status_code == 409 and "closed by the house" in refused.json()["error"]
    finally:
        settings.set_open(OLGA, ref, True, "open again")
