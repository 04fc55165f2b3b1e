"""A live dashboard of the distributed runner's queries, served over HTTP by the driver.

It subscribes to the runner's events (a `Dashboard` is an event subscriber) and keeps, for the
running and the recent queries: the pipeline nodes as a graph with tasks done, running and
submitted and rows; each worker's CPU and memory samples; the task timeline; the last events.
`GET /` is the page (dashboard_page.py: one page, no build step), `GET /api/state` the state
as JSON, which the page polls.

The DaskRunner starts one on 127.0.0.1:8790 (the next free port above when that one is taken,
any free port when the next 19 are taken too; a dashboard that cannot listen at all is
reported and the queries run without it)
and prints its address at its first query; `DaskRunner(dashboard=False)` or FLOTILLA_DASHBOARD=0
turns it off, `dashboard="0.0.0.0:8790"` or FLOTILLA_DASHBOARD=host:port serves elsewhere.
"""
from __future__ import annotations

import collections
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from .dashboard_page import PAGE

DEFAULT_PORT = 8790
_PORTS_TRIED = 20  # the default port, then the next ones while taken


def parse_address(setting) -> tuple[str, int] | None:
    """(host, port) from a DaskRunner(dashboard=) / FLOTILLA_DASHBOARD setting; None: off."""
    if setting is None or setting is True or setting == "" or setting == "1":
        return "127.0.0.1", DEFAULT_PORT
    if setting is False or setting == "0":
        return None
    if isinstance(setting, int):
        return "127.0.0.1", setting
    text = str(setting)
    if ":" in text:
        host, port = text.rsplit(":", 1)
        return host or "127.0.0.1", int(port)
    return "127.0.0.1", int(text)


class _Query:
    """What the dashboard keeps of one query."""

    MAX_TASKS = 5000
    MAX_EVENTS = 300
    MAX_SAMPLES = 900  # per worker: 15 minutes at one a second

    def __init__(self, query_id: int, plan: str):
        self.id = query_id
        self.plan = plan
        self.status = "running"
        self.started = time.time()
        self.elapsed = 0.0
        self.nodes: dict[int, dict] = {}
        self.tasks = collections.deque(maxlen=self.MAX_TASKS)  # spans, in start order
        self.open: dict[int, dict] = {}  # task id -> its running span
        self.workers: dict[str, dict] = {}
        self.events = collections.deque(maxlen=self.MAX_EVENTS)

    def node(self, node_id: int, name: str = "") -> dict:
        n = self.nodes.get(node_id)
        if n is None:
            n = self.nodes[node_id] = {"id": node_id, "name": name, "inputs": [], "submitted": 0,
                                       "running": 0, "done": 0, "failed": 0, "rows": 0,
                                       "state": "waiting", "seconds": 0.0}
        if name:
            n["name"] = name
        return n

    def worker(self, worker_id: str) -> dict:
        w = self.workers.get(worker_id)
        if w is None:
            w = self.workers[worker_id] = {"id": worker_id, "state": "joined", "samples": []}
        return w

    def apply(self, e: dict) -> None:
        kind = e["event"]
        self.elapsed = max(self.elapsed, e.get("time", 0.0))
        if kind == "node_started":
            n = self.node(e["node"], e["node_name"])
            n["inputs"] = list(e.get("inputs", []))
            n["state"] = "running"
        elif kind == "node_finished":
            n = self.node(e["node"], e["node_name"])
            n["state"] = "finished"
            n["seconds"] = e["seconds"]
        elif kind == "submitted":
            self.node(e["node"], e["node_name"])["submitted"] += 1
        elif kind == "scheduled":
            self.node(e["node"], e["node_name"])["running"] += 1
            self._span(e)
        elif kind in ("completed", "failed", "cancelled"):
            n = self.node(e["node"], e["node_name"])
            span = self.open.pop(e["task"], None)
            if span is not None:
                n["running"] = max(0, n["running"] - 1)
                span["end"] = e["time"]
                span["status"] = {"completed": "ok"}.get(kind, kind)
                span["rows"] = e.get("rows", 0)
            if kind == "completed":
                n["done"] += 1
                n["rows"] += e["rows"]
            elif kind == "failed":
                n["failed"] += 1
        elif kind == "worker_joined":
            self.worker(e["worker"])["state"] = "joined"
        elif kind == "worker_left":
            self.worker(e["worker"])["state"] = "left"
        elif kind == "worker_sample":
            r = e["resources"]
            samples = self.worker(e["worker"])["samples"]
            samples.append({"time": e["time"], "cpu": r["cpu_percent"],
                            "rss": r["rss_bytes"], "store": r["store_memory_bytes"],
                            "spilled": r["store_spilled_bytes"],
                            "running": r["running_tasks"]})
            del samples[:-self.MAX_SAMPLES]
        if kind != "worker_sample":
            self.events.append(_event_line(e))

    def _span(self, e: dict) -> dict:
        # Scheduled again while a span is open: its worker was lost while it ran.
        lost = self.open.pop(e["task"], None)
        if lost is not None:
            lost.update(end=e["time"], status="lost")
            self.nodes[lost["node"]]["running"] = max(0, self.nodes[lost["node"]]["running"] - 1)
        span = {"task": e["task"], "attempt": e["attempt"], "node": e["node"],
                "worker": e["worker"], "start": e["time"], "end": None, "status": "running",
                "rows": 0}
        self.tasks.append(span)
        self.open[e["task"]] = span
        return span

    def to_json(self) -> dict:
        return {"id": self.id, "status": self.status, "started": self.started,
                "elapsed": self.elapsed, "plan": self.plan,
                "nodes": sorted(self.nodes.values(), key=lambda n: n["id"]),
                "tasks": list(self.tasks), "workers": list(self.workers.values()),
                "events": list(self.events)}


