"""A chemin de fer table: people and bots at the seats, the coups, and the money.

:class:`ChemmyTable` holds what happens between the seats and the engine, with no input,
output or clock of its own: people sit down with a buy-in from their wallet (and stand
up with what is left of it), bots play their strategy, and a person who has gone or
does not answer in time (the caller says so: :meth:`ChemmyTable.play_for`) is played by
the table's *absent policy*: pass the bank and the stakes, draw or stand as the solved
game says.

Every coup is saved *in progress* for each person at the table before its first step
(the state the coup starts from, the shoe's cards from there on, then each decision as
it is made), and finished with its replayable record and the seat's new stack in one
transaction.  If the process stops in the middle of a coup, :func:`finish_interrupted_coups`
(run by the next start) plays the same cards and decisions again, the absent policy for
the rest, records the coup and brings each person's stack back to the wallet;
:func:`finish_table_coups` does the same for every person of one table at once (what a
process that takes a table over from a stopped one runs).

A table's state in memory can be kept and put back (:meth:`ChemmyTable.checkpoint`,
:meth:`ChemmyTable.restore`): a caller that runs a step inside one database transaction
puts the table back as it was when the transaction fails, so memory never runs ahead of
the database.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
from sqlalchemy import select, union

from cardroom.app.history import Decided, RoundRecord, WagerResult
from cardroom.app.operators.tables import TableSettings
from cardroom.app.tables.state import (
    COUP_STATE_VERSION,
    CoupState,
    StateError,
    is_coup_state,
    read_coup_state,
)
from cardroom.app.wallet import AccountSuspended, InsufficientFunds, StoredRound, Wallet
from cardroom.core.cards import Card, parse_cards
from cardroom.core.events import BankPut, CoupEvent, GameOver, Outcome, SeatSettled
from cardroom.core.money import format_amount
from cardroom.core.rules import RulesError, load_rules_text, rules_to_toml
from cardroom.core.shoe import CardSource, draw_or_reshuffle, reshuffle_if_due
from cardroom.games import seats_game
from cardroom.games.base import IllegalAction, Turn, WagerError
from cardroom.games.chemin_de_fer import ChemmyAction, ChemmyGame, ChemmyStrategy, Cover, TableView
from cardroom.games.chemin_de_fer.bots import advance_coup, bot_choice
from cardroom.games.spec import SeatsRules
from cardroom.storage.schema import rounds, seats


class HouseRefusedSeat(WagerError):
    """The house takes no seat here: the table is closed, or the account suspended."""


__all__ = [
    "COUP_STATE_VERSION",
    "INTERRUPTED_NOTE",
    "AbsentPolicy",
    "ChemmyTable",
    "HouseRefusedSeat",
    "SeatAtTable",
    "TableCheckpoint",
    "coup_record",
    "finish_interrupted_coups",
    "finish_table_coups",
    "last_table_coup",
]

#: The version of the state a coup in progress is saved with.

#: the game these tables deal, and its table of seats (the engine, the solved bot)
GAME = seats_game()
SEATS = GAME.seated()


class AbsentPolicy:
    """What is played for a person who has gone or does not answer in time: no money is
    put at risk that need not be (the bank is passed where the rules allow it, else the
    smallest bank is put up; no stake), and the hand is played as the solved game says."""

    name = "absent"

    def __init__(self, hands: ChemmyStrategy) -> None:
        self.hands = hands

    def choose_bank(self, view: TableView, rng: np.random.Generator) -> Fraction | None:
        return None if view.can_pass_bank else view.low

    def choose_cover(self, view: TableView, rng: np.random.Generator) -> Cover:
        return Cover(ChemmyAction.PASS)

    def player_draws(self, total: int, rng: np.random.Generator) -> bool:
        return self.hands.player_draws(total, rng)

    def banker_draws(self, total: int, player_third: Card | None, rng: np.random.Generator) -> bool:
        return self.hands.banker_draws(total, player_third, rng)

    def banker_draws_holding(
        self, cards: tuple[Card, ...], player_third: Card | None, rng: np.random.Generator
    ) -> bool:
        holding = getattr(self.hands, "banker_draws_holding", None)
        if holding is not None:
            return bool(holding(cards, player_third, rng))
        total = sum(min(c.rank.number, 10) % 10 for c in cards) % 10
        return self.hands.banker_draws(total, player_third, rng)


@dataclass
class SeatAtTable:
    """Who sits at a seat: a person (with their account and wallet seat), a bot, or
    nobody."""

    name: str
    kind: str = "empty"
    account_id: int | None = None
    wallet_seat: int | None = None
    bot: ChemmyStrategy | None = None
    #: a person who has gone: played by the absent policy until the coup ends
    leaving: bool = False

    @property
    def is_person(self) -> bool:
        return self.kind == "person"


@dataclass
class _CoupInProgress:
    coup: int
    start: dict[str, Any]
    shoe: list[list[str]]
    rounds: dict[int, int] = field(default_factory=dict)  # seat -> wallet round id
    cards: list[Card] = field(default_factory=list)
    decisions: list[Decided] = field(default_factory=list)
    log_start: int = 0
    #: a shoe anyone can verify: [its number, the cards dealt from it] as the coup starts
    shoe_at: list[int] | None = None


@dataclass(frozen=True)
class TableCheckpoint:
    """A :class:`ChemmyTable`'s state in memory at one moment (:meth:`ChemmyTable.checkpoint`)."""

    game: ChemmyGame | None
    source: dict[str, Any]
    rng: dict[str, Any]
    seats: tuple[SeatAtTable, ...]
    stacks: dict[int, Fraction]
    coup: _CoupInProgress | None
    records: int
    last_coup: int


