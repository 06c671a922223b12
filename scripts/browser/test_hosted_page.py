#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Klarna's Hosted Payment Page, end to end in headless Chromium (390x844, a phone).

Starts the sandbox (or uses a running one) and a tiny merchant server on 127.0.0.1, creates KP and HPP
sessions over HTTP, opens redirect_url in the browser, presses the page's buttons (#pay, #cancel, #back,
#reject) and checks where the browser lands, what the merchant server saw, and what
GET /hpp/v1/sessions/{id} says. Also: #pay under the KP session's scenario (reject, invalid-client-token,
cancel), a custom-scheme success URL (myapp://), no merchant_urls at all, and an order line whose name is
HTML. Saves a full-page screenshot of the untouched page. The element ids and data attributes used are
the HTML contract documented in Sources/KlarnaSandbox/HostedPaymentPage/HostedPage.swift.

Usage:  scripts/browser/test_hosted_page.py [--binary PATH | --base-url URL] [--artifacts DIR]
                                            [--screenshot PATH] [--update-docs] [--timeout S]
Needs:  scripts/browser/install-browser.sh (Chromium, chromedriver, fonts; selenium in .build/browser-venv)
Prints one line per check, then "N passed, N failed"; exits 1 when anything failed.
"""
from __future__ import annotations

import base64
import json
import pathlib
import re
import sys
import urllib.parse
import uuid

sys.dont_write_bytecode = True  # no __pycache__ in scripts/browser
import harness  # noqa: E402  (first: it says how to install selenium when it is missing)
from harness import ROOT, WAIT, bk, expect  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

CART = harness.KLARNA_CART
HTML_NAME = '<img src=x onerror=alert(1)>"quote'
BUTTONS = ("pay", "cancel", "back", "reject")


# --- the sandbox -----------------------------------------------------------------------------------------

class Api:
    """The sandbox's HTTP API with Basic auth and a namespace of its own."""

    def __init__(self, base: str, namespace: str):
        self.base, self.namespace = base, namespace
        self.auth = "Basic " + base64.b64encode(b"browser-e2e:secret").decode()

    def call(self, method: str, path: str, body=None, auth: bool = True, headers: dict | None = None) -> tuple[int, object]:
        headers = dict(headers or {}, **{"Sandbox-Namespace": self.namespace})
        if auth:
            headers["Authorization"] = self.auth
        if body is not None:
            headers["Content-Type"] = "application/json"
        status, _, answer = harness.http(method, self.base + path, body, headers)
        return status, answer

    def hpp_status(self, session_id: str) -> dict:
        status, body = self.call("GET", f"/hpp/v1/sessions/{session_id}")
        expect(status == 200 and isinstance(body, dict), f"GET /hpp/v1/sessions/{session_id}: {status} {body}")
        return body


# --- the merchant ----------------------------------------------------------------------------------------

class Merchant(harness.Merchant):
    """Where merchant_urls point: records each request's path and query, answers 200 with a small page."""

    def page(self, path: str) -> bytes:
        return f"<!doctype html><title>merchant</title><h1 id=merchant>merchant {path}</h1>".encode()

    def urls(self) -> dict:
        b = self.base
        return {
            "success": b + "/success?sid={{session_id}}&token={{authorization_token}}",
            "cancel": b + "/cancel?sid={{session_id}}",
            "back": b + "/back?sid={{session_id}}",
            "failure": b + "/failure?sid={{session_id}}",
            "error": b + "/error?sid={{session_id}}",
        }


# --- the checks ------------------------------------------------------------------------------------------

class Run(harness.Checks):
    CHECKS = [
        ("hosted page", "hosted_page"),
        ("pay", "pay"),
        ("cancel", "cancel"),
        ("cancel distributed", "cancel_distributed"),
        ("back", "back"),
        ("reject", "reject"),
        ("pay, scenarios", "scenarios"),
        ("custom scheme", "custom_scheme"),
        ("no merchant_urls", "no_merchant_urls"),
        ("escaping", "escaping"),
    ]

    def __init__(self, api: Api, merchant: Merchant, driver, artifacts, screenshot):
        super().__init__(driver, artifacts)
        self.api, self.merchant, self.screenshot = api, merchant, screenshot

    # helpers

    def create(self, merchant_urls: dict | None, cart: dict = CART, scenario: str | None = None) -> tuple[str, str]:
        """A KP session (under scenario, if given) and an HPP session on it; returns (hpp session id, redirect_url)."""
        status, kp = self.api.call("POST", "/payments/v1/sessions", cart,
                                   headers={"Sandbox-Scenario": scenario} if scenario else None)
        expect(status == 200 and isinstance(kp, dict) and kp.get("session_id"), f"POST /payments/v1/sessions: {status} {kp}")
        body = {"payment_session_url": f"{self.api.base}/payments/v1/sessions/{kp['session_id']}",
                "options": {"place_order_mode": "NONE"}}
        if merchant_urls is not None:
            body["merchant_urls"] = merchant_urls
        status, hpp = self.api.call("POST", "/hpp/v1/sessions", body)
        expect(status == 201 and isinstance(hpp, dict) and hpp.get("session_id") and hpp.get("redirect_url"),
               f"POST /hpp/v1/sessions: {status} {hpp}")
        expect(hpp["redirect_url"].startswith("http"), f"redirect_url is not absolute: {hpp['redirect_url']}")
        return hpp["session_id"], hpp["redirect_url"]

    def open(self, url: str) -> None:
        bk.clear_events(self.d)
        self.d.get(url)
        status = bk.document_status(self.d)
        expect(status == 200, f"GET {url} answered {status}")
        bk.follow_until(self.d, lambda d: d.find_element(By.ID, "pay"), WAIT)

    def press(self, button: str) -> None:
        bk.clear_events(self.d)
        self.d.find_element(By.ID, button).click()  # a native click: a real user gesture

    def landed(self, path: str) -> tuple[str, dict]:
        """Wait for the browser to reach the merchant at path after a form POST answered 303; returns
        (path, query) once the merchant server has seen the same request."""
        url = bk.follow_until(self.d, lambda d: d.current_url.startswith(self.merchant.base + path) and d.current_url, WAIT)
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query))
        def seen(_):
            return any(h[1:] == (path, query) for h in self.merchant.hits)

        expect(bk.follow_until(self.d, seen, WAIT), f"the merchant server never saw {url}")
        hops = bk.navigation_attempts(self.d)
        expect(any(h["method"] == "POST" for h in hops) and hops[-1]["status_of_previous"] == 303,
               f"expected a form POST answered 303, got {[(h['method'], h['url'], h['status_of_previous']) for h in hops]}")
        return path, query

    # checks

    def hosted_page(self) -> str:
        sid, url = self.create(self.merchant.urls())
        before = self.api.hpp_status(sid)["status"]
        expect(before == "WAITING", f"status before the page was opened: {before}, expected WAITING")
        self.open(url)
        main = self.js("var m = document.querySelector('main#hpp'); return m && [m.dataset.sessionId, m.dataset.status]")
        expect(main == [sid, "IN_PROGRESS"], f"main#hpp [data-session-id, data-status] = {main}, expected [{sid}, IN_PROGRESS]")
        lines = self.js("return Array.from(document.querySelectorAll('#order-lines .order-line'),"
                        " r => [r.querySelector('.name').innerText, r.querySelector('.amount').innerText])")
        expect(lines == [["Battery Power Pack", "595.00 GBP"], ["Shipping", "29.00 GBP"]], f"order lines {lines}")
        total = self.js("var t = document.getElementById('total-amount');"
                        " return t && [t.dataset.minorUnits, t.dataset.currency, t.innerText]")
        expect(total == ["62400", "GBP", "624.00 GBP"], f"#total-amount [data-minor-units, data-currency, text] = {total}")
        for b in BUTTONS:
            el = self.d.find_element(By.ID, b)
            expect(el.is_displayed() and el.is_enabled(), f"#{b} is not a visible, enabled control")
            how = self.js("return [arguments[0].form && arguments[0].form.method, arguments[0].formAction]", el)
            expect(how[0] == "post" and how[1].endswith(f"/{sid}/{b}"), f"#{b} submits {how}, expected POST to …/{sid}/{b}")
        marked = self.js("var box = document.getElementById('sandbox-controls');"
                         " return !!box && box.contains(document.getElementById('reject'))"
                         " && !box.contains(document.getElementById('pay')) && /sandbox/i.test(box.innerText)")
        expect(marked, "#reject is not in a #sandbox-controls box of its own (without #pay) that says 'sandbox'")
        width, scroll = self.js("return [innerWidth, document.documentElement.scrollWidth]")
        expect(width == 390 and scroll <= width, f"page is {scroll} px wide in a {width} px viewport")
        after = self.api.hpp_status(sid)["status"]
        expect(after == "IN_PROGRESS", f"status after the page was opened: {after}, expected IN_PROGRESS")
        w, h = bk.screenshot_full_page(self.d, str(self.screenshot))
        return f"2 lines, total 624.00 GBP, 4 buttons; WAITING -> IN_PROGRESS; screenshot {w}x{h} {self.screenshot}"

    def unavailable(self, url: str) -> tuple[str, int]:
        """Open a page that can no longer be paid; returns (data-reason, HTTP status)."""
        bk.clear_events(self.d)
        self.d.get(url)
        status = bk.document_status(self.d)
        reason = self.js("var m = document.querySelector('main#hpp-unavailable'); return m && m.dataset.reason")
        expect(reason and not self.d.find_elements(By.CSS_SELECTOR, "form, button"),
               f"{url} still offers the payment form (expected main#hpp-unavailable)")
        return reason, status

    def pay(self) -> str:
        sid, url = self.create(self.merchant.urls())
        self.open(url)
        self.press("pay")
        path, q = self.landed("/success")
        token = q.get("token", "")
        expect(q.get("sid") == sid, f"sid={q.get('sid')!r}, expected the HPP session id {sid}")
        expect(re.fullmatch(r"[A-Za-z0-9-]{16,}", token), f"token={token!r} is not an authorization token")
        session = self.api.hpp_status(sid)
        expect(session.get("status") == "COMPLETED", f"HPP status {session.get('status')}, expected COMPLETED")
        expect(session.get("authorization_token") == token,
               f"HPP authorization_token {session.get('authorization_token')!r} differs from the URL's {token!r}")
        status, order = self.api.call("POST", f"/payments/v1/authorizations/{token}/order", CART)
        expect(status == 200 and isinstance(order, dict) and order.get("order_id"),
               f"create order with the token: {status} {order}")
        again = self.unavailable(url)
        expect(again == ("completed", 200), f"reopened after paying: (data-reason, status) = {again}")
        return f"{path}?sid=<id>&token={token[:8]}…; COMPLETED; order placed; reopened: completed"

    def cancel(self) -> str:
        # eCommerce: "a cancel URL is treated as back, so the session is not cancelled" (klarna-api.md §4.1).
        sid, url = self.create(self.merchant.urls())
        self.open(url)
        self.press("cancel")
        path, q = self.landed("/cancel")
        expect(q.get("sid") == sid, f"sid={q.get('sid')!r}, expected {sid}")
        status = self.api.hpp_status(sid).get("status")
        expect(status == "BACK", f"HPP status {status}, expected BACK (cancel in eCommerce)")
        return f"{path}?sid=<id>; {status} (eCommerce: cancel is treated as back)"

    def cancel_distributed(self) -> str:
        # A session sent to the shopper (SMS, e-mail) is not eCommerce: cancel ends it, CANCELLED.
        sid, url = self.create(self.merchant.urls())
        status, body = self.api.call("POST", f"/hpp/v1/sessions/{sid}/distribution",
                                     {"method": "email", "contact_information": {"email": "shopper@example.com"}})
        expect(status in (201, 204), f"POST …/distribution: {status} {body}")
        self.open(url)
        self.press("cancel")
        path, q = self.landed("/cancel")
        expect(q.get("sid") == sid, f"sid={q.get('sid')!r}, expected {sid}")
        status = self.api.hpp_status(sid).get("status")
        expect(status == "CANCELLED", f"HPP status {status}, expected CANCELLED")
        again = self.unavailable(url)
        expect(again[0] == "cancelled", f"reopened after cancelling: (data-reason, status) = {again}")
        return f"{path}?sid=<id>; CANCELLED; reopened: cancelled ({again[1]})"

    def back(self) -> str:
        sid, url = self.create(self.merchant.urls())
        self.open(url)
        self.press("back")
        path, q = self.landed("/back")
        expect(q.get("sid") == sid, f"sid={q.get('sid')!r}, expected {sid}")
        status = self.api.hpp_status(sid).get("status")
        expect(status == "BACK", f"HPP status {status}, expected BACK")
        return f"{path}?sid=<id>; {status}"

    def reject(self) -> str:
        sid, url = self.create(self.merchant.urls())
        self.open(url)
        self.press("reject")
        path, q = self.landed("/failure")
        expect(q.get("sid") == sid, f"sid={q.get('sid')!r}, expected {sid}")
        session = self.api.hpp_status(sid)
        expect(session.get("status") == "FAILED", f"HPP status {session.get('status')}, expected FAILED")
        expect(not session.get("authorization_token"), f"a rejected session has a token: {session}")
        return f"{path}?sid=<id>; FAILED, no token"

    def scenarios(self) -> str:
        # #pay follows the KP session's scenario for klarna.payments.authorize.
        seen = []
        for scenario, path, expected in (("reject", "/failure", "FAILED"), ("invalid-client-token", "/error", "ERROR"),
                                         ("cancel", "/back", "BACK")):
            sid, url = self.create(self.merchant.urls(), scenario=scenario)
            self.open(url)
            self.press("pay")
            _, q = self.landed(path)
            expect(q.get("sid") == sid, f"{scenario}: sid={q.get('sid')!r}, expected {sid}")
            status = self.api.hpp_status(sid).get("status")
            expect(status == expected, f"{scenario}: HPP status {status}, expected {expected}")
            seen.append(f"{scenario} -> {path} {status}")
        return "; ".join(seen)

    def custom_scheme(self) -> str:
        urls = dict(self.merchant.urls(), success="myapp://klarna-redirect?sid={{session_id}}")
        sid, url = self.create(urls)
        self.open(url)
        self.press("pay")
        # Chromium does not navigate to an unknown scheme: the tab stays put, the attempt is in the log.
        attempted = bk.wait_for_url(self.d, "myapp://", WAIT)
        expect(attempted == f"myapp://klarna-redirect?sid={sid}", f"attempted {attempted!r}")
        hop = [h for h in bk.navigation_attempts(self.d) if h["url"] == attempted][-1]
        expect(hop["status_of_previous"] == 303, f"myapp:// was not reached by a 303: {hop}")
        status = self.api.hpp_status(sid).get("status")
        expect(status == "COMPLETED", f"HPP status {status}, expected COMPLETED")
        return f"303 to myapp://klarna-redirect?sid=<id> (attempted, not loaded); {status}"

    def no_merchant_urls(self) -> str:
        sid, url = self.create(None)
        self.open(url)
        hits = len(self.merchant.hits)
        self.press("pay")
        # The POST answers the result page itself (or redirects within the sandbox to one).
        hop = bk.follow_until(self.d, lambda d: next(
            (h for h in reversed(bk.navigation_attempts(d)) if h["status"] not in (None, 301, 302, 303, 307)), None), WAIT)
        expect(hop["status"] == 200, f"result page answered {hop['status']} ({hop['method']} {hop['url']})")
        expect(self.d.current_url.startswith(self.api.base), f"left the sandbox: {self.d.current_url}")
        expect(len(self.merchant.hits) == hits, "the merchant server was called")
        result = self.js("var m = document.querySelector('main#hpp-result'), s = document.getElementById('status');"
                         " return m && [m.dataset.status, s && s.innerText, document.getElementById('result-title').innerText]")
        expect(result and result[:2] == ["COMPLETED", "COMPLETED"], f"main#hpp-result [data-status, #status, title] = {result}")
        expect(not self.d.find_elements(By.ID, "pay"), "the result page still offers #pay")
        status = self.api.hpp_status(sid).get("status")
        expect(status == "COMPLETED", f"HPP status {status}, expected COMPLETED")
        return f"{hop['method']} -> 200 result page '{result[2]}'; {status}"

    def escaping(self) -> str:
        cart = json.loads(json.dumps(CART))
        cart["order_lines"][0]["name"] = HTML_NAME
        _, url = self.create(self.merchant.urls(), cart)
        self.d.get(url)
        self.no_alert("the line name")
        self.open(url)
        name = self.js("var n = document.querySelector('#order-lines .order-line .name'); return n && n.innerText")
        expect(name == HTML_NAME, f"the first line's name reads {name!r}, expected the text {HTML_NAME!r}")
        injected = self.js("return Array.from(document.querySelectorAll('img, [onerror]'), e => e.outerHTML)")
        expect(not injected, f"the line name became markup: {injected}")
        return "the name shows as text; no <img>, no [onerror], no alert"


def main() -> int:
    ap = harness.arguments(__doc__, timeout=240, update_docs="also copy the screenshot to docs/hosted-page.png")
    ap.add_argument("--screenshot", help="the page's screenshot (default: ARTIFACTS/hosted-page.png)")
    args = ap.parse_args()
    artifacts = harness.artifacts_dir(args.artifacts)
    screenshot = pathlib.Path(args.screenshot or artifacts / "hosted-page.png").resolve()
    screenshot.unlink(missing_ok=True)  # only a passing "hosted page" check writes it

    def start(session: harness.Session) -> Run:
        namespace = f"browser-e2e-{uuid.uuid4().hex[:8]}"
        base = session.start_sandbox("sandbox.log", health_headers={"Sandbox-Namespace": namespace},
                                     note=f"namespace {namespace}")
        api = Api(base, namespace)
        merchant = session.start_merchant(Merchant)
        driver = session.start_browser(390, 844, driver_log="chromedriver.log")
        return Run(api, merchant, driver, artifacts, screenshot)

    return harness.run(args, artifacts, start, docs=[(screenshot, ROOT / "docs" / "hosted-page.png")])


if __name__ == "__main__":
    sys.exit(main())
