#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The control page, /__sandbox/ui, end to end in headless Chromium (1280x900, then 390x844, a phone).

Starts the sandbox with a control token (or uses a running one), makes a Klarna flow (session, authorization,
order, HPP session) and a Swedbank Pay payment order in a namespace of its own over HTTP, and a namespace whose
name is HTML. Then in the browser: the page is 401 without the token; ?token= sets the cookie and leaves the
token out of the address; the list of namespaces; the namespace's objects and journal; each control (default
scenario, clock +1 h, advance by seconds, set, reset), checked on the page and through the JSON control API;
the refresh box; the page on a phone (no sideways scroll). Saves full-page screenshots: ARTIFACTS/sandbox-ui.png
(desktop) and ARTIFACTS/sandbox-ui-phone.png. The element ids and data attributes used are the hooks documented
in Sources/PaymentSandbox/Control/SandboxUIPages.swift.

Usage:  scripts/browser/test_sandbox_ui.py [--binary PATH | --base-url URL --token TOKEN] [--artifacts DIR]
                                           [--update-docs] [--timeout S]
Needs:  scripts/browser/install-browser.sh (Chromium, chromedriver, fonts; selenium in .build/browser-venv)
Prints one line per check, then "N passed, N failed"; exits 1 when anything failed.
"""
from __future__ import annotations

import base64
import re
import secrets
import sys
import urllib.parse
import uuid

sys.dont_write_bytecode = True  # no __pycache__ in scripts/browser
import harness  # noqa: E402  (first: it says how to install selenium when it is missing)
from harness import ROOT, WAIT, bk, expect  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

CART = harness.KLARNA_CART
PAYMENT_ORDER = {"paymentorder": {
    "operation": "Purchase", "currency": "SEK", "amount": 1500, "vatAmount": 375, "description": "Test Purchase",
    "userAgent": "selenium", "language": "sv-SE",
    "urls": {"hostUrls": ["https://shop.example"], "completeUrl": "https://shop.example/complete",
             "cancelUrl": "https://shop.example/cancel"},
    "payeeInfo": {"payeeId": "5cabf558-5283-482f-b252-4d58e06f6f3b", "payeeReference": "UI0001", "payeeName": "Test Shop"},
}}
HTML_NAMESPACE = '<img src=x onerror=alert(1)>"ns'


# --- the sandbox -----------------------------------------------------------------------------------------

class Api:
    """The sandbox's HTTP API as a merchant of one namespace, with the control token on every call."""

    def __init__(self, token: str, namespace: str):
        self.base, self.token, self.namespace = "", token, namespace  # base: once the sandbox is up

    def headers(self, namespace: str | None = None) -> dict:
        return {"Sandbox-Namespace": namespace or self.namespace, "Sandbox-Control-Token": self.token,
                "Authorization": "Basic " + base64.b64encode(b"ui-e2e:secret").decode()}

    def call(self, method: str, path: str, body=None, headers: dict | None = None, namespace: str | None = None):
        status, _, answer = harness.http(method, self.base + path, body, dict(self.headers(namespace), **(headers or {})),
                                         follow_redirects=True)
        return status, answer

    def ok(self, method: str, path: str, body=None, statuses=(200,), **kw) -> dict:
        status, answer = self.call(method, path, body, **kw)
        expect(status in statuses and isinstance(answer, dict), f"{method} {path}: {status} {str(answer)[:300]}")
        return answer

    def klarna_flow(self) -> dict:
        """A session authorized and ordered, a second session with an HPP session: their ids."""
        session = self.ok("POST", "/payments/v1/sessions", CART)["session_id"]
        token = self.ok("POST", f"/__sandbox/klarna/payments/sessions/{session}/authorize", {})["authorization_token"]
        order = self.ok("POST", f"/payments/v1/authorizations/{token}/order", CART)["order_id"]
        second = self.ok("POST", "/payments/v1/sessions", CART)["session_id"]
        hpp = self.ok("POST", "/hpp/v1/sessions", {"payment_session_url": f"{self.base}/payments/v1/sessions/{second}"},
                      statuses=(201,))["session_id"]
        return {"session": session, "token": token, "order": order, "second": second, "hpp": hpp}

    def payment_order(self) -> str:
        body = self.ok("POST", "/psp/paymentorders", PAYMENT_ORDER, headers={"Authorization": "Bearer ui-e2e-merchant",
                                                                              "Content-Type": "application/json;version=3.1"})
        return body["paymentOrder"]["id"]


