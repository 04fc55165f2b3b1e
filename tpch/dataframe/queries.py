"""The 22 TPC-H queries as DataFrame programs (no SQL), with the specification's validation
parameters: the same results, column for column and row for row, as tpch/queries/qNN.sql.

Each `qN(tables)` takes a function from a table name ("lineitem", ...) to a DataFrame and
returns the query's DataFrame. Subqueries become joins: scalar ones a cross join with a
one-row aggregate, EXISTS / NOT EXISTS / IN semi and anti joins, correlated aggregates a
grouped aggregate joined back on the correlation keys.
"""
from datetime import date
from decimal import Decimal

from flotilla import col, lit


def _revenue():
    return col("l_extendedprice") * (1 - col("l_discount"))


def q1(tables):
    lineitem = tables("lineitem")
    return (
        lineitem.where(col("l_shipdate") <= date(1998, 9, 2))
        .groupby("l_returnflag", "l_linestatus")
        .agg(
            col("l_quantity").sum().alias("sum_qty"),
            col("l_extendedprice").sum().alias("sum_base_price"),
            _revenue().sum().alias("sum_disc_price"),
            (_revenue() * (1 + col("l_tax"))).sum().alias("sum_charge"),
            col("l_quantity").mean().alias("avg_qty"),
            col("l_extendedprice").mean().alias("avg_price"),
            col("l_discount").mean().alias("avg_disc"),
            col("l_returnflag").count().alias("count_order"),
        )
        .sort(["l_returnflag", "l_linestatus"])
    )


def _europe_partsupp(tables):
    region = tables("region").where(col("r_name") == "EUROPE")
    nation = tables("nation").join(region, left_on="n_regionkey", right_on="r_regionkey")
    supplier = tables("supplier").join(nation, left_on="s_nationkey", right_on="n_nationkey")
    return tables("partsupp").join(supplier, left_on="ps_suppkey", right_on="s_suppkey")


def q2(tables):
    part = tables("part").where((col("p_size") == 15) & col("p_type").str.endswith("BRASS"))
    offers = _europe_partsupp(tables).join(part, left_on="ps_partkey", right_on="p_partkey")
    cheapest = (
        _europe_partsupp(tables)
        .groupby("ps_partkey")
        .agg(col("ps_supplycost").min().alias("min_cost"))
    )
    return (
        offers.join(cheapest, on="ps_partkey")
        .where(col("ps_supplycost") == col("min_cost"))
        .select(
            "s_acctbal", "s_name", "n_name", col("ps_partkey").alias("p_partkey"), "p_mfgr",
            "s_address", "s_phone", "s_comment",
        )
        .sort(["s_acctbal", "n_name", "s_name", "p_partkey"], desc=[True, False, False, False])
        .limit(100)
    )


def q3(tables):
    customer = tables("customer").where(col("c_mktsegment") == "BUILDING")
    orders = tables("orders").where(col("o_orderdate") < date(1995, 3, 15))
    lineitem = tables("lineitem").where(col("l_shipdate") > date(1995, 3, 15))
    return (
        customer.join(orders, left_on="c_custkey", right_on="o_custkey")
        .join(lineitem, left_on="o_orderkey", right_on="l_orderkey")
        .groupby("o_orderkey", "o_orderdate", "o_shippriority")
        .agg(_revenue().sum().alias("revenue"))
        .select(col("o_orderkey").alias("l_orderkey"), "revenue", "o_orderdate", "o_shippriority")
        .sort(["revenue", "o_orderdate"], desc=[True, False])
        .limit(10)
    )


def q4(tables):
    orders = tables("orders").where(
        (col("o_orderdate") >= date(1993, 7, 1)) & (col("o_orderdate") < date(1993, 10, 1)))
    late = tables("lineitem").where(col("l_commitdate") < col("l_receiptdate"))
    return (
        orders.join(late, left_on="o_orderkey", right_on="l_orderkey", how="semi")
        .groupby("o_orderpriority")
        .agg(col("o_orderkey").count().alias("order_count"))
        .sort("o_orderpriority")
    )


