"""A house game's table: one person's bets, rounds dealt card by card, the money.

:class:`HouseTable` is the whole of what happens between a person and the engine of a
house game (finnish27, 21-24-27, punto-banco, baccarat27), with no input or output of
its own: the terminal and the web ask the person and show the events; the table takes
the bets, deals from the shoe it is given, asks the engine what is legal, moves the
money through the wallet and writes the record.

The life of a round
    1. :meth:`HouseTable.place_bets` checks the bets with the engine (wager ids, table
       limits, whole units), reshuffles if the shoe is due, and opens the round in the
       wallet, which takes the stakes in the same transaction that checks the balance.
       The round is saved *in progress* with everything needed to finish it: the rules,
       the stakes, the shoe's cards from this round on, and (later) each decision.
    2. :meth:`HouseTable.advance` deals until the engine asks the person something or
       the round is over; :meth:`HouseTable.act` takes a decision (saved before it is
       applied).  A round that is over is settled: each wager pays back its stake and
       winnings, rounded down to the table's unit, and the history record is stored
       with it, in one transaction that also audits the account.
    3. If the process stops in the middle of a round, :func:`finish_interrupted` (run
       by the next start) deals the same cards again, makes the same decisions, plays
       the rules' forced or default play for the rest, and settles it: the stakes are
       never lost and never returned for free.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any

from cardroom.app.history import Decided, RoundRecord, WagerResult
from cardroom.app.tables.state import (
    HouseDecision,
    HouseState,
    StateError,
    is_house_state,
    read_house_state,
)
from cardroom.app.wallet import InsufficientFunds, StoredRound, Wallet
from cardroom.core.cards import Card, parse_cards
from cardroom.core.events import Event, Reshuffled
from cardroom.core.money import format_amount
from cardroom.core.rules import RulesError, load_rules_text, rules_to_toml
from cardroom.core.shoe import (
    CardSource,
    ShoeExhausted,
    StackedShoe,
    draw_or_reshuffle,
    reshuffle_if_due,
)
from cardroom.games import GameInfo, get_game
from cardroom.games.base import (
    PLAYER_SEAT,
    Action,
    CardWanted,
    GameRules,
    IllegalAction,
    Round,
    Turn,
    WagerError,
)

__all__ = [
    "ExistingRound",
    "HouseRound",
    "HouseTable",
    "KeyReused",
    "OverBalance",
    "RoundUnfinished",
    "default_action",
    "finish_interrupted",
    "restore_round",
]

#: The version of the state an in-progress round is saved with.


def default_action(turn: Turn) -> str:
    """The play made for a person who has gone: stand where the rules allow it."""
    if Action.STAND in turn.actions:
        return Action.STAND.value
    return sorted(turn.actions)[0]


@dataclass
class HouseRound:
    """A round at the table: the wallet's round id, the engine's round, and what the
    record needs (the cards dealt and the decisions made)."""

    id: int
    engine: Round
    cards: list[Card] = field(default_factory=list)
    decisions: list[Decided] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: the cards of the shoe from this round's first card on (for finishing it after a stop)
    shoe: list[list[str]] = field(default_factory=list)
    balance: Fraction | None = None
    record: RoundRecord | None = None
    #: the reshuffle the round was opened with, if the shoe was shuffled for it
    reshuffled: Reshuffled | None = None
    #: the record as JSON, as it was stored (once the round is over)
    record_json: dict[str, Any] | None = None

    @property
    def is_over(self) -> bool:
        return self.record is not None

    @property
    def events(self) -> list[Event]:
        return self.engine.events

    def to_move(self) -> CardWanted | Turn | None:
        return self.engine.to_move()


class HouseTable:
    """One person at one house game's table.

    ``source`` is the shoe (a live one shuffled by an injected shuffler, or a stacked
    one); ``name`` is how the person is named in records.  Nothing here reads a clock or
    a random generator.
    """

    def __init__(
        self,
        game: GameInfo,
        rules: GameRules,
        source: CardSource,
        wallet: Wallet,
        account_id: int,
        *,
        name: str = "You",
        table_ref: str | None = None,
    ) -> None:
        self.game = game
        self.rules = rules
        self.rules_toml = _rules_toml(rules)
        self.source = source
        self.wallet = wallet
        self.account_id = account_id
        self.name = name
        self.table_ref = table_ref or game.id
        self.rounds_played = 0
        #: this shoe's outcomes, for the bead plate (player, banker, tie...)
        self.beads: list[str] = []
        self.bead_shoe: int | None = None

    # -- what a person may know before betting -------------------------------------------------
    @property
    def wager_ids(self) -> tuple[str, ...]:
        return self.game.wagers(self.rules)

    @property
    def balance(self) -> Fraction:
        return self.wallet.accounts.balance(self.account_id)

    @property
    def reshuffle_due(self) -> bool:
        """Has the cut card come out: does the next round start from a new shoe?"""
        return self.source.shuffles > 0 and self.source.needs_reshuffle

    @property
    def reshuffle_cause(self) -> str | None:
        """Why the next round starts from a new shoe (a :class:`Reshuffled` cause:
        ``cut_card``, ``reshuffle_point``, ``round_limit``), or None if it does not."""
        return self.source.next_cause if self.reshuffle_due else None

    @property
    def exhausted(self) -> bool:
        """A stacked shoe with no cards left: no round can be dealt."""
        return isinstance(self.source, StackedShoe) and self.source.remaining == 0

    # -- a round ------------------------------------------------------------------------
    def _shuffle_if_due(self) -> Reshuffled | None:
        """The reshuffle a new round starts with, if its shoe's point has come (the
        round is counted against the shoe's round limit either way)."""
        shuffled: list[Reshuffled] = []
        reshuffle_if_due(self.source, shuffled.append)
        return shuffled[0] if shuffled else None

    def place_bets(
        self, bets: Mapping[str, Fraction | int | str], idempotency_key: str | None = None
    ) -> HouseRound:
        """Check the bets, take the stakes and open a round (no card dealt yet).

        A bet the engine refuses raises :class:`WagerError` and changes nothing; so do
        stakes above the balance (:class:`OverBalance`) and a bet while the person's last
        round of this game is unfinished (:class:`RoundUnfinished`).  An
        ``idempotency_key`` used before raises :class:`ExistingRound` with the round it
        opened (no money is taken again), or :class:`KeyReused` if that round's bets
        were other ones.
        """
        engine = self.game.new_round(self.rules, bets)
        stakes = dict(engine.wagers)
        if not stakes:
            raise WagerError("place at least one bet")
        unfinished = self.wallet.rounds.unfinished_rounds(self.account_id, self.game.id)
        if unfinished:
            same_key = [r for r in unfinished if r.idempotency_key == idempotency_key]
            if idempotency_key is not None and same_key:
                raise _existing(same_key[0], stakes)
            raise RoundUnfinished(
                f"your last {self.game.id} round (#{unfinished[0].id}) is not finished yet"
            )
        total = sum(stakes.values(), Fraction(0))
        balance = self.wallet.accounts.balance(self.account_id)
        if total > balance:
            raise OverBalance(_over_balance(total, balance))
        shuffled = self._shuffle_if_due()
        live = HouseRound(0, engine, reshuffled=shuffled)
        live.shoe = [[card.code for card in self._upcoming()]]
        state = self._state(live, stakes)
        try:
            opened = self.wallet.rounds.open_round(
                self.account_id, self.game.id, stakes, state, self.table_ref, idempotency_key
            )
        except InsufficientFunds:
            raise OverBalance(
                _over_balance(total, self.wallet.accounts.balance(self.account_id))
            ) from None
        if opened.existing:
            raise _existing(opened.round, stakes)
        live.id = opened.id
        live.balance = opened.balance
        if shuffled is not None:
            engine.events.append(shuffled)
        return live

    def deal_round(
        self,
        bets: Mapping[str, Fraction | int | str],
        idempotency_key: str | None = None,
        *,
        checked: bool = False,
        engine: Round | None = None,
    ) -> HouseRound:
        """A whole round in one go, for a caller that holds one transaction around it
        (the web, inside ``db.run``) and has checked what :meth:`place_bets` checks
        (no unfinished round, the idempotency key; ``checked``: the caller holds its
        table's lock and lets the wallet check the balance as it takes the stakes, see
        :meth:`Rounds.open_round`): the bets are checked
        with the engine, the shoe is reshuffled if it is due, the cards are dealt until
        the person must decide or the round is over, and only then is the round written:
        finished with its stakes and payouts at once (:meth:`Rounds.record_round`), or
        opened in progress with its state (:meth:`Rounds.open_round`).  Inside one
        transaction this is all or nothing, as dealing after :meth:`place_bets` is.
        ``engine``: the engine's new round of these bets at this table's rules, when the
        caller made one already to check them (nothing dealt to it yet)."""
        if engine is None:
            engine = self.game.new_round(self.rules, bets)
        stakes = dict(engine.wagers)
        if not stakes:
            raise WagerError("place at least one bet")
        shuffled = self._shuffle_if_due()
        live = HouseRound(0, engine, reshuffled=shuffled)
        upcoming = self._upcoming()  # written out only if the round is saved in progress
        if shuffled is not None:
            engine.events.append(shuffled)
        while isinstance(engine.to_move(), CardWanted):
            self._deal(live)
        total = sum(stakes.values(), Fraction(0))
        try:
            if engine.to_move() is None:
                record = record_of(self.game, self.rules_toml, self.name, live)
                live.record_json = record.to_json()
                opened = self.wallet.rounds.record_round(
                    self.account_id,
                    self.game.id,
                    stakes,
                    self._payouts(live),
                    live.record_json,
                    self.table_ref,
                    idempotency_key,
                    checked=checked,
                )
                live.record = record
                self._finished(live)
            else:
                live.shoe = [[card.code for card in upcoming], *live.shoe]
                opened = self.wallet.rounds.open_round(
                    self.account_id,
                    self.game.id,
                    stakes,
                    self._state(live, stakes),
                    self.table_ref,
                    idempotency_key,
                    checked=checked,
                )
        except InsufficientFunds:
            raise OverBalance(
                _over_balance(total, self.wallet.accounts.balance(self.account_id))
            ) from None
        if opened.existing:
            raise _existing(opened.round, stakes)
        live.id = opened.id
        live.balance = opened.balance
        return live

    def advance(self, live: HouseRound) -> list[Event]:
        """Deal until the engine asks the person something or the round is over (then
        it is settled); the new events."""
        start = len(live.engine.events)
        while isinstance(live.engine.to_move(), CardWanted):
            self._deal(live)
        self._settle_if_over(live)
        return live.engine.events[start:]

    def step(self, live: HouseRound) -> list[Event]:
        """One step of the round: one card dealt (with a reshuffle if the shoe runs out),
        or the settlement once the round is over; nothing while a decision is asked.  A
        screen that shows the cards one by one deals them this way, so the round stays
        in progress in the database until its last card."""
        start = len(live.engine.events)
        if isinstance(live.engine.to_move(), CardWanted):
            self._deal(live)
        self._settle_if_over(live)
        return live.engine.events[start:]

    def act(
        self, live: HouseRound, action: str, *, by: str = "person", advance: bool = True
    ) -> list[Event]:
        """The person's decision (``by``: ``default`` when it was made for them); saved
        before it is applied, then the round goes on as far as it can (with ``advance``;
        otherwise the caller deals on with :meth:`step`)."""
        step = live.engine.to_move()
        if not isinstance(step, Turn):
            raise IllegalAction(
                "the round is over: nothing is asked"
                if step is None
                else "no decision is asked now: the next card is being dealt"
            )
        if action not in step.actions:
            allowed = " or ".join(sorted(step.actions))
            raise IllegalAction(f"you cannot {action} now: you may {allowed}")
        live.decisions.append(Decided(PLAYER_SEAT, action, None, by))
        self.wallet.rounds.save_state(live.id, self._state(live, live.engine.wagers))
        start = len(live.engine.events)
        live.engine.act(PLAYER_SEAT, action)
        if advance:
            self.advance(live)
        return live.engine.events[start:]

    def play_default(self, live: HouseRound) -> list[Event]:
        """Finish the round for a person who has gone: the default play at each decision."""
        start = len(live.engine.events)
        self.advance(live)
        while isinstance(step := live.engine.to_move(), Turn):
            self.act(live, default_action(step), by="default")
        return live.engine.events[start:]

    def void(self, live: HouseRound, why: str) -> Fraction:
        """Call the round off (a stacked shoe too short for it): every stake returned,
        the round kept as void with ``why``; the new balance."""
        record = {"void": why, "cards": [c.code for c in live.cards]}
        live.balance = self.wallet.rounds.void_round(live.id, record)
        return live.balance

    # -- inside ---------------------------------------------------------------------------
    def _upcoming(self) -> list[Card]:
        """The shoe's cards from the next one on (what this round will be dealt from)."""
        peek = getattr(self.source, "peek", None)
        return list(peek(self.source.remaining)) if peek is not None else []

    def _deal(self, live: HouseRound) -> None:
        def new_shoe() -> None:
            live.shoe.append([c.code for c in self._upcoming()])
            if live.id:  # (a round dealt before it is written keeps it in its state then)
                self.wallet.rounds.save_state(live.id, self._state(live, live.engine.wagers))

        card = draw_or_reshuffle(
            self.source, live.engine.cards_in_play, live.engine.events.append, new_shoe
        )
        live.cards.append(card)
        live.engine.deal(card)

    def _state(self, live: HouseRound, stakes: Mapping[str, Fraction]) -> dict[str, Any]:
        return HouseState(
            rules=self.rules_toml,
            name=self.name,
            stakes=stakes,
            shoe=tuple(tuple(segment) for segment in live.shoe),
            reshuffled=live.reshuffled,
            decisions=tuple(HouseDecision(d.action, d.by) for d in live.decisions),
        ).to_json()

    def _settle_if_over(self, live: HouseRound) -> None:
        if live.engine.to_move() is None and live.record is None:
            self._settle(live)

    def _settle(self, live: HouseRound) -> None:
        record = record_of(self.game, self.rules_toml, self.name, live)
        live.record_json = record.to_json()
        live.balance = self.wallet.rounds.settle_round(
            live.id, self._payouts(live), live.record_json
        )
        live.record = record
        self._finished(live)

    @staticmethod
    def _payouts(live: HouseRound) -> dict[str, Fraction]:
        """What each wager pays back: its stake and its net."""
        return {w: stake + live.engine.net[w] for w, stake in live.engine.wagers.items()}

    def _finished(self, live: HouseRound) -> None:
        """A round is over: count it and put its outcome on this shoe's bead plate."""
        self.rounds_played += 1
        outcome = live.engine.outcome
        if outcome is not None:
            if self.source.shuffles != self.bead_shoe:
                self.beads, self.bead_shoe = [], self.source.shuffles
            self.beads.append(outcome)


