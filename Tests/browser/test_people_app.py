"""The people's web app on a phone: a demo patient (printed by `careportal seed-demo`) opens the start page,
signs in, logs a dose, looks back a day, reads her progress, sets her reminders and finds her doctor — at
360 × 740 CSS pixels, with axe on every page, no page wider than the phone, every control at least 44 px tall,
and the day's buttons reached and pressed from the keyboard alone."""

from __future__ import annotations

import re
import subprocess

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

from conftest import WAIT, check_accessibility, check_charts_keep_their_text_inside, fill, path_of, screenshot, submit, text_of
from test_narrow_pages import clear_viewport
from test_sign_in import error_summary_links

PHONE = (360, 740)
# The smallest phone the web app is written for.
SMALL_PHONE = (320, 640)


def seeded_demo(server_factory, name: str) -> tuple[object, dict[str, str]]:
    """A server seeded with `careportal seed-demo`, and the demo accounts it printed: identifier to password."""
    accounts: dict[str, str] = {}

    def seed(binary, database_url, data_dir):
        result = subprocess.run(
            [str(binary), "seed-demo", "--database-url", database_url, "--data-dir", str(data_dir)],
            capture_output=True, text=True, timeout=600,
        )
        assert result.returncode == 0, f"seed-demo failed:\n{result.stdout}\n{result.stderr}"
        accounts.update(re.findall(r"(\S+)\s+password: (\S+)", result.stdout))

    return server_factory(name, prepare=seed), accounts


@pytest.fixture(scope="module")
def demo(server_factory):
    """A server seeded with the demo; returns it and the demo patient's username and password."""
    server, accounts = seeded_demo(server_factory, "people-app")
    assert {"demo.patient1", "demo-001", "margaret.demo@example.invalid", "Steady_Dove1"} <= set(accounts), \
        f"seed-demo printed no web-app accounts: {sorted(accounts)}"
    return server, accounts


def as_phone(driver, size: tuple[int, int] = PHONE) -> None:
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": size[0], "height": size[1], "deviceScaleFactor": 2, "mobile": True},
    )


def check_keyboard(driver, name: str) -> None:
    """From the top of the page, Tab reaches every control in the order the page reads (one stop for each
    group of radios), and each shows where the focus is: an outline or a ring of its own, or its label's."""
    expected = driver.execute_script(
        """
        const selector = 'a[href], button:not([disabled]), input:not([type=hidden]):not([disabled]), select:not([disabled]), '
            + 'textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';
        const groups = new Set();
        return [...document.querySelectorAll(selector)].filter(el => {
            if (el.getClientRects().length === 0 || getComputedStyle(el).visibility === 'hidden') return false;
            // Inside a closed disclosure, a control waits until its summary opens it.
            const closed = el.closest('details:not([open])');
            if (closed && !(el.tagName === 'SUMMARY' && el.parentElement === closed)) return false;
            if (el.type !== 'radio') return true;
            // A group of radios is one stop: the chosen one, or the first while none is.
            const group = [...document.getElementsByName(el.name)].filter(r => r.type === 'radio' && r.form === el.form);
            const stop = group.find(r => r.checked) || group[0];
            if (el !== stop || groups.has(stop)) return false;
            groups.add(stop);
            return true;
        });
        """
    )
    # Tab goes on from where the focus last was (after a form, its button): start from a mark at the top.
    driver.execute_script(
        "const start = document.createElement('span'); start.id = 'keyboard-start'; start.tabIndex = -1;"
        " document.body.prepend(start); start.focus();"
    )
    reached, unmarked = [], []
    # Stops the list does not foresee (a summary, a scrolling region's own) are allowed; past the last
    # control the focus leaves the page. Each stop is looked at as the keyboard left it (`:focus-visible`).
    for _ in range(len(expected) + 20):
        ActionChains(driver).send_keys(Keys.TAB).perform()
        active = driver.switch_to.active_element
        if active.tag_name == "body" or active in reached:
            break
        reached.append(active)
        shown = driver.execute_script(
            """
            const marked = (el, pseudo) => {
                const s = getComputedStyle(el, pseudo);
                return (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0) || (s.boxShadow && s.boxShadow !== 'none');
            };
            const el = arguments[0];
            const label = el.labels && el.labels[0];
            return marked(el) || Boolean(label && (marked(label) || marked(label, '::before') || marked(label, '::after')));
            """,
            active,
        )
        if not shown:
            unmarked.append(active.get_attribute("outerHTML")[:100])
    driver.execute_script("document.getElementById('keyboard-start').remove()")
    unreached = [el.get_attribute("outerHTML")[:100] for el in expected if el not in reached]
    assert not unreached, f"Tab never reaches on {name}: " + "; ".join(unreached) + " (reached: " + "; ".join(el.get_attribute("outerHTML")[:60] for el in reached[-4:]) + ")"
    assert not unmarked, f"no visible focus on {name}: " + "; ".join(unmarked)


