"""The local runner reports the distributed runner's events (flotilla.events): a subscriber, the
JSON-lines log and the Chrome trace see its pipelines start, run and finish as nodes."""
import json

import pytest

import flotilla
from flotilla import col
from flotilla.events import check, check_lifecycle
from flotilla.runner import LocalRunner


def _query():
    orders = flotilla.from_pydict({"o": list(range(200)), "c": [i % 13 for i in range(200)]})
    lines = flotilla.from_pydict({"o": [i % 200 for i in range(1000)], "q": list(range(1000))})
    return (lines.join(orders, on="o").where(col("q") % 3 == 0)
            .groupby("c").agg(col("q").sum().alias("total")).sort("c"))


@pytest.fixture
def observed(tmp_path):
    log, trace = tmp_path / "events.jsonl", tmp_path / "trace.json"
    runner = LocalRunner(event_log=str(log), trace=str(trace))
    events = []
    previous, flotilla.runner._runner = flotilla.runner._runner, runner
    flotilla.subscribe(events.append)
    try:
        yield events, log, trace
    finally:
        flotilla.runner._runner = previous


def test_a_local_query_reports_its_pipelines_as_nodes(observed):
    events, log, trace = observed
    got = _query().to_pydict()
    assert got == LocalRunner().collect(_query()._df).to_pydict()  # the same rows unobserved
    check_lifecycle(events)
    (query,) = {e["query"] for e in events}
    started = [e for e in events if e["event"] == "node_started"]
    done = [e for e in events if e["event"] == "completed"]
    assert len(started) == len(done) >= 3  # the join's build, the aggregate, the sort, ...
    assert all(e["worker"] == "local" and e["attempt"] == 1 for e in done)
    # The pipeline that gives the result gave the rows returned.
    assert done[-1]["node_name"].endswith("-> result")
    assert done[-1]["rows"] == len(got["c"])
    assert any(e["inputs"] for e in started), "a later pipeline reads an earlier one's sink"
    assert sum(len(e["operators"]) for e in done) >= 6
    assert {o["name"] for e in done for o in e["operators"]} >= {"HashJoinProbe", "Filter"}

    # The log holds the same events, in the same order, each following the schema.
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    for e in lines:
        check(e)
    assert [(e["event"], e.get("node")) for e in lines] == \
        [(e["event"], e.get("node")) for e in events]
    # The trace: a span per pipeline on the "local" worker, its operators inside.
    spans = json.loads(trace.read_text().rstrip().rstrip(",") + "]")
    tasks = [s for s in spans if s["ph"] == "X" and s["cat"] == "task"]
    assert len(tasks) == len(done) and all(s["args"]["status"] == "ok" for s in tasks)
    assert any(s["ph"] == "M" and s["args"]["name"] == f"query {query} worker local"
               for s in spans)


def test_a_failed_local_query_ends_with_its_error(observed):
    events, _, _ = observed

    @flotilla.func(return_dtype="int64")
    def refuse(x):
        raise ValueError("not this one")

    with pytest.raises(Exception, match="not this one"):
        flotilla.from_pydict({"v": [1, 2]}).select(refuse(col("v"))).to_pydict()
    check_lifecycle(events)
    assert events[-1]["status"] != "ok" and "not this one" in events[-1]["status"]
    assert any(e["event"] == "failed" and "not this one" in e["message"] for e in events)