def _rules_toml(rules: GameRules) -> str:
    """The rules as a record keeps them, written once per rules (they are frozen)."""
    # by identity first: a server deals every round of a game with the same rules,
    # and hashing them (every field, nested) cost more than the rest of a table's setup
    known = _TOML_BY_ID.get(id(rules))
    if known is not None and known[0] is rules:
        return known[1]
    try:
        text = _cached_toml(rules)
    except TypeError:  # rules that cannot be a key (not hashable): written each time
        return rules_to_toml(rules)
    if len(_TOML_BY_ID) >= 64:
        _TOML_BY_ID.clear()
    _TOML_BY_ID[id(rules)] = (rules, text)  # (holding the rules: their id stays theirs)
    return text


_TOML_BY_ID: dict[int, tuple[Any, str]] = {}


@lru_cache(maxsize=64)
def _cached_toml(rules: GameRules) -> str:
    return rules_to_toml(rules)


class ExistingRound(WagerError):
    """The idempotency key names a round already opened: no money was taken again."""

    def __init__(self, stored: StoredRound) -> None:
        super().__init__(f"round {stored.id} was already opened with this key")
        self.stored = stored


class KeyReused(WagerError):
    """The idempotency key opened a round with other bets: nothing was done."""


class OverBalance(WagerError):
    """The stakes are more than the balance: nothing was taken."""


