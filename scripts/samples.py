"""Re-run the terminal samples of the docs and check or refresh what they show.

A *sample* is a fenced code block in ``README.md`` or ``docs/*.md`` whose first line
starts with ``$ ``. Each ``$ `` line is a shell command; the lines after it, up to the
next ``$ `` line, are what it printed (standard output and standard error together, as
a terminal shows them). For example::

    ```
    $ cardroom rules finnish27 | head -3
    # finnish27 rules: the defaults. ...
    ...
    ```

An HTML comment on the line just before the opening fence (blank lines between are
allowed) tunes how the sample is run; it is invisible on GitHub::

    <!-- sample input="p 10 d 10\\nq" -->     typed at the first command, one line per \\n;
                                           each line is shown after its prompt, as a
                                           terminal would show it
    <!-- sample setup="cardroom ... > x" -->  a shell command run first, unseen (to create
                                           a file or play rounds for `history`)
    <!-- sample slow -->                    re-run by --update and --check, skipped by
                                           the test suite (and by --skip-slow)
    <!-- sample unchecked="why" -->         never re-run, never checked: only for output
                                           that cannot be made reproducible

Values are JSON strings (so ``\\n`` is a new line, ``\\"`` a quote); several may share one
comment: ``<!-- sample slow input="10\\nq" -->``.

Every sample runs in a fixed, fresh environment: an empty temporary home directory
(so the bankroll file is new, and shown as ``~/.local/share/cardroom/cardroom.sqlite3``),
an empty temporary working directory (shown as ``.``), ``COLUMNS=80``, no colour, UTC,
and the ``cardroom`` of the Python environment that runs this script. Figures that
change from run to run whatever the seed (the speed and the number of workers in
``simulate``'s first line, dates and times) are compared as placeholders, so they never
make a sample stale; ``--update`` writes the figures of its own run.

Keeping the docs true (run with the project's environment, after ``make .venv/.installed``)::

    .venv/bin/python scripts/samples.py --check      # list stale samples with a diff
    .venv/bin/python scripts/samples.py --update     # rewrite stale samples in place
    .venv/bin/python scripts/samples.py --list       # every sample and its markers

``--check`` exits with status 1 if a sample is stale. ``tests/test_doc_samples.py``
checks every sample that is not ``slow`` in the test suite.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

#: The repository: this script lives in ``scripts/``.
ROOT = Path(__file__).resolve().parent.parent

#: A command's prompt in a sample.
PROMPT = "$ "

#: How long one command may run, in seconds.
TIMEOUT = 900.0

#: What a terminal would show in place of the temporary home directory.
HOME_SHOWN = "~"
#: ... and of the temporary working directory.
WORKDIR_SHOWN = "."

#: Figures that differ from run to run whatever the seed, and what they are compared as.
VOLATILE: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\d[\d,]*(?:\.\d+)? s = [\d,]+ rounds/s"), "<seconds> s = <rate> rounds/s"),
    (re.compile(r"\d+ worker\(s\)"), "<n> worker(s)"),
    (
        re.compile(r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?"),
        "<date and time>",
    ),
)

#: Colour and cursor escape sequences (none are expected; removed if a command sends some).
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")

#: Installed as ``sitecustomize`` in every sample's Python processes: a line read by
#: ``input()`` is printed after its prompt, as a terminal's echo would show it, and
#: pauses (``play``'s pause between cards) are cut to a hundredth of a second: they
#: change nothing in the output, only how long a sample takes.
ECHO_HOOK = '''\
"""cardroom's doc samples: show each line typed at input(), like a terminal's echo;
no long pauses."""
import builtins
import sys
import time

_read = builtins.input
_sleep = time.sleep


def _short_sleep(seconds: float) -> None:
    _sleep(min(seconds, 0.01))


def _echoed_input(prompt: object = "") -> str:
    line = _read(prompt)
    sys.stdout.write(line + "\\n")
    sys.stdout.flush()
    return line


builtins.input = _echoed_input
time.sleep = _short_sleep
'''

MARKER = re.compile(r"^<!--\s*sample\b(?P<body>.*?)-->\s*$")
MARKER_WORD = re.compile(r'\s*(?P<key>[a-z]+)(?:=(?P<value>"(?:[^"\\]|\\.)*"))?')
FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})(?P<info>.*)$")

#: Marker keys: those that take a value and those that are flags.
VALUE_KEYS = frozenset({"input", "setup", "unchecked"})
FLAG_KEYS = frozenset({"slow"})


class SampleError(Exception):
    """A sample or a marker that cannot be read or run."""


@dataclass(frozen=True)
class Command:
    """One ``$`` line of a sample and the output shown under it."""

    line: str
    output: str


@dataclass(frozen=True)
class Sample:
    """A terminal sample: its place in a file, its commands and how to run them."""

    path: Path
    #: The line number (from 1) of the opening fence.
    fence_line: int
    #: ``lines[body_start:body_end]`` of the file is the block's content.
    body_start: int
    body_end: int
    commands: tuple[Command, ...]
    input: str | None = None
    setup: str | None = None
    slow: bool = False
    unchecked: str | None = None

    @property
    def name(self) -> str:
        """``README.md:42``: where the sample is, relative to the repository."""
        try:
            shown = self.path.resolve().relative_to(ROOT)
        except ValueError:
            shown = self.path
        return f"{shown}:{self.fence_line}"

    @property
    def text(self) -> str:
        """The block's content as the file has it."""
        return render(self.commands)


