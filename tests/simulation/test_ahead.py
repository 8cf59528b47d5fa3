"""Kernels built ahead of time (cardroom.simulation.ahead): a build is called in place of
the JIT for arguments of its signature, and the JIT is called for any other."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from numba import njit

from cardroom.simulation import ahead


@njit(cache=False)
def _toy(values: np.ndarray, out: np.ndarray, count: int, negate: bool) -> tuple[int, int]:
    total = 0
    for i in range(count):
        total += values[i]
        out[i] = total
    return (-total if negate else total), count


def test_the_arguments_kinds_are_checked() -> None:
    kinds = ("array:<i8:1:ro", "array:<i8:1:rw", "int64", "bool")
    values, out = np.arange(4, dtype=np.int64), np.zeros(4, np.int64)
    assert ahead._fits(kinds, (values, out, 3, True))
    assert ahead._fits(kinds, (values, out, np.int64(3), np.bool_(False)))
    assert not ahead._fits(kinds, (values.astype(np.int32), out, 3, True))  # dtype
    assert not ahead._fits(kinds, (values.reshape(2, 2), out, 3, True))  # dimensions
    assert not ahead._fits(kinds, (np.arange(8, dtype=np.int64)[::2], out, 3, True))  # order
    out.flags.writeable = False
    assert not ahead._fits(kinds, (values, out, 3, True))  # written by the kernel
    out = np.zeros(4, np.int64)
    assert not ahead._fits(kinds, (values, out, True, True))  # a bool for an int
    assert not ahead._fits(kinds, (values, out, 2**63, True))  # beyond 64 bits
    assert not ahead._fits(kinds, (values, out, 3))


def test_a_build_is_called_in_place_of_the_jit(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("CARDROOM_CACHE_DIR", str(tmp_path))
    ahead._key.cache_clear()
    name = ahead._name(_toy)
    monkeypatch.delitem(ahead._BUILT, name, raising=False)
    values = np.arange(5, dtype=np.int64)
    values.flags.writeable = False
    out = np.zeros(5, np.int64)
    assert ahead.call(_toy, values, out, 4, True) == (-6, 4)  # the JIT: no build yet
    assert ahead._BUILT[name] is None
    try:
        assert ahead.build({name: _toy}) == [name]
        assert ahead.folder().is_relative_to(tmp_path)
        out[:] = 0
        assert ahead.call(_toy, values, out, 5, False) == (10, 5)
        built = ahead._BUILT[name]
        assert built is not None and built[0] is not _toy
        assert list(out) == [0, 1, 3, 6, 10]
        # another dtype goes to the JIT, which compiles it as before
        assert ahead.call(_toy, values.astype(np.int32), out, 2, False) == (1, 2)
    finally:
        ahead._BUILT.pop(name, None)
        ahead._key.cache_clear()


def test_the_kernels_and_the_runner_import_without_numba() -> None:
    """Their compiled functions are made when first needed (cardroom.simulation.jit): a
    run that calls builds never imports Numba."""
    script = (
        "import sys, cardroom.app.runner, cardroom.games.baccarat.kernel, "
        "cardroom.games.finnish.kernel, cardroom.games.chemin_de_fer.kernel; "
        "print('numba' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.stdout.strip() == "False", done.stderr
