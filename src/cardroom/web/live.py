"""The house tables of the web: each person's table per game, as JSON.

The tables themselves are kept in the database by
:class:`~cardroom.app.tables.stored.StoredTables` (the shoe, this shoe's bead plate, the
round in play), so that any server process takes any request and nothing is lost when
one stops; this module turns what they answer into the JSON the pages and the API send.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from cardroom.app.tables.stored import NotYours, Played, StoredTables, table_ref
from cardroom.app.variants import Variants, table_key
from cardroom.app.wallet import Account, Wallet
from cardroom.core.cards import Card, CardError
from cardroom.core.shoe import SecureShuffler, Shuffler
from cardroom.games import GameInfo
from cardroom.web import views

#: No such round for this person (someone else's is not found either).
NotFound = NotYours


class LiveTables:
    """Every person's house tables (see :mod:`cardroom.app.tables.stored`)."""

    def __init__(
        self,
        wallet: Wallet,
        rules: Mapping[str, Any],
        shuffler: Callable[[], Shuffler] = SecureShuffler,
        own_variants: bool = False,
    ) -> None:
        self.wallet = wallet
        self.variants = Variants(wallet.db)
        self.stored = StoredTables(
            wallet, rules, shuffler, self.variants, own_variants=own_variants
        )

    @property
    def rules(self) -> dict[str, Any]:
        return self.stored.rules

    def place(
        self,
        account: Account,
        game: GameInfo,
        bets: Mapping[str, str],
        key: str | None,
        variant: str | None = None,
    ) -> tuple[dict[str, Any], bool]:
        """Open a round (at the game's table or its ``variant``'s) and deal it as far as
        it goes; its JSON and whether it is new (False: the idempotency key's round,
        given back)."""
        played = self.stored.place(account.id, account.name, game, bets, key, variant)
        return _json(played), played.new

    def act(self, account: Account, round_id: int, action: str) -> dict[str, Any]:
        """The person's decision in their round ``round_id``."""
        return _json(self.stored.act(account.id, round_id, action))

    def get(self, account: Account, round_id: int) -> dict[str, Any]:
        """The person's round ``round_id`` as it stands."""
        return _json(self.stored.get(account.id, round_id))

    def table_state(
        self, account: Account, game: GameInfo, variant: str | None = None
    ) -> dict[str, Any]:
        """The person's table (at the game's rules or its ``variant``'s): this shoe's
        scoreboards, the reshuffle notice, the round in play (if any)."""
        state = self.stored.table(account.id, game, variant)
        here = table_key(game.id, variant)
        pairs = None
        if PAIR_WAGERS & set(game.wagers(self.stored.rules_for(here))):
            pairs = self._pairs(account, game, here, state.beads)
        return {
            "game": game.id,
            "balance": views.money(state.balance),
            "reshuffle_due": state.reshuffle_due,
            "reshuffle_cause": state.reshuffle_cause,
            "rounds_played": state.rounds_played,
            "round_in_play": state.round_in_play,
            **views.beads_json(state.beads, state.bead_shoe, pairs),
        }

    def _pairs(
        self, account: Account, game: GameInfo, here: str, beads: Sequence[str]
    ) -> list[list[str]]:
        """For each of this shoe's rounds, the hands dealt a pair: the shoe's rounds are
        the person's last finished rounds at this table, one per bead (a round whose
        outcome is not its bead's is left unmarked)."""
        if not beads:
            return []
        stored = self.wallet.rounds.latest(
            account.id, len(beads), game.id, statuses=("finished",), table_ref=table_ref(here)
        )
        records = [r.record or {} for r in reversed(stored)]
        records = [{}] * (len(beads) - len(records)) + records[-len(beads) :]
        return [
            _pairs_dealt(record) if record.get("outcome") == bead else []
            for bead, record in zip(beads, records, strict=True)
        ]


#: The wagers on a pair: a table offering them marks pairs on its bead plate.
PAIR_WAGERS = frozenset({"player_pair", "banker_pair"})


def _pairs_dealt(record: Mapping[str, Any]) -> list[str]:
    """The hands whose first two cards share a rank, from a round's record."""
    first: dict[str, list[Card]] = {}
    for event in record.get("events", []) or []:
        if not isinstance(event, Mapping) or event.get("event") != "card":
            continue
        try:
            first.setdefault(str(event.get("hand")), []).append(Card.parse(str(event["card"])))
        except (KeyError, CardError):
            continue
    return [
        hand for hand, cards in first.items() if len(cards) >= 2 and cards[0].rank is cards[1].rank
    ]


def _json(played: Played) -> dict[str, Any]:
    if played.live is not None:
        data = views.live_round_json(played.live.engine.game, played.live, played.balance)
        over = played.live.is_over
        data["reshuffle_due"] = played.reshuffle_due if over else False
        data["reshuffle_cause"] = played.reshuffle_cause if over else None
        return data
    assert played.stored is not None
    return views.stored_round_json(played.stored, played.balance)
