#!/usr/bin/env bash
# A worker's Arrow Flight service against an independent Flight client: flight_client.mjs drives
# flight_serve_tool with nothing of ours on the client side, only @grpc/grpc-js (gRPC),
# @grpc/proto-loader (the messages of flight.proto, whose field numbers it checks against the
# Flight specification) and apache-arrow (IPC decoding), all pinned in package-lock.json. For
# tables of 10000, 5 (partitions left empty), 0 and 200000 rows (several batches per stream), plain
# and with lz4 and zstd bodies, it proves that: ListFlights lists every stored partition whose
# ticket has the given prefix with the right descriptor, endpoint, location, row count and an
# encapsulated schema apache-arrow reads; DoGet of every partition streams a Schema message and
# record batches (app_metadata "0") that, framed into an IPC stream here, apache-arrow decodes to
# exactly the rows of that partition, every value and null as computed independently in JS, the
# partitions together holding every id once; a ticket naming two partitions tags each batch with
# the partition's position ("0", "1"); calls without the bearer token, with a wrong one or without
# the "Bearer" scheme fail with UNAUTHENTICATED and no data, an unknown ticket with NOT_FOUND; the
# tool exits 0 when its stdin closes. Compressed bodies go through apache-arrow's own
# BodyCompression handling, with the reference `lz4` and `zstd` command-line tools registered as
# its codecs (apache-arrow ships none) and each buffer's uncompressed-length prefix checked.
#
#   tests/interop/flight_client.sh PATH/TO/flight_serve_tool [--verbose]
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [[ $# -lt 1 || ! -x "$1" ]]; then
  echo "usage: $0 PATH/TO/flight_serve_tool [--verbose]" >&2
  exit 2
fi
tool=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
for cmd in node npm sha256sum lz4 zstd; do
  if ! command -v "$cmd" >/dev/null 2>&1; then
    echo "flight_client: '$cmd' is not installed (see scripts/install-deps.sh)" >&2
    exit 2
  fi
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/flotilla-flight-client.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

source "$here/npm_deps.sh"
ensure_node_modules "$here" "$tmp/npm.log" || exit 1

node "$here/flight_client.mjs" "$tool" "$@"
