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

A table of seats (chemin de fer) keeps its shoes under no account (``account_id`` is
None): its client seed is the table's own (:func:`table_client_seed`), its shoes are
numbered on from the last one in the database (its shoe is not kept across the processes
that take the table over), and ``first_round_id`` is the lowest round that may have taken
cards from the shoe (its coups' records say which shoe and where: ``start["shoe"]``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, and_, func, insert, select, update

from cardroom.core.cards import Card
from cardroom.core.events import Reshuffled
from cardroom.core.fair import (
    HmacShuffler,
    check_client_seed,
    commitment,
    new_client_seed,
    new_server_seed,
)
from cardroom.core.shoe import Shoe, ShoeRules
from cardroom.storage.db import Database
from cardroom.storage.schema import client_seeds, rounds, shoe_seeds

__all__ = [
    "FairShoe",
    "FairShuffler",
    "ShoeSeed",
    "ShoeSeeds",
    "Taken",
    "UnknownShoe",
    "table_client_seed",
]


def table_client_seed(table_ref: str) -> str:
    """The client seed of a table of seats, whose shoe nobody there owns: the table's
    reference (``web:GAME:ID``), the same for each of its shoes.  What binds the house is
    the commitment shown before the shoe's first card; the client seed only makes each
    table's stream its own."""
    return table_ref


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
    #: whose shoe it is (None: a table of seats')
    account_id: int | None = None

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
        account_id=row.account_id,
    )


class FairShuffler:
    """The :class:`~cardroom.core.shoe.Shuffler` of a live table: each shuffle takes the
    seed committed to for the next shoe (``take`` gives its row's id, the seed and the
    client seed) and shuffles with :class:`~cardroom.core.fair.HmacShuffler`."""

    def __init__(self, take: Callable[[], Taken]) -> None:
        self._take = take
        #: the rows of the shoes shuffled, in order
        self.used: list[int] = []
        #: the last shoe shuffled (None before the first): what a table may show of it
        self.last: Taken | None = None

    def permutation(self, n: int) -> list[int]:
        taken = self._take()
        self.used.append(taken.row_id)
        self.last = taken
        return HmacShuffler(taken.seed, taken.client_seed).permutation(n)


