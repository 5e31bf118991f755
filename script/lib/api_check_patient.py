"""Makes a claimed patient for script/api-check and prints her app token.

An administrator fills a small catalogue through the portal's forms, a physician adds the patient with
the add-patient wizard, and the claim token is read from the page that finishes the wizard: with no mail
server set up, it is shown there once, to the physician (the outbox keeps it sealed and masked).

    python3 script/lib/api_check_patient.py BASE_URL SQLITE_PATH ADMIN PASSWORD PHYSICIAN PASSWORD
"""

import http.cookiejar
import json
import re
import sqlite3
import sys
import urllib.parse
import urllib.request

base, database, admin, admin_password, physician, physician_password = sys.argv[1:7]
# A 1x1 transparent PNG.
PNG = bytes.fromhex("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c63000100000500010d0a2db40000000049454e44ae426082")


class Browser:
    def __init__(self):
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()),
                                                  urllib.request.ProxyHandler({}))
        self.token = None

    def get(self, path):
        with self.opener.open(base + path) as response:
            html = response.read().decode()
        found = re.search(r'name="csrf_token" value="([^"]*)"', html)
        if found:
            self.token = found.group(1)
        return html

    def post(self, path, fields, file=None):
        fields = list(fields) + [("csrf_token", self.token)]
        if file is None:
            data = urllib.parse.urlencode(fields).encode()
            content_type = "application/x-www-form-urlencoded"
        else:
            boundary = "----apicheck7b1c"
            parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode() for name, value in fields]
            name, filename, content = file
            parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
                         f'Content-Type: image/png\r\n\r\n'.encode() + content + b"\r\n")
            data = b"".join(parts) + f"--{boundary}--\r\n".encode()
            content_type = f"multipart/form-data; boundary={boundary}"
        request = urllib.request.Request(base + path, data=data, headers={"Content-Type": content_type, "Origin": base})
        with self.opener.open(request) as response:
            return response.geturl(), response.read().decode()

    def sign_in(self, username, password):
        self.get("/sign-in")
        self.post("/sign-in", [("username", username), ("password", password)])
        self.get("/")


administrator = Browser()
administrator.sign_in(admin, admin_password)
administrator.get("/catalogue/medications/new")
administrator.post("/catalogue/medications/new", [("name", "Levodopa/carbidopa"), ("doses", "25/100 mg tablet"), ("description", "Before meals.")])
administrator.post("/catalogue/frequencies/new", [("name", "Three times daily"), ("times_per_day", "3"), ("every_days", "1")])
administrator.post("/catalogue/amounts/new", [("name", "10 repetitions")])
administrator.post("/catalogue/exercises/new", [("name", "Sit-to-stand"), ("description", "Stand up slowly.")], ("illustration", "s.png", PNG))

with sqlite3.connect(database) as db:
    ids = {table: db.execute(f"SELECT id FROM {table}").fetchone()[0] for table in
           ["catalogue_medications", "catalogue_frequencies", "catalogue_exercise_amounts", "catalogue_exercises"]}

doctor = Browser()
doctor.sign_in(physician, physician_password)
doctor.get("/patients/new")
url, _ = doctor.post("/patients/new", [("first_name", "Api"), ("last_name", "Check"), ("medical_number", "API 1"),
                                       ("email", "api.check.patient@example.org"), ("phone", "01632 960 001"), ("address", "1 Test Street"),
                                       ("action", "next")])
draft = url.rstrip("/").split("/")[-2]
doctor.post(f"/patients/drafts/{draft}/medications", [("rows", "1"), ("medication_0", ids["catalogue_medications"]),
            ("dose_0", "25/100 mg tablet"), ("frequency_0", ids["catalogue_frequencies"]), ("action", "next")])
_, finished = doctor.post(f"/patients/drafts/{draft}/exercises", [("rows", "1"), ("exercise_0", ids["catalogue_exercises"]),
                          ("amount_0", ids["catalogue_exercise_amounts"]), ("frequency_0", ids["catalogue_frequencies"]), ("action", "next")])
claim_token = re.search(r'id="shown-once">([A-Z0-9]{4}(?:-[A-Z0-9]{4}){4})<', finished).group(1)
request = urllib.request.Request(base + "/api/v1/patient/claim", headers={"Content-Type": "application/json"}, data=json.dumps({
    "claim_token": claim_token, "first_name": "Api", "middle_name": "", "last_name": "Check", "medical_number": "API 1",
    "username": "api.check.patient", "password": "Levodopa time 2026"}).encode())
print(json.load(urllib.request.build_opener(urllib.request.ProxyHandler({})).open(request))["token"])
