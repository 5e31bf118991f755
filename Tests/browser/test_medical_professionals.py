"""An administrator invites a medical professional, who sets up the account from the emailed link."""

import re

from selenium.webdriver.common.by import By

from conftest import check_accessibility, fill, follow_navigation, path_of, screenshot, submit, text_of
from test_sign_in import assert_error_next_to, error_summary_links, sign_in


def test_an_invited_medical_professional_sets_up_their_account(browser, server, admin):
    sign_in(browser, server, admin)
    follow_navigation(browser, "Medical professionals")
    check_accessibility(browser, "medical professionals")
    browser.find_element(By.LINK_TEXT, "Invite a medical professional").click()

    # A date that does not exist is explained beside the date of birth, and what was typed is kept.
    for field, value in {
        "first_name": "Amira", "last_name": "Haddad", "date_of_birth_day": "31", "date_of_birth_month": "4",
        "date_of_birth_year": "1984", "email": "amira.haddad@example.org",
    }.items():
        fill(browser, field, value)
    submit(browser, "Send invitation")
    assert error_summary_links(browser) == ["#date_of_birth_day"]
    assert "Date of birth must be a real date" in text_of(browser, "#date_of_birth-error")
    fill(browser, "email", "amira.haddad")
    submit(browser, "Send invitation")
    assert error_summary_links(browser) == ["#date_of_birth_day", "#email"]
    assert "like name@example.com" in assert_error_next_to(browser, "email")
    fill(browser, "email", "amira.haddad@example.org")
    assert browser.find_element(By.ID, "first_name").get_attribute("value") == "Amira"
    check_accessibility(browser, "invite with an error")
    screenshot(browser, "01-invite-error")

    fill(browser, "date_of_birth_day", "11")
    fill(browser, "date_of_birth_month", "2")
    submit(browser, "Send invitation")
    # No mail server is set up: the link is shown once, to the administrator who made it.
    assert "Amira Haddad is invited" in text_of(browser, "h1")
    link = re.fullmatch(r"https?://\S+/invitation\?token=[A-Za-z0-9_-]+", text_of(browser, "#shown-once")).group(0)
    check_accessibility(browser, "invitation link shown once")
    screenshot(browser, "02-link-shown-once")

    # The outbox keeps the email, its link masked.
    browser.get(server + "/outbox")
    browser.find_element(By.PARTIAL_LINK_TEXT, "Your invitation to").click()
    assert "/invitation?token=••••••••" in text_of(browser, "pre")
    assert link.split("=")[-1] not in browser.page_source
    browser.get(server + "/medical-professionals")
    check_accessibility(browser, "medical professionals with an invitation")
    screenshot(browser, "02-invitations")
    submit(browser, "Sign out")

    browser.get(link)
    check_accessibility(browser, "set up your account")
    fill(browser, "username", "nurse.amira")
    fill(browser, "password", "quiet river morning walk")
    fill(browser, "password_confirmation", "quiet river morning walk")
    submit(browser, "Create my account")
    assert error_summary_links(browser) == ["#avatar"]
    assert browser.find_element(By.ID, "username").get_attribute("value") == "nurse.amira"
    check_accessibility(browser, "set up your account with an error")
    screenshot(browser, "03-accept-error")

    browser.find_element(By.CSS_SELECTOR, "label[for='avatar-3']").click()
    fill(browser, "password", "quiet river morning walk")
    fill(browser, "password_confirmation", "quiet river morning walk")
    fill(browser, "bio", "Parkinson's nurse. Ask me about <medication>.")
    submit(browser, "Create my account")
    assert path_of(browser) == "/desk"
    assert "Signed in as nurse.amira (Medical professional)" in text_of(browser, "header")
    screenshot(browser, "04-signed-in")

    # The link works once.
    submit(browser, "Sign out")
    browser.get(link)
    assert "This invitation link cannot be used" in text_of(browser, "h1")
    check_accessibility(browser, "invitation link cannot be used")

    # Only the administrator sees the real name and date of birth.
    sign_in(browser, server, admin)
    browser.get(server + "/medical-professionals")
    browser.find_element(By.LINK_TEXT, "nurse.amira").click()
    page = text_of(browser, "main")
    assert "Amira Haddad" in page and "11 February 1984" in page
    assert "Ask me about <medication>." in page
    check_accessibility(browser, "medical professional's staff account")
    screenshot(browser, "05-staff-account")
