"""The ``cardroom`` command line: list games, play at a table, show history and bankroll,
and the test lab's ``rounds`` tool.

Every error a person can cause (an unknown game, a bad rules file, a bad card code,
a stake the table refuses...) is reported as one line on standard error and the
command exits with status 2, without a traceback.
"""

from __future__ import annotations

import json
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path
from types import FrameType
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.padding import Padding
from rich.table import Table as RichTable
from rich.text import Text

from cardroom import render
from cardroom.cards import Card, CardError, parse_cards
from cardroom.events import Decision
from cardroom.games import GAMES, GameInfo, UnknownGame, get_game
from cardroom.games.base import Action, IllegalAction, Round, WagerError
from cardroom.money import AmountError, Ledger, format_amount, parse_amount
from cardroom.rules import RulesError, rules_to_toml
from cardroom.shoe import (
    CardSource,
    SecureShuffler,
    SeededShuffler,
    Shoe,
    ShoeExhausted,
    StackedShoe,
)
from cardroom.storage import START_BANKROLL, Storage, StorageError, default_path
from cardroom.table import Table

app = typer.Typer(
    name="cardroom",
    help="Play Finnish 27 and its relatives at the terminal, with an exact, saved bankroll.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)

#: Exit status of every error a person can cause.
EXIT_ERROR = 2


class CliError(Exception):
    """A problem with what the person asked for; shown as one line, exit status 2."""


#: Errors that are the person's, not the program's: one line, exit 2.
PERSON_ERRORS: tuple[type[BaseException], ...] = (
    CliError,
    UnknownGame,
    RulesError,
    CardError,
    AmountError,
    WagerError,
    StorageError,
)


def fail(message: str) -> NoReturn:
    """Print ``error: message`` on standard error and exit with status 2."""
    print(f"error: {message}", file=sys.stderr, flush=True)
    raise typer.Exit(EXIT_ERROR)


@contextmanager
def person_errors() -> Iterator[None]:
    """Turn the errors in :data:`PERSON_ERRORS` into :func:`fail`."""
    try:
        yield
    except PERSON_ERRORS as err:
        fail(str(err).strip() or type(err).__name__)


def make_console() -> Console:
    """Standard output through Rich: word-wrapped on a terminal, never wrapped when piped."""
    return Console(soft_wrap=not sys.stdout.isatty(), highlight=False)


# -- shared options -------------------------------------------------------------------
GameArg = Annotated[
    str, typer.Argument(metavar="GAME", help="Game id (see `cardroom games`).", show_default=False)
]
RulesOpt = Annotated[
    Path | None,
    typer.Option("--rules", metavar="FILE.toml", help="A rules variant (TOML) for the game."),
]
BankrollOpt = Annotated[
    Path | None,
    typer.Option(
        "--bankroll-file",
        metavar="PATH",
        help="The SQLite file of the bankroll and history "
        "(default: cardroom.sqlite3 in the user data directory).",
    ),
]


def open_storage(path: Path | None, *, create: bool = True) -> Storage:
    return Storage(path, create=create) if path is not None else Storage.open_default()


def load_game(game_id: str, rules_file: Path | None) -> tuple[GameInfo, Any]:
    game = get_game(game_id)
    return game, game.load_rules(rules_file)


Decide = Callable[[Round], Action]


def play_out(
    table: Table,
    rnd: Round,
    act: Callable[[Round], None],
    after_each: Callable[[Round], None] | None = None,
    before_card: Callable[[Round], None] | None = None,
) -> None:
    """Deal card by card until ``rnd`` is complete; ``act`` makes each free decision.

    Shared by ``play`` and ``rounds`` so both run a round the same way.
    :class:`~cardroom.shoe.ShoeExhausted` from a stacked shoe propagates.
    """
    while not rnd.is_complete:
        if rnd.next_hand is not None:
            if before_card is not None:
                before_card(rnd)
            table.step(rnd)
        elif rnd.legal_actions():
            act(rnd)
        else:  # pragma: no cover - an engine that neither wants a card nor a decision
            raise RuntimeError(f"the {rnd.game} round is stuck: it wants no card and no decision")
        if after_each is not None:
            after_each(rnd)


def read_stack(path: Path) -> list[Card]:
    """Card codes from a file: white space separated, ``#`` starts a comment."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise CliError(f"cannot read the stack file {str(path)!r}: {err.strerror}") from None
    cards: list[Card] = []
    for number, line in enumerate(text.splitlines(), start=1):
        try:
            cards.extend(parse_cards(line.partition("#")[0]))
        except CardError as err:
            raise CliError(f"{path}, line {number}: {err}") from None
    if not cards:
        raise CliError(f"the stack file {str(path)!r} holds no cards")
    return cards


# -- games ----------------------------------------------------------------------------
@app.command()
def games() -> None:
    """List the games: id, name and what they are."""
    make_console().print(render.games_table(GAMES.values()))


@app.command("rules")
def rules_command(game_id: GameArg, rules: RulesOpt = None) -> None:
    """Print a game's rules as a TOML file: edit a copy and load it with --rules."""
    with person_errors():
        game, game_rules = load_game(game_id, rules)
        source = f"the variant {rules}" if rules is not None else "the defaults"
        sys.stdout.write(
            f"# {game.id} rules: {source}. Every key is optional in a variant file;\n"
            f'# odds are written "4:5" or as a number. Use: cardroom play {game.id} '
            "--rules FILE.toml\n"
        )
        sys.stdout.write(rules_to_toml(game_rules))


# -- bets ------------------------------------------------------------------------------
class BetError(ValueError):
    """A bet line that cannot be read; the person is asked again."""


QUIT_WORDS = frozenset({"q", "quit", "exit"})
HELP_WORDS = frozenset({"?", "h", "help"})
#: At the bet prompt of a game with a bead plate: show it.
BEAD_WORDS = frozenset({"s", "beads", "bead", "scoreboard"})
#: The bead plate after each round shows at most this many (of the latest) columns.
COMPACT_BEAD_COLUMNS = 24


def _plain(word: str) -> str:
    """A wager name without case, ``-`` or ``_`` (``B-27`` and ``b27`` are one name)."""
    return word.lower().replace("-", "").replace("_", "")


def _initials(wager: str) -> str:
    """``player_pair`` -> ``pp``; '' for a one-word wager."""
    parts = wager.split("_")
    return "".join(part[:1] for part in parts) if len(parts) > 1 else ""


def match_wager(word: str, wager_ids: Sequence[str], *, prefixes: bool = True) -> str:
    """The wager id ``word`` names: exactly, by its initials, or by a prefix (any case).

    A two-word wager is named by its initials too (``pp`` is player_pair, ``bp``
    banker_pair); ``-`` and ``_`` may be left out or swapped (``b-27`` is b27).  A
    prefix several wagers share means the first of them in the game's order, so in
    finnish27 ``p`` is player and ``pu`` is push.

    >>> [match_wager(w, ("player", "dealer", "push")) for w in ("p", "PU", "d", "play")]
    ['player', 'push', 'dealer', 'player']
    >>> ids = ("player", "banker", "tie", "player_pair", "banker_pair", "b27")
    >>> [match_wager(w, ids) for w in ("p", "b", "t", "pp", "bp", "B-27", "player-pair")]
    ['player', 'banker', 'tie', 'player_pair', 'banker_pair', 'b27', 'player_pair']
    """
    key = _plain(word)
    if key:
        for wager in wager_ids:
            if _plain(wager) == key:
                return wager
        for wager in wager_ids:
            if _initials(wager) == key:
                return wager
        if prefixes:
            for wager in wager_ids:
                if _plain(wager).startswith(key):
                    return wager
    raise BetError(f"this game has no wager {word!r} (it has: {', '.join(wager_ids)})")


def abbreviation(wager: str, wager_ids: Sequence[str]) -> str:
    """The short form of ``wager``: its initials (``pp`` for player_pair), else the
    shortest prefix that names it without cutting a number (``pu`` for push in
    finnish27, ``t`` for tie, but ``b27`` for b27).
    """
    initials = _initials(wager)
    if initials and match_wager(initials, wager_ids) == wager:
        return initials
    for size in range(1, len(wager)):
        if wager[size - 1 : size + 1].isdigit():
            continue
        if match_wager(wager[:size], wager_ids) == wager:
            return wager[:size]
    return wager


def wagers_text(wager_ids: Sequence[str]) -> str:
    """``player (p), dealer (d), push (pu)``; a wager that is its own short form stands alone.

    >>> wagers_text(("player", "banker", "tie", "player_pair", "banker_pair", "b27"))
    'player (p), banker (b), tie (t), player_pair (pp), banker_pair (bp), b27'
    """
    parts = []
    for wager in wager_ids:
        short = abbreviation(wager, wager_ids)
        parts.append(wager if short == wager else f"{wager} ({short})")
    return ", ".join(parts)


def known_wagers() -> tuple[str, ...]:
    """Every wager id some game offers under its default rules, in the games' order."""
    known: dict[str, None] = {}
    for game in GAMES.values():
        known.update(dict.fromkeys(game.wagers(game.default_rules())))
    return tuple(known)


def read_stake(word: str, wager: str) -> Fraction:
    try:
        stake = parse_amount(word)
    except AmountError:
        raise BetError(
            f"{word!r} is not a stake for {wager}: write a number such as 10 or 12.50"
        ) from None
    if (stake * 100).denominator != 1:
        raise BetError(f"stake on {wager}: stakes are in whole cents, not {word}")
    return stake


def parse_bet(
    text: str, wager_ids: Sequence[str], elsewhere: Sequence[str] = ()
) -> dict[str, Fraction]:
    """Read a bet line: ``10`` (one-wager games), ``player 10``, ``p 10 push 5``.

    ``elsewhere`` are wagers of other games or rules: naming one of them exactly
    (or by its initials) is told apart from a typo.

    >>> parse_bet("p 10 pu 5", ("player", "dealer", "push"))
    {'player': Fraction(10, 1), 'push': Fraction(5, 1)}
    >>> parse_bet("12.50", ("player",))
    {'player': Fraction(25, 2)}
    >>> parse_bet("b 10 pp 5 b27 20", ("player", "banker", "tie", "player_pair", "b27"))
    {'banker': Fraction(10, 1), 'player_pair': Fraction(5, 1), 'b27': Fraction(20, 1)}
    """
    words = text.replace(",", " ").replace("=", " ").split()
    if not words:
        raise BetError("type a bet")
    if len(wager_ids) == 1 and len(words) == 1:
        return {wager_ids[0]: read_stake(words[0], wager_ids[0])}
    if len(words) % 2:
        example = f"{wager_ids[0]} 10" if len(wager_ids) == 1 else f"{wager_ids[0]} 10 push 5"
        if len(wager_ids) > 1 and "push" not in wager_ids:
            example = f"{wager_ids[0]} 10 {wager_ids[1]} 5"
        raise BetError(f"write each bet as a wager and a stake, like `{example}`")
    bets: dict[str, Fraction] = {}
    for name, amount in zip(words[::2], words[1::2], strict=True):
        try:
            wager = match_wager(name, wager_ids)
        except BetError:
            other = [w for w in elsewhere if w not in wager_ids]
            try:
                missing = match_wager(name, other, prefixes=False)
            except BetError:
                raise BetError(
                    f"this game has no wager {name!r} (it has: {wagers_text(wager_ids)})"
                ) from None
            raise BetError(
                f"{missing} is not offered at this table (the wagers here: "
                f"{wagers_text(wager_ids)})"
            ) from None
        if wager in bets:
            raise BetError(f"{wager} is named twice: bet on each wager once")
        bets[wager] = read_stake(amount, wager)
    return bets


# -- play -------------------------------------------------------------------------------
class DeferredInterrupt:
    """While active, Ctrl-C is noted instead of raised, so a round is never left half-dealt.

    :meth:`raising` lets Ctrl-C through again (at a prompt, where it is safe).
    """

    def __init__(self) -> None:
        self.pending = False
        self._active = threading.current_thread() is threading.main_thread()
        self._previous: Any = None

    def _note(self, signum: int, frame: FrameType | None) -> None:
        self.pending = True

    def __enter__(self) -> DeferredInterrupt:
        if self._active:
            self._previous = signal.signal(signal.SIGINT, self._note)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._active:
            signal.signal(signal.SIGINT, self._previous)

    @contextmanager
    def raising(self) -> Iterator[None]:
        if not self._active:
            yield
            return
        signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, self._note)


