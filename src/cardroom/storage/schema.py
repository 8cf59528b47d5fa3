"""The tables of cardroom's database, one :class:`~sqlalchemy.MetaData` for SQLite and
PostgreSQL alike (SQLAlchemy Core: tables and statements, no ORM).

Money is a whole number of **cents** in a ``BIGINT`` column; the wallet turns it into a
:class:`~fractions.Fraction` at its edge.  Times are timezone-aware UTC datetimes in
Python on both databases (:class:`UTCDateTime`): ``timestamptz`` on PostgreSQL, the
UTC wall time as text on SQLite.  The JSON of a round (``state``, ``record``) is text
that the storage never looks into.

The migration scripts in ``migrations/versions/`` create these same tables; a test
compares the migrated database with this module, so the two cannot drift apart.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    DateTime,
    Dialect,
    Double,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    Table,
    Text,
    TypeDecorator,
    UniqueConstraint,
    false,
)


class UTCDateTime(TypeDecorator[datetime]):
    """A timezone-aware datetime, stored in UTC and read back in UTC on every database.

    SQLite has no time zones: it holds the UTC wall time, and reading adds ``UTC`` back.
    A naive datetime is refused rather than guessed at.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"a naive datetime cannot be stored: {value!r}")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        when = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
        if when.tzinfo is None:
            return when.replace(tzinfo=UTC)
        return when.astimezone(UTC)


#: Row ids: 64-bit on PostgreSQL; SQLite's ``INTEGER PRIMARY KEY`` (its 64-bit rowid),
#: which a ``BIGINT`` column would not be.
RowId = BigInteger().with_variant(Integer(), "sqlite")

#: Constraint names fixed by convention, the same on both databases (and in migrations).
NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

#: The kinds of ledger row that put money into an account (amount >= 0) ...
CREDITS = ("deposit", "win", "return", "cash_out", "top_up")
#: ... and those that take it out (amount <= 0).
DEBITS = ("withdrawal", "stake", "buy_in")
#: ... and an operator's adjustment of a balance, either way (never 0).
ADJUSTMENT = "adjustment"
LEDGER_KINDS = CREDITS + DEBITS + (ADJUSTMENT,)
ROUND_STATUSES = ("in_progress", "finished", "void")
SEAT_STATUSES = ("open", "closed")