@dataclass(frozen=True)
class Result:
    """A sample re-run: what the program prints now, and whether the docs still agree."""

    sample: Sample
    actual: str

    @property
    def stale(self) -> bool:
        return masked(self.sample.text) != masked(self.actual)

    def diff(self) -> str:
        return "".join(
            difflib.unified_diff(
                self.sample.text.splitlines(keepends=True),
                self.actual.splitlines(keepends=True),
                fromfile=f"{self.sample.name} (the docs)",
                tofile=f"{self.sample.name} (the program now)",
            )
        )


# -- reading the docs -----------------------------------------------------------------
def doc_files(root: Path = ROOT) -> list[Path]:
    """``README.md`` and every ``docs/*.md``, in a fixed order."""
    files = [root / "README.md"]
    files.extend(sorted((root / "docs").glob("*.md")))
    return [path for path in files if path.is_file()]


def parse_marker(body: str, where: str) -> dict[str, str | bool]:
    """The settings of a ``<!-- sample ... -->`` comment.

    >>> parse_marker(' slow input="p 10\\\\nq" ', "x")
    {'slow': True, 'input': 'p 10\\nq'}
    """
    settings: dict[str, str | bool] = {}
    rest = body.strip()
    while rest:
        match = MARKER_WORD.match(rest)
        if match is None or not match.group(0).strip():
            raise SampleError(f"{where}: cannot read the sample marker at {rest!r}")
        key, value = match.group("key"), match.group("value")
        if key in FLAG_KEYS and value is None:
            settings[key] = True
        elif key in VALUE_KEYS and value is not None:
            settings[key] = str(json.loads(value))
        else:
            known = ", ".join([*sorted(FLAG_KEYS), *(f'{k}="..."' for k in sorted(VALUE_KEYS))])
            raise SampleError(
                f"{where}: unknown sample marker {match.group(0).strip()!r} ({known})"
            )
        if key in ("unchecked", "setup") and not settings[key]:
            raise SampleError(f"{where}: the sample marker {key!r} needs a value")
        rest = rest[match.end() :].lstrip()
    return settings


def split_commands(lines: Sequence[str], where: str) -> tuple[Command, ...]:
    """The ``$`` lines of a sample's content and the output under each."""
    commands: list[Command] = []
    line: str | None = None
    output: list[str] = []
    for text in lines:
        if text.startswith(PROMPT):
            if line is not None:
                commands.append(Command(line, "\n".join(output).rstrip("\n")))
            line, output = text[len(PROMPT) :].strip(), []
        else:
            output.append(text)
    if line is None or not line:
        raise SampleError(f"{where}: a sample needs a command after '{PROMPT}'")
    commands.append(Command(line, "\n".join(output).rstrip("\n")))
    if any(not command.line for command in commands):
        raise SampleError(f"{where}: an empty '{PROMPT}' line")
    return tuple(commands)


def render(commands: Iterable[Command]) -> str:
    """A sample's content: each command after ``$``, its output, a blank line between."""
    parts = [PROMPT + c.line + ("\n" + c.output if c.output else "") for c in commands]
    return "\n\n".join(parts)


