#!/usr/bin/env python3
"""Scrapes GET /__sandbox/metrics of a started sandbox and parses it with prometheus_client's text-format parser
(from PyPI, scripts/requirements-metrics.txt): the page must parse, and hold the families docs/control-api.md
("Metrics") lists, with bounded labels.

    python3 scripts/check-metrics.py --binary .build/release/payment-sandbox

Starts the binary on a free port (--port 0, read from its "listening on" line), sends a Klarna session, a read of
an unknown one and a health check, scrapes, stops it with SIGTERM. Exits 1 when a check fails.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request

from prometheus_client.parser import text_string_to_metric_families

FAMILIES = {
    "sandbox_requests": "counter", "sandbox_request_duration_seconds": "histogram",
    "sandbox_scenario_outcomes": "counter", "sandbox_callbacks_made": "counter", "sandbox_callback_calls": "counter",
    "sandbox_callback_retries": "counter", "sandbox_callbacks_failed": "counter", "sandbox_callbacks": "gauge",
    "sandbox_outbox_callbacks": "gauge", "sandbox_outbox_capacity": "gauge", "sandbox_outbox_evicted": "counter",
    "sandbox_objects_held": "gauge", "sandbox_objects_evicted": "counter", "sandbox_journal_entries": "gauge",
    "sandbox_journal_capacity": "gauge", "sandbox_journal_dropped": "counter", "sandbox_namespaces": "gauge",
    "sandbox_held_waits": "gauge", "sandbox_uptime_seconds": "gauge",
}
ALLOWED_LABELS = {"provider", "operation", "status_class", "le", "outcome", "result", "state"}
CART = {"purchase_country": "SE", "purchase_currency": "SEK", "locale": "sv-SE", "order_amount": 10000,
        "order_tax_amount": 0, "order_lines": [{"name": "Socks", "quantity": 1, "unit_price": 10000, "total_amount": 10000}]}


def call(base: str, method: str, path: str, body: dict | None = None) -> int:
    headers = {"Authorization": "Basic UEsxMjM0NV8wMTIzNDU2Nzg5YWI6c2VjcmV0", "Sandbox-Namespace": "metrics-check"}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    request = urllib.request.Request(base + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def check(page: str) -> list[str]:
    problems = []
    families = {family.name: family for family in text_string_to_metric_families(page)}
    for name, kind in FAMILIES.items():
        if name not in families:
            problems.append(f"missing family {name}")
        elif families[name].type != kind:
            problems.append(f"{name} is a {families[name].type}, not a {kind}")
    for family in families.values():
        for sample in family.samples:
            extra = set(sample.labels) - ALLOWED_LABELS
            if extra:
                problems.append(f"{sample.name} has unbounded labels {sorted(extra)}")
    created = [s for s in families["sandbox_requests"].samples
               if s.labels.get("operation") == "klarna.payments.create_session" and s.labels.get("status_class") == "2xx"]
    if not created or created[0].value != 1:
        problems.append(f"sandbox_requests_total for the created session: {created}")
    if "metrics-check" in page:
        problems.append("a namespace's name is on the page")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", required=True)
    args = parser.parse_args()
    process = subprocess.Popen([args.binary, "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        port = None
        deadline = time.monotonic() + 60
        while port is None and time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break
            match = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
            if match:
                port = match.group(1)
        if port is None:
            print("the sandbox did not start")
            return 1
        base = f"http://127.0.0.1:{port}"
        assert call(base, "POST", "/payments/v1/sessions", CART) == 200
        assert call(base, "GET", "/payments/v1/sessions/no-such-session") == 404
        assert call(base, "GET", "/__sandbox/health") == 200
        with urllib.request.urlopen(base + "/__sandbox/metrics", timeout=10) as response:
            content_type = response.headers["Content-Type"]
            page = response.read().decode()
        problems = check(page)
        if content_type != "text/plain; version=0.0.4; charset=utf-8":
            problems.append(f"Content-Type: {content_type}")
        for problem in problems:
            print(problem)
        print(f"{len(page.splitlines())} lines parsed by prometheus_client; {len(problems)} problems")
        return 1 if problems else 0
    finally:
        process.terminate()
        process.wait(timeout=30)


if __name__ == "__main__":
    sys.exit(main())
