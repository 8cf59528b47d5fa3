"""The operator's floor.

- ``operators`` and ``operator_sessions``: the people who run the room, with a password
  and a TOTP secret, and their sign-in sessions.
- ``operator_log``: every operator action, append-only: triggers refuse UPDATE and
  DELETE on both databases (and TRUNCATE on PostgreSQL).
- ``table_settings``: what the house set for a table (open, limits, a variant's public
  name).
- ``ledger_hours`` and ``rollup_marks``: the ledger's stakes and payouts summed by hour,
  table and wager, and how far the sums have read.
- ``accounts.suspended_at``; ``web_sessions.address`` (where a player signed in from);
  the ledger's kind ``adjustment`` (either sign, never 0);
  an index of rounds by the time they began.

Everything this revision uses is written here: it does not read the application's code.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision: str | None = "0006"
branch_labels: str | None = None
depends_on: str | None = None

ROW_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TIME = sa.DateTime(timezone=True)

CREDITS = ("deposit", "win", "return", "cash_out", "top_up")
DEBITS = ("withdrawal", "stake", "buy_in")

APPEND_ONLY = ("operator_log",)
REFUSAL = "is append-only: its rows are never changed or deleted"


def _one_of(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


def _sign(adjustment: bool) -> str:
    sign = (
        f"({_one_of('kind', CREDITS)} AND amount >= 0) OR "
        f"({_one_of('kind', DEBITS)} AND amount <= 0)"
    )
    return sign + " OR (kind = 'adjustment' AND amount <> 0)" if adjustment else sign


def _ledger_before() -> sa.Table:
    """The ledger as revisions 0001 to 0006 left it (what SQLite's copy starts from)."""
    meta = sa.MetaData()
    return sa.Table(
        "ledger",
        meta,
        sa.Column("id", ROW_ID, primary_key=True),
        sa.Column("account_id", ROW_ID, nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("balance_after", sa.BigInteger(), nullable=False),
        sa.Column("round_id", ROW_ID, nullable=True),
        sa.Column("seat_id", ROW_ID, nullable=True),
        sa.Column("table_ref", sa.Text(), nullable=True),
        sa.Column("wager", sa.Text(), nullable=True),
        sa.Column("memo", sa.Text(), nullable=False),
        sa.CheckConstraint(_one_of("kind", CREDITS + DEBITS), name="ck_ledger_kind"),
        sa.CheckConstraint(_sign(False), name="ck_ledger_amount_sign"),
        sa.CheckConstraint("balance_after >= 0", name="ck_ledger_balance_after_not_negative"),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name="fk_ledger_account_id_accounts"
        ),
        sa.ForeignKeyConstraint(["round_id"], ["rounds.id"], name="fk_ledger_round_id_rounds"),
        sa.ForeignKeyConstraint(["seat_id"], ["seats.id"], name="fk_ledger_seat_id_seats"),
        sa.PrimaryKeyConstraint("id", name="pk_ledger"),
        sa.Index("ix_ledger_account_id_id", "account_id", "id"),
        sa.Index("ix_ledger_round_id", "round_id"),
    )


def upgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    with op.batch_alter_table("ledger", copy_from=_ledger_before()) as batch:
        batch.drop_constraint(op.f("ck_ledger_kind"), type_="check")
        batch.drop_constraint(op.f("ck_ledger_amount_sign"), type_="check")
        batch.create_check_constraint(
            op.f("ck_ledger_kind"), _one_of("kind", (*CREDITS, *DEBITS, "adjustment"))
        )
        batch.create_check_constraint(op.f("ck_ledger_amount_sign"), _sign(True))
    op.add_column("accounts", sa.Column("suspended_at", TIME, nullable=True))
    op.add_column("web_sessions", sa.Column("address", sa.Text(), nullable=True))
    op.create_index(op.f("ix_rounds_created_at"), "rounds", ["created_at"])

    op.create_table(
        "operators",
        sa.Column("id", ROW_ID, nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("name_key", sa.Text(), nullable=False),
        sa.Column("role", sa.Text(), nullable=False),
        sa.Column("password_hash", sa.Text(), nullable=False),
        sa.Column("totp_secret", sa.Text(), nullable=False),
        sa.Column("totp_step", sa.BigInteger(), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("removed_at", TIME, nullable=True),
        sa.CheckConstraint("role IN ('operator', 'admin')", name=op.f("ck_operators_role")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_operators")),
        sa.UniqueConstraint("name_key", name=op.f("uq_operators_name_key")),
    )
    op.create_table(
        "operator_sessions",
        sa.Column("id", ROW_ID, nullable=False),
        sa.Column("token_hash", sa.Text(), nullable=False),
        sa.Column("operator_id", ROW_ID, nullable=False),
        sa.Column("csrf_token", sa.Text(), nullable=False),
        sa.Column("address", sa.Text(), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("expires_at", TIME, nullable=False),
        sa.ForeignKeyConstraint(
            ["operator_id"],
            ["operators.id"],
            name=op.f("fk_operator_sessions_operator_id_operators"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_operator_sessions")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_operator_sessions_token_hash")),
    )
    op.create_index(op.f("ix_operator_sessions_operator_id"), "operator_sessions", ["operator_id"])
    op.create_table(
        "operator_log",
        sa.Column("id", ROW_ID, nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("operator_id", ROW_ID, nullable=True),
        sa.Column("operator", sa.Text(), nullable=False),
        sa.Column("address", sa.Text(), nullable=False),
        sa.Column("action", sa.Text(), nullable=False),
        sa.Column("target", sa.Text(), nullable=True),
        sa.Column("before", sa.Text(), nullable=True),
        sa.Column("after", sa.Text(), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["operator_id"], ["operators.id"], name=op.f("fk_operator_log_operator_id_operators")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_operator_log")),
    )
    op.create_index(op.f("ix_operator_log_created_at"), "operator_log", ["created_at"])
    op.create_index(op.f("ix_operator_log_target_id"), "operator_log", ["target", "id"])
    op.create_table(
        "table_settings",
        sa.Column("key", sa.Text(), nullable=False),
        sa.Column("name", sa.Text(), nullable=True),
        sa.Column("public", sa.Integer(), nullable=False),
        sa.Column("open", sa.Integer(), nullable=False),
        sa.Column("min_stake", sa.BigInteger(), nullable=True),
        sa.Column("max_stake", sa.BigInteger(), nullable=True),
        sa.Column("updated_at", TIME, nullable=False),
        sa.CheckConstraint(
            "min_stake IS NULL OR min_stake > 0", name=op.f("ck_table_settings_min_stake_positive")
        ),
        sa.CheckConstraint(
            "max_stake IS NULL OR min_stake IS NULL OR max_stake >= min_stake",
            name=op.f("ck_table_settings_limits_order"),
        ),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_table_settings")),
    )
    op.create_table(
        "ledger_hours",
        sa.Column("hour", TIME, nullable=False),
        sa.Column("table_ref", sa.Text(), nullable=False),
        sa.Column("wager", sa.Text(), nullable=False),
        sa.Column("rounds", sa.BigInteger(), nullable=False),
        sa.Column("staked", sa.BigInteger(), nullable=False),
        sa.Column("paid", sa.BigInteger(), nullable=False),
        sa.Column("stake_squares", sa.Double(), nullable=False),
        sa.PrimaryKeyConstraint("hour", "table_ref", "wager", name=op.f("pk_ledger_hours")),
    )
    op.create_table(
        "rollup_marks",
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("ledger_id", sa.BigInteger(), nullable=False),
        sa.Column("updated_at", TIME, nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_rollup_marks")),
    )
    for table in APPEND_ONLY:
        _append_only(table, sqlite)


def _append_only(table: str, sqlite: bool) -> None:
    """Triggers that refuse to change or delete a row of ``table``."""
    message = f"{table} {REFUSAL}"
    if sqlite:
        for event in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER {table}_no_{event.lower()} BEFORE {event} ON {table} "
                f"BEGIN SELECT RAISE(ABORT, '{message}'); END"
            )
        return
    op.execute(
        f"CREATE FUNCTION {table}_refuse() RETURNS trigger LANGUAGE plpgsql AS $$ "
        f"BEGIN RAISE EXCEPTION '{message}'; END $$"
    )
    op.execute(
        f"CREATE TRIGGER {table}_no_change BEFORE UPDATE OR DELETE ON {table} "
        f"FOR EACH ROW EXECUTE FUNCTION {table}_refuse()"
    )
    op.execute(
        f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
        f"FOR EACH STATEMENT EXECUTE FUNCTION {table}_refuse()"
    )


def downgrade() -> None:
    """Not supported: cardroom's schema is not downgraded."""
    raise NotImplementedError("cardroom's schema is not downgraded")
