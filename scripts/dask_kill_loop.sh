#!/usr/bin/env bash
# Runs the Dask worker-kill recovery test N times in a row (default 50); stops at the first
# failure. Usage: scripts/dask_kill_loop.sh [N] (after `make build`).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-50}
for i in $(seq "$runs"); do
  if ! PYTHONPATH=build/python FLOTILLA_SOURCE_DIR="$PWD" /usr/bin/python3 -m pytest -q -x \
      -p no:cacheprovider python/tests/test_dask.py -k "killed" > /tmp/dask_kill_loop.log 2>&1; then
    echo "run $i of $runs failed:"
    tail -40 /tmp/dask_kill_loop.log
    exit 1
  fi
done
echo "dask_kill_loop: $runs runs passed"
