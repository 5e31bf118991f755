"""Every page fits a phone: each demo staff account's pages — those its navigation links to and the pages
linked from them — and each demo web-app account's pages (members, patients, participants, pharmacy customers,
care receivers and caregivers) are opened at 320 × 640 and 400 × 800, and none may be wider than the window
(WCAG 2.2, 1.4.10 Reflow). A table that needs more room scrolls inside its own labelled, keyboard-focusable region while
the page stays the window's width; sort links, filters and pagers are reached from the keyboard there."""

from __future__ import annotations

import re
import subprocess
from urllib.parse import parse_qsl, urlsplit

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from conftest import (
    ARTIFACTS, WAIT, Account, check_accessibility, check_charts_keep_their_text_inside, fill, path_of, screenshot, submit,
)
from test_sign_in import sign_in

PHONES = [(320, 640), (400, 800)]
ROLES = ["demo.admin", "demo.medpro", "demo.physician", "demo.pharmacist", "demo.researcher"]
# How far the walk goes: links followed from the navigation, and at most how many kinds of page (one patient, one thread…).
MAX_PAGES_PER_ROLE = 250
LINKS_DEEP = 3
# The web-app accounts seed-demo prints, each with its sign-in page (filled by the demo fixture).
APP_SIGN_IN: dict[str, str] = {}
APP_KINDS = ["member", "patient", "study", "pharmacy", "care", "caregiver"]
# Links that leave the pages: downloads, the apps' API, files.
NOT_A_PAGE = re.compile(r"(\.csv|\.pdf|\.json|\.ics|/export|/download|/api/|/static/|/sign-out|csv)", re.IGNORECASE)


@pytest.fixture(scope="module")
def demo(server_factory):
    """A server whose database `careportal seed-demo` filled: one demo account per role and each program's
    demo content. Returns the server and each demo account's password (a web-app account's sign-in page is
    in APP_SIGN_IN)."""
    passwords: dict[str, str] = {}

    def seed(binary, database_url, data_dir):
        result = subprocess.run(
            [str(binary), "seed-demo", "--database-url", database_url, "--data-dir", str(data_dir)],
            capture_output=True, text=True, timeout=600,
        )
        assert result.returncode == 0, f"seed-demo failed:\n{result.stdout}\n{result.stderr}"
        passwords.update(re.findall(r"(\S+)\s+password: (\S+)", result.stdout))
        APP_SIGN_IN.update(re.findall(r"(\S+)\s+password: \S+\s+\(signs in at (/app/\S+)\)", result.stdout))

    server = server_factory("narrow-pages", prepare=seed)
    assert set(ROLES) <= set(passwords), f"seed-demo printed {sorted(passwords)}"
    return server, passwords


def set_viewport(driver, width: int, height: int) -> None:
    """The page's window as a phone's: width × height CSS pixels (a desktop's scroll bars, no zoom to fit)."""
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
    )


def clear_viewport(driver) -> None:
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


WIDTH_OF_PAGE = """
const root = document.documentElement;
const limit = root.clientWidth + 0.5;
const culprits = [];
const scrolls = el => ['auto', 'scroll', 'hidden', 'clip'].includes(getComputedStyle(el).overflowX);
const nameOf = el => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
    (typeof el.className === 'string' && el.className.trim() ? '.' + el.className.trim().split(/\\s+/).join('.') : '');
// The first element on each branch that reaches past the window, and is not clipped by a region that scrolls
// (an absolutely placed one is clipped only when its containing block lies inside that region): the element
// to fix, not every ancestor it widens.
function walk(el, clipper) {
    for (const child of el.children) {
        const position = getComputedStyle(child).position;
        let clipped = clipper !== null;
        if (position === 'fixed') clipped = false;
        else if (position === 'absolute') clipped = clipper !== null && child.offsetParent !== null && clipper.contains(child.offsetParent);
        const box = child.getBoundingClientRect();
        const sticks_out = box.width + box.height > 0 &&
            (box.right + window.scrollX > limit || box.left + window.scrollX < -0.5);
        if (sticks_out && !clipped) {
            culprits.push(`${nameOf(child)} in ${nameOf(el)} (${Math.round(box.left + window.scrollX)}–${Math.round(box.right + window.scrollX)} px)`);
            continue;
        }
        walk(child, scrolls(child) ? child : (position === 'absolute' && !clipped ? null : clipper));
    }
}
walk(document.body, null);
return {scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, innerWidth: window.innerWidth,
        culprits: culprits.slice(0, 6)};
"""

