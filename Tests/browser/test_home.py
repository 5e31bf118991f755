"""The administrators' home and the grouped navigation, at a wide window, a narrow one and 200% zoom."""

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import check_accessibility, check_charts_keep_their_text_inside, path_of, screenshot
from test_sign_in import sign_in

SIZES = {
    # name: (window width, window height, device scale factor)
    "wide": (1280, 900, 1),
    "narrow": (400, 900, 1),
    # A 1280px screen at 200% zoom: 640 CSS pixels across, each drawn twice as large.
    "zoomed": (640, 900, 2),
}


def _size(browser, name):
    width, height, scale = SIZES[name]
    browser.set_window_size(width, height)
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride", {"width": 0, "height": 0, "deviceScaleFactor": scale, "mobile": False}
    )


def _no_sideways_scrolling(browser, where):
    overflow = browser.execute_script("return document.documentElement.scrollWidth - window.innerWidth;")
    assert overflow <= 1, f"{where}: the page scrolls sideways by {overflow}px"


@pytest.mark.parametrize("size", list(SIZES))
def test_the_home_and_the_grouped_menus(browser, server, admin, size):
    _size(browser, size)
    sign_in(browser, server, admin)
    assert path_of(browser) == "/"

    # The overview: the figures each feature contributes, and sparklines that link into Analytics.
    labels = [element.text for element in browser.find_elements(By.CSS_SELECTOR, "dt.home-figure__label")]
    for label in ("Questions waiting for an answer", "Flagged posts waiting for review", "Reported messages waiting for review",
                  "Physicians waiting for approval", "Emails not delivered", "Members active in the last 7 days"):
        assert label in labels, f"{label} missing from {labels}"
    assert check_charts_keep_their_text_inside(browser) >= 2
    assert browser.find_elements(By.CSS_SELECTOR, "a[href='/analytics/activity']")
    _no_sideways_scrolling(browser, "home")
    check_accessibility(browser, f"home ({size})")
    screenshot(browser, f"01-home-{size}")

    # The People group opens from the keyboard, with no script, and each of its pages is one click away.
    summary = browser.find_element(By.XPATH, "//nav[@class='site-nav']//summary[starts-with(normalize-space(.), 'People')]")
    summary.send_keys(Keys.ENTER)
    details = summary.find_element(By.XPATH, "..")
    assert details.get_attribute("open") is not None
    members = details.find_element(By.LINK_TEXT, "Members")
    assert members.is_displayed()
    _no_sideways_scrolling(browser, "menu open")
    check_accessibility(browser, f"menu open ({size})")
    screenshot(browser, f"02-people-menu-{size}")
    # One group open at a time (details sharing a name): opening Community closes People.
    community = browser.find_element(By.XPATH, "//nav[@class='site-nav']//summary[starts-with(normalize-space(.), 'Community')]")
    community.click()
    assert community.find_element(By.XPATH, "..").get_attribute("open") is not None
    assert details.get_attribute("open") is None
    summary.click()
    members.click()
    assert path_of(browser) == "/members"

    # On the Members page its link is current and the People group is shown as the current section.
    current = browser.find_elements(By.CSS_SELECTOR, "nav.site-nav [aria-current='page']")
    assert [link.get_attribute("textContent").strip() for link in current] == ["Members"]
    assert browser.find_elements(By.CSS_SELECTOR, "summary.site-nav__summary--current")
    # Another group still opens from here.
    settings = browser.find_element(By.XPATH, "//nav[@class='site-nav']//summary[starts-with(normalize-space(.), 'Settings')]")
    settings.click()
    audit = settings.find_element(By.XPATH, "..").find_element(By.LINK_TEXT, "Audit log")
    assert audit.is_displayed()
    check_accessibility(browser, f"members with the settings menu open ({size})")
    screenshot(browser, f"03-settings-menu-{size}")
    audit.click()
    assert path_of(browser) == "/audit"
