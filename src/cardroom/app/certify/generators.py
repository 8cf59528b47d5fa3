"""The generators a certificate tests: the production shuffle itself, as the tables call
it, and the production ``randbelow`` its raw draws come from.

A :class:`Generator` is named, said in words (how it is seeded and how it scales its
draws to a card's range), and makes a fresh shuffler (and its ``randbelow``) in each
worker process.  The certifier never copies the shuffle: it calls ``permutation(n)`` of
the very object a table deals from.
"""

from __future__ import annotations

import importlib
import os
import secrets
from collections.abc import Callable
from dataclasses import dataclass

from cardroom.core.shoe import SecureShuffler, Shuffler

__all__ = ["GENERATORS", "Generator", "RandBelow", "available", "generator"]

#: a ``randbelow``: a uniform whole number in ``range(n)``
RandBelow = Callable[[int], int]


@dataclass(frozen=True)
class Generator:
    """A shuffle under test: ``make`` gives a fresh shuffler and the ``randbelow`` it
    draws through (None: the raw draws cannot be had, and the batteries are skipped)."""

    name: str
    title: str
    #: how it is seeded and how it scales a draw to ``range(n)``, in words (the report's)
    words: str
    make: Callable[[], tuple[Shuffler, RandBelow | None]]


def _system() -> tuple[Shuffler, RandBelow | None]:
    shuffler = SecureShuffler()
    # the very bound method SystemRandom.shuffle calls for each swap
    draw: RandBelow = shuffler._random._randbelow  # type: ignore[attr-defined]
    return shuffler, draw


SYSTEM_WORDS = (
    "cardroom.core.shoe.SecureShuffler: Python's secrets.SystemRandom, which reads the "
    "operating system's entropy (os.urandom, Linux's getrandom(2) ChaCha20 generator, "
    "reseeded by the kernel from its entropy pool); it holds no seed of its own and no "
    "state in the process. A shoe of n cards is shuffled by Fisher-Yates "
    "(random.shuffle): for i from n-1 down to 1, j = randbelow(i+1) and cards i and j "
    "are swapped. randbelow(m) takes k = bit_length(m) fresh bits (getrandbits(k)) and "
    "draws again while the value is m or more (rejection sampling): every value below m "
    "has the same probability, exactly, with no modulo bias; at most half the draws are "
    "rejected. The raw files are bytes each drawn as randbelow(256) from the same "
    "function (9 bits drawn, values of 256 and above rejected)."
)

HMAC_WORDS = (
    "cardroom.core.fair.HmacShuffler, the verifiable shoe: HMAC-SHA-256 in counter mode, "
    "keyed by a server seed of 32 bytes from the operating system's entropy "
    "(fair.new_server_seed, secrets) over the message client_seed:k for k = 0, 1, 2...; "
    "each worker process certifies its own server seed, with the client seed 'certify-' "
    "and its process id. The stream is read as big-endian 32-bit words; randbelow(m) takes "
    "words until one is below 2^32 - (2^32 mod m) and answers it modulo m (rejection: no "
    "modulo bias). A shoe of n cards is shuffled by Fisher-Yates from the top: for i from "
    "n-1 down to 1, j = randbelow(i+1) and entries i and j are swapped. The raw files are "
    "bytes each drawn as randbelow(256) from the same generator."
)


def _hmac() -> tuple[Shuffler, RandBelow | None]:
    fair = importlib.import_module("cardroom.core.fair")
    shuffler: Shuffler = fair.HmacShuffler(secrets.token_bytes(32), f"certify-{os.getpid()}")
    draw = getattr(shuffler, "randbelow", None)
    return shuffler, draw if callable(draw) else None


#: every generator the command can certify, by name
GENERATORS: dict[str, Generator] = {
    "system": Generator("system", "secrets.SystemRandom (SecureShuffler)", SYSTEM_WORDS, _system),
    "hmac": Generator("hmac", "HMAC-SHA-256 counter mode (HmacShuffler)", HMAC_WORDS, _hmac),
}


def available() -> list[str]:
    """The generators this installation has (hmac: only with ``cardroom.core.fair``)."""
    names = ["system"]
    try:
        fair = importlib.import_module("cardroom.core.fair")
    except ImportError:
        return names
    if hasattr(fair, "HmacShuffler"):
        names.append("hmac")
    return names


def generator(name: str) -> Generator:
    """The generator called ``name`` (a ValueError naming those there are)."""
    if name not in available():
        raise ValueError(
            f"--generator: {name!r} is not one this installation has: {', '.join(available())}"
        )
    return GENERATORS[name]
