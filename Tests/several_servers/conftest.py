"""Two CarePortal servers on one PostgreSQL database, behind Debian's nginx running deploy/nginx.conf.

Run from the repository root after building the server, as root (a PostgreSQL cluster of its own runs as
the postgres user), with nginx installed (script/test installs it):

    CAREPORTAL_BIN=.build/debug/careportal python3 -m pytest Tests/several_servers -q

With CAREPORTAL_TEST_POSTGRES_URL set (script/lib/postgres.sh) the servers share a fresh database of that
PostgreSQL; otherwise the test starts a throwaway cluster of its own. Each server has its own DATA_DIR, as
servers on separate machines would. Server logs, and nginx's, go to artifacts/server-logs/several-servers-*.log.
The servers, processes and helpers of the fault tests (Tests/faults/conftest.py) are reused.
"""

from __future__ import annotations

import http.client
import http.cookies
import importlib.util
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse
import uuid
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))

# The fault tests' helpers (servers, requests, members, PostgreSQL), loaded under a name of their own.
_spec = importlib.util.spec_from_file_location("faults_support", REPO_ROOT / "Tests" / "faults" / "conftest.py")
faults = importlib.util.module_from_spec(_spec)
sys.modules["faults_support"] = faults
_spec.loader.exec_module(faults)

import local_nginx  # noqa: E402  (beside this file)

Answer = faults.Answer
request = faults.request
free_port = faults.free_port
register_member = faults.register_member
SERVER_LOGS = faults.SERVER_LOGS


class Server(faults.Server):
    """A fault tests' server whose log is named for this test."""

    @property
    def log_path(self) -> Path:
        return SERVER_LOGS / f"several-servers-{self.name}.log"


# ---------------------------------------------------------------- nginx


class Nginx:
    """Debian's nginx with deploy/nginx.conf, on a loopback port, everything it writes in one folder."""

    def __init__(self, port: int, servers: list[int], folder: Path) -> None:
        self.port, self.servers, self.folder = port, servers, folder
        self.error_log = SERVER_LOGS / "several-servers-nginx-error.log"
        self.access_log = SERVER_LOGS / "several-servers-nginx-access.log"
        self.config = folder / "nginx.conf"
        self.process: subprocess.Popen | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str) -> str:
        return self.base_url + path

    def start(self) -> None:
        SERVER_LOGS.mkdir(parents=True, exist_ok=True)
        for log in (self.error_log, self.access_log):
            log.unlink(missing_ok=True)
        # Its workers run as the example's user (www-data), which must reach the temporary folders.
        self.folder.chmod(0o755)
        self.config.write_text(local_nginx.local_config(
            local_nginx.EXAMPLE.read_text(), self.port, self.servers, self.folder, self.error_log, self.access_log
        ))
        checked = subprocess.run([local_nginx.NGINX, "-t", "-p", str(self.folder), "-c", str(self.config), "-e", str(self.error_log)],
                                 capture_output=True, text=True, timeout=30)
        assert checked.returncode == 0, f"nginx -t refused deploy/nginx.conf:\n{checked.stderr}"
        self.process = subprocess.Popen(
            [local_nginx.NGINX, "-p", str(self.folder), "-c", str(self.config), "-e", str(self.error_log), "-g", "daemon off;"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, start_new_session=True,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f"nginx exited with {self.process.returncode}:\n{self.log_tail()}", pytrace=False)
            try:
                if request("GET", self.url("/health"), timeout=2).status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        pytest.fail(f"nginx did not answer /health within 30 s:\n{self.log_tail()}", pytrace=False)

    def stop(self) -> None:
        if not self.process:
            return
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)  # nginx's fast shutdown: its workers go with it
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)  # its own process group: the master and its workers
                self.process.wait(timeout=10)

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.error_log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def upstreams(self, path: str, since: int = 0) -> list[int]:
        """The server port that answered each request for `path` (the logged path, without its query), from
        the access log's line `since` on."""
        ports = []
        for line in self.access_log.read_text(errors="replace").splitlines()[since:]:
            match = re.search(r'"\S+ (\S+) [^"]*" .* upstream=127\.0\.0\.1:(\d+)', line)
            if match and match.group(1) == path:
                ports.append(int(match.group(2)))
        return ports

    def lines_logged(self) -> int:
        try:
            return len(self.access_log.read_text(errors="replace").splitlines())
        except OSError:
            return 0


# ---------------------------------------------------------------- a browser's cookies