@dataclass(frozen=True)
class Taken:
    """A shoe's seed as a shuffle took it: its row, its number at the table, the seeds,
    the commitment, and the commitment of the table's next shoe (drawn in advance)."""

    row_id: int
    shoe: int
    seed: bytes = field(repr=False)
    client_seed: str
    commitment: str
    next_commitment: str


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
        conn: Connection | None,
        account_id: int | None,
        table_ref: str,
        game: str,
        shuffles: int | None,
        client: Callable[[Connection], str],
    ) -> FairShuffler:
        """The shuffler of a table whose shoe was shuffled ``shuffles`` times: its next
        shuffle is shoe ``shuffles + 1``, with the client seed ``client`` gives then.

        A table of seats gives ``shuffles`` None (its shoes are numbered on from the last
        in the database) and ``conn`` None (each shuffle runs in the transaction the
        table's step is in, or one of its own)."""
        count = [shuffles]

        def take_in(c: Connection) -> Taken:
            now = datetime.now(UTC)
            row = self._pending(c, account_id, table_ref, game, now)
            number = count[0]
            if number is None:
                number = self._last_shoe(c, account_id, table_ref)
            number += 1
            if shuffles is not None:
                count[0] = number
            seed = client(c)
            values: dict[str, Any] = {"shoe": number, "client_seed": seed, "shuffled_at": now}
            if account_id is None:  # the lowest round that may take cards from it
                values["first_round_id"] = self._round_floor(c, table_ref)
            c.execute(update(shoe_seeds).where(shoe_seeds.c.id == row.id).values(**values))
            # the shoes before it deal no more: their seeds are revealed
            self._reveal(c, account_id, table_ref, number - 1, now)
            after = self._pending(c, account_id, table_ref, game, now)  # the next shoe's
            return Taken(
                int(row.id),
                number,
                bytes.fromhex(row.server_seed),
                seed,
                str(row.commitment),
                str(after.commitment),
            )

        def take() -> Taken:
            return take_in(conn) if conn is not None else self.db.run(take_in)

        return FairShuffler(take)

    def _last_shoe(self, conn: Connection, account_id: int | None, table_ref: str) -> int:
        found = conn.execute(
            select(func.max(shoe_seeds.c.shoe)).where(_here(account_id, table_ref))
        ).scalar()
        return int(found or 0)

    def _round_floor(self, conn: Connection, table_ref: str) -> int:
        """The lowest id a round of the table's that takes cards from now on may have: the
        oldest in progress there, else one more than the table's last."""
        open_ = conn.execute(
            select(func.min(rounds.c.id)).where(
                rounds.c.table_ref == table_ref, rounds.c.status == "in_progress"
            )
        ).scalar()
        if open_ is not None:
            return int(open_)
        last = conn.execute(
            select(func.max(rounds.c.id)).where(rounds.c.table_ref == table_ref)
        ).scalar()
        return int(last or 0) + 1

    def table_ended(self, table_ref: str, shoe: int | None = None) -> None:
        """Shoe ``shoe`` of the table of seats ``table_ref`` and those before it deal no
        more (None: every shoe of it, when the process that dealt them stopped or the
        table starts again): reveal their seeds."""

        def work(conn: Connection) -> None:
            last = self._last_shoe(conn, None, table_ref) if shoe is None else shoe
            self._reveal(conn, None, table_ref, last, datetime.now(UTC))

        self.db.run(work)

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
        """The person's shoe ``shoe_id`` (:class:`UnknownShoe` for anyone else's).  A
        table of seats' shoe is the person's too once they played a coup from it."""
        with self.db.read() as conn:
            row = conn.execute(
                select(shoe_seeds).where(
                    shoe_seeds.c.id == shoe_id,
                    shoe_seeds.c.shoe.is_not(None),
                )
            ).first()
            if row is not None and row.account_id is None:
                if not self._played_from(conn, account_id, _seed(row)):
                    row = None
            elif row is not None and row.account_id != account_id:
                row = None
        if row is None:
            raise UnknownShoe(f"there is no shoe {shoe_id} of yours")
        return _seed(row)

    def _upper(self, conn: Connection, shoe: ShoeSeed) -> int | None:
        """The lowest round of a table of seats' next shoe (None: none yet)."""
        found = conn.execute(
            select(shoe_seeds.c.first_round_id).where(
                _here(None, shoe.table_ref), shoe_seeds.c.shoe == (shoe.shoe or 0) + 1
            )
        ).scalar()
        return None if found is None else int(found)

    def _played_from(self, conn: Connection, account_id: int, shoe: ShoeSeed) -> bool:
        """Did the person finish a coup at the table of seats while ``shoe`` dealt?"""
        if shoe.first_round_id is None:
            return False
        upper = self._upper(conn, shoe)
        query = select(rounds.c.id).where(
            rounds.c.account_id == account_id,
            rounds.c.table_ref == shoe.table_ref,
            rounds.c.id >= shoe.first_round_id,
            rounds.c.status == "finished",
        )
        if upper is not None:
            query = query.where(rounds.c.id < upper)
        return conn.execute(query.limit(1)).first() is not None

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
        self, account_id: int | None, shoe: ShoeSeed, limit: int = 2000
    ) -> list[tuple[int, dict[str, Any]]]:
        """The person's finished rounds at the shoe's table from the round it was shuffled
        for on, at most ``limit`` (a check stops at the next shoe).  A table of seats'
        shoe: every coup finished there while it dealt, each once (a coup is recorded
        for each person in it, the same record)."""
        if shoe.first_round_id is None:
            return []
        table_shoe = shoe.account_id is None
        with self.db.read() as conn:
            query = select(rounds.c.id, rounds.c.record).where(
                rounds.c.table_ref == shoe.table_ref,
                rounds.c.id >= shoe.first_round_id,
                rounds.c.status == "finished",
                rounds.c.record.is_not(None),
            )
            if table_shoe:
                upper = self._upper(conn, shoe)
                if upper is not None:  # (a coup that ran out into the next shoe too)
                    query = query.where(rounds.c.id <= upper)
            else:
                query = query.where(rounds.c.account_id == account_id)
            rows = conn.execute(query.order_by(rounds.c.id).limit(limit)).all()
        found: list[tuple[int, dict[str, Any]]] = []
        seen: set[str] = set()
        for i, r in rows:
            if table_shoe:
                if r in seen:
                    continue
                seen.add(r)
            found.append((int(i), json.loads(r)))
        return found

    def owner(self, shoe_id: int) -> int | None:
        """The account whose shoe ``shoe_id`` is (None: a table of seats, or no shoe)."""
        with self.db.read() as conn:
            found = conn.execute(
                select(shoe_seeds.c.account_id).where(shoe_seeds.c.id == shoe_id)
            ).scalar()
        return None if found is None else int(found)


