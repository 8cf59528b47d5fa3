"""The terminal's screen for a house game (finnish27, 21-24-27, punto-banco, baccarat27).

Presentation only: it asks for bets and decisions, shows the events card by card with a
pause, and paces the session.  The table (:class:`~cardroom.app.tables.house.HouseTable`)
takes the bets, deals, settles and moves the money; the records are the table's.
"""

from __future__ import annotations

import os
import shlex
import sys
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

from rich.console import Console
from rich.padding import Padding
from rich.table import Table as RichTable
from rich.text import Text

from cardroom.app.history import RoundRecord
from cardroom.app.limits import Limits
from cardroom.app.tables.house import HouseRound, HouseTable, default_action, finish_interrupted
from cardroom.app.wallet import (
    START_BALANCE,
    AccountSuspended,
    RealityCheckDue,
    Wallet,
    WalletError,
)
from cardroom.app.words import capital, points_text
from cardroom.core.events import CardDealt, Event
from cardroom.core.money import format_amount
from cardroom.core.shoe import CardSource, ShoeExhausted, StackedShoe
from cardroom.games import GameInfo
from cardroom.games.base import Action, GameRules, IllegalAction, Turn, WagerError
from cardroom.storage import default_path
from cardroom.terminal import render
from cardroom.terminal.common import EXIT_ERROR, read_line
from cardroom.terminal.prompts import (
    BEAD_WORDS,
    COMPACT_BEAD_COLUMNS,
    HELP_WORDS,
    QUIT_WORDS,
    BetError,
    DeferredInterrupt,
    abbreviation,
    known_wagers,
    parse_bet,
    wagers_text,
)

Read = Callable[[Text], str]


def reset_command(path: Path, person: str | None = None) -> str:
    """The command that resets a bankroll, naming the file when it is not the default one.

    >>> reset_command(Path("/tmp/my file.sqlite3"), "Ann")
    "cardroom bankroll --reset --bankroll-file '/tmp/my file.sqlite3' --person Ann"
    """
    command = "cardroom bankroll --reset"
    if path != default_path():
        command += f" --bankroll-file {shlex.quote(str(path))}"
    if person is not None:
        command += f" --person {shlex.quote(person)}"
    return command


#: why the next round starts a new shoe, on the bead plate (by the reshuffle's cause)
_DUE_WORDS = {"cut_card": "cut card out", "round_limit": "the shoe's rounds all dealt"}


class TableSession:
    """What every sitting at a table shares: the terminal, the wallet's file, the shoe, the
    bead plate of the games that keep one, and the signals that end a session."""

    #: what one deal of the game is called
    round_word = "round"

    def __init__(
        self,
        out: Console,
        game: GameInfo,
        rules: GameRules,
        source: CardSource,
        wallet: Wallet,
        db_path: Path,
        *,
        delay: float = 0.4,
        rules_file: Path | None = None,
        source_note: str = "",
        read: Read | None = None,
    ) -> None:
        self.out = out
        self.game = game
        self.rules = rules
        self.source = source
        self.wallet = wallet
        self.db_path = db_path
        self.delay = delay
        self.rules_file = rules_file
        self.source_note = source_note
        self.read = read or self._read
        self.leaving = False
        #: the exit status the session ends with (128 + the signal that ended it)
        self.status = 0
        self.keeps_beads = render.has_bead_plate(game.outcomes)

    # -- input and output ------------------------------------------------------------
    def _read(self, prompt: Text) -> str:
        return read_line(self.out, prompt)

    def hang_up(self) -> None:
        """The terminal is gone (SIGHUP): write nothing more to it, read nothing from it."""
        self.out.file = open(os.devnull, "w")  # noqa: SIM115 - kept until the process ends

        def gone(prompt: Text) -> str:
            raise EOFError

        self.read = gone

    def say(self, text: str | Text, style: str | None = None) -> None:
        """Print a line as it is (square brackets are text, not Rich markup)."""
        self.out.print(Text(text) if isinstance(text, str) else text, style=style or "")

    def problem(self, message: str) -> None:
        self.out.print(Text(f"✗ {message}", style="bold red"))

    @property
    def minimum(self) -> Fraction:
        return Fraction(self.rules.table.minimum)

    def welcome_header(self) -> None:
        """The title rule, the rules and shoe in use, and the bankroll file."""
        self.out.rule(Text(f"cardroom · {self.game.name}", style="bold"))
        rules = f"rules: {self.rules_file}" if self.rules_file else "rules: standard"
        self.say(Text(f"{rules} · {self.source_note}", style="dim"))
        self.say(Text(f"bankroll file: {self.db_path}", style="dim"))

    @property
    def stacked_shoe_empty(self) -> bool:
        return isinstance(self.source, StackedShoe) and self.source.remaining == 0

    def pause(self) -> None:
        if self.delay > 0:
            time.sleep(self.delay)

    def show_beads(self, beads: list[str], shoe: int | None, due: str | None) -> None:
        if not beads:
            self.say(
                f"  The bead plate is empty: no {self.round_word} has been played from this "
                "shoe yet."
            )
            return
        self.say(self.bead_board(beads, shoe, due))
        self.say(
            Text(
                "  P player · B banker · T tie: read down, then across; new shoe, new plate",
                style="dim",
            )
        )

    def bead_board(
        self, beads: list[str], shoe: int | None, due: str | None, max_columns: int | None = None
    ) -> Text:
        """This shoe's bead plate; ``due``: why the next round starts a new shoe (the
        reshuffle's cause), if it does."""
        note = ""
        if due:
            why = _DUE_WORDS.get(due, "reshuffle point reached")
            note = f"{why}: the next {self.round_word} starts a new shoe"
        return render.bead_board(beads, shoe, note=note, max_columns=max_columns)

    def show_recovered(self, records: list[RoundRecord], label: str = "Your") -> None:
        """Say which interrupted rounds were finished at this start, and how."""
        for record in records:
            self.say(
                Text(
                    f"{label} last {record.game} {self.round_word} was interrupted when cardroom "
                    "stopped; it has been finished with the same cards and the default play:",
                    style="bold yellow",
                )
            )
            self.out.print(render.record_view(record, seat=0))