def _event_line(e: dict) -> str:
    """One event as a line of the page's event stream."""
    kind = e["event"]
    t = f"{e.get('time', 0.0):8.3f}s"
    if kind == "query_finished":
        return f"query {e['query']} finished: {e['status']}"
    if kind == "query_started":
        return f"{t} query {e['query']} started"
    if kind.startswith("worker_"):
        return f"{t} {kind} {e['worker']} {e.get('message', '')}".rstrip()
    if kind.startswith("node_"):
        return f"{t} {kind} [{e['node']}] {e['node_name']} rows={e.get('rows', 0)}"
    line = f"{t} {kind} task {e['task']} [{e['node']}] {e['node_name']}"
    if e.get("worker"):
        line += f" on {e['worker']}"
    if kind == "completed":
        line += f" rows={e['rows']} {e['seconds']:.3f}s"
    if e.get("message"):
        line += f": {e['message']}"
    return line


class Dashboard:
    """The HTTP server and the state it shows; call it with each event (a subscriber)."""

    def __init__(self, host: str = "127.0.0.1", port: int = DEFAULT_PORT, keep_queries: int = 10):
        self._lock = threading.Lock()
        self._queries: collections.OrderedDict[int, _Query] = collections.OrderedDict()
        self._keep = keep_queries
        self.server = self._bind(host, port)
        self.thread = threading.Thread(target=self.server.serve_forever, name="flotilla-dashboard",
                                       daemon=True)
        self.thread.start()

    def _bind(self, host: str, port: int) -> ThreadingHTTPServer:
        dashboard = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - the http.server API
                if self.path in ("/", "/index.html"):
                    self._send(200, "text/html; charset=utf-8", PAGE.encode())
                elif self.path.split("?")[0] == "/api/state":
                    self._send(200, "application/json", json.dumps(dashboard.state()).encode())
                else:
                    self._send(404, "text/plain", b"not found\n")

            def _send(self, code, kind, body):
                self.send_response(code)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):  # requests are not worth a log line each
                pass

        last = None
        # Port 0 asks the system for any free port; a set port is tried, then the next ones, then
        # any free one (the URL is printed, so a dashboard anywhere beats none).
        for p in ([0] if port == 0 else [*range(port, port + _PORTS_TRIED), 0]):
            try:
                server = ThreadingHTTPServer((host, p), Handler)
                server.daemon_threads = True
                return server
            except OSError as e:
                last = e
        raise OSError(f"dashboard: cannot listen on {host} (port {port}, the next "
                      f"{_PORTS_TRIED - 1}, or any free one): {last}")

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}/"

    def __call__(self, event: dict) -> None:
        with self._lock:
            q = self._queries.get(event["query"])
            if event["event"] == "query_started":
                q = self._queries[event["query"]] = _Query(event["query"], event["message"])
                while len(self._queries) > self._keep:
                    self._queries.popitem(last=False)
            if q is None:
                return
            if event["event"] == "query_finished":
                q.status = "ok" if event["status"] == "ok" else "failed: " + event["status"]
                q.events.append(_event_line(event))
                return
            q.apply(event)

    def state(self) -> dict:
        with self._lock:
            return {"now": time.time(), "queries": [q.to_json() for q in self._queries.values()]}

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
