"""A physician adds a patient with the three-step wizard; the patient claims her app and logs doses; the charts show it."""

import datetime
import json
import os
import re
import sqlite3
import subprocess
import tempfile
import urllib.request
from pathlib import Path

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from conftest import Account, _server_binary, check_accessibility, create_first_administrator, fill, follow_navigation, path_of, screenshot, submit, text_of
from test_sign_in import error_summary_links, sign_in

PHYSICIAN = Account("dr.ada", "ada@example.org", "levodopa and long walks")
# A 1x1 PNG for the exercise's illustration.
PNG = bytes.fromhex("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c63000100000500010d0a2db40000000049454e44ae426082")


def api(base, method, path, body=None, token=None):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = "Bearer " + token
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, headers=headers, method=method)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request) as response:
            text = response.read()
            return response.status, json.loads(text) if text else None
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def choose(driver, field_id, text):
    Select(driver.find_element(By.ID, field_id)).select_by_visible_text(text)


def test_a_physician_adds_a_patient_with_the_wizard_and_sees_her_adherence(browser, server_factory):
    server = server_factory("patients")
    base = server.base_url
    database = server.data_dir / "careportal.sqlite"
    create_first_administrator(browser, base)

    # The administrator fills the catalogue the wizard's dropdowns come from.
    follow_navigation(browser, "Catalogue")
    check_accessibility(browser, "empty catalogue")
    for name, doses in [("Levodopa/carbidopa", "25/100 mg tablet\n25/250 mg tablet"), ("Pramipexole", "0.25 mg tablet\n0.5 mg tablet")]:
        browser.find_element(By.LINK_TEXT, "Add a medication").click()
        fill(browser, "name", name)
        fill(browser, "doses", doses)
        fill(browser, "description", f"{name}: take as your physician says.")
        submit(browser, "Add medication")
    for name, times in [("Three times daily", "3"), ("Once daily", "1")]:
        browser.find_element(By.LINK_TEXT, "Add a frequency").click()
        fill(browser, "name", name)
        fill(browser, "times_per_day", times)
        submit(browser, "Add frequency")
    browser.find_element(By.LINK_TEXT, "Add an exercise amount").click()
    fill(browser, "name", "30 minutes")
    submit(browser, "Add amount")
    browser.find_element(By.LINK_TEXT, "Add an exercise").click()
    fill(browser, "name", "Walking")
    fill(browser, "description", "Walk with long steps and swing your arms.")
    with tempfile.NamedTemporaryFile(suffix=".png", delete=False) as picture:
        picture.write(PNG)
    browser.find_element(By.ID, "illustration").send_keys(picture.name)
    submit(browser, "Add exercise")
    os.unlink(picture.name)
    assert "Walking is saved in the catalogue." in text_of(browser, "div.flash")
    assert browser.find_elements(By.CSS_SELECTOR, "img.illustration__thumbnail[alt='Illustration of Walking']")
    check_accessibility(browser, "catalogue")
    screenshot(browser, "01-catalogue")
    submit(browser, "Sign out")

    # A physician account, made as an administrator would on a server without a browser.
    subprocess.run(
        [str(_server_binary()), "create-user", "--role", "physician", "--username", PHYSICIAN.username, "--email", PHYSICIAN.email,
         "--database-url", f"sqlite://{database}"],
        input=PHYSICIAN.password + "\n", text=True, check=True, capture_output=True,
    )
    sign_in(browser, base, PHYSICIAN)
    browser.find_element(By.LINK_TEXT, "Patients").click()
    check_accessibility(browser, "no patients yet")
    browser.find_element(By.LINK_TEXT, "Add new patient").click()

    # Step 1, Contact: mistakes are explained beside each field and what was typed is kept.
    assert "Contact" in text_of(browser, "li.steps__item--current")
    fill(browser, "first_name", "José")
    fill(browser, "middle_name", "María")
    fill(browser, "medical_number", "943 476 5919")
    fill(browser, "email", "jose@example")
    fill(browser, "phone", "+47 55 12 34 56")
    fill(browser, "address", "Strandkaien 12\n5013 Bergen")
    submit(browser, "Next")
    assert error_summary_links(browser) == ["#last_name", "#email"]
    assert browser.find_element(By.ID, "first_name").get_attribute("value") == "José"
    check_accessibility(browser, "contact with errors")
    screenshot(browser, "02-contact-errors")
    fill(browser, "last_name", "Núñez-Ødegård")
    fill(browser, "email", "jose@example.org")
    submit(browser, "Next")

    # Step 2, Medications: rows are added without JavaScript; a note sits behind "Add note".
    assert path_of(browser).endswith("/medications")
    assert "Medications" in text_of(browser, "li.steps__item--current")
    choose(browser, "medication_0", "Levodopa/carbidopa")
    choose(browser, "dose_0", "25/100 mg tablet")
    choose(browser, "frequency_0", "Three times daily")
    browser.find_element(By.CSS_SELECTOR, "#row-0 summary").click()
    fill(browser, "note_0", "30 minutes before meals")
    submit(browser, "Add another medication")
    choose(browser, "medication_1", "Pramipexole")
    choose(browser, "dose_1", "0.25 mg tablet")
    choose(browser, "frequency_1", "Once daily")
    assert browser.find_element(By.ID, "note_0").get_attribute("value") == "30 minutes before meals"
    check_accessibility(browser, "medications")
    screenshot(browser, "03-medications")

    # Back keeps everything, both ways.
    submit(browser, "Back")
    assert browser.find_element(By.ID, "last_name").get_attribute("value") == "Núñez-Ødegård"
    submit(browser, "Next")
    assert Select(browser.find_element(By.ID, "dose_1")).first_selected_option.text == "0.25 mg tablet"
    submit(browser, "Next")

    # Step 3, Exercises, then Finish.
    assert "Exercises" in text_of(browser, "li.steps__item--current")
    choose(browser, "exercise_0", "Walking")
    choose(browser, "amount_0", "30 minutes")
    choose(browser, "frequency_0", "Once daily")
    check_accessibility(browser, "exercises")
    screenshot(browser, "04-exercises")
    submit(browser, "Finish")
    # No mail server is set up: her claim token is shown once, to the physician who made it.
    token = re.fullmatch(r"[A-Z0-9]{4}(?:-[A-Z0-9]{4}){4}", text_of(browser, "#shown-once")).group(0)
    check_accessibility(browser, "claim token shown once")
    browser.find_element(By.PARTIAL_LINK_TEXT, "record").click()
    assert re.fullmatch(r"/patients/\d+", path_of(browser))
    assert "Waiting to be claimed" in browser.page_source
    assert token not in browser.page_source
    patient_path = path_of(browser)

    # She claims the app account with the token and logs today's doses.
    status, details = api(base, "POST", "/api/v1/patient/claim/check", {"claim_token": token})
    assert status == 200 and details["last_name"] == "Núñez-Ødegård"
    status, session = api(base, "POST", "/api/v1/patient/claim", {
        "claim_token": token, "first_name": "José", "middle_name": "María", "last_name": "Núñez-Ødegård",
        "medical_number": "9434765919", "username": "jose.n", "password": "Strandkaien 12 Bergen"})
    assert status == 201, session
    status, schedule = api(base, "GET", "/api/v1/patient/schedule", token=session["token"])
    for entry in schedule["entries"][:4]:
        status, _ = api(base, "PUT", f"/api/v1/patient/schedule/{schedule['date']}/entries/{entry['entry_id']}", {"status": "done"},
                        token=session["token"])
        assert status == 200

    browser.get(base + patient_path)
    assert "Claimed" in browser.page_source
    assert "80% of 5 scheduled doses and sessions done" in browser.page_source
    bars = browser.find_elements(By.CSS_SELECTOR, "svg[data-chart='daily'] rect.chart__box")
    assert bars[-1].find_element(By.TAG_NAME, "title").get_attribute("textContent").endswith(": 80% (4 of 5 done)")
    check_accessibility(browser, "patient page")
    screenshot(browser, "05-patient-page")
    charts = browser.find_element(By.ID, "adherence")
    browser.execute_script("arguments[0].scrollIntoView();", charts)
    browser.find_element(By.CSS_SELECTOR, "svg[data-chart='daily']").screenshot(
        str(Path(__file__).resolve().parents[2] / "artifacts" / "screenshots" / "test_patients--06-daily-chart.png"))

    # The report page offers the CSV and PDF of the same figures.
    browser.find_element(By.PARTIAL_LINK_TEXT, "Report for these days").click()
    assert browser.find_element(By.LINK_TEXT, "Download CSV") and browser.find_element(By.LINK_TEXT, "Download PDF")
    check_accessibility(browser, "report")
    screenshot(browser, "07-report")


