"""Each person's house tables kept in the database, so that any server process deals
the next round.

The web serves many people from several processes at once, behind a proxy that may
send each request to any of them.  So nothing of a person's table lives only in one
process's memory: the shoe (its cards in order, how many are dealt, how many times it
was shuffled), this shoe's outcomes for the bead plate, and the round in play are a
row of ``house_tables``; the round itself, its stakes and its decisions are the
wallet's.  Every request is one transaction (:meth:`Database.run`, tried again after a
deadlock or a busy database) that

1. locks the table's row (made on the first round) and reads it with the account's
   balance, in one statement; this lock comes first in every transaction that deals at
   the table, before the account's row (the wallet's lock order then takes over:
   account, round, seat), so two requests at one table wait for each other there;
2. with an ``Idempotency-Key``, finds the round it opened before, which is then given
   back before anything else is checked;
3. refuses a new round while one is in play, and one whose stakes are above the
   balance;
4. sets the :class:`~cardroom.app.tables.house.HouseTable` up from the row and plays as far
   as it goes without the person: to a decision, or to the end, when the round is
   written finished with its stakes and payouts in a few statements (the update of
   the balance locks the account's row and checks that it covers the stakes);
5. writes the table's row back.

If anything fails, nothing of it is written: no stake is taken for a round that is not
dealt, no round is left in play that cannot go on, and the same shoe deals the next
try.  A round in play is set up again from its saved state on each decision
(:func:`~cardroom.app.tables.house.restore_round`), in whichever process the decision comes.

Nothing here reads the account's whole ledger or history: every statement finds its
rows by key, so a round costs the same for a new account and for one with 100,000
rounds behind it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from fractions import Fraction
from functools import lru_cache
from typing import Any

from sqlalchemy import Connection, bindparam, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from cardroom.app.tables.house import (
    HouseRound,
    HouseTable,
    KeyReused,
    OverBalance,
    RoundUnfinished,
    restore_round,
)
from cardroom.app.tables.seeds import FairShuffler, ShoeSeeds
from cardroom.app.variants import UnknownVariant, Variants, split_key, table_key
from cardroom.app.wallet import StoredRound, Wallet, WalletError, from_cents
from cardroom.core.cards import Card, parse_cards
from cardroom.core.money import format_amount
from cardroom.core.shoe import SecureShuffler, Shoe, Shuffler
from cardroom.games import GAMES, GameInfo, get_game
from cardroom.games.base import GameRules, IllegalAction, Turn, WagerError
from cardroom.storage.db import Fast
from cardroom.storage.errors import StorageConflict
from cardroom.storage.schema import accounts, house_tables, table_settings

__all__ = [
    "HouseRefused",
    "NotYours",
    "Played",
    "StoredTables",
    "TableState",
    "UnknownVariant",
    "table_key_of",
    "table_ref",
]


class NotYours(LookupError):
    """No such round of this person's (another person's round is not found either)."""


def table_ref(key: str) -> str:
    """How the web's tables of a game (or of a variant: its table key) are named in the
    wallet's rows."""
    return f"web:{key}"


def table_key_of(stored: StoredRound) -> str:
    """The table key of the table a round was dealt at (its game's id for a round not
    dealt at a web table)."""
    ref = stored.table_ref
    if ref is not None and ref.startswith("web:"):
        return ref.removeprefix("web:")
    return stored.game


@dataclass(frozen=True)
class TableState:
    """A person's table at one game as it stands between requests."""

    game: str
    balance: Fraction
    shuffles: int
    reshuffle_due: bool
    #: why the next round starts from a new shoe (``cut_card``, ``reshuffle_point``,
    #: ``round_limit``), or None
    reshuffle_cause: str | None
    rounds_played: int
    round_in_play: int | None
    beads: tuple[str, ...]
    bead_shoe: int | None


