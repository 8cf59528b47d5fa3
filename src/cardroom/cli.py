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
from contextlib import contextmanager, suppress
from fractions import Fraction
from pathlib import Path
from types import FrameType
from typing import Annotated, Any, NoReturn

import numpy as np
import typer
from rich.console import Console
from rich.padding import Padding
from rich.table import Table as RichTable
from rich.text import Text

from cardroom import render
from cardroom.analysis.chemin_de_fer import equilibrium_bot
from cardroom.analysis.report import fraction_text
from cardroom.cards import Card, CardError, parse_cards
from cardroom.events import (
    Announcement,
    BankPut,
    ChemmyEvent,
    Decision,
    DrawForBank,
    HandCard,
    HandShown,
    Outcome,
    PlayerChosen,
    SeatSettled,
)
from cardroom.games import GAMES, GameInfo, UnknownGame, get_game
from cardroom.games.base import Action, IllegalAction, Round, WagerError
from cardroom.games.chemin_de_fer import (
    GAME_ID,
    ChemmyAction,
    ChemmyGame,
    ChemmyRules,
    ChemmySession,
    SimpleMoney,
    Turn,
)
from cardroom.money import AmountError, Ledger, exact_json, format_amount, parse_amount
from cardroom.rules import RulesError, rules_to_toml
from cardroom.shoe import (
    CardSource,
    SecureShuffler,
    SeededShuffler,
    Shoe,
    ShoeExhausted,
    StackedShoe,
)
from cardroom.storage import (
    START_BANKROLL,
    HistoryEntry,
    Storage,
    StorageError,
    default_path,
    person_name,
)
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
PersonOpt = Annotated[
    str | None,
    typer.Option(
        "--person",
        metavar="NAME",
        help="A named bankroll (the people of `play chemin-de-fer --people`); default: yours.",
    ),
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


class TableSession:
    """What every sitting at a table shares: the terminal, the bankroll file, the shoe,
    and the bead plate of the games that keep one (player, banker and tie outcomes)."""

    #: what one deal of the game is called
    round_word = "round"

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
    def minimum(self) -> Fraction:
        return Fraction(self.rules.table.minimum)

    def welcome_header(self) -> None:
        """The title rule, the rules and shoe in use, and the bankroll file."""
        self.out.rule(Text(f"cardroom · {self.game.name}", style="bold"))
        rules = f"rules: {self.rules_file}" if self.rules_file else "rules: standard"
        self.say(Text(f"{rules} · {self.source_note}", style="dim"))
        self.say(Text(f"bankroll file: {self.store.path}", style="dim"))

    def run(self) -> int:
        """Play until the person leaves; returns the exit status."""
        raise NotImplementedError

    @property
    def stacked_shoe_empty(self) -> bool:
        return isinstance(self.source, StackedShoe) and self.source.remaining == 0

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
            note = f"cut card out: the next {self.round_word} starts a new shoe"
        return render.bead_board(self.beads, self.bead_shoe, note=note, max_columns=max_columns)

    def show_beads(self) -> None:
        if not self.beads:
            self.say(
                f"  The bead plate is empty: no {self.round_word} has been played from this "
                "shoe yet."
            )
            return
        self.say(self.bead_board())
        self.say(
            Text(
                "  P player · B banker · T tie: read down, then across; new shoe, new plate",
                style="dim",
            )
        )


class PlaySession(TableSession):
    """One sitting at a house game's table: bets, rounds card by card, the saved bankroll."""

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
        super().__init__(
            out,
            game,
            rules,
            source,
            store,
            delay=delay,
            rules_file=rules_file,
            source_note=source_note,
            read=read,
        )
        self.table = Table(game, rules, source, Ledger(store.balance()))
        #: the wagers this table offers (a rules variant may add side wagers)
        self.wagers: tuple[str, ...] = game.wagers(rules)
        self.last_bet: dict[str, Fraction] | None = None

    @property
    def ledger(self) -> Ledger:
        assert self.table.ledger is not None
        return self.table.ledger

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
                if self.stacked_shoe_empty:
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


# -- chemin de fer ---------------------------------------------------------------------------
#: The one person at a chemin de fer table unless --people names others; their bankroll is
#: the file's default one (the same as the house games').
DEFAULT_PERSON = "You"
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
DEFAULT_SEATS = 4

#: A decision for the engine: the action and its amount (for a bank or a stake).
Choice = tuple[ChemmyAction, Fraction | None]


def flush_typeahead() -> None:
    """Drop the keys pressed while the cards were being shown, so that a stray Enter never
    passes a stake or puts up a bank (a terminal only)."""
    if not sys.stdin.isatty():
        return
    with suppress(ImportError, OSError):
        import termios

        with suppress(termios.error):
            termios.tcflush(sys.stdin.fileno(), termios.TCIFLUSH)


def person_key(name: str) -> str | None:
    """The bankroll a seated person plays with: None (the file's default one) for "You"."""
    return None if name.casefold() == DEFAULT_PERSON.casefold() else name


def parse_people(text: str | None, seats: int) -> list[str]:
    """The people at the terminal, from ``--people "Ann,Bob"`` (default: one, "You").

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
            person_name(name)
        except StorageError as err:
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
        raise CliError(f"--people: {len(names)} people need at least {len(names)} seats")
    return names


def bot_names(people: Sequence[str], count: int) -> list[str]:
    """``count`` bot names that no person at the table has."""
    taken = {name.casefold() for name in people}
    return [name for name in BOT_NAMES if name.casefold() not in taken][:count]


class ChemmyPlay(TableSession):
    """A sitting at a chemin de fer table: people (one, or several taking turns at this
    terminal) and bots, each person playing with their whole saved bankroll.

    The game is driven by :meth:`ChemmySession.advance`; every person's decision is asked
    from the :class:`Turn` it returns.  Each person sees only what their seat may see: with
    one person the events are that seat's :meth:`~ChemmyGame.visible_events`; with several,
    the screen shows what everybody may see, and a person's own cards are shown only after
    the terminal is passed to them, and cleared before it goes back.  After every coup
    each person's net goes to their bankroll and the coup, as they saw it, to their
    history, in one transaction.
    """

    round_word = "coup"

    def __init__(
        self,
        out: Console,
        game: GameInfo,
        rules: ChemmyRules,
        source: CardSource,
        store: Storage,
        people: Sequence[str],
        seats: int,
        rng: np.random.Generator,
        *,
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
            store,
            delay=delay,
            rules_file=rules_file,
            source_note=source_note,
            read=read,
        )
        self.people: dict[int, str] = dict(enumerate(people))
        bots = bot_names(people, seats - len(people))
        stacks = [store.balance(person_key(name)) for name in people]
        stacks += [BOT_STACK] * len(bots)
        try:
            self.table = ChemmyGame(rules, list(zip([*people, *bots], stacks, strict=True)))
        except ValueError as err:
            short = [n for n, stack in zip(people, stacks, strict=False) if stack < self.minimum]
            if short:  # too few seats left that can play: say whose bankroll is short
                raise CliError(
                    f"{short[0]}'s bankroll of {render.money(stacks[people.index(short[0])])} "
                    f"is below the table minimum of {render.money(self.minimum)}"
                ) from None
            raise CliError(str(err)) from None
        # one solution serves every bot; each samples its mixed choices from the session's rng
        bot = equilibrium_bot(rules, SimpleMoney(banco_share=BOT_BANCO_SHARE))
        self.bots = {seat: bot for seat in range(len(people), seats)}
        self.session = ChemmySession(self.table, source, self.bots, rng)
        self.hot_seat = len(people) > 1
        #: the seat shown as "You" (the one default person)
        self.you = 0 if not self.hot_seat and people[0] == DEFAULT_PERSON else None
        self.coups_played = 0
        self.saved_any = False
        self.interrupts = DeferredInterrupt()
        self.leave_told = False
        # the coup being shown
        self.coup_start = 0
        self.shown = 0
        self.cards_shown = 0
        self.renderer = self.new_renderer()
        self.title = Text()
        self.holders: dict[str, int] = {}
        #: hands held by people whose holder has not had their private look yet
        self.views_due: dict[str, int] = {}

    # -- who is who ------------------------------------------------------------------
    @property
    def names(self) -> tuple[str, ...]:
        return self.table.names

    def who(self, seat: int) -> str:
        return self.renderer.who(seat)

    def whose(self, seat: int) -> str:
        """``Your`` / ``Ann's``, to start a sentence with."""
        return render.hand_name(self.renderer.whose(seat))

    def does(self, seat: int, third: str, second: str) -> str:
        return self.renderer.does(seat, third, second)

    def bankroll_label(self, seat: int) -> str:
        return "Bankroll" if seat == self.you else f"{self.names[seat]}'s bankroll"

    def reset_hint(self, seat: int) -> str:
        key = person_key(self.names[seat])
        return "cardroom bankroll --reset" + ("" if key is None else f" --person {key}")

    def _read(self, prompt: Text) -> str:
        flush_typeahead()
        return self.out.input(prompt)

    def new_renderer(self) -> render.ChemmyRenderer:
        return render.ChemmyRenderer(self.table.names, you=self.you)

    # -- the session -----------------------------------------------------------------
    def run(self) -> int:
        """Play coups until the people leave or cannot go on; returns the exit status."""
        self.welcome()
        if not self.can_sit_down():
            self.goodbye()
            return 0
        status = 0
        with DeferredInterrupt() as interrupts:
            self.interrupts = interrupts
            try:
                while not self.leaving and self.can_go_on():
                    if self.table.coup > 1 and not self.between_coups():
                        break
                    self.play_coup()
                    if interrupts.pending:
                        self.leaving = True
            except ShoeExhausted as err:
                print(
                    f"error: {err} in the middle of a coup: the coup is cut short and not "
                    "counted; the bankrolls are unchanged",
                    file=sys.stderr,
                    flush=True,
                )
                status = EXIT_ERROR
            finally:
                self.goodbye()
        return status

    def welcome(self) -> None:
        self.welcome_header()
        seats = Text("Seats: ")
        for seat, name in enumerate(self.names):
            if seat:
                seats.append(" · ", style="dim")
            seats.append(f"{seat + 1} {name}", style="bold" if seat in self.people else "")
            if seat in self.people:
                bankroll = render.money(self.table.stacks[seat])
                seats.append(f" (bankroll {bankroll})", style="green")
            else:
                seats.append(" (bot)", style="dim")
        self.say(seats)
        bots = (
            f"each bot has {render.money(BOT_STACK)} for this session only and plays the "
            "game-theoretic solution (it may mix its choices at random)"
        )
        if self.hot_seat:
            self.say(f"Each person plays with their whole bankroll as their stack; {bots}.")
            self.say(
                "Several people share this terminal: before anybody's own cards are shown "
                "you are asked to pass it to them, and the screen is cleared afterwards."
            )
        elif self.you is not None:
            self.say(f"You play with your whole bankroll as your stack; {bots}.")
        else:
            self.say(f"{self.names[0]} plays with their whole bankroll as their stack; {bots}.")
        limits = self.rules.table
        self.say(
            f"Banks and stakes {render.money(limits.minimum)} to {render.money(limits.maximum)} "
            "(and at most the stack). Tens and pictures count 0; cards show Finnish indices "
            f"(1 Ace, 11 Jack, 12 Queen, 13 King); {render.CARD_BACK} is a card you may not see."
        )
        self.say("At every prompt: `?` help, `q` leave (the coup in progress is finished first).")

    def can_sit_down(self) -> bool:
        """Does every person's bankroll reach the table minimum?"""
        short = [seat for seat in self.people if self.table.stacks[seat] < self.minimum]
        for seat in short:
            bankroll = render.money(self.table.stacks[seat])
            self.say(
                f"{self.whose(seat)} bankroll of {bankroll} is below the table minimum of "
                f"{render.money(self.minimum)}, so {self.who(seat)} cannot sit down. Run "
                f"`{self.reset_hint(seat)}` to start again with "
                f"{render.money(START_BANKROLL)}.",
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
        balances: dict[int, Fraction] = {}
        for seat, name in self.people.items():
            try:
                balances[seat] = self.store.balance(person_key(name))
            except StorageError:
                balances[seat] = self.table.stacks[seat]
        coups = f"{self.coups_played} coup{'s' if self.coups_played != 1 else ''} played"
        if self.hot_seat:
            each = " · ".join(f"{self.names[s]} {render.money(b)}" for s, b in balances.items())
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
        turn = self.session.waiting_for()
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
                self.show_beads()
            else:
                self.problem(
                    f"{line.strip()!r}: press Enter for the next coup (s bead plate, q leave)"
                )

    # -- one coup ----------------------------------------------------------------------
    def play_coup(self) -> None:
        """Play the coup the game is at (coup 0: the draw for the bank) and save it."""
        game = self.table
        coup = game.coup
        self.coup_start = self.shown = len(game.log)
        self.cards_shown = 0
        self.renderer = self.new_renderer()
        self.holders, self.views_due = {}, {}
        self.title = self.coup_title()
        self.coup_rule()
        while not game.is_over and game.coup == coup:
            turn = self.session.advance()
            self.show_new()
            if turn is None:
                break
            if not self.decide(turn):
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
            for entry in self.session.new_events(seat):
                self.show_event(entry.event)
            return
        for entry in self.session.new_events(None):
            self.before_public(entry.event)
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

    def before_public(self, event: ChemmyEvent) -> None:
        """With several people: give a hand's holder their private look where the game
        reaches their decision, forced or free (so a look tells nobody that it was free)."""
        if not self.views_due:
            return
        if isinstance(event, HandShown):  # a natural: everything is shown now
            self.views_due = {}
        elif "player" in self.views_due:
            self.forced_view("player")
        elif (
            "banker" in self.views_due
            and isinstance(event, Announcement | Decision)
            and event.hand == "banker"
        ):
            self.forced_view("banker")

    # -- private looks (several people at one terminal) ------------------------------------
    def pass_terminal(self, seat: int) -> bool:
        """Ask for the terminal to be passed to ``seat``'s person; False if they leave."""
        if self.leaving or self.interrupts.pending:
            return False
        name = self.names[seat]
        self.say(
            Text(f"Pass the terminal to {name} — press Enter when only {name} is looking", "bold")
        )
        line = self.prompt_line(Text(f"  {name}, press Enter › ", style="dim"))
        if line is None or line.strip().lower() in QUIT_WORDS:
            self.start_leaving("q" if line is not None else self.leave_reason)
            return False
        return True

    def end_private(self) -> None:
        """Clear the screen, then show again what everybody has seen of the coup."""
        if self.out.is_terminal:
            self.out.clear()
            self.out.file.write("\x1b[3J")  # the scrollback too
            self.out.file.flush()
        else:
            self.out.rule(Text("screen cleared", style="dim"), characters="╌")
        self.coup_rule()
        self.renderer = self.new_renderer()
        for entry in self.table.visible_events(None, self.coup_start)[
            : self.shown - self.coup_start
        ]:
            self.say(self.renderer.render(entry.event))

    def own_hand(self, seat: int, hand: str) -> Text:
        """``Ann's hand as the player: 3♥ 2♠ = 5`` (the first two cards: the deal)."""
        cards = [
            entry.event
            for entry in self.table.visible_events(seat, self.coup_start)
            if isinstance(entry.event, HandCard)
            and entry.event.seat == seat
            and entry.event.hand == hand
        ][:2]
        text = Text(f"  {self.whose(seat)} hand as the {hand}: ", style="bold")
        text.append_text(render.hand_text(card.card for card in cards if card.card is not None))
        if cards and cards[-1].total:
            text.append(f" = {cards[-1].total}", style="bold cyan")
        return text

    def forced_view(self, hand: str) -> None:
        """The private look of a holder whose play the rules made: their cards and the rule."""
        seat = self.views_due.pop(hand)
        if not self.pass_terminal(seat):
            return
        self.say(self.own_hand(seat, hand))
        rule = [
            entry.event
            for entry in self.table.visible_events(seat, self.coup_start)
            if isinstance(entry.event, Decision) and entry.event.hand == hand
        ]
        if rule:
            self.say(Text(f"  {render.hand_name(render.finnish_reason(rule[0].reason))}"))
        line = self.prompt_line(Text("  Press Enter when you have seen it › ", style="dim"))
        if line is None or line.strip().lower() in QUIT_WORDS:
            self.start_leaving("q" if line is not None else self.leave_reason)
        self.end_private()

    # -- decisions ---------------------------------------------------------------------
    leave_reason = "No more input"

    def prompt_line(self, prompt: Text) -> str | None:
        """A line typed at ``prompt``; None at the end of input or Ctrl-C."""
        try:
            with self.interrupts.raising():
                return self.read(prompt)
        except (EOFError, KeyboardInterrupt) as err:
            self.say("")
            self.leave_reason = "Ctrl-C" if isinstance(err, KeyboardInterrupt) else "No more input"
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

    def decide(self, turn: Turn) -> bool:
        """Ask the person ``turn`` names; False if they left before putting up a bank."""
        if ChemmyAction.PUT_BANK in turn.actions:
            return self.ask_bank(turn)
        if ChemmyAction.STAKE in turn.actions:
            return self.ask_cover(turn)
        hand = "player" if turn.seat == self.table.player else "banker"
        if not self.hot_seat:
            return self.ask_draw(turn, hand)
        self.views_due.pop(hand, None)
        looked = self.pass_terminal(turn.seat)
        decided = self.ask_draw(turn, hand)
        if looked:
            self.end_private()
        return decided

    def ask(
        self,
        turn: Turn,
        prompt: Text,
        choose: Callable[[str], Choice | None],
        fallback: Choice | None,
        help_rows: Sequence[tuple[str, str]],
        beads: bool = True,
    ) -> bool:
        """Ask until the engine takes a choice.  A person who leaves gets ``fallback``
        (None: nothing is done, and False is returned)."""
        while True:
            choice: Choice | None = None
            why = "Ctrl-C" if self.interrupts.pending else "Leaving"
            if not (self.leaving or self.interrupts.pending):
                line = self.prompt_line(prompt)
                if line is None:
                    why = self.leave_reason
                else:
                    word = line.strip().lower()
                    if word in HELP_WORDS:
                        self.help(help_rows)
                        continue
                    if beads and word in BEAD_WORDS:
                        self.show_beads()
                        continue
                    if word in QUIT_WORDS:
                        why = "q"
                    else:
                        choice = choose(line.strip())
                        if choice is None:
                            continue
            if choice is None:
                self.start_leaving(why, bank=fallback is None)
                if fallback is None:
                    return False
                choice = fallback
            action, amount = choice
            try:
                self.table.act(turn.seat, action, amount)
            except (IllegalAction, WagerError) as err:
                self.problem(str(err))
                if choice is fallback:  # pragma: no cover - passing and standing are legal
                    raise
                continue
            return True

    def ask_bank(self, turn: Turn) -> bool:
        seat = turn.seat
        assert turn.low is not None and turn.high is not None
        low, high = turn.low, turn.high
        default = self.table.default_bank
        suggested = default if default is not None and low <= default <= high else low
        can_pass = ChemmyAction.PASS_BANK in turn.actions
        status = Text(f"  {self.whose(seat)} stack {render.money(self.table.stacks[seat])} · ")
        if low == high:
            status.append(f"the bank stays whole at {render.money(low)}")
        else:
            status.append(f"a bank of {render.money(low)} to {render.money(high)}")
        self.say(status)
        prompt = Text(f"{self.whose(seat)} bank", style="bold")
        options = [f"Enter = {render.money(suggested)}", "an amount"]
        options += ["pass"] if can_pass else []
        prompt.append(f" ({' · '.join([*options, '? help', 'q leave'])}) › ", style="dim")

        def choose(word: str) -> Choice | None:
            if not word:
                return ChemmyAction.PUT_BANK, suggested
            if word.lower() in ("p", "pass"):
                return ChemmyAction.PASS_BANK, None
            try:
                return ChemmyAction.PUT_BANK, read_stake(word, "the bank")
            except BetError:
                hint = f"Enter for {render.money(suggested)}" + (", or pass" if can_pass else "")
                self.problem(f"{word!r} is not a bank: type an amount, {hint}")
                return None

        rows = [
            ("Enter", f"put up a bank of {render.money(suggested)}"),
            (render.money(2 * self.minimum), f"put up a bank of {render.money(2 * self.minimum)}"),
        ]
        if can_pass:
            rows.append(("p or pass", "pass the bank to the next seat"))
        rows.append(("s or beads", "the bead plate"))
        return self.ask(turn, prompt, choose, None, rows)

    def ask_cover(self, turn: Turn) -> bool:
        game, seat = self.table, turn.seat
        assert game.bank is not None and game.banker is not None
        can_banco = ChemmyAction.BANCO in turn.actions
        status = Text(f"  {self.whose(game.banker)} bank of {render.money(game.bank)}: ")
        status.append(f"{render.money(game.bank - game.covered)} to cover", style="bold")
        status.append(f" · {self.renderer.whose(seat)} stack {render.money(game.stacks[seat])}")
        self.say(status)
        prompt = Text("Cover" if seat == self.you else f"{self.names[seat]}, cover", style="bold")
        low = render.money(turn.low or self.minimum)
        high = render.money(turn.high or game.stacks[seat])
        options = [*(["banco"] if can_banco else []), f"an amount {low}-{high}", "Enter = pass"]
        prompt.append(f" ({' · '.join([*options, '? help', 'q leave'])}) › ", style="dim")

        def choose(word: str) -> Choice | None:
            lower = word.lower()
            if lower in ("", "p", "pass"):
                return ChemmyAction.PASS, None
            if lower in ("b", "banco"):
                return ChemmyAction.BANCO, None
            try:
                return ChemmyAction.STAKE, read_stake(word, "the bank")
            except BetError:
                banco = "banco, " if can_banco else ""
                self.problem(f"{word!r} is not a stake: type {banco}an amount, or pass (Enter)")
                return None

        rows = [
            ("b or banco", 'call "Banco": cover the whole bank alone (before anybody stakes)'),
            (low, f"stake {low} against the bank (what the bank does not need comes back)"),
            ("Enter or pass", "do not stake this coup"),
            ("s or beads", "the bead plate"),
        ]
        return self.ask(turn, prompt, choose, (ChemmyAction.PASS, None), rows)

    def ask_draw(self, turn: Turn, hand: str) -> bool:
        seat = turn.seat
        if not (self.leaving or self.interrupts.pending):
            line = self.own_hand(seat, hand)
            line.append(f" · {render.finnish_reason(turn.reason)}")
            self.say(line)
        prompt = Text("  Draw or stand?", style="bold")
        prompt.append(" (d/s · ? help · q leave) › ", style="dim")

        def choose(word: str) -> Choice | None:
            lower = word.lower()
            if lower in ("d", "draw"):
                return ChemmyAction.DRAW, None
            if lower in ("s", "stand"):
                return ChemmyAction.STAND, None
            self.problem(f"{word!r} is not a move: type d to draw a third card or s to stand")
            return None

        rows = [("d or draw", "take a third card"), ("s or stand", "keep two cards")]
        return self.ask(turn, prompt, choose, (ChemmyAction.STAND, None), rows, beads=False)

    # -- after the coup ------------------------------------------------------------------
    def finish_coup(self, coup: int) -> None:
        """Save every person's share of the coup (one transaction), then show the table."""
        game = self.table
        if coup == 0:
            self.say("")
            return
        first = self.coup_start if self.saved_any else 0  # the first record keeps the draw
        coup_events = [entry.event for entry in game.log[self.coup_start :]]
        outcome = next((e.outcome for e in coup_events if isinstance(e, Outcome)), None)
        labels = {e.hand: str(e.total) for e in coup_events if isinstance(e, HandShown)}
        shoe = self.source.shuffles
        entries = []
        for seat, name in self.people.items():
            net = sum(
                (e.net for e in coup_events if isinstance(e, SeatSettled) and e.seat == seat),
                Fraction(0),
            )
            record = {
                "game": GAME_ID,
                "coup": coup,
                "shoe": shoe,
                "seat": seat,
                "names": list(self.names),
                "bots": sorted(self.bots),
                "outcome": outcome,
                "net": exact_json(net),
                "stacks": [exact_json(stack) for stack in game.stacks],
                "events": [entry.to_dict() for entry in game.visible_events(seat, first)],
            }
            entries.append(
                HistoryEntry(
                    game=GAME_ID,
                    net=net,
                    record=record,
                    person=person_key(name),
                    labels=labels,
                    rules_file=None if self.rules_file is None else str(self.rules_file),
                )
            )
        saved = self.store.save_entries(entries)
        self.saved_any = True
        self.coups_played += 1
        self.say(render.stacks_text(self.names, game.stacks, game.banker, self.you))
        for seat, stored in zip(self.people, saved, strict=True):
            before, after = stored.balance_before, stored.balance_after
            self.say(render.bankroll_change(before, after, label=self.bankroll_label(seat)))
        if outcome is not None:
            self.add_bead(shoe, outcome)
            self.say(self.bead_board(max_columns=COMPACT_BEAD_COLUMNS))
        self.say("")


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
    seats: Annotated[
        int | None,
        typer.Option(
            "--seats",
            metavar="N",
            help=f"chemin-de-fer: seats at the table, 2-8 (default {DEFAULT_SEATS}); "
            "the seats no person takes are bots.",
        ),
    ] = None,
    people: Annotated[
        str | None,
        typer.Option(
            "--people",
            metavar="NAMES",
            help='chemin-de-fer: several people taking turns at this terminal, like "Ann,Bob", '
            "each with a bankroll of their own (default: you alone).",
        ),
    ] = None,
) -> None:
    """Play a game at the table with your saved bankroll."""
    with person_errors():
        game, game_rules = load_game(game_id, rules)
        if seed is not None and stack is not None:
            raise CliError("use either --seed or --stack, not both")
        seated = game.kind == "seats"
        if not seated and (seats is not None or people is not None):
            raise CliError(f"--seats and --people are for chemin-de-fer, not {game.id}")
        if seated:
            count = DEFAULT_SEATS if seats is None else seats
            low, high = game_rules.min_seats, game_rules.max_seats
            if not low <= count <= high:
                raise CliError(f"--seats: the table seats {low} to {high}, not {count}")
            names = parse_people(people, count)
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
            session: TableSession
            if seated:
                # the bots' random source: reproducible with --seed (and a stacked shoe)
                rng = np.random.default_rng(seed if seed is not None or stack is None else 0)
                session = ChemmyPlay(
                    make_console(),
                    game,
                    game_rules,
                    source,
                    store,
                    names,
                    count,
                    rng,
                    delay=delay,
                    rules_file=rules,
                    source_note=note,
                )
            else:
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
    person: PersonOpt = None,
) -> None:
    """Show the last rounds played, oldest first: cards, decisions, bets, payouts.

    A chemin de fer coup is shown as its person saw it: their own cards, the backs of the
    others' until the hands were shown, and their net.
    """
    out = make_console()
    with person_errors():
        if game_id is not None:
            get_game(game_id)
        key = None if person is None else person_key(person_name(person))
        path = bankroll_file if bankroll_file is not None else default_path()
        if not path.exists():
            if not as_json:
                out.print(f"No rounds played yet (there is no bankroll file at {path}).")
            return
        with Storage(path, create=False) as store:
            rounds = store.rounds(limit=limit, game=game_id, person=key)
            total = store.count_rounds(game_id, person=key)
            key = None if key is None else store.spelling(key)
        if as_json:
            for stored in rounds:
                print(json.dumps(stored.to_dict(), ensure_ascii=False, separators=(",", ":")))
            return
        owner = "" if key is None else f"{key}'s "
        if not rounds:
            which = f" of {game_id}" if game_id else ""
            whose = "" if key is None else f" by {key}"
            out.print(f"No rounds{which} played yet{whose}.")
            return
        which = f" {game_id}" if game_id else ""
        out.print(
            Text(
                f"The last {len(rounds)} of {owner}{total}{which} rounds, oldest first ({path}):",
                style="bold",
            )
        )
        for stored in rounds:
            out.print("")
            info = GAMES.get(stored.game)
            if info is not None and info.kind == "seats":
                out.print(
                    render.stored_coup(
                        stored.id,
                        stored.played_at,
                        stored.balance_before,
                        stored.balance_after,
                        stored.record,
                        stored.rules_file,
                    )
                )
                continue
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
    person: PersonOpt = None,
) -> None:
    """Show the bankroll, or reset it (the history is kept)."""
    out = make_console()
    with person_errors():
        if reset and set_to is not None:
            raise CliError("use either --reset or --set, not both")
        amount = None if set_to is None else parse_amount(set_to)
        if amount is not None and amount < 0:
            raise CliError(f"a bankroll cannot be negative ({set_to})")
        key = None if person is None else person_key(person_name(person))
        with open_storage(bankroll_file) as store:
            before = store.balance(key)
            if reset:
                after = store.reset(key)
            elif amount is not None:
                after = store.set_balance(amount, key)
            else:
                after = before
            played = store.count_rounds(person=key)
            others = store.people() if key is None else {}
            key = None if key is None else store.spelling(key)
            path = store.path
        label = "Bankroll" if key is None else f"{key}'s bankroll"
        line = Text()
        if after != before:
            line.append(f"{label} {format_amount(before)} → ", style="bold")
            line.append(format_amount(after), style="bold green")
        else:
            line.append(f"{label} {format_amount(after)}", style="bold green")
        out.print(line)
        out.print(Text(f"{path} · {played} rounds in the history", style="dim"))
        if others:
            named = " · ".join(f"{name} {format_amount(value)}" for name, value in others.items())
            out.print(Text(f"Named bankrolls (--person NAME): {named}", style="dim"))


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


