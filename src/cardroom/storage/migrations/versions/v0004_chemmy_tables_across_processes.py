"""Chemin de fer's web tables driven by one server process at a time, for many processes
on one database: the processes and their heartbeats, each table's lease (its owner and
fencing epoch) and public view, the WebSockets open at each table, the commands other
processes send the owner, and the owner's messages to their WebSockets.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision: str | None = "0003"
branch_labels: str | None = None
depends_on: str | None = None

ROW_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "chemmy_processes",
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("host", sa.Text(), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("started_at", TIME, nullable=False),
        sa.Column("alive_until", sa.Double(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_chemmy_processes")),
    )
    op.create_table(
        "chemmy_tables",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("table_ref", sa.Text(), nullable=False),
        sa.Column("owner", sa.Text(), nullable=True),
        sa.Column("epoch", sa.BigInteger(), nullable=False),
        sa.Column("lease_until", sa.Double(), nullable=False),
        sa.Column("view", sa.Text(), nullable=True),
        sa.Column("seated", sa.Text(), nullable=True),
        sa.Column("updated_at", TIME, nullable=False),
        sa.CheckConstraint("epoch >= 0", name=op.f("ck_chemmy_tables_epoch_not_negative")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_chemmy_tables")),
        sa.UniqueConstraint("table_ref", name=op.f("uq_chemmy_tables_table_ref")),
    )
    op.create_table(
        "chemmy_presence",
        sa.Column("process", sa.Text(), nullable=False),
        sa.Column("connection", sa.BigInteger(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("account_id", ROW_ID, nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_chemmy_presence_account_id_accounts")
        ),
        sa.PrimaryKeyConstraint("process", "connection", name=op.f("pk_chemmy_presence")),
    )
    op.create_index(op.f("ix_chemmy_presence_table_id"), "chemmy_presence", ["table_id"])
    op.create_table(
        "chemmy_commands",
        sa.Column("id", ROW_ID, primary_key=True),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("process", sa.Text(), nullable=False),
        sa.Column("account_id", ROW_ID, nullable=False),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("status", sa.Text(), nullable=False),
        sa.Column("answer", sa.Text(), nullable=True),
        sa.Column("give_up", sa.Double(), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.CheckConstraint("kind IN ('sit', 'leave', 'act')", name=op.f("ck_chemmy_commands_kind")),
        sa.CheckConstraint(
            "status IN ('pending', 'done', 'cancelled')", name=op.f("ck_chemmy_commands_status")
        ),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_chemmy_commands_account_id_accounts")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_chemmy_commands")),
    )
    op.create_index(
        op.f("ix_chemmy_commands_table_id_status"), "chemmy_commands", ["table_id", "status"]
    )
    op.create_table(
        "chemmy_outbox",
        sa.Column("id", ROW_ID, primary_key=True),
        sa.Column("process", sa.Text(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("epoch", sa.BigInteger(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_chemmy_outbox")),
    )
    op.create_index(op.f("ix_chemmy_outbox_process_id"), "chemmy_outbox", ["process", "id"])


def downgrade() -> None:
    """Not supported: cardroom's schema is not downgraded."""
    raise NotImplementedError("cardroom's schema is not downgraded")
