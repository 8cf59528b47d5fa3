"""Schemathesis against a live server: every operation of the API's schema, with data
drawn from the schema (its boundaries too) and data that breaks it, and the stateful
phase, which follows the schema's links (a round to its actions and replay, a seat to
its table), with every check: no 500, only the refusals listed and each as JSON, each
answer as its model says, valid data taken and invalid data refused, the session cookie
and the CSRF header honoured as the security schemes say.

The server is uvicorn on a loopback port in this process (:class:`tests.web.browser.Server`:
the app of ``cardroom serve`` on a real SQLite file, its passwords hashed at a test's
cost).  Schemathesis runs as its command line in a process of its own, signed in as a
new account through the security schemes (so that it can also leave them out), seeded
and deterministic, with a few examples an operation, so that a run is reproducible and
takes well under a minute of CPU.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.web.browser import Server

#: Examples of each operation in the fuzzing phase (the coverage phase adds each
#: operation's boundaries, the stateful phase its links).
EXAMPLES = 4
#: A guard against a hung run, not a timing assertion.
PATIENCE = 900

# Registering and signing in take a name, whose pattern (every character a name may
# have, some 145,000) costs a generator a second or two each time it reads it: their
# boundaries are drawn in the coverage phase, and one example more in fuzzing.
CONFIG = """\
workers = 1
seed = 27
[generation]
max-examples = {examples}
deterministic = true
database = "none"
[auth.openapi.session]
api_key = "{session}"
[auth.openapi.csrf]
api_key = "{csrf}"
[[operations]]
include-operation-id-regex = "^(register|login)$"
generation.max-examples = 1
"""


def signed_up(url: str, name: str) -> tuple[str, str]:
    """A new account's session cookie and CSRF token."""
    response = httpx.post(
        f"{url}/api/accounts", json={"username": name, "password": "a good password"}
    )
    assert response.status_code == 201, response.text
    return response.cookies["cardroom_session"], response.json()["csrf_token"]


def schemathesis(folder: Path, url: str, name: str, phases: str, *options: str) -> Ran:
    """Schemathesis with every check and ``phases`` against ``url``'s schema, signed in
    as a new account ``name``: it must find nothing (its output is the message)."""
    session, csrf = signed_up(url, name)
    config = folder / f"{name}.toml"
    config.write_text(CONFIG.format(examples=EXAMPLES, session=session, csrf=csrf))
    report = folder / f"{name}.json"
    run = subprocess.run(
        [
            *[sys.executable, "-m", "schemathesis.cli", "--config-file", str(config)],
            *["--no-color", "run", f"{url}/openapi.json", "--checks", "all"],
            *["--phases", phases, "--report", "json", "--report-json-path", str(report)],
            *options,
        ],
        cwd=folder,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=PATIENCE,
        check=False,
    )
    output = run.stdout + run.stderr
    assert run.returncode == 0, output
    found: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))
    assert found["complete"] and not found["failures"] and not found["errors"], output
    return Ran(found, output)


class Ran:
    """What a run found (its JSON report) and said."""

    def __init__(self, report: dict[str, Any], output: str) -> None:
        self.report = report
        self.output = output

    def phase(self, name: str) -> str:
        status: str = self.report["phases"][name]["status"]
        return status

    def links_followed(self) -> int:
        """How many of the schema's links the stateful phase followed."""
        found = re.search(r"API Links:\s+(\d+) covered", self.output)
        assert found, self.output
        return int(found.group(1))


@pytest.mark.long
def test_the_api_does_what_its_schema_says(tmp_path: Path) -> None:
    with Server(tmp_path / "web.sqlite3") as server:
        # everything but signing out, which would end the session the run goes on with
        run = schemathesis(
            tmp_path,
            server.url,
            "Fuzzer",
            "examples,coverage,fuzzing,stateful",
            "--exclude-operation-id",
            "logout",
        )
        # signing out, on a session of its own (it has no links to follow)
        out = schemathesis(
            tmp_path,
            server.url,
            "Leaver",
            "coverage,fuzzing",
            "--include-operation-id",
            "logout",
        )
    operations = run.report["operations"]
    assert operations["tested"] == operations["selected"] == operations["total"] - 1
    for phase in ("coverage", "fuzzing", "stateful"):
        assert run.phase(phase) == "success", run.output
    # the stateful phase went from answers to the operations their links name
    assert run.links_followed() > 0, run.output
    assert out.report["operations"]["tested"] == 1
    assert out.phase("coverage") == out.phase("fuzzing") == "success", out.output
