#!/usr/bin/env bash
# The distributed runner's benchmarks, side by side in one run:
#  - the Parquet ETL example (SF1 lineitem) on the local runner and on 2 Dask workers (ratio);
#  - no-op tasks per second through the real Dask backend (per-task overhead);
#  - scheduler decisions per second on a simulated 1,000-worker cluster (dist_test's simulation).
# Usage: bench/dist.sh [BUILD_DIR]   (TPCH_DIR: the SF1 tables, default data/tpch-sf1)
set -euo pipefail
BUILD=${1:-build}
TPCH_DIR=${TPCH_DIR:-data/tpch-sf1}
export PYTHONPATH=$BUILD/python
for runner in local dask local dask; do
  /usr/bin/python3 examples/parquet_etl.py --runner $runner --tables "$TPCH_DIR" \
    --out "$BUILD/etl-bench-$runner" --flotilla "$BUILD/flotilla" | grep '^etl'
done
/usr/bin/python3 bench/dist_noop_tasks.py
"$BUILD/dist_test" --gtest_filter='*SimulatedCluster*' 2>&1 | grep -E 'assignments|OK|FAILED'
