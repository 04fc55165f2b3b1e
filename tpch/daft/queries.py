"""The 22 TPC-H queries written with Daft's DataFrame API, as Daft users write them, run on
flotilla with only the import changed: `import flotilla as daft` and `from flotilla import col`
where a Daft program has `import daft` and `from daft import col`.

Each `qN(get_df)` takes a function from a table name ("lineitem", ...) to a DataFrame and
returns the query's DataFrame, with the specification's validation parameters, its output
column names and its row order: the same answers as tpch/queries/qNN.sql. Subqueries are
written as Daft programs write them: EXISTS / IN as semi joins, NOT EXISTS / NOT IN as anti
joins, a scalar subquery as a one-row aggregate cross joined, a correlated aggregate as a
grouped aggregate joined back on the correlation keys.
"""
import datetime

import flotilla as daft
from flotilla import col


def _disc_price():
    return col("l_extendedprice") * (1 - col("l_discount"))


def q1(get_df):
    cutoff = datetime.date(1998, 12, 1) - datetime.timedelta(days=90)
    return (
        get_df("lineitem")
        .where(col("l_shipdate") <= cutoff)
        .groupby("l_returnflag", "l_linestatus")
        .agg(
            col("l_quantity").sum().alias("sum_qty"),
            col("l_extendedprice").sum().alias("sum_base_price"),
            _disc_price().sum().alias("sum_disc_price"),
            (_disc_price() * (1 + col("l_tax"))).sum().alias("sum_charge"),
            col("l_quantity").mean().alias("avg_qty"),
            col("l_extendedprice").mean().alias("avg_price"),
            col("l_discount").mean().alias("avg_disc"),
            col("l_orderkey").count().alias("count_order"),
        )
        .sort(by=["l_returnflag", "l_linestatus"])
    )


def q2(get_df):
    europe = get_df("region").where(col("r_name") == "EUROPE")
    european_offers = (
        get_df("partsupp")
        .join(get_df("supplier"), left_on="ps_suppkey", right_on="s_suppkey")
        .join(get_df("nation"), left_on="s_nationkey", right_on="n_nationkey")
        .join(europe, left_on="n_regionkey", right_on="r_regionkey")
    )
    lowest_cost = european_offers.groupby("ps_partkey").agg(
        col("ps_supplycost").min().alias("lowest_supplycost")
    )
    brass = get_df("part").where((col("p_size") == 15) & col("p_type").str.endswith("BRASS"))
    return (
        brass.join(european_offers, left_on="p_partkey", right_on="ps_partkey")
        .join(lowest_cost, on="ps_partkey")
        .where(col("ps_supplycost") == col("lowest_supplycost"))
        .select("s_acctbal", "s_name", "n_name", "p_partkey", "p_mfgr", "s_address", "s_phone",
                "s_comment")
        .sort(by=["s_acctbal", "n_name", "s_name", "p_partkey"], desc=[True, False, False, False])
        .limit(100)
    )


def q3(get_df):
    day = datetime.date(1995, 3, 15)
    building = get_df("customer").where(col("c_mktsegment") == "BUILDING")
    open_orders = get_df("orders").where(col("o_orderdate") < day)
    unshipped = get_df("lineitem").where(col("l_shipdate") > day)
    return (
        unshipped.join(open_orders, left_on="l_orderkey", right_on="o_orderkey")
        .join(building, left_on="o_custkey", right_on="c_custkey")
        .with_column("volume", _disc_price())
        .groupby("l_orderkey", "o_orderdate", "o_shippriority")
        .agg(col("volume").sum().alias("revenue"))
        .select("l_orderkey", "revenue", "o_orderdate", "o_shippriority")
        .sort(by=["revenue", "o_orderdate"], desc=[True, False])
        .limit(10)
    )


def q4(get_df):
    quarter = get_df("orders").where(
        (col("o_orderdate") >= datetime.date(1993, 7, 1))
        & (col("o_orderdate") < datetime.date(1993, 10, 1))
    )
    received_late = get_df("lineitem").where(col("l_commitdate") < col("l_receiptdate"))
    return (
        quarter.join(received_late, left_on="o_orderkey", right_on="l_orderkey", how="semi")
        .groupby("o_orderpriority")
        .agg(col("o_orderkey").count().alias("order_count"))
        .sort("o_orderpriority")
    )


