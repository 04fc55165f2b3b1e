#include "flotilla/sql/session.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "flotilla/exec/plan/physical_plan.h"

namespace flotilla::sql {
namespace {

// Rows as "a|b" strings, in result order.
std::vector<std::string> Rows(Session* session, const std::string& sql) {
  auto result = session->Execute(sql);
  EXPECT_TRUE(result.ok()) << sql << "\n" << result.status().ToString();
  std::vector<std::string> rows;
  if (!result.ok()) return rows;
  const RecordBatch& b = result->batch;
  for (int64_t i = 0; i < b.num_rows(); ++i) {
    std::string row;
    for (int c = 0; c < b.num_columns(); ++c)
      row += (c ? "|" : "") + (b.column(c).IsNull(i) ? "NULL" : b.column(c).ValueToString(i));
    rows.push_back(row);
  }
  return rows;
}

std::string Error(Session* session, const std::string& sql) {
  auto result = session->Execute(sql);
  EXPECT_FALSE(result.ok()) << sql;
  return result.ok() ? "" : result.status().message();
}

using V = std::vector<std::string>;

TEST(Session, QueriesOverTablesAndViews) {
  Session s;
  ASSERT_TRUE(s.Execute("CREATE TABLE t AS SELECT * FROM (VALUES (1, 'a', 2.50), (2, 'b', NULL), "
                        "(3, 'a', 1.25)) v(id, g, x)")
                  .ok());
  EXPECT_EQ(Rows(&s, "SELECT g, count(*), sum(x) FROM t GROUP BY g ORDER BY g"),
            (V{"a|2|3.75", "b|1|NULL"}));
  ASSERT_TRUE(s.Execute("CREATE VIEW big AS SELECT id FROM t WHERE id > 1").ok());
  EXPECT_EQ(Rows(&s, "SELECT * FROM big ORDER BY id DESC"), (V{"3", "2"}));
  EXPECT_NE(Error(&s, "CREATE VIEW big AS SELECT 1").find("already exists"), std::string::npos);
  ASSERT_TRUE(s.Execute("CREATE OR REPLACE VIEW big AS SELECT 7 AS id").ok());
  EXPECT_EQ(Rows(&s, "SELECT id FROM big"), (V{"7"}));
  ASSERT_TRUE(s.Execute("DROP VIEW big").ok());
  EXPECT_NE(Error(&s, "SELECT * FROM big").find("table 'big' not found"), std::string::npos);
}

// Results and rows multiplied within one morsel are held in memory: past the budget (at least
// 64 MiB) they fail, naming it, instead of taking the machine's memory.
TEST(Session, OutputPastTheMemoryBudgetFailsCleanly) {
  Session s;
  ASSERT_TRUE(s.Set("memory_limit", "16MiB").ok());
  ASSERT_TRUE(s.Execute("CREATE TABLE t AS SELECT * FROM (VALUES (1), (2), (3), (4), (5), (6), "
                        "(7), (8), (9), (10)) v(x)")
                  .ok());
  // 10^8 rows of one morsel: the last joins multiply it past 64 MiB.
  const std::string chain = "SELECT count(*) FROM t a, t b, t c, t d, t e, t f, t g, t h";
  EXPECT_NE(Error(&s, chain).find("memory limit (64.0 MiB)"), std::string::npos);
  // A result of about 100 MB collected in memory, in morsels of about 10 MB.
  ASSERT_TRUE(s.Set("morsel_size", "100").ok());
  ASSERT_TRUE(s.Execute("CREATE TABLE w AS SELECT repeat('x', 1000) AS s FROM t a, t b, t c").ok());
  EXPECT_NE(Error(&s, "SELECT w.s, a.x, b.x FROM w, t a, t b")
                .find("result is larger than the memory limit (64.0 MiB)"),
            std::string::npos);
  EXPECT_EQ(Rows(&s, "SELECT count(*) FROM t a, t b, t c"), (V{"1000"}));
  // One morsel against a large right side: the join stops at the limit while it multiplies, not
  // after building every row (10^5 x 10^5 rows would be 80 GB of ids).
  EXPECT_NE(Error(&s, "SELECT count(*) FROM range(100000) a, range(100000) b")
                .find("in CrossJoinProbe: one input morsel became more output than the memory "
                      "limit (64.0 MiB)"),
            std::string::npos);
  // A right side held whole past the limit fails while it is gathered.
  EXPECT_NE(
      Error(&s, "SELECT count(*) FROM t z, (SELECT a.range FROM range(3000) a, range(3000) b)")
          .find("memory limit (64.0 MiB)"),
      std::string::npos);
}

// Features not built yet are refused by name, not with a misleading "not found".
TEST(Session, UnsupportedFeaturesAreRefusedByName) {
  Session s;
  ASSERT_TRUE(s.Execute("CREATE TABLE a AS SELECT 1 AS k").ok());
  ASSERT_TRUE(s.Execute("CREATE TABLE b AS SELECT 1 AS k").ok());
  ASSERT_TRUE(s.Execute("CREATE TABLE c AS SELECT 1 AS k").ok());
  EXPECT_NE(Error(&s,
                  "WITH t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 3) "
                  "SELECT * FROM t")
                .find("refers to itself: write WITH RECURSIVE"),
            std::string::npos);
  // A recursion that never ends is stopped with an error, not run until memory runs out.
  EXPECT_NE(Error(&s,
                  "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n FROM t) "
                  "SELECT count(*) FROM t")
                .find("did not end after"),
            std::string::npos);
  EXPECT_NE(Error(&s,
                  "SELECT * FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k AND "
                  "EXISTS (SELECT 1 FROM c WHERE c.k = a.k))")
                .find("'a.k' belongs to a query two or more levels out"),
            std::string::npos);
  // An ordered aggregate as a window function would otherwise ignore its ORDER BY.
  EXPECT_NE(Error(&s, "SELECT string_agg(CAST(k AS VARCHAR), ',' ORDER BY k) OVER () FROM a")
                .find("ORDER BY inside a window function's arguments is not supported"),
            std::string::npos);
  // WITH RECURSIVE over CTEs that do not recurse is fine, as one level of correlation is.
  EXPECT_EQ(Rows(&s, "WITH RECURSIVE t AS (SELECT 5 AS x) SELECT x FROM t"), (V{"5"}));
  EXPECT_EQ(Rows(&s, "SELECT k FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k)"), (V{"1"}));
}

TEST(Session, BindErrorsPointAtTheName) {
  Session s;
  ASSERT_TRUE(s.Execute("CREATE TABLE t AS SELECT 1 AS quantity, 2 AS price").ok());
  EXPECT_EQ(Error(&s, "SELECT quantty FROM t"),
            "column 'quantty' not found; did you mean 'quantity'? at line 1, column 8:\n"
            "  SELECT quantty FROM t\n"
            "         ^");
  EXPECT_NE(Error(&s, "SELECT price, sum(quantity) FROM t")
                .find("column 't.price' must appear in the GROUP BY clause"),
            std::string::npos);
  EXPECT_NE(Error(&s, "SELECT * FROM t WHERE sum(price) > 1").find("not allowed in WHERE"),
            std::string::npos);
  EXPECT_NE(Error(&s, "SELECT a.x FROM t").find("table 'a' is not in the FROM clause"),
            std::string::npos);
  EXPECT_NE(Error(&s, "SELECT quantity FROM t, t AS u").find("ambiguous"), std::string::npos);
  EXPECT_NE(Error(&s, "SELECT * FROM nope").find("table 'nope' not found"), std::string::npos);
  EXPECT_NE(Error(&s, "SELECT (SELECT quantity FROM (VALUES (1), (2)) v(quantity))")
                .find("more than one row"),
            std::string::npos);
  EXPECT_NE(Error(&s, "SELECT (1, 2)").find("row values"), std::string::npos);
  EXPECT_NE(Error(&s, "SET threads = 0").find("threads must be"), std::string::npos);
  EXPECT_NE(Error(&s, "SET nonsense = 1").find("setting 'nonsense' not found"), std::string::npos);
}

TEST(Session, NotInFollowsSqlNullRules) {
  Session s;
  ASSERT_TRUE(s.Execute("CREATE TABLE a AS SELECT * FROM (VALUES (1), (2), (NULL)) v(x)").ok());
  // No NULL in the list: 2 and NULL are not in (1), but NULL NOT IN (...) is unknown.
  EXPECT_EQ(Rows(&s, "SELECT x FROM a WHERE x NOT IN (SELECT 1)"), (V{"2"}));
  // A NULL in the list makes NOT IN unknown for every row.
  EXPECT_EQ(Rows(&s, "SELECT x FROM a WHERE x NOT IN (SELECT x FROM a WHERE x = 1 OR x IS NULL)"),
            V{});
  // An empty list: NOT IN is true for every row, NULL included.
  EXPECT_EQ(Rows(&s, "SELECT count(*) FROM a WHERE x NOT IN (SELECT x FROM a WHERE false)"),
            (V{"3"}));
}

TEST(Session, CorrelatedSubqueries) {
  Session s;
  ASSERT_TRUE(s.Execute("CREATE TABLE o AS SELECT * FROM (VALUES (1, 10), (1, 30), (2, 5), "
                        "(3, 7)) v(c, total)")
                  .ok());
  // Orders above their customer's average.
  EXPECT_EQ(Rows(&s,
                 "SELECT c, total FROM o WHERE total > (SELECT avg(total) FROM o o2 WHERE "
                 "o2.c = o.c) ORDER BY c"),
            (V{"1|30"}));
  // count over no rows is 0, not NULL.
  EXPECT_EQ(Rows(&s,
                 "SELECT c, (SELECT count(*) FROM o o2 WHERE o2.c = o.c AND o2.total > 6) "
                 "FROM o ORDER BY c, total"),
            (V{"1|2", "1|2", "2|0", "3|1"}));
  EXPECT_EQ(Rows(&s,
                 "SELECT DISTINCT c FROM o WHERE EXISTS (SELECT 1 FROM o o2 WHERE o2.c = o.c "
                 "AND o2.total <> o.total) ORDER BY c"),
            (V{"1"}));
}

TEST(Session, CopyWritesFilesThatReadBack) {
  Session s;
  const auto dir = std::filesystem::temp_directory_path() / "flotilla_session_copy";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  for (const std::string ext : {"parquet", "csv", "json"}) {
    const std::string path = (dir / ("t." + ext)).string();
    auto copied = s.Execute("COPY (SELECT * FROM (VALUES (1, 'x'), (2, NULL)) v(id, name)) TO '" +
                            path + "'");
    ASSERT_TRUE(copied.ok()) << copied.status().ToString();
    EXPECT_EQ(copied->message, "COPY 2");
    EXPECT_EQ(Rows(&s, "SELECT id, name FROM '" + path + "' ORDER BY id"), (V{"1|x", "2|NULL"}))
        << ext;
  }
  ASSERT_TRUE(s.Execute("COPY (SELECT * FROM (VALUES (1, 'a'), (2, 'b'), (3, 'a')) v(id, g)) TO '" +
                        (dir / "parts").string() + "' (FORMAT parquet, PARTITION_BY g)")
                  .ok());
  EXPECT_TRUE(std::filesystem::is_directory(dir / "parts" / "g=a"));
  EXPECT_EQ(
      Rows(&s, "SELECT g, sum(id) FROM '" + (dir / "parts").string() + "' GROUP BY g ORDER BY g"),
      (V{"a|4", "b|2"}));
  EXPECT_NE(Error(&s, "COPY (SELECT 1 AS a) TO '" + (dir / "missing" / "x.csv").string() + "'")
                .find("directory '" + (dir / "missing").string() + "' does not exist"),
            std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(Session, ExplainShowsBothPlans) {
  Session s;
  ASSERT_TRUE(s.Execute("CREATE TABLE t AS SELECT 1 AS a, 2 AS b").ok());
  auto result = s.Execute("EXPLAIN SELECT a FROM t WHERE b = 2 ORDER BY a LIMIT 3");
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_TRUE(result->text);
  std::string text;
  for (int64_t i = 0; i < result->batch.num_rows(); ++i)
    text += std::string(result->batch.column(0).GetView(i)) + "\n";
  EXPECT_NE(text.find("== Logical plan ==\nLimit"), std::string::npos) << text;
  EXPECT_NE(text.find("== Optimized plan ==\nTopN"), std::string::npos) << text;
  EXPECT_NE(text.find("TopN"), std::string::npos) << text;
  EXPECT_NE(
      text.find("== Physical plan (pipelines, in run order) ==\nPipeline 0: InMemorySource -> "
                "Filter -> Project -> TopN"),
      std::string::npos)
      << text;
  result = s.Execute("EXPLAIN ANALYZE SELECT count(*) FROM t");
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_GT(result->batch.num_rows(), 4);
}

// The logical plan of `sql`, as EXPLAIN prints it.
std::string LogicalPlan(Session* session, const std::string& sql) {
  auto result = session->Execute("EXPLAIN " + sql);
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  std::string text;
  for (int64_t i = 0; result.ok() && i < result->batch.num_rows(); ++i)
    text += std::string(result->batch.column(0).GetView(i)) + "\n";
  return text.substr(0, text.find("== Optimized plan =="));
}

size_t Count(const std::string& text, const std::string& word) {
  size_t n = 0;
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1))
    ++n;
  return n;
}

TEST(Session, AGroupedCteReadTwiceIsComputedOnce) {
  Session s;
  ASSERT_TRUE(s.Execute("CREATE TABLE t AS SELECT * FROM (VALUES (1, 5), (1, 6), (2, 11), "
                        "(3, 4), (3, 6)) v(k, v)")
                  .ok());
  // Q15's shape: the groups whose sum is the largest (11: k = 1 and k = 2, by hand).
  const std::string top =
      "WITH g AS (SELECT k, sum(v) AS s FROM t GROUP BY k) "
      "SELECT k, s FROM g WHERE s = (SELECT max(s) FROM g) ORDER BY k";
  EXPECT_EQ(Rows(&s, top), (V{"1|11", "2|11"}));
  // Computed once, while planning: the plan reads its rows.
  EXPECT_EQ(Count(LogicalPlan(&s, top), "Aggregate"), 0u) << LogicalPlan(&s, top);
  const std::string joined =
      "WITH g AS (SELECT DISTINCT k FROM t) SELECT a.k, b.k FROM g a JOIN g b ON a.k < b.k "
      "ORDER BY 1, 2";
  EXPECT_EQ(Rows(&s, joined), (V{"1|2", "1|3", "2|3"}));
  EXPECT_EQ(Count(LogicalPlan(&s, joined), "Distinct"), 0u) << LogicalPlan(&s, joined);

  // Read once, or not grouped: planned where it is read, as a view is.
  const std::string once = "WITH g AS (SELECT k, sum(v) AS s FROM t GROUP BY k) SELECT * FROM g";
  EXPECT_EQ(Count(LogicalPlan(&s, once), "Aggregate"), 1u) << LogicalPlan(&s, once);
  const std::string plain =
      "WITH f AS (SELECT k FROM t WHERE v > 5) SELECT count(*) FROM f a, f b WHERE a.k = b.k";
  EXPECT_EQ(Rows(&s, plain), (V{"3"}));
  EXPECT_EQ(Count(LogicalPlan(&s, plain), "Filter: v > 5"), 2u) << LogicalPlan(&s, plain);
  // Too many groups to hold as rows: planned at each reference too.
  const std::string large =
      "WITH g AS (SELECT range % 1100000 AS k, count(*) AS c FROM range(1100000) GROUP BY 1) "
      "SELECT count(*) FROM g a JOIN g b ON a.k = b.k";
  EXPECT_EQ(Rows(&s, large), (V{"1100000"}));
  EXPECT_EQ(Count(LogicalPlan(&s, large), "Aggregate"), 3u) << LogicalPlan(&s, large);
}

TEST(Session, EquivalentQueriesGetTheSameOptimizedPlan) {
  Session s;
  ASSERT_TRUE(s.Execute("CREATE TABLE a AS SELECT * FROM (VALUES (1, 2)) v(k, x)").ok());
  ASSERT_TRUE(s.Execute("CREATE TABLE b AS SELECT * FROM (VALUES (1, 3), (1, 4)) v(k2, y)").ok());
  auto comma = s.PlanSql("SELECT x, y FROM a, b WHERE k = k2 AND y > 3");
  auto join = s.PlanSql("SELECT x, y FROM a JOIN b ON k = k2 WHERE y > 3");
  ASSERT_TRUE(comma.ok()) << comma.status().ToString();
  ASSERT_TRUE(join.ok()) << join.status().ToString();
  EXPECT_EQ(exec::PlanToString(**comma), exec::PlanToString(**join));
  EXPECT_NE(exec::PlanToString(**comma).find("HashJoin"), std::string::npos)
      << exec::PlanToString(**comma);
  EXPECT_EQ(Rows(&s, "SELECT x, y FROM a, b WHERE k = k2 AND y > 3"), (V{"2|4"}));
}

}  // namespace
}  // namespace flotilla::sql