JsonOpt = Annotated[bool, typer.Option("--json", help="One JSON object, exact fractions.")]
INFINITE_ONLY = (
    "with --infinite the Finnish 27 games are analysed with cards drawn with replacement "
    "(an infinite shoe), where {what}; without it they are counted from the real shoe"
)


def _amount_option(text: str | None, name: str) -> Fraction | None:
    if text is None:
        return None
    try:
        value = parse_amount(text)
    except AmountError as err:
        raise CliError(f"{name}: {err}") from None
    if value <= 0:
        raise CliError(f"{name}: must be above 0, not {text}")
    return value


@app.command()
def analyze(
    game_id: GameArg,
    rules: RulesOpt = None,
    decks: Annotated[
        int | None, typer.Option("--decks", min=1, help="Decks in the shoe (default: the rules').")
    ] = None,
    as_json: JsonOpt = False,
    eor: Annotated[
        bool, typer.Option("--eor", help="Effects of removal of one card of each rank.")
    ] = False,
    table_min: Annotated[
        str | None,
        typer.Option(
            "--table-min", help="finnish27: the table minimum the 9-9-9 awards scale with."
        ),
    ] = None,
    stake: Annotated[
        str | None, typer.Option("--stake", help="finnish27: the player wager's stake.")
    ] = None,
    strategy_name: Annotated[
        str,
        typer.Option(
            "--strategy", help="21-24-27: the player's play, basic (the source's) or optimal."
        ),
    ] = "basic",
    infinite: Annotated[
        bool,
        typer.Option(
            "--infinite",
            help="finnish27, 21-24-27: cards drawn with replacement, not the real shoe.",
        ),
    ] = False,
) -> None:
    """Exact probabilities and returns of every wager, from a full shoe."""
    from cardroom import analysis_view
    from cardroom.analysis.baccarat import analyze_baccarat, effects_of_removal
    from cardroom.analysis.finnish import (
        DrawOdds,
        analyze_21_24_27,
        analyze_finnish27,
        solve_21_24_27,
    )
    from cardroom.analysis.finnish import (
        effects_of_removal as effects_of_removal_with_replacement,
    )
    from cardroom.analysis.finnish_shoe import (
        ShoeMakeup,
        analyze_21_24_27_shoe,
        analyze_finnish27_shoe,
        finnish27_effects_of_removal,
        solve_21_24_27_shoe,
        twentyone_effects_of_removal,
    )
    from cardroom.analysis.report import GameReport
    from cardroom.games.baccarat import BaccaratRules
    from cardroom.games.finnish27 import Finnish27Rules

    effects = None
    eor_note: str | None = None
    with person_errors():
        game, game_rules = load_game(game_id, rules)
        if game.kind == "seats":
            raise CliError(
                "chemin-de-fer is a game between two deciding sides: "
                "`cardroom strategy chemin-de-fer` solves it"
            )
        finnish_only = {"--table-min": table_min, "--stake": stake}
        if game.id != "finnish27":
            for option, given in finnish_only.items():
                if given is not None:
                    raise CliError(f"{option} is for finnish27 only")
        if game.id != "21-24-27" and strategy_name != "basic":
            raise CliError("--strategy is for 21-24-27 only")
        if isinstance(game_rules, BaccaratRules):
            if infinite:
                raise CliError("--infinite is for finnish27 and 21-24-27")
            report = analyze_baccarat(game_rules, game.id, decks)
            effects = effects_of_removal(game_rules, game.id, decks) if eor else None
        elif not infinite:
            shoe = ShoeMakeup.of_rules(game_rules.shoe, decks)
            eor_note = (
                "effects of removal in the real shoe: one card of each rank (of a suit "
                "unknown) taken out before the round, exactly"
            )
            if isinstance(game_rules, Finnish27Rules):
                minimum = _amount_option(table_min, "--table-min")
                stake_size = _amount_option(stake, "--stake")
                report = analyze_finnish27_shoe(game_rules, shoe, minimum, stake_size)
                if eor:
                    effects = finnish27_effects_of_removal(game_rules, shoe, minimum, stake_size)
            elif strategy_name == "basic":
                report = analyze_21_24_27_shoe(game_rules, shoe)
                if eor:
                    effects = twentyone_effects_of_removal(game_rules, shoe)
            elif strategy_name == "optimal":
                if eor:
                    raise CliError(
                        "--eor keeps one table whatever card is out: give --strategy basic "
                        "(the best play on the cards seen changes with each card)"
                    )
                report = solve_21_24_27_shoe(game_rules, shoe).composition
            else:
                raise CliError(f"--strategy: basic or optimal, not {strategy_name!r}")
        else:
            if decks is not None:
                raise CliError(INFINITE_ONLY.format(what="the number of decks changes nothing"))
            if isinstance(game_rules, Finnish27Rules):
                minimum = _amount_option(table_min, "--table-min")
                stake_size = _amount_option(stake, "--stake")

                def finnish(odds: DrawOdds | None = None) -> GameReport:
                    return analyze_finnish27(game_rules, minimum, stake_size, odds=odds)

                run = finnish
            elif strategy_name in ("basic", "optimal"):
                hits = solve_21_24_27(game_rules).hits if strategy_name == "optimal" else None
                label = (
                    "the optimal strategy (cardroom strategy)"
                    if hits
                    else "the source's 18-row basic strategy"
                )

                def twentyone(odds: DrawOdds | None = None) -> GameReport:
                    return analyze_21_24_27(game_rules, hits, odds, label)

                run = twentyone
            else:
                raise CliError(f"--strategy: basic or optimal, not {strategy_name!r}")
            report = run()
            if eor:
                effects = effects_of_removal_with_replacement(game_rules.shoe, run)
                eor_note = (
                    "effects of removal in the model with replacement: each rank's share of "
                    "the shoe before and after one card of it is taken out; the player's play "
                    "is unchanged (first-order effects, not the finite shoe's)"
                )
    if as_json:
        data = report.to_json()
        if effects is not None:
            data["effects_of_removal"] = {
                wager: {rank.value: fraction_text(v) for rank, v in per.items()}
                for wager, per in effects.items()
            }
            if eor_note:
                data["effects_of_removal_model"] = eor_note
        sys.stdout.write(json.dumps(data) + "\n")
        return
    console = make_console()
    console.print(analysis_view.report_view(report))
    if effects is not None:
        console.print(analysis_view.eor_table(effects))
        if eor_note:
            console.print(eor_note)


