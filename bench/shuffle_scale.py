"""A large repartition on a Dask cluster with a small store budget: a table written by DuckDB
(100M rows, about 6 GB in memory; one map task per row group) repartitioned by a key into N
partitions, then counted and summed (the answer checked: every row arrives once). Prints the
wall time, throughput per worker, each worker's spill files next to the map tasks it ran (the
flight shuffle writes one file per map task past the budget), the workers' and the driver's
peak RSS, and the average reduce partition.

    PYTHONPATH=build/python /usr/bin/python3 bench/shuffle_scale.py [--rows 100000000]
        [--row-group 390625] [--partitions 256] [--workers 4] [--store-bytes 1073741824]

--row-group sets M (rows / row_group map tasks): 390625 gives 256 at 100M rows, 50000 gives
2,000.
"""

import argparse
import os
import resource
import subprocess
import time

import flotilla
from flotilla import col

from timing import peak_rss_mib


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rows", type=int, default=100_000_000)
    p.add_argument("--row-group", type=int, default=390_625)
    p.add_argument("--partitions", type=int, default=256)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--store-bytes", type=int, default=1 << 30)
    p.add_argument("--algorithm", default="flight")
    p.add_argument("--data", default="data/shuffle")
    a = p.parse_args()
    os.makedirs(a.data, exist_ok=True)
    path = os.path.join(a.data, f"t-{a.rows}-{a.row_group}.parquet")
    if not os.path.exists(path):
        here = os.path.dirname(os.path.abspath(__file__))
        subprocess.run(["node", os.path.join(here, "duckdb_shuffle_table.mjs"), "--rows",
                        str(a.rows), "--row_group", str(a.row_group), "--out", path], check=True)

    runner = flotilla.set_runner_dask(
        n_workers=a.workers, progress=False, shuffle_algorithm=a.algorithm,
        store_memory_bytes=a.store_bytes, scan_task_min_bytes=1, scan_task_max_bytes=1)
    events = []
    runner.subscribe(lambda e: events.append(e) if e["event"] == "completed" else None)
    df = (flotilla.read_parquet(path).repartition(a.partitions, col("k"))
          .agg(col("id").count().alias("n"), col("id").sum().alias("ids"),
               col("s").str.length().sum().alias("chars")))
    start = time.perf_counter()
    got = df.to_pydict()
    seconds = time.perf_counter() - start
    stats = runner.worker_stats()
    n = a.rows
    assert got["n"] == [n] and got["ids"] == [n * (n - 1) // 2] and got["chars"] == [32 * n], got

    maps = [e for e in events if "Repartition" in e["node_name"]]
    reduces = [e for e in events if e["node_name"].startswith("Exchange")]
    produced = sum(e["bytes"] for e in maps)
    print(f"{n} rows, {len(maps)} map tasks -> {a.partitions} partitions on {a.workers} workers, "
          f"store budget {a.store_bytes / 2**20:.0f} MiB, shuffle {a.algorithm}: {seconds:.1f} s, "
          f"{produced / 2**30:.2f} GiB produced by the map tasks, "
          f"{produced / seconds / a.workers / 1e9:.3f} GB/s per worker")
    ids = {w.id: addr for addr, w in runner.workers.items()}
    for worker_id, address in sorted(ids.items()):
        ran = sum(1 for e in maps if e["worker"] == worker_id)
        s = stats[address]
        print(f"  {worker_id}: {ran} map tasks, {s['spills']} spill files, "
              f"{s['flight_bytes'] / 2**30:.2f} GiB served over Flight, "
              f"peak RSS {peak_rss_mib(runner.worker_pids()[address]):.0f} MiB")
    print(f"  a reduce partition: {produced / a.partitions / 2**20:.1f} MiB on average; "
          f"{len(reduces)} reduce tasks; driver peak RSS "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
    # What a task held (its operators' reservations; a map task's: what its shuffle writer held
    # before writing to its file), next to the most it wrote or read.
    print(f"  most held by a map task {max(e['peak_memory'] for e in maps) / 2**20:.1f} MiB "
          f"(largest output {max(e['bytes'] for e in maps) / 2**20:.1f} MiB); by a reduce task "
          f"{max(e['peak_memory'] for e in reduces) / 2**20:.1f} MiB")
    flotilla.set_runner_local()


if __name__ == "__main__":
    main()
