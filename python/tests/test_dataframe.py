"""DataFrame methods, checked against hand-computed results and pandas on the same data."""
import math

import numpy as np
import pandas as pd
import pytest

import flotilla
from flotilla import col, lit


def test_schema_and_columns(people):
    schema = people.schema()
    assert schema.column_names() == ["id", "name", "city", "score"]
    assert schema["id"].dtype == "int64" and schema["score"].dtype == "float64"
    assert schema["name"].dtype == flotilla.DataType.string()
    assert people.column_names == ["id", "name", "city", "score"]


def test_select_with_columns_where(people):
    out = people.where(col("score") > 2).select("id", (col("score") * 2).alias("double"))
    assert out.to_pydict() == {"id": [1, 4, 5], "double": [7.0, 5.0, 8.0]}
    out = people.with_column("id2", col("id") + 10).filter(col("id") <= 2)
    assert out.to_pydict()["id2"] == [11, 12]
    out = people.with_columns({"id": col("id") * 100, "flag": col("city") == "oslo"})
    d = out.to_pydict()
    assert d["id"] == [100, 200, 300, 400, 500]
    assert d["flag"] == [True, False, True, None, False]
    assert list(d) == ["id", "name", "city", "score", "flag"]
    assert people.where("id > 3").count_rows() == 2  # a SQL condition
    assert people.exclude("name", "city").column_names == ["id", "score"]
    assert people.with_column_renamed("id", "key").column_names[0] == "key"


def test_errors_name_the_column(people):
    with pytest.raises(ValueError, match="column 'nme' not found; did you mean 'name'"):
        people.select(col("nme"))
    with pytest.raises(TypeError):
        people.where(col("name") + 1 > 2)


def test_groupby_agg_matches_pandas(random_frame):
    df, pdf = random_frame
    out = (df.groupby("g").agg(col("x").sum().alias("sx"), col("y").mean().alias("my"),
                               col("k").count_distinct().alias("nk"), col("y").max().alias("mx"))
           .sort("g").to_pandas())
    expected = pdf.groupby("g").agg(sx=("x", "sum"), my=("y", "mean"), nk=("k", "nunique"),
                                    mx=("y", "max")).reset_index()
    assert out["g"].tolist() == expected["g"].tolist()
    np.testing.assert_allclose(out["sx"], expected["sx"], rtol=1e-9)
    np.testing.assert_allclose(out["my"], expected["my"], rtol=1e-9)
    assert out["nk"].tolist() == expected["nk"].tolist()
    assert out["mx"].tolist() == expected["mx"].tolist()
    total = df.agg(col("y").sum().alias("s"), (col("x").sum() / col("x").count()).alias("m")).to_pydict()
    assert total["s"] == [int(pdf["y"].sum())]
    assert math.isclose(total["m"][0], pdf["x"].mean(), rel_tol=1e-9)
    counts = df.groupby("g", "k").count().sort(["g", "k"]).to_pandas()
    expected = pdf.groupby(["g", "k"]).size().reset_index(name="count")
    assert counts["count"].tolist() == expected["count"].tolist()


def _rows(frame):
    """A DataFrame's rows as a sorted list of tuples; missing values (None, NaN) as None and
    numbers as floats, since pandas turns integer columns with gaps into floats."""
    def value(v):
        if v is None or (isinstance(v, float) and math.isnan(v)):
            return None
        if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool):
            return float(v)
        return v
    return sorted((tuple(value(v) for v in r) for r in frame.itertuples(index=False)), key=repr)


