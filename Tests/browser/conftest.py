"""Browser tests for CarePortal: fixtures and helpers.

Run from the repository root after building the server:

    CAREPORTAL_BIN=.build/debug/careportal python -m pytest Tests/browser -q

Each server is the real binary on a free port of 127.0.0.1, with its own empty SQLite
database in a temporary folder. Screenshots go to artifacts/screenshots/, axe results to
artifacts/axe/, server logs to artifacts/server-logs/.
"""

from __future__ import annotations

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
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

REPO_ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO_ROOT / "artifacts"
SCREENSHOTS = ARTIFACTS / "screenshots"
AXE_RESULTS = ARTIFACTS / "axe"
SERVER_LOGS = ARTIFACTS / "server-logs"

CHROMIUM = os.environ.get("CHROMIUM_BIN", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER_BIN", "/usr/bin/chromedriver")
WINDOW = (1280, 1000)
STARTUP_TIMEOUT = 60
WAIT = 10  # seconds for a page to load after a click

# axe impacts that fail a test; minor and moderate ones are written to artifacts/axe/ only.
FAILING_IMPACTS = {"serious", "critical"}

# The browser, the driver and the health check talk to 127.0.0.1 only: never through a proxy.
for _name in ("NO_PROXY", "no_proxy"):
    os.environ[_name] = ",".join(
        filter(None, [os.environ.get(_name, ""), "127.0.0.1", "localhost"])
    )
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


_DIRECT_NO_REDIRECT = urllib.request.build_opener(
    urllib.request.ProxyHandler({}), _NoRedirect()
)


# ---------------------------------------------------------------- servers


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _server_binary() -> Path:
    path = Path(os.environ.get("CAREPORTAL_BIN", ".build/debug/careportal"))
    if not path.is_absolute():
        path = REPO_ROOT / path
    return path


@dataclass
class Server:
    """One running CarePortal with its own empty database."""

    name: str
    base_url: str
    data_dir: Path
    log_path: Path
    process: subprocess.Popen = field(repr=False)

    def url(self, path: str = "/") -> str:
        return self.base_url + path

    def log_tail(self, lines: int = 60) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:]) or "(log is empty)"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        shutil.rmtree(self.data_dir, ignore_errors=True)


