"""Faults CarePortal survives, each proved on the real server binary (docs/faults.md)."""

from __future__ import annotations

import email
import os
import re
import socket
import sqlite3
import threading
import time
import uuid
from pathlib import Path

import pytest

from conftest import Server, fill, free_port, register_member, request

STACK_TRACE_HINTS = ("PSQLError", "SQLiteHandle", "Failure(", "Swift/", ".swift:", "Fatal error", "PostgresNIO", "Traceback")


def ask(server: Server, token: str, title: str, body: str = "Is this normal at week 20?", timeout: float = 15):
    return request("POST", server.url("/api/v1/threads"), {"title": title, "body": body, "anonymous": False},
                   token=token, timeout=timeout)


def assert_all_present(server: Server, token: str, acknowledged: dict[int, str]) -> None:
    missing = []
    for thread_id, title in acknowledged.items():
        answer = request("GET", server.url(f"/api/v1/threads/{thread_id}"), token=token)
        if answer.status != 200 or answer.json()["title"] != title:
            missing.append((thread_id, title, answer.status))
    assert not missing, f"{len(missing)} of {len(acknowledged)} acknowledged questions are lost: {missing[:5]}"


class WriteLoad:
    """Members' questions posted from several threads; every one answered 2xx is recorded by its id."""

    def __init__(self, server: Server, token: str, writers: int = 6) -> None:
        self.server, self.token = server, token
        self.acknowledged: dict[int, str] = {}
        self.answers: list[tuple[int, float, str, dict, bytes]] = []  # status, seconds, title, headers, body
        self.failures = 0
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.threads = [threading.Thread(target=self._write, args=(n,), daemon=True) for n in range(writers)]

    def _write(self, writer: int) -> None:
        count = 0
        while not self.stopping.is_set():
            count += 1
            title = f"Fault load {writer}-{count} {uuid.uuid4().hex[:8]}"
            started = time.monotonic()
            try:
                answer = ask(self.server, self.token, title, timeout=20)
            except OSError:
                with self.lock:
                    self.failures += 1
                time.sleep(0.05)
                continue
            with self.lock:
                self.answers.append((answer.status, time.monotonic() - started, title, answer.headers, answer.body))
                if 200 <= answer.status < 300:
                    self.acknowledged[answer.json()["id"]] = title
            if answer.status >= 500:
                time.sleep(0.05)

    def start(self) -> "WriteLoad":
        for thread in self.threads:
            thread.start()
        return self

    def wait_for(self, acknowledged: int, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if len(self.acknowledged) >= acknowledged:
                    return
            time.sleep(0.05)
        pytest.fail(f"only {len(self.acknowledged)} writes acknowledged in {timeout} s")

    def stop(self) -> None:
        self.stopping.set()
        for thread in self.threads:
            thread.join(timeout=60)


# ---------------------------------------------------------------- 1. SIGKILL under write load


@pytest.fixture(params=["sqlite", "postgres"])
def killable_server(request, make_server) -> Server:
    if request.param == "postgres":
        return make_server("kill-postgres", database_url=request.getfixturevalue("shared_postgres_database"))
    return make_server("kill-sqlite")


def test_sigkill_under_write_load_loses_no_acknowledged_write(killable_server):
    server = killable_server
    server.start()
    member = register_member(server, "kill_test")
    load = WriteLoad(server, member.token).start()
    try:
        load.wait_for(40)
        with load.lock:
            answered_before = len(load.answers)
        server.kill()
        time.sleep(0.5)
    finally:
        load.stop()
    # The writers were still at it when the process died: their requests after the kill found no server.
    assert load.failures > 0, "no request was cut off by the kill: the load had stopped before it"
    assert len(load.answers) >= answered_before

    server.start()
    assert_all_present(server, member.token, load.acknowledged)
    # Writing goes on after the restart.
    assert ask(server, member.token, "After the restart").status == 201


# ---------------------------------------------------------------- 2. The mail server down, then back


class SMTPSink:
    """An SMTP server on a fixed port that can be stopped and started again, keeping what it received."""

    def __init__(self) -> None:
        self.port = free_port()
        self.messages: list[email.message.Message] = []
        self.lock = threading.Lock()
        self.controller = None

    def start(self) -> None:
        from aiosmtpd.controller import Controller

        sink = self

        class Handler:
            async def handle_DATA(self, server, session, envelope):
                with sink.lock:
                    sink.messages.append(email.message_from_bytes(envelope.original_content or envelope.content))
                return "250 OK"

        self.controller = Controller(Handler(), hostname="127.0.0.1", port=self.port)
        self.controller.start()

    def stop(self) -> None:
        if self.controller:
            self.controller.stop()
            self.controller = None

    def message_ids(self) -> list[str]:
        with self.lock:
            return [m["Message-ID"] for m in self.messages]

    def recipients(self) -> list[str]:
        with self.lock:
            return [m["To"] for m in self.messages]


@pytest.fixture
def smtp_sink():
    sink = SMTPSink()
    sink.start()
    yield sink
    sink.stop()


def register_customer(server: Server, address: str) -> None:
    """A pharmacy customer registering through the API: her welcome email goes into the outbox."""
    answer = request("POST", server.url("/api/v1/pharmacy/registrations"), {
        "email": address, "password": "Blue heron 1946 faults", "first_name": "Fault", "last_name": "Test",
        "date_of_birth": "1950-04-23",
    })
    assert answer.status == 202, f"{answer.status} {answer.text}"


def outbox_state(server: Server) -> list[tuple[str, str, int]]:
    database = sqlite3.connect(f"file:{server.data_dir}/careportal.sqlite?mode=ro", uri=True)
    try:
        return database.execute("SELECT recipient, status, attempts FROM outbox ORDER BY id").fetchall()
    finally:
        database.close()


def wait_until(condition, timeout: float, message) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.2)
    pytest.fail(message() if callable(message) else message)


