"""A large repartition on a Dask cluster with a small store budget: a table written by DuckDB
(100M rows, about 6 GB in memory; one map task per row group) repartitioned by a key into N
partitions, then counted and summed (the answer checked: every row arrives once).

For each shuffle algorithm asked for (`--algorithms flight,memory`: the streaming data plane
and the store of batches it replaced), on a cluster of its own, it prints:
- the wall time, the map and reduce stages apart, throughput per worker next to this machine's
  memcpy bandwidth measured in the same run, bytes served over Flight and the driver's CPU time;
- each worker's spill files next to the map tasks it ran (the flight shuffle writes one file
  per map task past the budget) and its peak RSS;
- how much a worker's RSS grew while it reduced (sampled every 20 ms, against its RSS when the
  map stage ended: the store holds the same map outputs throughout), next to the largest reduce
  partition and the reducers a worker runs at once;
- the driver's peak RSS.
`--local` also runs the query on the local runner in this process, for comparison.

    PYTHONPATH=build/python /usr/bin/python3 bench/shuffle_scale.py [--rows 100000000]
        [--row-group 390625] [--partitions 256] [--workers 4] [--store-bytes 1073741824]
        [--algorithms flight] [--local]

--row-group sets M (rows / row_group map tasks): 390625 gives 256 at 100M rows, 50000 gives
2,000.
"""

import argparse
import os
import resource
import subprocess
import sys
import threading
import time

import flotilla
from flotilla import col

from timing import peak_rss_mib


def memcpy_gbps(size=1 << 28, repeat=5):
    """The best of `repeat` copies of `size` bytes on one core, in GB/s (bytes copied once),
    measured in a process of its own (its buffers would count in this one's peak RSS)."""
    code = f"""
import time
import numpy as np
a = np.ones({size}, dtype=np.uint8)
b = np.empty_like(a)
best = float("inf")
for _ in range({repeat}):
    start = time.perf_counter()
    np.copyto(b, a)
    best = min(best, time.perf_counter() - start)
print({size} / best / 1e9)
"""
    return float(subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                                text=True).stdout)


