#!/usr/bin/env bash
# The distributed runner's benchmarks, side by side in one run:
#  - the Parquet ETL example (SF1 lineitem) on the local runner and on 2 Dask workers, median of 5
#    runs in one process each (the cluster's start-up is not counted), and the two outputs
#    compared row for row by DuckDB (bench/same_rows.mjs; a difference fails the script);
#  - shuffles (lineitem grouped by l_orderkey and by l_returnflag, sorted by l_extendedprice)
#    on 2 Dask workers next to the local runner (bench/dist_shuffles.py), on our generator's
#    lineitem and on a copy DuckDB wrote;
#  - the 22 TPC-H queries on 2 Dask workers next to the local runner (bench/dist_tpch.py), and
#    seven of them next to Dask DataFrame over pandas partitions in the workers' memory
#    (bench/dask_dataframe_tpch.py);
#  - no-op tasks per second through the real Dask backend (per-task overhead);
#  - scheduler decisions per second on a simulated 1,000-worker cluster (bench/scheduler_bench.cc).
# Usage: bench/dist.sh [BUILD_DIR]   (TPCH_DIR: the SF1 tables, default data/tpch-sf1)
set -euo pipefail
BUILD=${1:-build}
TPCH_DIR=${TPCH_DIR:-data/tpch-sf1}
export PYTHONPATH=$BUILD/python
source tests/interop/npm_deps.sh
ensure_node_modules tests/interop "$BUILD/npm.log"
for runner in local dask; do
  /usr/bin/python3 examples/parquet_etl.py --runner $runner --tables "$TPCH_DIR" --repeat 5 \
    --out "$BUILD/etl-bench-$runner" --flotilla "$BUILD/flotilla" | grep '^etl'
done
# The two runners' outputs, as DuckDB reads them, must hold the same rows.
node bench/same_rows.mjs "$BUILD/etl-bench-local" "$BUILD/etl-bench-dask"
/usr/bin/python3 bench/dist_shuffles.py --tables "$TPCH_DIR" --flotilla "$BUILD/flotilla"
# The same on lineitem as DuckDB writes it.
node bench/duckdb_copy_tables.mjs --from "$TPCH_DIR" --to "$TPCH_DIR-duckdb" --tables lineitem
echo "(lineitem written by DuckDB)"
/usr/bin/python3 bench/dist_shuffles.py --tables "$TPCH_DIR-duckdb"
/usr/bin/python3 bench/dist_tpch.py --tables "$TPCH_DIR"
/usr/bin/python3 bench/dask_dataframe_tpch.py --tables "$TPCH_DIR"
/usr/bin/python3 bench/dist_noop_tasks.py
"$BUILD/bench/scheduler_bench"
