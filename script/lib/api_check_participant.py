"""Makes a study participant for script/api-check and prints her app token.

A researcher enrols her through the portal's form (which shows her one-time password once); she signs in to
the study API and chooses her own password, as the app makes her do first.

    python3 script/lib/api_check_participant.py BASE_URL RESEARCHER PASSWORD
"""

import datetime
import http.cookiejar
import json
import re
import sys
import urllib.parse
import urllib.request

base, researcher, researcher_password = sys.argv[1:4]
opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()), urllib.request.ProxyHandler({}))
csrf = None


def get(path):
    global csrf
    with opener.open(base + path) as response:
        html = response.read().decode()
    found = re.search(r'name="csrf_token" value="([^"]*)"', html)
    if found:
        csrf = found.group(1)
    return html


def post(path, fields):
    data = urllib.parse.urlencode(list(fields) + [("csrf_token", csrf)]).encode()
    request = urllib.request.Request(base + path, data=data, headers={"Content-Type": "application/x-www-form-urlencoded", "Origin": base})
    with opener.open(request) as response:
        return response.read().decode()


def api(method, path, body, token=None):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(base + path, data=json.dumps(body).encode(), headers=headers, method=method)
    with opener.open(request) as response:
        text = response.read().decode()
        return json.loads(text) if text else None


get("/sign-in")
post("/sign-in", [("username", researcher), ("password", researcher_password)])
get("/studies/participants/new")
# A few days back, so her statistics have closed days.
enrolled = datetime.date.today() - datetime.timedelta(days=3)
page = post("/studies/participants/new", [("study_code", "API-001"), ("arm", "Check"), ("email", ""),
                                          ("enrolled_on_day", enrolled.day), ("enrolled_on_month", enrolled.month),
                                          ("enrolled_on_year", enrolled.year)])
one_time = re.search(r'id="study-password">([a-z0-9-]+)<', page).group(1)
token = api("POST", "/api/v1/study/sessions", {"username": "api-001", "password": one_time})["token"]
api("POST", "/api/v1/study/me/password", {"current_password": one_time, "new_password": "api check participant passphrase"}, token)
print(token)
