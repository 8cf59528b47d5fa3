"""``cardroom serve`` in a process of the test's: its output in files, its workers, its
memory (with every process under it), and small requests to it."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.processes import PATIENCE

CARDROOM = [sys.executable, "-m", "cardroom.terminal.cli"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Served:
    """``cardroom serve`` in a process of the test's, its output in files to read (so
    that nothing blocks on a full pipe); ``name`` tells several apart in one folder;
    ``command`` starts another cardroom (an installed one's script), ``env`` in another
    environment than the test's."""

    def __init__(
        self,
        folder: Path,
        *args: str,
        name: str = "server",
        command: list[str] = CARDROOM,
        env: dict[str, str] | None = None,
    ) -> None:
        self.name = name
        self.port = free_port()
        prefix = "" if name == "server" else f"{name}-"
        self.out = folder / f"{prefix}out.log"
        self.err = folder / f"{prefix}err.log"
        with self.out.open("wb") as out, self.err.open("wb") as err:
            self.popen = subprocess.Popen(
                [*command, "serve", "--port", str(self.port), *args],
                stdout=out,
                stderr=err,
                env={**(os.environ if env is None else env), "PYTHONUNBUFFERED": "1"},
            )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def log(self) -> str:
        return self.err.read_text(errors="replace")

    def access(self) -> str:
        return self.out.read_text(errors="replace")

    @property
    def output(self) -> str:
        """Everything it printed: its log, then its access log."""
        return self.log() + self.access()

    def ready(self, path: str = "/api/games") -> Served:
        """Wait until it answers ``path``."""
        give_up = time.monotonic() + PATIENCE * 2
        while True:
            if self.popen.poll() is not None:
                raise AssertionError(f"{self.name} exited:\n{self.output}")
            try:
                with urllib.request.urlopen(self.url + path, timeout=10) as answer:
                    if answer.status == 200:
                        return self
            except OSError:
                pass
            if time.monotonic() > give_up:
                raise AssertionError(f"{self.name} never answered:\n{self.output}")
            time.sleep(0.1)

    def kill(self) -> None:
        """SIGKILL: nothing of it runs after this."""
        self.popen.send_signal(signal.SIGKILL)
        assert self.popen.wait(timeout=PATIENCE) == -signal.SIGKILL

    def wait_for(self, found: Callable[[], bool], what: str) -> None:
        deadline = time.monotonic() + PATIENCE
        while not found():
            if time.monotonic() > deadline or self.popen.poll() is not None:
                raise AssertionError(f"{what} never came; the log:\n{self.log()}")
            time.sleep(0.05)

    def workers(self) -> set[int]:
        """The worker processes alive now (the supervisor's children that serve)."""
        pids = set()
        for child in Path(f"/proc/{self.popen.pid}/task").glob("*/children"):
            for pid in child.read_text().split():
                try:
                    command = Path(f"/proc/{pid}/cmdline").read_bytes()
                except OSError:
                    continue
                if b"spawn_main" in command:
                    pids.add(int(pid))
        return pids

    def stop(self) -> int:
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGINT)  # Ctrl-C
        return self.popen.wait(timeout=PATIENCE)

    def memory(self) -> int:
        """The resident memory of the server and every process under it, in bytes."""
        return sum(resident(pid) for pid in descendants(self.popen.pid))


def descendants(pid: int) -> list[int]:
    """``pid`` and every process under it."""
    found = [pid]
    for one in found:
        for children in Path(f"/proc/{one}/task").glob("*/children"):
            try:
                found.extend(int(c) for c in children.read_text().split())
            except OSError:
                continue
    return found


def resident(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


def fetch(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=PATIENCE) as response:
        return json.load(response)
