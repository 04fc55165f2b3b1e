"""One Dask runner, used as a shared service: queries from several threads at once share its
scheduler; one failing or cancelled stops only its own tasks; a worker runs as many tasks at once
as it has threads."""

import os
import threading
import time

import pytest

import flotilla
from flotilla import _flotilla as _ext
from flotilla import col
from flotilla.runner import LocalRunner

pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def runner():
    # The current runner: class UDFs without a concurrency are sized by it.
    r = flotilla.set_runner_dask(n_workers=2, threads_per_worker=2, progress=False,
                                 dashboard=False)
    yield r
    flotilla.set_runner_local()


def rows(runner, df):
    return _ext.concat_batches(runner.run(df._df, df._pools)).to_pydict()


def local(df):
    return LocalRunner().collect(df._df, df._pools).to_pydict()


def unordered(d):
    return sorted(zip(*d.values()), key=repr)


@flotilla.func(return_dtype="int64")
def slow(x):
    time.sleep(0.02)
    return x


def rows_and_events(runner, df):
    events = []
    runner.subscribe(events.append)
    try:
        return rows(runner, df), events
    finally:
        runner.subscribers.remove(events.append)


def most_at_once(events, node="UdfProject", place=lambda worker: worker) -> dict:
    """Per place (by default each worker), the most tasks of nodes named with `node` it ran at
    one moment (from scheduled to completed)."""
    spans = {}
    for e in events:
        if node in e.get("node_name", "") and e["event"] in ("scheduled", "completed"):
            spans.setdefault(e["task"], {})[e["event"]] = (e["time"], place(e["worker"]))
    steps = sorted(step for s in spans.values()
                   for step in ((s["scheduled"][0], 1, s["scheduled"][1]),
                                (s["completed"][0], -1, s["scheduled"][1])))
    at_once, most = {}, {}
    for _, step, where in steps:  # at one time, what ends before what starts
        at_once[where] = at_once.get(where, 0) + step
        most[where] = max(most.get(where, 0), at_once[where])
    return most


def test_four_queries_from_four_threads_one_failing_one_cancelled(runner):
    @flotilla.func(return_dtype="int64")
    def slow_double(x):
        time.sleep(0.01)
        return x * 2

    @flotilla.func(return_dtype="int64")
    def refuses_77(x):
        time.sleep(0.01)
        if x == 77:
            raise ValueError("77 is refused")
        return x

    @flotilla.func(return_dtype="int64")
    def to_cancel(x):
        time.sleep(0.05)
        return x

    base = flotilla.from_pydict({"v": list(range(160)), "k": [i % 5 for i in range(160)]})
    aggregate = base.into_partitions(8).select(col("k"), slow_double(col("v")).alias("w")) \
        .groupby("k").agg(col("w").sum().alias("s"), col("w").count().alias("n"))
    joined = base.into_partitions(8).select(col("k"), slow_double(col("v")).alias("w")).join(
        flotilla.from_pydict({"k": [0, 1, 2], "name": ["a", "b", "c"]}), on="k")
    failing = base.into_partitions(8).select(refuses_77(col("v")).alias("w"))
    cancelled = flotilla.from_pydict({"v": list(range(400))}).into_partitions(40) \
        .select(to_cancel(col("v")).alias("w"))

    events = []
    runner.subscribe(events.append)
    results = {}

    def run(name, df):
        try:
            results[name] = rows(runner, df)
        except Exception as e:  # noqa: BLE001 - the test looks at it
            results[name] = e

    threads = [threading.Thread(target=run, args=a) for a in
               [("aggregate", aggregate), ("failing", failing), ("cancelled", cancelled),
                ("joined", joined)]]
    try:
        for t in threads:
            t.start()
        # The cancelled query's id, from its plan; cancel it once two of its tasks finished.
        deadline = time.monotonic() + 60
        cancel_id = None
        while time.monotonic() < deadline:
            started = [e for e in list(events) if e["event"] == "query_started"]
            cancel_id = next((e["query"] for e in started if "to_cancel#" in e["plan"]), None)
            done = [e for e in list(events) if e["event"] == "completed" and e["query"] == cancel_id]
            if len(done) >= 2:
                break
            time.sleep(0.005)
        assert cancel_id is not None
        runner.cancel(cancel_id)
        for t in threads:
            t.join(120)
            assert not t.is_alive()
    finally:
        runner.subscribers.remove(events.append)

    assert unordered(results["aggregate"]) == unordered(local(aggregate))
    assert unordered(results["joined"]) == unordered(local(joined))
    assert isinstance(results["failing"], Exception)
    assert "77 is refused" in str(results["failing"])
    assert isinstance(results["cancelled"], Exception)
    assert "cancelled by the user" in str(results["cancelled"]), results["cancelled"]

    by_query = {}
    for e in events:
        by_query.setdefault(e["query"], []).append(e)
    assert len(by_query) == 4
    cancelled_events = by_query[cancel_id]
    # It stopped: most of its 40 tasks never ran, and it ended cancelled.
    assert sum(e["event"] == "completed" for e in cancelled_events) < 20
    assert "cancelled by the user" in cancelled_events[-1]["status"]
    for q, mine in by_query.items():
        assert mine[-1]["event"] == "query_finished"
        if q == cancel_id or "refuses_77#" in mine[0]["plan"]:
            continue
        # The others' tasks were not touched by the failure or the cancel.
        assert mine[-1]["status"] == "ok"
        assert not [e for e in mine if e["event"] in ("failed", "cancelled")], mine

    # The runner goes on serving.
    assert unordered(rows(runner, aggregate)) == unordered(local(aggregate))


