"""The Finnish games' rules pages: paytables and rules in sentences."""

from __future__ import annotations

from fractions import Fraction

from cardroom.core.money import exact_text, format_amount
from cardroom.games.disclosure import (
    PayRow,
    RulesText,
    limits_sentence,
    odds_text,
    shoe_sentence,
)
from cardroom.games.finnish.bonuses import when
from cardroom.games.finnish.finnish27 import POKER_KEYS, BonusTable, Finnish27Rules, bonus_ask
from cardroom.games.finnish.hands import ACE_KING_ONLY, EVERY_27, TargetRow
from cardroom.games.finnish.twentyone_24_27 import TwentyOne2427Rules
from cardroom.games.finnish.words import name_of

__all__ = [
    "FINNISH_POINTS",
    "bonus_rows",
    "finnish27_paytable",
    "finnish27_text",
    "twentyone_paytable",
    "twentyone_text",
]


FINNISH_POINTS = (
    "Cards count their Finnish index: Ace 1 or 14 (it counts 14 while that keeps the hand "
    "at 27 or less; such a hand is soft), 2 to 10 their number, Jack 11, Queen 12, King 13."
)


def finnish27_paytable(rules: Finnish27Rules) -> list[PayRow]:
    """finnish27's three wagers."""
    return [
        PayRow(
            "player",
            odds_text(rules.player_pays),
            "the player's hand wins; plus a bonus",
            f"{odds_text(rules.player_pays)} + bonus",
        ),
        PayRow("dealer", odds_text(rules.dealer_pays), "the dealer's hand wins"),
        PayRow("push", odds_text(rules.push_pays), "the round is a push"),
    ]


def twentyone_paytable(rules: TwentyOne2427Rules) -> list[PayRow]:
    """21-24-27's one wager."""
    return [PayRow("player", odds_text(rules.win_pays), "your hand wins; a push returns it")]


def bonus_rows(rules: Finnish27Rules) -> list[list[str]]:
    """finnish27's bonuses: the hand, when it is paid (every condition the table sets,
    from the same awards the engine settles by) and what it pays on a winning player
    wager; an award this table does not have, or pays nothing, is left out."""
    bonus, minimum, ask = rules.bonus, rules.table.minimum, bonus_ask(rules)
    rows = []
    for key, label in BonusTable.labels().items():
        value = bonus.odds(key)
        if not bonus.pays(key) or not value:
            continue
        if bonus.is_flat(key):
            pays = f"{format_amount(value * minimum)} ({format_amount(value)} x table minimum)"
        else:
            pays = f"{odds_text(value)} on the stake"
        rows.append([label, when(bonus, ask, key), pays])
    return rows


def target_rows(rows: tuple[TargetRow, ...]) -> list[list[str]]:
    out = []
    for row in rows:
        dealer = f"{row.dealer} {row.low}" + (f"-{row.high}" if row.high != row.low else "")
        if row.relative is None:
            plan = f"hit below hard {row.hard} and below soft {row.soft}"
        elif row.relative == 1:
            plan = "hit until above the dealer's total"
        elif row.relative == 0:
            plan = "hit until at least the dealer's total"
        else:
            plan = f"hit to the dealer's total {row.relative:+d}"
        out.append([dealer, plan])
    return out


