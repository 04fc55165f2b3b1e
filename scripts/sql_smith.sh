#!/usr/bin/env bash
# Long random-SQL run against DuckDB (tests/interop/sql_smith.mjs): many seeds, each with its own
# tables and queries, until the seeds are done or the time is up. Exits 1 on any failure.
#
#   scripts/sql_smith.sh                       (after `make build`)
#   SEED=100 SEEDS=50 QUERIES=1000 MINUTES=30 FLOTILLA=build/flotilla OUT=/tmp/smith scripts/sql_smith.sh
#
# SEED: the first seed (default: from the clock, printed, so a run can be repeated); SEEDS: how
# many (default 20); QUERIES: per seed (default 500); MINUTES: stop after this long (default 0,
# no limit); OUT: where failures.txt and summary.txt go (default a new directory under /tmp,
# kept). Extra arguments go to sql_smith.mjs (e.g. --timeout-ms 30000 --verbose).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
flotilla=${FLOTILLA:-build/flotilla}
[[ -x $flotilla ]] || { echo "sql_smith: no $flotilla (make build first, or set FLOTILLA)" >&2; exit 2; }
flotilla=$(cd "$(dirname "$flotilla")" && pwd)/$(basename "$flotilla")
seed=${SEED:-$(( $(date +%s) % 1000000 ))}
seeds=${SEEDS:-20}
queries=${QUERIES:-500}
minutes=${MINUTES:-0}
out=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/flotilla-sql-smith-long.XXXXXX")}
mkdir -p "$out"

source "$root/tests/interop/npm_deps.sh"
ensure_node_modules "$root/tests/interop" "$out/npm.log" || exit 1

echo "sql_smith: seeds $seed..$(( seed + seeds - 1 )), $queries queries each, results in $out"
exec node "$root/tests/interop/sql_smith.mjs" --flotilla "$flotilla" --out "$out" \
  --seed "$seed" --seeds "$seeds" --queries "$queries" --seconds $(( minutes * 60 )) \
  --min-compared 0.3 "$@"
