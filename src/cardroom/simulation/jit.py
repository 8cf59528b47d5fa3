"""Numba's ``njit``, applied when a compiled function is first needed, so that importing
a kernel does not import Numba.

A run whose kernel was built ahead of time (:mod:`cardroom.simulation.ahead`) calls the
build and never needs Numba (importing it is a fifth of a second of processor time).
The kernels' modules therefore mark their compiled functions with this ``njit``: it
keeps the function and Numba's options, and makes the Numba dispatcher the first time
the function is called or asked for anything a dispatcher has (``signatures``...).
Making it also puts dispatchers in place of the marked functions among the function's
globals, and so on through theirs, so that Numba compiles the very code it compiled
with ``numba.njit`` at import: the same functions, the same options, the same disk
cache.
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from typing import Any, TypeVar, overload

__all__ = ["Deferred", "njit"]

F = TypeVar("F", bound=Callable[..., Any])


class Deferred:
    """A function to compile with ``numba.njit(**options)`` once it is needed."""

    def __init__(self, function: Callable[..., Any], options: dict[str, Any]) -> None:
        self.py_func = function
        self.options = options
        self.dispatcher: Any = None
        self.__name__ = function.__name__
        self.__qualname__ = function.__qualname__
        self.__module__ = function.__module__
        self.__doc__ = function.__doc__
        self.__wrapped__ = function

    def compiled(self) -> Any:
        """The Numba dispatcher (made the first time; compiled by Numba when first called)."""
        if self.dispatcher is None:
            from numba import njit as numba_njit  # lazy: Numba (not for a kernel built ahead)

            self.dispatcher = numba_njit(**self.options)(self.py_func)
            _resolve(self.py_func.__globals__)
        return self.dispatcher

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.compiled()(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.compiled(), name)


def _resolve(namespace: MutableMapping[str, Any]) -> None:
    """Put each deferred function's dispatcher in place of it in ``namespace`` (a
    module's globals), where Numba looks the functions a compiled function calls up."""
    for key, value in list(namespace.items()):
        if isinstance(value, Deferred):
            namespace[key] = value.compiled()


@overload
def njit(function: F, /) -> F: ...


@overload
def njit(**options: Any) -> Callable[[F], F]: ...


def njit(function: Any = None, /, **options: Any) -> Any:
    """``numba.njit``, deferred: ``@njit``, ``@njit(cache=True)`` or ``njit(**options)(f)``."""
    if function is not None:
        return Deferred(function, options)

    def mark(function: Any) -> Any:
        return Deferred(function, options)

    return mark
