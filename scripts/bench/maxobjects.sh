# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# maxobjects.sh - the "max objects" section of scripts/bench.sh (sourced by it; uses its log, die, py,
# start_sandbox, stop_pid, PIDS, forget_pid, KPFLOW and KP_* settings). Alone: scripts/bench.sh --max-objects-only
#
#   A fresh sandbox with PAYMENT_SANDBOX_MAX_OBJECTS=MO_MAX_OBJECTS runs MO_FLOWS whole Klarna flows (session,
#   authorize, order: 4 objects each) in MO_SAMPLES chunks; after each chunk it reads the sandbox's RSS and the
#   objects held and evicted (GET /__sandbox/health). Past the bound every creation evicts the oldest object of
#   the server, so RSS must stay flat once the bound is reached: the last sample against the one at the
#   middle of the run is the figure ("flat" when it grew by less than 10 %).
#
# Environment:
#   MO_FLOWS=1000000        whole flows in all
#   MO_MAX_OBJECTS=100000   the bound (25,000 flows' worth)
#   MO_SAMPLES=10           chunks, one RSS sample after each
#   MO_CHUNK_SECONDS=600    the longest a chunk may run

MO_FLOWS=${MO_FLOWS:-1000000}
MO_MAX_OBJECTS=${MO_MAX_OBJECTS:-100000}
MO_SAMPLES=${MO_SAMPLES:-10}
MO_CHUNK_SECONDS=${MO_CHUNK_SECONDS:-600}

# One kpflow run of up to $1 flows against $MO_PORT; sets MO_LAST_flows, MO_LAST_requests, ... from its line.
mo_kpflow() {
    local out=$TMP/maxobjects.kpflow rc=0 pid kv
    "$KPFLOW" --port "$MO_PORT" --connections "$KP_CONNS" --namespaces "$KP_NAMESPACES" --threads "$KP_THREADS" \
        --prefix kp-max- --duration "$MO_CHUNK_SECONDS" --flows "$1" >"$out" 2>"$out.err" &
    pid=$!
    PIDS+=("$pid")
    wait "$pid" || rc=$?
    forget_pid "$pid"
    ((rc <= 1)) || { cat "$out" "$out.err" >&2; die "kpflow (max objects) failed ($rc)"; }
    for kv in $(tail -n 1 "$out"); do printf -v "MO_LAST_${kv%%=*}" '%s' "${kv#*=}"; done
}

# The sandbox's "objects" of GET /__sandbox/health as "held evicted".
mo_objects() {
    py wait200 "$MO_PORT" /__sandbox/health | python3 -c \
        'import json, sys; o = json.load(sys.stdin)["objects"]; print(o["held"], o["evicted"])'
}

# Sets MO_RSS_START, MO_RSS_MID, MO_RSS_END (MiB), MO_HWM, MO_HELD, MO_EVICTED, MO_DONE (flows), MO_ERRORS,
# MO_GROWTH (end / middle) and MO_SAMPLE_LINE; prints the section's lines.
max_objects_bench() {
    local chunk=$(((MO_FLOWS + MO_SAMPLES - 1) / MO_SAMPLES)) sample rss held evicted start
    log "max objects: fresh sandbox with PAYMENT_SANDBOX_MAX_OBJECTS=$MO_MAX_OBJECTS, $MO_FLOWS Klarna flows in $MO_SAMPLES chunks"
    MO_PORT=$(py freeport)
    PAYMENT_SANDBOX_MAX_OBJECTS=$MO_MAX_OBJECTS start_sandbox "$MO_PORT"
    sleep 0.5
    MO_RSS_START=$(py rss "$SANDBOX_PID")
    MO_DONE=0 MO_ERRORS=0 MO_SAMPLE_LINE="" MO_RSS_MID=""
    start=$(date +%s)
    for ((sample = 1; sample <= MO_SAMPLES; sample++)); do
        mo_kpflow "$chunk"
        kill -0 "$SANDBOX_PID" 2>/dev/null || { tail -n 20 "$TMP/sandbox.log" >&2; die "the sandbox exited during the max-objects run"; }
        MO_DONE=$((MO_DONE + MO_LAST_flows))
        MO_ERRORS=$((MO_ERRORS + MO_LAST_errors + MO_LAST_non2xx))
        rss=$(py rss "$SANDBOX_PID")
        read -r held evicted < <(mo_objects)
        log "max objects: $MO_DONE flows, RSS $rss MiB, held $held, evicted $evicted"
        MO_SAMPLE_LINE+="${MO_SAMPLE_LINE:+, }$((MO_DONE / 1000))k: $rss"
        ((sample == (MO_SAMPLES + 1) / 2)) && MO_RSS_MID=$rss
    done
    MO_RSS_END=$rss MO_HELD=$held MO_EVICTED=$evicted
    MO_HWM=$(py rss "$SANDBOX_PID" VmHWM)
    MO_GROWTH=$(py calc "$MO_RSS_END / $MO_RSS_MID")
    echo "max objects: $MO_DONE Klarna flows in $(($(date +%s) - start)) s with --max-objects $MO_MAX_OBJECTS" \
        "($MO_ERRORS errors/non-2xx): held $MO_HELD, evicted $MO_EVICTED; RSS idle $MO_RSS_START MiB," \
        "after $((MO_DONE / 1000))k flows $MO_RSS_END MiB (peak $MO_HWM), end/middle $MO_GROWTH"
    echo "max objects: RSS MiB after each chunk ($MO_SAMPLE_LINE)"
    stop_pid "$SANDBOX_PID" sandbox
}
