"""The baccarat family: punto banco and baccarat27 (one engine, two rule sets), and the
deal that chemin de fer plays too.

- :mod:`.engine`: the rules (frozen, range-checked) and the coup;
- :mod:`.wagers`: every wager written once (settlement, kernel, analysis, paytable);
- :mod:`.analysis`: the exact analysis from the shoe;
- :mod:`.kernel`: the compiled simulation (Numba; imported when asked for).
"""

from cardroom.games.baccarat.engine import (
    DEAL_ORDER,
    SIDE_WAGERS,
    STANDARD_TABLEAU,
    TOTAL,
    Baccarat27Round,
    BaccaratRound,
    BaccaratRules,
    BankerPay,
    BankerRow,
    PuntoBancoRound,
    Tableau,
    after_card,
    baccarat27_rules,
    baccarat_total,
    card_value,
    card_with_value,
    punto_banco_rules,
    showdown,
)
from cardroom.games.baccarat.wagers import (
    MAIN_WAGERS,
    WAGERS,
    CoupFacts,
    PayLine,
    Wager,
    register,
    unregister,
)

__all__ = [
    "DEAL_ORDER",
    "MAIN_WAGERS",
    "SIDE_WAGERS",
    "STANDARD_TABLEAU",
    "TOTAL",
    "WAGERS",
    "Baccarat27Round",
    "BaccaratRound",
    "BaccaratRules",
    "BankerPay",
    "BankerRow",
    "CoupFacts",
    "PayLine",
    "PuntoBancoRound",
    "Tableau",
    "Wager",
    "after_card",
    "baccarat27_rules",
    "baccarat_total",
    "card_value",
    "card_with_value",
    "punto_banco_rules",
    "register",
    "showdown",
    "unregister",
]
