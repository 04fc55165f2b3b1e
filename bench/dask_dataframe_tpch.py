"""TPC-H Q1, Q3, Q5, Q6, Q10, Q12 and Q18 as a Dask user writes them in Dask DataFrame, next
to ours on the same Dask cluster, in one run: the comparison a Dask user would make. Dask's
tables are pandas partitions loaded into the workers' memory beforehand (decimals as float64,
as pandas users keep them); ours read the Parquet files. Prints each query's median seconds,
the ratio ours / Dask DataFrame, and checks that both return the same number of rows.

    PYTHONPATH=build/python /usr/bin/python3 bench/dask_dataframe_tpch.py --tables data/tpch-sf1
"""

import argparse
import datetime
import math
import os

import dask.dataframe as dd
from distributed import wait

import flotilla
from flotilla import col

from timing import median_seconds

TABLES = ["region", "nation", "supplier", "customer", "orders", "lineitem"]
D = datetime.datetime


def pandas_table(path):
    df = flotilla.read_parquet(path)
    # Decimals become float64: what a pandas user keeps prices in.
    df = df.select(*[col(n).cast("float64").alias(n) if t.startswith("decimal") else col(n) for n, t in df.schema()])
    return df.to_pandas()


def q1(t):
    li = t["lineitem"]
    li = li[li.l_shipdate <= D(1998, 9, 2)]
    li = li.assign(disc_price=li.l_extendedprice * (1 - li.l_discount))
    li = li.assign(charge=li.disc_price * (1 + li.l_tax))
    g = li.groupby(["l_returnflag", "l_linestatus"]).agg(
        {"l_quantity": ["sum", "mean"], "l_extendedprice": ["sum", "mean"], "disc_price": "sum",
         "charge": "sum", "l_discount": ["mean", "count"]})
    return g.compute().sort_index()


def q3(t):
    c = t["customer"]
    c = c[c.c_mktsegment == "BUILDING"][["c_custkey"]]
    o = t["orders"]
    o = o[o.o_orderdate < D(1995, 3, 15)][["o_orderkey", "o_custkey", "o_orderdate", "o_shippriority"]]
    li = t["lineitem"]
    li = li[li.l_shipdate > D(1995, 3, 15)]
    li = li.assign(revenue=li.l_extendedprice * (1 - li.l_discount))[["l_orderkey", "revenue"]]
    j = c.merge(o, left_on="c_custkey", right_on="o_custkey").merge(li, left_on="o_orderkey", right_on="l_orderkey")
    g = j.groupby(["l_orderkey", "o_orderdate", "o_shippriority"]).revenue.sum().reset_index()
    return g.nlargest(10, "revenue").compute()


def q5(t):
    r = t["region"]
    r = r[r.r_name == "ASIA"]
    n = t["nation"].merge(r, left_on="n_regionkey", right_on="r_regionkey")
    s = t["supplier"].merge(n, left_on="s_nationkey", right_on="n_nationkey")
    o = t["orders"]
    o = o[(o.o_orderdate >= D(1994, 1, 1)) & (o.o_orderdate < D(1995, 1, 1))]
    j = t["customer"].merge(o, left_on="c_custkey", right_on="o_custkey")
    j = t["lineitem"].merge(j, left_on="l_orderkey", right_on="o_orderkey")
    j = j.merge(s, left_on=["l_suppkey", "c_nationkey"], right_on=["s_suppkey", "s_nationkey"])
    j = j.assign(revenue=j.l_extendedprice * (1 - j.l_discount))
    return j.groupby("n_name").revenue.sum().compute().sort_values(ascending=False)


def q6(t):
    li = t["lineitem"]
    li = li[(li.l_shipdate >= D(1994, 1, 1)) & (li.l_shipdate < D(1995, 1, 1)) &
            (li.l_discount >= 0.05) & (li.l_discount <= 0.07) & (li.l_quantity < 24)]
    return (li.l_extendedprice * li.l_discount).sum().compute()