class PlaySession:
    """One sitting at a table: bets, rounds card by card, the saved bankroll."""

    def __init__(
        self,
        out: Console,
        game: GameInfo,
        rules: Any,
        source: CardSource,
        store: Storage,
        *,
        delay: float = 0.4,
        rules_file: Path | None = None,
        source_note: str = "",
        read: Callable[[Text], str] | None = None,
    ) -> None:
        self.out = out
        self.game = game
        self.rules = rules
        self.source = source
        self.store = store
        self.delay = delay
        self.rules_file = rules_file
        self.source_note = source_note
        self.read = read or self._read
        self.table = Table(game, rules, source, Ledger(store.balance()))
        #: the wagers this table offers (a rules variant may add side wagers)
        self.wagers: tuple[str, ...] = game.wagers(rules)
        self.last_bet: dict[str, Fraction] | None = None
        self.leaving = False
        #: the outcomes of this shoe's rounds, for games that keep a bead plate
        self.keeps_beads = render.has_bead_plate(game.outcomes)
        self.beads: list[str] = []
        self.bead_shoe: int | None = None

    # -- input and output ------------------------------------------------------------
    def _read(self, prompt: Text) -> str:
        return self.out.input(prompt)

    def say(self, text: str | Text, style: str | None = None) -> None:
        """Print a line as it is (square brackets are text, not Rich markup)."""
        self.out.print(Text(text) if isinstance(text, str) else text, style=style or "")

    def problem(self, message: str) -> None:
        self.out.print(Text(f"✗ {message}", style="bold red"))

    @property
    def ledger(self) -> Ledger:
        assert self.table.ledger is not None
        return self.table.ledger

    @property
    def minimum(self) -> Fraction:
        return Fraction(self.rules.table.minimum)

    def sync_bankroll(self) -> None:
        """Take the bankroll from the file (another command may have changed it)."""
        stored = self.store.balance()
        if stored != self.ledger.balance:
            self.table.ledger = Ledger(stored)

    # -- the session -------------------------------------------------------------------
    def run(self) -> int:
        """Play until the person leaves; returns the exit status."""
        self.welcome()
        status = 0
        try:
            while not self.leaving:
                self.sync_bankroll()
                if isinstance(self.source, StackedShoe) and self.source.remaining == 0:
                    self.say("The stacked shoe has no cards left: the session ends.", "bold")
                    break
                if self.ledger.balance < self.minimum:
                    self.say(
                        f"Your bankroll of {format_amount(self.ledger.balance)} is below the "
                        f"table minimum of {format_amount(self.minimum)}, so you cannot bet. "
                        f"Run `cardroom bankroll --reset` to start again with "
                        f"{format_amount(START_BANKROLL)}.",
                        "bold yellow",
                    )
                    break
                rnd = self.ask_bets()
                if rnd is None:
                    break
                try:
                    self.play_round(rnd)
                except ShoeExhausted as err:
                    print(
                        f"error: {err} in the middle of a round: the round is cut short and "
                        f"not counted; the bankroll is unchanged",
                        file=sys.stderr,
                        flush=True,
                    )
                    status = EXIT_ERROR
                    break
        finally:
            self.goodbye()
        return status

    def welcome(self) -> None:
        title = Text(f"cardroom · {self.game.name}", style="bold")
        self.out.rule(title)
        rules = f"rules: {self.rules_file}" if self.rules_file else "rules: standard"
        self.say(Text(f"{rules} · {self.source_note}", style="dim"))
        self.say(Text(f"bankroll file: {self.store.path}", style="dim"))
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
        try:
            balance = self.store.balance()
        except StorageError:
            balance = self.ledger.balance
        rounds = f"{played} round{'s' if played != 1 else ''} played"
        self.say(
            Text(
                f"Goodbye! Your bankroll is {format_amount(balance)} "
                f"({rounds}; everything is saved).",
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

    def ask_bets(self) -> Round | None:
        """Ask until a bet is accepted (the round is then open), or None to leave."""
        status = Text()
        status.append(f"Bankroll {format_amount(self.ledger.balance)}", style="bold green")
        status.append(f" · {render.limits_text(self.rules)}", style="dim")
        self.say(status)
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
                self.show_beads()
                continue
            if not line:
                if self.last_bet is None:
                    self.problem("there is no last bet to repeat yet: type a bet (? for help)")
                    continue
                bet = dict(self.last_bet)
            else:
                try:
                    bet = parse_bet(line, self.wagers, known_wagers())
                except BetError as err:
                    self.problem(f"{err} (? for help)")
                    continue
            try:
                rnd = self.table.start_round(bet)
            except WagerError as err:
                self.problem(str(err))
                continue
            self.last_bet = dict(rnd.wagers)
            return rnd

    # -- one round ---------------------------------------------------------------------
    def play_round(self, rnd: Round) -> None:
        number = self.table.rounds_played + 1
        bets = render.bets_text(rnd.wagers)
        title = f"Round {number} · bets: {bets}"
        if len(title) + 6 <= self.out.width:
            self.out.rule(Text(title), align="left")
        else:  # a rule would cut the bets short: give them a line of their own
            self.out.rule(Text(f"Round {number}"), align="left")
            self.say(f"  Bets: {bets}")
        renderer = render.EventRenderer()
        shown = 0
        first_card = True
        told = False

        def show_new(r: Round) -> None:
            nonlocal shown, told
            if interrupts.pending and not told:
                told = True
                self.leaving = True
                self.say(Text("Ctrl-C: this round is finished first, then you leave.", "bold"))
            for event in r.events[shown:]:
                self.say(renderer.render(event))
            shown = len(r.events)

        def pause(r: Round) -> None:
            nonlocal first_card
            if not first_card and self.delay > 0 and not interrupts.pending:
                time.sleep(self.delay)
            first_card = False

        def act(r: Round) -> None:
            self.decide(r, interrupts)

        with DeferredInterrupt() as interrupts:
            show_new(rnd)
            play_out(self.table, rnd, act, after_each=show_new, before_card=pause)
            before = self.ledger.balance
            record = self.table.finish(rnd)
            labels = rnd.total_labels()
            saved = self.store.save_round(
                record,
                rules_file=None if self.rules_file is None else str(self.rules_file),
                labels=labels,
            )
            self.say(render.hands_summary(rnd.hands, labels))
            if saved.balance_after != self.ledger.balance or saved.balance_before != before:
                self.table.ledger = Ledger(saved.balance_after)
            self.say(render.bankroll_change(saved.balance_before, saved.balance_after))
            if self.keeps_beads:
                self.add_bead(record.shoe, record.outcome)
                self.say(self.bead_board(max_columns=COMPACT_BEAD_COLUMNS))
            self.say("")
            if interrupts.pending:
                self.leaving = True

    # -- the bead plate ----------------------------------------------------------------
    def add_bead(self, shoe: int, outcome: str) -> None:
        """Mark a finished round; the first round of a new shoe starts a new plate."""
        if shoe != self.bead_shoe:
            self.beads = []
            self.bead_shoe = shoe
        self.beads.append(outcome)

    def bead_board(self, max_columns: int | None = None) -> Text:
        note = ""
        if self.beads and self.source.needs_reshuffle:
            note = "cut card out: the next round starts a new shoe"
        return render.bead_board(self.beads, self.bead_shoe, note=note, max_columns=max_columns)

    def show_beads(self) -> None:
        if not self.beads:
            self.say("  The bead plate is empty: no round has been played from this shoe yet.")
            return
        self.say(self.bead_board())
        self.say(
            Text(
                "  P player · B banker · T tie: read down, then across; new shoe, new plate",
                style="dim",
            )
        )

    def decision_prompt(self, rnd: Round) -> Text:
        labels = rnd.total_labels()
        legal = rnd.legal_actions()
        prompt = Text("  ")
        parts = [f"{render.hand_name(name)} {label}" for name, label in labels.items()]
        prompt.append(" vs ".join(parts), style="cyan")
        choices = [a.value[0] for a in (Action.HIT, Action.STAND) if a in legal]
        prompt.append(" · ")
        prompt.append("Hit or stand?" if len(legal) > 1 else "Your move?", style="bold")
        prompt.append(f" ({'/'.join(choices)}) › ", style="dim")
        return prompt

    def fallback_action(self, rnd: Round) -> Action:
        """What is played for a person who has gone: stand where the rules allow it."""
        legal = rnd.legal_actions()
        return Action.STAND if Action.STAND in legal else sorted(legal)[0]

    def decide(self, rnd: Round, interrupts: DeferredInterrupt) -> None:
        """Ask for a hit or stand until the engine accepts one, then make it."""
        while True:
            if self.leaving or interrupts.pending:
                action = self.fallback_action(rnd)
                self.say(f"You are leaving, so you {action.value} and the round is finished.")
            else:
                try:
                    with interrupts.raising():
                        word = self.read(self.decision_prompt(rnd)).strip().lower()
                except (EOFError, KeyboardInterrupt) as err:
                    self.say("")
                    self.leaving = True
                    action = self.fallback_action(rnd)
                    why = "Ctrl-C" if isinstance(err, KeyboardInterrupt) else "No more input"
                    self.say(
                        f"{why}: you {action.value}, the round is finished and saved, "
                        "then you leave."
                    )
                else:
                    chosen = self.read_action(word)
                    if chosen is None:
                        continue
                    action = chosen
            try:
                rnd.act(action)
            except IllegalAction as err:
                self.problem(str(err))
                if self.leaving or interrupts.pending:  # pragma: no cover - engine refused
                    raise
                continue
            return

    def read_action(self, word: str) -> Action | None:
        if word in ("h", "hit"):
            return Action.HIT
        if word in ("s", "stand"):
            return Action.STAND
        if word in QUIT_WORDS:
            self.problem("the round must be finished first: hit (h) or stand (s), then quit")
            return None
        if word in ("?", "help"):
            self.say(
                "Type h or hit to take a card, s or stand to keep your hand. "
                "The round must be finished before you can leave (Ctrl-D stands for you)."
            )
            return None
        self.problem(f"{word!r} is not a move: type h to hit or s to stand")
        return None


def describe_source(seed: int | None, stack: Path | None, count: int) -> str:
    if stack is not None:
        return f"stacked shoe from {stack} ({count} cards, for a replay)"
    if seed is not None:
        return f"seeded shuffles (seed {seed}, reproducible)"
    return "shuffled with the operating system's secure randomness"


@app.command()
def play(
    game_id: GameArg,
    rules: RulesOpt = None,
    bankroll_file: BankrollOpt = None,
    seed: Annotated[
        int | None, typer.Option("--seed", help="Shuffle reproducibly from this seed.")
    ] = None,
    stack: Annotated[
        Path | None,
        typer.Option(
            "--stack",
            metavar="FILE",
            help="Deal these card codes in order (white space separated, # comments), for replays.",
        ),
    ] = None,
    delay: Annotated[
        float, typer.Option("--delay", min=0.0, metavar="SECONDS", help="Pause between cards.")
    ] = 0.4,
) -> None:
    """Play a game at the table with your saved bankroll."""
    with person_errors():
        game, game_rules = load_game(game_id, rules)
        if seed is not None and stack is not None:
            raise CliError("use either --seed or --stack, not both")
        source: CardSource
        if stack is not None:
            cards = read_stack(stack)
            source = StackedShoe(cards)
            note = describe_source(seed, stack, len(cards))
        else:
            shuffler = SeededShuffler(seed) if seed is not None else SecureShuffler()
            source = Shoe(game_rules.shoe, shuffler)
            note = describe_source(seed, None, 0)
        with open_storage(bankroll_file) as store:
            session = PlaySession(
                make_console(),
                game,
                game_rules,
                source,
                store,
                delay=delay,
                rules_file=rules,
                source_note=note,
            )
            status = session.run()
    if status:
        raise typer.Exit(status)


# -- history and bankroll -------------------------------------------------------------
@app.command()
def history(
    bankroll_file: BankrollOpt = None,
    limit: Annotated[int, typer.Option("--limit", min=1, help="How many rounds.")] = 10,
    game_id: Annotated[
        str | None, typer.Option("--game", metavar="GAME", help="Only this game's rounds.")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the stored records, one JSON object a line.")
    ] = False,
) -> None:
    """Show the last rounds played, oldest first: cards, decisions, bets, payouts."""
    out = make_console()
    with person_errors():
        if game_id is not None:
            get_game(game_id)
        path = bankroll_file if bankroll_file is not None else default_path()
        if not path.exists():
            if not as_json:
                out.print(f"No rounds played yet (there is no bankroll file at {path}).")
            return
        with Storage(path, create=False) as store:
            rounds = store.rounds(limit=limit, game=game_id)
            total = store.count_rounds(game_id)
        if as_json:
            for stored in rounds:
                print(json.dumps(stored.to_dict(), ensure_ascii=False, separators=(",", ":")))
            return
        if not rounds:
            which = f" of {game_id}" if game_id else ""
            out.print(f"No rounds{which} played yet.")
            return
        which = f" {game_id}" if game_id else ""
        out.print(
            Text(
                f"The last {len(rounds)} of {total}{which} rounds, oldest first ({path}):",
                style="bold",
            )
        )
        for stored in rounds:
            out.print("")
            out.print(
                render.stored_round(
                    stored.id,
                    stored.game,
                    stored.played_at,
                    stored.balance_before,
                    stored.balance_after,
                    stored.record,
                    stored.labels,
                    stored.rules_file,
                )
            )


@app.command()
def bankroll(
    bankroll_file: BankrollOpt = None,
    reset: Annotated[
        bool,
        typer.Option("--reset", help=f"Start again with {format_amount(START_BANKROLL)}."),
    ] = False,
    set_to: Annotated[
        str | None, typer.Option("--set", metavar="AMOUNT", help="Put the bankroll at AMOUNT.")
    ] = None,
) -> None:
    """Show the bankroll, or reset it (the history is kept)."""
    out = make_console()
    with person_errors():
        if reset and set_to is not None:
            raise CliError("use either --reset or --set, not both")
        amount = None if set_to is None else parse_amount(set_to)
        if amount is not None and amount < 0:
            raise CliError(f"a bankroll cannot be negative ({set_to})")
        with open_storage(bankroll_file) as store:
            before = store.balance()
            if reset:
                after = store.reset()
            elif amount is not None:
                after = store.set_balance(amount)
            else:
                after = before
            played = store.count_rounds()
            path = store.path
        line = Text()
        if after != before:
            line.append(f"Bankroll {format_amount(before)} → ", style="bold")
            line.append(format_amount(after), style="bold green")
        else:
            line.append(f"Bankroll {format_amount(after)}", style="bold green")
        out.print(line)
        out.print(Text(f"{path} · {played} rounds in the history", style="dim"))


# -- the test lab's rounds tool -------------------------------------------------------
def round_record(rnd: Round) -> dict[str, Any]:
    """``Round.summary()`` plus the decisions, in a stable key order."""
    data = dict(rnd.summary())
    data["decisions"] = [
        {"hand": e.hand, "action": str(e.action), "forced": e.forced}
        for e in rnd.events
        if isinstance(e, Decision)
    ]
    return data


def run_stacked_round(
    game: GameInfo, rules: Any, cards: Sequence[Card], stakes: Mapping[str, Fraction]
) -> Round:
    """Play one round from ``cards`` with no bankroll; the player follows the game's strategy.

    Raises :class:`~cardroom.shoe.ShoeExhausted` when the cards run out first and
    :class:`CliError` when the game asks for a decision cardroom has no strategy for.
    """
    table = Table(game, rules, StackedShoe(cards), None)
    rnd = table.start_round(stakes)
    strategy = game.player_strategy() if game.player_strategy is not None else None

    def act(r: Round) -> None:
        if strategy is None:
            raise CliError(f"{game.id} asks the player to decide and cardroom has no strategy")
        r.act(strategy(r))

    play_out(table, rnd, act)
    return rnd


@app.command()
def rounds(game_id: GameArg, rules: RulesOpt = None) -> None:
    """The test lab's tool: one stacked round per line of standard input, JSON out.

    Each line holds card codes in dealing order (blank lines and # comments are
    skipped).  Every wager the game offers under the rules is staked at the table
    minimum; the player's decisions follow the game's basic strategy.  One compact
    JSON object a line.
    """
    with person_errors():
        game, game_rules = load_game(game_id, rules)
        minimum = Fraction(game_rules.table.minimum)
        stakes = {wager: minimum for wager in game.wagers(game_rules)}
        for number, line in enumerate(sys.stdin, start=1):
            text = line.partition("#")[0].strip()
            if not text:
                continue
            try:
                cards = parse_cards(text)
                rnd = run_stacked_round(game, game_rules, cards, stakes)
            except CardError as err:
                raise CliError(f"line {number}: {err}") from None
            except CliError as err:
                raise CliError(f"line {number}: {err}") from None
            except ShoeExhausted:
                raise CliError(
                    f"line {number}: the round needs more cards than the {len(cards)} given"
                ) from None
            data = {"line": number, **round_record(rnd)}
            sys.stdout.write(json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n")
            sys.stdout.flush()


def main() -> None:
    """The ``cardroom`` console script."""
    app()


if __name__ == "__main__":
    main()
