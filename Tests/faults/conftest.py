"""Fault tests for CarePortal: the real server binary, killed, starved and cut off.

Run from the repository root after building the server (as root: the disk-full test mounts a small
tmpfs, and the PostgreSQL tests run their own throwaway cluster as the postgres user):

    CAREPORTAL_BIN=.build/debug/careportal python3 -m pytest Tests/faults -q

With CAREPORTAL_TEST_POSTGRES_URL set (script/lib/postgres.sh), the kill test also runs on a fresh
database of that PostgreSQL. Server logs go to artifacts/server-logs/faults-*.log.
"""

from __future__ import annotations

import base64
import datetime
import errno
import glob
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
# The sealing key every PostgreSQL server of this run is given, as an operator gives each server the same one.
SEALING_KEY = base64.b64encode(os.urandom(32)).decode()
SERVER_LOGS = REPO_ROOT / "artifacts" / "server-logs"
STARTUP_TIMEOUT = 60

for _name in ("NO_PROXY", "no_proxy"):
    os.environ[_name] = ",".join(filter(None, [os.environ.get(_name, ""), "127.0.0.1", "localhost"]))
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_binary() -> Path:
    path = Path(os.environ.get("CAREPORTAL_BIN", ".build/debug/careportal"))
    if not path.is_absolute():
        path = REPO_ROOT / path
    if not path.exists():
        pytest.fail(f"CarePortal binary not found at {path}. Build it (swift build) or set CAREPORTAL_BIN.", pytrace=False)
    return path


# ---------------------------------------------------------------- HTTP


@dataclass
class Answer:
    status: int
    headers: dict
    body: bytes

    def json(self):
        return json.loads(self.body)

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")


def request(method: str, url: str, body=None, token: str | None = None, timeout: float = 15,
            headers: dict | None = None) -> Answer:
    """One request without cookies or redirects; an HTTP error status is an answer, not an exception."""
    data = None
    all_headers = dict(headers or {})
    if body is not None:
        data = json.dumps(body).encode() if not isinstance(body, bytes) else body
        all_headers.setdefault("Content-Type", "application/json")
    if token:
        all_headers["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(url, data=data, method=method, headers=all_headers)
    try:
        with _DIRECT.open(req, timeout=timeout) as response:
            return Answer(response.status, dict(response.headers), response.read())
    except urllib.error.HTTPError as error:
        return Answer(error.code, dict(error.headers), error.read())


# ---------------------------------------------------------------- servers


@dataclass
class Server:
    """One CarePortal process on a database that outlives it (so it can be killed and started again)."""

    name: str
    database_url: str
    data_dir: Path
    env: dict = field(default_factory=dict)
    port: int = field(default_factory=free_port)
    process: subprocess.Popen | None = None
    starts: int = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def log_path(self) -> Path:
        return SERVER_LOGS / f"faults-{self.name}.log"

    def url(self, path: str) -> str:
        return self.base_url + path

    def command_env(self) -> dict:
        # On PostgreSQL the operator gives the sealing key; SQLite makes its own in DATA_DIR.
        sealing = {"SEALING_KEY": SEALING_KEY} if self.database_url.startswith("postgres") else {}
        return {**os.environ, "LOG_LEVEL": "info", "DATABASE_URL": self.database_url, "DATA_DIR": str(self.data_dir),
                "HOST": "127.0.0.1", "PORT": str(self.port), "BASE_URL": self.base_url, **sealing, **self.env}

    def run_command(self, *arguments: str, stdin: str = "") -> str:
        """Runs a careportal command (create-user, …) against this server's database."""
        result = subprocess.run([str(server_binary()), *arguments], input=stdin, capture_output=True, text=True,
                                cwd=REPO_ROOT, env=self.command_env(), timeout=120)
        if result.returncode != 0:
            pytest.fail(f"careportal {' '.join(arguments)} failed:\n{result.stdout}\n{result.stderr}", pytrace=False)
        return result.stdout.strip()

    def start(self) -> None:
        SERVER_LOGS.mkdir(parents=True, exist_ok=True)
        self.starts += 1
        log = open(self.log_path, "ab")
        log.write(f"--- start {self.starts} ---\n".encode())
        log.flush()
        self.process = subprocess.Popen([str(server_binary()), "serve"], cwd=REPO_ROOT, env=self.command_env(),
                                        stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        log.close()
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f"CarePortal exited with {self.process.returncode} while starting:\n{self.log_tail()}", pytrace=False)
            try:
                if request("GET", self.url("/health"), timeout=2).status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        pytest.fail(f"CarePortal did not answer /health within {STARTUP_TIMEOUT} s:\n{self.log_tail()}", pytrace=False)

    def kill(self) -> None:
        """SIGKILL: no shutdown, no flush, no goodbye."""
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def logged(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""


@pytest.fixture
def make_server(request):
    """`make_server(name, database_url=None, data_dir=None, env={})`: a server, not yet started; stopped at the end."""
    made: list[Server] = []
    folders: list[Path] = []

    def make(name: str, database_url: str | None = None, data_dir: Path | None = None, env: dict | None = None) -> Server:
        if data_dir is None:
            data_dir = Path(tempfile.mkdtemp(prefix=f"careportal-faults-{name}-"))
            folders.append(data_dir)
        database_url = database_url or f"sqlite://{data_dir}/careportal.sqlite"
        server = Server(name=name, database_url=database_url, data_dir=data_dir, env=env or {})
        if server.log_path.exists():
            server.log_path.unlink()
        made.append(server)
        return server

    yield make
    for server in made:
        server.stop()
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)


# ---------------------------------------------------------------- accounts


@dataclass
class Member:
    pseudonym: str
    token: str


def register_member(server: Server, pseudonym: str) -> Member:
    """A member registered through the API with a sign-up code an administrator made on the command line."""
    if not getattr(server, "_admin", False):
        server.run_command("create-user", "--role", "administrator", "--username", "faults.admin",
                           stdin="faults administrator passphrase\n")
        server._admin = True
    code = server.run_command("create-sign-up-code", "--by", "faults.admin")
    program = request("GET", server.url("/api/v1/program")).json()
    due = (datetime.date.today() + datetime.timedelta(days=120)).isoformat()
    answer = request("POST", server.url("/api/v1/registrations"), {
        "sign_up_code": code, "pseudonym": pseudonym, "password": "Sunrise#2027faults", "due_date": due,
        "recovery_email": f"{pseudonym}@example.org", "security_question": program["security_questions"][0],
        "security_answer": "Biscuit",
    })
    assert answer.status == 201, f"registration failed: {answer.status} {answer.text}"
    return Member(pseudonym, answer.json()["token"])


# ---------------------------------------------------------------- PostgreSQL


def postgres_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: [int(x) for x in re.findall(r"\d+", p)])
    return Path(found[-1]) if found else None


