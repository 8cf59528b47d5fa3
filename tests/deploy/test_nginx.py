"""The deployment in ``deploy/`` run for real on loopback: Debian's nginx from
``deploy/nginx/cardroom.conf`` (its documented placeholders replaced, nothing else) in
front of two ``cardroom serve`` instances started as ``deploy/systemd/cardroom@.service``
starts them with ``deploy/cardroom.env`` (only the database changed: a new, empty one on
the tests' throwaway PostgreSQL), over HTTPS with a certificate made for the test.

Through nginx a person registers, plays house rounds on both instances and a chemin de
fer coup over the WebSocket; then the instance that drives the table is killed
(SIGKILL, every process of it) and play goes on through the other: house rounds at
once, the table once the other has taken it over.  The wallet's books are exact at the
end.  nginx runs from a folder of its own, as ``nobody`` when the tests run as root."""

from __future__ import annotations

import contextlib
import ipaddress
import os
import re
import shlex
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from sqlalchemy import select
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

import cardroom.web
from cardroom.app.history import RoundRecord, replay
from cardroom.app.wallet import Wallet
from cardroom.storage import Database
from cardroom.storage.schema import chemmy_processes, chemmy_tables, web_sessions
from cardroom.web.guard import CSP
from tests.conftest import assert_books_and_rounds
from tests.processes import PATIENCE
from tests.web.chemmy_clients import Socket, Someone
from tests.web.served import Served, alive, descendants, free_port
from tests.web.test_chemmy_ws import drain, play, seated

F = Fraction
ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
SITE = DEPLOY / "nginx" / "cardroom.conf"
UNIT = DEPLOY / "systemd" / "cardroom@.service"
ENVIRONMENT = DEPLOY / "cardroom.env"
#: where the unit runs cardroom from (a placeholder: the tests run this environment's)
INSTALLED = "/opt/cardroom/venv/bin/cardroom"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
MISSING_NGINX = (
    "nginx is not installed: run `make nginx` (as root it installs Debian's nginx), or "
    "`sudo apt-get install nginx`"
)
#: a client's own address, and the one it claims in a header of its own
CLIENT, FORGED = "127.0.0.7", "203.0.113.9"
HOUSE = ("punto-banco", "finnish27", "21-24-27", "baccarat27")


# -- the unit and its environment file, as systemd reads them -------------------------
def environment_file(text: str) -> dict[str, str]:
    """The variables of a systemd ``EnvironmentFile`` (``NAME=value`` lines; a line
    that starts with ``#`` or ``;`` is a comment).  This one quotes nothing."""
    found = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line[0] in "#;":
            continue
        name, equals, value = line.partition("=")
        assert equals and re.fullmatch(r"[A-Z_][A-Z0-9_]*", name), line
        assert not value.startswith(("'", '"')), line
        found[name] = value
    return found


def exec_start(unit: str, env: Mapping[str, str], instance: str) -> list[str]:
    """The unit's ``ExecStart=`` command as systemd runs it for ``instance``: ``%i`` is
    the instance's name, ``${NAME}`` a variable's value as one word and ``$NAME`` its
    value split into words (none when it is empty).  A variable the environment file
    does not set fails the test (systemd would quietly make it empty)."""
    [line] = [line for line in unit.splitlines() if line.startswith("ExecStart=")]
    words: list[str] = []
    for word in shlex.split(line.removeprefix("ExecStart=")):
        word = word.replace("%i", instance)
        if bare := re.fullmatch(r"\$([A-Za-z_][A-Za-z0-9_]*)", word):
            words.extend(env[bare[1]].split())
        else:
            words.append(re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}", lambda m: env[m[1]], word))
    return words


def instance_args(db_url: str) -> list[str]:
    """What an instance ``cardroom@PORT`` runs ``cardroom serve`` with on the database
    ``db_url``, but ``--port PORT``: the arguments to give :class:`Served` (which adds a
    free port of its own)."""
    env = {**environment_file(ENVIRONMENT.read_text()), "CARDROOM_DB": db_url}
    command = exec_start(UNIT.read_text(), env, "PORT")
    assert command[:2] == [INSTALLED, "serve"], command
    at = command.index("--port")
    assert command[at + 1] == "PORT"
    return command[2:at] + command[at + 2 :]