@dataclass(frozen=True)
class Played:
    """What a request did: the round dealt as far as it goes (``live``), or the round
    asked for as the database has it (``stored``); ``new`` is False for a round an
    idempotency key gives back."""

    balance: Fraction
    live: HouseRound | None = None
    stored: StoredRound | None = None
    new: bool = True
    reshuffle_due: bool = False
    #: with ``reshuffle_due``: why (a :class:`~cardroom.core.events.Reshuffled` cause)
    reshuffle_cause: str | None = None


@dataclass
class _Row:
    """A row of ``house_tables`` as read, and whether it exists yet."""

    cards: tuple[Card, ...] | None
    dealt: int = 0
    shuffles: int = 0
    beads: list[str] = field(default_factory=list)
    bead_shoe: int | None = None
    rounds_played: int = 0
    round_id: int | None = None
    exists: bool = False
    #: the account's balance as the statement that locked the row read it (it may be
    #: older than the lock: the wallet checks the balance again as it takes the stakes)
    balance: Fraction = Fraction(0)
    #: the account is suspended by an operator
    suspended: bool = False
    #: what the house set for the table (:mod:`cardroom.app.operators.tables`): closed
    #: to new rounds, and the least and most a wager may stake (None: the rules' own)
    closed: bool = False
    min_stake: Fraction | None = None
    max_stake: Fraction | None = None
    #: an operator put the table (a lab variant's) on a public table
    public: bool = False

    def refusal(self, here: str, stakes: Mapping[str, Fraction]) -> str | None:
        """Why the house refuses a new round of these stakes here, or None."""
        if self.suspended:
            return "your account is suspended: you may look at your history and wallet, not play"
        if self.closed:
            return f"the table {here} is closed by the house: no new rounds are dealt there"
        for wager, stake in stakes.items():
            if self.min_stake is not None and stake < self.min_stake:
                return (
                    f"the stake on {wager}, {_amount(stake)}, is below this table's least "
                    f"of {_amount(self.min_stake)}"
                )
            if self.max_stake is not None and stake > self.max_stake:
                return (
                    f"the stake on {wager}, {_amount(stake)}, is above this table's most "
                    f"of {_amount(self.max_stake)}"
                )
        return None


class HouseRefused(WagerError):
    """The house does not deal this round: the account is suspended, the table closed,
    a stake outside the limits the house set, or a lab variant's table that no operator
    put on a public table (nothing was taken)."""


