"""Sign-in sessions of the web table, kept in the database.

A session is a random token that the browser holds in a cookie; the database keeps
only its SHA-256 (:func:`token_hash`), so that a copy of the database signs nobody in.
Each session has its own CSRF token, which every request that changes something must
send back (the web table checks it).  Sessions end when they are signed out of
(:meth:`Sessions.end`) or when they expire (:data:`LIFETIME` after they began).

Passwords are hashed with Argon2 (argon2-cffi's defaults, the RFC 9106 recommended
parameters); :meth:`Sessions.check_password` costs the same whether or not the account
exists, so a wrong name cannot be told from a wrong password by the time it takes.

>>> import tempfile
>>> from pathlib import Path
>>> from cardroom.storage import Database
>>> with tempfile.TemporaryDirectory() as tmp, Database.open(path=Path(tmp) / "s.db") as db:
...     sessions = Sessions(db, Wallet(db))
...     ann = sessions.register("Ann", "correct horse battery")
...     token, started = sessions.begin(ann.id)
...     found = sessions.find(token)
...     wrong = sessions.check_password("ann", "wrong password")
>>> found is not None and found.account_id == ann.id and found.csrf_token == started.csrf_token
True
>>> wrong is None
True
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import bindparam, delete, select

from cardroom.storage.db import Database, Fast
from cardroom.storage.schema import accounts, web_sessions
from cardroom.wallet import Account, Wallet, WalletError, account_name, from_cents

__all__ = [
    "LIFETIME",
    "PASSWORD_MAX",
    "PASSWORD_MIN",
    "PasswordError",
    "Session",
    "Sessions",
    "token_hash",
]

#: How long a session lasts from sign-in.
LIFETIME = timedelta(days=14)
#: The shortest and longest password accepted (the longest keeps hashing cheap).
PASSWORD_MIN = 8
PASSWORD_MAX = 256


class PasswordError(WalletError):
    """A password that cannot be used (too short, too long)."""


@dataclass(frozen=True)
class Session:
    """A signed-in session: whose it is and its CSRF token."""

    id: int
    account_id: int
    csrf_token: str
    expires_at: datetime


def token_hash(token: str) -> str:
    """What the database keeps of a session's token.

    >>> token_hash("abc")[:16]
    'ba7816bf8f01cfea'
    """
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def check_password_text(password: str) -> str:
    """A password as it may be used: 8 to 256 characters."""
    if not isinstance(password, str):
        raise PasswordError("a password is text")
    if len(password) < PASSWORD_MIN:
        raise PasswordError(f"a password needs at least {PASSWORD_MIN} characters")
    if len(password) > PASSWORD_MAX:
        raise PasswordError(f"a password has at most {PASSWORD_MAX} characters")
    return password


class Sessions:
    """Accounts with passwords, and their sessions, in ``db``."""

    def __init__(self, db: Database, wallet: Wallet, hasher: PasswordHasher | None = None) -> None:
        self.db = db
        self.wallet = wallet
        self.hasher = hasher or PasswordHasher()
        self._dummy: str | None = None

    # -- accounts -------------------------------------------------------------------
    def register(self, name: str, password: str) -> Account:
        """A new account with a password and the starting balance (:class:`NameTaken`
        if the name is taken, :class:`WalletError` for a bad name or password)."""
        clean = account_name(name)
        hashed = self.hasher.hash(check_password_text(password))
        return self.wallet.open_account(clean, password_hash=hashed)

    def check_password(self, name: str, password: str) -> Account | None:
        """The account if ``password`` is its password, else None."""
        try:
            found = self.wallet.password_hash(name) if isinstance(name, str) else None
        except WalletError:
            found = None
        if not isinstance(password, str) or len(password) > PASSWORD_MAX:
            return None
        if found is None and self._dummy is None:
            # verified against when the name is unknown, so that it costs the same
            self._dummy = self.hasher.hash(secrets.token_urlsafe(16))
        stored = found[1] if found is not None else self._dummy
        assert stored is not None
        try:
            self.hasher.verify(stored, password)
        except (VerificationError, InvalidHashError):
            return None
        if found is None:
            return None
        account_id = found[0]
        if self.hasher.check_needs_rehash(stored):
            self.wallet.set_password_hash(account_id, self.hasher.hash(password))
        return self.wallet.get(account_id)

    # -- sessions -------------------------------------------------------------------
    def begin(self, account_id: int) -> tuple[str, Session]:
        """A new session for the account: its token (for the cookie) and the session."""
        token = secrets.token_urlsafe(32)
        csrf = secrets.token_urlsafe(32)
        now = _now()
        expires = now + LIFETIME
        with self.db.write() as conn:
            session_id = conn.execute(
                web_sessions.insert()
                .values(
                    token_hash=token_hash(token),
                    account_id=account_id,
                    csrf_token=csrf,
                    created_at=now,
                    expires_at=expires,
                )
                .returning(web_sessions.c.id)
            ).scalar_one()
        return token, Session(int(session_id), account_id, csrf, expires)

    def find(self, token: str) -> Session | None:
        """The live session of ``token``, or None (unknown, or expired)."""
        if not token or len(token) > 200:
            return None
        with self.db.read() as conn:
            row = conn.execute(
                select(web_sessions).where(web_sessions.c.token_hash == token_hash(token))
            ).first()
        if row is None or row.expires_at <= _now():
            return None
        return Session(int(row.id), int(row.account_id), str(row.csrf_token), row.expires_at)

    def find_person(self, token: str) -> tuple[Session, Account] | None:
        """The live session of ``token`` and its account, in one lookup (every request
        of a signed-in person makes it), or None."""
        if not token or len(token) > 200:
            return None
        row = self.db.fetch_one(_SESSION_AND_ACCOUNT, {"hash": token_hash(token)})
        if row is None:
            return None
        session_id, account_id, csrf, expires_at, name, balance = row
        if expires_at <= _now():
            return None
        session = Session(int(session_id), int(account_id), str(csrf), expires_at)
        return session, Account(int(account_id), str(name), from_cents(balance))

    def end(self, token: str) -> None:
        """Sign out: the session of ``token`` is deleted (with any expired ones)."""
        with self.db.write() as conn:
            conn.execute(
                delete(web_sessions).where(
                    (web_sessions.c.token_hash == token_hash(token))
                    | (web_sessions.c.expires_at <= _now())
                )
            )


def _now() -> datetime:
    return datetime.now(UTC)


_SESSION_AND_ACCOUNT = Fast(
    select(
        web_sessions.c.id,
        web_sessions.c.account_id,
        web_sessions.c.csrf_token,
        web_sessions.c.expires_at,
        accounts.c.name,
        accounts.c.balance,
    )
    .join_from(web_sessions, accounts, accounts.c.id == web_sessions.c.account_id)
    .where(web_sessions.c.token_hash == bindparam("hash"))
)
