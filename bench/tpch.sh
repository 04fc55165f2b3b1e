#!/usr/bin/env bash
# TPC-H: the 22 queries through `flotilla sql` next to DuckDB on the same Parquet files,
# written once by `flotilla tpch gen` (and copied by DuckDB) and kept between runs.
#
#   bench/tpch.sh [BUILD_DIR]        # BUILD_DIR: build
#
# Environment: SF (1), THREADS (2), REPEATS (3), DATA (/tmp/flotilla-tpch-sf$SF; generated when
# it has no lineitem), FILES (duckdb: the tables as DuckDB writes them, copied once into
# $DATA-duckdb, the files most users have; flotilla: our writer's files in $DATA), QUERIES ("1 6 9": a subset), MEMORY_LIMIT (e.g. 8GiB: our --memory-limit
# and DuckDB's memory_limit), PY=1 (also time the Python DataFrame programs,
# tpch/dataframe/run.py). Each engine runs each query REPEATS times in one process (ours: the
# query repeated in one `flotilla sql --timer` script, each statement timed from parsing to its
# last row; DuckDB: from the call to the last row fetched). Results are compared with the rules
# of the TPC-H test (tests/interop/tpch_compare.mjs); a wrong one fails the run. Prints median
# seconds, the ratio ours/DuckDB (below 1: we are faster) and the geometric mean of the ratios.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
build=$(cd "${1:-$root/build}" && pwd)
sf=${SF:-1}
data=${DATA:-/tmp/flotilla-tpch-sf$sf}

[[ -x "$build/flotilla" ]] || { echo "tpch: $build/flotilla not found; make build" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/flotilla-tpch-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
source "$root/tests/interop/npm_deps.sh"
ensure_node_modules "$root/tests/interop" "$tmp/npm.log" || exit 1
if [[ ! -f $data/lineitem.parquet && ! -d $data/lineitem ]]; then
  if [[ -d $data && -n $(ls -A "$data") ]]; then
    echo "tpch: $data has files but no lineitem table; remove it or set DATA" >&2
    exit 2
  fi
  # Written beside DATA and renamed when complete, so an interrupted run leaves no half tables.
  echo "generating TPC-H SF $sf into $data"
  mkdir -p "$(dirname "$data")"
  partial="$data.partial.$$"
  trap 'rm -rf "$tmp" "$partial"' EXIT
  "$build/flotilla" tpch gen --sf "$sf" --out "$partial"
  [[ -d $data ]] && rmdir "$data"
  mv "$partial" "$data"
fi
case ${FILES:-duckdb} in
  duckdb)
    node "$here/duckdb_copy_tables.mjs" --from "$data" --to "$data-duckdb" \
      --tables customer,lineitem,nation,orders,part,partsupp,region,supplier
    data="$data-duckdb" ;;
  flotilla) ;;
  *) echo "tpch: FILES is duckdb or flotilla, not ${FILES}" >&2; exit 2 ;;
esac
python=()
if [[ ${PY:-0} == 1 ]]; then
  [[ -f $root/tpch/dataframe/run.py ]] || { echo "tpch: tpch/dataframe/run.py not found" >&2; exit 2; }
  python=(--python "$root/tpch/dataframe/run.py")
  export PYTHONPATH="$build/python${PYTHONPATH:+:$PYTHONPATH}"
fi
node "$here/tpch_duckdb.mjs" --flotilla "$build/flotilla" --data "$data" \
  --queries "$root/tpch/queries" --threads "${THREADS:-2}" --repeats "${REPEATS:-3}" \
  --only "${QUERIES:-}" --memory "${MEMORY_LIMIT:-}" --sf "$sf" "${python[@]}"
