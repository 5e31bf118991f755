"""An administrator writes a week of the baby's development and sets what activities earn."""

from selenium.webdriver.common.by import By

from conftest import check_accessibility, fill, screenshot, submit, text_of
from test_sign_in import sign_in


def test_an_administrator_writes_a_week_and_sets_the_points(browser, server, admin):
    sign_in(browser, server, admin)
    browser.get(server + "/learning")
    check_accessibility(browser, "learning")
    browser.find_element(By.XPATH, "//a[span[normalize-space()='week 20']]").click()
    fill(browser, "size", "")
    submit(browser, "Save week 20")
    assert "Enter the baby" in text_of(browser, "div.error-summary")
    check_accessibility(browser, "week with errors")
    fill(browser, "size", "About the size of a banana")
    fill(browser, "mother", "You are halfway. A mid-pregnancy scan is often offered around now.")
    fill(browser, "baby", "The baby swallows and practises the movements it will need for feeding.")
    screenshot(browser, "baby-week")
    submit(browser, "Save week 20")
    assert "Week 20 saved." in browser.page_source
    assert "About the size of a banana" in text_of(browser, "table")
    screenshot(browser, "learning")

    browser.find_element(By.LINK_TEXT, "Change the points").click()
    fill(browser, "module_completed", "lots")
    submit(browser, "Save the points")
    assert "Enter a whole number of points from 0 to 100" in text_of(browser, "div.error-summary")
    check_accessibility(browser, "points with errors")
    fill(browser, "module_completed", "15")
    submit(browser, "Save the points")
    assert "Points saved." in browser.page_source


def choose(browser, radio_id):
    browser.find_element(By.ID, radio_id).click()


def test_an_administrator_writes_a_module_with_a_quiz_previews_and_publishes_it(browser, server, admin):
    from test_chat import register
    from test_members import api

    sign_in(browser, server, admin)
    session = register(browser, server, "Learning_Wren")

    # A video link first, so the module can show it.
    browser.get(server + "/learning/videos/new")
    check_accessibility(browser, "new video")
    fill(browser, "title", "Safe sleep for your baby")
    fill(browser, "category", "Caring for your baby")
    fill(browser, "length", "4:30")
    fill(browser, "description", "How to lay your baby down to sleep.")
    choose(browser, "source-link")
    fill(browser, "url", "http://videos.example.org/safe-sleep")
    choose(browser, "stage-all")
    choose(browser, "status-published")
    submit(browser, "Save video")
    assert "Enter the video’s address, starting with https://" in text_of(browser, "div.error-summary")
    check_accessibility(browser, "video with errors")
    fill(browser, "url", "https://videos.example.org/safe-sleep")
    submit(browser, "Save video")
    assert "Safe sleep for your baby is saved." in browser.page_source
    screenshot(browser, "videos")

    browser.get(server + "/learning")
    browser.find_element(By.LINK_TEXT, "Learning modules").click()
    browser.find_element(By.LINK_TEXT, "Write a module").click()
    submit(browser, "Save module")
    assert "Enter the module’s title" in text_of(browser, "div.error-summary")
    check_accessibility(browser, "module with errors")
    fill(browser, "title", "Eating well in pregnancy")
    fill(browser, "category", "Nutrition")
    fill(browser, "position", "1")
    fill(browser, "summary", "What to eat more of, and what to avoid.")
    fill(browser, "body", "## What helps\n\n- Fruit and vegetables\n- **Folic acid** until week 12\n\n<script>alert(1)</script>")
    fill(browser, "links", "Healthy eating | https://www.nhs.uk/pregnancy/keeping-well/have-a-healthy-diet/")
    browser.find_element(By.CSS_SELECTOR, "#video_id option:nth-child(2)").click()
    choose(browser, "stage-all")
    choose(browser, "status-draft")
    submit(browser, "Preview")
    preview = text_of(browser, "section.preview")
    assert "Folic acid" in preview and "alert(1)" not in preview
    check_accessibility(browser, "module preview")
    screenshot(browser, "module-preview")
    submit(browser, "Save module")
    assert "Eating well in pregnancy is saved." in browser.page_source

    browser.find_element(By.LINK_TEXT, "Add a question").click()
    fill(browser, "prompt", "Which are good sources of protein?")
    fill(browser, "choice_1", "Beans")
    fill(browser, "choice_2", "Eggs")
    fill(browser, "choice_3", "Cola")
    submit(browser, "Save question")
    assert "Tick at least one correct answer" in text_of(browser, "div.error-summary")
    check_accessibility(browser, "question with errors")
    browser.find_element(By.ID, "correct_1").click()
    browser.find_element(By.ID, "correct_2").click()
    fill(browser, "explanation", "Beans and eggs both give protein; cola gives sugar.")
    screenshot(browser, "question")
    submit(browser, "Save question")
    assert "The question is saved." in browser.page_source
    assert "Correct: Beans; Eggs" in text_of(browser, "main")

    # Not shown to members while it is a draft.
    status, center = api(server, "GET", "/api/v1/learning", token=session["token"])
    assert status == 200
    assert "Eating well in pregnancy" not in str(center)

    choose(browser, "status-published")
    submit(browser, "Save module")
    assert "Eating well in pregnancy is saved and published." in browser.page_source
    check_accessibility(browser, "modules")
    screenshot(browser, "modules")

    status, center = api(server, "GET", "/api/v1/learning", token=session["token"])
    modules = [module for category in center["categories"] for module in category["modules"]]
    module = next(module for module in modules if module["title"] == "Eating well in pregnancy")
    assert module["question_count"] == 1 and not module["completed"]
    status, content = api(server, "GET", "/api/v1/learning/modules/%d" % module["id"], token=session["token"])
    assert status == 200 and "<script" not in content["body_html"]
    assert content["video"]["kind"] == "link" and content["video"]["url"] == "https://videos.example.org/safe-sleep"
    question = content["questions"][0]
    beans, eggs = question["choices"][0]["id"], question["choices"][1]["id"]
    status, scored = api(server, "POST", "/api/v1/learning/modules/%d/attempts" % module["id"],
                         {"answers": [{"question_id": question["id"], "choice_ids": [beans, eggs]}]}, token=session["token"])
    assert status == 201 and scored["percent"] == 100 and scored["points_awarded"] > 0
    status, feed = api(server, "GET", "/api/v1/notifications", token=session["token"])
    assert any(entry["kind"] == "learning_new_module" for entry in feed["notifications"])
