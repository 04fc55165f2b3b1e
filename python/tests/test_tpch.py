"""The 22 TPC-H DataFrame programs (tpch/dataframe/queries.py) against the SQL queries
(tpch/queries/qNN.sql, whose results the SQL corpus and tests/interop/tpch.sh check against
DuckDB), run through flotilla.sql on the same tables: the same column names, the same rows in
the same order, numbers equal within a relative 1e-9 (decimals exactly when both are decimals).

The tables are the tiny TPC-H database of the SQL corpus (tests/sql/data/tpch, written by
DuckDB), and a scale factor 0.02 database written by `flotilla tpch gen` (when the build's
program is found); every query returns rows in both (an empty expected result fails). The
databases and the comparison are tpch_compare.py's, shared with test_daft_tpch.py. The
runner tpch/dataframe/run.py is checked too: its CSV is `flotilla sql --format csv`'s.
"""
import csv
import decimal
import io
import math
import subprocess
import sys

import pytest

import flotilla
from tpch_compare import (PROGRAM, ROOT, SQL_DIR, TINY, load_programs, query_difference,
                          result_difference, sql_text, tables)

PROGRAMS = ROOT / "tpch" / "dataframe"
queries = load_programs(PROGRAMS / "queries.py")


@pytest.mark.parametrize("number", range(1, 23))
def test_dataframe_query_matches_sql(tpch_database, number):
    _, frames = tpch_database
    difference = query_difference(queries, number, frames)
    assert difference is None, f"q{number:02d}: {difference}"


def test_comparison_fails_on_a_different_result():
    """The comparison sees a changed parameter, a lost row, a renamed column and a last digit;
    a double that rounds to a decimal is equal to it."""
    frames = tables(TINY)
    q1 = flotilla.sql(sql_text(1), **frames)
    assert result_difference(q1, q1) is None
    changed = flotilla.sql(sql_text(1).replace("interval '90' day", "interval '100' day"), **frames)
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
    # A double against a decimal (q14's promo_revenue has scale 6): equal when the double rounds
    # to the decimal, different by more than half a unit of its last digit.
    q14 = flotilla.sql(sql_text(14), **frames)
    as_double = flotilla.col("promo_revenue").cast("float64")
    assert result_difference(q14.select((as_double + 4e-7).alias("promo_revenue")), q14) is None
    assert "promo_revenue" in result_difference(
        q14.select((as_double + 6e-7).alias("promo_revenue")), q14)


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
def test_run_py_csv_is_flotilla_sql_csv(tpch_database):
    """run.py --format csv prints each query as `flotilla sql --format csv` prints the SQL
    query: the same text, except doubles computed in another order may differ in their last
    digits (within a relative 1e-9; when equal, their text is the same)."""
    directory, frames = tpch_database
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
        types = [t for _, t in flotilla.sql(sql_text(number), **frames).schema()]
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


