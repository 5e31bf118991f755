"""Staff accounts: an administrator invites a physician, who turns on two-factor sign-in and signs in
with a code; a forgotten password is asked for; an account is deleted."""

import base64
import hashlib
import hmac
import re
import struct
import time

from selenium.webdriver.common.by import By

from conftest import check_accessibility, create_first_administrator, fill, path_of, screenshot, submit, text_of
from test_sign_in import assert_error_next_to, error_summary_links, sign_in
from conftest import Account

PHYSICIAN = Account("dr.patel", "priya.patel@example.org", "quiet river morning walk")


def totp(key_text: str, step_offset: int = 0) -> str:
    """The code an authenticator app shows for the key typed from the page (RFC 6238, SHA-1, 6 digits)."""
    key = key_text.replace(" ", "")
    key = base64.b32decode(key + "=" * (-len(key) % 8))
    counter = int(time.time() // 30) + step_offset
    digest = hmac.new(key, struct.pack(">Q", counter), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    value = struct.unpack(">I", digest[offset:offset + 4])[0] & 0x7FFFFFFF
    return f"{value % 1_000_000:06d}"


def test_an_administrator_invites_a_physician_who_turns_on_two_factor_sign_in(browser, fresh_server):
    create_first_administrator(browser, fresh_server)
    browser.get(fresh_server + "/staff")
    browser.find_element(By.LINK_TEXT, "Invite a member of staff").click()
    check_accessibility(browser, "invite a member of staff")

    # Without a role: the summary links to the first radio, and what was typed is kept.
    fill(browser, "first_name", "Priya")
    fill(browser, "last_name", "Patel")
    fill(browser, "email", PHYSICIAN.email)
    submit(browser, "Send invitation")
    assert error_summary_links(browser) == ["#role"]
    assert browser.find_element(By.ID, "first_name").get_attribute("value") == "Priya"
    check_accessibility(browser, "invite a member of staff with an error")
    screenshot(browser, "01-invite-error")

    physician_radio = browser.find_element(By.CSS_SELECTOR, "input[name='role'][value='physician']")
    browser.find_element(By.CSS_SELECTOR, f"label[for='{physician_radio.get_attribute('id')}']").click()
    submit(browser, "Send invitation")
    # No mail server is set up: the link is shown once, to the administrator who made it.
    link = re.fullmatch(r"https?://\S+/invitation\?token=[A-Za-z0-9_-]+", text_of(browser, "#shown-once")).group(0)
    browser.find_element(By.LINK_TEXT, "Back to staff accounts").click()
    assert path_of(browser) == "/staff"
    assert link not in browser.page_source
    check_accessibility(browser, "staff accounts with an invitation")
    screenshot(browser, "02-staff-with-invitation")
    submit(browser, "Sign out")

    browser.get(link)
    assert not browser.find_elements(By.NAME, "avatar"), "only medical professionals choose an avatar"
    check_accessibility(browser, "set up a physician's account")
    fill(browser, "username", PHYSICIAN.username)
    fill(browser, "password", PHYSICIAN.password)
    fill(browser, "password_confirmation", PHYSICIAN.password)
    submit(browser, "Create my account")
    assert path_of(browser) == "/"
    assert "Signed in as dr.patel (Physician)" in text_of(browser, "header")

    # Turning on two-factor sign-in: a QR code drawn on the server, the key as text, a first code.
    browser.find_element(By.LINK_TEXT, "Two-factor sign-in").click()
    check_accessibility(browser, "two-factor sign-in off")
    submit(browser, "Set up two-factor sign-in")
    assert browser.find_elements(By.CSS_SELECTOR, "svg.qr-code title"), "no QR code"
    key = text_of(browser, "#secret-key")
    fill(browser, "code", "000000")
    submit(browser, "Turn on two-factor sign-in")
    assert error_summary_links(browser) == ["#code"]
    assert "not right" in assert_error_next_to(browser, "code")
    check_accessibility(browser, "set up two-factor sign-in with an error")
    screenshot(browser, "03-set-up-two-factor")
    fill(browser, "code", totp(key))
    submit(browser, "Turn on two-factor sign-in")
    assert text_of(browser, "h1") == "Save your recovery codes"
    codes = [element.text for element in browser.find_elements(By.CSS_SELECTOR, "#recovery-codes code")]
    assert len(codes) == 10 and all(re.fullmatch(r"[a-z2-9]{5}-[a-z2-9]{5}", code) for code in codes)
    check_accessibility(browser, "recovery codes")
    screenshot(browser, "04-recovery-codes")
    browser.find_element(By.LINK_TEXT, "I have saved my codes, continue").click()
    assert "On" in text_of(browser, "main")
    submit(browser, "Sign out")

    # Signing in: the password, then the code (the next step's: the one used above is spent).
    sign_in(browser, fresh_server, PHYSICIAN)
    assert path_of(browser) == "/sign-in/code"
    check_accessibility(browser, "sign-in code")
    screenshot(browser, "05-sign-in-code")
    fill(browser, "code", totp(key, step_offset=1))
    submit(browser, "Sign in")
    assert path_of(browser) == "/"
    assert "Signed in as dr.patel (Physician)" in text_of(browser, "header")
    submit(browser, "Sign out")


def test_forgotten_password_and_deleting_an_account(browser, fresh_server):
    create_first_administrator(browser, fresh_server)
    submit(browser, "Sign out")
    browser.find_element(By.LINK_TEXT, "Forgotten your password?").click()
    check_accessibility(browser, "forgotten password")
    fill(browser, "email", "nobody@example.org")
    submit(browser, "Send the link")
    assert text_of(browser, "h1") == "Check your email"
    check_accessibility(browser, "check your email")
    screenshot(browser, "01-check-your-email")

    # An administrator deletes an account by typing its username.
    sign_in(browser, fresh_server, Account("admin.demo", "admin@example.org", "correct horse battery staple"))
    browser.get(fresh_server + "/staff/invite?role=administrator")
    fill(browser, "first_name", "Sam")
    fill(browser, "last_name", "Second")
    fill(browser, "email", "sam@example.org")
    submit(browser, "Send invitation")
    link = re.fullmatch(r"https?://\S+/invitation\?token=[A-Za-z0-9_-]+", text_of(browser, "#shown-once")).group(0)
    submit(browser, "Sign out")
    browser.get(link)
    fill(browser, "username", "sam.second")
    fill(browser, "password", "quiet river morning walk")
    fill(browser, "password_confirmation", "quiet river morning walk")
    submit(browser, "Create my account")
    submit(browser, "Sign out")

    sign_in(browser, fresh_server, Account("admin.demo", "admin@example.org", "correct horse battery staple"))
    browser.get(fresh_server + "/staff")
    browser.find_element(By.LINK_TEXT, "sam.second").click()
    check_accessibility(browser, "staff account")
    screenshot(browser, "02-staff-account")
    browser.find_element(By.LINK_TEXT, "Delete this account").click()
    fill(browser, "username", "sam")
    submit(browser, "Delete the account")
    assert error_summary_links(browser) == ["#username"]
    check_accessibility(browser, "delete an account with an error")
    screenshot(browser, "03-delete-error")
    fill(browser, "username", "sam.second")
    submit(browser, "Delete the account")
    assert path_of(browser) == "/staff"
    assert "sam.second’s account has been deleted" in text_of(browser, "div.flash")
    assert not browser.find_elements(By.LINK_TEXT, "sam.second")
