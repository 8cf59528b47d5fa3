"""The schema: accounts, rounds, seats and the ledger; a bankroll file brought over.

A database that holds the tables of cardroom 0.1's bankroll file (schema 1 or 2) keeps
them, renamed ``legacy_meta``, ``legacy_bankroll``, ``legacy_people`` and
``legacy_rounds``, and gains an account (with a deposit of its balance) for each of its
bankrolls and a finished round for each of its rounds (see
:mod:`cardroom.storage.migrations.legacy_0001`).

Revision ID: 0001
Revises:
Create Date: 2026-05-20
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from cardroom.storage.migrations import legacy_0001 as legacy

revision = "0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None

# The tables as this revision made them (later revisions change them with their own steps);
# op.f() marks each constraint's name as final, not one for the naming convention to build.
ROW_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TIME = sa.DateTime(timezone=True)
LEGACY_TABLES = ("meta", "bankroll", "people", "rounds")


def upgrade() -> None:
    bind = op.get_bind()
    existing = set(sa.inspect(bind).get_table_names())
    bankroll_file = "meta" in existing
    if bankroll_file:
        for name in LEGACY_TABLES:
            if name in existing:
                op.rename_table(name, f"legacy_{name}")

    op.create_table(
        "accounts",
        sa.Column("id", ROW_ID, primary_key=True),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("name_key", sa.Text(), nullable=False),
        sa.Column("password_hash", sa.Text(), nullable=True),
        sa.Column("balance", sa.BigInteger(), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_accounts")),
        sa.UniqueConstraint("name_key", name=op.f("uq_accounts_name_key")),
        sa.CheckConstraint("balance >= 0", name=op.f("ck_accounts_balance_not_negative")),
    )
    op.create_table(
        "rounds",
        sa.Column("id", ROW_ID, primary_key=True),
        sa.Column("account_id", ROW_ID, nullable=False),
        sa.Column("game", sa.Text(), nullable=False),
        sa.Column("table_ref", sa.Text(), nullable=True),
        sa.Column("status", sa.Text(), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("updated_at", TIME, nullable=False),
        sa.Column("state", sa.Text(), nullable=True),
        sa.Column("record", sa.Text(), nullable=True),
        sa.Column("idempotency_key", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rounds")),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_rounds_account_id_accounts")
        ),
        sa.UniqueConstraint(
            "account_id", "idempotency_key", name=op.f("uq_rounds_account_id_idempotency_key")
        ),
        sa.CheckConstraint(
            "status IN ('in_progress', 'finished', 'void')", name=op.f("ck_rounds_status")
        ),
    )
    op.create_index(op.f("ix_rounds_account_id_status"), "rounds", ["account_id", "status"])
    op.create_index(op.f("ix_rounds_account_id_id"), "rounds", ["account_id", "id"])
    op.create_table(
        "seats",
        sa.Column("id", ROW_ID, primary_key=True),
        sa.Column("account_id", ROW_ID, nullable=False),
        sa.Column("table_ref", sa.Text(), nullable=False),
        sa.Column("stack", sa.BigInteger(), nullable=False),
        sa.Column("status", sa.Text(), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("updated_at", TIME, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_seats")),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_seats_account_id_accounts")
        ),
        sa.CheckConstraint("stack >= 0", name=op.f("ck_seats_stack_not_negative")),
        sa.CheckConstraint("status IN ('open', 'closed')", name=op.f("ck_seats_status")),
    )
    op.create_index(op.f("ix_seats_account_id_status"), "seats", ["account_id", "status"])
    op.create_table(
        "ledger",
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
        sa.PrimaryKeyConstraint("id", name=op.f("pk_ledger")),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_ledger_account_id_accounts")
        ),
        sa.ForeignKeyConstraint(
            ["round_id"], ["rounds.id"], name=op.f("fk_ledger_round_id_rounds")
        ),
        sa.ForeignKeyConstraint(["seat_id"], ["seats.id"], name=op.f("fk_ledger_seat_id_seats")),
        sa.CheckConstraint(
            "kind IN ('deposit', 'win', 'return', 'cash_out', 'withdrawal', 'stake', 'buy_in')",
            name=op.f("ck_ledger_kind"),
        ),
        sa.CheckConstraint(
            "(kind IN ('deposit', 'win', 'return', 'cash_out') AND amount >= 0) OR "
            "(kind IN ('withdrawal', 'stake', 'buy_in') AND amount <= 0)",
            name=op.f("ck_ledger_amount_sign"),
        ),
        sa.CheckConstraint("balance_after >= 0", name=op.f("ck_ledger_balance_after_not_negative")),
    )
    op.create_index(op.f("ix_ledger_account_id_id"), "ledger", ["account_id", "id"])
    op.create_index(op.f("ix_ledger_round_id"), "ledger", ["round_id"])

    if bankroll_file:
        legacy.bring_over(bind)


def downgrade() -> None:
    """Not supported: money's history is not thrown away by a schema step."""
    raise NotImplementedError("cardroom's schema is not downgraded")
