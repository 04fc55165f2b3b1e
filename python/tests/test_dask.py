"""The distributed runner on a real Dask cluster of 2 worker processes: every operator it
distributes gives the local engine's result on the same data; a killed worker is recovered."""

import json
import os
import signal

import pytest

import flotilla
from flotilla import col
from flotilla import _flotilla as _ext
from flotilla.events import check_lifecycle
from flotilla.query_logs import QueryLogFiles
from flotilla.runner import LocalRunner

pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def dask(tmp_path_factory):
    data = tmp_path_factory.mktemp("data")
    flotilla.set_runner_local()
    df = flotilla.from_pydict({"id": list(range(3000)), "k": [i % 7 for i in range(3000)],
                               "s": [f"w{i % 13} x{i % 5}" for i in range(3000)]})
    for f in range(4):
        df.where((col("id") >= f * 750) & (col("id") < (f + 1) * 750)).write_parquet(str(data / f"f{f}"))
    # One engine thread per worker: order-sensitive aggregates are then deterministic (see
    # test_aggregates_on_the_cluster).
    runner = flotilla.set_runner_dask(n_workers=2, scan_task_min_bytes=1, progress=False,
                                      threads_per_worker=1)
    yield runner, str(data)
    flotilla.set_runner_local()


def local(df):
    """The local engine's result, whatever runner is set."""
    return LocalRunner().collect(df._df, df._pools).to_pydict()


def same(df, ordered=True):
    want = local(df)
    got = df.to_pydict()
    assert list(got) == list(want)
    if ordered:
        assert got == want
    else:
        rows = lambda d: sorted(zip(*d.values()), key=repr)
        assert rows(got) == rows(want)
    return got


def assert_query_lifecycle(events):
    """The events follow the schema (flotilla.events): each query starts with its plan and ends
    with its status; each node starts before its first task and finishes after its last;
    workers join before they run anything."""
    check_lifecycle(events)
    for q in {e["query"] for e in events}:
        mine = [e for e in events if e["query"] == q]
        assert "[0]" in mine[0]["message"]
        assert mine[-1]["status"] == "ok"
        joined = set()
        for e in mine:
            if e["event"] == "worker_joined":
                joined.add(e["worker"])
            if e["event"] in ("scheduled", "worker_sample"):
                assert e["worker"] in joined, e
        assert joined, "the query's workers joined it"


def test_the_workers_run_with_jemalloc(dask):
    """A local cluster's worker processes preload jemalloc (installed with the runner's other
    packages): the system's malloc fragments under a shuffle's millions of small pieces."""
    runner, _ = dask
    pids = runner.worker_pids().values()
    assert len(pids) == 2
    for pid in pids:
        with open(f"/proc/{pid}/maps") as f:
            assert "libjemalloc" in f.read(), f"worker {pid} runs without jemalloc"
    with open("/proc/self/maps") as f:
        assert "libjemalloc" not in f.read(), "only the workers preload it"


def test_the_worker_allocator_is_one_of_those_known():
    from flotilla.dask_local_cluster import allocator_library
    from flotilla.dask_runner import DaskRunner

    assert allocator_library("system") is None
    assert "jemalloc" in allocator_library(None)
    with pytest.raises(ValueError, match="worker_allocator must be one of jemalloc, system"):
        DaskRunner(n_workers=1, worker_allocator="tcmalloc")


def test_filter_project_over_parquet_files(dask):
    _, data = dask
    df = flotilla.read_parquet(data).where(col("k") < 5).select(col("id"), (col("id") * 2).alias("twice"), col("s"))
    got = same(df)
    assert len(got["id"]) == 428 * 5 + 4
    assert df.count_rows() == 428 * 5 + 4  # from the partitions' metadata


def test_explode_unpivot_sample_limit_concat(dask):
    _, data = dask
    df = flotilla.read_parquet(data)
    same(df.select(col("id"), col("s").str.split(" ").alias("w")).explode("w"))
    same(df.unpivot("s", ["id", "k"]))
    small = flotilla.from_pydict({"v": list(range(40))})
    same(small.sample(fraction=0.5, seed=3))
    sized = df.sample(size=40, seed=5).to_pydict()
    assert len(sized["id"]) == 40 and len(set(sized["id"])) == 40
    assert set(sized["id"]) <= set(range(3000))
    same(df.limit(25))
    same(df.where(col("k") == 1).concat(df.where(col("k") == 2)).select(col("id")))


