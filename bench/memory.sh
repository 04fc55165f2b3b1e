#!/usr/bin/env bash
# Peak memory per operator under memory budgets: bench/memory_bench.cc runs one operator over a
# generated input (built before measuring, about 100 bytes a row) and reports the memory pool's
# high-water mark and the resident set's, both above what the process held before the query,
# with the bytes spilled. One process per operator and budget.
#
#   bench/memory.sh [BUILD_DIR]          # BUILD_DIR: build
#
# Environment: ROWS (4000000), THREADS (2), BUDGETS (256MiB 1GiB), QUERIES (sort aggregate
# distinct join window top_n pivot).
# Fails when a run fails or when an operator's row count differs between budgets.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${1:-$(dirname "$here")/build}
bench="$build/bench/memory_bench"
rows=${ROWS:-4000000}
threads=${THREADS:-2}
budgets=${BUDGETS:-256MiB 1GiB}
queries=${QUERIES:-sort aggregate distinct join window top_n pivot}

[[ -x "$bench" ]] || { echo "memory: $bench not found; ninja -C $build memory_bench" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/flotilla-memory.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
field() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }

status=0
printf '%-10s %8s %10s %14s %13s %12s %9s\n' query budget input_mib pool_peak_mib rss_peak_mib \
  spilled_mib seconds
for q in $queries; do
  want=""
  for b in $budgets; do
    out="$tmp/$q.$b"
    if ! "$bench" --query "$q" --rows "$rows" --threads "$threads" --memory-limit "$b" >"$out" 2>&1; then
      echo "FAIL: $q under $b: $(tail -1 "$out")"; status=1; continue
    fi
    got=$(field rows "$out")
    if [[ -n $want && $got != "$want" ]]; then
      echo "FAIL: $q gave $got rows under $b, $want under the first budget"; status=1
    fi
    want=$got
    printf '%-10s %8s %10s %14s %13s %12s %9s\n' "$q" "$b" "$(field input_mib "$out")" \
      "$(field pool_peak_mib "$out")" "$(field rss_peak_mib "$out")" \
      "$(field spilled_mib "$out")" "$(field seconds "$out")"
  done
done
exit $status
