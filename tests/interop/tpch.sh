#!/usr/bin/env bash
# TPC-H correctness against DuckDB (@duckdb/node-api from npm, pinned in package-lock.json): our
# generator writes the eight tables at a scale factor (0.1 by default) into a temporary
# directory, then each of the 22 queries runs through DuckDB (views over the same Parquet files),
# through `flotilla sql --format csv -f tpch/queries/qNN.sql` and through the Python DataFrame
# program (tpch/dataframe/run.py, skipped with a notice when that file is absent), and every
# result of ours must equal DuckDB's under the specification's validation rules, tightened
# (tpch_compare.mjs): same columns, same rows in the same order, keys, counts, strings, dates and
# decimal sums exact, other numbers within half a unit of our last digit or a relative 1e-9.
# Without --data the queries also run on the tiny database DuckDB wrote (tests/sql/data/tpch), so
# they are checked on another generator's files too (DuckDB's own `tpch` extension is not part of
# the npm build and cannot be installed offline).
#
#   tests/interop/tpch.sh BUILD_DIR [--sf X] [--files-per-table N] [--data DIR] [--threads N]
#                                   [--only "1 6 9"]
#
# --data DIR: tables already written (DIR/NAME.parquet or DIR/NAME/*.parquet), nothing generated.
# Prints one line per query and program, then `N passed, M failed`; exits 1 when any failed.
set -euo pipefail

usage="usage: $0 BUILD_DIR [--sf X] [--files-per-table N] [--data DIR] [--threads N] [--only \"1 6 9\"]"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$(dirname "$here")")
[[ $# -ge 1 && -d $1 ]] || { echo "$usage" >&2; exit 2; }
build=$(cd "$1" && pwd)
shift
sf=0.1
files=1
data=""
threads=2
only=""
while (($#)); do
  [[ $# -ge 2 ]] || { echo "$usage" >&2; exit 2; }
  case $1 in
    --sf) sf=$2 ;;
    --files-per-table) files=$2 ;;
    --data) data=$2 ;;
    --threads) threads=$2 ;;
    --only) only=$2 ;;
    *) echo "tpch.sh: unknown option $1" >&2; echo "$usage" >&2; exit 2 ;;
  esac
  shift 2
done
[[ -x $build/flotilla ]] || { echo "tpch: $build/flotilla not found; make build" >&2; exit 2; }
for cmd in node npm sha256sum; do
  if ! command -v "$cmd" >/dev/null 2>&1; then
    echo "tpch: '$cmd' is not installed (see scripts/install-deps.sh)" >&2
    exit 2
  fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/flotilla-tpch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
source "$here/npm_deps.sh"
ensure_node_modules "$here" "$tmp/npm.log" || exit 1

datasets=()
if [[ -n $data ]]; then
  [[ -f $data/lineitem.parquet || -d $data/lineitem ]] || { echo "tpch: no lineitem in $data" >&2; exit 2; }
  datasets=(--data "$data")
else
  if ! "$build/flotilla" tpch gen --sf "$sf" --files-per-table "$files" --out "$tmp/data" \
       >"$tmp/gen.log" 2>&1; then
    echo "tpch: flotilla tpch gen --sf $sf failed:" >&2
    cat "$tmp/gen.log" >&2
    exit 1
  fi
  echo "generated SF $sf ($files file(s) per table) with flotilla tpch gen"
  datasets=(--data "$tmp/data" --data "$root/tests/sql/data/tpch")
fi

python=()
if [[ -f $root/tpch/dataframe/run.py ]]; then
  python=(--python "$root/tpch/dataframe/run.py")
  export PYTHONPATH="$build/python${PYTHONPATH:+:$PYTHONPATH}"
else
  echo "notice: tpch/dataframe/run.py not found; the DataFrame programs are not checked"
fi

node "$here/tpch.mjs" --flotilla "$build/flotilla" --queries "$root/tpch/queries" \
  --threads "$threads" --only "$only" "${datasets[@]}" "${python[@]}"
