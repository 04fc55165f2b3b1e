"""The distributed runner on Dask `distributed`.

Dask deploys and supervises the worker processes; Flotilla brings the engine and the data plane.
Each Dask worker hosts one `_FlotillaWorker` actor owning a C++ WorkerRuntime (local engine,
partition store, Arrow Flight server), running as many tasks at once as the worker has threads.
The driver and the loop that runs queries are C++ (QueryDrivers in one ClusterSession per
runner, the loop the in-process cluster runs too); tasks go straight to the workers' Flight
servers (FlightTaskBackend) and come back as partition references. This module is the rest of
the backend: it starts the actors, says which workers are there, and carries samples and
releases. Queries run from several threads at once share the session's scheduler.

A worker that dies (its actor calls fail, or it leaves the scheduler) is reported to the loop,
which has the driver re-run what was lost; a replacement worker the nanny starts joins the query.
"""

from __future__ import annotations

import atexit
import os
import secrets
import sys
import threading
import time
from typing import Any, NamedTuple
from urllib.parse import urlparse

import cloudpickle

# Dask's own warnings about worker processes it stops and restarts are not the query's news.
os.environ.setdefault("DASK_LOGGING__DISTRIBUTED", "critical")

from . import _flotilla as _ext
from . import dashboard as _dashboard
from .dask_actor_pools import ActorPools
from .dask_local_cluster import LocalProcessCluster, allocator_library
from .query_logs import QueryLogFiles
from .runner import query_ids
from .udf import _PoolMember


# A scheduler that cannot be reached within this many seconds is reported, not retried for long.
_CONNECT_SECONDS = 5
# New local workers start within this many seconds (importing the engine included).
_WORKERS_START_SECONDS = 60


def _flight_host(dask_address: str | None = None) -> str:
    """Where a worker's Flight server listens and what it advertises: FLOTILLA_FLIGHT_HOST when
    set, else the host the Dask worker itself is reached at (so workers on other machines can
    fetch from it), else loopback."""
    configured = os.environ.get("FLOTILLA_FLIGHT_HOST")
    if configured:
        return configured
    if dask_address:
        host = urlparse(dask_address).hostname
        if host:
            return f"[{host}]" if ":" in host else host  # an IPv6 address in gRPC's form
    return "127.0.0.1"


class _WorkerInfo(NamedTuple):
    """What a worker's actor says of itself."""

    id: str
    flight_address: str
    pid: int
    cpus: int  # tasks it runs at once: its Dask worker's threads
    memory_bytes: int  # its Dask worker's memory limit (0: none)
    dask_address: str = ""  # its Dask worker ("": not in one)


class _UdfFunction(NamedTuple):
    """A UDF as a worker registers it: the engine finds it by name."""

    name: str
    fn: Any
    return_dtype: Any


class _FlotillaWorker:
    """Lives on a Dask worker: one WorkerRuntime, the query's UDFs registered on it."""

    def __init__(self, token: str, worker_id: str, pool_member: bytes | None = None,
                 store_memory_bytes: int | None = None):
        # The engine uses the threads Dask gave this worker, not every core of the machine:
        # workers sharing a machine would otherwise oversubscribe it.
        host = _flight_host()
        self.cpus = 1
        self.memory_bytes = 0
        self.dask_address = ""
        try:
            from distributed import get_worker

            worker = get_worker()
            state = getattr(worker, "state", None)
            threads = state.nthreads if state is not None else worker.nthreads
            _ext.set_execution_config(threads, None, None, None, None)
            host = _flight_host(worker.address)
            self.cpus = max(1, int(threads))
            self.memory_bytes = int(getattr(worker, "memory_limit", None) or 0)
            self.dask_address = worker.address
        except Exception:  # noqa: BLE001 - outside a Dask worker the process default stays
            pass
        _ext.set_log_tag(worker_id)
        store = {} if store_memory_bytes is None else {"store_memory_bytes": store_memory_bytes}
        self.runtime = _ext.WorkerRuntime(worker_id, token, host, **store)
        self.instance = None
        if pool_member is not None:
            # An actor-pool member: the class is instantiated once, here, when the pool starts.
            member: _PoolMember = cloudpickle.loads(pool_member)
            self.instance = member.instance()
            self.bind(pool_member)

    def bind(self, pool_member: bytes):
        """A pool member's UDF (of this query or a later one) registered on this actor's
        instance."""
        member: _PoolMember = cloudpickle.loads(pool_member)
        self.runtime.register_udf(member.udf_name, member.batch_function(self.instance),
                                  member.return_dtype)

    def info(self) -> _WorkerInfo:
        return _WorkerInfo(self.runtime.id, self.runtime.address, os.getpid(), self.cpus,
                           self.memory_bytes, self.dask_address)

    def register_udfs(self, payload: bytes):
        udfs: list[_UdfFunction] = cloudpickle.loads(payload)
        for u in udfs:
            self.runtime.register_udf(u.name, u.fn, u.return_dtype)

    def run_task(self, task: bytes) -> bytes:
        # (Tasks go to the runtime's Flight server; this is for a worker whose address the
        # session does not know.)
        return self.runtime.run_task(task)

    async def cancel_task(self, task_id: int):
        # A coroutine runs on the worker's event loop, not behind run_task on the actor's thread.
        self.runtime.cancel_task(task_id)

    def drop_query(self, query_id: int):
        self.runtime.drop_query(query_id)

    async def drop_outputs(self, keys: list):
        # On the event loop, like cancel_task: not queued behind a running task.
        self.runtime.drop_task_outputs(keys)

    def stats(self) -> dict:
        return self.runtime.stats()

    async def sample(self) -> bytes:
        # On the event loop: answered while a task runs on the actor's thread.
        return self.runtime.sample()


