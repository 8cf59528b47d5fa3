"""The web table's sign-in sessions.

Revision ID: 0002
Revises: 0001
Create Date: 2026-05-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision: str | None = "0001"
branch_labels: str | None = None
depends_on: str | None = None

ROW_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "web_sessions",
        sa.Column("id", ROW_ID, primary_key=True),
        sa.Column("token_hash", sa.Text(), nullable=False),
        sa.Column("account_id", ROW_ID, nullable=False),
        sa.Column("csrf_token", sa.Text(), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("expires_at", TIME, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_web_sessions")),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_web_sessions_account_id_accounts")
        ),
        sa.UniqueConstraint("token_hash", name=op.f("uq_web_sessions_token_hash")),
    )
    op.create_index(op.f("ix_web_sessions_account_id"), "web_sessions", ["account_id"])


def downgrade() -> None:
    """Not supported: cardroom's schema is not downgraded."""
    raise NotImplementedError("cardroom's schema is not downgraded")