def q5(get_df):
    asia = get_df("region").where(col("r_name") == "ASIA")
    asian_suppliers = (
        get_df("supplier")
        .join(get_df("nation"), left_on="s_nationkey", right_on="n_nationkey")
        .join(asia, left_on="n_regionkey", right_on="r_regionkey")
    )
    year_orders = get_df("orders").where(
        (col("o_orderdate") >= datetime.date(1994, 1, 1))
        & (col("o_orderdate") < datetime.date(1995, 1, 1))
    )
    return (
        get_df("customer")
        .join(year_orders, left_on="c_custkey", right_on="o_custkey")
        .join(get_df("lineitem"), left_on="o_orderkey", right_on="l_orderkey")
        .join(asian_suppliers, left_on=["l_suppkey", "c_nationkey"],
              right_on=["s_suppkey", "s_nationkey"])
        .groupby("n_name")
        .agg(_disc_price().sum().alias("revenue"))
        .sort("revenue", desc=True)
    )


def q6(get_df):
    return (
        get_df("lineitem")
        .where(
            (col("l_shipdate") >= datetime.date(1994, 1, 1))
            & (col("l_shipdate") < datetime.date(1995, 1, 1))
            & col("l_discount").between(0.05, 0.07)
            & (col("l_quantity") < 24)
        )
        .agg((col("l_extendedprice") * col("l_discount")).sum().alias("revenue"))
    )


def q7(get_df):
    pair = get_df("nation").where(col("n_name").is_in(["FRANCE", "GERMANY"]))
    suppliers = get_df("supplier").join(
        pair.select(col("n_nationkey").alias("supp_nationkey"), col("n_name").alias("supp_nation")),
        left_on="s_nationkey", right_on="supp_nationkey",
    )
    customers = get_df("customer").join(
        pair.select(col("n_nationkey").alias("cust_nationkey"), col("n_name").alias("cust_nation")),
        left_on="c_nationkey", right_on="cust_nationkey",
    )
    shipped = get_df("lineitem").where(
        (col("l_shipdate") >= datetime.date(1995, 1, 1))
        & (col("l_shipdate") <= datetime.date(1996, 12, 31))
    )
    return (
        shipped.join(suppliers, left_on="l_suppkey", right_on="s_suppkey")
        .join(get_df("orders"), left_on="l_orderkey", right_on="o_orderkey")
        .join(customers, left_on="o_custkey", right_on="c_custkey")
        .where(col("supp_nation") != col("cust_nation"))
        .select(
            "supp_nation",
            "cust_nation",
            col("l_shipdate").dt.year().alias("l_year"),
            _disc_price().alias("volume"),
        )
        .groupby("supp_nation", "cust_nation", "l_year")
        .agg(col("volume").sum().alias("revenue"))
        .sort(by=["supp_nation", "cust_nation", "l_year"])
    )


def q8(get_df):
    america = get_df("region").where(col("r_name") == "AMERICA")
    american_customers = (
        get_df("customer")
        .join(get_df("nation"), left_on="c_nationkey", right_on="n_nationkey")
        .join(america, left_on="n_regionkey", right_on="r_regionkey")
        .select("c_custkey")
    )
    supplier_nation = get_df("supplier").join(
        get_df("nation").select("n_nationkey", col("n_name").alias("nation")),
        left_on="s_nationkey", right_on="n_nationkey",
    )
    steel = get_df("part").where(col("p_type") == "ECONOMY ANODIZED STEEL")
    two_years = get_df("orders").where(
        (col("o_orderdate") >= datetime.date(1995, 1, 1))
        & (col("o_orderdate") <= datetime.date(1996, 12, 31))
    )
    return (
        get_df("lineitem")
        .join(steel, left_on="l_partkey", right_on="p_partkey")
        .join(two_years, left_on="l_orderkey", right_on="o_orderkey")
        .join(american_customers, left_on="o_custkey", right_on="c_custkey")
        .join(supplier_nation, left_on="l_suppkey", right_on="s_suppkey")
        .select(
            col("o_orderdate").dt.year().alias("o_year"),
            _disc_price().alias("volume"),
            "nation",
        )
        .groupby("o_year")
        .agg(
            (col("nation") == "BRAZIL").if_else(col("volume"), daft.lit(0)).sum().alias("brazil"),
            col("volume").sum().alias("total"),
        )
        .select("o_year", (col("brazil") / col("total")).alias("mkt_share"))
        .sort("o_year")
    )


