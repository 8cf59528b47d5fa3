"""Real ``cardroom`` processes for the tests: started, fed, read and signalled."""

from __future__ import annotations

import os
import selectors
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

#: How long a test waits for a process to print something before it gives up (a guard
#: against a hung test, not a timing assertion: a healthy run answers in well under it).
PATIENCE = 60.0


def cardroom_command() -> list[str]:
    """How to run the ``cardroom`` console script of this environment."""
    script = Path(sys.executable).parent / "cardroom"
    if script.exists():
        return [str(script)]
    found = shutil.which("cardroom")
    if found:
        return [found]
    return [sys.executable, "-c", "from cardroom.terminal.cli import main; main()"]


class Process:
    """A ``cardroom`` process with pipes for standard input and output (merged with errors)."""

    def __init__(self, args: Sequence[str], env: dict[str, str] | None = None) -> None:
        environment = {**os.environ, "PYTHONUNBUFFERED": "1", "COLUMNS": "100", **(env or {})}
        self.popen = subprocess.Popen(
            [*cardroom_command(), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=environment,
        )
        self.output = b""

    def send(self, text: str) -> None:
        assert self.popen.stdin is not None
        self.popen.stdin.write(text.encode())
        self.popen.stdin.flush()

    def expect(self, marker: str) -> str:
        """Read until ``marker`` has been printed; the output so far."""
        assert self.popen.stdout is not None
        wanted = marker.encode()
        deadline = time.monotonic() + PATIENCE
        with selectors.DefaultSelector() as selector:
            selector.register(self.popen.stdout, selectors.EVENT_READ)
            while wanted not in self.output:
                left = deadline - time.monotonic()
                if left <= 0 or not selector.select(left):
                    raise AssertionError(f"{marker!r} never came; output:\n{self.text}")
                chunk = os.read(self.popen.stdout.fileno(), 65536)
                if not chunk:
                    raise AssertionError(f"exited before {marker!r}; output:\n{self.text}")
                self.output += chunk
        return self.text

    def finish(self) -> int:
        """Wait for the process to end, reading the rest of its output; its exit status."""
        assert self.popen.stdout is not None
        rest, _ = self.popen.communicate(timeout=PATIENCE)
        self.output += rest or b""
        return self.popen.returncode

    @property
    def text(self) -> str:
        return self.output.decode(errors="replace")
