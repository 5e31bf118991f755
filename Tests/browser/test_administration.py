"""The administrator's pages and a physician's registration, checked as a person sees them."""

from selenium.webdriver.common.by import By

from conftest import check_accessibility, fill, path_of, screenshot, submit, text_of
from test_sign_in import sign_in


def test_a_physician_registers_and_an_administrator_approves(browser, server, admin):
    # A physician registers, with a name that needs more than ASCII.
    browser.get(server + "/register")
    check_accessibility(browser, "register")
    screenshot(browser, "01-register")
    for field, value in {
        "username": "dr.nunez", "email": "nunez@clinic.example", "password": "quiet river evening walk",
        "password_confirmation": "quiet river evening walk", "first_name": "José", "last_name": "Núñez-Ødegård",
        "practice_location": "Riverside Movement Clinic", "practice_phone": "217-555-0188", "medical_id_number": "1234567890",
    }.items():
        fill(browser, field, value)
    submit(browser, "Register")
    assert path_of(browser) == "/register/received"
    check_accessibility(browser, "registration received")

    # The administrator finds the registration and approves it.
    sign_in(browser, server, admin)
    browser.get(server + "/staff?status=awaiting_approval")
    check_accessibility(browser, "staff list")
    screenshot(browser, "02-staff-list")
    browser.find_element(By.LINK_TEXT, "dr.nunez").click()
    assert "Núñez-Ødegård" in browser.page_source
    check_accessibility(browser, "staff account")
    screenshot(browser, "03-staff-account")
    submit(browser, "Approve registration")
    assert "is approved and can now sign in" in text_of(browser, "div.flash")

    for path, name in (("/audit", "audit log"), ("/outbox", "outbox"), ("/account/password", "change password")):
        browser.get(server + path)
        check_accessibility(browser, name)
        screenshot(browser, "04-" + name.replace(" ", "-"))
    browser.get(server + "/outbox")
    assert "A physician is waiting for approval" in browser.page_source
    browser.get(server + "/audit?action=physician_approved")
    assert "Physician approved" in browser.page_source


def test_an_administrator_makes_a_sign_up_code_to_read_over_the_phone(browser, server, admin):
    sign_in(browser, server, admin)
    browser.get(server + "/sign-up-codes")
    check_accessibility(browser, "sign-up codes")
    browser.find_element(By.LINK_TEXT, "Make a new code").click()
    fill(browser, "note", "phone ends 4821")
    check_accessibility(browser, "new sign-up code")
    submit(browser, "Make the code")
    code = text_of(browser, "div.panel__code")
    assert len(code) == 6 and not set(code) & set("0O1IL")
    check_accessibility(browser, "sign-up code shown")
    screenshot(browser, "sign-up-code")
    browser.get(server + "/sign-up-codes")
    assert "phone ends 4821" in browser.page_source
    assert code not in browser.page_source
    screenshot(browser, "sign-up-codes-list")