def check_page(driver, name: str, phone_width: int = PHONE[0]) -> None:
    """axe, a screenshot, nothing wider than the phone, every control at least 44 px tall and reached and
    marked by the keyboard."""
    check_accessibility(driver, name)
    check_keyboard(driver, name)
    screenshot(driver, name)
    width = driver.execute_script("return document.documentElement.scrollWidth")
    assert width <= phone_width, f"{name} is {width} px wide on a {phone_width} px phone"
    small = driver.execute_script(
        """
        const small = [];
        for (const el of document.querySelectorAll('main button, main a.app-day-nav__link, main input[type=radio], main input[type=checkbox], main input[type=file], header button, .app-nav__link')) {
            // A radio or checkbox is the label's: the label's box is what a finger taps.
            const target = (el.type === 'radio' || el.type === 'checkbox') ? el.closest('.radio, .checkbox') : el;
            const box = target.getBoundingClientRect();
            if (box.height < 44) small.push(`${el.outerHTML.slice(0, 80)} (${Math.round(box.height)} px)`);
        }
        return small;
        """
    )
    assert not small, f"controls under 44 px on {name}: " + "; ".join(small)


def test_a_patient_uses_her_part_of_the_web_app_on_a_phone(browser, demo):
    server, accounts = demo
    password = accounts["demo.patient1"]
    base = server.base_url
    as_phone(browser)
    try:
        browser.get(base + "/app")
        check_page(browser, "start")
        browser.find_element(By.LINK_TEXT, "Patients of a physician").click()
        assert path_of(browser) == "/app/patient/sign-in"

        # The first visit's way in: claiming the account with the emailed token (a wrong one is told beside the field).
        browser.find_element(By.LINK_TEXT, "Claim your account with the token from your email").click()
        check_page(browser, "claim")
        fill(browser, "claim_token", "AAAA-BBBB-CCCC-DDDD-EEEE")
        submit(browser, "Continue")
        assert error_summary_links(browser) == ["#claim_token"]
        check_page(browser, "claim with an error")
        browser.find_element(By.LINK_TEXT, "Sign in").click()
        assert path_of(browser) == "/app/patient/sign-in"

        # A wrong password is told beside the field, with what she typed kept.
        fill(browser, "identifier", "demo.patient1")
        fill(browser, "password", "not my password")
        submit(browser, "Sign in")
        assert error_summary_links(browser) == ["#identifier"]
        assert browser.find_element(By.ID, "identifier").get_attribute("value") == "demo.patient1"
        check_page(browser, "sign-in with an error")

        fill(browser, "password", password)
        submit(browser, "Sign in")
        assert path_of(browser) == "/app/patient"
        check_page(browser, "today")
        summary = text_of(browser, ".app-summary")
        done_before = int(summary.split(" of ")[0])

        # From the keyboard alone: Tab to the first Done button not yet chosen, and press Enter.
        buttons = [b for b in browser.find_elements(By.CSS_SELECTOR, "form.app-choices button[value=done]")
                   if b.get_attribute("aria-pressed") != "true"]
        if not buttons:
            # Everything was already done today: look at yesterday instead, which can still be logged.
            browser.find_element(By.PARTIAL_LINK_TEXT, "Yesterday").click()
            buttons = [b for b in browser.find_elements(By.CSS_SELECTOR, "form.app-choices button[value=done]")
                       if b.get_attribute("aria-pressed") != "true"]
        assert buttons, "nothing left to log today or yesterday"
        target = buttons[0]
        label = target.get_attribute("textContent")
        browser.find_element(By.TAG_NAME, "body").click()
        for _ in range(200):
            ActionChains(browser).send_keys(Keys.TAB).perform()
            if browser.switch_to.active_element == target:
                break
        else:
            pytest.fail(f"Tab never reached {label!r}")
        old = browser.find_element(By.TAG_NAME, "html")
        ActionChains(browser).send_keys(Keys.ENTER).perform()
        WebDriverWait(browser, WAIT).until(lambda d: d.find_element(By.TAG_NAME, "html") != old)
        WebDriverWait(browser, WAIT).until(lambda d: d.execute_script("return document.readyState") == "complete")
        chosen = [b.get_attribute("textContent") for b in browser.find_elements(By.CSS_SELECTOR, "button[aria-pressed=true]")]
        assert label in chosen, f"{label!r} is not shown as done: {chosen}"
        if path_of(browser) == "/app/patient" and "date=" not in browser.current_url:
            assert int(text_of(browser, ".app-summary").split(" of ")[0]) == done_before + 1
        check_page(browser, "after logging a dose")

        browser.get(base + "/app/patient")
        browser.find_element(By.PARTIAL_LINK_TEXT, "Yesterday").click()
        assert "Yesterday" in text_of(browser, "h1")
        check_page(browser, "yesterday")

        browser.find_element(By.LINK_TEXT, "Progress").click()
        assert "In the last 30 days you logged" in text_of(browser, ".app-summary")
        assert check_charts_keep_their_text_inside(browser) == 1
        check_page(browser, "progress")
        # One of her medicines or exercises, day by day.
        option = browser.find_elements(By.CSS_SELECTOR, "#activity option")[3]
        name = option.get_attribute("textContent")
        option.click()
        submit(browser, "Show")
        assert f"“{name}”" in text_of(browser, ".app-summary")
        assert check_charts_keep_their_text_inside(browser) == 1
        check_page(browser, "progress of one medicine")

        browser.find_element(By.LINK_TEXT, "Reminders").click()
        check_page(browser, "reminders")
        browser.find_element(By.CSS_SELECTOR, "label[for=frequency-daily]").click()
        submit(browser, "Save reminders")
        assert "Your reminder settings are saved." in text_of(browser, ".flash")
        assert browser.find_element(By.ID, "frequency-daily").is_selected()

        browser.find_element(By.LINK_TEXT, "My doctor").click()
        assert "Dana Demo" in browser.page_source
        check_page(browser, "my doctor")

        submit(browser, "Sign out")
        assert path_of(browser) == "/app/patient/sign-in"
        assert "You have signed out." in text_of(browser, ".flash")
        browser.get(base + "/app/patient")
        assert path_of(browser) == "/app/patient/sign-in", "signed out means signed out"
    finally:
        clear_viewport(browser)