def q5(tables):
    region = tables("region").where(col("r_name") == "ASIA")
    nation = tables("nation").join(region, left_on="n_regionkey", right_on="r_regionkey")
    supplier = tables("supplier").join(nation, left_on="s_nationkey", right_on="n_nationkey")
    orders = tables("orders").where(
        (col("o_orderdate") >= date(1994, 1, 1)) & (col("o_orderdate") < date(1995, 1, 1)))
    return (
        tables("lineitem")
        .join(orders, left_on="l_orderkey", right_on="o_orderkey")
        .join(tables("customer"), left_on="o_custkey", right_on="c_custkey")
        .join(supplier, left_on=["l_suppkey", "c_nationkey"], right_on=["s_suppkey", "s_nationkey"])
        .groupby("n_name")
        .agg(_revenue().sum().alias("revenue"))
        .sort("revenue", desc=True)
    )


def q6(tables):
    return (
        tables("lineitem")
        .where(
            (col("l_shipdate") >= date(1994, 1, 1)) & (col("l_shipdate") < date(1995, 1, 1))
            & col("l_discount").between(Decimal("0.05"), Decimal("0.07"))
            & (col("l_quantity") < 24))
        .agg((col("l_extendedprice") * col("l_discount")).sum().alias("revenue"))
    )


def q7(tables):
    pair = ["FRANCE", "GERMANY"]
    supp_nation = tables("nation").where(col("n_name").is_in(pair)).select(
        col("n_nationkey").alias("supp_key"), col("n_name").alias("supp_nation"))
    cust_nation = tables("nation").where(col("n_name").is_in(pair)).select(
        col("n_nationkey").alias("cust_key"), col("n_name").alias("cust_nation"))
    lineitem = tables("lineitem").where(
        col("l_shipdate").between(date(1995, 1, 1), date(1996, 12, 31)))
    return (
        lineitem
        .join(tables("supplier"), left_on="l_suppkey", right_on="s_suppkey")
        .join(supp_nation, left_on="s_nationkey", right_on="supp_key")
        .join(tables("orders"), left_on="l_orderkey", right_on="o_orderkey")
        .join(tables("customer"), left_on="o_custkey", right_on="c_custkey")
        .join(cust_nation, left_on="c_nationkey", right_on="cust_key")
        .where(col("supp_nation") != col("cust_nation"))
        .groupby("supp_nation", "cust_nation", col("l_shipdate").dt.year().alias("l_year"))
        .agg(_revenue().sum().alias("revenue"))
        .sort(["supp_nation", "cust_nation", "l_year"])
    )


def q8(tables):
    region = tables("region").where(col("r_name") == "AMERICA")
    customer_nation = tables("nation").join(region, left_on="n_regionkey", right_on="r_regionkey")
    customer = tables("customer").join(customer_nation, left_on="c_nationkey", right_on="n_nationkey")
    supplier_nation = tables("nation").select(col("n_nationkey").alias("supp_key"),
                                              col("n_name").alias("nation"))
    orders = tables("orders").where(
        col("o_orderdate").between(date(1995, 1, 1), date(1996, 12, 31)))
    part = tables("part").where(col("p_type") == "ECONOMY ANODIZED STEEL")
    return (
        tables("lineitem")
        .join(part, left_on="l_partkey", right_on="p_partkey")
        .join(orders, left_on="l_orderkey", right_on="o_orderkey")
        .join(customer, left_on="o_custkey", right_on="c_custkey")
        .join(tables("supplier"), left_on="l_suppkey", right_on="s_suppkey")
        .join(supplier_nation, left_on="s_nationkey", right_on="supp_key")
        .with_columns({"o_year": col("o_orderdate").dt.year(), "volume": _revenue()})
        .groupby("o_year")
        .agg(
            (col("nation") == "BRAZIL").if_else(col("volume"), 0).sum().alias("brazil"),
            col("volume").sum().alias("total"))
        .select("o_year", (col("brazil") / col("total")).alias("mkt_share"))
        .sort("o_year")
    )


