"""Asking a person at the terminal for their chemin de fer decisions: a bank, a stake
(or Banco, or a pass), and to draw or stand.

Each asks until the table takes a choice; a person who leaves gets the choice that
changes least (a pass, standing), and one who leaves before putting up a bank makes no
coup.  With several people at the terminal, the holder of a hand gets it passed to them
first (:class:`~cardroom.terminal.chemmy_looks.PrivateLooks`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

from rich.text import Text

from cardroom.games.base import IllegalAction, Turn, WagerError
from cardroom.games.chemin_de_fer import ChemmyAction
from cardroom.games.chemin_de_fer.words import chemmy_turn_text
from cardroom.terminal import render
from cardroom.terminal.prompts import BEAD_WORDS, HELP_WORDS, QUIT_WORDS, BetError, read_stake

if TYPE_CHECKING:
    from cardroom.terminal.chemmy import ChemmyPlay

#: A decision for the engine: the action and its amount (for a bank or a stake).
Choice = tuple[ChemmyAction, Fraction | None]


class Decisions:
    """Asks the people of one sitting for their decisions (see the module's words)."""

    def __init__(self, play: ChemmyPlay) -> None:
        self.play = play

    def decide(self, turn: Turn) -> bool:
        """Ask the person ``turn`` names; False if they left before putting up a bank."""
        if ChemmyAction.PUT_BANK in turn.actions:
            return self.ask_bank(turn)
        if ChemmyAction.STAKE in turn.actions:
            return self.ask_cover(turn)
        hand = "player" if turn.seat == self.play.table.player else "banker"
        if not self.play.hot_seat:
            return self.ask_draw(turn, hand)
        self.play.views_due.pop(hand, None)
        looked = self.play.looks.pass_terminal(turn.seat)
        decided = self.ask_draw(turn, hand)
        if looked:
            self.play.looks.end_private()
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
            why = self.play.interrupts.reason if self.play.interrupts.pending else "Leaving"
            if not (self.play.leaving or self.play.interrupts.pending):
                line = self.play.prompt_line(prompt)
                if line is None:
                    why = self.play.leave_reason
                else:
                    word = line.strip().lower()
                    if word in HELP_WORDS:
                        self.play.help(help_rows)
                        continue
                    if beads and word in BEAD_WORDS:
                        self.play.show_beads(
                            self.play.beads, self.play.bead_shoe, self.play.reshuffle_cause
                        )
                        continue
                    if word in QUIT_WORDS:
                        why = "q"
                    else:
                        choice = choose(line.strip())
                        if choice is None:
                            continue
            if choice is None:
                self.play.start_leaving(why, bank=fallback is None)
                if fallback is None:
                    return False
                choice = fallback
            action, amount = choice
            try:
                self.play.chemmy.act(turn.seat, action, amount)
            except (IllegalAction, WagerError) as err:
                self.play.problem(str(err))
                if choice is fallback:  # pragma: no cover - passing and standing are legal
                    raise
                continue
            return True

    def ask_bank(self, turn: Turn) -> bool:
        seat = turn.seat
        assert turn.low is not None and turn.high is not None
        low, high = turn.low, turn.high
        default = self.play.table.default_bank
        suggested = default if default is not None and low <= default <= high else low
        can_pass = ChemmyAction.PASS_BANK in turn.actions
        status = Text(
            f"  {self.play.whose(seat)} stack {render.money(self.play.table.stacks[seat])} · "
        )
        if low == high:
            status.append(f"the bank stays whole at {render.money(low)}")
        else:
            status.append(f"a bank of {render.money(low)} to {render.money(high)}")
        self.play.say(status)
        prompt = Text(f"{self.play.whose(seat)} bank", style="bold")
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
                self.play.problem(f"{word!r} is not a bank: type an amount, {hint}")
                return None

        rows = [
            ("Enter", f"put up a bank of {render.money(suggested)}"),
            (
                render.money(2 * self.play.minimum),
                f"put up a bank of {render.money(2 * self.play.minimum)}",
            ),
        ]
        if can_pass:
            rows.append(("p or pass", "pass the bank to the next seat"))
        rows.append(("s or beads", "the bead plate"))
        return self.ask(turn, prompt, choose, None, rows)

    def ask_cover(self, turn: Turn) -> bool:
        game, seat = self.play.table, turn.seat
        assert game.bank is not None and game.banker is not None
        can_banco = ChemmyAction.BANCO in turn.actions
        status = Text(f"  {self.play.whose(game.banker)} bank of {render.money(game.bank)}: ")
        status.append(f"{render.money(game.bank - game.covered)} to cover", style="bold")
        status.append(
            f" · {self.play.renderer.whose(seat)} stack {render.money(game.stacks[seat])}"
        )
        self.play.say(status)
        prompt = Text(
            "Cover" if seat == self.play.you else f"{self.play.names[seat]}, cover", style="bold"
        )
        low = render.money(turn.low or self.play.minimum)
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
                self.play.problem(
                    f"{word!r} is not a stake: type {banco}an amount, or pass (Enter)"
                )
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
        if not (self.play.leaving or self.play.interrupts.pending):
            line = self.play.looks.own_hand(seat, hand)
            line.append(f" · {chemmy_turn_text(turn.why)}")
            self.play.say(line)
        prompt = Text("  Draw or stand?", style="bold")
        prompt.append(" (d/s · ? help · q leave) › ", style="dim")

        def choose(word: str) -> Choice | None:
            lower = word.lower()
            if lower in ("d", "draw"):
                return ChemmyAction.DRAW, None
            if lower in ("s", "stand"):
                return ChemmyAction.STAND, None
            self.play.problem(f"{word!r} is not a move: type d to draw a third card or s to stand")
            return None

        rows = [("d or draw", "take a third card"), ("s or stand", "keep two cards")]
        return self.ask(turn, prompt, choose, (ChemmyAction.STAND, None), rows, beads=False)


__all__ = ["Choice", "Decisions"]