def test_the_unit_runs_serve_with_the_environment_file() -> None:
    env = environment_file(ENVIRONMENT.read_text())
    assert env["CARDROOM_DB"].startswith("postgresql+psycopg://")
    assert env["CARDROOM_OPTIONS"] == ""
    assert instance_args("postgresql+psycopg://u@h/d") == [
        *("--host", "127.0.0.1", "--workers", env["CARDROOM_WORKERS"]),
        *("--db", "postgresql+psycopg://u@h/d", "--forwarded-allow-ips", "127.0.0.1"),
    ]
    with_options = {**env, "CARDROOM_OPTIONS": "--time-limit 45  --rules-dir /etc/x"}
    assert exec_start(UNIT.read_text(), with_options, "8002")[-6:] == [
        *("--forwarded-allow-ips", "127.0.0.1", "--time-limit", "45", "--rules-dir", "/etc/x")
    ]


def test_systemd_finds_nothing_wrong_with_the_unit(tmp_path: Path) -> None:
    """``systemd-analyze verify`` on the unit, its command this environment's: no
    unknown key, no bad value, no warning at all."""
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed (Debian's systemd package)")
    script = Path(sys.executable).parent / "cardroom"
    if not script.exists():
        pytest.skip(f"no cardroom script at {script}")
    unit = tmp_path / UNIT.name
    unit.write_text(UNIT.read_text().replace(INSTALLED, str(script)))
    done = subprocess.run(
        [analyze, "verify", str(tmp_path / "cardroom@8001.service")],
        capture_output=True,
        text=True,
        timeout=PATIENCE,
    )
    assert (done.returncode, done.stdout + done.stderr) == (0, "")


# -- nginx from the deploy's site file --------------------------------------------------
def certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for the loopback (and the site's name), and its key."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "cards.example.org")])
    now = datetime.now(UTC)
    names = [x509.DNSName("cards.example.org"), x509.DNSName("localhost")]
    names += [x509.IPAddress(ipaddress.ip_address(a)) for a in ("127.0.0.1", "::1")]
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    chain, private = folder / "fullchain.pem", folder / "privkey.pem"
    chain.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    private.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return chain, private


def ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as sock:
            sock.bind(("::1", 0))
    except OSError:
        return False
    return True


def render_site(folder: Path, backends: list[int], ports: dict[str, int]) -> str:
    """The site file with its placeholders (listed at its top) replaced for ``folder``,
    the ``backends``' ports and nginx's own ``ports``, and nothing else."""
    v6 = "[::1]" if ipv6_loopback() else "127.0.0.1"  # (a loopback port of its own)
    placeholders = {
        "/etc/letsencrypt/live/cards.example.org/fullchain.pem": str(folder / "fullchain.pem"),
        "/etc/letsencrypt/live/cards.example.org/privkey.pem": str(folder / "privkey.pem"),
        "listen 80;": f"listen 127.0.0.1:{ports['http']};",
        "listen [::]:80;": f"listen {v6}:{ports['http6']};",
        "listen 443 ssl http2;": f"listen 127.0.0.1:{ports['https']} ssl http2;",
        "listen [::]:443 ssl http2;": f"listen {v6}:{ports['https6']} ssl http2;",
        "127.0.0.1:8001": f"127.0.0.1:{backends[0]}",
        "127.0.0.1:8002": f"127.0.0.1:{backends[1]}",
        "/opt/cardroom/static/": f"{folder / 'static'}/",
    }
    text = SITE.read_text()
    for placeholder, value in placeholders.items():
        assert placeholder in text, placeholder
        text = text.replace(placeholder, value)
    return text


#: The main context around the site, as Debian's /etc/nginx/nginx.conf gives it (its
#: http block's settings), with the pid, the logs and the temporary files in a folder
#: of the test's.
MAIN = """\
daemon off;
worker_processes 1;
pid {folder}/nginx.pid;
error_log {folder}/error.log;
events {{
    worker_connections 256;
}}
http {{
    sendfile on;
    tcp_nopush on;
    types_hash_max_size 2048;
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    ssl_protocols TLSv1 TLSv1.1 TLSv1.2 TLSv1.3;
    ssl_prefer_server_ciphers on;
    access_log {folder}/access.log;
    gzip on;
    client_body_temp_path {folder}/temp/body;
    proxy_temp_path {folder}/temp/proxy;
    fastcgi_temp_path {folder}/temp/fastcgi;
    uwsgi_temp_path {folder}/temp/uwsgi;
    scgi_temp_path {folder}/temp/scgi;
    include {folder}/cardroom.conf;
}}
"""


class Nginx:
    """Debian's nginx with the deploy's site in front of the ``backends`` (ports on the
    loopback), from a folder of its own; run as ``nobody`` when the tests run as root."""

    def __init__(self, backends: list[int]) -> None:
        if not Path(NGINX).exists():
            pytest.skip(MISSING_NGINX)
        self.folder = Path(tempfile.mkdtemp(prefix="cardroom-nginx-"))
        self.ports = {name: free_port() for name in ("http", "http6", "https", "https6")}
        self.chain, _ = certificate(self.folder)
        (self.folder / "temp").mkdir()
        # the package's static files, as the link made at install shows them (copied:
        # nobody may not read a checkout under /root)
        shutil.copytree(Path(cardroom.web.__file__).parent / "static", self.folder / "static")
        site = render_site(self.folder, backends, self.ports)
        (self.folder / "cardroom.conf").write_text(site)
        (self.folder / "nginx.conf").write_text(MAIN.format(folder=self.folder))
        self.user: dict[str, Any] = {}
        if os.geteuid() == 0:
            self.user = {"user": "nobody", "group": "nogroup", "extra_groups": []}
            for path in [self.folder, *self.folder.rglob("*")]:
                shutil.chown(path, "nobody", "nogroup")
        self.popen: subprocess.Popen[bytes] | None = None

    def command(self, *args: str) -> list[str]:
        conf, log = self.folder / "nginx.conf", self.folder / "error.log"
        return [NGINX, "-p", str(self.folder), "-c", str(conf), "-e", str(log), *args]

    def check(self) -> None:
        """``nginx -t``: the configuration loads."""
        done = subprocess.run(
            self.command("-t"), capture_output=True, text=True, timeout=PATIENCE, **self.user
        )
        assert done.returncode == 0, done.stdout + done.stderr + self.errors()

    def start(self) -> Nginx:
        self.check()
        with (self.folder / "out.log").open("wb") as out:
            self.popen = subprocess.Popen(
                self.command(), stdout=out, stderr=subprocess.STDOUT, **self.user
            )
        give_up = time.monotonic() + PATIENCE
        while True:
            assert self.popen.poll() is None, f"nginx exited:\n{self.errors()}"
            try:
                with socket.create_connection(("127.0.0.1", self.ports["https"]), timeout=5):
                    return self
            except OSError:
                assert time.monotonic() < give_up, f"nginx never listened:\n{self.errors()}"
                time.sleep(0.05)

    def access(self) -> str:
        return (self.folder / "access.log").read_text(errors="replace")

    def errors(self) -> str:
        log = self.folder / "error.log"
        return log.read_text(errors="replace") if log.exists() else ""

    def stop(self) -> None:
        if self.popen is not None and self.popen.poll() is None:
            self.popen.send_signal(signal.SIGQUIT)  # its graceful stop
            try:
                self.popen.wait(timeout=PATIENCE)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()
        shutil.rmtree(self.folder, ignore_errors=True)

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.ports['https']}"

    def tls(self) -> ssl.SSLContext:
        """A client's TLS that trusts the test's certificate (and checks it)."""
        return ssl.create_default_context(cafile=str(self.chain))


def test_nginx_loads_the_site_as_it_is() -> None:
    """``nginx -t`` of the deploy's site (its placeholders replaced), as a quick check
    for make test; the long test below runs it."""
    nginx = Nginx([free_port(), free_port()])
    try:
        nginx.check()
    finally:
        nginx.stop()


# -- through nginx ------------------------------------------------------------------------
@dataclass
class Front:
    """The room as its people reach it: nginx's HTTPS address, and the test's own
    connection to the database (where :func:`played` reads a person's coups)."""

    nginx: Nginx
    db: Database

    @property
    def url(self) -> str:
        return self.nginx.url

    @property
    def port(self) -> int:
        return self.nginx.ports["https"]

    def client(self, address: str = "127.0.0.1") -> httpx.Client:
        """A client that trusts the test's certificate, connecting from ``address``."""
        transport = httpx.HTTPTransport(verify=self.nginx.tls(), local_address=address)
        return httpx.Client(base_url=self.url, transport=transport, timeout=PATIENCE * 2)

    def register(self, name: str) -> tuple[Someone, httpx.Response]:
        """A new account, registered from :data:`CLIENT` with a forged forwarded address."""
        http = self.client(CLIENT)
        response = http.post(
            "/api/accounts",
            json={"username": name, "password": "a good password"},
            headers={"X-Forwarded-For": FORGED},
        )
        assert response.status_code == 201, response.text
        return Someone(self, name, http, response.json()["csrf_token"]), response  # type: ignore[arg-type]

    def socket(self, person: Someone, table: int, origin: str | None = None) -> Socket:
        """The person's WebSocket at ``table``, through nginx over TLS."""
        token = person.http.cookies.get("cardroom_session")
        opened = connect(
            f"wss://127.0.0.1:{self.port}/api/chemin-de-fer/tables/{table}/ws",
            ssl=self.nginx.tls(),
            origin=origin or self.url,  # type: ignore[arg-type]
            additional_headers={"Cookie": f"cardroom_session={token}"},
            open_timeout=PATIENCE,
            proxy=None,
        )
        sock = Socket(opened.__enter__(), person.name)  # (closed by Socket.close)
        sock.send({"type": "hello", "csrf": person.csrf})
        return sock


def house_rounds(person: Someone, count: int) -> Fraction:
    """``count`` rounds of the house games in turn, 10 on the player, standing in
    21-24-27: what they won and lost together."""
    nets = F(0)
    for n in range(count):
        game = HOUSE[n % len(HOUSE)]
        answer = person.post(f"/api/games/{game}/rounds", {"bets": {"player": "10"}})
        assert answer.status_code == 201, answer.text
        data = answer.json()
        while data["state"] == "awaiting_action":
            answer = person.post(f"/api/rounds/{data['id']}/actions", {"action": "stand"})
            assert answer.status_code == 200, answer.text
            data = answer.json()
        assert data["state"] == "finished"
        nets += F(data["total_net"])
    return nets


def dealt_by(server: Served) -> int:
    """How many house rounds ``server`` has dealt (its access log's lines)."""
    return len(re.findall(r'"POST /api/games/[a-z0-9-]+/rounds HTTP/1\.1" 201', server.access()))


def kill_everything(server: Served) -> None:
    """SIGKILL to the instance's supervisor and to each of its workers and their
    password checkers, as if its machine had gone (a worker outlives its supervisor).
    The supervisor is stopped first, so that it starts no worker the kill would miss."""
    server.popen.send_signal(signal.SIGSTOP)
    pids = descendants(server.popen.pid)
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):  # (gone already)
            os.kill(pid, signal.SIGKILL)
    assert server.popen.wait(timeout=PATIENCE) == -signal.SIGKILL
    until(lambda: not any(alive(pid) for pid in pids), "every process of it gone")


