"""Breaks and self-exclusions a person takes.

- ``protections``: every one taken, append-only: triggers refuse UPDATE and DELETE on
  both databases (and TRUNCATE on PostgreSQL).
- ``accounts.blocked_until``: the end of the one in force.

Everything this revision uses is written here: it does not read the application's code.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision: str | None = "0007"
branch_labels: str | None = None
depends_on: str | None = None

ROW_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TIME = sa.DateTime(timezone=True)
TABLE = "protections"
MESSAGE = f"{TABLE} is append-only: its rows are never changed or deleted"


def upgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    op.add_column("accounts", sa.Column("blocked_until", TIME, nullable=True))
    op.create_table(
        TABLE,
        sa.Column("id", ROW_ID, nullable=False),
        sa.Column("account_id", ROW_ID, nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("until", TIME, nullable=False),
        sa.Column("address", sa.Text(), nullable=False),
        sa.CheckConstraint(
            "kind IN ('time_out', 'self_exclusion')", name=op.f("ck_protections_kind")
        ),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_protections_account_id_accounts")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_protections")),
    )
    op.create_index(op.f("ix_protections_account_id_id"), TABLE, ["account_id", "id"])
    if sqlite:
        for event in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER {TABLE}_no_{event.lower()} BEFORE {event} ON {TABLE} "
                f"BEGIN SELECT RAISE(ABORT, '{MESSAGE}'); END"
            )
        return
    op.execute(
        f"CREATE FUNCTION {TABLE}_refuse() RETURNS trigger LANGUAGE plpgsql AS $$ "
        f"BEGIN RAISE EXCEPTION '{MESSAGE}'; END $$"
    )
    op.execute(
        f"CREATE TRIGGER {TABLE}_no_change BEFORE UPDATE OR DELETE ON {TABLE} "
        f"FOR EACH ROW EXECUTE FUNCTION {TABLE}_refuse()"
    )
    op.execute(
        f"CREATE TRIGGER {TABLE}_no_truncate BEFORE TRUNCATE ON {TABLE} "
        f"FOR EACH STATEMENT EXECUTE FUNCTION {TABLE}_refuse()"
    )


def downgrade() -> None:
    """Not supported: cardroom's schema is not downgraded."""
    raise NotImplementedError("cardroom's schema is not downgraded")