def q9(get_df):
    green = get_df("part").where(col("p_name").str.contains("green"))
    return (
        get_df("lineitem")
        .join(green, left_on="l_partkey", right_on="p_partkey")
        .join(get_df("partsupp"), left_on=["l_partkey", "l_suppkey"],
              right_on=["ps_partkey", "ps_suppkey"])
        .join(get_df("supplier"), left_on="l_suppkey", right_on="s_suppkey")
        .join(get_df("nation"), left_on="s_nationkey", right_on="n_nationkey")
        .join(get_df("orders"), left_on="l_orderkey", right_on="o_orderkey")
        .select(
            col("n_name").alias("nation"),
            col("o_orderdate").dt.year().alias("o_year"),
            (_disc_price() - col("ps_supplycost") * col("l_quantity")).alias("amount"),
        )
        .groupby("nation", "o_year")
        .agg(col("amount").sum().alias("sum_profit"))
        .sort(by=["nation", "o_year"], desc=[False, True])
    )


def q10(get_df):
    quarter = get_df("orders").where(
        (col("o_orderdate") >= datetime.date(1993, 10, 1))
        & (col("o_orderdate") < datetime.date(1994, 1, 1))
    )
    returned = get_df("lineitem").where(col("l_returnflag") == "R")
    return (
        get_df("customer")
        .join(quarter, left_on="c_custkey", right_on="o_custkey")
        .join(returned, left_on="o_orderkey", right_on="l_orderkey")
        .join(get_df("nation"), left_on="c_nationkey", right_on="n_nationkey")
        .groupby("c_custkey", "c_name", "c_acctbal", "c_phone", "n_name", "c_address", "c_comment")
        .agg(_disc_price().sum().alias("revenue"))
        .select("c_custkey", "c_name", "revenue", "c_acctbal", "n_name", "c_address", "c_phone",
                "c_comment")
        .sort("revenue", desc=True)
        .limit(20)
    )


def q11(get_df):
    germany = get_df("nation").where(col("n_name") == "GERMANY")
    german_stock = (
        get_df("partsupp")
        .join(get_df("supplier"), left_on="ps_suppkey", right_on="s_suppkey")
        .join(germany, left_on="s_nationkey", right_on="n_nationkey")
        .with_column("stock_value", col("ps_supplycost") * col("ps_availqty"))
    )
    threshold = (
        german_stock.agg(col("stock_value").sum().alias("total_value"))
        .select((col("total_value") * 0.0001).alias("threshold"))
    )
    return (
        german_stock.groupby("ps_partkey")
        .agg(col("stock_value").sum().alias("value"))
        .join(threshold, how="cross")
        .where(col("value") > col("threshold"))
        .select("ps_partkey", "value")
        .sort("value", desc=True)
    )


def q12(get_df):
    late_in_year = get_df("lineitem").where(
        col("l_shipmode").is_in(["MAIL", "SHIP"])
        & (col("l_commitdate") < col("l_receiptdate"))
        & (col("l_shipdate") < col("l_commitdate"))
        & (col("l_receiptdate") >= datetime.date(1994, 1, 1))
        & (col("l_receiptdate") < datetime.date(1995, 1, 1))
    )
    high = col("o_orderpriority").is_in(["1-URGENT", "2-HIGH"])
    return (
        get_df("orders")
        .join(late_in_year, left_on="o_orderkey", right_on="l_orderkey")
        .groupby("l_shipmode")
        .agg(
            high.if_else(daft.lit(1), daft.lit(0)).sum().alias("high_line_count"),
            high.if_else(daft.lit(0), daft.lit(1)).sum().alias("low_line_count"),
        )
        .sort("l_shipmode")
    )


