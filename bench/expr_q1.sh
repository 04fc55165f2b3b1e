#!/usr/bin/env bash
# TPC-H Q1's filter and projections: Flotilla's expression evaluator (bench/expr_q1_bench.cc)
# next to DuckDB (bench/expr_q1_duckdb.mjs) on identical generated rows, in one run.
#
#   bench/expr_q1.sh [BUILD_DIR]     # builds nothing: `make bench` builds and runs it; BUILD_DIR
#                                    # defaults to build
#
# Environment: ROWS (6000000), THREADS (1,2), REPEATS (5), BATCH_ROWS (65536).
# Needs node; installs tests/interop/node_modules with `npm ci` when missing (npm_deps.sh).
#
# Fails (exit 1) when the two sides' data checksums or their sums of `charge` differ. Prints one
# row per engine and thread count: median seconds of REPEATS runs, input rows per second, and
# our time over DuckDB's at the same thread count (below 1: we are faster). The "duckdb eval"
# rows are DuckDB consuming the projections with sum() instead of writing a table; the absolute
# times are noisy on a shared machine, the same-run ratios less so.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
build=${1:-$root/build}
bench="$build/bench/expr_q1_bench"
rows=${ROWS:-6000000}
threads=${THREADS:-1,2}
repeats=${REPEATS:-5}
batch_rows=${BATCH_ROWS:-65536}

if [[ ! -x "$bench" ]]; then
  echo "expr_q1: $bench not found; build it with: ninja -C $build expr_q1_bench" >&2
  exit 2
fi
if ! command -v node >/dev/null 2>&1; then
  echo "expr_q1: node is not installed (see scripts/install-deps.sh)" >&2
  exit 2
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/flotilla-expr-q1.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
source "$root/tests/interop/npm_deps.sh"
ensure_node_modules "$root/tests/interop" "$tmp/npm.log" || exit 1

echo "flotilla: $bench --rows $rows --batch-rows $batch_rows --threads $threads --repeats $repeats"
"$bench" --rows "$rows" --batch-rows "$batch_rows" --threads "$threads" --repeats "$repeats" \
  >"$tmp/ours.txt"
echo "duckdb:   node bench/expr_q1_duckdb.mjs --rows $rows --threads $threads --repeats $repeats"
node "$here/expr_q1_duckdb.mjs" --rows "$rows" --threads "$threads" --repeats "$repeats" \
  >"$tmp/duckdb.txt"

status=0
if ! diff <(grep '^checksum ' "$tmp/ours.txt") <(grep '^checksum ' "$tmp/duckdb.txt") \
  >"$tmp/checksums.diff"; then
  echo "FAIL: the generated data differ (< flotilla, > duckdb):"
  cat "$tmp/checksums.diff"
  status=1
else
  echo "data checksums agree:"
  grep '^checksum ' "$tmp/ours.txt" | sed 's/^checksum /  /'
fi
ours_charge=$(awk '$1 == "sum_charge" { print $2 }' "$tmp/ours.txt")
duck_charge=$(awk '$1 == "sum_charge" { print $2 }' "$tmp/duckdb.txt")
printf 'sum(charge): flotilla %s (%s), duckdb %s (%s)\n' \
  "$ours_charge" "$(awk '$1 == "charge_type" { $1 = ""; print substr($0, 2) }' "$tmp/ours.txt")" \
  "$duck_charge" "$(awk '$1 == "charge_type" { $1 = ""; print substr($0, 2) }' "$tmp/duckdb.txt")"
if [[ -z "$ours_charge" || "$ours_charge" != "$duck_charge" ]]; then
  echo "FAIL: the sums of charge differ"
  status=1
fi

# "KEY THREADS s1 s2 ..." -> "THREADS median" per line.
medians() {
  awk -v key="$1" '$1 == key {
    n = NF - 2
    for (i = 1; i <= n; ++i) t[i] = $(i + 2)
    for (i = 2; i <= n; ++i) for (j = i; j > 1 && t[j - 1] > t[j]; --j) { x = t[j]; t[j] = t[j - 1]; t[j - 1] = x }
    print $2, (n % 2 ? t[(n + 1) / 2] : (t[n / 2] + t[n / 2 + 1]) / 2)
  }' "$2"
}
medians seconds "$tmp/ours.txt" | sed 's/^/flotilla /' >"$tmp/table.txt"
medians seconds "$tmp/duckdb.txt" | sed 's/^/duckdb /' >>"$tmp/table.txt"
medians seconds_eval "$tmp/duckdb.txt" | sed 's/^/duckdb_eval /' >>"$tmp/table.txt"

echo
awk -v rows="$rows" '
  { engine[NR] = $1; threads[NR] = $2; secs[NR] = $3; if ($1 == "duckdb") duck[$2] = $3
    if ($1 == "duckdb_eval") duck_eval[$2] = $3 }
  END {
    printf "%-34s %7s %10s %12s %18s\n", "engine", "threads", "seconds", "Mrows/s", "time ours/DuckDB"
    for (i = 1; i <= NR; ++i) {
      ratio = "-"
      if (engine[i] == "flotilla" && duck[threads[i]] > 0) {
        ratio = sprintf("%.2f", secs[i] / duck[threads[i]])
        if (duck_eval[threads[i]] > 0) ratio = ratio sprintf(" (eval %.2f)", secs[i] / duck_eval[threads[i]])
      }
      name = engine[i] == "duckdb" ? "duckdb (CREATE TEMP TABLE)" : \
             engine[i] == "duckdb_eval" ? "duckdb eval only (sum, no table)" : "flotilla"
      printf "%-34s %7d %10.3f %12.2f %18s\n", name, threads[i], secs[i], rows / secs[i] / 1e6, ratio
    }
  }' "$tmp/table.txt"
exit $status