def test_repartition_and_into_partitions(dask):
    _, data = dask
    df = flotilla.read_parquet(data)
    same(df.repartition(3, col("k")), ordered=False)
    same(df.repartition(3), ordered=False)
    parts = [p.to_pydict() for p in df.into_partitions(4).iter_partitions()]
    assert [len(p["id"]) for p in parts] == [750, 750, 750, 750]
    assert sum((p["id"] for p in parts), []) == list(range(3000))
    keyed = [set(p.to_pydict()["k"]) for p in df.repartition(3, col("k")).iter_partitions()]
    assert sum(len(k) for k in keyed) == 7, "each key in exactly one partition"
    # The count left to the runner: picked from the input, as for an aggregation's shuffle.
    same(df.repartition(None, col("k")), ordered=False)
    picked = [set(p.to_pydict()["k"]) for p in df.repartition(None, col("k")).iter_partitions()]
    assert sum(len(k) for k in picked) == 7, "each key in exactly one partition"


def test_udfs_and_actor_pools(dask):
    _, data = dask
    df = flotilla.read_parquet(data)

    @flotilla.func(return_dtype="int64")
    def triple(x):
        return x * 3

    same(df.select(col("id"), triple(col("id")).alias("t")))

    @flotilla.cls(concurrency=2, return_dtype="string")
    class Tagger:
        def __init__(self, prefix):
            self.prefix = prefix
            self.me = f"{os.getpid()}-{id(self)}"

        def __call__(self, s):
            return self.prefix + s

    tag = Tagger("<")
    got = df.select(tag(col("s")).alias("t")).to_pydict()
    assert got["t"] == ["<" + s for s in local(df.select(col("s")))["s"]]


def test_a_udf_over_one_small_input_runs_on_every_worker(dask):
    runner, _ = dask

    @flotilla.func(return_dtype="int64", batch=False)
    def heavy(x):
        import time
        time.sleep(0.002)
        return x * 2

    df = flotilla.from_pydict({"v": list(range(200))}).select(heavy(col("v")).alias("w"))
    nodes = df.explain().split("== Distributed plan (pipeline nodes) ==\n")[1]
    assert "IntoPartitions -> UdfProject -> Project (2 partitions) <- [0], added: 1 source task(s) " \
        "split so the UDF runs 2 at once" in nodes, nodes
    events = []
    runner.subscribe(events.append)
    try:
        got = same(df)  # in order still
    finally:
        runner.subscribers.remove(events.append)
    assert got["w"] == [2 * v for v in range(200)]
    udf_workers = {e["worker"] for e in events
                   if e["event"] == "completed" and "UdfProject" in e["node_name"]}
    assert len(udf_workers) == 2, events


def test_url_downloads_from_one_small_input_run_on_every_worker(dask, tmp_path):
    # Downloading is the heavy part, whatever the input's size: its rows are spread too.
    runner, _ = dask
    paths = []
    for k in range(40):
        p = tmp_path / f"doc-{k}.txt"
        p.write_bytes(f"document {k} ".encode() * (k + 1))
        paths.append(str(p))
    df = flotilla.from_pydict({"path": paths}).select(col("path").url.download().alias("body"))
    nodes = df.explain().split("== Distributed plan (pipeline nodes) ==\n")[1]
    assert "added: 1 source task(s) split so the UDF runs 2 at once" in nodes, nodes
    events = []
    runner.subscribe(events.append)
    try:
        got = same(df)
    finally:
        runner.subscribers.remove(events.append)
    assert got["body"] == [open(p, "rb").read() for p in paths]
    workers = {e["worker"] for e in events
               if e["event"] == "completed" and "UdfProject" in e["node_name"]}
    assert len(workers) == 2, events


def test_a_udf_error_reaches_the_caller_with_its_message_and_its_workers_log(dask, tmp_path):
    @flotilla.func(return_dtype="int64")
    def picky(x):
        if x == 1234:
            raise ValueError("cannot score 1234")
        return x

    runner, data = dask
    events = []
    runner.subscribe(events.append)
    runner.query_logs, before = QueryLogFiles(str(tmp_path / "logs")), runner.query_logs
    try:
        with pytest.raises(Exception, match="cannot score 1234"):
            flotilla.read_parquet(data).select(picky(col("id"))).to_pydict()
    finally:
        runner.subscribers.remove(events.append)
        runner.query_logs = before
    check_lifecycle(events)
    # The failing task's worker logged the failure; the line came back with its result, naming
    # the worker and the task, as a log event and in the query's log file.
    failed = [e for e in events if e["event"] == "failed"]
    logged = [e for e in events if e["event"] == "log"]
    assert failed and logged
    query = events[0]["query"]
    for e in logged:
        assert e["worker"] in e["message"] and f"q{query} t{e['task']}." in e["message"], e
        assert any(f["task"] == e["task"] and f["worker"] == e["worker"] for f in failed), e
    assert any("cannot score 1234" in e["message"] for e in logged)
    lines = (tmp_path / "logs" / f"query-{query}.log").read_text().splitlines()
    assert lines[0].startswith(f"query {query} started")
    assert lines[-1].startswith(f"query {query} finished: ") and "cannot score 1234" in lines[-1]
    assert [e["message"] for e in logged] == lines[1:-1]


