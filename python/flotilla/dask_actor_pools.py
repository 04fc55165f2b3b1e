"""The actors class UDFs run in on Dask, kept from one query to the next.

Each actor of an actor pool is a `_FlotillaWorker` holding one instance of the UDF's class, and
making that instance (loading a model) is often the most a UDF costs. When a query ends well its
actors stay, idle; a later query whose pool has the same class, arguments and resources takes
them instead of starting new ones, and its UDF is bound to the instance they hold. Idle actors
are let go after `idle_seconds`, when a new pool needs the GPUs they may hold, and when the
runner closes. A query that failed or was cancelled lets its actors go: a task of it may still
be running in one.
"""

from __future__ import annotations

import secrets
import threading
import time
from typing import Any, Callable

import cloudpickle

from .udf import _PoolMember


class PoolActor:
    """One actor of a pool: its worker id (the id its WorkerRuntime has in the scheduler), the
    Dask future keeping it alive, and what it said of itself."""

    def __init__(self, key: bytes | None, wid: str, future: Any):
        self.key = key
        self.wid = wid
        self.future = future
        self.actor = future.result()
        self.info = self.actor.info().result()
        self.idle_since = 0.0


def _identity(udf) -> bytes | None:
    """What makes two pools' actors interchangeable: the class, its arguments, the resources
    asked for. None when they do not pickle (such a pool is never reused)."""
    pool = udf.pool
    resources = sorted((getattr(pool, "resources", None) or {}).items())
    try:
        return cloudpickle.dumps((pool.cls, pool.args, pool.kwargs, resources))
    except Exception:  # noqa: BLE001 - an argument that does not pickle twice the same way
        return None


class ActorPools:
    """The runner's pool actors not in use by any query."""

    def __init__(self, start_actor: Callable[[str, bytes, dict | None, str | None], Any],
                 spread: Callable[[int, list], list], idle_seconds: float):
        # (worker id, member payload, Dask resources, Dask worker or None) -> the actor's future
        self._start_actor = start_actor
        # (n, the Dask workers of the pool's actors so far) -> Dask workers for n more
        self._spread = spread
        self.idle_seconds = idle_seconds
        self._idle: dict[bytes, list[PoolActor]] = {}
        self._lock = threading.Lock()
        self.started = 0  # actors started (each made its UDF's instance)
        self.reused = 0  # actors a query took from an earlier one

    def take(self, udf, size: int, dask_resources: dict | None) -> list[PoolActor]:
        """`size` actors for the pool of `udf`: idle ones with the same identity first, bound to
        this query's UDF, then new ones."""
        member = _PoolMember.of(udf)
        payload = cloudpickle.dumps(member)
        key = _identity(udf)
        with self._lock:
            idle = self._idle.get(key, []) if key is not None else []
            candidates, idle[:] = idle[:size], idle[size:]
        out = []
        for a in candidates:
            try:
                a.actor.bind(payload).result(timeout=60)
            except Exception:  # noqa: BLE001 - its worker is gone: a new actor instead
                continue
            out.append(a)
        self.reused += len(out)
        if len(out) < size and dask_resources:
            # Idle actors may hold the resources (GPUs) the new ones wait for.
            self.release_idle()
        label = udf.label.replace("/", "_")
        # Spread over the workers by their threads (Dask would put several on one and leave
        # another without): GPU requests go where Dask finds the GPUs.
        n = size - len(out)
        places = [None] * n if dask_resources else \
            self._spread(n, [a.info.dask_address for a in out])
        futures = []
        for place in places:  # all asked for before waiting for any
            wid = f"pool-{label}-{secrets.token_hex(3)}"
            futures.append((wid, self._start_actor(wid, payload, dask_resources, place)))
        for wid, fut in futures:
            out.append(PoolActor(key, wid, fut))
            self.started += 1
        return out

    def give_back(self, actors: list[PoolActor], query_id: int, reusable: bool) -> None:
        """The query ended: its outputs are dropped from its actors, which stay idle if the
        query ended well (and are let go otherwise)."""
        now = time.monotonic()
        for a in actors:
            try:
                a.actor.drop_query(query_id).result(timeout=60)
            except Exception:  # noqa: BLE001 - its worker is gone, and the actor with it
                continue
            if reusable and a.key is not None:
                a.idle_since = now
                with self._lock:
                    self._idle.setdefault(a.key, []).append(a)

    def expire(self) -> None:
        """Lets go of the actors idle for longer than idle_seconds."""
        cutoff = time.monotonic() - self.idle_seconds
        with self._lock:
            for key in list(self._idle):
                self._idle[key] = [a for a in self._idle[key] if a.idle_since > cutoff]
                if not self._idle[key]:
                    del self._idle[key]

    def release_idle(self) -> None:
        with self._lock:
            self._idle.clear()

    def num_idle(self) -> int:
        with self._lock:
            return sum(len(v) for v in self._idle.values())
