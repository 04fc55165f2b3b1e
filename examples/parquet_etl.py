"""Parquet ETL: read TPC-H lineitem, filter and project, write Parquet partitioned by return flag.

    python3 examples/parquet_etl.py --tables data/tpch-sf1 --out /tmp/etl [--runner dask|local]

Generates the tables first (`flotilla tpch gen`) when --tables has no lineitem.parquet.
"""

import argparse
import os
import shutil
import subprocess
import time

import flotilla
from flotilla import col


def etl(lineitem: str, out: str):
    df = flotilla.read_parquet(lineitem)
    df = df.where((col("l_shipdate") >= flotilla.lit("1995-01-01").cast("date")) & (col("l_discount") > 0.02))
    df = df.select(
        col("l_orderkey"), col("l_partkey"), col("l_returnflag"), col("l_shipdate"),
        (col("l_extendedprice") * (1 - col("l_discount"))).alias("revenue"),
        col("l_comment").str.upper().alias("comment"))
    return df.write_parquet(out, partition_cols=["l_returnflag"])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tables", default="data/tpch-sf1")
    p.add_argument("--sf", default="1")
    p.add_argument("--out", default="/tmp/flotilla-etl")
    p.add_argument("--runner", default="dask", choices=["dask", "local"])
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--flotilla", default=os.environ.get("FLOTILLA_BIN", "build/flotilla"))
    p.add_argument("--repeat", type=int, default=1, help="runs (the median time is printed)")
    a = p.parse_args()
    lineitem = os.path.join(a.tables, "lineitem.parquet")
    if not os.path.exists(lineitem):
        subprocess.run([a.flotilla, "tpch", "gen", "--sf", a.sf, "--out", a.tables], check=True)
    if a.runner == "dask":
        flotilla.set_runner_dask(n_workers=a.workers, scan_task_min_bytes=32 << 20)
    times = []
    for _ in range(a.repeat):
        shutil.rmtree(a.out, ignore_errors=True)
        start = time.perf_counter()
        files = etl(lineitem, a.out).to_pydict()
        times.append(time.perf_counter() - start)
    seconds = sorted(times)[len(times) // 2]
    print(f"etl ({a.runner}): {sum(files['rows'])} rows into {len(files['path'])} files "
          f"under {a.out} in {seconds:.2f} s" + (f" (median of {a.repeat})" if a.repeat > 1 else ""))
    flotilla.set_runner_local()


if __name__ == "__main__":
    main()
