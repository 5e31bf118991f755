"""A member registers in the app with a code an administrator made, and the administrator finds her."""

import datetime
import json
import urllib.request

from selenium.webdriver.common.by import By

from conftest import check_accessibility, check_charts_keep_their_text_inside, fill, path_of, screenshot, submit, text_of
from test_sign_in import sign_in


def api(server, method, path, body=None, token=None):
    """Calls the member API as the app does; returns (status, parsed JSON or None)."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = "Bearer " + token
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(server + path, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request) as response:
            text = response.read()
            return response.status, json.loads(text) if text else None
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def test_a_member_registers_with_a_code_and_the_administrator_finds_her(browser, server, admin):
    # The administrator makes a code to read over the phone.
    sign_in(browser, server, admin)
    browser.get(server + "/sign-up-codes/new")
    fill(browser, "note", "phone ends 7731")
    submit(browser, "Make the code")
    code = text_of(browser, "div.panel__code")

    # She registers in the app with it.
    _, program = api(server, "GET", "/api/v1/program")
    due = (datetime.date.today() + datetime.timedelta(days=150)).isoformat()
    status, session = api(server, "POST", "/api/v1/registrations", {
        "sign_up_code": code.lower(), "pseudonym": "Morning_Lark", "password": "Sunrise#2027", "avatar": "leaf",
        "due_date": due, "recovery_email": "lark@example.org", "security_question": program["security_questions"][1],
        "security_answer": "Nashville", "bio": "Seven months in recovery.",
    })
    assert status == 201, session
    cohort = session["member"]["cohort"]["name"]
    status, me = api(server, "GET", "/api/v1/me", token=session["token"])
    assert status == 200 and me["pseudonym"] == "Morning_Lark"

    # The administrator finds her in the members list and opens her record.
    browser.get(server + "/members?q=morning")
    check_accessibility(browser, "members list")
    screenshot(browser, "members-list")
    browser.find_element(By.LINK_TEXT, "Morning_Lark").click()
    assert path_of(browser).startswith("/members/")
    page = browser.page_source
    assert cohort in page and "lark@example.org" in page and "Nashville" not in page
    check_accessibility(browser, "member page")
    screenshot(browser, "member-page")

    # The code shows who used it.
    browser.get(server + "/sign-up-codes?status=used")
    assert "by Morning_Lark" in browser.page_source

    # The cohort appears with her in it, as a chart and a table.
    browser.get(server + "/cohorts")
    assert cohort in browser.page_source
    assert check_charts_keep_their_text_inside(browser) == 1
    check_accessibility(browser, "cohorts")
    screenshot(browser, "cohorts")

    # The confirmation before deleting names her and warns it cannot be undone.
    browser.get(server + "/members?q=morning")
    browser.find_element(By.LINK_TEXT, "Morning_Lark").click()
    browser.find_element(By.LINK_TEXT, "Delete this member’s data").click()
    assert "Delete Morning_Lark’s data?" in browser.page_source
    assert "This cannot be undone." in browser.page_source
    check_accessibility(browser, "delete member")
    screenshot(browser, "delete-member")


def test_program_settings_show_errors_beside_each_field(browser, server, admin):
    sign_in(browser, server, admin)
    browser.get(server + "/program-settings")
    check_accessibility(browser, "program settings")
    fill(browser, "code_lifetime_days", "0")
    fill(browser, "deletion_phone", "ring me")
    submit(browser, "Save settings")
    summary = text_of(browser, "div.error-summary")
    assert "Enter a whole number of days from 1 to 365" in summary
    assert "Enter a phone number, like 615 555 0134" in summary
    check_accessibility(browser, "program settings with errors")
    screenshot(browser, "program-settings-errors")
    fill(browser, "code_lifetime_days", "14")
    fill(browser, "deletion_phone", "615 555 0134")
    submit(browser, "Save settings")
    assert "Program settings saved." in text_of(browser, "div.flash")


def test_an_administrator_switches_a_program_off_and_on(browser, server, admin):
    sign_in(browser, server, admin)
    browser.get(server + "/program-settings")
    practice = browser.find_element(By.ID, "program-physicians_practice")
    assert practice.is_selected(), "every program runs until switched off"
    browser.execute_script("arguments[0].scrollIntoView()", practice)
    screenshot(browser, "program-settings-programs")
    try:
        practice.click()
        submit(browser, "Save settings")
        assert "Program settings saved." in text_of(browser, "div.flash")
        browser.get(server + "/")
        # Every link of the header, those in closed groups too.
        navigation = browser.find_element(By.TAG_NAME, "header").get_attribute("textContent")
        assert "Patients" not in navigation and "Catalogue" not in navigation
        assert "Members" in navigation
        check_accessibility(browser, "home with the physicians' practice switched off")
        screenshot(browser, "home-practice-switched-off")
        browser.get(server + "/patients")
        assert "Page not found" in text_of(browser, "main")
    finally:
        browser.get(server + "/program-settings")
        practice = browser.find_element(By.ID, "program-physicians_practice")
        if not practice.is_selected():
            browser.execute_script("arguments[0].scrollIntoView()", practice)
            practice.click()
            submit(browser, "Save settings")
    browser.get(server + "/patients")
    assert "Page not found" not in text_of(browser, "main")
