"""The live dashboard: its state follows the events, its HTTP API serves it, and in a real browser
(Debian's headless chromium, driven by puppeteer-core) the page shows a running query's pipeline
nodes, progress, workers and tasks, and updates them until the query ends."""
import json
import os
import shutil
import subprocess
import threading
import time
import urllib.request
from pathlib import Path

import pytest

import flotilla
from flotilla import col
from flotilla.dashboard import Dashboard, parse_address

ROOT = Path(__file__).resolve().parents[2]
BROWSER_TESTS = ROOT / "tests" / "browser"


def test_the_address_setting():
    assert parse_address(None) == ("127.0.0.1", 8790)
    assert parse_address(False) is None and parse_address("0") is None
    assert parse_address(9000) == ("127.0.0.1", 9000)
    assert parse_address("0.0.0.0:9001") == ("0.0.0.0", 9001)


def test_a_dashboard_whose_ports_are_all_taken_listens_on_another():
    import socket
    # The first free port of a run of 20, all of them then held.
    held = []
    base = 0
    for _ in range(50):
        held = []
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            base = probe.getsockname()[1]
        try:
            for p in range(base, base + 20):
                s = socket.socket()
                s.bind(("127.0.0.1", p))
                s.listen()
                held.append(s)
            break
        except OSError:
            for s in held:
                s.close()
            held = []
    assert len(held) == 20, "no run of 20 free ports to hold"
    try:
        board = Dashboard("127.0.0.1", base)
        try:
            port = board.server.server_address[1]
            assert not base <= port < base + 20
            with urllib.request.urlopen(f"{board.url}api/state", timeout=5) as r:
                assert r.status == 200
        finally:
            board.close()
    finally:
        for s in held:
            s.close()


def test_a_dashboard_that_cannot_listen_leaves_the_queries_running(capfd):
    flotilla.set_runner_local()
    # A documentation address (RFC 5737) no interface of this machine has.
    flotilla.set_runner_dask(n_workers=1, progress=False, threads_per_worker=1,
                             dashboard="192.0.2.1:8790")
    try:
        df = flotilla.from_pydict({"v": [1, 2, 3]})
        assert df.agg(col("v").sum().alias("s")).to_pydict() == {"s": [6]}
    finally:
        flotilla.set_runner_local()
    assert "flotilla: no dashboard: dashboard: cannot listen on 192.0.2.1" in capfd.readouterr().err


def test_state_follows_the_events_and_is_served_as_json():
    board = Dashboard(port=0)
    try:
        for e in [
            {"event": "query_started", "query": 5, "message": "[0] Scan\n[1] Gather <- [0]", "time": 0.0},
            {"event": "worker_joined", "query": 5, "worker": "a", "node": -1, "message": "", "time": 0.0},
            {"event": "node_started", "query": 5, "node": 0, "node_name": "Scan", "inputs": [], "time": 0.1},
            {"event": "submitted", "query": 5, "task": 1, "node": 0, "node_name": "Scan", "time": 0.1},
            {"event": "scheduled", "query": 5, "task": 1, "node": 0, "node_name": "Scan",
             "worker": "a", "attempt": 1, "time": 0.2},
            # Scheduled again: its worker was lost while it ran.
            {"event": "scheduled", "query": 5, "task": 1, "node": 0, "node_name": "Scan",
             "worker": "b", "attempt": 2, "time": 0.5},
            {"event": "worker_sample", "query": 5, "worker": "b", "node": -1, "time": 0.6,
             "resources": {"cpu_percent": 50.0, "rss_bytes": 1 << 20, "store_memory_bytes": 0,
                           "store_spilled_bytes": 0, "running_tasks": 1}},
            {"event": "completed", "query": 5, "task": 1, "node": 0, "node_name": "Scan",
             "worker": "b", "attempt": 2, "rows": 40, "seconds": 0.4, "time": 0.9},
            {"event": "node_finished", "query": 5, "node": 0, "node_name": "Scan", "rows": 40,
             "seconds": 0.8, "time": 0.9},
            {"event": "query_finished", "query": 5, "status": "ok"},
        ]:
            board(e)
        with urllib.request.urlopen(board.url + "api/state", timeout=10) as r:
            state = json.loads(r.read())
        with urllib.request.urlopen(board.url, timeout=10) as r:
            assert b"Flotilla dashboard" in r.read()
    finally:
        board.close()
    (q,) = state["queries"]
    assert q["id"] == 5 and q["status"] == "ok" and q["elapsed"] == pytest.approx(0.9)
    (node,) = q["nodes"]
    assert {k: node[k] for k in ("submitted", "running", "done", "rows", "state")} == \
        {"submitted": 1, "running": 0, "done": 1, "rows": 40, "state": "finished"}
    assert [(t["worker"], t["status"], t["start"], t["end"]) for t in q["tasks"]] == \
        [("a", "lost", 0.2, 0.5), ("b", "ok", 0.5, 0.9)]
    workers = {w["id"]: w for w in q["workers"]}
    assert workers["b"]["samples"][0]["cpu"] == 50.0 and workers["a"]["state"] == "joined"
    assert q["events"][-1] == "query 5 finished: ok"


