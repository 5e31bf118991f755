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
    assert check_charts_keep_their_text_inside(browser) == 3, "visits, minutes, and what members wrote on the desk"
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


def test_survey_results_and_module_scores_are_drawn_with_their_tables(browser, server, admin):
    import zoneinfo
    from conftest import fill
    from test_learning import choose
    from test_surveys import add_question

    sign_in(browser, server, admin)
    members = [register(browser, server, "Scores_%s" % name) for name in ("Wren", "Lark", "Kite", "Tern", "Rook", "Swift")]

    # A survey with a choice question and a scale, answered by six members.
    browser.get(server + "/surveys/new")
    today = datetime.datetime.now(zoneinfo.ZoneInfo("America/New_York")).date()
    fill(browser, "title", "Analytics check-in")
    for prefix, day in (("opens_on", today), ("closes_on", today + datetime.timedelta(days=7))):
        fill(browser, prefix + "_day", str(day.day))
        fill(browser, prefix + "_month", str(day.month))
        fill(browser, prefix + "_year", str(day.year))
    browser.find_element(By.ID, "audience-everyone").click()
    submit(browser, "Save and continue")
    add_question(browser, "Single choice", "Did the group help this week?", choices="Yes\nA little\nNo")
    add_question(browser, "Scale from 1 to 5", "How confident do you feel?", scale_low_label="Not at all", scale_high_label="Very confident")
    submit(browser, "Publish survey")
    status, listing = api(server, "GET", "/api/v1/surveys", token=members[0]["token"])
    survey = next(item for item in listing["surveys"] if item["title"] == "Analytics check-in")
    status, detail = api(server, "GET", "/api/v1/surveys/%d" % survey["id"], token=members[0]["token"])
    ids = {question["kind"]: question["id"] for question in detail["questions"]}
    for index, member in enumerate(members):
        status, body = api(server, "POST", "/api/v1/surveys/%d/responses" % survey["id"], {
            "client_id": str(uuid.uuid4()),
            "answers": [{"question_id": ids["single_choice"], "choice": 1 + index % 2},
                        {"question_id": ids["scale"], "scale": (5, 4, 4, 2, 5, 3)[index]}],
        }, token=member["token"])
        assert status == 201, body

    browser.get(server + "/analytics/surveys?range=7d&survey=%d" % survey["id"])
    assert "How confident do you feel?" in browser.page_source and "Did the group help this week?" in browser.page_source
    assert len(browser.find_elements(By.CSS_SELECTOR, "table.table")) >= 2, "a table twin for each graph"
    assert check_charts_keep_their_text_inside(browser) == 2
    assert "Each count is fewer than 5" in browser.page_source, "a bar whose every count is withheld says so"
    check_accessibility(browser, "analytics surveys")
    screenshot(browser, "analytics-surveys")

    # A module with a one-question quiz, taken by the six members: some right, some wrong.
    browser.get(server + "/learning")
    browser.find_element(By.LINK_TEXT, "Learning modules").click()
    browser.find_element(By.LINK_TEXT, "Write a module").click()
    fill(browser, "title", "Feeding your newborn")
    fill(browser, "category", "Caring for your baby")
    fill(browser, "position", "2")
    fill(browser, "summary", "The first weeks of feeding.")
    fill(browser, "body", "Little and often.")
    choose(browser, "stage-all")
    choose(browser, "status-published")
    submit(browser, "Save module")
    browser.find_element(By.LINK_TEXT, "Add a question").click()
    fill(browser, "prompt", "How often does a newborn feed?")
    fill(browser, "choice_1", "Every 2 to 3 hours")
    fill(browser, "choice_2", "Twice a day")
    browser.find_element(By.ID, "correct_1").click()
    fill(browser, "explanation", "Newborns feed little and often.")
    submit(browser, "Save question")
    status, center = api(server, "GET", "/api/v1/learning", token=members[0]["token"])
    module = next(module for category in center["categories"] for module in category["modules"] if module["title"] == "Feeding your newborn")
    status, content = api(server, "GET", "/api/v1/learning/modules/%d" % module["id"], token=members[0]["token"])
    question = content["questions"][0]
    for index, member in enumerate(members):
        choice = question["choices"][0 if index % 3 else 1]["id"]
        status, scored = api(server, "POST", "/api/v1/learning/modules/%d/attempts" % module["id"],
                             {"answers": [{"question_id": question["id"], "choice_ids": [choice]}]}, token=member["token"])
        assert status == 201, scored

    browser.get(server + "/analytics/learning?range=7d")
    assert "Feeding your newborn" in browser.page_source
    assert check_charts_keep_their_text_inside(browser) == 3
    check_accessibility(browser, "analytics learning")
    screenshot(browser, "analytics-learning")
