#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Swedbank Pay's checkout pages (payment menu, 3-D Secure, Swish, view-checkout), end to end in headless
Chromium (390x844, a phone).

Starts the sandbox (or uses a running one) and a tiny merchant server on 127.0.0.1, creates payment orders
with POST /psp/paymentorders (a Bearer token of its own per order, so each check has its own namespace),
opens the order's redirect-checkout page, pays with new and saved cards (frictionless and with the 3-D
Secure challenge page), Swish and a web-based method (invoice), cancels, and checks where the browser lands
(completeUrl, cancelUrl, the menu with #attempt-error) and what GET /psp/paymentorders/{id} says. Also: the
order's Sandbox-Scenario (card declined, 3-D Secure declined, Swish declined then a card), Swedbank Pay's test
amount 900361 (insufficient funds), the 3-D Secure variants (a slow ACS page, the end POSTed to completeUrl, the
challenge abandoned), an invalid card number or expiry (400 with #card-error), a paid or aborted
order's page, an unknown token, HTML in the order's texts (menu; the payee name on the 3-D Secure page; the payer's
number on the menu and the Swish waiting page, and one typed into the Swish form), view-checkout (a merchant page that loads the script
and opens the menu in an iframe: onPaid, onAborted, neither) and the embedded result page's postMessage seen by
a plain iframe's parent. Saves a full-page screenshot of the menu. The element ids and data attributes used are
the HTML contract in Sources/SwedbankPaySandbox/Pages/CheckoutPage.swift.

Usage:  scripts/browser/test_swedbankpay_pages.py [--binary PATH | --base-url URL] [--artifacts DIR]
                                                  [--screenshot PATH] [--update-docs] [--timeout S]
                                                  [--only NAME ...]
Needs:  scripts/browser/install-browser.sh (Chromium, chromedriver, fonts; selenium in .build/browser-venv)
Prints one line per check, then "N passed, N failed"; exits 1 when anything failed.
"""
from __future__ import annotations

import os
import pathlib
import re
import sys
import time
import urllib.parse
import uuid

sys.dont_write_bytecode = True  # no __pycache__ in scripts/browser
import harness  # noqa: E402  (first: it says how to install selenium when it is missing)
from harness import ROOT, WAIT, CheckFailed, bk, expect  # noqa: E402
from selenium.common.exceptions import NoAlertPresentException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

SWISH_WAIT = 15  # the Swish outcome is shown about 3 s after the attempt; the waiting page reloads every 2 s
PROBLEM = "https://api.payex.com/psp/errordetail/"
PAYER_MSISDN = "+46739000001"
SAVED_CARDS = {"476173******0416": "3ds", "522661******3406": "3ds", "492500******0004": "frictionless"}
FRICTIONLESS = ("4925000000000004", "12/33", "123")
THREE_DS = ("4761739001010416", "12/33", "123")
NOT_ON_PAGE = {"ApplePay", "GooglePay"}
SSN = "600307-1161"  # Swedbank Pay's Swedish invoice test person
SDK_PREPARE = {  # the iOS SDK's prepare-payment body (the app's own calls, for a Swish start without a number)
    "integration": "App", "deviceAcceptedWallets": "ApplePay;ClickToPay",
    "client": {"userAgent": "SwedbankPaySDK-iOS/5.0.2", "screenHeight": "2532", "screenWidth": "1170", "screenColorDepth": "24"},
    "browser": {"acceptHeader": "text/html", "timeZoneOffset": "120", "javascriptEnabled": True, "language": "sv-SE"},
    "service": {"name": "SwedbankPaySDK-iOS", "version": "5.0.2"}, "presentationSdk": {"name": "iOS", "version": "5.0.2"},
}


def hostile(label: str) -> str:
    """Text that is markup unless escaped: an attribute break-out with an event handler, a script element, a quote
    and an entity that must stay text. The label tells which field leaked."""
    return f"\"><img src=x onerror=alert('{label}')><script>alert('{label}')</script>'&amp; {label}"


# --- the sandbox -----------------------------------------------------------------------------------------

class Order:
    """A payment order as created: its Bearer token, id (/psp/paymentorders/…) and operations."""

    def __init__(self, bearer: str, body: dict, request: dict):
        self.bearer, self.body, self.request = bearer, body, request
        po = body.get("paymentOrder") or {}
        self.id: str = po.get("id", "")
        ops = body.get("operations") or po.get("operations") or []
        self.ops = {o.get("rel"): o for o in ops if isinstance(o, dict)}
        self.instruments: list[str] = po.get("availableInstruments") or []

    def href(self, rel: str) -> str:
        op = self.ops.get(rel)
        expect(op and op.get("href"), f"order {self.id} has no {rel} operation (has {sorted(self.ops)})")
        return op["href"]

    @property
    def checkout(self) -> str:
        return self.href("redirect-checkout")

    @property
    def token(self) -> str:
        """The checkout token: the last path segment of redirect-checkout."""
        return urllib.parse.urlsplit(self.checkout).path.rstrip("/").rsplit("/", 1)[-1]


class Api:
    """The sandbox's Swedbank Pay API; every order gets a Bearer token (and so a namespace) of its own."""

    def __init__(self, base: str, run_id: str):
        self.base, self.run_id = base, run_id
        self.count = 0

    def call(self, method: str, url: str, body=None, headers: dict | None = None,
             form: dict | list | None = None) -> tuple[int, dict, object]:
        """(status, response headers, JSON or text). url may be a path below base."""
        if url.startswith("/"):
            url = self.base + url
        return harness.http(method, url, body, headers, form=form, json_type="application/json;version=3.1")

    def create(self, merchant: "Merchant", scenario: str | None = None, **changes) -> Order:
        self.count += 1
        bearer = f"pages-{self.run_id}-{self.count}"
        po = {
            "operation": "Purchase", "currency": "SEK", "amount": 1500, "vatAmount": 375,
            "description": "Test Purchase", "userAgent": "selenium", "language": "sv-SE",
            "urls": {"hostUrls": [merchant.base], "completeUrl": merchant.base + "/complete",
                     "cancelUrl": merchant.base + "/cancel"},
            "payeeInfo": {"payeeId": "5cabf558-5283-482f-b252-4d58e06f6f3b", "payeeReference": f"AB{self.count:04d}",
                          "payeeName": "Test Shop"},
            "payer": {"payerReference": f"sel-{self.count}", "msisdn": PAYER_MSISDN},
        }
        for key, value in changes.items():  # payeeName=… goes into payeeInfo, everything else at the top
            if key == "payeeName":
                po["payeeInfo"]["payeeName"] = value
            elif value is None:
                po.pop(key, None)
            else:
                po[key] = value
        headers = {"Authorization": f"Bearer {bearer}"}
        if scenario:
            headers["Sandbox-Scenario"] = scenario
        request = {"paymentorder": po}
        status, _, body = self.call("POST", "/psp/paymentorders", request, headers)
        expect(status in (200, 201) and isinstance(body, dict) and (body.get("paymentOrder") or {}).get("id"),
               f"POST /psp/paymentorders: {status} {str(body)[:300]}")
        order = Order(bearer, body, po)
        expect(order.checkout.startswith("http"), f"redirect-checkout is not absolute: {order.checkout}")
        return order

    def order(self, order: Order) -> dict:
        status, _, body = self.call("GET", order.id, headers={"Authorization": f"Bearer {order.bearer}"})
        expect(status == 200 and isinstance(body, dict) and body.get("paymentOrder"),
               f"GET {order.id}: {status} {str(body)[:300]}")
        return body["paymentOrder"]

    def status(self, order: Order) -> str:
        return self.order(order).get("status")

    def failed_attempts(self, order: Order) -> int | None:
        """How many failed attempts GET …/failedattempts lists (None when it does not answer)."""
        try:
            status, _, body = self.call("GET", order.id + "/failedattempts",
                                        headers={"Authorization": f"Bearer {order.bearer}"})
            if status == 200 and isinstance(body, dict):
                return len((body.get("failedAttempts") or {}).get("failedAttemptList") or [])
        except OSError:
            pass
        return None


# --- the merchant ----------------------------------------------------------------------------------------

VIEW_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>shop</title></head>
<body><h1 id="shop">Test Shop</h1>
<div id="checkout"></div>
<pre id="events"></pre>
<script src="%(script)s"></script>
<script>
  function log(name, e) {
    var line = document.createElement("div");
    line.className = "event";
    line.dataset.name = name;
    line.textContent = JSON.stringify(e);
    document.getElementById("events").appendChild(line);
  }
  window.__errors = [];
  window.addEventListener("error", function (e) { window.__errors.push(String(e.message)); });
  try {
    window.payex.hostedView.checkout({
      container: { checkout: "checkout" },
      %(callbacks)s
    }).open("checkout");
  } catch (e) { window.__errors.push("open: " + e); }
</script>
</body></html>
"""

ON_PAID = """onPaid: function (e) { document.title = "paid:" + e.paymentOrder.id; log("onPaid", e); },"""
ON_ABORTED = """onAborted: function (e) { document.title = "aborted:" + e.paymentOrder.id; log("onAborted", e); },"""

EMBED_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>embed</title></head>
<body><h1 id="shop">Test Shop (a plain iframe)</h1>
<pre id="messages"></pre>
<script>
  window.addEventListener("message", function (e) {
    var line = document.createElement("div");
    line.className = "message";
    line.dataset.origin = e.origin;
    line.dataset.fromFrame = String(e.source === document.getElementById("menu").contentWindow);
    line.textContent = JSON.stringify(e.data);
    document.getElementById("messages").appendChild(line);
  });
</script>
<iframe id="menu" src="%(menu)s" style="width:100%%;height:700px;border:0"></iframe>
</body></html>
"""


class Merchant(harness.Merchant):
    """Where completeUrl and cancelUrl point (main#merchant-complete, main#merchant-cancel), and the merchant
    pages that embed view-checkout. Records each request's method, path and query."""

    extra_headers = {"Cache-Control": "no-store"}

    def __init__(self):
        self.pages: dict[str, str] = {}
        super().__init__()

    def page(self, path: str) -> bytes | None:
        if path in self.pages:
            return self.pages[path].encode()
        if path in ("/complete", "/cancel"):
            name = path.strip("/")
            return (f"<!doctype html><title>merchant {name}</title>"
                    f"<main id=merchant-{name}><h1>merchant {path}</h1></main>").encode()
        return None

    def shop(self, name: str, script: str, callbacks: str) -> str:
        """A merchant page that loads view-checkout (script) and opens it in #checkout; returns its URL."""
        path = f"/shop/{name}"
        self.pages[path] = VIEW_PAGE % {"script": script.replace('"', "&quot;"), "callbacks": callbacks}
        return self.base + path

    def embed(self, name: str, menu: str) -> str:
        """A merchant page with the menu in a plain iframe#menu that records every message in #messages."""
        path = f"/embed/{name}"
        self.pages[path] = EMBED_PAGE % {"menu": menu.replace('"', "&quot;")}
        return self.base + path


# --- the checks ------------------------------------------------------------------------------------------

class Run(harness.Checks):
    CHECKS = [
        ("menu", "menu"),
        ("card frictionless", "card_frictionless"),
        ("card 3ds approve", "card_3ds"),
        ("saved cards", "saved_cards"),
        ("card scenarios", "card_declined"),
        ("3ds slow acs", "card_3ds_slow_acs"),
        ("3ds cres posted", "card_3ds_cres_posted"),
        ("3ds abandoned", "card_3ds_abandoned"),
        ("invalid card", "invalid_card"),
        ("swish", "swish"),
        ("swish declined", "swish_declined"),
        ("invoice", "web_method"),
        ("cancel", "cancel"),
        ("view-checkout onPaid", "view_on_paid"),
        ("view-checkout redirect", "view_redirect"),
        ("embed postMessage", "embed_messages"),
        ("unknown token", "unknown_token"),
        ("3ds escaping", "acs_escaping"),
        ("swish escaping", "swish_escaping"),
    ]
    name_width = 22

    def __init__(self, api: Api, merchant: Merchant, driver, artifacts: pathlib.Path, screenshot: pathlib.Path):
        super().__init__(driver, artifacts)
        self.api, self.merchant, self.screenshot = api, merchant, screenshot

    # helpers

    def open(self, order: Order, query: str = "") -> None:
        """Open the order's payment menu and wait for it."""
        url = order.checkout + query
        bk.clear_events(self.d)
        self.d.get(url)
        status = bk.document_status(self.d)
        expect(status == 200, f"GET {url} answered {status}")
        self.wait_menu()

    def wait_menu(self, timeout: float = WAIT) -> None:
        bk.follow_until(self.d, lambda d: d.find_element(By.CSS_SELECTOR, "main#swedbankpay-checkout #methods"), timeout)

    def fill(self, element_id: str, value: str) -> None:
        el = self.d.find_element(By.ID, element_id)
        el.clear()
        el.send_keys(value)

    def press(self, css: str) -> None:
        bk.clear_events(self.d)
        self.d.find_element(By.CSS_SELECTOR, css).click()  # a native click: a real user gesture

    def pay_new_card(self, card: tuple[str, str, str]) -> None:
        number, expiry, cvc = card
        self.fill("card-number", number)
        self.fill("card-expiry", expiry)
        self.fill("card-cvc", cvc)
        self.press("#pay-card")

    def pay_saved_card(self, masked: str) -> None:
        self.press(f'form.saved-card-form button.pay-saved-card[data-masked-pan="{masked}"]')

    def landed(self, path: str, timeout: float = WAIT, via_303: bool = True) -> str:
        """Wait for the browser to reach the merchant at path (completeUrl, cancelUrl); check the merchant
        server saw it and, with via_303, that a 303 led there. Returns the URL."""
        def there(d):
            u = d.current_url
            if u.startswith(self.merchant.base + path):
                return u
            return None

        try:
            url = bk.follow_until(self.d, there, timeout)
        except TimeoutError as e:
            raise CheckFailed(f"never reached the merchant's {path}: {e}; {self.where()}") from None
        expect(bk.follow_until(self.d, lambda _: any(h[1] == path for h in self.merchant.hits), WAIT),
               f"the merchant server never saw {path}")
        expect(self.d.find_elements(By.ID, f"merchant-{path.strip('/')}"), f"{url} is not the merchant's {path} page")
        if via_303:
            hops = bk.navigation_attempts(self.d)
            last = [h for h in hops if h["url"].startswith(self.merchant.base + path)]
            expect(last and last[-1]["status_of_previous"] == 303,
                   f"{path} was not reached by a 303: {[(h['method'], h['url'], h['status_of_previous']) for h in hops]}")
        return url

    def where(self) -> str:
        """What the tab shows now, for messages: URL and the main element's id and data attributes."""
        try:
            main = self.js("var m = document.querySelector('main'); if (!m) return null;"
                           " var a = {id: m.id}; for (var k in m.dataset) a[k] = m.dataset[k];"
                           " var e = document.getElementById('attempt-error') || document.getElementById('card-error');"
                           " if (e) a.error = [e.id, e.dataset.problemType, e.innerText.slice(0, 120)]; return a")
            return f"at {self.d.current_url} main={main}"
        except Exception as e:
            return f"at ? ({type(e).__name__})"

    def attempt_error(self, timeout: float = WAIT) -> str:
        """Wait for the menu again with #attempt-error; returns its data-problem-type."""
        try:
            # Read in the same step as the find: a page that navigates on (the Swish waiting page) leaves no stale element.
            (problem_type,) = bk.follow_until(self.d, lambda d: (d.find_element(
                By.CSS_SELECTOR, "main#swedbankpay-checkout #attempt-error").get_attribute("data-problem-type") or "",), timeout)
        except TimeoutError as e:
            raise CheckFailed(f"no main#swedbankpay-checkout with #attempt-error: {e}; {self.where()}") from None
        return problem_type

    def challenge(self, timeout: float = WAIT) -> None:
        try:
            bk.follow_until(self.d, lambda d: d.find_element(By.CSS_SELECTOR, "main#acs-challenge #acs-approve")
                            and d.find_element(By.ID, "acs-cancel"), timeout)
        except TimeoutError as e:
            raise CheckFailed(f"no main#acs-challenge with #acs-approve and #acs-cancel: {e}; {self.where()}") from None

    def expect_status(self, order: Order, expected: str) -> str:
        status = self.api.status(order)
        expect(status == expected, f"order status {status}, expected {expected}")
        return status

    def unavailable(self, order: Order) -> tuple[str, int]:
        """Open a page that can no longer be paid; returns (data-reason, HTTP status)."""
        bk.clear_events(self.d)
        self.d.get(order.checkout)
        status = bk.document_status(self.d)
        reason = self.js("var m = document.querySelector('main#swedbankpay-unavailable'); return m && m.dataset.reason")
        expect(reason, f"{order.checkout} shows no main#swedbankpay-unavailable (HTTP {status}); {self.where()}")
        expect(not self.d.find_elements(By.CSS_SELECTOR, "form, button, #methods"),
               f"{order.checkout} (reason {reason}) still offers forms or buttons")
        return reason, status

    # checks

    def menu(self) -> str:
        order = self.api.create(self.merchant)
        self.open(order)
        main = self.js("var m = document.querySelector('main#swedbankpay-checkout');"
                       " return m && [m.dataset.token, m.dataset.status, m.dataset.embed]")
        expect(main == [order.token, "Initialized", "0"],
               f"main#swedbankpay-checkout [data-token, data-status, data-embed] = {main},"
               f" expected [{order.token}, Initialized, 0]")
        total = self.js("var t = document.querySelector('#order-summary #total-amount');"
                        " return t && [t.dataset.minorUnits, t.dataset.currency, t.innerText]")
        expect(total and total[:2] == ["1500", "SEK"],
               f"#order-summary #total-amount [data-minor-units, data-currency, text] = {total}")
        texts = self.js("return ['order-description', 'payee-name'].map(function (i) {"
                        " var e = document.querySelector('#order-summary #' + i); return e && e.innerText.trim() })")
        expect(texts == ["Test Purchase", "Test Shop"], f"#order-description, #payee-name = {texts}")

        methods = self.js("return Array.from(document.querySelectorAll('#methods section.method'), s => s.dataset.method)")
        offered = [m for m in order.instruments if m not in NOT_ON_PAGE]
        expect(sorted(methods) == sorted(offered),
               f"section.method[data-method] = {methods}, expected {offered} (the order's {order.instruments}"
               f" without Apple Pay, Google Pay)")

        saved = self.js("return Array.from(document.querySelectorAll("
                        "'section.method[data-method=CreditCard] form.saved-card-form button.pay-saved-card'),"
                        " b => b.dataset.maskedPan)")
        expect(sorted(saved) == sorted(SAVED_CARDS), f"saved cards {saved}, expected {sorted(SAVED_CARDS)}")
        card = self.js("var f = document.querySelector('section.method[data-method=CreditCard] form#card-form');"
                       " return !!f && ['card-number', 'card-expiry', 'card-cvc', 'pay-card'].filter("
                       " i => !f.querySelector('#' + i))")
        expect(card == [], f"form#card-form in the CreditCard section: missing {card if card is not False else 'the form'}")
        if "Swish" in offered:
            swish = self.js("var f = document.querySelector('section.method[data-method=Swish] form#swish-form');"
                            " var i = f && f.querySelector('#swish-msisdn');"
                            " return f && [i && i.value, !!f.querySelector('#pay-swish')]")
            expect(swish == [PAYER_MSISDN, True],
                   f"form#swish-form [#swish-msisdn value, has #pay-swish] = {swish}, expected [{PAYER_MSISDN}, true]")
        web = [m for m in offered if m not in ("CreditCard", "Swish")]
        for m in web:
            ok = self.js("var s = Array.from(document.querySelectorAll('section.method')).find(s => s.dataset.method === arguments[0]);"
                         " var f = s && Array.from(s.querySelectorAll('form.web-form')).find(f => f.dataset.method === arguments[0]);"
                         " return !!f && !!document.getElementById('ssn-' + arguments[0]) && !!document.getElementById('pay-' + arguments[0])"
                         " && f.contains(document.getElementById('pay-' + arguments[0]))", m)
            expect(ok, f"{m}: no form.web-form[data-method={m}] with #ssn-{m} and #pay-{m} in its section")
        cancel = self.js("var b = document.getElementById('cancel-payment');"
                         " return b && [b.form && b.form.method, b.formAction]")
        expect(cancel and cancel[0] == "post", f"#cancel-payment [form method, action] = {cancel}, expected a form POST")
        for el in self.d.find_elements(By.CSS_SELECTOR, "#pay-card, #cancel-payment, button.pay-saved-card"):
            expect(el.is_displayed() and el.is_enabled(), f"{el.get_attribute('outerHTML')[:80]} is not visible and enabled")
        width, scroll = self.js("return [innerWidth, document.documentElement.scrollWidth]")
        expect(scroll <= width, f"page is {scroll} px wide in a {width} px viewport")
        external = self.js("return Array.from(document.querySelectorAll('script[src], link[href], img[src], iframe[src]'),"
                           " e => e.src || e.href).filter(u => !u.startsWith(location.origin) && !u.startsWith('data:'))")
        expect(not external, f"the page loads external assets: {external}")
        w, h = bk.screenshot_full_page(self.d, str(self.screenshot))

        # Saved cards only for a payer with a payerReference.
        anonymous = self.api.create(self.merchant, payer={"msisdn": PAYER_MSISDN})
        self.open(anonymous)
        unsaved = self.d.find_elements(By.CSS_SELECTOR, "form.saved-card-form, button.pay-saved-card")
        expect(not unsaved and self.d.find_elements(By.ID, "card-form"),
               f"without payer.payerReference: {len(unsaved)} saved-card elements (expected none) or no #card-form")

        # HTML in the order's texts shows as text.
        script, bold = "<script>alert(1)</script>", "<b>x</b>"
        order = self.api.create(self.merchant, description=script, payeeName=bold)
        self.d.get(order.checkout)
        self.no_alert("the description")
        self.wait_menu()
        texts = self.js("return ['order-description', 'payee-name'].map(function (i) {"
                        " var e = document.getElementById(i); return e && e.innerText.trim() })")
        expect(texts == [script, bold], f"#order-description, #payee-name read {texts}, expected the texts {[script, bold]}")
        injected = self.js("return Array.from(document.querySelectorAll("
                           "'#order-summary b, #order-summary script, #order-description *, #payee-name *'), e => e.outerHTML)")
        expect(not injected, f"the texts became markup: {injected}")
        return (f"{len(methods)} methods {methods}, {len(saved)} saved cards (none without payerReference), 1500 SEK;"
                f" HTML shows as text, no alert;"
                f" screenshot {w}x{h} {self.screenshot}")

    def card_frictionless(self) -> str:
        order = self.api.create(self.merchant)
        self.open(order)
        self.pay_new_card(FRICTIONLESS)
        self.landed("/complete")
        status = self.expect_status(order, "Paid")
        reason, http = self.unavailable(order)
        expect(reason == "paid", f"reopened after paying: data-reason={reason!r}, expected paid")
        return f"-> 303 completeUrl; {status}; reopened: {reason} ({http})"

    def card_3ds(self) -> str:
        order = self.api.create(self.merchant)
        self.open(order)
        self.pay_new_card(THREE_DS)
        self.challenge()
        self.press("#acs-approve")
        self.landed("/complete")
        status = self.expect_status(order, "Paid")
        saved = self.api.create(self.merchant)
        self.open(saved)
        self.pay_saved_card("522661******3406")
        self.challenge()
        self.press("#acs-approve")
        self.landed("/complete")
        status2 = self.expect_status(saved, "Paid")
        return (f"new 4761…0416: #acs-challenge -> #acs-approve -> 303 completeUrl, {status};"
                f" saved 522661…3406: the same, {status2}")

    def saved_cards(self) -> str:
        order = self.api.create(self.merchant)
        self.open(order)
        self.pay_saved_card("476173******0416")
        self.challenge()
        self.press("#acs-cancel")
        problem = self.attempt_error()
        expect(problem.endswith("creditcard/3dsecuredeclined") and problem.startswith(PROBLEM),
               f"#attempt-error data-problem-type={problem!r}, expected {PROBLEM}creditcard/3dsecuredeclined")
        mid = self.api.status(order)
        expect(mid == "Initialized", f"order status after the cancelled challenge {mid}, expected Initialized")
        self.pay_saved_card("492500******0004")
        self.landed("/complete")
        status = self.expect_status(order, "Paid")
        failed = self.api.failed_attempts(order)
        return (f"476173…0416 -> #acs-cancel -> #attempt-error {problem.rsplit('/', 2)[-2:]}; 492500…0004 -> 303"
                f" completeUrl; {status} (failedattempts lists {failed})")

    def card_declined(self) -> str:
        order = self.api.create(self.merchant, scenario="swedbankpay-card-declined")
        self.open(order)
        self.pay_new_card(FRICTIONLESS)
        problem = self.attempt_error()
        expect(problem == PROBLEM + "creditcard/carddeclined",
               f"#attempt-error data-problem-type={problem!r}, expected {PROBLEM}creditcard/carddeclined")
        expect(self.d.find_elements(By.ID, "card-form"), "the menu after the failed attempt offers no #card-form")
        status = self.expect_status(order, "Initialized")
        failed = self.api.failed_attempts(order)
        seen = [f"card-declined: #attempt-error creditcard/carddeclined, menu again, {status} (failedattempts lists {failed})"]

        # The payer approves the challenge, the scenario declines it anyway.
        order = self.api.create(self.merchant, scenario="swedbankpay-3ds-declined")
        self.open(order)
        self.pay_new_card(FRICTIONLESS)
        self.challenge()
        self.press("#acs-approve")
        problem = self.attempt_error()
        expect(problem == PROBLEM + "creditcard/3dsecuredeclined",
               f"3ds-declined: #attempt-error data-problem-type={problem!r}, expected {PROBLEM}creditcard/3dsecuredeclined")
        seen.append(f"3ds-declined: challenge, approve -> #attempt-error 3dsecuredeclined, {self.expect_status(order, 'Initialized')}")

        # Test data without a header: amount 900361 is insufficient funds.
        order = self.api.create(self.merchant, amount=900361, vatAmount=180072)
        self.open(order)
        self.pay_new_card(FRICTIONLESS)
        problem = self.attempt_error()
        expect(problem == PROBLEM + "creditcard/acquirerinsufficientfunds",
               f"amount 900361: #attempt-error data-problem-type={problem!r}, expected {PROBLEM}creditcard/acquirerinsufficientfunds")
        seen.append(f"amount 900361: #attempt-error acquirerinsufficientfunds, {self.expect_status(order, 'Initialized')}")
        return "; ".join(seen)

    # The 3-D Secure variants (scenarios swedbankpay-3ds-*, card.authenticate), on a card typed into the page.

    def card_3ds_slow_acs(self) -> str:
        """swedbankpay-3ds-slow-acs: the ACS page's first load answers after 12 s; the browser waits, Approve pays."""
        order = self.api.create(self.merchant, scenario="swedbankpay-3ds-slow-acs")
        self.open(order)
        t0 = time.monotonic()
        self.pay_new_card(THREE_DS)
        self.challenge(timeout=WAIT + 20)
        took = time.monotonic() - t0
        expect(took >= 12, f"the ACS page came after {took:.1f} s, expected at least 12 s")
        self.press("#acs-approve")
        self.landed("/complete")
        return f"#acs-challenge after {took:.1f} s -> #acs-approve -> 303 completeUrl, {self.expect_status(order, 'Paid')}"

    def card_3ds_cres_posted(self) -> str:
        """swedbankpay-3ds-cres-posted: after the challenge the end reaches completeUrl by a form POST, not a 303."""
        order = self.api.create(self.merchant, scenario="swedbankpay-3ds-cres-posted")
        self.open(order)
        self.pay_new_card(THREE_DS)
        self.challenge()
        before = len(self.merchant.hits)
        self.press("#acs-approve")
        self.landed("/complete", via_303=False)
        hops = bk.navigation_attempts(self.d)
        arrived = [h for h in hops if h["url"].startswith(self.merchant.base + "/complete")]
        expect(arrived and arrived[-1]["method"] == "POST" and arrived[-1]["status_of_previous"] is None,
               f"completeUrl was not reached by a form POST: {[(h['method'], h['url'], h['status_of_previous']) for h in hops]}")
        expect(("POST", "/complete") in [(h[0], h[1]) for h in self.merchant.hits[before:]],
               f"the merchant server saw no POST /complete: {self.merchant.hits[before:]}")
        posted_via = [h["url"].split("?")[0].rsplit("/", 2)[-2:] for h in hops if h["method"] == "POST"]
        return f"#acs-approve -> main#acs-post-on -> POST completeUrl (POSTs {posted_via}), {self.expect_status(order, 'Paid')}"

    def card_3ds_abandoned(self) -> str:
        """swedbankpay-3ds-abandoned: the payer leaves the ACS page; the menu shows the problem, the page is gone."""
        order = self.api.create(self.merchant, scenario="swedbankpay-3ds-abandoned")
        self.open(order)
        self.pay_new_card(THREE_DS)
        self.challenge()
        acs = self.d.current_url
        self.open(order)
        problem = self.attempt_error()
        expect(problem == PROBLEM + "creditcard/3dsecureusercancelled",
               f"#attempt-error data-problem-type={problem!r}, expected {PROBLEM}creditcard/3dsecureusercancelled")
        status = self.expect_status(order, "Initialized")
        bk.clear_events(self.d)
        self.d.get(acs)
        http = bk.document_status(self.d)
        expect(http == 400 and self.d.find_elements(By.CSS_SELECTOR, "main#acs-error"),
               f"the abandoned challenge's page again: HTTP {http}; {self.where()}")
        return f"#acs-challenge, back to the menu -> #attempt-error 3dsecureusercancelled, {status}; the ACS page again: {http}"

    def invalid_card(self) -> str:
        order = self.api.create(self.merchant)
        self.open(order)
        seen = []
        for number, expiry, what in (("4925000000000005", "12/33", "number"), ("4925000000000004", "13/20", "expiry")):
            self.fill("card-number", number)
            self.fill("card-expiry", expiry)
            self.fill("card-cvc", "123")
            form = self.js("var f = document.getElementById('card-form');"
                           " return [f.action, f.method, Array.from(new FormData(f))]")
            # The page before the submit may show a #card-error already (the previous number's): wait for the
            # answer's document to replace it, then read the new one in the same step (no stale element).
            before = self.d.find_element(By.TAG_NAME, "html")
            self.press("#pay-card")

            def new_error(d):
                if not bk.is_stale(before):
                    return None
                try:
                    err = d.find_element(By.ID, "card-error")
                    return (err.is_displayed(), err.text.strip())
                except bk.WebDriverException:
                    return None  # the answer's document is still loading
            try:
                displayed, text = bk.follow_until(self.d, new_error, WAIT)
            except TimeoutError as e:
                raise CheckFailed(f"invalid {what}: no #card-error: {e}; {self.where()}") from None
            expect(displayed and text, f"invalid {what}: #card-error is empty or hidden")
            expect(self.d.find_elements(By.CSS_SELECTOR, "main#swedbankpay-checkout #methods #card-form"),
                   f"invalid {what}: the 400 page does not show the menu again")
            posts = [h for h in bk.navigation_attempts(self.d) if h["method"] == "POST"]
            browser_status = posts[-1]["status"] if posts else None
            # The same form, replayed without the browser, for the status.
            status, _, _ = self.api.call(form[1].upper(), form[0], form=[tuple(kv) for kv in form[2]])
            expect(status == 400 and browser_status == 400,
                   f"invalid {what}: POST {form[0]} answered {status} (the browser saw {browser_status}), expected 400")
            seen.append(f"{what} -> 400 #card-error")
        status = self.expect_status(order, "Initialized")
        return f"{'; '.join(seen)}; {status}"

    def swish(self) -> str:
        order = self.api.create(self.merchant)
        self.open(order)
        msisdn = self.d.find_element(By.ID, "swish-msisdn").get_attribute("value")
        expect(msisdn == PAYER_MSISDN, f"#swish-msisdn is {msisdn!r}, expected {PAYER_MSISDN}")
        t0 = time.monotonic()
        self.press("#pay-swish")
        try:
            bk.follow_until(self.d, lambda d: d.find_element(By.CSS_SELECTOR, "main#swish-waiting"), WAIT)
        except TimeoutError as e:
            raise CheckFailed(f"no main#swish-waiting: {e}; {self.where()}") from None
        self.landed("/complete", timeout=SWISH_WAIT, via_303=False)
        took = time.monotonic() - t0
        gets = [h for h in bk.navigation_attempts(self.d) if h["url"].startswith(order.checkout.split("?")[0])]
        status = self.expect_status(order, "Paid")
        return f"#swish-waiting ({len(gets)} loads of the page) -> completeUrl after {took:.1f} s; {status}"

    def swish_declined(self) -> str:
        order = self.api.create(self.merchant, scenario="swedbankpay-swish-declined")
        self.open(order)
        self.press("#pay-swish")
        try:
            bk.follow_until(self.d, lambda d: d.find_element(By.CSS_SELECTOR, "main#swish-waiting"), WAIT)
        except TimeoutError as e:
            raise CheckFailed(f"no main#swish-waiting: {e}; {self.where()}") from None
        problem = self.attempt_error(SWISH_WAIT)
        expect(problem == PROBLEM + "swishdeclined", f"#attempt-error data-problem-type={problem!r}, expected {PROBLEM}swishdeclined")
        status = self.expect_status(order, "Initialized")
        # A new attempt: a card this time.
        self.pay_new_card(FRICTIONLESS)
        self.landed("/complete")
        paid = self.expect_status(order, "Paid")
        return f"#swish-waiting -> menu with #attempt-error swishdeclined, {status}; then a card -> completeUrl, {paid}"

    def web_method(self, method: str = "Invoice-PayExFinancingSe") -> str:
        order = self.api.create(self.merchant)
        expect(method in order.instruments, f"the order does not offer {method}: {order.instruments}")
        self.open(order)
        self.fill(f"ssn-{method}", SSN)
        self.press(f"#pay-{method}")
        self.landed("/complete")
        status = self.expect_status(order, "Paid")
        return f"#ssn-{method} {SSN}, #pay-{method} -> 303 completeUrl; {status}"

    def cancel(self) -> str:
        order = self.api.create(self.merchant)
        self.open(order)
        self.press("#cancel-payment")
        self.landed("/cancel")
        status = self.expect_status(order, "Aborted")
        reason, http = self.unavailable(order)
        expect(reason == "aborted", f"reopened after cancelling: data-reason={reason!r}, expected aborted")
        return f"-> 303 cancelUrl; {status}; reopened: {reason} ({http})"

    def _view_checkout(self, callbacks: str = "") -> tuple[Order, str]:
        """Open a merchant page with view-checkout, wait for the iframe, switch into it and wait for the menu."""
        order = self.api.create(self.merchant)
        script = order.href("view-checkout")
        shop = self.merchant.shop(order.bearer, script, callbacks)
        self.d.get(shop)

        def opened(d):
            errors = d.execute_script("return window.__errors")
            if errors:
                raise CheckFailed(f"the merchant page's script failed: {errors} (view-checkout {script})")
            return d.find_element(By.CSS_SELECTOR, "#checkout iframe#swedbankpay-checkout-frame")

        try:
            frame = bk.follow_until(self.d, opened, WAIT)
        except TimeoutError as e:
            raise CheckFailed(f"no iframe#swedbankpay-checkout-frame in #checkout: {e}") from None
        src = frame.get_attribute("src")
        expect(order.token in src and re.search(r"[?&]embed=1\b", src), f"the iframe loads {src}, expected the menu with embed=1")
        self.d.switch_to.frame(frame)
        self.wait_menu()
        embed = self.js("return document.querySelector('main#swedbankpay-checkout').dataset.embed")
        expect(embed == "1", f"the menu in the iframe has data-embed={embed!r}, expected 1")
        return order, shop

    def view_on_paid(self) -> str:
        order, shop = self._view_checkout(ON_PAID + ON_ABORTED)
        self.pay_new_card(FRICTIONLESS)
        try:
            result = bk.follow_until(self.d, lambda d: d.find_element(By.CSS_SELECTOR, "main#result"), WAIT)
        except TimeoutError as e:
            raise CheckFailed(f"no main#result in the iframe: {e}; {self.where()}") from None
        expect(result.get_attribute("data-status") == "Paid", f"main#result data-status={result.get_attribute('data-status')!r}")
        self.d.switch_to.default_content()
        try:
            title = bk.follow_until(self.d, lambda d: d.title.startswith("paid:") and d.title, WAIT)
        except TimeoutError as e:
            events = self.js("return document.getElementById('events').innerText")
            raise CheckFailed(f"onPaid was not called: {e}; events {events!r}") from None
        expect(title == f"paid:{order.id}", f"document.title={title!r}, expected paid:{order.id}")
        events = self.js("return Array.from(document.querySelectorAll('#events .event'), e => [e.dataset.name, JSON.parse(e.textContent)])")
        expect(len(events) == 1, f"callbacks called: {events}, expected onPaid once")
        e = events[0][1]
        expect(e.get("event") == "OnPaid" and (e.get("paymentOrder") or {}).get("id") == order.id,
               f"onPaid got {e}, expected event OnPaid, paymentOrder.id {order.id}")
        expect(e.get("redirectUrl") == order.request["urls"]["completeUrl"],
               f"onPaid redirectUrl={e.get('redirectUrl')!r}, expected completeUrl {order.request['urls']['completeUrl']}")
        expect(self.d.current_url == shop, f"the top window left the shop: {self.d.current_url}")
        status = self.expect_status(order, "Paid")
        code, headers, _ = self.api.call("GET", order.href("view-checkout"))
        ctype = {k.lower(): v for k, v in headers.items()}.get("content-type", "")
        expect(code == 200 and "javascript" in ctype, f"GET view-checkout: {code} {ctype}")
        # onAborted given: the top window stays.
        aborted, shop = self._view_checkout(ON_PAID + ON_ABORTED)
        self.press("#cancel-payment")
        try:
            bk.follow_until(self.d, lambda d: d.find_element(By.CSS_SELECTOR, "main#result[data-status=Aborted]"), WAIT)
        except TimeoutError as e:
            raise CheckFailed(f"cancel in the iframe: no main#result[data-status=Aborted]: {e}; {self.where()}") from None
        self.d.switch_to.default_content()
        try:
            title = bk.follow_until(self.d, lambda d: d.title.startswith("aborted:") and d.title, WAIT)
        except TimeoutError as e:
            raise CheckFailed(f"onAborted was not called: {e}") from None
        expect(title == f"aborted:{aborted.id}", f"onAborted: document.title={title!r}, expected aborted:{aborted.id}")
        expect(self.d.current_url == shop, f"onAborted given, yet the top window left the shop: {self.d.current_url}")
        astatus = self.expect_status(aborted, "Aborted")
        return (f"iframe embed=1 -> main#result Paid -> onPaid(OnPaid, {order.id[-12:]}…, completeUrl), stayed on the"
                f" shop, {status}; cancel -> onAborted, stayed, {astatus}")

    def view_redirect(self) -> str:
        order, _ = self._view_checkout()
        self.pay_new_card(FRICTIONLESS)
        self.d.switch_to.default_content()
        self.landed("/complete", via_303=False)
        status = self.expect_status(order, "Paid")
        # Aborted inside the iframe, without onAborted: the top window goes to cancelUrl.
        aborted, _ = self._view_checkout(ON_PAID)
        self.press("#cancel-payment")
        self.d.switch_to.default_content()
        self.landed("/cancel", via_303=False)
        astatus = self.expect_status(aborted, "Aborted")
        return (f"no onPaid: top window -> completeUrl, {status}; cancel in the iframe (onPaid only): top -> cancelUrl,"
                f" {astatus}")

    def embed_messages(self) -> str:
        """The embedded result page's postMessage to window.parent, seen by a plain iframe's parent."""
        seen = []
        for event, status in (("paid", "Paid"), ("aborted", "Aborted")):
            order = self.api.create(self.merchant)
            self.d.get(self.merchant.embed(order.bearer, order.checkout + "?embed=1"))
            frame = bk.follow_until(self.d, lambda d: d.find_element(By.ID, "menu"), WAIT)
            self.d.switch_to.frame(frame)
            self.wait_menu()
            if event == "paid":
                self.pay_new_card(FRICTIONLESS)
            else:
                self.press("#cancel-payment")
            try:
                bk.follow_until(self.d, lambda d: d.find_element(By.CSS_SELECTOR, f"main#result[data-status={status}]"), WAIT)
            except TimeoutError as e:
                raise CheckFailed(f"{event}: no main#result[data-status={status}] in the iframe: {e}; {self.where()}") from None
            self.d.switch_to.default_content()
            messages = bk.follow_until(self.d, lambda d: d.execute_script(
                "var m = Array.from(document.querySelectorAll('#messages .message'));"
                " return m.length && m.map(e => [e.dataset.fromFrame, e.dataset.origin, JSON.parse(e.textContent)])"), WAIT)
            ours = [m for m in messages if isinstance(m[2], dict) and m[2].get("source") == "swedbankpay-sandbox"]
            expect(len(ours) == 1, f"{event}: messages {messages}, expected one with source swedbankpay-sandbox")
            from_frame, origin, data = ours[0]
            url = order.request["urls"]["completeUrl" if event == "paid" else "cancelUrl"]
            expect(from_frame == "true" and data.get("event") == event and (data.get("paymentOrder") or {}).get("id") == order.id
                   and data.get("redirectUrl") == url,
                   f"{event}: message {data} (from the iframe: {from_frame}), expected event {event}, paymentOrder.id"
                   f" {order.id}, redirectUrl {url}")
            expect(self.d.current_url.startswith(self.merchant.base + "/embed/"), f"{event}: the top window left: {self.d.current_url}")
            self.expect_status(order, status)
            seen.append(f"{event}: main#result {status}, message {{source, event: {event}, paymentOrder.id, redirectUrl}} from {origin}")
        return "; ".join(seen)

    # HTML in what the merchant or the payer supplied, on the pages other than the menu's order summary

    def no_markup(self, what: str) -> None:
        """No alert ran, and the page has no element or event handler it does not have by itself (these pages have
        no img, script or iframe, and no on* attribute)."""
        alerts = []
        for _ in range(5):  # each injected handler may open one; dismiss them all, so the tab stays usable
            try:
                alert = self.d.switch_to.alert
                alerts.append(alert.text)
                alert.dismiss()
            except NoAlertPresentException:
                break
        expect(not alerts, f"{what} ran as script: alert {alerts}")
        injected = self.js("return Array.from(document.querySelectorAll('img, script, iframe, svg, object, embed'),"
                           " e => e.outerHTML.slice(0, 120)).concat(Array.from(document.querySelectorAll('*')).filter("
                           " e => Array.from(e.attributes).some(a => a.name.toLowerCase().startsWith('on'))).map("
                           " e => e.outerHTML.slice(0, 120)))")
        expect(not injected, f"{what} became markup: {injected}")

    def acs_escaping(self) -> str:
        payee = hostile("payee")
        order = self.api.create(self.merchant, payeeName=payee)
        self.open(order)
        self.no_markup("the payee name on the menu")
        self.pay_new_card(THREE_DS)
        self.challenge()
        self.no_markup("the payee name on the 3-D Secure page")
        merchant = self.js("var e = document.querySelector('main#acs-challenge #acs-merchant'); return e && e.innerText.trim()")
        expect(merchant == payee, f"#acs-merchant reads {merchant!r}, expected the text {payee!r}")
        # The page still works: approve pays.
        self.press("#acs-approve")
        self.landed("/complete")
        status = self.expect_status(order, "Paid")
        return f"#acs-merchant shows the payee name as text, no alert, no injected element; approve -> completeUrl, {status}"

    def swish_escaping(self) -> str:
        # The merchant's payer.msisdn: the menu's prefilled number, and the number the waiting page shows when the app
        # started Swish without one (the SDK's local start; a number typed on the page must be +<digits>).
        msisdn = hostile("msisdn")
        order = self.api.create(self.merchant, payer={"payerReference": f"sel-x{self.api.count}", "msisdn": msisdn})
        self.open(order)
        self.no_markup("payer.msisdn on the menu")
        value = self.d.find_element(By.ID, "swish-msisdn").get_attribute("value")
        expect(value == msisdn, f"#swish-msisdn is {value!r}, expected the text {msisdn!r}")
        session = order.href("view-paymentsession")
        for path, body in (("/preparepayment", SDK_PREPARE),
                           ("/methods/swish/startpaymentattempt",
                            {"culture": "sv-SE", "msisdn": None, "client": {"userAgent": "SDK", "clientType": "Native"}})):
            status, _, answer = self.api.call("POST", session + path, body, {"Content-Type": "application/json"})
            expect(status == 200, f"POST {path}: {status} {str(answer)[:300]}")
        # Hold the payer's answer: the order's namespace clock goes back an hour, so the page keeps waiting.
        status, _, answer = self.api.call("POST", "/__sandbox/clock", {"advance_seconds": -3600},
                                          {"Authorization": f"Bearer {order.bearer}", "Content-Type": "application/json"})
        expect(status == 200, f"POST /__sandbox/clock: {status} {answer}")
        bk.clear_events(self.d)
        self.d.get(order.checkout)
        try:
            bk.follow_until(self.d, lambda d: d.find_element(By.CSS_SELECTOR, "main#swish-waiting #swish-number"), WAIT)
        except TimeoutError as e:
            raise CheckFailed(f"no main#swish-waiting with #swish-number: {e}; {self.where()}") from None
        self.no_markup("payer.msisdn on the Swish waiting page")
        number = self.js("return document.getElementById('swish-number').innerText")
        expect(number == msisdn, f"#swish-number reads {number!r}, expected the text {msisdn!r}")
        waiting = self.expect_status(order, "Initialized")

        # The payer types one into the Swish form: Swish's inputerror, the number not shown back.
        typed = hostile("typed")
        order = self.api.create(self.merchant)
        self.open(order)
        self.fill("swish-msisdn", typed)
        self.press("#pay-swish")
        problem = self.attempt_error()
        expect(problem == PROBLEM + "inputerror", f"#attempt-error data-problem-type={problem!r}, expected {PROBLEM}inputerror")
        self.no_markup("a typed Swish number")
        shown = self.js("return document.body.innerText.indexOf('typed') >= 0 || document.documentElement.outerHTML.indexOf('typed') >= 0")
        expect(not shown, "the typed number is shown back on the page")
        return (f"payer.msisdn as text in #swish-msisdn's value and #swish-number ({waiting}), no alert, no injected element;"
                f" typed -> #attempt-error inputerror, not shown back")

    def unknown_token(self) -> str:
        url = f"{self.api.base}/checkout/{uuid.uuid4().hex}{uuid.uuid4().hex}"
        bk.clear_events(self.d)
        self.d.get(url)
        status = bk.document_status(self.d)
        reason = self.js("var m = document.querySelector('main#swedbankpay-unavailable'); return m && m.dataset.reason")
        expect((status, reason) == (404, "not_found"), f"GET /checkout/<unknown>: HTTP {status}, data-reason={reason!r},"
                                                        f" expected 404 not_found")
        return f"HTTP {status}, data-reason={reason}"


def main() -> int:
    ap = harness.arguments(__doc__, timeout=300, update_docs="also copy the screenshot to docs/swedbankpay-checkout.png")
    ap.add_argument("--screenshot", help="the menu's screenshot (default: ARTIFACTS/swedbankpay-checkout.png)")
    ap.add_argument("--only", nargs="+", metavar="NAME", help=f"run only these checks: {', '.join(n for n, _ in Run.CHECKS)}")
    args = ap.parse_args()
    names = [n for n, _ in Run.CHECKS]
    unknown = [n for n in args.only or [] if n not in names]
    if unknown:
        ap.error(f"unknown check {unknown}; checks: {names}")
    artifacts = harness.artifacts_dir(args.artifacts)
    screenshot = pathlib.Path(args.screenshot or artifacts / "swedbankpay-checkout.png").resolve()
    screenshot.unlink(missing_ok=True)  # only a passing "menu" check writes it

    def start(session: harness.Session) -> Run:
        run_id = uuid.uuid4().hex[:8]
        # The bundled scenarios (./scenarios) named explicitly, unless the environment names them.
        scenarios = os.environ.get("PAYMENT_SANDBOX_BUNDLED_SCENARIOS", str(ROOT / "scenarios"))
        base = session.start_sandbox("sandbox-swedbankpay.log", env={"PAYMENT_SANDBOX_BUNDLED_SCENARIOS": scenarios},
                                     note=f"tokens pages-{run_id}-<n>")
        api = Api(base, run_id)
        merchant = session.start_merchant(Merchant)
        driver = session.start_browser(390, 844, driver_log="chromedriver-swedbankpay.log",
                                       note=f"; merchant {merchant.base}")
        return Run(api, merchant, driver, artifacts, screenshot)

    return harness.run(args, artifacts, start, docs=[(screenshot, ROOT / "docs" / "swedbankpay-checkout.png")])


if __name__ == "__main__":
    sys.exit(main())
