"""One Dask runner's session shared with other processes: their queries run on its scheduler.

A DaskRunner is one scheduler for the queries of its process. `runner.serve(path)` lets other
processes send it theirs: `flotilla.set_runner_session(path)` in another process (or
FLOTILLA_RUNNER=session=PATH) makes a `SessionClient` its runner, and its DataFrames and SQL then
run on that one scheduler, ordered by age with every other query, on the same workers, UDF
actors and caches. A failing or cancelled query stops only its own tasks; a client that goes
away (ends, is killed) has its running query cancelled.

The wire is the standard library's multiprocessing.connection (length-prefixed pickles), its
connections authenticated by HMAC with the runner's token; `path` holds the address and the
token, readable by its owner only. A client sends the query's plan as bytes (plan_serde) with
its UDFs (cloudpickle), one query at a time per thread (a connection each); results come back as
Arrow IPC. A client that subscribed gets its query's events (flotilla.events) while it runs,
each as it happens, before the result.
"""

from __future__ import annotations

import json
import os
import queue
import threading
import time
from multiprocessing import AuthenticationError
from multiprocessing.connection import Client, Listener

import cloudpickle

from . import _flotilla as _ext
from .runner import query_ids


def _ipc(batch) -> bytes:
    return _ext.batch_to_ipc(batch)


