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
