#!/usr/bin/env bash
# Operator differential test against DuckDB (@duckdb/node-api from npm, pinned in
# package-lock.json): our tool builds deterministic tables, writes them as CSV and runs physical
# plans over them with the local engine; operator_diff.mjs loads the same CSV files into DuckDB,
# runs each case's SQL and compares the rows.
#
#   tests/interop/operator_diff.sh BUILD_DIR/operator_diff_tool [tool options, e.g. --seed 7]
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [[ $# -lt 1 || ! -x "$1" ]]; then
  echo "usage: $0 PATH/TO/operator_diff_tool [options]" >&2
  exit 2
fi
tool=$1
shift
for cmd in node npm sha256sum; do
  if ! command -v "$cmd" >/dev/null 2>&1; then
    echo "operator_diff: '$cmd' is not installed (see scripts/install-deps.sh)" >&2
    exit 2
  fi
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/flotilla-operator-diff.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

source "$here/npm_deps.sh"
ensure_node_modules "$here" "$tmp/npm.log" || exit 1

"$tool" "$tmp/out" "$@"
node --max-old-space-size=4096 "$here/operator_diff.mjs" "$tmp/out"