class StoredTables:
    """The house tables of every person, in the wallet's database."""

    def __init__(
        self,
        wallet: Wallet,
        rules: Mapping[str, Any],
        shuffler: Callable[[], Shuffler] = SecureShuffler,
        variants: Variants | None = None,
        fair: bool | None = None,
        own_variants: bool = False,
    ) -> None:
        self.wallet = wallet
        self.db = wallet.db
        self.rules = dict(rules)
        self.shuffler = shuffler
        self.variants = variants
        #: live play shuffles shoes anyone can verify (docs/fairness.md); an injected
        #: shuffler (a seeded run, a test) keeps its own shuffles
        self.fair = shuffler is SecureShuffler if fair is None else fair
        self.seeds = ShoeSeeds(self.db)
        #: deal at any lab variant's table, not only at one an operator put on a public
        #: table: anyone signed in then plays for the wallet's money at the payouts and
        #: the shoe they chose (a designer's server, not a room's)
        self.own_variants = own_variants

    def rules_for(self, key: str) -> GameRules:
        """The rules of the table ``key`` (a game's id, or ``GAME~VARIANT``):
        :class:`UnknownVariant` for a variant that is not kept."""
        game_id, variant = split_key(key)
        if variant is None:
            rules: GameRules = self.rules[game_id]
            return rules
        if self.variants is None or game_id not in self.rules:
            raise UnknownVariant(f"there is no variant {variant} of {game_id}")
        return self.variants.rules(get_game(game_id), variant)  # type: ignore[no-any-return]

    def takes_bets(self, key: str) -> bool:
        """Does the table ``key`` take bets: a game's own table does; a lab variant's
        when an operator put the variant on a public table, or at a server that lets
        anyone play their own (:attr:`own_variants`)."""
        if self._open_to_bets(split_key(key)[1], public=False):
            return True
        with self.db.read() as conn:
            public = conn.execute(
                select(table_settings.c.public).where(table_settings.c.key == key)
            ).scalar()
        return bool(public)

    def _open_to_bets(self, variant: str | None, public: bool) -> bool:
        """The one rule of :meth:`takes_bets`, given whether the table is public."""
        return variant is None or public or self.own_variants

    # -- requests ----------------------------------------------------------------------
    def place(
        self,
        account_id: int,
        name: str,
        game: GameInfo,
        bets: Mapping[str, Fraction | int | str],
        key: str | None = None,
        variant: str | None = None,
    ) -> Played:
        """Bets on a new round, dealt as far as it goes without the person, at the game's
        table or at the table of its ``variant`` (:class:`UnknownVariant` if none).

        An ``key`` this account used before gives that round back (``new`` False), or
        :class:`KeyReused` for other bets, before anything else is looked at; then
        :class:`RoundUnfinished`, :class:`OverBalance` and the engine's
        :class:`WagerError` refuse, and change nothing.
        """
        here = table_key(game.id, variant)
        rules = self.rules_for(here)
        engine = game.new_round(rules, bets)  # checks the bets
        stakes = dict(engine.wagers)
        if not stakes:
            raise WagerError("place at least one bet")
        # that round is dealt by the first try (a try again makes its own: it is dealt to)
        unused = [engine]

        def work(conn: Connection) -> Played:
            row = self._read(conn, account_id, here)
            if key is not None:
                known = self.wallet.rounds.key_round(conn, account_id, key)
                if known is not None:
                    return self._given_back(conn, account_id, game, here, stakes, known)
            if row.round_id is not None:
                raise RoundUnfinished(
                    f"your last {game.id} round (#{row.round_id}) is not finished yet"
                )
            refused = row.refusal(here, stakes)
            if refused is None and not self._open_to_bets(variant, row.public):
                refused = (
                    f"variant {variant} is not on a public table: an operator puts a lab "
                    "variant on one before its bets are taken"
                )
            if refused is not None:
                raise HouseRefused(refused)
            total = sum(stakes.values(), Fraction(0))
            if total > row.balance:
                balance = self.wallet.accounts.balance(account_id)  # (as it is now, to be sure)
                if total > balance:
                    raise OverBalance(
                        f"the stakes ({_amount(total)}) are more than your balance "
                        f"({_amount(balance)})"
                    )
            fair = self._fair(conn, account_id, here, row)
            table = self._table(row, account_id, name, game, rules, here, fair)
            fresh = unused.pop() if unused else None
            live = table.deal_round(bets, key, checked=True, engine=fresh)
            self._write(conn, account_id, here, row, table, live, fair)
            assert live.balance is not None
            return Played(
                live.balance,
                live=live,
                reshuffle_due=table.reshuffle_due,
                reshuffle_cause=table.reshuffle_cause,
            )

        try:
            return self.db.run(work)
        except StorageConflict:
            if key is None:
                raise

            # another request took this key at the same moment: that round is the one
            def again(conn: Connection) -> Played:
                known = self.wallet.rounds.key_round(conn, account_id, key)
                if known is None:
                    raise
                return self._given_back(conn, account_id, game, here, stakes, known)

            return self.db.run(again)

    def act(self, account_id: int, round_id: int, action: str) -> Played:
        """The person's decision in their round ``round_id`` (:class:`NotYours` for
        anyone else's; :class:`IllegalAction` where it is not asked or not allowed)."""

        first = self._own(account_id, round_id)
        if not self._house(first):
            raise IllegalAction(
                f"round {round_id} is a coup of {get_game(first.game).name}, played at its "
                "table: make its decisions there"
                if first.game in GAMES and first.status == "in_progress"
                else "the round is over: nothing is asked"
            )

        def work(conn: Connection) -> Played:
            row = self._read(conn, account_id, table_key_of(first))
            stored = self._own(account_id, round_id)  # (as it is now, under the lock)
            if stored.status != "in_progress":
                raise IllegalAction("the round is over: nothing is asked")
            here = table_key_of(stored)
            fair = self._fair(conn, account_id, here, row)
            table, live = self._restore(row, stored, fair)
            if not isinstance(live.to_move(), Turn):
                raise IllegalAction("no decision is asked now")
            table.act(live, action)
            self._write(conn, account_id, here, row, table, live, fair)
            balance = live.balance if live.balance is not None else self._balance(account_id)
            over = live.is_over
            return Played(
                balance,
                live=live,
                reshuffle_due=table.reshuffle_due and over,
                reshuffle_cause=table.reshuffle_cause if over else None,
            )

        return self.db.run(work)

    def get(self, account_id: int, round_id: int) -> Played:
        """The person's round ``round_id`` as it stands: in play (set up again, with what
        it asks) or as the database has it."""

        stored = self._own(account_id, round_id)
        if stored.status != "in_progress" or not self._house(stored):
            # (a coup between seats in play: as its table has it, from the record so far)
            return Played(self.wallet.accounts.balance(account_id), stored=stored)

        def work(conn: Connection) -> Played:
            row = self._read(conn, account_id, table_key_of(stored))
            again = self._own(account_id, round_id)
            if again.status != "in_progress":  # finished meanwhile, in another request
                return Played(self._balance(account_id), stored=again)
            _, live = self._restore(row, again)
            balance = live.balance if live.balance is not None else self._balance(account_id)
            return Played(balance, live=live)

        # a write transaction: a round saved in mid-deal (a process stopped while it
        # dealt) is dealt to its end and settled when it is set up again
        return self.db.run(work)

    def table(self, account_id: int, game: GameInfo, variant: str | None = None) -> TableState:
        """The person's table at ``game`` (or at its ``variant``): this shoe's outcomes,
        whether the next round starts from a new shoe, the round in play."""
        here = table_key(game.id, variant)
        rules = self.rules_for(here)

        def work(conn: Connection) -> TableState:
            row = self._read(conn, account_id, here, lock=False)
            shoe = self._shoe(row, rules)
            due = shoe.shuffles > 0 and shoe.needs_reshuffle
            return TableState(
                game=game.id,
                balance=self.wallet.accounts.balance(account_id),
                shuffles=row.shuffles,
                reshuffle_due=due,
                reshuffle_cause=shoe.next_cause if due else None,
                rounds_played=row.rounds_played,
                round_in_play=row.round_id,
                beads=tuple(row.beads) if row.bead_shoe == row.shuffles else (),
                bead_shoe=row.bead_shoe if row.bead_shoe == row.shuffles else None,
            )

        return self.db.run(work, write=False)

    # -- inside a transaction ------------------------------------------------------------
    def _house(self, stored: StoredRound) -> bool:
        """Is ``stored`` a round of a house game this server deals (not a coup at a table
        of seats, whose state these tables do not read)?"""
        return stored.game in self.rules and GAMES[stored.game].kind == "house"

    def _own(self, account_id: int, round_id: int) -> StoredRound:
        try:
            stored = self.wallet.rounds.round(round_id)
        except WalletError:
            raise NotYours(f"there is no round {round_id} of yours") from None
        if stored.account_id != account_id:
            raise NotYours(f"there is no round {round_id} of yours")
        return stored

    def _balance(self, account_id: int) -> Fraction:
        return self.wallet.accounts.balance(account_id)

    def _given_back(
        self,
        conn: Connection,
        account_id: int,
        game: GameInfo,
        here: str,
        stakes: Mapping[str, Fraction],
        round_id: int,
    ) -> Played:
        """The round an idempotency key opened, as it stands now (:class:`KeyReused` if
        it was opened with other bets, or at another table)."""
        stored = self.wallet.rounds.round(round_id)
        if (
            stored.game != game.id
            or table_key_of(stored) != here
            or dict(stored.stakes) != dict(stakes)
        ):
            raise KeyReused(
                f"this idempotency key opened round {stored.id} with other bets: "
                "use a new key for new bets"
            )
        balance = self._balance(account_id)
        if stored.status == "in_progress" and stored.game in self.rules:
            row = self._read(conn, account_id, here, lock=False)
            _, live = self._restore(row, stored)
            return Played(balance, live=live, new=False)
        return Played(balance, stored=stored, new=False)

    def _read(self, conn: Connection, account_id: int, here: str, lock: bool = True) -> _Row:
        """The table's row (table key ``here``) with the account's balance (locked: the
        table's row, made first if it is the person's first round at the table)."""
        key = {"account": account_id, "game": here}
        rows = self.db.fast(conn, _LOCK_TABLE if lock else _READ_TABLE, key)
        if not rows and lock:
            new = _NEW_SQLITE_TABLE if self.db.is_sqlite else _NEW_PG_TABLE
            conn.execute(new, {**key, "now": datetime.now(UTC)})
            rows = self.db.fast(conn, _LOCK_TABLE, key)
        if not rows:
            balance = self.wallet.accounts.balance(account_id) if lock else Fraction(0)
            return _Row(None, balance=balance)
        [(shoe, dealt, shuffles, beads_text, rounds_played, round_id, balance, *house)] = rows
        suspended, open_, min_stake, max_stake, public = house
        beads = json.loads(beads_text)
        return _Row(
            cards=None if shoe is None else _cards(shoe),
            dealt=int(dealt),
            shuffles=int(shuffles),
            beads=[str(b) for b in beads.get("outcomes", [])],
            bead_shoe=beads.get("shoe"),
            rounds_played=int(rounds_played),
            round_id=None if round_id is None else int(round_id),
            exists=True,
            balance=from_cents(balance),
            suspended=suspended is not None,
            closed=open_ is not None and not open_,
            min_stake=None if min_stake is None else from_cents(min_stake),
            max_stake=None if max_stake is None else from_cents(max_stake),
            public=bool(public),
        )

    def _fair(self, conn: Connection, account_id: int, here: str, row: _Row) -> FairShuffler | None:
        """The shuffler of the table's next shoes in live play (None: the injected one)."""
        if not self.fair:
            return None
        return self.seeds.shuffler(
            conn,
            account_id,
            table_ref(here),
            here,
            row.shuffles,
            lambda c: self.seeds.client_seed_in(c, account_id),
        )

    def _shoe(self, row: _Row, rules: GameRules, shuffler: Shuffler | None = None) -> Shoe:
        shuffler = shuffler or self.shuffler()
        if row.cards is None:
            return Shoe(rules.shoe, shuffler)
        # the rounds dealt from this shuffle are this shoe's beads (one a finished round)
        rounds = len(row.beads) if row.bead_shoe == row.shuffles else 0
        return Shoe.restore(rules.shoe, shuffler, row.cards, row.dealt, row.shuffles, rounds)

    def _table(
        self,
        row: _Row,
        account_id: int,
        name: str,
        game: GameInfo,
        rules: GameRules,
        here: str,
        shuffler: Shuffler | None = None,
    ) -> HouseTable:
        table = HouseTable(
            game,
            rules,
            self._shoe(row, rules, shuffler),
            self.wallet,
            account_id,
            name=name,
            table_ref=table_ref(here),
        )
        table.rounds_played = row.rounds_played
        table.beads, table.bead_shoe = list(row.beads), row.bead_shoe
        return table

    def _restore(
        self, row: _Row, stored: StoredRound, shuffler: Shuffler | None = None
    ) -> tuple[HouseTable, HouseRound]:
        """The round in play, set up again; its table deals on from the table's shoe."""
        shoe = (
            self._shoe(row, self.rules_for(table_key_of(stored)), shuffler)
            if row.cards is not None
            else None
        )
        table, live = restore_round(self.wallet, stored, source=shoe)
        table.rounds_played = row.rounds_played
        table.beads, table.bead_shoe = list(row.beads), row.bead_shoe
        return table, live

    def _write(
        self,
        conn: Connection,
        account_id: int,
        here: str,
        row: _Row,
        table: HouseTable,
        live: HouseRound,
        fair: FairShuffler | None = None,
    ) -> None:
        shoe = table.source
        if fair is not None and isinstance(shoe, Shoe):
            self.seeds.opened(conn, fair, live.id)
            if live.is_over and shoe.needs_reshuffle:  # the shoe deals no more
                self.seeds.ended(conn, account_id, table_ref(here), shoe.shuffles)
        values: dict[str, Any] = {
            "account": account_id,
            "game": here,
            "p_beads": json.dumps({"shoe": table.bead_shoe, "outcomes": table.beads}),
            "p_rounds_played": table.rounds_played,
            "p_round_id": None if live.is_over else live.id,
            "p_updated_at": datetime.now(UTC),
        }
        statement = _UPDATE_TABLE
        if isinstance(shoe, Shoe):
            values.update(p_dealt=shoe.dealt, p_shuffles=shoe.shuffles)
            if shoe.shuffles != row.shuffles or row.cards is None:
                values["p_shoe"] = "".join(card.code for card in shoe.order)
                statement = _UPDATE_TABLE_AND_SHOE
        else:  # a round of before the tables were saved: the next round has a new shoe
            values.update(p_shoe=None, p_dealt=0, p_shuffles=row.shuffles)
            statement = _UPDATE_TABLE_AND_SHOE
        self.db.fast(conn, statement, values)