# --- the checks ------------------------------------------------------------------------------------------

class Run(harness.Checks):
    CHECKS = [
        ("token", "token"),
        ("overview", "overview"),
        ("objects, journal", "objects"),
        ("scenario", "scenario"),
        ("clock", "clock_controls"),
        ("refresh", "refresh"),
        ("reset", "reset"),
        ("phone", "phone"),
    ]
    fresh_tab = False  # the checks share one tab (phone replaces it itself, for the phone's viewport)

    def __init__(self, api: Api, driver, artifacts):
        super().__init__(driver, artifacts)
        self.api = api
        self.ids: dict = {}
        self.fresh = False  # the sandbox was started for this run: no namespaces but this run's

    # helpers

    @property
    def page_url(self) -> str:
        return f"{self.api.base}/__sandbox/ui/namespace?name={urllib.parse.quote(self.api.namespace, safe='')}"

    def open_namespace(self) -> None:
        bk.clear_events(self.d)
        self.d.get(self.page_url)
        status = bk.document_status(self.d)
        expect(status == 200, f"GET {self.page_url} answered {status}")
        bk.follow_until(self.d, lambda d: d.find_element(By.CSS_SELECTOR, "main#namespace"), WAIT)

    def rows(self) -> list[list[str]]:
        return self.js("return Array.from(document.querySelectorAll('#objects tr.object'),"
                       " r => [r.dataset.kind, r.dataset.id, r.dataset.status, r.querySelector('.left').innerText])")

    def submit(self, button) -> None:
        """Press a form's button (a native click) and wait for the page the 303 leads back to."""
        bk.clear_events(self.d)
        button.click()
        bk.follow_until(self.d, lambda d: bk.is_stale(button), WAIT)
        bk.follow_until(self.d, lambda d: d.find_element(By.CSS_SELECTOR, "main#namespace"), WAIT)
        hops = bk.navigation_attempts(self.d)
        expect(any(h["method"] == "POST" for h in hops) and hops[-1]["status_of_previous"] == 303
               and hops[-1]["url"] == self.page_url,
               f"expected a form POST answered 303 to the page, got {[(h['method'], h['url'], h['status_of_previous']) for h in hops]}")

    def clock(self) -> dict:
        return self.api.ok("GET", "/__sandbox/clock")

    # checks

    def sign_in(self) -> None:
        bk.clear_events(self.d)
        self.d.get(f"{self.page_url}&token={urllib.parse.quote(self.api.token)}")
        bk.follow_until(self.d, lambda d: d.find_element(By.CSS_SELECTOR, "main#namespace"), WAIT)
        expect(self.d.current_url == self.page_url, f"the address after ?token= is {self.d.current_url}")
        hops = bk.navigation_attempts(self.d)
        expect(hops[-1]["status_of_previous"] == 303 and hops[-1]["status"] == 200, f"hops {hops}")

    def token(self) -> str:
        # First the way in, so the browser has seen only the page (see the icon below).
        self.sign_in()
        cookies = {c["name"]: c for c in self.d.get_cookies()}
        cookie = cookies.get("sandbox_ui") or {}
        expect(cookie.get("httpOnly") and cookie.get("sameSite") == "Strict" and cookie.get("path") == "/__sandbox/ui"
               and cookie.get("value") != self.api.token, f"cookie {cookie}")
        expect("sandbox_ui" not in self.js("return document.cookie"), "the cookie is readable by script")
        # The page's policy loads no image: the browser asked for no /favicon.ico (a 404 journaled in "default")
        # while the page and then the list loaded.
        self.d.get(f"{self.api.base}/__sandbox/ui")
        bk.follow_until(self.d, lambda d: d.find_element(By.CSS_SELECTOR, "main#namespaces"), WAIT)
        expect(self.favicons() == 0, "the page made the browser ask for /favicon.ico")
        # Without the cookie: 401, and nothing of the namespace.
        self.d.delete_all_cookies()
        bk.clear_events(self.d)
        self.d.get(self.page_url)
        status = bk.document_status(self.d)
        text = self.d.find_element(By.TAG_NAME, "body").text
        expect(status == 401, f"without the token: {status}")
        expect(self.api.namespace not in text and self.ids["session"] not in text, f"the 401 shows state: {text[:300]}")
        self.sign_in()
        return "?token= -> 303 to the page without the token; HttpOnly SameSite=Strict cookie; without it 401"

    def favicons(self) -> int:
        entries = self.api.ok("GET", "/__sandbox/journal?path_prefix=/favicon.ico", namespace="default")["entries"]
        return len(entries)

    def overview(self) -> str:
        self.d.get(f"{self.api.base}/__sandbox/ui")
        self.no_alert("a value")
        names = self.js("return Array.from(document.querySelectorAll('li.namespace'), l => [l.dataset.namespace, l.innerText])")
        listed = {n: t for n, t in names}
        expect(self.api.namespace in listed, f"{self.api.namespace} is not listed: {names}")
        expect("6 objects" in listed[self.api.namespace], f"facts: {listed[self.api.namespace]}")
        expect(HTML_NAMESPACE in listed, f"the HTML-named namespace is not listed as text: {names}")
        # Only the 401 (JSON) made the browser ask for /favicon.ico, a 404 journaled in "default" (see token).
        expect(not self.fresh or set(listed) <= {self.api.namespace, HTML_NAMESPACE, "default"}, f"namespaces {sorted(listed)}")
        injected = self.js("return Array.from(document.querySelectorAll('img, [onerror]'), e => e.outerHTML)")
        expect(not injected, f"a namespace name became markup: {injected}")
        link = self.d.find_element(By.CSS_SELECTOR, f"li.namespace[data-namespace='{self.api.namespace}'] a")
        bk.clear_events(self.d)
        link.click()
        bk.follow_until(self.d, lambda d: d.current_url == self.page_url, WAIT)
        return f"{len(names)} namespaces; {listed[self.api.namespace]!r}; the HTML name shows as text; the link opens the page"

    def objects(self) -> str:
        self.open_namespace()
        rows = {r[1]: r for r in self.rows()}
        ids = self.ids
        for key, kind, status in (("session", "Klarna payment session", "complete"), ("second", "Klarna payment session", "incomplete"),
                                  ("token", "Klarna authorization token", "used for an order"), ("order", "Klarna order", "AUTHORIZED"),
                                  ("hpp", "Klarna HPP session", "WAITING"), ("payment_order", "Swedbank Pay payment order", "Initialized")):
            row = rows.get(ids[key])
            expect(row and row[0] == kind and row[2] == status, f"{key}: row {row}, expected {kind} {status}")
        expect(re.fullmatch(r"1 d 23 h|2 d 0 h", rows[ids["second"]][3]), f"time left of a new session: {rows[ids['second']][3]}")
        entries = self.js("return Array.from(document.querySelectorAll('#journal li.entry'),"
                          " e => [e.dataset.method, e.dataset.status, e.querySelector('.path').innerText])")
        expect(len(entries) == 6 and entries[0] == ["POST", "200", "/psp/paymentorders"]
               and entries[-1] == ["POST", "200", "/payments/v1/sessions"], f"journal {entries}")
        note = self.js("var n = document.querySelectorAll('#journal li.entry .note'); return n.length && n[n.length - 1].innerText")
        expect(note and "klarna.payments.create_session" in note, f"the first call's note: {note!r}")
        w, h = bk.screenshot_full_page(self.d, str(self.artifacts / "sandbox-ui.png"))
        return f"{len(rows)} objects with kind, status and time left; {len(entries)} journal entries, newest first; screenshot {w}x{h}"

    def scenario(self) -> str:
        self.open_namespace()
        Select(self.d.find_element(By.ID, "scenario")).select_by_value("reject")
        self.submit(self.d.find_element(By.CSS_SELECTOR, "#scenario-form button[type=submit]"))
        shown = self.d.find_element(By.ID, "default-scenario").text
        expect(shown == "reject", f"#default-scenario reads {shown!r}")
        chosen = self.api.ok("GET", "/__sandbox/scenarios")["default_scenario"]
        expect(chosen == "reject", f"GET /__sandbox/scenarios: default_scenario {chosen!r}")
        # The namespace's calls now follow it: authorize rejects.
        session = self.api.ok("POST", "/payments/v1/sessions", CART)["session_id"]
        result = self.api.ok("POST", f"/__sandbox/klarna/payments/sessions/{session}/authorize", {})
        expect(result.get("approved") is False, f"authorize under reject: {result}")
        return "reject chosen (page and GET /__sandbox/scenarios); authorize then answers approved: false"

    def clock_controls(self) -> str:
        self.open_namespace()
        self.submit(self.d.find_element(By.CSS_SELECTOR, "#clock-advance-form button[value='3600']"))
        offset = self.d.find_element(By.ID, "offset").get_attribute("data-seconds")
        expect(offset == "3600" and self.clock()["offset_seconds"] == 3600, f"after +1 h: #offset {offset}, {self.clock()}")
        self.d.find_element(By.ID, "advance-seconds").send_keys("-60")
        self.submit(self.d.find_element(By.CSS_SELECTOR, "#clock-advance-by-form button[type=submit]"))
        offset = self.d.find_element(By.ID, "offset").get_attribute("data-seconds")
        expect(offset == "3540" and self.clock()["offset_seconds"] == 3540, f"after -60: #offset {offset}, {self.clock()}")
        field = self.d.find_element(By.ID, "clock-now")
        field.clear()
        field.send_keys("2030-01-01T00:00:00Z")
        self.submit(self.d.find_element(By.CSS_SELECTOR, "#clock-set-form button[type=submit]"))
        now = self.d.find_element(By.ID, "now").get_attribute("datetime")
        expect(now.startswith("2030-01-01T00:00:0"), f"#now after set: {now}")
        expect(self.clock()["now"].startswith("2030-01-01T00:00:0"), f"GET /__sandbox/clock: {self.clock()}")
        left = {r[1]: r[3] for r in self.rows()}
        expect(left[self.ids["second"]].startswith("expired "), f"the session's time left after the jump: {left}")
        # A refused value: a page that says why, with a way back; nothing changed.
        field = self.d.find_element(By.ID, "clock-now")
        field.clear()
        field.send_keys("next tuesday")
        self.d.find_element(By.CSS_SELECTOR, "#clock-set-form button[type=submit]").click()
        problem = bk.follow_until(self.d, lambda d: d.find_element(By.ID, "problem-message").text, WAIT)
        expect("is not an ISO 8601 date-time" in problem, f"problem page: {problem!r}")
        expect(self.clock()["now"].startswith("2030-01-01T00:0"), f"the refused value moved the clock: {self.clock()}")
        return "+1 h -> 3600; -60 -> 3540; set 2030-01-01 (objects expired); 'next tuesday' -> 400 page, unchanged"

    def refresh(self) -> str:
        self.open_namespace()
        before = len(self.rows())
        box = self.d.find_element(By.ID, "auto-refresh-on")
        expect(box.is_displayed() and not box.is_selected(), "the refresh box is not shown, or ticked from the start")
        box.click()
        session = self.api.ok("POST", "/payments/v1/sessions", CART)["session_id"]
        bk.follow_until(self.d, lambda d: any(r[1] == session for r in self.rows()), 12)
        expect(self.d.find_element(By.ID, "auto-refresh-on").is_selected(), "the box is not ticked after the reload")
        self.d.find_element(By.ID, "auto-refresh-on").click()  # off again for the checks after this one
        return f"the page reloaded by itself and shows the new session ({before} -> {len(self.rows())} objects)"

    def reset(self) -> str:
        self.open_namespace()
        self.submit(self.d.find_element(By.CSS_SELECTOR, "#reset-form button[type=submit]"))
        text = self.d.find_element(By.ID, "objects").text + " " + self.d.find_element(By.ID, "journal").text
        expect(not self.rows() and "None." in text and "No calls yet." in text, f"after reset: {text!r}")
        expect(self.d.find_element(By.ID, "default-scenario").text == "none", "the default scenario survived reset")
        expect(self.clock()["offset_seconds"] == 0, f"the clock survived reset: {self.clock()}")
        state = self.api.ok("GET", "/__sandbox/state")
        expect(not state["klarna_payments"]["sessions"] and not state["swedbankpay_paymentorders"]["payment_orders"],
               f"GET /__sandbox/state after reset: {str(state)[:300]}")
        return "no objects, no journal, clock and scenario back; GET /__sandbox/state empty"

    def phone(self) -> str:
        # A fresh flow for the picture, then the phone's viewport.
        self.ids.update(self.api.klarna_flow())
        self.ids["payment_order"] = self.api.payment_order()
        self.api.ok("PUT", "/__sandbox/scenario", {"name": "fraud-pending"})
        self.api.ok("POST", "/__sandbox/clock", {"advance_seconds": 5400})
        self.d._bk_metrics = dict(width=390, height=844, deviceScaleFactor=1, mobile=True)
        bk.reset_tab(self.d)
        self.open_namespace()
        width, scroll = self.js("return [innerWidth, document.documentElement.scrollWidth]")
        expect(width == 390 and scroll <= width, f"the page is {scroll} px wide in a {width} px viewport")
        cells = self.js("var t = document.querySelector('#objects tr.object td'); return t && getComputedStyle(t).display")
        expect(cells == "flex", f"object rows are not cards on a phone (td display {cells})")
        w, h = bk.screenshot_full_page(self.d, str(self.artifacts / "sandbox-ui-phone.png"))
        self.d.get(f"{self.api.base}/__sandbox/ui")
        width, scroll = self.js("return [innerWidth, document.documentElement.scrollWidth]")
        expect(scroll <= width, f"the list is {scroll} px wide in a {width} px viewport")
        return f"no sideways scroll, rows as cards; screenshot {w}x{h}"


