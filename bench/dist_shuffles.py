"""Shuffles on 2 Dask workers next to the local runner, in one run: TPC-H lineitem grouped by
l_orderkey (many groups), grouped by l_returnflag (few) and sorted by l_extendedprice. Prints,
per query, the median seconds of each runner and their ratio, and for the cluster the tasks,
the bytes its shuffles moved (the map tasks' outputs) and the workers' peak resident memory.
Run by bench/dist.sh; generates the tables first when --tables has no lineitem.parquet.

    PYTHONPATH=build/python /usr/bin/python3 bench/dist_shuffles.py --tables data/tpch-sf1
"""

import argparse
import os
import subprocess

import flotilla
from flotilla import col

from timing import peak_rss_mib, timed_collect


def queries(lineitem):
    li = flotilla.read_parquet(lineitem)
    return {
        "group by l_orderkey": lambda: li.groupby("l_orderkey").agg(
            col("l_quantity").sum().alias("qty"), col("l_extendedprice").max().alias("top")),
        "group by l_returnflag": lambda: li.groupby("l_returnflag").agg(
            col("l_quantity").sum().alias("qty"), col("l_orderkey").count().alias("n")),
        "sort by l_extendedprice": lambda: li.select(col("l_orderkey"), col("l_extendedprice"))
            .sort("l_extendedprice"),
    }


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tables", default=os.environ.get("TPCH_DIR", "data/tpch-sf1"))
    p.add_argument("--sf", default="1")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--flotilla", default=os.environ.get("FLOTILLA_BIN", "build/flotilla"))
    a = p.parse_args()
    lineitem = os.path.join(a.tables, "lineitem.parquet")
    if not os.path.exists(lineitem):
        subprocess.run([a.flotilla, "tpch", "gen", "--sf", a.sf, "--out", a.tables], check=True)

    flotilla.set_runner_local()
    local = {name: timed_collect(make, a.repeat) for name, make in queries(lineitem).items()}

    runner = flotilla.set_runner_dask(n_workers=2, scan_task_min_bytes=32 << 20, progress=False)
    events = []
    runner.subscribe(lambda e: events.append(e) if e["event"] == "completed" else None)
    for name, make in queries(lineitem).items():
        make().collect()  # warm up the workers
        events.clear()
        seconds, rows = timed_collect(make, a.repeat)
        tasks = len(events) // a.repeat
        shuffled = sum(e["bytes"] for e in events if "Repartition" in e["node_name"]) // a.repeat
        rss = max(peak_rss_mib(pid) for pid in runner.worker_pids().values())
        l_seconds, l_rows = local[name]
        assert rows == l_rows, (name, rows, l_rows)
        print(f"{name}: local {l_seconds:.2f} s, 2 Dask workers {seconds:.2f} s, "
              f"ratio {seconds / l_seconds:.2f}; {rows} rows, {tasks} tasks, "
              f"{shuffled / 2**20:.1f} MiB shuffled, worker peak RSS {rss:.0f} MiB "
              f"(median of {a.repeat})")
    flotilla.set_runner_local()


if __name__ == "__main__":
    main()
