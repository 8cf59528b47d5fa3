"""Limits a person sets on their own play, and reality checks.

- ``limit_changes``: every limit a person set, raised, lowered or removed, with when it
  takes effect; append-only (triggers refuse UPDATE and DELETE on both databases, and
  TRUNCATE on PostgreSQL).
- ``play_limits``: the limits as they stand, a row per account and kind: the amount in
  force and a pending change (a raise or a removal waits 24 hours).
- ``play_totals``: what an account with limits staked and got back this day, week and
  month (UTC), kept in the transaction of each stake.
- ``reality_checks``: every reality check a person acknowledged, append-only.
- ``accounts``: the play session (``session_started``, ``session_ends`` by the session
  time limit), the reality check's interval and when the next is due, and ``limited``
  (the account keeps ``play_totals``).

Everything this revision uses is written here: it does not read the application's code.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-29
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision: str | None = "0008"
branch_labels: str | None = None
depends_on: str | None = None

ROW_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TIME = sa.DateTime(timezone=True)
KINDS = (
    "loss_day",
    "loss_week",
    "loss_month",
    "stake_day",
    "stake_week",
    "stake_month",
    "session",
    "reality",
)
APPEND_ONLY = ("limit_changes", "reality_checks")


def _kinds() -> str:
    return "kind IN (" + ", ".join(f"'{k}'" for k in KINDS) + ")"


def upgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    op.add_column("accounts", sa.Column("session_started", TIME, nullable=True))
    op.add_column("accounts", sa.Column("session_ends", TIME, nullable=True))
    op.add_column("accounts", sa.Column("session_ledger_id", sa.BigInteger(), nullable=True))
    op.add_column("accounts", sa.Column("reality_every", sa.Integer(), nullable=True))
    op.add_column("accounts", sa.Column("reality_due", TIME, nullable=True))
    op.add_column(
        "accounts",
        sa.Column("limited", sa.Boolean(), nullable=False, server_default=sa.false()),
    )
    op.create_table(
        "limit_changes",
        sa.Column("id", ROW_ID, nullable=False),
        sa.Column("account_id", ROW_ID, nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=True),
        sa.Column("takes_effect", TIME, nullable=False),
        sa.Column("address", sa.Text(), nullable=False),
        sa.CheckConstraint(_kinds(), name=op.f("ck_limit_changes_kind")),
        sa.CheckConstraint("amount IS NULL OR amount >= 0", name=op.f("ck_limit_changes_amount")),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_limit_changes_account_id_accounts")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_limit_changes")),
    )
    op.create_index(op.f("ix_limit_changes_account_id_id"), "limit_changes", ["account_id", "id"])
    op.create_table(
        "play_limits",
        sa.Column("account_id", ROW_ID, nullable=False),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=True),
        sa.Column("next_amount", sa.BigInteger(), nullable=True),
        sa.Column("next_at", TIME, nullable=True),
        sa.CheckConstraint(_kinds(), name=op.f("ck_play_limits_kind")),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_play_limits_account_id_accounts")
        ),
        sa.PrimaryKeyConstraint("account_id", "kind", name=op.f("pk_play_limits")),
    )
    columns: list[sa.Column[Any]] = [sa.Column("account_id", ROW_ID, nullable=False)]
    for period in ("day", "week", "month"):
        columns += [
            sa.Column(f"{period}_start", TIME, nullable=False),
            sa.Column(f"{period}_staked", sa.BigInteger(), nullable=False),
            sa.Column(f"{period}_returned", sa.BigInteger(), nullable=False),
        ]
    op.create_table(
        "play_totals",
        *columns,
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_play_totals_account_id_accounts")
        ),
        sa.PrimaryKeyConstraint("account_id", name=op.f("pk_play_totals")),
    )
    op.create_table(
        "reality_checks",
        sa.Column("id", ROW_ID, nullable=False),
        sa.Column("account_id", ROW_ID, nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("session_started", TIME, nullable=False),
        sa.Column("minutes", sa.Integer(), nullable=False),
        sa.Column("net", sa.BigInteger(), nullable=False),
        sa.Column("address", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_reality_checks_account_id_accounts")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_reality_checks")),
    )
    op.create_index(op.f("ix_reality_checks_account_id_id"), "reality_checks", ["account_id", "id"])
    for table in APPEND_ONLY:
        message = f"{table} is append-only: its rows are never changed or deleted"
        if sqlite:
            for event in ("UPDATE", "DELETE"):
                op.execute(
                    f"CREATE TRIGGER {table}_no_{event.lower()} BEFORE {event} ON {table} "
                    f"BEGIN SELECT RAISE(ABORT, '{message}'); END"
                )
            continue
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