def main() -> int:
    ap = harness.arguments(__doc__, timeout=240,
                           update_docs="also copy the screenshots to docs/images/sandbox-ui.png and docs/images/sandbox-ui-phone.png",
                           base_url_help="use this running sandbox instead of starting one (with --token)")
    ap.add_argument("--token", help="the running sandbox's control token (with --base-url)")
    args = ap.parse_args()
    if args.base_url and not args.token:
        ap.error("--base-url needs --token (the page is tested under a control token)")
    artifacts = harness.artifacts_dir(args.artifacts)
    for old in (artifacts / "sandbox-ui.png", artifacts / "sandbox-ui-phone.png"):
        old.unlink(missing_ok=True)

    def start(session: harness.Session) -> Run:
        token = args.token or secrets.token_urlsafe(24)
        namespace = f"ui-e2e-{uuid.uuid4().hex[:8]}"
        api = Api(token, namespace)
        # The token through the environment, so it is not in the process list.
        api.base = session.start_sandbox("sandbox-ui.log", env={"PAYMENT_SANDBOX_CONTROL_TOKEN": token},
                                         health_headers=api.headers(), note=f"namespace {namespace}")
        ids = api.klarna_flow()
        ids["payment_order"] = api.payment_order()
        api.ok("POST", "/payments/v1/sessions", CART, namespace=HTML_NAMESPACE)
        driver = session.start_browser(1280, 900, mobile=False, driver_log="chromedriver-ui.log")

        run = Run(api, driver, artifacts)
        run.ids = ids
        run.fresh = session.sandbox is not None
        return run

    screenshots = ("sandbox-ui.png", "sandbox-ui-phone.png")
    return harness.run(args, artifacts, start, docs=[(artifacts / n, ROOT / "docs" / "images" / n) for n in screenshots])


if __name__ == "__main__":
    sys.exit(main())