def test_mail_server_down_then_back_delivers_every_message_exactly_once(make_server, smtp_sink):
    server = make_server("smtp", env={"SMTP_URL": f"smtp://127.0.0.1:{smtp_sink.port}"})
    server.start()
    before = [f"before.{n}@example.org" for n in range(2)]
    during = [f"during.{n}@example.org" for n in range(6)]

    for address in before:
        register_customer(server, address)
    wait_until(lambda: len(smtp_sink.messages) == len(before), 30, lambda: f"received {smtp_sink.recipients()}")

    smtp_sink.stop()
    for address in during:
        register_customer(server, address)
    # Every one of them was tried while the mail server was down, and failed.
    wait_until(
        lambda: sum(1 for recipient, status, attempts in outbox_state(server) if recipient in during and attempts >= 1
                    and status == "pending") == len(during),
        30, lambda: f"outbox: {outbox_state(server)}",
    )
    time.sleep(3)  # down for a while
    assert len(smtp_sink.messages) == len(before)

    smtp_sink.start()
    # The first retry comes 30 s after the failure; the sender polls every 5 s.
    wait_until(lambda: len(smtp_sink.messages) >= len(before) + len(during), 180,
               lambda: f"received {smtp_sink.recipients()}; outbox {outbox_state(server)}")
    time.sleep(8)  # a poll or more later, nothing is sent twice
    ids = smtp_sink.message_ids()
    assert len(ids) == len(set(ids)) == len(before) + len(during), f"duplicates among {ids}"
    assert sorted(smtp_sink.recipients()) == sorted(before + during)
    assert all(status == "sent" for _, status, _ in outbox_state(server)), outbox_state(server)


# ---------------------------------------------------------------- 3. PostgreSQL restarted under load


