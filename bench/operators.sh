#!/usr/bin/env bash
# The local engine's operators next to DuckDB on identical generated data, in one run, same
# thread count: bench/operators_bench.cc runs our physical plan (no SQL front end) to completion
# with the result materialized in memory; bench/operators_duckdb.mjs runs the SQL query into a
# temp table (CREATE TEMP TABLE r AS ...), so DuckDB too materializes every row. Both time the
# query only: the input tables are built before the clock starts.
#
#   bench/operators.sh [BUILD_DIR]      # `make bench` builds and runs it; BUILD_DIR: build
#
# Environment: ROWS (10000000), THREADS (2), REPEATS (3), QUERIES (group_sum join sort top100
# row_number), LIMITED (join sort row_number: also run ours under LIMIT), LIMIT (128MiB, small
# enough that these spill at the default ROWS).
# Fails when a query's checks (row counts, sums, order) differ between the engines, or when a
# memory-limited run of ours fails, differs from DuckDB's checks or spills nothing. Prints per
# query the median seconds of each engine, the ratio ours/DuckDB (below 1: we are faster) and
# each process's peak RSS (input tables included) with its ratio.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
build=${1:-$root/build}
bench="$build/bench/operators_bench"
rows=${ROWS:-10000000}
threads=${THREADS:-2}
repeats=${REPEATS:-3}
queries=${QUERIES:-group_sum join sort top100 row_number}
limited=${LIMITED:-join sort row_number}
limit=${LIMIT:-128MiB}

[[ -x "$bench" ]] || { echo "operators: $bench not found; ninja -C $build operators_bench" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/flotilla-operators.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
source "$root/tests/interop/npm_deps.sh"
ensure_node_modules "$root/tests/interop" "$tmp/npm.log" || exit 1

median() { tr ' ' '\n' | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
field() { awk -v k="$1" '$1 == k { $1 = ""; print substr($0, 2) }' "$2"; }

# Our checks in $1 against DuckDB's in $2 ("ordered" is ours alone: 1 when the order held).
same_checks() {
  diff <(grep '^check ' "$1" | grep -v ' ordered ') <(grep '^check ' "$2") >"$3" &&
    ! grep -q '^check ordered 0' "$1" && [[ -n $(grep '^check ' "$1") ]]
}

status=0
printf '%-11s %10s %10s %9s %12s %12s %9s\n' query ours_s duckdb_s ratio ours_rss_mib duck_rss_mib rss_ratio
for q in $queries; do
  "$bench" --query "$q" --rows "$rows" --threads "$threads" --repeats "$repeats" >"$tmp/$q.ours"
  node "$here/operators_duckdb.mjs" --query "$q" --rows "$rows" --threads "$threads" \
    --repeats "$repeats" >"$tmp/$q.duck"
  if ! same_checks "$tmp/$q.ours" "$tmp/$q.duck" "$tmp/$q.diff"; then
    echo "FAIL: $q results differ (< flotilla, > duckdb):"; cat "$tmp/$q.diff"; status=1
  fi
  ours=$(field seconds "$tmp/$q.ours" | median)
  duck=$(field seconds "$tmp/$q.duck" | median)
  ours_rss=$(field peak_rss_mib "$tmp/$q.ours")
  duck_rss=$(field peak_rss_mib "$tmp/$q.duck")
  awk -v q="$q" -v o="$ours" -v d="$duck" -v orss="$ours_rss" -v drss="$duck_rss" \
    'BEGIN { printf "%-11s %10.3f %10.3f %9.2f %12.0f %12.0f %9.2f\n", q, o, d, o / d, orss, drss, orss / drss }'
done
for q in $limited; do
  [[ -f "$tmp/$q.duck" ]] || node "$here/operators_duckdb.mjs" --query "$q" --rows "$rows" \
    --threads "$threads" --repeats 1 >"$tmp/$q.duck"
  if ! "$bench" --query "$q" --rows "$rows" --threads "$threads" --repeats 1 --memory-limit "$limit" \
      >"$tmp/$q.limited" 2>&1; then
    echo "FAIL: $q with memory_limit=$limit: $(tail -1 "$tmp/$q.limited")"; status=1
  elif ! same_checks "$tmp/$q.limited" "$tmp/$q.duck" "$tmp/$q.ldiff"; then
    echo "FAIL: $q with memory_limit=$limit: results differ from DuckDB's (< flotilla, > duckdb):"
    cat "$tmp/$q.ldiff"; status=1
  elif (( $(field spilled_bytes "$tmp/$q.limited") == 0 )); then
    echo "FAIL: $q with memory_limit=$limit spilled nothing"; status=1
  else
    printf '%s with memory_limit=%s: same results, %s s, spilled %s bytes, peak RSS %s MiB\n' \
      "$q" "$limit" "$(field seconds "$tmp/$q.limited")" "$(field spilled_bytes "$tmp/$q.limited")" \
      "$(field peak_rss_mib "$tmp/$q.limited")"
  fi
done
exit $status
