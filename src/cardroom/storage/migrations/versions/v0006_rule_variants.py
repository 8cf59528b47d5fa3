"""The lab's variants that have a table of their own on the web.

- ``rule_variants``: a variant's rules (its TOML) by its id, the start of the SHA-256
  of that text, and its game.  A person's table at a variant is a row of
  ``house_tables`` whose ``game`` is ``GAME~ID``: that table needs no change.
- ``rounds``: an index on (``account_id``, ``table_ref``, ``id``), for the last rounds
  at one table (a game's table and its variants' tables hold rounds of one game).

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision: str | None = "0005"
branch_labels: str | None = None
depends_on: str | None = None

TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "rule_variants",
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("game", sa.Text(), nullable=False),
        sa.Column("rules", sa.Text(), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rule_variants")),
    )
    op.create_index(
        op.f("ix_rounds_account_id_table_ref_id"), "rounds", ["account_id", "table_ref", "id"]
    )


def downgrade() -> None:
    """Not supported: cardroom's schema is not downgraded."""
    raise NotImplementedError("cardroom's schema is not downgraded")