def sign_in_form(server: Server) -> tuple[str, str]:
    """The sign-in page's session cookie and CSRF token."""
    answer = request("GET", server.url("/sign-in"))
    assert answer.status == 200, answer.status
    cookie = "; ".join(value.split(";")[0] for key, value in answer.headers.items() if key.lower() == "set-cookie")
    token = re.search(r'name="csrf_token" value="([^"]+)"', answer.text)
    assert token, "no CSRF token on the sign-in page"
    return cookie, token.group(1)


def assert_plain_unavailable(answer, api: bool) -> None:
    assert answer.status == 503, f"{answer.status}: {answer.text[:300]}"
    assert answer.headers.get("Retry-After"), answer.headers
    for hint in STACK_TRACE_HINTS:
        assert hint not in answer.text, f"{hint} shown to the user: {answer.text[:500]}"
    if api:
        assert answer.json()["error"]["code"] == "unavailable"
    else:
        assert "Sorry, the service is unavailable for a moment" in answer.text
        assert "What you were doing may not have been saved" in answer.text


def test_postgres_restarted_under_load_answers_503_then_recovers_without_restart(make_server, postgres_cluster):
    server = make_server("postgres-restart", database_url=postgres_cluster.url)
    server.start()
    member = register_member(server, "restart_test")
    load = WriteLoad(server, member.token, writers=4).start()
    try:
        load.wait_for(20)
        postgres_cluster.stop("fast")
        outage_started = time.monotonic()
        with load.lock:
            answered_before_outage = len(load.answers)

        # While PostgreSQL is down: the API and the portal answer 503, quickly, in words.
        time.sleep(1)
        started = time.monotonic()
        api_answer = request("GET", server.url("/api/v1/threads"), token=member.token, timeout=15)
        assert time.monotonic() - started < 8, "the API kept the request waiting"
        assert_plain_unavailable(api_answer, api=True)
        started = time.monotonic()
        page = request("GET", server.url("/sign-in"), timeout=15,
                       headers={"Cookie": "careportal_session=" + "x" * 43})
        assert time.monotonic() - started < 8, "the portal kept the page waiting"
        assert_plain_unavailable(page, api=False)
        started = time.monotonic()
        page = request("POST", server.url("/sign-in"), b"username=a&password=b", timeout=15,
                       headers={"Content-Type": "application/x-www-form-urlencoded", "Origin": server.base_url,
                                "Cookie": "careportal_session=" + "x" * 43})
        assert time.monotonic() - started < 8, "the portal kept the form waiting"
        assert_plain_unavailable(page, api=False)
        # The load balancer's check says this server cannot reach its database, and nothing more.
        health = request("GET", server.url("/health"), timeout=15)
        assert health.status == 503 and health.json() == {"status": "unavailable"}, f"{health.status}: {health.text[:300]}"
        time.sleep(max(0.0, 6 - (time.monotonic() - outage_started)))
        with load.lock:
            during = load.answers[answered_before_outage:]
        postgres_cluster.start()

        # Back: writes succeed again on the same process, with no restart.
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and ask(server, member.token, "After PostgreSQL came back").status != 201:
            time.sleep(0.5)
        assert ask(server, member.token, "After PostgreSQL came back, again").status == 201
        health = request("GET", server.url("/health"))
        assert health.status == 200 and health.json() == {"status": "ok"}, f"{health.status}: {health.text[:300]}"
        assert server.process.poll() is None and server.starts == 1
    finally:
        load.stop()

    assert during, "no request was answered while PostgreSQL was down"
    statuses = sorted({status for status, *_ in during})
    assert set(statuses) <= {201, 503}, f"answers while PostgreSQL was down: {statuses}"
    assert 503 in statuses
    slowest = max(seconds for *_, seconds, _, _, _ in [(s, d, t, h, b) for s, d, t, h, b in during])
    assert slowest < 10, f"a request waited {slowest:.1f} s while PostgreSQL was down"
    for status, _, _, headers, body in during:
        if status == 503:
            assert b'"code":"unavailable"' in body.replace(b" ", b""), body[:300]
    assert "Request failed" in server.logged()  # the operator sees why in the log
    assert_all_present(server, member.token, load.acknowledged)


