"""Top-ups of play money (a ledger kind of their own, at most one a day), names that
cannot pass for another (each account's confusable skeleton, unique), and an index for
a page of one game's rounds.

- ``ledger``: the kind ``top_up`` (a credit) joins the CHECK constraints on ``kind`` and
  on the sign of ``amount``.  SQLite cannot change a constraint in place: the table is
  made again with its rows, its indexes and its foreign keys (Alembic's batch mode, from
  the table as revision 0001 made it).
- ``accounts``: ``name_skeleton`` (the confusable skeleton, as :func:`name_skeleton` below
  makes it: a unique index)
  and ``topped_up_at``.  Every account's name is put in the form registration now keeps
  (NFKC, no spaces around it) with its key (NFKC and case folded) and skeleton; where
  two accounts would have one key or one skeleton (say "Eero" and a Cyrillic "Еего"
  registered before this revision), the later account's name gets " (2)" (or the next
  free number), as the first revision did for bankroll files.
- ``rounds``: an index on (``account_id``, ``game``, ``id``), for the history of one game
  a page at a time.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-27
"""

from __future__ import annotations

import unicodedata
import uuid
from functools import cache

import sqlalchemy as sa
from alembic import op

# -- the name rules as this migration applied them ----------------------------------------
# (frozen here, as every migration keeps what it uses: cardroom.app.names may change later,
# and this migration must fill the columns the same way whenever it runs)
_DIRECTION_MARKS = str.maketrans("", "", "\u200e\u200f")


def clean_name(name: str) -> str:
    """The name as it is kept: NFKC, with no spaces around it."""
    return unicodedata.normalize("NFKC", name).strip()


def name_key(name: str) -> str:
    """How names are matched: NFKC, case folded, NFKC again."""
    return unicodedata.normalize("NFKC", clean_name(name).casefold())


@cache
def _prototypes() -> dict[str, str]:
    """Each confusable character and its prototype in Unicode's ``confusables.txt``
    (two characters that list only each other: the smaller stands for both)."""
    from confusable_homoglyphs import confusables  # lazy: Unicode's confusables table

    table = {
        key.translate(_DIRECTION_MARKS): [entry["c"].translate(_DIRECTION_MARKS) for entry in found]
        for key, found in confusables.confusables_data.items()
    }
    out: dict[str, str] = {}
    for char, like in table.items():
        if len(char) != 1 or len(like) != 1:
            continue
        [target] = like
        if len(target) == 1 and table.get(target) == [char]:
            out[char] = min(char, target)
        else:
            out[char] = target
    return out


def _skeleton(text: str) -> str:
    prototypes = _prototypes()
    decomposed = unicodedata.normalize("NFD", text)
    mapped = "".join(prototypes.get(char, char) for char in decomposed)
    return unicodedata.normalize("NFD", mapped)


def name_skeleton(name: str) -> str:
    """What the name looks like: its confusable skeleton, case folded, skeleton again."""
    return _skeleton(_skeleton(clean_name(name)).casefold())


revision = "0005"
down_revision: str | None = "0004"
branch_labels: str | None = None
depends_on: str | None = None

ROW_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TIME = sa.DateTime(timezone=True)

OLD_CREDITS = ("deposit", "win", "return", "cash_out")
CREDITS = (*OLD_CREDITS, "top_up")
DEBITS = ("withdrawal", "stake", "buy_in")


def _one_of(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


def _sign(credits: tuple[str, ...]) -> str:
    return (
        f"({_one_of('kind', credits)} AND amount >= 0) OR "
        f"({_one_of('kind', DEBITS)} AND amount <= 0)"
    )


def _ledger_before() -> sa.Table:
    """The ledger as revisions 0001 to 0004 left it (what SQLite's copy starts from)."""
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
        sa.CheckConstraint(_one_of("kind", OLD_CREDITS + DEBITS), name="ck_ledger_kind"),
        sa.CheckConstraint(_sign(OLD_CREDITS), name="ck_ledger_amount_sign"),
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
        batch.create_check_constraint(op.f("ck_ledger_kind"), _one_of("kind", CREDITS + DEBITS))
        batch.create_check_constraint(op.f("ck_ledger_amount_sign"), _sign(CREDITS))

    # SQLite adds a NOT NULL column only with a default (every row is given one below)
    default = sa.text("''") if sqlite else None
    op.add_column(
        "accounts",
        sa.Column("name_skeleton", sa.Text(), nullable=not sqlite, server_default=default),
    )
    op.add_column("accounts", sa.Column("topped_up_at", TIME, nullable=True))
    _rename_alike()
    if not sqlite:
        op.alter_column("accounts", "name_skeleton", nullable=False)
    op.create_index(op.f("ix_accounts_name_skeleton"), "accounts", ["name_skeleton"], unique=True)
    op.create_index(op.f("ix_rounds_account_id_game_id"), "rounds", ["account_id", "game", "id"])


def _rename_alike() -> None:
    """Every account's name, key and skeleton as registration now makes them; the later
    of two accounts alike gets a number after its name."""
    conn = op.get_bind()
    accounts = sa.table(
        "accounts",
        sa.column("id", ROW_ID),
        sa.column("name", sa.Text()),
        sa.column("name_key", sa.Text()),
        sa.column("name_skeleton", sa.Text()),
    )
    rows = conn.execute(sa.select(accounts.c.id, accounts.c.name).order_by(accounts.c.id)).all()
    keys: set[str] = set()
    skeletons: set[str] = set()
    final: list[tuple[int, str, str, str]] = []
    for account_id, name in rows:
        clean = clean_name(str(name)) or str(name)
        candidate, number = clean, 1
        while name_key(candidate) in keys or name_skeleton(candidate) in skeletons:
            number += 1
            candidate = f"{clean} ({number})"
        keys.add(name_key(candidate))
        skeletons.add(name_skeleton(candidate))
        final.append((int(account_id), candidate, name_key(candidate), name_skeleton(candidate)))
    # the keys stay unique at every moment: first each a placeholder of its own (a
    # random prefix no name has), then the new ones
    nonce = uuid.uuid4().hex
    for account_id, *_ in final:
        placeholder = f"{nonce}:{account_id}"
        conn.execute(
            sa.update(accounts)
            .where(accounts.c.id == account_id)
            .values(name_key=placeholder, name_skeleton=placeholder)
        )
    for account_id, name, key, skeleton in final:
        conn.execute(
            sa.update(accounts)
            .where(accounts.c.id == account_id)
            .values(name=name, name_key=key, name_skeleton=skeleton)
        )


def downgrade() -> None:
    """Not supported: cardroom's schema is not downgraded."""
    raise NotImplementedError("cardroom's schema is not downgraded")
