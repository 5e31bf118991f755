"""Memory care in the people's web app on a phone: the demo care receiver (printed by `careportal seed-demo`) keeps
her memories, adds an appointment in two steps, ticks it done and takes that back, searches, adds a contact, makes
a code to share with and reads who saw what; the demo caregiver enters a code of hers, reads what she shares and
adds a to-do that then waits in her memories. At 360 × 740 CSS pixels, with axe, the keyboard pass, the width and
the 44 px targets checked on every page (`check_page`)."""

from __future__ import annotations

import base64
import datetime
import re
import struct
import zlib

import pytest
from selenium.webdriver.common.by import By

from conftest import SCREENSHOTS, _new_driver, _test_name, fill, path_of, submit, text_of
from test_narrow_pages import clear_viewport
from test_people_app import PHONE, SMALL_PHONE, as_phone, check_page as check_phone_page, seeded_demo
from test_sign_in import assert_error_next_to, error_summary_links

ELEANOR = "eleanor.demo@example.invalid"
RUTH = "ruth.demo@example.invalid"


@pytest.fixture(scope="module")
def demo(server_factory):
    """A server seeded with the demo; returns it and the demo app password (one for every demo app account)."""
    server, accounts = seeded_demo(server_factory, "care-app")
    assert {ELEANOR, RUTH} <= set(accounts), f"seed-demo printed no memory-care accounts: {sorted(accounts)}"
    return server, accounts


@pytest.fixture
def second_browser():
    """A browser of its own beside `browser`: another person on another phone."""
    driver = _new_driver()
    yield driver
    driver.quit()


def screenshot(driver, name: str) -> None:
    """The whole page as the phone lays it out, top to bottom (a window made taller does not reach past the
    phone's emulated screen), as artifacts/screenshots/<test>--<name>.png."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    size = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1},
    })
    path = SCREENSHOTS / f"{_test_name()}--{re.sub(r'[^A-Za-z0-9_.-]+', '-', name)}.png"
    path.write_bytes(base64.b64decode(shot["data"]))


def check_page(driver, name: str, phone_width: int = PHONE[0]) -> None:
    """The people's web app's checks for a phone (axe, the keyboard, the width, 44 px targets), and the whole page
    in its screenshot."""
    check_phone_page(driver, name, phone_width=phone_width)
    screenshot(driver, name)


def sign_in(driver, base: str, part: str, email: str, password: str) -> None:
    driver.get(f"{base}/app/{part}/sign-in")
    fill(driver, "identifier", email)
    fill(driver, "password", password)
    submit(driver, "Sign in")
    assert path_of(driver) == f"/app/{part}", f"{email} was not signed in; now at {driver.current_url}"


def fill_date(driver, prefix: str, day: datetime.date) -> None:
    fill(driver, f"{prefix}_day", str(day.day))
    fill(driver, f"{prefix}_month", str(day.month))
    fill(driver, f"{prefix}_year", str(day.year))


def choose(driver, name: str, value: str) -> None:
    """Ticks the radio or checkbox name=value as a finger does: on its label."""
    box = driver.find_element(By.CSS_SELECTOR, f"main input[name='{name}'][value='{value}']")
    driver.find_element(By.CSS_SELECTOR, f"label[for='{box.get_attribute('id')}']").click()
    assert box.is_selected(), f"{name}={value} is not chosen"


def card_titles(driver, css: str = "main .app-card__title") -> list[str]:
    """The cards' titles as a screen reader reads them (without the emoji hidden from it)."""
    return driver.execute_script(
        """
        return [...document.querySelectorAll(arguments[0])].map(el => {
            const copy = el.cloneNode(true);
            copy.querySelectorAll('[aria-hidden=true]').forEach(hidden => hidden.remove());
            return copy.textContent.trim();
        });
        """,
        css,
    )


def headings(driver, level: str = "h2") -> list[str]:
    return [element.text for element in driver.find_elements(By.CSS_SELECTOR, f"main {level}")]


