"""An administrator keeps the directory of help, and a member of that state finds it in the app."""

from selenium.webdriver.common.by import By

from conftest import check_accessibility, fill, screenshot, submit, text_of
from test_chat import register
from test_members import api
from test_sign_in import sign_in


def test_an_administrator_adds_changes_and_deletes_a_directory_entry(browser, server, admin):
    sign_in(browser, server, admin)
    browser.get(server + "/resources")
    check_accessibility(browser, "resources")
    browser.find_element(By.LINK_TEXT, "Add to the directory").click()
    fill(browser, "name", "Example: Ohio parents line")
    browser.find_element(By.ID, "kind-helpline").click()
    fill(browser, "phone", "555-0134")
    fill(browser, "hours", "Every day, 9am to 9pm")
    fill(browser, "description", "Peer support for parents in recovery.")
    browser.find_element(By.ID, "reach-states").click()
    fill(browser, "states", "OH, ZZ")
    submit(browser, "Add to the directory")
    summary = text_of(browser, "div.error-summary")
    assert "Enter a US phone number" in summary and "ZZ is not a US state code" in summary
    check_accessibility(browser, "resource with errors")
    screenshot(browser, "resource-errors")

    fill(browser, "phone", "(614) 555 0134")
    fill(browser, "states", "OH")
    submit(browser, "Add to the directory")
    assert "added to the directory" in browser.page_source
    table = text_of(browser, "table")
    assert "Example: Ohio parents line" in table and "614-555-0134" in table and "OH" in table
    check_accessibility(browser, "resources list")
    screenshot(browser, "resources")

    member = register(browser, server, "Directory_Wren")
    status, found = api(server, "GET", "/api/v1/resources", token=member["token"])
    assert status == 200
    # Registered without a state: nationwide entries only.
    assert all(entry["states"] == [] for entry in found["resources"])

    browser.get(server + "/resources?q=ohio")
    browser.find_element(By.PARTIAL_LINK_TEXT, "Delete").click()
    assert "Delete Example: Ohio parents line?" in text_of(browser, "h1")
    check_accessibility(browser, "delete resource")
    submit(browser, "Delete it")
    assert "deleted from the directory" in browser.page_source
