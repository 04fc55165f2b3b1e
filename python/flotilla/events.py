"""The events of a query, on either runner: their schema and checks against it.

Subscribers (`runner.subscribe(fn)`), the JSON-lines event log (FLOTILLA_EVENT_LOG) and the C++
`EventSubscriber` (src/flotilla/distributed/events.h) carry the same events with the same keys.
Every event but query_finished has the keys of TASK_KEYS; some kinds add their own (SCHEMA).
A query's events come in this order: query_started (message: the pipeline nodes it runs as, one
per line; plan: the optimized plan) first; for each node node_started (before its first task),
its tasks' submitted, scheduled, then completed, failed or cancelled (a task scheduled again
after its worker was lost is scheduled twice), and node_finished (after its last task; again
after a recovery re-ran some); execution_started before the first task is scheduled on a
worker; the workers' worker_joined, worker_left and worker_sample (node -1) and the tasks' log
lines (log: a line a task's threads logged on its worker, as printed there) in between; and
query_finished last (its status and totals: seconds, tasks finished, attempts, result rows and
bytes, CPU seconds of every finished task's operators). On the local runner a query's pipelines
are its nodes, each one task on worker "local"; it has no worker events.
"""
from __future__ import annotations

TASK_KEYS = {"event": str, "query": int, "task": int, "node": int, "node_name": str,
             "worker": str, "attempt": int, "seconds": float, "rows": int, "bytes": int,
             "message": str, "time": float}

OPERATOR_KEYS = {"name": str, "depth": int, "rows_out": int, "cpu_seconds": float,
                 "start": float, "end": float}

RESOURCE_KEYS = {"cpu_percent": float, "cpu_seconds": float, "rss_bytes": int,
                 "store_memory_bytes": int, "store_spilled_bytes": int, "disk_free_bytes": int,
                 "flight_bytes_served": int, "running_tasks": int}

# Per kind: the keys it has besides TASK_KEYS (query_finished: its only keys).
SCHEMA = {
    "query_started": {"plan": str},
    "execution_started": {},
    "node_started": {"inputs": list},
    "submitted": {},
    "scheduled": {},
    "completed": {"cpu_seconds": float, "peak_memory": int, "spilled_bytes": int,
                  "operators": list},
    "failed": {},
    "cancelled": {},
    "node_finished": {},
    "worker_joined": {},
    "worker_left": {},
    "worker_sample": {"resources": dict},
    "log": {},
    "query_finished": {"event": str, "query": int, "status": str, "seconds": float,
                       "tasks": int, "attempts": int, "rows": int, "bytes": int,
                       "cpu_seconds": float},
}

_TASK_KINDS = ("submitted", "scheduled", "completed", "failed", "cancelled")


def _check_keys(what: str, got: dict, keys: dict) -> None:
    if set(got) != set(keys):
        missing, extra = sorted(set(keys) - set(got)), sorted(set(got) - set(keys))
        raise ValueError(f"{what}: keys missing {missing}, unexpected {extra}: {got}")
    for key, kind in keys.items():
        value = got[key]
        ok = isinstance(value, (int, float)) if kind is float else isinstance(value, kind)
        if not ok or (kind is int and isinstance(value, bool)):
            raise ValueError(f"{what}: {key} should be {kind.__name__}, is {value!r}")


def check(event: dict) -> None:
    """Raises ValueError naming what in `event` does not follow the schema."""
    kind = event.get("event")
    if kind not in SCHEMA:
        raise ValueError(f"unknown event kind {kind!r}: {event}")
    if kind == "query_finished":
        _check_keys(kind, event, SCHEMA[kind])
        return
    _check_keys(kind, event, {**TASK_KEYS, **SCHEMA[kind]})
    if kind == "completed":
        for op in event["operators"]:
            _check_keys("completed operator", op, OPERATOR_KEYS)
    if kind == "worker_sample":
        _check_keys("worker_sample resources", event["resources"], RESOURCE_KEYS)
    if kind.startswith("worker_") and event["node"] != -1:
        raise ValueError(f"{kind}: a worker's event has node -1: {event}")


def check_lifecycle(events: list) -> None:
    """Raises ValueError unless each query's events (in the order received) follow the schema
    and come in the documented order."""
    for q in dict.fromkeys(e["query"] for e in events):
        mine = [e for e in events if e["query"] == q]
        for e in mine:
            check(e)
        if mine[0]["event"] != "query_started":
            raise ValueError(f"query {q} begins with {mine[0]['event']}, not query_started")
        kinds = [e["event"] for e in mine]
        if "scheduled" in kinds and ("execution_started" not in kinds or
                                     kinds.index("execution_started") > kinds.index("scheduled")):
            raise ValueError(f"query {q}: a task was scheduled before execution_started")
        if mine[-1]["event"] != "query_finished" or any(e["event"] == "query_finished"
                                                        for e in mine[:-1]):
            raise ValueError(f"query {q} does not end with one query_finished")
        started, finished, state = set(), set(), {}
        for e in mine[1:-1]:
            kind, node = e["event"], e["node"]
            if kind == "node_started":
                started.add(node)
            elif kind == "node_finished":
                if node not in started:
                    raise ValueError(f"query {q}: node {node} finished before it started")
                finished.add(node)
            elif kind in _TASK_KINDS:
                if node not in started:
                    raise ValueError(f"query {q}: task {e['task']} of node {node} before the "
                                     "node started")
                before = state.get(e["task"])
                if kind == "submitted" and before not in (None, "failed", "completed",
                                                          "cancelled"):
                    raise ValueError(f"query {q}: task {e['task']} submitted while {before}")
                # Scheduled again: after a failed attempt, or its worker was lost.
                if kind == "scheduled" and before not in ("submitted", "scheduled", "failed"):
                    raise ValueError(f"query {q}: task {e['task']} scheduled while {before}")
                if kind in ("completed", "failed") and before != "scheduled":
                    raise ValueError(f"query {q}: task {e['task']} {kind} while {before}")
                state[e["task"]] = kind
        if mine[-1]["status"] == "ok" and started != finished:
            raise ValueError(f"query {q}: nodes {sorted(started - finished)} never finished")