def initial_27_words(rules: Finnish27Rules) -> str:
    """Which two-card hands are 27 at once, how two of them rank, and the Joker after."""
    made = {
        "jo_jo": (rules.jo_jo_27, "two Jokers make a " + name_of("jo_jo")),
        "finnish_27": (rules.ace_king_27, "Ace and King make a " + name_of("finnish_27")),
        "joanca": (
            rules.joanca_27,
            "another card and then a Joker make a " + name_of("joanca")
            if rules.joanca_joker_second
            else "a Joker and any other card make a " + name_of("joanca"),
        ),
    }
    if (
        rules.initial_27s == EVERY_27
        and not rules.player_initial_27_wins
        and not rules.joanca_joker_second
    ):  # the source's
        return (
            "A Joker as a first or second card makes that two-card hand 27 (one Joker: "
            f"{name_of('joanca')}; two: {name_of('jo_jo')}); Ace and King make a "
            f"{name_of('finnish_27')}. An initial 27 wins at once; if both hands have one, "
            f"{name_of('jo_jo')} beats {name_of('finnish_27')} beats {name_of('joanca')}, and "
            f"equal ones go to the {rules.equal_initial_27s}."
            + _later_jokers(rules)
            + _joanca_pays(rules)
        )
    if rules.initial_27s == ACE_KING_ONLY and not rules.player_initial_27_wins:
        return f"Ace and King make a {name_of('finnish_27')}, which wins at once. Jokers count 0."
    counted = [words for on, words in made.values() if on]
    skipped = [key for key, (on, _) in made.items() if not on]
    if not counted:
        return "No two-card hand is 27 at once: every hand plays to its total. Jokers count 0."
    text = (
        "As a first and second card, " + _joined(counted) + ": an initial 27, which wins at once."
    )
    if len(counted) > 1:
        ranks = [name_of(key) for key in ("jo_jo", "finnish_27", "joanca") if made[key][0]]
        text += (
            " If both hands have one, the player's wins."
            if rules.player_initial_27_wins
            else f" If both hands have one, {' beats '.join(ranks)}, and equal ones go to "
            f"the {rules.equal_initial_27s}."
        )
    elif rules.player_initial_27_wins:
        text += " If both hands have one, the player's wins."
    else:
        text += f" If both hands have one, they go to the {rules.equal_initial_27s}."
    if skipped:
        one = len(skipped) == 1
        text += (
            f" {_joined([name_of(key) for key in skipped])} "
            + ("is not an initial 27 here: its" if one else "are not initial 27s here: their")
            + " cards count their points."
        )
    if rules.joanca_joker_second:
        text += (
            " A Joker as the first card, then another card, makes no 27: the Joker counts 0,"
            " and so it does from the third card on."
        )
    elif rules.jokers_make_27:
        text += _later_jokers(rules)
    else:
        text += " Jokers count 0."
    return text + _joanca_pays(rules)


def _later_jokers(rules: Finnish27Rules) -> str:
    """What a Joker drawn after the deal does."""
    if rules.jokers_wild:
        return (
            " From the third card on a Joker is wild: the hand that draws it is 27 at once "
            "and stops there."
        )
    return " From the third card on a Joker counts 0."


def _joanca_pays(rules: Finnish27Rules) -> str:
    if not rules.bonus.joanca:
        return ""
    return f" A winning initial {name_of('joanca')} also pays its bonus."


def _joined(items: list[str]) -> str:
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " and " + items[-1]


def finnish27_text(rules: Finnish27Rules) -> RulesText:
    jokers = initial_27_words(rules)
    sentences = [
        "A player hand and a dealer hand are dealt player, dealer, player, dealer, face up. "
        "Nobody decides anything: both hands play by fixed rules.",
        FINNISH_POINTS,
        jokers,
        "The player's hand hits while it is below the target of the row below that matches "
        "the dealer's two-card total.",
        _play_sentence(rules),
        _showdown_sentence(rules),
        "A push returns the player and dealer wagers. A winning player wager also collects "
        "at most one bonus, from the table below." + _poker_words(rules.bonus),
        *fee_sentences(rules.fee_per_100),
        shoe_sentence(rules),
        limits_sentence(rules),
    ]
    return RulesText(
        sentences,
        [
            (
                "The player's hand",
                ["dealer's two cards", "the player"],
                target_rows(rules.player_table),
            ),
            (
                "Bonuses on a winning player wager",
                ["award", "a winning player hand of", "pays"],
                bonus_rows(rules),
            ),
        ],
    )


def _poker_words(bonus: BonusTable) -> str:
    """What the bonus table's rows do not say one by one: the least poker category paid
    and the order of the categories."""
    words = ""
    if bonus.poker_minimum != POKER_KEYS[0] or bonus.poker_order != POKER_KEYS:
        lowest = BonusTable.LABELS[bonus.poker_minimum].lower()
        words += f" No poker hand below {lowest} earns an award."
    if bonus.poker_order != POKER_KEYS:
        names = ", ".join(BonusTable.LABELS[key].lower() for key in bonus.poker_order)
        words += (
            f" The table ranks the poker categories, low to high: {names}; a hand is the "
            "highest of those some five of its cards show."
        )
    return words


def _play_sentence(rules: Finnish27Rules) -> str:
    """When the player's hand ends the round, and the dealer's play."""
    dealer = (
        f"the dealer hits hard totals below {rules.dealer_hits_hard_below} and soft totals "
        f"below {rules.dealer_hits_soft_below}."
    )
    charlie = (
        f"A player's hand of {rules.charlie} cards (Jokers counted) of 27 or less wins at "
        "once (a Charlie). "
        if rules.charlie
        else ""
    )
    if rules.both_27 == "by_rules":
        return (
            f"{charlie}Exactly 27 wins at once; over {rules.player_loses_over} loses at once. "
            f"Otherwise {dealer}"
        )
    his = "wins" if rules.both_27 == "dealer_wins" else "makes a stalemate (a push)"
    return (
        f"{charlie}Over {rules.player_loses_over} loses at once. Otherwise {dealer} A "
        f"player's 27 (not an initial 27) waits for the dealer's hand: a dealer's 27 {his}, "
        "any other total loses to it."
    )