# ---------------------------------------------------------------- 4. The disk full on SQLite


def test_disk_full_on_sqlite_refuses_clearly_keeps_everything_and_resumes(make_server, small_disk):
    server = make_server("disk-full", data_dir=small_disk)
    server.start()
    member = register_member(server, "disk_test")
    acknowledged: dict[int, str] = {}
    for n in range(5):
        answer = ask(server, member.token, f"Before the disk filled {n}")
        assert answer.status == 201
        acknowledged[answer.json()["id"]] = f"Before the disk filled {n}"

    filler = fill(small_disk)
    long_body = "Week 30 and my ankles are swollen every evening. " * 150
    refused = None
    refused_title = None
    for n in range(200):
        title = f"While the disk is full {n}"
        answer = ask(server, member.token, title, body=long_body)
        if answer.status == 201:  # room left in pages SQLite had already
            acknowledged[answer.json()["id"]] = title
            continue
        refused, refused_title = answer, title
        break
    assert refused is not None, "the disk never filled up"
    assert refused.status == 507, f"{refused.status}: {refused.text[:300]}"
    assert refused.json()["error"]["code"] == "storage_full"
    for hint in STACK_TRACE_HINTS:
        assert hint not in refused.text
    # A staff member in the portal is told the same in words.
    page = request("POST", server.url("/sign-in"), b"username=a&password=b",
                   headers={"Content-Type": "application/x-www-form-urlencoded", "Origin": server.base_url})
    if page.status == 507:
        assert "Sorry, the service has run out of storage space" in page.text
        assert "Nothing was saved from this request" in page.text
    else:
        assert page.status in (200, 403), f"{page.status}: {page.text[:300]}"
    assert "Request failed" in server.logged()

    # Nothing half-written: the file is sound, every acknowledged question is there, the refused one is not.
    database = sqlite3.connect(f"file:{small_disk}/careportal.sqlite?mode=ro", uri=True)
    try:
        assert database.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        titles = {row[0] for row in database.execute("SELECT title FROM desk_threads")}
    finally:
        database.close()
    assert set(acknowledged.values()) <= titles
    assert refused_title not in titles
    assert_all_present(server, member.token, acknowledged)

    # Space freed: the same process writes again.
    filler.unlink()
    answer = ask(server, member.token, "After space was freed")
    assert answer.status == 201, f"{answer.status}: {answer.text[:300]}"
    assert server.process.poll() is None and server.starts == 1


# ---------------------------------------------------------------- 5. A body over the limit


def raw_exchange(server: Server, head: str, body_parts, read_timeout: float = 5) -> tuple[str, float]:
    """Sends the request head and what `body_parts` yields, then reads whatever answer came back."""
    connection = socket.create_connection(("127.0.0.1", server.port), timeout=read_timeout)
    started = time.monotonic()
    try:
        connection.sendall(head.encode())
        for part in body_parts:
            try:
                connection.sendall(part)
            except (BrokenPipeError, ConnectionResetError):
                break
        received = b""
        try:
            while b"\r\n\r\n" not in received:
                chunk = connection.recv(65536)
                if not chunk:
                    break
                received += chunk
            # The rest of a short answer (its body), if it comes at once.
            connection.settimeout(1)
            while True:
                chunk = connection.recv(65536)
                if not chunk:
                    break
                received += chunk
        except (socket.timeout, ConnectionResetError):
            pass
        return received.decode("utf-8", "replace"), time.monotonic() - started
    finally:
        connection.close()


def status_of(answer: str) -> int:
    match = re.match(r"HTTP/1\.1 (\d{3})", answer)
    assert match, f"no HTTP answer: {answer[:200]!r}"
    return int(match.group(1))


FIFTY_MB = 50 * 1024 * 1024


