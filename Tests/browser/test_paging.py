"""An administrator pages through a long members list by its First, Previous, Next and Last links,
bookmarks a page, and is told plainly when a page link has been changed or is an old page number
too deep to open."""

import sqlite3
import time

from selenium.webdriver.common.by import By

from conftest import check_accessibility, create_first_administrator, path_of, screenshot, text_of

MEMBERS = 60


def add_members(server) -> None:
    """Sixty members straight into the server's database, as an import would."""
    db = sqlite3.connect(server.data_dir / "careportal.sqlite", timeout=10)
    now = int(time.time() * 1000)
    db.execute("INSERT INTO cohorts (due_month, created_at) VALUES ('2027-05', ?)", (now,))
    cohort = db.execute("SELECT id FROM cohorts WHERE due_month = '2027-05'").fetchone()[0]
    db.executemany(
        """INSERT INTO members (pseudonym, pseudonym_key, password_hash, avatar, due_date, cohort_id, recovery_email,
        recovery_email_key, security_question, security_answer_hash, bio, status, created_at, updated_at, last_active_at)
        VALUES (?, ?, 'x', 'sun', '2027-05-15', ?, ?, ?, 'Q', 'x', '', 'active', ?, ?, ?)""",
        [(f"Paging_{n:02d}", f"paging_{n:02d}", cohort, f"p{n}@example.org", f"p{n}@example.org", now - n, now - n, now - n)
         for n in range(1, MEMBERS + 1)],
    )
    db.commit()
    db.close()


def summary(browser) -> str:
    return text_of(browser, "p.pagination__summary")


def test_an_administrator_pages_through_members_and_bookmarks_a_page(browser, server_factory):
    server = server_factory("paging")
    create_first_administrator(browser, server.base_url)
    add_members(server)

    browser.get(server.url("/members?sort=pseudonym&order=asc"))
    assert summary(browser) == f"Showing 1 to 25 of {MEMBERS} members"
    assert not browser.find_elements(By.LINK_TEXT, "Previous page") and not browser.find_elements(By.CSS_SELECTOR, "a.pagination__prev")
    check_accessibility(browser, "members list, first page")
    screenshot(browser, "members-first-page")

    browser.find_element(By.CSS_SELECTOR, "a.pagination__next").click()
    assert summary(browser) == f"Showing 26 to 50 of {MEMBERS} members"
    assert "after=" in browser.current_url and "sort=pseudonym" in browser.current_url
    assert browser.find_elements(By.LINK_TEXT, "Paging_26") and not browser.find_elements(By.LINK_TEXT, "Paging_25")
    check_accessibility(browser, "members list, second page")
    screenshot(browser, "members-second-page")
    bookmark = browser.current_url

    browser.find_element(By.CSS_SELECTOR, "a.pagination__last").click()
    assert summary(browser) == f"Showing 36 to 60 of {MEMBERS} members"
    assert not browser.find_elements(By.CSS_SELECTOR, "a.pagination__next")
    screenshot(browser, "members-last-page")

    browser.find_element(By.CSS_SELECTOR, "a.pagination__prev").click()
    assert summary(browser) == f"Showing 11 to 35 of {MEMBERS} members"
    browser.find_element(By.CSS_SELECTOR, "a.pagination__first").click()
    assert summary(browser) == f"Showing 1 to 25 of {MEMBERS} members"
    assert path_of(browser) == "/members" and "after=" not in browser.current_url and "before=" not in browser.current_url

    # The bookmark opens the same rows; so does a link saved before the cursors.
    browser.get(bookmark)
    assert summary(browser) == f"Showing 26 to 50 of {MEMBERS} members"
    browser.get(server.url("/members?sort=pseudonym&order=asc&page=2"))
    assert summary(browser) == f"Showing 26 to 50 of {MEMBERS} members"

    # A page link cut short says so, and the way back to the list.
    browser.get(bookmark[:-4])
    assert text_of(browser, "h1") == "This link to a page of the list does not work"
    check_accessibility(browser, "damaged page link")
    screenshot(browser, "damaged-page-link")

    # An old page number past the first 1,000 rows says lists no longer open there, and leads to the
    # list's last page with its sort kept.
    browser.get(server.url("/members?sort=pseudonym&order=asc&page=2000"))
    assert text_of(browser, "h1") == "Lists no longer open at page 2,000"
    check_accessibility(browser, "old page number too deep")
    screenshot(browser, "old-page-number-too-deep")
    browser.find_element(By.LINK_TEXT, "Go to the last page of the list").click()
    assert summary(browser) == f"Showing 36 to 60 of {MEMBERS} members"
    assert "sort=pseudonym" in browser.current_url

    # At 320 px wide the links still fit and work.
    browser.set_window_size(320, 900)
    try:
        browser.get(bookmark)
        check_accessibility(browser, "members list, second page, narrow")
        screenshot(browser, "members-second-page-narrow")
        browser.find_element(By.CSS_SELECTOR, "a.pagination__next").click()
        assert summary(browser) == f"Showing 51 to 60 of {MEMBERS} members"
    finally:
        browser.set_window_size(1280, 1000)
