"""A researcher's study: enrolling a participant, her first use of the app, her record, the dashboard, and
downloading the export, which reads back with Python's csv module and matches its data dictionary."""

import csv
import datetime
import io
import json
import re
import sqlite3
import urllib.error
import urllib.request
import zipfile
from zoneinfo import ZoneInfo

from selenium.webdriver.common.by import By

from conftest import (check_accessibility, check_charts_keep_their_text_inside, create_first_administrator, fill, follow_navigation,
                      screenshot, submit, text_of)
from test_sign_in import error_summary_links, sign_in

FEEDBACK = 'The folate reminder helps <b>a lot</b> & "thank you"'


def app(base, method, path, body=None, token=None):
    """The study app: JSON with its bearer token."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, headers=headers, method=method)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(request) as response:
        text = response.read().decode()
        return json.loads(text) if text else None


def download(browser, url):
    """Fetches url with the browser's own session, as clicking the link would."""
    cookies = "; ".join(f"{c['name']}={c['value']}" for c in browser.get_cookies())
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(urllib.request.Request(url, headers={"Cookie": cookies})) as response:
        return response.headers.get("Content-Type"), response.read()


def test_a_researcher_enrols_a_participant_and_downloads_the_export(browser, server, admin):
    sign_in(browser, server, admin)
    browser.get(server + "/studies")
    check_accessibility(browser, "dashboard, empty")

    follow_navigation(browser, "Participants")
    browser.find_element(By.LINK_TEXT, "Enrol a participant").click()
    check_accessibility(browser, "enrol")
    fill(browser, "study_code", "")
    submit(browser, "Enrol and make her login")
    assert "Enter the participant's study id" in text_of(browser, "div.error-summary")
    check_accessibility(browser, "enrol with errors")
    # Days are on the study's clock (America/New_York by default), not the machine's.
    enrolled = datetime.datetime.now(ZoneInfo("America/New_York")).date() - datetime.timedelta(days=3)
    fill(browser, "study_code", "NU-017")
    fill(browser, "enrolled_on_day", str(enrolled.day))
    fill(browser, "enrolled_on_month", str(enrolled.month))
    fill(browser, "enrolled_on_year", str(enrolled.year))
    fill(browser, "arm", "Arm A")
    screenshot(browser, "enrol")
    submit(browser, "Enrol and make her login")
    assert text_of(browser, "#study-username") == "nu-017"
    password = text_of(browser, "#study-password")
    assert re.fullmatch(r"[a-z0-9]{3}(-[a-z0-9]{3}){3}", password)
    check_accessibility(browser, "enrolled")
    screenshot(browser, "enrolled")

    # Her first use of the app: she must choose her own password, then uses it.
    session = app(server, "POST", "/api/v1/study/sessions", {"username": "nu-017", "password": password})
    assert session["must_change_password"] is True
    token = session["token"]
    app(server, "POST", "/api/v1/study/me/password", {"current_password": password, "new_password": "violets by the river"}, token)
    today = app(server, "GET", "/api/v1/study/todos", token=token)
    assert today["day"] == (enrolled + datetime.timedelta(days=3)).isoformat()
    app(server, "PUT", f"/api/v1/study/todos/{today['items'][0]['id']}", {"day": today["day"]}, token)
    app(server, "POST", "/api/v1/study/opens", {}, token)
    app(server, "POST", "/api/v1/study/feedback", {"message": FEEDBACK}, token)

    browser.find_element(By.LINK_TEXT, "Open NU-017’s record").click()
    assert "Arm A" in browser.page_source
    assert "The folate reminder helps <b>a lot</b>" in text_of(browser, ".study-feedback__body"), "shown as she typed it, not as markup"
    assert "Today: 1 of 2" in text_of(browser, "table.study-calendar")
    check_accessibility(browser, "participant")
    screenshot(browser, "participant")

    follow_navigation(browser, "Feedback")
    assert "NU-017" in text_of(browser, ".study-feedback")
    check_accessibility(browser, "feedback")
    screenshot(browser, "feedback")

    follow_navigation(browser, "Daily to-dos")
    check_accessibility(browser, "daily to-dos")
    browser.find_element(By.XPATH, "//a[span[normalize-space()='Taken daily folate']]").click()
    check_accessibility(browser, "change a to-do")

    follow_navigation(browser, "Contact page")
    fill(browser, "markdown", "Call the study team on **555-0100**, weekdays 9:00 to 17:00.")
    submit(browser, "Save the page")
    assert "555-0100" in text_of(browser, ".study-contact-preview")
    check_accessibility(browser, "contact page")
    assert "555-0100" in app(server, "GET", "/api/v1/study/contact", token=token)["html"]

    follow_navigation(browser, "Study")
    assert text_of(browser, "[data-figure='enrolled']") == "1"
    assert check_charts_keep_their_text_inside(browser) == 2
    check_accessibility(browser, "dashboard")
    screenshot(browser, "dashboard")

    follow_navigation(browser, "Exports")
    check_accessibility(browser, "exports")
    screenshot(browser, "exports")
    link = browser.find_element(By.LINK_TEXT, "Everything, in one ZIP").get_attribute("href")
    content_type, body = download(browser, link)
    assert content_type == "application/zip"
    with zipfile.ZipFile(io.BytesIO(body)) as archive:
        files = {name: list(csv.reader(io.StringIO(archive.read(name).decode("utf-8"), newline="")))
                 for name in archive.namelist()}
    assert set(files) == {"participants.csv", "todo-outcomes.csv", "app-opens.csv", "feedback.csv", "data-dictionary.csv"}
    dictionary = files["data-dictionary.csv"]
    assert dictionary[0] == ["file", "column", "type", "description"]
    for name, rows in files.items():
        assert rows[0] == [row[1] for row in dictionary[1:] if row[0] == name], f"{name} differs from the data dictionary"
        assert all(len(row) == len(rows[0]) for row in rows), f"{name} has a row of the wrong width"
    assert len(files["participants.csv"]) == 1 + 1
    # Three closed days before today, two to-dos each; today's mark counts once today closes.
    assert len(files["todo-outcomes.csv"]) == 1 + 3 * 2
    assert {row[4] for row in files["todo-outcomes.csv"][1:]} == {"not_done"}
    assert len(files["app-opens.csv"]) == 1 + 1
    assert files["feedback.csv"][1][3] == FEEDBACK


