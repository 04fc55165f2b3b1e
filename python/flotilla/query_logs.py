"""Each query's log lines in a file of its own: `DaskRunner(log_dir=DIR)` or FLOTILLA_LOG_DIR
writes DIR/query-<id>.log with every line the query's tasks logged on any worker (each names
its worker and task: "[12:00:01.250 WARN dask-4711-ab12 q3 t12884901890.1] ...") and the
driver's own lines about the query ("... q3 driver] ..."), between a line saying the query
started and one saying how it ended."""
from __future__ import annotations

import os
import time


class QueryLogFiles:
    """An event subscriber (flotilla.events) writing the "log" events of each query to a file."""

    def __init__(self, directory: str):
        self.directory = directory
        os.makedirs(directory, exist_ok=True)

    def path(self, query: int) -> str:
        return os.path.join(self.directory, f"query-{query}.log")

    def __call__(self, event: dict) -> None:
        kind = event["event"]
        if kind == "log":
            line = event["message"]
        elif kind == "query_started":
            line = f"query {event['query']} started at {time.strftime('%Y-%m-%d %H:%M:%S')}"
        elif kind == "query_finished":
            line = f"query {event['query']} finished: {event['status']}"
        else:
            return
        with open(self.path(event["query"]), "a") as f:
            f.write(line + "\n")
