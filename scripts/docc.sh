#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# docc.sh - the DocC documentation of the package's Swift libraries, with the toolchain's own docc (no package
# plugin: Package.swift has no dependencies). For each Sources/<Target>/<Target>.docc catalog:
#   1. `swift build --target <Target>` (debug, in .build: CI has built it already) and swift-symbolgraph-extract
#      write the module's public symbols as symbol graphs (`swift package dump-symbol-graph` does the same for
#      every module, but on Linux it exits 1 on the test bundle's modules, which it cannot load);
#   2. `docc convert` turns the catalog and its module's graphs into .build/docc/<Target>.doccarchive (a static
#      site: serve the folder, or open it in Xcode).
# Fails when docc reports an error (a broken catalog, an unknown module); warnings (a symbol link that does not
# resolve, ...) are printed and counted, and fail only with DOCC_STRICT=1.
#
#   scripts/docc.sh [TARGET ...]     (default: every target with a catalog)
set -euo pipefail
cd "$(dirname "$0")/.."

docc="${DOCC:-$(dirname "$(readlink -f "$(command -v swift)")")/docc}"
[ -x "$docc" ] || { echo "docc.sh: no docc beside swift ($docc); set DOCC=/path/to/docc" >&2; exit 2; }

if [ "$#" -gt 0 ]; then
  targets=("$@")
else
  targets=()
  for catalog in Sources/*/*.docc; do
    [ -d "$catalog" ] && targets+=("$(basename "$catalog" .docc)")
  done
fi
[ "${#targets[@]}" -gt 0 ] || { echo "docc.sh: no Sources/<Target>/<Target>.docc catalog" >&2; exit 2; }

log=$(mktemp)
trap 'rm -f "$log"' EXIT
toolchain=$(dirname "$(readlink -f "$(command -v swift)")")
extract="$toolchain/swift-symbolgraph-extract"
[ -x "$extract" ] || { echo "docc.sh: no swift-symbolgraph-extract beside swift" >&2; exit 2; }
bin=$(swift build --show-bin-path)            # .build/<triple>/debug
triple=$(basename "$(dirname "$bin")")

out=.build/docc
mkdir -p "$out"
warnings=0
for target in "${targets[@]}"; do
  catalog="Sources/$target/$target.docc"
  [ -d "$catalog" ] || { echo "docc.sh: no catalog $catalog" >&2; exit 2; }
  # The module's graphs (its own symbols, its extensions of other modules') in a folder of their own: one library each.
  module_graphs="$out/symbol-graphs/$target"
  rm -rf "$module_graphs" "$out/$target.doccarchive"
  mkdir -p "$module_graphs"
  echo "(swift build --target $target; its symbol graphs)"
  swift build --target "$target" >"$log" 2>&1 || { cat "$log"; exit 1; }
  "$extract" -module-name "$target" -target "$triple" -module-cache-path "$bin/ModuleCache" -I "$bin/Modules" \
    -minimum-access-level public -output-dir "$module_graphs" >"$log" 2>&1 || { cat "$log"; exit 1; }
  echo "(docc convert $catalog -> $out/$target.doccarchive)"
  status=0
  "$docc" convert "$catalog" \
    --additional-symbol-graph-dir "$module_graphs" \
    --fallback-display-name "$target" \
    --fallback-bundle-identifier "payment-sandbox.$target" \
    --transform-for-static-hosting \
    --output-path "$out/$target.doccarchive" >"$log" 2>&1 || status=$?
  count=$(grep -c 'warning:' "$log" || true)
  warnings=$((warnings + count))
  grep -E 'warning:|error:' "$log" || true
  if [ "$status" -ne 0 ] || grep -q 'error:' "$log"; then
    cat "$log"
    echo "docc.sh: $target: docc convert failed (exit $status)" >&2
    exit 1
  fi
  echo "$target: $count warning(s)"
done
echo "docc.sh: ${#targets[@]} archive(s) in $out, $warnings warning(s)"
if [ "${DOCC_STRICT:-0}" = 1 ] && [ "$warnings" -gt 0 ]; then exit 1; fi
