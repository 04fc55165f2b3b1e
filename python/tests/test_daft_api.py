"""Daft's API as Daft programs use it (`import flotilla as daft`): names of output columns,
DataType, the UDF decorators, daft.functions, sql / sql_expr, and the DataFrame and Expression
methods. Expected values are worked out by hand or with pandas on the same data."""
import datetime
import math

import numpy as np
import pandas as pd
import pytest

import flotilla as daft
from flotilla import DataType, col, lit
from flotilla.functions import (columns_max, columns_mean, columns_min, columns_sum, format,
                                when)


@pytest.fixture
def sales():
    return daft.from_pydict({
        "k": ["a", "b", "a", "c", "b", "a"],
        "x": [1, 2, 3, 4, 5, 6],
        "v": [1.234, 2.345, None, 4.5, 5.25, 6.125],
    })


# --- names of output columns -----------------------------------------------------------------------

def test_unaliased_expressions_are_named_after_their_first_column(sales):
    out = sales.select(col("v").round(2), (col("x") + col("v")), col("k").str.upper())
    assert out.column_names == ["v", "x", "k"]
    d = out.to_pydict()
    assert d["v"][:2] == [1.23, 2.35] and d["x"][0] == pytest.approx(2.234)
    assert d["k"][0] == "A"
    assert sales.select((lit(1) + col("x"))).column_names == ["literal"]
    assert sales.select(col("x").alias("y") * 2).column_names == ["y"]


def test_grouped_aggregates_keep_the_column_name_so_sort_can_use_it(sales):
    out = sales.groupby("k").agg(col("x").sum(), col("v").mean()).sort("x")
    assert out.column_names == ["k", "x", "v"]
    d = out.to_pydict()
    assert d["k"] == ["c", "b", "a"] and d["x"] == [4, 7, 10]
    pdf = pd.DataFrame({"k": ["a", "b", "a", "c", "b", "a"], "v": [1.234, 2.345, None, 4.5, 5.25, 6.125]})
    expected = pdf.groupby("k")["v"].mean()
    assert d["v"] == [pytest.approx(expected[k]) for k in d["k"]]
    assert sales.agg(col("x").max(), col("v").min()).to_pydict() == {"x": [6], "v": [1.234]}


def test_window_and_udf_outputs_are_named_after_their_argument(sales):
    w = daft.Window().partition_by("k")
    out = sales.select("k", col("x").sum().over(w))
    assert out.column_names == ["k", "x"]
    assert out.sort(["k", "x"]).to_pydict()["x"] == [10, 10, 10, 7, 7, 4]

    @daft.func
    def twice(x: int) -> int:
        return 2 * x

    assert sales.select(twice(col("x"))).to_pydict() == {"x": [2, 4, 6, 8, 10, 12]}


def test_sql_keeps_its_own_names(sales):
    assert daft.sql("SELECT sum(x) FROM t", t=sales).column_names == ["sum(x)"]


# --- DataType ----------------------------------------------------------------------------------------

def test_datatypes_compare_with_schemas_and_cast(sales):
    schema = sales.schema()
    assert schema["x"].dtype == DataType.int64() and schema["k"].dtype == DataType.string()
    assert schema["v"].dtype == DataType.float64() and schema["v"].dtype == "float64"
    assert [f.name for f in schema] == ["k", "x", "v"]
    out = sales.select(col("x").cast(DataType.int8()), col("x").cast(DataType.string()).alias("s"),
                       col("v").cast(DataType.decimal128(10, 1)).alias("d"))
    types = out.schema()
    assert types["x"].dtype == DataType.int8() and types["s"].dtype == DataType.string()
    assert types["d"].dtype == DataType.decimal128(10, 1)
    assert out.to_pydict()["s"][:2] == ["1", "2"]
    assert str(out.to_pydict()["d"][0]) == "1.2"
    assert sales.select(col("x").cast(float)).to_pydict()["x"][0] == 1.0
    assert sales.select(col("x").cast("bigint")).schema()["x"].dtype == DataType.int64()


