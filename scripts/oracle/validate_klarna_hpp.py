#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs Klarna Hosted Payment Page flows against a running payment-sandbox and validates every response against
Klarna's own OpenAPI document (the "Klarna HPP" export kept outside this repository, in
../shared/oracles/klarna/hpp-v1.openapi.yml, see klarna-api.md section 4).

Each HPP session hosts a Klarna Payments session (GB cart). For every place_order_mode (NONE, PLACE_ORDER,
CAPTURE_ORDER): create (201), read while WAITING, open the redirect_url like the consumer's browser (IN_PROGRESS),
pay through the sandbox's consumer action (COMPLETED with authorization_token, or order_id and klarna_reference),
disabling a completed session (400). Then back (BACK), reject (FAILED), distribution by e-mail and SMS (201),
disable (204, DISABLED), and the 400/404s the document declares. Every success response (200/201/204) and every
documented 4xx is validated with openapi-core (status, content type, body schema incl. date-time formats and
the status enum); each error body must also be Klarna's envelope with the expected code. What the oracle cannot
see is checked here directly: the status each step leads to, and that 201/204 have no body.

    python3 scripts/oracle/validate_klarna_hpp.py http://127.0.0.1:8080 [--oracle PATH]

Prints one line per check and "N passed, N failed"; exits 1 when any check failed (2 for bad usage).
Needs openapi-core 0.23 (scripts/oracle/run.sh installs it into its own venv); installs nothing itself.
"""
import argparse
import base64
import json
import os
import sys
import urllib.error
import urllib.request
import uuid

try:
    import yaml
    from openapi_core import OpenAPI
    from openapi_core.testing import MockRequest, MockResponse
except ImportError:  # pragma: no cover - reported, not installed
    sys.stderr.write("openapi-core is missing: scripts/oracle/run.sh installs it (openapi-core==0.23.1)\n")
    sys.exit(2)

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DEFAULT_ORACLE = os.path.join(REPO_ROOT, "..", "shared", "oracles", "klarna", "hpp-v1.openapi.yml")
# The document declares only servers: [https://api.klarna.com]; requests are matched against that host (any
# other raises ServerNotFound), so the validator sees the path on Klarna's host.
ORACLE_HOST = "https://api.klarna.com"
SESSIONS = "/hpp/v1/sessions"
SESSION = SESSIONS + "/{session_id}"
DISTRIBUTION = SESSION + "/distribution"

# The docs' GB example (klarna-api.md section 2.1) as KP session.
GB_SESSION = {
    "purchase_country": "GB", "purchase_currency": "GBP", "locale": "en-GB",
    "order_amount": 62400, "order_tax_amount": 10400,
    "order_lines": [
        {"type": "physical", "name": "Battery Power Pack", "quantity": 1, "unit_price": 59500, "tax_rate": 2000,
         "total_amount": 59500, "total_tax_amount": 9917},
        {"type": "shipping_fee", "name": "Shipping", "quantity": 1, "unit_price": 2900, "tax_rate": 2000,
         "total_amount": 2900, "total_tax_amount": 483},
    ],
}
MERCHANT_URLS = {
    "success": "https://example.com/success?sid={{session_id}}&authorization_token={{authorization_token}}&order_id={{order_id}}",
    "cancel": "https://example.com/cancel?sid={{session_id}}",
    "back": "https://example.com/back?sid={{session_id}}",
    "failure": "https://example.com/failure?sid={{session_id}}",
    "error": "https://example.com/error?sid={{session_id}}",
}
EMAIL = {"method": "email", "contact_information": {"email": "a@example.com"}}
SMS = {"method": "sms", "contact_information": {"phone": "+447755564318", "phone_country": "GB"}}


class NoRedirect(urllib.request.HTTPRedirectHandler):
    # The consumer actions answer 303 to the merchant's (example.com) URL: the answer itself is what is checked.
    def redirect_request(self, *_args, **_kwargs):
        return None


class Run:
    def __init__(self, base_url, api, user, password, namespace):
        self.base = base_url.rstrip("/")
        self.api = api
        self.auth = "Basic " + base64.b64encode(("%s:%s" % (user, password)).encode()).decode()
        self.namespace = namespace
        self.opener = urllib.request.build_opener(NoRedirect)
        self.passed = 0
        self.failed = 0

    # HTTP

    def call(self, method, path_or_url, body=None, headers=None, auth=True):
        data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        url = path_or_url if "://" in path_or_url else self.base + path_or_url
        request = urllib.request.Request(url, data=data, method=method)
        if auth:
            request.add_header("Authorization", self.auth)
            request.add_header("Sandbox-Namespace", self.namespace)
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with self.opener.open(request, timeout=10) as response:
                return response.status, dict(response.headers.items()), response.read()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers.items()), error.read()

    # Reporting

    def record(self, ok, name, detail=""):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        print("%s  %s%s" % ("PASS" if ok else "FAIL", name, (" - " + detail) if detail else ""))
        return ok

    # Checks

    def documented(self, template, method, status):
        operation = self.api.spec / "paths" / template / method.lower()
        with operation.open() as op:
            return str(status) in op.get("responses", {})

    def oracle(self, method, path, status, headers, raw):
        """openapi-core's verdict on one response: None when valid, else the error text."""
        content_type = headers.get("Content-Type") or headers.get("content-type")
        response = MockResponse(raw, status_code=status, headers=headers, content_type=content_type if raw else None)
        try:
            self.api.validate_response(MockRequest(ORACLE_HOST, method.lower(), path), response)
        except Exception as error:  # openapi-core raises several unrelated types
            cause = error.__cause__ or error.__context__
            return "%s: %s%s" % (type(error).__name__, error, (" (%s)" % cause) if cause else "")
        return None

    def check(self, name, method, path, template, status, body=None, error_code=None, expect_status=None):
        """One call: the status, the oracle (when the document declares that status), and what it cannot see."""
        code, response_headers, raw = self.call(method, path, body)
        if code != status:
            self.record(False, name, "status %d, expected %d: %s" % (code, status, raw[:300].decode("utf-8", "replace")))
            return None
        if not self.documented(template, method, status):
            self.record(False, name, "%s %s %d is not in the document" % (method, template, status))
            return None
        problem = self.oracle(method, path, status, response_headers, raw)
        if problem:
            self.record(False, name, problem[:600])
            return None
        if raw and (status == 204 or (status == 201 and template == DISTRIBUTION)):
            self.record(False, name, "%d with a body: %r" % (status, raw[:100]))
            return None
        document = json.loads(raw) if raw else None
        detail = "%d valid" % status
        if expect_status is not None:
            got = document.get("status") if isinstance(document, dict) else None
            if got != expect_status:
                self.record(False, name, "status %r, expected %r" % (got, expect_status))
                return None
            detail += ", status %s" % got
        if error_code is not None:
            if not isinstance(document, dict) or document.get("error_code") != error_code or \
                    not isinstance(document.get("error_messages"), list) or not document.get("correlation_id"):
                self.record(False, name, "not Klarna's envelope with %s: %r" % (error_code, raw[:300]))
                return None
            detail += " %s %s" % (error_code, json.dumps(document["error_messages"]))
        self.record(True, name, detail)
        return document if document is not None else True

    # Klarna Payments, to host (not validated here: validate_klarna_payments.py does that).

    def kp_session(self):
        code, _, raw = self.call("POST", "/payments/v1/sessions", GB_SESSION)
        if code != 200:
            self.record(False, "KP create session", "status %d: %r" % (code, raw[:300]))
            return None
        return json.loads(raw)["session_id"]

    def create(self, name, options=None, kp_id=None):
        kp_id = kp_id or self.kp_session()
        if kp_id is None:
            return None
        body = {"payment_session_url": "%s/payments/v1/sessions/%s" % (self.base, kp_id), "merchant_urls": MERCHANT_URLS}
        if options is not None:
            body["options"] = options
        created = self.check(name, "POST", SESSIONS, SESSIONS, 201, body)
        if not created:
            return None
        missing = [key for key in ("session_id", "redirect_url", "session_url", "distribution_url", "expires_at")
                   if not created.get(key)]
        if missing:
            self.record(False, name + ": fields", "missing %s" % ", ".join(missing))
            return None
        return created

    def open_page(self, name, created):
        # The consumer's browser: no credentials, HTML.
        code, headers, _ = self.call("GET", created["redirect_url"], headers={"Accept": "text/html"}, auth=False)
        content_type = headers.get("Content-Type", "")
        return self.record(code == 200 and content_type.startswith("text/html"), name,
                           "status %d, %s" % (code, content_type or "no Content-Type"))

    def consumer(self, name, session_id, action, expected):
        # The sandbox's consumer action without a browser: 303 to the merchant URL or 200, {"status": ...}.
        code, _, raw = self.call("POST", "/__sandbox/klarna/hpp/sessions/%s/%s" % (session_id, action), auth=False)
        try:
            status = json.loads(raw).get("status")
        except ValueError:
            status = None
        return self.record(code in (200, 303) and status == expected, name, "status %d, %r" % (code, raw[:200]))

    # The flows

    def flow(self):
        unknown = "7849fd84-47dc-4919-a7ce-47b9f46156f0"

        for mode in ("NONE", "PLACE_ORDER", "CAPTURE_ORDER"):
            created = self.create("create (place_order_mode %s)" % mode,
                                  {"place_order_mode": mode, "purchase_type": "BUY", "page_title": "Oracle shop"})
            if not created:
                continue
            s = SESSIONS + "/" + created["session_id"]
            self.check("read %s session (WAITING)" % mode, "GET", s, SESSION, 200, expect_status="WAITING")
            if self.open_page("open the %s page (redirect_url)" % mode, created):
                self.check("read %s session (IN_PROGRESS)" % mode, "GET", s, SESSION, 200, expect_status="IN_PROGRESS")
            if not self.consumer("pay (%s)" % mode, created["session_id"], "pay", "COMPLETED"):
                continue
            read = self.check("read %s session (COMPLETED)" % mode, "GET", s, SESSION, 200, expect_status="COMPLETED")
            if read:
                if mode == "NONE":
                    ok = bool(read.get("authorization_token"))
                    want = "authorization_token"
                else:
                    ok = bool(read.get("order_id")) and bool(read.get("klarna_reference"))
                    want = "order_id and klarna_reference"
                self.record(ok, "COMPLETED %s session carries %s" % (mode, want),
                            ", ".join("%s %s" % (k, read[k]) for k in ("authorization_token", "order_id", "klarna_reference")
                                      if k in read))
            self.check("disable a completed %s session: 400" % mode, "DELETE", s, SESSION, 400, error_code="BAD_VALUE")

        # Back, reject, distribution and disable on one session (default options).
        created = self.create("create (no options)")
        if created:
            sid = created["session_id"]
            s = SESSIONS + "/" + sid
            self.check("distribute by e-mail", "POST", s + "/distribution", DISTRIBUTION, 201, EMAIL)
            self.check("distribute by SMS", "POST", s + "/distribution", DISTRIBUTION, 201, SMS)
            self.check("read distributed session (WAITING)", "GET", s, SESSION, 200, expect_status="WAITING")
            self.open_page("open the page (redirect_url)", created)
            if self.consumer("back", sid, "back", "BACK"):
                self.check("read session (BACK)", "GET", s, SESSION, 200, expect_status="BACK")
            if self.consumer("reject (sandbox control)", sid, "reject", "FAILED"):
                self.check("read session (FAILED)", "GET", s, SESSION, 200, expect_status="FAILED")
            self.check("disable", "DELETE", s, SESSION, 204)
            self.check("read session (DISABLED)", "GET", s, SESSION, 200, expect_status="DISABLED")
            self.check("distribute a disabled session: 400", "POST", s + "/distribution", DISTRIBUTION, 400, EMAIL,
                       error_code="BAD_VALUE")

        # 400s and 404s the document declares.
        self.check("create with both payment_method_category and payment_method_categories: 400", "POST", SESSIONS, SESSIONS,
                   400, {"payment_session_url": "%s/payments/v1/sessions/%s" % (self.base, self.kp_session() or unknown),
                         "options": {"payment_method_category": "PAY_LATER", "payment_method_categories": ["PAY_LATER"]}},
                   error_code="BAD_VALUE")
        self.check("create without payment_session_url: 400", "POST", SESSIONS, SESSIONS, 400, {"merchant_urls": MERCHANT_URLS},
                   error_code="BAD_VALUE")
        self.check("create for an unknown KP session: 404", "POST", SESSIONS, SESSIONS, 404,
                   {"payment_session_url": "%s/payments/v1/sessions/%s" % (self.base, unknown)}, error_code="NOT_FOUND")
        u = SESSIONS + "/" + unknown
        self.check("read an unknown session: 404", "GET", u, SESSION, 404, error_code="NOT_FOUND")
        self.check("disable an unknown session: 404", "DELETE", u, SESSION, 404, error_code="NOT_FOUND")
        self.check("distribute an unknown session: 404", "POST", u + "/distribution", DISTRIBUTION, 404, EMAIL,
                   error_code="NOT_FOUND")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base_url", help="the sandbox, e.g. http://127.0.0.1:8080")
    parser.add_argument("oracle", nargs="?", default=None, help="the HPP OpenAPI document (default: %s)" % DEFAULT_ORACLE)
    parser.add_argument("--oracle", dest="oracle_option", default=None, help="same as the positional oracle path")
    parser.add_argument("--user", default="PK12345_0123456789ab")
    parser.add_argument("--password", default="oracle-secret")
    parser.add_argument("--namespace", default=None, help="Sandbox-Namespace (default: a fresh one)")
    args = parser.parse_args()

    path = args.oracle_option or args.oracle or DEFAULT_ORACLE
    try:
        api = OpenAPI.from_file_path(path)
        with open(path, encoding="utf-8") as handle:
            info = (yaml.safe_load(handle) or {}).get("info", {})
    except (OSError, ValueError, yaml.YAMLError) as error:
        sys.stderr.write("cannot read the oracle %s: %s\n" % (path, error))
        return 2
    print("oracle: %s (%s %s)" % (os.path.normpath(path), info.get("title"), info.get("version")))
    run = Run(args.base_url, api, args.user, args.password, args.namespace or "oracle-hpp-" + uuid.uuid4().hex[:12])
    try:
        run.flow()
    except (urllib.error.URLError, OSError) as error:
        run.record(False, "sandbox reachable at %s" % args.base_url, str(error))
    print("%d passed, %d failed" % (run.passed, run.failed))
    return 1 if run.failed else 0


if __name__ == "__main__":
    sys.exit(main())