#: each outcome option's sentence (none where the closer hand wins)
_OPTION_SENTENCES: dict[tuple[str, str], str] = {
    ("player_over", "loses"): " A player over 27 loses when the dealer is not over 27.",
    ("player_over", "push_if_closer"): (
        " A push when the player is over 27, the dealer is not, and the player is closer."
    ),
    ("dealer_over", "player_wins"): " A dealer over 27 loses when the player is not over 27.",
    ("dealer_over", "push_if_as_close"): (
        " A push when the dealer is over 27, the player is not, and the dealer is as close."
    ),
    ("both_over", "push"): " Both hands over 27 make a push.",
    ("both_over", "player_loses"): " When both hands are over 27 the player loses.",
    ("dealer_28", "stalemate"): (
        " A dealer's final 28 is a stalemate (a push) against any player total but 27."
    ),
    ("dealer_28", "dealer_wins"): " A dealer's final 28 wins against any player total but 27.",
}


def _showdown_sentence(rules: Finnish27Rules) -> str:
    """How two complete hands settle."""
    equal = (
        "equally close is a push"
        if rules.equal_distance == "push"
        else f"equally close goes to the {rules.equal_distance}"
    )
    text = f"The hand closer to 27 wins (over 27 counts its distance too); {equal}."
    for name in ("dealer_28", "both_over", "player_over", "dealer_over"):
        text += _OPTION_SENTENCES.get((name, getattr(rules, name)), "")
    return text


def fee_sentences(fee_per_100: Fraction) -> list[str]:
    """The house's fee in words, if there is one."""
    if not fee_per_100:
        return []
    return [
        f"The house collects a fee of {exact_text(fee_per_100)} per 100 staked on every "
        "wager, taken off the stake before the deal: the rest of the stake is the wager "
        "that plays and is paid at its odds. A lost wager loses the whole stake, fee "
        "included; a push returns the stake less the fee."
    ]


def twentyone_text(rules: TwentyOne2427Rules) -> RulesText:
    forced = rules.forced
    sentences = [
        "You play your hand against the dealer's: cards are dealt player, dealer, player, "
        "dealer, face up.",
        FINNISH_POINTS + " Jokers count 0.",
        "Ace and King are a Finnish 27: yours alone wins, the dealer's alone loses, both "
        f"are a {rules.both_initial_27s}.",
        "You hit or stand, but the rules decide for you in many spots (the page shows such "
        "plays as forced):",
        f"against a dealer's hard total below {forced.weak_dealer_hard_below} or soft total "
        f"below {forced.weak_dealer_soft_below}, you must hit hard totals below "
        f"{forced.must_hit_hard_below} and soft totals below {forced.must_hit_soft_below}, "
        f"must stand on hard {forced.must_stand_hard_from} or more and soft "
        f"{forced.must_stand_soft_from} or more, and choose freely in between;",
        "against any other dealer's total, you must hit below it, must stand on a hard total "
        "at or above it and on a soft total above it, and choose freely only with a soft "
        "total equal to it.",
        f"Over 27 you lose at once. The dealer hits hard totals below "
        f"{rules.dealer_hits_hard_below} and soft totals below {rules.dealer_hits_soft_below}; "
        "a dealer over 27 loses.",
        _twentyone_showdown(rules),
        *fee_sentences(rules.fee_per_100),
        shoe_sentence(rules),
        limits_sentence(rules),
    ]
    return RulesText(sentences)


def _twentyone_showdown(rules: TwentyOne2427Rules) -> str:
    equal = (
        "equally close is a push"
        if rules.equal_distance == "push"
        else f"equally close goes to the {rules.equal_distance}"
    )
    text = f"Otherwise the hand closer to 27 wins; {equal}."
    if rules.dealer_28 == "stalemate":
        text += " A dealer's final 28 is a stalemate (a push) against any total of yours but 27."
    elif rules.dealer_28 == "dealer_wins":
        text += " A dealer's final 28 wins against any total of yours but 27."
    return text + f" A win pays {odds_text(rules.win_pays)}."