class PlaySession(TableSession):
    """One sitting at a house game's table: bets, rounds card by card, the wallet."""

    def __init__(
        self,
        out: Console,
        game: GameInfo,
        rules: GameRules,
        source: CardSource,
        wallet: Wallet,
        db_path: Path,
        account_id: int,
        *,
        person: str | None = None,
        delay: float = 0.4,
        rules_file: Path | None = None,
        source_note: str = "",
        read: Read | None = None,
    ) -> None:
        super().__init__(
            out,
            game,
            rules,
            source,
            wallet,
            db_path,
            delay=delay,
            rules_file=rules_file,
            source_note=source_note,
            read=read,
        )
        self.account_id = account_id
        self.person = person
        self.table = HouseTable(game, rules, source, wallet, account_id, name=person or "You")
        #: the wagers this table offers (a rules variant may add side wagers)
        self.wagers: tuple[str, ...] = game.wagers(rules)
        self.last_bet: dict[str, Fraction] | None = None

    @property
    def balance(self) -> Fraction:
        return self.table.balance

    # -- the session -------------------------------------------------------------------
    def run(self) -> int:
        """Play until the person leaves; returns the exit status."""
        self.welcome()
        Limits(self.wallet.db).begin_session(self.account_id)
        self.show_recovered(finish_interrupted(self.wallet, self.account_id, self.game.id))
        try:
            while not self.leaving:
                if self.stacked_shoe_empty:
                    self.say("The stacked shoe has no cards left: the session ends.", "bold")
                    break
                if self.balance < self.minimum:
                    self.say(
                        f"Your bankroll of {format_amount(self.balance)} is below the table "
                        f"minimum of {format_amount(self.minimum)}, so you cannot bet. Run "
                        f"`{reset_command(self.db_path, self.person)}` to start again with "
                        f"{format_amount(START_BALANCE)}.",
                        "bold yellow",
                    )
                    break
                live = self.ask_bets()
                if live is None:
                    break
                self.play_round(live)
        except _StackRanOut as err:
            print(
                f"error: {err} in the middle of a round: the round is void and its stakes "
                "are returned",
                file=sys.stderr,
                flush=True,
            )
            return EXIT_ERROR
        finally:
            self.goodbye()
        return self.status

    def welcome(self) -> None:
        self.welcome_header()
        ids = self.wagers
        low = format_amount(self.minimum)
        if len(ids) == 1:
            how = f"Type your stake on {ids[0]}, e.g. `{low}`."
        else:
            short = abbreviation(ids[0], ids)
            how = (
                f"Bet like `{ids[0]} {low} {ids[-1]} {low}` or `{short} {low}`; "
                f"wagers: {wagers_text(ids)}."
            )
        beads = " `s` bead plate," if self.keeps_beads else ""
        self.say(how + f"{beads} `?` help, `q` leave.")

    def goodbye(self) -> None:
        played = self.table.rounds_played
        self.say(
            Text(
                f"Goodbye! Your bankroll is {format_amount(self.balance)} "
                f"({render.counted(played, 'round')} played; everything is saved).",
                style="bold",
            )
        )

    def help_bets(self) -> None:
        ids = self.wagers
        low = format_amount(self.minimum)
        two = format_amount(2 * self.minimum)
        grid = RichTable.grid(padding=(0, 3))
        grid.add_column(style="bold", no_wrap=True)
        grid.add_column()
        if len(ids) == 1:
            grid.add_row(two, f"stake {two} on {ids[0]} (`{ids[0]} {two}` works too)")
        else:
            short = abbreviation(ids[-1], ids)
            grid.add_row(
                f"{ids[0]} {two} {ids[-1]} {low}", f"bet {two} on {ids[0]} and {low} on {ids[-1]}"
            )
            grid.add_row(f"{abbreviation(ids[0], ids)} {two} {short} {low}", "the same, shorter")
        repeat = render.bets_text(self.last_bet) if self.last_bet else "nothing yet"
        grid.add_row("Enter", f"repeat your last bet ({repeat})")
        if self.keeps_beads:
            grid.add_row("s or beads", "the bead plate: every outcome of this shoe")
        grid.add_row("? or help", "this help")
        grid.add_row("q or quit", "leave (Ctrl-D and Ctrl-C too); every finished round is saved")
        self.say("Commands:")
        self.out.print(Padding(grid, (0, 0, 0, 2)))
        self.say(
            f"Wagers: {wagers_text(ids)}; {render.limits_text(self.rules)}, "
            "at most your bankroll in total."
        )

    def bet_prompt(self) -> Text:
        prompt = Text()
        if len(self.wagers) == 1:
            prompt.append(f"Stake on {self.wagers[0]}", style="bold")
        else:
            prompt.append("Your bets", style="bold")
        others = [*(["s beads"] if self.keeps_beads else []), "? help", "q quit"]
        hints = " · ".join(others)
        if self.last_bet:
            bets = render.bets_text(self.last_bet)
            hints = f"Enter = {bets} again · {hints}"
            if len(prompt) + len(hints) + 16 > self.out.width:
                # keep the prompt on one line: `Enter = b 10 pp 10 b27 10 again`
                bets = " ".join(
                    f"{abbreviation(w, self.wagers)} {format_amount(stake)}"
                    for w, stake in self.last_bet.items()
                )
                hints = " · ".join([f"Enter = {bets} again", *others])
        prompt.append(f" ({hints}) › ", style="dim")
        return prompt

    def ask_bets(self) -> HouseRound | None:
        """Ask until a bet is accepted (its stakes are then taken), or None to leave."""
        status = Text()
        status.append(f"Bankroll {format_amount(self.balance)}", style="bold green")
        status.append(f" · {render.limits_text(self.rules)}", style="dim")
        self.say(status)
        unit = Fraction(self.rules.table.unit)
        while True:
            try:
                line = self.read(self.bet_prompt()).strip()
            except (EOFError, KeyboardInterrupt):
                self.say("")
                return None
            word = line.lower()
            if word in QUIT_WORDS:
                return None
            if word in HELP_WORDS:
                self.help_bets()
                continue
            if self.keeps_beads and word in BEAD_WORDS:
                table = self.table
                self.show_beads(table.beads, table.bead_shoe, table.reshuffle_cause)
                continue
            if not line:
                if self.last_bet is None:
                    self.problem("there is no last bet to repeat yet: type a bet (? for help)")
                    continue
                bet = dict(self.last_bet)
            else:
                try:
                    bet = parse_bet(line, self.wagers, known_wagers(), unit)
                except BetError as err:
                    self.problem(f"{err} (? for help)")
                    continue
            try:
                live = self.table.place_bets(bet)
            except WagerError as err:
                self.problem(str(err))
                continue
            except RealityCheckDue as err:
                if not self.reality_check(err):
                    return None
                continue
            except AccountSuspended as err:  # a limit reached, or play paused
                self.problem(str(err))
                continue
            self.last_bet = dict(live.engine.wagers)
            return live

    def reality_check(self, due: RealityCheckDue) -> bool:
        """Show the reality check and ask whether to play on (acknowledged, True) or
        leave (False)."""
        minutes, net = due.details.get("minutes", 0), str(due.details.get("net", "0"))
        result = (
            "even"
            if net in ("0", "-0")
            else (f"{net.removeprefix('-')} down" if net.startswith("-") else f"{net} up")
        )
        self.say(
            f"Reality check: you have played for {minutes} minutes this session and are {result}.",
            "bold yellow",
        )
        try:
            answer = self.read(Text("Play on? (y to play on, anything else to leave) ")).strip()
        except (EOFError, KeyboardInterrupt):
            return False
        if answer.lower() not in ("y", "yes"):
            return False
        try:
            Limits(self.wallet.db).acknowledge(self.account_id, "terminal")
        except WalletError as err:
            self.problem(str(err))
        return True

    # -- one round ---------------------------------------------------------------------
    def play_round(self, live: HouseRound) -> None:
        number = self.table.rounds_played + 1
        bets = render.bets_text(live.engine.wagers)
        before = self.balance + sum(live.engine.wagers.values(), Fraction(0))
        title = f"Round {number} · bets: {bets}"
        if len(title) + 6 <= self.out.width:
            self.out.rule(Text(title), align="left")
        else:  # a rule would cut the bets short: give them a line of their own
            self.out.rule(Text(f"Round {number}"), align="left")
            self.say(f"  Bets: {bets}")
        renderer = render.EventRenderer()
        told = False
        cards_shown = 0

        def show(events: list[Event]) -> None:
            nonlocal told, cards_shown
            if interrupts.pending and not told:
                told = True
                self.leaving = True
                self.say(
                    Text(
                        f"{interrupts.reason}: this round is finished first, then you leave.",
                        "bold",
                    )
                )
            for event in events:
                if isinstance(event, CardDealt):
                    if cards_shown and not interrupts.pending:
                        self.pause()
                    cards_shown += 1
                self.say(renderer.render(event))

        with DeferredInterrupt(self.hang_up) as interrupts:
            show(list(live.events))
            try:
                while live.record is None:  # one card at a time, paced by show
                    step = live.to_move()
                    if isinstance(step, Turn):
                        show(self.decide(live, step, interrupts))
                    else:
                        show(self.table.step(live))
            except ShoeExhausted as err:  # a stacked shoe too short for the round
                self.table.void(live, str(err))
                raise _StackRanOut(str(err)) from None
            record = live.record
            assert record is not None
            points = live.engine.points()
            self.say(
                render.hands_summary(
                    live.engine.hands, {h: points_text(p) for h, p in points.items()}
                )
            )
            self.say(render.bankroll_change(before, self.balance))
            if self.keeps_beads:
                table = self.table
                self.say(
                    self.bead_board(
                        table.beads, table.bead_shoe, table.reshuffle_cause, COMPACT_BEAD_COLUMNS
                    )
                )
            self.say("")
            if interrupts.pending:
                self.leaving = True
                self.status = interrupts.exit_status

    def decision_prompt(self, live: HouseRound, turn: Turn) -> Text:
        labels = {hand: points_text(p) for hand, p in live.engine.points().items()}
        prompt = Text("  ")
        parts = [f"{capital(name)} {label}" for name, label in labels.items()]
        prompt.append(" vs ".join(parts), style="cyan")
        choices = [
            f"{a.value[0]} {a.value}" for a in (Action.HIT, Action.STAND) if a in turn.actions
        ]
        prompt.append(" · ")
        prompt.append("Hit or stand?" if len(turn.actions) > 1 else "Your move?", style="bold")
        prompt.append(f" ({' · '.join([*choices, '? help', 'q leave'])}) › ", style="dim")
        return prompt

    def decide(self, live: HouseRound, turn: Turn, interrupts: DeferredInterrupt) -> list[Event]:
        """Ask for a hit or stand until the table accepts one; the events it caused."""
        while True:
            by = "person"
            if self.leaving or interrupts.pending:
                action = default_action(turn)
                by = "default"
                self.say(f"You are leaving, so you {action} and the round is finished.")
            else:
                try:
                    with interrupts.raising():
                        word = self.read(self.decision_prompt(live, turn)).strip().lower()
                except (EOFError, KeyboardInterrupt) as err:
                    self.say("")
                    self.leaving = True
                    action = default_action(turn)
                    by = "default"
                    why = (
                        interrupts.reason
                        if isinstance(err, KeyboardInterrupt)
                        else ("No more input")
                    )
                    self.say(
                        f"{why}: you {action}, the round is finished and saved, then you leave."
                    )
                else:
                    if word in QUIT_WORDS:
                        self.leaving = True
                        action = default_action(turn)
                        by = "default"
                        self.say(
                            f"You leave: you {action}, the round is finished and saved, "
                            "then the session ends."
                        )
                    else:
                        chosen = self.read_action(word)
                        if chosen is None:
                            continue
                        action = chosen
            try:
                return self.table.act(live, action, by=by, advance=False)
            except IllegalAction as err:
                self.problem(str(err))
                if by == "default":  # pragma: no cover - the default play is always legal
                    raise
                continue

    def read_action(self, word: str) -> str | None:
        if word in ("h", "hit"):
            return Action.HIT.value
        if word in ("s", "stand"):
            return Action.STAND.value
        if word in HELP_WORDS - {"h"}:
            self.say(
                "Type h or hit to take a card, s or stand to keep your hand. "
                "q leaves: you stand (where the rules let you), the round is finished and "
                "saved, then the session ends (Ctrl-D does the same)."
            )
            return None
        self.problem(f"{word!r} is not a move: type h to hit or s to stand")
        return None


class _StackRanOut(Exception):
    """A stacked shoe (a replay) ran out in the middle of a round."""
