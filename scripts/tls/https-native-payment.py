#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Swedbank Pay native payments through the sandbox's TLS front, as the Swedbank Pay Mobile SDKs drive them.

    python3 scripts/tls/https-native-payment.py --base https://localhost:8443 --cacert docker/certs/ca.pem

Flows: Swish by phone number (poll until redirect-payer), a saved card with a 3-D Secure challenge (method
request, create-authentication, the ACS page's Approve form to NotificationUrl and its 303 to
https://fake.payex.com/notification, complete-authentication), and abort-payment. Each ends with the order's
status read back with the merchant's Bearer token.

The point is TLS: the Android SDK refuses http hrefs and iOS rewrites them to https, so every href in every JSON
answer that points at the sandbox must start with <base>/ (https, the client's host and port: what nginx passes
as X-Forwarded-Proto/-Host; the merchant's calls send their own Forwarded / X-Forwarded-* naming another host, as
Swedbank Pay's PHP SDK does, which must not count) and answer over TLS verified with --cacert. GET hrefs are
fetched (the JSON APIs and the /checkout/ pages must answer 2xx; the view-checkout script's iframe URL must be on
<base>/ too). POST/PATCH hrefs the flows sent count as reached; every other one (update-order, capture, cancel, reversal, customize-payment,
event-logging, fail-payment-attempt, abort-payment and start-payment-attempt of other sessions, ...) is probed with
OPTIONS, which changes nothing: the sandbox must answer it (405 with an Allow header listing the operation's method
and its problem body, or another status that is not 404 or 5xx with its problem body). A 404, a gateway error (502,
504: nginx got nothing from the sandbox) or no answer fails the run. swish://, https://fake.payex.com/ and the
merchant's URLs are not the sandbox's and are skipped.
Python 3 standard library only. Exit status 1 on any failure.
"""
import argparse
import html
import json
import re
import ssl
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

MERCHANT = "https://example.com"
COMPLETE_URL = MERCHANT + "/payment-completed?order=tls"
CANCEL_URL = MERCHANT + "/payment-cancelled"
PAYMENT_URL = MERCHANT + "/perform-payment"
FAKE_PAYEX_NOTIFICATION = "https://fake.payex.com/notification"

# What the SDKs send (swedbankpay-api.md §3.4; the same bodies as Tests/EndToEndTests/Support/SwedbankPaySDKWalker.swift).
PREPARE_IOS = {
    "integration": "App", "deviceAcceptedWallets": "ApplePay;ClickToPay",
    "client": {"userAgent": "SwedbankPaySDK-iOS/5.0.2", "screenHeight": "2532", "screenWidth": "1170", "screenColorDepth": "24"},
    "browser": {"acceptHeader": "text/html", "timeZoneOffset": "120", "javascriptEnabled": True, "language": "sv-SE"},
    "service": {"name": "SwedbankPaySDK-iOS", "version": "5.0.2"},
    "presentationSdk": {"name": "iOS", "version": "5.0.2"},
}
PREPARE_ANDROID = {
    "integration": "App", "deviceAcceptedWallets": "GooglePay;ClickToPay",
    "client": {"userAgent": "SwedbankPaySDK-Android/5.0.4", "screenHeight": 2400, "screenWidth": 1080, "screenColorDepth": 24},
    "browser": {"acceptHeader": "text/html", "timeZoneOffset": 120, "javascriptEnabled": True, "language": "sv-SE"},
    "service": {"name": "SwedbankPaySDK-Android", "version": "5.0.4"},
    "presentationSdk": {"name": "Android", "version": "5.0.4"},
}
CLIENT = {"userAgent": "x", "ipAddress": "127.0.0.1", "screenHeight": "2532", "screenWidth": "1170",
          "screenColorDepth": "24", "clientType": "Native"}
BROWSER = {"acceptHeader": "text/html", "timeZoneOffset": "120", "javascriptEnabled": True, "language": "sv-SE"}
CHALLENGE_CARD = "476173******0416"


class Failure(Exception):
    pass


def require(condition, message):
    if not condition:
        raise Failure(message)


class NoRedirects(urllib.request.HTTPRedirectHandler):
    """3xx answers come back as they are (the trampoline's 303 to fake.payex.com must not be followed)."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


class Response:
    def __init__(self, method, url, status, headers, body):
        self.method, self.url, self.status, self.headers, self.body = method, url, status, headers, body

    @property
    def text(self):
        return self.body.decode("utf-8", "replace")

    def json(self):
        try:
            return json.loads(self.body)
        except ValueError as error:
            raise Failure(f"{self.method} {self.url}: {self.status}, not JSON ({error}): {self.text[:400]}")

    def __str__(self):
        return f"{self.method} {self.url}: {self.status} {self.text[:600]}"


class Client:
    def __init__(self, base, cafile, token):
        context = ssl.create_default_context(cafile=cafile)  # verifies the chain and the host name
        self.opener = urllib.request.build_opener(
            urllib.request.ProxyHandler({}), urllib.request.HTTPSHandler(context=context), NoRedirects())
        self.base = base
        self.token = token
        self.requests = 0

    def send(self, method, url, body=None, content_type="application/json", headers=None):
        """One exchange. A TLS or connection error is a failure; any HTTP status is returned."""
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
        elif isinstance(body, str):
            body = body.encode()
        all_headers = {"Accept": "application/json", "Content-Type": content_type}
        all_headers.update(headers or {})
        request = urllib.request.Request(url, data=body, method=method, headers=all_headers)
        self.requests += 1
        try:
            with self.opener.open(request, timeout=40) as answer:
                return Response(method, url, answer.status, answer.headers, answer.read())
        except urllib.error.HTTPError as error:
            return Response(method, url, error.code, error.headers, error.read())
        except (urllib.error.URLError, ssl.SSLError, OSError) as error:
            reason = getattr(error, "reason", error)
            raise Failure(f"{method} {url}: no answer over TLS: {reason}")

    # What a client says about where it is must not reach the hrefs: nginx replaces X-Forwarded-Proto/-Host and
    # removes Forwarded (docker/nginx.conf). Swedbank Pay's PHP SDK sends a Forwarded header like this on every call.
    CLIENT_FORWARDED = {"Forwarded": "for=192.0.2.1; proto=http; host=client-said.example",
                        "X-Forwarded-Proto": "http", "X-Forwarded-Host": "client-said.example"}

    def merchant(self, method, url, body=None):
        """The merchant backend's call: Bearer token, the v3.1 media type, and the client's own forwarded headers."""
        return self.send(method, url, body, content_type="application/json;version=3.1",
                         headers={"Authorization": f"Bearer {self.token}", "Accept": "application/json;version=3.1",
                                  **self.CLIENT_FORWARDED})


class Hrefs:
    """Every href the sandbox handed out, and what proved it reachable over TLS."""

    def __init__(self, base):
        self.base = base.rstrip("/")
        self.prefix = self.base + "/"
        self.found = {}  # href -> (method, rel, where)
        self.sent = set()  # (method, href) the flows sent and got an HTTP answer for
        self.skipped = set()
        self.counts = {"GET": 0, "sent": 0}

    @staticmethod
    def external(href):
        parts = urllib.parse.urlsplit(href)
        if parts.scheme not in ("http", "https"):
            return True  # swish://, myapp:// ...
        host = (parts.hostname or "").lower()
        return host == "fake.payex.com" or host == "example.com" or host.endswith(".example.com")

    def collect(self, document, where):
        def walk(node, path):
            if isinstance(node, dict):
                href = node.get("href")
                if isinstance(href, str) and href:
                    self.add(href, node.get("method"), node.get("rel"), f"{where} {path}")
                for key, value in node.items():
                    walk(value, f"{path}.{key}")
            elif isinstance(node, list):
                for index, value in enumerate(node):
                    walk(value, f"{path}[{index}]")
        walk(document, "$")

    def add(self, href, method, rel, where):
        if self.external(href):
            self.skipped.add(href)
            return
        require(href.startswith(self.prefix),
                f"{where}: href of {rel or '?'} is {href!r}, expected it to start with {self.prefix} "
                "(is X-Forwarded-Proto/-Host reaching the sandbox?)")
        self.found.setdefault(href, ((method or "GET").upper(), rel, where))

    def note_sent(self, method, href):
        self.sent.add((method.upper(), href))

    def verify(self, client, verbose=False):
        """GETs every GET href once; POST/PATCH hrefs the flows did not send are probed with OPTIONS.
        Checks every href, then fails with all that did not answer as they should."""
        problems = []
        probed = []
        log = print if verbose else (lambda *_: None)
        for href, (method, rel, where) in sorted(self.found.items()):
            path = urllib.parse.urlsplit(href).path
            headers = {"Authorization": f"Bearer {client.token}"} if path.startswith("/psp/paymentorders") else {}
            try:
                if method == "GET":
                    answer = client.send("GET", href, headers=headers)
                    log(f"  GET   {answer.status} {rel}: {href}")
                    require(200 <= answer.status < 300, f"{rel} ({where}): {answer}")
                    if path.startswith("/checkout/client/"):
                        # The view-checkout script embeds the menu in an iframe: that URL must be https on this base too.
                        menu = f'"menuUrl":"{self.base}/checkout/'
                        require(menu in answer.text, f"{rel} ({where}): the script's menuUrl is not {menu}…")
                    self.counts["GET"] += 1
                elif (method, href) in self.sent:
                    log(f"  {method:<5} sent {rel}: {href}")
                    self.counts["sent"] += 1
                else:
                    answer = client.send("OPTIONS", href, headers=headers)
                    log(f"  {method:<5} OPTIONS {answer.status} (Allow: {answer.headers.get('Allow')}) {rel}: {href}")
                    served(answer, method, f"{method} {rel} ({where})")
                    probed.append(f"{method} {rel}")
            except Failure as failure:
                problems.append(str(failure))
        if problems:
            raise Failure(f"{len(problems)} of {len(self.found)} sandbox hrefs failed:\n  " + "\n  ".join(problems))
        return probed


def sandbox_problem(answer):
    """The sandbox's problem body ({type, status, ...} with the HTTP status), or None (nginx's own pages are HTML)."""
    try:
        document = json.loads(answer.body)
    except ValueError:
        return None
    if isinstance(document, dict) and isinstance(document.get("type"), str) and document.get("status") == answer.status:
        return document
    return None


def served(answer, method, what):
    """An OPTIONS answer proves the sandbox serves the href's route: 405 (or 2xx) with the operation's method in
    Allow, or any other status but 404 and 5xx that carries the sandbox's problem body."""
    allow = {m.strip().upper() for m in (answer.headers.get("Allow") or "").split(",") if m.strip()}
    require(answer.status != 404, f"{what}: OPTIONS answered 404, the sandbox has no such route: {answer}")
    require(answer.status < 500, f"{what}: OPTIONS answered {answer.status} (502/504: nginx got nothing from the sandbox): {answer}")
    if answer.status == 405 or 200 <= answer.status < 300:
        require(method in allow, f"{what}: OPTIONS answered {answer.status} with Allow: {answer.headers.get('Allow')}, "
                                 f"expected it to list {method}")
        require(answer.status != 405 or sandbox_problem(answer), f"{what}: a 405 without the sandbox's problem body: {answer}")
    else:
        require(sandbox_problem(answer), f"{what}: OPTIONS answered {answer.status} without the sandbox's problem body: {answer}")


class Flows:
    def __init__(self, client, hrefs):
        self.client = client
        self.hrefs = hrefs
        self.base = client.base

    # --- merchant side -------------------------------------------------------------------------------------------
    def create_order(self, payer=None, description="TLS check"):
        order = {
            "operation": "Purchase", "currency": "SEK", "amount": 1500, "vatAmount": 375,
            "description": description, "userAgent": "Mozilla/5.0 (tls-check)", "language": "sv-SE",
            "urls": {"hostUrls": [MERCHANT], "completeUrl": COMPLETE_URL, "cancelUrl": CANCEL_URL,
                     "paymentUrl": PAYMENT_URL, "termsOfServiceUrl": MERCHANT + "/terms.pdf"},
            "payeeInfo": {"payeeId": "5cabf558-5283-482f-b252-4d58e06f6f3b",
                          "payeeReference": "tls" + uuid.uuid4().hex[:10], "payeeName": "Merchant1"},
        }
        if payer:
            order["payer"] = payer
        url = self.base + "/psp/paymentorders"
        answer = self.client.merchant("POST", url, {"paymentorder": order})
        require(answer.status in (200, 201), f"create payment order: {answer}")
        self.hrefs.note_sent("POST", url)
        document = answer.json()
        self.hrefs.collect(document, "POST /psp/paymentorders")
        session = next((op.get("href") for op in document.get("operations", []) if op.get("rel") == "view-paymentsession"), None)
        require(session, f"no view-paymentsession in {answer}")
        order_id = (document.get("paymentOrder") or {}).get("id")
        require(isinstance(order_id, str) and order_id.startswith("/psp/paymentorders/"), f"no paymentOrder.id in {answer}")
        return session, order_id

    def order_status(self, order_id):
        url = self.base + order_id + "?$expand=paid"
        answer = self.client.merchant("GET", url)
        require(answer.status == 200, f"read the order: {answer}")
        document = answer.json()
        self.hrefs.collect(document, f"GET {order_id}")
        return (document.get("paymentOrder") or {}).get("status")

    # --- the SDK's side ------------------------------------------------------------------------------------------
    def call(self, method, href, body=None):
        """A payment-session call (JSON headers, no credentials): 200 with the paymentSession envelope."""
        require(isinstance(href, str) and href.startswith(self.hrefs.prefix), f"{method} {href!r}: not a sandbox https href")
        answer = self.client.send(method, href, body)
        self.hrefs.note_sent(method, href)
        require(answer.status == 200, str(answer))
        require((answer.headers.get("Content-Type") or "").startswith("application/json"), f"not JSON: {answer}")
        document = answer.json()
        require(isinstance(document.get("paymentSession"), dict), f"no paymentSession in {answer}")
        self.hrefs.collect(document, f"{method} {urllib.parse.urlsplit(href).path}")
        return document

    @staticmethod
    def operations(document):
        ops = list(document.get("operations") or [])
        for method in (document.get("paymentSession") or {}).get("methods") or []:
            ops += method.get("operations") or []
        return ops

    def next_op(self, document):
        flagged = [op for op in self.operations(document) if op.get("next") is True]
        require(len(flagged) <= 1, f"more than one operation has next: true: {[op.get('rel') for op in flagged]}")
        return flagged[0] if flagged else None

    @staticmethod
    def method_op(document, method_name, rel):
        for method in (document.get("paymentSession") or {}).get("methods") or []:
            if method.get("paymentMethod") == method_name:
                return next((op for op in method.get("operations") or [] if op.get("rel") == rel), None)
        return None

    @staticmethod
    def expectation(item, name):
        return next((e.get("value") for e in item.get("expects") or [] if e.get("name") == name), None)

    def start(self, session, prepare_body):
        """GET the session URL, then prepare-payment: the idle document with the methods."""
        document = self.call("GET", session)
        op = self.next_op(document)
        require(op and op.get("rel") == "prepare-payment", f"first step is {op and op.get('rel')}, expected prepare-payment")
        document = self.call(op.get("method", "POST"), op["href"], prepare_body)
        require(self.next_op(document) is None, "the idle session must have no next operation")
        require(document.get("problem") is None, f"problem after prepare-payment: {document.get('problem')}")
        return document

    def until_redirect(self, document, session, seconds=30):
        """Polls get-payment (else the session) every second until redirect-payer is next."""
        deadline = time.monotonic() + seconds
        while True:
            require(document.get("problem") is None, f"problem: {json.dumps(document.get('problem'))}")
            op = self.next_op(document)
            if op and op.get("rel") == "redirect-payer":
                return op["href"]
            require(time.monotonic() < deadline, f"no redirect-payer after {seconds} s; next is {op and op.get('rel')}")
            time.sleep(1)
            poll = op["href"] if op and op.get("rel") == "get-payment" else session
            document = self.call("GET", poll)

    def form(self, href, fields, what):
        """A web-view form POST to the sandbox (3-D Secure pages): an HTML answer."""
        require(isinstance(href, str) and href.startswith(self.hrefs.prefix), f"{what} href {href!r} is not on {self.hrefs.prefix}")
        answer = self.client.send("POST", href, urllib.parse.urlencode(fields), "application/x-www-form-urlencoded",
                                  headers={"Accept": "text/html"})
        self.hrefs.note_sent("POST", href)
        return answer

    # --- flows ---------------------------------------------------------------------------------------------------
    def swish(self):
        session, order_id = self.create_order(payer={"msisdn": "+46739000001"})
        document = self.start(session, PREPARE_IOS)
        start = self.method_op(document, "Swish", "start-payment-attempt")
        require(start, "the Swish method has no start-payment-attempt")
        document = self.call(start.get("method", "POST"), start["href"],
                             {"culture": "sv-SE", "msisdn": "+46739000001", "client": CLIENT})
        began = time.monotonic()
        redirect = self.until_redirect(document, session)
        require(redirect == COMPLETE_URL, f"redirect-payer goes to {redirect}, expected completeUrl {COMPLETE_URL}")
        status = self.order_status(order_id)
        require(status == "Paid", f"order status {status}, expected Paid")
        return f"Swish by MSISDN: paid after {time.monotonic() - began:.0f} s of polling, order Paid"

    def saved_card(self):
        session, order_id = self.create_order(payer={"payerReference": "tls-check"})
        document = self.start(session, PREPARE_ANDROID)
        card = next((m for m in document["paymentSession"].get("methods") or [] if m.get("paymentMethod") == "CreditCard"), None)
        require(card, "no CreditCard method")
        prefills = card.get("prefills") or []
        prefill = next((p for p in prefills if p.get("maskedPan") == CHALLENGE_CARD), prefills[0] if prefills else None)
        require(prefill and prefill.get("paymentToken"), f"no saved card (prefills) for payerReference tls-check: {prefills}")
        start = self.method_op(document, "CreditCard", "start-payment-attempt")
        require(start, "the CreditCard method has no start-payment-attempt")
        document = self.call(start.get("method", "POST"), start["href"],
                             {"culture": "sv-SE", "paymentToken": prefill["paymentToken"], "client": CLIENT})

        # 3-D Secure method step, in the SDK's hidden web view.
        create = self.next_op(document)
        require(create and create.get("rel") == "create-authentication",
                f"after start-payment-attempt with {prefill.get('maskedPan')}: next is {create and create.get('rel')}, "
                "expected create-authentication")
        notification = self.expectation(create, "NotificationUrl")
        require(isinstance(notification, str) and notification.startswith(self.hrefs.prefix),
                f"NotificationUrl {notification!r} is not on {self.hrefs.prefix}")
        method_task = next((t for t in create.get("tasks") or [] if t.get("rel") == "sca-method-request"), None)
        require(method_task and method_task.get("href"), f"no sca-method-request task: {create}")
        fields = {e["name"]: e["value"] for e in method_task.get("expects") or [] if isinstance(e.get("value"), str)}
        answer = self.form(method_task["href"], fields, "sca-method-request")
        require(answer.status == 200 and "html" in (answer.headers.get("Content-Type") or ""), f"3-D Secure method page: {answer}")
        document = self.call(create.get("method", "POST"), create["href"], {
            "methodCompletionIndicator": "Y", "notificationUrl": notification, "requestWindowSize": "FULLSCREEN",
            "client": CLIENT, "browser": BROWSER})

        # The challenge in the SDK's visible web view: the ACS page, Approve, the form to NotificationUrl.
        complete = self.next_op(document)
        require(complete and complete.get("rel") == "complete-authentication",
                f"after create-authentication: next is {complete and complete.get('rel')}, expected complete-authentication")
        redirect_task = next((t for t in complete.get("tasks") or [] if t.get("rel") == "sca-redirect"), None)
        require(redirect_task and redirect_task.get("href"), f"no sca-redirect task: {complete}")
        creq = self.expectation(redirect_task, "creq")
        require(isinstance(creq, str) and creq, "the sca-redirect task has no creq")
        page = self.form(redirect_task["href"], {"creq": creq}, "sca-redirect")
        require(page.status == 200, f"ACS challenge page: {page}")
        action, cres = approve_form(page.text)
        require(action == notification, f"the ACS form posts to {action!r}, expected the NotificationUrl {notification!r}")
        trampoline = self.form(action, {"cres": cres}, "NotificationUrl")
        require(trampoline.status == 303, f"NotificationUrl: expected 303 to {FAKE_PAYEX_NOTIFICATION}: {trampoline}")
        location = trampoline.headers.get("Location") or ""
        require(location.startswith(FAKE_PAYEX_NOTIFICATION + "?"), f"NotificationUrl redirects to {location!r}")
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(location).query)
        require(query.get("cres") == [cres], f"the 303 carries cres {query.get('cres')}, the form {cres!r}")

        document = self.call(complete.get("method", "POST"), complete["href"], {"cRes": cres, "client": {"userAgent": "x"}})
        redirect = self.until_redirect(document, session)
        require(redirect == COMPLETE_URL, f"redirect-payer goes to {redirect}, expected completeUrl {COMPLETE_URL}")
        status = self.order_status(order_id)
        require(status == "Paid", f"order status {status}, expected Paid")
        return f"saved card {prefill.get('maskedPan')} with a 3-D Secure challenge: approved, order Paid"

    def abort(self):
        session, order_id = self.create_order()
        document = self.call("GET", session)
        abort = next((op for op in document.get("operations") or [] if op.get("rel") == "abort-payment"), None)
        require(abort, "no abort-payment operation")
        document = self.call(abort.get("method", "POST"), abort["href"])
        op = self.next_op(document)
        require(op and op.get("rel") == "redirect-payer", f"after abort-payment: next is {op and op.get('rel')}")
        require(op["href"] == CANCEL_URL, f"redirect-payer goes to {op['href']}, expected cancelUrl {CANCEL_URL}")
        status = self.order_status(order_id)
        require(status == "Aborted", f"order status {status}, expected Aborted")
        return "abort-payment: redirect-payer to cancelUrl, order Aborted"


def approve_form(page):
    """The <form method="post" action="..."> around the Approve button, and its cres field."""
    button = re.search(r'id="acs-approve"', page)
    require(button, f"no acs-approve button on the ACS page: {page[:600]}")
    start = page.rfind("<form", 0, button.start())
    require(start >= 0, "the acs-approve button is not inside a form")
    end = page.find("</form>", button.start())
    form = page[start:end if end >= 0 else len(page)]
    tag = form[:form.find(">") + 1]
    action = re.search(r'\baction="([^"]*)"', tag)
    require(action, f"no action on the ACS form: {tag}")
    require(re.search(r'\bmethod="post"', tag, re.I), f"the ACS form is not method=post: {tag}")
    cres = None
    for field in re.finditer(r"<input\b[^>]*>", form):
        attributes = dict(re.findall(r'\b([a-zA-Z-]+)="([^"]*)"', field.group(0)))
        if attributes.get("name") == "cres":
            cres = html.unescape(attributes.get("value", ""))
    require(cres, f"no cres input in the ACS form: {form[:600]}")
    return html.unescape(action.group(1)), cres


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, help="the TLS front, e.g. https://localhost:8443")
    parser.add_argument("--cacert", required=True, help="CA (or self-signed) certificate that signed the front's certificate")
    parser.add_argument("--verbose", action="store_true", help="list every sandbox href and how it was checked")
    arguments = parser.parse_args()
    base = arguments.base.rstrip("/")
    parts = urllib.parse.urlsplit(base)
    if parts.scheme != "https" or not parts.port or parts.path:
        parser.error("--base must be https://host:port")

    client = Client(base, arguments.cacert, token=f"tls-check-{uuid.uuid4().hex[:12]}")
    hrefs = Hrefs(base)
    flows = Flows(client, hrefs)
    failures = 0
    for name, flow in (("swish", flows.swish), ("saved card", flows.saved_card), ("abort", flows.abort)):
        try:
            print(f"ok    {flow()}", flush=True)
        except Failure as failure:
            failures += 1
            print(f"FAIL  {name}: {failure}", flush=True)
    try:
        probed = hrefs.verify(client, arguments.verbose)
        print(f"hrefs: {len(hrefs.found)} distinct sandbox hrefs under {hrefs.prefix}, all served: {hrefs.counts['GET']} "
              f"fetched with GET, {hrefs.counts['sent']} reached by the flows' own POST/PATCH, {len(probed)} probed with "
              f"OPTIONS ({', '.join(sorted(set(probed))) or 'none'}); {len(hrefs.skipped)} external skipped; "
              f"{client.requests} requests over TLS")
    except Failure as failure:
        failures += 1
        print(f"FAIL  href check: {failure}", flush=True)
    if failures:
        print(f"https-native-payment: {failures} failure(s)", file=sys.stderr)
        return 1
    print("https-native-payment: all flows passed over TLS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