def q9(tables):
    part = tables("part").where(col("p_name").str.contains("green"))
    return (
        tables("lineitem")
        .join(part, left_on="l_partkey", right_on="p_partkey")
        .join(tables("partsupp"), left_on=["l_partkey", "l_suppkey"],
              right_on=["ps_partkey", "ps_suppkey"])
        .join(tables("supplier"), left_on="l_suppkey", right_on="s_suppkey")
        .join(tables("nation"), left_on="s_nationkey", right_on="n_nationkey")
        .join(tables("orders"), left_on="l_orderkey", right_on="o_orderkey")
        .select(
            col("n_name").alias("nation"),
            col("o_orderdate").dt.year().alias("o_year"),
            (_revenue() - col("ps_supplycost") * col("l_quantity")).alias("amount"))
        .groupby("nation", "o_year")
        .agg(col("amount").sum().alias("sum_profit"))
        .sort(["nation", "o_year"], desc=[False, True])
    )


def q10(tables):
    orders = tables("orders").where(
        (col("o_orderdate") >= date(1993, 10, 1)) & (col("o_orderdate") < date(1994, 1, 1)))
    lineitem = tables("lineitem").where(col("l_returnflag") == "R")
    return (
        tables("customer")
        .join(orders, left_on="c_custkey", right_on="o_custkey")
        .join(lineitem, left_on="o_orderkey", right_on="l_orderkey")
        .join(tables("nation"), left_on="c_nationkey", right_on="n_nationkey")
        .groupby("c_custkey", "c_name", "c_acctbal", "c_phone", "n_name", "c_address", "c_comment")
        .agg(_revenue().sum().alias("revenue"))
        .select("c_custkey", "c_name", "revenue", "c_acctbal", "n_name", "c_address", "c_phone",
                "c_comment")
        .sort("revenue", desc=True)
        .limit(20)
    )


def _german_stock(tables):
    nation = tables("nation").where(col("n_name") == "GERMANY")
    supplier = tables("supplier").join(nation, left_on="s_nationkey", right_on="n_nationkey")
    return (tables("partsupp").join(supplier, left_on="ps_suppkey", right_on="s_suppkey")
            .with_column("value", col("ps_supplycost") * col("ps_availqty")))


def q11(tables):
    threshold = _german_stock(tables).agg(
        (col("value").sum() * Decimal("0.0001")).alias("threshold"))
    return (
        _german_stock(tables)
        .groupby("ps_partkey")
        .agg(col("value").sum().alias("value"))
        .join(threshold, how="cross")
        .where(col("value") > col("threshold"))
        .select("ps_partkey", "value")
        .sort("value", desc=True)
    )


def q12(tables):
    lineitem = tables("lineitem").where(
        col("l_shipmode").is_in(["MAIL", "SHIP"])
        & (col("l_commitdate") < col("l_receiptdate"))
        & (col("l_shipdate") < col("l_commitdate"))
        & (col("l_receiptdate") >= date(1994, 1, 1)) & (col("l_receiptdate") < date(1995, 1, 1)))
    high = col("o_orderpriority").is_in(["1-URGENT", "2-HIGH"])
    return (
        tables("orders")
        .join(lineitem, left_on="o_orderkey", right_on="l_orderkey")
        .groupby("l_shipmode")
        .agg(high.if_else(1, 0).sum().alias("high_line_count"),
             high.if_else(0, 1).sum().alias("low_line_count"))
        .sort("l_shipmode")
    )


def q13(tables):
    orders = tables("orders").where(~col("o_comment").str.like("%special%requests%"))
    return (
        tables("customer")
        .join(orders, left_on="c_custkey", right_on="o_custkey", how="left")
        .groupby("c_custkey")
        .agg(col("o_orderkey").count().alias("c_count"))
        .groupby("c_count")
        .agg(col("c_custkey").count().alias("custdist"))
        .sort(["custdist", "c_count"], desc=[True, True])
    )