class Browser:
    """One person's cookies, sent to whichever address she is sent to: nginx, or a server directly. No
    redirect is followed, so each answer is seen as it is."""

    def __init__(self, origin: str, user_agent: str = "several-servers-test") -> None:
        self.origin = origin  # every server's BASE_URL, which forms must come from
        self.user_agent = user_agent
        self.cookies: dict[str, str] = {}

    def send(self, base: str, method: str, path: str, body: bytes | None = None, headers: dict | None = None,
             timeout: float = 60) -> Answer:
        address = urllib.parse.urlsplit(base)
        connection = http.client.HTTPConnection(address.hostname, address.port, timeout=timeout)
        all_headers = {"User-Agent": self.user_agent, **(headers or {})}
        if self.cookies:
            all_headers["Cookie"] = "; ".join(f"{name}={value}" for name, value in self.cookies.items())
        if method not in ("GET", "HEAD"):
            all_headers.setdefault("Origin", self.origin)
        try:
            connection.request(method, path, body=body, headers=all_headers)
            response = connection.getresponse()
            # Header names in lower case: HTTP/1.1 does not care, and the servers and nginx spell them differently.
            answer = Answer(response.status, {name.lower(): value for name, value in response.getheaders()}, response.read())
            for header in response.headers.get_all("Set-Cookie") or []:
                self._keep(header)
            return answer
        finally:
            connection.close()

    def _keep(self, header: str) -> None:
        cookie = http.cookies.SimpleCookie()
        cookie.load(header)
        for name, morsel in cookie.items():
            if morsel["max-age"] == "0" or not morsel.value:
                self.cookies.pop(name, None)
            else:
                self.cookies[name] = morsel.value

    def get(self, base: str, path: str, headers: dict | None = None) -> Answer:
        return self.send(base, "GET", path, headers=headers)

    def post_form(self, base: str, path: str, fields: dict, headers: dict | None = None) -> Answer:
        return self.send(base, "POST", path, urllib.parse.urlencode(fields).encode(),
                         {"Content-Type": "application/x-www-form-urlencoded", **(headers or {})})

    def post_multipart(self, base: str, path: str, fields: list[tuple[str, str]], file: tuple[str, str, str, bytes]) -> Answer:
        """`fields` in order (the CSRF token first: the server reads it before the file), then `file`
        as (field, file name, type, bytes)."""
        boundary = uuid.uuid4().hex
        parts = []
        for name, value in fields:
            parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode())
        field, filename, content_type, data = file
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{field}"; filename="{filename}"\r\n'
                     f"Content-Type: {content_type}\r\n\r\n".encode() + data + b"\r\n")
        parts.append(f"--{boundary}--\r\n".encode())
        return self.send(base, "POST", path, b"".join(parts), {"Content-Type": f"multipart/form-data; boundary={boundary}"},
                         timeout=120)


def header(answer: Answer, name: str) -> str | None:
    """A header of the answer, whatever the case of its name."""
    return next((value for key, value in answer.headers.items() if key.lower() == name.lower()), None)


def csrf_token(page: Answer) -> str:
    token = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    assert token, f"no CSRF token on the page ({page.status}): {page.text[:300]}"
    return token.group(1)


# ---------------------------------------------------------------- the database, the servers, nginx


@dataclass
class Portal:
    """Two servers on one database, and nginx in front of them."""

    a: Server
    b: Server
    nginx: Nginx
    database_url: str

    def psql(self, sql: str) -> str:
        result = subprocess.run(["psql", self.database_url, "-v", "ON_ERROR_STOP=1", "-Atqc", sql],
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stderr
        return result.stdout.strip()


def _database(stack: ExitStack) -> str:
    """A fresh database: on the PostgreSQL script/test started, or on a throwaway cluster of this test's own."""
    shared = os.environ.get("CAREPORTAL_TEST_POSTGRES_URL")
    if shared:
        name = f"several_servers_{os.getpid()}_{int(time.time() * 1000)}"
        psql = ["psql", shared, "-v", "ON_ERROR_STOP=1", "-q", "-c"]
        subprocess.run(psql + [f'CREATE DATABASE "{name}"'], check=True, capture_output=True, timeout=60)
        stack.callback(lambda: subprocess.run(psql + [f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'],
                                              capture_output=True, timeout=60))
        return urllib.parse.urlunsplit(urllib.parse.urlsplit(shared)._replace(path=f"/{name}"))
    if os.geteuid() != 0 or faults.postgres_bin() is None or shutil.which("su") is None:
        pytest.skip("needs CAREPORTAL_TEST_POSTGRES_URL, or root and PostgreSQL's server binaries for a cluster of its own")
    cluster = faults.PostgresCluster()
    stack.callback(cluster.destroy)
    cluster.start()
    return cluster.url


@pytest.fixture(scope="module")
def portal():
    if not os.access(local_nginx.NGINX, os.X_OK):
        pytest.skip(f"{local_nginx.NGINX} is missing: apt-get install nginx (script/test installs it)")
    with ExitStack() as stack:
        database_url = _database(stack)
        nginx_port = free_port()
        servers = []
        for name in ("a", "b"):
            data_dir = Path(tempfile.mkdtemp(prefix=f"careportal-several-{name}-"))
            stack.callback(shutil.rmtree, data_dir, ignore_errors=True)
            # Every server: the same database and sealing key (faults.SEALING_KEY), the address people use
            # (nginx's), the client's address from nginx's X-Forwarded-For; and a DATA_DIR of its own.
            server = Server(name=name, database_url=database_url, data_dir=data_dir, env={
                "BASE_URL": f"http://127.0.0.1:{nginx_port}", "TRUST_FORWARDED_FOR": "true",
            })
            server.log_path.unlink(missing_ok=True)
            stack.callback(server.stop)
            server.start()  # one after the other: the first migrates the database
            servers.append(server)
        folder = Path(tempfile.mkdtemp(prefix="careportal-several-nginx-"))
        stack.callback(shutil.rmtree, folder, ignore_errors=True)
        nginx = Nginx(nginx_port, [server.port for server in servers], folder)
        stack.callback(nginx.stop)
        nginx.start()
        yield Portal(servers[0], servers[1], nginx, database_url)


def metric(server: Server, name: str, labels: str = "") -> float | None:
    """One series' value from the server's /metrics, read directly (from 127.0.0.1, which may read it)."""
    answer = request("GET", server.url("/metrics"))
    assert answer.status == 200, f"/metrics on server {server.name}: {answer.status}"
    for line in answer.text.splitlines():
        if line.startswith(name) and labels in line and not line.startswith("#"):
            return float(line.rsplit(" ", 1)[1])
    return None
