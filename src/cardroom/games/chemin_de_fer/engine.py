"""``chemin-de-fer``'s engine: a pure state machine of the table, coup by coup.

It draws no cards and reads no clock: :meth:`ChemmyGame.to_move` says what it waits for
(a card, or a seat's decision with its legal actions and the bounds of its amount), and it
takes each step through a ``can_x``/``x`` pair of methods or :meth:`ChemmyGame.act`.  A
step it cannot take raises :class:`~cardroom.games.base.IllegalAction` (wrong moment,
wrong seat, not allowed) or :class:`~cardroom.games.base.WagerError` (an amount it cannot
accept) and changes nothing.  See :mod:`cardroom.games.chemin_de_fer` for the rules.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import Any

from cardroom.core.cards import Card
from cardroom.core.events import (
    Announcement,
    BancoCalled,
    BankerChosen,
    BankPassed,
    BankPut,
    ChemmyEvent,
    Commission,
    CoupEvent,
    CoupVoid,
    Decision,
    DrawForBank,
    DrawTie,
    ExcessReturned,
    GameOver,
    HandCard,
    HandShown,
    Outcome,
    PartCovered,
    Passed,
    PlayerChosen,
    Points,
    Reshuffled,
    SeatLeft,
    SeatSettled,
    SeatTaken,
    Staked,
    Why,
)
from cardroom.core.money import AmountError, format_amount, parse_amount, to_unit
from cardroom.games.baccarat import after_card, baccarat_total, showdown
from cardroom.games.base import CardWanted, IllegalAction, Turn, WagerError
from cardroom.games.chemin_de_fer.rules import (
    GAME_ID,
    HANDS,
    ChemmyAction,
    ChemmyRules,
)


class Phase(StrEnum):
    DRAW_FOR_BANK = "draw_for_bank"
    BANK = "bank"
    COVER = "cover"
    DEAL = "deal"
    PLAYER = "player"
    BANKER = "banker"
    OVER = "over"


def _on_total(rule: Why, total: int) -> Why:
    """The player's rule with the total it was applied to."""
    return Why(rule.rule, {**rule.facts, "total": total})


@dataclass(frozen=True)
class TableView:
    """What every seat may know when it decides about money (no hidden card in it)."""

    seat: int
    names: tuple[str, ...]
    stacks: tuple[Fraction, ...]
    banker: int | None
    bank: Fraction | None
    covered: Fraction
    minimum: Fraction
    maximum: Fraction
    low: Fraction | None
    high: Fraction | None
    default_bank: Fraction | None
    can_banco: bool
    can_pass_bank: bool

    @property
    def stack(self) -> Fraction:
        return self.stacks[self.seat]

    @property
    def uncovered(self) -> Fraction:
        return Fraction(0) if self.bank is None else self.bank - self.covered


# -- the engine ------------------------------------------------------------------------------
Amount = Fraction | int | str