def test_nested_and_temporal_datatypes_build_columns():
    df = daft.from_pydict(
        {"xs": [[1, 2], [3]], "s": [{"a": 1, "b": "x"}, {"a": 2, "b": "y"}],
         "t": [datetime.datetime(2024, 1, 2, 3, 4, 5, 6000), None]},
        schema={"xs": DataType.list(DataType.int32()),
                "s": DataType.struct({"a": DataType.int64(), "b": DataType.string()}),
                "t": DataType.timestamp("us")})
    schema = df.schema()
    assert schema["xs"].dtype == DataType.list(DataType.int32())
    assert schema["s"].dtype == DataType.struct({"a": DataType.int64(), "b": DataType.string()})
    ts = df.select(col("t").cast(DataType.timestamp("ms")))
    assert ts.schema()["t"].dtype == DataType.timestamp("ms")
    assert ts.to_pydict()["t"] == [datetime.datetime(2024, 1, 2, 3, 4, 5, 6000), None]
    assert DataType.fixed_size_list(DataType.float32(), 3) == "fixed_size_list<float32>[3]"
    assert DataType.duration("us") == "duration[us]"
    assert DataType.null() == "null" and DataType.binary() == "binary" and DataType.date() == "date32"
    assert DataType.uint16() != DataType.int16()
    assert df.select(col("s")["b"], col("s").struct.get("a")).to_pydict() == {"b": ["x", "y"], "a": [1, 2]}


def test_types_the_engine_lacks_are_refused_by_name():
    with pytest.raises(NotImplementedError, match="no python type"):
        DataType.python()
    with pytest.raises(NotImplementedError, match="no tensor type"):
        DataType.tensor(DataType.float32())
    with pytest.raises(NotImplementedError, match="no image type"):
        DataType.image()
    with pytest.raises(ValueError, match="precision"):
        DataType.decimal128(40, 2)
    with pytest.raises(TypeError, match="expected a DataType"):
        col("x").cast(3.5)


def test_read_csv_schema_takes_datatypes(tmp_path):
    path = tmp_path / "a.csv"
    path.write_text("id,name\n1,x\n2,y\n")
    df = daft.read_csv(str(path), schema={"id": DataType.float64(), "name": DataType.string()})
    assert df.schema()["id"].dtype == DataType.float64()
    assert df.to_pydict() == {"id": [1.0, 2.0], "name": ["x", "y"]}


# --- UDFs --------------------------------------------------------------------------------------------

def test_legacy_function_udf_gets_series_and_constants(sales):
    seen = []

    @daft.udf(return_dtype=DataType.float64(), batch_size=4)
    def scaled(xs, factor):
        seen.append(len(xs))
        return xs.to_numpy() * factor

    out = sales.with_column("y", scaled(col("x"), 0.5)).to_pydict()
    assert out["y"] == [0.5, 1.0, 1.5, 2.0, 2.5, 3.0]
    assert max(seen) <= 4 and sum(seen) == 6

    @daft.udf(return_dtype=DataType.string())
    def joined(ks, xs):
        return daft.Series.from_pylist([f"{k}{x}" for k, x in zip(ks.to_pylist(), xs.to_pylist())])

    assert sales.select(joined(col("k"), col("x"))).to_pydict()["k"][:2] == ["a1", "b2"]


def test_legacy_class_udf_with_init_args_and_concurrency(sales):
    inits = []

    @daft.udf(return_dtype=DataType.int64(), concurrency=1)
    class AddOffset:
        def __init__(self, offset=100):
            inits.append(offset)
            self.offset = offset

        def __call__(self, xs):
            return [x + self.offset for x in xs.to_pylist()]

    assert sales.select(AddOffset(col("x"))).to_pydict()["x"] == [101, 102, 103, 104, 105, 106]
    Ten = AddOffset.with_init_args(offset=10).with_concurrency(2).override_options(batch_size=2)
    assert sales.select(Ten(col("x"))).to_pydict()["x"] == [11, 12, 13, 14, 15, 16]
    assert inits.count(100) == 1 and inits.count(10) == 2
    GPU = AddOffset.override_options(num_gpus=1)
    assert GPU.resources == {"num_gpus": 1}  # recorded; the local runner runs on the CPU
    with pytest.raises(ValueError, match="concurrency"):
        AddOffset.with_concurrency(0)