def test_writes_are_staged_then_committed(dask, tmp_path):
    _, data = dask
    df = flotilla.read_parquet(data)
    files = df.write_parquet(str(tmp_path / "out"), partition_cols=["k"]).to_pydict()
    assert sum(files["rows"]) == 3000
    assert sorted(os.listdir(tmp_path / "out")) == [f"k={k}" for k in range(7)]
    back = flotilla.read_parquet(str(tmp_path / "out")).select(col("id"), col("s"))
    got = back.to_pydict()
    assert sorted(got["id"]) == list(range(3000))


def test_explain_shows_the_pipeline_nodes(dask, capsys):
    _, data = dask
    df = flotilla.read_parquet(data).where(col("k") < 3).repartition(2, col("k")).select(col("id"))
    text = df.explain()
    nodes = text.split("== Distributed plan (pipeline nodes) ==\n")[1]
    assert nodes.splitlines() == [
        "[0] Scan -> Repartition (4 scan tasks run as 4 tasks), each task split for [1]",
        "[1] Exchange -> Project (hash exchange, 2 partitions) <- [0]  (result)",
    ], nodes
    text = flotilla.read_parquet(data).groupby("k").agg(col("id").sum()).sort("k").explain()
    nodes = text.split("== Distributed plan (pipeline nodes) ==\n")[1]
    assert nodes.splitlines()[:2] == [
        "[0] Scan -> Aggregate -> Repartition (4 scan tasks run as 4 tasks), each task split for [1]",
        "[1] Exchange -> Aggregate (hash exchange, partitions: one per upstream task, at most the "
        "configured maximum, read in task order) <- [0], clustered on (k)",
    ], nodes
    # A join: the smaller side broadcast to the other's tasks, or both shuffled on the keys.
    df = flotilla.read_parquet(data)
    joined = df.join(df.where(col("id") < 10).select(col("id"), col("k").alias("k2")), on="id")
    nodes = joined.explain().split("== Distributed plan (pipeline nodes) ==\n")[1]
    assert "-> HashJoin" in nodes and "broadcast to every task" in nodes, nodes
    runner, _ = dask
    runner.broadcast_join_bytes = 0
    try:
        nodes = joined.explain().split("== Distributed plan (pipeline nodes) ==\n")[1]
    finally:
        runner.broadcast_join_bytes = None
    assert "Exchange -> HashJoin" in nodes and "co-partitioned" in nodes, nodes
    # The user's strategy wins over the size: broadcast even when told never to by size...
    runner.broadcast_join_bytes = 0
    try:
        hinted = df.join(df.select(col("id"), col("k").alias("k2")), on="id", strategy="broadcast")
        nodes = hinted.explain().split("== Distributed plan (pipeline nodes) ==\n")[1]
        assert "broadcast to every task" in nodes, nodes
        same(hinted, ordered=False)
    finally:
        runner.broadcast_join_bytes = None
    # ... and a hash join shuffles even a small side.
    nodes = df.join(df.where(col("id") < 10), on="id", strategy="hash").explain() \
        .split("== Distributed plan (pipeline nodes) ==\n")[1]
    assert "co-partitioned" in nodes and "broadcast" not in nodes, nodes


def test_explain_says_how_many_tasks_a_scan_runs_as(dask, tpch_directory):
    """With the default task size, a source of many small row groups runs as one task per
    worker, and explain says so before the run."""
    runner, _ = dask
    events = []
    runner.subscribe(events.append)
    runner.scan_task_min_bytes = None
    try:
        df = flotilla.read_parquet(str(tpch_directory / "lineitem")).where(col("l_quantity") > 49)
        nodes = df.explain().split("== Distributed plan (pipeline nodes) ==\n")[1]
        assert "scan tasks run as 2 tasks)" in nodes, nodes
        df.to_pydict()
    finally:
        runner.scan_task_min_bytes = 1
        runner.subscribers.remove(events.append)
    scans = [e for e in events if e["event"] == "completed" and e["node_name"].startswith("Scan")]
    assert len(scans) == 2 and len({e["worker"] for e in scans}) == 2, scans