def _env_int(name: str) -> int | None:
    value = os.environ.get(name)
    return int(value) if value else None


def _by_value(fn):
    """Functions from the caller's own modules travel by value: workers cannot import them."""
    module = sys.modules.get(getattr(fn, "__module__", None) or "")
    if module is not None and module.__name__ not in ("__main__",) and \
            not module.__name__.startswith(("flotilla", "numpy", "pandas")):
        try:
            cloudpickle.register_pickle_by_value(module)
        except (ValueError, AttributeError):
            pass


class _Worker(NamedTuple):
    """A Dask worker as the runner uses it: its actor and what the actor said of itself."""

    actor: Any
    id: str
    flight_address: str
    pid: int
    cpus: int
    memory_bytes: int


def _memory_capacity(w: _Worker) -> int:
    """The memory a worker offers the scheduler: its Dask memory limit, or (none) any amount."""
    return w.memory_bytes or (1 << 62)


class _WriteTarget(NamedTuple):
    """Where and how a query's result is written, in place of being returned."""

    root: str
    format: str
    partition_by: list
    compression: str | None


class DaskRunner:
    def __init__(self, address: str | None = None, n_workers: int | None = None,
                 event_log: str | None = None, progress: bool | None = None,
                 scan_task_min_bytes: int | None = None, scan_task_max_bytes: int | None = None,
                 threads_per_worker: int | None = None, resources: dict | None = None,
                 broadcast_join_bytes: int | None = None, broadcast_max_bytes: int | None = None,
                 gather_sort_rows: int | None = None, shuffle_algorithm: str | None = None,
                 shuffle_compression: str | None = None, store_memory_bytes: int | None = None,
                 memory_limit: str | None = None, trace: str | None = None,
                 dashboard=None, log_dir: str | None = None, task_cpus: float = 1,
                 task_memory_bytes: int = 0, actor_idle_seconds: float = 60,
                 reduce_task_bytes: int | None = None, worker_allocator: str | None = None):
        from distributed import Client

        if task_cpus <= 0 or task_memory_bytes < 0:
            raise ValueError(f"task_cpus must be positive and task_memory_bytes not negative, "
                             f"got {task_cpus} and {task_memory_bytes}")
        # The malloc of the worker processes a local cluster starts ("jemalloc", "system";
        # default jemalloc when installed).
        preload = allocator_library(worker_allocator or os.environ.get("FLOTILLA_WORKER_ALLOCATOR"))
        self.cluster = None
        self.client = None
        self.server = None  # serving other processes (serve)
        self.dashboard = None  # started at the first query
        try:
            if address:
                self.client = Client(address, timeout=_CONNECT_SECONDS)
            else:
                # `resources` (e.g. {"GPU": 1}) is what each worker offers actor pools asking for it.
                n_workers = n_workers or 2
                # The machine's cores shared among the workers (each worker's engine uses its share).
                threads_per_worker = threads_per_worker or max(1, (os.cpu_count() or 1) // n_workers)
                # `memory_limit` (e.g. "4GiB"; default: Dask's, the machine's memory shared):
                # a worker process growing past 95% of it is killed by its nanny and restarted,
                # and its query recovers as from any lost worker.
                self.cluster = LocalProcessCluster(n_workers, threads_per_worker, resources,
                                                   memory_limit, preload)
                atexit.register(self.close)  # stopped in order, not by the parent's death
                self.client = Client(self.cluster.address, timeout=_CONNECT_SECONDS)
                self._wait_for_workers(n_workers)
        except Exception as e:
            self.close()
            what = f"reach the Dask scheduler at {address}" if address else "start a local Dask cluster"
            raise RuntimeError(f"cannot {what}: {e}") from None
        self.token = secrets.token_hex(16)
        self.event_log = event_log or os.environ.get("FLOTILLA_EVENT_LOG")
        # Every query's tasks appended to a Chrome trace (chrome://tracing, Perfetto).
        self.trace = trace or os.environ.get("FLOTILLA_TRACE")
        self.progress = -1 if progress is None else int(bool(progress))
        # Unset: the driver's defaults (DriverOptions in query_driver.h).
        self.scan_task_min_bytes = scan_task_min_bytes or _env_int("FLOTILLA_SCAN_TASK_MIN_BYTES")
        self.scan_task_max_bytes = scan_task_max_bytes or _env_int("FLOTILLA_SCAN_TASK_MAX_BYTES")
        # A join side estimated under this many bytes is broadcast (0: joins always shuffle).
        self.broadcast_join_bytes = broadcast_join_bytes
        # A broadcast side found larger than this once computed is joined by shuffle instead.
        self.broadcast_max_bytes = broadcast_max_bytes
        # A sort of at most this many rows (estimated) runs in one task (0: always range split).
        self.gather_sort_rows = gather_sort_rows
        # "flight" (map outputs encoded once, one file per map task when spilled, sent as stored)
        # or "memory" (outputs kept as batches, encoded per fetch); the IPC codec of "flight".
        self.shuffle_algorithm = shuffle_algorithm or os.environ.get("FLOTILLA_SHUFFLE_ALGORITHM")
        self.shuffle_compression = shuffle_compression
        self.reduce_task_bytes = reduce_task_bytes
        # Task outputs a worker keeps in memory before spilling the oldest (None: 2 GiB).
        self.store_memory_bytes = store_memory_bytes or _env_int("FLOTILLA_STORE_MEMORY_BYTES")
        # What each task asks of a worker: a worker (offering its threads as cpus and its memory
        # limit) runs as many tasks at once as fit.
        self.task_cpus = float(task_cpus)
        self.task_memory_bytes = int(task_memory_bytes)
        self.subscribers = []  # callables receiving every task event as a dict
        # Each query's log lines, from every worker, in DIR/query-<id>.log.
        log_dir = log_dir or os.environ.get("FLOTILLA_LOG_DIR")
        self.query_logs = QueryLogFiles(log_dir) if log_dir else None
        # The live dashboard (dashboard.py): on 127.0.0.1:8790 unless turned off; started, and
        # its address printed, at the first query.
        setting = dashboard if dashboard is not None else os.environ.get("FLOTILLA_DASHBOARD")
        self._dashboard_address = _dashboard.parse_address(setting)
        # Class UDFs' actors, kept this long after a query for a later one with the same class.
        self.actor_pools = ActorPools(self._start_pool_actor, self._spread, actor_idle_seconds)
        self.workers: dict[str, _Worker] = {}  # by Dask worker address
        self._dropped = {}  # Dask worker address -> when its calls failed
        # The workers change from the session's thread (its backend's wait) and the callers'.
        self._lock = threading.RLock()
        self._refresh_lock = threading.Lock()
        # One session for every query of this runner: one thread, one scheduler.
        self.backend = _DaskBackend(self)
        self.session = _ext.ClusterSession(self.backend, self.token)
        self._sync_workers()
        self.backend.start()

    # --- workers --------------------------------------------------------------------------------
    def _refresh_workers(self):
        """Starts an actor on every Dask worker that has none; forgets departed workers.
        Returns (added workers, removed worker ids)."""
        # One refresh at a time; the workers' table is locked only to read and change it, not
        # while an actor starts (the session's thread may need it meanwhile).
        with self._refresh_lock:
            live = set(self.client.scheduler_info()["workers"])
            now = time.monotonic()
            with self._lock:
                removed = [self.workers.pop(a).id for a in list(self.workers) if a not in live]
                # (A worker whose calls failed moments ago: the scheduler has not noticed yet.)
                new = [a for a in sorted(live - set(self.workers))
                       if now - self._dropped.get(a, -1e9) >= 30]
            added = []
            for address in new:
                worker_id = f"dask-{address.rsplit(':', 1)[-1]}-{secrets.token_hex(2)}"
                try:
                    actor = self.client.submit(_FlotillaWorker, self.token, worker_id, None,
                                               self.store_memory_bytes, actor=True,
                                               workers=[address], allow_other_workers=False,
                                               pure=False).result(timeout=60)
                    info = actor.info().result(timeout=60)
                except Exception:  # noqa: BLE001 - a worker that cannot host an actor is left out
                    with self._lock:
                        self._dropped[address] = time.monotonic()
                    continue
                w = _Worker(actor, info.id, info.flight_address, info.pid, info.cpus,
                            info.memory_bytes)
                with self._lock:
                    self.workers[address] = w
                added.append(w)
            return added, removed

    def _sync_workers(self):
        """Outside of the session's loop (no query running may be the reason): the session
        learns of workers that joined or left since it last looked."""
        added, removed = self._refresh_workers()
        for wid in removed:
            self.backend.forget(wid)
            self.session.remove_worker(wid)
        for w in added:
            if self.backend.add(w):
                self.session.add_worker(w.id, float(w.cpus), _memory_capacity(w))

    def _slots(self) -> int:
        """Tasks the cluster runs at once."""
        with self._lock:
            return max(1, sum(int(w.cpus // self.task_cpus) for w in self.workers.values()))

    def instances_for(self, resources: dict) -> int:
        """How many instances of a class UDF asking for `resources` (num_cpus, default 1;
        num_gpus; memory_bytes) the cluster's workers hold at once, each worker counted by what
        it offers: its threads, its Dask GPU resources, its memory limit."""
        cpus = resources.get("num_cpus") or 1
        gpus = resources.get("num_gpus") or 0
        memory = resources.get("memory_bytes") or 0
        offered = self.client.scheduler_info()["workers"]
        total = 0
        with self._lock:
            for address, w in self.workers.items():
                fit = int(w.cpus // cpus)
                if gpus:
                    fit = min(fit, int(offered.get(address, {}).get("resources", {}).get("GPU", 0) // gpus))
                if memory and w.memory_bytes:
                    fit = min(fit, int(w.memory_bytes // memory))
                total += fit
        return max(1, total)

    def cancel(self, query_id: int) -> None:
        """Stops the query `query_id` (running from another thread): its tasks only; its call
        raises a Cancelled error. Query ids come with every event (flotilla.events)."""
        self.session.cancel(query_id, "cancelled by the user")

    def serve(self, path: str, host: str = "127.0.0.1", port: int = 0) -> str:
        """Lets other processes run their queries on this runner's scheduler and workers:
        `flotilla.set_runner_session(path)` in another process (session_server.py). `path` is
        written with the address and the token (readable by its owner only). Returns it."""
        from .session_server import SessionServer

        if self.server is not None:
            raise RuntimeError(f"this runner is served already, at {self.server.path}")
        self.server = SessionServer(self, path, host, port)
        return path

    def subscribe(self, fn) -> None:
        """Calls `fn(event)` for every event of later queries, as a dict: flotilla.events has
        the schema (the keys of each kind, the order they come in) and checks for it."""
        self.subscribers.append(fn)

    def _default_compression(self) -> str:
        """lz4 when shuffled bytes cross a network; none when every worker is on this machine
        (loopback copies faster than lz4 compresses)."""
        hosts = {w.flight_address.rsplit(":", 1)[0] for w in self.workers.values()}
        local = all(h.startswith("127.") or h in ("localhost", "[::1]") for h in hosts)
        return "none" if local else "lz4"

    def worker_stats(self) -> dict:
        """Dask worker address -> its store and data-plane figures (WorkerRuntime.stats)."""
        return {a: w.actor.stats().result(timeout=60) for a, w in self.workers.items()}

    def worker_pids(self) -> dict:
        """Dask worker address -> the pid of its process (tests kill one)."""
        return {a: w.pid for a, w in self.workers.items()}

    def _wait_for_workers(self, n: int):
        deadline = time.monotonic() + _WORKERS_START_SECONDS
        while len(self.client.scheduler_info()["workers"]) < n:
            gone = self.cluster.exited()
            if gone is not None:
                raise RuntimeError(f"the {gone} exited: {self.cluster.log_tail(gone)}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"{n} workers did not join within {_WORKERS_START_SECONDS} s: "
                                   f"{self.cluster.log_tail('workers')}")
            time.sleep(0.05)

    def close(self):
        if getattr(self, "server", None) is not None:
            self.server.close()
            self.server = None
        session = getattr(self, "session", None)
        if session is not None:
            session.close()  # what still runs is cancelled first
            self.backend.stop()
        if self.dashboard is not None:
            self.dashboard.close()
            self.dashboard = None
        if hasattr(self, "actor_pools"):
            self.actor_pools.release_idle()
        if self.client is not None:
            self.client.close()
            self.client = None
        if self.cluster is not None:
            self.cluster.close()
            self.cluster = None

    # --- queries --------------------------------------------------------------------------------
    def count_rows(self, df, udfs=()) -> int:
        """The number of rows `df` has, from the result partitions' metadata: no rows travel."""
        return self.run(df, udfs, count_only=True)

    def explain(self, df, udfs=(), analyze: bool = False) -> str:
        """The plan as built and as optimized, then the pipeline nodes it runs as on the
        cluster; with analyze, the query runs on the cluster and each pipeline node shows its
        tasks' operator statistics, summed."""
        text = df.explain(False)
        try:
            nodes = self._pipeline_nodes(df)
        except Exception as e:  # noqa: BLE001 - an operator not distributed yet: say which
            nodes = f"{e}\n"
        text += "\n== Distributed plan (pipeline nodes) ==\n" + nodes
        if analyze:
            analysis = []
            self.run(df, udfs, count_only=True, analysis=analysis)
            text += (f"== Runtime statistics (cluster of {len(self.workers)} workers; per "
                     "pipeline node, its operators summed over its tasks) ==\n" + analysis[1])
        return text

    def analyze(self, df, udfs=()) -> list:
        """Runs the engine DataFrame `df` on the cluster; per pipeline node (topological order)
        what its tasks measured: {node, name, tasks, attempts, rows, seconds, output_bytes,
        spilled_bytes, read_local_bytes, read_remote_bytes, operators: [{name,
        detail, depth, rows_in, rows_out, bytes_in, bytes_out, cpu_seconds, peak_memory,
        spilled_bytes, wall_seconds, tasks}]}."""
        analysis = []
        self.run(df, udfs, count_only=True, analysis=analysis)
        return analysis[0]

    def _pipeline_nodes(self, df) -> str:
        """The pipeline nodes the engine DataFrame `df` runs as here, one per line."""
        return _ext.explain_distributed(df, self.broadcast_join_bytes, self.gather_sort_rows,
                                        self.scan_task_min_bytes, self.scan_task_max_bytes,
                                        self._slots())

    def collect(self, df, udfs=()):
        """The rows of the engine DataFrame `df`, as one batch."""
        return _ext.concat_batches(self.run(df, udfs))

    def partitions(self, df, udfs=()):
        """The result partitions of `df` as batches, in order."""
        return self.run(df, udfs)

    def write(self, df, udfs, root: str, fmt: str, partition_by: list, compression,
              query_id: int | None = None):
        """Writes the rows of `df` as files under `root`, each worker its own; returns a batch
        listing the files."""
        return _ext.concat_batches(self.run(df, udfs, write=_WriteTarget(root, fmt, partition_by,
                                                                         compression),
                                            query_id=query_id))

    def answer_subqueries(self, session, udfs=()) -> None:
        """Has the planner of SQL session `session` run the plans it needs answered (uncorrelated
        scalar subqueries) on the cluster."""
        session.set_plan_runner(lambda plan: self.collect(plan, udfs))

    def run(self, df, udfs=(), write: _WriteTarget | None = None, on_result=None,
            count_only=False, analysis: list | None = None, query_id: int | None = None):
        """Runs the engine DataFrame `df`; returns its result partitions as batches, in order
        (with count_only, their number of rows). `analysis`, a list, receives what the tasks
        measured per pipeline node, as dicts and as text. `query_id`: one of
        runner.query_ids taken already (to cancel the query from elsewhere)."""
        query_id = next(query_ids) if query_id is None else query_id
        kw = dict(event_log=self.event_log, trace=self.trace, progress=self.progress,
                  subscribers=list(self.subscribers))
        if self.scan_task_min_bytes:
            kw.update(scan_task_min_bytes=self.scan_task_min_bytes)
        if self.scan_task_max_bytes:
            kw.update(scan_task_max_bytes=self.scan_task_max_bytes)
        if self.broadcast_join_bytes is not None:
            kw.update(broadcast_join_bytes=self.broadcast_join_bytes)
        if self.broadcast_max_bytes is not None:
            kw.update(broadcast_max_bytes=self.broadcast_max_bytes)
        if self.gather_sort_rows is not None:
            kw.update(gather_sort_rows=self.gather_sort_rows)
        if self.shuffle_algorithm:
            kw.update(shuffle_algorithm=self.shuffle_algorithm)
        kw.update(shuffle_compression=self.shuffle_compression or self._default_compression())
        if self.reduce_task_bytes is not None:
            kw.update(reduce_task_bytes=self.reduce_task_bytes)
        if write is not None:
            kw.update(write_root=write.root, format=write.format,
                      partition_by=list(write.partition_by), compression=write.compression)
        self._sync_workers()
        with self._lock:
            offered = [(w.cpus, w.memory_bytes) for w in self.workers.values()]
        if offered and not any(c >= self.task_cpus and (not self.task_memory_bytes or not m or
                                                        m >= self.task_memory_bytes)
                               for c, m in offered):
            raise ValueError(f"no worker can run a task of task_cpus={self.task_cpus} and "
                             f"task_memory_bytes={self.task_memory_bytes}: the workers offer "
                             f"(threads, memory bytes) {offered}")
        with self._lock:
            if self._dashboard_address is not None and self.dashboard is None:
                try:
                    self.dashboard = _dashboard.Dashboard(*self._dashboard_address)
                    print(f"flotilla: dashboard at {self.dashboard.url}", file=sys.stderr,
                          flush=True)
                except OSError as e:
                    # A page to watch is not worth failing the query for.
                    print(f"flotilla: no dashboard: {e}", file=sys.stderr, flush=True)
                    self._dashboard_address = None
        if self.dashboard is not None:
            kw["subscribers"].append(self.dashboard)
        if self.query_logs is not None:
            kw["subscribers"].append(self.query_logs)
        # Every task slot of the cluster has a source task at least.
        driver = _ext.QueryDriver(df, query_id, min_source_tasks=self._slots(),
                                  session=self.session, task_cpus=self.task_cpus,
                                  task_memory_bytes=self.task_memory_bytes, **kw)
        plain = []
        pools = {}
        for u in udfs:
            if u.pool is None:
                _by_value(u.fn)
                plain.append(_UdfFunction(u.name, u.batch_function(), u.return_dtype))
            else:
                _by_value(u.pool.cls)
                pools[u.name] = u
        plain_payload = cloudpickle.dumps(plain) if plain else None
        if plain_payload:
            self.backend.register_udfs(query_id, plain_payload)
        pool_actors = []
        ok = False
        try:
            self._start_pools(driver, pools, pool_actors, plain_payload)
            batches = self.session.run(driver, self.token, fetch_results=not count_only,
                                       on_result=on_result)
            ok = True
        finally:
            self.backend.query_ended(query_id, pool_actors, ok)
        if analysis is not None:
            analysis.extend([driver.analysis(), driver.analysis_text()])
        if count_only:
            return driver.result_rows()
        return batches or [driver.empty_result()]

    def _start_pools(self, driver, pools, actors, plain_payload):
        """Every actor of every pool the query needs, idle ones of an earlier query first (see
        dask_actor_pools), each joined to the query as a worker of its pool; they are appended
        to `actors`. The query's plain UDFs are registered on them too: the operators after the
        pool's UDF run in its tasks."""
        for name, size in driver.pools():
            u = pools[name]
            resources = getattr(u.pool, "resources", {})
            request = self._dask_resources(name, resources, size)
            cpus = float(resources.get("num_cpus") or 1)
            for a in self.actor_pools.take(u, size, request):
                actors.append(a)
                if plain_payload:
                    a.actor.register_udfs(plain_payload).result(timeout=60)
                # One task at a time (one instance), counted against the threads of the worker
                # whose process it shares.
                with self._lock:
                    host = self.workers.get(a.info.dask_address)
                driver.add_worker(a.wid, cpus, name, host=host.id if host is not None else "")
                self.backend.actors[a.wid] = a.actor
                self.session.set_address(a.wid, a.info.flight_address)

    def _start_pool_actor(self, wid: str, member: bytes, resources: dict | None,
                          place: str | None):
        where = {} if place is None else {"workers": [place], "allow_other_workers": True}
        return self.client.submit(_FlotillaWorker, self.token, wid, member, actor=True, pure=False,
                                  resources=resources, **where)

    def _spread(self, n: int, taken: list) -> list:
        """Dask workers for n more actors of a pool whose others are on `taken`: each to the
        worker with the fewest of them per thread."""
        with self._lock:
            threads = {a: w.cpus for a, w in self.workers.items()}
        if not threads:
            return [None] * n
        count = {a: sum(t == a for t in taken) for a in threads}
        out = []
        for _ in range(n):
            a = min(sorted(threads), key=lambda a: count[a] / threads[a])
            count[a] += 1
            out.append(a)
        return out

    def _dask_resources(self, pool: str, resources: dict, size: int):
        """A pool's per-actor request as Dask worker resources (gpus as "GPU"). Refused at once
        when the cluster cannot place every actor: Dask would wait for ever."""
        gpus = resources.get("num_gpus") or 0
        if not gpus:
            return None
        offered = [w.get("resources", {}).get("GPU", 0)
                   for w in self.client.scheduler_info()["workers"].values()]
        fits = sum(int(o // gpus) for o in offered)
        if fits < size:
            raise RuntimeError(f"actor pool '{pool}': {size} actors of num_gpus={gpus} need GPU "
                               f"resources the Dask workers do not offer (they offer {offered})")
        return {"GPU": gpus}


class _Pending(NamedTuple):
    """A task sent to a worker, until its call returns."""

    worker: str
    future: Any


class _DaskBackend:
    """The cluster session's backend (python/ext/distributed.cc, PyBackend): tasks as actor
    calls, worker changes from the Dask scheduler. One per runner, called by the session's
    thread (and by callers' threads adding workers and UDFs)."""

    def __init__(self, runner):
        self.runner = runner
        self.actors = {}  # worker id -> actor (pools' actors while their query runs)
        self.udf_payloads = {}  # query id -> its plain UDFs, registered on workers that join
        self.pending: dict[int, _Pending] = {}  # by task id
        self.samples = {}  # worker id -> the future of its resource sample
        self.lost = []  # found gone since the last wait
        self.joined = []  # (id, cpus, pool, memory) found since the last wait
        self.changes = threading.Lock()  # lost and joined: the watcher's thread appends
        # The cluster's workers are looked at every half second by a thread of their own: a
        # new worker's actor takes a while to start, and the session's loop does not wait for it.
        self.stopped = threading.Event()
        self.watcher = threading.Thread(target=self._watch, name="flotilla-workers", daemon=True)
        # Set on the client's event loop when a task's call returns (and by interrupt): wait
        # sleeps until then instead of polling (the driver shares the machine with the workers).
        self.ready = threading.Event()
        self.interrupted = False

    # --- what the runner tells it ---------------------------------------------------------------
    def add(self, w: _Worker) -> bool:
        """A new worker's actor, with the UDFs of the queries running registered; False when
        it is gone again already. Its tasks go to its Flight server."""
        try:
            for payload in list(self.udf_payloads.values()):
                w.actor.register_udfs(payload).result(timeout=60)
        except Exception:  # noqa: BLE001 - gone again as it came: it does not join
            self._drop(w.id)
            return False
        self.actors[w.id] = w.actor
        self.runner.session.set_address(w.id, w.flight_address)
        return True

    def forget(self, wid):
        """The worker left, or the session wrote it off (a call to it failed): if its Dask
        worker lives on, a later refresh starts a new actor there, a new worker."""
        self._drop(wid)

    def register_udfs(self, query_id, payload):
        """A query's plain UDFs, on every worker (and on those joining while it runs)."""
        self.udf_payloads[query_id] = payload
        with self.runner._lock:
            workers = list(self.runner.workers.values())
        for w in workers:
            try:
                w.actor.register_udfs(payload).result(timeout=60)
            except Exception:  # noqa: BLE001 - a worker gone: the session hears of it
                pass

    def query_ended(self, query_id, pool_actors, ok):
        """Drops what the query left: its UDFs, its stored outputs; its pools' actors are kept
        for a later query if it ended well."""
        self.udf_payloads.pop(query_id, None)
        for a in pool_actors:
            self.actors.pop(a.wid, None)
        self.runner.actor_pools.give_back(pool_actors, query_id, reusable=ok)
        with self.runner._lock:
            workers = list(self.runner.workers.values())
        for w in workers:
            try:
                w.actor.drop_query(query_id).result()
            except Exception:  # noqa: BLE001 - a dead worker has nothing to drop
                pass

    # --- the session's calls --------------------------------------------------------------------
    def submit(self, worker, task_id, task):
        actor = self.actors.get(worker)
        if actor is None:
            return False
        try:
            fut = actor.run_task(task)
        except Exception:  # noqa: BLE001 - Dask already knows the actor's worker is gone
            self._drop(worker)
            return False
        self.pending[task_id] = _Pending(worker, fut)

        async def notify():
            try:
                await fut
            except BaseException:  # noqa: BLE001 - wait() reads the outcome
                pass
            self.ready.set()

        self.runner.client.loop.add_callback(notify)
        return True

    def cancel(self, worker, task_id):
        actor = self.actors.get(worker)
        if actor is not None and task_id in self.pending:
            try:
                actor.cancel_task(task_id)  # it stops early; what it still returns is ignored
            except Exception:  # noqa: BLE001 - its worker is gone, and the task with it
                pass

    def release(self, worker, keys):
        actor = self.actors.get(worker)
        if actor is not None:
            try:
                actor.drop_outputs(keys)  # not waited for
            except Exception:  # noqa: BLE001 - a worker that is gone has nothing to drop
                pass

    def request_sample(self, worker):
        actor = self.actors.get(worker)
        if actor is None or worker in self.samples:
            return
        try:
            self.samples[worker] = actor.sample()
        except Exception:  # noqa: BLE001 - its worker is gone; the scheduler will say so
            pass

    def interrupt(self):
        self.interrupted = True
        self.ready.set()

    def _take_samples(self):
        out = []
        for worker, fut in list(self.samples.items()):
            if not fut.done():
                continue
            del self.samples[worker]
            try:
                out.append((worker, fut.result()))
            except Exception:  # noqa: BLE001 - a worker that failed to answer sends none
                pass
        return out

    def wait(self, timeout):
        deadline = time.monotonic() + timeout
        while True:
            self.ready.clear()
            finished = []
            for task_id, task in list(self.pending.items()):
                # (One whose worker a failed call before it dropped is forgotten already.)
                if not task.future.done() or self.pending.pop(task_id, None) is None:
                    continue
                try:
                    finished.append((task_id, task.worker, task.future.result()))
                except Exception:  # noqa: BLE001 - the worker (process) failed, not the task
                    # Taken out at once, before the scheduler's heartbeat notices: its tasks are
                    # re-queued elsewhere and what it held is recomputed. If it is in fact alive,
                    # a later refresh starts a new actor on it.
                    self._drop(task.worker)
            now = time.monotonic()
            with self.changes:
                changed = bool(self.lost or self.joined)
            if finished or changed or self.interrupted or now >= deadline:
                self.interrupted = False
                with self.changes:
                    lost, self.lost = self.lost, []
                    joined, self.joined = self.joined, []
                return finished, lost, joined, self._take_samples()
            # Until a call returns, the watcher finds a change, or the session has news.
            self.ready.wait(max(0.0, deadline - now))

    def _drop(self, wid):
        runner = self.runner
        with runner._lock:
            for address, w in list(runner.workers.items()):
                if w.id == wid:
                    del runner.workers[address]
                    runner._dropped[address] = time.monotonic()
        self._forget(wid)

    def _forget(self, wid):
        if self.actors.pop(wid, None) is not None:
            with self.changes:
                self.lost.append(wid)
        for task_id, task in list(self.pending.items()):
            if task.worker == wid:
                del self.pending[task_id]

    def _watch(self):
        """Every half second: workers that left are lost; new ones join (with the running
        queries' UDFs). The session's wait is woken for either."""
        while not self.stopped.wait(0.5):
            self.runner.actor_pools.expire()
            try:
                added, removed = self.runner._refresh_workers()
            except Exception:  # noqa: BLE001 - the client is closing, or the scheduler is away
                continue
            for wid in removed:
                self._forget(wid)
            joined = [(w.id, float(w.cpus), "", _memory_capacity(w)) for w in added if self.add(w)]
            with self.changes:
                self.joined.extend(joined)
            if removed or joined:
                self.ready.set()

    def start(self):
        self.watcher.start()

    def stop(self):
        self.stopped.set()
        if self.watcher.is_alive():
            self.watcher.join()