class PostgresCluster:
    """A throwaway PostgreSQL cluster this test may stop and start at will (as script/lib/postgres.sh makes one)."""

    def __init__(self) -> None:
        self.bin = postgres_bin()
        self.dir = Path(tempfile.mkdtemp(prefix="careportal-faults-postgres-"))
        shutil.chown(self.dir, "postgres", "postgres")
        self.port = free_port()
        self._as_postgres(f"'{self.bin}/initdb' -D '{self.dir}/data' -A trust -U postgres -E UTF8 --locale=C.UTF-8")

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/postgres"

    def _as_postgres(self, command: str) -> None:
        subprocess.run(["su", "postgres", "-s", "/bin/sh", "-c", command], check=True, capture_output=True, timeout=120)

    def start(self) -> None:
        self._as_postgres(
            f"'{self.bin}/pg_ctl' -D '{self.dir}/data' -l '{self.dir}/server.log' -w -o "
            f"\"-p {self.port} -k '{self.dir}' -c listen_addresses=127.0.0.1 -c max_connections=100 -c fsync=off\" start"
        )

    def stop(self, mode: str = "fast") -> None:
        self._as_postgres(f"'{self.bin}/pg_ctl' -D '{self.dir}/data' -m {mode} -w stop")

    def destroy(self) -> None:
        try:
            self.stop("immediate")
        except subprocess.CalledProcessError:
            pass
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def postgres_cluster():
    if os.geteuid() != 0 or postgres_bin() is None or shutil.which("su") is None:
        pytest.skip("needs root and PostgreSQL's server binaries (apt-get install postgresql) for a cluster of its own")
    cluster = PostgresCluster()
    cluster.start()
    yield cluster
    cluster.destroy()


@pytest.fixture
def shared_postgres_database():
    """A fresh, empty database on the PostgreSQL script/test started, dropped at the end; skipped without one."""
    url = os.environ.get("CAREPORTAL_TEST_POSTGRES_URL")
    if not url:
        pytest.skip("CAREPORTAL_TEST_POSTGRES_URL is not set (source script/lib/postgres.sh; start_test_postgres)")
    name = f"faults_{os.getpid()}_{int(time.time() * 1000)}"
    psql = ["psql", url, "-v", "ON_ERROR_STOP=1", "-q", "-c"]
    subprocess.run(psql + [f'CREATE DATABASE "{name}"'], check=True, capture_output=True, timeout=60)
    parts = urllib.parse.urlsplit(url)
    yield urllib.parse.urlunsplit(parts._replace(path=f"/{name}"))
    subprocess.run(psql + [f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'], capture_output=True, timeout=60)


# ---------------------------------------------------------------- a small disk


@pytest.fixture
def small_disk():
    """A 16 MB tmpfs for the data folder, unmounted however the test ends."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small file system for the data folder needs root")
    folder = Path(tempfile.mkdtemp(prefix="careportal-faults-disk-"))
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m,mode=0700", "tmpfs", str(folder)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        folder.rmdir()
        pytest.skip(f"mount is not permitted here: {mounted.stderr.strip()}")
    try:
        yield folder
    finally:
        if subprocess.run(["umount", str(folder)], capture_output=True).returncode != 0:
            subprocess.run(["umount", "-l", str(folder)], capture_output=True)
        folder.rmdir()


def fill(folder: Path) -> Path:
    """Takes every free byte of the file system."""
    filler = folder / "filler"
    with open(filler, "wb", buffering=0) as handle:
        for size in (1 << 20, 1 << 12, 1):
            try:
                while True:
                    handle.write(b"\0" * size)
            except OSError as error:
                assert error.errno == errno.ENOSPC, error
    return filler