class SessionServer:
    """Serves `runner` (a DaskRunner) on `host`:`port` until closed."""

    def __init__(self, runner, path: str, host: str = "127.0.0.1", port: int = 0):
        self.runner = runner
        self.listener = Listener((host, port), authkey=runner.token.encode())
        self.path = path
        # Written whole, then renamed: a client never reads half of it.
        partial = f"{path}.{os.getpid()}.partial"
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump({"address": list(self.listener.address), "token": runner.token}, f)
        os.replace(partial, path)
        self.closed = False
        self.thread = threading.Thread(target=self._accept, name="flotilla-session-server",
                                       daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.closed = True
        try:
            self.listener.close()
        except OSError:
            pass
        try:
            os.unlink(self.path)
        except OSError:
            pass

    def _accept(self) -> None:
        while not self.closed:
            try:
                conn = self.listener.accept()
            except (AuthenticationError, EOFError, ConnectionError):
                continue  # a client without the token, or one that left while connecting
            except OSError:
                if self.closed:
                    return
                time.sleep(0.05)  # out of file descriptors, say: not a busy loop
                continue
            threading.Thread(target=self._serve, args=(conn,), name="flotilla-session-client",
                             daemon=True).start()

    def _serve(self, conn) -> None:
        with conn:
            while True:
                try:
                    request = conn.recv()
                except (EOFError, OSError):
                    return  # the client went away between queries
                if request[0] == "instances_for":
                    conn.send(("ok", self.runner.instances_for(request[1])))
                elif request[0] == "run" and not self._run(conn, *request[1:]):
                    return

    def _run(self, conn, kind: str, plan: bytes, udfs_bytes: bytes, args: tuple,
             events: bool = False) -> bool:
        """Runs one query for the client; False when the client went away meanwhile. With
        `events`, the query's events go to the client as they happen."""
        query_id = next(query_ids)
        outcome = {}
        # The runner calls subscribers on its session's thread; only this thread sends.
        pending = queue.SimpleQueue()
        mine = lambda e: pending.put(e) if e.get("query") == query_id else None  # noqa: E731
        if events:
            self.runner.subscribe(mine)

        def work():
            try:
                udfs = cloudpickle.loads(udfs_bytes)
                df = _ext.deserialize_plan(plan, {u.name: (u.batch_function(), u.return_dtype)
                                                  for u in udfs})
                outcome["ok"] = self._execute(kind, df, udfs, args, query_id)
            except BaseException as e:  # noqa: BLE001 - sent to the client, raised there
                outcome["error"] = e

        worker = threading.Thread(target=work, name=f"flotilla-session-q{query_id}", daemon=True)
        worker.start()
        present = True
        cancel = False
        def send_events():
            while not pending.empty():
                conn.send(("event", pending.get()))

        try:
            conn.send(("started", query_id))
            # Until the query ends, the client may cancel it, or go away.
            while worker.is_alive() and not cancel:
                send_events()
                if conn.poll(0.02):
                    message = conn.recv()
                    cancel = message[0] == "cancel"
        except (EOFError, OSError):
            present = False
            cancel = True
        # Asked again until the query ends: a cancel before the runner knows the query (still
        # planning it) would be lost.
        while cancel and worker.is_alive():
            self.runner.cancel(query_id)
            worker.join(0.05)
        worker.join()
        if events:
            self.runner.subscribers.remove(mine)
        if not present:
            return False
        try:
            send_events()  # the last ones (query_finished) before the result
            if "error" in outcome:
                conn.send(("error", _picklable(outcome["error"])))
            else:
                conn.send(("ok", outcome["ok"]))
        except (EOFError, OSError):
            return False
        return True

    def _execute(self, kind, df, udfs, args, query_id):
        runner = self.runner
        if kind == "collect":
            return _ipc(_ext.concat_batches(runner.run(df, udfs, query_id=query_id)))
        if kind == "count":
            return runner.run(df, udfs, count_only=True, query_id=query_id)
        if kind == "partitions":
            return [_ipc(b) for b in runner.run(df, udfs, query_id=query_id)]
        if kind == "write":
            return _ipc(runner.write(df, udfs, *args, query_id=query_id))
        if kind == "explain":
            return runner.explain(df, udfs, *args)
        raise ValueError(f"unknown request {kind!r}")


def _picklable(error: BaseException) -> BaseException:
    try:
        cloudpickle.loads(cloudpickle.dumps(error))
        return error
    except Exception:  # noqa: BLE001 - an exception of the client's own that does not travel
        return RuntimeError(f"{type(error).__name__}: {error}")


class SessionClient:
    """A runner whose queries run on another process's DaskRunner (SessionServer)."""

    def __init__(self, path: str):
        try:
            with open(path) as f:
                info = json.load(f)
            self._address = tuple(info["address"])
            self._authkey = info["token"].encode()
        except (OSError, ValueError, KeyError) as e:
            raise RuntimeError(f"cannot read the session file {path}: {e}") from None
        self.path = path
        self._subscribers = []
        self._local = threading.local()  # a connection per thread: one query at a time on each
        self._connect()  # fails now, not at the first query, when the session is not there

    def _connect(self):
        conn = getattr(self._local, "conn", None)
        if conn is None:
            try:
                conn = Client(self._address, authkey=self._authkey)
            except Exception as e:  # noqa: BLE001 - refused, or the token does not match
                raise RuntimeError(f"cannot reach the flotilla session at "
                                   f"{self._address[0]}:{self._address[1]} ({self.path}): "
                                   f"{type(e).__name__}: {e}") from None
            self._local.conn = conn
        return conn

    def _request(self, message):
        conn = self._connect()
        try:
            conn.send(message)
            reply = conn.recv()
            if reply[0] == "started":
                try:
                    reply = conn.recv()
                    while reply[0] == "event":
                        for fn in list(self._subscribers):
                            fn(reply[1])
                        reply = conn.recv()
                except KeyboardInterrupt:
                    conn.send(("cancel",))
                    while conn.recv()[0] == "event":
                        pass
                    raise
        except (EOFError, OSError) as e:
            self._local.conn = None
            raise RuntimeError(f"the flotilla session at {self._address[0]}:{self._address[1]} "
                               f"went away: {type(e).__name__}: {e}") from None
        if reply[0] == "error":
            raise reply[1]
        return reply[1]

    def _run(self, kind, df, udfs, *args):
        from .dask_runner import _by_value

        for u in udfs:
            _by_value(u.fn if u.pool is None else u.pool.cls)
        return self._request(("run", kind, _ext.serialize_plan(df), cloudpickle.dumps(list(udfs)),
                              args, bool(self._subscribers)))

    def collect(self, df, udfs=()):
        return _ext.batch_from_ipc(self._run("collect", df, udfs))

    def count_rows(self, df, udfs=()) -> int:
        return self._run("count", df, udfs)

    def partitions(self, df, udfs=()):
        return [_ext.batch_from_ipc(b) for b in self._run("partitions", df, udfs)]

    def write(self, df, udfs, root: str, fmt: str, partition_by: list, compression):
        return _ext.batch_from_ipc(self._run("write", df, udfs, root, fmt, list(partition_by),
                                             compression))

    def explain(self, df, udfs=(), analyze: bool = False) -> str:
        return self._run("explain", df, udfs, analyze)

    def answer_subqueries(self, session, udfs=()) -> None:
        """The SQL planner's subqueries run on the session too."""
        session.set_plan_runner(lambda plan: self.collect(plan, udfs))

    def instances_for(self, resources: dict) -> int:
        return self._request(("instances_for", resources))

    def subscribe(self, fn) -> None:
        """Calls `fn(event)` for every event of this client's later queries (as the serving
        runner's subscribers get them), in this process, before each query's result."""
        self._subscribers.append(fn)

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None