_TABLE_COLUMNS = (
    house_tables.c.shoe,
    house_tables.c.dealt,
    house_tables.c.shuffles,
    house_tables.c.beads,
    house_tables.c.rounds_played,
    house_tables.c.round_id,
    accounts.c.balance,
    accounts.c.suspended_at,
    table_settings.c.open,
    table_settings.c.min_stake,
    table_settings.c.max_stake,
    table_settings.c.public,
)
_THIS_TABLE = (
    house_tables.c.account_id == bindparam("account"),
    house_tables.c.game == bindparam("game"),
)
_READ = (
    select(*_TABLE_COLUMNS)
    .join_from(house_tables, accounts, accounts.c.id == house_tables.c.account_id)
    .outerjoin(table_settings, table_settings.c.key == house_tables.c.game)
    .where(*_THIS_TABLE)
)
_READ_TABLE = Fast(_READ)
_LOCK_TABLE = Fast(_READ.with_for_update(of=house_tables))
_CHANGES = ("dealt", "shuffles", "beads", "rounds_played", "round_id", "updated_at")
_UPDATE_TABLE = Fast(
    update(house_tables).where(*_THIS_TABLE).values({c: bindparam(f"p_{c}") for c in _CHANGES})
)
_UPDATE_TABLE_AND_SHOE = Fast(
    update(house_tables)
    .where(*_THIS_TABLE)
    .values({c: bindparam(f"p_{c}") for c in (*_CHANGES, "shoe")})
)
_NEW_ROW: dict[str, Any] = {
    "account_id": bindparam("account"),
    "game": bindparam("game"),
    "shoe": None,
    "dealt": 0,
    "shuffles": 0,
    "beads": "{}",
    "rounds_played": 0,
    "round_id": None,
    "updated_at": bindparam("now"),
}
_NEW_SQLITE_TABLE = sqlite_insert(house_tables).values(_NEW_ROW).on_conflict_do_nothing()
_NEW_PG_TABLE = pg_insert(house_tables).values(_NEW_ROW).on_conflict_do_nothing()


@lru_cache(maxsize=4096)
def _cards(text: str) -> tuple[Card, ...]:
    """A saved shoe's cards (two-character codes run together), read once per shoe: a
    shoe's order never changes once shuffled, so this keeps no state that could go stale."""
    return parse_cards(text[i : i + 2] for i in range(0, len(text), 2))


def _amount(value: Fraction) -> str:
    return format_amount(value)
