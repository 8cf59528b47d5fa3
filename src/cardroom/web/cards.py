"""Cards drawn as SVG: the one drawing of a card for every page (and the back of one).

:func:`card_svg` draws any card with its Finnish index (Ace ``1``, Jack ``11``, Queen
``12``, King ``13``; the Joker has none) and its suit symbol in two corners and a large
suit in the middle; :func:`back_svg` draws the back that hides a card.  The web table
serves them at ``/cards/<code>.svg`` (``/cards/back.svg``), so a page shows a card with
``<img src="/cards/Kh.svg" alt="13 of hearts">``; :func:`card_label` is that text
alternative.  Nothing here loads a font or an image from elsewhere.

>>> from cardroom.core.cards import Card
>>> card_label(Card.parse("Kh")), card_label(Card.parse("As")), card_label(Card.parse("Jo"))
('13 of hearts', '1 of spades', 'Joker')
>>> ">13<" in card_svg(Card.parse("Kh")) and "♥" in card_svg(Card.parse("Kh"))
True
"""

from __future__ import annotations

from functools import cache

from cardroom.core.cards import Card, CardError, Suit

__all__ = ["back_svg", "card_label", "card_svg", "svg_for_code"]

WIDTH, HEIGHT = 100, 140
RED = "#c0162c"
BLACK = "#16181d"
JOKER = "#6b2fa3"
FONT = "DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif"

SUIT_NAMES = {
    Suit.SPADES: "spades",
    Suit.CLUBS: "clubs",
    Suit.HEARTS: "hearts",
    Suit.DIAMONDS: "diamonds",
}


def card_label(card: Card) -> str:
    """The card in words, by its Finnish index: ``13 of hearts``, ``Joker``."""
    if card.suit is None:
        return "Joker"
    return f"{card.rank.finnish} of {SUIT_NAMES[card.suit]}"


def _frame(fill: str, inner: str, label: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}" role="img" aria-label="{label}">'
        f"<title>{label}</title>"
        f'<rect x="1.5" y="1.5" width="{WIDTH - 3}" height="{HEIGHT - 3}" rx="9" '
        f'fill="{fill}" stroke="#8a8f98" stroke-width="1.5"/>'
        f"{inner}</svg>"
    )


@cache
def card_svg(card: Card) -> str:
    """The face of ``card`` as an SVG document."""
    label = card_label(card)
    if card.suit is None:
        inner = (
            f'<text x="50" y="62" text-anchor="middle" font-family="{FONT}" font-size="44" '
            f'fill="{JOKER}">★</text>'
            f'<text x="50" y="98" text-anchor="middle" font-family="{FONT}" font-size="17" '
            f'font-weight="bold" letter-spacing="2" fill="{JOKER}">JOKER</text>'
            f'<rect x="10" y="10" width="80" height="120" rx="6" fill="none" '
            f'stroke="{JOKER}" stroke-width="2" stroke-dasharray="4 3"/>'
        )
        return _frame("#fffdf7", inner, label)
    colour = RED if card.suit in (Suit.HEARTS, Suit.DIAMONDS) else BLACK
    index, suit = card.rank.finnish, card.suit.symbol
    size = 30 if len(index) == 1 else 27
    corner = (
        f'<text x="8" y="32" font-family="{FONT}" font-size="{size}" font-weight="bold" '
        f'fill="{colour}">{index}</text>'
        f'<text x="9" y="56" font-family="{FONT}" font-size="22" fill="{colour}">{suit}</text>'
    )
    inner = (
        corner
        + f'<g transform="rotate(180 50 70)">{corner}</g>'
        + f'<text x="50" y="90" text-anchor="middle" font-family="{FONT}" font-size="46" '
        f'fill="{colour}">{suit}</text>'
    )
    return _frame("#ffffff", inner, label)


@cache
def back_svg() -> str:
    """The back of a card (a card nobody may see yet)."""
    inner = (
        '<rect x="8" y="8" width="84" height="124" rx="6" fill="#1f4e8c"/>'
        '<path d="M8 8 L92 132 M92 8 L8 132 M50 8 L50 132 M8 70 L92 70" '
        'stroke="#5d8ed1" stroke-width="2"/>'
        '<circle cx="50" cy="70" r="18" fill="#1f4e8c" stroke="#a9c6ee" stroke-width="3"/>'
    )
    return _frame("#ffffff", inner, "the back of a card")


def svg_for_code(code: str) -> str | None:
    """The SVG of a card code (``Kh``, ``Jo``) or of ``back``; None for anything else."""
    if code == "back":
        return back_svg()
    if len(code) > 3:
        return None
    try:
        card = Card.parse(code)
    except CardError:
        return None
    if card.code != code:  # one address per card: Th, not 10h
        return None
    return card_svg(card)
