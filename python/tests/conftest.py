import subprocess
from pathlib import Path

import numpy as np
import pytest

import flotilla
from tpch_compare import DATABASES, open_database


@pytest.fixture
def people():
    return flotilla.from_pydict({
        "id": [1, 2, 3, 4, 5],
        "name": ["ann", "bob", "cy", "dee", None],
        "city": ["oslo", "rome", "oslo", None, "rome"],
        "score": [3.5, 1.0, None, 2.5, 4.0],
    })


@pytest.fixture
def random_frame():
    """A seeded table and the same data as a pandas DataFrame (the oracle)."""
    rng = np.random.default_rng(7)
    n = 5000
    data = {
        "k": rng.integers(0, 40, n),
        "g": rng.choice(["a", "b", "c", "d"], n).tolist(),
        "x": rng.normal(10, 3, n),
        "y": rng.integers(-1000, 1000, n),
    }
    import pandas as pd

    return flotilla.from_pydict(data), pd.DataFrame(data)


@pytest.fixture(scope="session")
def tpch_directory(tmp_path_factory):
    """TPC-H at scale factor 0.02 in 3 files per table of small row groups (many scan tasks),
    written by the build's program."""
    program = Path(flotilla.__file__).resolve().parents[2] / "flotilla"
    if not program.exists():
        pytest.skip(f"{program} not found: the database needs the build's program")
    directory = tmp_path_factory.mktemp("tpch")
    subprocess.run([str(program), "tpch", "gen", "--sf", "0.02", "--files-per-table", "3",
                    "--row-group-rows", "5000", "--out", str(directory)], check=True,
                   capture_output=True)
    return directory


@pytest.fixture(scope="session", params=DATABASES)
def tpch_database(request, tmp_path_factory):
    """(directory, {name: DataFrame}) of one TPC-H database: the SQL corpus's tiny one, then
    one of scale factor 0.02 written by the build's program (tpch_compare.py)."""
    return open_database(request.param, tmp_path_factory)