def test_a_study_participant_uses_her_part_of_the_web_app_on_a_phone(browser, demo):
    server, accounts = demo
    base = server.base_url
    as_phone(browser)
    try:
        browser.get(base + "/app")
        browser.find_element(By.LINK_TEXT, "Study participants").click()
        assert path_of(browser) == "/app/study/sign-in"
        check_page(browser, "study sign-in")
        browser.find_element(By.LINK_TEXT, "Claim your account").click()
        submit(browser, "Claim my account")
        assert error_summary_links(browser) == ["#claim_token"]
        check_page(browser, "study claim with an error")
        browser.find_element(By.LINK_TEXT, "Sign in").click()
        fill(browser, "identifier", "demo-001")
        fill(browser, "password", accounts["demo-001"])
        submit(browser, "Sign in")
        assert path_of(browser) == "/app/study"
        check_page(browser, "study today")
        buttons = browser.find_elements(By.CSS_SELECTOR, "main form button.app-button")
        before = len(buttons)
        if buttons:
            title = buttons[0].get_attribute("textContent")
            browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", buttons[0])
            old = browser.find_element(By.TAG_NAME, "html")
            buttons[0].click()
            WebDriverWait(browser, WAIT).until(lambda d: d.find_element(By.TAG_NAME, "html") != old)
            assert len(browser.find_elements(By.CSS_SELECTOR, "main form button.app-button")) == before - 1, f"{title!r} was not marked"
            check_page(browser, "study today after marking")

        browser.find_element(By.LINK_TEXT, "Progress").click()
        assert "DEMO-001" in browser.page_source
        assert check_charts_keep_their_text_inside(browser) == 1
        check_page(browser, "study progress")

        browser.find_element(By.LINK_TEXT, "Feedback").click()
        submit(browser, "Send feedback")
        assert error_summary_links(browser) == ["#message"]
        check_page(browser, "study feedback with an error")
        fill(browser, "message", "The reminder came twice this morning.")
        submit(browser, "Send feedback")
        assert "The study team reads every message." in text_of(browser, ".flash")

        browser.find_element(By.LINK_TEXT, "Contact").click()
        check_page(browser, "study contact")

        browser.find_element(By.LINK_TEXT, "Videos").click()
        assert "Fitness" in text_of(browser, "main"), "the demo's videos are not grouped by category"
        check_page(browser, "study videos")
        browser.find_elements(By.CSS_SELECTOR, "main .app-card__title a")[0].click()
        assert browser.find_elements(By.LINK_TEXT, "All videos")
        check_page(browser, "study video")

        browser.find_element(By.LINK_TEXT, "Locations").click()
        assert browser.find_elements(By.PARTIAL_LINK_TEXT, "Show on a map"), "no care location with its pin"
        check_page(browser, "study care locations")
        submit(browser, "Sign out")
        assert path_of(browser) == "/app/study/sign-in"
    finally:
        clear_viewport(browser)


