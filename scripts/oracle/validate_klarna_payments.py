#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs a Klarna Payments flow against a running payment-sandbox and validates every response body against
Klarna's own OpenAPI document (the KP "payments-v1" export kept outside this repository, in
../shared/oracles/klarna/, see klarna-api.md section 7.2).

Checked: the success bodies against the operation's declared 200 schema (merchant_session, session_read, order,
customer_token_creation_response), each error body against ErrorV2, and the requests this script sends against
their request schemas (so the flow itself is known to be valid input). $refs are resolved inside the document.
The specs set no additionalProperties: false, so extra fields pass; they are listed as notes.

    python3 scripts/oracle/validate_klarna_payments.py http://127.0.0.1:8080 [--oracle PATH]

Prints one line per check and "N passed, N failed"; exits 1 when any check failed (2 for bad usage).
Needs openapi-schema-validator (scripts/oracle/requirements.txt); installs nothing itself.
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
    from openapi_schema_validator import OAS30ReadValidator, OAS30WriteValidator, oas30_format_checker
except ImportError:  # pragma: no cover - reported, not installed
    sys.stderr.write("openapi-schema-validator is missing: pip install -r scripts/oracle/requirements.txt\n")
    sys.exit(2)

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DEFAULT_ORACLE = os.path.join(REPO_ROOT, "..", "shared", "oracles", "klarna", "payments-v1.openapi.json")

# The docs' GB create-session example (klarna-api.md section 2.1).
GB_SESSION = {
    "purchase_country": "GB",
    "purchase_currency": "GBP",
    "locale": "en-GB",
    "order_amount": 62400,
    "order_tax_amount": 10400,
    "order_lines": [
        {"type": "physical", "reference": "19-402", "name": "Battery Power Pack", "quantity": 1, "unit_price": 59500,
         "tax_rate": 2000, "total_amount": 59500, "total_discount_amount": 0, "total_tax_amount": 9917},
        {"type": "shipping_fee", "name": "Shipping", "quantity": 1, "unit_price": 2900, "tax_rate": 2000,
         "total_amount": 2900, "total_tax_amount": 483},
    ],
    "merchant_urls": {"authorization": "https://example.com/authorization_callbacks"},
    "merchant_reference1": "45aa52f387871e3a210645d4",
}

GB_ADDRESS = {
    "given_name": "Test", "family_name": "Person-uk", "email": "customer@email.uk", "title": "Mr",
    "street_address": "10 New Burlington Street", "street_address2": "Apt. 214", "postal_code": "W1S 3BE",
    "city": "London", "phone": "+447755564318", "country": "GB",
}

CUSTOMER_TOKEN_REQUEST = {
    "description": "Monthly battery subscription", "intended_use": "SUBSCRIPTION", "locale": "en-GB",
    "purchase_country": "GB", "purchase_currency": "GBP", "billing_address": GB_ADDRESS,
    "customer": {"date_of_birth": "1970-07-10", "gender": "male"},
}


class Oracle:
    def __init__(self, spec):
        self.spec = spec
        self.components = spec.get("components", {})

    def schema_ref(self, name):
        return "#/components/schemas/" + name

    def response_schema(self, path, method, status):
        """The $ref of the declared JSON response schema, or None."""
        operation = self.spec.get("paths", {}).get(path, {}).get(method.lower(), {})
        response = operation.get("responses", {}).get(str(status), {})
        schema = response.get("content", {}).get("application/json", {}).get("schema")
        return schema.get("$ref") if isinstance(schema, dict) else None

    def request_schema(self, path, method):
        operation = self.spec.get("paths", {}).get(path, {}).get(method.lower(), {})
        schema = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
        return schema.get("$ref") if isinstance(schema, dict) else None

    def errors(self, instance, ref, reading=True):
        """Validation errors of `instance` against the schema at `ref`, $refs resolved in the whole document."""
        schema = {"$ref": ref, "components": self.components}
        cls = OAS30ReadValidator if reading else OAS30WriteValidator
        validator = cls(schema, format_checker=oas30_format_checker)
        return sorted(validator.iter_errors(instance), key=lambda e: list(e.absolute_path))

    def undeclared(self, instance, ref, prefix=""):
        """Properties the schema does not declare (allowed, since no schema closes its objects)."""
        schema = self.resolve(ref)
        found = []
        if isinstance(instance, dict) and isinstance(schema, dict) and "properties" in schema:
            for key, value in instance.items():
                if key not in schema["properties"]:
                    found.append(prefix + key)
                else:
                    sub = schema["properties"][key]
                    if "$ref" in sub:
                        found += self.undeclared(value, sub["$ref"], prefix + key + ".")
                    elif sub.get("type") == "array" and "$ref" in sub.get("items", {}) and isinstance(value, list):
                        for index, item in enumerate(value):
                            found += self.undeclared(item, sub["items"]["$ref"], "%s%s[%d]." % (prefix, key, index))
        return found

    def resolve(self, ref):
        node = self.spec
        for part in ref.lstrip("#/").split("/"):
            node = node.get(part, {}) if isinstance(node, dict) else {}
        return node