def q13(get_df):
    orders = get_df("orders").where(~col("o_comment").str.like("%special%requests%"))
    return (
        get_df("customer")
        .join(orders, left_on="c_custkey", right_on="o_custkey", how="left")
        .groupby("c_custkey")
        .agg(col("o_orderkey").count().alias("c_count"))
        .groupby("c_count")
        .agg(col("c_custkey").count().alias("custdist"))
        .sort(by=["custdist", "c_count"], desc=[True, True])
    )


def q14(get_df):
    month = get_df("lineitem").where(
        (col("l_shipdate") >= datetime.date(1995, 9, 1))
        & (col("l_shipdate") < datetime.date(1995, 10, 1))
    )
    promo = col("p_type").str.startswith("PROMO")
    return (
        month.join(get_df("part"), left_on="l_partkey", right_on="p_partkey")
        .agg(
            promo.if_else(_disc_price(), daft.lit(0)).sum().alias("promo"),
            _disc_price().sum().alias("total"),
        )
        .select((100.0 * col("promo") / col("total")).alias("promo_revenue"))
    )


def q15(get_df):
    revenue = (
        get_df("lineitem")
        .where(
            (col("l_shipdate") >= datetime.date(1996, 1, 1))
            & (col("l_shipdate") < datetime.date(1996, 4, 1))
        )
        .groupby("l_suppkey")
        .agg(_disc_price().sum().alias("total_revenue"))
        .select(col("l_suppkey").alias("supplier_no"), "total_revenue")
    )
    best = revenue.agg(col("total_revenue").max().alias("best_revenue"))
    return (
        get_df("supplier")
        .join(revenue, left_on="s_suppkey", right_on="supplier_no")
        .join(best, left_on="total_revenue", right_on="best_revenue")
        .select("s_suppkey", "s_name", "s_address", "s_phone", "total_revenue")
        .sort("s_suppkey")
    )


def q16(get_df):
    complained_about = get_df("supplier").where(
        col("s_comment").str.like("%Customer%Complaints%"))
    wanted = get_df("part").where(
        (col("p_brand") != "Brand#45")
        & ~col("p_type").str.startswith("MEDIUM POLISHED")
        & col("p_size").is_in([49, 14, 23, 45, 19, 3, 36, 9])
    )
    return (
        get_df("partsupp")
        .join(complained_about, left_on="ps_suppkey", right_on="s_suppkey", how="anti")
        .join(wanted, left_on="ps_partkey", right_on="p_partkey")
        .groupby("p_brand", "p_type", "p_size")
        .agg(col("ps_suppkey").count_distinct().alias("supplier_cnt"))
        .sort(by=["supplier_cnt", "p_brand", "p_type", "p_size"], desc=[True, False, False, False])
    )


def q17(get_df):
    lineitem = get_df("lineitem")
    boxes = get_df("part").where((col("p_brand") == "Brand#23") & (col("p_container") == "MED BOX"))
    part_average = lineitem.groupby("l_partkey").agg(col("l_quantity").mean().alias("avg_quantity"))
    return (
        lineitem.join(boxes, left_on="l_partkey", right_on="p_partkey")
        .join(part_average, on="l_partkey")
        .where(col("l_quantity") < 0.2 * col("avg_quantity"))
        .agg(col("l_extendedprice").sum().alias("total_price"))
        .select((col("total_price") / 7.0).alias("avg_yearly"))
    )


def q18(get_df):
    lineitem = get_df("lineitem")
    large = (
        lineitem.groupby("l_orderkey")
        .agg(col("l_quantity").sum().alias("order_quantity"))
        .where(col("order_quantity") > 300)
    )
    return (
        get_df("orders")
        .join(large, left_on="o_orderkey", right_on="l_orderkey", how="semi")
        .join(get_df("customer"), left_on="o_custkey", right_on="c_custkey")
        .join(lineitem, left_on="o_orderkey", right_on="l_orderkey")
        .groupby("c_name", "c_custkey", "o_orderkey", "o_orderdate", "o_totalprice")
        .agg(col("l_quantity").sum().alias("sum(l_quantity)"))
        .sort(by=["o_totalprice", "o_orderdate"], desc=[True, False])
        .limit(100)
    )