def make_code(driver, base: str, scopes: list[str], categories: list[str]) -> str:
    """On her sharing page: a new code granting scopes (and categories); returns the code as shown once."""
    driver.get(base + "/app/care/sharing")
    driver.find_element(By.LINK_TEXT, "Share with someone new").click()
    assert path_of(driver) == "/app/care/sharing/invite"
    for value in scopes:
        choose(driver, "scopes[]", value)
    for value in categories:
        choose(driver, "categories[]", value)
    submit(driver, "Make a code")
    code = text_of(driver, "#care-code").strip()
    assert re.fullmatch(r"[A-Z0-9]{4}-[A-Z0-9]{4}", code), f"not a code: {code!r}"
    return code


def png(width: int, height: int) -> bytes:
    """A small PNG file (a few KB) of width × height pixels: a sky over a lawn, a dark post in the middle."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    post = max(1, width // 10)
    left = (width - post) // 2
    rows = [
        b"\0" + colour * left + bytes((70, 50, 30)) * post + colour * (width - left - post)
        for colour in (bytes((135, 190, 235)), bytes((60, 140, 60)))
    ]
    sky = height * 3 // 5
    pixels = rows[0] * sky + rows[1] * (height - sky)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(pixels, 9)) + chunk(b"IEND", b"")


def response_status(driver) -> int:
    """The HTTP status of the page the browser shows."""
    return driver.execute_script("return performance.getEntriesByType('navigation')[0].responseStatus;")


def loaded_width(driver, image) -> int:
    """The picture's width as its file has it, once the browser has it (0 when it could not be shown)."""
    return driver.execute_async_script(
        """
        const [image, done] = arguments;
        if (image.complete) return done(image.naturalWidth);
        image.addEventListener('load', () => done(image.naturalWidth));
        image.addEventListener('error', () => done(0));
        """,
        image,
    )