def test_a_failed_write_leaves_nothing_behind(dask, tmp_path):
    _, data = dask

    @flotilla.func(return_dtype="int64")
    def fails_late(x):
        if x >= 2000:
            raise ValueError("no space for id 2000")
        return x

    df = flotilla.read_parquet(data).select(fails_late(col("id")).alias("id"))
    with pytest.raises(Exception, match="no space for id 2000"):
        df.write_parquet(str(tmp_path / "out"))
    left = [p for p in (tmp_path / "out").rglob("*")] if (tmp_path / "out").exists() else []
    assert left == []


@pytest.mark.parametrize("strategy", [None, "hash", "sort_merge", "broadcast"])
def test_joins_of_every_kind_on_the_cluster(dask, strategy):
    runner, data = dask
    left = flotilla.read_parquet(data).where(col("id") % 3 != 0)
    right = flotilla.from_pydict({"k": [0, 1, 1, 2, 9, None], "tag": ["a", "b", "c", "d", "e", "f"]})
    rights = {
        "duplicates, a null and a key only on the right": right,
        "all keys null": right.where(col("k").is_null()),
        "empty": right.where(col("k") > 100),
        "one hot key": flotilla.from_pydict({"k": [3] * 40 + [5], "tag": [f"t{i}" for i in range(41)]}),
    }
    hows = ["inner", "left", "right", "outer"]
    if strategy != "sort_merge":  # the sort-merge join has no semi or anti joins
        hows += ["semi", "anti"]
    for what, r in rights.items():
        for how in hows:
            for l, rr in [(left, r), (r, left)]:  # each side the large one
                try:
                    same(l.join(rr, on="k", how=how, strategy=strategy), ordered=False)
                except AssertionError as e:
                    raise AssertionError(f"{how} join, {strategy}, {what}") from e
    # A self-join of the large side: many-to-many on k.
    small = left.where(col("id") < 200)
    same(small.join(small.select(col("k"), col("id").alias("id2")), on="k", strategy=strategy),
         ordered=False)


def test_cross_joins_broadcast_or_pair_tasks(dask):
    runner, data = dask
    left = flotilla.read_parquet(data).where(col("id") < 40)
    right = flotilla.from_pydict({"tag": ["a", "b", "c"]})
    same(left.join(right, how="cross"), ordered=False)
    # Nothing small enough to broadcast: every pair of the two sides' tasks.
    runner.broadcast_join_bytes = 0
    try:
        pairs = left.join(flotilla.read_parquet(data).where(col("id") > 2980).select(col("id").alias("id2")),
                          how="cross")
        nodes = pairs.explain().split("== Distributed plan (pipeline nodes) ==\n")[1]
        assert "Pairs -> CrossJoin (every pair of tasks)" in nodes, nodes
        same(pairs, ordered=False)
    finally:
        runner.broadcast_join_bytes = None


def test_a_broadcast_side_over_the_cap_is_joined_by_shuffle(dask):
    runner, data = dask
    events = []
    runner.subscribe(events.append)
    runner.broadcast_max_bytes = 1
    try:
        df = flotilla.read_parquet(data)
        # Told to broadcast a side of 3000 rows; computed, it is over the 1-byte cap.
        hinted = df.join(df.select(col("id"), col("k").alias("k2")), on="id", strategy="broadcast")
        same(hinted.groupby("k2").agg(col("id").count().alias("n")), ordered=False)
    finally:
        runner.broadcast_max_bytes = None
        runner.subscribers.remove(events.append)
    done = {e["node_name"] for e in events if e["event"] == "completed"}
    # The join ran in an exchange of both sides; the broadcast side was split after all.
    joins = [n for n in done if "HashJoin" in n]
    assert joins and all(n.startswith("Exchange -> HashJoin") for n in joins), done
    assert "Map -> Repartition" in done, done


@pytest.fixture
def one_local_thread():
    """The local engine merges thread-local aggregation states in the order its threads finish:
    with one thread, first/last/list follow input order, as the cluster's must."""
    flotilla.set_execution_config(num_threads=1)
    yield
    flotilla.set_execution_config(num_threads=os.cpu_count())


