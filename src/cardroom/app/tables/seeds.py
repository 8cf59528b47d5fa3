"""The seeds of the shoes anyone can verify (docs/fairness.md), kept in ``shoe_seeds``.

A table always has a server seed committed to for its next shoe (a row whose ``shoe``
is None): its SHA-256 commitment is shown before that shoe's first card, before the
bets of the round it is shuffled for.  When the table shuffles, :class:`FairShuffler`
takes that seed with the person's client seed as it is then, numbers the row with the
shoe, and draws the seed of the shoe after.  A shoe's seed is revealed (``revealed_at``)
when the shoe ends: the round after which it is due to be shuffled again is over, or
the next shoe is shuffled (a shoe that ran out in the middle of a round); never while
it may still deal a card.

Everything here is per shoe, not per round: a round that does not shuffle reads and
writes nothing of it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, and_, insert, select, update

from cardroom.core.fair import (
    HmacShuffler,
    check_client_seed,
    commitment,
    new_client_seed,
    new_server_seed,
)
from cardroom.storage.db import Database
from cardroom.storage.schema import client_seeds, rounds, shoe_seeds

__all__ = ["FairShuffler", "ShoeSeed", "ShoeSeeds", "UnknownShoe"]


class UnknownShoe(LookupError):
    """No such shoe of this person's (another person's shoe is not found either)."""


@dataclass(frozen=True)
class ShoeSeed:
    """A shoe's seeds as a person may see them: the server seed only once revealed."""

    id: int
    table_ref: str
    game: str
    shoe: int | None
    commitment: str
    client_seed: str | None
    first_round_id: int | None
    shuffled_at: datetime | None
    revealed_at: datetime | None
    #: hex; None until the shoe's seed is revealed
    server_seed: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "table": self.game,
            "shoe": self.shoe,
            "commitment": self.commitment,
            "client_seed": self.client_seed,
            "first_round": self.first_round_id,
            "revealed": self.revealed_at is not None,
            "server_seed": self.server_seed,
        }


def _seed(row: Any) -> ShoeSeed:
    revealed = row.revealed_at
    return ShoeSeed(
        id=int(row.id),
        table_ref=row.table_ref,
        game=row.game,
        shoe=row.shoe,
        commitment=row.commitment,
        client_seed=row.client_seed,
        first_round_id=row.first_round_id,
        shuffled_at=row.shuffled_at,
        revealed_at=revealed,
        server_seed=row.server_seed if revealed is not None else None,
    )


class FairShuffler:
    """The :class:`~cardroom.core.shoe.Shuffler` of a live table: each shuffle takes the
    seed committed to for the next shoe (``take`` gives its row's id, the seed and the
    client seed) and shuffles with :class:`~cardroom.core.fair.HmacShuffler`."""

    def __init__(self, take: Callable[[], tuple[int, bytes, str]]) -> None:
        self._take = take
        #: the rows of the shoes shuffled, in order
        self.used: list[int] = []

    def permutation(self, n: int) -> list[int]:
        row_id, seed, client = self._take()
        self.used.append(row_id)
        return HmacShuffler(seed, client).permutation(n)


def _here(account_id: int | None, table_ref: str) -> Any:
    who = (
        shoe_seeds.c.account_id.is_(None)
        if account_id is None
        else shoe_seeds.c.account_id == account_id
    )
    return and_(who, shoe_seeds.c.table_ref == table_ref)


