#!/usr/bin/env python3
"""Runs the TPC-H DataFrame programs (queries.py) on a directory of tables.

    /usr/bin/python3 tpch/dataframe/run.py --tables DIR [--query N ...] [--format csv|table]
        [--threads T] [--timer] [--repeats R]

Tables are DIR/NAME.parquet or directories DIR/NAME/ of Parquet files. With --format csv each
query's rows are printed as `flotilla sql --format csv` prints them (with several queries, each
block after a `-- qNN` line); --timer prints `qNN: S s` per run on stderr.
"""
import argparse
import datetime
import decimal
import math
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
    args = parser.parse_args()
    if args.threads:
        flotilla.set_execution_config(num_threads=args.threads)
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


def _double(value, digits=repr):
    """A double as the engine's CSV writer prints it (C++ std::to_chars): the shortest digits
    that read back as the same value, in fixed or exponent notation, whichever is shorter (fixed
    on a tie; an integer in fixed notation has all its exact digits): 25.0 -> 25,
    100000.0 -> 1e+05, 1.5e-07 -> 1.5e-07, -0.0 -> -0. `digits` gives
    the shortest round-trip text (repr for a double, str of a numpy float32 for a float)."""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    negative, all_digits, exponent = decimal.Decimal(digits(value)).as_tuple()
    ds = "".join(map(str, all_digits)).rstrip("0")  # value = ds * 10**exponent
    if not ds:
        return "-0" if negative else "0"
    exponent += len(all_digits) - len(ds)
    n = len(ds)
    if exponent >= 0:
        fixed = str(int(abs(value)))  # exact: 1.2345678901234568e+20 -> 123456789012345683968
    elif -exponent < n:
        fixed = ds[:n + exponent] + "." + ds[n + exponent:]
    else:
        fixed = "0." + "0" * (-exponent - n) + ds
    power = exponent + n - 1
    scientific = (ds[0] + ("." + ds[1:] if n > 1 else "")
                  + ("e+" if power >= 0 else "e-") + f"{abs(power):02d}")
    return ("-" if negative else "") + (fixed if len(fixed) <= len(scientific) else scientific)


def _float32_digits(value):
    import numpy

    return str(numpy.float32(value))


def _text(value, dtype=""):
    if value is None:
        return None
    if isinstance(value, decimal.Decimal):
        return format(value, "f")  # never exponent notation
    if isinstance(value, float):
        return _double(value, _float32_digits if dtype == "float32" else repr)
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat(sep=" ") if isinstance(value, datetime.datetime) else value.isoformat()
    return str(value)


def _field(text):
    if text is None:
        return ""
    if text == "" or any(c in text for c in ',"\n\r'):
        return '"' + text.replace('"', '""') + '"'
    return text


def write_csv(result, out):
    """A header, then the rows; nulls are empty fields, text is quoted where it needs to be."""
    columns = result.to_pydict()
    names = list(columns)
    types = [t for _, t in result.schema()]
    out.write(",".join(_field(n) for n in names) + "\n")
    for row in zip(*(columns[n] for n in names)):
        out.write(",".join(_field(_text(v, t)) for v, t in zip(row, types)) + "\n")

if __name__ == "__main__":
    main()