@pytest.mark.parametrize("strategy", [None, "hash", "sort_merge"])
def test_joins_match_pandas(random_frame, strategy):
    """Every row of every join equals pandas' (keys 0..39 on the left, even keys 0..58 on the
    right: matches, left-only and right-only keys)."""
    df, pdf = random_frame
    dims = pd.DataFrame({"k": list(range(0, 60, 2)), "label": [f"L{i}" for i in range(0, 60, 2)]})
    right = flotilla.from_pandas(dims)
    for how in ["inner", "left", "right", "outer"]:
        out = df.join(right, on="k", how=how, strategy=strategy).to_pandas()
        expected = pdf.merge(dims, on="k", how=how)
        assert list(out.columns) == list(expected.columns), how
        assert _rows(out) == _rows(expected), how
    semi = df.join(right, on="k", how="semi").to_pandas()
    assert _rows(semi) == _rows(pdf[pdf["k"].isin(dims["k"])])
    anti = df.join(right, left_on="k", right_on="k", how="anti").to_pandas()
    assert _rows(anti) == _rows(pdf[~pdf["k"].isin(dims["k"])])
    cross = df.limit(3).join(right.limit(4), how="cross").to_pandas()
    expected = pdf.head(3).merge(dims.head(4), how="cross")
    assert len(cross) == 12
    assert _rows(cross.iloc[:, [0, 1, 2, 3, 5]]) == _rows(expected[["k_x", "g", "x", "y", "label"]])


def test_a_key_only_the_right_side_has_keeps_its_value():
    a = flotilla.from_pydict({"k": [1, 2], "x": [10, 20]})
    b = flotilla.from_pydict({"k": [2, 3], "y": [200, 300]})
    assert a.join(b, on="k", how="outer").sort("k").to_pydict() == \
        {"k": [1, 2, 3], "x": [10, 20, None], "y": [None, 200, 300]}
    assert a.join(b, on="k", how="right").sort("k").to_pydict() == \
        {"k": [2, 3], "x": [20, None], "y": [200, 300]}


def test_sort_limit_offset_distinct(people, random_frame):
    # As Daft: nulls last ascending, first descending, unless nulls_first says otherwise.
    assert people.sort("score", desc=True).to_pydict()["id"] == [3, 5, 1, 4, 2]
    assert people.sort("score", desc=True, nulls_first=False).to_pydict()["id"] == [5, 1, 4, 2, 3]
    assert people.sort("score", nulls_first=True).to_pydict()["id"] == [3, 2, 4, 1, 5]
    assert people.sort(["city", "id"], desc=[False, True]).limit(3).to_pydict()["id"] == [3, 1, 5]
    assert people.sort("id").offset(3).to_pydict()["id"] == [4, 5]
    df, pdf = random_frame
    assert df.select("g").distinct().count_rows() == pdf["g"].nunique()
    assert df.distinct("g", "k").count_rows() == len(pdf.drop_duplicates(["g", "k"]))


def test_explode_unpivot_pivot():
    df = flotilla.from_pydict({"id": [1, 2, 3], "xs": [[1, 2], [], [3]]})
    assert df.explode("xs").to_pydict() == {"id": [1, 1, 2, 3], "xs": [1, 2, None, 3]}
    wide = flotilla.from_pydict({"id": [1, 2], "a": [10, 20], "b": [11, 21]})
    long = wide.unpivot("id", ["a", "b"]).sort(["id", "variable"]).to_pydict()
    assert long == {"id": [1, 1, 2, 2], "variable": ["a", "b", "a", "b"], "value": [10, 11, 20, 21]}
    back = flotilla.from_pydict(long).pivot("id", "variable", "value", "sum").sort("id").to_pydict()
    assert back == {"id": [1, 2], "a": [10, 20], "b": [11, 21]}


def test_sample_concat_union(random_frame, people):
    df, _ = random_frame
    n = df.sample(fraction=0.1, seed=3).count_rows()
    assert 350 < n < 650
    assert df.sample(fraction=0.1, seed=3).to_pydict() == df.sample(fraction=0.1, seed=3).to_pydict()
    assert df.sample(size=17, seed=1).count_rows() == 17
    both = people.select("id").concat(people.select("id"))
    assert both.count_rows() == 10
    assert people.select("city").union(people.select("city")).count_rows() == 3


