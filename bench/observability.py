"""What observability costs the distributed runner: the no-op task query (bench/dist_noop_tasks.py)
and TPC-H Q1 on 2 Dask workers, each with everything that can be switched on — the dashboard,
the JSON-lines event log, the Chrome trace and a Python subscriber — and with all of it off,
interleaved in one run so the machine's noise falls on both alike. Per-task operator statistics
and worker resource samples have no switch: they are in both columns.

    PYTHONPATH=build/python /usr/bin/python3 bench/observability.py [--sf 1] [--rounds 7]
"""

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(__file__))
from timing import median_seconds  # noqa: E402

import flotilla  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def tpch_lineitem(sf: float, out: Path) -> Path:
    """lineitem at `sf` as DuckDB writes Parquet (the files most users have)."""
    duckdb = out / "duckdb"
    if not (duckdb / "lineitem.parquet").exists():
        subprocess.run([str(ROOT / "build" / "flotilla"), "tpch", "gen", "--sf", str(sf),
                        "--table", "lineitem", "--out", str(out)], check=True,
                       capture_output=True)
        subprocess.run(["node", str(ROOT / "bench" / "duckdb_copy_tables.mjs"), "--from",
                        str(out), "--to", str(duckdb), "--tables", "lineitem"], check=True,
                       capture_output=True)
    return duckdb / "lineitem.parquet"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sf", type=float, default=1.0)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--tasks", type=int, default=400)
    parser.add_argument("--data", default=None, help="a TPC-H directory (default: generated)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="flotilla-observability-"))
    data = Path(args.data) if args.data else work / "tpch"
    lineitem = flotilla.read_parquet(str(tpch_lineitem(args.sf, data)))
    q1 = (ROOT / "tpch" / "queries" / "q01.sql").read_text()

    runner = flotilla.set_runner_dask(n_workers=2, progress=False)
    flotilla.from_pydict({"v": [1]}).collect()  # starts the dashboard
    board = runner.dashboard
    seen = []

    def switch(on: bool):
        runner.event_log = str(work / "events.jsonl") if on else None
        runner.trace = str(work / "trace.json") if on else None
        runner.subscribers[:] = [seen.append] if on else []
        runner.dashboard = board if on else None
        runner._dashboard_address = None  # not started again when off

    queries = {
        "no-op tasks": lambda: flotilla.from_pydict({"v": list(range(args.tasks))})
        .into_partitions(args.tasks).collect(),
        f"TPC-H Q1 SF{args.sf:g}": lambda: flotilla.sql(q1, lineitem=lineitem).collect(),
    }
    times = {(name, on): [] for name in queries for on in (False, True)}
    for _ in range(args.rounds):
        for name, run in queries.items():
            for on in (False, True):
                switch(on)
                seconds, _ = median_seconds(run, 1)
                times[(name, on)].append(seconds)
    switch(False)
    for name in queries:
        off = sorted(times[(name, False)])[args.rounds // 2]
        on = sorted(times[(name, True)])[args.rounds // 2]
        print(f"{name}: off {off:.3f} s, on {on:.3f} s (median of {args.rounds}): "
              f"on/off = {on / off:.3f}")
    print(f"events seen by the subscriber: {len(seen)}; log "
          f"{(work / 'events.jsonl').stat().st_size / 1e6:.1f} MB, trace "
          f"{(work / 'trace.json').stat().st_size / 1e6:.1f} MB")
    flotilla.set_runner_local()


if __name__ == "__main__":
    main()