class FairShoe(Shoe):
    """The live shoe of a table of seats (chemin de fer), shuffled by a
    :class:`FairShuffler`: its shoes are numbered as ``shoe_seeds`` numbers them, and it
    keeps what the table may show of them (the shoe dealing, the next one's commitment,
    the last one revealed).  Being the table's card source, that is put back with it
    when a step fails."""

    def __init__(self, rules: ShoeRules, seeds: ShoeSeeds, table_ref: str, game: str) -> None:
        self.fair = seeds.shuffler(
            None, None, table_ref, game, None, lambda _: table_client_seed(table_ref)
        )
        super().__init__(rules, self.fair)
        self.seeds = seeds
        self.table_ref = table_ref
        self.game = game
        #: the shoe dealing (None before the first shuffle)
        self.taken: Taken | None = None
        #: the last shoe whose seed is revealed
        self.revealed: Taken | None = None
        #: the commitment of the next shoe, when known
        self.upcoming: str | None = None

    def prepare(self) -> None:
        """Draw (or read) the next shoe's seed now: its commitment is shown before the
        first card."""
        self.upcoming = self.seeds.next_commitment(None, self.table_ref, self.game)

    def shuffle(self, cause: str, in_play: Collection[Card] = ()) -> Reshuffled:
        event = super().shuffle(cause, in_play)
        taken = self.fair.last
        assert taken is not None
        if self.taken is not None:  # the shoe before deals no more: revealed
            self.revealed = self.taken
        self.taken, self.upcoming = taken, taken.next_commitment
        self.shuffles = taken.shoe
        return replace(event, shoe=taken.shoe)

    def ended(self) -> None:
        """The shoe deals no more (it is due to be shuffled after the coup that ended):
        reveal its seed."""
        if self.taken is not None and self.revealed is not self.taken:
            self.seeds.table_ended(self.table_ref, self.taken.shoe)
            self.revealed = self.taken

    def to_json(self) -> dict[str, Any]:
        """What anyone at the table may see: commitments, and the seed of a shoe that deals
        no more."""
        taken, revealed = self.taken, self.revealed
        dealing = taken is not None and taken is not revealed
        return {
            "shoe": taken.shoe if dealing and taken is not None else None,
            "commitment": taken.commitment if dealing and taken is not None else None,
            "next_commitment": self.upcoming,
            "client_seed": table_client_seed(self.table_ref),
            "revealed": None
            if revealed is None
            else {
                "id": revealed.row_id,
                "shoe": revealed.shoe,
                "commitment": revealed.commitment,
                "client_seed": revealed.client_seed,
                "server_seed": revealed.seed.hex(),
            },
        }
