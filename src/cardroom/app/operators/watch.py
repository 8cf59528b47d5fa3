"""The integrity monitor on the floor: its verdicts over the usual windows, and each
alert written once to the operator log.

An alert names the table, the wager and the window, and is logged by ``system`` with
the verdict in words as its reason.  The same alert (table, wager and window's length)
is not logged again within :data:`QUIET`, so a page looked at every minute does not
fill the log; a table still out of line a day later is logged again.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from cardroom.app.operators.integrity import IntegrityMonitor, IntegrityReport
from cardroom.app.operators.log import SYSTEM, write
from cardroom.games.base import GameRules
from cardroom.storage.db import Database
from cardroom.storage.schema import operator_log

__all__ = ["ALERT", "QUIET", "WINDOWS", "Watch"]

ALERT = "alert"
#: How long the same alert is not logged again.
QUIET = timedelta(hours=24)
#: The windows the floor judges over, by name.
WINDOWS = {
    "24 hours": timedelta(hours=24),
    "7 days": timedelta(days=7),
    "30 days": timedelta(days=30),
}


class Watch:
    """The monitor over ``db`` with the rules of each table from ``rules_for``."""

    def __init__(
        self, db: Database, rules_for: Callable[[str], GameRules], limit: float | None = None
    ) -> None:
        self.db = db
        self.monitor = (
            IntegrityMonitor(db, rules_for)
            if limit is None
            else IntegrityMonitor(db, rules_for, limit=limit)
        )

    def check(self, window: str = "24 hours", now: datetime | None = None) -> IntegrityReport:
        """The verdicts of the window ``window`` (a name of :data:`WINDOWS`) ending now;
        its alerts logged (once in :data:`QUIET`)."""
        now = now or datetime.now(UTC)
        report = self.monitor.check(now - WINDOWS[window], None)
        self.log_alerts(report, window, now)
        return report

    def log_alerts(self, report: IntegrityReport, window: str, now: datetime) -> int:
        """Write each alert not logged in the last :data:`QUIET`; how many were written."""
        written = 0
        with self.db.write() as conn:
            for verdict in report.alerts:
                mark = f"[{verdict.wager}, {window}]"
                seen = conn.execute(
                    select(operator_log.c.id).where(
                        operator_log.c.action == ALERT,
                        operator_log.c.target == verdict.target,
                        operator_log.c.created_at > now - QUIET,
                        operator_log.c.reason.startswith(mark),
                    )
                ).first()
                if seen is not None:
                    continue
                write(
                    conn,
                    SYSTEM,
                    ALERT,
                    verdict.target,
                    f"{mark} {verdict.text}",
                    None,
                    {
                        "wager": verdict.wager,
                        "z": round(verdict.z, 3),
                        "p": verdict.p,
                        "rounds": verdict.rounds,
                    },
                    now,
                )
                written += 1
        return written
