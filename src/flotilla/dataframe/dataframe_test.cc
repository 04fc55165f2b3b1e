#include "flotilla/dataframe/dataframe.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "flotilla/sql/session.h"

namespace flotilla {
namespace {

using expr::Column;
using expr::Literal;
using V = std::vector<std::string>;

std::vector<std::string> Rows(const Result<DataFrame>& df) {
  EXPECT_TRUE(df.ok()) << df.status().ToString();
  if (!df.ok()) return {};
  auto batch = df->ToBatch();
  EXPECT_TRUE(batch.ok()) << batch.status().ToString();
  std::vector<std::string> rows;
  if (!batch.ok()) return rows;
  for (int64_t i = 0; i < batch->num_rows(); ++i) {
    std::string row;
    for (int c = 0; c < batch->num_columns(); ++c)
      row += (c ? "|" : "") +
             (batch->column(c).IsNull(i) ? "NULL" : batch->column(c).ValueToString(i));
    rows.push_back(row);
  }
  return rows;
}

// The same table for the SQL session and the DataFrame side.
struct Tables {
  sql::Session session;
  DataFrame orders{nullptr}, customers{nullptr};
  Tables() {
    EXPECT_TRUE(session
                    .Execute("CREATE TABLE orders AS SELECT * FROM (VALUES (1, 10, 5.50), "
                             "(2, 10, 2.25), (3, 20, 7.00), (4, 30, NULL)) v(id, cust, total);"
                             "CREATE TABLE customers AS SELECT * FROM (VALUES (10, 'ann'), "
                             "(20, 'bob')) v(cust, name)")
                    .ok());
    orders = DataFrame(session.catalog().Find("orders")->plan);
    customers = DataFrame(session.catalog().Find("customers")->plan);
  }
};

TEST(DataFrame, TransformsAndAggregates) {
  Tables t;
  auto grouped = t.orders.Where(expr::IsNotNull(Column("total")))
                     ->GroupBy({Column("cust")})
                     .Agg({expr::Alias(expr::Aggregate("sum", {Column("total")}), "s"),
                           expr::Alias(expr::Divide(expr::Aggregate("sum", {Column("total")}),
                                                    expr::Aggregate("count", {Column("total")})),
                                       "mean")});
  ASSERT_TRUE(grouped.ok()) << grouped.status().ToString();
  EXPECT_EQ(Rows(grouped->Sort({{Column("cust")}})), (V{"10|7.75|3.875000", "20|7.00|7.000000"}));
  EXPECT_EQ(Rows(t.orders.WithColumn("double", expr::Multiply(Column("id"), Literal(2)))
                     ->Exclude({"cust", "total"})
                     ->Sort({{Column("id"), true}})
                     ->Limit(2)),
            (V{"4|8", "3|6"}));
  EXPECT_EQ(Rows(t.orders.Agg({expr::Alias(expr::Aggregate("count_star", {}), "n")})), (V{"4"}));
  EXPECT_EQ(*t.orders.CountRows(), 4);
  EXPECT_EQ(Rows(t.orders.Select(std::vector<std::string>{"cust"})
                     ->Union(*t.customers.Select(std::vector<std::string>{"cust"}))
                     ->Sort({{Column("cust")}})),
            (V{"10", "20", "30"}));
  auto bad = t.orders.Select({Column("nope")});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("column 'nope' not found"), std::string::npos);
}

TEST(DataFrame, Joins) {
  Tables t;
  auto joined = t.orders.Join(t.customers, {Column("cust")}, {Column("cust")}, "left");
  ASSERT_TRUE(joined.ok()) << joined.status().ToString();
  EXPECT_EQ(Rows(joined->Select({Column("id"), Column("name")})->Sort({{Column("id")}})),
            (V{"1|ann", "2|ann", "3|bob", "4|NULL"}));
  EXPECT_EQ(Rows(t.orders.Join(t.customers, {Column("cust")}, {Column("cust")}, "anti")
                     ->Select(std::vector<std::string>{"id"})),
            (V{"4"}));
  EXPECT_EQ(
      Rows(t.orders.Join(t.customers, {Column("cust")}, {Column("cust")}, "inner", "sort_merge")
               ->Agg({expr::Alias(expr::Aggregate("count_star", {}), "n")})),
      (V{"3"}));
  EXPECT_FALSE(t.orders.Join(t.customers, {Column("cust")}, {Column("cust")}, "sideways").ok());
}

TEST(DataFrame, SameOptimizedPlanAsSql) {
  Tables t;
  auto df = t.orders.Where(expr::Greater(Column("total"), Literal(1)))
                ->GroupBy({Column("cust")})
                .Agg({expr::Alias(expr::Aggregate("sum", {Column("total")}), "s")});
  ASSERT_TRUE(df.ok()) << df.status().ToString();
  auto sql =
      t.session.PlanSql("SELECT cust, sum(total) AS s FROM orders WHERE total > 1 GROUP BY cust");
  ASSERT_TRUE(sql.ok()) << sql.status().ToString();
  auto optimized = df->OptimizedPlan();
  ASSERT_TRUE(optimized.ok());
  EXPECT_EQ(exec::PlanToString(**optimized), exec::PlanToString(**sql));

  auto joined = t.orders.Join(t.customers, {Column("cust")}, {Column("cust")})
                    ->Select({Column("id"), Column("name")});
  ASSERT_TRUE(joined.ok());
  auto sql_join =
      t.session.PlanSql("SELECT id, name FROM orders o JOIN customers c ON o.cust = c.cust");
  ASSERT_TRUE(sql_join.ok()) << sql_join.status().ToString();
  EXPECT_EQ(exec::PlanToString(**joined->OptimizedPlan()), exec::PlanToString(**sql_join));
}

TEST(DataFrame, ExplainAndWrite) {
  Tables t;
  auto explained = t.orders.Where(expr::Equal(Column("id"), Literal(1)))->Explain(true);
  ASSERT_TRUE(explained.ok()) << explained.status().ToString();
  EXPECT_NE(explained->find("== Optimized plan =="), std::string::npos);
  EXPECT_NE(explained->find("== Runtime statistics =="), std::string::npos);
  const auto dir = std::filesystem::temp_directory_path() / "flotilla_dataframe_write";
  std::filesystem::remove_all(dir);
  io::DatasetWriteOptions options;
  options.partition_by = {"cust"};
  auto files = t.orders.Write(dir.string(), options);
  ASSERT_TRUE(files.ok()) << files.status().ToString();
  EXPECT_EQ(files->num_rows(), 3);
  auto back = DataFrame::ReadParquet({dir.string()});
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back->CountRows(), 4);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace flotilla