@pytest.fixture
def limit_server(make_server) -> Server:
    server = make_server("body-limit")
    server.start()
    return server


def test_declared_body_over_the_limit_gets_413_before_it_is_read(limit_server):
    server = limit_server
    member = register_member(server, "limit_test")
    cases = [
        ("portal form", "/sign-in", "application/x-www-form-urlencoded", "", False),
        ("portal upload", "/sign-in", "multipart/form-data; boundary=xyz", "", False),
        ("API", "/api/v1/threads", "application/json", f"Authorization: Bearer {member.token}\r\n", True),
        ("API without a token", "/api/v1/threads", "application/json", "", True),
    ]
    for name, path, content_type, extra, api in cases:
        head = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nOrigin: {server.base_url}\r\n"
                f"Content-Type: {content_type}\r\nContent-Length: {FIFTY_MB}\r\n{extra}\r\n")
        answer, seconds = raw_exchange(server, head, [b"username=a&pa"])
        # Answered at once, with only 13 of the 50 MB sent: nothing waited for the rest.
        assert status_of(answer) == 413, f"{name}: {answer[:300]}"
        assert seconds < 4, f"{name}: answered after {seconds:.1f} s"
        if api:
            assert '"code":"too_large"' in answer.replace(" ", ""), answer
        else:
            assert "That was too large to send" in answer, answer
    # Only a learning video's form may be larger than 5 MB: the limit follows the route.
    for path, refused in (("/learning/videos/new", False), ("/learning/videos/7", False), ("/catalogue/exercises/new", True)):
        head = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nOrigin: {server.base_url}\r\n"
                f"Content-Type: multipart/form-data; boundary=xyz\r\nContent-Length: {100 * 1024 * 1024}\r\n\r\n")
        answer, _ = raw_exchange(server, head, [b"--xyz\r\n"])
        assert (status_of(answer) == 413) == refused, f"{path}: {answer[:200]}"
    # A body within the limit is still read.
    assert ask(server, member.token, "Within the limit").status == 201


def chunks(total: int, size: int = 64 * 1024):
    sent = 0
    while sent < total:
        part = b"a" * min(size, total - sent)
        sent += len(part)
        yield f"{len(part):x}\r\n".encode() + part + b"\r\n"
    yield b"0\r\n\r\n"


def test_chunked_body_over_the_limit_gets_413(limit_server):
    server = limit_server
    member = register_member(server, "chunked_test")
    # The API: 64 KB of JSON at most.
    head = (f"POST /api/v1/threads HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nContent-Type: application/json\r\n"
            f"Authorization: Bearer {member.token}\r\nTransfer-Encoding: chunked\r\n\r\n")
    answer, _ = raw_exchange(server, head, chunks(2 * 1024 * 1024))
    assert status_of(answer) == 413, answer[:300]
    assert '"code":"too_large"' in answer.replace(" ", "")

    # The portal: a form of 1 MB at most, read by the CSRF check of a genuine form.
    cookie, token = sign_in_form(server)
    head = (f"POST /sign-in HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nOrigin: {server.base_url}\r\n"
            f"Cookie: {cookie}\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\n")
    prefix = f"csrf_token={token}&username=".encode()
    body = [f"{len(prefix):x}\r\n".encode() + prefix + b"\r\n", *chunks(3 * 1024 * 1024)]
    answer, _ = raw_exchange(server, head, body)
    assert status_of(answer) == 413, answer[:300]
    assert "That was too large to send" in answer
    # And a chunked body within the limit is still read.
    head = (f"POST /api/v1/threads HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nContent-Type: application/json\r\n"
            f"Authorization: Bearer {member.token}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
    payload = b'{"title": "Chunked within the limit", "body": "Fine", "anonymous": false}'
    answer, _ = raw_exchange(server, head, [f"{len(payload):x}\r\n".encode() + payload + b"\r\n", b"0\r\n\r\n"])
    assert status_of(answer) == 201, answer[:300]