def test_cancel_asks_first_and_a_draft_waits_on_the_patient_list(browser, server_factory):
    server = server_factory("patient-drafts")
    base = server.base_url
    create_first_administrator(browser, base)
    submit(browser, "Sign out")
    subprocess.run(
        [str(_server_binary()), "create-user", "--role", "physician", "--username", PHYSICIAN.username,
         "--database-url", f"sqlite://{server.data_dir / 'careportal.sqlite'}"],
        input=PHYSICIAN.password + "\n", text=True, check=True, capture_output=True,
    )
    sign_in(browser, base, PHYSICIAN)
    browser.get(base + "/patients/new")
    fill(browser, "first_name", "Edith")
    fill(browser, "last_name", "Marsh")
    submit(browser, "Cancel")
    assert "Discard this new patient?" in browser.page_source
    assert "Everything entered for Edith Marsh will be lost." in browser.page_source
    check_accessibility(browser, "discard the draft")
    screenshot(browser, "01-cancel-asks")
    browser.find_element(By.LINK_TEXT, "No, go back to the form").click()
    assert browser.find_element(By.ID, "last_name").get_attribute("value") == "Marsh"

    # A closed tab loses nothing: the list offers the draft.
    browser.get(base + "/patients")
    assert "1 draft to finish" in browser.page_source
    check_accessibility(browser, "patient list with a draft")
    screenshot(browser, "02-draft-on-list")
    browser.find_element(By.LINK_TEXT, "Edith Marsh").click()
    assert browser.find_element(By.ID, "first_name").get_attribute("value") == "Edith"
    submit(browser, "Cancel")
    submit(browser, "Yes, discard it")
    assert path_of(browser) == "/patients"
    assert "The new patient Edith Marsh was discarded." in text_of(browser, "div.flash")
    assert "draft to finish" not in browser.page_source