def test_aggregates_on_the_cluster(dask, one_local_thread):
    _, data = dask
    df = flotilla.read_parquet(data)
    grouped = df.groupby("k").agg(
        col("id").sum().alias("total"), col("id").count().alias("n"), col("s").min().alias("lo"),
        col("id").mean().alias("avg"), col("s").agg_list().alias("all_s"))
    got = same(grouped, ordered=False)
    assert sorted(got["k"]) == list(range(7))
    assert sum(got["n"]) == 3000
    # Order-sensitive: each list in input order, exactly as locally.
    for k, items in zip(got["k"], got["all_s"]):
        assert items == [f"w{i % 13} x{i % 5}" for i in range(3000) if i % 7 == k]
    same(df.agg(col("id").sum().alias("total"), col("s").count().alias("n")))
    same(df.where(col("id") < 0).agg(col("id").sum().alias("total"), col("s").count().alias("n")))
    same(df.groupby("k", "s").count(), ordered=False)


@pytest.fixture
def range_sorts(dask):
    """Sorts of these few rows range partitioned, as large ones are."""
    runner, _ = dask
    runner.gather_sort_rows = 0
    yield
    runner.gather_sort_rows = None


def test_distinct_sort_top_n_on_the_cluster(dask, one_local_thread, range_sorts):
    _, data = dask
    df = flotilla.read_parquet(data)
    same(df.select(col("k"), (col("id") % 3).alias("m")).distinct(), ordered=False)
    # First row per key wins, as locally.
    got = same(df.distinct("k"), ordered=False)
    assert sorted(got["id"]) == list(range(7))
    got = same(df.sort("s", desc=True))
    assert got["s"] == sorted(got["s"], reverse=True)
    same(df.sort(["k", "id"], desc=[False, True]))
    same(df.sort("s").limit(25))
    same(df.sort("k", desc=True).offset(10).limit(5))


def test_a_sort_of_few_rows_runs_in_one_task(dask, one_local_thread):
    _, data = dask
    df = flotilla.read_parquet(data).groupby("k").agg(col("id").sum().alias("total")).sort("total")
    nodes = df.explain().split("== Distributed plan (pipeline nodes) ==\n")[1]
    assert "Gather -> Sort (gather)" in nodes and "SortSample" not in nodes, nodes
    got = same(df)
    assert got["total"] == sorted(got["total"])


def test_window_pivot_and_ids_on_the_cluster(dask, one_local_thread):
    _, data = dask
    df = flotilla.read_parquet(data)
    w = flotilla.Window().partition_by("k").order_by("id")
    same(df.with_column("rn", flotilla.row_number().over(w)), ordered=False)
    whole = flotilla.Window().order_by("id", desc=True)
    same(df.with_column("rn", flotilla.row_number().over(whole)), ordered=False)
    pivoted = df.with_column("p", (col("id") % 3).cast("string")).pivot("k", "p", "id", "sum", ["0", "1", "2"])
    same(pivoted, ordered=False)
    parts = flotilla.from_pydict({"v": list(range(100))}).into_partitions(4)
    same(parts._add_monotonically_increasing_id("row_id"))


@pytest.fixture(scope="module")
def tpch_tables(tpch_directory):
    names = ["region", "nation", "supplier", "part", "partsupp", "customer", "orders", "lineitem"]
    return {n: flotilla.read_parquet(str(tpch_directory / n)) for n in names}


def same_within(df, rel=1e-9):
    """As same(), but doubles summed in another order may differ in their last digits."""
    import math
    want = local(df)
    got = df.to_pydict()
    assert list(got) == list(want)
    for name in want:
        assert len(got[name]) == len(want[name]), name
        for a, b in zip(got[name], want[name]):
            if isinstance(a, float) and isinstance(b, float):
                assert math.isclose(a, b, rel_tol=rel), (name, a, b)
            else:
                assert type(a) is type(b) and a == b, (name, a, b)
    return got


@pytest.mark.parametrize("number", range(1, 23))
def test_tpch_queries_on_the_cluster(dask, tpch_tables, number):
    """Every TPC-H query, as SQL and as the DataFrame program, equals the local runner's answer
    on the cluster: joins shuffled or broadcast, aggregates, sorts, subqueries."""
    import importlib.util
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    spec = importlib.util.spec_from_file_location("tpch_queries", os.path.join(root, "tpch", "dataframe", "queries.py"))
    queries = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(queries)
    runner, _ = dask
    events = []
    runner.subscribe(events.append)
    try:
        got = same_within(queries.QUERIES[number](lambda n: tpch_tables[n]))
        text = open(os.path.join(root, "tpch", "queries", f"q{number:02}.sql")).read()
        same_within(flotilla.sql(text, **tpch_tables))
    finally:
        runner.subscribers.remove(events.append)
    assert any(len(v) for v in got.values()), "the query returns rows at this scale"
    assert_query_lifecycle(events)
    workers = {e["worker"] for e in events if e["event"] == "completed"}
    assert len(workers) == 2, "both workers ran tasks"


