#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Starts a built payment-sandbox on a free port, validates its responses against Klarna's OpenAPI documents,
# stops the sandbox with SIGTERM and exits non-zero when any validator failed:
# - Klarna Payments with validate_klarna_payments.py (openapi-schema-validator, venv .build/oracle-venv);
# - Order Management with validate_klarna_om.py (openapi-core, venv .build/oracle-om-venv: openapi-core 0.23
#   needs openapi-schema-validator < 0.9, so it cannot share the KP venv);
# - the Hosted Payment Page with validate_klarna_hpp.py (openapi-core too: the same venv as Order Management).
# Each check is skipped when its document is absent (exit 0 when all are).
#
#   scripts/oracle/run.sh .build/debug/payment-sandbox [payments-v1.openapi.json [ordermanagement-v1.openapi.json
#       [hpp-v1.openapi.yml]]]
#
# ORACLE / OM_ORACLE / HPP_ORACLE (or the arguments) override the documents; ORACLE_VENV / ORACLE_OM_VENV the venv
# folders.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"

bin="${1:-}"
[ -n "$bin" ] || { echo "usage: $0 PATH/TO/payment-sandbox [ORACLE.json]" >&2; exit 2; }
[ -x "$bin" ] || { echo "$bin: not an executable (build it first: swift build)" >&2; exit 2; }
oracle="${2:-${ORACLE:-$root/../shared/oracles/klarna/payments-v1.openapi.json}}"
om_oracle="${3:-${OM_ORACLE:-$root/../shared/oracles/klarna/ordermanagement-v1.openapi.json}}"
hpp_oracle="${4:-${HPP_ORACLE:-$root/../shared/oracles/klarna/hpp-v1.openapi.yml}}"
run_kp=1
run_om=1
run_hpp=1
if [ ! -f "$oracle" ]; then
  echo "oracle: $oracle not found; Klarna Payments conformance check skipped"
  run_kp=0
fi
if [ ! -f "$om_oracle" ]; then
  echo "oracle: $om_oracle not found; Order Management conformance check skipped"
  run_om=0
fi
if [ ! -f "$hpp_oracle" ]; then
  echo "oracle: $hpp_oracle not found; Hosted Payment Page conformance check skipped"
  run_hpp=0
fi
[ "$run_kp" = 1 ] || [ "$run_om" = 1 ] || [ "$run_hpp" = 1 ] || exit 0

# A venv at $1 with the packages $2.. installed (pip does nothing when they already are).
prepare_venv() {
  local dir="$1"
  shift
  if [ ! -x "$dir/bin/python" ]; then
    mkdir -p "$(dirname "$dir")"
    python3 -m venv "$dir"
  fi
  "$dir/bin/python" -m pip install --quiet --disable-pip-version-check "$@"
}

venv="${ORACLE_VENV:-$root/.build/oracle-venv}"
[ "$run_kp" = 0 ] || prepare_venv "$venv" -r "$here/requirements.txt"
# openapi-core and everything it pulls in, pinned (the set validate_klarna_om.py and validate_klarna_hpp.py were
# tested with).
om_venv="${ORACLE_OM_VENV:-$root/.build/oracle-om-venv}"
[ "$run_om" = 0 ] && [ "$run_hpp" = 0 ] || prepare_venv "$om_venv" \
  openapi-core==0.23.1 openapi-schema-validator==0.8.1 openapi-spec-validator==0.8.5 jsonschema==4.26.0 \
  jsonschema-path==0.4.6 jsonschema-specifications==2025.9.1 referencing==0.37.0 rpds-py==2026.9.1 attrs==26.1.0 \
  rfc3339-validator==0.1.4 six==1.17.0 isodate==0.7.2 lazy-object-proxy==1.13.0 more-itertools==11.2.1 \
  pathable==0.5.0 PyYAML==6.0.3 typing_extensions==4.16.0 Werkzeug==3.1.9 MarkupSafe==3.0.4 pydantic==2.14.3 \
  pydantic-settings==2.16.3 pydantic_core==2.50.4 annotated-types==0.8.0 typing-inspection==0.4.5 python-dotenv==1.2.4

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
if [ "$run_kp" = 1 ]; then
  "$venv/bin/python" "$here/validate_klarna_payments.py" "http://127.0.0.1:$port" "$oracle" || status=$?
fi
if [ "$run_om" = 1 ]; then
  om_status=0
  "$om_venv/bin/python" "$here/validate_klarna_om.py" "http://127.0.0.1:$port" "$om_oracle" || om_status=$?
  [ "$status" -ne 0 ] || status=$om_status
fi
if [ "$run_hpp" = 1 ]; then
  hpp_status=0
  "$om_venv/bin/python" "$here/validate_klarna_hpp.py" "http://127.0.0.1:$port" "$hpp_oracle" || hpp_status=$?
  [ "$status" -ne 0 ] || status=$hpp_status
fi

kill -TERM "$pid"
wait "$pid" || { code=$?; echo "the sandbox exited with $code after SIGTERM" >&2; [ "$status" -ne 0 ] || status=1; }
trap - EXIT
rm -f "$log"
exit "$status"