TABLES_IN_REGIONS = """
const problems = [];
for (const table of document.querySelectorAll('main table')) {
    const region = table.closest('.table-wrapper');
    const name = (table.caption && table.caption.textContent.trim()) ||
        (table.querySelector('th') ? table.querySelector('th').textContent.trim() : 'table');
    if (!region) { problems.push(`"${name}" is not inside a .table-wrapper`); continue; }
    if (region.getAttribute('role') !== 'region') problems.push(`"${name}": its region has no role=region`);
    if (region.getAttribute('tabindex') !== '0') problems.push(`"${name}": its region is not in the tab order`);
    let label = region.getAttribute('aria-label') || '';
    const ids = (region.getAttribute('aria-labelledby') || '').split(/\\s+/).filter(Boolean);
    for (const id of ids) { const el = document.getElementById(id); label += el ? el.textContent.trim() : ''; }
    if (!label.trim()) problems.push(`"${name}": its region has no name`);
    const style = getComputedStyle(region);
    if (style.overflowX !== 'auto') problems.push(`"${name}": its region does not scroll (overflow-x ${style.overflowX})`);
}
return problems;
"""


def measure(driver) -> dict:
    return driver.execute_script(WIDTH_OF_PAGE)


def key_of(url: str) -> str:
    """One of each kind of page: numbers in the path are any number; a query counts by its parameters' names."""
    parts = urlsplit(url)
    path = re.sub(r"\d+", "N", parts.path)
    names = sorted({name for name, _ in parse_qsl(parts.query, keep_blank_values=True)})
    return path + ("?" + "&".join(names) if names else "")


def links_on(driver, base: str, css: str) -> list[str]:
    hrefs = driver.execute_script(
        "return [...document.querySelectorAll(arguments[0])].filter(a => !a.hasAttribute('download')).map(a => a.href);",
        css,
    )
    pages = []
    for href in hrefs:
        href = href.split("#", 1)[0]
        if href.startswith(base + "/") and not NOT_A_PAGE.search(urlsplit(href).path + "?" + urlsplit(href).query):
            pages.append(href)
    return pages


def open_page(driver, url: str) -> bool:
    """Opens url; False when it is not an HTML page of the portal (a file, an error)."""
    driver.get(url)
    WebDriverWait(driver, WAIT).until(lambda d: d.execute_script("return document.readyState") == "complete")
    return driver.execute_script("return document.contentType") == "text/html" and bool(
        driver.find_elements(By.CSS_SELECTOR, "main#main")
    )


def pages_of(driver, base: str, start: str = "/", navigation_css: str = "nav.site-nav a") -> tuple[list[str], list[str]]:
    """The role's pages: those its navigation and start page link to, then one of each kind linked from them,
    and from those (three links deep). Returns (navigation pages, further pages)."""
    driver.get(base + start)
    seen: set[str] = set()

    def new(urls: list[str]) -> list[str]:
        found = []
        for url in urls:
            if key_of(url) not in seen and len(seen) < MAX_PAGES_PER_ROLE:
                seen.add(key_of(url))
                found.append(url)
        return found

    navigation = new([driver.current_url.split("#", 1)[0]] + links_on(driver, base, f"{navigation_css}, main a"))
    further: list[str] = []
    frontier = navigation
    for _ in range(LINKS_DEEP - 1):
        next_frontier: list[str] = []
        for url in frontier:
            if open_page(driver, url):
                next_frontier += new(links_on(driver, base, "main a"))
        further += next_frontier
        frontier = next_frontier
    return navigation, further


def check_pages_fit(driver, urls: list[str], name: str) -> int:
    """Opens each of urls at each phone's size; fails when one is wider than the window or holds a table outside
    a labelled, focusable, scrolling region. Returns how many pages opened; writes their list to
    artifacts/narrow-pages/<name>.txt."""
    too_wide: list[str] = []
    unlabelled: list[str] = []
    visited: list[str] = []
    for url in urls:
        set_viewport(driver, *PHONES[0])
        if not open_page(driver, url):
            continue
        here = urlsplit(driver.current_url)
        page = here.path + ("?" + here.query if here.query else "")
        visited.append(page)
        for width, height in PHONES:
            set_viewport(driver, width, height)
            found = measure(driver)
            if found["scrollWidth"] > found["clientWidth"] or found["scrollWidth"] > found["innerWidth"]:
                too_wide.append(
                    f"{page} at {width} px: {found['scrollWidth']} px wide (window {found['innerWidth']}, "
                    f"page {found['clientWidth']}); " + ", ".join(found["culprits"])
                )
        unlabelled += [f"{page}: {problem}" for problem in driver.execute_script(TABLES_IN_REGIONS)]
        check_charts_keep_their_text_inside(driver)
    clear_viewport(driver)
    # What was opened, to read when a page is missing from the walk.
    (ARTIFACTS / "narrow-pages").mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "narrow-pages" / f"{name}.txt").write_text("\n".join(visited) + "\n")
    assert not too_wide, f"{len(too_wide)} of {len(visited)} pages of {name} are wider than the window:\n" + "\n".join(too_wide)
    assert not unlabelled, "tables not in a labelled, focusable, scrolling region:\n" + "\n".join(unlabelled)
    return len(visited)


