"""What the operator's pages and API show, as JSON-able data: the floor, an account,
a round with its replay, the tables with their settings."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from fractions import Fraction

from fastapi import Request

from cardroom.app.history import RecordError, RoundRecord, replay
from cardroom.app.operators.floor import Figures, LiveTable, Period, game_of
from cardroom.app.operators.log import LogEntry
from cardroom.app.operators.room import Room
from cardroom.app.operators.tables import TableSetting
from cardroom.app.operators.watch import ALERT
from cardroom.app.wallet import WalletError
from cardroom.app.wallet.values import money_text, to_cents
from cardroom.games import GAMES, seats_game
from cardroom.games.base import GameRules
from cardroom.web.deps import Services, services

__all__ = [
    "account_json",
    "figures_json",
    "floor_json",
    "percent",
    "recent_alerts",
    "round_json",
    "table_bounds",
    "table_keys",
    "table_rules",
    "tables_json",
]


def percent(value: Fraction | None, places: int = 2) -> str:
    """A fraction as a percentage to ``places`` decimals ("-" for none)."""
    if value is None:
        return "-"
    return f"{float(value) * 100:.{places}f}%"


def figures_json(figures: Figures) -> dict[str, object]:
    return {
        "rounds": figures.rounds,
        "staked": money_text(figures.staked),
        "paid": money_text(figures.paid),
        "ggr": money_text(figures.ggr),
        "hold": percent(figures.hold),
    }


def period_json(period: Period) -> dict[str, object]:
    return {
        "period": period.name,
        "since": period.since.isoformat(),
        "total": figures_json(period.total),
        "games": {g: figures_json(f) for g, f in period.games.items()},
        "wagers": [
            {"table": key, "wager": wager, **figures_json(f)}
            for (key, wager), f in sorted(period.wagers.items())
        ],
    }


def live_table_json(table: LiveTable) -> dict[str, object]:
    return {
        "kind": table.kind,
        "key": table.key,
        "people": table.people,
        "detail": table.detail,
        "seats": table.seats,
    }


def floor_json(room: Room) -> dict[str, object]:
    floor = room.floor
    signed_in, playing = floor.people()
    periods = floor.periods()
    return {
        "signed_in": signed_in,
        "playing": playing,
        "rounds_a_minute": {g: f"{float(r):.1f}" for g, r in floor.rates().items()},
        "tables": [live_table_json(t) for t in floor.tables()],
        "periods": [period_json(p) for p in periods],
        "hours": [
            {"hour": h.isoformat(), "rounds": n, "ggr": money_text(g)} for h, n, g in floor.hours()
        ],
    }


def account_json(room: Room, account_id: int, before: int | None = None) -> dict[str, object]:
    card = room.players.card(account_id)
    wallet = room.players.wallet
    page = wallet.books.ledger_page(account_id, limit=25, before=before)
    rounds = wallet.rounds.rounds_page(account_id, limit=25)
    return {
        **card.as_json(),
        "ledger": [
            {
                "id": r.id,
                "at": r.created_at.isoformat(),
                "kind": r.kind,
                "amount": money_text(to_cents(r.amount)),
                "balance": money_text(to_cents(r.balance_after)),
                "round": r.round_id,
                "wager": r.wager,
                "memo": r.memo,
            }
            for r in page.rows
        ],
        "ledger_older": page.older,
        "rounds_list": [
            {
                "id": r.id,
                "game": r.game,
                "table": r.table_ref,
                "status": r.status,
                "at": r.created_at.isoformat(),
            }
            for r in rounds.rounds
        ],
        "notes": [e.as_json() for e in room.players.notes(account_id)],
    }


def round_json(room: Room, round_id: int) -> dict[str, object]:
    """Any person's round, its record, and whether the record replays to the same."""
    try:
        stored = room.players.wallet.rounds.round(round_id)
    except (WalletError, LookupError):
        raise WalletError(f"there is no round {round_id}") from None
    verdict: dict[str, object] = {"replayed": None, "differences": []}
    if stored.record is not None:
        try:
            result = replay(RoundRecord.from_json(stored.record))
            verdict = {"replayed": result.same, "differences": list(result.differences)}
        except RecordError as err:
            verdict = {"replayed": False, "differences": [str(err)]}
    return {
        "id": stored.id,
        "account": stored.account_id,
        "game": stored.game,
        "table": stored.table_ref,
        "status": stored.status,
        "at": stored.created_at.isoformat(),
        "stakes": {w: money_text(to_cents(s)) for w, s in stored.stakes.items()},
        "paid": {w: money_text(to_cents(s)) for w, s in stored.paid.items()},
        "record": stored.record,
        **verdict,
    }


def table_keys(request: Request) -> list[str]:
    """Every table this server deals: each house game, each published variant, each
    chemin de fer table."""
    svc = services(request)
    keys = [g.id for g in GAMES.values() if g.kind == "house" and g.id in svc.rules]
    keys += [s.key for s in svc.room.tables.all() if "~" in s.key]
    keys += [t.table_ref for t in svc.chemmy.tables.values()]
    return keys


def tables_json(request: Request) -> dict[str, object]:
    svc = services(request)
    settings = {s.key: s for s in svc.room.tables.all()}
    out = []
    for key in table_keys(request):
        setting = settings.get(key)
        game = game_of(key)
        data = (setting or TableSetting(key)).as_json()
        out.append({**data, "game": game})
    return {"tables": out}


def table_bounds(request: Request, key: str) -> tuple[Fraction, Fraction]:
    """The least and most stake the rules of table ``key`` allow (its rules' table
    limits)."""
    svc = services(request)
    if game_of(key) == seats_game().id:
        rules = svc.rules[seats_game().id]
    else:
        rules = svc.tables.stored.rules_for(key)
    return Fraction(rules.table.minimum), Fraction(rules.table.maximum)


def table_rules(svc: Services) -> Callable[[str], GameRules]:
    """The rules of a table by its key, as this server deals it (a LookupError for a
    variant it does not know)."""

    def rules_for(key: str) -> GameRules:
        if game_of(key) == seats_game().id:
            rules: GameRules = svc.rules[seats_game().id]
            return rules
        return svc.tables.stored.rules_for(key)

    return rules_for


def recent_alerts(room: Room, hours: int = 24) -> list[LogEntry]:
    """The alerts logged in the last ``hours``, newest first."""
    since = datetime.now(UTC) - timedelta(hours=hours)
    return [e for e in room.log.entries(since=since, limit=200) if e.action == ALERT]