def test_func_batch_cls_and_method(sales):
    @daft.func.batch(return_dtype=DataType.int64())
    def plus_one(xs: daft.Series):
        return xs.to_numpy() + 1

    @daft.func
    def tag(k: str, x: int) -> str:
        return f"{k}:{x}"

    @daft.cls
    class Scaler:
        def __init__(self, factor):
            self.factor = factor

        def __call__(self, x: int) -> int:
            return x * self.factor

        @daft.method(return_dtype=DataType.list(DataType.int64()))
        def pair(self, x):
            return [x, x * self.factor]

        @daft.method.batch(return_dtype=DataType.float64())
        def halves(self, xs):
            return xs.to_numpy() / 2

    s = Scaler(3)
    out = sales.select(plus_one(col("x")).alias("p"), tag(col("k"), col("x")).alias("t"),
                       s(col("x")).alias("m"), s.pair(col("x")).alias("pair"),
                       s.halves(col("x")).alias("h")).to_pydict()
    assert out["p"] == [2, 3, 4, 5, 6, 7]
    assert out["t"][:3] == ["a:1", "b:2", "a:3"]
    assert out["m"] == [3, 6, 9, 12, 15, 18]
    assert out["pair"][1] == [2, 6]
    assert out["h"][:2] == [0.5, 1.0]
    assert s(4) == 12 and tag("z", 1) == "z:1"  # plain values: run at once


def test_udf_errors_are_clear():
    with pytest.raises(TypeError, match="needs return_dtype"):
        @daft.func
        def untyped(x):
            return x

    with pytest.raises(NotImplementedError, match="generator"):
        @daft.func(return_dtype=DataType.int64())
        def gen(x):
            yield x

    with pytest.raises(ValueError, match="batch_size"):
        daft.udf(return_dtype=DataType.int64(), batch_size=0)


# --- daft.functions, sql_expr, sql ---------------------------------------------------------------

def test_when_and_columnar_functions(sales):
    out = sales.select(
        when(col("x") < 3, "low").when(col("x") < 5, "mid").otherwise("high").alias("band"),
        when(col("x") > 4, col("x")).alias("big"),
        columns_sum("x", col("v")), columns_max("x", "v"), columns_min("x", "v"),
        columns_mean("x", "v"), format("{}-{}", "k", col("x")).alias("f"),
    ).to_pydict()
    assert out["band"] == ["low", "low", "mid", "mid", "high", "high"]
    assert out["big"] == [None, None, None, None, 5, 6]
    assert out["columns_sum"][0] == pytest.approx(2.234) and out["columns_sum"][2] == 3
    assert out["columns_max"][2] == 3 and out["columns_min"][0] == 1
    assert out["columns_mean"][1] == pytest.approx(2.1725)
    assert out["f"][:2] == ["a-1", "b-2"]


def test_function_forms_of_methods(sales):
    F = daft.functions
    out = sales.groupby("k").agg(F.sum(col("x")), F.count(col("v")).alias("n")).sort("k").to_pydict()
    assert out == {"k": ["a", "b", "c"], "x": [10, 7, 4], "n": [2, 2, 1]}
    d = sales.select(F.upper(col("k")), F.round(col("v"), 1), F.abs(col("x") - 3).alias("a")).to_pydict()
    assert d["k"][0] == "A" and d["v"][0] == 1.2 and d["a"] == [2, 1, 0, 1, 2, 3]
    w = daft.Window().partition_by("k").order_by("x")
    ranks = sales.select("k", "x", F.row_number().over(w).alias("rn")).sort(["k", "x"]).to_pydict()
    assert ranks["rn"] == [1, 2, 3, 1, 2, 1]


