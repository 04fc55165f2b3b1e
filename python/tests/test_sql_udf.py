"""flotilla.sql, configuration and UDFs."""
import os
import threading

import numpy as np
import pytest

import flotilla
from flotilla import col


def test_sql_over_dataframes(people):
    out = flotilla.sql("SELECT city, count(*) AS n, max(score) AS best FROM p "
                       "WHERE city IS NOT NULL GROUP BY city ORDER BY city", p=people)
    assert out.to_pydict() == {"city": ["oslo", "rome"], "n": [2, 2], "best": [3.5, 4.0]}
    other = flotilla.from_pydict({"id": [1, 5], "tag": ["x", "y"]})
    joined = flotilla.sql("SELECT p.name, o.tag FROM p JOIN o USING (id) ORDER BY id", p=people, o=other)
    assert joined.to_pydict() == {"name": ["ann", None], "tag": ["x", "y"]}
    # The result is a DataFrame like any other.
    assert joined.where(col("tag") == "y").count_rows() == 1
    with pytest.raises(ValueError, match="line 1, column 8"):
        flotilla.sql("SELECT nope FROM p", p=people)


def test_sql_and_dataframe_give_the_same_plan(people):
    sql_text = flotilla.sql("SELECT city, sum(score) AS s FROM p WHERE id > 1 GROUP BY city",
                            p=people).explain()
    df_text = people.where(col("id") > 1).groupby("city").agg(col("score").sum().alias("s")).explain()
    assert sql_text.split("== Optimized plan ==")[1] == df_text.split("== Optimized plan ==")[1]


def test_execution_config(random_frame):
    df, pdf = random_frame
    flotilla.set_execution_config(num_threads=1, default_morsel_size=100)
    try:
        assert df.agg(col("y").sum().alias("s")).to_pydict()["s"] == [int(pdf["y"].sum())]
    finally:
        flotilla.set_execution_config(num_threads=4, default_morsel_size=131072)
    with pytest.raises(ValueError, match="memory_limit"):
        flotilla.set_execution_config(memory_limit="lots")
    # Asking again for the threads it has starts none: a Dask worker does so for every runner.
    threads = lambda: len(os.listdir("/proc/self/task"))  # noqa: E731
    flotilla.set_execution_config(num_threads=3)
    before = threads()
    for _ in range(5):
        flotilla.set_execution_config(num_threads=3)
    assert threads() == before
    flotilla.set_execution_config(num_threads=4)
    assert threads() == before + 4


def test_row_and_batch_udfs(people):
    @flotilla.func
    def shout(s: str) -> str:
        return s.upper() + "!"

    @flotilla.func(batch=True, return_dtype="double")
    def halve(scores):
        return scores.to_numpy() * 0.5

    out = people.select(shout(col("name")).alias("s"), halve(col("score")).alias("h")).to_pydict()
    assert out["s"] == ["ANN!", "BOB!", "CY!", "DEE!", None]
    assert out["h"][:2] == [1.75, 0.5] and out["h"][2] != out["h"][2]  # NaN for the null
    nested = people.where(shout(col("name")) == "BOB!").select("id").to_pydict()
    assert nested == {"id": [2]}


def test_udf_errors_name_the_udf_and_input(people):
    @flotilla.func(return_dtype="bigint")
    def picky(x):
        if x == 3:
            raise RuntimeError("three is not allowed")
        return x

    with pytest.raises(ValueError, match=r"UDF 'picky' failed on input \(3\): RuntimeError: three"):
        people.select(picky(col("id"))).to_pydict()
    with pytest.raises(TypeError, match="return_dtype"):
        flotilla.func(lambda x: x)


def test_class_udf_pool_initialises_each_instance_once(random_frame):
    df, pdf = random_frame
    created = []
    lock = threading.Lock()

    @flotilla.cls(concurrency=2, batch=True, return_dtype="double", num_cpus=1)
    class Model:
        def __init__(self, weight):
            with lock:
                created.append(id(self))
            self.weight = weight

        def __call__(self, xs):
            return xs.to_numpy() * self.weight

    assert Model.resources == {"num_cpus": 1}
    model = Model(3.0)
    flotilla.set_execution_config(default_morsel_size=500)
    try:
        out = df.into_partitions(4).with_column("pred", model(col("x")))
        text = out.explain()
        assert "ActorPoolProject (2 instances)" in text
        result = out.to_pandas()
    finally:
        flotilla.set_execution_config(default_morsel_size=131072)
    assert len(created) == 2  # both started with the query, none more
    np.testing.assert_allclose(np.sort(result["pred"]), np.sort(pdf["x"] * 3.0))