def http_status(url: str) -> int:
    """Status of a plain GET without cookies, not following redirects."""
    try:
        with _DIRECT_NO_REDIRECT.open(url, timeout=5) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def _start_server(name: str, prepare=None) -> Server:
    binary = _server_binary()
    if not binary.exists():
        pytest.fail(
            f"CarePortal binary not found at {binary}. Build it (swift build) or set "
            "CAREPORTAL_BIN to its path.",
            pytrace=False,
        )
    port = _free_port()
    data_dir = Path(tempfile.mkdtemp(prefix=f"careportal-{name}-"))
    base_url = f"http://127.0.0.1:{port}"
    SERVER_LOGS.mkdir(parents=True, exist_ok=True)
    log_path = SERVER_LOGS / f"{name}.log"
    database_url = f"sqlite://{data_dir}/careportal.sqlite"
    if prepare is not None:
        # Before the server starts, so it reads what was prepared as a server started on it later would.
        prepare(binary, database_url, data_dir)
    command = [
        str(binary), "serve",
        "--host", "127.0.0.1",
        "--port", str(port),
        "--database-url", database_url,
        "--data-dir", str(data_dir),
        "--base-url", base_url,
    ]
    env = dict(os.environ, LOG_LEVEL="warning")
    with open(log_path, "wb") as log:
        log.write(("$ " + " ".join(command) + "\n").encode())
        log.flush()
        process = subprocess.Popen(
            command, cwd=REPO_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    server = Server(name, base_url, data_dir, log_path, process)

    deadline = time.monotonic() + STARTUP_TIMEOUT
    last_error = "no answer"
    while time.monotonic() < deadline:
        if process.poll() is not None:
            server.stop()
            pytest.fail(
                f"CarePortal exited with status {process.returncode} while starting.\n"
                f"--- {log_path} ---\n{server.log_tail()}",
                pytrace=False,
            )
        try:
            with _DIRECT.open(base_url + "/health", timeout=2) as response:
                if response.status == 200:
                    return server
                last_error = f"status {response.status}"
        except urllib.error.HTTPError as error:
            last_error = f"status {error.code}"
        except OSError as error:
            last_error = str(error)
        time.sleep(0.2)
    server.stop()
    pytest.fail(
        f"CarePortal did not answer GET /health with 200 within {STARTUP_TIMEOUT} s "
        f"({last_error}).\n--- {log_path} ---\n{server.log_tail()}",
        pytrace=False,
    )


_running: list[Server] = []


@pytest.fixture(scope="session")
def server_factory():
    """Starts servers on demand: `server_factory("name")`; all are stopped at session end.

    `prepare(binary, database_url, data_dir)`, if given, runs before the server starts (to seed its database).
    """
    counter = iter(range(1, 10_000))

    def start(name: str = "server", prepare=None) -> Server:
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", name)
        server = _start_server(f"{next(counter):02d}-{safe}", prepare)
        _running.append(server)
        return server

    yield start
    while _running:
        _running.pop().stop()


@pytest.fixture(scope="session")
def server(server_factory) -> str:
    """Base URL of the session's shared server (its database starts empty)."""
    return server_factory("shared").base_url


@pytest.fixture
def fresh_server(server_factory, request) -> str:
    """Base URL of a server of its own with an empty database: the first-run state."""
    return server_factory(request.node.name).base_url


# ---------------------------------------------------------------- accounts


@dataclass(frozen=True)
class Account:
    username: str
    email: str
    password: str


ADMIN = Account("admin.demo", "admin@example.org", "correct horse battery staple")


def create_first_administrator(driver, base_url: str, account: Account = ADMIN) -> None:
    """Completes /setup in the browser; leaves the administrator signed in."""
    driver.get(base_url + "/setup")
    fill(driver, "username", account.username)
    fill(driver, "email", account.email)
    fill(driver, "password", account.password)
    fill(driver, "password_confirmation", account.password)
    submit(driver, "Create administrator account")
    assert driver.find_elements(By.CSS_SELECTOR, "span.site-header__user"), (
        f"setup did not sign the administrator in; now at {driver.current_url}"
    )


@pytest.fixture(scope="session")
def admin(server) -> Account:
    """The shared server with its first administrator created (signed out again)."""
    driver = _new_driver()
    try:
        create_first_administrator(driver, server)
    finally:
        driver.quit()
    return ADMIN


# ---------------------------------------------------------------- browser


def _new_driver() -> webdriver.Chrome:
    for path in (CHROMIUM, CHROMEDRIVER):
        if not Path(path).exists():
            pytest.fail(
                f"{path} not found: apt-get install -y chromium chromium-driver",
                pytrace=False,
            )
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        f"--window-size={WINDOW[0]},{WINDOW[1]}",
        # Nothing leaves 127.0.0.1.
        "--no-proxy-server",
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-default-apps",
        "--disable-sync",
        "--no-first-run",
        "--disable-features=Translate,OptimizationHints,MediaRouter,AutofillServerCommunication",
        "--lang=en-US",
        "--force-device-scale-factor=1",
    ):
        options.add_argument(argument)
    options.add_experimental_option(
        "prefs",
        {
            "credentials_enable_service": False,
            "profile.password_manager_enabled": False,
            "profile.password_manager_leak_detection": False,
        },
    )
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    driver.set_script_timeout(60)
    return driver


@pytest.fixture
def browser():
    """A new headless Chromium for each test: no cookies carry over."""
    driver = _new_driver()
    yield driver
    driver.quit()


# ---------------------------------------------------------------- helpers


def _test_name() -> str:
    current = os.environ.get("PYTEST_CURRENT_TEST", "session")
    name = current.split("::")[-1].split(" ")[0]
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name)


