"""Shoes anyone can verify (docs/fairness.md).

- ``shoe_seeds``: the server seed of each shoe (and the one committed to for a table's
  next shoe), its SHA-256 commitment, the client seed it was shuffled with, when it was
  shuffled and when its seed was revealed.
- ``client_seeds``: each person's client seed.

Everything this revision uses is written here: it does not read the application's code.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision: str | None = "0009"
branch_labels: str | None = None
depends_on: str | None = None

ROW_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "shoe_seeds",
        sa.Column("id", ROW_ID, nullable=False),
        sa.Column("account_id", ROW_ID, nullable=True),
        sa.Column("table_ref", sa.Text(), nullable=False),
        sa.Column("game", sa.Text(), nullable=False),
        sa.Column("shoe", sa.Integer(), nullable=True),
        sa.Column("server_seed", sa.Text(), nullable=False),
        sa.Column("commitment", sa.Text(), nullable=False),
        sa.Column("client_seed", sa.Text(), nullable=True),
        sa.Column("first_round_id", ROW_ID, nullable=True),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("shuffled_at", TIME, nullable=True),
        sa.Column("revealed_at", TIME, nullable=True),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_shoe_seeds_account_id_accounts")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_shoe_seeds")),
    )
    op.create_index(
        op.f("ix_shoe_seeds_account_id_table_ref_shoe"),
        "shoe_seeds",
        ["account_id", "table_ref", "shoe"],
    )
    op.create_table(
        "client_seeds",
        sa.Column("account_id", ROW_ID, nullable=False),
        sa.Column("client_seed", sa.Text(), nullable=False),
        sa.Column("updated_at", TIME, nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_client_seeds_account_id_accounts")
        ),
        sa.PrimaryKeyConstraint("account_id", name=op.f("pk_client_seeds")),
    )


def downgrade() -> None:
    """Not supported: cardroom's schema is not downgraded."""
    raise NotImplementedError("cardroom's schema is not downgraded")
