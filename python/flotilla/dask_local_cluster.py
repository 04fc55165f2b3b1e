"""A Dask cluster on this machine for the distributed runner: a scheduler and worker processes
(each under a nanny that restarts it when it dies) started as programs of their own.

Dask's LocalCluster spawns its worker processes with multiprocessing, which imports the user's
main module again in each of them: a script that calls `set_runner_dask()` at its top level
(how most scripts are written) would start clusters from inside its own workers. Processes
started as `python3 -m distributed.cli.dask_...` never import the user's script, so the same
call works from a script, `python -c`, a REPL or a notebook.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from typing import NamedTuple

# How long the scheduler may take to start and write its address.
_START_SECONDS = 60


# Loaded here, not in the forked child: loading a library there could wait forever on a lock
# another thread of this process held when it forked.
try:
    _prctl = ctypes.CDLL("libc.so.6", use_errno=True).prctl
except (OSError, AttributeError):
    _prctl = None


def _die_with_parent():
    """In the child before exec: SIGTERM when the thread that started it ends (the program,
    even killed), so no scheduler or worker outlives the program that owns it."""
    if _prctl is not None:
        _prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class _Process(NamedTuple):
    """A program the cluster started: what it is ("scheduler", "workers"), which also names its
    log file, and its process."""

    what: str
    popen: subprocess.Popen


# The allocators a worker process may run with. A worker makes and frees millions of small
# buffers (a shuffle of M map tasks into N partitions has M x N pieces); glibc's malloc spends a
# fifth of a worker's time consolidating and splitting its free lists then, and keeps the
# fragments: jemalloc, preloaded, measured 1.4-1.7x faster on bench/shuffle_scale.py.
ALLOCATORS = ("jemalloc", "system")


def allocator_library(allocator: str | None) -> str | None:
    """The library a worker process preloads for `allocator` ("jemalloc", "system"; None:
    jemalloc when installed, the system's otherwise), or None for the system's malloc."""
    if allocator not in (None, *ALLOCATORS):
        raise ValueError(f"worker_allocator must be one of {', '.join(ALLOCATORS)}, "
                         f"got {allocator!r}")
    if allocator == "system":
        return None
    library = ctypes.util.find_library("jemalloc")
    if library is None and allocator == "jemalloc":
        raise ValueError("worker_allocator='jemalloc' needs the jemalloc library: "
                         "apt-get install libjemalloc2")
    return library


class LocalProcessCluster:
    """`n_workers` Dask worker processes of `threads_per_worker` threads and their scheduler, every
    server of theirs (scheduler, workers, nannies, HTTP) listening on 127.0.0.1 only. `address`
    is the scheduler's; `close()` stops them all. The workers preload `preload` (a library,
    e.g. allocator_library's)."""

    def __init__(self, n_workers: int, threads_per_worker: int, resources: dict | None = None,
                 memory_limit: str | None = None, preload: str | None = None):
        self._dir = tempfile.mkdtemp(prefix="flotilla-dask-")
        self._procs: list[_Process] = []
        scheduler_file = os.path.join(self._dir, "scheduler.json")
        env = dict(os.environ)
        # The workers import this package (its actors) wherever it was found here.
        here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        env["PYTHONPATH"] = os.pathsep.join(p for p in [here, env.get("PYTHONPATH", "")] if p)
        try:
            self._start(env, [sys.executable, "-m", "distributed.cli.dask_scheduler",
                              "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                              # Dask's HTTP server (health, metrics) runs without the dashboard
                              # too, on every interface unless told: loopback, as the rest.
                              "--dashboard-address", "127.0.0.1:0",
                              "--scheduler-file", scheduler_file], "scheduler")
            self.address = self._wait_for_address(scheduler_file)
            worker = [sys.executable, "-m", "distributed.cli.dask_worker", self.address,
                      "--host", "127.0.0.1", "--nworkers", str(n_workers),
                      "--nthreads", str(threads_per_worker), "--no-dashboard",
                      "--dashboard-address", "127.0.0.1:0",
                      "--local-directory", self._dir,
                      # Workers whose scheduler is gone stop instead of waiting for it.
                      "--death-timeout", "30"]
            if resources:
                worker += ["--resources", " ".join(f"{k}={v}" for k, v in resources.items())]
            if memory_limit:
                worker += ["--memory-limit", str(memory_limit)]
            if preload:
                # Inherited by the nanny's worker processes, which are spawned, not forked.
                env["LD_PRELOAD"] = " ".join(p for p in [preload, env.get("LD_PRELOAD")] if p)
            self._start(env, worker, "workers")
        except BaseException:
            self.close()
            raise

    def _start(self, env, command, what):
        log = open(os.path.join(self._dir, f"{what}.log"), "wb")
        popen = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, stdout=log,
                                 stderr=subprocess.STDOUT, preexec_fn=_die_with_parent)
        self._procs.append(_Process(what, popen))
        log.close()

    def _wait_for_address(self, scheduler_file) -> str:
        deadline = time.monotonic() + _START_SECONDS
        while time.monotonic() < deadline:
            scheduler = self._procs[0]
            if scheduler.popen.poll() is not None:
                raise RuntimeError(f"the Dask scheduler ({sys.executable} -m "
                                   f"distributed.cli.dask_scheduler) exited with code "
                                   f"{scheduler.popen.returncode}: {self.log_tail(scheduler.what)}")
            try:
                with open(scheduler_file) as f:
                    return json.load(f)["address"]
            except (OSError, ValueError, KeyError):
                time.sleep(0.05)
        raise RuntimeError(f"the Dask scheduler did not start within {_START_SECONDS} s: "
                           f"{self.log_tail('scheduler')}")

    def log_tail(self, what: str, lines: int = 5) -> str:
        """The last lines a process wrote, for error messages."""
        try:
            with open(os.path.join(self._dir, f"{what}.log"), errors="replace") as f:
                return " | ".join(f.read().strip().splitlines()[-lines:]) or "(no output)"
        except OSError:
            return "(no output)"

    def exited(self) -> str | None:
        """What has exited already ('workers', 'scheduler'), or None while all run."""
        for p in self._procs:
            if p.popen.poll() is not None:
                return p.what
        return None

    def close(self):
        # Workers first (their nannies stop them), then the scheduler.
        for p in reversed(self._procs):
            if p.popen.poll() is None:
                p.popen.terminate()
            try:
                p.popen.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.popen.kill()
                p.popen.wait()
        self._procs = []
        shutil.rmtree(self._dir, ignore_errors=True)