def test_a_pharmacy_customer_uses_her_part_of_the_web_app_on_a_small_phone(browser, demo):
    server, accounts = demo
    base = server.base_url
    email = "margaret.demo@example.invalid"
    password = accounts[email]
    as_phone(browser, SMALL_PHONE)

    def check(name: str) -> None:
        check_page(browser, name, phone_width=SMALL_PHONE[0])

    try:
        browser.get(base + "/app")
        browser.find_element(By.LINK_TEXT, "Pharmacy customers").click()
        assert path_of(browser) == "/app/pharmacy/sign-in"
        check("pharmacy sign-in")

        # Registering: every problem at once, each linked from the summary.
        browser.find_element(By.LINK_TEXT, "Create your account").click()
        check("pharmacy register")
        fill(browser, "first_name", "Walter")
        submit(browser, "Create account")
        links = error_summary_links(browser)
        assert links[:2] == ["#last_name", "#date_of_birth_day"], links
        assert browser.find_element(By.ID, "first_name").get_attribute("value") == "Walter"
        check("pharmacy register with errors")

        browser.get(base + "/app/pharmacy/forgotten-password")
        check("pharmacy forgotten password")

        browser.get(base + "/app/pharmacy/sign-in")
        fill(browser, "identifier", email)
        fill(browser, "password", password)
        submit(browser, "Sign in")
        assert path_of(browser) == "/app/pharmacy"
        assert "Hello, Margaret" in text_of(browser, "h1")
        check("pharmacy home")

        browser.find_element(By.LINK_TEXT, "Deals").click()
        check("pharmacy deals")

        browser.find_element(By.LINK_TEXT, "Rewards").click()
        check("pharmacy rewards")
        redeem = browser.find_elements(By.CSS_SELECTOR, "main a.button")
        assert redeem, "the demo customer can afford no reward"
        redeem[0].click()
        assert "/app/pharmacy/rewards/" in path_of(browser)
        check("pharmacy redeem")
        submit(browser, "Yes, redeem")
        assert "Your voucher is ready." in text_of(browser, ".flash")
        check("pharmacy voucher ready")
        submit(browser, "I am at the till: start my voucher")
        timer = browser.find_element(By.CSS_SELECTOR, "[data-countdown-seconds]")
        first = timer.text
        assert first.startswith("5 minutes") or first.startswith("4 minutes"), first
        # The script counts it down without a reload.
        WebDriverWait(browser, WAIT).until(lambda d: d.find_element(By.CSS_SELECTOR, "[data-countdown-seconds]").text != first)
        check("pharmacy voucher started")

        browser.find_element(By.LINK_TEXT, "Vouchers").click()
        check("pharmacy vouchers")
        browser.find_element(By.PARTIAL_LINK_TEXT, "Your history").click()
        assert "Redeemed" in text_of(browser, "main")
        check("pharmacy history")

        browser.find_element(By.LINK_TEXT, "Prescriptions").click()
        check("pharmacy prescriptions locked")
        fill(browser, "password", "not my password")
        submit(browser, "Open my prescriptions")
        assert error_summary_links(browser) == ["#password"]
        check("pharmacy prescriptions wrong password")
        fill(browser, "password", password)
        submit(browser, "Open my prescriptions")
        assert "Lisinopril (demo)" in browser.page_source
        check("pharmacy prescriptions")
        refill = browser.find_elements(By.CSS_SELECTOR, "main a.button")
        assert refill, "the demo customer has no prescription to ask a refill of"
        refill[0].click()
        check("pharmacy refill")
        submit(browser, "Ask for the refill")
        assert error_summary_links(browser) == ["#fulfilment"]
        check("pharmacy refill with an error")
        browser.find_element(By.CSS_SELECTOR, "label[for=fulfilment-pickup]").click()
        submit(browser, "Ask for the refill")
        assert "We have your refill request" in text_of(browser, ".flash")

        browser.find_element(By.LINK_TEXT, "Home").click()
        browser.find_element(By.LINK_TEXT, "Notifications").click()
        check("pharmacy notifications")
        browser.find_element(By.LINK_TEXT, "Choose what we tell you").click()
        check("pharmacy notification choices")
        submit(browser, "Save choices")
        assert "Your choices are saved." in text_of(browser, ".flash")

        browser.get(base + "/app/pharmacy/address")
        check("pharmacy address")
        submit(browser, "Sign out")
        assert path_of(browser) == "/app/pharmacy/sign-in"
    finally:
        clear_viewport(browser)


