#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The release binary in the Docker image's layout, run as docker/compose.yaml runs it (no Docker engine needed):
# installed under a temporary root where docker/Dockerfile installs it (/usr/local/bin, the scenarios in
# /usr/local/share/payment-sandbox/scenarios), started from the Dockerfile's WORKDIR with its
# PAYMENT_SANDBOX_BUNDLED_SCENARIOS and compose's PAYMENT_SANDBOX_SCENARIOS pointing at the "mounted" /scenarios.
# It must start with the bundled scenarios and the mounted one, and refuse a mounted file reusing a bundled name.
# Usage: scripts/check-image-layout.sh [BINARY]   (default .build/release/payment-sandbox)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-.build/release/payment-sandbox}
[ -x "$bin" ] || { echo "no executable at $bin (swift build -c release first)"; exit 1; }

# What the Dockerfile and compose.yaml say.
# The run stage's WORKDIR (after the last FROM); none means /.
workdir=$(awk '/^FROM /{w=""} /^WORKDIR /{w=$2} END{print w}' docker/Dockerfile)
bundled=$( (grep -o 'PAYMENT_SANDBOX_BUNDLED_SCENARIOS=[^[:space:]]*' docker/Dockerfile | head -1 || true) | cut -d= -f2)
mounted=$(sed -n 's/^[[:space:]]*PAYMENT_SANDBOX_SCENARIOS:[[:space:]]*//p' docker/compose.yaml | head -1)
[ -n "$bundled" ] && [ -n "$mounted" ] || { echo "docker/Dockerfile sets no PAYMENT_SANDBOX_BUNDLED_SCENARIOS or compose.yaml no PAYMENT_SANDBOX_SCENARIOS"; exit 1; }
grep -q "cp -R scenarios /out$bundled\$" docker/Dockerfile \
  || { echo "docker/Dockerfile: PAYMENT_SANDBOX_BUNDLED_SCENARIOS ($bundled) is not where the scenarios are copied"; exit 1; }
grep -q -- "- ./scenarios:$mounted:ro" docker/compose.yaml \
  || { echo "docker/compose.yaml: PAYMENT_SANDBOX_SCENARIOS ($mounted) is not the mounted directory"; exit 1; }

root=$(mktemp -d)
pid=
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$root"; }
trap cleanup EXIT
install -D -m 0755 "$bin" "$root/usr/local/bin/payment-sandbox"
mkdir -p "$(dirname "$root$bundled")" "$root$mounted" "$root$workdir"
cp -R scenarios "$root$bundled"
printf '{"name": "image-mounted", "description": "A user scenario.", "rules": []}\n' >"$root$mounted/mounted.json"

# Found through PATH, as the image's ENTRYPOINT ["payment-sandbox"] runs it: argv[0] is a bare name.
# Called only in a subshell (`&` or `$(...)`): it replaces that subshell, so `$!` is the sandbox's own pid.
run() {
  cd "$root$workdir" && exec env -u PAYMENT_SANDBOX_HOST -u PAYMENT_SANDBOX_PORT PATH="$root/usr/local/bin:$PATH" \
     PAYMENT_SANDBOX_BUNDLED_SCENARIOS="$root$bundled" PAYMENT_SANDBOX_SCENARIOS="$root$mounted" \
     payment-sandbox "$@"
}

log=$root/log
run --port 0 --quiet >"$log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do grep -q 'listening on' "$log" && break; sleep 0.05; done
grep -q "(scenarios: $root$bundled, $root$mounted)" "$log" || { cat "$log"; echo "did not start with the bundled and the mounted scenarios"; exit 1; }
port=$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$log")
names=$(curl -fsS "http://127.0.0.1:$port/__sandbox/scenarios" \
  | python3 -c 'import json,sys; print(" ".join(s["name"] for s in json.load(sys.stdin)["scenarios"]))')
for name in approve reject swedbankpay-approve image-mounted; do
  [[ " $names " == *" $name "* ]] || { echo "scenario $name missing: $names"; exit 1; }
done
kill -TERM "$pid"; wait "$pid" || true; pid=
# Without the variable too: found beside the executable (../share/payment-sandbox/scenarios).
out=$( (cd "$root$workdir" && env -u PAYMENT_SANDBOX_BUNDLED_SCENARIOS PATH="$root/usr/local/bin:$PATH" \
        payment-sandbox validate) 2>&1) || { echo "$out"; echo "validate without PAYMENT_SANDBOX_BUNDLED_SCENARIOS failed"; exit 1; }
expected=$(find scenarios -name '*.json' ! -name scenario.schema.json ! -path '*/.*' | wc -l)
[ "$out" = "$expected scenario files valid" ] || { echo "$out"; echo "expected the $expected bundled files beside the executable"; exit 1; }

# A mounted file reusing a bundled name: serve and validate both name the two files.
printf '{"name": "reject", "description": "Mine.", "rules": []}\n' >"$root$mounted/reject.json"
for command in "serve --port 0 --quiet" "validate $root$mounted"; do
  status=0
  # shellcheck disable=SC2086
  out=$(run $command 2>&1) || status=$?
  [ "$status" -eq 1 ] && [[ "$out" == *"$root$mounted/reject.json:1:10: \$.name: duplicate scenario name \"reject\" (also in $root$bundled/klarna/reject.json:"* ]] \
    || { echo "$command: exit $status: $out"; echo "a reused bundled name was not reported naming both files"; exit 1; }
done
echo "image layout: starts from $workdir with the bundled and the mounted scenarios; a reused bundled name is refused"