def test_partitions_and_ids(random_frame):
    df, _ = random_frame
    parts = list(df.into_partitions(4).iter_partitions())
    assert len(parts) == 4 and sum(len(p) for p in parts) == 5000
    assert abs(len(parts[0]) - 1250) <= 1
    hashed = list(df.repartition(3, "g").iter_partitions())
    assert len(hashed) == 3
    groups = [set(p.to_pydict()["g"]) for p in hashed]
    assert sum(len(g) for g in groups) == 4  # each key in exactly one partition
    # The count left to the engine: a partition per thread, each key in one of them.
    picked = list(df.repartition(None, "g").iter_partitions())
    assert len(picked) >= 1 and sum(len(p) for p in picked) == 5000
    assert sum(len(set(p.to_pydict()["g"])) for p in picked) == 4
    with pytest.raises(ValueError, match="needs partition keys"):
        df.repartition(None)
    with pytest.raises(ValueError, match="at least 1"):
        df.repartition(0, "g")
    ids = df.with_column("row_id", flotilla.monotonically_increasing_id()).to_pydict()["row_id"]
    assert len(set(ids)) == 5000 and ids == sorted(ids)


def test_collect_show_pandas_explain(people, capsys):
    collected = people.collect()
    assert collected.to_pydict()["id"] == [1, 2, 3, 4, 5]
    people.show(2)
    shown = capsys.readouterr().out
    assert "ann" in shown and "bob" in shown and "cy" not in shown
    assert shown.rstrip().endswith("first 2 rows"), shown  # not "2 rows": there are 5
    people.show(5)
    assert capsys.readouterr().out.rstrip().endswith("\n5 rows")
    pdf = people.to_pandas()
    assert list(pdf.columns) == ["id", "name", "city", "score"]
    assert pdf["id"].dtype == np.int64 and math.isnan(pdf["score"][2])
    text = people.where(col("id") == 2).select("name").explain()
    assert "== Optimized plan ==" in text and "InMemorySource" in text
    analyzed = people.where(col("id") == 2).explain(analyze=True)
    assert "== Runtime statistics ==" in analyzed
    assert people.count_rows() == 5 and len(people) == 5
    assert people.limit(2).to_pylist() == [
        {"id": 1, "name": "ann", "city": "oslo", "score": 3.5},
        {"id": 2, "name": "bob", "city": "rome", "score": 1.0}]


def test_numeric_columns_reach_numpy_without_a_copy(random_frame):
    df, pdf = random_frame
    batch = df.select("x", "y")._batch()
    x = batch.to_numpy(0)
    assert x.dtype == np.float64 and not x.flags.writeable and not x.flags.owndata
    np.testing.assert_array_equal(x, pdf["x"].to_numpy())
    assert batch.to_numpy(1).dtype == np.int64


def test_fixed_size_lists_reach_numpy_as_2d_arrays():
    df = flotilla.from_pydict({"t": ["a b c d", "b c d e", "x y z w", None]})
    df = df.select(col("t").minhash(3, 2, 7).alias("s"))
    whole = df.where(col("s").not_null())._batch()
    m = whole.to_numpy(0)
    assert m.dtype == np.uint32 and m.shape == (3, 3) and not m.flags.writeable
    assert m.tolist() == whole.to_pydict()["s"]
    # A slice's rows, and with a null list the values one by one.
    assert whole.slice(1, 2).to_numpy(0).tolist() == m[1:].tolist()
    with_null = df._batch().to_numpy(0)
    assert with_null.dtype == object and with_null[3] is None


def test_from_pandas_and_types():
    import datetime
    import decimal

    pdf = pd.DataFrame({"i": [1, 2], "f": [0.5, np.nan], "s": ["a", None],
                        "t": pd.to_datetime(["2024-01-01 10:00", "2024-01-02"])})
    df = flotilla.from_pandas(pdf)
    d = df.to_pydict()
    assert d["i"] == [1, 2] and d["s"] == ["a", None]
    assert d["f"][0] == 0.5 and math.isnan(d["f"][1])
    assert d["t"][0] == datetime.datetime(2024, 1, 1, 10, 0)
    df = flotilla.from_pydict({"d": [datetime.date(2024, 2, 29), None],
                               "m": [decimal.Decimal("1.50"), decimal.Decimal("-2.25")]})
    d = df.to_pydict()
    assert d["d"] == [datetime.date(2024, 2, 29), None]
    assert d["m"] == [decimal.Decimal("1.50"), decimal.Decimal("-2.25")]
    assert df.agg(col("m").sum().alias("s")).to_pydict()["s"] == [decimal.Decimal("-0.75")]
    with pytest.raises(ValueError, match="column 'b' has 1 values"):
        flotilla.from_pydict({"a": [1, 2], "b": [3]})