@app.command()
def strategy(
    game_id: GameArg,
    rules: RulesOpt = None,
    decks: Annotated[
        int | None, typer.Option("--decks", min=1, help="A finite shoe of N decks.")
    ] = None,
    infinite: Annotated[
        bool, typer.Option("--infinite", help="Cards drawn with replacement (an infinite deck).")
    ] = False,
    total_only: Annotated[
        bool,
        typer.Option("--total-only", help="The banker decides on his total, not his two cards."),
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """The best play: 21-24-27's optimal strategy, finnish27's best table, chemin de fer solved.

    21-24-27 is solved in the real shoe (``--decks N`` for another; ``--infinite``:
    with cards drawn with replacement); finnish27's table with replacement.
    """
    from cardroom import analysis_view, shoe_view
    from cardroom.analysis.chemin_de_fer import solution_text, solve_infinite, solve_shoe
    from cardroom.analysis.finnish import strategy_comparison
    from cardroom.analysis.finnish_shoe import ShoeMakeup, strategy_comparison_shoe

    with person_errors():
        game, game_rules = load_game(game_id, rules)
        if game.kind != "seats":
            if game.id not in ("finnish27", "21-24-27"):
                raise CliError(
                    f"{game.id} has no decision to make: nobody chooses anything in it "
                    "(`cardroom analyze` gives its figures)"
                )
            if total_only:
                raise CliError("--total-only is for chemin-de-fer")
            if game.id == "21-24-27" and not infinite:
                shoe = ShoeMakeup.of_rules(game_rules.shoe, decks)
                finite = strategy_comparison_shoe(game_rules, shoe)
                if as_json:
                    sys.stdout.write(json.dumps(finite.to_json()) + "\n")
                else:
                    make_console().print(shoe_view.strategy_view(finite))
                return
            if decks is not None:
                raise CliError(
                    INFINITE_ONLY.format(what="--decks does not apply")
                    if game.id == "21-24-27"
                    else "finnish27's best table is worked out with cards drawn with "
                    "replacement, where --decks does not apply"
                )
            comparison = strategy_comparison(game.id, game_rules)
            if as_json:
                sys.stdout.write(json.dumps(comparison.to_json()) + "\n")
            else:
                make_console().print(analysis_view.strategy_view(comparison))
            return
        if infinite and decks is not None:
            raise CliError("give --infinite or --decks, not both")
        if infinite:
            solution = solve_infinite(game_rules)
        else:
            solution = solve_shoe(game_rules, decks, banker_sees_cards=not total_only)
    if as_json:
        sys.stdout.write(json.dumps(solution.to_json()) + "\n")
        return
    sys.stdout.write(solution_text(solution) + "\n")


@app.command()
def simulate(
    game_id: GameArg,
    rounds_wanted: Annotated[
        int, typer.Option("--rounds", min=1, help="Rounds to play.", show_default=False)
    ],
    seed: Annotated[int, typer.Option("--seed", min=0, help="Seed of the run.")] = 0,
    workers: Annotated[
        int | None,
        typer.Option("--workers", min=1, help="Worker processes (default: every core)."),
    ] = None,
    rules: RulesOpt = None,
    as_json: JsonOpt = False,
    strategy_name: Annotated[
        str, typer.Option("--strategy", help="21-24-27: the player's play, basic or optimal.")
    ] = "basic",
    session_rounds: Annotated[
        int | None,
        typer.Option("--session-rounds", min=1, help="Also report sessions of this many rounds."),
    ] = None,
    plot: Annotated[
        Path | None,
        typer.Option("--plot", metavar="FILE.png", help="Draw the session results (Matplotlib)."),
    ] = None,
    backend: Annotated[
        str, typer.Option("--backend", help="local (worker processes) or ray.")
    ] = "local",
    address: Annotated[
        str | None, typer.Option("--address", help="Ray: the cluster's address.")
    ] = None,
    exact: Annotated[
        bool, typer.Option("--exact/--no-exact", help="Show the exact analysis beside it.")
    ] = True,
    fresh_shoe: Annotated[
        bool,
        typer.Option("--fresh-shoe", help="Deal every round from a full, freshly shuffled shoe."),
    ] = False,
) -> None:
    """Play many rounds through real shoes, fast, with every wager staked.

    --fresh-shoe shuffles a full shoe before every round, so each round is dealt off
    the top, as the exact analysis counts it.

    chemin-de-fer: two seats, each calling "Banco" against the other's bank, both
    playing the solved equilibrium; the wagers are the punter's side and the bank's.
    """
    import os

    from cardroom import simulation_view
    from cardroom.simulation.runner import batches
    from cardroom.simulation.runner import fresh_shoe as fresh_rules

    with person_errors():
        game, game_rules = load_game(game_id, rules)
        if strategy_name not in ("basic", "optimal"):
            raise CliError(f"--strategy: basic or optimal, not {strategy_name!r}")
        if strategy_name != "basic" and game.id != "21-24-27":
            raise CliError("--strategy is for 21-24-27 only")
        if plot is not None and not session_rounds:
            raise CliError("--plot draws the sessions: give --session-rounds too")
        if backend not in ("local", "ray"):
            raise CliError(f"--backend: local or ray, not {backend!r}")
        if address is not None and backend != "ray":
            raise CliError("--address is for --backend ray")
        if session_rounds and session_rounds > rounds_wanted:
            raise CliError("--session-rounds: a session cannot be longer than the run")
        if fresh_shoe:
            game_rules = fresh_rules(game_rules)
        count = workers or os.cpu_count() or 1
        plan = batches(rounds_wanted, session_rounds or 0)
        show_bar = not as_json and sys.stdout.isatty() and len(plan) > 1
        try:
            result, means = _simulate(
                game.id, game_rules, rounds_wanted, seed, count, session_rounds or 0,
                strategy_name, backend, address, exact, show_bar,
            )  # fmt: skip
            if plot is not None:
                simulation_view.session_plot(result, means, plot)
        except ValueError as err:
            raise CliError(str(err)) from None
        note = ""
        if means and game.id == "chemin-de-fer":
            banker = (
                "the banker draws by the casino tableau"
                if game_rules.banker_forced_by_tableau
                else "both sides play the solved equilibrium"
            )
            note = (
                f"{banker} (cardroom strategy chemin-de-fer); exact: the value of that play "
                "off the top of a full shoe"
            )
        elif means:
            note = "exact: off the top of a full shoe (cardroom analyze)"
        if fresh_shoe:
            note = "every round from a full, freshly shuffled shoe" + (f"; {note}" if note else "")
    if as_json:
        data = simulation_view.run_json(result, means)
        data["fresh_shoe"] = fresh_shoe
        if plot is not None:
            data["plot"] = str(plot)
        sys.stdout.write(json.dumps(data) + "\n")
        return
    console = make_console()
    console.print(simulation_view.run_view(result, means, note))
    if plot is not None:
        console.print(f"plot written to {plot}")


def _simulate(
    game_id: str,
    game_rules: Any,
    rounds_wanted: int,
    seed: int,
    count: int,
    session: int,
    strategy_name: str,
    backend: str,
    address: str | None,
    exact: bool,
    show_bar: bool,
) -> tuple[Any, dict[str, Fraction]]:
    """Run the simulation (with a progress bar if asked) and the exact means."""
    from cardroom.simulation.runner import exact_means, run

    if show_bar:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TaskProgressColumn,
            TextColumn,
            TimeRemainingColumn,
        )

        bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TaskProgressColumn(show_speed=True),  # rounds per second
            TimeRemainingColumn(),
            transient=True,
        )
        with bar:
            task = bar.add_task(game_id, total=rounds_wanted)
            result = run(
                game_id, game_rules, rounds_wanted, seed, count, session,
                strategy_name, backend, address,
                lambda n: bar.advance(task, n),
            )  # fmt: skip
    else:
        result = run(
            game_id, game_rules, rounds_wanted, seed, count, session,
            strategy_name, backend, address,
        )  # fmt: skip
    means = exact_means(game_id, game_rules, strategy_name) if exact else {}
    return result, means


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