def test_a_care_receiver_keeps_her_memories_and_shares_them_on_a_phone(browser, demo):
    server, accounts = demo
    base = server.base_url
    password = accounts[ELEANOR]
    as_phone(browser)
    soon = datetime.date.today() + datetime.timedelta(days=2)
    try:
        browser.get(base + "/app")
        browser.find_element(By.LINK_TEXT, "People keeping their memories").click()
        assert path_of(browser) == "/app/care/sign-in"
        check_page(browser, "care sign-in")

        # Registering tells every problem at once; nothing is made.
        browser.find_element(By.LINK_TEXT, "Create your account").click()
        assert path_of(browser) == "/app/care/register"
        check_page(browser, "care register")
        fill(browser, "name", "Edith Test")
        submit(browser, "Create account")
        links = error_summary_links(browser)
        assert "#email" in links and "#password" in links, links
        assert browser.find_element(By.ID, "name").get_attribute("value") == "Edith Test"
        check_page(browser, "care register with errors")

        browser.get(base + "/app/care/forgotten-password")
        check_page(browser, "care forgotten password")

        browser.get(base + "/app/care/sign-in")
        fill(browser, "identifier", ELEANOR)
        fill(browser, "password", "not my password")
        submit(browser, "Sign in")
        assert error_summary_links(browser) == ["#identifier"]
        check_page(browser, "care sign-in with an error")
        fill(browser, "password", password)
        submit(browser, "Sign in")

        # Her memories are her home: this week first, then all of them; a card without an emoji shows none.
        assert path_of(browser) == "/app/care"
        assert "Hello, Eleanor Price (demo)" in text_of(browser, "h1")
        assert "This week" in headings(browser)
        assert "Check-up with Dr Lee (demo)" in text_of(browser, "main")
        shopping = browser.find_elements(By.XPATH, "//main//h3[contains(., 'Shopping (demo)')]")
        assert shopping, "the demo's shopping list is not among her memories"
        assert not shopping[0].find_elements(By.CSS_SELECTOR, "span[aria-hidden=true]"), \
            "a memory without an emoji shows another memory's"
        check_page(browser, "care memories")

        # Adding an appointment: first its kind (nothing chosen is told), then its form.
        browser.find_element(By.LINK_TEXT, "Add a memory").click()
        assert path_of(browser) == "/app/care/memories/new"
        check_page(browser, "care memory kind")
        submit(browser, "Continue")
        assert error_summary_links(browser) == ["#type"]
        check_page(browser, "care memory kind with an error")
        choose(browser, "type", "appointment")
        submit(browser, "Continue")
        assert "type=appointment" in browser.current_url
        assert "New appointment" in text_of(browser, "h1")
        check_page(browser, "care new appointment")

        submit(browser, "Save")
        links = error_summary_links(browser)
        assert links and links[0] == "#title", links
        check_page(browser, "care new appointment with errors")
        fill(browser, "title", "Eye test at the optician")
        choose(browser, "category", "health")
        fill_date(browser, "happens", soon)
        fill(browser, "happens_time", "11:15")
        fill_date(browser, "reminder", soon)
        fill(browser, "reminder_time", "09:30")
        fill(browser, "location", "High Street Opticians")
        fill(browser, "tags", "eyes, glasses")
        fill(browser, "description", "Bring the old glasses.")
        browser.find_element(By.XPATH, "//main//label[normalize-space()='Dr Hannah Lee (demo)']").click()
        submit(browser, "Save")
        assert re.fullmatch(r"/app/care/memories/\d+", path_of(browser)), browser.current_url
        assert "Saved." in text_of(browser, ".flash")
        assert "Eye test at the optician" in text_of(browser, "h1")
        page = text_of(browser, "main")
        assert "11:15" in page and "High Street Opticians" in page and "Dr Hannah Lee (demo)" in page
        appointment = browser.current_url.split("?")[0]
        check_page(browser, "care appointment")

        # Done, and the banner's Undo takes it back.
        submit(browser, "Mark as done")
        assert "Marked as done." in text_of(browser, ".flash")
        assert "Done" in text_of(browser, "main .tag")
        check_page(browser, "care appointment done")
        submit(browser, "Undo")
        assert "Marked as not done." in text_of(browser, ".flash")
        assert browser.find_elements(By.XPATH, "//main//button[normalize-space()='Mark as done']"), "Undo did not open it again"
        assert not browser.find_elements(By.CSS_SELECTOR, "main .tag")

        # Searching: by a word, and by category.
        browser.find_element(By.LINK_TEXT, "Back to your memories").click()
        assert "Eye test at the optician" in text_of(browser, "main")
        fill(browser, "q", "optician")
        submit(browser, "Search")
        assert card_titles(browser) == ["Eye test at the optician"], card_titles(browser)
        assert "This week" not in headings(browser)
        check_page(browser, "care search")
        fill(browser, "q", "")
        browser.find_element(By.CSS_SELECTOR, "#category option[value=home]").click()
        submit(browser, "Search")
        titles = card_titles(browser)
        assert "Where the spare key is (demo)" in titles and "Eye test at the optician" not in titles, titles
        fill(browser, "q", "no such words anywhere")
        submit(browser, "Search")
        assert "No memories match." in text_of(browser, "main")
        check_page(browser, "care search with no results")

        # Contacts: the list, a new one (a name is needed), and the contact's page.
        browser.find_element(By.CSS_SELECTOR, ".app-nav__link[href='/app/care/contacts']").click()
        assert path_of(browser) == "/app/care/contacts"
        assert "Tom the neighbour (demo)" in card_titles(browser)
        check_page(browser, "care contacts")
        browser.find_element(By.LINK_TEXT, "Add a contact").click()
        check_page(browser, "care new contact")
        submit(browser, "Save contact")
        assert error_summary_links(browser) == ["#name"]
        check_page(browser, "care new contact with an error")
        fill(browser, "name", "Maria the gardener")
        fill(browser, "phones", "07700 900456")
        fill(browser, "address", "2 Example Lane")
        submit(browser, "Save contact")
        assert re.fullmatch(r"/app/care/contacts/\d+", path_of(browser)), browser.current_url
        assert "Maria the gardener" in text_of(browser, "h1")
        assert browser.find_elements(By.CSS_SELECTOR, "main a[href='tel:07700 900456']"), "no way to call her"
        check_page(browser, "care contact")
        browser.find_element(By.LINK_TEXT, "Back to your contacts").click()
        assert "Maria the gardener" in card_titles(browser)

        # Sharing: who she shares with, a code for someone new (something to share is needed), the log.
        browser.find_element(By.CSS_SELECTOR, ".app-nav__link[href='/app/care/sharing']").click()
        assert "Ruth Price (demo)" in card_titles(browser)
        check_page(browser, "care sharing")
        browser.find_element(By.LINK_TEXT, "Ruth Price (demo)").click()
        assert "What Ruth Price (demo) can see" in text_of(browser, "h1")
        assert "What happened" in headings(browser)
        check_page(browser, "care link")
        browser.find_element(By.LINK_TEXT, "Stop sharing with them").click()
        check_page(browser, "care stop sharing")
        browser.find_element(By.LINK_TEXT, "No, go back").click()
        browser.find_element(By.LINK_TEXT, "Back to sharing").click()
        browser.find_element(By.LINK_TEXT, "Share with someone new").click()
        check_page(browser, "care share")
        submit(browser, "Make a code")
        assert error_summary_links(browser) == ["#scopes"]
        check_page(browser, "care share with an error")
        code = make_code(browser, base, ["reminders", "location"], [])
        assert "see where you are" in text_of(browser, "main")
        check_page(browser, "care code")
        # Read out across a table: the code keeps to one line on the smallest phone too.
        as_phone(browser, SMALL_PHONE)
        check_page(browser, "care code at 320 px", phone_width=SMALL_PHONE[0])
        line = browser.execute_script("return parseFloat(getComputedStyle(arguments[0]).lineHeight);", browser.find_element(By.ID, "care-code"))
        assert browser.find_element(By.ID, "care-code").size["height"] < 1.5 * line, "the code breaks over two lines at 320 px"
        as_phone(browser)
        browser.find_element(By.LINK_TEXT, "Back to sharing").click()
        assert "Codes not used yet" in headings(browser)
        assert code not in text_of(browser, "main"), "the code is shown again"
        browser.find_element(By.LINK_TEXT, "Who saw what, and when").click()
        assert path_of(browser) == "/app/care/access-log"
        assert "Ruth Price (demo) saw your" in text_of(browser, "main")
        check_page(browser, "care access log")

        # Her PIN's pages, and her notifications.
        browser.get(base + "/app/care/unlock")
        check_page(browser, "care unlock")
        browser.get(base + "/app/care/pin")
        check_page(browser, "care pin")
        browser.find_element(By.CSS_SELECTOR, ".app-nav__link[href='/app/care/notifications']").click()
        check_page(browser, "care notifications")

        # Deleting asks first.
        browser.get(appointment)
        browser.find_element(By.LINK_TEXT, "Delete it").click()
        assert "Delete “Eye test at the optician”?" in text_of(browser, "h1")
        check_page(browser, "care delete a memory")
        submit(browser, "Yes, delete it")
        assert "The memory is deleted." in text_of(browser, ".flash")
        assert "Eye test at the optician" not in text_of(browser, "main")

        submit(browser, "Sign out")
        assert path_of(browser) == "/app/care/sign-in"
        browser.get(base + "/app/care")
        assert path_of(browser) == "/app/care/sign-in", "signed out means signed out"
    finally:
        clear_viewport(browser)


