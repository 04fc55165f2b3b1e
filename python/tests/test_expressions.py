"""Expression operators and the .str / .dt / .list / .float namespaces, and windows."""
import datetime

import flotilla
from flotilla import Window, col, lit


def frame():
    return flotilla.from_pydict({
        "s": ["Hello", "wOrld", None, "a,b"],
        "d": [datetime.date(2024, 1, 31), datetime.date(2023, 12, 25), None, datetime.date(2020, 2, 29)],
        "n": [1, -2, 3, None],
        "f": [1.5, float("nan"), None, -0.25],
        "xs": [[1, 2, 3], [], None, [5]],
    })


def test_operators():
    d = frame().select(
        (col("n") + 1).alias("a"), (col("n") - col("n") * 2).alias("b"), (10 // col("n")).alias("c"),
        (col("n") % 2).alias("m"), (-col("n")).alias("neg"), abs(col("n")).alias("ab"),
        ((col("n") > 0) & (col("n") < 3)).alias("and_"), (~(col("n") == 1)).alias("not_"),
        col("n").is_null().alias("isnull"), col("n").is_in([1, 3]).alias("isin"),
        col("n").between(0, 2).alias("btw"), col("n").fill_null(0).alias("filled"),
        (col("n") > 0).if_else(lit("pos"), lit("neg")).alias("sign"),
        col("n").cast("double").alias("dbl"), (col("n") ** 2).alias("sq"),
    ).to_pydict()
    assert d["a"] == [2, -1, 4, None]
    assert d["b"] == [-1, 2, -3, None]
    assert d["c"] == [10, -5, 3, None]
    assert d["neg"] == [-1, 2, -3, None] and d["ab"] == [1, 2, 3, None]
    assert d["and_"] == [True, False, False, None]
    assert d["not_"] == [False, True, True, None]
    assert d["isnull"] == [False, False, False, True]
    assert d["isin"] == [True, False, True, None]
    assert d["btw"] == [True, False, False, None]
    assert d["filled"] == [1, -2, 3, 0]
    assert d["sign"] == ["pos", "neg", "pos", "neg"]  # SQL CASE: a NULL condition takes the else
    assert d["dbl"] == [1.0, -2.0, 3.0, None] and d["sq"] == [1.0, 4.0, 9.0, None]


def test_string_namespace():
    s = col("s").str
    d = frame().select(s.lower().alias("lo"), s.upper().alias("up"), s.length().alias("len"),
                       s.contains("l").alias("has_l"), s.startswith("He").alias("sw"),
                       s.substr(1, 3).alias("sub"), s.replace("l", "L").alias("rep"),
                       s.split(",").alias("parts"), s.match("^[a-z]").alias("re"),
                       s.lpad(6, "*").alias("pad")).to_pydict()
    assert d["lo"] == ["hello", "world", None, "a,b"]
    assert d["up"] == ["HELLO", "WORLD", None, "A,B"]
    assert d["len"] == [5, 5, None, 3]
    assert d["has_l"] == [True, True, None, False]
    assert d["sw"] == [True, False, None, False]
    assert d["sub"] == ["ell", "Orl", None, ",b"]
    assert d["rep"] == ["HeLLo", "wOrLd", None, "a,b"]
    assert d["parts"][3] == ["a", "b"]
    assert d["re"] == [False, True, None, True]
    assert d["pad"] == ["*Hello", "*wOrld", None, "***a,b"]


def test_datetime_list_float_namespaces():
    d = frame().select(col("d").dt.year().alias("y"), col("d").dt.month().alias("m"),
                       col("d").dt.day().alias("day"), col("d").dt.add(1, "month").alias("next"),
                       col("d").dt.truncate("year").alias("ty"),
                       col("xs").list.length().alias("ln"), col("xs").list.sum().alias("ls"),
                       col("xs").list.get(0).alias("first"),
                       col("f").float.is_nan().alias("nan")).to_pydict()
    assert d["y"] == [2024, 2023, None, 2020]
    assert d["m"] == [1, 12, None, 2] and d["day"] == [31, 25, None, 29]
    assert d["next"] == [datetime.date(2024, 2, 29), datetime.date(2024, 1, 25), None,
                         datetime.date(2020, 3, 29)]
    assert d["ty"][0] == datetime.date(2024, 1, 1)
    assert d["ln"] == [3, 0, None, 1] and d["ls"] == [6, None, None, 5]
    assert d["first"] == [1, None, None, 5]
    assert d["nan"] == [False, True, None, False]
    # Daft's numbering: Monday = 0 .. Sunday = 6 (SQL's dayofweek keeps DuckDB's Sunday = 0).
    week = [datetime.date(2024, 1, 1) + datetime.timedelta(days=i) for i in range(7)]  # Mon..Sun
    days = flotilla.from_pydict({"d": week})
    assert days.select(col("d").dt.day_of_week().alias("w")).to_pydict()["w"] == [d.weekday() for d in week]
    assert flotilla.sql("SELECT dayofweek(d) AS w FROM t", t=days).to_pydict()["w"] == [1, 2, 3, 4, 5, 6, 0]


def test_window_expressions():
    df = flotilla.from_pydict({"g": ["a", "a", "a", "b", "b"], "t": [1, 2, 3, 1, 2],
                               "v": [10, 20, 30, 5, 7]})
    w = Window().partition_by("g").order_by("t")
    out = df.select("g", "t",
                    flotilla.row_number().over(w).alias("rn"),
                    col("v").sum().over(w).alias("running"),
                    col("v").sum().over(Window().partition_by("g")).alias("total"),
                    col("v").lag(1).over(w).alias("prev"),
                    flotilla.rank().over(Window().order_by("v", desc=True)).alias("rk"),
                    col("v").mean().over(w.rows_between(-1, Window.current_row)).alias("avg2"),
                    ).sort(["g", "t"]).to_pydict()
    assert out["rn"] == [1, 2, 3, 1, 2]
    assert out["running"] == [10, 30, 60, 5, 12]
    assert out["total"] == [60, 60, 60, 12, 12]
    assert out["prev"] == [None, 10, 20, None, 5]
    assert out["rk"] == [3, 2, 1, 5, 4]
    assert out["avg2"] == [10.0, 15.0, 25.0, 5.0, 6.0]
    plus = df.with_column("rn1", flotilla.row_number().over(w) + 1).sort(["g", "t"]).to_pydict()
    assert plus["rn1"] == [2, 3, 4, 2, 3]


def test_deep_expressions_are_refused_not_fatal():
    """A chain deeper than 1000 levels (as DuckDB's max_expression_depth) raises where it is
    built, and SQL nested past what the stack holds raises too: the interpreter lives on."""
    import pytest
    e = col("n")
    with pytest.raises(Exception, match="levels deep; the limit is 1000"):
        for _ in range(20000):
            e = e + 1
    ok = col("n")
    for _ in range(500):
        ok = ok + 1
    assert frame().select(ok.alias("x")).to_pydict()["x"] == [501, 498, 503, None]
    with pytest.raises(Exception, match="nested too deeply"):
        flotilla.sql("SELECT " + "(" * 2500 + "1" + ")" * 2500)
    with pytest.raises(Exception, match="chain of more than 1000"):
        flotilla.sql("SELECT " + "+".join(["1"] * 30000))
    assert flotilla.sql("SELECT 1 AS one").to_pydict() == {"one": [1]}
