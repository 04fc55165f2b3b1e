"""Which runner executes queries: the embedded local engine (the default) or the distributed
runner on a Dask cluster (`set_runner_dask`, or FLOTILLA_RUNNER=dask[=ADDRESS] in the
environment, read when the first query runs)."""

from __future__ import annotations

import os

_runner = None
_from_env_checked = False


def current():
    """The distributed runner in use, or None for the local engine."""
    global _from_env_checked
    if _runner is None and not _from_env_checked:
        _from_env_checked = True
        spec = os.environ.get("FLOTILLA_RUNNER", "local")
        if spec == "dask" or spec.startswith("dask="):
            set_runner_dask(address=spec[5:] or None)
        elif spec != "local":
            raise ValueError(f"FLOTILLA_RUNNER={spec!r}: expected 'local', 'dask' or 'dask=ADDRESS'")
    return _runner


def set_runner_local() -> None:
    """Queries run in this process on the local engine (the default)."""
    global _runner, _from_env_checked
    _from_env_checked = True
    if _runner is not None:
        _runner.close()
    _runner = None


def set_runner_dask(address: str | None = None, n_workers: int | None = None, **options):
    """Queries run on a Dask cluster: the scheduler at `address`, or a new local cluster of
    `n_workers` worker processes (default 2) on this machine, started as programs of their
    own (dask_local_cluster.py), so a script may call this at its top level. Returns the runner."""
    global _runner, _from_env_checked
    try:
        import distributed  # noqa: F401
    except ImportError:
        import sys

        raise ModuleNotFoundError(
            f"the Dask runner needs Dask's 'distributed' package, which this interpreter "
            f"({sys.executable}) cannot import: run with Debian's /usr/bin/python3 and "
            f"`apt-get install python3-distributed`") from None
    from .dask_runner import DaskRunner

    _from_env_checked = True
    if _runner is not None:
        _runner.close()
    _runner = DaskRunner(address=address, n_workers=n_workers, **options)
    return _runner
