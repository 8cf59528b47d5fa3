"""The operator's floor in one place, for the presentations: the staff, their log, the
players' accounts, the tables' settings and the floor's figures over one database."""

from __future__ import annotations

from cardroom.app.operators.floor import Floor
from cardroom.app.operators.log import OperatorLog
from cardroom.app.operators.players import Players
from cardroom.app.operators.staff import Staff
from cardroom.app.operators.tables import TableSettings
from cardroom.app.wallet import Wallet
from cardroom.storage.db import Database

__all__ = ["Room"]


class Room:
    """What an operator works with, over ``db``."""

    def __init__(self, db: Database, wallet: Wallet | None = None) -> None:
        self.db = db
        self.staff = Staff(db)
        self.log = OperatorLog(db)
        self.players = Players(db, wallet)
        self.tables = TableSettings(db)
        self.floor = Floor(db)