def test_queries_release_the_gil():
    # While a query runs on another thread, this thread keeps running Python: the longest pause
    # between its iterations is far shorter than the query.
    import time

    df = flotilla.from_pydict({"a": list(range(4000))})
    big = df.join(df.select(col("a").alias("b")), how="cross").agg(
        (col("a") * col("b")).sum().alias("s"))
    result, done = {}, threading.Event()

    def run():
        start = time.perf_counter()
        result["s"] = big.to_pydict()["s"]
        result["seconds"] = time.perf_counter() - start
        done.set()

    worker = threading.Thread(target=run)
    last, longest = time.perf_counter(), 0.0  # before start(): the worker may run first
    worker.start()
    while not done.is_set():
        now = time.perf_counter()
        longest = max(longest, now - last)
        last = now
    longest = max(longest, time.perf_counter() - last)  # a pause that lasted to the end
    worker.join()
    assert result["s"] == [sum(range(4000)) ** 2]
    assert longest < max(0.05, result["seconds"] / 2), (longest, result["seconds"])


def test_using_finds_a_column_whatever_its_case():
    """An unquoted USING (A) reads "a", as every identifier: it finds a DataFrame's "A"."""
    a = flotilla.from_pydict({"A": [1, 2], "x": [10, 20]})
    b = flotilla.from_pydict({"A": [2, 3], "y": [200, 300]})
    got = flotilla.sql("SELECT * FROM a JOIN b USING (A)", a=a, b=b).to_pydict()
    assert got == {"A": [2], "x": [20], "y": [200]}
    full = flotilla.sql("SELECT * FROM a FULL JOIN b USING (a) ORDER BY A", a=a, b=b).to_pydict()
    assert full["A"] == [1, 2, 3]
    two = flotilla.from_pydict({"Ab": [1], "aB": [2]})  # neither is "ab" as written
    with pytest.raises(ValueError, match="USING column 'ab' is ambiguous on the left side"):
        flotilla.sql("SELECT * FROM t JOIN t2 USING (ab)", t=two, t2=two).to_pydict()


def test_sql_list_indexes_count_from_one():
    """SQL as DuckDB: l[1] is the first element, l[-1] the last, l[0] null; the Python .list
    namespace stays 0-based as Daft's."""
    t = flotilla.from_pydict({"l": [[1, 2, 3], [4]]})
    got = flotilla.sql("SELECT l[1] AS a, l[-1] AS b, l[0] AS c, list_element(l, 3) AS d FROM t",
                       t=t).to_pydict()
    assert got == {"a": [1, 4], "b": [3, 4], "c": [None, None], "d": [3, None]}
    assert t.select(col("l").list.get(0).alias("g")).to_pydict()["g"] == [1, 4]


def test_sql_list_slice_counts_from_one_inclusive():
    """SQL's list_slice / array_slice as DuckDB's (1-based, both ends inclusive, negative from
    the end; DuckDB gives these rows); the Python .list.slice stays 0-based, end exclusive."""
    t = flotilla.from_pydict({"l": [[1, 2, 3, 4, 5], [7], None]})
    got = flotilla.sql("SELECT list_slice(l, 2, 4) AS a, array_slice(l, -2, -1) AS b, "
                       "list_slice(l, 0, 1) AS c, list_slice(l, 1, 5, 2) AS d FROM t",
                       t=t).to_pydict()
    assert got == {"a": [[2, 3, 4], [], None], "b": [[4, 5], [7], None],
                   "c": [[1], [7], None], "d": [[1, 3, 5], [7], None]}
    assert t.select(col("l").list.slice(1, 3).alias("s")).to_pydict()["s"] == [[2, 3], [], None]
