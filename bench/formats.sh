#!/usr/bin/env bash
# Parquet scans and writes next to DuckDB on the same lineitem-like file, in one run:
# bench/formats_bench.cc (ours, the engine's plans) and bench/formats_duckdb.mjs (DuckDB, SQL),
# same thread count for both (scans and our writer's encoding threads alike).
#
#   bench/formats.sh [BUILD_DIR]        # BUILD_DIR: build
#
# Environment: ROWS (6000000), THREADS (2), REPEATS (3), QUERIES (scan_all scan4 filter write),
# DATA (directory keeping the generated file between runs; default a temporary directory).
# The file is written by DuckDB (zstd, its default row groups of 122,880 rows). Fails when a
# query's checks differ between the engines. The write query's files are read back: DuckDB reads
# ours, we read DuckDB's and our own, and each must fold to the source file's scan_all checks. Prints per query the median seconds of each engine,
# the ratio ours/DuckDB (below 1: we are faster) and each process's peak RSS.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
build=${1:-$root/build}
bench="$build/bench/formats_bench"
rows=${ROWS:-6000000}
threads=${THREADS:-2}
repeats=${REPEATS:-3}
queries=${QUERIES:-scan_all scan4 filter write}

[[ -x "$bench" ]] || { echo "formats: $bench not found; ninja -C $build formats_bench" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/flotilla-formats.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
source "$root/tests/interop/npm_deps.sh"
ensure_node_modules "$root/tests/interop" "$tmp/npm.log" || exit 1

data=${DATA:-$tmp}
mkdir -p "$data"
file="$data/lineitem_$rows.parquet"
[[ -f "$file" ]] || node "$here/formats_duckdb.mjs" --generate "$file" --rows "$rows"

median() { tr ' ' '\n' | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
field() { awk -v k="$1" '$1 == k { $1 = ""; print substr($0, 2) }' "$2"; }

status=0
echo "file: $file ($(du -m "$file" | cut -f1) MiB, $rows rows), threads $threads, median of $repeats"
printf '%-9s %10s %10s %9s %12s %12s\n' query ours_s duckdb_s ratio ours_rss_mib duck_rss_mib
checks() { grep '^check ' "$1" | sort; }
ours_fold() { "$bench" --query scan_all --file "$1" --threads "$threads" --repeats 1 | grep '^check ' | sort; }
duck_fold() { node "$here/formats_duckdb.mjs" --query scan_all --file "$1" --threads "$threads" --repeats 1 | grep '^check ' | sort; }
for q in $queries; do
  out=()
  [[ $q == write ]] && out=(--out "$tmp/written.ours.parquet")
  "$bench" --query "$q" --file "$file" --threads "$threads" --repeats "$repeats" "${out[@]}" >"$tmp/$q.ours"
  [[ $q == write ]] && out=(--out "$tmp/written.duck.parquet")
  node "$here/formats_duckdb.mjs" --query "$q" --file "$file" --threads "$threads" \
    --repeats "$repeats" "${out[@]}" >"$tmp/$q.duck"
  if [[ -z $(checks "$tmp/$q.ours") ]]; then
    echo "FAIL: $q printed no checks"; status=1
  elif ! diff <(checks "$tmp/$q.ours") <(checks "$tmp/$q.duck") >"$tmp/$q.diff"; then
    echo "FAIL: $q results differ (< flotilla, > duckdb):"; cat "$tmp/$q.diff"; status=1
  fi
  if [[ $q == write ]]; then
    duck_fold "$file" >"$tmp/source.fold"
    (( $(wc -l <"$tmp/source.fold") == 18 )) || { echo "FAIL: write: no fold of the source"; status=1; }
    for read in "duck_fold $tmp/written.ours.parquet" "ours_fold $tmp/written.duck.parquet" \
                "ours_fold $tmp/written.ours.parquet"; do
      if ! diff "$tmp/source.fold" <($read) >"$tmp/write.diff"; then
        echo "FAIL: write: $read differs from the source file's scan_all (< source, > written):"
        cat "$tmp/write.diff"; status=1
      fi
    done
    rm -f "$tmp/written.ours.parquet" "$tmp/written.duck.parquet"
  fi
  ours=$(field seconds "$tmp/$q.ours" | median)
  duck=$(field seconds "$tmp/$q.duck" | median)
  awk -v q="$q" -v o="$ours" -v d="$duck" -v orss="$(field peak_rss_mib "$tmp/$q.ours")" \
    -v drss="$(field peak_rss_mib "$tmp/$q.duck")" \
    'BEGIN { printf "%-9s %10.3f %10.3f %9.2f %12.0f %12.0f\n", q, o, d, o / d, orss, drss }'
done
exit $status
