"""A researcher's graphs: members' app events sent through the API, drawn for a chosen range, cohort and comparison."""

import datetime
import uuid

from selenium.webdriver.common.by import By

from conftest import check_accessibility, check_charts_keep_their_text_inside, screenshot, submit
from test_chat import register
from test_members import api
from test_sign_in import sign_in


def send_events(server, session, days_ago, section, mood):
    now = datetime.datetime.now(datetime.timezone.utc)
    when = (now - datetime.timedelta(days=days_ago, minutes=5)).strftime("%Y-%m-%dT%H:%M:%SZ")
    status, body = api(server, "POST", "/api/v1/events", {"events": [
        {"client_id": str(uuid.uuid4()), "kind": "app_opened", "occurred_at": when},
        {"client_id": str(uuid.uuid4()), "kind": "section_viewed", "section": section, "seconds": 90, "occurred_at": when},
    ]}, token=session["token"])
    assert status == 200 and body["recorded"] == 2, body
    status, _ = api(server, "POST", "/api/v1/moods", {"mood": mood, "client_id": str(uuid.uuid4())}, token=session["token"])
    assert status == 201


def test_a_researcher_picks_a_range_a_cohort_and_a_comparison(browser, server, admin):
    sign_in(browser, server, admin)
    members = [register(browser, server, "Graph_%s" % name) for name in ("Wren", "Lark", "Kite", "Tern", "Rook", "Swift")]
    for index, member in enumerate(members):
        for days_ago in range(0, 3 + index % 3):
            send_events(server, member, days_ago, ("chat", "learning", "desk")[index % 3], ("happy", "sad", "excited")[days_ago % 3])

    browser.get(server + "/analytics")
    check_accessibility(browser, "analytics overview")
    screenshot(browser, "analytics-overview")

    # Sections used most, for one cohort over the last 7 days, against the 7 days before.
    browser.get(server + "/analytics/sections")
    browser.find_element(By.CSS_SELECTOR, "details.analytics-choices summary").click()
    browser.find_element(By.CSS_SELECTOR, "label[for='range-7d']").click()
    browser.find_element(By.CSS_SELECTOR, "#cohorts .checkbox label").click()
    browser.find_element(By.CSS_SELECTOR, "#compare option[value='previous']").click()
    submit(browser, "Show the graphs")
    assert "range=7d" in browser.current_url and "compare=previous" in browser.current_url and "cohort=" in browser.current_url
    assert "The period before" in browser.page_source
    assert check_charts_keep_their_text_inside(browser) == 2
    check_accessibility(browser, "analytics sections")
    screenshot(browser, "analytics-sections")

    # The same choices carry to the other graphs through the address.
    query = browser.current_url.split("?", 1)[1]
    for topic, graphs in (("moods", 2), ("activity", 3)):
        browser.get(server + "/analytics/%s?%s" % (topic, query))
        assert check_charts_keep_their_text_inside(browser) == graphs
        check_accessibility(browser, "analytics " + topic)
        screenshot(browser, "analytics-" + topic)

    # Day by day with no comparison: six members share moods, so today's counts are shown.
    browser.get(server + "/analytics/moods?range=7d&by=day")
    assert "fewer than 5" in browser.page_source
    screenshot(browser, "analytics-moods-by-day")

    browser.get(server + "/analytics/export")
    check_accessibility(browser, "analytics export")
    screenshot(browser, "analytics-export")
