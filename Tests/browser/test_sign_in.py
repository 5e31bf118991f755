"""First run, sign in and sign out, as a person does them in a browser."""

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import (
    ADMIN,
    check_accessibility,
    fill,
    http_status,
    path_of,
    screenshot,
    submit,
    text_of,
)

SETUP_FIELDS = ("username", "email", "password", "password_confirmation")


def sign_in(driver, base_url, account):
    driver.get(base_url + "/sign-in")
    fill(driver, "username", account.username)
    fill(driver, "password", account.password)
    submit(driver, "Sign in")


def error_summary_links(driver):
    """The fragments the error summary links to, e.g. ["#username", "#password"]."""
    summary = driver.find_elements(By.CSS_SELECTOR, "div.error-summary")
    assert summary, f"no div.error-summary on {driver.current_url}"
    links = summary[0].find_elements(By.CSS_SELECTOR, "ul.error-summary__list > li > a")
    return ["#" + link.get_attribute("href").split("#", 1)[-1] for link in links]


def assert_error_next_to(driver, field_id):
    """The field's form group is marked and holds a p.error-message the field points to."""
    field = driver.find_element(By.ID, field_id)
    group = field.find_element(By.XPATH, "ancestor::div[contains(@class, 'form-group')][1]")
    assert "form-group--error" in group.get_attribute("class").split(), (
        f"the form group of #{field_id} has no form-group--error"
    )
    messages = group.find_elements(By.CSS_SELECTOR, "p.error-message")
    assert messages, f"no p.error-message next to #{field_id}"
    message = messages[0]
    assert message.find_elements(By.CSS_SELECTOR, "span.visually-hidden"), (
        f"the error message of #{field_id} lacks its visually hidden 'Error:'"
    )
    described_by = (field.get_attribute("aria-describedby") or "").split()
    assert message.get_attribute("id") and message.get_attribute("id") in described_by, (
        f"#{field_id} is not aria-describedby its error message"
    )
    return message.text


def assert_no_error_next_to(driver, field_id):
    field = driver.find_element(By.ID, field_id)
    group = field.find_element(By.XPATH, "ancestor::div[contains(@class, 'form-group')][1]")
    assert not group.find_elements(By.CSS_SELECTOR, "p.error-message"), (
        f"unexpected error next to #{field_id}"
    )


def test_first_run_creates_the_administrator_then_setup_is_gone(browser, fresh_server):
    # An empty database sends everyone to set-up.
    browser.get(fresh_server + "/")
    assert path_of(browser) == "/setup"
    assert text_of(browser, "h1") == "Create the first administrator account"
    for field_id in SETUP_FIELDS:
        field = browser.find_element(By.ID, field_id)
        assert field.get_attribute("name") == field_id
    assert browser.find_element(By.ID, "password").get_attribute("type") == "password"
    assert browser.find_element(By.ID, "password_confirmation").get_attribute("type") == "password"
    check_accessibility(browser, "setup")
    screenshot(browser, "01-setup-empty")

    # Submitting nothing: a summary on top linking to each field, a message next to each.
    submit(browser, "Create administrator account")
    assert path_of(browser) == "/setup"
    assert browser.title.startswith("Error: "), f"title {browser.title!r} lacks 'Error: '"
    links = error_summary_links(browser)
    for field_id in ("username", "email", "password"):
        assert f"#{field_id}" in links, f"error summary has no link to #{field_id}: {links}"
        assert_error_next_to(browser, field_id)
    check_accessibility(browser, "setup with errors")
    screenshot(browser, "02-setup-errors")

    # Only the password is wrong: the rest is kept, the password is not sent back.
    fill(browser, "username", ADMIN.username)
    fill(browser, "email", ADMIN.email)
    fill(browser, "password", "short")
    fill(browser, "password_confirmation", "short")
    submit(browser, "Create administrator account")
    assert error_summary_links(browser) == ["#password"]
    assert_error_next_to(browser, "password")
    assert_no_error_next_to(browser, "username")
    assert browser.find_element(By.ID, "username").get_attribute("value") == ADMIN.username
    assert browser.find_element(By.ID, "email").get_attribute("value") == ADMIN.email
    assert browser.find_element(By.ID, "password").get_attribute("value") == ""
    check_accessibility(browser, "setup with a short password")
    screenshot(browser, "03-setup-short-password")

    # Valid values: signed in as the new administrator.
    fill(browser, "password", ADMIN.password)
    fill(browser, "password_confirmation", ADMIN.password)
    submit(browser, "Create administrator account")
    assert path_of(browser) == "/"
    assert ADMIN.username in text_of(browser, "span.site-header__user")
    check_accessibility(browser, "home")
    screenshot(browser, "04-home")

    # Set-up cannot be reached any more, signed in or not.
    browser.get(fresh_server + "/setup")
    assert text_of(browser, "h1") == "Page not found"
    assert http_status(fresh_server + "/setup") == 404