def test_a_participant_enrolled_with_an_emailed_claim_token_chooses_her_own_password(browser, server_factory):
    server = server_factory("study-claim")
    base = server.base_url
    database = server.data_dir / "careportal.sqlite"
    create_first_administrator(browser, base)
    browser.get(base + "/studies/participants/new")
    enrolled = datetime.datetime.now(ZoneInfo("America/New_York")).date()
    fill(browser, "study_code", "NU-033")
    fill(browser, "enrolled_on_day", str(enrolled.day))
    fill(browser, "enrolled_on_month", str(enrolled.month))
    fill(browser, "enrolled_on_year", str(enrolled.year))
    browser.find_element(By.ID, "login-email").click()
    submit(browser, "Enrol and make her login")
    # The claim token needs her email: the error is beside the field, and the choice and what was typed are kept.
    assert error_summary_links(browser) == ["#email"]
    assert "Enter her email address to send her a claim token" in text_of(browser, "#email-error")
    assert browser.find_element(By.ID, "login-email").is_selected()
    assert browser.find_element(By.ID, "study_code").get_attribute("value") == "NU-033"
    check_accessibility(browser, "enrol with a claim token, no email")
    screenshot(browser, "claim-enrol-errors")
    fill(browser, "email", "nu033@example.org")
    submit(browser, "Enrol and make her login")
    assert text_of(browser, "#study-username") == "nu-033"
    # No mail server is set up: her claim token is shown once, to the researcher who enrolled her.
    assert "Not sent to nu033@example.org" in text_of(browser, "#study-claim")
    first = re.fullmatch(r"[A-Z0-9]{4}(?:-[A-Z0-9]{4}){4}", text_of(browser, "#study-claim-token")).group(0)
    assert not browser.find_elements(By.ID, "study-password")
    check_accessibility(browser, "enrolled with a claim token")
    screenshot(browser, "claim-enrolled")

    browser.find_element(By.LINK_TEXT, "Open NU-033’s record").click()
    assert "Waiting to be claimed" in browser.page_source
    submit(browser, "Email her a new claim token")
    newest = re.fullmatch(r"[A-Z0-9]{4}(?:-[A-Z0-9]{4}){4}", text_of(browser, "#shown-once")).group(0)
    assert newest != first
    check_accessibility(browser, "new claim token shown once")
    browser.find_element(By.PARTIAL_LINK_TEXT, "record").click()
    assert newest not in browser.page_source
    check_accessibility(browser, "participant waiting to claim")
    screenshot(browser, "claim-participant-waiting")

    # She claims her account in the app with the newest token; the first no longer works.
    try:
        app(base, "POST", "/api/v1/study/claim", {"claim_token": first, "password": "violets by the river"})
        raise AssertionError("the replaced token still worked")
    except urllib.error.HTTPError as refused:
        assert refused.code == 422
    session = app(base, "POST", "/api/v1/study/claim", {"claim_token": newest, "password": "violets by the river"})
    assert session["must_change_password"] is False and session["study_id"] == "NU-033"
    assert app(base, "GET", "/api/v1/study/todos", token=session["token"])["day"] == enrolled.isoformat()

    browser.refresh()
    assert "Her own, chosen with the claim token emailed to her" in browser.page_source
    assert not browser.find_elements(By.XPATH, "//button[normalize-space()='Email her a new claim token']")
    check_accessibility(browser, "participant after claiming")
    screenshot(browser, "claim-participant-claimed")
