"""``chemin-de-fer``: baccarat between the seats of a table, with a bank that moves round.

The rule set in three rooms: :mod:`~cardroom.games.chemin_de_fer.rules` (every rule a
variant may change), :mod:`~cardroom.games.chemin_de_fer.engine` (the table as a pure
state machine) and :mod:`~cardroom.games.chemin_de_fer.bots` (bots, and the session that
deals from a shoe and lets them act).

The engine (:class:`ChemmyGame`) is a pure state machine: it draws no cards and reads no
clock.  At every moment it says what it waits for -- a card (:attr:`ChemmyGame.next_card_for`)
or a seat's decision (:attr:`ChemmyGame.to_act`) -- and takes it through a ``can_x``/``x``
pair of methods.  A step it cannot take raises :class:`~cardroom.games.base.IllegalAction`
(wrong moment, wrong seat, not allowed by the rules) or
:class:`~cardroom.games.base.WagerError` (an amount it cannot accept), and changes nothing.
Everything that happens is recorded as a :class:`~cardroom.core.events.CoupEvent`.

How cardroom plays the game:

1. **First banker.**  Every seat that can play (its stack reaches the table minimum) draws a
   card face up.  The highest rank takes the bank, Ace low (Ace 1 ... King 13; the
   ``ace_high_in_draw`` rule makes the Ace 14).  Seats tied for the highest card draw again,
   only they.  The draw cards are then discarded.  The draw is coup 0 (in a game that
   follows others at one table, the number of the table's last coup: its coups are
   numbered on, ``coups_before``).
2. **The bank.**  The banker puts up a bank between the table minimum and the smaller of the
   table maximum and its stack, or passes the bank to the next seat (``banker_may_pass``).
   After a banker win the suggested bank (:attr:`ChemmyGame.default_bank`) is the whole
   previous bank plus its net winnings, capped by the table maximum; the banker may put up
   any other legal amount unless ``keep_whole_bank`` makes the suggestion compulsory.
3. **Covering.**  In seat order from the seat after the banker (wrapping round), each seat
   may call *Banco* (cover the whole bank alone: only while nobody has staked this coup and
   only with a stack that covers it; nobody else stakes then), *stake* an amount between
   the table minimum and its stack, or *pass*.  A seat whose stack is below the minimum is
   passed over (a forced pass).  Staking stops once the bank is covered; the part of the
   last stake beyond what the bank still needed goes back to that seat.  A bank still not
   covered after every seat plays for the covered amount only; a bank nobody staked against
   makes no coup, and the banker keeps the bank.
4. **The hand.**  The seat with the largest stake (after any excess is returned; among equal
   stakes the first in covering order) holds the player's hand for every punter.  Cards go
   player, banker, player, banker, face down: each hand is seen by its holder only.  A
   two-card 8 or 9 (a *natural*) on either side is shown at once and ends the deal.
   Otherwise the player must draw on 0-4, must stand on 6-7 and chooses at 5 (the engine
   makes the forced plays itself); then the banker chooses freely, knowing its own total
   and the player's third card, which is dealt face up (or that the player stood).  Both
   hands are then shown.
5. **Settlement.**  The higher total wins; equal totals tie and return every stake.  If the
   player's side wins the bank pays every stake 1:1; if the banker wins it takes every stake,
   less the house ``commission`` (a fraction of those winnings, 0 by default).  The money of
   the table (the stacks plus what the house took) never changes.
6. **The next bank.**  After a win or a tie (and after a coup with no stakes) the banker keeps
   the bank; after a loss it goes to the next seat in order whose stack reaches the minimum.
   When fewer than two seats reach it the game is over.

The people at the table see only what :meth:`ChemmyGame.visible_events` gives them: another
seat's face-down cards appear without rank or suit, and another hand's draw or stand
appears as an :class:`~cardroom.core.events.Announcement` (whether it was forced would tell the
total).

Bots decide through a :class:`ChemmyStrategy`; :class:`TableauBot` (the punto banco tableau
for the banker, always draw at 5 for the player, :class:`SimpleMoney` for the stakes) is the
default.  :class:`ChemmySession` deals from a shoe and lets bots act until a person must.

A coup on stacked cards: Ann's King wins the draw, Bob calls "Banco" against her bank of
20 and his natural 9 beats her 7, so the bank passes to him.

>>> import numpy as np
>>> from cardroom.core.cards import parse_cards
>>> from cardroom.core.money import format_amount
>>> from cardroom.core.shoe import StackedShoe
>>> game = ChemmyGame(ChemmyRules(), [("Ann", 100), ("Bob", 100)])
>>> shoe = StackedShoe(parse_cards("Ks 2h  9c 4d Jh 3s"))
>>> session = ChemmySession(game, shoe, {}, np.random.default_rng(1))
>>> session.advance() is None, game.banker
(True, 0)
>>> game.to_act.actions == {ChemmyAction.PUT_BANK, ChemmyAction.PASS_BANK}
True
>>> [entry.event.kind for entry in game.put_bank(0, 20) + game.banco(1)]
['bank', 'banco', 'player_hand']
>>> session.advance() is None
True
>>> [format_amount(stack) for stack in game.stacks], game.banker
(['80', '120'], 1)
"""

from __future__ import annotations

from cardroom.games.baccarat import DEAL_ORDER
from cardroom.games.chemin_de_fer.bots import (
    AlwaysDrawAtFive,
    BankerDrawStrategy,
    CasinoTableauBanker,
    ChemmySession,
    ChemmyStrategy,
    Cover,
    MixedAtFive,
    MoneyPolicy,
    PlayerDrawStrategy,
    SimpleMoney,
    TableauBot,
)
from cardroom.games.chemin_de_fer.engine import Amount, ChemmyGame, Phase, TableView
from cardroom.games.chemin_de_fer.rules import (
    GAME_ID,
    HANDS,
    MAX_SEATS,
    ChemmyAction,
    ChemmyRules,
    chemmy_rules,
)

__all__ = [
    "DEAL_ORDER",
    "GAME_ID",
    "HANDS",
    "MAX_SEATS",
    "AlwaysDrawAtFive",
    "Amount",
    "BankerDrawStrategy",
    "CasinoTableauBanker",
    "ChemmyAction",
    "ChemmyGame",
    "ChemmyRules",
    "ChemmySession",
    "ChemmyStrategy",
    "Cover",
    "MixedAtFive",
    "MoneyPolicy",
    "Phase",
    "PlayerDrawStrategy",
    "SimpleMoney",
    "TableView",
    "TableauBot",
    "chemmy_rules",
]
