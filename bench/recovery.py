"""What a lost worker costs: TPC-H Q3, Q9 and Q18 and a join -> aggregate -> sort chain on a Dask
cluster of 3 worker processes (nannies restart what is killed), each query run undisturbed and
with the worker of its middle task killed (SIGKILL) as that task finishes. Prints, per query, the
median time of each, their ratio, and the finished tasks that ran again.

    PYTHONPATH=build/python /usr/bin/python3 bench/recovery.py [--sf 0.1] [--runs 3]

Data: TPC-H written by `flotilla tpch gen` under data/recovery-sf<SF> (made once)."""
import argparse
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

import flotilla
from flotilla import col

ROOT = Path(__file__).resolve().parents[1]
TABLES = ["lineitem", "orders", "customer", "part", "partsupp", "supplier", "nation", "region"]


def tpch(sf):
    out = ROOT / "data" / f"recovery-sf{sf}"
    if not (out / "lineitem").exists():
        program = Path(flotilla.__file__).resolve().parents[2] / "flotilla"
        subprocess.run([str(program), "tpch", "gen", "--sf", str(sf), "--files-per-table", "6",
                        "--out", str(out)], check=True)
    return out


def queries(data):
    frames = {t: flotilla.read_parquet(str(data / t)) for t in TABLES}
    out = {}
    for q in (3, 9, 18):
        text = (ROOT / "tpch" / "queries" / f"q{q:02d}.sql").read_text()
        out[f"Q{q}"] = lambda text=text: flotilla.sql(text, register_globals=False, **frames)
    li, orders = frames["lineitem"], frames["orders"]
    out["join->agg->sort"] = lambda: (li.join(orders, left_on="l_orderkey", right_on="o_orderkey")
                                      .groupby("o_custkey").agg(col("l_quantity").sum().alias("q"))
                                      .sort("o_custkey"))
    return out


class Events:
    def __init__(self, runner, kill_at=None):
        self.runner, self.kill_at, self.done, self.rerun, self.killed = runner, kill_at, 0, 0, None

    def __call__(self, e):
        if e["event"] == "cancelled" and e["message"].startswith("output"):
            self.rerun += 1
        if e["event"] != "completed":
            return
        self.done += 1
        if self.done == self.kill_at and self.killed is None:
            pid = next((w.pid for w in self.runner.workers.values() if w.id == e["worker"]), None)
            if pid:
                os.kill(pid, signal.SIGKILL)
                self.killed = e["worker"]


def wait_for_workers(runner, n):
    deadline = time.monotonic() + 120
    while len(runner.workers) < n and time.monotonic() < deadline:
        runner._refresh_workers()
        time.sleep(0.2)


def timed(runner, make, kill_at=None):
    wait_for_workers(runner, 3)
    events = Events(runner, kill_at)
    runner.subscribe(events)
    start = time.perf_counter()
    try:
        rows = len(next(iter(make().to_pydict().values())))
    finally:
        runner.subscribers.remove(events)
    return time.perf_counter() - start, events, rows


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--sf", type=float, default=0.1)
    p.add_argument("--runs", type=int, default=3)
    a = p.parse_args()
    data = tpch(a.sf)
    runner = flotilla.set_runner_dask(n_workers=3, threads_per_worker=1, progress=False,
                                      scan_task_min_bytes=1)
    print(f"TPC-H SF{a.sf}, 3 Dask workers, median of {a.runs} runs; killed: the worker of the "
          "middle task, as it finishes")
    print(f"{'query':<16} {'tasks':>5} {'undisturbed':>11} {'one kill':>9} {'ratio':>6} "
          f"{'re-run':>6}")
    for name, make in queries(data).items():
        timed(runner, make)  # warm: files cached, workers' imports done
        base = [timed(runner, make) for _ in range(a.runs)]
        tasks = base[0][1].done
        killed = [timed(runner, make, kill_at=max(1, tasks // 2)) for _ in range(a.runs)]
        assert all(k[2] == base[0][2] for k in killed), f"{name}: row counts differ"
        b = statistics.median(t for t, _, _ in base)
        k = statistics.median(t for t, _, _ in killed)
        rerun = statistics.median(e.rerun for _, e, _ in killed)
        print(f"{name:<16} {tasks:>5} {b:>10.2f}s {k:>8.2f}s {k / b:>5.2f}x {rerun:>6.0f}",
              flush=True)
    runner.close()


if __name__ == "__main__":
    sys.exit(main())