def test_a_member_joins_reads_the_desk_and_asks_on_a_phone(browser, demo):
    server, accounts = demo
    base = server.base_url
    as_phone(browser)
    try:
        browser.get(base + "/app")
        browser.find_element(By.LINK_TEXT, "Members of the community").click()
        assert path_of(browser) == "/app/member/sign-in"
        check_page(browser, "member sign-in")

        browser.find_element(By.LINK_TEXT, "Join the community").click()
        check_page(browser, "member join")
        fill(browser, "pseudonym", "Night_Owl")
        submit(browser, "Join")
        links = error_summary_links(browser)
        assert links[0] == "#sign_up_code" and "#due_date_day" in links and "#security_question" in links, links
        assert browser.find_element(By.ID, "pseudonym").get_attribute("value") == "Night_Owl"
        check_page(browser, "member join with errors")

        browser.get(base + "/app/member/recovery")
        check_page(browser, "member recovery")

        browser.get(base + "/app/member/sign-in")
        fill(browser, "identifier", "Steady_Dove1")
        fill(browser, "password", accounts["Steady_Dove1"])
        submit(browser, "Sign in")
        assert path_of(browser) == "/app/member"
        assert "Hello, Steady_Dove1" in text_of(browser, "h1")
        check_page(browser, "member home")

        browser.find_element(By.LINK_TEXT, "How are you feeling today?").click()
        check_page(browser, "member mood")
        submit(browser, "Share how I feel")
        assert error_summary_links(browser) == ["#mood"]
        browser.find_element(By.CSS_SELECTOR, "label[for=mood-overwhelmed]").click()
        submit(browser, "Share how I feel")
        assert browser.find_elements(By.CSS_SELECTOR, "main a[href^='tel:']"), "a hard day is answered with no number to call"
        check_page(browser, "member mood shared")

        browser.find_element(By.LINK_TEXT, "Chat").click()
        assert path_of(browser) == "/app/member/chat"
        assert "Is feeling overwhelmed" in text_of(browser, "#chat-messages"), "her mood is not in her group's room"
        submit(browser, "Send")
        assert error_summary_links(browser) == ["#body"]
        check_page(browser, "member chat with an error")
        browser.get(base + "/app/member/chat")
        # The page's script listens on the chat socket with her cookie: what is sent elsewhere appears here.
        WebDriverWait(browser, WAIT).until(lambda d: "as they are sent" in text_of(d, "#chat-status"))
        check_page(browser, "member chat")
        # The smallest phone too: the room, the box and its button fit 320 px.
        as_phone(browser, SMALL_PHONE)
        check_page(browser, "member chat at 320 px", phone_width=SMALL_PHONE[0])
        as_phone(browser)
        room = browser.current_window_handle
        browser.switch_to.new_window("tab")
        browser.get(base + "/app/member/chat")
        fill(browser, "body", "Anyone else awake at three?")
        submit(browser, "Send")
        browser.close()
        browser.switch_to.window(room)
        WebDriverWait(browser, WAIT).until(lambda d: "Anyone else awake at three?" in text_of(d, "#chat-messages"))
        assert path_of(browser) == "/app/member/chat", "the room was read again instead of updated"
        screenshot(browser, "member chat updated live")
        reports = browser.find_elements(By.CSS_SELECTOR, "main .app-chat__report")
        assert reports, "nothing in the demo's room to report"
        reports[0].click()
        check_page(browser, "member chat report")
        submit(browser, "Send report")
        assert error_summary_links(browser) == ["#reason"]

        browser.find_element(By.LINK_TEXT, "Desk").click()
        check_page(browser, "desk")
        browser.find_element(By.CSS_SELECTOR, "main .app-card__title a").click()
        assert "/app/member/desk/threads/" in path_of(browser)
        check_page(browser, "desk thread")
        submit(browser, "Post reply")
        assert error_summary_links(browser) == ["#body"]
        check_page(browser, "desk thread with an error")
        report = browser.find_elements(By.LINK_TEXT, "Report this reply") + browser.find_elements(By.LINK_TEXT, "Report this question")
        assert report, "nothing to report on the first thread"
        report[0].click()
        check_page(browser, "desk report")
        submit(browser, "Send report")
        assert error_summary_links(browser) == ["#reason"]

        browser.get(base + "/app/member/desk/ask")
        check_page(browser, "desk ask")
        fill(browser, "title", "Is it normal to feel so tired at night?")
        fill(browser, "body", "Week 32 and I can hardly stay awake after dinner.")
        browser.find_element(By.CSS_SELECTOR, "label[for=anonymous]").click()
        submit(browser, "Ask")
        assert "Your question is on the desk." in text_of(browser, ".flash")
        assert "Anonymous" in browser.page_source
        check_page(browser, "desk asked")

        browser.find_element(By.LINK_TEXT, "Calendar").click()
        check_page(browser, "member calendar")
        browser.find_element(By.LINK_TEXT, "Add to your calendar").click()
        check_page(browser, "member calendar new entry")
        submit(browser, "Save entry")
        assert error_summary_links(browser)[0] == "#kind"
        check_page(browser, "member calendar entry with errors")
        browser.find_element(By.CSS_SELECTOR, "label[for=kind]").click()
        fill(browser, "title", "Midwife appointment")
        fill(browser, "times", "10:30")
        browser.find_element(By.CSS_SELECTOR, "label[for=repeats]").click()
        submit(browser, "Save entry")
        assert "Your entry is saved." in text_of(browser, ".flash")
        assert "10:30 Midwife appointment" in browser.page_source
        check_page(browser, "member calendar with an entry")

        browser.find_element(By.LINK_TEXT, "Home").click()
        browser.find_element(By.LINK_TEXT, "Learning").click()
        check_page(browser, "member learning")
        modules = [a for a in browser.find_elements(By.CSS_SELECTOR, "main .app-card__title a") if not a.text.startswith("Video:")]
        assert modules, "nothing to learn in the demo for this week"
        modules[0].click()
        check_page(browser, "member learning module")
        if browser.find_elements(By.XPATH, "//button[normalize-space()='Check my answers']"):
            submit(browser, "Check my answers")
            assert error_summary_links(browser), "an unanswered quiz is not told"
            check_page(browser, "member learning quiz with errors")
        browser.get(base + "/app/member/learning")
        videos = [a for a in browser.find_elements(By.CSS_SELECTOR, "main .app-card__title a") if a.text.startswith("Video:")]
        if videos:
            videos[0].click()
            check_page(browser, "member learning video")

        browser.find_element(By.LINK_TEXT, "Home").click()
        browser.find_element(By.LINK_TEXT, "Surveys").click()
        check_page(browser, "member surveys")
        open_surveys = browser.find_elements(By.CSS_SELECTOR, "main .app-card__title a")
        if open_surveys:
            open_surveys[0].click()
            check_page(browser, "member survey")
            submit(browser, "Send my answers")
            if browser.find_elements(By.CSS_SELECTOR, ".error-summary"):
                check_page(browser, "member survey with errors")

        browser.find_element(By.LINK_TEXT, "Help").click()
        assert browser.find_elements(By.CSS_SELECTOR, "main a[href^='tel:']"), "no number to call"
        check_page(browser, "member help")

        browser.find_element(By.LINK_TEXT, "Rewards").click()
        assert "Grocery gift card (demo)" in text_of(browser, "main")
        check_page(browser, "member rewards")

        browser.find_element(By.LINK_TEXT, "Home").click()
        browser.find_element(By.LINK_TEXT, "Your profile and password").click()
        check_page(browser, "member profile")
        fill(browser, "recovery_email", "not an email")
        submit(browser, "Save profile")
        assert error_summary_links(browser) == ["#recovery_email"]
        check_page(browser, "member profile with an error")
        browser.find_element(By.LINK_TEXT, "Change your password").click()
        check_page(browser, "member password")

        browser.find_element(By.LINK_TEXT, "Notifications").click()
        check_page(browser, "member notifications")
        browser.find_element(By.LINK_TEXT, "Choose what we tell you").click()
        check_page(browser, "member notification choices")
        submit(browser, "Save choices")
        assert "Your choices are saved." in text_of(browser, ".flash")

        browser.find_element(By.LINK_TEXT, "Home").click()
        browser.find_element(By.LINK_TEXT, "Who opened your record").click()
        assert "Who opened your record" in text_of(browser, "h1")
        check_page(browser, "member record openings")

        submit(browser, "Sign out")
        assert path_of(browser) == "/app/member/sign-in"
    finally:
        clear_viewport(browser)