@pytest.mark.parametrize("number", [1, 3])
def test_explain_analyze_runs_on_the_cluster_and_counts_the_local_runners_rows(
        dask, tpch_tables, number, capsys):
    """explain(analyze=True) on the cluster: each pipeline node's operators summed over its
    tasks. The operators the distributed plan shares with the local one (scans, projections,
    join probes, the last TopN or sort) count the rows the local runner counts."""
    runner, _ = dask
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    df = flotilla.sql(open(os.path.join(root, "tpch", "queries", f"q{number:02}.sql")).read(),
                      **tpch_tables)
    events = []
    runner.subscribe(events.append)
    try:
        text = df.explain(analyze=True)
    finally:
        runner.subscribers.remove(events.append)
    stats = text.split("== Runtime statistics (cluster of 2 workers")[1]
    ran = {e["node"] for e in events if e["event"] == "completed"}
    for node in ran:
        assert f"\n[{node}] " in stats, stats
    assert "task(s)]" in stats

    local_rows = {}
    for op in df._df.operator_stats():
        key = (op["name"], _ext.operator_label(op["name"], op["detail"]))
        local_rows[key] = local_rows.get(key, 0) + op["rows_out"]
    cluster_rows = {}  # the last node running an operator answers for it (a final TopN)
    analysis = runner.analyze(df._df)
    for node in analysis:
        assert node["tasks"] > 0 and node["attempts"] == node["tasks"]
        for op in node["operators"]:
            assert op["tasks"] == node["tasks"]
            cluster_rows[(op["name"], op["detail"])] = op["rows_out"]
    shared = {k: v for k, v in cluster_rows.items() if k in local_rows}
    assert len(shared) >= (3 if number == 1 else 8), (shared, local_rows)
    assert shared == {k: local_rows[k] for k in shared}
    # Each completed task's event says what it measured.
    done = [e for e in events if e["event"] == "completed"]
    assert done and all(e["operators"] and e["cpu_seconds"] >= 0 for e in done)
    assert all({"name", "depth", "rows_out", "cpu_seconds", "start", "end"} <= set(o)
               for e in done for o in e["operators"])


def test_event_log_records_every_task(dask, tmp_path):
    runner, data = dask
    runner.event_log = str(tmp_path / "events.jsonl")
    try:
        flotilla.read_parquet(data).where(col("k") == 3).to_pydict()
    finally:
        runner.event_log = None
    events = [json.loads(line) for line in open(tmp_path / "events.jsonl")]
    kinds = {e["event"] for e in events}
    assert {"submitted", "scheduled", "completed", "query_finished"} <= kinds
    completed = [e for e in events if e["event"] == "completed"]
    assert len(completed) == 4  # one per file (one row group each)
    assert len({e["worker"] for e in completed}) == 2
    assert all(e["rows"] >= 0 and e["seconds"] >= 0 for e in completed)


def test_subscribers_receive_task_events(dask):
    runner, data = dask
    seen = []
    runner.subscribe(seen.append)
    try:
        flotilla.read_parquet(data).limit(5).to_pydict()
    finally:
        runner.subscribers.clear()
    assert seen[-1]["event"] == "query_finished" and seen[-1]["status"] == "ok"
    completed = [e for e in seen if e["event"] == "completed"]
    assert completed and all(e["worker"] for e in completed)
    assert {e["node_name"] for e in completed} >= {"Limit"}


def test_an_existing_dask_cluster_by_address():
    from distributed import LocalCluster

    from flotilla.dask_runner import DaskRunner

    cluster = LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None)
    runner = DaskRunner(address=cluster.scheduler_address, progress=False)
    try:
        df = flotilla.from_pydict({"v": list(range(10))}).into_partitions(3).where(col("v") % 2 == 0)
        got = _ext.concat_batches(runner.run(df._df, df._pools)).to_pydict()
        assert got == {"v": [0, 2, 4, 6, 8]}
        assert len(runner.worker_pids()) == 1
    finally:
        runner.close()
        cluster.close()


