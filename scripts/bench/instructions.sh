#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# instructions.sh - instructions the sandbox executes per request, counted by callgrind: a figure that does not
# depend on the machine's load, so every change shows its cost. Sourced by scripts/bench.sh (uses its log, die, BIN,
# TMP, PIDS and forget_pid): scripts/bench.sh --instructions. Alone, on any binary:
#
#   bash scripts/bench/instructions.sh [BINARY]     (default .build/release/payment-sandbox; nothing is built)
#
#   For each kind below, scripts/bench/instructions.py runs the sandbox under `valgrind --tool=callgrind`
#   (--collect-atstart=yes: every user-space instruction of the whole process, all threads) on a free port with
#   --quiet, waits for GET /__sandbox/health (valgrind slows start-up a lot), sends the kind's requests N times on ONE
#   keep-alive connection (each answer read whole before the next request; every answer 2xx, or the run fails), stops
#   it with SIGTERM and reads the total Ir from the callgrind file. That at N1 and at N2:
#   (Ir(N2) - Ir(N1)) / (N2 - N1) is the figure, start-up and stop cancel out.
#
#     health               GET /__sandbox/health                                                  per request
#     klarna-session       POST /payments/v1/sessions                                             per request
#     klarna-flow          session, authorize (the SDK's part), order, Order Management capture   per flow (4 requests)
#     swedbankpay-order    POST /psp/paymentorders, the checkout page's card form (paid)          per order (2 requests)
#
#   What runs by the clock is not per request, and a run under callgrind is ~50x slower than a native one (slower
#   still on a busy machine): the scenario watcher scans the scenario directories once a second (~3.5 M instructions
#   a scan, more scans in the longer run). instructions.py subtracts the inclusive Ir of ScenarioWatcher.fingerprint
#   (read from the callgrind file) from each total, and says so when it cannot find it; the raw figure is in the
#   result line (raw_per_unit). What remains of the clock (the event loop's 100 ms poll timeout, the watcher's sleep)
#   moved the figures by up to 0.6 % between runs (health; the others by 0.2 %).
#
# Environment:
#   INSTR_KINDS="health klarna-session klarna-flow swedbankpay-order"   the kinds measured
#   INSTR_N="200 2200"        N1 N2 for the single-request kinds
#   INSTR_FLOW_N="50 550"     N1 N2 for the flows (klarna-flow, swedbankpay-order)
#   INSTR_INPROCESS=1         0: no in-process figures
#   INSTR_INPROCESS_N="20 220" and INSTR_INPROCESS_FLOW_N="10 60"   their N1 N2
#   INSTR_START_SECONDS=300   the longest the sandbox may take to answer its first health request under valgrind
#   INSTR_STOP_SECONDS=300    ... and to exit after SIGTERM
#
#   In-process too (INSTR_INPROCESS=1, the default, with scripts/bench.sh --instructions): the same kinds sent
#   through SandboxClient to an in-process sandbox (no socket) by scripts/bench/inprocess's inprocess-instructions,
#   built in release against this checkout; instructions.py measure-inprocess. That figure holds the client's own
#   URLRequest/SandboxResponse work too, so it compares with another build's in-process figure, not with the socket's.
#
# About 2.5 minutes on a 2-core machine (and ~2 more in-process, plus its build; each run ~5 s of start-up under valgrind, then ~70-150 requests a second).
#
# Installs valgrind with apt-get when it is missing and it can (root or sudo); otherwise says how.

INSTR_KINDS=${INSTR_KINDS:-health klarna-session klarna-flow swedbankpay-order}
INSTR_N=${INSTR_N:-200 2200}
INSTR_FLOW_N=${INSTR_FLOW_N:-50 550}
INSTR_INPROCESS=${INSTR_INPROCESS:-1}
INSTR_INPROCESS_N=${INSTR_INPROCESS_N:-20 220}
INSTR_INPROCESS_FLOW_N=${INSTR_INPROCESS_FLOW_N:-10 60}
INSTR_PY=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/instructions.py

# valgrind from Debian when missing (as root, or with sudo that needs no password); else how to get it.
instructions_need_valgrind() {
    command -v valgrind >/dev/null && return 0
    local sudo=""
    if [[ $(id -u) -ne 0 ]]; then
        command -v sudo >/dev/null && sudo -n true 2>/dev/null && sudo=sudo \
            || die "valgrind not found; install it (Debian/Ubuntu: sudo apt-get install -y valgrind) and rerun"
    fi
    command -v apt-get >/dev/null || die "valgrind not found and no apt-get: install valgrind with your package manager"
    log "installing valgrind with apt-get"
    $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq valgrind >/dev/null \
        || die "apt-get install valgrind failed"
    command -v valgrind >/dev/null || die "valgrind still not found after apt-get install"
}

# The N1 N2 of a kind.
instructions_n() {
    case $1 in
        klarna-flow | swedbankpay-order) echo "$INSTR_FLOW_N" ;;
        *) echo "$INSTR_N" ;;
    esac
}