def test_staff_keep_the_rewards_the_care_locations_and_the_study_videos(browser, demo):
    """The administrator's rewards pages (the catalogue with an error, the redeemed rewards to send, one sent
    with its gift card's code) and the researcher's care locations and study videos, with axe on each."""
    from test_narrow_pages import set_viewport
    from test_sign_in import sign_in
    from conftest import Account, check_accessibility

    server, accounts = demo
    base = server.base_url
    sign_in(browser, base, Account("demo.admin", "", accounts["demo.admin"]))
    browser.get(base + "/rewards")
    assert "Grocery gift card (demo)" in text_of(browser, "main")
    check_accessibility(browser, "rewards")
    submit(browser, "Add the reward")
    assert error_summary_links(browser) == ["#title", "#points_cost", "#cashier_gives"]
    check_accessibility(browser, "rewards with errors")
    browser.find_element(By.LINK_TEXT, "Redeemed rewards to send").click()
    check_accessibility(browser, "redeemed rewards to send")
    code = browser.find_elements(By.CSS_SELECTOR, "main input[name=code]")
    assert code, "the demo's redemption is not waiting"
    code[0].send_keys("DEMO-GIFT-0001")
    code[0].find_element(By.XPATH, "./ancestor::form//button").click()
    assert "Marked sent." in text_of(browser, ".flash")
    set_viewport(browser, 320, 640)
    browser.get(base + "/rewards")
    assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(browser, "rewards-320")
    clear_viewport(browser)
    submit(browser, "Sign out")

    sign_in(browser, base, Account("demo.researcher", "", accounts["demo.researcher"]))
    browser.get(base + "/studies/locations")
    assert "Riverside movement clinic" in text_of(browser, "main")
    check_accessibility(browser, "study care locations")
    browser.find_element(By.LINK_TEXT, "Add a care location").click()
    fill(browser, "latitude", "91")
    submit(browser, "Add a care location")
    assert "#latitude" in error_summary_links(browser) and "#longitude" in error_summary_links(browser)
    check_accessibility(browser, "care location with errors")
    browser.get(base + "/studies/videos")
    assert "Ten-minute morning stretch" in text_of(browser, "main")
    check_accessibility(browser, "study videos")
    browser.find_element(By.LINK_TEXT, "Add a video").click()
    submit(browser, "Save video")
    assert "#title" in error_summary_links(browser)
    check_accessibility(browser, "study video with errors")



