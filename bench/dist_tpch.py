"""The 22 TPC-H queries (tpch/queries/qNN.sql) on the local runner and on 2 Dask workers, in one
run: median seconds of each, their ratio, the cluster's tasks, the bytes its shuffles moved
(the outputs of tasks ending in a split), the joins it broadcast and the exchanges it elided
(from the distributed plan), and the geometric mean of the ratios. The answers are
checked to have the same rows. Generates the tables first when --tables has none.

    PYTHONPATH=build/python /usr/bin/python3 bench/dist_tpch.py --tables data/tpch-sf1
"""

import argparse
import math
import os
import subprocess

import flotilla
from flotilla import _flotilla as _ext

from timing import timed_collect

TABLES = ["region", "nation", "supplier", "part", "partsupp", "customer", "orders", "lineitem"]


def tables(directory):
    out = {}
    for name in TABLES:
        path = os.path.join(directory, f"{name}.parquet")
        out[name] = flotilla.read_parquet(path if os.path.exists(path) else os.path.join(directory, name))
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tables", default=os.environ.get("TPCH_DIR", "data/tpch-sf1"))
    p.add_argument("--sf", default="1")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--threads-per-worker", type=int, default=None,
                   help="engine threads of each worker (default: the cores shared among them)")
    p.add_argument("--queries", default="1-22", help="e.g. 1-22 or 3,5,9")
    p.add_argument("--flotilla", default=os.environ.get("FLOTILLA_BIN", "build/flotilla"))
    a = p.parse_args()
    if not any(os.path.exists(os.path.join(a.tables, n)) or
               os.path.exists(os.path.join(a.tables, n + ".parquet")) for n in ["lineitem"]):
        subprocess.run([a.flotilla, "tpch", "gen", "--sf", a.sf, "--out", a.tables], check=True)
    if "-" in a.queries:
        lo, hi = a.queries.split("-")
        numbers = range(int(lo), int(hi) + 1)
    else:
        numbers = [int(n) for n in a.queries.split(",")]
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    texts = {n: open(os.path.join(root, "tpch", "queries", f"q{n:02}.sql")).read() for n in numbers}
    frames = tables(a.tables)

    def query(n):
        return lambda: flotilla.sql(texts[n], **frames)

    flotilla.set_runner_local()
    local = {n: timed_collect(query(n), a.repeat) for n in numbers}

    runner = flotilla.set_runner_dask(n_workers=a.workers, progress=False,
                                      threads_per_worker=a.threads_per_worker)
    events = []
    runner.subscribe(lambda e: events.append(e) if e["event"] == "completed" else None)
    ratios = []
    for n in numbers:
        query(n)().collect()  # warm up the workers
        events.clear()
        seconds, rows = timed_collect(query(n), a.repeat)
        tasks = len(events) // a.repeat
        shuffled = sum(e["bytes"] for e in events if e["node_name"].endswith("Repartition")) // a.repeat
        l_seconds, l_rows = local[n]
        assert rows == l_rows, (n, rows, l_rows)
        ratios.append(seconds / l_seconds)
        nodes = _ext.explain_distributed(query(n)()._df, None)
        broadcast = nodes.count("broadcast to every task")
        elided = sum(int(part.split(" exchange(s) elided")[0].rsplit(" ", 1)[-1])
                     for part in nodes.split("\n") if " exchange(s) elided" in part)
        print(f"q{n:02}: local {l_seconds:.2f} s, {a.workers} Dask workers {seconds:.2f} s, "
              f"ratio {ratios[-1]:.2f}; {rows} rows, {tasks} tasks, "
              f"{shuffled / 2**20:.1f} MiB shuffled, {broadcast} broadcast, {elided} exchanges "
              f"elided (median of {a.repeat})", flush=True)
    geomean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    print(f"geometric mean of the ratios (cluster / local): {geomean:.2f}")
    flotilla.set_runner_local()


if __name__ == "__main__":
    main()
