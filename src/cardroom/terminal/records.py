"""``cardroom history`` and ``cardroom bankroll``: a person's rounds, their replay, their
bankroll and its ledger.

The rounds and the money are the wallet's (:mod:`cardroom.app.wallet`); a round's record
replays through the engine (:func:`cardroom.app.history.replay`).  Rounds recorded by
cardroom before records could be replayed (a bankroll file brought over) are shown as
they were saved.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import typer
from rich.console import Group, RenderableType
from rich.table import Table as RichTable
from rich.text import Text

from cardroom.app.history import RecordError, RoundRecord, replay
from cardroom.app.tables.audit import audit as audit_database
from cardroom.app.wallet import START_BALANCE, StoredRound, Wallet, account_name
from cardroom.app.words import signed
from cardroom.core.money import CENT, format_amount, format_decimal, in_units, parse_amount
from cardroom.games import get_game
from cardroom.storage import Database, default_path
from cardroom.terminal import render
from cardroom.terminal.common import (
    BANKROLL_OPTION,
    DEFAULT_PERSON,
    CliError,
    checking_path,
    make_console,
    open_database,
    person_errors,
)


def history_heading(shown: int, total: int, person: str | None, game_id: str | None) -> str:
    """What ``cardroom history`` lists.

    >>> history_heading(1, 1, None, None), history_heading(3, 3, "Ann", "finnish27")
    ('The only round', "All 3 of Ann's finnish27 rounds, oldest first")
    >>> history_heading(10, 25, None, None), history_heading(1, 1, "Ann", "finnish27")
    ('The last 10 of 25 rounds, oldest first', "Ann's only finnish27 round")
    """
    kind, kinds = (f"{game_id} round", f"{game_id} rounds") if game_id else ("round", "rounds")
    whose = f"{person}'s " if person else ""
    if total == 1:
        return f"{whose}only {kind}" if whose else f"The only {kind}"
    if shown == total:
        start = f"All {total} of {whose}" if whose else f"All {total} "
        return f"{start}{kinds}, oldest first"
    return f"The last {shown} of {whose}{total} {kinds}, oldest first"


def _person(name: str | None) -> str:
    return DEFAULT_PERSON if name is None else account_name(name)


def history(
    bankroll_file: Path | None,
    limit: int,
    game_id: str | None,
    as_json: bool,
    person: str | None,
    replay_id: int | None,
) -> None:
    """Show a person's last rounds (or replay one)."""
    out = make_console()
    with person_errors():
        if game_id is not None:
            get_game(game_id)
        name = _person(person)
        path = bankroll_file if bankroll_file is not None else default_path()
        with checking_path(path, BANKROLL_OPTION):
            found = path.exists()
        if not found:
            if replay_id is not None:
                raise CliError(
                    f"there is no round {replay_id}: there is no bankroll file at {path}"
                )
            if not as_json:
                out.print(f"No rounds played yet (there is no bankroll file at {path}).")
            return
        with open_database(path, create=False) as db:
            wallet = Wallet(db)
            account = wallet.accounts.account(name)
            if replay_id is not None:
                stored = wallet.rounds.round(replay_id) if account is not None else None
                if stored is None or account is None or stored.account_id != account.id:
                    raise CliError(f"there is no round {replay_id} of {name}'s")
                show_replay(stored)
                return
            if account is None:
                rounds: list[StoredRound] = []
                total = 0
            else:
                name = account.name
                rounds = list(reversed(wallet.rounds.latest(account.id, limit=limit, game=game_id)))
                total = wallet.rounds.count_rounds(account.id, game=game_id)
    if as_json:
        for stored in rounds:
            data = {
                "id": stored.id,
                "game": stored.game,
                "time": stored.created_at.isoformat(),
                "status": stored.status,
                "net": format_decimal(stored.net),
                "record": stored.record,
            }
            print(json.dumps(data, ensure_ascii=False, separators=(",", ":")))
        return
    whose = None if name == DEFAULT_PERSON else name
    if not rounds:
        which = f" of {game_id}" if game_id else ""
        by = "" if whose is None else f" by {whose}"
        out.print(f"No rounds{which} played yet{by}.")
        return
    out.print(Text(f"{history_heading(len(rounds), total, whose, game_id)} ({path}):", "bold"))
    for stored in rounds:
        out.print("")
        out.print(stored_view(stored))
    out.print("")
    out.print(
        Text("Replay any of them through the engine: cardroom history --replay ID", style="dim")
    )


def stored_view(stored: StoredRound) -> RenderableType:
    """A stored round as a person reads it: a record, or a round brought over from a
    bankroll file of an older cardroom."""
    data = stored.record or {}
    if data.get("version") == 0:
        return legacy_view(stored.id, data.get("legacy") or {})
    try:
        record = RoundRecord.from_json(data)
    except RecordError as err:
        return Text(f"#{stored.id}  {stored.game}  (the record cannot be read: {err})", "red")
    seat = 0
    if stored.state and isinstance(stored.state.get("seat"), int):
        seat = stored.state["seat"]
    return render.record_view(
        record, seat, number=stored.id, when=stored.created_at, status=stored.status
    )


