"""All 22 TPC-H queries on a Dask cluster of 3 worker processes, as users run them: the SQL
through `flotilla sql --runner dask=ADDRESS` and the DataFrame programs through
`tpch/dataframe/run.py --runner dask=ADDRESS`, each printing what `flotilla sql --format csv`
prints on the local runner (doubles summed in another order may differ in their last digits).
Scale factor 0.02 in 3 files per table of small row groups: many scan tasks, joins broadcast and
shuffled. (The 2-worker cluster of test_dask.py runs them in-process too.)"""
import csv
import io
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

import flotilla

pytest.importorskip("distributed")

ROOT = Path(os.environ.get("FLOTILLA_SOURCE_DIR") or Path(__file__).resolve().parents[2])
SQL_DIR = ROOT / "tpch" / "queries"
PROGRAM = Path(flotilla.__file__).resolve().parents[2] / "flotilla"
PYTHON_PATH = str(Path(flotilla.__file__).resolve().parents[1])


@pytest.fixture(scope="module")
def cluster():
    from distributed import LocalCluster

    with LocalCluster(n_workers=3, threads_per_worker=1, processes=True,
                      dashboard_address=None) as c:
        yield c.scheduler_address


@pytest.fixture(scope="module")
def tables(tpch_directory):
    return tpch_directory


@pytest.fixture(scope="module")
def local_csv(tables):
    """Query number -> the local runner's CSV text."""
    return {n: _sql_cli(tables, n) for n in range(1, 23)}


def _env(**extra):
    env = dict(os.environ, PYTHONPATH=PYTHON_PATH, FLOTILLA_PROGRESS="0", **extra)
    env.pop("FLOTILLA_RUNNER", None)
    return env


def _sql_cli(tables, number, *args, **env):
    return subprocess.run([str(PROGRAM), "sql", *args, "--tables", str(tables), "--format", "csv",
                           "-f", str(SQL_DIR / f"q{number:02d}.sql")],
                          check=True, capture_output=True, text=True, env=_env(**env)).stdout


def _same_csv(ours, theirs, what):
    a, b = list(csv.reader(io.StringIO(ours))), list(csv.reader(io.StringIO(theirs)))
    assert a and a[0] == b[0], f"{what}: header {a[:1]} vs {b[:1]}"
    assert len(a) == len(b), f"{what}: {len(a) - 1} rows vs {len(b) - 1}"
    assert len(a) > 1, f"{what}: the query returns rows at this scale"
    for r, (x_row, y_row) in enumerate(zip(a[1:], b[1:])):
        for c, (x, y) in enumerate(zip(x_row, y_row)):
            if x == y:
                continue
            # Only a double summed in another order may differ, in its last digits.
            where = f"{what} row {r + 1} column {a[0][c]}: {x} vs {y}"
            assert "." in x + y or "e" in x + y, where
            assert math.isclose(float(x), float(y), rel_tol=1e-9), where


def _workers_of(log):
    events = [json.loads(line) for line in open(log)]
    return {e["worker"] for e in events if e["event"] == "completed"}


@pytest.mark.parametrize("number", range(1, 23))
def test_sql_through_the_command_line(cluster, tables, local_csv, number, tmp_path):
    log = tmp_path / "events.jsonl"
    out = _sql_cli(tables, number, "--runner", f"dask={cluster}", FLOTILLA_EVENT_LOG=str(log))
    _same_csv(out, local_csv[number], f"q{number:02d}")
    assert len(_workers_of(log)) == 3, "every worker ran tasks"


def test_dataframe_programs(cluster, tables, local_csv, tmp_path):
    log = tmp_path / "events.jsonl"
    out = subprocess.run([sys.executable, str(ROOT / "tpch" / "dataframe" / "run.py"),
                          "--tables", str(tables), "--format", "csv", "--runner", f"dask={cluster}"],
                         check=True, capture_output=True, text=True,
                         env=_env(FLOTILLA_EVENT_LOG=str(log))).stdout
    blocks, current = {}, None
    for line in out.splitlines(keepends=True):
        if line.startswith("-- q"):
            current = int(line[4:])
            blocks[current] = ""
        else:
            blocks[current] += line
    assert sorted(blocks) == list(range(1, 23))
    for n in range(1, 23):
        _same_csv(blocks[n], local_csv[n], f"q{n:02d} (DataFrame)")
    assert len(_workers_of(log)) == 3, "every worker ran tasks"


def test_a_new_local_cluster_from_the_command_line(tables, local_csv):
    """Without an address the command starts (and stops) its own cluster of --workers."""
    out = _sql_cli(tables, 3, "--runner", "dask", "--workers", "3")
    _same_csv(out, local_csv[3], "q03 on a new cluster")
