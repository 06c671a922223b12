#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# compare.sh - two builds of the sandbox side by side.
#
#   bash scripts/bench/compare.sh BEFORE_BINARY AFTER_BINARY
#
# The instructions per request of both builds under callgrind (scripts/bench/instructions.sh, the table of
# scripts/bench.sh --instructions, its INSTR_* settings), with the change in %. Counted, not timed: one run of each is
# enough and the machine's load does not matter (a few minutes per build). `--instructions` says the same explicitly.
#
#   bash scripts/bench/compare.sh --throughput BEFORE_BINARY AFTER_BINARY
#
# Instead: throughput, measured in one run, alternating. Each round starts a fresh sandbox of each build in turn (the
# order flips every round: A B, B A, ...), and measures it as scripts/bench.sh does: `wrk -t2 -c32 --latency` on
# GET /__sandbox/health for DURATION (requests/s and p99), then kpflow (scripts/bench/kpflow.swift: 32 connections over
# 32 namespaces, whole Klarna Payments flows) for a 2 s warm-up and DURATION (flows/s). A shared machine's drift hits
# both builds alike, but on 2 shared cores the figures still swing by +-20 %; the medians over ROUNDS rounds are
# printed, with every round's figures. Environment: ROUNDS=8, DURATION=5 (seconds). Needs wrk (apt-get install wrk)
# and swiftc for kpflow.
#
# Each binary runs from where it was built, so it finds its own bundled scenarios.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
INSTRUCTIONS=1
case ${1:-} in
    --instructions) shift ;;
    --throughput) INSTRUCTIONS=0; shift ;;
esac
[[ $# == 2 ]] || { echo "usage: $0 [--instructions | --throughput] BEFORE_BINARY AFTER_BINARY" >&2; exit 2; }
BINS=("$1" "$2")
NAMES=(before after)
ROUNDS=${ROUNDS:-8}
DURATION=${DURATION:-5}
KPFLOW=$ROOT/.build/kpflow
for bin in "${BINS[@]}"; do [[ -x $bin ]] || { echo "not an executable: $bin" >&2; exit 2; }; done

if ((INSTRUCTIONS)); then
    log() { printf '[compare %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
    die() { log "error: $*"; exit 2; }
    PIDS=()
    forget_pid() { PIDS=(); }
    TMP=$(mktemp -d "${TMPDIR:-/tmp}/compare.XXXXXX")
    trap 'for p in ${PIDS[@]+"${PIDS[@]}"}; do kill -TERM "$p" 2>/dev/null || true; done; rm -rf "$TMP"' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    # shellcheck source=instructions.sh
    source "$ROOT/scripts/bench/instructions.sh"
    for index in 0 1; do
        instructions_measure "${BINS[$index]}" "$TMP/${NAMES[$index]}"
        for kind in $INSTR_KINDS; do
            var=INSTR_${kind//-/_}
            printf -v "CMP_${index}_${kind//-/_}" '%s' "${!var}"
        done
    done
    echo
    echo "== instructions per request: before ${BINS[0]}, after ${BINS[1]} =="
    row() { printf '%-48s %-10s %13s %13s %13s %13s %9s\n' "$@"; }
    row "request" "unit" "before" "per request" "after" "per request" "change"
    for kind in $INSTR_KINDS; do
        var=${kind//-/_} unit=INSTR_UNIT_${kind//-/_} requests=INSTR_REQUESTS_${kind//-/_}
        before=CMP_0_$var after=CMP_1_$var
        row "$(instructions_label "$kind")" "${!unit} (${!requests})" "${!before}" "$((${!before} / ${!requests}))" \
            "${!after}" "$((${!after} / ${!requests}))" \
            "$(python3 -c "print('%+.2f %%' % (100 * (${!after} - ${!before}) / ${!before}))")"
    done
    echo "(callgrind Ir per unit, as scripts/bench.sh --instructions counts them: N = $INSTR_N requests, $INSTR_FLOW_N flows)"
    exit 0
fi

command -v wrk >/dev/null || { echo "wrk not found (apt-get install wrk)" >&2; exit 2; }
if [[ ! -x $KPFLOW || $ROOT/scripts/bench/kpflow.swift -nt $KPFLOW ]]; then
    mkdir -p "$ROOT/.build"
    swiftc -O -parse-as-library "$ROOT/scripts/bench/kpflow.swift" -o "$KPFLOW"
fi
TMP=$(mktemp -d)
PID=
cleanup() { [[ -n $PID ]] && kill "$PID" 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT

freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# One build, one round: prints "health_rps p99_ms flows_per_s".
measure() { # binary
    local port
    port=$(freeport)
    "$1" --port "$port" --quiet >"$TMP/sandbox.log" 2>&1 &
    PID=$!
    for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/__sandbox/health" >/dev/null && break; sleep 0.1; done
    wrk -t2 -c32 -d2s "http://127.0.0.1:$port/__sandbox/health" >/dev/null
    wrk -t2 -c32 -d"${DURATION}s" --latency "http://127.0.0.1:$port/__sandbox/health" >"$TMP/wrk.out"
    "$KPFLOW" --port "$port" --duration 2 --prefix kp-warm- >/dev/null 2>&1 || true
    "$KPFLOW" --port "$port" --duration "$DURATION" >"$TMP/kp.out" 2>/dev/null || true
    kill "$PID"; wait "$PID" 2>/dev/null || true; PID=
    python3 - "$TMP/wrk.out" "$TMP/kp.out" <<'EOF'
import re, sys
wrk = open(sys.argv[1]).read()
rps = float(re.search(r"Requests/sec:\s+([\d.]+)", wrk).group(1))
value, unit = re.search(r"99%\s+([\d.]+)(us|ms|s)", wrk).groups()
p99 = float(value) * {"us": 0.001, "ms": 1, "s": 1000}[unit]
lines = open(sys.argv[2]).read().splitlines() or [""]
kp = dict(pair.split("=", 1) for pair in lines[-1].split() if "=" in pair)
print(f"{rps:.0f} {p99:.2f} {float(kp.get('flows_per_s', 0)):.0f}")
EOF
}

echo "round build health_req_per_s p99_ms kp_flows_per_s" | tee "$TMP/all"
for round in $(seq "$ROUNDS"); do
    order=(0 1); ((round % 2 == 0)) && order=(1 0)
    for index in "${order[@]}"; do
        echo "$round ${NAMES[$index]} $(measure "${BINS[$index]}")" | tee -a "$TMP/all"
    done
done
python3 - "$TMP/all" <<'EOF'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1]).read().splitlines()[1:]]
for name in ("before", "after"):
    mine = [row for row in rows if row[1] == name]
    medians = [statistics.median(float(row[column]) for row in mine) for column in (2, 3, 4)]
    print(f"median {name}: health {medians[0]:.0f} req/s, p99 {medians[1]:.2f} ms, Klarna {medians[2]:.0f} flows/s ({len(mine)} rounds)")
EOF
