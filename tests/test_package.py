"""The package as a user installs it: ``python -m build`` makes an sdist and a wheel
(the wheel from the sdist, as the tool does), the wheel holds every file of the
package, and installed alone in a new virtual environment it analyses, serves the web table, on
which a round is played, and answers ``--version`` with the commit it was built from.

The new environment is offline: the wheel is installed with ``--no-index --no-deps``
and finds its dependencies, already downloaded, in the test environment's
site-packages through a ``.pth`` line (which puts that folder on the path after its own
without running its ``.pth`` files, so the editable cardroom there is not seen); every
requirement the wheel declares is checked against what is found there."""

from __future__ import annotations

import email
import json
import os
import subprocess
import sys
import sysconfig
import zipfile
from fractions import Fraction
from pathlib import Path

import httpx
import pytest
from packaging.requirements import Requirement

import cardroom
from tests.web.served import Served

#: one worker builds once for both tests: two builds at once in one source tree share
#: its release folder (cardroom-VERSION/) and break each other
pytestmark = pytest.mark.xdist_group("package")

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "cardroom"
#: files of the source tree a wheel leaves out
NOT_SHIPPED = {"__pycache__"}
#: pip's options for an install from the wheel alone
OFFLINE = ("--quiet", "--no-index", "--no-deps")
#: the installed version of each distribution named, as JSON (null: not installed)
VERSIONS = """
import importlib.metadata, json, sys
def version(name):
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None
print(json.dumps({name: version(name) for name in sys.argv[1:]}))
"""


def _package_files() -> set[str]:
    """Every file of the package in the source tree (those git tracks, in a checkout),
    as the wheel names them."""
    if (ROOT / ".git").exists():
        listed = subprocess.run(
            ["git", "ls-files", "src/cardroom"], cwd=ROOT, capture_output=True, text=True
        )
        paths = [ROOT / line for line in listed.stdout.splitlines()]
    else:
        paths = [p for p in PACKAGE.rglob("*") if p.is_file()]
    return {
        p.relative_to(PACKAGE.parent).as_posix()
        for p in paths
        if not NOT_SHIPPED & set(p.parts) and p.name != cardroom.COMMIT_FILE
    }


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    done = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out


def test_the_wheel_holds_every_file_of_the_package(built: Path) -> None:
    [wheel] = built.glob("cardroom-*.whl")
    [sdist] = built.glob("cardroom-*.tar.gz")
    assert wheel.name.startswith(f"cardroom-{cardroom.__version__}-py3-none-any")
    assert sdist.name == f"cardroom-{cardroom.__version__}.tar.gz"
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = _package_files() - names
    assert not missing, sorted(missing)
    assert {"cardroom/py.typed", "cardroom/_commit.txt"} <= names
    assert any(n.startswith("cardroom/storage/migrations/versions/v0001") for n in names)


def test_the_wheel_installed_alone_serves_and_plays(built: Path, tmp_path: Path) -> None:
    [wheel] = built.glob("cardroom-*.whl")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    # nothing of the checkout's on the new environment's path
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV"}}
    env["HOME"] = str(tmp_path)  # its own bankroll and caches
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", *OFFLINE, str(wheel)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert installed.returncode == 0, installed.stderr
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(purelib) / "dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")

    def run(*args: str) -> str:
        done = subprocess.run(
            [str(venv / "bin" / "cardroom"), *args], capture_output=True, text=True, env=env
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    where = subprocess.run(
        [str(python), "-c", "import cardroom; print(cardroom.__file__)"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout
    assert where.startswith(str(venv)), where  # the wheel's, not the checkout's

    # every requirement the wheel declares is met where it finds its dependencies
    metadata = email.message_from_bytes(
        zipfile.ZipFile(wheel).read(f"cardroom-{cardroom.__version__}.dist-info/METADATA")
    )
    required = [Requirement(r) for r in metadata.get_all("Requires-Dist") or []]
    required = [r for r in required if r.marker is None]  # the extras' are optional
    assert len(required) > 10
    versions = json.loads(
        subprocess.run(
            [str(python), "-c", VERSIONS, *(r.name for r in required)],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        ).stdout
    )
    for requirement in required:
        version = versions[requirement.name]
        assert version is not None, f"{requirement.name} is not installed"
        assert requirement.specifier.contains(version, prereleases=True), (requirement, version)

    assert (
        run("--version").strip()
        == f"cardroom {cardroom.__version__} (commit {cardroom.build_commit()})"
    )
    assert "punto-banco" in run("games")
    analysed = json.loads(run("analyze", "punto-banco", "--json"))
    assert analysed["wagers"]["banker"]["house_edge"] == "114753351728/10847218479825"

    server = Served(
        tmp_path,
        "--db",
        f"sqlite:///{tmp_path / 'room.sqlite3'}",
        command=[str(venv / "bin" / "cardroom")],
        env=env,
    )
    try:
        server.ready()
        page = httpx.get(server.url + "/", timeout=30)
        assert page.status_code == 200 and "<html" in page.text
        for asset in ("cardroom.css", "table.js"):
            assert httpx.get(f"{server.url}/static/{asset}", timeout=30).status_code == 200
        joined = httpx.post(
            server.url + "/api/accounts",
            json={"username": "Wheel", "password": "a good password"},
            timeout=60,
        )
        assert joined.status_code == 201, joined.text
        cookies = {"cardroom_session": joined.cookies["cardroom_session"]}
        headers = {"X-CSRF-Token": joined.json()["csrf_token"]}
        played = httpx.post(
            server.url + "/api/games/punto-banco/rounds",
            json={"bets": {"banker": "10"}},
            cookies=cookies,
            headers=headers,
            timeout=60,
        )
        assert played.status_code == 201, played.text
        balance = httpx.get(server.url + "/api/me", cookies=cookies, timeout=30).json()["balance"]
        assert Fraction(balance) == 1000 + Fraction(played.json()["total_net"])
    finally:
        server.stop()