class ShoeSeeds:
    """The shoes' seeds and the people's client seeds, in the wallet's database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    # -- client seeds --------------------------------------------------------------------
    def client_seed(self, account_id: int) -> str:
        """The person's client seed (a default one made on first use)."""
        return self.db.run(lambda conn: self.client_seed_in(conn, account_id))

    def set_client_seed(self, account_id: int, text: str) -> str:
        """Change the person's client seed (ValueError for one that is not 1 to 64
        printable characters); it applies from the next shoe."""
        seed = check_client_seed(text)

        def work(conn: Connection) -> str:
            self.client_seed_in(conn, account_id)
            conn.execute(
                update(client_seeds)
                .where(client_seeds.c.account_id == account_id)
                .values(client_seed=seed, updated_at=datetime.now(UTC))
            )
            return seed

        return self.db.run(work)

    def client_seed_in(self, conn: Connection, account_id: int) -> str:
        found = conn.execute(
            select(client_seeds.c.client_seed).where(client_seeds.c.account_id == account_id)
        ).scalar()
        if found is not None:
            return str(found)
        seed = new_client_seed()
        conn.execute(
            insert(client_seeds).values(
                account_id=account_id, client_seed=seed, updated_at=datetime.now(UTC)
            )
        )
        return seed

    # -- inside a table's transaction (its row locked) ----------------------------------
    def shuffler(
        self,
        conn: Connection,
        account_id: int | None,
        table_ref: str,
        game: str,
        shuffles: int,
        client: Callable[[Connection], str],
    ) -> FairShuffler:
        """The shuffler of a table whose shoe was shuffled ``shuffles`` times: its next
        shuffle is shoe ``shuffles + 1``, with the client seed ``client`` gives then."""
        count = [shuffles]

        def take() -> tuple[int, bytes, str]:
            now = datetime.now(UTC)
            row = self._pending(conn, account_id, table_ref, game, now)
            count[0] += 1
            seed = client(conn)
            conn.execute(
                update(shoe_seeds)
                .where(shoe_seeds.c.id == row.id)
                .values(shoe=count[0], client_seed=seed, shuffled_at=now)
            )
            # the shoes before it deal no more: their seeds are revealed
            self._reveal(conn, account_id, table_ref, count[0] - 1, now)
            self._pending(conn, account_id, table_ref, game, now)  # the next shoe's
            return int(row.id), bytes.fromhex(row.server_seed), seed

        return FairShuffler(take)

    def opened(self, conn: Connection, shuffler: FairShuffler, round_id: int) -> None:
        """The shoes ``shuffler`` shuffled were for the round ``round_id``."""
        if shuffler.used and round_id:
            conn.execute(
                update(shoe_seeds)
                .where(shoe_seeds.c.id.in_(shuffler.used), shoe_seeds.c.first_round_id.is_(None))
                .values(first_round_id=round_id)
            )

    def ended(self, conn: Connection, account_id: int | None, table_ref: str, shoe: int) -> None:
        """Shoe ``shoe`` (and any before it) deals no more: reveal its seed."""
        self._reveal(conn, account_id, table_ref, shoe, datetime.now(UTC))

    def _reveal(
        self, conn: Connection, account_id: int | None, table_ref: str, upto: int, now: datetime
    ) -> None:
        if upto < 1:
            return
        conn.execute(
            update(shoe_seeds)
            .where(
                _here(account_id, table_ref),
                shoe_seeds.c.shoe <= upto,
                shoe_seeds.c.revealed_at.is_(None),
            )
            .values(revealed_at=now)
        )

    def _pending(
        self,
        conn: Connection,
        account_id: int | None,
        table_ref: str,
        game: str,
        now: datetime,
    ) -> Any:
        """The row of the seed committed to for the table's next shoe (made if none)."""
        query = (
            select(shoe_seeds)
            .where(_here(account_id, table_ref), shoe_seeds.c.shoe.is_(None))
            .order_by(shoe_seeds.c.id)
            .limit(1)
        )
        row = conn.execute(query).first()
        if row is None:
            seed = new_server_seed()
            conn.execute(
                insert(shoe_seeds).values(
                    account_id=account_id,
                    table_ref=table_ref,
                    game=game,
                    shoe=None,
                    server_seed=seed.hex(),
                    commitment=commitment(seed),
                    created_at=now,
                )
            )
            row = conn.execute(query).first()
        return row

    # -- what a person may see -----------------------------------------------------------
    def next_commitment(self, account_id: int | None, table_ref: str, game: str) -> str:
        """The commitment of the table's next shoe (its seed drawn now if none is yet)."""
        return str(
            self.db.run(
                lambda conn: (
                    self._pending(conn, account_id, table_ref, game, datetime.now(UTC)).commitment
                )
            )
        )

    def latest(self, account_id: int | None, table_ref: str, count: int = 2) -> list[ShoeSeed]:
        """The table's last ``count`` shoes shuffled, the newest first."""
        with self.db.read() as conn:
            rows = conn.execute(
                select(shoe_seeds)
                .where(_here(account_id, table_ref), shoe_seeds.c.shoe.is_not(None))
                .order_by(shoe_seeds.c.shoe.desc())
                .limit(count)
            ).all()
        return [_seed(row) for row in rows]

    def of_round(self, account_id: int, table_ref: str | None, round_id: int) -> list[ShoeSeed]:
        """The shoes a round of the person's was dealt from: the one shuffled last for it
        or before it, and the one before that if the round was shuffled for in its
        middle (the caller leaves out what the round's record shows it did not use)."""
        if table_ref is None:
            return []
        with self.db.read() as conn:
            rows = conn.execute(
                select(shoe_seeds)
                .where(
                    _here(account_id, table_ref),
                    shoe_seeds.c.shoe.is_not(None),
                    shoe_seeds.c.first_round_id <= round_id,
                )
                .order_by(shoe_seeds.c.shoe.desc())
                .limit(3)
            ).all()
        seeds = [_seed(row) for row in rows]
        # the shoes shuffled for this round, and the one it began in
        mine = [s for s in seeds if s.first_round_id == round_id]
        before = [s for s in seeds if s.first_round_id != round_id][:1]
        return sorted(mine + before, key=lambda s: s.shoe or 0)

    def shoe(self, account_id: int, shoe_id: int) -> ShoeSeed:
        """The person's shoe ``shoe_id`` (:class:`UnknownShoe` for anyone else's)."""
        with self.db.read() as conn:
            row = conn.execute(
                select(shoe_seeds).where(
                    shoe_seeds.c.id == shoe_id,
                    shoe_seeds.c.account_id == account_id,
                    shoe_seeds.c.shoe.is_not(None),
                )
            ).first()
        if row is None:
            raise UnknownShoe(f"there is no shoe {shoe_id} of yours")
        return _seed(row)

    def by_seed(self, server_seed: bytes) -> ShoeSeed | None:
        """The revealed shoe of this server seed, if there is one."""
        with self.db.read() as conn:
            row = conn.execute(
                select(shoe_seeds).where(
                    shoe_seeds.c.server_seed == server_seed.hex(),
                    shoe_seeds.c.revealed_at.is_not(None),
                )
            ).first()
        return None if row is None else _seed(row)

    def rounds_of(
        self, account_id: int, shoe: ShoeSeed, limit: int = 2000
    ) -> list[tuple[int, dict[str, Any]]]:
        """The person's finished rounds at the shoe's table from the round it was shuffled
        for on, at most ``limit`` (a check stops at the next shoe)."""
        if shoe.first_round_id is None:
            return []
        with self.db.read() as conn:
            rows = conn.execute(
                select(rounds.c.id, rounds.c.record)
                .where(
                    rounds.c.account_id == account_id,
                    rounds.c.table_ref == shoe.table_ref,
                    rounds.c.id >= shoe.first_round_id,
                    rounds.c.status == "finished",
                    rounds.c.record.is_not(None),
                )
                .order_by(rounds.c.id)
                .limit(limit)
            ).all()
        return [(int(i), json.loads(r)) for i, r in rows]

    def owner(self, shoe_id: int) -> int | None:
        """The account whose shoe ``shoe_id`` is (None: a table of seats, or no shoe)."""
        with self.db.read() as conn:
            found = conn.execute(
                select(shoe_seeds.c.account_id).where(shoe_seeds.c.id == shoe_id)
            ).scalar()
        return None if found is None else int(found)
