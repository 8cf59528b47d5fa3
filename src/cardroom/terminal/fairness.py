"""``cardroom verify-shoe``: rebuild a shoe from its seeds (docs/fairness.md) and check
every round recorded from it, or print its cards in order."""

from __future__ import annotations

import sys

from cardroom.app.tables.seeds import ShoeSeeds
from cardroom.app.tables.verify import check_shoe, shoe_order
from cardroom.core.fair import check_client_seed, parse_server_seed
from cardroom.games import GAMES
from cardroom.storage import Database
from cardroom.terminal.common import fail


def verify_shoe(seed_hex: str, client_seed: str, game_id: str, db_url: str | None) -> None:
    """Without ``db_url``, print the shoe's order; with it, find the revealed shoe of the
    seed there and check its rounds (exit 1 naming each difference)."""
    try:
        seed = parse_server_seed(seed_hex)
        check_client_seed(client_seed)
    except ValueError as err:
        fail(str(err))
    game_id, _, _ = game_id.partition("~")
    if game_id not in GAMES:
        fail(f"game: there is no game {game_id!r} (cardroom games lists them)")
    if db_url is None:
        rules = GAMES[game_id].default_rules().shoe
        order, burnt = shoe_order(rules, seed, client_seed)
        print(f"the {GAMES[game_id].name} shoe at the default rules, {burnt} burnt:")
        print(" ".join(card.code for card in order))
        return
    try:
        db = Database.open(url=db_url, create=False)
    except Exception as err:
        fail(f"--db: cannot open {db_url}: {str(err).splitlines()[0]}")
    with db:
        seeds = ShoeSeeds(db)
        shoe = seeds.by_seed(seed)
        if shoe is None or shoe.shoe is None:
            fail("seed: no revealed shoe has this server seed")
        if shoe.game.partition("~")[0] != game_id:
            fail(f"game: this seed's shoe was dealt at {shoe.game}, not {game_id}")
        if shoe.client_seed != client_seed:
            print(f"note: the shoe was shuffled with the client seed {shoe.client_seed!r}")
        # (a table of seats' shoe: every coup recorded there while it dealt)
        rounds = seeds.rounds_of(seeds.owner(shoe.id), shoe)
    check = check_shoe(shoe.shoe, seed, client_seed, rounds)
    for problem in check.problems:
        print(f"DIFFERS: {problem}")
    if not check.ok:
        sys.exit(1)
    print(
        f"shoe {shoe.shoe} at {shoe.game}: every card of {len(check.rounds)} rounds "
        f"({check.cards} cards) is the shoe's, in order"
    )
