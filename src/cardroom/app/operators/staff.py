"""The people who run the room: operators and admins, their second factor and their
sessions.

An operator is not a player: the ``operators`` table is their own, and so are their
sessions (``operator_sessions``, a cookie of their own), so a player's session can
never reach an operator's page.  Signing in takes the password (Argon2) and a TOTP code
(RFC 6238, 30-second steps, one step of clock drift either way); a code signs in once
(``totp_step`` keeps the last step used).  An admin adds and removes operators; a
removed operator keeps their row, for the log, and cannot sign in.
"""

from __future__ import annotations

import io
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pyotp
import segno
from sqlalchemy import delete, select, update

from cardroom.app.operators.log import Actor, ReasonMissing, check_reason, write
from cardroom.app.sessions import token_hash
from cardroom.app.wallet import WalletError, account_name, name_key
from cardroom.storage.db import Database
from cardroom.storage.schema import operator_sessions, operators

__all__ = [
    "ISSUER",
    "LIFETIME",
    "Operator",
    "OperatorSession",
    "Staff",
    "StaffError",
    "qr_svg",
    "qr_text",
]

#: How long an operator's session lasts: a working shift, not a fortnight.
LIFETIME = timedelta(hours=12)
#: The issuer an authenticator app shows beside the code.
ISSUER = "cardroom"
ROLES = ("operator", "admin")


class StaffError(WalletError):
    """An operator that cannot be added, removed or found."""


def _reason(reason: str) -> str:
    """The reason as the log keeps it (:func:`check_reason`), refused as staff errors are."""
    try:
        return check_reason(reason)
    except ReasonMissing as err:
        raise StaffError(str(err)) from None


@dataclass(frozen=True)
class Operator:
    """An operator as the floor knows them."""

    id: int
    name: str
    role: str
    created_at: datetime
    removed_at: datetime | None

    @property
    def is_admin(self) -> bool:
        return self.role == "admin"

    @property
    def actor_name(self) -> str:
        return self.name


@dataclass(frozen=True)
class OperatorSession:
    """A signed-in operator's session."""

    id: int
    operator: Operator
    csrf_token: str
    address: str
    expires_at: datetime

    def actor(self, address: str | None = None) -> Actor:
        return Actor(self.operator.id, self.operator.name, address or self.address)


def _now() -> datetime:
    return datetime.now(UTC)


def _operator(row: Any) -> Operator:
    return Operator(int(row.id), str(row.name), str(row.role), row.created_at, row.removed_at)


def provisioning_uri(name: str, secret: str) -> str:
    """The ``otpauth://`` address an authenticator app reads from the QR code."""
    return pyotp.TOTP(secret).provisioning_uri(name=name, issuer_name=ISSUER)


def qr_text(name: str, secret: str) -> str:
    """The QR code of the secret, drawn with text for a terminal."""
    out = io.StringIO()
    segno.make(provisioning_uri(name, secret), error="m").terminal(out, compact=True, border=2)
    return out.getvalue()


def qr_svg(name: str, secret: str) -> str:
    """The QR code of the secret as an SVG document (no network: drawn here)."""
    qr = segno.make(provisioning_uri(name, secret), error="m")
    out = io.BytesIO()
    qr.save(out, kind="svg", scale=6, border=2, omitsize=True)
    return out.getvalue().decode("utf-8")


