"""The pages staff see when something fails, in a real browser: screenshots and axe (docs/faults.md)."""

from __future__ import annotations

import importlib.util
import sys

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import REPO_ROOT, fill

# The browser tests' own helpers (driver, screenshots, axe), loaded under a name of their own.
_spec = importlib.util.spec_from_file_location("browser_support", REPO_ROOT / "Tests" / "browser" / "conftest.py")
browser_support = importlib.util.module_from_spec(_spec)
sys.modules["browser_support"] = browser_support
_spec.loader.exec_module(browser_support)


@pytest.fixture
def browser():
    driver = browser_support._new_driver()
    yield driver
    driver.quit()


def heading(driver) -> str:
    WebDriverWait(driver, 15).until(lambda d: d.execute_script("return document.readyState") == "complete")
    return driver.find_element(By.TAG_NAME, "h1").text


def submit_sign_in(driver) -> None:
    driver.execute_script("document.querySelector('form.form').submit()")
    WebDriverWait(driver, 15).until(lambda d: "/sign-in" in d.current_url)


def test_a_form_too_large_to_send_is_explained(make_server, browser):
    server = make_server("page-too-large")
    server.start()
    browser.get(server.url("/sign-in"))
    # 2 MB in a hidden field: more than any portal form without files may send.
    browser.execute_script(
        "const field = document.createElement('textarea'); field.name = 'padding'; field.hidden = true;"
        "field.value = 'a'.repeat(2 * 1024 * 1024); document.querySelector('form.form').appendChild(field);"
    )
    browser.execute_script("document.querySelector('form.form').submit()")
    WebDriverWait(browser, 15).until(lambda d: "too large" in d.find_element(By.TAG_NAME, "body").text)
    assert heading(browser) == "That was too large to send"
    assert "Make it smaller and try again." in browser.find_element(By.TAG_NAME, "main").text
    browser_support.screenshot(browser, "too-large")
    browser_support.check_accessibility(browser, "too-large")


def test_postgresql_away_is_explained(make_server, postgres_cluster, browser):
    server = make_server("page-unavailable", database_url=postgres_cluster.url)
    server.start()
    browser.get(server.url("/sign-in"))
    postgres_cluster.stop("fast")
    # The sign-in form stores and reads nothing, so it still opens; the front door asks the database.
    browser.get(server.url("/sign-in"))
    assert heading(browser) == "Sign in"
    browser.get(server.url("/"))
    assert heading(browser) == "Sorry, the service is unavailable for a moment"
    text = browser.find_element(By.TAG_NAME, "main").text
    assert "What you were doing may not have been saved" in text
    assert "PSQLError" not in browser.page_source
    browser_support.screenshot(browser, "unavailable")
    browser_support.check_accessibility(browser, "unavailable")
    postgres_cluster.start()
    # Back, with no restart of the server.
    WebDriverWait(browser, 60, poll_frequency=1).until(
        lambda d: d.get(server.url("/")) or d.find_element(By.TAG_NAME, "h1").text != "Sorry, the service is unavailable for a moment"
    )
    assert server.starts == 1


def test_a_full_disk_is_explained(make_server, small_disk, browser):
    server = make_server("page-disk-full", data_dir=small_disk)
    server.start()
    browser.get(server.url("/sign-in"))
    browser_support.fill(browser, "username", "nobody.here")
    browser_support.fill(browser, "password", "not the password at all")
    filler = fill(small_disk)
    # A sign-in attempt is recorded (the throttle, the audit log): with no room, it cannot be.
    for _ in range(20):
        submit_sign_in(browser)
        if heading(browser) != "Sign in":
            break
        browser_support.fill(browser, "username", "nobody.here")
        browser_support.fill(browser, "password", "not the password at all")
    assert heading(browser) == "Sorry, the service has run out of storage space"
    assert "Nothing was saved from this request" in browser.find_element(By.TAG_NAME, "main").text
    browser_support.screenshot(browser, "storage-full")
    browser_support.check_accessibility(browser, "storage-full")
    filler.unlink()