def test_a_worker_killed_after_a_map_task_is_recovered(dask):
    """Killed at a chosen phase: once the first map task of a shuffle finished on it, before any
    reduce task can start. Its map outputs are gone with it, so the driver must run them again
    (and says so in its events); the answer is the local one, and the runner serves the next
    query. scripts/dask_kill_loop.sh runs this in a loop."""
    runner, _ = dask

    @flotilla.func(return_dtype="int64", batch=False)
    def slow(x):
        import time
        time.sleep(0.005)
        return x + 1

    df = flotilla.from_pydict({"v": list(range(400))}).into_partitions(8)
    df = df.select(slow(col("v")).alias("w")).repartition(2, col("w"))
    want = local(df)
    events, killed = [], []

    def kill_after_first_map_task(e):
        events.append(e)
        if not killed and e["event"] == "completed" and e["node_name"].endswith("-> Repartition"):
            pid = next(w.pid for w in runner.workers.values() if w.id == e["worker"])
            os.kill(pid, signal.SIGKILL)
            killed.append(e["worker"])

    runner.subscribe(kill_after_first_map_task)
    try:
        got = df.to_pydict()
    finally:
        runner.subscribers.remove(kill_after_first_map_task)
    assert killed
    assert sorted(got["w"]) == sorted(want["w"])
    lost = [e for e in events if e["event"] == "cancelled"
            and f"output lost with worker {killed[0]}" in e["message"]]
    assert lost, "the killed worker's map outputs were run again"
    # The runner goes on with the workers it has (and the one its nanny restarts).
    same(flotilla.from_pydict({"v": list(range(60))}).into_partitions(4)
         .select((col("v") * 2).alias("d")).repartition(3, col("d")), ordered=False)


def test_actor_pools_are_placed_by_their_resource_requests():
    from flotilla.dask_runner import DaskRunner

    @flotilla.cls(concurrency=2, num_gpus=1, return_dtype="int64")
    class OnGpu:
        def __call__(self, x):
            return os.getpid()

    runner = DaskRunner(n_workers=2, resources={"GPU": 1}, progress=False)
    try:
        df = flotilla.from_pydict({"v": list(range(64))}).into_partitions(8)
        df = df.select(OnGpu()(col("v")).alias("pid"))
        pids = set(_ext.concat_batches(runner.run(df._df, df._pools)).to_pydict()["pid"])
        assert len(pids) == 2, "one actor on each worker's GPU"

        @flotilla.cls(concurrency=3, num_gpus=1, return_dtype="int64")
        class TooMany:
            def __call__(self, x):
                return x

        df = flotilla.from_pydict({"v": [1]}).select(TooMany()(col("v")))
        with pytest.raises(RuntimeError, match="need GPU resources"):
            runner.run(df._df, df._pools)
    finally:
        runner.close()


def test_scalar_subqueries_are_answered_on_the_cluster(dask):
    runner, data = dask
    events = []
    record = events.append
    runner.subscribe(record)
    try:
        df = flotilla.sql("SELECT id FROM t WHERE k = 3 AND id > (SELECT avg(id) FROM t)",
                          t=flotilla.read_parquet(data))
        # Planning ran the subquery's aggregate on the workers, before the query itself.
        done = [e["node_name"] for e in events if e["event"] == "completed"]
        assert any(name.startswith("Gather -> Aggregate") for name in done), done
    finally:
        runner.subscribers.remove(record)
    got = same(df, ordered=False)
    assert sorted(got["id"]) == [i for i in range(3000) if i % 7 == 3 and i > 1499.5]


def test_minhash_dedup_on_the_cluster_matches_the_local_runner(dask):
    """Deduplication is joins, aggregations and collected rounds of label propagation: on the
    cluster they give the local runner's components and kept rows."""
    from flotilla import runner as runners
    from flotilla.dedup import minhash_dedup, planted_corpus

    corpus = planted_corpus(300, seed=5)
    df = flotilla.from_pydict(corpus).into_partitions(4)
    on_cluster = minhash_dedup(df, "text", "id", components=True).sort("id").to_pydict()
    kept_on_cluster = minhash_dedup(df, "text", "id").sort("id").to_pydict()
    cluster, runners._runner = runners._runner, LocalRunner()
    assert type(cluster).__name__ == "DaskRunner"
    try:
        here = minhash_dedup(df, "text", "id", components=True).sort("id").to_pydict()
        kept_here = minhash_dedup(df, "text", "id").sort("id").to_pydict()
    finally:
        runners._runner = cluster
    assert on_cluster == here
    assert kept_on_cluster == kept_here
    assert len(kept_here["id"]) < len(corpus["id"])  # near-duplicates were removed


