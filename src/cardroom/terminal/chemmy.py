"""The terminal's screen for chemin de fer: you and bots, or several people taking turns
at one terminal.

Presentation only: it asks each person for their decisions, shows what their seat may
see, and paces the coups.  The table (:class:`~cardroom.app.tables.chemmy.ChemmyTable`)
seats everybody, deals, lets the bots act, records each coup and moves the stacks.
"""

from __future__ import annotations

import sys
import time
import uuid
from collections.abc import Callable, Sequence
from fractions import Fraction
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.padding import Padding
from rich.table import Table as RichTable
from rich.text import Text

from cardroom.app.tables.chemmy import ChemmyTable, finish_interrupted_coups
from cardroom.app.wallet import START_BALANCE, Wallet, WalletError, account_name
from cardroom.app.words import capital
from cardroom.core.events import (
    BankPut,
    ChemmyEvent,
    CoupEvent,
    DrawForBank,
    HandCard,
    Outcome,
    PlayerChosen,
)
from cardroom.core.shoe import CardSource, ShoeExhausted
from cardroom.games import GameInfo
from cardroom.games.chemin_de_fer import ChemmyAction, ChemmyGame, ChemmyStrategy, SimpleMoney
from cardroom.games.spec import SeatsRules
from cardroom.terminal import render
from cardroom.terminal.chemmy_asks import Decisions
from cardroom.terminal.chemmy_looks import PrivateLooks
from cardroom.terminal.common import DEFAULT_PERSON, EXIT_ERROR, CliError, read_line
from cardroom.terminal.house import TableSession, reset_command
from cardroom.terminal.prompts import (
    BEAD_WORDS,
    COMPACT_BEAD_COLUMNS,
    HELP_WORDS,
    QUIT_WORDS,
    DeferredInterrupt,
    flush_typeahead,
)

#: The bots' names, given in this order to the seats after the people.
BOT_NAMES = (
    "Colette",
    "Henri",
    "Sylvie",
    "Marcel",
    "Odette",
    "Lucien",
    "Margot",
    "Armand",
    "Simone",
    "Gaston",
)
#: What each bot sits down with (for the session only).
BOT_STACK = Fraction(1000)
#: A bot calls "Banco" only on a bank of at most this share of its stack, so that a
#: person further round the table still gets to play hands.
BOT_BANCO_SHARE = Fraction(1, 20)


def parse_people(text: str | None, seats: int) -> list[str]:
    """The people at the terminal, from ``--people "Ann,Bob"`` (default: one, "You"), at a
    table of at most ``seats`` seats.

    >>> parse_people(None, 4), parse_people(" Ann , Bob", 4)
    (['You'], ['Ann', 'Bob'])
    """
    if text is None:
        return [DEFAULT_PERSON]
    names = [part.strip() for part in text.split(",")]
    if not any(names) or not all(names):
        raise CliError('--people: write the names with commas between them, like "Ann,Bob"')
    for name in names:
        try:
            account_name(name)
        except WalletError as err:
            raise CliError(f"--people: {err}") from None
    folded = [name.casefold() for name in names]
    if len(set(folded)) != len(names):
        raise CliError("--people: two people have the same name")
    if len(names) > 1 and DEFAULT_PERSON.casefold() in folded:
        raise CliError(
            f"--people: with several people give each a name ({DEFAULT_PERSON!r} is the "
            "one person's default)"
        )
    if len(names) > seats:
        raise CliError(
            f"--people: the table seats at most {seats}, so at most {seats} people can play "
            f"({len(names)} are named)"
        )
    return names


def bot_names(people: Sequence[str], count: int) -> list[str]:
    """``count`` bot names that no person at the table has."""
    taken = {name.casefold() for name in people}
    return [name for name in BOT_NAMES if name.casefold() not in taken][:count]