class RoundUnfinished(WagerError):
    """The person's last round of this game is not finished: no new round is opened."""


def _existing(stored: StoredRound, stakes: Mapping[str, Fraction]) -> WagerError:
    """The round a repeated idempotency key opened, or a refusal if its bets differ."""
    if dict(stored.stakes) != dict(stakes):
        return KeyReused(
            f"this idempotency key opened round {stored.id} with other bets: "
            "use a new key for new bets"
        )
    return ExistingRound(stored)


def _over_balance(total: Fraction, balance: Fraction) -> str:
    return (
        f"the stakes ({format_amount(total)}) are more than your balance ({format_amount(balance)})"
    )


def record_of(game: GameInfo, rules_toml: str, name: str, live: HouseRound) -> RoundRecord:
    """The history record of a finished round."""
    engine = live.engine
    return RoundRecord(
        game=game.id,
        rules=rules_toml,
        seats=(name,),
        cards=tuple(live.cards),
        decisions=tuple(live.decisions),
        wagers=tuple(
            WagerResult(
                PLAYER_SEAT,
                wager,
                stake,
                engine.net[wager],
                engine.breakage.get(wager, Fraction(0)),
            )
            for wager, stake in engine.wagers.items()
        ),
        outcome=engine.outcome,
        events=tuple(engine.events),
        notes=tuple(live.notes),
    )