def test_web_text_pipeline_on_the_cluster_matches_the_local_runner(dask, tmp_path):
    """WARC scan tasks travel to the workers; page text, the quality filter and deduplication
    there give the local runner's pages."""
    from flotilla import runner as runners
    from flotilla.dedup import minhash_dedup
    from flotilla.text import page_text, planted_crawl, quality_filter, uri_id, write_warc

    records, truth = planted_crawl(200, seed=4)
    write_warc(str(tmp_path / "a.warc.gz"), records[:201])
    write_warc(str(tmp_path / "b.warc.gz"), records[201:])

    def pipeline():
        pages = page_text(flotilla.read_warc(str(tmp_path)))
        good = pages.where(quality_filter(col("text"))).with_column("id", uri_id(col("uri")))
        return (pages.sort("uri").to_pydict(),
                minhash_dedup(good.collect(), "text", "id").sort("uri").to_pydict())

    pages_on_cluster, kept_on_cluster = pipeline()
    cluster, runners._runner = runners._runner, LocalRunner()
    assert type(cluster).__name__ == "DaskRunner"
    try:
        pages_here, kept_here = pipeline()
    finally:
        runners._runner = cluster
    assert pages_on_cluster == pages_here
    assert sorted(pages_here["uri"]) == sorted(truth)
    assert kept_on_cluster == kept_here
    assert 0 < len(kept_here["uri"]) < sum(not t["junk"] for t in truth.values())


def test_a_chrome_trace_has_a_span_per_task_in_lanes_that_never_overlap(dask, tmp_path):
    """FLOTILLA_TRACE / DaskRunner(trace=): each query's tasks appended to a Chrome trace (the
    JSON array form, which needs no closing bracket): a complete event per finished task, on a
    lane of its worker's process that no other span overlaps."""
    runner, data = dask
    path = tmp_path / "trace.json"
    events = []
    runner.trace = str(path)
    runner.subscribe(events.append)
    try:
        df = flotilla.read_parquet(data).groupby("k").agg(col("id").sum()).sort("k")
        same(df)
        same(flotilla.read_parquet(data).repartition(3, col("k")), ordered=False)
    finally:
        runner.subscribers.remove(events.append)
        runner.trace = None
    text = path.read_text()
    assert text.startswith("[\n")
    trace = json.loads(text.rstrip().rstrip(",") + "]")
    spans = [e for e in trace if e["ph"] == "X" and e["cat"] == "task"]
    operators = [e for e in trace if e["ph"] == "X" and e["cat"] == "operator"]
    done = sorted((e["query"], e["task"], e["attempt"]) for e in events if e["event"] == "completed")
    assert sorted((s["args"]["query"], s["args"]["task"], s["args"]["attempt"]) for s in spans
                  if s["args"]["status"] == "ok") == done
    assert len({e["query"] for e in events if "query" in e}) == 2
    by_lane = {}
    for s in spans:
        assert s["dur"] >= 0 and s["name"]
        by_lane.setdefault((s["pid"], s["tid"]), []).append((s["ts"], s["ts"] + s["dur"]))
    for lane in by_lane.values():
        lane.sort()
        assert all(a[1] <= b[0] for a, b in zip(lane, lane[1:])), lane
    # Each finished task's operators: nested in its span, side by side, filling it.
    assert operators
    ok = {(s["pid"], s["args"]["task"]): s for s in spans if s["args"]["status"] == "ok"}
    by_task = {}
    for o in operators:
        by_task.setdefault((o["pid"], o["args"]["task"]), []).append(o)
    assert set(by_task) <= set(ok)
    for key, ops in by_task.items():
        task = ok[key]
        ops.sort(key=lambda o: o["ts"])
        assert all(o["tid"] == task["tid"] and o["dur"] > 0 for o in ops)
        assert ops[0]["ts"] >= task["ts"] and ops[-1]["ts"] + ops[-1]["dur"] == task["ts"] + task["dur"]
        assert all(a["ts"] + a["dur"] == b["ts"] for a, b in zip(ops, ops[1:])), ops
    named = {e["pid"] for e in trace if e["ph"] == "M" and e["name"] == "process_name"}
    assert {s["pid"] for s in spans} <= named
    assert_query_lifecycle(events)
    workers = {e["worker"] for e in events if e["event"] == "completed"}
    assert {e["args"]["name"].split(" worker ")[1] for e in trace
            if e["ph"] == "M" and e["name"] == "process_name"} == workers