def test_administrators_run_memory_care_from_counts_links_and_consent_history(browser, demo):
    """Memory care's staff pages: the care receivers, one care receiver's page (counts only, her links and
    their history), ending a link after a confirmation page, and the support details with an error, each
    checked with axe; the account page fits a 320 px phone."""
    from test_narrow_pages import set_viewport
    from test_sign_in import sign_in
    from conftest import Account

    server, accounts = demo
    base = server.base_url
    sign_in(browser, base, Account("demo.admin", "", accounts["demo.admin"]))
    browser.get(base + "/care/receivers")
    assert "Eleanor Price (demo)" in text_of(browser, "main")
    check_accessibility(browser, "care receivers")
    browser.find_element(By.LINK_TEXT, "Eleanor Price (demo)").click()
    page = text_of(browser, "main")
    assert "Memories" in page and "(1 secured)" in page and "Ruth Price (demo)" in page and "Ended by the care receiver" in page
    for hidden in ("Where the spare key is", "blue pot", "Library account", "Tom the neighbour"):
        assert hidden not in page, f"the staff page shows {hidden}"
    check_accessibility(browser, "care receiver")
    screenshot(browser, "care-receiver")
    set_viewport(browser, 320, 640)
    browser.refresh()
    assert browser.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(browser, "care-receiver-320")
    clear_viewport(browser)

    browser.find_element(By.PARTIAL_LINK_TEXT, "End this link").click()
    assert "End the link between Eleanor Price (demo) and Ruth Price (demo)?" in text_of(browser, "h1")
    check_accessibility(browser, "end a care link")
    submit(browser, "End the link")
    assert "has ended" in text_of(browser, ".flash")
    assert "Ended by staff" in text_of(browser, "main")

    browser.get(base + "/care/caregivers")
    assert "Sam Okoye (demo)" in text_of(browser, "main")
    check_accessibility(browser, "caregivers")

    # The feedback inbox: what the apps sent, under each sender's name; marking one handled.
    browser.get(base + "/care/feedback")
    inbox = text_of(browser, "main")
    assert "Eleanor Price (demo), care receiver" in inbox and "The big buttons help" in inbox
    assert "A reminder came twice" not in inbox, "a handled message waits no more"
    check_accessibility(browser, "memory care feedback inbox")
    screenshot(browser, "care-feedback")
    # The button's name ends with whose message it is, for a screen reader ("Mark handled (Eleanor…, …)").
    button = browser.find_element(By.XPATH, "//button[starts-with(normalize-space(.), 'Mark handled')]")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
    button.click()
    WebDriverWait(browser, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".flash"))
    assert "marked handled" in text_of(browser, ".flash")
    browser.get(base + "/care/feedback?show=all")
    assert "A reminder came twice" in text_of(browser, "main") and "Something went wrong" in text_of(browser, "main")

    browser.get(base + "/care/settings")
    fill(browser, "support_phone", "call us")
    submit(browser, "Save the support details")
    assert error_summary_links(browser) == ["#support_phone"]
    check_accessibility(browser, "memory care support details with an error")
    fill(browser, "support_phone", "0800 555 0100")
    submit(browser, "Save the support details")
    assert "support details are saved" in text_of(browser, ".flash")
    submit(browser, "Sign out")

    # A forgotten password's link that no longer works says so and what to do, for every app account.
    browser.get(base + "/care/reset-password?token=not-a-real-link")
    assert "has expired or has already been used" in text_of(browser, "main")
    check_accessibility(browser, "a memory-care reset link that no longer works")
