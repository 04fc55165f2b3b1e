"""The shuffle's data plane: TPC-H lineitem repartitioned by l_orderkey into N partitions on a
Dask cluster, then summed (every column read after the exchange), once per shuffle algorithm in
one run: "memory" (map outputs kept as batches, encoded per fetch) and "flight" with each codec
(one encoded entry per map task, sent as stored). Prints per algorithm the median wall time, the
bytes the map tasks produced, throughput per worker, bytes on the wire (Flight bytes served),
spill files, the driver's CPU seconds and the workers' peak RSS; and memcpy bandwidth measured in
the same run, for scale. The local runner's time on the same query is the first line.

    PYTHONPATH=build/python /usr/bin/python3 bench/shuffle.py --tables data/tpch-sf1-duckdb \
        [--workers 2] [--partitions 64] [--store-bytes BYTES]
"""

import argparse
import os
import subprocess
import time

import flotilla
from flotilla import col

from timing import median_seconds, peak_rss_mib


def query(lineitem, partitions):
    return (flotilla.read_parquet(lineitem)
            .repartition(partitions, col("l_orderkey"))
            .agg(col("l_quantity").sum().alias("qty"),
                 col("l_extendedprice").sum().alias("price"),
                 col("l_comment").str.length().sum().alias("comment_chars"),
                 col("l_shipdate").count().alias("n")))


def memcpy_gbps(size=256 << 20, repeat=5):
    """Copies between two buffers already touched (no page faults): memory bandwidth."""
    src = bytearray(os.urandom(1 << 20)) * (size >> 20)
    dst = bytearray(size)
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        dst[:] = src
        best = min(best, time.perf_counter() - start)
    return size / best / 1e9


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tables", default=os.environ.get("TPCH_DIR", "data/tpch-sf1"))
    p.add_argument("--sf", default="1")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--partitions", type=int, default=64)
    p.add_argument("--scan-task-bytes", type=int, default=4 << 20,
                   help="scan task size, which sets the number of map tasks")
    p.add_argument("--store-bytes", type=int, default=None,
                   help="each worker's store budget (small: the shuffle spills)")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--algorithms", default="memory,flight:lz4,flight:none,flight:zstd")
    p.add_argument("--flotilla", default=os.environ.get("FLOTILLA_BIN", "build/flotilla"))
    a = p.parse_args()
    lineitem = os.path.join(a.tables, "lineitem.parquet")
    if not os.path.exists(lineitem):
        subprocess.run([a.flotilla, "tpch", "gen", "--sf", a.sf, "--out", a.tables], check=True)

    print(f"memcpy: {memcpy_gbps():.2f} GB/s (one thread, this run)")
    flotilla.set_runner_local()
    local_seconds, local = median_seconds(lambda: query(lineitem, a.partitions).to_pydict(),
                                          a.repeat)
    print(f"local runner: {local_seconds:.2f} s")

    for algorithm in a.algorithms.split(","):
        name, _, codec = algorithm.partition(":")
        runner = flotilla.set_runner_dask(
            n_workers=a.workers, progress=False, shuffle_algorithm=name,
            shuffle_compression=codec or None, scan_task_min_bytes=a.scan_task_bytes,
            scan_task_max_bytes=a.scan_task_bytes, store_memory_bytes=a.store_bytes)
        events = []
        runner.subscribe(lambda e: events.append(e) if e["event"] == "completed" else None)
        query(lineitem, a.partitions).to_pydict()  # warm up the workers
        events.clear()
        before = runner.worker_stats()
        cpu = time.process_time()
        seconds, result = median_seconds(lambda: query(lineitem, a.partitions).to_pydict(),
                                         a.repeat)
        cpu = (time.process_time() - cpu) / a.repeat
        after = runner.worker_stats()
        assert result == local, (algorithm, result, local)
        maps = [e for e in events if "Repartition" in e["node_name"]]
        produced = sum(e["bytes"] for e in maps) / a.repeat
        wire = sum(after[w]["flight_bytes"] - before[w]["flight_bytes"] for w in after) / a.repeat
        spills = sum(after[w]["spills"] - before[w]["spills"] for w in after) / a.repeat
        rss = max(peak_rss_mib(pid) for pid in runner.worker_pids().values())
        print(f"{algorithm}: {seconds:.2f} s (local x{seconds / local_seconds:.2f}), "
              f"{len(maps) // a.repeat} map tasks -> {a.partitions} partitions, "
              f"{produced / 2**20:.0f} MiB produced, "
              f"{produced / seconds / a.workers / 1e9:.3f} GB/s per worker, "
              f"{wire / 2**20:.0f} MiB on the wire, {spills:.0f} spill files, "
              f"driver CPU {cpu:.2f} s, worker peak RSS {rss:.0f} MiB (median of {a.repeat})")
        flotilla.set_runner_local()


if __name__ == "__main__":
    main()
