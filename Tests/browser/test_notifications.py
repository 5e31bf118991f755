"""An administrator writes, checks and schedules a broadcast, sends one now, and members find it in their feed."""

import datetime

from selenium.webdriver.common.by import By

from conftest import check_accessibility, fill, screenshot, submit, text_of
from test_chat import register
from test_members import api
from test_sign_in import sign_in


def choose(browser, element_id):
    browser.find_element(By.ID, element_id).click()


def test_an_administrator_writes_checks_schedules_and_sends_broadcasts(browser, server, admin):
    sign_in(browser, server, admin)
    wren = register(browser, server, "Notice_Wren")
    cohort = wren["member"]["cohort"]

    browser.get(server + "/notifications")
    check_accessibility(browser, "notifications")
    browser.find_element(By.LINK_TEXT, "Write a broadcast").click()
    submit(browser, "Continue")
    summary = text_of(browser, "div.error-summary")
    for message in ["Enter a title", "Enter the message", "Choose who gets the broadcast", "Choose when to send it"]:
        assert message in summary
    check_accessibility(browser, "broadcast with errors")
    screenshot(browser, "broadcast-errors")

    fill(browser, "title", "Clinic closed Friday")
    fill(browser, "body", "The clinic is closed on Friday.\nCall the helpline if you need someone.")
    choose(browser, "audience-cohorts")
    choose(browser, "cohort-%d" % cohort["id"])
    choose(browser, "when-later")
    tomorrow = datetime.date.today() + datetime.timedelta(days=2)
    fill(browser, "send_on_day", str(tomorrow.day))
    fill(browser, "send_on_month", str(tomorrow.month))
    fill(browser, "send_on_year", str(tomorrow.year))
    fill(browser, "send_time", "9am")
    submit(browser, "Continue")
    assert "Enter the time on the 24-hour clock" in text_of(browser, "div.error-summary")
    assert browser.find_element(By.ID, "title").get_attribute("value") == "Clinic closed Friday", "what she typed is kept"
    fill(browser, "send_time", "09:00")
    submit(browser, "Continue")

    assert "Check your broadcast" in text_of(browser, "h1")
    page = text_of(browser, "main")
    assert cohort["name"] in page and "09:00" in page and "would get it now" in page
    check_accessibility(browser, "check broadcast")
    screenshot(browser, "broadcast-check")
    submit(browser, "Schedule broadcast")
    assert "Broadcast scheduled." in browser.page_source
    assert "Scheduled" in text_of(browser, "dl.summary-list")
    check_accessibility(browser, "scheduled broadcast")
    screenshot(browser, "broadcast-scheduled")

    # One now, to everyone: it is in her feed at once.
    browser.get(server + "/notifications/broadcasts/new")
    fill(browser, "title", "Welcome to the program")
    fill(browser, "body", "We are glad you are here.")
    choose(browser, "audience-everyone")
    choose(browser, "when-now")
    submit(browser, "Continue")
    submit(browser, "Send broadcast")
    assert "Broadcast sent." in browser.page_source
    status, feed = api(server, "GET", "/api/v1/notifications", token=wren["token"])
    assert status == 200
    assert any(entry["kind"] == "broadcast" and entry["message"] == "Welcome to the program" for entry in feed["notifications"])
    assert not any(entry["message"] == "Clinic closed Friday" for entry in feed["notifications"]), "the scheduled one waits"

    browser.get(server + "/notifications")
    rows = text_of(browser, "table")
    assert "Welcome to the program" in rows and "Clinic closed Friday" in rows
    check_accessibility(browser, "broadcasts list")
    screenshot(browser, "broadcasts")

    # Cancel the scheduled one, after confirming.
    browser.find_element(By.LINK_TEXT, "Clinic closed Friday").click()
    browser.find_element(By.LINK_TEXT, "Cancel this broadcast").click()
    check_accessibility(browser, "cancel broadcast")
    submit(browser, "Cancel the broadcast")
    assert "Broadcast cancelled." in browser.page_source