# Measures binary $1 (files under $2); sets INSTR_<kind with _ for ->=<instructions per unit>, INSTR_UNIT_<kind>,
# INSTR_REQUESTS_<kind> (requests per unit) and INSTR_LINE_<kind> (instructions.py's line).
instructions_measure() {
    local binary=$1 dir=$2 kind var n1 n2 line kv pid file
    [[ -x $binary ]] || die "not an executable: $binary"
    instructions_need_valgrind
    mkdir -p "$dir"
    for kind in $INSTR_KINDS; do
        read -r n1 n2 <<<"$(instructions_n "$kind")"
        var=${kind//-/_}
        log "instructions: $kind, N=$n1 and N=$n2 under callgrind ($binary)"
        python3 "$INSTR_PY" measure "$binary" "$dir" "$kind" "$n1" "$n2" >"$dir/$kind.result" 2>"$dir/$kind.progress" &
        pid=$!
        PIDS+=("$pid")
        wait "$pid" || {
            cat "$dir/$kind.progress" >&2
            for file in "$dir"/sandbox."$kind".*.log; do [[ -s $file ]] && { echo "$file:"; tail -n 20 "$file"; } >&2; done
            die "instructions.py failed for $kind"
        }
        forget_pid "$pid"
        sed 's/^/    /' "$dir/$kind.progress" >&2
        line=$(tail -n 1 "$dir/$kind.result")
        printf -v "INSTR_LINE_$var" '%s' "$line"
        for kv in $line; do
            case ${kv%%=*} in
                per_unit) printf -v "INSTR_$var" '%s' "${kv#*=}" ;;
                unit) printf -v "INSTR_UNIT_$var" '%s' "${kv#*=}" ;;
                requests_per_unit) printf -v "INSTR_REQUESTS_$var" '%s' "${kv#*=}" ;;
            esac
        done
    done
}

# The label of a kind's row.
instructions_label() {
    case $1 in
        health) echo "GET /__sandbox/health" ;;
        klarna-session) echo "Klarna POST /payments/v1/sessions" ;;
        klarna-flow) echo "Klarna flow: session, authorize, order, capture" ;;
        swedbankpay-order) echo "Swedbank Pay order paid: create, card form" ;;
        *) echo "$1" ;;
    esac
}

# The table of the last instructions_measure: request | unit | instructions per unit | per request.
instructions_table() {
    local kind var per unit requests
    printf '%-48s %-10s %13s %13s\n' "request" "unit" "instructions" "per request"
    for kind in $INSTR_KINDS; do
        var=${kind//-/_}
        per=INSTR_$var unit=INSTR_UNIT_$var requests=INSTR_REQUESTS_$var
        printf '%-48s %-10s %13s %13s\n' "$(instructions_label "$kind")" "${!unit} (${!requests})" "${!per}" \
            "$((${!per} / ${!requests}))"
    done
    echo "(callgrind Ir: user space, whole process, all threads, less the scenario watcher's scans; (Ir at N2 - Ir at N1)" \
        "/ (N2 - N1) with N = $INSTR_N requests, $INSTR_FLOW_N flows, on one keep-alive connection)"
}

# In-process: scripts/bench/inprocess's inprocess-instructions $1 (files under $2); prints request | unit |
# instructions per unit | per request.
instructions_inprocess() {
    local binary=$1 dir=$2 kind n line kv per unit requests
    mkdir -p "$dir"
    printf '%-48s %-10s %13s %13s\n' "request (in-process)" "unit" "instructions" "per request"
    for kind in $INSTR_KINDS; do
        case $kind in klarna-flow | swedbankpay-order) n=$INSTR_INPROCESS_FLOW_N ;; *) n=$INSTR_INPROCESS_N ;; esac
        log "instructions in-process: $kind, N=${n// / and N=} under callgrind"
        # shellcheck disable=SC2086 # N1 N2
        python3 "$INSTR_PY" measure-inprocess "$binary" "$dir" "$kind" $n >"$dir/$kind.result" 2>"$dir/$kind.progress" \
            || { cat "$dir/$kind.progress" >&2; die "instructions.py measure-inprocess failed for $kind"; }
        line=$(tail -n 1 "$dir/$kind.result")
        for kv in $line; do
            case ${kv%%=*} in
                per_unit) per=${kv#*=} ;;
                unit) unit=${kv#*=} ;;
                requests_per_unit) requests=${kv#*=} ;;
            esac
        done
        printf '%-48s %-10s %13s %13s\n' "$(instructions_label "$kind")" "$unit ($requests)" "$per" "$((per / requests))"
    done
    echo "(the same, through SandboxClient to an in-process sandbox, client included; N = $INSTR_INPROCESS_N requests," \
        "$INSTR_INPROCESS_FLOW_N flows)"
}

# scripts/bench.sh --instructions
instructions_bench() {
    instructions_measure "$BIN" "$TMP/instructions"
    echo
    echo "== instructions per request ($BIN) =="
    instructions_table
    [[ $INSTR_INPROCESS == 1 ]] || return 0
    log "swift build -c release --package-path scripts/bench/inprocess --product inprocess-instructions"
    swift build -c release --package-path "$ROOT/scripts/bench/inprocess" --product inprocess-instructions 2>&1 | tail -n 3 \
        || die "scripts/bench/inprocess build failed"
    local table
    table=$(instructions_inprocess "$ROOT/scripts/bench/inprocess/.build/release/inprocess-instructions" "$TMP/instructions-inprocess")
    echo
    echo "== instructions per request in-process (scripts/bench/inprocess's inprocess-instructions) =="
    echo "$table"
}

# Run alone: the helpers scripts/bench.sh would give, then the table of one binary.
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
    set -euo pipefail
    ROOT=$(cd "$(dirname "$0")/../.." && pwd)
    BIN=${1:-$ROOT/.build/release/payment-sandbox}
    [[ $# -le 1 && $BIN != -* ]] || { echo "usage: $0 [BINARY]" >&2; exit 2; }
    log() { printf '[instructions %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
    die() { log "error: $*"; exit 2; }
    PIDS=()
    forget_pid() { PIDS=(); }
    TMP=$(mktemp -d "${TMPDIR:-/tmp}/instructions.XXXXXX")
    trap 'for p in ${PIDS[@]+"${PIDS[@]}"}; do kill -TERM "$p" 2>/dev/null || true; done; rm -rf "$TMP"' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    instructions_bench
fi