# -- rounds a stopped process left unfinished ----------------------------------------------------
INTERRUPTED_NOTE = (
    "cardroom stopped in the middle of this round; it was finished on the next start "
    "with the same cards and the rules' forced or default play"
)


@lru_cache(maxsize=64)
def saved_rules(game_id: str, toml: str) -> Any:
    """The rules a round was saved with (read once per text: rules are frozen)."""
    game = get_game(game_id)
    return load_rules_text(game.default_rules(), toml, "the round")


def restore_round(
    wallet: Wallet,
    stored: StoredRound,
    note: str | None = None,
    *,
    source: CardSource | None = None,
) -> tuple[HouseTable, HouseRound]:
    """A round in progress set up again from what was saved (a server that restarted, a
    request that finds the round in the database but not in memory): the same cards and
    decisions, waiting for the next decision exactly where it stopped.  The cards come
    from the round's saved shoe; with ``source`` (the table's shoe, saved where that
    round left it) the table deals on from there, else from the saved shoe.  Nothing is
    played for the person."""
    try:
        if stored.status != "in_progress":
            raise StateError("it is not in progress")
        state = read_house_state(stored.state)
    except StateError as err:
        raise IllegalAction(f"round {stored.id} is not a house round in progress: {err}") from None
    game = get_game(stored.game)
    rules = saved_rules(game.id, state.rules)
    stakes = dict(state.stakes)
    saved = Segments([parse_cards(codes) for codes in state.shoe])
    table = HouseTable(
        game,
        rules,
        saved,
        wallet,
        stored.account_id,
        name=state.name,
        table_ref=stored.table_ref,
    )
    shoe = [list(segment) for segment in state.shoe]
    live = HouseRound(stored.id, game.new_round(rules, stakes), shoe=shoe)
    if note is not None:  # said in the record if the round ends on the way
        live.notes.append(note)
    if state.opening_shuffle is not None:  # the round's events begin with the shoe's shuffle
        live.reshuffled = state.opening_shuffle
        live.engine.events.append(state.opening_shuffle)
    table.advance(live)
    for made in state.decisions:
        step = live.engine.to_move()
        if not isinstance(step, Turn) or made.action not in step.actions:
            break
        live.decisions.append(Decided(PLAYER_SEAT, made.action, None, made.by))
        live.engine.act(PLAYER_SEAT, made.action)
        table.advance(live)
    if source is not None:  # the table's shoe deals on from where the round is now
        table.source = source
    return table, live


