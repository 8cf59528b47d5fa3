"""The verifiable shuffle: fixed vectors (a change of construction fails them), the
construction re-implemented here from its description, the commitment and the seeds."""

from __future__ import annotations

import hashlib
import hmac

import pytest

from cardroom.core.fair import (
    HmacShuffler,
    check_client_seed,
    commitment,
    new_client_seed,
    new_server_seed,
    parse_server_seed,
)
from cardroom.core.shoe import Shoe, ShoeRules

SEED = bytes(range(32))


def test_fixed_vectors() -> None:
    assert HmacShuffler(SEED, "cardroom").permutation(10) == [6, 9, 7, 3, 1, 5, 8, 2, 4, 0]
    assert HmacShuffler(SEED, "cardroom").permutation(54)[:12] == [
        1, 31, 18, 3, 24, 28, 30, 19, 13, 48, 0, 22,
    ]  # fmt: skip
    zero = HmacShuffler(bytes(32), "")
    assert [zero.randbelow(6) for _ in range(8)] == [0, 3, 0, 2, 0, 3, 2, 2]
    assert commitment(SEED) == ("630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd")
    # block 0 of the stream for the empty client seed is HMAC(key, b":0")
    assert hmac.new(bytes(32), b":0", hashlib.sha256).hexdigest().startswith("028dc0b2")


def _reference(seed: bytes, client: str, n: int) -> list[int]:
    """The construction as docs/fairness.md states it, written out again."""
    stream = b"".join(
        hmac.new(seed, f"{client}:{k}".encode(), hashlib.sha256).digest() for k in range(400)
    )
    words = iter(int.from_bytes(stream[i : i + 4], "big") for i in range(0, len(stream), 4))

    def below(m: int) -> int:
        limit = 2**32 - 2**32 % m
        while (w := next(words)) >= limit:
            pass
        return w % m

    order = list(range(n))
    for i in range(n - 1, 0, -1):
        j = below(i + 1)
        order[i], order[j] = order[j], order[i]
    return order


@pytest.mark.parametrize("client", ["", "lucky 7", "pöytä:3"])
def test_the_construction_as_documented(client: str) -> None:
    seed = hashlib.sha256(client.encode()).digest()
    assert HmacShuffler(seed, client).permutation(324) == _reference(seed, client, 324)


def test_rejection_takes_another_word() -> None:
    """A word at or above the limit is refused: with n = 2**31 + 1 about half are."""
    r = HmacShuffler(SEED, "x")
    draws = [r.randbelow(2**31 + 1) for _ in range(50)]
    assert r._counter > 50 // 8 + 1  # more words taken than draws
    assert all(0 <= d <= 2**31 for d in draws)


def test_a_shoe_shuffled_by_it_is_a_permutation_of_the_shoe() -> None:
    rules = ShoeRules(decks=1, jokers_per_deck=2, reshuffle_after=40)
    shoe = Shoe(rules, HmacShuffler(SEED, "c"))
    shoe.shuffle("new_shoe")
    assert sorted(shoe.order, key=str) == sorted(rules.cards(), key=str)
    again = Shoe(rules, HmacShuffler(SEED, "c"))
    again.shuffle("new_shoe")
    assert again.order == shoe.order
    other = Shoe(rules, HmacShuffler(SEED, "d"))
    other.shuffle("new_shoe")
    assert other.order != shoe.order


def test_seeds() -> None:
    seed = new_server_seed()
    assert len(seed) == 32 and seed != new_server_seed()
    assert parse_server_seed(seed.hex().upper()) == seed
    assert len(new_client_seed()) == 16
    for bad in ("zz" * 32, "00" * 31, ""):
        with pytest.raises(ValueError, match=r"^seed: must be"):
            parse_server_seed(bad)
    for bad in ("", "x" * 65, "tab\there"):
        with pytest.raises(ValueError, match=r"^client seed:"):
            check_client_seed(bad)
    with pytest.raises(ValueError):
        HmacShuffler(SEED, "").randbelow(0)