def find_samples(path: Path) -> list[Sample]:
    """Every sample in one Markdown file, with the marker before it, top to bottom."""
    lines = path.read_text(encoding="utf-8").splitlines()
    samples: list[Sample] = []
    pending: tuple[int, dict[str, str | bool]] | None = None
    number = 0
    while number < len(lines):
        text = lines[number]
        where = f"{path}:{number + 1}"
        if re.match(r"<!--\s*sample\b", text.strip()):
            marker = MARKER.match(text.strip())
            if marker is None:
                raise SampleError(f"{where}: a sample marker must fit on one line")
            if pending is not None:
                raise SampleError(f"{path}:{pending[0]}: a sample marker with no sample after it")
            pending = (number + 1, parse_marker(marker.group("body"), where))
            number += 1
            continue
        fence = FENCE.match(text)
        if fence is None:
            if text.strip() and pending is not None:
                raise SampleError(f"{path}:{pending[0]}: a sample marker with no sample after it")
            number += 1
            continue
        mark, end = fence.group("fence"), number + 1
        closing = re.compile(rf"^{re.escape(mark[0])}{{{len(mark)},}}\s*$")
        while end < len(lines) and not closing.match(lines[end]):
            end += 1
        if end == len(lines):
            raise SampleError(f"{where}: the code block is never closed")
        body = lines[number + 1 : end]
        if body and body[0].startswith(PROMPT):
            settings = pending[1] if pending is not None else {}
            input_text, setup, unchecked = (
                settings.get("input"),
                settings.get("setup"),
                settings.get("unchecked"),
            )
            samples.append(
                Sample(
                    path=path,
                    fence_line=number + 1,
                    body_start=number + 1,
                    body_end=end,
                    commands=split_commands(body, where),
                    input=input_text if isinstance(input_text, str) else None,
                    setup=setup if isinstance(setup, str) else None,
                    slow=bool(settings.get("slow", False)),
                    unchecked=unchecked if isinstance(unchecked, str) else None,
                )
            )
        elif pending is not None:
            raise SampleError(f"{path}:{pending[0]}: a sample marker before a block with no '$ '")
        pending = None
        number = end + 1
    if pending is not None:
        raise SampleError(f"{path}:{pending[0]}: a sample marker with no sample after it")
    return samples


def all_samples(files: Iterable[Path] | None = None) -> list[Sample]:
    """Every sample of ``files`` (default: the README and ``docs/*.md``)."""
    return [s for path in (doc_files() if files is None else files) for s in find_samples(path)]


# -- running them ---------------------------------------------------------------------
def bin_dir() -> Path:
    """The directory of the Python environment's scripts, where ``cardroom`` must be."""
    here = Path(sys.executable).parent
    if not (here / "cardroom").exists():
        raise SampleError(
            f"no cardroom command in {here}: run this with the project's environment, "
            "e.g. `make .venv/.installed && .venv/bin/python scripts/samples.py --check`"
        )
    return here


def sample_env(home: Path, hook: Path) -> dict[str, str]:
    """The fixed environment of a sample's commands."""
    env = {
        "PATH": os.pathsep.join([str(bin_dir()), os.environ.get("PATH", "/usr/bin:/bin")]),
        "HOME": str(home),
        "COLUMNS": "80",
        "LINES": "40",
        "TERM": "dumb",
        "NO_COLOR": "1",
        "TZ": "UTC",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONIOENCODING": "utf-8",
        "PYTHONUNBUFFERED": "1",
        "PYTHONHASHSEED": "0",
        "PYTHONPATH": str(hook),
    }
    # Numba's own settings (threads, cache) are the machine's, not the output's.
    env.update({k: v for k, v in os.environ.items() if k.startswith("NUMBA_")})
    return env


def normalise(text: str, home: Path, workdir: Path) -> str:
    """What a sample shows of a command's output: no temporary paths, no colour codes, no
    spaces at the ends of lines, no blank lines at the end."""
    for folder, shown in ((home, HOME_SHOWN), (workdir, WORKDIR_SHOWN)):
        for spelling in {str(folder), os.path.realpath(folder)}:
            text = text.replace(spelling, shown)
    text = ANSI.sub("", text).replace("\r\n", "\n")
    return "\n".join(line.rstrip() for line in text.split("\n")).rstrip("\n")


