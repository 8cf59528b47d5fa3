"""Slowing down password guessing: after a few wrong passwords for one name, signing in
as that name is refused for a while (whatever the password), with a 429."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable

#: Wrong passwords allowed for a name within :data:`WINDOW` seconds.
ATTEMPTS = 5
WINDOW = 15 * 60.0
#: The most names remembered at once (the oldest are forgotten first).
NAMES = 10_000


class LoginThrottle:
    """Counts recent wrong passwords per name (case folded), in this process."""

    def __init__(
        self,
        attempts: int = ATTEMPTS,
        window: float = WINDOW,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.attempts = attempts
        self.window = window
        self.clock = clock
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def blocked(self, name: str) -> bool:
        """Has ``name`` had too many wrong passwords lately?"""
        with self._lock:
            recent = self._recent(name.casefold())
            return recent is not None and len(recent) >= self.attempts

    def failed(self, name: str) -> None:
        """A wrong password for ``name``."""
        key = name.casefold()
        with self._lock:
            recent = self._recent(key) or deque()
            recent.append(self.clock())
            self._failures[key] = recent
            while len(self._failures) > NAMES:
                self._failures.pop(next(iter(self._failures)))

    def succeeded(self, name: str) -> None:
        with self._lock:
            self._failures.pop(name.casefold(), None)

    def _recent(self, key: str) -> deque[float] | None:
        recent = self._failures.get(key)
        if recent is None:
            return None
        cutoff = self.clock() - self.window
        while recent and recent[0] < cutoff:
            recent.popleft()
        if not recent:
            del self._failures[key]
            return None
        return recent


TOO_MANY = "too many wrong passwords for this name: wait a few minutes and try again"
