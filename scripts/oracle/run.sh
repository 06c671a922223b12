#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Starts a built payment-sandbox on a free port, validates its Klarna Payments responses against Klarna's
# OpenAPI document with validate_klarna_payments.py (in a venv under .build/oracle-venv), stops the sandbox
# with SIGTERM and exits with the validator's status. Skips (exit 0) when the oracle document is absent.
#
#   scripts/oracle/run.sh .build/debug/payment-sandbox [path/to/payments-v1.openapi.json]
#
# ORACLE (or the second argument) overrides the document; ORACLE_VENV the venv folder.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"

bin="${1:-}"
[ -n "$bin" ] || { echo "usage: $0 PATH/TO/payment-sandbox [ORACLE.json]" >&2; exit 2; }
[ -x "$bin" ] || { echo "$bin: not an executable (build it first: swift build)" >&2; exit 2; }
oracle="${2:-${ORACLE:-$root/../shared/oracles/klarna/payments-v1.openapi.json}}"
if [ ! -f "$oracle" ]; then
  echo "oracle: $oracle not found; OpenAPI conformance check skipped"
  exit 0
fi

venv="${ORACLE_VENV:-$root/.build/oracle-venv}"
if [ ! -x "$venv/bin/python" ]; then
  mkdir -p "$(dirname "$venv")"
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$here/requirements.txt"

log="$(mktemp)"
"$bin" --port 0 --quiet >"$log" 2>&1 &
pid=$!
cleanup() {
  kill -TERM "$pid" 2>/dev/null || true
  rm -f "$log"
}
trap cleanup EXIT

port=""
for _ in $(seq 1 200); do
  port="$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9][0-9]*\).*/\1/p' "$log" | head -n 1)"
  [ -n "$port" ] && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.05
done
if [ -z "$port" ]; then
  cat "$log" >&2
  echo "the sandbox did not report 'listening on http://127.0.0.1:PORT'" >&2
  exit 1
fi

status=0
"$venv/bin/python" "$here/validate_klarna_payments.py" "http://127.0.0.1:$port" "$oracle" || status=$?

kill -TERM "$pid"
wait "$pid" || { code=$?; echo "the sandbox exited with $code after SIGTERM" >&2; [ "$status" -ne 0 ] || status=1; }
trap - EXIT
rm -f "$log"
exit "$status"
