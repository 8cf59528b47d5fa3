"""The real shoe's counts kept on disk (:func:`cardroom.analysis.cache.cached_json`).

A count of finnish27 or 21-24-27 (:class:`~cardroom.games.finnish.shoe_count.Counts`:
whole numbers of card sequences per result) depends on the rules, the shoe, the
player's play and, for the effects of removal, the suits of the card taken out; and on
the code.  Its key holds all of them as text: the rules as TOML, every card count of
the shoe per rank and suit, the play as the decision on every hand total against
every dealer's two-card total the count can ask about, the suit mixture, and (in the
cache's key) a digest of the source.  Every figure is made from the counts the same
way whether they were counted now or read, so a figure is the same to the byte.

A play that cannot be written down (it fails on a total in an unexpected way) is
counted every time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from functools import partial
from typing import Any

from cardroom.analysis.cache import cached_json
from cardroom.core.rules import rules_to_toml
from cardroom.games.finnish.hands import Total, finnish_total
from cardroom.games.finnish.replacement import Hits
from cardroom.games.finnish.shoe_count import Counts
from cardroom.games.finnish.shoe_deal import ShoeMakeup, hit_table, sample_card

__all__ = ["cached_counts", "play_text"]

#: (label, bonus or None, sequences) rows, the longest round, all sequences, floats
_Row = tuple[str, str | None, int]


def _dealer_starts() -> list[Total]:
    """Every two-card total the dealer can start from (Jokers included)."""
    seen: dict[Total, None] = {}
    for a in range(14):
        for b in range(14):
            seen[finnish_total([sample_card(a), sample_card(b)])] = None
    return list(seen)


def _against(hits: Hits, dealer: Total, total: Total) -> bool:
    return hits(total, dealer)


def play_text(hits: Hits) -> str | None:
    """The player's decision on every total against every dealer start, as text: what
    the count reads of a play (its table per dealer start, made as the count makes it).
    A start whose table cannot be made (a play without a row for the dealer's 27, which
    is never played out) is written as such: if the count asked for it, it would fail
    too.  None when the play cannot be written down at all."""
    rows = []
    for dealer in _dealer_starts():
        try:
            table = hit_table(partial(_against, hits, dealer))
        except (LookupError, ValueError) as err:
            rows.append(f"{dealer}: {type(err).__name__}")
            continue
        except Exception:  # anything else: counted every time
            return None
        rows.append(f"{dealer}: " + "".join("1" if x else "0" for x in table.ravel()))
    return "\n".join(rows)


def _shoe_text(shoe: ShoeMakeup) -> str:
    return f"counts {list(shoe.counts)} suits {[list(s) for s in shoe.suits]}"


def _mixture_text(mixture: Sequence[tuple[Fraction, tuple[tuple[int, ...], ...]]] | None) -> str:
    if mixture is None:
        return "mixture none"
    return "mixture " + "; ".join(f"{w} {[list(s) for s in suits]}" for w, suits in mixture)


def _encode(counts: Counts) -> dict[str, Any]:
    return {
        "results": [[label, bonus, n] for (label, bonus), n in counts.results.items()],
        "longest": counts.longest,
        "total": counts.total,
        "floats": counts.floats,
    }


def _decode(data: Any) -> Counts:
    results: dict[tuple[str, str | None], int] = {}
    for label, bonus, n in data["results"]:
        if not isinstance(n, int) or not isinstance(label, str):
            raise TypeError("not a count")
        results[(label, None if bonus is None else str(bonus))] = n
    total, longest = data["total"], data["longest"]
    if not isinstance(total, int) or not isinstance(longest, int) or sum(results.values()) != total:
        raise ValueError("the counts do not add up")
    floats = {str(k): float(v) for k, v in data["floats"].items()}
    return Counts(results, longest, total, floats)


def cached_counts(
    kind: str,
    rules: Any,
    shoe: ShoeMakeup,
    hits: Hits | None,
    mixture: Sequence[tuple[Fraction, tuple[tuple[int, ...], ...]]] | None,
    compute: Callable[[], Counts],
) -> Counts:
    """``compute()``'s counts of ``kind`` for these rules, shoe, play (None: the
    rules' own, which the TOML holds) and suit mixture, from the disk cache when it
    has them."""
    play = "the rules' play" if hits is None else play_text(hits)
    if play is None:
        return compute()
    parts = [rules_to_toml(rules), _shoe_text(shoe), play, _mixture_text(mixture)]
    return cached_json(kind, parts, compute, _encode, _decode)
