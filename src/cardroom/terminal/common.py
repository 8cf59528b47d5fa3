"""What every ``cardroom`` command shares: one-line errors, bounded options, the console,
the wallet's database and the game's rules.

Every error a person can cause (an unknown game, a bad rules file, a bad card code, a
stake the table refuses, an option out of range...) is reported as one line on standard
error, ``error: ...``, and the command exits with status 2, without a traceback.
"""

from __future__ import annotations

import atexit
import errno
import os
import re
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from cardroom.core.cards import Card, CardError, parse_cards
from cardroom.core.textfile import path_reason, read_text_file, shown_path

if TYPE_CHECKING:  # (the types only: every command imports just what it needs)
    from rich.console import Console
    from rich.text import Text

    from cardroom.app.wallet import Account, Wallet
    from cardroom.games import GameInfo
    from cardroom.storage import Database

#: Exit status of every error a person can cause.
EXIT_ERROR = 2

# The bounds of the numeric options: every one has both, so that a typo or a huge
# number is a one-line error before any work (a test checks that each option has them).
#: Seeds: any 64-bit number.
MAX_SEED = 2**64 - 1
#: The pause between cards, in seconds.
MAX_DELAY = 10.0
#: Rounds shown by ``cardroom history``.
MAX_LIMIT = 100_000
#: Decks of a shoe given on the command line (rules files have the same bound).
MAX_DECKS = 64
#: Rounds of one simulation run: a billion times a million (months on a cluster).
MAX_ROUNDS = 10**15
#: Worker processes of a simulation.
MAX_WORKERS = 1024

#: The option that gives the bankroll file (named by the errors of the path it gives).
BANKROLL_OPTION = "--bankroll-file"

#: The person of a terminal who gives no name: their account is called "You".
DEFAULT_PERSON = "You"
#: The seats at a chemin de fer table at the terminal, unless --seats says otherwise.
DEFAULT_SEATS = 4


class Teardown:
    """Whether the process may end without the interpreter's teardown, once the command
    has returned.

    Tearing down an interpreter that loaded Numba and a compiled kernel (every module's
    objects, LLVM's among them, freed one by one) costs a quarter of a second of processor
    time after a simulation's figures are written, and nothing in it is needed. A command
    whose work is done and written says so (:meth:`skip`); :func:`end` then flushes the
    output, runs the exit handlers and ends the process at once."""

    skippable = False

    @classmethod
    def skip(cls) -> None:
        cls.skippable = True


def end(code: object) -> None:
    """End the process now with status 0 where the command succeeded, said that the
    teardown may be skipped (:class:`Teardown`) and left no other thread running;
    otherwise return, and the process ends as usual."""
    if code not in (None, 0) or not Teardown.skippable or threading.active_count() > 1:
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except OSError:  # (a closed pipe: Python reports it as usual)
        return
    atexit._run_exitfuncs()
    os._exit(0)


class CliError(Exception):
    """A problem with what the person asked for; shown as one line, exit status 2."""


#: Errors that are the person's, not the program's: one line, exit 2.  Each is named by
#: the module that defines it and looked up only where that module has been imported (an
#: error of a module nobody imported cannot have been raised), so that a command imports
#: the wallet, the database or the games only when it uses them.
PERSON_ERRORS: tuple[tuple[str, str], ...] = (
    ("cardroom.games.spec", "UnknownGame"),
    ("cardroom.core.rules", "RulesError"),
    ("cardroom.core.cards", "CardError"),
    ("cardroom.core.money", "AmountError"),
    ("cardroom.games.base", "WagerError"),
    ("cardroom.games.base", "IllegalAction"),
    ("cardroom.storage.errors", "StorageError"),
    ("cardroom.app.wallet.values", "WalletError"),
    ("cardroom.core.textfile", "TextInputError"),
)


def person_error_types() -> tuple[type[BaseException], ...]:
    """:class:`CliError` and the types of :data:`PERSON_ERRORS` imported so far."""
    found: list[type[BaseException]] = [CliError]
    for module, name in PERSON_ERRORS:
        if module in sys.modules:
            found.append(getattr(sys.modules[module], name))
    return tuple(found)


def fail(message: str) -> NoReturn:
    """Print ``error: message`` on standard error and exit with status 2."""
    import typer  # lazy: Typer (a run read without it, simulate's, imports it only here)

    print(f"error: {_shortened(message)}", file=sys.stderr, flush=True)
    raise typer.Exit(EXIT_ERROR)


#: The longest word an error repeats whole: a longer one (a value as given, thousands of
#: characters of it) keeps its two ends.
LONGEST_WORD = 120
_LONG_WORD = re.compile(rf"\S{{{LONGEST_WORD + 1},}}")


def _shortened(message: str) -> str:
    """``message`` with each very long word cut in the middle.

    >>> shown = _shortened("9" * 5000 + " is not an amount")
    >>> len(shown), shown[56:61], shown[-17:]
    (134, '99…99', ' is not an amount')
    """
    half = (LONGEST_WORD - 4) // 2
    return _LONG_WORD.sub(lambda m: f"{m[0][:half]}…{m[0][-half:]}", message)


@contextmanager
def person_errors(*more: type[BaseException]) -> Iterator[None]:
    """Turn the errors in :data:`PERSON_ERRORS` (and ``more``) into :func:`fail`."""
    try:
        yield
    except BaseException as err:
        if not isinstance(err, (*person_error_types(), *more)):
            raise
        fail(str(err).strip() or type(err).__name__)