def _one_of(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


metadata = MetaData(naming_convention=NAMING)

accounts = Table(
    "accounts",
    metadata,
    Column("id", RowId, primary_key=True),
    Column("name", Text, nullable=False),
    Column("name_key", Text, nullable=False),
    Column("password_hash", Text, nullable=True),
    Column("balance", BigInteger, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    # what the name looks like (cardroom.app.names.name_skeleton): no two accounts alike
    Column("name_skeleton", Text, nullable=False),
    # the last top-up of play money (one a day at most), null before the first
    Column("topped_up_at", UTCDateTime, nullable=True),
    # suspended by an operator (null when not): the account may sign in and look, but
    # not stake, sit or top up; the operator log keeps who did it and why
    Column("suspended_at", UTCDateTime, nullable=True),
    # the end of the break or self-exclusion the person chose (null: none taken); they
    # may sign in and look until then, not play (cardroom.app.protections)
    Column("blocked_until", UTCDateTime, nullable=True),
    # the play session (from a sign-in with no other session live, or the terminal's
    # start) and its end by the person's session time limit (null: no limit); the
    # reality check's interval in minutes (null: off) and when the next is due; the
    # last ledger row before the session (its net result is what follows)
    # (cardroom.app.wallet.limits)
    Column("session_started", UTCDateTime, nullable=True),
    Column("session_ends", UTCDateTime, nullable=True),
    Column("session_ledger_id", BigInteger, nullable=True),
    Column("reality_every", Integer, nullable=True),
    Column("reality_due", UTCDateTime, nullable=True),
    # the account has (or had) a money limit: its stakes keep play_totals
    Column("limited", Boolean, nullable=False, server_default=false()),
    UniqueConstraint("name_key"),
    Index(None, "name_skeleton", unique=True),
    CheckConstraint("balance >= 0", name="balance_not_negative"),
)

rounds = Table(
    "rounds",
    metadata,
    Column("id", RowId, primary_key=True),
    Column("account_id", RowId, ForeignKey("accounts.id"), nullable=False),
    Column("game", Text, nullable=False),
    Column("table_ref", Text, nullable=True),
    Column("status", Text, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
    Column("state", Text, nullable=True),
    Column("record", Text, nullable=True),
    Column("idempotency_key", Text, nullable=True),
    UniqueConstraint("account_id", "idempotency_key"),
    CheckConstraint(_one_of("status", ROUND_STATUSES), name="status"),
    Index(None, "account_id", "status"),
    Index(None, "account_id", "id"),
    Index(None, "account_id", "game", "id"),
    Index(None, "account_id", "table_ref", "id"),
    # the floor's rounds of the last minutes
    Index(None, "created_at"),
)

seats = Table(
    "seats",
    metadata,
    Column("id", RowId, primary_key=True),
    Column("account_id", RowId, ForeignKey("accounts.id"), nullable=False),
    Column("table_ref", Text, nullable=False),
    Column("stack", BigInteger, nullable=False),
    Column("status", Text, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
    CheckConstraint("stack >= 0", name="stack_not_negative"),
    CheckConstraint(_one_of("status", SEAT_STATUSES), name="status"),
    Index(None, "account_id", "status"),
)

ledger = Table(
    "ledger",
    metadata,
    Column("id", RowId, primary_key=True),
    Column("account_id", RowId, ForeignKey("accounts.id"), nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("kind", Text, nullable=False),
    # signed cents: credits >= 0, debits <= 0, so the ledger's sum is the balance
    Column("amount", BigInteger, nullable=False),
    Column("balance_after", BigInteger, nullable=False),
    Column("round_id", RowId, ForeignKey("rounds.id"), nullable=True),
    Column("seat_id", RowId, ForeignKey("seats.id"), nullable=True),
    Column("table_ref", Text, nullable=True),
    # which wager of the round a stake, win or return belongs to
    Column("wager", Text, nullable=True),
    Column("memo", Text, nullable=False),
    CheckConstraint(_one_of("kind", LEDGER_KINDS), name="kind"),
    CheckConstraint(
        f"({_one_of('kind', CREDITS)} AND amount >= 0) OR "
        f"({_one_of('kind', DEBITS)} AND amount <= 0) OR "
        f"(kind = '{ADJUSTMENT}' AND amount <> 0)",
        name="amount_sign",
    ),
    CheckConstraint("balance_after >= 0", name="balance_after_not_negative"),
    Index(None, "account_id", "id"),
    Index(None, "round_id"),
)

#: The web table's sign-in sessions: the cookie holds a random token, this table only its
#: SHA-256 (a stolen copy of the database signs nobody in), with the session's CSRF token.
web_sessions = Table(
    "web_sessions",
    metadata,
    Column("id", RowId, primary_key=True),
    Column("token_hash", Text, nullable=False),
    Column("account_id", RowId, ForeignKey("accounts.id"), nullable=False),
    Column("csrf_token", Text, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("expires_at", UTCDateTime, nullable=False),
    # where the session signed in from (the client's address; null before revision 0007)
    Column("address", Text, nullable=True),
    UniqueConstraint("token_hash"),
    Index(None, "account_id"),
)

#: Each person's table at each house game of the web, held in the database so that any
#: server process deals the next round: the shoe's cards in order (two-character codes
#: run together, ``None`` before the first shuffle), how many are dealt, how many times
#: it was shuffled, this shoe's outcomes (JSON, for the bead plate) and the round in
#: play (``round_id``, None between rounds).  Its row is locked, after the account's,
#: by every transaction that deals at that table.
house_tables = Table(
    "house_tables",
    metadata,
    Column("account_id", RowId, ForeignKey("accounts.id"), nullable=False),
    Column("game", Text, nullable=False),
    Column("shoe", Text, nullable=True),
    Column("dealt", Integer, nullable=False),
    Column("shuffles", Integer, nullable=False),
    Column("beads", Text, nullable=False),
    Column("rounds_played", BigInteger, nullable=False),
    Column("round_id", RowId, ForeignKey("rounds.id"), nullable=True),
    Column("updated_at", UTCDateTime, nullable=False),
    PrimaryKeyConstraint("account_id", "game"),
    CheckConstraint("dealt >= 0 AND shuffles >= 0", name="counts"),
)

#: The rules of the lab's variants that have a table of their own on the web, by their id
#: (the start of the SHA-256 of their TOML, so one variant has one id in every process):
#: a person's table at a variant is a row of ``house_tables`` whose ``game`` is
#: ``GAME~ID``.  Rows are only added: a round's own record keeps its rules as well.
rule_variants = Table(
    "rule_variants",
    metadata,
    Column("id", Text, primary_key=True),
    Column("game", Text, nullable=False),
    Column("rules", Text, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
)

#: Wrong passwords, for the sign-in throttle (``cardroom/web/throttle.py``): the name as
#: normalised (``name_key``) and the client's address; old rows are deleted as new ones
#: come.  One index for each count the throttle makes over the recent rows (a name from
#: an address, an address, a name) and one to find the old rows.
login_failures = Table(
    "login_failures",
    metadata,
    Column("id", RowId, primary_key=True),
    Column("name_key", Text, nullable=False),
    Column("address", Text, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Index(None, "name_key", "address", "created_at"),
    Index(None, "address", "created_at"),
    Index(None, "name_key", "created_at"),
    Index(None, "created_at"),
)

# -- chemin de fer's web tables, driven by one server process at a time ------------------------
#: Times a lease or a heartbeat runs to are seconds since the Unix epoch by the database
#: server's own clock (``Double``), so that processes on machines whose clocks differ
#: compare them alike; see :mod:`cardroom.app.tables.live.link`.

#: The server processes serving the chemin de fer tables: each renews ``alive_until``
#: every second; a process past it is dead (its presence is ignored, then purged).
chemmy_processes = Table(
    "chemmy_processes",
    metadata,
    Column("id", Text, primary_key=True),
    Column("host", Text, nullable=False),
    Column("pid", Integer, nullable=False),
    Column("started_at", UTCDateTime, nullable=False),
    Column("alive_until", Double, nullable=False),
)

#: One row per chemin de fer table of the web: the process that drives it (``owner``,
#: null when none) under a lease until ``lease_until``, and the fencing ``epoch`` that
#: every taking of the lease raises.  Every transaction that changes the table's money or
#: coups locks this row first and checks that owner and epoch are still its own.  The
#: owner keeps the table as everybody may see it here (``view``, JSON) with the account
#: of each seat (``seated``, a JSON list), for the other processes' lobbies.
chemmy_tables = Table(
    "chemmy_tables",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("table_ref", Text, nullable=False),
    Column("owner", Text, nullable=True),
    Column("epoch", BigInteger, nullable=False),
    Column("lease_until", Double, nullable=False),
    Column("view", Text, nullable=True),
    Column("seated", Text, nullable=True),
    Column("updated_at", UTCDateTime, nullable=False),
    UniqueConstraint("table_ref"),
    CheckConstraint("epoch >= 0", name="epoch_not_negative"),
)

#: The WebSockets open at each table, by process (``connection`` counts them in the
#: process): who is there, for the owner's away marks and the messages it sends.
chemmy_presence = Table(
    "chemmy_presence",
    metadata,
    Column("process", Text, nullable=False),
    Column("connection", BigInteger, nullable=False),
    Column("table_id", Integer, nullable=False),
    Column("account_id", RowId, ForeignKey("accounts.id"), nullable=False),
    Column("name", Text, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    PrimaryKeyConstraint("process", "connection"),
    Index(None, "table_id"),
)

CHEMMY_COMMANDS = ("sit", "leave", "act")
CHEMMY_COMMAND_STATUSES = ("pending", "done", "cancelled")

#: What a process asks of a table another process drives (a seat, leaving, a decision):
#: the owner carries it out and writes its ``answer`` in the same transaction, unless the
#: asker has given up on it (``cancelled``) first; ``give_up`` is when it stops waiting.
chemmy_commands = Table(
    "chemmy_commands",
    metadata,
    Column("id", RowId, primary_key=True),
    Column("table_id", Integer, nullable=False),
    Column("process", Text, nullable=False),
    Column("account_id", RowId, ForeignKey("accounts.id"), nullable=False),
    Column("kind", Text, nullable=False),
    Column("body", Text, nullable=False),
    Column("status", Text, nullable=False),
    Column("answer", Text, nullable=True),
    Column("give_up", Double, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    CheckConstraint(_one_of("kind", CHEMMY_COMMANDS), name="kind"),
    CheckConstraint(_one_of("status", CHEMMY_COMMAND_STATUSES), name="status"),
    Index(None, "table_id", "status"),
)

#: The owner's messages to the WebSockets other processes hold, one row per step and
#: process (``body``: JSON pairs of connection and message), written in the step's own
#: transaction; the process takes (deletes) its rows and sends them on.
chemmy_outbox = Table(
    "chemmy_outbox",
    metadata,
    Column("id", RowId, primary_key=True),
    Column("process", Text, nullable=False),
    Column("table_id", Integer, nullable=False),
    Column("epoch", BigInteger, nullable=False),
    Column("body", Text, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Index(None, "process", "id"),
)


# -- the operator's floor ----------------------------------------------------------------------
OPERATOR_ROLES = ("operator", "admin")

#: The people who run the room: not players (a player's session never reaches an
#: operator's page).  A password (Argon2) and a TOTP secret; ``totp_step`` is the last
#: time step whose code signed in, so that no code signs in twice.  An operator removed
#: keeps the row (``removed_at``): the log names them.
operators = Table(
    "operators",
    metadata,
    Column("id", RowId, primary_key=True),
    Column("name", Text, nullable=False),
    Column("name_key", Text, nullable=False),
    Column("role", Text, nullable=False),
    Column("password_hash", Text, nullable=False),
    Column("totp_secret", Text, nullable=False),
    Column("totp_step", BigInteger, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("removed_at", UTCDateTime, nullable=True),
    UniqueConstraint("name_key"),
    CheckConstraint(_one_of("role", OPERATOR_ROLES), name="role"),
)

#: An operator's signed-in sessions (as ``web_sessions``: the token's SHA-256 only).
operator_sessions = Table(
    "operator_sessions",
    metadata,
    Column("id", RowId, primary_key=True),
    Column("token_hash", Text, nullable=False),
    Column("operator_id", RowId, ForeignKey("operators.id"), nullable=False),
    Column("csrf_token", Text, nullable=False),
    Column("address", Text, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("expires_at", UTCDateTime, nullable=False),
    UniqueConstraint("token_hash"),
    Index(None, "operator_id"),
)

#: Every operator action, append-only: who (null for the system's own alerts), from
#: where, what on which target, the state before and after (JSON) and the reason the
#: operator typed.  Triggers on both databases refuse UPDATE and DELETE
#: (:data:`APPEND_ONLY`).
operator_log = Table(
    "operator_log",
    metadata,
    Column("id", RowId, primary_key=True),
    Column("created_at", UTCDateTime, nullable=False),
    Column("operator_id", RowId, ForeignKey("operators.id"), nullable=True),
    Column("operator", Text, nullable=False),
    Column("address", Text, nullable=False),
    Column("action", Text, nullable=False),
    Column("target", Text, nullable=True),
    Column("before", Text, nullable=True),
    Column("after", Text, nullable=True),
    Column("reason", Text, nullable=False),
    Index(None, "created_at"),
    Index(None, "target", "id"),
)

#: What the house has set for a table: house games by their table key (a game's id, or
#: ``GAME~VARIANT`` for a lab variant put on a public table under ``name``), chemin de
#: fer tables by their table reference.  No row: the table as the rules make it, open.
#: Stakes in cents; a null limit is the rules' own.
table_settings = Table(
    "table_settings",
    metadata,
    Column("key", Text, primary_key=True),
    Column("name", Text, nullable=True),
    Column("public", Integer, nullable=False),
    Column("open", Integer, nullable=False),
    Column("min_stake", BigInteger, nullable=True),
    Column("max_stake", BigInteger, nullable=True),
    Column("updated_at", UTCDateTime, nullable=False),
    CheckConstraint("min_stake IS NULL OR min_stake > 0", name="min_stake_positive"),
    CheckConstraint(
        "max_stake IS NULL OR min_stake IS NULL OR max_stake >= min_stake", name="limits_order"
    ),
)

PROTECTION_KINDS = ("time_out", "self_exclusion")

#: Every break and self-exclusion a person took, append-only (as the operator log): when,
#: which, until when, and from which address.
protections = Table(
    "protections",
    metadata,
    Column("id", RowId, primary_key=True),
    Column("account_id", RowId, ForeignKey("accounts.id"), nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("kind", Text, nullable=False),
    Column("until", UTCDateTime, nullable=False),
    Column("address", Text, nullable=False),
    CheckConstraint(_one_of("kind", PROTECTION_KINDS), name="kind"),
    Index(None, "account_id", "id"),
)

#: The limits a person may set on their own play: losses and stakes a day, week and
#: month (cents), the session's length and the reality check's interval (minutes).
LIMIT_KINDS = (
    "loss_day",
    "loss_week",
    "loss_month",
    "stake_day",
    "stake_week",
    "stake_month",
    "session",
    "reality",
)

#: Every change of a limit a person made, append-only: the new amount (null: removed)
#: and when it takes effect (at once for a lower limit, 24 hours on for a higher one).
limit_changes = Table(
    "limit_changes",
    metadata,
    Column("id", RowId, primary_key=True),
    Column("account_id", RowId, ForeignKey("accounts.id"), nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("kind", Text, nullable=False),
    Column("amount", BigInteger, nullable=True),
    Column("takes_effect", UTCDateTime, nullable=False),
    Column("address", Text, nullable=False),
    CheckConstraint(_one_of("kind", LIMIT_KINDS), name="kind"),
    CheckConstraint("amount IS NULL OR amount >= 0", name="amount"),
    Index(None, "account_id", "id"),
)

#: The limits as they stand: the amount in force (null: none) and a change waiting for
#: its time (``next_at`` null: none waits).
play_limits = Table(
    "play_limits",
    metadata,
    Column("account_id", RowId, ForeignKey("accounts.id"), nullable=False),
    Column("kind", Text, nullable=False),
    Column("amount", BigInteger, nullable=True),
    Column("next_amount", BigInteger, nullable=True),
    Column("next_at", UTCDateTime, nullable=True),
    CheckConstraint(_one_of("kind", LIMIT_KINDS), name="kind"),
    PrimaryKeyConstraint("account_id", "kind"),
)

#: What an account with limits staked and got back in the day, week and month (UTC)
#: that began at ``<period>_start``.
play_totals = Table(
    "play_totals",
    metadata,
    Column("account_id", RowId, ForeignKey("accounts.id"), primary_key=True),
    *[
        column
        for period in ("day", "week", "month")
        for column in (
            Column(f"{period}_start", UTCDateTime, nullable=False),
            Column(f"{period}_staked", BigInteger, nullable=False),
            Column(f"{period}_returned", BigInteger, nullable=False),
        )
    ],
)

#: Every reality check a person acknowledged, append-only: the session it was of, the
#: minutes played and the session's net result (cents) it showed.
reality_checks = Table(
    "reality_checks",
    metadata,
    Column("id", RowId, primary_key=True),
    Column("account_id", RowId, ForeignKey("accounts.id"), nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("session_started", UTCDateTime, nullable=False),
    Column("minutes", Integer, nullable=False),
    Column("net", BigInteger, nullable=False),
    Column("address", Text, nullable=False),
    Index(None, "account_id", "id"),
)

#: The tables that keep records only: the triggers that refuse to change a row of them.
APPEND_ONLY = ("operator_log", "protections", "limit_changes", "reality_checks")

#: The house games' stakes and payouts hour by hour, by table and wager, summed from the
#: ledger by the floor (:mod:`cardroom.app.operators.rollup`) so that a period's figures
#: read a few rows an hour, not every round: ``rounds`` stakes, cents ``staked`` and
#: ``paid`` back (stakes returned included), and the sum of the squared stakes (for the
#: standard error of the hold; a float, as it is only used for that).
ledger_hours = Table(
    "ledger_hours",
    metadata,
    Column("hour", UTCDateTime, nullable=False),
    Column("table_ref", Text, nullable=False),
    Column("wager", Text, nullable=False),
    Column("rounds", BigInteger, nullable=False),
    Column("staked", BigInteger, nullable=False),
    Column("paid", BigInteger, nullable=False),
    Column("stake_squares", Double, nullable=False),
    PrimaryKeyConstraint("hour", "table_ref", "wager"),
)

#: How far the hourly sums have read the ledger: every row up to ``ledger_id``.
rollup_marks = Table(
    "rollup_marks",
    metadata,
    Column("name", Text, primary_key=True),
    Column("ledger_id", BigInteger, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
)

#: The server seeds of the shoes anyone can verify (docs/fairness.md): a row per shoe of
#: a table (``account_id`` the person whose house table it is; None at a table of seats),
#: ``shoe`` its number at the table, None while the seed is only committed to for the
#: table's next shoe; ``server_seed`` (hex) is kept secret until ``revealed_at``, its
#: SHA-256 ``commitment`` is shown from the start; ``client_seed`` the one it was shuffled
#: with, ``first_round_id`` the round it was shuffled for.
shoe_seeds = Table(
    "shoe_seeds",
    metadata,
    Column("id", RowId, primary_key=True),
    Column("account_id", RowId, ForeignKey("accounts.id"), nullable=True),
    Column("table_ref", Text, nullable=False),
    Column("game", Text, nullable=False),
    Column("shoe", Integer, nullable=True),
    Column("server_seed", Text, nullable=False),
    Column("commitment", Text, nullable=False),
    Column("client_seed", Text, nullable=True),
    Column("first_round_id", RowId, nullable=True),
    Column("created_at", UTCDateTime, nullable=False),
    Column("shuffled_at", UTCDateTime, nullable=True),
    Column("revealed_at", UTCDateTime, nullable=True),
    Index(None, "account_id", "table_ref", "shoe"),
)

#: Each person's client seed (a default one made on first use; a change applies from the
#: next shoe).
client_seeds = Table(
    "client_seeds",
    metadata,
    Column("account_id", RowId, ForeignKey("accounts.id"), primary_key=True),
    Column("client_seed", Text, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
)