def q10(t):
    o = t["orders"]
    o = o[(o.o_orderdate >= D(1993, 10, 1)) & (o.o_orderdate < D(1994, 1, 1))]
    li = t["lineitem"]
    li = li[li.l_returnflag == "R"]
    j = t["customer"].merge(o, left_on="c_custkey", right_on="o_custkey")
    j = j.merge(li, left_on="o_orderkey", right_on="l_orderkey")
    j = j.merge(t["nation"], left_on="c_nationkey", right_on="n_nationkey")
    j = j.assign(revenue=j.l_extendedprice * (1 - j.l_discount))
    g = j.groupby(["c_custkey", "c_name", "c_acctbal", "c_phone", "n_name", "c_address",
                   "c_comment"]).revenue.sum().reset_index()
    return g.nlargest(20, "revenue").compute()


def q12(t):
    li = t["lineitem"]
    li = li[li.l_shipmode.isin(["MAIL", "SHIP"]) & (li.l_commitdate < li.l_receiptdate) &
            (li.l_shipdate < li.l_commitdate) & (li.l_receiptdate >= D(1994, 1, 1)) &
            (li.l_receiptdate < D(1995, 1, 1))]
    j = t["orders"].merge(li, left_on="o_orderkey", right_on="l_orderkey")
    high = j.o_orderpriority.isin(["1-URGENT", "2-HIGH"])
    j = j.assign(high=high.astype("int64"), low=(~high).astype("int64"))
    return j.groupby("l_shipmode")[["high", "low"]].sum().compute().sort_index()


def q18(t):
    li = t["lineitem"]
    big = li.groupby("l_orderkey").l_quantity.sum().reset_index()
    big = big[big.l_quantity > 300][["l_orderkey"]]
    o = t["orders"].merge(big, left_on="o_orderkey", right_on="l_orderkey")[
        ["o_orderkey", "o_custkey", "o_orderdate", "o_totalprice"]]
    j = t["customer"].merge(o, left_on="c_custkey", right_on="o_custkey")
    j = j.merge(li[["l_orderkey", "l_quantity"]], left_on="o_orderkey", right_on="l_orderkey")
    g = j.groupby(["c_name", "c_custkey", "o_orderkey", "o_orderdate", "o_totalprice"]).l_quantity.sum().reset_index()
    return g.nlargest(100, "o_totalprice").compute()


DASK = {1: q1, 3: q3, 5: q5, 6: q6, 10: q10, 12: q12, 18: q18}


def rows(result):
    return 1 if not hasattr(result, "__len__") else len(result)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tables", default=os.environ.get("TPCH_DIR", "data/tpch-sf1"))
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--workers", type=int, default=2)
    a = p.parse_args()
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    paths = {n: os.path.join(a.tables, f"{n}.parquet") for n in TABLES + ["part", "partsupp"]}

    runner = flotilla.set_runner_dask(n_workers=a.workers, progress=False)
    client = runner.client
    # Dask's tables: pandas partitions in the workers' memory, ~32 MiB each.
    dask_tables = {}
    for n in TABLES:
        pdf = pandas_table(paths[n])
        parts = max(1, int(pdf.memory_usage(deep=False).sum() // (32 << 20)))
        dask_tables[n] = client.persist(dd.from_pandas(pdf, npartitions=parts))
    wait(list(dask_tables.values()))
    ours_tables = {n: flotilla.read_parquet(paths[n]) for n in paths}

    ratios = []
    for number, fn in DASK.items():
        text = open(os.path.join(root, "tpch", "queries", f"q{number:02}.sql")).read()
        ours_s, ours = median_seconds(lambda: flotilla.sql(text, **ours_tables).collect(), a.repeat)
        dask_s, theirs = median_seconds(lambda: fn(dask_tables), a.repeat)
        assert len(ours) == rows(theirs), (number, len(ours), rows(theirs))
        ratios.append(ours_s / dask_s)
        print(f"q{number:02}: ours {ours_s:.2f} s, Dask DataFrame {dask_s:.2f} s, ratio {ratios[-1]:.2f} "
              f"({len(ours)} rows, {a.workers} workers, median of {a.repeat})", flush=True)
    geomean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    print(f"geometric mean of the ratios (ours / Dask DataFrame): {geomean:.2f}")
    flotilla.set_runner_local()


if __name__ == "__main__":
    main()