def driver_of(db: Database, table: int, instances: list[Served]) -> Served:
    """The instance one of whose processes holds ``table``'s lease."""
    with db.read() as conn:
        pid = conn.execute(
            select(chemmy_processes.c.pid)
            .join(chemmy_tables, chemmy_tables.c.owner == chemmy_processes.c.id)
            .where(chemmy_tables.c.id == table)
        ).scalar_one()
    [driver] = [i for i in instances if pid in descendants(i.popen.pid)]
    return driver


def played(db: Database, name: str) -> list[RoundRecord]:
    """The records of every coup the person played, newest first."""
    wallet = Wallet(db)
    account = wallet.accounts.account(name)
    assert account is not None
    stored = wallet.rounds.latest(account.id, limit=100, game="chemin-de-fer")
    return [RoundRecord.from_json(r.record) for r in stored if r.status == "finished" and r.record]


def until(found: Any, what: str, seconds: float = PATIENCE) -> None:
    give_up = time.monotonic() + seconds
    while not found():
        assert time.monotonic() < give_up, f"never: {what}"
        time.sleep(0.2)


@pytest.fixture
def room(pg_url: str, tmp_path: Path) -> Iterator[tuple[Front, list[Served]]]:
    """Two instances, A and B, on a new, empty database (the first migrates it as it
    starts), and nginx in front of them."""
    if not Path(NGINX).exists():
        pytest.skip(MISSING_NGINX)
    instances: list[Served] = []
    nginx: Nginx | None = None
    db: Database | None = None
    try:
        workers = int(environment_file(ENVIRONMENT.read_text())["CARDROOM_WORKERS"])
        for name in "AB":  # (one after the other: they share two cores)
            served = Served(tmp_path, *instance_args(pg_url), name=f"cardroom-{name}")
            instances.append(served)
            served.wait_for(
                lambda s=served: s.log().count("Application startup complete") >= workers,
                f"{served.name}'s {workers} workers",
            )
        nginx = Nginx([served.port for served in instances])
        db = Database.open(pg_url)
        yield Front(nginx.start(), db), instances
    finally:
        for served in instances:
            if served.popen.poll() is None:
                served.stop()
        if nginx is not None:
            nginx.stop()
        if db is not None:
            db.close()