class Staff:
    """The operators in ``db``."""

    def __init__(self, db: Database) -> None:
        self.db = db

    # -- who they are ---------------------------------------------------------------------
    def add(
        self,
        name: str,
        password_hash: str,
        role: str = "operator",
        by: Actor | None = None,
        reason: str = "added",
    ) -> tuple[Operator, str]:
        """A new operator with this name, password hash and role: the operator and their
        TOTP secret (shown once, to be put in an authenticator app).  Logged."""
        if role not in ROLES:
            raise StaffError(f"a role is one of {', '.join(ROLES)}, not {role!r}")
        reason = _reason(reason)
        clean = account_name(name)
        secret = pyotp.random_base32()
        when = _now()
        with self.db.write() as conn:
            taken = conn.execute(
                select(operators.c.id).where(operators.c.name_key == name_key(clean))
            ).first()
            if taken is not None:
                raise StaffError(f"there is already an operator {clean} (removed or not)")
            row_id = conn.execute(
                operators.insert()
                .values(
                    name=clean,
                    name_key=name_key(clean),
                    role=role,
                    password_hash=password_hash,
                    totp_secret=secret,
                    totp_step=0,
                    created_at=when,
                )
                .returning(operators.c.id)
            ).scalar_one()
            write(
                conn,
                by or Actor(None, "command line", "-"),
                "add operator",
                f"operator:{clean}",
                reason,
                None,
                {"name": clean, "role": role},
            )
        return Operator(int(row_id), clean, role, when, None), secret

    def remove(self, name: str, by: Actor | None = None, reason: str = "removed") -> Operator:
        """Take an operator off: they cannot sign in again, their sessions end.  Logged."""
        reason = _reason(reason)
        key = name_key(name)
        with self.db.write() as conn:
            row = conn.execute(select(operators).where(operators.c.name_key == key)).first()
            if row is None or row.removed_at is not None:
                raise StaffError(f"there is no operator {name}")
            when = _now()
            conn.execute(update(operators).where(operators.c.id == row.id).values(removed_at=when))
            conn.execute(delete(operator_sessions).where(operator_sessions.c.operator_id == row.id))
            write(
                conn,
                by or Actor(None, "command line", "-"),
                "remove operator",
                f"operator:{row.name}",
                reason,
                {"name": row.name, "role": row.role},
                {"name": row.name, "removed": when.isoformat()},
            )
        return _operator(row)

    def all(self, removed: bool = False) -> list[Operator]:
        """Every operator (and the removed ones with ``removed``), by name."""
        query = select(operators).order_by(operators.c.name_key)
        if not removed:
            query = query.where(operators.c.removed_at.is_(None))
        with self.db.read() as conn:
            return [_operator(row) for row in conn.execute(query)]

    def _live_row(self, name: str) -> Any:
        """The row of the operator of that name who is not removed, or None."""
        try:
            key = name_key(account_name(name))
        except WalletError:
            return None
        with self.db.read() as conn:
            return conn.execute(
                select(operators).where(
                    operators.c.name_key == key, operators.c.removed_at.is_(None)
                )
            ).first()

    def find(self, name: str) -> Operator | None:
        """The operator of that name (not removed), or None."""
        row = self._live_row(name)
        return None if row is None else _operator(row)

    def credentials(self, name: str) -> tuple[Operator, str] | None:
        """The operator of that name and their password hash, or None."""
        row = self._live_row(name)
        return None if row is None else (_operator(row), str(row.password_hash))

    # -- the second factor ------------------------------------------------------------------
    def use_code(self, operator_id: int, code: str, at: datetime | None = None) -> bool:
        """Whether ``code`` is the operator's TOTP code now (a step either way), and not
        one that signed in before; a good code is used up."""
        code = str(code).strip().replace(" ", "")
        if not (code.isascii() and code.isdigit() and len(code) == 6):
            return False
        when = at or _now()
        with self.db.write() as conn:
            row = conn.execute(
                select(operators.c.totp_secret, operators.c.totp_step).where(
                    operators.c.id == operator_id, operators.c.removed_at.is_(None)
                )
            ).first()
            if row is None:
                return False
            totp = pyotp.TOTP(str(row.totp_secret))
            step = int(when.timestamp()) // totp.interval
            for candidate in (step - 1, step, step + 1):
                if candidate <= int(row.totp_step):
                    continue
                if secrets.compare_digest(totp.at(candidate * totp.interval), code):
                    conn.execute(
                        update(operators)
                        .where(operators.c.id == operator_id)
                        .values(totp_step=candidate)
                    )
                    return True
        return False

    def secret(self, operator_id: int) -> str:
        """The TOTP secret (for tests and for showing it once)."""
        with self.db.read() as conn:
            found = conn.execute(
                select(operators.c.totp_secret).where(operators.c.id == operator_id)
            ).scalar()
        if found is None:
            raise StaffError(f"there is no operator {operator_id}")
        return str(found)

    # -- sessions ---------------------------------------------------------------------------
    def begin(self, operator: Operator, address: str) -> tuple[str, OperatorSession]:
        """A new session: its token (for the cookie) and the session."""
        token = secrets.token_urlsafe(32)
        csrf = secrets.token_urlsafe(32)
        now = _now()
        expires = now + LIFETIME
        with self.db.write() as conn:
            session_id = conn.execute(
                operator_sessions.insert()
                .values(
                    token_hash=token_hash(token),
                    operator_id=operator.id,
                    csrf_token=csrf,
                    address=address,
                    created_at=now,
                    expires_at=expires,
                )
                .returning(operator_sessions.c.id)
            ).scalar_one()
        return token, OperatorSession(int(session_id), operator, csrf, address, expires)

    def session(self, token: str) -> OperatorSession | None:
        """The live session of ``token`` (its operator not removed), or None."""
        if not token or len(token) > 200:
            return None
        query = (
            select(operator_sessions, operators)
            .join_from(
                operator_sessions, operators, operators.c.id == operator_sessions.c.operator_id
            )
            .where(operator_sessions.c.token_hash == token_hash(token))
        )
        with self.db.read() as conn:
            row = conn.execute(query).first()
        if row is None or row.expires_at <= _now() or row.removed_at is not None:
            return None
        operator = Operator(
            int(row.operator_id), str(row.name), str(row.role), row.created_at, None
        )
        return OperatorSession(
            int(row.id), operator, str(row.csrf_token), str(row.address), row.expires_at
        )

    def end(self, token: str) -> None:
        """Sign out (and clear expired sessions)."""
        with self.db.write() as conn:
            conn.execute(
                delete(operator_sessions).where(
                    (operator_sessions.c.token_hash == token_hash(token))
                    | (operator_sessions.c.expires_at <= _now())
                )
            )