class ChemmyGame:
    """A chemin de fer table: seats ``(name, stack)`` in table order, from the draw for the bank.

    ``stacks`` change only when a coup is settled; stakes and the bank are commitments the
    seats' stacks cover.  ``house`` is what the commission has taken.  ``coups_before``
    is how many coups the table numbered before this game (the last one's number): the
    draw for the bank takes that number and the game's first coup the next, so that a
    table that starts a new game numbers its coups on.
    """

    game = GAME_ID

    def __init__(
        self,
        rules: ChemmyRules | None,
        seats: Sequence[tuple[str, Amount]],
        empty: Iterable[int] = (),
        coups_before: int = 0,
    ) -> None:
        self.rules = rules or ChemmyRules()
        if isinstance(coups_before, bool) or not isinstance(coups_before, int) or coups_before < 0:
            raise ValueError(f"coups before the game: a whole number from 0, not {coups_before!r}")
        count = len(seats)
        if not self.rules.min_seats <= count <= self.rules.max_seats:
            raise ValueError(
                f"seats: the table seats {self.rules.min_seats} to {self.rules.max_seats}, "
                f"not {count}"
            )
        names = tuple(str(name).strip() for name, _ in seats)
        if any(not name for name in names):
            raise ValueError("seats: every seat needs a name")
        # an empty seat keeps the name of whoever sat there last (its events were told
        # with it), which may sit again at another seat: only the taken seats must differ
        empty_seats = set(empty)
        taken = [name for seat, name in enumerate(names) if seat not in empty_seats]
        if len(set(taken)) != len(taken):
            raise ValueError("seats: two seats have the same name")
        stacks: list[Fraction] = []
        for name, raw in seats:
            try:
                stack = _amount(raw, f"{name}'s stack", zero=True)
            except WagerError as err:
                raise ValueError(f"seats: {err}") from None
            stacks.append(stack)
        self.names = names
        self._stacks = stacks
        if len(self._playable()) < 2:
            raise ValueError(
                "seats: at least two seats need the table minimum of "
                f"{format_amount(self.rules.table.minimum)}"
            )
        self.house = Fraction(0)
        #: a coup set up again to be replayed: the table waits for nothing after it
        self._only_coup: int | None = None
        #: seats nobody sits at (their stack is 0): they wait for somebody to take them
        self._empty: set[int] = empty_seats
        if any(not 0 <= seat < count or stacks[seat] for seat in self._empty):
            raise ValueError("seats: an empty seat is a seat of the table with no stack")
        self.log: list[CoupEvent] = []
        self.coup = coups_before
        self.phase = Phase.DRAW_FOR_BANK
        self.banker: int | None = None
        self.default_bank: Fraction | None = None
        # the draw for the bank
        self._draw_round = 1
        self._contenders: list[int] = self._playable()
        self._draw: dict[int, Card] = {}
        self._reset_coup()

    def _reset_coup(self) -> None:
        self.bank: Fraction | None = None
        self.stakes: dict[int, Fraction] = {}
        self.player: int | None = None
        self.hands: dict[str, list[Card]] = {name: [] for name in HANDS}
        self.outcome: str | None = None
        self._order: list[int] = []
        self._turn = 0
        self._wanted: CardWanted | None = None

    # -- state ---------------------------------------------------------------------------
    @property
    def stacks(self) -> tuple[Fraction, ...]:
        return tuple(self._stacks)

    @property
    def seat_count(self) -> int:
        return len(self.names)

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def covered(self) -> Fraction:
        """The part of this coup's bank the stakes cover so far."""
        return sum(self.stakes.values(), Fraction(0))

    @property
    def table_money(self) -> Fraction:
        """The stacks plus the house's commission: the same after every step."""
        return sum(self._stacks, Fraction(0)) + self.house

    def total(self, hand: str) -> int:
        return baccarat_total(self.hands[hand])

    @property
    def player_third(self) -> Card | None:
        cards = self.hands["player"]
        return cards[2] if len(cards) > 2 else None

    def holder(self, hand: str) -> int | None:
        """The seat that holds ``hand`` this coup (None before it is known)."""
        return self.player if hand == "player" else self.banker

    def cards_in_play(self) -> list[Card]:
        """The cards on the table now (left out of a reshuffle in mid-coup)."""
        return [*self._draw.values(), *self.hands["player"], *self.hands["banker"]]

    @property
    def at_coup_start(self) -> bool:
        """Is the next card the first of a coup (not of the draw for the bank)?  A
        shoe's rounds are its coups."""
        return self.phase is not Phase.DRAW_FOR_BANK and self.at_deal_start

    @property
    def at_deal_start(self) -> bool:
        """Is the next card the first of a coup (or of the draw for the bank)?"""
        if self.phase is Phase.DRAW_FOR_BANK:
            return self._draw_round == 1 and not self._draw
        return self.phase is Phase.DEAL and not self.hands["player"]

    def coup_events(self, coup: int) -> list[CoupEvent]:
        """Every event of one coup (the full record: hidden cards included)."""
        return [entry for entry in self.log if entry.coup == coup]

    def name(self, seat: int) -> str:
        return self.names[seat]

    def _playable(self) -> list[int]:
        minimum = self.rules.table.minimum
        return [seat for seat, stack in enumerate(self._stacks) if stack >= minimum]

    # -- events --------------------------------------------------------------------------
    @property
    def unit(self) -> Fraction:
        """The table's money unit: the banker's winnings are paid in whole units of it."""
        return self.rules.table.unit

    def _emit(self, event: ChemmyEvent) -> None:
        self.log.append(CoupEvent(self.coup, event))

    def record(self, event: Reshuffled) -> list[CoupEvent]:
        """Note a shuffle of the shoe (the driver shuffles; the game only records it)."""
        self._emit(event)
        return self.log[-1:]

    def visible_events(self, seat: int | None = None, start: int = 0) -> list[CoupEvent]:
        """The record from ``start`` as ``seat`` may see it (None: an onlooker).

        One entry per entry of :attr:`log`: face-down cards of a hand ``seat`` does not
        hold come without rank, suit and total; a face-up card of such a hand comes
        without the total; its draw or stand comes as an :class:`Announcement`.
        """
        # who holds each hand is known from the last bank put up: start reading there
        # rather than at the game's first event (a table's log grows for its whole life)
        begin = max(0, min(start, len(self.log) - 1))
        while begin > 0 and not isinstance(self.log[begin].event, BankPut):
            begin -= 1
        return visible(self.log[begin:], seat)[start - begin :]

    # -- cards ---------------------------------------------------------------------------
    @property
    def next_card_for(self) -> CardWanted | None:
        """Where the next card goes, or None when the game waits for a decision (or is over)."""
        if self.phase is Phase.DRAW_FOR_BANK:
            for seat in self._contenders:
                if seat not in self._draw:
                    return CardWanted("draw", seat, True)
        if self.phase is Phase.DEAL:
            return self._wanted
        return None

    def deal(self, card: Card) -> list[CoupEvent]:
        """Give the next card to :attr:`next_card_for`; returns the events it caused."""
        wanted = self.next_card_for
        if wanted is None:
            raise IllegalAction(f"no card is wanted now: {self._waiting_for()}")
        start = len(self.log)
        seat = wanted.seat
        assert seat is not None  # every card of chemin de fer goes to a seat
        if wanted.hand == "draw":
            self._draw[seat] = card
            self._emit(DrawForBank(seat, card, self._draw_round))
            if len(self._draw) == len(self._contenders):
                self._end_draw()
            return self.log[start:]
        hand = wanted.hand
        self.hands[hand].append(card)
        cards = self.hands[hand]
        total = Points(self.total(hand)) if len(cards) >= 2 else None
        self._emit(HandCard(hand, seat, card, wanted.face_up, total))
        step = after_card(self.hands, hand)
        if step == "drawing":
            self._after_deal()
        elif step == "banker_turn":
            self._banker_turn()
        elif step == "showdown":
            self._showdown()
        else:
            self._want(step, face_up=False)
        return self.log[start:]

    def _want(self, hand: str, face_up: bool) -> None:
        seat = self.player if hand == "player" else self.banker
        assert seat is not None
        self.phase = Phase.DEAL
        self._wanted = CardWanted(hand, seat, face_up)

    def _end_draw(self) -> None:
        rank = self.rules.draw_rank
        best = max(rank(card) for card in self._draw.values())
        top = [seat for seat in self._contenders if rank(self._draw[seat]) == best]
        high = self._draw[top[0]]
        self._draw = {}
        if len(top) > 1:
            self._emit(DrawTie(tuple(top), high))
            self._contenders = top
            self._draw_round += 1
            return
        seat = top[0]
        self._emit(BankerChosen(seat, Why.of("highest_card", card=high)))
        self.banker = seat
        self._next_coup()

    # -- the bank ------------------------------------------------------------------------
    def bank_range(self) -> tuple[Fraction, Fraction]:
        """The smallest and largest bank the banker may put up now."""
        assert self.banker is not None
        table = self.rules.table
        high = min(table.maximum, self._stacks[self.banker])
        if self.rules.keep_whole_bank and self.default_bank is not None:
            return self.default_bank, self.default_bank
        return table.minimum, high

    def _check_put_bank(self, seat: int, amount: Amount) -> Fraction:
        self._expect(Phase.BANK, seat, "put up a bank")
        value = _amount(amount, "the bank")
        low, high = self.bank_range()
        table = self.rules.table
        if self.rules.keep_whole_bank and self.default_bank is not None and value != low:
            raise WagerError(
                f"the bank must stay whole at {format_amount(low)} after a win "
                "(or the banker passes it)"
            )
        if value < table.minimum:
            raise WagerError(
                f"a bank of {format_amount(value)} is below the table minimum of "
                f"{format_amount(table.minimum)}"
            )
        if value > self._stacks[seat]:
            raise WagerError(
                f"{self.names[seat]} cannot put up {format_amount(value)}: "
                f"the stack is {format_amount(self._stacks[seat])}"
            )
        if value > high:
            raise WagerError(
                f"a bank of {format_amount(value)} is above the table maximum of "
                f"{format_amount(table.maximum)}"
            )
        return value

    def can_put_bank(self, seat: int, amount: Amount) -> bool:
        return _allowed(lambda: self._check_put_bank(seat, amount))

    def put_bank(self, seat: int, amount: Amount) -> list[CoupEvent]:
        """The banker puts up a bank; covering starts with the seat after it."""
        value = self._check_put_bank(seat, amount)
        start = len(self.log)
        self.bank = value
        self._emit(BankPut(seat, value))
        count = self.seat_count
        self._order = [
            (seat + step) % count
            for step in range(1, count)
            if (seat + step) % count not in self._empty
        ]
        self._turn = 0
        self.phase = Phase.COVER
        self._advance_cover()
        return self.log[start:]

    def _check_pass_bank(self, seat: int) -> None:
        self._expect(Phase.BANK, seat, "pass the bank")
        if not self.rules.banker_may_pass:
            raise IllegalAction("the rules do not let the banker pass the bank")

    def can_pass_bank(self, seat: int) -> bool:
        return _allowed(lambda: self._check_pass_bank(seat))

    def pass_bank(self, seat: int) -> list[CoupEvent]:
        """The banker gives up the bank: it goes to the next seat that can play."""
        self._check_pass_bank(seat)
        start = len(self.log)
        self._emit(BankPassed(seat))
        successor = self._next_seat(seat)
        self._emit(BankerChosen(successor, Why.of("bank_passed_on", cause="given_up")))
        self.banker = successor
        self.default_bank = None
        return self.log[start:]

    def _next_seat(self, after: int) -> int:
        minimum = self.rules.table.minimum
        count = self.seat_count
        for step in range(1, count):
            seat = (after + step) % count
            if self._stacks[seat] >= minimum:
                return seat
        raise AssertionError("no other seat can hold the bank")  # pragma: no cover

    # -- covering the bank ---------------------------------------------------------------
    @property
    def _coverer(self) -> int | None:
        if self.phase is Phase.COVER and self._turn < len(self._order):
            return self._order[self._turn]
        return None

    def _check_banco(self, seat: int) -> Fraction:
        self._expect(Phase.COVER, seat, 'call "Banco"')
        assert self.bank is not None
        if self.stakes:
            raise IllegalAction('"Banco" is too late: somebody has already staked this coup')
        if self._stacks[seat] < self.bank:
            raise WagerError(
                f'{self.names[seat]} cannot call "Banco": the stack of '
                f"{format_amount(self._stacks[seat])} does not cover the bank of "
                f"{format_amount(self.bank)}"
            )
        return self.bank

    def can_banco(self, seat: int) -> bool:
        return _allowed(lambda: self._check_banco(seat))

    def banco(self, seat: int) -> list[CoupEvent]:
        """``seat`` covers the whole bank alone; nobody else stakes this coup."""
        bank = self._check_banco(seat)
        start = len(self.log)
        self.stakes = {seat: bank}
        self._emit(BancoCalled(seat, bank))
        self._close_cover()
        return self.log[start:]

    def _check_stake(self, seat: int, amount: Amount) -> Fraction:
        self._expect(Phase.COVER, seat, "stake")
        value = _amount(amount, "the stake")
        minimum = self.rules.table.minimum
        if value < minimum:
            raise WagerError(
                f"a stake of {format_amount(value)} is below the table minimum of "
                f"{format_amount(minimum)}"
            )
        if value > self._stacks[seat]:
            raise WagerError(
                f"{self.names[seat]} cannot cover a stake of {format_amount(value)}: "
                f"the stack is {format_amount(self._stacks[seat])}"
            )
        return value

    def can_stake(self, seat: int, amount: Amount) -> bool:
        return _allowed(lambda: self._check_stake(seat, amount))

    def stake(self, seat: int, amount: Amount) -> list[CoupEvent]:
        """``seat`` stakes against the bank; what the bank does not need comes back."""
        value = self._check_stake(seat, amount)
        assert self.bank is not None
        start = len(self.log)
        needed = self.bank - self.covered
        self._emit(Staked(seat, value))
        if value > needed:
            self._emit(ExcessReturned(seat, value - needed))
        self.stakes[seat] = min(value, needed)
        self._turn += 1
        self._advance_cover()
        return self.log[start:]

    def _check_pass(self, seat: int) -> None:
        self._expect(Phase.COVER, seat, "pass")

    def can_pass(self, seat: int) -> bool:
        return _allowed(lambda: self._check_pass(seat))

    def pass_(self, seat: int) -> list[CoupEvent]:
        """``seat`` does not stake this coup."""
        self._check_pass(seat)
        start = len(self.log)
        self._emit(Passed(seat, False, Why("passes")))
        self._turn += 1
        self._advance_cover()
        return self.log[start:]

    def _advance_cover(self) -> None:
        assert self.bank is not None
        minimum = self.rules.table.minimum
        while self.covered < self.bank and self._turn < len(self._order):
            seat = self._order[self._turn]
            if self._stacks[seat] >= minimum:
                return
            self._emit(Passed(seat, True, Why("stack_below_minimum")))
            self._turn += 1
        self._close_cover()

    def _close_cover(self) -> None:
        assert self.bank is not None and self.banker is not None
        self._turn = len(self._order)
        covered = self.covered
        if covered == 0:
            self._emit(CoupVoid(Why("nobody_staked")))
            self._keep_bank(self.bank, "no_coup")
            return
        if covered < self.bank:
            self._emit(PartCovered(covered, self.bank))
        largest = max(self.stakes.values())
        seat = next(s for s in self._order if self.stakes.get(s) == largest)
        why = Why("only_punter" if len(self.stakes) == 1 else "largest_stake")
        self.player = seat
        self._emit(PlayerChosen(seat, largest, why))
        self._want("player", face_up=False)

    # -- the hand ------------------------------------------------------------------------
    def _after_deal(self) -> None:
        self._wanted = None
        if self.rules.is_natural(self.total("player")) or self.rules.is_natural(
            self.total("banker")
        ):
            self._showdown(natural=True)
            return
        player = self.total("player")
        action, rule = self.rules.player_rule(player)
        if action is None:
            self.phase = Phase.PLAYER
            return
        self._emit(Decision("player", action.value, True, _on_total(rule, player)))
        self._player_acts(action)

    def _player_acts(self, action: ChemmyAction) -> None:
        if action is ChemmyAction.DRAW:
            self._want("player", face_up=True)
        else:
            self._banker_turn()

    def _banker_turn(self) -> None:
        self._wanted = None
        if not self.rules.banker_forced_by_tableau:
            self.phase = Phase.BANKER
            return
        tableau = self.rules.tableau
        banker, third = self.total("banker"), self.player_third
        draws = tableau.banker_draws(banker, third)
        action = ChemmyAction.DRAW if draws else ChemmyAction.STAND
        self._emit(
            Decision("banker", action.value, True, tableau.banker_reason(banker, third, draws))
        )
        self._banker_acts(action)

    def _banker_acts(self, action: ChemmyAction) -> None:
        if action is ChemmyAction.DRAW:
            self._want("banker", face_up=True)
        else:
            self._showdown()

    def _check_hand_decision(self, seat: int, action: ChemmyAction) -> Phase:
        verb = action.value
        if self.phase is Phase.PLAYER and seat == self.player:
            return Phase.PLAYER
        if self.phase is Phase.BANKER and seat == self.banker:
            return Phase.BANKER
        self._check_seat(seat)
        raise IllegalAction(f"{self.names[seat]} cannot {verb} now: {self._waiting_for()}")

    def can_draw(self, seat: int) -> bool:
        return _allowed(lambda: self._check_hand_decision(seat, ChemmyAction.DRAW))

    def draw(self, seat: int) -> list[CoupEvent]:
        """The player (at a free total) or the banker asks for a third card."""
        return self._hand_decision(seat, ChemmyAction.DRAW)

    def can_stand(self, seat: int) -> bool:
        return _allowed(lambda: self._check_hand_decision(seat, ChemmyAction.STAND))

    def stand(self, seat: int) -> list[CoupEvent]:
        """The player (at a free total) or the banker stays on two cards."""
        return self._hand_decision(seat, ChemmyAction.STAND)

    def _hand_decision(self, seat: int, action: ChemmyAction) -> list[CoupEvent]:
        phase = self._check_hand_decision(seat, action)
        start = len(self.log)
        if phase is Phase.PLAYER:
            player = self.total("player")
            _, rule = self.rules.player_rule(player)
            self._emit(Decision("player", action.value, False, _on_total(rule, player)))
            self._player_acts(action)
        else:
            banker, third = self.total("banker"), self.player_third
            why = Why.of("banker_choice", banker=banker, third=third)
            self._emit(Decision("banker", action.value, False, why))
            self._banker_acts(action)
        return self.log[start:]

    # -- showdown and settlement ---------------------------------------------------------
    def _showdown(self, natural: bool = False) -> None:
        assert self.player is not None and self.banker is not None and self.bank is not None
        self._wanted = None
        player, banker = self.total("player"), self.total("banker")
        self._emit(HandShown("player", self.player, tuple(self.hands["player"]), player))
        self._emit(HandShown("banker", self.banker, tuple(self.hands["banker"]), banker))
        winner, why = showdown(player, banker, natural)
        if winner == "tie":
            why = Why.of("tie_returns_stakes", total=player, natural=natural)
        self.outcome = winner
        self._emit(Outcome(winner, why))
        self._settle(winner)

    def _settle(self, winner: str) -> None:
        assert self.banker is not None and self.bank is not None
        banker, covered = self.banker, self.covered
        if winner == "player":
            for seat in self._order:
                if seat in self.stakes:
                    stake = self.stakes[seat]
                    self._stacks[seat] += stake
                    self._emit(SeatSettled(seat, stake, stake, Why("bank_pays_even")))
            self._stacks[banker] -= covered
            self._emit(SeatSettled(banker, covered, -covered, Why("bank_pays_every_stake")))
            self._pass_bank_on(banker)
            return
        if winner == "tie":
            for seat in self._order:
                if seat in self.stakes:
                    zero = Fraction(0)
                    self._emit(SeatSettled(seat, self.stakes[seat], zero, Why("tie_returned")))
            self._emit(SeatSettled(banker, covered, Fraction(0), Why("tie_all_returned")))
            if self.rules.tie_keeps_bank:
                self._keep_bank(self.bank, "tie")
            else:
                self._pass_bank_on(banker, "not_won")
            return
        for seat in self._order:
            if seat in self.stakes:
                stake = self.stakes[seat]
                self._stacks[seat] -= stake
                self._emit(SeatSettled(seat, stake, -stake, Why("banker_wins_stake")))
        rate = self.rules.commission
        exact = covered - covered * rate
        won = to_unit(exact, self.unit)  # the house's commission, rounded up to the unit
        fee = covered - won
        self._stacks[banker] += won
        self.house += fee
        why = Why.of("banker_collects", commission=fee if fee else None)
        self._emit(SeatSettled(banker, covered, won, why, exact - won))
        if fee:
            self._emit(Commission(banker, fee, rate))
        cap = min(self.rules.table.maximum, self._stacks[banker])
        self._keep_bank(min(self.bank + won, cap), "won")

    def _game_over(self) -> bool:
        if len(self._playable()) >= 2:
            return False
        self._emit(GameOver(Why.of("fewer_than_two", minimum=self.rules.table.minimum)))
        self.phase = Phase.OVER
        self.banker = None
        self.default_bank = None
        self._reset_coup()
        return True

    def _keep_bank(self, default: Fraction, cause: str) -> None:
        """The banker keeps the bank (``cause``: ``won``, ``tie``, ``no_coup``)."""
        assert self.banker is not None
        if self._game_over():
            return
        self._emit(BankerChosen(self.banker, Why.of("bank_kept", cause=cause)))
        self.default_bank = default
        self._next_coup()

    def _pass_bank_on(self, banker: int, cause: str = "lost") -> None:
        """The bank goes to the next seat (``cause``: ``lost``, ``not_won``)."""
        if self._game_over():
            return
        successor = self._next_seat(banker)
        self._emit(BankerChosen(successor, Why.of("bank_passed_on", cause=cause)))
        self.banker = successor
        self.default_bank = None
        self._next_coup()

    def _next_coup(self) -> None:
        self.coup += 1
        self._reset_coup()
        self.phase = Phase.BANK

    # -- the turn protocol ----------------------------------------------------------------
    def to_move(self) -> CardWanted | Turn | None:
        """What the table waits for: a card, a seat's decision, or nothing (the game is
        over; for a coup set up again by :meth:`resume`, that coup is over)."""
        if self.is_over or (self._only_coup is not None and self.coup > self._only_coup):
            return None
        return self.next_card_for or self.to_act

    @property
    def between_coups(self) -> bool:
        """Is the table between coups (the banker has not put up this coup's bank yet)?"""
        return self.phase is Phase.BANK

    def coup_start(self) -> dict[str, Any]:
        """What a coup starts from (between coups): enough to set it up again."""
        if not self.between_coups:
            raise IllegalAction(f"a coup is under way: {self._waiting_for()}")
        return {
            "coup": self.coup,
            "names": list(self.names),
            "stacks": list(self._stacks),
            "empty": sorted(self._empty),
            "banker": self.banker,
            "default_bank": self.default_bank,
        }

    @classmethod
    def resume(cls, rules: ChemmyRules | None, start: Mapping[str, Any]) -> ChemmyGame:
        """A table set up again at the start of a coup (:meth:`coup_start`), to replay it."""
        names = [str(n) for n in start["names"]]
        stacks = [Fraction(s) for s in start["stacks"]]
        empty = [int(seat) for seat in start.get("empty", [])]
        game = cls(rules, list(zip(names, stacks, strict=True)), empty=empty)
        banker = start["banker"]
        if not isinstance(banker, int) or not 0 <= banker < game.seat_count:
            raise ValueError(f"the coup's banker is not a seat: {banker!r}")
        game.coup = int(start["coup"])
        game._only_coup = game.coup
        game.phase = Phase.BANK
        game.banker = banker
        default = start.get("default_bank")
        game.default_bank = None if default is None else Fraction(default)
        game._contenders = []
        return game

    def replay_result(
        self,
    ) -> tuple[list[ChemmyEvent], str | None, dict[tuple[int, str], Fraction]]:
        """The first coup's events (as resumed), its outcome, and each seat's net result
        (its wager: ``bank`` for the banker, ``stake`` for a punter)."""
        first = self.log[0].coup if self.log else self.coup
        events = [entry.event for entry in self.log if entry.coup == first]
        outcome = next((e.outcome for e in events if isinstance(e, Outcome)), None)
        banker = next((e.seat for e in events if isinstance(e, BankPut)), None)
        nets = {
            (e.seat, "bank" if e.seat == banker else "stake"): e.net
            for e in events
            if isinstance(e, SeatSettled)
        }
        return events, outcome, nets

    # -- seats between coups ---------------------------------------------------------------
    def can_leave(self, seat: int) -> bool:
        return _allowed(lambda: self._check_leave(seat))

    def _check_leave(self, seat: int) -> None:
        self._check_seat(seat)
        if not self.between_coups and not self.is_over:
            raise IllegalAction(f"{self.names[seat]} cannot stand up now: a coup is under way")
        if self._stacks[seat] == 0 and seat in self._empty:
            raise IllegalAction(f"seat {seat + 1} is empty")

    def leave(self, seat: int) -> list[CoupEvent]:
        """Between coups, ``seat`` stands up with its stack (the caller pays it out); a
        banker who leaves passes the bank on."""
        self._check_leave(seat)
        start = len(self.log)
        stack = self._stacks[seat]
        self._stacks[seat] = Fraction(0)
        self._empty.add(seat)
        self._emit(SeatLeft(seat, stack))
        if not self.is_over and seat == self.banker:
            if not self._game_over():
                successor = self._next_seat(seat)
                self._emit(BankerChosen(successor, Why.of("bank_passed_on", cause="left")))
                self.banker = successor
                self.default_bank = None
        elif not self.is_over:
            self._game_over()
        return self.log[start:]

    def can_take_seat(self, seat: int, name: str, stack: Amount) -> bool:
        return _allowed(lambda: self._check_take_seat(seat, name, stack))

    def _check_take_seat(self, seat: int, name: str, stack: Amount) -> Fraction:
        self._check_seat(seat)
        if not self.between_coups:
            raise IllegalAction("a seat can be taken only between coups")
        if seat not in self._empty:
            raise IllegalAction(f"seat {seat + 1} is taken")
        clean = str(name).strip()
        if not clean:
            raise IllegalAction("a seat needs a name")
        if clean in (n for i, n in enumerate(self.names) if i not in self._empty):
            raise IllegalAction(f"{clean} is already at the table")
        return _amount(stack, f"{clean}'s stack")

    def take_seat(self, seat: int, name: str, stack: Amount) -> list[CoupEvent]:
        """Between coups, ``name`` sits down at the empty ``seat`` with ``stack``."""
        value = self._check_take_seat(seat, name, stack)
        start = len(self.log)
        names = list(self.names)
        names[seat] = str(name).strip()
        self.names = tuple(names)
        self._stacks[seat] = value
        self._empty.discard(seat)
        self._emit(SeatTaken(seat, self.names[seat], value))
        return self.log[start:]

    def rename(self, seat: int, name: str) -> None:
        """Between coups (or once the game is over), the taken ``seat`` goes by ``name``
        from now on.  No event: the next coup starts with the new name
        (:meth:`coup_start`), and a seat is known by its number in the log."""
        self._check_seat(seat)
        if not self.between_coups and not self.is_over:
            raise IllegalAction("a seat's name can change only between coups")
        if seat in self._empty:
            raise IllegalAction(f"seat {seat + 1} is empty")
        clean = str(name).strip()
        if not clean:
            raise IllegalAction("a seat needs a name")
        if clean in (n for i, n in enumerate(self.names) if i != seat and i not in self._empty):
            raise IllegalAction(f"{clean} is already at the table")
        names = list(self.names)
        names[seat] = clean
        self.names = tuple(names)

    @property
    def empty_seats(self) -> tuple[int, ...]:
        return tuple(sorted(self._empty))

    # -- decisions: who, what, why -------------------------------------------------------
    @property
    def to_act(self) -> Turn | None:
        """The seat the game waits for and what it may do (None: a card, or the game is over)."""
        phase = self.phase
        if phase is Phase.BANK:
            assert self.banker is not None
            low, high = self.bank_range()
            actions = {ChemmyAction.PUT_BANK}
            if self.rules.banker_may_pass:
                actions.add(ChemmyAction.PASS_BANK)
            why = Why.of("put_up_bank", may_pass=self.rules.banker_may_pass)
            return Turn(self.banker, frozenset(actions), why, low, high)
        if phase is Phase.COVER:
            seat = self._coverer
            assert seat is not None and self.bank is not None
            actions = {ChemmyAction.STAKE, ChemmyAction.PASS}
            if self.can_banco(seat):
                actions.add(ChemmyAction.BANCO)
            why = Why.of("may_cover", needed=self.bank - self.covered)
            return Turn(seat, frozenset(actions), why, self.rules.table.minimum, self._stacks[seat])
        if phase is Phase.PLAYER:
            assert self.player is not None
            _, rule = self.rules.player_rule(self.total("player"))
            return Turn(self.player, frozenset({ChemmyAction.DRAW, ChemmyAction.STAND}), rule)
        if phase is Phase.BANKER:
            assert self.banker is not None
            why = Why.of("banker_free", banker=self.total("banker"), third=self.player_third)
            return Turn(self.banker, frozenset({ChemmyAction.DRAW, ChemmyAction.STAND}), why)
        return None

    def legal_actions(self, seat: int) -> frozenset[str]:
        """What ``seat`` may do now (empty when the game does not wait for it)."""
        turn = self.to_act
        return turn.actions if turn is not None and turn.seat == seat else frozenset()

    def act(
        self, seat: int, action: ChemmyAction | str, amount: Amount | None = None
    ) -> list[CoupEvent]:
        """Any decision by name; ``amount`` for ``put_bank`` and ``stake``."""
        try:
            chosen = ChemmyAction(action)
        except ValueError:
            known = ", ".join(a.value for a in ChemmyAction)
            raise IllegalAction(f"there is no action {action!r} (there are: {known})") from None
        if chosen is ChemmyAction.PUT_BANK or chosen is ChemmyAction.STAKE:
            if amount is None:
                raise WagerError(f"{chosen.value} needs an amount")
            if chosen is ChemmyAction.PUT_BANK:
                return self.put_bank(seat, amount)
            return self.stake(seat, amount)
        handlers: dict[ChemmyAction, Callable[[], list[CoupEvent]]] = {
            ChemmyAction.PASS_BANK: lambda: self.pass_bank(seat),
            ChemmyAction.BANCO: lambda: self.banco(seat),
            ChemmyAction.PASS: lambda: self.pass_(seat),
            ChemmyAction.DRAW: lambda: self.draw(seat),
            ChemmyAction.STAND: lambda: self.stand(seat),
        }
        return handlers[chosen]()

    def table_view(self, seat: int) -> TableView:
        """The public state of the table, for ``seat`` to decide on money."""
        self._check_seat(seat)
        turn = self.to_act
        mine = turn is not None and turn.seat == seat
        return TableView(
            seat=seat,
            names=self.names,
            stacks=self.stacks,
            banker=self.banker,
            bank=self.bank,
            covered=self.covered,
            minimum=self.rules.table.minimum,
            maximum=self.rules.table.maximum,
            low=turn.low if mine and turn is not None else None,
            high=turn.high if mine and turn is not None else None,
            default_bank=self.default_bank,
            # (each check needs its phase: asking only then spares building a refusal)
            can_banco=self.phase is Phase.COVER and self.can_banco(seat),
            can_pass_bank=self.phase is Phase.BANK and self.can_pass_bank(seat),
        )

    def _check_seat(self, seat: int) -> None:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.seat_count:
            raise IllegalAction(f"there is no seat {seat!r} (seats are 0 to {self.seat_count - 1})")

    def _expect(self, phase: Phase, seat: int, what: str) -> None:
        self._check_seat(seat)
        expected = {
            Phase.BANK: self.banker,
            Phase.COVER: self._coverer,
        }.get(phase)
        if self.phase is not phase or seat != expected:
            raise IllegalAction(f"{self.names[seat]} cannot {what} now: {self._waiting_for()}")

    def _within(self, seat: int) -> str:
        """A seat's name inside a sentence: the terminal's own person ("You") is "you"."""
        name = self.names[seat]
        return "you" if name == "You" else name

    def _waiting_for(self) -> str:
        """What the game waits for, in words (for refusals)."""
        if self.phase is Phase.OVER:
            return "the game is over"
        wanted = self.next_card_for
        if wanted is not None:
            if wanted.hand == "draw" and wanted.seat is not None:
                who = self._within(wanted.seat)
                return f"the table waits for the card {who} draws for the bank"
            return f"the table waits for a card for the {wanted.hand}'s hand"
        turn = self.to_act
        assert turn is not None
        who = self._within(turn.seat)
        if self.phase is Phase.BANK:
            return f"the table waits for {who} to put up a bank"
        if self.phase is Phase.COVER:
            return f"the table waits for {who} to cover the bank"
        role = "player" if self.phase is Phase.PLAYER else "banker"
        return f"the table waits for {who} to draw or stand as the {role}"