@pytest.mark.long  # (about 50 s on two cores: four workers start, a table is taken over)
@pytest.mark.xdist_group("processes")  # (its processes share the cores: one such test at a time)
def test_play_goes_on_through_nginx_when_an_instance_dies(
    room: tuple[Front, list[Served]],
) -> None:
    front, instances = room
    nginx = front.nginx
    # plain HTTP sends people to HTTPS
    with httpx.Client(timeout=PATIENCE) as plain:
        moved = plain.get(f"http://127.0.0.1:{nginx.ports['http']}/wallet?page=2")
    assert moved.status_code == 301
    assert moved.headers["location"] == "https://127.0.0.1/wallet?page=2"
    # the static files come from the folder, with the server's own headers; nothing
    # else is served there
    with front.client() as http:
        style = http.get("/static/cardroom.css")
        from_the_server = httpx.get(f"{instances[0].url}/static/cardroom.css", timeout=PATIENCE)
        too_big = http.post("/api/login", content=b"{" + b" " * 70_000 + b"}")
        health = http.get("/healthz")
    package = Path(cardroom.web.__file__).parent / "static" / "cardroom.css"
    assert style.status_code == 200 and style.content == package.read_bytes()
    assert style.headers["content-type"].startswith("text/css")
    assert style.headers["content-security-policy"] == CSP
    for header in ("content-security-policy", "x-frame-options", "referrer-policy"):
        assert style.headers[header] == from_the_server.headers[header]
    assert style.headers["x-content-type-options"] == "nosniff"
    assert style.headers["strict-transport-security"] == "max-age=31536000"
    assert style.headers["cache-control"] == "no-cache"
    until(
        lambda: [served.access().count("/static/") for served in instances] == [1, 0],
        "the one static file asked of an instance in its access log, and only that",
    )
    assert too_big.status_code == 413  # refused by nginx, which never read it whole
    assert health.status_code == 200 and health.json()["database"]["ok"]
    assert health.headers["strict-transport-security"] == "max-age=31536000"

    # a person registers from CLIENT, claiming FORGED: her address is CLIENT's, and her
    # cookie is Secure (nginx said the request came over HTTPS)
    ann, registered = front.register("Ann")
    assert "secure" in registered.headers["set-cookie"].lower()
    with front.db.read() as conn:
        assert conn.execute(select(web_sessions.c.address)).scalars().all() == [CLIENT]

    # house rounds through nginx, dealt by both instances
    house = house_rounds(ann, 12)
    until(lambda: sum(dealt_by(s) for s in instances) == 12, "every round in an access log")
    assert all(dealt_by(served) > 0 for served in instances), [dealt_by(s) for s in instances]
    for served in instances:
        assert f"{CLIENT}:" in served.access() and FORGED not in served.output

    # a coup of chemin de fer over the WebSocket through nginx, beside the table's bot;
    # a page of another site may not open it
    with pytest.raises(InvalidStatus) as refused:
        front.socket(ann, 1, origin="https://cards.example.com")
    assert refused.value.response.status_code == 403
    assert ann.sit(1, "100")["seat"] == 0
    sock = front.socket(ann, 1)
    play([sock], coups=1)

    # the instance that drives the table dies, every process of it
    driver = driver_of(front.db, 1, instances)
    [other] = [served for served in instances if served is not driver]
    before = dealt_by(other)
    kill_everything(driver)
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", driver.port), timeout=5).close()
    # the house rounds go on at once, through the other
    house += house_rounds(ann, 8)
    until(lambda: dealt_by(other) == before + 8, "the rounds after the kill dealt by the other")
    with front.client() as http:  # and she signs in again there
        again = http.post("/api/login", json={"username": "ann", "password": "a good password"})
        assert again.status_code == 200, again.text
    # the other takes the table over: the coup in play (if any) is finished and Ann's
    # stack goes back to her wallet; she sits down again and plays on, through nginx
    sock.close()
    until(lambda: seated(ann, 1) is None, "Ann's seat given back after the kill")
    assert ann.sit(1, "100")["seat"] == 0
    sock = front.socket(ann, 1)
    play([sock], coups=1)
    assert ann.post("/api/chemin-de-fer/tables/1/leave").status_code == 200
    play([sock], until=lambda: seated(ann, 1) is None)
    drain([sock])
    sock.close()
    assert driver_of(front.db, 1, instances) is other
    with front.client() as http:
        until(lambda: http.get("/healthz").json()["status"] == "ok", "the room healthy again")
    # nginx found the dead instance refusing, and every request was answered by the other
    assert "connect() failed (111: Connection refused) while connecting to upstream" in (
        nginx.errors()
    )
    assert not re.search(r'" 50[234] ', nginx.access())

    # the books: every coup replays, and Ann's balance is 1000 and what she won and lost
    coups = played(front.db, ann.name)
    assert len(coups) >= 2
    assert all(replay(record).same for record in coups)
    chemmy = sum((r.net(r.seats.index(ann.name)) for r in coups), F(0))
    assert ann.balance() == 1000 + house + chemmy
    assert_books_and_rounds(front.db)
    ann.http.close()
