#!/usr/bin/env bash
# Parquet interop check against DuckDB (@duckdb/node-api from npm, pinned in package-lock.json):
# parquet_read.mjs has DuckDB write Parquet files covering the types, nesting, null patterns,
# codecs, row group layouts and encodings it produces, runs `TOOL read FILE` on each and compares
# every cell with DuckDB's own reading of the file; then, for each codec, runs
# `TOOL write FILE CODEC` (our writer; the tool prints the rows it wrote) and compares those rows
# with DuckDB's reading of FILE. It ends with summaries of the physical types, encodings, codecs
# and page kinds the files contained.
#
#   tests/interop/parquet_read.sh PATH/TO/TOOL [--verbose] [--only SUBSTRING]
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
    echo "parquet_read: '$cmd' is not installed (see scripts/install-deps.sh)" >&2
    exit 2
  fi
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/flotilla-parquet-read.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

source "$here/npm_deps.sh"
ensure_node_modules "$here" "$tmp/npm.log" || exit 1

node --max-old-space-size=4096 "$here/parquet_read.mjs" "$tool" "$tmp/files" "$@"
