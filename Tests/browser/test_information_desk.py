"""A medical professional answers the oldest waiting question, previews her answer, posts it and
marks it accepted; the member app then shows the accepted answer."""

import datetime
import subprocess

from selenium.webdriver.common.by import By

from conftest import _server_binary, check_accessibility, fill, path_of, screenshot, submit, text_of
from test_members import api
from test_sign_in import sign_in


class Account:
    def __init__(self, username, password):
        self.username = username
        self.password = password


def careportal(server, *arguments, stdin=None):
    """Runs a careportal command against the server's own database, as an operator would."""
    result = subprocess.run(
        [str(_server_binary()), *arguments, "--database-url", f"sqlite://{server.data_dir}/careportal.sqlite"],
        input=stdin, capture_output=True, text=True, timeout=60, check=True,
    )
    return result.stdout.strip()


def test_a_medical_professional_answers_the_oldest_question_and_the_app_shows_it(browser, server_factory):
    server = server_factory("information-desk")
    base = server.base_url
    careportal(server, "create-user", "--role", "administrator", "--username", "desk.admin", stdin="desk admin passphrase\n")
    nurse = Account("nurse.joy", "gentle morning river walk")
    careportal(server, "create-user", "--role", "medical_professional", "--username", nurse.username,
               "--email", "joy@clinic.example", stdin=nurse.password + "\n")
    code = careportal(server, "create-sign-up-code", "--by", "desk.admin")

    # A member registers in the app and asks two questions, the first anonymously.
    _, program = api(base, "GET", "/api/v1/program")
    due = (datetime.date.today() + datetime.timedelta(days=120)).isoformat()
    status, session = api(base, "POST", "/api/v1/registrations", {
        "sign_up_code": code, "pseudonym": "Brave_Wren", "password": "Sunrise#2027", "due_date": due,
        "recovery_email": "wren@example.org", "security_question": program["security_questions"][0], "security_answer": "Biscuit",
    })
    assert status == 201, session
    token = session["token"]
    status, oldest = api(base, "POST", "/api/v1/threads", {
        "title": "Can I breastfeed while on methadone?",
        "body": "I'm 32 weeks along and stable on my dose. Will breastfeeding **hurt** the baby?", "anonymous": True,
    }, token=token)
    assert status == 201, oldest
    status, newer = api(base, "POST", "/api/v1/threads", {"title": "Trouble sleeping", "body": "I wake at 3am every night."}, token=token)
    assert status == 201, newer

    # She signs in and lands on the information desk, oldest waiting question first.
    sign_in(browser, base, nurse)
    assert path_of(browser) == "/desk"
    titles = [link.text for link in browser.find_elements(By.CSS_SELECTOR, ".thread-list__title a")]
    assert titles == ["Can I breastfeed while on methadone?", "Trouble sleeping"]
    first_row = browser.find_elements(By.CSS_SELECTOR, ".thread-list__item")[0].text
    assert "Asked by Anonymous" in first_row and "Brave_Wren" not in first_row
    check_accessibility(browser, "information desk")
    screenshot(browser, "01-desk")

    browser.find_element(By.LINK_TEXT, titles[0]).click()
    assert path_of(browser) == f"/desk/threads/{oldest['id']}"
    check_accessibility(browser, "thread")

    # An empty reply is explained beside the box.
    submit(browser, "Post reply")
    assert "Enter your reply" in text_of(browser, "#body-error")
    check_accessibility(browser, "thread with an error")

    answer = "Yes, for most women on a **stable dose** breastfeeding is encouraged: only a little passes into milk."
    fill(browser, "body", answer)
    submit(browser, "Preview")
    assert "stable dose" in text_of(browser, "section.preview strong")
    assert browser.find_element(By.ID, "body").get_attribute("value") == answer
    check_accessibility(browser, "reply preview")
    screenshot(browser, "02-preview")

    submit(browser, "Post reply")
    assert "Your reply has been posted" in text_of(browser, "div.flash")
    submit(browser, "Mark as accepted answer")
    assert "Marked as the accepted answer" in text_of(browser, "div.flash")
    assert "Accepted answer" in text_of(browser, "article.post--accepted")
    check_accessibility(browser, "thread with an accepted answer")
    screenshot(browser, "03-accepted")

    # The member app shows the accepted answer.
    status, thread = api(base, "GET", f"/api/v1/threads/{oldest['id']}", token=token)
    assert status == 200
    accepted = [reply for reply in thread["replies"] if reply["is_accepted"]]
    assert thread["accepted_reply_id"] == accepted[0]["id"]
    assert "<strong>stable dose</strong>" in accepted[0]["body_html"]
    assert accepted[0]["author"]["name"] == nurse.username and accepted[0]["author"]["role"] == "Medical professional"
    status, feed = api(base, "GET", "/api/v1/notifications", token=token)
    assert {entry["kind"] for entry in feed["notifications"]} == {"reply", "accepted_answer"}

    # The answered question has left the waiting list.
    browser.get(base + "/desk")
    titles = [link.text for link in browser.find_elements(By.CSS_SELECTOR, ".thread-list__title a")]
    assert titles == ["Trouble sleeping"]