def masked(text: str) -> str:
    """``text`` with the figures of :data:`VOLATILE` replaced by placeholders."""
    for pattern, placeholder in VOLATILE:
        text = pattern.sub(placeholder, text)
    return text


def shell(
    command: str, *, cwd: Path, env: dict[str, str], stdin: str | None
) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            ["bash", "-c", command],
            cwd=cwd,
            env=env,
            input=stdin if stdin is not None else "",
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            encoding="utf-8",
            timeout=TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise SampleError(f"{command!r} ran for more than {TIMEOUT:.0f} s") from None


def run_sample(sample: Sample) -> Result:
    """Run the sample's commands in a fresh environment; what they print now."""
    with tempfile.TemporaryDirectory(prefix="cardroom-sample-") as tmp:
        home, workdir, hook = Path(tmp, "home"), Path(tmp, "work"), Path(tmp, "hook")
        for folder in (home, workdir, hook):
            folder.mkdir()
        (hook / "sitecustomize.py").write_text(ECHO_HOOK, encoding="utf-8")
        env = sample_env(home, hook)
        if sample.setup is not None:
            done = shell(sample.setup, cwd=workdir, env=env, stdin=None)
            if done.returncode != 0:
                raise SampleError(
                    f"{sample.name}: the setup {sample.setup!r} failed "
                    f"(status {done.returncode}):\n{done.stdout}"
                )
        commands = []
        for index, command in enumerate(sample.commands):
            typed = sample.input + "\n" if index == 0 and sample.input is not None else None
            done = shell(command.line, cwd=workdir, env=env, stdin=typed)
            commands.append(Command(command.line, normalise(done.stdout, home, workdir)))
    return Result(sample, render(commands))


def run_all(samples: Sequence[Sample], jobs: int) -> list[Result]:
    """Run ``samples`` (``jobs`` at a time), in order."""
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(run_sample, samples))


def update_file(path: Path, results: Sequence[Result]) -> None:
    """Rewrite the stale samples of one file in place."""
    lines = path.read_text(encoding="utf-8").splitlines()
    for result in sorted(results, key=lambda r: r.sample.body_start, reverse=True):
        sample = result.sample
        lines[sample.body_start : sample.body_end] = result.actual.split("\n")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


# -- the command line -----------------------------------------------------------------
def describe(sample: Sample) -> list[str]:
    """How a sample is run, for ``--list``."""
    notes = ["slow"] if sample.slow else []
    if sample.input is not None:
        notes.append("typed input")
    if sample.setup is not None:
        notes.append("setup")
    if sample.unchecked is not None:
        notes.append(f"unchecked: {sample.unchecked}")
    return notes


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Check or refresh the terminal samples of README.md and docs/*.md.",
        epilog="Run it with the project's Python: .venv/bin/python scripts/samples.py --check",
    )
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--check", action="store_true", help="list stale samples with a diff")
    action.add_argument("--update", action="store_true", help="rewrite stale samples in place")
    action.add_argument("--list", action="store_true", help="list the samples and their markers")
    parser.add_argument("--skip-slow", action="store_true", help="leave out samples marked slow")
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="samples run at once (default 1; more is faster, but slows the speeds simulate shows)",
    )
    parser.add_argument("files", nargs="*", type=Path, help="Markdown files (default: all docs)")
    args = parser.parse_args(argv)
    try:
        samples = all_samples(args.files or None)
        if args.list:
            for s in samples:
                notes = "; ".join(describe(s))
                print(f"{s.name}  $ {s.commands[0].line}" + (f"  [{notes}]" if notes else ""))
            return 0
        todo = [s for s in samples if s.unchecked is None and not (args.skip_slow and s.slow)]
        results = run_all(todo, args.jobs)
    except SampleError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    stale = [r for r in results if r.stale]
    left = len(samples) - len(todo)
    print(f"{len(todo)} samples run, {len(stale)} stale" + (f", {left} not run" if left else ""))
    if args.update:
        for path in dict.fromkeys(r.sample.path for r in stale):
            update_file(path, [r for r in stale if r.sample.path == path])
        for r in stale:
            print(f"updated {r.sample.name}  $ {r.sample.commands[0].line}")
        return 0
    for r in stale:
        print(f"\nstale: {r.sample.name}  $ {r.sample.commands[0].line}\n{r.diff()}", end="")
    if stale:
        print("\nRefresh them with: .venv/bin/python scripts/samples.py --update")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
