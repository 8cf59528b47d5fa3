"""The kernels' random numbers: xoshiro256** seeded from a NumPy ``SeedSequence``.

NumPy's ``Generator`` is reachable from Numba, but drawing a bounded integer
through it costs about 100 ns, more than playing a whole coup.  The kernels
therefore run their own xoshiro256** generator (Blackman and Vigna), whose four
64-bit words of state come from ``SeedSequence(seed, spawn_key=(batch,))``, and
shuffle with Fisher-Yates using Lemire's multiply-and-reject method on 16-bit
slices of each output, which is exactly unbiased.  The tests check the shuffle's
uniformity statistically.
"""

from __future__ import annotations

import numpy as np

from cardroom.simulation.jit import njit

__all__ = [
    "batch_state",
    "jumped",
    "next_u64",
    "shuffle",
    "shuffle_in_place",
    "shuffled_orders",
    "uniform_ticks",
]

_U64 = np.uint64


def batch_state(seed: int, batch: int) -> np.ndarray:
    """The generator state of batch ``batch`` of a run seeded ``seed``."""
    if seed < 0:
        raise ValueError("seed: must be 0 or more")
    sequence = np.random.SeedSequence(seed, spawn_key=(batch,))
    words = sequence.generate_state(4, np.uint64)
    if not words.any():  # xoshiro's one forbidden state
        words[0] = 1
    return words


@njit(inline="always")
def _rotl(x: np.uint64, k: int) -> np.uint64:
    return (x << _U64(k)) | (x >> _U64(64 - k))


@njit(inline="always")
def _step(
    s0: np.uint64, s1: np.uint64, s2: np.uint64, s3: np.uint64
) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64, np.uint64]:
    """One step of xoshiro256** on its four words held in locals: the output and the
    words after it."""
    result = _rotl(s1 * _U64(5), 7) * _U64(9)
    t = s1 << _U64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    return result, s0, s1, s2, s3


@njit(inline="always")
def next_u64(state: np.ndarray) -> np.uint64:
    """The next output of the generator whose four words are ``state`` (advanced in place)."""
    result, s0, s1, s2, s3 = _step(state[0], state[1], state[2], state[3])
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3
    return result


_JUMP = np.array(
    [0x180EC6D33CFD0ABA, 0xD5A61266F0C9392C, 0xA9582618E03FC9AA, 0x39ABDC4529B1661C],
    dtype=np.uint64,
)


@njit(cache=True)
def jumped(state: np.ndarray) -> np.ndarray:
    """A copy of ``state`` moved 2**128 outputs ahead (xoshiro's jump): a second stream
    that cannot overlap the first within any run."""
    work = state.copy()
    out = np.zeros(4, np.uint64)
    for word in _JUMP:
        for bit in range(64):
            if (word >> _U64(bit)) & _U64(1):
                out ^= work
            next_u64(work)
    return out


@njit(cache=True)
def uniform_ticks(state: np.ndarray, count: int) -> np.ndarray:
    """``count`` outputs as 53-bit integers ``k``: the uniform numbers ``k / 2**53`` a
    kernel compares its mixed decisions with (for the tests)."""
    out = np.empty(count, np.int64)
    for i in range(count):
        out[i] = np.int64(next_u64(state) >> _U64(11))
    return out


_LOW16 = _U64(0xFFFF)


@njit(inline="always")
def _below(
    bits: np.uint64, bound: np.uint64, s0: np.uint64, s1: np.uint64, s2: np.uint64, s3: np.uint64
) -> tuple[int, np.uint64, np.uint64, np.uint64, np.uint64]:
    """A uniform index below ``bound`` (at most 2**16) from the low 16 bits of ``bits``:
    Lemire's multiply-and-reject, with fresh outputs in the rare case of a rejection
    (and the generator's words after them)."""
    product = (bits & _LOW16) * bound
    low = product & _LOW16
    while low < bound and low < (_U64(1 << 16) - bound) % bound:
        fresh, s0, s1, s2, s3 = _step(s0, s1, s2, s3)
        product = (fresh & _LOW16) * bound
        low = product & _LOW16
    return int(product >> _U64(16)), s0, s1, s2, s3


@njit(inline="always")
def shuffle_in_place(state: np.ndarray, cards: np.ndarray) -> None:
    """Fisher-Yates over ``cards`` (fewer than 2**16 of them).

    Each 64-bit output gives four 16-bit numbers, each turned into an index by
    Lemire's multiply-and-reject method (exactly unbiased).  The four are taken in
    one unrolled step, without a counter to test between them: that halved the
    time of a shuffle.  The generator's four words are held in locals for the whole
    shuffle and written back once: read and written through ``state`` at each output,
    which the compiler cannot keep apart from ``cards``, a shuffle took 10% longer.
    """
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    i = cards.shape[0] - 1
    while i >= 4:
        bits, s0, s1, s2, s3 = _step(s0, s1, s2, s3)
        for _ in range(4):
            j, s0, s1, s2, s3 = _below(bits, _U64(i + 1), s0, s1, s2, s3)
            bits >>= _U64(16)
            tmp = cards[i]
            cards[i] = cards[j]
            cards[j] = tmp
            i -= 1
    while i >= 1:
        bits, s0, s1, s2, s3 = _step(s0, s1, s2, s3)
        j, s0, s1, s2, s3 = _below(bits, _U64(i + 1), s0, s1, s2, s3)
        tmp = cards[i]
        cards[i] = cards[j]
        cards[j] = tmp
        i -= 1
    state[0], state[1], state[2], state[3] = s0, s1, s2, s3


@njit(cache=True)
def shuffle(state: np.ndarray, order: np.ndarray) -> None:
    """Shuffle ``order`` in place (Fisher-Yates)."""
    shuffle_in_place(state, order)


@njit(cache=True)
def shuffled_orders(state: np.ndarray, size: int, count: int) -> np.ndarray:
    """``count`` successive shuffles of one index array, as the kernels make them."""
    order = np.arange(size).astype(np.int16)
    out = np.empty((count, size), np.int16)
    for s in range(count):
        shuffle(state, order)
        out[s] = order
    return out
