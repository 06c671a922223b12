#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fuzzes HTTPRequestParser with libFuzzer + AddressSanitizer (ParserFuzzing.run holds the invariants).
#
#   scripts/fuzz.sh                 # 60 seconds
#   FUZZ_SECONDS=600 scripts/fuzz.sh
#
# Runs on a work copy of the saved corpus (.build/fuzz-corpus), so the 100s of inputs libFuzzer keeps never
# land in the repository. Crashers (crash-*, oom-*, timeout-*) are copied into the saved corpus
# Tests/SandboxHTTPTests/FuzzCorpus/, which `swift test` replays: fix the parser, then keep them as regressions.
# An -O build drops precondition messages; `swift test --filter FuzzCorpusTests` (debug) prints which invariant broke.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${FUZZ_SECONDS:-60}"
saved=Tests/SandboxHTTPTests/FuzzCorpus
work=.build/fuzz-corpus
artifacts=.build/fuzz-artifacts
binary=.build/fuzz-parser

mkdir -p .build "$work" "$artifacts"
echo "building $binary"
# (gold warns once per ASan symbol it cannot export: noise, filtered out.)
swiftc -sanitize=fuzzer,address -parse-as-library -O -package-name payment_sandbox \
    Sources/SandboxHTTP/*.swift Fuzz/ParserFuzzTarget.swift -o "$binary" 2>&1 \
    | { grep -v "Cannot export local symbol" || true; }

cp -n "$saved"/* "$work"/ 2>/dev/null || true

# Swift's own crash backtracer fights ASan over the dying process; libFuzzer reports the crash itself.
export SWIFT_BACKTRACE=enable=no
status=0
echo "fuzzing for ${seconds}s"
"$binary" "$work" -max_len=4096 -max_total_time="$seconds" -artifact_prefix="$artifacts/" -dict=Fuzz/http.dict \
    -print_final_stats=1 || status=$?

# Keep every crasher as a regression input.
found=0
for crasher in "$artifacts"/crash-* "$artifacts"/oom-* "$artifacts"/timeout-*; do
    [ -e "$crasher" ] || continue
    name="$(basename "$crasher")"
    if [ ! -e "$saved/$name" ]; then
        cp "$crasher" "$saved/$name"
        echo "new crasher saved: $saved/$name"
        found=$((found + 1))
    fi
done
echo "corpus work copy: $(ls "$work" | wc -l) inputs; new crashers: $found"
exit "$status"