def finish_interrupted(
    wallet: Wallet, account_id: int, game_id: str | None = None
) -> list[RoundRecord]:
    """Finish every round the account left in progress (of ``game_id`` if given): the
    same cards, the decisions already made, the default play for the rest; settled and
    recorded with a note saying so.  Returns their records, oldest first."""
    finished: list[RoundRecord] = []
    for stored in wallet.rounds.unfinished_rounds(account_id, game_id):
        if not is_house_state(stored.state):
            continue  # not a house round (or from a later cardroom): left as it is
        try:
            table, live = restore_round(wallet, stored, INTERRUPTED_NOTE)
        except (RulesError, IllegalAction, ValueError):
            wallet.rounds.void_round(stored.id, {"void": "the round can no longer be set up again"})
            continue
        table.play_default(live)
        if live.record is not None:
            finished.append(live.record)
    return finished


class Segments(StackedShoe):
    """The saved shoe of an interrupted round: its cards, then those of any reshuffle."""

    def __init__(self, segments: Sequence[Sequence[Card]]) -> None:
        super().__init__(segments[0] if segments else ())
        self._later = [list(s) for s in segments[1:]]

    def draw(self) -> Card:
        try:
            return super().draw()
        except ShoeExhausted:
            if not self._later:
                raise
            self._cards, self._next = self._later.pop(0), 0
            return super().draw()