def screenshot(driver, name: str) -> Path:
    """Saves a full-page PNG as artifacts/screenshots/<test>--<name>.png."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{_test_name()}--{re.sub(r'[^A-Za-z0-9_.-]+', '-', name)}.png"
    size = driver.get_window_size()
    width, height = size["width"], size["height"]
    full_height = driver.execute_script(
        "return Math.max(document.documentElement.scrollHeight, document.body.scrollHeight);"
    )
    # The window is larger than the viewport by the browser's own chrome (0 when headless).
    chrome_height = height - driver.execute_script("return window.innerHeight;")
    driver.set_window_size(width, max(height, full_height + chrome_height))
    try:
        driver.save_screenshot(str(path))
    finally:
        driver.set_window_size(width, height)
    return path


def _axe_script() -> str | None:
    """A newer axe-core if one is available; None means the one axe-selenium-python ships.

    AXE_CORE_JS may name an axe.min.js. Otherwise the axe-core 4.x that the PyPI package
    axe-playwright-python ships is used when it is installed (install it with --no-deps:
    only its axe.min.js is read, Playwright is never imported).
    """
    explicit = os.environ.get("AXE_CORE_JS")
    if explicit:
        return explicit
    import importlib.util

    spec = importlib.util.find_spec("axe_playwright_python")
    if spec and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            candidate = Path(location) / "axe.min.js"
            if candidate.exists():
                return str(candidate)
    return None


def check_accessibility(driver, page_name: str) -> dict:
    """Runs axe on the current page; fails on any serious or critical violation.

    Full results go to artifacts/axe/<test>--<page>.json.
    """
    from axe_selenium_python import Axe

    script = _axe_script()
    axe = Axe(driver, script) if script else Axe(driver)
    axe.inject()
    results = axe.run()
    version = driver.execute_script("return window.axe && window.axe.version;")
    AXE_RESULTS.mkdir(parents=True, exist_ok=True)
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", page_name)
    (AXE_RESULTS / f"{_test_name()}--{safe}.json").write_text(
        json.dumps(
            {"url": driver.current_url, "axe": version, "violations": results["violations"],
             "incomplete": results.get("incomplete", [])},
            indent=2,
        )
    )
    failing = [v for v in results["violations"] if v.get("impact") in FAILING_IMPACTS]
    if failing:
        lines = [
            f"axe {version} found {len(failing)} serious or critical accessibility "
            f"violation(s) on {page_name} ({driver.current_url}):"
        ]
        for violation in failing:
            lines.append(
                f"- {violation['id']} [{violation['impact']}]: {violation['help']} "
                f"({violation.get('helpUrl', '')})"
            )
            for node in violation["nodes"]:
                target = " ".join(str(t) for t in node.get("target", []))
                summary = (node.get("failureSummary") or "").replace("\n", " ")
                lines.append(f"    {target}  {summary}".rstrip())
        pytest.fail("\n".join(lines), pytrace=False)
    return results


def fill(driver, field_id: str, value: str) -> None:
    """Types value into the field with this id, replacing what was there."""
    element = driver.find_element(By.ID, field_id)
    element.clear()
    element.send_keys(value)


def submit(driver, button_text: str) -> None:
    """Clicks the button whose text is button_text and waits for the next page."""
    literal = _xpath_literal(button_text)
    buttons = driver.find_elements(
        By.XPATH,
        f"//button[normalize-space(.)={literal}] | "
        f"//input[(@type='submit' or @type='button') and @value={literal}]",
    )
    assert buttons, f"no button {button_text!r} on {driver.current_url}"
    assert len(buttons) == 1, f"{len(buttons)} buttons {button_text!r} on {driver.current_url}"
    old_page = driver.find_element(By.TAG_NAME, "html")
    # Into the middle of the window first: a button whose top lies on the window's bottom edge counts as
    # in view, and the click would land below the window.
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", buttons[0])
    buttons[0].click()
    try:
        WebDriverWait(driver, WAIT).until(lambda d: _is_stale(old_page))
        WebDriverWait(driver, WAIT).until(
            lambda d: d.execute_script("return document.readyState") == "complete"
        )
    except TimeoutException:
        pytest.fail(f"no new page {WAIT} s after clicking {button_text!r}", pytrace=False)


def _is_stale(element) -> bool:
    """Whether the page holding element has been replaced by the next one."""
    try:
        element.is_enabled()
        return False
    except StaleElementReferenceException:
        return True
    except WebDriverException as error:
        # Chromium sometimes answers with an inspector error while it swaps the old document out.
        if "does not belong to the document" in str(error):
            return True
        raise


def _xpath_literal(text: str) -> str:
    if "'" not in text:
        return f"'{text}'"
    if '"' not in text:
        return f'"{text}"'
    return "concat('" + "', \"'\", '".join(text.split("'")) + "')"


def text_of(driver, css: str) -> str:
    """The visible text of the first element matching css (fails if there is none)."""
    elements = driver.find_elements(By.CSS_SELECTOR, css)
    assert elements, f"no {css} on {driver.current_url}"
    return elements[0].text


def follow_navigation(driver, title: str) -> None:
    """Opens the page the main navigation links as title, as a person does: opening its group first
    when the link sits in a closed group (a <details> disclosure)."""
    links = [
        link for link in driver.find_elements(By.CSS_SELECTOR, "nav.site-nav a")
        if link.get_attribute("textContent").strip() == title
    ]
    assert len(links) == 1, f"{len(links)} navigation links {title!r} on {driver.current_url}"
    groups = links[0].find_elements(By.XPATH, "ancestor::details[1]")
    if groups and groups[0].get_attribute("open") is None:
        groups[0].find_element(By.TAG_NAME, "summary").click()
    links[0].click()
    WebDriverWait(driver, WAIT).until(lambda d: d.execute_script("return document.readyState") == "complete")


def check_charts_keep_their_text_inside(driver) -> int:
    """Every word of every chart on the page lies inside its drawing (as the browser lays it out); returns
    how many charts were checked."""
    outside = driver.execute_script(
        """
        const problems = [];
        const charts = document.querySelectorAll('svg.chart__svg');
        for (const svg of charts) {
            const box = svg.viewBox.baseVal;
            for (const text of svg.querySelectorAll('text')) {
                const b = text.getBBox();
                const m = text.getCTM();
                const svgM = svg.getCTM();
                // The box in the drawing's own units, after any rotation of the label.
                const p = svg.createSVGPoint();
                const corners = [[b.x, b.y], [b.x + b.width, b.y], [b.x, b.y + b.height], [b.x + b.width, b.y + b.height]].map(([x, y]) => {
                    p.x = x; p.y = y;
                    return p.matrixTransform(svgM.inverse().multiply(m));
                });
                const xs = corners.map(c => c.x), ys = corners.map(c => c.y);
                if (Math.min(...xs) < box.x - 0.5 || Math.max(...xs) > box.x + box.width + 0.5 ||
                    Math.min(...ys) < box.y - 0.5 || Math.max(...ys) > box.y + box.height + 0.5) {
                    problems.push(`${svg.getAttribute('data-chart') || 'chart'}: "${text.textContent}"`);
                }
            }
        }
        return [charts.length, problems];
        """
    )
    count, problems = outside
    assert not problems, "text outside its chart: " + "; ".join(problems)
    return count


def path_of(driver) -> str:
    from urllib.parse import urlsplit

    return urlsplit(driver.current_url).path


# ---------------------------------------------------------------- reports


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or not report.failed:
        return
    driver = item.funcargs.get("browser") if hasattr(item, "funcargs") else None
    if driver is not None:
        try:
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            path = SCREENSHOTS / f"{item.name}--FAILED.png"
            driver.save_screenshot(str(path))
            report.sections.append(("browser", f"at {driver.current_url}; screenshot {path}"))
        except Exception as error:  # the browser may be what failed
            report.sections.append(("browser", f"no screenshot: {error}"))
    for server in _running:
        report.sections.append((f"server log {server.name}", server.log_tail()))
