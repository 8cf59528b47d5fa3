"""Sign-in sessions of the web table, kept in the database.

A session is a random token that the browser holds in a cookie; the database keeps
only its SHA-256 (:func:`token_hash`), so that a copy of the database signs nobody in.
Each session has its own CSRF token, which every request that changes something must
send back (the web table checks it).  Sessions end when they are signed out of
(:meth:`Sessions.end`) or when they expire (:data:`LIFETIME` after they began).

Passwords are hashed with Argon2: :attr:`Sessions.hasher` holds the parameters (by
default :data:`cardroom.web.passwords.PARAMETERS`, RFC 9106's low-memory option), and
the web table makes every hash and check in its bounded pool of workers
(:mod:`cardroom.web.passwords`, :mod:`cardroom.web.signin`), so that signing in costs
the same whether or not the account exists and a crowd of sign-ins cannot take the
server's memory.

>>> import tempfile
>>> from pathlib import Path
>>> from cardroom.storage import Database
>>> with tempfile.TemporaryDirectory() as tmp, Database.open(path=Path(tmp) / "s.db") as db:
...     sessions = Sessions(db, Wallet(db))
...     ann = Wallet(db).accounts.open_account("Ann", password_hash="(a hash)")
...     token, started = sessions.begin(ann.id)
...     found = sessions.find(token)
...     sessions.end(token)
...     gone = sessions.find(token)
>>> found is not None and found.account_id == ann.id and found.csrf_token == started.csrf_token
True
>>> gone is None
True
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from argon2 import PasswordHasher
from argon2.profiles import RFC_9106_LOW_MEMORY
from sqlalchemy import bindparam, delete, select

from cardroom.app.wallet import Account, Wallet, WalletError, from_cents
from cardroom.app.wallet.limits import start_session
from cardroom.storage.db import Database, Fast
from cardroom.storage.schema import accounts, web_sessions

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
    """The sign-in sessions in ``db``, and the Argon2 parameters of passwords."""

    def __init__(self, db: Database, wallet: Wallet, hasher: PasswordHasher | None = None) -> None:
        self.db = db
        self.wallet = wallet
        #: the Argon2 parameters of new hashes (the web's pool hashes with them)
        self.hasher = hasher or PasswordHasher.from_parameters(RFC_9106_LOW_MEMORY)

    # -- sessions -------------------------------------------------------------------
    def begin(self, account_id: int, address: str | None = None) -> tuple[str, Session]:
        """A new session for the account, signed in from ``address``: its token (for the
        cookie) and the session."""
        token = secrets.token_urlsafe(32)
        csrf = secrets.token_urlsafe(32)
        now = _now()
        expires = now + LIFETIME
        with self.db.write() as conn:
            live = conn.execute(
                select(web_sessions.c.id)
                .where(web_sessions.c.account_id == account_id, web_sessions.c.expires_at > now)
                .limit(1)
            ).first()
            if live is None:
                # signed in nowhere else: a new play session (its time limit and reality
                # check count from now)
                start_session(conn, account_id, now)
            session_id = conn.execute(
                web_sessions.insert()
                .values(
                    token_hash=token_hash(token),
                    account_id=account_id,
                    csrf_token=csrf,
                    created_at=now,
                    expires_at=expires,
                    address=address,
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