def test_sql_expr_and_sql_from_caller_variables(sales):
    out = sales.select(daft.sql_expr("x * 10 + 1"), daft.sql_expr("upper(k)").alias("u"))
    assert out.column_names == ["x", "u"]
    assert out.to_pydict() == {"x": [11, 21, 31, 41, 51, 61], "u": ["A", "B", "A", "C", "B", "A"]}
    assert sales.where(daft.sql_expr("x > 4")).count_rows() == 2
    local_frame = sales.where(col("x") <= 2)
    got = daft.sql("SELECT k, x FROM local_frame ORDER BY x").to_pydict()
    assert got == {"k": ["a", "b"], "x": [1, 2]}
    with pytest.raises(ValueError, match="sql_expr"):
        sales.select(daft.sql_expr("x +")).to_pydict()


# --- DataFrame methods -------------------------------------------------------------------------------

def test_join_on_expression_with_prefix_and_suffix():
    left = daft.from_pydict({"k": [1, 2, 3], "v": ["a", "b", "c"]})
    right = daft.from_pydict({"k": [2, 3, 4], "v": ["B", "C", "D"]})
    out = left.join(right, on=col("k"), suffix="_r").sort("k")
    assert out.column_names == ["k", "v", "v_r"]
    assert out.to_pydict() == {"k": [2, 3], "v": ["b", "c"], "v_r": ["B", "C"]}
    out = left.join(right, on="k", prefix="r_").sort("k")
    assert out.column_names == ["k", "v", "r_v"]


def test_whole_frame_aggregates(sales):
    assert sales.sum("x").to_pydict() == {"x": [21]}
    means = sales.mean("x", "v").to_pydict()
    assert means["x"] == [3.5] and means["v"][0] == pytest.approx((1.234 + 2.345 + 4.5 + 5.25 + 6.125) / 5)
    assert sales.count().to_pydict() == {"count": [6]}
    assert sales.count("v").to_pydict() == {"v": [5]}
    nums = sales.select("x", "v")
    assert nums.max().to_pydict() == {"x": [6], "v": [6.125]}
    assert nums.min().to_pydict() == {"x": [1], "v": [1.234]}


def test_list_building_aggregates(sales):
    out = sales.groupby("k").agg(
        col("x").agg_list().alias("all"), col("x").agg_set().alias("set"),
        col("k").agg_concat().alias("cat"), col("x").median().alias("med"),
        col("x").approx_percentiles([0.0, 1.0]).alias("pct"),
        col("x").product().alias("prod"), col("x").approx_count_distinct().alias("acd"),
    ).sort("k").to_pydict()
    assert sorted(out["all"][0]) == [1, 3, 6] and sorted(out["set"][0]) == [1, 3, 6]
    assert out["cat"] == ["aaa", "bb", "c"]
    assert out["med"] == [3.0, 3.5, 4.0]
    assert out["pct"][0] == [1.0, 6.0]
    assert out["prod"] == [18.0, 10.0, 4.0]
    assert out["acd"] == [3, 2, 1]
    signs = daft.from_pydict({"x": [-2.0, 3.0, -0.5]}).agg(col("x").product()).to_pydict()
    assert signs["x"][0] == 3.0
    with_nulls = daft.from_pydict({"k": [1, 1, 1, 1], "x": [2, None, 2, 5]})
    assert with_nulls.groupby("k").agg(col("x").agg_set()).to_pydict()["x"] == [[2, 5]]