def show_replay(stored: StoredRound) -> None:
    """Replay a stored round through the engine and say whether it gives the same."""
    out = make_console()
    data = stored.record or {}
    if data.get("version") == 0:
        raise CliError(
            f"round {stored.id} was recorded by an older cardroom, before rounds could be "
            "replayed: it has no record to run again"
        )
    if stored.status != "finished":
        raise CliError(
            f"round {stored.id} is {stored.status.replace('_', ' ')}: only a finished round replays"
        )
    try:
        record = RoundRecord.from_json(data)
    except RecordError as err:
        raise CliError(f"round {stored.id}: {err}") from None
    out.print(stored_view(stored))
    result = replay(record)
    out.print("")
    if result.same:
        out.print(
            Text(
                f"Replayed through the engine: the same rules, "
                f"{render.counted(len(record.cards), 'card')} and "
                f"{render.counted(len(record.decisions), 'decision')} give the same events, "
                "outcome and payouts. ✓",
                style="bold green",
            )
        )
        return
    out.print(Text("The replay does not give the recorded round:", style="bold red"))
    for difference in result.differences:
        out.print(Text(f"  - {difference}", style="red"))
    raise typer.Exit(1)


def legacy_view(number: int, row: dict[str, Any]) -> RenderableType:
    """A round saved by cardroom 0.1 (before replayable records): its lines as saved."""
    header = Text()
    header.append(f"#{number}", style="bold")
    header.append(f"  {row.get('game', '?')}  ", style="bold cyan")
    header.append(str(row.get("played_at", "")), style="dim")
    header.append("  (from an older cardroom: shown as it was saved)", style="dim")
    lines: list[RenderableType] = [header]
    record = row.get("record")
    if isinstance(record, str):
        try:
            record = json.loads(record)
        except ValueError:
            record = {}
    events = record.get("events", []) if isinstance(record, dict) else []
    for event in events if isinstance(events, list) else []:
        if isinstance(event, dict):
            words = [f"{k} {v}" for k, v in event.items() if k != "event" and v not in ("", None)]
            lines.append(Text(f"  {event.get('event', '?')}: " + ", ".join(words)))
    try:
        before = Fraction(str(row.get("balance_before")))
        after = Fraction(str(row.get("balance_after")))
        lines.append(render.bankroll_change(before, after))
    except (ValueError, ZeroDivisionError):
        pass
    return Group(*lines)


def bankroll(
    bankroll_file: Path | None,
    reset: bool,
    set_to: str | None,
    person: str | None,
    ledger_rows: int | None,
) -> None:
    """Show a bankroll (and its ledger), or set or reset it."""
    out = make_console()
    with person_errors():
        if reset and set_to is not None:
            raise CliError("use either --reset or --set, not both")
        amount = None if set_to is None else in_units(parse_amount(set_to), CENT, "--set")
        name = _person(person)
        with open_database(bankroll_file) as db:
            wallet = Wallet(db)
            account = wallet.accounts.account_or_open(name)
            name = account.name  # as registered ("ＥＥＲＯ" finds "Eero")
            before = wallet.accounts.balance(account.id)
            if reset:
                after = wallet.accounts.set_balance(
                    account.id, START_BALANCE, "reset by cardroom bankroll --reset"
                )
            elif amount is not None:
                after = wallet.accounts.set_balance(
                    account.id, amount, "set by cardroom bankroll --set"
                )
            else:
                after = before
            played = wallet.rounds.count_rounds(account.id)
            others = (
                [a for a in wallet.accounts.all() if a.name != DEFAULT_PERSON]
                if person is None
                else []
            )
            rows = wallet.books.ledger(account.id, limit=ledger_rows) if ledger_rows else []
        path = bankroll_file if bankroll_file is not None else default_path()
    label = "Bankroll" if name == DEFAULT_PERSON else f"{name}'s bankroll"
    line = Text()
    if after != before:
        line.append(f"{label} {format_amount(before)} → ", style="bold")
        line.append(format_amount(after), style="bold green")
    else:
        line.append(f"{label} {format_amount(after)}", style="bold green")
    out.print(line)
    out.print(Text(f"{path} · {render.counted(played, 'round')} in the history", style="dim"))
    if others:
        named = " · ".join(f"{a.name} {format_amount(a.balance)}" for a in others)
        out.print(Text(f"Named bankrolls (--person NAME): {named}", style="dim"))
    if rows:
        out.print(ledger_table(rows))


def ledger_table(rows: list[Any]) -> RichTable:
    """The last movements of a bankroll, oldest first, with the running balance."""
    table = RichTable(title="Ledger (every movement of the bankroll)", title_justify="left")
    for column in ("#", "when", "what", "amount", "balance"):
        table.add_column(
            column, justify="right" if column in ("#", "amount", "balance") else "left"
        )
    for row in reversed(rows):
        what = row.kind.replace("_", " ")
        if row.round_id is not None:
            what += f" · round {row.round_id}"
        if row.wager:
            what += f" · {row.wager}"
        table.add_row(
            str(row.id),
            row.created_at.astimezone().strftime("%Y-%m-%d %H:%M"),
            what,
            signed(row.amount),
            format_amount(row.balance_after),
        )
    return table


def audit(bankroll_file: Path | None, url: str | None) -> None:
    """``cardroom audit``: every account's books and every round in progress, each
    problem on a line of its own; exit 1 if there is any."""
    out = make_console()
    with person_errors():
        if bankroll_file is not None and url is not None:
            raise CliError("give --db or --bankroll-file, not both")
        if url is not None:
            db = Database.open(url, create=False)
        else:
            db = open_database(bankroll_file, create=False)
        with db:
            report = audit_database(Wallet(db))
            where = db.where
    summary = (
        f"{where}: {render.counted(report.accounts, 'account')}, "
        f"{render.counted(report.rounds_in_progress, 'round')} in progress, "
        f"{render.counted(report.coups_in_progress, 'coup')} of chemin de fer in progress"
    )
    if report.ok:
        out.print(
            Text(
                f"{summary}: the books add up and every round in progress waits for a decision.",
                style="green",
            )
        )
        return
    out.print(Text(summary, style="dim"))
    for problem in report.problems:
        out.print(Text(f"✗ {problem}", style="bold red"))
    raise typer.Exit(1)
