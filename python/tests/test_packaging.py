"""The package as users install it: this build's wheel (python/packaging/flotilla_build.py, as
`make wheel` writes it) installed into a new virtual environment of /usr/bin/python3 by that
environment's pip without a package index, and `pip install .` reusing this build. numpy and
pandas come from Debian's site packages (--system-site-packages). Each installation is imported
by a process without PYTHONPATH, where the installed copy must be the one that answers queries."""

import base64
import hashlib
import json
import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

import flotilla

SOURCE = Path(__file__).resolve().parents[2]
BACKEND = SOURCE / "python" / "packaging" / "flotilla_build.py"
PYTHON = "/usr/bin/python3"


@pytest.fixture(scope="module")
def build_dir():
    """FLOTILLA_BUILD_DIR (CTest sets it), else the build whose package this process imports."""
    named = os.environ.get("FLOTILLA_BUILD_DIR")
    return Path(named).resolve() if named else Path(flotilla.__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(build_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    built = _run([PYTHON, str(BACKEND), "--build-dir", str(build_dir), "--out", str(out)],
                 tmp_path_factory.mktemp("home"))
    return Path(built.stdout.strip())


def _clean_env(home: Path, **extra) -> dict:
    """No PYTHONPATH, no user configuration: only what the installation itself provides."""
    return {"PATH": "/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8", **extra}


def _run(command, home: Path, **extra) -> subprocess.CompletedProcess:
    done = subprocess.run(command, env=_clean_env(home, **extra), cwd=home, capture_output=True,
                          text=True)
    assert done.returncode == 0, f"{' '.join(command)}:\n{done.stdout}\n{done.stderr}"
    return done


def _new_venv(directory: Path) -> Path:
    _run([PYTHON, "-m", "venv", "--system-site-packages", str(directory / "venv")], directory)
    return directory / "venv" / "bin" / "python"


def _pip_install(python: Path, target, home: Path, **extra) -> None:
    _run([str(python), "-m", "pip", "install", "--no-index", "--no-cache-dir",
          "--disable-pip-version-check", str(target)], home, **extra)


QUERIES = """
import json
import flotilla
from flotilla import col

df = flotilla.from_pydict({"g": ["a", "b", "a", "c", "b", "a"], "x": [1, 2, 3, 4, 5, 6]})
grouped = (df.groupby("g").agg(col("x").sum().alias("total"), col("x").count().alias("n"))
           .sort("g").to_pydict())
answered = flotilla.sql("SELECT g, max(x) AS top FROM t WHERE x > 1 GROUP BY g ORDER BY g",
                        t=df).to_pydict()
print(json.dumps({"package": flotilla.__file__, "extension": flotilla._flotilla.__file__,
                  "grouped": grouped, "sql": answered,
                  "pandas_sum": int(df.to_pandas()["x"].sum())}))
"""


def _check_installed(python: Path, home: Path) -> None:
    venv = python.parents[1].resolve()
    out = json.loads(_run([str(python), "-c", QUERIES], home).stdout)
    assert Path(out["package"]).resolve().is_relative_to(venv), out["package"]
    assert Path(out["extension"]).resolve().is_relative_to(venv), out["extension"]
    assert out["grouped"] == {"g": ["a", "b", "c"], "total": [10, 7, 4], "n": [3, 2, 1]}
    assert out["sql"] == {"g": ["a", "b", "c"], "top": [6, 5, 4]}
    assert out["pandas_sum"] == 21


def test_wheel_holds_the_package_and_its_record(wheel, build_dir):
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        modules = {f"flotilla/{p.name}" for p in (SOURCE / "python" / "flotilla").glob("*.py")}
        extensions = [n for n in names if n.startswith("flotilla/_flotilla.")]
        dist_info = f"flotilla-{flotilla.__version__}.dist-info"
        assert modules <= names and len(extensions) == 1
        assert names == modules | set(extensions) | {
            f"{dist_info}/{n}" for n in ("METADATA", "WHEEL", "RECORD")}
        # sql_cli.py is the `flotilla sql --runner dask` program's helper, not a command of its
        # own: the package declares no console scripts, so there is no entry_points.txt.
        metadata = z.read(f"{dist_info}/METADATA").decode().splitlines()
        assert "Name: flotilla" in metadata
        assert f"Version: {flotilla.__version__}" in metadata
        assert "Requires-Dist: numpy" in metadata
        python = f"cp{sys.version_info.major}{sys.version_info.minor}"
        tag = f"{python}-{python}-{sysconfig.get_platform().replace('-', '_').replace('.', '_')}"
        assert wheel.name == f"flotilla-{flotilla.__version__}-{tag}.whl"
        wheel_file = z.read(f"{dist_info}/WHEEL").decode().splitlines()
        assert "Root-Is-Purelib: false" in wheel_file and f"Tag: {tag}" in wheel_file

        record = [line.split(",") for line in z.read(f"{dist_info}/RECORD").decode().splitlines()]
        assert {r[0] for r in record} == names
        for name, digest, size in record:
            if name.endswith("/RECORD"):
                assert digest == size == ""
                continue
            data = z.read(name)
            expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            assert digest == "sha256=" + expected.decode() and int(size) == len(data), name

        extension = z.read(extensions[0])
    built = build_dir / "python" / extensions[0]
    assert len(extension) < built.stat().st_size
    (wheel.parent / "extension.so").write_bytes(extension)
    sections = subprocess.run(["readelf", "-S", "--wide", str(wheel.parent / "extension.so")],
                              capture_output=True, text=True, check=True).stdout
    assert ".debug_info" not in sections and ".text" in sections


def test_wheel_installs_into_a_new_venv(wheel, tmp_path):
    python = _new_venv(tmp_path)
    _pip_install(python, wheel, tmp_path)
    _check_installed(python, tmp_path)


def test_pip_install_of_the_source_reuses_the_build(build_dir, tmp_path):
    python = _new_venv(tmp_path)
    _pip_install(python, SOURCE, tmp_path, FLOTILLA_BUILD_DIR=str(build_dir))
    _check_installed(python, tmp_path)


def test_a_build_dir_that_is_not_one_is_named(tmp_path):
    done = subprocess.run([PYTHON, str(BACKEND), "--build-dir", str(tmp_path), "--out",
                           str(tmp_path / "out")], env=_clean_env(tmp_path), capture_output=True,
                          text=True)
    assert done.returncode == 1
    assert f"{tmp_path} is not a configured build directory" in done.stderr
    assert "make build" in done.stderr
