"""The kernels compiled ahead of time, where they have been built: no Numba load at a run.

A kernel plays its rounds through :func:`call`, naming the compiled function (a Numba
``@njit`` dispatcher) and its arguments.  Where this code's kernels were built ahead of
time on this machine (:func:`build`, from :mod:`cardroom.app.runner_ahead`:
``python -m cardroom.app.runner_ahead``), the call goes to that build, an extension module
made by Numba's AOT compiler (``numba.pycc``) from the very function the JIT compiles,
for the one signature the JIT gave it; otherwise, and for any argument that is not of
that signature, to the dispatcher as before.  The two are the same code and give the
same counts; the build spares a run Numba's first load of the kernel (a few tenths of a
second of processor time before any round is played).

A build is kept under a key of everything the compiled code depends on: the source of
the core, the games and the simulator, the versions of Python, NumPy and Numba, and
the machine's processor (the code is compiled for it): change any and the build is no
longer found.  The folder is ``$CARDROOM_CACHE_DIR/kernels`` if that is set, else
``kernels`` in cardroom's folder of the user's cache directory.

The build's wrapper does not check the type of its array arguments, so :func:`call`
does, each time: the dtype, the dimensions, C order, and that an array the kernel writes
is writable.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import platform
import shutil
import sys
import tempfile
import warnings
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import platformdirs

import cardroom

__all__ = ["build", "call", "folder", "seen"]

#: Bumped when the layout of a build changes.
FORMAT = 1

#: a build's compiled function and the kind of each of its arguments
Built = tuple[Callable[..., Any], tuple[str, ...]]

#: the dispatchers :func:`call` has run in this process, by name (what :func:`build` builds)
_SEEN: dict[str, Any] = {}
#: each dispatcher's build, once looked up (None: not built)
_BUILT: dict[str, Built | None] = {}

_INT64 = (-(2**63), 2**63)


def call(dispatcher: Any, *args: Any) -> Any:
    """``dispatcher(*args)``, through its build where there is one and ``args`` are of
    its signature."""
    name = _name(dispatcher)
    if name not in _BUILT:
        _SEEN[name] = dispatcher
        _BUILT[name] = _load(name)
    built = _BUILT[name]
    if built is not None and _fits(built[1], args):
        return built[0](*args)
    return dispatcher(*args)


def seen() -> dict[str, Any]:
    """The dispatchers :func:`call` has run in this process, by name."""
    return dict(_SEEN)


def folder() -> Path:
    """Where this code's builds are kept on this machine."""
    override = os.environ.get("CARDROOM_CACHE_DIR")
    root = Path(override) if override else Path(platformdirs.user_cache_dir("cardroom"))
    return root / "kernels" / _key()


def _name(dispatcher: Any) -> str:
    function = dispatcher.py_func
    return f"{function.__module__}.{function.__qualname__}"


def _module(name: str) -> str:
    """The extension module of a dispatcher's build."""
    return "kernel_" + hashlib.sha256(name.encode()).hexdigest()[:16]


@cache
def _key() -> str:
    digest = hashlib.sha256()
    versions = [str(FORMAT), sys.version, np.__version__, _numba_version()]
    digest.update("\n".join([*versions, _processor()]).encode())
    root = Path(cardroom.__file__).parent
    for part in ("core", "games", "simulation"):
        for path in sorted((root / part).rglob("*.py")):
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:32]


def _numba_version() -> str:
    """Numba's version, from the name of its install's record where that is the plain
    ``numba-<version>.dist-info`` beside the package: ``importlib.metadata`` imports
    itself and reads every distribution on the path first (a tenth of a simulation's
    start-up, which loads a build without importing Numba)."""
    spec = importlib.util.find_spec("numba")
    if spec is not None and spec.origin:
        records = list(Path(spec.origin).parent.parent.glob("numba-*.dist-info"))
        if len(records) == 1:
            return records[0].name.removeprefix("numba-").removesuffix(".dist-info")
    from importlib import metadata  # lazy: importlib.metadata (any other install)

    return metadata.version("numba")


