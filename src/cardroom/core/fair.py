"""Shoes anyone can verify: a shuffle rebuilt from a server seed and a client seed.

The construction (docs/fairness.md states it for re-implementers):

* the **stream**: block ``k`` (``k`` = 0, 1, 2, ...) is
  ``HMAC-SHA-256(key = server_seed, message = UTF-8(client_seed + ":" + str(k)))``,
  32 bytes; the stream is block 0, block 1, ... concatenated;
* a **word** is the next 4 bytes of the stream read as a big-endian unsigned 32-bit
  number (a block holds 8 words, taken in order);
* ``randbelow(n)`` (``1 <= n <= 2**32``): with ``limit = 2**32 - (2**32 mod n)``, take
  words until one is below ``limit``, and answer it modulo ``n`` (rejection sampling,
  no modulo bias; ``n = 1`` still takes one word);
* ``permutation(n)``: start from ``[0, 1, ..., n-1]``; for ``i`` from ``n-1`` down to 1,
  ``j = randbelow(i + 1)`` and swap the entries at ``i`` and ``j`` (Fisher-Yates from
  the top).  Entry ``p`` of the result is the index, in the unshuffled shoe, of the
  card dealt ``p``-th.

The server seed is 32 bytes from the operating system's entropy
(:func:`new_server_seed`); its commitment is the hex SHA-256 of those 32 bytes
(:func:`commitment`), shown before the shoe's first card and checked against the
seed once it is revealed.

>>> seed = bytes(range(32))
>>> HmacShuffler(seed, "cardroom").permutation(10)
[6, 9, 7, 3, 1, 5, 8, 2, 4, 0]
>>> commitment(seed)[:16]
'630dcd2966c43366'
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

#: the bytes of a server seed
SEED_BYTES = 32
#: the longest client seed (in characters)
MAX_CLIENT_SEED = 64
_WORD = 1 << 32


class HmacShuffler:
    """The :class:`~cardroom.core.shoe.Shuffler` of a verifiable shoe: HMAC-SHA-256 in
    counter mode feeding an unbiased Fisher-Yates (see the module's docstring).  Calls
    go on along one stream: a second :meth:`permutation` continues where the first
    stopped."""

    def __init__(self, server_seed: bytes, client_seed: str) -> None:
        if not isinstance(server_seed, bytes | bytearray) or not server_seed:
            raise ValueError("server seed: must be some bytes")
        self._key = bytes(server_seed)
        self._prefix = client_seed.encode("utf-8") + b":"
        self._counter = 0
        self._block = b""
        self._at = 0

    def _word(self) -> int:
        if self._at >= len(self._block):
            message = self._prefix + str(self._counter).encode("ascii")
            self._block = hmac.new(self._key, message, hashlib.sha256).digest()
            self._counter += 1
            self._at = 0
        word = int.from_bytes(self._block[self._at : self._at + 4], "big")
        self._at += 4
        return word

    def randbelow(self, n: int) -> int:
        """A uniformly random whole number in ``range(n)``, by rejection.

        >>> r = HmacShuffler(bytes(32), "")
        >>> [r.randbelow(6) for _ in range(8)]
        [0, 3, 0, 2, 0, 3, 2, 2]
        """
        if not 1 <= n <= _WORD:
            raise ValueError(f"randbelow: n must be between 1 and 2**32, not {n}")
        limit = _WORD - _WORD % n
        while True:
            word = self._word()
            if word < limit:
                return word % n

    def permutation(self, n: int) -> list[int]:
        """A uniformly random ordering of ``range(n)``: Fisher-Yates from the top."""
        order = list(range(n))
        for i in range(n - 1, 0, -1):
            j = self.randbelow(i + 1)
            order[i], order[j] = order[j], order[i]
        return order


def commitment(server_seed: bytes) -> str:
    """The hex SHA-256 of the server seed: shown before the shoe's first card."""
    return hashlib.sha256(server_seed).hexdigest()


def new_server_seed() -> bytes:
    """A fresh server seed: 32 bytes of the operating system's entropy."""
    return secrets.token_bytes(SEED_BYTES)


def new_client_seed() -> str:
    """A default client seed: 16 hex digits of the operating system's entropy."""
    return secrets.token_hex(8)


def parse_server_seed(text: str) -> bytes:
    """A server seed given in hex (64 digits); ValueError with a one-line reason.

    >>> parse_server_seed("00" * 31)
    Traceback (most recent call last):
    ...
    ValueError: seed: must be 64 hex digits (32 bytes), not 62 characters
    """
    text = text.strip().lower()
    if len(text) != 2 * SEED_BYTES:
        raise ValueError(
            f"seed: must be {2 * SEED_BYTES} hex digits ({SEED_BYTES} bytes), "
            f"not {len(text)} characters"
        )
    try:
        return bytes.fromhex(text)
    except ValueError:
        raise ValueError("seed: must be hex digits (0-9, a-f)") from None


def check_client_seed(text: str) -> str:
    """A client seed as given: 1 to 64 printable characters (ValueError otherwise).

    >>> check_client_seed("lucky 7")
    'lucky 7'
    >>> check_client_seed("")
    Traceback (most recent call last):
    ...
    ValueError: client seed: must be 1 to 64 printable characters
    """
    if not 1 <= len(text) <= MAX_CLIENT_SEED or not text.isprintable():
        raise ValueError(f"client seed: must be 1 to {MAX_CLIENT_SEED} printable characters")
    return text