def test_only_the_most_recent_queries_are_kept():
    board = Dashboard(port=0, keep_queries=2)
    try:
        for q in range(1, 5):
            board({"event": "query_started", "query": q, "message": "", "time": 0.0})
        assert [q["id"] for q in board.state()["queries"]] == [3, 4]
    finally:
        board.close()


def _node_modules(log):
    """tests/browser's npm packages, installed to match its lock file (npm's output to `log`)."""
    if shutil.which("node") is None or not Path("/usr/bin/chromium").exists():
        pytest.fail("the browser test needs node and Debian's chromium (scripts/install-deps.sh)")
    subprocess.run(["bash", "-c", 'source "$1/tests/interop/npm_deps.sh" && '
                    'ensure_node_modules "$1/tests/browser" "$2"',
                    "-", str(ROOT), str(log)], check=True)


@pytest.fixture(scope="module")
def runner():
    flotilla.set_runner_local()
    r = flotilla.set_runner_dask(n_workers=2, progress=False, threads_per_worker=1,
                                 dashboard="127.0.0.1:0")
    yield r
    flotilla.set_runner_local()


def test_the_page_shows_a_running_query_in_a_real_browser(runner, tmp_path):
    _node_modules(tmp_path / "npm.log")
    # A first query starts the dashboard.
    assert flotilla.from_pydict({"v": [1, 2, 3]}).count_rows() == 3
    board = runner.dashboard
    assert board is not None and board.url.startswith("http://127.0.0.1:")
    after = max(q["id"] for q in board.state()["queries"])

    events = []
    runner.subscribe(events.append)

    @flotilla.func(return_dtype="int64")
    def slow(v):
        time.sleep(0.03)  # a row: 0.6 s a task, long enough for the page to see tasks run
        return v

    df = (flotilla.from_pydict({"k": [i % 5 for i in range(240)], "v": list(range(240))})
          .into_partitions(12)
          .with_column("w", slow(col("v")))
          .groupby("k").agg(col("w").sum().alias("total"))
          .sort("k"))
    shot = tmp_path / "dashboard.png"
    browser = subprocess.Popen(["node", str(BROWSER_TESTS / "dashboard.mjs"), board.url,
                                str(shot), str(after), "120"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert browser.stderr.readline().strip() == "ready", browser.stderr.read()
        got = df.to_pydict()
        out, err = browser.communicate(timeout=150)
    finally:
        runner.subscribers.remove(events.append)
        if browser.poll() is None:
            browser.kill()
    assert browser.returncode == 0, err
    assert got == {"k": [0, 1, 2, 3, 4], "total": [sum(range(k, 240, 5)) for k in range(5)]}
    seen = json.loads(out)
    assert seen["errors"] == []
    snapshots = seen["snapshots"]
    query = next(e["query"] for e in events if e["event"] == "query_started")
    assert {s["query"] for s in snapshots} == {query}

    # The truth: the query's own events.
    started = {e["node"]: e for e in events if e["event"] == "node_started"}
    done = {}
    rows = {}
    for e in events:
        if e["event"] == "completed":
            done[e["node"]] = done.get(e["node"], 0) + 1
            rows[e["node"]] = rows.get(e["node"], 0) + e["rows"]
    final = snapshots[-1]
    assert final["status"] == "ok"
    assert {n["id"] for n in final["nodes"]} == set(started)
    for n in final["nodes"]:
        assert n["state"] == "finished"
        assert n["progress"] == f"{done[n['id']]}/{done[n['id']]} tasks done, 0 running"
        assert n["rows"].startswith(f"{rows[n['id']]} rows")
    assert sorted(map(tuple, final["edges"])) == \
        sorted((i, n) for n, e in started.items() for i in e["inputs"])
    assert final["tasks"] == sum(e["event"] == "scheduled" for e in events)
    assert len(final["workers"]) == 2
    assert all(w["samples"] >= 2 and w["lines"] == 2 for w in final["workers"]), final["workers"]

    # It updated while the query ran: the UDF's node seen running, then partly and fully done.
    running = [s for s in snapshots if s["status"] == "running"]
    assert running, "the page saw the query running"
    udf_node = max(done, key=lambda n: done[n] if "Udf" in started[n]["node_name"] else -1)
    progress = [n["progress"] for s in snapshots for n in s["nodes"] if n["id"] == udf_node]
    assert len(set(progress)) >= 3, progress
    assert any(int(p.split("/")[0]) < done[udf_node] for p in progress), progress

    png = Path(seen["screenshot"]).read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000
    keep = os.environ.get("FLOTILLA_SCREENSHOT_DIR")
    if keep:
        shutil.copy(shot, Path(keep) / "dashboard.png")
