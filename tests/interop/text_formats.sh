#!/usr/bin/env bash
# CSV and newline-delimited JSON interop check against DuckDB (@duckdb/node-api from npm, pinned in
# package-lock.json): text_formats.mjs has DuckDB write CSV and JSON files covering the flat types
# (and, for JSON, lists and structs), nulls, empty strings and strings that need quoting or
# escaping; runs `TOOL read-csv FILE [SCHEMA]` / `TOOL read-json FILE [SCHEMA]` on each, with a
# schema mapped from DuckDB's types and with our inference, and compares every cell with DuckDB's
# values; then runs `TOOL write-csv FILE` / `TOOL write-json FILE` (our writers; the tool prints
# the rows it wrote) and compares those rows with DuckDB's reading of FILE.
#
#   tests/interop/text_formats.sh PATH/TO/TOOL [--verbose] [--only SUBSTRING]
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [[ $# -lt 1 || ! -x "$1" ]]; then
  echo "usage: $0 PATH/TO/TOOL [--verbose] [--only SUBSTRING]" >&2
  exit 2
fi
tool=$(realpath "$1")
shift
for cmd in node npm sha256sum; do
  if ! command -v "$cmd" >/dev/null 2>&1; then
    echo "text_formats: '$cmd' is not installed (see scripts/install-deps.sh)" >&2
    exit 2
  fi
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/flotilla-text-formats.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

source "$here/npm_deps.sh"
ensure_node_modules "$here" "$tmp/npm.log" || exit 1

node "$here/text_formats.mjs" "$tool" "$tmp/files" "$@"
