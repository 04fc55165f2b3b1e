#!/usr/bin/env bash
# Random SQL queries against DuckDB (@duckdb/node-api from npm, pinned in package-lock.json):
# sql_smith.mjs writes four tables as Parquet with DuckDB, generates queries from a grammar and
# runs each through `flotilla sql --format csv` and through DuckDB, comparing the rows. A crash,
# a hang, an internal error or other rows than DuckDB's fails the test; features we refuse are
# counted by message. A fixed seed and query count keep this run at about a minute; for longer
# runs see scripts/sql_smith.sh.
#
#   tests/interop/sql_smith.sh BUILD_DIR/flotilla [sql_smith.mjs options, e.g. --seed 7 --queries 50]
#
# On failure the output directory (failures.txt with both engines' results, summary.txt) is kept
# and named; `--seed S --only I` replays query I of seed S.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [[ $# -lt 1 || ! -x "$1" ]]; then
  echo "usage: $0 PATH/TO/flotilla [sql_smith.mjs options]" >&2
  exit 2
fi
flotilla=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
for cmd in node npm sha256sum; do
  if ! command -v "$cmd" >/dev/null 2>&1; then
    echo "sql_smith: '$cmd' is not installed (see scripts/install-deps.sh)" >&2
    exit 2
  fi
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/flotilla-sql-smith.XXXXXX")
keep=0
trap '[[ $keep == 1 ]] || rm -rf "$tmp"' EXIT

source "$here/npm_deps.sh"
ensure_node_modules "$here" "$tmp/npm.log" || exit 1

status=0
node "$here/sql_smith.mjs" --flotilla "$flotilla" --out "$tmp/out" --seed 1 --queries 250 \
  --timeout-ms 20000 "$@" || status=$?
if [[ $status != 0 ]]; then
  keep=1
  echo "sql_smith: results kept in $tmp/out (failures.txt, summary.txt)"
fi
exit "$status"