def q19(get_df):
    def bracket(brand, containers, quantity, largest_size):
        return (
            (col("p_brand") == brand)
            & col("p_container").is_in(containers)
            & col("l_quantity").between(quantity, quantity + 10)
            & col("p_size").between(1, largest_size)
        )

    in_person_by_air = get_df("lineitem").where(
        col("l_shipmode").is_in(["AIR", "AIR REG"])
        & (col("l_shipinstruct") == "DELIVER IN PERSON")
    )
    return (
        in_person_by_air.join(get_df("part"), left_on="l_partkey", right_on="p_partkey")
        .where(
            bracket("Brand#12", ["SM CASE", "SM BOX", "SM PACK", "SM PKG"], 1, 5)
            | bracket("Brand#23", ["MED BAG", "MED BOX", "MED PKG", "MED PACK"], 10, 10)
            | bracket("Brand#34", ["LG CASE", "LG BOX", "LG PACK", "LG PKG"], 20, 15)
        )
        .agg(_disc_price().sum().alias("revenue"))
    )


def q20(get_df):
    shipped = (
        get_df("lineitem")
        .where(
            (col("l_shipdate") >= datetime.date(1994, 1, 1))
            & (col("l_shipdate") < datetime.date(1995, 1, 1))
        )
        .groupby("l_partkey", "l_suppkey")
        .agg(col("l_quantity").sum().alias("shipped_quantity"))
    )
    forest = get_df("part").where(col("p_name").str.startswith("forest"))
    overstocked = (
        get_df("partsupp")
        .join(forest, left_on="ps_partkey", right_on="p_partkey", how="semi")
        .join(shipped, left_on=["ps_partkey", "ps_suppkey"], right_on=["l_partkey", "l_suppkey"])
        .where(col("ps_availqty") > 0.5 * col("shipped_quantity"))
    )
    canada = get_df("nation").where(col("n_name") == "CANADA")
    return (
        get_df("supplier")
        .join(overstocked, left_on="s_suppkey", right_on="ps_suppkey", how="semi")
        .join(canada, left_on="s_nationkey", right_on="n_nationkey")
        .select("s_name", "s_address")
        .sort("s_name")
    )


def q21(get_df):
    lineitem = get_df("lineitem")
    late = lineitem.where(col("l_receiptdate") > col("l_commitdate"))
    # EXISTS another supplier on the order: the order has more than one supplier;
    # NOT EXISTS another late supplier: this is the order's only late supplier.
    suppliers = lineitem.groupby("l_orderkey").agg(
        col("l_suppkey").count_distinct().alias("suppliers"))
    late_suppliers = late.groupby("l_orderkey").agg(
        col("l_suppkey").count_distinct().alias("late_suppliers"))
    saudi = get_df("supplier").join(
        get_df("nation").where(col("n_name") == "SAUDI ARABIA"),
        left_on="s_nationkey", right_on="n_nationkey",
    )
    finished = get_df("orders").where(col("o_orderstatus") == "F")
    return (
        late.join(saudi, left_on="l_suppkey", right_on="s_suppkey")
        .join(finished, left_on="l_orderkey", right_on="o_orderkey", how="semi")
        .join(suppliers, on="l_orderkey")
        .join(late_suppliers, on="l_orderkey")
        .where((col("suppliers") > 1) & (col("late_suppliers") == 1))
        .groupby("s_name")
        .agg(col("l_orderkey").count().alias("numwait"))
        .sort(by=["numwait", "s_name"], desc=[True, False])
        .limit(100)
    )


def q22(get_df):
    codes = ["13", "31", "23", "29", "30", "18", "17"]
    candidates = (
        get_df("customer")
        .with_column("cntrycode", col("c_phone").str.left(2))
        .where(col("cntrycode").is_in(codes))
    )
    average = candidates.where(col("c_acctbal") > 0.0).agg(
        col("c_acctbal").mean().alias("avg_acctbal"))
    return (
        candidates.join(get_df("orders"), left_on="c_custkey", right_on="o_custkey", how="anti")
        .join(average, how="cross")
        .where(col("c_acctbal") > col("avg_acctbal"))
        .groupby("cntrycode")
        .agg(
            col("c_custkey").count().alias("numcust"),
            col("c_acctbal").sum().alias("totacctbal"),
        )
        .sort("cntrycode")
    )