#: an escape sequence of the terminal's (a colour): readline must not count it as typed
_ESCAPE = re.compile(r"(\x1b\[[0-9;]*[A-Za-z])")


def read_line(console: Console, prompt: Text | str) -> str:
    """A line typed at ``prompt``.  The prompt goes to ``input()`` itself, so that line
    editing (readline) knows where the line starts: printed before it, an empty line
    (Enter alone) left the cursor on the prompt's line and the next output ran on
    after it.  The colours' escape sequences are marked as taking no room
    (readline's \\001 and \\002)."""
    with console.capture() as captured:
        console.print(prompt, end="")
    text = captured.get()
    if "readline" in sys.modules and console.is_terminal:
        text = _ESCAPE.sub("\x01\\1\x02", text)
    if console.file is not sys.stdout or not console.is_terminal:
        console.print(prompt, end="")  # (a console of its own, or no terminal: as before)
        return input()
    return input(text)


def make_console() -> Console:
    """Standard output through Rich: word-wrapped on a terminal, never wrapped when piped."""
    from rich.console import Console  # lazy: Rich (--version and --json print without it)

    return Console(soft_wrap=not sys.stdout.isatty(), highlight=False)


def open_database(path: Path | None, *, create: bool = True) -> Database:
    """The bankroll file (a path, or the default one), opened and brought up to date."""
    from cardroom.storage import Database  # lazy: SQLAlchemy

    if path is None:
        return Database.open(path=path, create=create)
    with checking_path(path, BANKROLL_OPTION):
        return Database.open(path=path, create=create)


def person_account(wallet: Wallet, name: str | None) -> Account:
    """The account of ``name`` (None: the terminal's own person, "You"), opened with the
    starting balance the first time."""
    return wallet.accounts.account_or_open(DEFAULT_PERSON if name is None else name)


def load_game(game_id: str, rules_file: Path | None) -> tuple[GameInfo, Any]:
    from cardroom.games import get_game  # lazy: the games (NumPy)

    game = get_game(game_id)
    return game, game.load_rules(rules_file)


def read_stack(path: Path) -> list[Card]:
    """Card codes from a file: white space separated, ``#`` starts a comment."""
    text = read_text_file(path, "the stack file")
    cards: list[Card] = []
    for number, line in enumerate(text.splitlines(), start=1):
        try:
            cards.extend(parse_cards(line.partition("#")[0]))
        except CardError as err:
            raise CliError(f"{path}, line {number}: {err}") from None
    if not cards:
        raise CliError(f"the stack file {str(path)!r} holds no cards")
    return cards


@contextmanager
def checking_path(path: Path, what: str) -> Iterator[None]:
    """Any OSError while looking at ``path``, a path given on the command line (its name
    too long, a loop of symbolic links, a folder that cannot be searched...), is the
    person's: :class:`CliError`, ``WHAT: cannot use 'PATH': why``, naming the path
    the error is about."""
    try:
        yield
    except OSError as err:
        about = path if err.filename is None else err.filename
        raise CliError(f"{what}: cannot use {shown_path(about)}: {path_reason(err)}") from None


def check_output_file(path: Path, option: str, suffixes: Sequence[str]) -> None:
    """Refuse, before any work, a file an option would write that cannot be written."""
    if path.suffix.lower() not in suffixes:
        raise CliError(f"{option}: the file must end in {' or '.join(suffixes)}, not {path.name}")
    with checking_path(path, option):
        if path.is_dir():
            raise CliError(f"{option}: {str(path)!r} is a folder")
        folder = path.parent if str(path.parent) else Path(".")
        if not folder.is_dir():
            raise CliError(f"{option}: there is no folder {str(folder)!r} to write {path.name} in")
        try:  # (following the links: a loop of them raises here, not once the work is done)
            path.stat()
            exists = True
        except FileNotFoundError:
            exists = False
        if not os.access(folder, os.W_OK) or (exists and not os.access(path, os.W_OK)):
            raise CliError(f"{option}: cannot write {str(path)!r} (permission denied)")


#: Exit status of a command whose output could not be written (as of a closed pipe).
EXIT_OUTPUT = 1

#: What writing standard output fails with, other than a closed pipe: a full disk, a
#: quota, a file grown too big, a device's error.  (A file a command opens is named by
#: its error; a failed write to standard output names nothing.)
OUTPUT_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO})


def output_failed(err: OSError) -> bool:
    """Whether ``err`` is a write to standard output that failed, or a closed pipe."""
    return err.filename is None and (err.errno == errno.EPIPE or err.errno in OUTPUT_ERRNOS)


def end_output_failed(err: OSError) -> NoReturn:
    """End a command whose output could not be written (:func:`output_failed`): one line
    on standard error (none for a closed pipe: whoever reads has stopped), standard
    output sent nowhere (what is left in its buffer must not fail again at exit), exit
    status 1."""
    if err.errno != errno.EPIPE:
        with suppress(OSError):  # (standard error cannot be written either)
            print(f"error: cannot write the output: {path_reason(err)}", file=sys.stderr)
            sys.stderr.flush()
    with suppress(OSError, ValueError, AttributeError):  # (no standard output: nothing to fail)
        nowhere = os.open(os.devnull, os.O_WRONLY)
        os.dup2(nowhere, sys.stdout.fileno())
        os.close(nowhere)
    sys.exit(EXIT_OUTPUT)
