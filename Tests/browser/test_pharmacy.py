"""A pharmacist works a refill from requested to collected and checks a voucher at the till."""

import datetime
import subprocess

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait
from selenium.webdriver.support.ui import Select

from conftest import Account, _server_binary, check_accessibility, create_first_administrator, fill, screenshot, submit, text_of
from test_members import api
from test_sign_in import error_summary_links, sign_in

PHARMACIST = Account("pat.pharmacist", "pat@example.org", "pill counter passphrase")
CUSTOMER = {"email": "margaret@example.org", "password": "Blue heron 1946", "first_name": "Margaret", "last_name": "Holloway",
            "date_of_birth": "1946-03-14"}


def test_a_pharmacist_works_a_refill_from_requested_to_collected_and_checks_a_voucher(browser, server_factory):
    server = server_factory("pharmacy")
    base = server.base_url
    database = server.data_dir / "careportal.sqlite"
    create_first_administrator(browser, base)

    # The administrator sets up the store: a beacon, a reward and a deal.
    browser.get(base + "/pharmacy/beacons")
    check_accessibility(browser, "no beacons")
    fill(browser, "name", "Front door")
    fill(browser, "uuid", "not a uuid")
    fill(browser, "major", "1")
    fill(browser, "minor", "70000")
    submit(browser, "Register the beacon")
    assert error_summary_links(browser) == ["#uuid", "#minor"]
    assert browser.find_element(By.ID, "name").get_attribute("value") == "Front door"
    check_accessibility(browser, "beacon with errors")
    fill(browser, "uuid", "B9407F30-F5F8-466E-AFF9-25556B57FE6D")
    fill(browser, "minor", "7")
    submit(browser, "Register the beacon")
    assert "Front door registered" in text_of(browser, "div.flash")
    screenshot(browser, "01-beacons")

    browser.get(base + "/pharmacy/rewards")
    fill(browser, "title", "$5 off")
    fill(browser, "points_cost", "10")
    fill(browser, "cashier_gives", "$5 off any purchase")
    submit(browser, "Add the reward")
    assert "$5 off added to the catalogue" in text_of(browser, "div.flash")
    check_accessibility(browser, "rewards")

    browser.get(base + "/pharmacy/deals")
    assert "No deals are running today" in browser.page_source
    browser.find_element(By.LINK_TEXT, "Add a deal").click()
    fill(browser, "title", "20% off vitamins")
    fill(browser, "description", "Every vitamin on the shelf by the door.")
    today = datetime.date.today()
    fill(browser, "valid_from", (today - datetime.timedelta(days=1)).isoformat())
    fill(browser, "valid_until", (today + datetime.timedelta(days=10)).isoformat())
    submit(browser, "Add the deal")
    assert "20% off vitamins saved" in text_of(browser, "div.flash")
    check_accessibility(browser, "deals")
    screenshot(browser, "02-deals")
    submit(browser, "Sign out")

    # A customer registers in the app, visits the store and asks for a refill.
    status, _ = api(base, "POST", "/api/v1/pharmacy/registrations", CUSTOMER)
    assert status == 202
    status, session = api(base, "POST", "/api/v1/pharmacy/sessions", {"email": CUSTOMER["email"], "password": CUSTOMER["password"]})
    assert status == 201
    token, customer_id = session["token"], session["customer"]["id"]
    status, visit = api(base, "POST", "/api/v1/pharmacy/visits", {"uuid": "b9407f30-f5f8-466e-aff9-25556b57fe6d", "major": 1, "minor": 7}, token)
    assert status == 201 and visit["points_earned"] == 10
    status, home = api(base, "GET", "/api/v1/pharmacy/home", token=token)
    assert home["points"] == 10 and [deal["title"] for deal in home["deals"]] == ["20% off vitamins"]

    # The pharmacist: an account made on the command line, as on a server without a browser.
    subprocess.run(
        [str(_server_binary()), "create-user", "--role", "pharmacist", "--username", PHARMACIST.username, "--email", PHARMACIST.email,
         "--database-url", f"sqlite://{database}"],
        input=PHARMACIST.password + "\n", text=True, check=True, capture_output=True,
    )
    sign_in(browser, base, PHARMACIST)
    assert "No refill requests are waiting" in browser.page_source
    check_accessibility(browser, "pharmacist home")
    browser.find_element(By.LINK_TEXT, "Customers").click()
    fill(browser, "q", "holl")
    submit(browser, "Find")
    browser.find_element(By.LINK_TEXT, "Holloway, Margaret").click()
    check_accessibility(browser, "customer")
    browser.find_element(By.LINK_TEXT, "Add a prescription").click()
    fill(browser, "medication", "Lisinopril")
    fill(browser, "strength", "10 mg")
    fill(browser, "refills_remaining", "many")
    submit(browser, "Put it on file")
    assert error_summary_links(browser) == ["#quantity", "#refills_remaining", "#prescriber"]
    assert browser.find_element(By.ID, "medication").get_attribute("value") == "Lisinopril"
    check_accessibility(browser, "prescription with errors")
    screenshot(browser, "03-prescription-errors")
    fill(browser, "quantity", "30 tablets")
    fill(browser, "refills_remaining", "3")
    fill(browser, "prescriber", "Dr. Ana Ruiz")
    submit(browser, "Put it on file")
    assert "Lisinopril 10 mg is on file" in text_of(browser, "div.flash")
    screenshot(browser, "04-customer")

    # She types her password again, sees it, and orders a refill for pickup: the pharmacist's open home page
    # shows it as it comes, without a reload.
    browser.get(base + "/")
    assert "No refill requests are waiting" in browser.page_source
    status, _ = api(base, "POST", "/api/v1/pharmacy/step-up", {"password": CUSTOMER["password"]}, token)
    assert status == 200
    status, listed = api(base, "GET", "/api/v1/pharmacy/prescriptions", token=token)
    prescription = listed["prescriptions"][0]["id"]
    status, refill = api(base, "POST", "/api/v1/pharmacy/refills", {"prescription_id": prescription, "fulfilment": "pickup"}, token)
    assert status == 201
    WebDriverWait(browser, 30).until(lambda d: "1 refill request is waiting" in d.find_element(By.CSS_SELECTOR, ".home-overview").text)

    # The pharmacist works it from requested to collected.
    browser.get(base + "/")
    assert "1 refill request is waiting" in browser.page_source
    browser.find_element(By.LINK_TEXT, "Refill queue").click()
    Select(browser.find_element(By.ID, "kind")).select_by_visible_text("Pickup")
    submit(browser, "Show")
    assert "Margaret Holloway" in text_of(browser, "table")
    check_accessibility(browser, "refill queue")
    screenshot(browser, "05-refill-queue")
    browser.find_element(By.PARTIAL_LINK_TEXT, "Open").click()
    check_accessibility(browser, "refill requested")
    screenshot(browser, "06-refill-requested")
    submit(browser, "Cancel the request")
    assert error_summary_links(browser) == ["#reason"]
    check_accessibility(browser, "refill cancel without reason")
    for button, status_text in [("Mark as being prepared", "Being prepared"), ("Mark as ready for pickup", "Ready for pickup"),
                                ("Mark as collected", "Collected")]:
        submit(browser, button)
        assert text_of(browser, "#refill-status") == status_text
        assert "The customer has been told" in text_of(browser, "div.flash")
        screenshot(browser, "07-refill-" + status_text.lower().replace(" ", "-"))
    check_accessibility(browser, "refill collected")
    status, feed = api(base, "GET", "/api/v1/pharmacy/notifications", token=token)
    assert [entry["kind"] for entry in feed["notifications"]][:4] == ["refill_update"] * 4
    assert all("Lisinopril" not in entry["message"] for entry in feed["notifications"])

    # She redeems her points for a voucher and activates it; the cashier checks it at the till.
    status, redeemed = api(base, "POST", "/api/v1/pharmacy/vouchers", {"reward_id": 1}, token)
    assert status == 201 and redeemed["points"] == 0
    voucher = redeemed["voucher"]
    browser.find_element(By.LINK_TEXT, "Check a voucher").click()
    check_accessibility(browser, "check a voucher")
    fill(browser, "code", voucher["code"])
    submit(browser, "Check the voucher")
    assert "not activated" in text_of(browser, "#voucher-result")
    screenshot(browser, "08-voucher-not-activated")
    status, active = api(base, "POST", f"/api/v1/pharmacy/vouchers/{voucher['id']}/activate", {}, token)
    assert status == 200 and active["state"] == "active"
    submit(browser, "Check the voucher")
    assert "Valid: give $5 off any purchase" in text_of(browser, "#voucher-result")
    check_accessibility(browser, "voucher valid")
    screenshot(browser, "09-voucher-valid")
    fill(browser, "code", voucher["code"])
    submit(browser, "Check the voucher")
    assert "already used" in text_of(browser, "#voucher-result")
    screenshot(browser, "10-voucher-used")

    # Nothing else in the portal is open to a pharmacist.
    browser.get(base + "/members")
    assert "You cannot open this page" in browser.page_source
