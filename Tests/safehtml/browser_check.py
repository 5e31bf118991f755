#!/usr/bin/env python3
"""Loads every sanitized corpus output into headless Chromium and fails if anything runs.

Each page holds a batch of outputs, each in its own container, and is served from a local HTTP
server so the browser's real HTML parser reads it, as it will read our pages. The page records any
call to alert, confirm, prompt or print; afterwards every element in it gets the usual events and a
click, links included, and the check fails on any recorded call, any dialog, or any navigation away.
Unsanitized control inputs are checked first: if the detector misses any of them, the check fails.

Run from the package root: python3 Tests/safehtml/browser_check.py --tool .build/debug/safehtml-tool
"""
import html
import http.server
import sys
import threading
import time

from selenium import webdriver
from selenium.common.exceptions import UnexpectedAlertPresentException
from selenium.webdriver.chrome.service import Service

from safehtml_corpus import arguments, load_corpus, sanitize_corpus

BATCH_SIZE = 40

# Each is unsafe in a different way; the detector must notice every one.
CONTROLS = {
    "script element": "<script>alert(1)</script>",
    "onerror handler": "<img src=/missing.png onerror=alert(1)>",
    "javascript: link": '<a href="javascript:alert(1)">x</a>',
    "event handler": "<b onmouseover=alert(1)>x</b>",
    "navigation": '<a href="/elsewhere">x</a>',
    "dialog in a frame": '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
}

PAGE_HEAD = """<!doctype html>
<html><head><meta charset="utf-8"><title>SafeHTML browser check</title>
<script>
window.__executions = [];
for (const name of ["alert", "confirm", "prompt", "print"]) {
  window[name] = (...args) => window.__executions.push(name + "(" + args.join(",") + ")");
}
window.__pageToken = "%s";
// Absolute web and mail links are allowed; follow none of them, so any other link that navigates
// (relative ones included, which resolve to this page's http:) stands out.
document.addEventListener("click", (event) => {
  const link = event.target.closest ? event.target.closest("a") : null;
  if (link && /^(https?:\/\/|mailto:)/i.test(link.getAttribute("href") || "")) event.preventDefault();
}, true);
</script></head><body>
"""

# Events that inline handlers in the corpus listen for, sent to every element, then a click.
INTERACT = """
const events = ["mouseover", "mouseenter", "mousedown", "mouseup", "pointerenter", "pointerdown", "focus",
  "focusin", "blur", "animationstart", "animationend", "transitionend", "toggle", "input", "change", "copy",
  "paste", "wheel", "scroll", "auxclick", "keydown", "keyup", "load", "error", "beforetoggle", "begin"];
for (const element of document.querySelectorAll(".case *")) {
  for (const type of events) element.dispatchEvent(new Event(type, {bubbles: true}));
  if (typeof element.focus === "function") element.focus();
  if (typeof element.click === "function") element.click();
}
"""


class Pages(http.server.BaseHTTPRequestHandler):
    pages = {}

    def do_GET(self):
        body = self.pages.get(self.path)
        self.send_response(200 if body else 404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.end_headers()
        self.wfile.write(body or b"<!doctype html><title>not found</title>")

    def log_message(self, *arguments):
        pass


def page(token, cases):
    containers = "".join(f'<div class="case" data-case="{html.escape(name)}">{fragment}</div>\n'
                         for name, fragment in cases)
    return (PAGE_HEAD % token + containers + "</body></html>").encode("utf-8")


def executions(driver, base, token, cases):
    """What ran, or which dialog or navigation happened, when `cases` were loaded and used."""
    path = f"/{token}.html"
    Pages.pages[path] = page(token, cases)
    found = []
    try:
        driver.get(base + path)
        time.sleep(0.3)  # onerror and similar events fire after the load
        driver.execute_script(INTERACT)
        time.sleep(0.3)  # javascript: links run in a later task
        if driver.execute_script("return window.__pageToken") != token or driver.current_url != base + path:
            found.append(f"navigated to {driver.current_url}")
        else:
            found += driver.execute_script("return window.__executions")
    except UnexpectedAlertPresentException as dialog:
        found.append(f"dialog: {dialog.alert_text}")
    return found


def start_browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]:
        options.add_argument(argument)
    options.set_capability("unhandledPromptBehavior", "accept and notify")
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(30)
    return driver


def main():
    options = arguments(__doc__).parse_args()
    corpus = load_corpus()
    outputs = sanitize_corpus(options.tool, corpus)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Pages)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    driver = start_browser()
    try:
        for number, (name, control) in enumerate(CONTROLS.items()):
            if not executions(driver, base, f"control-{number}", [(name, control)]):
                sys.exit(f"browser_check: the detector is broken, it missed the unsafe control {name!r}: {control!r}")
        print(f"browser_check: the detector caught all {len(CONTROLS)} unsafe controls")

        cases = [(f"#{vector['id']}", output) for vector, output in zip(corpus, outputs)]
        failures = []
        for start in range(0, len(cases), BATCH_SIZE):
            batch = cases[start:start + BATCH_SIZE]
            if executions(driver, base, f"batch-{start}", batch):
                # Load the batch's cases one by one to name the culprits.
                for name, output in batch:
                    found = executions(driver, base, f"case-{name[1:]}", [(name, output)])
                    if found:
                        failures.append((name, output, found))
        for name, output, found in failures:
            print(f"vector {name} ran in the browser: {found}\n  output: {output!r}")
        if failures:
            sys.exit(f"browser_check: {len(failures)} sanitized outputs ran script, opened a dialog or navigated")
        print(f"browser_check: {len(cases)} sanitized outputs loaded and clicked in Chromium, nothing ran")
    finally:
        driver.quit()
        server.shutdown()


if __name__ == "__main__":
    main()
