#!/usr/bin/env python3
"""Runs the TPC-H DataFrame programs (queries.py) on a directory of tables.

    /usr/bin/python3 tpch/dataframe/run.py --tables DIR [--query N ...] [--format csv|table]
        [--threads T] [--timer] [--repeats R] [--runner local|dask|dask=ADDRESS] [--workers N]

Tables are DIR/NAME.parquet or directories DIR/NAME/ of Parquet files. With --format csv each
query's rows are printed as `flotilla sql --format csv` prints them (with several queries, each
block after a `-- qNN` line); --timer prints `qNN: S s` per run on stderr. With --runner dask
the queries run on a Dask cluster: a new local one of --workers processes, or the scheduler at
ADDRESS.
"""
import argparse
import os
import sys
import time

_here = os.path.dirname(os.path.abspath(__file__))
try:
    import flotilla
except ImportError:  # run from a checkout after `make build`
    sys.path.insert(0, os.path.join(_here, "..", "..", "build", "python"))
    import flotilla

sys.path.insert(0, _here)
from queries import QUERIES  # noqa: E402


def table_reader(directory):
    def tables(name):
        path = os.path.join(directory, f"{name}.parquet")
        if not os.path.exists(path):
            path = os.path.join(directory, name)
        if not os.path.exists(path):
            raise FileNotFoundError(f"no table {name} in {directory} ({name}.parquet or {name}/)")
        return flotilla.read_parquet(path)
    return tables


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", required=True, help="directory of the eight tables")
    parser.add_argument("--query", type=int, nargs="+", action="extend",
                        help="query numbers (--query 1 6 or --query 1 --query 6; default all 22)")
    parser.add_argument("--format", choices=["csv", "table"], default="table")
    parser.add_argument("--threads", type=int, help="worker threads (default: one per core)")
    parser.add_argument("--timer", action="store_true", help="print each run's seconds on stderr")
    parser.add_argument("--repeats", type=int, default=1, help="runs of each query")
    parser.add_argument("--runner", default="local", help="local, dask or dask=ADDRESS")
    parser.add_argument("--workers", type=int, help="dask: the new local cluster's workers")
    args = parser.parse_args()
    if args.threads:
        flotilla.set_execution_config(num_threads=args.threads)
    if args.runner == "dask" or args.runner.startswith("dask="):
        flotilla.set_runner_dask(address=args.runner[5:] or None, n_workers=args.workers)
    elif args.runner != "local":
        parser.error(f"--runner: expected local, dask or dask=ADDRESS, got {args.runner!r}")
    tables = table_reader(args.tables)
    numbers = args.query or list(range(1, 23))
    for n in numbers:
        if n not in QUERIES:
            parser.error(f"no query {n}: TPC-H has queries 1 to 22")
        name = f"q{n:02}"
        for _ in range(args.repeats):
            start = time.perf_counter()
            result = QUERIES[n](tables).collect()
            seconds = time.perf_counter() - start
            if args.timer:
                print(f"{name}: {seconds:.3f} s", file=sys.stderr)
        if len(numbers) > 1:
            print(f"-- {name}")
        if args.format == "csv":
            write_csv(result, sys.stdout)
        else:
            result.show(100)


def write_csv(result, out):
    """The rows as the engine's CSV writer writes them (`flotilla sql --format csv`)."""
    out.write(result._batch().to_text("csv").decode())


if __name__ == "__main__":
    main()