def q14(tables):
    lineitem = tables("lineitem").where(
        (col("l_shipdate") >= date(1995, 9, 1)) & (col("l_shipdate") < date(1995, 10, 1)))
    return (
        lineitem.join(tables("part"), left_on="l_partkey", right_on="p_partkey")
        .agg(col("p_type").str.startswith("PROMO").if_else(_revenue(), 0).sum().alias("promo"),
             _revenue().sum().alias("total"))
        .select((Decimal("100.00") * col("promo") / col("total")).alias("promo_revenue"))
    )


def q15(tables):
    revenue = (
        tables("lineitem")
        .where((col("l_shipdate") >= date(1996, 1, 1)) & (col("l_shipdate") < date(1996, 4, 1)))
        .groupby("l_suppkey")
        .agg(_revenue().sum().alias("total_revenue"))
    )
    best = revenue.agg(col("total_revenue").max().alias("max_revenue"))
    return (
        tables("supplier")
        .join(revenue, left_on="s_suppkey", right_on="l_suppkey")
        .join(best, how="cross")
        .where(col("total_revenue") == col("max_revenue"))
        .select("s_suppkey", "s_name", "s_address", "s_phone", "total_revenue")
        .sort("s_suppkey")
    )


def q16(tables):
    complaints = tables("supplier").where(col("s_comment").str.like("%Customer%Complaints%"))
    part = tables("part").where(
        (col("p_brand") != "Brand#45") & ~col("p_type").str.startswith("MEDIUM POLISHED")
        & col("p_size").is_in([49, 14, 23, 45, 19, 3, 36, 9]))
    return (
        tables("partsupp")
        .join(part, left_on="ps_partkey", right_on="p_partkey")
        .join(complaints, left_on="ps_suppkey", right_on="s_suppkey", how="anti")
        .groupby("p_brand", "p_type", "p_size")
        .agg(col("ps_suppkey").count_distinct().alias("supplier_cnt"))
        .sort(["supplier_cnt", "p_brand", "p_type", "p_size"], desc=[True, False, False, False])
    )


def q17(tables):
    part = tables("part").where((col("p_brand") == "Brand#23") & (col("p_container") == "MED BOX"))
    items = tables("lineitem").join(part, left_on="l_partkey", right_on="p_partkey")
    average = (
        tables("lineitem").join(part, left_on="l_partkey", right_on="p_partkey", how="semi")
        .groupby("l_partkey")
        .agg((Decimal("0.2") * col("l_quantity").mean()).alias("small_quantity"))
    )
    return (
        items.join(average, on="l_partkey")
        .where(col("l_quantity") < col("small_quantity"))
        .agg((col("l_extendedprice").sum() / Decimal("7.0")).alias("avg_yearly"))
    )


def q18(tables):
    big = (
        tables("lineitem")
        .groupby("l_orderkey")
        .agg(col("l_quantity").sum().alias("total"))
        .where(col("total") > 300)
    )
    return (
        tables("orders")
        .join(big, left_on="o_orderkey", right_on="l_orderkey", how="semi")
        .join(tables("customer"), left_on="o_custkey", right_on="c_custkey")
        .join(tables("lineitem"), left_on="o_orderkey", right_on="l_orderkey")
        .groupby("c_name", "o_custkey", "o_orderkey", "o_orderdate", "o_totalprice")
        .agg(col("l_quantity").sum().alias("sum(l_quantity)"))
        .select("c_name", col("o_custkey").alias("c_custkey"), "o_orderkey", "o_orderdate",
                "o_totalprice", "sum(l_quantity)")
        .sort(["o_totalprice", "o_orderdate"], desc=[True, False])
        .limit(100)
    )