class Run:
    def __init__(self, base_url, oracle, user, password, namespace):
        self.base = base_url.rstrip("/")
        self.oracle = oracle
        self.auth = "Basic " + base64.b64encode(("%s:%s" % (user, password)).encode()).decode()
        self.namespace = namespace
        self.passed = 0
        self.failed = 0

    # HTTP

    def call(self, method, path, body=None, auth=True):
        data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        request = urllib.request.Request(self.base + path, data=data, method=method)
        if auth:
            request.add_header("Authorization", self.auth)
        request.add_header("Sandbox-Namespace", self.namespace)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, response.headers.get("Content-Type", ""), response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.headers.get("Content-Type", ""), error.read()

    # Reporting

    def record(self, ok, name, detail=""):
        if ok:
            self.passed += 1
            print("PASS  %s%s" % (name, (" - " + detail) if detail else ""))
        else:
            self.failed += 1
            print("FAIL  %s%s" % (name, (" - " + detail) if detail else ""))
        return ok

    def note(self, text):
        print("      note: %s" % text)

    # Checks

    def check_request(self, name, body, path, method, expected_schema):
        ref = self.oracle.request_schema(path, method)
        if ref != self.oracle.schema_ref(expected_schema):
            return self.record(False, name, "the document declares %r for %s %s, expected %s" % (ref, method, path, expected_schema))
        errors = self.oracle.errors(body, ref, reading=False)
        return self.record(not errors, name, expected_schema if not errors else self.describe(errors))

    def check_response(self, name, method, template, path, body, status, expected_schema):
        """A success response: status, JSON content type, and the body against the declared schema."""
        code, content_type, raw = self.call(method, path, body)
        if code != status:
            self.record(False, name, "status %d, expected %d: %s" % (code, status, raw[:300].decode("utf-8", "replace")))
            return None
        if status == 204:
            return self.record(not raw, name, "204, no body" if not raw else "204 with a body: %r" % raw[:100]) or None
        ref = self.oracle.response_schema(template, method, status)
        if ref != self.oracle.schema_ref(expected_schema):
            self.record(False, name, "the document declares %r for %s %s %d, expected %s" % (ref, method, template, status, expected_schema))
            return None
        return self.validate_json(name, content_type, raw, ref, "%d %s" % (code, expected_schema))

    def check_error(self, name, method, path, body, status, code_expected, auth=True, template=None):
        """An error response: status, and the body against ErrorV2 (the one error schema of the KP document;
        declared for customer-token 400, used here for every error as Klarna's envelope), with the code."""
        code, content_type, raw = self.call(method, path, body, auth=auth)
        if code != status:
            return self.record(False, name, "status %d, expected %d: %s" % (code, status, raw[:300].decode("utf-8", "replace")))
        ref = self.oracle.schema_ref("ErrorV2")
        if template is not None:
            declared = self.oracle.response_schema(template, method, status)
            if declared is not None and declared != ref:
                return self.record(False, name, "the document declares %r for this error, not ErrorV2" % declared)
        document = self.validate_json(name, content_type, raw, ref, None, report_success=False)
        if document is None:
            return False
        if document.get("error_code") != code_expected:
            return self.record(False, name, "error_code %r, expected %r" % (document.get("error_code"), code_expected))
        missing = [key for key in ("error_code", "error_messages", "correlation_id") if key not in document]
        if missing:
            return self.record(False, name, "envelope lacks %s" % ", ".join(missing))
        return self.record(True, name, "%d ErrorV2 %s %s" % (code, document["error_code"], json.dumps(document["error_messages"])))

    def validate_json(self, name, content_type, raw, ref, success_detail, report_success=True):
        if not content_type.lower().startswith("application/json"):
            self.record(False, name, "Content-Type %r, expected application/json" % content_type)
            return None
        try:
            document = json.loads(raw)
        except ValueError as error:
            self.record(False, name, "body is not JSON (%s): %r" % (error, raw[:200]))
            return None
        errors = self.oracle.errors(document, ref)
        if errors:
            self.record(False, name, self.describe(errors))
            return None
        if report_success:
            self.record(True, name, success_detail)
        extra = self.oracle.undeclared(document, ref)
        if extra:
            self.note("%s: properties not in %s: %s" % (name, ref.split("/")[-1], ", ".join(extra)))
        return document

    @staticmethod
    def describe(errors):
        parts = []
        for error in errors[:5]:
            where = "/".join(str(p) for p in error.absolute_path) or "(root)"
            parts.append("%s: %s" % (where, error.message))
        more = " (+%d more)" % (len(errors) - 5) if len(errors) > 5 else ""
        return "; ".join(parts) + more

    # The flow

    def flow(self):
        sessions, session = "/payments/v1/sessions", "/payments/v1/sessions/{session_id}"
        order_path = "/payments/v1/authorizations/{authorizationToken}/order"
        token_path = "/payments/v1/authorizations/{authorizationToken}/customer-token"

        order_request = dict(GB_SESSION, billing_address=GB_ADDRESS,
                             merchant_urls={"confirmation": "https://example.com/confirmation?sid={session.id}&oid={order.id}"})
        update_request = {"merchant_reference2": "oracle-update", "billing_address": GB_ADDRESS}
        tokenize_session = dict(GB_SESSION, intent="tokenize")

        # The requests themselves conform (otherwise a failure below could be the script's fault).
        self.check_request("request: GB create session is a session_create", GB_SESSION, sessions, "post", "session_create")
        self.check_request("request: update is a session", update_request, session, "post", "session")
        self.check_request("request: create order is a create_order_request", order_request, order_path, "post", "create_order_request")
        self.check_request("request: customer token is a customer_token_creation_request", CUSTOMER_TOKEN_REQUEST,
                           token_path, "post", "customer_token_creation_request")

        created = self.check_response("create session (GB example)", "POST", sessions, sessions, GB_SESSION, 200, "merchant_session")
        if not created:
            return
        sid = created["session_id"]
        self.check_response("read session (new)", "GET", session, "/payments/v1/sessions/" + sid, None, 200, "session_read")
        self.check_response("update session", "POST", session, "/payments/v1/sessions/" + sid, update_request, 204, None)
        updated = self.check_response("read session (updated)", "GET", session, "/payments/v1/sessions/" + sid, None, 200, "session_read")
        if updated is not None:
            self.record(updated.get("merchant_reference2") == "oracle-update", "read session shows the update",
                        "merchant_reference2 %r" % updated.get("merchant_reference2"))

        token = self.authorize(sid, {"jsonData": {"billing_address": GB_ADDRESS}})
        if token is None:
            return
        read = self.check_response("read session (authorized)", "GET", session, "/payments/v1/sessions/" + sid, None, 200, "session_read")
        if read is not None:
            self.record(read.get("authorization_token") == token and read.get("status") == "incomplete",
                        "read session (authorized) carries the token, status incomplete",
                        "status %r" % read.get("status"))
        order = self.check_response("create order", "POST", order_path, "/payments/v1/authorizations/%s/order" % token,
                                    order_request, 200, "order")
        if order is not None:
            replay = self.check_response("create order again (same body)", "POST", order_path,
                                         "/payments/v1/authorizations/%s/order" % token, order_request, 200, "order")
            if replay is not None:
                self.record(replay.get("order_id") == order.get("order_id"), "create order is idempotent",
                            "order_id %s" % order.get("order_id"))
        done = self.check_response("read session (complete)", "GET", session, "/payments/v1/sessions/" + sid, None, 200, "session_read")
        if done is not None:
            self.record(done.get("status") == "complete", "read session after the order is complete", "status %r" % done.get("status"))

        # Customer token on a tokenize session.
        tokenizing = self.check_response("create session (intent tokenize)", "POST", sessions, sessions, tokenize_session, 200,
                                         "merchant_session")
        if tokenizing:
            ctoken = self.authorize(tokenizing["session_id"], None)
            if ctoken is not None:
                self.check_response("create customer token", "POST", token_path,
                                    "/payments/v1/authorizations/%s/customer-token" % ctoken, CUSTOMER_TOKEN_REQUEST, 200,
                                    "customer_token_creation_response")
                self.check_error("customer token: 400 (declared ErrorV2)", "POST",
                                 "/payments/v1/authorizations/%s/customer-token" % ctoken,
                                 dict(CUSTOMER_TOKEN_REQUEST, intended_use="ONE_OFF"), 400, "BAD_VALUE", template=token_path)

        # Error bodies.
        self.check_error("create session: 400 BAD_VALUE", "POST", sessions, dict(GB_SESSION, purchase_currency="EUR"), 400, "BAD_VALUE")
        self.check_error("create session: 400 BAD_REQUEST (malformed JSON)", "POST", sessions, b"{not json", 400, "BAD_REQUEST")
        self.check_error("read session: 404 NOT_FOUND", "GET", "/payments/v1/sessions/8fa7944f-5004-1366-a66f-90e39818534f",
                         None, 404, "NOT_FOUND")
        self.check_error("create order: 404 NOT_FOUND (unknown token)", "POST",
                         "/payments/v1/authorizations/1eddf502-f3a0-45bf-b1fd-f2e3a2758200/order", order_request, 404, "NOT_FOUND")
        if token is not None:
            self.check_error("create order: 409 BAD_VALUE (different body)", "POST", "/payments/v1/authorizations/%s/order" % token,
                             dict(order_request, merchant_reference2="other"), 409, "BAD_VALUE")
            self.check_error("update session: 404 SESSION_COMPLETED", "POST", "/payments/v1/sessions/" + sid, {}, 404,
                             "SESSION_COMPLETED")
        buy = self.check_response("create session (intent buy)", "POST", sessions, sessions, GB_SESSION, 200, "merchant_session")
        if buy:
            buy_token = self.authorize(buy["session_id"], None)
            if buy_token is not None:
                self.check_error("customer token: 403 INVALID_OPERATION (intent buy)", "POST",
                                 "/payments/v1/authorizations/%s/customer-token" % buy_token, CUSTOMER_TOKEN_REQUEST, 403,
                                 "INVALID_OPERATION")
        self.check_error("create session: 401 without credentials", "POST", sessions, GB_SESSION, 401, "UNAUTHORIZED", auth=False)

    def authorize(self, session_id, body):
        """The sandbox's stand-in for the SDK's authorize() (not part of Klarna's API, so no schema)."""
        code, _, raw = self.call("POST", "/__sandbox/klarna/payments/sessions/%s/authorize" % session_id, body)
        try:
            result = json.loads(raw)
        except ValueError:
            result = {}
        token = result.get("authorization_token") if isinstance(result, dict) else None
        ok = code == 200 and result.get("approved") is True and isinstance(token, str)
        self.record(ok, "authorize (sandbox SDK stand-in)", "approved" if ok else "status %d: %r" % (code, raw[:300]))
        return token if ok else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base_url", help="the sandbox, e.g. http://127.0.0.1:8080")
    parser.add_argument("oracle", nargs="?", default=None, help="the KP OpenAPI document (default: %s)" % DEFAULT_ORACLE)
    parser.add_argument("--oracle", dest="oracle_option", default=None, help="same as the positional oracle path")
    parser.add_argument("--user", default="PK12345_0123456789ab")
    parser.add_argument("--password", default="oracle-secret")
    parser.add_argument("--namespace", default=None, help="Sandbox-Namespace (default: a fresh one)")
    args = parser.parse_args()

    path = args.oracle_option or args.oracle or DEFAULT_ORACLE
    try:
        with open(path, encoding="utf-8") as handle:
            spec = json.load(handle)
    except (OSError, ValueError) as error:
        sys.stderr.write("cannot read the oracle %s: %s\n" % (path, error))
        return 2
    print("oracle: %s (%s %s)" % (os.path.normpath(path), spec.get("info", {}).get("title"), spec.get("info", {}).get("version")))
    run = Run(args.base_url, Oracle(spec), args.user, args.password, args.namespace or "oracle-" + uuid.uuid4().hex[:12])
    try:
        run.flow()
    except (urllib.error.URLError, OSError) as error:
        run.record(False, "sandbox reachable at %s" % args.base_url, str(error))
    print("%d passed, %d failed" % (run.passed, run.failed))
    return 1 if run.failed else 0


if __name__ == "__main__":
    sys.exit(main())
