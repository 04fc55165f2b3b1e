"""Shuffles on 2 Dask workers next to the local runner, in one run: TPC-H lineitem grouped by
l_orderkey (many groups), grouped by l_returnflag (few), sorted by l_extendedprice, and joined
with orders by shuffling both. Prints, per query, the median seconds of each runner and their
ratio, and for the cluster the tasks, the bytes its shuffles moved (the map tasks' outputs) and
the workers' peak resident memory. --reduce-task-bytes runs the cluster once per value (0: one
reduce task per partition; "default": small partitions read together), so the two compare in
one run. Run by bench/dist.sh; generates the tables first when --tables has no
lineitem.parquet.

    PYTHONPATH=build/python /usr/bin/python3 bench/dist_shuffles.py --tables data/tpch-sf1 \
        [--scan-task-bytes 33554432] [--reduce-task-bytes default]
"""

import argparse
import os
import subprocess

import flotilla
from flotilla import col

from timing import peak_rss_mib, timed_collect


def queries(lineitem):
    li = flotilla.read_parquet(lineitem)
    orders = flotilla.read_parquet(os.path.join(os.path.dirname(lineitem), "orders.parquet"))
    return {
        "group by l_orderkey": lambda: li.groupby("l_orderkey").agg(
            col("l_quantity").sum().alias("qty"), col("l_extendedprice").max().alias("top")),
        "group by l_returnflag": lambda: li.groupby("l_returnflag").agg(
            col("l_quantity").sum().alias("qty"), col("l_orderkey").count().alias("n")),
        "sort by l_extendedprice": lambda: li.select(col("l_orderkey"), col("l_extendedprice"))
            .sort("l_extendedprice"),
        "join with orders": lambda: li.join(orders, left_on="l_orderkey", right_on="o_orderkey")
            .groupby("o_orderpriority").agg(col("l_quantity").sum().alias("qty")),
    }


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tables", default=os.environ.get("TPCH_DIR", "data/tpch-sf1"))
    p.add_argument("--sf", default="1")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--flotilla", default=os.environ.get("FLOTILLA_BIN", "build/flotilla"))
    p.add_argument("--scan-task-bytes", type=int, default=32 << 20)
    p.add_argument("--reduce-task-bytes", default="default",
                   help="comma-separated: bytes, or 'default'")
    a = p.parse_args()
    lineitem = os.path.join(a.tables, "lineitem.parquet")
    if not os.path.exists(lineitem):
        subprocess.run([a.flotilla, "tpch", "gen", "--sf", a.sf, "--out", a.tables], check=True)

    flotilla.set_runner_local()
    local = {name: timed_collect(make, a.repeat) for name, make in queries(lineitem).items()}

    for reduce_bytes in a.reduce_task_bytes.split(","):
        kw = {} if reduce_bytes == "default" else {"reduce_task_bytes": int(reduce_bytes)}
        runner = flotilla.set_runner_dask(n_workers=2, scan_task_min_bytes=a.scan_task_bytes,
                                          broadcast_join_bytes=0, progress=False, **kw)
        events = []
        runner.subscribe(lambda e: events.append(e) if e["event"] == "completed" else None)
        for name, make in queries(lineitem).items():
            make().collect()  # warm up the workers
            events.clear()
            seconds, rows = timed_collect(make, a.repeat)
            tasks = len(events) // a.repeat
            shuffled = sum(e["bytes"] for e in events
                           if "Repartition" in e["node_name"]) // a.repeat
            rss = max(peak_rss_mib(pid) for pid in runner.worker_pids().values())
            l_seconds, l_rows = local[name]
            assert rows == l_rows, (name, rows, l_rows)
            print(f"{name} [reduce_task_bytes {reduce_bytes}]: local {l_seconds:.2f} s, "
                  f"2 Dask workers {seconds:.2f} s, ratio {seconds / l_seconds:.2f}; {rows} rows, "
                  f"{tasks} tasks, {shuffled / 2**20:.1f} MiB shuffled, worker peak RSS "
                  f"{rss:.0f} MiB (median of {a.repeat})")
        flotilla.set_runner_local()
    flotilla.set_runner_local()


if __name__ == "__main__":
    main()
