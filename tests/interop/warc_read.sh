#!/usr/bin/env bash
# read_warc against an independent WARC writer and parser (warcio from npm, pinned in
# package-lock.json): warc_read.mjs has warcio write a gzip-per-record WARC/1.1 file, a plain
# WARC/1.0 file and a WET-like file of conversion records (HTTP requests and responses with
# binary bodies, revisits with empty blocks, records without target URI, date or content type,
# Unicode URIs, a 3 MiB block, thousands of small records), reads them back with warcio's parser
# as the reference, and compares every field `flotilla sql` returns from read_warc (headers in
# file order, the payload by SHA-256, offsets of records and gzip members), plus count(*),
# GROUP BY record_type, a projection with a filter, a glob and a list of files. Truncated and
# corrupt copies must fail with a message naming the file and the offset, and with
# ignore_errors = true give exactly the intact records.
#
#   tests/interop/warc_read.sh PATH/TO/flotilla [--verbose]
#
# On failure the files are kept and named.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [[ $# -lt 1 || ! -x "$1" ]]; then
  echo "usage: $0 PATH/TO/flotilla [--verbose]" >&2
  exit 2
fi
flotilla=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
for cmd in node npm sha256sum; do
  if ! command -v "$cmd" >/dev/null 2>&1; then
    echo "warc_read: '$cmd' is not installed (see scripts/install-deps.sh)" >&2
    exit 2
  fi
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/flotilla-warc-read.XXXXXX")
keep=0
trap '[[ $keep == 1 ]] || rm -rf "$tmp"' EXIT

source "$here/npm_deps.sh"
ensure_node_modules "$here" "$tmp/npm.log" || exit 1

status=0
node "$here/warc_read.mjs" "$flotilla" "$tmp/files" "$@" || status=$?
if [[ $status != 0 ]]; then
  keep=1
  echo "warc_read: files kept in $tmp/files (warc/: the files warcio wrote, damaged/: the cut and corrupt copies)"
fi
exit "$status"