def test_signing_out_ends_the_session(browser, server, admin):
    sign_in(browser, server, admin)
    assert admin.username in text_of(browser, "span.site-header__user")

    sign_out = browser.find_elements(
        By.XPATH,
        "//form[contains(concat(' ', normalize-space(@class), ' '), ' inline-form ')]"
        "//button[normalize-space(.)='Sign out']",
    )
    assert sign_out, "no 'Sign out' button in a form.inline-form"
    submit(browser, "Sign out")
    assert path_of(browser) == "/sign-in"
    assert "You have signed out" in text_of(browser, "div.flash")
    assert not browser.find_elements(By.CSS_SELECTOR, "span.site-header__user")
    screenshot(browser, "01-signed-out")

    # The old session no longer opens the home page.
    browser.get(server + "/")
    assert path_of(browser) == "/sign-in"


def test_sign_in_with_wrong_then_right_password(browser, server, admin):
    browser.get(server + "/sign-in")
    assert text_of(browser, "h1") == "Sign in"
    assert browser.find_element(By.ID, "username").get_attribute("name") == "username"
    assert browser.find_element(By.ID, "password").get_attribute("name") == "password"
    assert browser.find_element(By.ID, "password").get_attribute("type") == "password"
    check_accessibility(browser, "sign-in")
    screenshot(browser, "01-sign-in")

    fill(browser, "username", admin.username)
    fill(browser, "password", admin.password + " but wrong")
    submit(browser, "Sign in")
    assert path_of(browser) == "/sign-in"
    assert "The username or password is not right" in text_of(browser, "div.error-summary")
    assert browser.find_element(By.ID, "username").get_attribute("value") == admin.username
    assert browser.find_element(By.ID, "password").get_attribute("value") == ""
    assert not browser.find_elements(By.CSS_SELECTOR, "span.site-header__user")
    check_accessibility(browser, "sign-in with error")
    screenshot(browser, "02-sign-in-error")

    fill(browser, "password", admin.password)
    submit(browser, "Sign in")
    assert path_of(browser) == "/"
    assert admin.username in text_of(browser, "span.site-header__user")
    nav_links = [
        link.get_attribute("textContent").strip()
        for link in browser.find_elements(By.CSS_SELECTOR, "nav.site-nav a")
    ]
    assert "Staff accounts" in nav_links, f"navigation: {nav_links}"
    current = browser.find_elements(By.CSS_SELECTOR, "nav.site-nav [aria-current='page']")
    assert len(current) <= 1, "more than one navigation link is marked current"
    check_accessibility(browser, "home")
    screenshot(browser, "03-home")


def test_skip_link_is_the_first_tab_stop_and_is_visible(browser, server, admin):
    browser.get(server + "/sign-in")
    ActionChains(browser).send_keys(Keys.TAB).perform()
    focused = browser.switch_to.active_element
    assert "skip-link" in (focused.get_attribute("class") or "").split()
    assert focused.get_attribute("href").endswith("#main")
    assert browser.find_elements(By.CSS_SELECTOR, "main#main")
    size = focused.size
    assert size["width"] > 40 and size["height"] > 20, f"focused skip link is {size}"
    screenshot(browser, "01-skip-link-focused")


def test_a_sign_in_link_whose_return_path_holds_a_tab_stays_on_the_site(browser, server, admin):
    # The link as an outsider would send it: a tab between the slashes, which a browser drops.
    browser.get(server + "/sign-in?next=/%09/evil.example")
    assert path_of(browser) == "/sign-in"
    check_accessibility(browser, "sign-in-with-return-path")
    fill(browser, "username", admin.username)
    fill(browser, "password", admin.password)
    submit(browser, "Sign in")
    assert browser.current_url.startswith(server + "/"), f"left the site for {browser.current_url}"
    assert path_of(browser) == "/"
    assert browser.find_elements(By.CSS_SELECTOR, "span.site-header__user")
    screenshot(browser, "sign-in-return-path-stays-home")
    # Signed in, the same link goes home too.
    browser.get(server + "/sign-in?next=/%09/evil.example")
    assert browser.current_url.startswith(server + "/") and path_of(browser) == "/"
    browser.get(server + "/sign-in?next=/%5C%5Cevil.example")
    assert browser.current_url.startswith(server + "/") and path_of(browser) == "/"