def test_frame_utilities(sales):
    rows = daft.from_pylist([{"a": 1, "b": "x"}, {"a": 2}])
    assert rows.to_pydict() == {"a": [1, 2], "b": ["x", None]}
    assert rows.drop_null().to_pydict() == {"a": [1], "b": ["x"]}
    nan = daft.from_pydict({"f": [1.0, float("nan"), None], "i": [1, 2, 3]})
    assert nan.drop_nan().to_pydict()["i"] == [1, 3]
    assert sales.into_partitions(3).num_partitions() == 3
    a = daft.from_pydict({"x": [1, 1, 2, 3]})
    b = daft.from_pydict({"x": [1, 3, 3, 4]})
    assert sorted(a.intersect(b).to_pydict()["x"]) == [1, 3]
    assert a.except_distinct(b).to_pydict()["x"] == [2]
    assert sorted(a.except_all(b).to_pydict()["x"]) == [1, 2]
    assert sorted(a.intersect_all(b).to_pydict()["x"]) == [1, 3]
    renamed = sales.with_columns_renamed({"k": "key", "x": "num"})
    assert renamed.column_names == ["key", "num", "v"]
    assert sales.select("*").column_names == ["k", "x", "v"]
    desc = sales.describe().to_pydict()
    assert desc["column_name"] == ["k", "x", "v"] and desc["type"] == ["Utf8", "Int64", "Float64"]
    summary = sales.summarize().to_pydict()
    assert summary["column"] == ["k", "x", "v"]
    assert summary["min"][1] == "1" and summary["max"][0] == "c"
    assert summary["count"] == [6, 6, 5] and summary["count_nulls"] == [0, 0, 1]


# --- Expression methods ------------------------------------------------------------------------------

def test_string_methods():
    df = daft.from_pydict({"s": ["hello World", "a1b22c", None, "the cat and THE dog"]})
    out = df.select(
        (col("s") + "!").alias("bang"), ("<" + col("s")).alias("pre"),
        col("s").str.replace(r"\d+", "#", regex=True).alias("re"),
        col("s").str.replace("l", "L").alias("lit"),
        col("s").str.split(r"\d+", regex=True).alias("parts"),
        col("s").str.count_matches(["the", "dog"], whole_words=True, case_sensitive=False).alias("n"),
        col("s").str.count_matches("l").alias("ls"),
        col("s").str.capitalize().alias("cap"),
    ).to_pydict()
    assert out["bang"] == ["hello World!", "a1b22c!", None, "the cat and THE dog!"]
    assert out["pre"][0] == "<hello World"
    assert out["re"][1] == "a#b#c" and out["lit"][0] == "heLLo WorLd"
    assert out["parts"][1] == ["a", "b", "c"]
    assert out["n"] == [0, 0, None, 3] and out["ls"][0] == 3
    assert out["cap"] == ["Hello world", "A1b22c", None, "The cat and the dog"]
    both = daft.from_pydict({"a": ["x", "y"], "b": ["1", "2"]}).select(col("a") + col("b"))
    assert both.to_pydict() == {"a": ["x1", "y2"]}


def test_datetime_and_list_methods():
    import datetime as dt

    df = daft.from_pydict({
        "t": [dt.datetime(2024, 3, 14, 15, 9, 26), dt.datetime(2021, 1, 3, 0, 0, 1)],
        "d": [dt.date(2024, 3, 14), dt.date(2021, 1, 3)],
        "xs": [[1, 2, 2, None], [3]],
    })
    out = df.select(col("t").dt.truncate("1 day").alias("day"),
                    col("t").dt.truncate("1 hour").alias("hour"),
                    col("d").dt.week_of_year().alias("week"),
                    col("d").dt.day_of_week().alias("dow"),
                    col("xs").list.count().alias("n"),
                    col("xs").list.count("all").alias("all"),
                    col("xs").list.count("null").alias("nulls")).to_pydict()
    assert out["day"] == [dt.datetime(2024, 3, 14), dt.datetime(2021, 1, 3)]
    assert out["hour"][0] == dt.datetime(2024, 3, 14, 15)
    # 2024-03-14 is a Thursday in ISO week 11; 2021-01-03 a Sunday in ISO week 53 of 2020.
    assert out["week"] == [11, 53] and out["dow"] == [3, 6]
    assert out["n"] == [3, 1] and out["all"] == [4, 1] and out["nulls"] == [1, 0]
    with pytest.raises(ValueError, match="interval"):
        col("t").dt.truncate("1 fortnight")
