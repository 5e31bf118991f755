"""Two CarePortal servers on one PostgreSQL database behind nginx with deploy/nginx.conf (issue 58): what
people do works whichever server answers. Each check goes through nginx and through each server
directly, in turn; the servers' own ports stand for "this server" and "the other one"."""

from __future__ import annotations

import base64
import hashlib
import hmac
import random
import re
import struct
import time
import uuid

import pytest
import websocket

from conftest import Browser, csrf_token, header, metric, register_member, request

ADMIN = "several.admin"
PASSWORD = "several servers passphrase"
SIGNED_IN = f"Signed in as <strong>{ADMIN}</strong>"
CHAT_SOCKET = "/api/v1/chat/live"
CHAT_MESSAGES = "/api/v1/chat/messages"
# A client's own X-Forwarded-For, which nginx must append to rather than pass on as the client's address.
SPOOFED = "198.51.100.7"


def totp(key_text: str, step_offset: int = 0) -> str:
    """The code an authenticator app shows for the key typed from the page (RFC 6238, SHA-1, 6 digits)."""
    key = key_text.replace(" ", "")
    key = base64.b32decode(key + "=" * (-len(key) % 8))
    digest = hmac.new(key, struct.pack(">Q", int(time.time() // 30) + step_offset), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    return f"{(struct.unpack('>I', digest[offset:offset + 4])[0] & 0x7FFFFFFF) % 1_000_000:06d}"


def sign_in_with_password(browser: Browser, base: str, headers: dict | None = None):
    form = browser.get(base, "/sign-in")
    assert form.status == 200, form.status
    return browser.post_form(base, "/sign-in", {"csrf_token": csrf_token(form), "username": ADMIN, "password": PASSWORD},
                             headers=headers)


@pytest.fixture(scope="module")
def staff(portal) -> Browser:
    """The administrator, signed in through nginx with her password and her authenticator's code; she turned
    two-factor sign-in on with one server, and the other showed her key: both open what either sealed."""
    a, b, nginx = portal.a.base_url, portal.b.base_url, portal.nginx.base_url
    portal.a.run_command("create-user", "--role", "administrator", "--username", ADMIN, "--email", "several.admin@example.org",
                         stdin=PASSWORD + "\n")
    browser = Browser(origin=nginx)
    signed_in = sign_in_with_password(browser, nginx)
    assert signed_in.status == 303 and header(signed_in, "location") == "/", f"{signed_in.status} {signed_in.text[:300]}"

    account = browser.get(a, "/account/two-factor")
    assert account.status == 200, account.status
    begun = browser.post_form(a, "/account/two-factor/set-up", {"csrf_token": csrf_token(account)})
    assert begun.status == 303, f"{begun.status} {begun.text[:300]}"
    setup = browser.get(b, "/account/two-factor")
    key = re.search(r'id="secret-key">([^<]+)<', setup.text)
    assert setup.status == 200 and key, f"server B does not show the key server A sealed: {setup.status} {setup.text[:500]}"
    confirmed = browser.post_form(a, "/account/two-factor/confirm", {"csrf_token": csrf_token(setup), "code": totp(key.group(1))})
    assert confirmed.status == 200 and "Save your recovery codes" in confirmed.text, f"{confirmed.status} {confirmed.text[:500]}"
    home = browser.get(nginx, "/")
    assert browser.post_form(nginx, "/sign-out", {"csrf_token": csrf_token(home)}).status == 303
    assert browser.get(a, "/").status == 303, "still signed in after signing out"

    # Signing in again through nginx: the password, then a code (the next step's: the one above is spent).
    browser.user_agent = f"several-servers-test {uuid.uuid4().hex[:8]}"
    password = sign_in_with_password(browser, nginx, headers={"X-Forwarded-For": SPOOFED})
    assert password.status == 303 and header(password, "location") == "/sign-in/code", f"{password.status} {password.text[:300]}"
    code_page = browser.get(nginx, "/sign-in/code")
    assert code_page.status == 200, code_page.status
    signed_in = browser.post_form(nginx, "/sign-in/code", {"csrf_token": csrf_token(code_page), "code": totp(key.group(1), 1)},
                                  headers={"X-Forwarded-For": SPOOFED})
    assert signed_in.status == 303 and header(signed_in, "location") == "/", f"{signed_in.status} {signed_in.text[:300]}"
    return browser


@pytest.fixture(scope="module")
def members(portal):
    """Three members of one cohort (due the same day), registered through the app's API."""
    return {name: register_member(portal.a, name) for name in ("wren_several", "lark_several", "heron_several")}


# ---------------------------------------------------------------- staff sign-in and pages


def test_staff_sign_in_through_nginx_and_pages_from_either_server(portal, staff):
    a, b, nginx = portal.a, portal.b, portal.nginx
    # The sign-in recorded the address nginx added to X-Forwarded-For, not the one the client made up.
    address = portal.psql(f"SELECT address FROM audit_log WHERE action = 'sign_in' AND actor_name = '{ADMIN}' "
                          f"AND user_agent = '{staff.user_agent}' ORDER BY id DESC LIMIT 1")
    assert address == "127.0.0.1", f"the sign-in was recorded from {address!r}"

    for path in ("/", "/staff", "/members", "/learning/videos", "/audit"):
        logged = nginx.lines_logged()
        for _ in range(4):
            page = staff.get(nginx.base_url, path)
            assert page.status == 200 and SIGNED_IN in page.text, f"{path} through nginx: {page.status} {page.text[:300]}"
            # The servers' headers come through nginx as they are.
            assert header(page, "cache-control") == "no-store" and "frame-ancestors 'none'" in (header(page, "content-security-policy") or "")
        answered_by = nginx.upstreams(path, since=logged)
        assert set(answered_by) == {a.port, b.port}, f"{path}: nginx sent every request to {set(answered_by)}"
        # The same session cookie opens the page on each server directly.
        for server in (a, b):
            page = staff.get(server.base_url, path)
            assert page.status == 200 and SIGNED_IN in page.text, f"{path} on server {server.name}: {page.status}"


# ---------------------------------------------------------------- uploads


def video_bytes(size: int, seed: int) -> bytes:
    """An MP4 by its first box (what the server checks), then bytes that differ everywhere."""
    head = b"\x00\x00\x00\x18ftypmp42" + b"\x00" * 12
    return head + random.Random(seed).randbytes(size - len(head))


def upload_video(browser: Browser, base: str, title: str, video: bytes):
    form = browser.get(base, "/learning/videos/new")
    assert form.status == 200, form.status
    fields = [("csrf_token", csrf_token(form)), ("title", title), ("category", "Across servers"), ("length", "4:30"),
              ("description", "A video uploaded through one server."), ("stage", "all"), ("status", "published"),
              ("source", "file"), ("url", "")]
    saved = browser.post_multipart(base, "/learning/videos/new", fields, ("file", "video.mp4", "video/mp4", video))
    assert saved.status == 303 and header(saved, "location") == "/learning/videos", f"{saved.status} {saved.text[:500]}"


def assert_range(answer, video: bytes, first: int, last: int, where: str) -> None:
    assert answer.status == 206, f"{where}: {answer.status} {answer.text[:200]}"
    assert header(answer, "content-range") == f"bytes {first}-{last}/{len(video)}", f"{where}: {answer.headers}"
    assert answer.body == video[first:last + 1], f"{where}: other bytes than those uploaded"


def test_a_video_uploaded_through_one_server_is_read_in_ranges_through_the_other(portal, staff):
    a, b = portal.a, portal.b
    video = video_bytes(3 * 1024 * 1024 + 17, seed=1)
    upload_video(staff, a.base_url, "Uploaded through server A", video)
    video_id = portal.psql("SELECT id FROM learning_videos WHERE title = 'Uploaded through server A'")
    path = f"/learning/videos/{video_id}/file"
    range_header = {"Range": "bytes=1000000-1999999"}
    assert_range(staff.get(a.base_url, path, range_header), video, 1_000_000, 1_999_999, "server A, which took the upload")
    assert_range(staff.get(b.base_url, path, range_header), video, 1_000_000, 1_999_999, "server B")
    assert_range(staff.get(b.base_url, path, {"Range": "bytes=-100"}), video, len(video) - 100, len(video) - 1, "server B, the last 100 bytes")


def test_a_large_video_uploaded_through_nginx_is_streamed_and_read_in_ranges_through_it(portal, staff):
    a, b, nginx = portal.a, portal.b, portal.nginx
    # Over 5 MB: more than any portal form but a video's may send, and than nginx takes by default (1 MB).
    video = video_bytes(6 * 1024 * 1024 + 5, seed=2)
    upload_video(staff, nginx.base_url, "Uploaded through nginx", video)
    video_id = portal.psql("SELECT id FROM learning_videos WHERE title = 'Uploaded through nginx'")
    path = f"/learning/videos/{video_id}/file"
    logged = nginx.lines_logged()
    for first in (0, 1_000_000, 4_000_000, 5_000_000):
        last = first + 999_999
        assert_range(staff.get(nginx.base_url, path, {"Range": f"bytes={first}-{last}"}), video, first, last, f"nginx, bytes {first}-{last}")
    assert set(nginx.upstreams(path, since=logged)) == {a.port, b.port}, "the reads did not go to both servers"
    whole = staff.get(nginx.base_url, path)
    assert whole.status == 200 and whole.body == video, f"the whole video through nginx: {whole.status}, {len(whole.body)} bytes"
    # Streamed both ways: nginx wrote neither the upload nor the video to a temporary file (it says so when it does).
    logged_errors = nginx.error_log.read_text(errors="replace") if nginx.error_log.exists() else ""
    assert "buffered to a temporary file" not in logged_errors, logged_errors[-2000:]


# ---------------------------------------------------------------- chat


def chat_sockets(portal) -> dict[int, int]:
    """How many chat sockets each server holds, by its port."""
    labels = f'endpoint="{CHAT_SOCKET}"'
    return {server.port: int(metric(server, "careportal_websocket_connections", labels) or 0) for server in (portal.a, portal.b)}


def wait_for(condition, timeout: float, message):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    pytest.fail(message() if callable(message) else message)


def heard(socket: websocket.WebSocket, body: str, timeout: float = 20) -> bool:
    """Whether the socket receives the chat message `body` within `timeout` (other frames are passed over)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        socket.settimeout(max(0.1, deadline - time.monotonic()))
        try:
            frame = socket.recv()
        except websocket.WebSocketTimeoutException:
            return False
        if isinstance(frame, str) and f'"body_text":"{body}"' in frame.replace('": "', '":"'):
            return True
    return False


def test_the_chat_socket_through_nginx_hears_messages_posted_through_either_server(portal, members):
    a, b, nginx = portal.a, portal.b, portal.nginx
    wren, lark = members["wren_several"], members["lark_several"]
    sockets: dict[int, websocket.WebSocket] = {}
    opened: list[websocket.WebSocket] = []
    try:
        # Sockets through nginx until each server holds one (least_conn sends the second to the other server).
        while len(sockets) < 2 and len(opened) < 6:
            before = chat_sockets(portal)
            socket = websocket.create_connection(f"ws://127.0.0.1:{nginx.port}{CHAT_SOCKET}", timeout=15,
                                                 header=[f"Authorization: Bearer {lark.token}"], suppress_origin=True)
            opened.append(socket)
            now = wait_for(lambda: (lambda counts: counts if sum(counts.values()) > sum(before.values()) else None)(chat_sockets(portal)),
                           15, "no server counts the socket opened through nginx")
            holder = next(port for port, count in now.items() if count > before[port])
            sockets.setdefault(holder, socket)
        assert set(sockets) == {a.port, b.port}, f"every socket through nginx went to the same server: {chat_sockets(portal)}"

        for poster in (a, b):
            body = f"Posted through server {poster.name.upper()} {uuid.uuid4().hex[:6]}"
            posted = request("POST", poster.url(CHAT_MESSAGES), {"body": body, "client_id": str(uuid.uuid4())}, token=wren.token)
            assert posted.status == 201, f"{posted.status} {posted.text[:300]}"
            for holder, socket in sockets.items():
                other = "the same server" if holder == poster.port else "the other server"
                assert heard(socket, body), f"the socket held by {other} (port {holder}) did not hear {body!r}"
    finally:
        for socket in opened:
            socket.close()


def test_the_posting_limit_holds_across_both_servers(portal, members):
    a, b = portal.a, portal.b
    heron = members["heron_several"]
    answers = []
    started = time.monotonic()
    for n in range(24):
        server = (a, b)[n % 2]
        answer = request("POST", server.url(CHAT_MESSAGES), {"body": f"Quick message {n}", "client_id": str(uuid.uuid4())}, token=heron.token)
        answers.append((server.name, answer))
        if answer.status != 201:
            break
    elapsed = time.monotonic() - started
    accepted = [name for name, answer in answers if answer.status == 201]
    refused = answers[-1][1]
    assert refused.status == 429, f"after {len(accepted)} posts in {elapsed:.1f} s: {refused.status} {refused.text[:300]}"
    assert refused.json()["error"]["code"] == "too_fast" and header(refused, "Retry-After"), refused.headers
    assert set(accepted) == {"a", "b"}
    # A burst of 10, then one a second, whichever server she reaches: kept apart, two servers would take 20.
    allowed = 10 + int(elapsed)
    assert 10 <= len(accepted) <= allowed, f"{len(accepted)} posts accepted in {elapsed:.1f} s"
    if elapsed < 1:
        assert len(accepted) == 10, "the 11th post in quick succession was accepted"


# ---------------------------------------------------------------- metrics


def test_metrics_are_refused_through_nginx_and_read_on_each_server(portal):
    a, b, nginx = portal.a, portal.b, portal.nginx
    for path in ("/metrics", "/metrics/", "/METRICS", "/%6Detrics", "/metrics?format=text", "//metrics"):
        answer = request("GET", nginx.url(path))
        assert answer.status in (403, 404), f"{path} through nginx: {answer.status}"
        assert "http_server_requests_total" not in answer.text and "careportal_" not in answer.text, f"{path} through nginx"
    assert nginx.upstreams("/metrics") == [], "nginx forwarded /metrics to a server"
    for server in (a, b):
        answer = request("GET", server.url("/metrics"))
        assert answer.status == 200 and "http_server_requests_total" in answer.text, f"server {server.name}: {answer.status}"
        # TRUST_FORWARDED_FOR is on: the address a proxy forwards for is the one checked.
        forwarded = request("GET", server.url("/metrics"), headers={"X-Forwarded-For": "203.0.113.9"})
        assert forwarded.status == 404, f"server {server.name} let a forwarded outside address read /metrics"


def test_health_answers_on_each_server_and_through_nginx(portal):
    for where in (portal.a, portal.b, portal.nginx):
        answer = request("GET", where.url("/health"))
        assert answer.status == 200 and answer.json() == {"status": "ok"}, f"{where.base_url}: {answer.status} {answer.text}"


# ---------------------------------------------------------------- signing out (last: it ends the staff session)


def test_signing_out_through_one_server_ends_the_session_on_the_other(portal, staff):
    a, b = portal.a, portal.b
    home = staff.get(b.base_url, "/")
    assert home.status == 200
    session = staff.cookies.get("careportal_session")
    assert staff.post_form(b.base_url, "/sign-out", {"csrf_token": csrf_token(home)}).status == 303
    staff.cookies["careportal_session"] = session  # as if the cookie had been copied before signing out
    for server in (a, portal.nginx):
        page = staff.get(server.base_url, "/")
        assert page.status == 303 and header(page, "location").startswith("/sign-in"), f"{server.base_url}: {page.status}"