def test_a_caregiver_enters_her_code_and_adds_a_to_do_she_then_sees(browser, second_browser, demo):
    """Eleanor (browser) makes a code; Ruth (second_browser, signed in with the demo account, nothing registered)
    enters it, reads what she shares and adds a to-do, which Eleanor's memories then show."""
    server, accounts = demo
    base = server.base_url
    eleanor, ruth = browser, second_browser
    as_phone(eleanor)
    as_phone(ruth)
    tomorrow = datetime.date.today() + datetime.timedelta(days=1)
    try:
        sign_in(eleanor, base, "care", ELEANOR, accounts[ELEANOR])
        code = make_code(eleanor, base, ["reminders", "plans", "memories", "location"], ["family", "health", "home"])

        ruth.get(base + "/app")
        ruth.find_element(By.LINK_TEXT, "Caregivers").click()
        assert path_of(ruth) == "/app/caregiver/sign-in"
        check_page(ruth, "caregiver sign-in")
        ruth.find_element(By.LINK_TEXT, "Create your account").click()
        check_page(ruth, "caregiver register")
        ruth.get(base + "/app/caregiver/forgotten-password")
        check_page(ruth, "caregiver forgotten password")

        sign_in(ruth, base, "caregiver", RUTH, accounts[RUTH])
        assert "Hello, Ruth Price (demo)" in text_of(ruth, "h1")
        assert "Eleanor Price (demo)" in card_titles(ruth)
        check_page(ruth, "caregiver home")

        # A wrong code is told beside the box; hers links them with what it grants.
        fill(ruth, "code", "ABCD-EFGH")
        submit(ruth, "Enter code")
        assert error_summary_links(ruth) == ["#code"]
        check_page(ruth, "caregiver code with an error")
        fill(ruth, "code", code.lower().replace("-", ""))
        submit(ruth, "Enter code")
        assert re.fullmatch(r"/app/caregiver/people/\d+", path_of(ruth)), ruth.current_url
        assert "You are linked." in text_of(ruth, ".flash")
        person = ruth.current_url.split("?")[0]
        sections = headings(ruth)
        for heading in ("Reminders and appointments", "Shared memories", "Where Eleanor Price (demo) is"):
            assert sections.count(heading) == 1, f"{heading!r} is shown {sections.count(heading)} times: {sections}"
        assert "has not shared a location yet" in text_of(ruth, "main")
        assert "Where the spare key is (demo)" in text_of(ruth, "main"), "her memories about home are not shared"
        assert "Library account (demo)" not in ruth.page_source, "a secured memory is shown to him"
        check_page(ruth, "caregiver person")

        # Her shared memories: searched, and one opened.
        fill(ruth, "q", "grandchildren")
        submit(ruth, "Search")
        assert card_titles(ruth, "main form[role=search] ~ ul .app-card__title") == ["Ruth visited with the grandchildren (demo)"]
        check_page(ruth, "caregiver search")
        ruth.find_element(By.PARTIAL_LINK_TEXT, "Ruth visited with the grandchildren").click()
        assert "/memories/" in path_of(ruth)
        assert "We had tea in the garden" in text_of(ruth, "main")
        check_page(ruth, "caregiver memory")
        ruth.find_element(By.LINK_TEXT, "Back").click()

        # Adding a to-do for her: its kind (only plans), then its shorter form.
        ruth.find_element(By.LINK_TEXT, "Add an appointment or to-do").click()
        check_page(ruth, "caregiver plan kind")
        kinds = [label.text for label in ruth.find_elements(By.CSS_SELECTOR, "main .radio__label")]
        assert kinds == ["To-do list", "Simple to-do", "Appointment"], kinds
        submit(ruth, "Continue")
        assert error_summary_links(ruth) == ["#type"]
        choose(ruth, "type", "simple_todo")
        submit(ruth, "Continue")
        assert "New simple to-do" in text_of(ruth, "h1")
        for absent in ("category", "secured", "people", "tags", "emoji"):
            assert not ruth.find_elements(By.ID, absent), f"his form has #{absent}"
        check_page(ruth, "caregiver new to-do")
        submit(ruth, "Save")
        assert error_summary_links(ruth)[0] == "#title"
        check_page(ruth, "caregiver new to-do with errors")
        fill(ruth, "title", "Collect the new prescription")
        fill_date(ruth, "reminder", tomorrow)
        fill(ruth, "reminder_time", "10:00")
        fill(ruth, "description", "From the chemist on the corner.")
        submit(ruth, "Save")
        assert ruth.current_url.split("?")[0] == person
        assert "Added." in text_of(ruth, ".flash")
        assert "Collect the new prescription" in card_titles(ruth)
        check_page(ruth, "caregiver person after adding")

        ruth.find_element(By.PARTIAL_LINK_TEXT, "Stop helping").click()
        assert "Stop helping Eleanor Price (demo) here?" in text_of(ruth, "h1")
        check_page(ruth, "caregiver stop helping")
        ruth.find_element(By.LINK_TEXT, "No, go back").click()
        assert ruth.current_url.split("?")[0] == person

        ruth.get(base + "/app/caregiver/notifications")
        check_page(ruth, "caregiver notifications")

        # In her memories, the to-do he added, saying who last changed it.
        eleanor.get(base + "/app/care")
        assert "Collect the new prescription" in card_titles(eleanor)
        check_page(eleanor, "care memories with his to-do")
        eleanor.find_element(By.PARTIAL_LINK_TEXT, "Collect the new prescription").click()
        page = text_of(eleanor, "main")
        assert "Last changed by someone who helps you." in page and "From the chemist on the corner." in page
        check_page(eleanor, "care his to-do")
        # His visit is in her log.
        eleanor.get(base + "/app/care/access-log")
        assert text_of(eleanor, "main .app-card").startswith("Ruth Price (demo) saw your")

        ruth.get(base + "/app/caregiver")
        submit(ruth, "Sign out")
        assert path_of(ruth) == "/app/caregiver/sign-in"
    finally:
        clear_viewport(eleanor)
        clear_viewport(ruth)


