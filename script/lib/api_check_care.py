"""Makes the memory-care accounts for script/api-check: a care receiver and a caregiver.

    python3 script/lib/api_check_care.py accounts BASE_URL SQLITE_PATH
        Both register through the API; their emailed confirmation links are followed by setting the
        accounts active in the database (the link's token is only in the sealed outbox). Both sign in.
        Prints the care receiver's token and the caregiver's, one a line.

    python3 script/lib/api_check_care.py receiver BASE_URL SQLITE_PATH RECEIVER_TOKEN CAREGIVER_TOKEN
        Before the care receiver's run: she makes her PIN and enters it (her secured memories open on her
        token for 5 minutes), keeps a few memories, a contact and her location, and links with the
        caregiver through an invitation code, so her link operations meet a real link. Two of her
        reminders (a plain one and a secured one) are made due now in the database, and the server's own
        reminders job writes them to her feed, so her notifications meet real entries. She then asks for a
        link to choose a new password (202; its token is only in the sealed outbox, so choosing one is left
        to the swift tests), marks her newest entry read and the rest with read-all, and sends the program's
        staff one feedback message (201).

    python3 script/lib/api_check_care.py caregiver BASE_URL SQLITE_PATH RECEIVER_TOKEN CAREGIVER_TOKEN
        Before the caregiver's run: she makes a new invitation with every scope and some categories and he
        enters its code (a new link if her run ended the last one, else the same link with every scope
        again), and she keeps a plan and a shared memory for him to read. The plan's reminder is moved
        two hours into the past in the database, so the reminders job sends it and then tells him it is
        still open, and his notifications meet a real entry.
"""

import datetime
import json
import sqlite3
import sys
import time
import urllib.request

