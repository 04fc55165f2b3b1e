#!/usr/bin/env bash
# Expression differential test against DuckDB (@duckdb/node-api from npm, pinned in
# package-lock.json): our tool generates random tables and expressions and evaluates them;
# expr_diff.mjs runs the same SQL in DuckDB and compares value by value.
#
#   tests/interop/expr_diff.sh BUILD_DIR/expr_diff_tool [tool options, e.g. --seed 7]
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [[ $# -lt 1 || ! -x "$1" ]]; then
  echo "usage: $0 PATH/TO/expr_diff_tool [options]" >&2
  exit 2
fi
tool=$1
shift
for cmd in node npm sha256sum; do
  if ! command -v "$cmd" >/dev/null 2>&1; then
    echo "expr_diff: '$cmd' is not installed (see scripts/install-deps.sh)" >&2
    exit 2
  fi
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/flotilla-expr-diff.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

source "$here/npm_deps.sh"
ensure_node_modules "$here" "$tmp/npm.log" || exit 1

"$tool" "$tmp/cases.json" "$@"
node "$here/expr_diff.mjs" "$tmp/cases.json"
