"""Clients in other processes sharing one Dask runner's scheduler (session_server.py): their
queries run on the serving runner's session, at the same time as its own, and a client that is
killed has its query cancelled there."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import flotilla
from flotilla import _flotilla as _ext
from flotilla import col
from flotilla.runner import LocalRunner

pytest.importorskip("distributed")

# A client: a plain script, its UDF defined in it.
CLIENT = """
import contextlib, io, json, sys, time
import flotilla
from flotilla import col

flotilla.set_runner_session(sys.argv[1])
pause = float(sys.argv[2])

@flotilla.func(return_dtype="int64")
def slow_square(x):
    time.sleep(pause)
    return x * x

df = flotilla.from_pydict({"v": list(range(60)), "k": [i % 4 for i in range(60)]}) \\
    .into_partitions(6).select(col("k"), slow_square(col("v")).alias("s")) \\
    .groupby("k").agg(col("s").sum().alias("total")).sort("k")
print("STARTED", flush=True)
print(json.dumps(df.to_pydict()), flush=True)
print(json.dumps(flotilla.sql("SELECT count(*) AS n FROM t WHERE v > (SELECT avg(v) FROM t)",
                              t=flotilla.from_pydict({"v": list(range(10))})).to_pydict()))
if len(sys.argv) > 3:  # a write, read back; and explain
    df.write_parquet(sys.argv[3])
    print(json.dumps(flotilla.read_parquet(sys.argv[3]).sort("k").to_pydict()))
    with contextlib.redirect_stdout(io.StringIO()):  # explain() prints the plan too
        text = df.explain()
    print(json.dumps("== Distributed plan (pipeline nodes) ==" in text))
"""

WANT = {"k": [0, 1, 2, 3], "total": [sum(v * v for v in range(60) if v % 4 == k) for k in range(4)]}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    from flotilla.dask_runner import DaskRunner

    runner = DaskRunner(n_workers=2, threads_per_worker=1, progress=False, dashboard=False)
    path = runner.serve(str(tmp_path_factory.mktemp("session") / "session.json"))
    yield runner, path
    runner.close()


def client(path, pause, *more):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.Popen([sys.executable, "-c", CLIENT, path, str(pause), *more], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_a_client_process_runs_its_queries_on_the_served_runner(served, tmp_path):
    runner, path = served
    assert oct(os.stat(path).st_mode & 0o777) == "0o600"
    events = []
    note = lambda e: events.append(dict(e, at=time.monotonic()))  # noqa: E731 - when it came
    runner.subscribe(note)
    try:
        proc = client(path, 0.02, str(tmp_path / "out"))  # its UDF query: 60 rows of 20 ms
        assert proc.stdout.readline().strip() == "STARTED"
        deadline = time.monotonic() + 60
        while not any(e["event"] == "query_started" for e in list(events)):
            assert time.monotonic() < deadline
            time.sleep(0.01)
        # The serving process runs a query of its own meanwhile.
        own = flotilla.from_pydict({"v": list(range(100))}).into_partitions(4) \
            .select((col("v") * 3).alias("mine"))
        got = _ext.concat_batches(runner.run(own._df, own._pools)).to_pydict()
        out, err = proc.communicate(timeout=120)
    finally:
        runner.subscribers.remove(note)
    assert proc.returncode == 0, err
    lines = out.strip().splitlines()
    assert json.loads(lines[0]) == WANT
    assert json.loads(lines[1]) == {"n": [5]}  # 5 to 9 are above 4.5
    assert json.loads(lines[2]) == WANT  # written by the cluster's workers, read back
    assert json.loads(lines[3]) is True
    assert sorted(got["mine"]) == [3 * v for v in range(100)]
    # The client's queries ran here, on this runner's one scheduler, the UDF on its workers.
    started = {e["query"]: e for e in events if e["event"] == "query_started"}
    finished = {e["query"]: e for e in events if e["event"] == "query_finished"}
    theirs = sorted(q for q, e in started.items() if "slow_square#" in e["plan"])
    assert len(theirs) == 2  # the query, then its write
    assert all(finished[q]["status"] == "ok" for q in theirs)
    udf_workers = {e["worker"] for e in events if e["event"] == "completed"
                   and e["query"] == theirs[0] and "UdfProject" in e["node_name"]}
    assert udf_workers and udf_workers <= {w.id for w in runner.workers.values()}
    # Its query and ours ran at the same time.
    ours = [q for q, e in started.items() if "mine" in e["plan"]]
    assert len(ours) == 1
    assert started[ours[0]]["at"] < finished[theirs[0]]["at"]
    assert started[theirs[0]]["at"] < finished[ours[0]]["at"]


def test_a_killed_client_has_its_query_cancelled(served):
    runner, path = served
    events = []
    runner.subscribe(events.append)
    try:
        proc = client(path, 0.2)  # 60 rows of 0.2 s on 2 worker threads: about 6 s
        assert proc.stdout.readline().strip() == "STARTED"
        deadline = time.monotonic() + 60
        while not any(e["event"] == "completed" and "UdfProject" in e.get("node_name", "")
                      for e in list(events)):
            assert time.monotonic() < deadline
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        deadline = time.monotonic() + 30
        while not any(e["event"] == "query_finished" for e in list(events)):
            assert time.monotonic() < deadline, "the killed client's query did not end"
            time.sleep(0.05)
    finally:
        runner.subscribers.remove(events.append)
    ended = [e for e in events if e["event"] == "query_finished"]
    assert len(ended) == 1 and "cancelled" in ended[0]["status"], ended
    # The runner goes on serving its own queries and its clients.
    df = flotilla.from_pydict({"v": [1, 2, 3]})
    assert _ext.concat_batches(runner.run(df._df)).to_pydict() == {"v": [1, 2, 3]}
    proc = client(path, 0)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert json.loads(out.strip().splitlines()[1]) == WANT


def test_the_command_line_runs_sql_on_a_served_runner(served):
    runner, path = served
    program = Path(flotilla.__file__).resolve().parents[2] / "flotilla"
    events = []
    runner.subscribe(events.append)
    try:
        out = subprocess.run([str(program), "sql", "--runner", f"session={path}", "--format", "csv",
                              "SELECT sum(range) AS s FROM range(1000) WHERE range % 3 = 0"],
                             check=True, capture_output=True, text=True).stdout
    finally:
        runner.subscribers.remove(events.append)
    assert out.splitlines() == ["s", str(sum(range(0, 1000, 3)))]
    assert any(e["event"] == "query_finished" and e["status"] == "ok" for e in events)


def test_a_client_without_the_session_fails_at_once_naming_it(served, tmp_path):
    runner, path = served
    with pytest.raises(RuntimeError, match="cannot read the session file"):
        flotilla.set_runner_session(str(tmp_path / "nothing.json"))
    info = json.load(open(path))
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({"address": info["address"], "token": "not-the-token"}))
    start = time.monotonic()
    with pytest.raises(RuntimeError, match="cannot reach the flotilla session"):
        flotilla.set_runner_session(str(wrong))
    assert time.monotonic() - start < 10
    assert isinstance(flotilla.runner.current(), LocalRunner)


EVENTS_CLIENT = """
import json, sys
import flotilla
from flotilla import col

