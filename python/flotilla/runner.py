"""Which runner executes queries: the embedded local engine (the default) or the distributed
runner on a Dask cluster (`set_runner_dask`, or FLOTILLA_RUNNER=dask[=ADDRESS] in the
environment, read when the first query runs).

Both answer the same calls, each taking an engine DataFrame and the query's UDFs (whose actor
pools start with the query): collect, count_rows, partitions, write, explain,
answer_subqueries and close.
"""

from __future__ import annotations

import importlib
import itertools
import os
import sys

# Query ids, one sequence for every runner of the process: one event log or trace may hold the
# queries of both.
query_ids = itertools.count(1)


class LocalRunner:
    """Queries run in this process on the embedded engine. With subscribers, an event log
    (`event_log=` or FLOTILLA_EVENT_LOG) or a trace (`trace=` or FLOTILLA_TRACE), collect,
    count_rows and partitions report the distributed runner's events: the query's pipelines
    as its nodes, each one task on worker "local" (flotilla.events)."""

    def __init__(self, event_log: str | None = None, trace: str | None = None):
        self.event_log = event_log or os.environ.get("FLOTILLA_EVENT_LOG")
        self.trace = trace or os.environ.get("FLOTILLA_TRACE")
        self.subscribers = []

    def subscribe(self, fn) -> None:
        """Calls `fn(event)` for every event of later queries (flotilla.events.SCHEMA)."""
        self.subscribers.append(fn)

    def _observed(self) -> bool:
        return bool(self.subscribers or self.event_log or self.trace)

    def instances_for(self, resources: dict) -> int:
        """How many instances of a class UDF asking for `resources` (num_cpus, default 1) this
        process holds at once: its cores divided by the request. (Its GPUs are not known: a
        request for GPUs gets one instance.)"""
        if resources.get("num_gpus"):
            return 1
        return max(1, int((os.cpu_count() or 1) // (resources.get("num_cpus") or 1)))

    def _run_with_events(self, df) -> list:
        from . import _flotilla as _ext
        return _ext.run_local_with_events(df, next(query_ids), self.event_log, self.trace,
                                          list(self.subscribers))

    def collect(self, df, udfs=()):
        """The rows of the engine DataFrame `df`, as one batch."""
        _start_pools(udfs)
        if self._observed():
            from . import _flotilla as _ext
            return _ext.concat_batches(self._run_with_events(df))
        return df.collect()

    def count_rows(self, df, udfs=()) -> int:
        _start_pools(udfs)
        if self._observed():
            return sum(len(b) for b in self._run_with_events(df))
        return df.count_rows()

    def partitions(self, df, udfs=()):
        """The result partitions of `df` as batches, in order."""
        _start_pools(udfs)
        if self._observed():
            return self._run_with_events(df)
        return df.partitions()

    def write(self, df, udfs, root: str, fmt: str, partition_by: list, compression):
        """Writes the rows of `df` as files under `root`; returns a batch listing the files."""
        _start_pools(udfs)
        return df.write(root, fmt, partition_by, compression)

    def explain(self, df, udfs=(), analyze: bool = False) -> str:
        """The plan as built and as optimized (with analyze, run, with its runtime statistics)."""
        if analyze:
            _start_pools(udfs)
        return df.explain(analyze)

    def answer_subqueries(self, session, udfs=()) -> None:
        """Nothing to do: a SQL session answers its planner's subqueries on this engine itself."""

    def close(self) -> None:
        """Nothing to stop."""


def _start_pools(udfs) -> None:
    # Every instance of the query's actor pools is created before the query starts, not when its
    # first batch arrives. (The distributed runner starts them on the cluster.)
    for u in udfs:
        if u.pool is not None:
            u.pool.start()


_runner = LocalRunner()
_from_env_checked = False


def current():
    """The runner queries run on: a LocalRunner unless a distributed one was set."""
    global _from_env_checked
    if not _from_env_checked:
        _from_env_checked = True
        spec = os.environ.get("FLOTILLA_RUNNER", "local")
        if spec == "dask" or spec.startswith("dask="):
            set_runner_dask(address=spec[5:] or None)
        elif spec.startswith("session="):
            set_runner_session(spec[8:])
        elif spec != "local":
            raise ValueError(f"FLOTILLA_RUNNER={spec!r}: expected 'local', 'dask', "
                             f"'dask=ADDRESS' or 'session=PATH'")
    return _runner


def subscribe(fn) -> None:
    """Calls `fn(event)` for every event of the current runner's later queries, on any runner
    (a session client: its own queries'; flotilla.events has the schema)."""
    current().subscribe(fn)


def set_runner_local() -> None:
    """Queries run in this process on the local engine (the default)."""
    global _runner, _from_env_checked
    _from_env_checked = True
    _runner.close()
    _runner = LocalRunner()


def set_runner_dask(address: str | None = None, n_workers: int | None = None, **options):
    """Queries run on a Dask cluster: the scheduler at `address`, or a new local cluster of
    `n_workers` worker processes (default 2) on this machine, started as programs of their
    own (dask_local_cluster.py), so a script may call this at its top level. Returns the runner."""
    global _runner, _from_env_checked
    try:
        importlib.import_module("distributed")  # first: the error below says how to install it
    except ImportError:
        raise ModuleNotFoundError(
            f"the Dask runner needs Dask's 'distributed' package, which this interpreter "
            f"({sys.executable}) cannot import: run with Debian's /usr/bin/python3 and "
            f"`apt-get install python3-distributed`") from None
    # Imported only now: the distributed runner needs packages the local one does not.
    from .dask_runner import DaskRunner

    _from_env_checked = True
    _runner.close()
    _runner = DaskRunner(address=address, n_workers=n_workers, **options)
    return _runner


def set_runner_session(path: str):
    """Queries run on the scheduler and workers of a DaskRunner another process serves
    (`runner.serve(path)`), ordered by age with its queries and every other client's.
    Returns the runner."""
    global _runner, _from_env_checked
    from .session_server import SessionClient

    client = SessionClient(path)  # fails here when the session is not there
    _from_env_checked = True
    _runner.close()
    _runner = client
    return _runner