def q19(tables):
    lineitem = tables("lineitem").where(
        col("l_shipmode").is_in(["AIR", "AIR REG"]) & (col("l_shipinstruct") == "DELIVER IN PERSON"))

    def kind(brand, containers, low, size):
        return ((col("p_brand") == brand) & col("p_container").is_in(containers)
                & (col("l_quantity") >= low) & (col("l_quantity") <= low + 10)
                & col("p_size").between(1, size))

    return (
        lineitem.join(tables("part"), left_on="l_partkey", right_on="p_partkey")
        .where(kind("Brand#12", ["SM CASE", "SM BOX", "SM PACK", "SM PKG"], 1, 5)
               | kind("Brand#23", ["MED BAG", "MED BOX", "MED PKG", "MED PACK"], 10, 10)
               | kind("Brand#34", ["LG CASE", "LG BOX", "LG PACK", "LG PKG"], 20, 15))
        .agg(_revenue().sum().alias("revenue"))
    )


def q20(tables):
    forest = tables("part").where(col("p_name").str.startswith("forest"))
    shipped = (
        tables("lineitem")
        .where((col("l_shipdate") >= date(1994, 1, 1)) & (col("l_shipdate") < date(1995, 1, 1)))
        .groupby("l_partkey", "l_suppkey")
        .agg((Decimal("0.5") * col("l_quantity").sum()).alias("half"))
    )
    excess = (
        tables("partsupp")
        .join(forest, left_on="ps_partkey", right_on="p_partkey", how="semi")
        .join(shipped, left_on=["ps_partkey", "ps_suppkey"], right_on=["l_partkey", "l_suppkey"])
        .where(col("ps_availqty") > col("half"))
    )
    canada = tables("nation").where(col("n_name") == "CANADA")
    return (
        tables("supplier")
        .join(excess, left_on="s_suppkey", right_on="ps_suppkey", how="semi")
        .join(canada, left_on="s_nationkey", right_on="n_nationkey")
        .select("s_name", "s_address")
        .sort("s_name")
    )


def q21(tables):
    # An order with several suppliers where exactly one supplier, of Saudi Arabia, was late.
    lineitem = tables("lineitem")
    late = lineitem.where(col("l_receiptdate") > col("l_commitdate"))
    suppliers = lineitem.groupby("l_orderkey").agg(
        col("l_suppkey").count_distinct().alias("suppliers"))
    late_suppliers = late.groupby("l_orderkey").agg(
        col("l_suppkey").count_distinct().alias("late_suppliers"))
    nation = tables("nation").where(col("n_name") == "SAUDI ARABIA")
    supplier = tables("supplier").join(nation, left_on="s_nationkey", right_on="n_nationkey")
    orders = tables("orders").where(col("o_orderstatus") == "F")
    return (
        late.join(supplier, left_on="l_suppkey", right_on="s_suppkey")
        .join(orders, left_on="l_orderkey", right_on="o_orderkey", how="semi")
        .join(suppliers.where(col("suppliers") > 1), on="l_orderkey", how="semi")
        .join(late_suppliers.where(col("late_suppliers") == 1), on="l_orderkey", how="semi")
        .groupby("s_name")
        .agg(col("l_orderkey").count().alias("numwait"))
        .sort(["numwait", "s_name"], desc=[True, False])
        .limit(100)
    )


def q22(tables):
    codes = ["13", "31", "23", "29", "30", "18", "17"]
    customer = (tables("customer")
                .with_column("cntrycode", col("c_phone").str.substr(0, 2))
                .where(col("cntrycode").is_in(codes)))
    average = customer.where(col("c_acctbal") > Decimal("0.00")).agg(
        col("c_acctbal").mean().alias("average"))
    return (
        customer.join(average, how="cross")
        .where(col("c_acctbal") > col("average"))
        .join(tables("orders"), left_on="c_custkey", right_on="o_custkey", how="anti")
        .groupby("cntrycode")
        .agg(col("c_custkey").count().alias("numcust"), col("c_acctbal").sum().alias("totacctbal"))
        .sort("cntrycode")
    )


QUERIES = {n: globals()[f"q{n}"] for n in range(1, 23)}
