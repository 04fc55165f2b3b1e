#!/usr/bin/env bash
# SQL queries through `flotilla sql` next to DuckDB on the same Parquet file, in one run
# (bench/sql_queries.sql; the lineitem-like file of bench/formats.sh).
#
#   bench/sql.sh [BUILD_DIR]        # BUILD_DIR: build
#
# Environment: ROWS (6000000), THREADS (2), REPEATS (3), DATA (directory keeping the file).
# Each engine runs each query REPEATS times in one process (ours: `--timer`, which times each
# statement from parsing to the last row; DuckDB: from the call to the last row fetched). The
# results are compared, and the run fails when they differ. Prints the median seconds, the
# ratio ours/DuckDB (below 1: we are faster) and the geometric mean of the ratios.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
build=${1:-$root/build}
rows=${ROWS:-6000000}
threads=${THREADS:-2}
repeats=${REPEATS:-3}

[[ -x "$build/flotilla" ]] || { echo "sql: $build/flotilla not found; make build" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/flotilla-sql.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
source "$root/tests/interop/npm_deps.sh"
ensure_node_modules "$root/tests/interop" "$tmp/npm.log" || exit 1
data=${DATA:-$tmp}
mkdir -p "$data"
file="$data/lineitem_$rows.parquet"
[[ -f "$file" ]] || node "$here/formats_duckdb.mjs" --generate "$file" --rows "$rows"

node "$here/sql_duckdb.mjs" --flotilla "$build/flotilla" --file "$file" --queries "$here/sql_queries.sql" \
  --threads "$threads" --repeats "$repeats"