def test_a_worker_runs_as_many_tasks_at_once_as_it_has_threads(runner):
    df = flotilla.from_pydict({"v": list(range(80))}).into_partitions(8) \
        .select(slow(col("v")).alias("w"))
    got, events = rows_and_events(runner, df)
    assert sorted(got["w"]) == list(range(80))
    most = most_at_once(events)
    assert sorted(most.values()) == [2, 2], most  # 2 threads each: 2 at once, never more


def test_a_class_udf_without_concurrency_gets_what_the_cluster_holds(runner):
    @flotilla.cls(return_dtype="string")
    class WhoAmI:
        def __init__(self):
            self.me = f"{os.getpid()}:{id(self)}"

        def __call__(self, x):
            time.sleep(0.01)
            return self.me

    @flotilla.cls(return_dtype="string", num_cpus=2)
    class Big:
        def __init__(self):
            self.me = f"{os.getpid()}:{id(self)}"

        def __call__(self, x):
            time.sleep(0.01)
            return self.me

    base = flotilla.from_pydict({"v": list(range(64))}).into_partitions(16)
    # 2 workers of 2 threads: 4 instances of 1 cpu, 2 of 2 cpus.
    for udf, want in [(WhoAmI(), 4), (Big(), 2)]:
        df = base.select(udf(col("v")).alias("who"))
        assert f"{want} actors of" in df.explain(), df.explain()
        who = set(rows(runner, df)["who"])
        assert len(who) == want, who
    # The local runner: its cores.
    assert LocalRunner().instances_for({}) == (os.cpu_count() or 1)
    assert LocalRunner().instances_for({"num_cpus": 64}) == 1


def test_udfs_of_one_name_never_take_each_others_place(runner):
    # Workers find a UDF by name: two lambdas, two functions called `f`, and two instances of
    # one class are each their own, in one query and in two queries at once.
    base = flotilla.from_pydict({"v": list(range(40))}).into_partitions(4)
    plus_one = flotilla.func(lambda x: x + 1, return_dtype="int64")
    times_ten = flotilla.func(lambda x: x * 10, return_dtype="int64")

    def make(k):
        @flotilla.func(return_dtype="int64")
        def f(x):
            time.sleep(0.005)
            return x + k
        return f

    @flotilla.cls(return_dtype="int64", concurrency=1)
    class Add:
        def __init__(self, k):
            self.k = k

        def __call__(self, x):
            return x + self.k

    one = base.select(plus_one(col("v")).alias("a"), times_ten(col("v")).alias("b"),
                      Add(100)(col("v")).alias("c"), Add(200)(col("v")).alias("d"))
    got = rows(runner, one)
    assert sorted(zip(got["a"], got["b"], got["c"], got["d"])) == \
        [(v + 1, v * 10, v + 100, v + 200) for v in range(40)]
    queries = {k: base.select(make(k)(col("v")).alias("w")) for k in (1000, 2000)}
    out = {}
    threads = [threading.Thread(target=lambda k=k: out.__setitem__(k, rows(runner, queries[k])))
               for k in queries]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in queries:
        assert sorted(out[k]["w"]) == [v + k for v in range(40)], (k, out[k])