def _copy_game(game: ChemmyGame | None) -> ChemmyGame | None:
    """A copy of ``game`` that shares nothing changeable with it: its log's entries are
    frozen (the list is copied, not each event), its rules too."""
    if game is None:
        return None
    memo: dict[int, Any] = {id(game.log): list(game.log), id(game.rules): game.rules}
    return copy.deepcopy(game, memo)


class ChemmyTable:
    """A chemin de fer table of ``seat_count`` seats.

    Seat people (:meth:`sit_person`) and bots (:meth:`sit_bot`), then :meth:`start`: the
    draw for the bank.  Each call of :meth:`advance` deals and lets bots (and absent
    people) act until a present person must decide, returning their
    :class:`~cardroom.games.base.Turn`, or until the coup ends (None); the person's
    answer goes to :meth:`act`.  ``rng`` drives the bots' mixed choices.
    """

    def __init__(
        self,
        rules: SeatsRules | None,
        source: CardSource,
        wallet: Wallet,
        rng: np.random.Generator,
        *,
        seat_count: int,
        table_ref: str,
        absent: ChemmyStrategy | None = None,
    ) -> None:
        self.rules: SeatsRules = rules or GAME.default_rules()
        if not self.rules.min_seats <= seat_count <= self.rules.max_seats:
            raise WagerError(
                f"the table seats {self.rules.min_seats} to {self.rules.max_seats}, "
                f"not {seat_count}"
            )
        self.rules_toml = rules_to_toml(self.rules)
        self.source = source
        self.wallet = wallet
        self.rng = rng
        self.table_ref = table_ref
        self.seats = [SeatAtTable(f"Seat {n + 1}") for n in range(seat_count)]
        self.absent = absent or AbsentPolicy(SEATS.solved_bot(self.rules, None))
        self.game: ChemmyGame | None = None
        #: the number of the table's last coup before its game (0: none): each new game
        #: numbers its coups on from it (:meth:`new_game`, :meth:`number_on`)
        self.last_coup = 0
        self._stacks: dict[int, Fraction] = {}
        self._coup: _CoupInProgress | None = None
        self.records: list[RoundRecord] = []

    # -- keeping and putting back ----------------------------------------------------------
    def checkpoint(self) -> TableCheckpoint:
        """The table's state in memory now (the game, the shoe, the bots' generator, the
        seats, the coup in progress), to :meth:`restore` if what follows fails.  The
        wallet is not part of it: that is the database's, which rolls back on its own."""
        return TableCheckpoint(
            game=_copy_game(self.game),
            source=dict(vars(self.source)),
            rng=copy.deepcopy(dict(self.rng.bit_generator.state)),
            seats=tuple(copy.copy(held) for held in self.seats),
            stacks=dict(self._stacks),
            coup=copy.deepcopy(self._coup),
            records=len(self.records),
            last_coup=self.last_coup,
        )

    def restore(self, saved: TableCheckpoint) -> None:
        """Put the table back as it was at ``saved`` (which may be restored again)."""
        self.game = _copy_game(saved.game)
        vars(self.source).update(saved.source)
        self.rng.bit_generator.state = copy.deepcopy(saved.rng)
        self.seats = [copy.copy(held) for held in saved.seats]
        self._stacks = dict(saved.stacks)
        self._coup = copy.deepcopy(saved.coup)
        del self.records[saved.records :]
        self.last_coup = saved.last_coup

    # -- seats -----------------------------------------------------------------------------
    def sit_person(self, seat: int, account_id: int, name: str, buy_in: Fraction) -> None:
        """``name`` sits at the empty ``seat`` with ``buy_in`` from their wallet (before
        the game starts or between coups).  :class:`WagerError` changes nothing."""
        self._check_empty(seat, name)
        amount = Fraction(buy_in)
        minimum = self.rules.table.minimum
        if amount < minimum:
            raise WagerError(
                f"a buy-in of {_money(amount)} is below the table minimum of {_money(minimum)}"
            )
        if not TableSettings(self.wallet.db).is_open(self.table_ref):
            raise HouseRefusedSeat("this table is closed by the house: no new seats are taken")
        game = self.game
        if game is not None and not game.can_take_seat(seat, name, amount):
            raise WagerError("a seat can be taken only between coups")
        try:
            wallet_seat = self.wallet.seats.buy_in(account_id, amount, self.table_ref)
        except InsufficientFunds:
            balance = self.wallet.accounts.balance(account_id)
            raise WagerError(
                f"a buy-in of {_money(amount)} is more than {name}'s balance of {_money(balance)}"
            ) from None
        except AccountSuspended as err:
            raise HouseRefusedSeat(str(err)) from None
        self.seats[seat] = SeatAtTable(name, "person", account_id, wallet_seat)
        if game is None:
            self._stacks[seat] = amount
        else:
            game.take_seat(seat, name, amount)
            self._open_coup()

    def sit_bot(self, seat: int, name: str, stack: Fraction, bot: ChemmyStrategy) -> None:
        """A bot sits at the empty ``seat`` with ``stack`` (the house's money, not a wallet's)."""
        self._check_empty(seat, name)
        self.seats[seat] = SeatAtTable(name, "bot", bot=bot)
        if self.game is None:
            self._stacks[seat] = Fraction(stack)
        else:
            self.game.take_seat(seat, name, stack)
            self._open_coup()  # (the coming coup starts with the bot)

    def rename_bot(self, seat: int, name: str) -> None:
        """The bot at ``seat`` goes by ``name`` from now on (before the game, between
        coups, or once it is over): it makes way for a person of its name, since no two
        seats share a name.  :class:`WagerError` changes nothing."""
        held = self.seats[seat] if 0 <= seat < len(self.seats) else None
        if held is None or held.kind != "bot":
            raise WagerError(f"seat {seat + 1} has no bot")
        for n, other in enumerate(self.seats):
            if n != seat and other.kind != "empty" and other.name.casefold() == name.casefold():
                raise WagerError(f"{other.name} is already at the table")
        game = self.game
        if game is not None:
            try:
                game.rename(seat, name)
            except IllegalAction as err:
                raise WagerError(str(err)) from None
            self._open_coup()  # (the coming coup starts with the new name)
        held.name = name

    def stand_bot(self, seat: int) -> Fraction:
        """The bot at ``seat`` stands up (before the game, between coups, or once the game
        is over) and takes its stack (the house's money, returned) with it."""
        held = self.seats[seat] if 0 <= seat < len(self.seats) else None
        if held is None or held.kind != "bot":
            raise WagerError(f"seat {seat + 1} has no bot")
        game = self.game
        if game is None:
            stack = self._stacks.pop(seat, Fraction(0))
        else:
            if not game.can_leave(seat):
                raise WagerError(f"{held.name} can stand up only between coups")
            stack = game.stacks[seat]
            game.leave(seat)
            self._open_coup()
        self.seats[seat] = SeatAtTable(f"Seat {seat + 1}")
        return stack

    def new_game(self) -> None:
        """The game is over (fewer than two seats could play): set the table up again
        with the seats and stacks it has, for more seats to be taken and :meth:`start`
        to draw for the bank again.  The people's buy-ins stay where they are."""
        game = self.game
        if game is None or not game.is_over:
            raise IllegalAction("the game is not over")
        self._stacks = {
            n: stack for n, stack in enumerate(game.stacks) if self.seats[n].kind != "empty"
        }
        self.last_coup = game.coup  # (the next game's coups are numbered on)
        self.game = None
        self._coup = None

    def number_on(self) -> None:
        """Before the game starts: number its coups on from the last coup saved in the
        database at this table (see :func:`last_table_coup`), for a table set up again
        in a new process (one that takes the table over), so that nobody's coups at the
        table share a number.  Inside the caller's transaction it is part of it."""
        if self.game is not None:
            raise IllegalAction("the game has started")
        self.last_coup = max(self.last_coup, last_table_coup(self.wallet, self.table_ref))

    def _check_empty(self, seat: int, name: str) -> None:
        if not 0 <= seat < len(self.seats):
            raise WagerError(f"there is no seat {seat + 1} (the table has {len(self.seats)})")
        if self.seats[seat].kind != "empty":
            raise WagerError(f"seat {seat + 1} is taken by {self.seats[seat].name}")
        for held in self.seats:
            if held.kind != "empty" and held.name.casefold() == name.casefold():
                raise WagerError(f"{held.name} is already at the table")

    def leave(self, seat: int) -> Fraction | None:
        """The person at ``seat`` goes.  Between coups the seat stands up at once and its
        stack goes back to the wallet (returned); in a coup the absent policy plays for it
        until the coup ends, then it stands up (None now)."""
        person = self.seats[seat]
        if not person.is_person:
            raise WagerError(f"seat {seat + 1} has no person to leave")
        game = self.game
        if game is not None and not (game.between_coups or game.is_over):
            person.leaving = True
            return None
        return self._stand_up(seat)

    def _stand_up(self, seat: int) -> Fraction:
        person = self.seats[seat]
        game = self.game
        coup = self._coup
        if coup is not None and seat in coup.rounds:
            # the coup's first step was made (the bank passed on) but nothing was dealt
            # and no money is at stake: the person's part of it is called off
            round_id = coup.rounds.pop(seat)
            self.wallet.rounds.void_round(round_id, {"void": "left before the coup was dealt"})
        if game is not None and game.can_leave(seat):
            game.leave(seat)
            self._open_coup()
        assert person.wallet_seat is not None
        stack = self.wallet.seats.seat(person.wallet_seat).stack
        self.wallet.seats.cash_out(person.wallet_seat)
        self.seats[seat] = SeatAtTable(f"Seat {seat + 1}")
        self._stacks.pop(seat, None)  # (before the game starts: it starts without the seat)
        return stack

    @property
    def stacks(self) -> tuple[Fraction, ...]:
        """Each seat's stack now (0 for an empty seat): the game's once it has started."""
        if self.game is not None:
            return self.game.stacks
        return tuple(self._stacks.get(n, Fraction(0)) for n in range(len(self.seats)))

    @property
    def people(self) -> list[int]:
        return [n for n, s in enumerate(self.seats) if s.is_person]

    def _by_account(self) -> list[int]:
        """The people's seats in ascending account id: the order in which one transaction
        that touches several of their accounts takes them (the wallet's lock order, so
        that two tables' transactions never wait for each other in a circle)."""
        return sorted(self.people, key=lambda seat: self.seats[seat].account_id or 0)

    # -- the game ----------------------------------------------------------------------------
    def start(self) -> list[CoupEvent]:
        """Seat everybody in the engine and play the draw for the bank."""
        if self.game is not None:
            raise IllegalAction("the game has started")
        names = [s.name for s in self.seats]
        stacks = [self._stacks.get(n, Fraction(0)) for n in range(len(self.seats))]
        empty = [n for n, held in enumerate(self.seats) if held.kind == "empty"]
        try:
            game: ChemmyGame = SEATS.new_game(
                self.rules, list(zip(names, stacks, strict=True)), empty, self.last_coup
            )
        except ValueError as err:
            raise WagerError(str(err).removeprefix("seats: ")) from None
        self.game = game
        while game.next_card_for is not None:
            self._deal()
        self._open_coup()
        return list(game.log)

    def advance(self, moved: Callable[[], object] | None = None) -> Turn | None:
        """Deal and let the bots and absent people act until a present person must
        decide (their Turn) or the coup ends (None); a coup that ends is recorded.
        ``moved`` is called after each card and each decision (a caller that tells
        people the table as it stands after each of them)."""
        game = self._game()

        def played_for(turn: Turn) -> bool:
            held = self.seats[turn.seat]
            if held.is_person and not held.leaving:
                return False
            policy = held.bot if held.bot is not None else self.absent
            action, amount = bot_choice(policy, game, turn, self.rng)
            self._apply(turn.seat, action, amount, "bot" if held.bot is not None else "default")
            return True

        turn = advance_coup(game, self._deal, played_for, moved)
        if turn is None:
            self._coup_ended()
        return turn

    def waiting_for(self) -> Turn | None:
        """The present person's turn the table waits for now (None otherwise)."""
        game = self.game
        turn = None if game is None else game.to_act
        if turn is None or not self.seats[turn.seat].is_person or self.seats[turn.seat].leaving:
            return None
        return turn

    def act(self, seat: int, action: str, amount: Fraction | None = None) -> list[CoupEvent]:
        """A person's decision.  Refused (IllegalAction, WagerError: nothing changes)
        unless the table waits for this seat and the engine allows it."""
        self._game()
        turn = self.waiting_for()
        if turn is None or turn.seat != seat:
            who = self.seats[seat].name if 0 <= seat < len(self.seats) else f"seat {seat}"
            raise IllegalAction(f"it is not {who}'s turn")
        return self._apply(seat, action, amount, "person")

    def play_for(self, seat: int) -> list[CoupEvent]:
        """The absent policy makes the pending decision of ``seat`` (it did not answer in
        time)."""
        game = self._game()
        turn = self.waiting_for()
        if turn is None or turn.seat != seat:
            raise IllegalAction(f"the table does not wait for seat {seat + 1}")
        action, amount = bot_choice(self.absent, game, turn, self.rng)
        return self._apply(seat, action, amount, "default")

    def close(self, why: str) -> None:
        """The session ends in the middle of a coup that cannot be finished (a stacked
        shoe ran out): the coup is void for every person, each stack is what it was when
        the coup started, and it goes back to the wallet."""
        game = self.game
        coup = self._coup
        for seat in self._by_account():
            held = self.seats[seat]
            assert held.wallet_seat is not None
            stack = game.stacks[seat] if game is not None else Fraction(0)
            if coup is not None and game is not None and game.coup == coup.coup:
                stack = Fraction(coup.start["stacks"][seat])
                round_id = coup.rounds.get(seat)
                if round_id is not None:
                    self.wallet.rounds.void_round(round_id, {"void": why})
            self.wallet.seats.update_stack(held.wallet_seat, stack)
            self.wallet.seats.cash_out(held.wallet_seat)
            self.seats[seat] = SeatAtTable(f"Seat {seat + 1}")
        self._coup = None

    def events_for(self, seat: int | None, start: int = 0) -> list[CoupEvent]:
        """What ``seat`` may see of the game from ``start`` (None: an onlooker)."""
        game = self.game
        return [] if game is None else game.visible_events(seat, start)

    # -- inside ------------------------------------------------------------------------------
    def _game(self) -> ChemmyGame:
        if self.game is None:
            raise IllegalAction("the game has not started")
        return self.game

    def _deal(self) -> None:
        game = self._game()
        source = self.source
        coup = self._coup if self._coup is not None and game.coup == self._coup.coup else None

        def new_shoe() -> None:  # the coup deals from the new shoe
            if coup is not None:
                coup.shoe = [[c.code for c in _upcoming(source)]]
                self._save_coup()

        def more_shoe() -> None:  # the rest of the coup from a shoe shuffled in its middle
            if coup is not None:
                coup.shoe.append([c.code for c in _upcoming(source)])
                self._save_coup()

        if game.at_deal_start:
            reshuffle_if_due(source, game.record, new_shoe, begins_round=game.at_coup_start)
        self._start_coup_rounds()
        card = draw_or_reshuffle(source, game.cards_in_play, game.record, more_shoe)
        if coup is not None:
            coup.cards.append(card)
        game.deal(card)

    def _apply(self, seat: int, action: str, amount: Fraction | None, by: str) -> list[CoupEvent]:
        game = self._game()
        if action != ChemmyAction.PASS_BANK:
            # a bank passed on moves no money and may be followed by people standing up
            # or sitting down before the coup starts: the coup is saved for each person
            # from the bank put up (with the passes before it), so that nobody who
            # stands up in between is left with a coup that never was
            self._start_coup_rounds()
        coup = self._coup
        if coup is not None and game.coup == coup.coup:
            before = list(coup.decisions)
            coup.decisions.append(Decided(seat, str(action), amount, by))
            try:
                events = game.act(seat, action, amount)
            except (IllegalAction, WagerError):
                coup.decisions = before
                raise
            self._save_coup()
            if game.coup != coup.coup or game.is_over:  # that decision ended the coup
                self._coup_ended()
            return events
        return game.act(seat, action, amount)

    def _open_coup(self) -> None:
        """Between coups: save the coming coup in progress for each person at the table."""
        game = self._game()
        if game.is_over or not game.between_coups:
            return
        if self._coup is not None and self._coup.coup == game.coup:
            # somebody sat down or stood up before the coup's first step: it starts from here
            coup = self._coup
            coup.start = game.coup_start()
            coup.log_start = len(game.log)
            coup.decisions = []  # (a bank passed on before): the coup starts from here
            self._save_coup()
        else:
            coup = _CoupInProgress(
                game.coup,
                game.coup_start(),
                [[c.code for c in _upcoming(self.source)]],
                log_start=len(game.log),
                shoe_at=_position(self.source),
            )
            self._coup = coup

    def _start_coup_rounds(self) -> None:
        """The coup takes its first step: save it in progress for each person at the table
        (before that step: a bank put up, a card dealt)."""
        coup = self._coup
        game = self._game()
        if coup is None or coup.rounds or game.coup != coup.coup:
            return
        for seat in self._by_account():  # (so coup.rounds is in that order too)
            if not self.seats[seat].leaving:
                account = self.seats[seat].account_id
                assert account is not None
                coup.rounds[seat] = self.wallet.seats.open_coup(
                    account, GAME.id, self._coup_state(seat), self.table_ref
                )

    def _coup_state(self, seat: int) -> dict[str, Any]:
        coup = self._coup
        assert coup is not None
        return CoupState(
            rules=self.rules_toml,
            table=self.table_ref,
            seat=seat,
            wallet_seat=self.seats[seat].wallet_seat,
            start=coup.start,
            shoe=tuple(tuple(segment) for segment in coup.shoe),
            decisions=tuple(coup.decisions),
        ).to_json()

    def _save_coup(self) -> None:
        coup = self._coup
        if coup is None:
            return
        for seat, round_id in coup.rounds.items():
            self.wallet.rounds.save_state(round_id, self._coup_state(seat))

    def _coup_ended(self) -> None:
        game = self._game()
        coup = self._coup
        # a coup ends when the next one is set up, or when it ends the game
        if coup is None or (game.coup == coup.coup and not game.is_over):
            return
        record = coup_record(self.rules_toml, coup, game)
        if record.outcome is not None or any(isinstance(e, GameOver) for e in record.events):
            self.records.append(record)
        stacks = game.stacks
        for seat, round_id in coup.rounds.items():
            wallet_seat = self.seats[seat].wallet_seat
            assert wallet_seat is not None
            self.wallet.seats.finish_coup(round_id, record.to_json(), wallet_seat, stacks[seat])
        self._coup = None
        ended = getattr(self.source, "ended", None)
        if ended is not None and self.source.needs_reshuffle:  # the shoe deals no more
            ended()
        for seat in self._by_account():
            if self.seats[seat].leaving:
                self._stand_up(seat)
        self._open_coup()