flotilla.set_runner_session(sys.argv[1])
got = []
flotilla.subscribe(got.append)
df = flotilla.from_pydict({"v": list(range(40))}).into_partitions(4) \
    .groupby(col("v") % 3).agg(col("v").sum().alias("s"))
rows = df.to_pydict()
print(json.dumps({"rows": len(rows["s"]), "events": got}), flush=True)
"""


def test_a_client_that_subscribed_gets_its_querys_events_as_they_happen(served):
    runner, path = served
    seen = []
    runner.subscribe(seen.append)
    try:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
        proc = subprocess.run([sys.executable, "-c", EVENTS_CLIENT, path], env=env,
                              capture_output=True, text=True, timeout=120)
    finally:
        runner.subscribers.remove(seen.append)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["rows"] == 3
    events = out["events"]
    assert events[0]["event"] == "query_started" and events[-1]["event"] == "query_finished"
    assert events[-1]["status"] == "ok"
    query = events[0]["query"]
    assert all(e["query"] == query for e in events)
    # Exactly what the serving runner's own subscriber saw of that query, in the same order.
    assert [e["event"] for e in events] == [e["event"] for e in seen if e.get("query") == query]
    assert sum(e["event"] == "completed" for e in events) >= 2  # map and reduce tasks


def test_a_client_gone_before_its_query_started_still_has_it_cancelled(tmp_path):
    """The client goes away while the runner is still planning its query (it does not know the
    query's id yet): the cancel must reach the query once it starts, not be lost."""
    import threading

    import cloudpickle

    from flotilla.session_server import SessionServer

    class PlanningRunner:
        token = "t"

        def __init__(self):
            self.known = threading.Event()  # the runner knows the query (admitted)
            self.cancelled = threading.Event()

        def run(self, df, udfs, query_id=None):
            time.sleep(0.3)  # planning: a cancel now finds no query
            self.known.set()
            if not self.cancelled.wait(5):
                raise AssertionError("ran to its end: the cancel was lost")
            raise RuntimeError("cancelled")

        def cancel(self, query_id):
            if self.known.is_set():
                self.cancelled.set()

    class GoneClient:
        def send(self, message):
            pass

        def poll(self, timeout):
            raise EOFError  # the client's process died

    runner = PlanningRunner()
    server = SessionServer(runner, str(tmp_path / "session"))
    try:
        plan = _ext.serialize_plan(flotilla.from_pydict({"v": [1, 2]})._df)
        start = time.monotonic()
        assert server._run(GoneClient(), "collect", plan, cloudpickle.dumps([]), ()) is False
        assert runner.cancelled.is_set()
        assert time.monotonic() - start < 4
    finally:
        server.close()