def _processor() -> str:
    """The machine's processor: its model and its features, where Linux tells them.
    (Not ``platform.processor()``, which on Linux runs ``uname -p``: a process of its
    own on every start-up, for a name that ``machine()`` and the model already give.)"""
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    first = text.split("\n\n")[0]
    lines = [line for line in first.splitlines() if line.startswith(("model name", "flags"))]
    return "\n".join([platform.machine(), *lines])


def _load(name: str) -> Built | None:
    """The build of the dispatcher ``name``, where there is one."""
    module = _module(name)
    where = folder()
    try:
        about = json.loads((where / f"{module}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if about.get("entry") != name:
        return None
    spec = importlib.util.spec_from_file_location(module, where / about["file"])
    if spec is None or spec.loader is None:
        return None
    loaded = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(loaded)
    except ImportError:
        return None
    return loaded.play, tuple(about["args"])


def _fits(kinds: tuple[str, ...], args: tuple[Any, ...]) -> bool:
    """Are ``args`` of the kinds a build was compiled for?"""
    if len(kinds) != len(args):
        return False
    for kind, arg in zip(kinds, args, strict=True):
        if kind == "bool":
            if not isinstance(arg, bool | np.bool_):
                return False
        elif kind == "int64":
            if isinstance(arg, bool) or not isinstance(arg, int | np.int64):
                return False
            if not _INT64[0] <= int(arg) < _INT64[1]:
                return False
        else:
            _, dtype, ndim, access = kind.split(":")
            if not isinstance(arg, np.ndarray) or arg.dtype.str != dtype:
                return False
            if arg.ndim != int(ndim) or not arg.flags.c_contiguous:
                return False
            if access == "rw" and not arg.flags.writeable:
                return False
    return True


def _kind(numba_type: Any) -> str | None:
    """An argument's kind as :func:`_fits` checks it (None: a type a build does not take)."""
    from numba.core import types  # lazy: Numba (only to build)
    from numba.np.numpy_support import as_dtype  # lazy: Numba (only to build)

    if isinstance(numba_type, types.Array):
        if numba_type.layout != "C":
            return None
        access = "rw" if numba_type.mutable else "ro"
        return f"array:{as_dtype(numba_type.dtype).str}:{numba_type.ndim}:{access}"
    if numba_type == types.int64:
        return "int64"
    if numba_type == types.boolean:
        return "bool"
    return None


def build(dispatchers: Mapping[str, Any]) -> list[str]:
    """Build each dispatcher (by name, as :func:`seen` gives them) that the JIT has
    compiled for exactly one signature of plain arguments; return what was built.  Each
    goes to a folder of its own first, then into :func:`folder`, its description last (a
    build is found only once whole)."""
    with warnings.catch_warnings():  # (its pending deprecation: said in the docs)
        warnings.filterwarnings("ignore", message=".*pycc.*")
        from numba.pycc import CC  # type: ignore[attr-defined]  # lazy: Numba's AOT compiler

    where = folder()
    where.mkdir(parents=True, exist_ok=True)
    done = []
    for name, dispatcher in sorted(dispatchers.items()):
        if len(dispatcher.signatures) != 1:
            continue
        signature = dispatcher.overloads[dispatcher.signatures[0]].signature
        kinds = [_kind(t) for t in signature.args]
        if any(kind is None for kind in kinds):
            continue
        module = _module(name)
        with tempfile.TemporaryDirectory(dir=where) as scratch:
            compiler = CC(module)  # type: ignore[no-untyped-call]
            compiler.output_dir = scratch
            compiler.target_cpu = "host"
            compiler.verbose = False
            compiler.export("play", signature)(dispatcher.py_func)  # type: ignore[no-untyped-call]
            compiler.compile()
            [made] = Path(scratch).glob(f"{module}.*")
            os.replace(made, where / made.name)
            about = {"entry": name, "file": made.name, "args": kinds}
            text = Path(scratch) / f"{module}.json"
            text.write_text(json.dumps(about), encoding="utf-8")
            os.replace(text, where / text.name)
        _BUILT.pop(name, None)
        done.append(name)
    return done


def clear() -> None:
    """Remove this code's builds on this machine (the next run uses the JIT)."""
    shutil.rmtree(folder(), ignore_errors=True)
    _BUILT.clear()