def _upcoming(source: CardSource) -> list[Card]:
    peek = getattr(source, "peek", None)
    return list(peek(source.remaining)) if peek is not None else []


def _position(source: CardSource) -> list[int] | None:
    """Where a shoe anyone can verify stands (its number, the cards dealt from it: burnt
    ones included), for the coup's record; None for any other card source."""
    if getattr(source, "fair", None) is None:
        return None
    return [source.shuffles, source.dealt]


def _money(value: Fraction) -> str:
    return format_amount(value)


def coup_record(rules_toml: str, coup: _CoupInProgress, game: ChemmyGame) -> RoundRecord:
    """The record of the coup that has just ended."""
    entries = [e for e in game.log[coup.log_start :] if e.coup == coup.coup]
    events = tuple(e.event for e in entries)
    # the seat that put the bank up: the coup's first banker may have passed it on
    banker = next((e.seat for e in events if isinstance(e, BankPut)), coup.start.get("banker"))
    wagers = tuple(
        WagerResult(e.seat, "bank" if e.seat == banker else "stake", e.stake, e.net, e.breakage)
        for e in events
        if isinstance(e, SeatSettled)
    )
    outcome = next((e.outcome for e in events if isinstance(e, Outcome)), None)
    start = coup.start if coup.shoe_at is None else {**coup.start, "shoe": list(coup.shoe_at)}
    return RoundRecord(
        game=GAME.id,
        rules=rules_toml,
        seats=tuple(coup.start["names"]),
        cards=tuple(coup.cards),
        decisions=tuple(coup.decisions),
        wagers=wagers,
        outcome=outcome,
        events=events,
        start=start,
    )


