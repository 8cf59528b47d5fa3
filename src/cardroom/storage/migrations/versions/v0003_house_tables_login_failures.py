"""Each person's house-game tables in the database (for many server processes), and
the sign-in throttle's wrong passwords.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision: str | None = "0002"
branch_labels: str | None = None
depends_on: str | None = None

ROW_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "house_tables",
        sa.Column("account_id", ROW_ID, nullable=False),
        sa.Column("game", sa.Text(), nullable=False),
        sa.Column("shoe", sa.Text(), nullable=True),
        sa.Column("dealt", sa.Integer(), nullable=False),
        sa.Column("shuffles", sa.Integer(), nullable=False),
        sa.Column("beads", sa.Text(), nullable=False),
        sa.Column("rounds_played", sa.BigInteger(), nullable=False),
        sa.Column("round_id", ROW_ID, nullable=True),
        sa.Column("updated_at", TIME, nullable=False),
        sa.CheckConstraint("dealt >= 0 AND shuffles >= 0", name=op.f("ck_house_tables_counts")),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_house_tables_account_id_accounts")
        ),
        sa.ForeignKeyConstraint(
            ["round_id"], ["rounds.id"], name=op.f("fk_house_tables_round_id_rounds")
        ),
        sa.PrimaryKeyConstraint("account_id", "game", name=op.f("pk_house_tables")),
    )
    op.create_table(
        "login_failures",
        sa.Column("id", ROW_ID, primary_key=True),
        sa.Column("name_key", sa.Text(), nullable=False),
        sa.Column("address", sa.Text(), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_login_failures")),
    )
    op.create_index(
        op.f("ix_login_failures_name_key_address_created_at"),
        "login_failures",
        ["name_key", "address", "created_at"],
    )
    op.create_index(
        op.f("ix_login_failures_name_key_created_at"), "login_failures", ["name_key", "created_at"]
    )
    op.create_index(
        op.f("ix_login_failures_address_created_at"), "login_failures", ["address", "created_at"]
    )
    op.create_index(op.f("ix_login_failures_created_at"), "login_failures", ["created_at"])


def downgrade() -> None:
    """Not supported: cardroom's schema is not downgraded."""
    raise NotImplementedError("cardroom's schema is not downgraded")
