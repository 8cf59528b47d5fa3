"""Slowing down password guessing, in the database so that every server process on it
shares the counts (table ``login_failures``).

A sign-in is counted under the name as normalised (exactly as registration and sign-in
read it: :func:`cardroom.app.wallet.account_name`, then :func:`cardroom.app.wallet.name_key`, so
``" ann"``, ``"ANN\\t"`` and ``"\\u2003Ann"`` are one name) and under the client's
address (an IPv6 address by its /64 network, which one machine usually has whole).
Within :data:`WINDOW`:

- :data:`PER_NAME` wrong passwords for a name from one address: that address may not
  sign in as that name any more;
- :data:`PER_ADDRESS` wrong passwords from one address, whatever the names: that address
  may not sign in at all;
- a name's wrong passwords from other addresses shut nobody out: an address that has not
  guessed wrong for the name may always try it, so the rightful owner gets in from their
  own address however many others guess.  But when a name has had :data:`UNDER_ATTACK`
  wrong passwords from all addresses (guessing spread over many addresses), each address
  that has guessed wrong for it may make only :data:`PER_NAME_UNDER_ATTACK` wrong ones.

A refused sign-in makes no Argon2 check and counts for nothing.  A sign-in is counted
*before* its check (:meth:`LoginThrottle.begin`, under a lock per address), so that many
sent at once are held to the limit too; the right password then deletes the failures of
that name from that address (:meth:`LoginThrottle.succeeded`), and a check that could
not be made is taken back (:meth:`LoginThrottle.cancel`).  Every count looks at the rows
of the window only, through an index, and stops at its limit; each sign-in deletes up
to :data:`CLEANUP` rows older than the window, so the table holds only recent failures.
"""

from __future__ import annotations

import hashlib
import ipaddress
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import ColumnElement, Connection, and_, delete, func, literal, select, text

from cardroom.storage import Database
from cardroom.storage.schema import login_failures as failures

#: The window in which wrong passwords count.
WINDOW = timedelta(minutes=15)
#: Wrong passwords for one name from one address within the window.
PER_NAME = 5
#: Wrong passwords from one address within the window, for all names together.
PER_ADDRESS = 30
#: A name's wrong passwords from all addresses within the window at which it counts as
#: under attack ...
UNDER_ATTACK = 50
#: ... and then the wrong passwords for it allowed from each address.
PER_NAME_UNDER_ATTACK = 2
#: Old rows deleted by each sign-in counted (more than one is added, so they never pile up).
CLEANUP = 100
#: The longest address kept (what is not an IP address is cut here).
ADDRESS_LENGTH = 100

TOO_MANY = "too many wrong passwords for this name: wait a few minutes and try again"
TOO_MANY_HERE = "too many wrong passwords from your address: wait a few minutes and try again"


def client_address(host: str | None) -> str:
    """How an address is counted: an IPv4 address as it is, an IPv6 one by its /64
    network (IPv4-mapped ones as IPv4); anything else as given (cut at 100 characters).

    >>> client_address("203.0.113.7"), client_address("2001:db8:1:2:3:4:5:6")
    ('203.0.113.7', '2001:db8:1:2::/64')
    >>> client_address("::ffff:203.0.113.7"), client_address(None)
    ('203.0.113.7', 'unknown')
    """
    if not host:
        return "unknown"
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host[:ADDRESS_LENGTH]
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network(f"{ip}/64", strict=False))
    return str(ip)