# -- coups a stopped process left unfinished -------------------------------------------------------
INTERRUPTED_NOTE = (
    "cardroom stopped in the middle of this coup; it was finished on the next start with "
    "the same cards and decisions, every seat's remaining play made by the absent policy"
)


def finish_interrupted_coups(
    wallet: Wallet, account_id: int, skip: Callable[[str | None], bool] | None = None
) -> list[RoundRecord]:
    """Finish the coups the account's seats left in progress and bring every stack it
    left at a table back to the wallet, except at the tables ``skip`` names (by their
    ``table_ref``: tables another process drives, or will take over).  Returns the
    coups' records."""
    finished: list[RoundRecord] = []
    for stored in wallet.rounds.unfinished_rounds(account_id, GAME.id):
        if skip is None or not skip(stored.table_ref):
            record = _finish_stored(wallet, stored)
            if record is not None:
                finished.append(record)
    for left in wallet.seats.open_seats(account_id):
        if skip is None or not skip(left.table_ref):
            wallet.seats.cash_out(left.id)
    return finished


def finish_table_coups(wallet: Wallet, table_ref: str) -> tuple[list[RoundRecord], int]:
    """Finish the coups every person at the table ``table_ref`` left in progress, and
    bring every stack left there back to its wallet: what a process that takes the table
    over from a stopped one runs before the table starts again.  Inside the caller's
    transaction it is part of it (the accounts are taken in ascending id, the wallet's
    order for a transaction of several).  Returns the coups' records (one per person in
    the coup: the same coup) and how many seats were cashed out."""
    with wallet.db.read() as conn:
        held = conn.execute(
            union(
                select(rounds.c.account_id).where(
                    rounds.c.table_ref == table_ref,
                    rounds.c.status == "in_progress",
                    rounds.c.game == GAME.id,
                ),
                select(seats.c.account_id).where(
                    seats.c.table_ref == table_ref, seats.c.status == "open"
                ),
            )
        ).scalars()
        people = sorted({int(account) for account in held})
    finished: list[RoundRecord] = []
    cashed = 0
    for account_id in people:
        for stored in wallet.rounds.unfinished_rounds(account_id, GAME.id):
            if stored.table_ref == table_ref:
                record = _finish_stored(wallet, stored)
                if record is not None:
                    finished.append(record)
        for left in wallet.seats.open_seats(account_id):
            if left.table_ref == table_ref:
                wallet.seats.cash_out(left.id)
                cashed += 1
    return finished, cashed


