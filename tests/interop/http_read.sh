#!/usr/bin/env bash
# Reading Parquet over HTTP: a local range-request server (tests/interop/http/range_server.py)
# serves a file our writer made; reading it by URL must give exactly what reading it from disk
# gives, and a missing URL must fail naming it.
#
#   http_read.sh PARQUET_TOOL
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tool=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/flotilla-http.XXXXXX")
server=""
cleanup() { [[ -n "$server" ]] && kill "$server" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

"$tool" write "$tmp/data.parquet" zstd >/dev/null
python3 "$here/http/range_server.py" "$tmp" >"$tmp/port" &
server=$!
for _ in $(seq 50); do [[ -s "$tmp/port" ]] && break; sleep 0.1; done
port=$(head -1 "$tmp/port")
[[ -n "$port" ]] || { echo "http_read: the server did not start" >&2; exit 1; }

"$tool" read "$tmp/data.parquet" >"$tmp/local.txt"
"$tool" read "http://127.0.0.1:$port/data.parquet" >"$tmp/http.txt"
if ! cmp -s "$tmp/local.txt" "$tmp/http.txt"; then
  echo "http_read: the file read over HTTP differs from the local read" >&2
  diff "$tmp/local.txt" "$tmp/http.txt" | head -5 >&2
  exit 1
fi
if "$tool" read "http://127.0.0.1:$port/missing.parquet" 2>"$tmp/err.txt"; then
  echo "http_read: reading a missing URL succeeded" >&2
  exit 1
fi
grep -q "missing.parquet" "$tmp/err.txt" || { echo "http_read: error does not name the URL:" >&2; cat "$tmp/err.txt" >&2; exit 1; }
echo "http_read: $(($(wc -l <"$tmp/http.txt") - 1)) rows read over HTTP match the local read; missing URL: $(cat "$tmp/err.txt")"
