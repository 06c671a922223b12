#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs Klarna Order Management flows against a running payment-sandbox and validates every response against
Klarna's own OpenAPI document (the "Klarna Order Management API" export kept outside this repository, in
../shared/oracles/klarna/ordermanagement-v1.openapi.json, see klarna-api.md section 7.2).

Orders are placed through Klarna Payments (session, the sandbox's SDK authorize stand-in, create order), then:
read, partial and full capture, capture lists and reads, refunds and refund reads, cancel, acknowledge, release,
extend, an auto_capture order, expiry on the namespace clock; and the updates klarna/kco_rest_php calls: update
authorization (with a subscription line, read back against the Order schema), merchant references, customer
details, the order's shipping info, and per capture shipping info, customer details, trigger send-out, the due-date options and extension,
with their refusals (captured or cancelled order, an increase beyond what is granted, unknown capture). Every success response (200/201/204) and every
403/404 the document declares for the operation is validated with openapi-core (status, headers, content type,
body schema incl. date-time formats); each error body must also be Klarna's envelope with the expected code.
Two things the oracle cannot see are checked here directly: 201s carry Capture-Id / Refund-Id and an absolute
Location, and 201/204 have no body. PATCH …/captures/{id}/customer-details is not in the document (kco_rest_php
calls it): its 204 and 403 are checked directly.

    python3 scripts/oracle/validate_klarna_om.py http://127.0.0.1:8080 [--oracle PATH]

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
    from openapi_core import Config, OpenAPI
    from openapi_core.testing import MockRequest, MockResponse
except ImportError:  # pragma: no cover - reported, not installed
    sys.stderr.write("openapi-core is missing: scripts/oracle/run.sh installs it (openapi-core==0.23.1)\n")
    sys.exit(2)

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DEFAULT_ORACLE = os.path.join(REPO_ROOT, "..", "shared", "oracles", "klarna", "ordermanagement-v1.openapi.json")
# The document declares only servers: [https://api.klarna.com]; requests are matched against that host (any
# other raises ServerNotFound), so the validator sees the path on Klarna's host.
ORACLE_HOST = "https://api.klarna.com"
ORDERS = "/ordermanagement/v1/orders/"

# The docs' GB example (klarna-api.md section 2.1) as session and order.
GB_SESSION = {
    "purchase_country": "GB", "purchase_currency": "GBP", "locale": "en-GB",
    "order_amount": 62400, "order_tax_amount": 10400,
    "order_lines": [
        {"type": "physical", "reference": "19-402", "name": "Battery Power Pack", "quantity": 1, "unit_price": 59500,
         "tax_rate": 2000, "total_amount": 59500, "total_discount_amount": 0, "total_tax_amount": 9917},
        {"type": "shipping_fee", "name": "Shipping", "quantity": 1, "unit_price": 2900, "tax_rate": 2000,
         "total_amount": 2900, "total_tax_amount": 483},
    ],
    "merchant_reference1": "45aa52f387871e3a210645d4",
}
GB_ADDRESS = {
    "given_name": "Test", "family_name": "Person-uk", "email": "customer@email.uk", "title": "Mr",
    "street_address": "10 New Burlington Street", "street_address2": "Apt. 214", "postal_code": "W1S 3BE",
    "city": "London", "phone": "+447755564318", "country": "GB",
}
GB_ORDER = dict(GB_SESSION, billing_address=GB_ADDRESS, shipping_address=GB_ADDRESS,
                customer={"date_of_birth": "1970-07-10"}, merchant_reference2="oracle", merchant_data="{\"cart\":7}")

# The docs' capture example (klarna-api.md section 5), sized to the GB order.
CAPTURE = {
    "captured_amount": 20000, "reference": "c9a94cf1-7126-4f55-92fa-4d34f416ed7f", "description": "Shipped part of the order",
    "order_lines": [{"type": "physical", "reference": "19-402", "name": "Battery Power Pack", "quantity": 1,
                     "quantity_unit": "pcs", "unit_price": 20000, "tax_rate": 2000, "total_amount": 20000,
                     "total_tax_amount": 3333}],
    "shipping_info": [{"shipping_company": "DHL US", "tracking_number": "1234567890", "shipping_method": "Home",
                       "return_shipping_company": "UPS", "return_tracking_number": "112233445566778899"}],
}


def deserialize_any(value, **_):
    # OM declares many bodies as */*; openapi-core then leaves them as bytes. The **_ takes parameters such as
    # charset= that openapi-core passes when the response Content-Type has them.
    return json.loads(value)


class Run:
    def __init__(self, base_url, api, user, password, namespace):
        self.base = base_url.rstrip("/")
        self.api = api
        self.auth = "Basic " + base64.b64encode(("%s:%s" % (user, password)).encode()).decode()
        self.namespace = namespace
        self.passed = 0
        self.failed = 0

    # HTTP

    def call(self, method, path, body=None, headers=None):
        data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Authorization", self.auth)
        request.add_header("Sandbox-Namespace", self.namespace)
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
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

    def check(self, name, method, path, template, status, body=None, headers=None, error_code=None, id_header=None):
        """One call: the status, the oracle (when the document declares that status), and what it cannot see."""
        code, response_headers, raw = self.call(method, path, body, headers)
        if code != status:
            self.record(False, name, "status %d, expected %d: %s" % (code, status, raw[:300].decode("utf-8", "replace")))
            return None, response_headers
        if not self.documented(template, method, status):
            self.record(False, name, "%s %s %d is not in the document" % (method, template, status))
            return None, response_headers
        problem = self.oracle(method, path, status, response_headers, raw)
        if problem:
            self.record(False, name, problem[:600])
            return None, response_headers
        document = json.loads(raw) if raw else None
        detail = "%d valid" % status
        if status in (201, 204) and raw:
            return self.record(False, name, "%d with a body: %r" % (status, raw[:100])) and None, response_headers
        if id_header:
            new_id, location = response_headers.get(id_header), response_headers.get("Location", "")
            expected_location = "%s%s/%s" % (self.base, path, new_id)
            if not new_id or location != expected_location:
                self.record(False, name, "%s %r, Location %r (expected %r)" % (id_header, new_id, location, expected_location))
                return None, response_headers
            detail += ", %s %s" % (id_header, new_id)
        if error_code is not None:
            if not isinstance(document, dict) or document.get("error_code") != error_code or \
                    not isinstance(document.get("error_messages"), list) or not document.get("correlation_id"):
                self.record(False, name, "not Klarna's envelope with %s: %r" % (error_code, raw[:300]))
                return None, response_headers
            detail += " %s %s" % (error_code, json.dumps(document["error_messages"]))
        self.record(True, name, detail)
        return (document if document is not None else True), response_headers

    # Klarna Payments, to place orders (not validated here: validate_klarna_payments.py does that).

    def place_order(self, auto_capture=False):
        code, _, raw = self.call("POST", "/payments/v1/sessions", GB_SESSION)
        if code != 200:
            self.record(False, "KP create session", "status %d: %r" % (code, raw[:300]))
            return None
        session_id = json.loads(raw)["session_id"]
        code, _, raw = self.call("POST", "/__sandbox/klarna/payments/sessions/%s/authorize" % session_id,
                                 {"jsonData": {"billing_address": GB_ADDRESS, "shipping_address": GB_ADDRESS}})
        token = json.loads(raw).get("authorization_token") if code == 200 else None
        if not token:
            self.record(False, "KP authorize (sandbox SDK stand-in)", "status %d: %r" % (code, raw[:300]))
            return None
        order = dict(GB_ORDER, auto_capture=True) if auto_capture else GB_ORDER
        code, _, raw = self.call("POST", "/payments/v1/authorizations/%s/order" % token, order)
        if code != 200:
            self.record(False, "KP create order", "status %d: %r" % (code, raw[:300]))
            return None
        order_id = json.loads(raw)["order_id"]
        self.record(True, "KP order placed%s" % (" (auto_capture)" if auto_capture else ""), order_id)
        return order_id

    # The flows

    def flow(self):
        T = "/ordermanagement/v1/orders/{order_id}"
        unknown = "7849fd84-47dc-4919-a7ce-47b9f46156f0"

        order_id = self.place_order()
        if order_id is None:
            return
        o = ORDERS + order_id
        order, _ = self.check("read order (AUTHORIZED)", "GET", o, T, 200)
        if order:
            self.record(order.get("status") == "AUTHORIZED" and order.get("remaining_authorized_amount") == 62400,
                        "new order is AUTHORIZED with everything remaining", "status %r" % order.get("status"))
        self.check("captures of an order without any", "GET", o + "/captures", T + "/captures", 200)
        _, headers = self.check("capture 20000 (the docs' example)", "POST", o + "/captures", T + "/captures", 201, CAPTURE,
                                headers={"Klarna-Idempotency-Key": str(uuid.uuid4())}, id_header="Capture-Id")
        capture_id = headers.get("Capture-Id")
        self.check("read order (PART_CAPTURED)", "GET", o, T, 200)
        if capture_id:
            self.check("read capture", "GET", o + "/captures/" + capture_id, T + "/captures/{capture_id}", 200)
        self.check("capture the rest (42400)", "POST", o + "/captures", T + "/captures", 201, {"captured_amount": 42400},
                   id_header="Capture-Id")
        self.check("list captures", "GET", o + "/captures", T + "/captures", 200)
        captured, _ = self.check("read order (CAPTURED)", "GET", o, T, 200)
        if captured:
            self.record(captured.get("status") == "CAPTURED", "fully captured order is CAPTURED", "status %r" % captured.get("status"))
        self.check("capture beyond the remaining amount: 403", "POST", o + "/captures", T + "/captures", 403,
                   {"captured_amount": 1}, error_code="CAPTURE_NOT_ALLOWED")
        _, headers = self.check("refund 5000", "POST", o + "/refunds", T + "/refunds", 201,
                                {"refunded_amount": 5000, "description": "Returned", "reference": "rma-1",
                                 "order_lines": [{"name": "Battery Power Pack", "quantity": 1, "unit_price": 5000, "total_amount": 5000}]},
                                id_header="Refund-Id")
        if headers.get("Refund-Id"):
            self.check("read refund", "GET", o + "/refunds/" + headers["Refund-Id"], T + "/refunds/{refund_id}", 200)
        self.check("refund more than captured: 403", "POST", o + "/refunds", T + "/refunds", 403,
                   {"refunded_amount": 62400}, error_code="REFUND_NOT_ALLOWED")
        self.check("read order (captures and refunds)", "GET", o, T, 200)
        self.check("cancel a captured order: 403", "POST", o + "/cancel", T + "/cancel", 403, error_code="CANCEL_NOT_ALLOWED")
        self.check("release a fully captured order: 403", "POST", o + "/release-remaining-authorization",
                   T + "/release-remaining-authorization", 403, error_code="NOT_ALLOWED")
        self.check("acknowledge", "POST", o + "/acknowledge", T + "/acknowledge", 204)
        self.check("unknown capture: 404", "GET", o + "/captures/" + unknown, T + "/captures/{capture_id}", 404,
                   error_code="NO_SUCH_CAPTURE")
        self.check("unknown refund: 404", "GET", o + "/refunds/" + unknown, T + "/refunds/{refund_id}", 404, error_code="NOT_FOUND")

        # Cancel, extend and refusals on a second order.
        second = self.place_order()
        if second is not None:
            s = ORDERS + second
            self.check("extend authorization time", "POST", s + "/extend-authorization-time", T + "/extend-authorization-time", 204)
            self.check("release without captures: 403", "POST", s + "/release-remaining-authorization",
                       T + "/release-remaining-authorization", 403, error_code="NOT_ALLOWED")
            self.check("refund without captures: 403", "POST", s + "/refunds", T + "/refunds", 403, {"refunded_amount": 100},
                       error_code="REFUND_NOT_ALLOWED")
            self.check("cancel", "POST", s + "/cancel", T + "/cancel", 204)
            self.check("read order (CANCELLED)", "GET", s, T, 200)
            self.check("capture a cancelled order: 403", "POST", s + "/captures", T + "/captures", 403, {"captured_amount": 100},
                       error_code="CAPTURE_NOT_ALLOWED")
            self.check("cancel again: 403", "POST", s + "/cancel", T + "/cancel", 403, error_code="CANCEL_NOT_ALLOWED")
            self.check("extend a cancelled order: 403", "POST", s + "/extend-authorization-time", T + "/extend-authorization-time",
                       403, error_code="NOT_ALLOWED")

        # Release on a third order.
        third = self.place_order()
        if third is not None:
            t = ORDERS + third
            self.check("capture 10000", "POST", t + "/captures", T + "/captures", 201, {"captured_amount": 10000}, id_header="Capture-Id")
            self.check("release the remaining authorization", "POST", t + "/release-remaining-authorization",
                       T + "/release-remaining-authorization", 204)
            self.check("read order (released)", "GET", t, T, 200)

        # auto_capture: CAPTURED at once.
        auto = self.place_order(auto_capture=True)
        if auto is not None:
            read, _ = self.check("read order (auto_capture)", "GET", ORDERS + auto, T, 200)
            if read:
                self.record(read.get("status") == "CAPTURED" and len(read.get("captures", [])) == 1,
                            "auto_capture order is CAPTURED with one capture", "status %r" % read.get("status"))

        # 404s the document declares.
        u = ORDERS + unknown
        self.check("unknown order: 404", "GET", u, T, 404, error_code="NO_SUCH_ORDER")
        self.check("captures of an unknown order: 404", "GET", u + "/captures", T + "/captures", 404, error_code="NO_SUCH_ORDER")
        self.check("capture an unknown order: 404", "POST", u + "/captures", T + "/captures", 404, {"captured_amount": 1},
                   error_code="NO_SUCH_ORDER")
        self.check("refund an unknown order: 404", "POST", u + "/refunds", T + "/refunds", 404, {"refunded_amount": 1},
                   error_code="NO_SUCH_ORDER")
        self.check("acknowledge an unknown order: 404", "POST", u + "/acknowledge", T + "/acknowledge", 404,
                   error_code="NO_SUCH_ORDER")

        self.updates()

        # Expiry: 28 days on this namespace's clock (the last step: it moves every order of the namespace).
        last = self.place_order()
        if last is not None:
            code, _, raw = self.call("POST", "/__sandbox/clock", {"advance_seconds": 28 * 86400})
            if self.record(code == 200, "advance the namespace clock 28 days", "status %d" % code):
                expired, _ = self.check("read order (EXPIRED)", "GET", ORDERS + last, T, 200)
                if expired:
                    self.record(expired.get("status") == "EXPIRED", "an AUTHORIZED order past expires_at is EXPIRED",
                                "status %r" % expired.get("status"))
                self.check("extend an expired order: 403", "POST", ORDERS + last + "/extend-authorization-time",
                           T + "/extend-authorization-time", 403, error_code="NOT_ALLOWED")
                self.check("capture an expired order: 403", "POST", ORDERS + last + "/captures", T + "/captures", 403,
                           {"captured_amount": 1}, error_code="CAPTURE_NOT_ALLOWED")


    def direct(self, name, method, path, status, body=None, error_code=None):
        """A call the document does not describe: the status, no body on 204, Klarna's envelope on errors."""
        code, _, raw = self.call(method, path, body)
        if code != status:
            return self.record(False, name, "status %d, expected %d: %s" % (code, status, raw[:300].decode("utf-8", "replace")))
        if status == 204:
            return self.record(not raw, name, "204 not in the document; checked directly" if not raw else "204 with a body")
        document = json.loads(raw) if raw else None
        ok = isinstance(document, dict) and document.get("error_code") == error_code and \
            isinstance(document.get("error_messages"), list) and bool(document.get("correlation_id"))
        return self.record(ok, name, "%d %s (not in the document; checked directly)" % (status, raw[:200].decode("utf-8", "replace")))

    def updates(self):
        """The update endpoints (klarna-api.md section 5; kco_rest_php's Order and Capture)."""
        T = "/ordermanagement/v1/orders/{order_id}"
        C = T + "/captures/{capture_id}"
        unknown = "7849fd84-47dc-4919-a7ce-47b9f46156f0"
        order_id = self.place_order()
        if order_id is None:
            return
        o = ORDERS + order_id
        subscription_line = {"type": "digital", "reference": "sub-1", "name": "Battery subscription", "quantity": 1,
                             "unit_price": 50000, "tax_rate": 2000, "total_amount": 50000, "total_tax_amount": 8333,
                             "subscription": {"name": "Battery subscription", "interval": "MONTH", "interval_count": 1}}
        self.check("update authorization (lower, new lines)", "PATCH", o + "/authorization", T + "/authorization", 204,
                   {"order_amount": 50000, "description": "Shipping waived", "order_lines": [subscription_line]},
                   headers={"Klarna-Idempotency-Key": str(uuid.uuid4())})
        read, _ = self.check("read order (updated authorization)", "GET", o, T, 200)
        if read:
            self.record(read.get("order_amount") == 50000 and read.get("order_lines") == [subscription_line],
                        "the updated amount and lines show on the read", "order_amount %r" % read.get("order_amount"))
        self.check("update authorization beyond what is granted: 403", "PATCH", o + "/authorization", T + "/authorization", 403,
                   {"order_amount": 100000000}, error_code="NOT_ALLOWED")
        self.check("update merchant references", "PATCH", o + "/merchant-references", T + "/merchant-references", 204,
                   {"merchant_reference1": "ERP-1001", "merchant_reference2": "oracle-2"})
        shipping = dict(GB_ADDRESS, given_name="Jane", street_address="1 New Street")
        self.check("update customer details", "PATCH", o + "/customer-details", T + "/customer-details", 204,
                   {"shipping_address": shipping})
        order_shipping = [{"shipping_company": "DHL", "shipping_method": "Home", "tracking_number": "7"}]
        self.check("add order shipping info", "POST", o + "/shipping-info", T + "/shipping-info", 204, {"shipping_info": order_shipping})
        read, _ = self.check("read order (references, address, shipping info)", "GET", o, T, 200)
        if read:
            self.record(read.get("merchant_reference1") == "ERP-1001" and read.get("shipping_address") == shipping and
                        read.get("shipping_info") == order_shipping, "the references, address and shipping info show on the read")
        self.check("shipping info without captures: 403", "POST", o + "/captures/" + unknown + "/shipping-info",
                   C + "/shipping-info", 403, {"shipping_info": [{"shipping_company": "DHL"}]}, error_code="NOT_ALLOWED")
        _, headers = self.check("capture 20000", "POST", o + "/captures", T + "/captures", 201, CAPTURE, id_header="Capture-Id")
        capture_id = headers.get("Capture-Id")
        if capture_id:
            c = o + "/captures/" + capture_id
            self.check("add capture shipping info", "POST", c + "/shipping-info", C + "/shipping-info", 204,
                       {"shipping_info": [{"shipping_company": "PostNord", "shipping_method": "PickUpPoint", "tracking_number": "42"}]})
            self.direct("update capture customer details", "PATCH", c + "/customer-details", 204,
                        {"billing_address": {"email": "user@example.com", "phone": "57-3895734"}})
            self.direct("update a capture's shipping address: 403", "PATCH", c + "/customer-details", 403,
                        {"shipping_address": {"city": "Leeds"}}, error_code="NOT_ALLOWED")
            self.check("trigger send-out", "POST", c + "/trigger-send-out", C + "/trigger-send-out", 204)
            options, _ = self.check("extend-due-date options", "GET", c + "/extend-due-date-options", C + "/extend-due-date-options", 200)
            days = (options or {}).get("options", [{}])[0].get("number_of_days") if (options or {}).get("options") else None
            if days is not None:
                self.check("extend due date", "PATCH", c + "/extend-due-date", C + "/extend-due-date", 204, {"number_of_days": days})
                self.check("extend due date again: 403", "PATCH", c + "/extend-due-date", C + "/extend-due-date", 403,
                           {"number_of_days": days}, error_code="NOT_ALLOWED")
                self.check("extend-due-date options after the extension", "GET", c + "/extend-due-date-options",
                           C + "/extend-due-date-options", 200)
            else:
                self.record(False, "extend-due-date options offer a number of days", repr(options))
            capture, _ = self.check("read capture (updated)", "GET", c, C, 200)
            if capture:
                self.record(len(capture.get("shipping_info", [])) == 2 and
                            capture.get("billing_address", {}).get("email") == "user@example.com",
                            "the shipping info and billing address show on the capture")
        self.check("order shipping info for an unknown order: 404", "POST", ORDERS + unknown + "/shipping-info", T + "/shipping-info",
                   404, {"shipping_info": order_shipping}, error_code="NO_SUCH_ORDER")
        u = o + "/captures/" + unknown
        self.check("shipping info for an unknown capture: 404", "POST", u + "/shipping-info", C + "/shipping-info", 404,
                   {"shipping_info": [{"shipping_company": "DHL"}]}, error_code="NO_SUCH_CAPTURE")
        self.check("trigger send-out for an unknown capture: 404", "POST", u + "/trigger-send-out", C + "/trigger-send-out", 404,
                   error_code="NO_SUCH_CAPTURE")
        self.check("due-date options of an unknown capture: 404", "GET", u + "/extend-due-date-options",
                   C + "/extend-due-date-options", 404, error_code="NO_SUCH_CAPTURE")
        self.check("extend the due date of an unknown capture: 404", "PATCH", u + "/extend-due-date", C + "/extend-due-date", 404,
                   {"number_of_days": 14}, error_code="NO_SUCH_CAPTURE")
        self.check("capture the rest (30000)", "POST", o + "/captures", T + "/captures", 201, {"captured_amount": 30000},
                   id_header="Capture-Id")
        self.check("update authorization of a captured order: 403", "PATCH", o + "/authorization", T + "/authorization", 403,
                   {"order_amount": 60000}, error_code="NOT_ALLOWED")

        cancelled = self.place_order()
        if cancelled is not None:
            x = ORDERS + cancelled
            self.check("cancel", "POST", x + "/cancel", T + "/cancel", 204)
            self.check("update authorization of a cancelled order: 403", "PATCH", x + "/authorization", T + "/authorization", 403,
                       {"order_amount": 100}, error_code="NOT_ALLOWED")
            self.check("update merchant references of a cancelled order: 403", "PATCH", x + "/merchant-references",
                       T + "/merchant-references", 403, {"merchant_reference1": "late"}, error_code="NOT_ALLOWED")
            self.check("update customer details of a cancelled order: 403", "PATCH", x + "/customer-details", T + "/customer-details",
                       403, {"shipping_address": shipping}, error_code="NOT_ALLOWED")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base_url", help="the sandbox, e.g. http://127.0.0.1:8080")
    parser.add_argument("oracle", nargs="?", default=None, help="the OM OpenAPI document (default: %s)" % DEFAULT_ORACLE)
    parser.add_argument("--oracle", dest="oracle_option", default=None, help="same as the positional oracle path")
    parser.add_argument("--user", default="PK12345_0123456789ab")
    parser.add_argument("--password", default="oracle-secret")
    parser.add_argument("--namespace", default=None, help="Sandbox-Namespace (default: a fresh one)")
    args = parser.parse_args()

    path = args.oracle_option or args.oracle or DEFAULT_ORACLE
    try:
        api = OpenAPI.from_file_path(path, config=Config(extra_media_type_deserializers={"*/*": deserialize_any}))
        with open(path, encoding="utf-8") as handle:
            info = json.load(handle).get("info", {})
    except (OSError, ValueError) as error:
        sys.stderr.write("cannot read the oracle %s: %s\n" % (path, error))
        return 2
    print("oracle: %s (%s %s)" % (os.path.normpath(path), info.get("title"), info.get("version")))
    run = Run(args.base_url, api, args.user, args.password, args.namespace or "oracle-om-" + uuid.uuid4().hex[:12])
    try:
        run.flow()
    except (urllib.error.URLError, OSError) as error:
        run.record(False, "sandbox reachable at %s" % args.base_url, str(error))
    print("%d passed, %d failed" % (run.passed, run.failed))
    return 1 if run.failed else 0


if __name__ == "__main__":
    sys.exit(main())
