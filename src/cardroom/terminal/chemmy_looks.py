"""Private looks at one terminal shared by several people playing chemin de fer.

With several people at the terminal, the screen shows what everybody may see; a
person's own cards are shown only after the terminal is passed to them, and cleared
before it goes back.  A hand's holder gets a look where the game reaches their decision,
whether the rules make it or they do, so that a look tells nobody which it was.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from cardroom.app.words import capital, points_text
from cardroom.core.events import Announcement, ChemmyEvent, Decision, HandCard, HandShown
from cardroom.games.chemin_de_fer.words import decision_text
from cardroom.terminal import render
from cardroom.terminal.prompts import QUIT_WORDS

if TYPE_CHECKING:
    from cardroom.terminal.chemmy import ChemmyPlay


class PrivateLooks:
    """The private looks of one sitting (see the module's words)."""

    def __init__(self, play: ChemmyPlay) -> None:
        self.play = play

    def before_public(self, event: ChemmyEvent) -> None:
        """With several people: give a hand's holder their private look where the game
        reaches their decision, forced or free (so a look tells nobody that it was free)."""
        if not self.play.views_due:
            return
        if isinstance(event, HandShown):  # a natural: everything is shown now
            self.play.views_due = {}
        elif "player" in self.play.views_due:
            self.forced_view("player")
        elif (
            "banker" in self.play.views_due
            and isinstance(event, Announcement | Decision)
            and event.hand == "banker"
        ):
            self.forced_view("banker")

    def pass_terminal(self, seat: int) -> bool:
        """Ask for the terminal to be passed to ``seat``'s person; False if they leave."""
        if self.play.leaving or self.play.interrupts.pending:
            return False
        name = self.play.names[seat]
        self.play.say(
            Text(f"Pass the terminal to {name} — press Enter when only {name} is looking", "bold")
        )
        line = self.play.prompt_line(Text(f"  {name}, press Enter › ", style="dim"))
        if line is None or line.strip().lower() in QUIT_WORDS:
            self.play.start_leaving("q" if line is not None else self.play.leave_reason)
            return False
        return True

    def end_private(self) -> None:
        """Clear the screen, then show again what everybody has seen of the coup."""
        if self.play.out.is_terminal:
            self.play.out.clear()
            self.play.out.file.write("\x1b[3J")  # the scrollback too
            self.play.out.file.flush()
        else:
            self.play.out.rule(Text("screen cleared", style="dim"), characters="╌")
        self.play.coup_rule()
        self.play.renderer = self.play.new_renderer()
        for entry in self.play.table.visible_events(None, self.play.coup_start)[
            : self.play.shown - self.play.coup_start
        ]:
            self.play.say(self.play.renderer.render(entry.event))

    def own_hand(self, seat: int, hand: str) -> Text:
        """``Ann's hand as the player: 3♥ 2♠ = 5`` (the first two cards: the deal)."""
        cards = [
            entry.event
            for entry in self.play.table.visible_events(seat, self.play.coup_start)
            if isinstance(entry.event, HandCard)
            and entry.event.seat == seat
            and entry.event.hand == hand
        ][:2]
        text = Text(f"  {self.play.whose(seat)} hand as the {hand}: ", style="bold")
        text.append_text(render.hand_text(card.card for card in cards if card.card is not None))
        if cards and cards[-1].total is not None:
            text.append(f" = {points_text(cards[-1].total)}", style="bold cyan")
        return text

    def forced_view(self, hand: str) -> None:
        """The private look of a holder whose play the rules made: their cards and the rule."""
        seat = self.play.views_due.pop(hand)
        if not self.pass_terminal(seat):
            return
        self.play.say(self.own_hand(seat, hand))
        rule = [
            entry.event
            for entry in self.play.table.visible_events(seat, self.play.coup_start)
            if isinstance(entry.event, Decision) and entry.event.hand == hand
        ]
        if rule:
            decided = rule[0]
            self.play.say(Text(f"  {capital(decision_text(hand, decided.action, decided.why))}"))
        line = self.play.prompt_line(Text("  Press Enter when you have seen it › ", style="dim"))
        if line is None or line.strip().lower() in QUIT_WORDS:
            self.play.start_leaving("q" if line is not None else self.play.leave_reason)
        self.end_private()


__all__ = ["PrivateLooks"]