def visible(log: Sequence[CoupEvent], seat: int | None) -> list[CoupEvent]:
    """The entries of a table's (or a coup record's) ``log`` as ``seat`` may see them (see
    :meth:`ChemmyGame.visible_events`); None: an onlooker."""
    holders: dict[str, int | None] = {"player": None, "banker": None}
    shown: list[CoupEvent] = []
    for entry in log:
        event = entry.event
        if isinstance(event, BankPut):
            holders = {"player": None, "banker": event.seat}
        elif isinstance(event, PlayerChosen):
            holders["player"] = event.seat
        elif isinstance(event, HandCard) and event.seat != seat:
            if event.face_up:
                event = HandCard(event.hand, event.seat, event.card, True, None)
            else:
                event = HandCard(event.hand, event.seat, None, False, None)
            entry = CoupEvent(entry.coup, event)
        elif isinstance(event, Decision) and event.hand in holders:
            owner = holders[event.hand]
            if owner != seat and owner is not None:
                entry = CoupEvent(entry.coup, Announcement(event.hand, owner, event.action))
        shown.append(entry)
    return shown


def _amount(raw: object, what: str, zero: bool = False) -> Fraction:
    """An exact amount from an int, a Fraction or a string; anything else is a WagerError.

    Only positive amounts pass, and 0 too with ``zero``.
    """
    if isinstance(raw, bool) or not isinstance(raw, int | Fraction | str):
        raise WagerError(
            f"{what}: {raw!r} is not an amount (write a whole number, 12.50 or a fraction)"
        )
    try:
        value = parse_amount(raw)
    except AmountError as err:
        raise WagerError(f"{what}: {err}") from None
    if value < 0 or (value == 0 and not zero):
        raise WagerError(f"{what} must be positive, not {format_amount(value)}")
    return value


def _allowed(check: Callable[[], object]) -> bool:
    try:
        check()
    except (IllegalAction, WagerError):
        return False
    return True