PASSWORD = "Blue heron 1946"
RECEIVER, CAREGIVER = "api.care.receiver@example.org", "api.caregiver@example.org"
PIN = "2468"
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def call(base, method, path, body=None, token=None):
    """The status and the parsed body (None when empty); anything but 2xx raises."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, headers=headers, method=method)
    with opener.open(request) as response:
        text = response.read().decode()
        return response.status, json.loads(text) if text else None


def api(base, method, path, body=None, token=None):
    return call(base, method, path, body, token)[1]


def expect(status, base, method, path, body=None, token=None):
    got, parsed = call(base, method, path, body, token)
    assert got == status, f"{method} {path} answered {got}, not {status}: {parsed}"
    return parsed


def accounts(base, database):
    api(base, "POST", "/api/v1/care/registrations", {"email": RECEIVER, "password": PASSWORD, "name": "Api Receiver"})
    api(base, "POST", "/api/v1/caregiver/registrations", {"email": CAREGIVER, "password": PASSWORD, "name": "Api Caregiver"})
    db = sqlite3.connect(database)
    now = int(time.time() * 1000)
    for email in (RECEIVER, CAREGIVER):
        changed = db.execute("UPDATE care_accounts SET status = 'active', confirmed_at = ? WHERE email_key = ? AND status = 'unconfirmed'",
                             (now, email)).rowcount
        assert changed == 1, f"no unconfirmed account for {email}"
    db.commit()
    db.close()
    receiver = api(base, "POST", "/api/v1/care/sessions", {"email": RECEIVER, "password": PASSWORD})["token"]
    caregiver = api(base, "POST", "/api/v1/caregiver/sessions", {"email": CAREGIVER, "password": PASSWORD})["token"]
    print(receiver)
    print(caregiver)


def link(base, receiver, caregiver):
    invitation = api(base, "POST", "/api/v1/care/invitations",
                     {"scopes": ["reminders", "plans", "memories", "location"], "categories": ["family", "health", "errands"]}, receiver)
    api(base, "POST", "/api/v1/caregiver/links", {"code": invitation["code"]}, caregiver)


def soon(days, hour):
    day = datetime.date.today() + datetime.timedelta(days=days)
    return f"{day.isoformat()}T{hour:02d}:00"


def receiver_setup(base, database, receiver, caregiver):
    api(base, "PUT", "/api/v1/care/pin", {"password": PASSWORD, "pin": PIN}, receiver)
    api(base, "POST", "/api/v1/care/unlock", {"pin": PIN}, receiver)
    contact = api(base, "POST", "/api/v1/care/contacts",
                  {"client_id": "api-check-contact", "name": "Dr Patel", "phones": ["+1 555 0100"], "company": "High Street Surgery"}, receiver)
    for memory in [
        {"client_id": "api-check-1", "type": "appointment", "title": "Dentist", "category": "health", "happens_at": soon(3, 10),
         "reminder_at": soon(3, 9), "location": "12 High Street", "tags": ["teeth"], "people": [contact["id"]]},
        {"client_id": "api-check-2", "type": "todo_list", "title": "Shopping", "category": "errands", "status": "open",
         "items": [{"text": "Milk"}, {"text": "Bread", "done": True}]},
        {"client_id": "api-check-3", "type": "interaction", "title": "Lunch with Ruth", "category": "family", "happens_at": soon(-2, 12),
         "custom_fields": [{"title": "Where", "content": "The Swan"}]},
        {"client_id": "api-check-4", "type": "bank_account", "title": "Savings", "fields": {"bank": "First Bank", "account_number": "12345678"},
         "reminder_at": soon(7, 9), "recurrence": "monthly"},
        {"client_id": "api-check-5", "type": "simple_memory", "title": "Where the spare key is", "secured": True},
    ]:
        api(base, "POST", "/api/v1/care/memories", memory, receiver)
    api(base, "PUT", "/api/v1/care/location", {"latitude": 40.7128, "longitude": -74.006, "accuracy_metres": 25}, receiver)
    link(base, receiver, caregiver)
    # The dentist's reminder and the savings account's (secured) fall due now: the job writes both to her feed.
    make_due(database, ["api-check-1", "api-check-4"], ago=60)
    wait_for_feed(base, "/api/v1/care/notifications", receiver, 2)
    # A forgotten password: the same 202 as for any address; the link's token never leaves the sealed outbox.
    asked = expect(202, base, "POST", "/api/v1/care/password-resets", {"email": RECEIVER})
    assert asked.get("message"), asked
    # Her feed read: the newest entry, then everything up to it.
    feed = api(base, "GET", "/api/v1/care/notifications", token=receiver)
    newest = feed["notifications"][0]["id"]
    expect(204, base, "POST", f"/api/v1/care/notifications/{newest}/read", token=receiver)
    marked = expect(200, base, "POST", "/api/v1/care/notifications/read-all", {"up_to_id": newest}, receiver)
    assert marked == {"marked": feed["unread_count"] - 1, "unread_count": 0}, marked
    # Feedback from her app, to memory care's inbox.
    sent = expect(201, base, "POST", "/api/v1/care/feedback", {"message": "The big buttons help", "kind": "feedback"}, receiver)
    assert sent.get("id") and sent.get("submitted_at"), sent


def caregiver_setup(base, database, receiver, caregiver):
    link(base, receiver, caregiver)
    api(base, "POST", "/api/v1/care/memories", {"client_id": "api-check-6", "type": "simple_todo", "title": "Call the pharmacy",
                                                 "category": "health", "reminder_at": soon(1, 11), "status": "open"}, receiver)
    api(base, "POST", "/api/v1/care/memories", {"client_id": "api-check-7", "type": "generic_memory", "title": "Grandson's birthday",
                                                 "category": "family", "happens_at": soon(10, 15), "description": "He turns 8."}, receiver)
    api(base, "PUT", "/api/v1/care/location", {"latitude": 40.7306, "longitude": -73.9866}, receiver)
    # The open to-do's reminder came two hours ago: the job sends it, and then tells him it is still open.
    make_due(database, ["api-check-6"], ago=2 * 3600 + 60)
    wait_for_feed(base, "/api/v1/caregiver/notifications", caregiver, 1)


def make_due(database, client_ids, ago):
    """Moves these memories' next reminder to `ago` seconds before now, as if its time had come."""
    db = sqlite3.connect(database, timeout=30)
    due = int(time.time() * 1000) - ago * 1000
    for client_id in client_ids:
        changed = db.execute("UPDATE care_memories SET next_reminder_at = ? WHERE client_id = ? AND next_reminder_at IS NOT NULL",
                             (due, client_id)).rowcount
        assert changed == 1, f"no reminder to make due for {client_id}"
    db.commit()
    db.close()


def wait_for_feed(base, path, token, count):
    """Waits (the job runs every 10 seconds) until the feed holds `count` entries."""
    for _ in range(120):
        if api(base, "GET", path, token=token)["total_count"] >= count:
            return
        time.sleep(0.5)
    sys.exit(f"{path} never reached {count} entries: the reminders job did not send them")


if __name__ == "__main__":
    command, base = sys.argv[1:3]
    if command == "accounts":
        accounts(base, sys.argv[3])
    elif command == "receiver":
        receiver_setup(base, *sys.argv[3:6])
    elif command == "caregiver":
        caregiver_setup(base, *sys.argv[3:6])
    else:
        sys.exit(f"unknown command {command}")
