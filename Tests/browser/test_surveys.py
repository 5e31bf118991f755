"""An administrator builds a survey with each kind of question, publishes it, members answer it through the
API, and the administrator reads the results and downloads them."""

import datetime
import re
import uuid
import zoneinfo

from selenium.webdriver.common.by import By

from conftest import check_accessibility, fill, screenshot, submit, text_of
from test_chat import register
from test_members import api
from test_sign_in import sign_in


def add_question(browser, kind_title, prompt, **fields):
    browser.find_element(By.LINK_TEXT, kind_title).click()
    fill(browser, "prompt", prompt)
    for field_id, value in fields.items():
        fill(browser, field_id, value)
    submit(browser, "Save question")
    assert "Question added." in browser.page_source


def test_an_administrator_builds_publishes_and_reads_a_survey(browser, server, admin):
    sign_in(browser, server, admin)
    wren = register(browser, server, "Survey_Wren")
    lark = register(browser, server, "Survey_Lark")

    browser.get(server + "/surveys")
    check_accessibility(browser, "surveys")
    browser.find_element(By.LINK_TEXT, "Create a survey").click()
    submit(browser, "Save and continue")
    summary = text_of(browser, "div.error-summary")
    for message in ["Enter a title", "Enter the first day it is open", "Enter the last day it is open", "Choose who the survey is for"]:
        assert message in summary
    check_accessibility(browser, "survey with errors")
    screenshot(browser, "survey-errors")

    # The program's clock (America/New_York unless an administrator chose another), not the machine's.
    today = datetime.datetime.now(zoneinfo.ZoneInfo("America/New_York")).date()
    last = today + datetime.timedelta(days=14)
    fill(browser, "title", "How are the group meetings going?")
    fill(browser, "introduction", "Four short questions. <b>Thank you!</b>")
    for prefix, day in (("opens_on", today), ("closes_on", last)):
        fill(browser, prefix + "_day", str(day.day))
        fill(browser, prefix + "_month", str(day.month))
        fill(browser, prefix + "_year", str(day.year))
    browser.find_element(By.ID, "audience-everyone").click()
    screenshot(browser, "survey-details")
    submit(browser, "Save and continue")
    assert "Survey created. Now add its questions." in browser.page_source
    assert "Four short questions. <b>Thank you!</b>" in text_of(browser, "dl.summary-list"), "the introduction is shown as typed, as text"

    add_question(browser, "Single choice", "How often do you come to the meetings?", choices="Every week\nMost weeks\nNot yet")
    add_question(browser, "Multiple choice", "What helps you most?", choices="Talking with other mums\nThe speakers\nPractical advice")
    browser.find_element(By.LINK_TEXT, "Scale from 1 to 5").click()
    fill(browser, "prompt", "How supported do you feel?")
    submit(browser, "Save question")
    assert "Enter what 1 means" in text_of(browser, "div.error-summary")
    check_accessibility(browser, "question with errors")
    fill(browser, "scale_low_label", "Not at all")
    fill(browser, "scale_high_label", "Very supported")
    submit(browser, "Save question")
    add_question(browser, "Short free text", "Anything you would change?", maximum_length="300")
    submit(browser, "Move up question 4")
    questions = [item.text for item in browser.find_elements(By.CSS_SELECTOR, "li.survey-questions__item h3")]
    assert questions[2] == "3. Anything you would change?" and questions[3] == "4. How supported do you feel?"
    check_accessibility(browser, "draft survey")
    screenshot(browser, "survey-draft")

    submit(browser, "Publish survey")
    # The shared test server also holds other tests' members: every one of them is told, these two among them.
    told = re.search(r"Survey published\. (\d+) members told it is open\.", browser.page_source)
    assert told and int(told.group(1)) >= 2, "the confirmation says how many members were told"
    check_accessibility(browser, "published survey")

    status, listing = api(server, "GET", "/api/v1/surveys", token=wren["token"])
    # The shared server may hold other tests' open surveys too: this one is found by its title.
    ours = [entry for entry in listing["surveys"] if entry["title"] == "How are the group meetings going?"] if status == 200 else []
    assert len(ours) == 1, "the member's app lists the published survey once"
    survey_id = ours[0]["id"]
    status, survey = api(server, "GET", "/api/v1/surveys/%d" % survey_id, token=wren["token"])
    ids = {question["kind"]: question["id"] for question in survey["questions"]}
    for session, choice, text in ((wren, 1, "Meet later, <script>alert('x')</script> please"), (lark, 3, "=1+2")):
        status, body = api(server, "POST", "/api/v1/surveys/%d/responses" % survey_id, {
            "client_id": str(uuid.uuid4()),
            "answers": [
                {"question_id": ids["single_choice"], "choice": choice},
                {"question_id": ids["multiple_choice"], "choices": [1, 2]},
                {"question_id": ids["scale"], "scale": 4},
                {"question_id": ids["text"], "text": text},
            ],
        }, token=session["token"])
        assert status == 201, body
    status, feed = api(server, "GET", "/api/v1/notifications", token=wren["token"])
    assert any(entry["kind"] == "survey_open" for entry in feed["notifications"])

    browser.refresh()
    assert "2 members answered this survey, so its questions can no longer change." in text_of(browser, "main")
    assert not browser.find_elements(By.XPATH, "//button[contains(., 'Move up')]")
    screenshot(browser, "survey-answered")

    browser.find_element(By.LINK_TEXT, "See the results").click()
    assert "2 responses" in text_of(browser, "main")
    tables = browser.find_elements(By.CSS_SELECTOR, "table.table")
    assert len(tables) == 3, "a table twin for each chart: two choice questions and the scale"
    assert "Every week\n1\n50%" in tables[0].text.replace(" ", "\n") or "Every week 1 50%" in tables[0].text
    assert len(browser.find_elements(By.CSS_SELECTOR, "figure.chart svg[role='img']")) == 3
    answers = text_of(browser, "ul.survey-answers")
    assert "<script>alert('x')</script>" in answers, "written answers are shown as text"
    assert not browser.execute_script("return window.__xss === true")
    check_accessibility(browser, "survey results")
    screenshot(browser, "survey-results")

    browser.find_element(By.PARTIAL_LINK_TEXT, "All 2 answers").click()
    assert "2 answers" in text_of(browser, "main")
    check_accessibility(browser, "written answers")
    screenshot(browser, "survey-written-answers")

    browser.get(server + "/surveys")
    assert "How are the group meetings going?" in text_of(browser, "table")
    screenshot(browser, "surveys")