class Throttled(Exception):
    """Signing in is refused for now: the message, and the seconds until it may be
    tried again."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.message = message
        self.retry_after = retry_after


@dataclass(frozen=True)
class Counts:
    """Recent wrong passwords (each count stops at the limit it is compared with)."""

    pair: int
    address: int
    name: int


class LoginThrottle:
    """The limits on wrong passwords, kept in ``db`` (see the module's docstring)."""

    def __init__(
        self,
        db: Database,
        *,
        per_name: int = PER_NAME,
        per_address: int = PER_ADDRESS,
        under_attack: int = UNDER_ATTACK,
        per_name_under_attack: int = PER_NAME_UNDER_ATTACK,
        window: timedelta = WINDOW,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.db = db
        self.per_name = per_name
        self.per_address = per_address
        self.under_attack = under_attack
        self.per_name_under_attack = min(per_name_under_attack, per_name)
        self.window = window
        self.clock = clock or (lambda: datetime.now(UTC))

    def begin(self, key: str, address: str) -> int:
        """Count a sign-in as ``key`` (a normalised name) from ``address`` before its
        password is checked: the id of its row, which stays as a wrong password unless
        :meth:`succeeded` or :meth:`cancel` removes it.  :class:`Throttled` (and
        nothing counted) when a limit is reached."""

        def work(conn: Connection) -> int:
            now = self.clock()
            self._lock_address(conn, address)
            since = now - self.window
            counts = self.counts(conn, key, address, since)
            if counts.address >= self.per_address:
                raise Throttled(TOO_MANY_HERE, self._retry_after(conn, now, address))
            allowed = self.per_name
            if counts.name >= self.under_attack:
                allowed = self.per_name_under_attack
            if counts.pair >= allowed:
                raise Throttled(TOO_MANY, self._retry_after(conn, now, address, key))
            row_id = conn.execute(
                failures.insert()
                .values(name_key=key, address=address, created_at=now)
                .returning(failures.c.id)
            ).scalar_one()
            self._clean(conn, since)
            return int(row_id)

        return self.db.run(work)

    def succeeded(self, key: str, address: str) -> None:
        """The right password for ``key`` from ``address``: its wrong ones there are
        forgotten (those from other addresses stay)."""

        def work(conn: Connection) -> None:
            conn.execute(
                delete(failures).where(
                    and_(failures.c.name_key == key, failures.c.address == address)
                )
            )

        self.db.run(work)

    def cancel(self, row_id: int) -> None:
        """A sign-in counted by :meth:`begin` whose password could not be checked."""

        def work(conn: Connection) -> None:
            conn.execute(delete(failures).where(failures.c.id == row_id))

        self.db.run(work)

    # -- the queries --------------------------------------------------------------------
    def counts(self, conn: Connection, key: str, address: str, since: datetime) -> Counts:
        """The recent wrong passwords for ``key`` from ``address``, from ``address``, and
        for ``key``; each query walks an index over the window's rows and stops at its
        limit, however many rows there are."""

        def bounded(where: ColumnElement[bool], limit: int) -> ColumnElement[int]:
            rows = select(literal(1)).where(where, failures.c.created_at > since).limit(limit)
            return select(func.count()).select_from(rows.subquery()).scalar_subquery()

        row = conn.execute(
            select(
                bounded(
                    and_(failures.c.name_key == key, failures.c.address == address),
                    self.per_name,
                ),
                bounded(failures.c.address == address, self.per_address),
                bounded(failures.c.name_key == key, self.under_attack),
            )
        ).one()
        return Counts(int(row[0]), int(row[1]), int(row[2]))

    def _retry_after(
        self, conn: Connection, now: datetime, address: str, key: str | None = None
    ) -> int:
        """Seconds until the oldest of the failures that block a sign-in leaves the window."""
        where = failures.c.address == address
        if key is not None:
            where = and_(where, failures.c.name_key == key)
        oldest = conn.execute(
            select(failures.c.created_at)
            .where(where, failures.c.created_at > now - self.window)
            .order_by(failures.c.created_at)
            .limit(1)
        ).scalar()
        if oldest is None:
            return 1
        return max(1, int((oldest + self.window - now).total_seconds()) + 1)

    def _clean(self, conn: Connection, since: datetime) -> None:
        old = (
            select(failures.c.id)
            .where(failures.c.created_at <= since)
            .order_by(failures.c.created_at)
            .limit(CLEANUP)
        )
        if conn.dialect.name == "postgresql":
            old = old.with_for_update(skip_locked=True)
        conn.execute(delete(failures).where(failures.c.id.in_(old.scalar_subquery())))

    def _lock_address(self, conn: Connection, address: str) -> None:
        """Sign-ins from one address are counted one at a time (on SQLite every write
        transaction is already one at a time)."""
        if conn.dialect.name == "postgresql":
            digest = hashlib.sha256(b"cardroom login " + address.encode()).digest()
            conn.execute(
                text("SELECT pg_advisory_xact_lock(:key)"),
                {"key": int.from_bytes(digest[:8], "big", signed=True)},
            )