def test_a_care_receiver_adds_a_picture_to_a_memory_and_a_photo_to_a_contact(browser, demo, tmp_path):
    """Eleanor attaches a picture to a plain memory on its page (nothing chosen is told beside the box) and removes it
    after being asked, then gives a contact a photo and removes that. The pictures are larger than the phone."""
    server, accounts = demo
    base = server.base_url
    garden, portrait = tmp_path / "garden.png", tmp_path / "tom.png"
    garden.write_bytes(png(1200, 800))
    portrait.write_bytes(png(600, 600))
    as_phone(browser)
    try:
        sign_in(browser, base, "care", ELEANOR, accounts[ELEANOR])
        browser.find_element(By.PARTIAL_LINK_TEXT, "Where the spare key is (demo)").click()
        assert re.fullmatch(r"/app/care/memories/\d+", path_of(browser)), browser.current_url
        memory = browser.current_url.split("?")[0]
        assert "secured" not in text_of(browser, "main .app-caption")
        assert "Pictures and files" in headings(browser)
        assert browser.find_element(By.CSS_SELECTOR, "label[for=file]").text == "Add a picture or a PDF"
        field = browser.find_element(By.ID, "file")
        assert field.get_attribute("type") == "file"
        assert field.find_element(By.XPATH, "ancestor::form[1]").get_attribute("enctype") == "multipart/form-data"
        check_page(browser, "care memory without files")

        # Nothing chosen: told at the top and beside the box.
        submit(browser, "Add it")
        assert response_status(browser) == 422
        assert text_of(browser, ".error-summary__title") == "There is a problem"
        assert error_summary_links(browser) == ["#file"]
        assert "Choose a picture or a PDF to attach" in assert_error_next_to(browser, "file")
        # The box's red outline gives way to the focus colour when the focus is on it.
        outlines = browser.execute_script(
            "const box = document.getElementById('file'); const before = getComputedStyle(box).outlineColor;"
            " box.focus(); return [before, getComputedStyle(box).outlineColor];"
        )
        assert outlines[0] != outlines[1] and outlines[1] == "rgb(255, 221, 0)", f"the focused box's outline: {outlines}"
        check_page(browser, "care memory file error")

        # A picture: shown on the memory's page (no wider than the phone), with a link to the file.
        browser.find_element(By.ID, "file").send_keys(str(garden))
        submit(browser, "Add it")
        assert browser.current_url.split("?")[0] == memory, browser.current_url
        assert "Added." in text_of(browser, ".flash")
        pictures = browser.find_elements(By.CSS_SELECTOR, "main img[alt^='Picture: ']")
        assert [p.get_attribute("alt") for p in pictures] == ["Picture: garden.png"]
        assert loaded_width(browser, pictures[0]) == 1200, "the picture is not shown"
        assert browser.find_element(By.LINK_TEXT, "garden.png").get_attribute("href") == pictures[0].get_attribute("src")
        check_page(browser, "care memory files")

        # Removing asks first, naming the file.
        browser.find_element(By.XPATH, "//main//a[normalize-space()='Remove garden.png']").click()
        assert text_of(browser, "h1") == "Remove “garden.png”?"
        check_page(browser, "care remove a file")
        submit(browser, "Yes, remove it")
        assert browser.current_url.split("?")[0] == memory, browser.current_url
        assert "Removed." in text_of(browser, ".flash")
        after = browser.find_element(By.XPATH, "//main//h2[normalize-space()='Pictures and files']/following-sibling::*[1]")
        assert after.text == "None yet."
        assert not browser.find_elements(By.CSS_SELECTOR, "main img"), "the picture is still shown"
        check_page(browser, "care memory after removing its file")

        # A contact's photo: added, shown with what changes or removes it, and removed after asking.
        browser.find_element(By.CSS_SELECTOR, ".app-nav__link[href='/app/care/contacts']").click()
        browser.find_element(By.LINK_TEXT, "Tom the neighbour (demo)").click()
        assert re.fullmatch(r"/app/care/contacts/\d+", path_of(browser)), browser.current_url
        contact = browser.current_url.split("?")[0]
        assert browser.find_element(By.CSS_SELECTOR, "label[for=photo]").text == "Add a photo"
        assert not browser.find_elements(By.CSS_SELECTOR, "main img")
        check_page(browser, "care contact without a photo")
        browser.find_element(By.ID, "photo").send_keys(str(portrait))
        submit(browser, "Add it")
        assert browser.current_url.split("?")[0] == contact, browser.current_url
        assert "The photo is saved." in text_of(browser, ".flash")
        photos = browser.find_elements(By.CSS_SELECTOR, "main img")
        assert [p.get_attribute("alt") for p in photos] == ["Photo of Tom the neighbour (demo)"]
        assert loaded_width(browser, photos[0]) == 600, "the photo is not shown"
        assert browser.find_element(By.CSS_SELECTOR, "label[for=photo]").text == "Change the photo"
        check_page(browser, "care contact photo")
        browser.find_element(By.LINK_TEXT, "Remove the photo").click()
        assert text_of(browser, "h1") == "Remove the photo of Tom the neighbour (demo)?"
        check_page(browser, "care remove a photo")
        submit(browser, "Yes, remove it")
        assert browser.current_url.split("?")[0] == contact, browser.current_url
        assert "The photo is removed." in text_of(browser, ".flash")
        assert not browser.find_elements(By.CSS_SELECTOR, "main img"), "the photo is still shown"
        assert not browser.find_elements(By.LINK_TEXT, "Remove the photo")
        assert browser.find_element(By.CSS_SELECTOR, "label[for=photo]").text == "Add a photo"
        check_page(browser, "care contact after removing the photo")
    finally:
        clear_viewport(browser)