@pytest.mark.parametrize("username", ROLES)
def test_no_page_of_a_role_is_wider_than_a_phone(browser, demo, username):
    server, passwords = demo
    base = server.base_url
    sign_in(browser, base, Account(username, "", passwords[username]))
    navigation, further = pages_of(browser, base)
    assert len(navigation) >= 3, f"{username} reaches only {navigation}"
    opened = check_pages_fit(browser, navigation + further, username)
    assert opened >= len(navigation), f"only {opened} of {len(navigation) + len(further)} pages opened"


@pytest.mark.parametrize("kind", APP_KINDS)
def test_no_page_of_the_web_app_is_wider_than_a_phone(browser, demo, kind):
    """A web-app account's pages, from its home through its menu and three links deep: its memories, days,
    deals or desk threads, and the forms they lead to."""
    server, passwords = demo
    base = server.base_url
    accounts = [name for name, path in APP_SIGN_IN.items() if path == f"/app/{kind}/sign-in"]
    assert accounts, f"seed-demo printed no {kind} account for the web app: {APP_SIGN_IN}"
    browser.get(f"{base}/app/{kind}/sign-in")
    fill(browser, "identifier", accounts[0])
    fill(browser, "password", passwords[accounts[0]])
    submit(browser, "Sign in")
    assert path_of(browser) == f"/app/{kind}", f"{accounts[0]} was not signed in; now at {browser.current_url}"
    navigation, further = pages_of(browser, base, start=f"/app/{kind}", navigation_css="nav.app-nav a")
    assert len(navigation) >= 3, f"{kind} reaches only {navigation}"
    opened = check_pages_fit(browser, navigation + further, f"app-{kind}")
    assert opened >= len(navigation), f"only {opened} of {len(navigation) + len(further)} pages opened"


def test_no_page_before_signing_in_is_wider_than_a_phone(browser, demo):
    """The sign-in page and the pages it links to (registering as a physician, a forgotten password)."""
    server, _ = demo
    base = server.base_url
    browser.get(base + "/sign-in")
    pages = [base + "/sign-in"] + [url for url in links_on(browser, base, "main a") if key_of(url) != "/sign-in"]
    assert check_pages_fit(browser, list(dict.fromkeys(pages)), "signed-out") >= 2


def tab_through(driver, limit: int = 400) -> list[tuple]:
    """What Tab reaches, in order, from the top of the page until focus leaves the page or comes round: each
    element, and whether it was in sight when it took the focus."""
    driver.execute_script("document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0);")
    reached: list[tuple] = []
    for _ in range(limit):
        ActionChains(driver).send_keys(Keys.TAB).perform()
        element = driver.switch_to.active_element
        if element.tag_name == "body" or (reached and element == reached[0][0]):
            break
        reached.append((element, in_sight(driver, element)))
    return reached


def in_sight(driver, element) -> bool:
    """Whether some of the element shows: inside the window and inside every region that scrolls around it
    (WCAG 2.4.11: a focused control is never entirely hidden)."""
    return driver.execute_script(
        """let box = arguments[0].getBoundingClientRect();
        let left = Math.max(box.left, 0), right = Math.min(box.right, document.documentElement.clientWidth);
        let top = Math.max(box.top, 0), bottom = Math.min(box.bottom, window.innerHeight);
        for (let el = arguments[0].parentElement; el && el !== document.body; el = el.parentElement) {
            if (getComputedStyle(el).overflowX === 'visible') continue;
            const clip = el.getBoundingClientRect();
            left = Math.max(left, clip.left); right = Math.min(right, clip.right);
            top = Math.max(top, clip.top); bottom = Math.min(bottom, clip.bottom);
        }
        return right - left >= 1 && bottom - top >= 1;""",
        element,
    )