def test_a_class_udfs_actors_serve_later_queries_with_the_same_class(runner):
    @flotilla.cls(return_dtype="string", concurrency=2)
    class Model:
        def __init__(self, name):
            time.sleep(0.2)  # loading
            self.me = f"{name}:{os.getpid()}:{id(self)}"

        def __call__(self, x):
            return self.me

    @flotilla.func(return_dtype="int64")
    def refuses(m):
        raise ValueError("refused")

    base = flotilla.from_pydict({"v": list(range(32))}).into_partitions(8)
    pools = runner.actor_pools

    def instances(name):
        return set(rows(runner, base.select(Model(name)(col("v")).alias("m")))["m"])

    started, reused = pools.started, pools.reused
    first = instances("a")
    # A new handle of the same class and arguments, in a new query: the same two instances.
    assert instances("a") == first and len(first) == 2
    assert (pools.started - started, pools.reused - reused) == (2, 2)
    # Other arguments: other instances.
    other = instances("b")
    assert len(other) == 2 and all(m.startswith("b:") for m in other), other
    # A query that failed lets its actors go: the next one starts new instances.
    with pytest.raises(Exception, match="refused"):
        rows(runner, base.select(refuses(Model("a")(col("v"))).alias("r")))
    again = instances("a")
    assert len(again) == 2 and not again & first, (again, first)
    # Idle actors are let go after actor_idle_seconds.
    assert pools.num_idle() >= 2
    pools.idle_seconds = 0.2
    try:
        deadline = time.monotonic() + 10
        while pools.num_idle() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert pools.num_idle() == 0
    finally:
        pools.idle_seconds = 60


def test_a_pools_actors_share_their_workers_threads(runner):
    # The pool's actors live in the Dask workers' processes, beside the tasks feeding them: a
    # worker runs at most its 2 threads' worth of tasks of either kind.
    @flotilla.func(return_dtype="int64")
    def feed(x):
        time.sleep(0.01)
        return x

    @flotilla.cls(return_dtype="int64")  # as many as the workers' threads: 4
    class Consume:
        def __call__(self, x):
            time.sleep(0.01)
            return x

    df = flotilla.from_pydict({"v": list(range(240))}).into_partitions(24) \
        .select(Consume()(feed(col("v"))).alias("w"))
    got, events = rows_and_events(runner, df)
    assert sorted(got["w"]) == list(range(240))
    # Each actor's worker, as it joined: "actor pool <pool> on <worker>".
    host = {e["worker"]: e["message"].rsplit(" on ", 1)[1] for e in events
            if e["event"] == "worker_joined" and e["message"].startswith("actor pool")}
    assert len(host) == 4 and len(set(host.values())) == 2, host  # 2 on each worker
    assert len({e["task"] for e in events if e["event"] == "completed" and e["worker"] in host}) == 24
    most = most_at_once(events, node="", place=lambda worker: host.get(worker, worker))
    assert sorted(most.values()) == [2, 2], most


def test_a_worker_reads_each_files_footer_once(runner, tpch_directory):
    # lineitem: 3 files of 8 row groups; a task per row group (24), over 2 workers.
    def footers():
        stats = runner.worker_stats().values()
        return sum(s["footers_read"] for s in stats), sum(s["footers_reused"] for s in stats)

    df = flotilla.read_parquet(str(tpch_directory / "lineitem")).where(col("l_quantity") > 10) \
        .select(col("l_orderkey"))
    events = []
    runner.subscribe(events.append)
    runner.scan_task_min_bytes = 1
    try:
        read, reused = footers()
        assert len(rows(runner, df)["l_orderkey"]) == len(local(df)["l_orderkey"])
        read_once, reused_once = footers()
        rows(runner, df)  # the same files again
        read_twice, reused_twice = footers()
    finally:
        runner.scan_task_min_bytes = None
        runner.subscribers.remove(events.append)
    scans = [e for e in events if e["event"] == "completed" and "Scan" in e.get("node_name", "")]
    assert len(scans) == 2 * 24, len(scans)
    # At most each file once per worker, then never again while the files stay the same.
    assert read_once - read <= 2 * 3
    assert reused_once - reused >= 24 - 2 * 3
    assert read_twice == read_once
    assert reused_twice - reused_once >= 24


def test_tasks_asking_for_more_cpus_run_fewer_at_once():
    from flotilla.dask_runner import DaskRunner

    with pytest.raises(ValueError, match="task_cpus must be positive"):
        DaskRunner(n_workers=1, task_cpus=0)
    # One worker of 2 threads; each task asks for both.
    r = DaskRunner(n_workers=1, threads_per_worker=2, task_cpus=2, progress=False,
                   dashboard=False)
    try:
        df = flotilla.from_pydict({"v": list(range(40))}).into_partitions(6) \
            .select(slow(col("v")).alias("w"))
        events = []
        r.subscribe(events.append)
        assert sorted(rows(r, df)["w"]) == list(range(40))
        assert sum(e["event"] == "completed" and "UdfProject" in e.get("node_name", "") for e in events) == 6
        assert list(most_at_once(events).values()) == [1]
        r.task_cpus = 4  # more than any worker has: refused at once, not stalled
        with pytest.raises(ValueError, match="no worker can run a task of task_cpus=4"):
            rows(r, df)
    finally:
        r.close()