def test_a_caregiver_chooses_a_new_password_with_his_current_one(browser, demo):
    """Ruth, signed in on her phone, follows "Change your password" from the people she helps: a wrong current
    password is shown beside its field and in the summary, the right one saves the new password and she stays
    signed in. (Her demo password is put back at the end, for the other tests of this module.)"""
    server, accounts = demo
    base = server.base_url
    as_phone(browser)
    demo_password, new_password = accounts[RUTH], "Harbour lights 2020"

    def change(current: str, new: str) -> None:
        fill(browser, "current_password", current)
        fill(browser, "new_password", new)
        fill(browser, "new_password_confirmation", new)
        submit(browser, "Save new password")

    try:
        sign_in(browser, base, "caregiver", RUTH, demo_password)
        browser.find_element(By.LINK_TEXT, "Change your password").click()
        assert path_of(browser) == "/app/caregiver/password"
        assert text_of(browser, "h1") == "Change your password"
        check_page(browser, "caregiver password")
        change("not my password at all", new_password)
        assert error_summary_links(browser) == ["#current_password"]
        assert_error_next_to(browser, "current_password")
        check_page(browser, "caregiver password wrong")
        change(demo_password, new_password)
        assert path_of(browser) == "/app/caregiver/password"
        assert "Your new password is saved" in text_of(browser, ".flash")
        check_page(browser, "caregiver password saved")
        change(new_password, demo_password)
        assert "Your new password is saved" in text_of(browser, ".flash")
    finally:
        clear_viewport(browser)
