"""The 22 TPC-H DataFrame programs (tpch/dataframe/queries.py) against the SQL queries
(tpch/queries/qNN.sql, whose results the SQL corpus and tests/interop/tpch.sh check against
DuckDB), run through flotilla.sql on the same tables: the same column names, the same rows in
the same order, numbers equal within a relative 1e-9 (decimals exactly when both are decimals).

The tables are the tiny TPC-H database of the SQL corpus (tests/sql/data/tpch, written by
DuckDB), and a scale factor 0.02 database written by `flotilla tpch gen` (when the build's
program is found); every query returns rows in both (an empty expected result fails). The
runner tpch/dataframe/run.py is checked too: its CSV is `flotilla sql --format csv`'s.
"""
import csv
import decimal
import importlib.util
import io
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

import flotilla

ROOT = Path(os.environ.get("FLOTILLA_SOURCE_DIR") or Path(__file__).resolve().parents[2])
SQL_DIR = ROOT / "tpch" / "queries"
PROGRAMS = ROOT / "tpch" / "dataframe"
TINY = ROOT / "tests" / "sql" / "data" / "tpch"
TABLES = ["region", "nation", "supplier", "part", "partsupp", "customer", "orders", "lineitem"]
# The build holds the package (BUILD/python/flotilla) and the program (BUILD/flotilla).
PROGRAM = Path(flotilla.__file__).resolve().parents[2] / "flotilla"
GENERATED_SF = "0.02"


