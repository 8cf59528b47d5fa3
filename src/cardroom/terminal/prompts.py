"""The terminal's prompts: reading bets and stakes, and the signals and keys that end a
session or edit a line.

A stake is read as a plain decimal (``10``, ``12.50``) in whole units of the table's
money unit; a bet line names wagers by id, initials or prefix (``p 10 pu 5``).  While a
round is being played, Ctrl-C, SIGTERM and SIGHUP are noted rather than obeyed at once
(:class:`DeferredInterrupt`), so a round whose bets are placed is always finished.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from fractions import Fraction
from types import FrameType
from typing import Any

from cardroom.core.money import CENT, AmountError, format_amount, parse_amount
from cardroom.games import GAMES
from cardroom.terminal.common import CliError


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


def read_stake(word: str, wager: str, unit: Fraction = CENT) -> Fraction:
    """A stake typed by a person: a plain decimal, above 0, in whole ``unit``s."""
    if word.strip().startswith("-"):
        raise BetError(f"stake on {wager} must be positive, not {word.strip()}")
    try:
        stake = parse_amount(word.strip())
    except AmountError as err:
        if "too large" in str(err):
            raise BetError(f"stake on {wager}: {err}") from None
        raise BetError(
            f"{word!r} is not a stake for {wager}: write a number such as 10 or 12.50"
        ) from None
    if stake <= 0:
        raise BetError(f"stake on {wager} must be positive, not {word.strip()}")
    if (stake / unit).denominator != 1:
        raise BetError(f"stake on {wager}: stakes are in {unit_words(unit)}, not {word.strip()}")
    return stake


def unit_words(unit: Fraction) -> str:
    """``whole cents`` or ``whole multiples of 0.25``."""
    return "whole cents" if unit == CENT else f"whole multiples of {format_amount(unit)}"


def parse_bet(
    text: str, wager_ids: Sequence[str], elsewhere: Sequence[str] = (), unit: Fraction = CENT
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
        return {wager_ids[0]: read_stake(words[0], wager_ids[0], unit)}
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
        bets[wager] = read_stake(amount, wager, unit)
    return bets


class Interrupted(KeyboardInterrupt):
    """A signal to end the session (Ctrl-C, SIGTERM, SIGHUP) arrived at a prompt."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


#: The signals that ask a session to end, and how the session says which came.
LEAVE_SIGNALS: dict[int, str] = {signal.SIGINT: "Ctrl-C", signal.SIGTERM: "Terminated"}
if hasattr(signal, "SIGHUP"):  # not on Windows
    LEAVE_SIGNALS[signal.SIGHUP] = "The terminal was closed"


class DeferredInterrupt:
    """While active, the signals that end a session (Ctrl-C, SIGTERM, SIGHUP) are noted
    instead of ending the process, so that a round whose bets are placed is always
    finished (with the default play) and saved before the session ends.

    :meth:`raising` lets them through again as :class:`Interrupted` (at a prompt, where
    it is safe).  ``on_hangup`` is called when the terminal goes away (SIGHUP), so that
    nothing more is written to it.
    """

    def __init__(self, on_hangup: Callable[[], None] | None = None) -> None:
        self.pending = False
        self.signum: int | None = None
        self.on_hangup = on_hangup
        self._active = threading.current_thread() is threading.main_thread()
        self._previous: dict[int, Any] = {}
        self._raising = False

    @property
    def reason(self) -> str:
        """Which signal came first, in words (``Ctrl-C``, ``Terminated``...)."""
        return LEAVE_SIGNALS.get(self.signum or signal.SIGINT, "Ctrl-C")

    @property
    def exit_status(self) -> int:
        """0 after Ctrl-C (the person chose to leave); 128 + the signal after another."""
        if self.signum is None or self.signum == signal.SIGINT:
            return 0
        return 128 + self.signum

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        self.pending = True
        if self.signum is None:
            self.signum = signum
        if signum == getattr(signal, "SIGHUP", None) and self.on_hangup is not None:
            self.on_hangup()
        if self._raising:
            raise Interrupted(signum)

    def __enter__(self) -> DeferredInterrupt:
        if self._active:
            for signum in LEAVE_SIGNALS:
                self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous = {}

    @contextmanager
    def raising(self) -> Iterator[None]:
        if self.pending:
            raise Interrupted(self.signum or signal.SIGINT)
        self._raising = True
        try:
            yield
        finally:
            self._raising = False


def enable_line_editing() -> None:
    """Arrow keys, history and the usual editing keys at the prompts, where the terminal
    has line editing (GNU readline or libedit); without it keys like ↑ would be typed
    into the answer as ``^[[A``."""
    if sys.stdin.isatty():
        with suppress(ImportError):
            # importing it is what turns it on for input()
            import readline  # noqa: F401  # lazy: readline (optional; turns line editing on)


def flush_typeahead() -> None:
    """Drop the keys pressed while the cards were being shown, so that a stray Enter never
    passes a stake or puts up a bank (a terminal only)."""
    if not sys.stdin.isatty():
        return
    with suppress(ImportError, OSError):
        import termios  # lazy: termios (not on every platform)

        with suppress(termios.error):
            termios.tcflush(sys.stdin.fileno(), termios.TCIFLUSH)


def parse_stakes(text: str, wager_ids: Sequence[str], unit: Fraction = CENT) -> dict[str, Fraction]:
    """``--stakes player=10,push=5``: the wagers to stake and how much (names as at the
    bet prompt: ``p=10,pu=5`` works too).

    >>> parse_stakes("player=10, pu=2.50", ("player", "dealer", "push"))
    {'player': Fraction(10, 1), 'push': Fraction(5, 2)}
    """
    stakes: dict[str, Fraction] = {}
    for part in text.split(","):
        name, sep, amount = part.partition("=")
        if not sep or not name.strip() or not amount.strip():
            raise CliError(
                f"--stakes: write each wager as WAGER=AMOUNT with commas between, like "
                f"{wager_ids[0]}=10, not {part.strip()!r}"
            )
        try:
            wager = match_wager(name.strip(), wager_ids)
            if wager in stakes:
                raise BetError(f"{wager} is named twice")
            stakes[wager] = read_stake(amount.strip(), wager, unit)
        except BetError as err:
            raise CliError(f"--stakes: {err}") from None
    return stakes
