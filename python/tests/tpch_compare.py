"""What the TPC-H tests share: the databases, the SQL queries (tpch/queries/qNN.sql), loading a
file of DataFrame programs, and the comparison of a program's result with the SQL answer.

The databases are the tiny TPC-H database of the SQL corpus (tests/sql/data/tpch, written by
DuckDB) and a scale factor 0.02 database written by `flotilla tpch gen` (when the build's
program is found). The `tpch_database` fixture (conftest.py) yields one of each.
"""
import decimal
import importlib.util
import math
import os
import subprocess
from pathlib import Path

import pytest

import flotilla

ROOT = Path(os.environ.get("FLOTILLA_SOURCE_DIR") or Path(__file__).resolve().parents[2])
SQL_DIR = ROOT / "tpch" / "queries"
TINY = ROOT / "tests" / "sql" / "data" / "tpch"
TABLES = ["region", "nation", "supplier", "part", "partsupp", "customer", "orders", "lineitem"]
# The build holds the package (BUILD/python/flotilla) and the program (BUILD/flotilla).
PROGRAM = Path(flotilla.__file__).resolve().parents[2] / "flotilla"
GENERATED_SF = "0.02"
DATABASES = ["tiny", "generated"]


def load_programs(path):
    """The Python file at `path` as a module (its qN functions)."""
    path = Path(path)
    spec = importlib.util.spec_from_file_location(f"tpch_{path.parent.name}_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def tables(directory):
    """{name: DataFrame} of the TPC-H tables in `directory` (NAME.parquet or a folder NAME)."""
    frames = {}
    for name in TABLES:
        path = Path(directory) / f"{name}.parquet"
        frames[name] = flotilla.read_parquet(str(path if path.exists() else Path(directory) / name))
    return frames


def open_database(kind, tmp_path_factory):
    """(directory, {name: DataFrame}) of the "tiny" or the "generated" database; skips the
    generated one when the build's program is not found."""
    if kind == "tiny":
        directory = TINY
    else:
        if not PROGRAM.exists():
            pytest.skip(f"{PROGRAM} not found: the generated database needs the build's program")
        directory = tmp_path_factory.mktemp("tpch")
        subprocess.run([str(PROGRAM), "tpch", "gen", "--sf", GENERATED_SF, "--out", str(directory)],
                       check=True, capture_output=True)
    return directory, tables(directory)


def sql_text(number):
    return (SQL_DIR / f"q{number:02d}.sql").read_text()


def _decimal_scale(dtype):
    """The scale of a decimal type ("decimal128(38, 6)" -> 6), None for other types."""
    if not dtype.startswith("decimal"):
        return None
    return int(dtype[dtype.index("(") + 1:dtype.index(")")].split(",")[1])


def _is_number(v):
    return isinstance(v, (int, float, decimal.Decimal)) and not isinstance(v, bool)


def _same_value(a, b, scales):
    """Whether a value of ours (a) equals the expected one (b), given the decimal scales of
    their types (None: not a decimal)."""
    if a is None or b is None:
        return a is None and b is None
    if None not in scales:
        return a == b  # exactly (Decimal('1.10') == Decimal('1.1'))
    if _is_number(a) and _is_number(b):
        if isinstance(a, int) and isinstance(b, int):
            return a == b
        x, y = float(a), float(b)
        if math.isnan(x) or math.isnan(y):
            return math.isnan(x) and math.isnan(y)
        if math.isclose(x, y, rel_tol=1e-9, abs_tol=0.0):
            return True
        # A double and a decimal: the decimal holds the exact value rounded to its scale, so
        # the double must round to it (within half a unit of its last digit).
        scale = next((s for s in scales if s is not None), None)
        return scale is not None and abs(x - y) <= 0.5 * 10.0 ** -scale * (1 + 1e-9)
    return type(a) is type(b) and a == b


def result_difference(actual, expected):
    """None when DataFrame `actual` has `expected`'s column names and rows in the same order
    (numbers within a relative 1e-9, decimals exact, a double and a decimal also equal when
    the double rounds to the decimal), else what differs."""
    names, expected_names = actual.column_names, expected.column_names
    if names != expected_names:
        return f"columns {names}, expected {expected_names}"
    types = [t for _, t in actual.schema()]
    expected_types = [t for _, t in expected.schema()]
    got, want = actual.to_pydict(), expected.to_pydict()
    rows, expected_rows = len(got[names[0]]), len(want[names[0]])
    if rows != expected_rows:
        return f"{rows} rows, expected {expected_rows}"
    if expected_rows == 0:
        return "the expected result has no rows: the check would compare nothing with nothing"
    for c, name in enumerate(names):
        scales = (_decimal_scale(types[c]), _decimal_scale(expected_types[c]))
        for r in range(rows):
            a, b = got[name][r], want[name][r]
            if not _same_value(a, b, scales):
                return (f"row {r + 1}, column {name} ({types[c]}, expected {expected_types[c]}): "
                        f"{a!r}, expected {b!r}")
    return None


def query_difference(programs, number, frames):
    """result_difference of program qN of module `programs` from SQL query N, both on
    `frames`."""
    actual = getattr(programs, f"q{number}")(lambda name: frames[name])
    expected = flotilla.sql(sql_text(number), **frames)
    return result_difference(actual, expected)