def _load(name):
    spec = importlib.util.spec_from_file_location(f"tpch_{name}", PROGRAMS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


queries = _load("queries")


def _tables(directory):
    frames = {}
    for name in TABLES:
        path = Path(directory) / f"{name}.parquet"
        frames[name] = flotilla.read_parquet(str(path if path.exists() else Path(directory) / name))
    return frames


@pytest.fixture(scope="module", params=["tiny", "generated"])
def database(request, tmp_path_factory):
    """(directory, {name: DataFrame}) of one TPC-H database."""
    if request.param == "tiny":
        directory = TINY
    else:
        if not PROGRAM.exists():
            pytest.skip(f"{PROGRAM} not found: the generated database needs the build's program")
        directory = tmp_path_factory.mktemp("tpch")
        subprocess.run([str(PROGRAM), "tpch", "gen", "--sf", GENERATED_SF, "--out", str(directory)],
                       check=True, capture_output=True)
    return directory, _tables(directory)


def _is_decimal_type(dtype):
    return dtype.startswith("decimal")


def _is_number(v):
    return isinstance(v, (int, float, decimal.Decimal)) and not isinstance(v, bool)


def _same_value(a, b, both_decimal):
    """Whether a value of ours (a) equals the expected one (b)."""
    if a is None or b is None:
        return a is None and b is None
    if both_decimal:
        return a == b  # exactly (Decimal('1.10') == Decimal('1.1'))
    if _is_number(a) and _is_number(b):
        if isinstance(a, int) and isinstance(b, int):
            return a == b
        x, y = float(a), float(b)
        if math.isnan(x) or math.isnan(y):
            return math.isnan(x) and math.isnan(y)
        return math.isclose(x, y, rel_tol=1e-9, abs_tol=0.0)
    return type(a) is type(b) and a == b


def result_difference(actual, expected):
    """None when DataFrame `actual` has `expected`'s column names and rows in the same order
    (numbers within a relative 1e-9, decimals exact), else what differs."""
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
        both_decimal = _is_decimal_type(types[c]) and _is_decimal_type(expected_types[c])
        for r in range(rows):
            a, b = got[name][r], want[name][r]
            if not _same_value(a, b, both_decimal):
                return (f"row {r + 1}, column {name} ({types[c]}, expected {expected_types[c]}): "
                        f"{a!r}, expected {b!r}")
    return None


def _sql(number):
    return (SQL_DIR / f"q{number:02d}.sql").read_text()


@pytest.mark.parametrize("number", range(1, 23))
def test_dataframe_query_matches_sql(database, number):
    _, frames = database
    actual = getattr(queries, f"q{number}")(lambda name: frames[name])
    expected = flotilla.sql(_sql(number), **frames)
    difference = result_difference(actual, expected)
    assert difference is None, f"q{number:02d}: {difference}"


def test_comparison_fails_on_a_different_result():
    """The comparison sees a changed parameter, a lost row, a renamed column and a last digit."""
    frames = _tables(TINY)
    q1 = flotilla.sql(_sql(1), **frames)
    assert result_difference(q1, q1) is None
    changed = flotilla.sql(_sql(1).replace("interval '90' day", "interval '100' day"), **frames)
    assert "sum_qty" in result_difference(changed, q1)
    assert "rows" in result_difference(q1.limit(2), q1)
    renamed = q1.with_column_renamed("count_order", "count")
    assert "columns" in result_difference(renamed, q1)
    nudged = q1.with_column("avg_qty", flotilla.col("avg_qty") * (1 + 1e-8))
    assert "avg_qty" in result_difference(nudged, q1)
    assert result_difference(q1.with_column("avg_qty", flotilla.col("avg_qty") * (1 + 1e-12)),
                             q1) is None
    # A decimal is compared exactly: one unit of its last digit differs.
    cents = q1.with_column("sum_base_price", flotilla.col("sum_base_price")
                           + flotilla.lit(decimal.Decimal("0.01")))
    assert "sum_base_price" in result_difference(cents, q1)


# --- the runner ----------------------------------------------------------------------------------

def _run(*args):
    return subprocess.run([sys.executable, str(PROGRAMS / "run.py"), *args], check=True,
                          capture_output=True, text=True)


def _split_blocks(text):
    """`-- qNN` separated CSV blocks as {NN: [lines]}."""
    blocks, current = {}, None
    for line in text.splitlines():
        if line.startswith("-- q"):
            current = int(line[4:])
            blocks[current] = []
        else:
            blocks[current].append(line)
    return blocks


@pytest.mark.skipif(not PROGRAM.exists(), reason="needs the build's flotilla program")
def test_run_py_csv_is_flotilla_sql_csv(database):
    """run.py --format csv prints each query as `flotilla sql --format csv` prints the SQL
    query: the same text, except doubles computed in another order may differ in their last
    digits (within a relative 1e-9; when equal, their text is the same)."""
    directory, frames = database
    out = _run("--tables", str(directory), "--format", "csv", "--threads", "2", "--timer")
    blocks = _split_blocks(out.stdout)
    assert sorted(blocks) == list(range(1, 23))
    assert [line.split(":")[0] for line in out.stderr.splitlines()] == [
        f"q{n:02d}" for n in range(1, 23)]
    for number in range(1, 23):
        sql = subprocess.run([str(PROGRAM), "sql", "--tables", str(directory), "--format", "csv",
                              "-f", str(SQL_DIR / f"q{number:02d}.sql")],
                             check=True, capture_output=True, text=True).stdout
        ours = list(csv.reader(io.StringIO("\n".join(blocks[number]) + "\n")))
        theirs = list(csv.reader(io.StringIO(sql)))
        types = [t for _, t in flotilla.sql(_sql(number), **frames).schema()]
        assert ours[0] == theirs[0], f"q{number:02d} header"
        assert len(ours) == len(theirs), f"q{number:02d} rows"
        assert len(theirs) > 1, f"q{number:02d} returns rows"
        for r, (a_row, b_row) in enumerate(zip(ours[1:], theirs[1:])):
            for c, (a, b) in enumerate(zip(a_row, b_row)):
                where = f"q{number:02d} row {r + 1} column {ours[0][c]}: {a} vs {b}"
                if types[c].startswith("float") and a != b:
                    # Another summation order; equal doubles must print the same.
                    x, y = float(a), float(b)
                    assert x != y and math.isclose(x, y, rel_tol=1e-9), where
                else:
                    assert a == b, where
    # One query: no `-- qNN` line.
    single = _run("--tables", str(directory), "--query", "6", "--format", "csv").stdout
    assert single.splitlines()[0] == "revenue"