def last_table_coup(wallet: Wallet, table_ref: str) -> int:
    """The number of the last coup saved at the table ``table_ref`` for anybody (in
    progress or finished: the state of the table's latest round), 0 if none is.  A coup
    of bots only is saved for nobody, so a table taken over after one gives its number
    again (to the only coup of that number in anybody's records).  Inside the caller's
    transaction it is part of it."""
    with wallet.db.read() as conn:
        latest = conn.execute(
            select(rounds.c.state)
            .where(rounds.c.table_ref == table_ref, rounds.c.game == GAME.id)
            .order_by(rounds.c.id.desc())
            .limit(1)
        ).scalar_one_or_none()
    if latest is None:
        return 0
    try:
        number = read_coup_state(json.loads(latest)).start.get("coup")
    except (ValueError, StateError):  # (not JSON, or not a coup's state this cardroom reads)
        return 0
    return number if isinstance(number, int) and not isinstance(number, bool) else 0


def _finish_stored(wallet: Wallet, stored: StoredRound) -> RoundRecord | None:
    """Finish one person's coup left in progress (void if its rules cannot be read);
    its record, or None when it was voided or was not a coup of this version."""
    if not is_coup_state(stored.state):
        return None
    try:
        state = read_coup_state(stored.state)
        rules = load_rules_text(GAME.default_rules(), state.rules, "the coup")
    except (StateError, RulesError):
        wallet.rounds.void_round(stored.id, {"void": "its rules can no longer be read"})
        return None
    record, stacks = _finish_coup(rules, state)
    wallet_seat = state.wallet_seat
    if wallet_seat is not None and wallet.seats.seat(wallet_seat).status == "open":
        wallet.seats.finish_coup(stored.id, record.to_json(), wallet_seat, stacks[state.seat])
    else:
        wallet.rounds.void_round(stored.id, {"void": "the seat was already cashed out"})
    return record


