#!/usr/bin/env bash
# TPC-H correctness: our generator writes the tables at a scale factor (0.1 by default), then
# the 22 queries run through DuckDB, through `flotilla sql` and through the Python DataFrame
# programs, and every result of ours must equal DuckDB's (tpch_compare.mjs has the rules).
# Without --data the same is done on the tiny database DuckDB wrote (tests/sql/data/tpch), so
# the queries are checked on another generator's files too.
#
#   tests/interop/tpch.sh BUILD_DIR [--sf X] [--data DIR]   # --data: tables already written
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$(dirname "$here")")
build=$(cd "${1:?usage: tpch.sh BUILD_DIR [--sf X] [--data DIR]}" && pwd)
shift
sf=0.1
data=""
while (($#)); do
  case $1 in
    --sf) sf=$2; shift 2 ;;
    --data) data=$2; shift 2 ;;
    *) echo "tpch.sh: unknown option $1" >&2; exit 2 ;;
  esac
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/flotilla-tpch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
source "$here/npm_deps.sh"
ensure_node_modules "$here" "$tmp/npm.log" || exit 1
datasets=("$data")
if [[ -z $data ]]; then
  "$build/flotilla" tpch gen --sf "$sf" --out "$tmp/data" >/dev/null
  datasets=("$tmp/data" "$root/tests/sql/data/tpch")
fi
python=()
if [[ -f $build/python/flotilla/__init__.py && -f $root/tpch/dataframe/run.py ]]; then
  python=(--python "$root/tpch/dataframe/run.py")
  export PYTHONPATH="$build/python${PYTHONPATH:+:$PYTHONPATH}"
fi
status=0
for d in "${datasets[@]}"; do
  echo "== $d"
  node "$here/tpch.mjs" --flotilla "$build/flotilla" --data "$d" --queries "$root/tpch/queries" \
    "${python[@]}" || status=1
done
exit $status