class ChemmyPlay(TableSession):
    """A sitting at a chemin de fer table: people (one, or several taking turns at this
    terminal) and bots.  Each person sits down with a buy-in from their bankroll (all of it
    unless ``buy_in`` says how much) and stands up with what is left when the session ends.

    The table (:class:`~cardroom.app.tables.chemmy.ChemmyTable`) deals, lets the bots act and
    records every coup; every person's decision is asked from the
    :class:`~cardroom.games.base.Turn` it returns.  Each person sees only what their seat
    may see: with one person the events are that seat's view; with several, the screen
    shows what everybody may see, and a person's own cards are shown only after the
    terminal is passed to them, and cleared before it goes back.
    """

    @property
    def reshuffle_cause(self) -> str | None:
        """Why the next coup starts from a new shoe, if it does."""
        return self.source.next_cause if self.source.needs_reshuffle else None

    round_word = "coup"

    def __init__(
        self,
        out: Console,
        game: GameInfo,
        rules: SeatsRules,
        source: CardSource,
        wallet: Wallet,
        db_path: Path,
        people: Sequence[str],
        seats: int,
        rng: np.random.Generator,
        *,
        buy_in: Fraction | None = None,
        delay: float = 0.4,
        rules_file: Path | None = None,
        source_note: str = "",
        read: Callable[[Text], str] | None = None,
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
        self.people: dict[int, str] = dict(enumerate(people))
        self.accounts = {
            seat: wallet.accounts.account_or_open(name) for seat, name in self.people.items()
        }
        self.buy_in = buy_in
        self.bot_seats = bot_names(people, seats - len(people))
        # one solution serves every bot; each samples its mixed choices from the table's rng
        self.bot: ChemmyStrategy = game.seated().solved_bot(
            rules, SimpleMoney(banco_share=BOT_BANCO_SHARE)
        )
        self.chemmy = ChemmyTable(
            rules, source, wallet, rng, seat_count=seats, table_ref=f"terminal:{uuid.uuid4()}"
        )
        self.hot_seat = len(people) > 1
        #: the seat shown as "You" (the one default person)
        self.you = 0 if not self.hot_seat and people[0] == DEFAULT_PERSON else None
        self.coups_played = 0
        self.interrupts = DeferredInterrupt()
        self.leave_told = False
        self.beads: list[str] = []
        self.bead_shoe: int | None = None
        self._seen: dict[int | None, int] = {}
        self.stacks_before: dict[int, Fraction] = {}
        # the coup being shown
        self.coup_start = 0
        self.shown = 0
        self.cards_shown = 0
        self.names_at_start: tuple[str, ...] = tuple(people) + tuple(self.bot_seats)
        self.renderer = render.ChemmyRenderer(self.names_at_start, you=self.you)
        self.title = Text()
        self.holders: dict[str, int] = {}
        #: hands held by people whose holder has not had their private look yet
        self.views_due: dict[str, int] = {}
        self.looks = PrivateLooks(self)
        self.asks = Decisions(self)

    @property
    def table(self) -> ChemmyGame:
        """The engine of the table (after the people and bots have sat down)."""
        game = self.chemmy.game
        assert game is not None
        return game

    # -- who is who ------------------------------------------------------------------
    @property
    def names(self) -> tuple[str, ...]:
        return self.chemmy.game.names if self.chemmy.game is not None else self.names_at_start

    def who(self, seat: int, *, start: bool = True) -> str:
        return self.renderer.who(seat, start=start)

    def whose(self, seat: int) -> str:
        """``Your`` / ``Ann's``, to start a sentence with."""
        return capital(self.renderer.whose(seat))

    def does(self, seat: int, third: str, second: str) -> str:
        return self.renderer.does(seat, third, second)

    def bankroll_label(self, seat: int) -> str:
        return "Bankroll" if seat == self.you else f"{self.names[seat]}'s bankroll"

    def reset_hint(self, seat: int) -> str:
        name = self.people[seat]
        return reset_command(self.db_path, None if name == DEFAULT_PERSON else name)

    def _read(self, prompt: Text) -> str:
        flush_typeahead()
        return read_line(self.out, prompt)

    def new_renderer(self) -> render.ChemmyRenderer:
        return render.ChemmyRenderer(self.names, you=self.you)

    def new_events(self, seat: int | None) -> list[CoupEvent]:
        """What ``seat`` (None: everybody) may see of what happened since it last looked."""
        start = self._seen.get(seat, 0)
        events = self.chemmy.events_for(seat, start)
        self._seen[seat] = start + len(events)
        return events

    def sit_down(self) -> bool:
        """Bring everybody to the table: the people with their buy-ins, the bots; False
        if somebody cannot sit down (said why)."""
        if not self.can_sit_down():
            return False
        for seat, name in self.people.items():
            account = self.accounts[seat]
            amount = (
                self.buy_in if self.buy_in is not None else self.wallet.accounts.balance(account.id)
            )
            self.chemmy.sit_person(seat, account.id, name, amount)
            self.stacks_before[seat] = amount
        for offset, name in enumerate(self.bot_seats):
            self.chemmy.sit_bot(len(self.people) + offset, name, BOT_STACK, self.bot)
        self.chemmy.start()
        return True

    # -- the session -----------------------------------------------------------------
    def run(self) -> int:
        """Play coups until the people leave or cannot go on; returns the exit status."""
        for seat, account in self.accounts.items():
            label = "Your" if seat == self.you else f"{self.people[seat]}'s"
            self.show_recovered(finish_interrupted_coups(self.wallet, account.id), label)
        self.welcome()
        status = 0
        with DeferredInterrupt(self.hang_up) as interrupts:
            self.interrupts = interrupts
            try:
                if not self.sit_down():
                    return 0
                self.play_draw()
                while not self.leaving and self.can_go_on():
                    if self.table.coup > 1 and not self.between_coups():
                        break
                    self.play_coup()
                    if interrupts.pending:
                        self.leaving = True
            except ShoeExhausted as err:
                print(
                    f"error: {err} in the middle of a coup: the coup is void and every "
                    "stack goes back as it stood before it",
                    file=sys.stderr,
                    flush=True,
                )
                self.chemmy.close(f"{err} in the middle of the coup")
                status = EXIT_ERROR
            finally:
                self.goodbye()
        return status or interrupts.exit_status

    def welcome(self) -> None:
        self.welcome_header()
        seats = Text("Seats: ")
        for seat, name in enumerate(self.names):
            if seat:
                seats.append(" · ", style="dim")
            seats.append(f"{seat + 1} {name}", style="bold" if seat in self.people else "")
            if seat in self.people:
                bankroll = render.money(self.wallet.accounts.balance(self.accounts[seat].id))
                seats.append(f" (bankroll {bankroll})", style="green")
            else:
                seats.append(" (bot)", style="dim")
        self.say(seats)
        bots = (
            f"each bot has {render.money(BOT_STACK)} for this session only and plays the "
            "game-theoretic solution (it may mix its choices at random)"
        )
        stake = (
            "their whole bankroll"
            if self.buy_in is None
            else f"a buy-in of {render.money(self.buy_in)}"
        )
        if self.hot_seat:
            self.say(f"Each person plays with {stake} as their stack; {bots}.")
            self.say(
                "Several people share this terminal: before anybody's own cards are shown "
                "you are asked to pass it to them, and the screen is cleared afterwards."
            )
        elif self.you is not None:
            self.say(f"You play with {stake.replace('their', 'your')} as your stack; {bots}.")
        else:
            self.say(f"{self.names[0]} plays with {stake} as their stack; {bots}.")
        limits = self.rules.table
        self.say(
            f"Banks and stakes {render.money(limits.minimum)} to {render.money(limits.maximum)} "
            "(and at most the stack). Tens and pictures count 0; cards show Finnish indices "
            f"(1 Ace, 11 Jack, 12 Queen, 13 King); {render.CARD_BACK} is a card you may not see."
        )
        self.say("At every prompt: `?` help, `q` leave (the coup in progress is finished first).")

    def can_sit_down(self) -> bool:
        """Does every person's bankroll (or buy-in) reach the table minimum?"""
        short = []
        for seat, account in self.accounts.items():
            balance = self.wallet.accounts.balance(account.id)
            wanted = self.buy_in if self.buy_in is not None else balance
            if wanted < self.minimum or wanted > balance:
                short.append((seat, balance, wanted))
        for seat, balance, wanted in short:
            if wanted > balance:
                self.say(
                    f"{self.whose(seat)} bankroll of {render.money(balance)} does not cover a "
                    f"buy-in of {render.money(wanted)}, so {self.who(seat, start=False)} cannot "
                    "sit down.",
                    "bold yellow",
                )
                continue
            self.say(
                f"{self.whose(seat)} bankroll of {render.money(balance)} is below the table "
                f"minimum of {render.money(self.minimum)}, so {self.who(seat, start=False)} "
                f"cannot sit down. Run `{self.reset_hint(seat)}` to start again with "
                f"{render.money(START_BALANCE)}.",
                "bold yellow",
            )
        return not short

    def can_go_on(self) -> bool:
        if self.table.is_over:
            return False
        if self.stacked_shoe_empty:
            self.say("The stacked shoe has no cards left: the session ends.", "bold")
            return False
        if all(self.table.stacks[seat] < self.minimum for seat in self.people):
            who = "your stack is" if len(self.people) == 1 else "every person's stack is"
            self.say(
                f"The session ends: {who} below the table minimum of {render.money(self.minimum)}.",
                "bold yellow",
            )
            return False
        return True

    def goodbye(self) -> None:
        """Everybody stands up: what is left of each person's stack goes back to their
        bankroll."""
        balances: dict[int, Fraction] = {}
        for seat, account in self.accounts.items():
            if self.chemmy.seats[seat].is_person:
                self.chemmy.leave(seat)
            balances[seat] = self.wallet.accounts.balance(account.id)
        coups = f"{render.counted(self.coups_played, 'coup')} played"
        if self.hot_seat:
            each = " · ".join(f"{self.people[s]} {render.money(b)}" for s, b in balances.items())
            text = f"Goodbye! Bankrolls: {each} ({coups}; everything is saved)."
        else:
            [(seat, balance)] = balances.items()
            text = (
                f"Goodbye! {self.whose(seat)} bankroll is {render.money(balance)} "
                f"({coups}; everything is saved)."
            )
        self.say(Text(text, style="bold"))

    def help(self, rows: Sequence[tuple[str, str]]) -> None:
        grid = RichTable.grid(padding=(0, 3))
        grid.add_column(style="bold", no_wrap=True)
        grid.add_column()
        for keys, what in rows:
            grid.add_row(keys, what)
        grid.add_row("q or quit", "leave; a coup in progress is finished first (passing or")
        grid.add_row("", "standing wherever there is a choice) and everything is saved")
        self.out.print(Padding(grid, (0, 0, 0, 2)))

    def between_coups(self) -> bool:
        """Wait for Enter before the next coup (not after the draw for the bank, which is
        short; and a person's bank prompt waits by itself)."""
        turn = self.chemmy.waiting_for()
        if turn is not None and ChemmyAction.PUT_BANK in turn.actions:
            return True
        prompt = Text()
        prompt.append("Next coup: Enter", style="bold")
        prompt.append(" · s bead plate · ? help · q leave › ", style="dim")
        while True:
            line = self.prompt_line(prompt)
            if line is None:
                self.leaving = True
                return False
            word = line.strip().lower()
            if not word:
                return True
            if word in QUIT_WORDS:
                self.leaving = True
                return False
            if word in HELP_WORDS:
                self.help(
                    [
                        ("Enter", "deal the next coup"),
                        ("s or beads", "the bead plate: the outcome of every coup of this shoe"),
                    ]
                )
            elif word in BEAD_WORDS:
                self.show_beads(self.beads, self.bead_shoe, self.reshuffle_cause)
            else:
                self.problem(
                    f"{line.strip()!r}: press Enter for the next coup (s bead plate, q leave)"
                )

    # -- one coup ----------------------------------------------------------------------
    def play_draw(self) -> None:
        """Show the draw for the bank (the table played it when everybody sat down)."""
        self.begin_coup(Text("The draw for the bank"), 0)
        self.show_new()
        self.say("")

    def begin_coup(self, title: Text, start: int) -> None:
        self.coup_start = self.shown = start
        self.cards_shown = 0
        self.renderer = self.new_renderer()
        self.holders, self.views_due = {}, {}
        self.title = title
        self.coup_rule()

    def play_coup(self) -> None:
        """Play the coup the table is at, then show how it ended."""
        game = self.table
        coup = game.coup
        self.begin_coup(self.coup_title(), len(game.log))
        while not game.is_over and game.coup == coup:
            turn = self.chemmy.advance()
            self.show_new()
            if turn is None:
                break
            if not self.asks.decide(turn):
                return  # left before putting up a bank: no coup
        self.show_new()
        self.finish_coup(coup)

    def coup_title(self) -> Text:
        game = self.table
        if game.coup == 0:
            return Text("The draw for the bank")
        title = f"Coup {game.coup}"
        if game.banker is not None:
            title += f" · {self.does(game.banker, 'holds', 'hold')} the bank"
        return Text(title)

    def coup_rule(self) -> None:
        self.out.rule(self.title, align="left")

    def show_new(self) -> None:
        """Show what happened since the last look: one seat's view, or everybody's."""
        if not self.hot_seat:
            [seat] = self.people
            for entry in self.new_events(seat):
                self.show_event(entry.event)
            return
        for entry in self.new_events(None):
            self.looks.before_public(entry.event)
            self.show_event(entry.event)
            self.shown += 1

    def show_event(self, event: ChemmyEvent) -> None:
        if isinstance(event, HandCard | DrawForBank):
            if self.cards_shown and self.delay > 0 and not self.interrupts.pending:
                time.sleep(self.delay)
            self.cards_shown += 1
        self.say(self.renderer.render(event))
        if isinstance(event, BankPut):
            self.holders = {"banker": event.seat}
        elif isinstance(event, PlayerChosen):
            self.holders["player"] = event.seat
        elif isinstance(event, HandCard) and self.cards_shown_in_hands() == 4:
            self.views_due = {
                hand: seat for hand, seat in self.holders.items() if seat in self.people
            }

    def cards_shown_in_hands(self) -> int:
        return sum(len(cards) for cards in self.renderer.hands.values())

    # -- decisions ---------------------------------------------------------------------
    leave_reason = "No more input"

    def prompt_line(self, prompt: Text) -> str | None:
        """A line typed at ``prompt``; None at the end of input or Ctrl-C."""
        try:
            with self.interrupts.raising():
                return self.read(prompt)
        except (EOFError, KeyboardInterrupt) as err:
            self.say("")
            self.leave_reason = (
                self.interrupts.reason if isinstance(err, KeyboardInterrupt) else "No more input"
            )
            return None

    def start_leaving(self, why: str, *, bank: bool = False) -> None:
        """Note that the people leave, and say so once."""
        self.leaving = True
        if self.leave_told:
            return
        self.leave_told = True
        if bank:
            self.say(f"{why}: no bank is put up, so there is no coup; the session ends.", "bold")
            return
        who = "every person passes or stands" if self.hot_seat else "you pass or stand"
        self.say(
            f"{why}: the coup in progress is finished ({who} wherever there is a choice) "
            "and saved, then the session ends.",
            "bold",
        )

    # -- after the coup ------------------------------------------------------------------
    def finish_coup(self, coup: int) -> None:
        """Show the table after the coup (the table has recorded it, and each person's new
        stack, in the wallet)."""
        game = self.table
        self.coups_played += 1
        outcome = next(
            (e.event.outcome for e in game.log[self.coup_start :] if isinstance(e.event, Outcome)),
            None,
        )
        self.say(render.stacks_text(self.names, game.stacks, game.banker, self.you))
        for seat in self.people:
            before = self.stacks_before.get(seat, game.stacks[seat])
            after = game.stacks[seat]
            label = "Your stack" if seat == self.you else f"{self.people[seat]}'s stack"
            self.say(render.bankroll_change(before, after, label=label))
            self.stacks_before[seat] = after
        if outcome is not None:
            shoe = self.source.shuffles
            if shoe != self.bead_shoe:
                self.beads, self.bead_shoe = [], shoe
            self.beads.append(outcome)
            self.say(
                self.bead_board(
                    self.beads, self.bead_shoe, self.reshuffle_cause, COMPACT_BEAD_COLUMNS
                )
            )
        self.say("")