def _finish_coup(rules: SeatsRules, state: CoupState) -> tuple[RoundRecord, tuple[Fraction, ...]]:
    start = dict(state.start)
    game: ChemmyGame = SEATS.resume(rules, start)
    cards: list[Card] = []
    source: list[Card] = [c for segment in state.shoe for c in parse_cards(segment)]
    made = list(state.decisions)
    # the same coup the same way on every row: the absent policy's mixed choices are
    # drawn from a generator seeded by the table and the coup
    seed = int.from_bytes(
        hashlib.sha256(f"{state.table}:{start['coup']}".encode()).digest()[:8], "big"
    )
    rng = np.random.default_rng(seed)
    absent = AbsentPolicy(SEATS.solved_bot(rules, None))
    decisions: list[Decided] = []
    pending = iter(made)
    coup = start["coup"]
    while not game.is_over and game.coup == coup:
        if game.next_card_for is not None:
            if not source:
                break
            card = source.pop(0)
            cards.append(card)
            game.deal(card)
            continue
        turn = game.to_act
        assert turn is not None
        decided = next(pending, None)
        if decided is not None and decided.seat == turn.seat:
            try:
                game.act(decided.seat, decided.action, decided.amount)
                decisions.append(decided)
                continue
            except (IllegalAction, WagerError):
                pending = iter(())
        else:
            pending = iter(())
        action, amount = bot_choice(absent, game, turn, rng)
        game.act(turn.seat, action, amount)
        decisions.append(Decided(turn.seat, str(action), amount, "default"))
    progress = _CoupInProgress(coup, start, [], cards=cards, decisions=decisions)
    record = coup_record(rules_to_toml(rules), progress, game)
    record = RoundRecord(**{**record.__dict__, "notes": (INTERRUPTED_NOTE,)})
    return record, game.stacks