def rss_bytes(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


class RssSampler(threading.Thread):
    """VmRSS of `pids` every 20 ms: (seconds since `start`, {pid: bytes})."""

    def __init__(self, pids, start):
        super().__init__(daemon=True)
        self.pids, self.start_time, self.samples = list(pids), start, []
        self.stopped = threading.Event()

    def run(self):
        while not self.stopped.wait(0.02):
            self.samples.append((time.perf_counter() - self.start_time,
                                 {p: rss_bytes(p) for p in self.pids}))


def query(path, partitions):
    return (flotilla.read_parquet(path).repartition(partitions, col("k"))
            .agg(col("id").count().alias("n"), col("id").sum().alias("ids"),
                 col("s").str.length().sum().alias("chars")))


def check(got, n):
    assert got["n"] == [n] and got["ids"] == [n * (n - 1) // 2] and got["chars"] == [32 * n], got


def run_on_cluster(a, path, algorithm, memcpy):
    runner = flotilla.set_runner_dask(
        n_workers=a.workers, progress=False, shuffle_algorithm=algorithm,
        store_memory_bytes=a.store_bytes, scan_task_min_bytes=1, scan_task_max_bytes=1)
    events = []
    runner.subscribe(lambda e: events.append(e) if e["event"] == "completed" else None)
    df = query(path, a.partitions)
    pids = runner.worker_pids()
    cpu_before = resource.getrusage(resource.RUSAGE_SELF)
    start = time.perf_counter()
    sampler = RssSampler(pids.values(), start)
    sampler.start()
    got = df.to_pydict()
    seconds = time.perf_counter() - start
    sampler.stopped.set()
    sampler.join()
    cpu_after = resource.getrusage(resource.RUSAGE_SELF)
    stats = runner.worker_stats()
    n = a.rows
    check(got, n)

    maps = [e for e in events if "Repartition" in e["node_name"]]
    reduces = [e for e in events if e["node_name"].startswith("Exchange")]
    produced = sum(e["bytes"] for e in maps)
    driver_cpu = (cpu_after.ru_utime + cpu_after.ru_stime) - (cpu_before.ru_utime +
                                                              cpu_before.ru_stime)
    served = sum(s["flight_bytes"] for s in stats.values())
    print(f"{n} rows, {len(maps)} map tasks -> {a.partitions} partitions on {a.workers} workers, "
          f"store budget {a.store_bytes / 2**20:.0f} MiB, shuffle {algorithm}: {seconds:.1f} s, "
          f"{produced / 2**30:.2f} GiB produced by the map tasks, "
          f"{produced / seconds / a.workers / 1e9:.3f} GB/s per worker (memcpy {memcpy:.1f} GB/s "
          f"on one core: {memcpy / (produced / seconds / a.workers / 1e9):.0f}x); "
          f"{served / 2**30:.2f} GiB served over Flight; driver CPU {driver_cpu:.1f} s")
    # The two stages apart: the map tasks' (read, split, write) and the reducers' (fetch, add).
    map_end = max(e["time"] for e in maps)
    stage_start = min(e["time"] - e["seconds"] for e in maps)
    print(f"  map stage {map_end - stage_start:.1f} s ({sum(e['seconds'] for e in maps):.0f} "
          f"task-seconds); reduce stage {max(e['time'] for e in reduces) - map_end:.1f} s "
          f"({sum(e['seconds'] for e in reduces):.0f} task-seconds)")
    ids = {w.id: addr for addr, w in runner.workers.items()}
    for worker_id, address in sorted(ids.items()):
        ran = sum(1 for e in maps if e["worker"] == worker_id)
        s = stats[address]
        print(f"  {worker_id}: {ran} map tasks, {s['spills']} spill files, "
              f"{s['flight_bytes'] / 2**30:.2f} GiB served over Flight, "
              f"peak RSS {peak_rss_mib(pids[address]):.0f} MiB")
    # A reduce task's input: the rows its scan handed out, at the table's bytes per row.
    largest_rows = max(next(o["rows_out"] for o in e["operators"] if o["name"] == "Scan")
                       for e in reduces)
    largest = largest_rows * produced / n
    growth = []
    for pid in pids.values():
        before = [s[pid] for t, s in sampler.samples if t <= map_end]
        during = [s[pid] for t, s in sampler.samples if t > map_end]
        if before and during:
            growth.append(max(during) - before[-1])
    at_once = max(1, (os.cpu_count() or 1) // a.workers)
    print(f"  reduce partitions: {produced / a.partitions / 2**20:.1f} MiB on average, the "
          f"largest {largest / 2**20:.1f} MiB; {len(reduces)} reduce tasks, {at_once} at a time "
          f"per worker; worker RSS grew by at most {max(growth, default=0) / 2**20:.1f} MiB "
          f"while reducing ({max(growth, default=0) / at_once / max(largest, 1):.2f}x the "
          f"largest partition per reducer)")
    # What a task held (its operators' reservations; a map task's: what its shuffle writer held
    # before writing to its file), next to the most it wrote or read.
    print(f"  most held by a map task {max(e['peak_memory'] for e in maps) / 2**20:.1f} MiB "
          f"(largest output {max(e['bytes'] for e in maps) / 2**20:.1f} MiB); driver peak RSS "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
    flotilla.set_runner_local()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rows", type=int, default=100_000_000)
    p.add_argument("--row-group", type=int, default=390_625)
    p.add_argument("--partitions", type=int, default=256)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--store-bytes", type=int, default=1 << 30)
    p.add_argument("--algorithms", default="flight")
    p.add_argument("--local", action="store_true")
    p.add_argument("--data", default="data/shuffle")
    a = p.parse_args()
    os.makedirs(a.data, exist_ok=True)
    path = os.path.join(a.data, f"t-{a.rows}-{a.row_group}.parquet")
    if not os.path.exists(path):
        here = os.path.dirname(os.path.abspath(__file__))
        subprocess.run(["node", os.path.join(here, "duckdb_shuffle_table.mjs"), "--rows",
                        str(a.rows), "--row_group", str(a.row_group), "--out", path], check=True)
    memcpy = memcpy_gbps()
    for algorithm in a.algorithms.split(","):
        run_on_cluster(a, path, algorithm, memcpy)
    if a.local:
        flotilla.set_runner_local()
        start = time.perf_counter()
        check(query(path, a.partitions).to_pydict(), a.rows)
        print(f"local runner (this process, {os.cpu_count()} threads): "
              f"{time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
