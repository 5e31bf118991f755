"""Members talk in their cohort's room through the API; an administrator watches it live and moderates."""

import datetime
import time
import uuid

from selenium.webdriver.common.by import By

from conftest import check_accessibility, fill, screenshot, submit, text_of
from test_members import api
from test_sign_in import sign_in


def register(browser, server, pseudonym):
    browser.get(server + "/sign-up-codes/new")
    fill(browser, "note", "chat " + pseudonym)
    submit(browser, "Make the code")
    code = text_of(browser, "div.panel__code")
    _, program = api(server, "GET", "/api/v1/program")
    due = (datetime.date.today() + datetime.timedelta(days=200)).isoformat()
    status, session = api(server, "POST", "/api/v1/registrations", {
        "sign_up_code": code.lower(), "pseudonym": pseudonym, "password": "Sunrise#2027", "avatar": "sun",
        "due_date": due, "recovery_email": pseudonym.lower() + "@example.org",
        "security_question": program["security_questions"][0], "security_answer": "Biscuit",
    })
    assert status == 201, session
    return session


def say(server, session, text):
    status, message = api(server, "POST", "/api/v1/chat/messages", {"body": text, "client_id": str(uuid.uuid4())},
                          token=session["token"])
    assert status == 201, message
    return message


def test_an_administrator_watches_a_room_live_and_moderates_it(browser, server, admin):
    sign_in(browser, server, admin)
    heron = register(browser, server, "Chat_Heron")
    finch = register(browser, server, "Chat_Finch")
    say(server, heron, "Is anyone else's clinic closed on Friday? https://example.org/hours")
    spam = say(server, finch, "Cheap pills, message me <b>now</b>")
    status, _ = api(server, "POST", "/api/v1/moods", {"mood": "overwhelmed", "client_id": "mood-1"}, token=heron["token"])
    assert status == 201
    status, _ = api(server, "POST", "/api/v1/chat/messages/%d/reports" % spam["id"], {"reason": "Selling medicines"},
                    token=heron["token"])
    assert status == 204

    browser.get(server + "/chat")
    assert "Reports waiting for review (1)" in browser.page_source
    check_accessibility(browser, "chat rooms")
    screenshot(browser, "chat-rooms")

    browser.find_element(By.LINK_TEXT, heron["member"]["cohort"]["name"]).click()
    room = text_of(browser, "#chat-messages")
    assert "Is anyone else's clinic closed on Friday?" in room
    assert "Cheap pills, message me <b>now</b>" in room, "what a member typed is shown as text"
    assert "is feeling overwhelmed or frustrated" in room

    # A new message appears without reloading the page.
    say(server, finch, "Mine is open until noon")
    deadline = time.time() + 10
    while "Mine is open until noon" not in text_of(browser, "#chat-messages") and time.time() < deadline:
        time.sleep(0.5)
    assert "Mine is open until noon" in text_of(browser, "#chat-messages")
    check_accessibility(browser, "chat room")
    screenshot(browser, "chat-room-live")

    # The reports queue: remove the reported message with a reason.
    browser.get(server + "/chat/reports")
    assert "Selling medicines" in browser.page_source
    check_accessibility(browser, "chat reports")
    screenshot(browser, "chat-reports")
    browser.find_element(By.LINK_TEXT, "Remove the message").click()
    submit(browser, "Remove the message")
    assert "Enter the reason" in text_of(browser, "div.error-summary")
    check_accessibility(browser, "remove message with an error")
    fill(browser, "reason", "Selling medicines")
    submit(browser, "Remove the message")
    assert "No reports are waiting" in browser.page_source
    status, page = api(server, "GET", "/api/v1/chat", token=heron["token"])
    removed = [m for m in page["messages"] if m["id"] == spam["id"]][0]
    assert removed["removed"] and removed["removed_notice"] == "Removed by a moderator"

    # Settings: the retention choices and the plain warning.
    browser.get(server + "/chat/settings")
    assert "does not bring back messages already deleted" in browser.page_source
    check_accessibility(browser, "chat settings")
    screenshot(browser, "chat-settings")