def whole_page_screenshot(driver, name: str, width: int) -> None:
    """The whole page as a phone this wide shows it, top to bottom (conftest's `screenshot` of a window as tall
    as the page)."""
    height = driver.execute_script("return document.documentElement.scrollHeight;")
    set_viewport(driver, width, height)
    screenshot(driver, name)
    set_viewport(driver, width, 640)


LISTS = [
    # (account, list path, name of the screenshot or None, the filter field typed into, text typed)
    ("demo.admin", "/staff", "staff", "q", "demo"),
    ("demo.physician", "/patients", "patients", "q", "a"),
    ("demo.pharmacist", "/pharmacy", "pharmacy-queue", None, None),
]


@pytest.mark.parametrize("username,path,shot,field,text", LISTS, ids=[shot for _, _, shot, _, _ in LISTS])
def test_a_list_at_320_px_is_sorted_and_filtered_from_the_keyboard(browser, demo, username, path, shot, field, text):
    server, passwords = demo
    base = server.base_url
    sign_in(browser, base, Account(username, "", passwords[username]))
    set_viewport(browser, 320, 640)
    assert open_page(browser, base + path), f"{path} did not open"
    found = measure(browser)
    assert found["scrollWidth"] <= found["clientWidth"], found
    whole_page_screenshot(browser, f"{shot}-320", 320)
    check_accessibility(browser, f"{shot} at 320 px")

    reached = tab_through(browser)
    elements = [element for element, _ in reached]
    described = [(e.tag_name, e.get_attribute("class") or "", e.get_attribute("name") or "") for e in elements]
    # Every control of the filters, every sort link and pager link, and the table's region are reached by Tab,
    # and each is in sight when it has the focus.
    controls = browser.find_elements(By.CSS_SELECTOR, "form.filters input:not([type=hidden]), form.filters select, "
                                                      "form.filters button, a.sort-link, .pagination a, main .table-wrapper")
    assert browser.find_elements(By.CSS_SELECTOR, "form.filters") and browser.find_elements(By.CSS_SELECTOR, "main .table-wrapper")
    for control in controls:
        html = control.get_attribute("outerHTML")[:120]
        assert control in elements, f"Tab never reaches {html} on {path}; reached {described}"
        assert reached[elements.index(control)][1], f"{html} is out of sight when Tab reaches it on {path}"

    # Sort by a column from the keyboard: the list comes back sorted by it, still the window's width.
    sort_links = browser.find_elements(By.CSS_SELECTOR, "a.sort-link")
    if sort_links:
        target = sort_links[-1]
        browser.execute_script("arguments[0].focus()", target)
        old = browser.current_url
        browser.switch_to.active_element.send_keys(Keys.ENTER)
        WebDriverWait(browser, WAIT).until(lambda d: d.current_url != old)
        assert "sort=" in browser.current_url
        found = measure(browser)
        assert found["scrollWidth"] <= found["clientWidth"], found

    # Filter from the keyboard: type, then Enter submits the filters.
    if field:
        box = browser.find_element(By.ID, field)
        browser.execute_script("arguments[0].focus()", box)
        box.send_keys(text, Keys.ENTER)
        WebDriverWait(browser, WAIT).until(lambda d: f"{field}=" in d.current_url)
        found = measure(browser)
        assert found["scrollWidth"] <= found["clientWidth"], found
        check_accessibility(browser, f"{shot} filtered at 320 px")
    else:
        # A list filtered by its selects alone: the arrow key chooses, the filters' button submits.
        select = browser.find_element(By.CSS_SELECTOR, "form.filters select")
        name, before = select.get_attribute("name"), select.get_attribute("value")
        browser.execute_script("arguments[0].focus()", select)
        browser.switch_to.active_element.send_keys(Keys.DOWN)
        chosen = browser.find_element(By.CSS_SELECTOR, "form.filters select").get_attribute("value")
        assert chosen != before, f"the arrow key did not change {name}"
        button = browser.find_element(By.CSS_SELECTOR, "form.filters button")
        browser.execute_script("arguments[0].focus()", button)
        browser.switch_to.active_element.send_keys(Keys.ENTER)
        WebDriverWait(browser, WAIT).until(lambda d: f"{name}={chosen}" in d.current_url)
        found = measure(browser)
        assert found["scrollWidth"] <= found["clientWidth"], found
        check_accessibility(browser, f"{shot} filtered at 320 px")
    clear_viewport(browser)
