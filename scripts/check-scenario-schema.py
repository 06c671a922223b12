#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks scenarios/scenario.schema.json against the JSON Schema 2020-12 meta-schema, then validates every
scenarios/**/*.json (except the schema itself and hidden files) against it. Known-bad scenarios must be
rejected and known-good ones accepted, so the schema cannot drift loose or tight unnoticed.

Usage:  scripts/check-scenario-schema.py [SCENARIO_DIR_OR_FILE...]     (default: the repository's scenarios/)
Needs:  pip install -r scripts/requirements-schema.txt   (e.g. in .build/schema-venv)
Prints one line per problem, then "N passed, N failed"; exits 1 when anything failed.
"""
import json
import pathlib
import sys

try:
    import jsonschema
except ImportError:
    sys.exit("jsonschema is not installed: pip install -r scripts/requirements-schema.txt")

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCHEMA_PATH = ROOT / "scenarios" / "scenario.schema.json"

# Each must fail the schema: one per kind of rule the schema is meant to enforce.
BASE = {"name": "bad", "description": "A known-bad scenario."}
KNOWN_BAD = {
    "missing name": {"description": "x", "rules": []},
    "invalid name": {**BASE, "name": "Bad Name", "rules": []},
    "empty description": {**BASE, "description": " ", "rules": []},
    "unknown top-level key": {**BASE, "rules": [], "version": 1},
    "unknown operation": {**BASE, "rules": [{"operation": "klarna.payments.authorise", "outcome": "approve"}]},
    "unknown outcome": {**BASE, "rules": [{"operation": "klarna.payments.authorize", "outcome": "rejekt"}]},
    "outcome not allowed for operation": {**BASE, "rules": [{"operation": "klarna.payments.create_session", "outcome": "reject"}]},
    "outcome not allowed in sequence": {**BASE, "rules": [{"operation": "klarna.payments.load", "sequence": [{"outcome": "approve"}, {"outcome": "expire_token"}]}]},
    "outcome and sequence": {**BASE, "rules": [{"operation": "klarna.payments.load", "outcome": "approve", "sequence": [{"outcome": "approve"}]}]},
    "neither outcome nor sequence": {**BASE, "rules": [{"operation": "klarna.payments.load"}]},
    "empty sequence": {**BASE, "rules": [{"operation": "klarna.payments.load", "sequence": []}]},
    "http_error without status": {**BASE, "rules": [{"operation": "klarna.payments.load", "outcome": "http_error"}]},
    "status out of range": {**BASE, "rules": [{"operation": "klarna.payments.load", "outcome": "http_error", "status": 600}]},
    "interim status": {**BASE, "rules": [{"operation": "klarna.payments.load", "outcome": "http_error", "status": 101}]},
    "parameter of another outcome": {**BASE, "rules": [{"operation": "klarna.payments.authorize", "outcome": "reject", "status": 500}]},
    "unknown reject reason": {**BASE, "rules": [{"operation": "klarna.payments.authorize", "outcome": "reject", "reason": "because"}]},
    "mismatched_fields without fields": {**BASE, "rules": [{"operation": "klarna.payments.create_order", "outcome": "mismatched_fields"}]},
    "empty fields": {**BASE, "rules": [{"operation": "klarna.payments.create_order", "outcome": "mismatched_fields", "fields": []}]},
    "negative cart count": {**BASE, "rules": [{"operation": "klarna.payments.create_order", "outcome": "cart_changed", "expected": -1}]},
    "delay too long": {**BASE, "rules": [{"operation": "klarna.payments.load", "outcome": "approve", "delay_ms": 60001}]},
    "delay on a sequence rule": {**BASE, "rules": [{"operation": "klarna.payments.load", "sequence": [{"outcome": "approve"}], "delay_ms": 5}]},
    "reserved response header": {**BASE, "rules": [{"operation": "klarna.payments.load", "outcome": "http_error", "status": 500, "headers": {"content-length": "5"}}]},
    "header value with a line break": {**BASE, "rules": [{"operation": "klarna.payments.load", "outcome": "http_error", "status": 500, "headers": {"X-A": "a\r\nb"}}]},
    "condition with field and header": {**BASE, "rules": [{"operation": "klarna.payments.load", "outcome": "approve", "when": [{"field": "a", "header": "b", "exists": True}]}]},
    "condition with two tests": {**BASE, "rules": [{"operation": "klarna.payments.load", "outcome": "approve", "when": [{"field": "a", "equals": 1, "exists": True}]}]},
    "condition without a test": {**BASE, "rules": [{"operation": "klarna.payments.load", "outcome": "approve", "when": [{"field": "a"}]}]},
    "bad field path": {**BASE, "rules": [{"operation": "klarna.payments.load", "outcome": "approve", "when": [{"field": "a..b", "exists": True}]}]},
    "header equals a number": {**BASE, "rules": [{"operation": "klarna.payments.load", "outcome": "approve", "when": [{"header": "X-A", "equals": 1}]}]},
    "invalid regex": {**BASE, "rules": [{"operation": "klarna.payments.load", "outcome": "approve", "when": [{"field": "a", "matches": "("}]}]},
}

# Each must pass: the corners a too-strict schema would get wrong.
KNOWN_GOOD = {
    "every parameter": {**BASE, "rules": [
        {"operation": "klarna.payments.authorize", "outcome": "reject", "reason": "high_risk", "delay_ms": 0},
        {"operation": "klarna.payments.create_order", "outcome": "mismatched_fields", "fields": ["billing_address.postal_code", "locale"]},
        {"operation": "klarna.payments.create_order", "outcome": "cart_changed", "expected": 2, "actual": 3},
        {"operation": "klarna.payments.create_session", "outcome": "http_error", "status": 503, "body": {"any": ["json", 1, None]},
         "headers": {"Retry-After": "1", "X-Trace": ""}, "delay_ms": 60000},
        {"operation": "klarna.payments.read_session", "outcome": "drop_connection"},
    ]},
    "sequence": {**BASE, "rules": [{"operation": "klarna.payments.create_order", "sequence": [
        {"outcome": "http_error", "status": 503, "delay_ms": 10}, {"outcome": "fraud_rejected"}]}]},
    "every condition": {**BASE, "rules": [{"operation": "klarna.payments.create_order", "outcome": "approve", "when": [
        {"field": "billing_address.email", "contains": "+denied"},
        {"field": "order_lines[0].quantity", "equals": 1},
        {"field": "order_lines[10].reference", "matches": "(?i)^ab+c$"},
        {"field": "customer", "exists": False},
        {"header": "X-Test", "equals": "yes"},
        {"header": "x-other", "exists": True}]}]},
    "integral numbers written as floats": {**BASE, "rules": [{"operation": "klarna.payments.load", "outcome": "http_error", "status": 5e2}]},
    "empty when": {**BASE, "$schema": "x", "rules": [{"operation": "klarna.payments.load", "when": [], "outcome": "approve"}]},
}


def scenario_files(locations):
    for location in locations:
        path = pathlib.Path(location)
        if path.is_file():
            yield path
            continue
        for file in sorted(path.rglob("*.json")):
            relative = file.relative_to(path)
            if file.name == SCHEMA_PATH.name or any(part.startswith(".") for part in relative.parts):
                continue
            yield file


def main(argv):
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    passed = failed = 0

    try:
        jsonschema.Draft202012Validator.check_schema(schema)
        print(f"ok    {SCHEMA_PATH.relative_to(ROOT)} is a valid draft 2020-12 schema")
        passed += 1
    except jsonschema.SchemaError as error:
        print(f"FAIL  {SCHEMA_PATH.relative_to(ROOT)}: not a valid schema: {error.message}")
        print(f"0 passed, 1 failed")
        return 1

    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)

    for name, document in KNOWN_BAD.items():
        if validator.is_valid(document):
            print(f"FAIL  known-bad scenario accepted: {name}")
            failed += 1
        else:
            passed += 1
    for name, document in KNOWN_GOOD.items():
        errors = list(validator.iter_errors(document))
        if errors:
            print(f"FAIL  known-good scenario rejected: {name}: {errors[0].json_path}: {errors[0].message}")
            failed += 1
        else:
            passed += 1

    locations = argv or [ROOT / "scenarios"]
    for file in scenario_files(locations):
        shown = file.relative_to(ROOT) if file.is_relative_to(ROOT) else file
        try:
            document = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            print(f"FAIL  {shown}: {error}")
            failed += 1
            continue
        errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
        if errors:
            failed += 1
            for error in errors:
                print(f"FAIL  {shown}: {error.json_path}: {error.message}")
        else:
            passed += 1
            print(f"ok    {shown}")

    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
