#include "flotilla/sql/parser.h"

#include <gtest/gtest.h>

namespace flotilla::sql {
namespace {

Statement ParseOne(std::string_view sql) {
  auto statements = Parse(sql);
  EXPECT_TRUE(statements.ok()) << statements.status().ToString();
  if (!statements.ok() || statements->size() != 1) return {};
  return (*statements)[0];
}

std::string ParseError(std::string_view sql) {
  auto statements = Parse(sql);
  EXPECT_FALSE(statements.ok()) << sql;
  return statements.ok() ? "" : statements.status().message();
}

TEST(Parser, OperatorPrecedence) {
  auto e = ParseExpression("1 + 2 * 3 = 7 AND NOT x OR y");
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  // ((1 + (2 * 3)) = 7 AND NOT x) OR y
  const Node& root = **e;
  ASSERT_EQ(root.kind, NodeKind::kBinary);
  EXPECT_EQ(root.text, "OR");
  const Node& conj = *root.args[0];
  EXPECT_EQ(conj.text, "AND");
  const Node& eq = *conj.args[0];
  EXPECT_EQ(eq.text, "=");
  EXPECT_EQ(eq.args[0]->text, "+");
  EXPECT_EQ(eq.args[0]->args[1]->text, "*");
  EXPECT_EQ(conj.args[1]->kind, NodeKind::kUnary);
}

TEST(Parser, CastsBetweenInLikeAndIntervals) {
  auto e = ParseExpression("x::decimal(15, 2) BETWEEN 1 AND 2");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ((*e)->kind, NodeKind::kBetween);
  EXPECT_EQ((*e)->args[0]->type->ToString(), "decimal128(15, 2)");
  e = ParseExpression("a NOT IN (1, 2, 3)");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ((*e)->kind, NodeKind::kInList);
  EXPECT_TRUE((*e)->flag);
  EXPECT_EQ((*e)->args.size(), 4u);
  e = ParseExpression("name NOT LIKE 'a%'");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ((*e)->kind, NodeKind::kUnary);
  EXPECT_EQ((*e)->args[0]->text, "LIKE");
  e = ParseExpression("date '1998-12-01' - interval '90' day");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ((*e)->args[0]->kind, NodeKind::kTypedLiteral);
  EXPECT_EQ((*e)->args[1]->kind, NodeKind::kInterval);
  EXPECT_EQ((*e)->args[1]->text, "90");
  EXPECT_EQ((*e)->args[1]->unit, "day");
  e = ParseExpression("-9223372036854775808");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ((*e)->kind, NodeKind::kLiteral);
  EXPECT_EQ((*e)->text, "-9223372036854775808");
}

TEST(Parser, SelectClauses) {
  Statement s = ParseOne(
      "WITH t AS (SELECT 1 AS a) SELECT DISTINCT a, count(*) c FROM t JOIN u USING (a) "
      "LEFT JOIN v ON t.a = v.a, w WHERE a > 0 GROUP BY 1 HAVING count(*) > 1 "
      "ORDER BY c DESC NULLS FIRST LIMIT 10 OFFSET 5");
  ASSERT_EQ(s.kind, Statement::kQuery);
  const Query& q = *s.query;
  ASSERT_EQ(q.with.size(), 1u);
  EXPECT_EQ(q.with[0].name, "t");
  const SelectCore& core = *q.select;
  EXPECT_TRUE(core.distinct);
  ASSERT_EQ(core.items.size(), 2u);
  EXPECT_EQ(core.items[1].alias, "c");
  EXPECT_EQ(core.items[1].text, "count(*)");
  ASSERT_EQ(core.from.size(), 2u);
  const TableRef& join = *core.from[0];
  EXPECT_EQ(join.kind, TableRef::kJoin);
  EXPECT_EQ(join.join, JoinKind::kLeft);
  EXPECT_EQ(join.left->using_columns, std::vector<std::string>{"a"});
  EXPECT_EQ(core.group_by.size(), 1u);
  ASSERT_EQ(q.order_by.size(), 1u);
  EXPECT_FALSE(q.order_by[0].ascending);
  EXPECT_EQ(q.order_by[0].nulls_first, true);
  EXPECT_EQ(q.limit->text, "10");
  EXPECT_EQ(q.offset_rows->text, "5");
}

TEST(Parser, SetOperationsBindIntersectTighter) {
  Statement s = ParseOne("SELECT 1 UNION SELECT 2 INTERSECT SELECT 3");
  const Query& q = *s.query;
  ASSERT_EQ(q.kind, Query::kSetOp);
  EXPECT_EQ(q.set_op, SetOpKind::kUnion);
  EXPECT_EQ(q.right->kind, Query::kSetOp);
  EXPECT_EQ(q.right->set_op, SetOpKind::kIntersect);
}

TEST(Parser, WindowFunctionsAndSubqueries) {
  auto e = ParseExpression(
      "sum(x) OVER (PARTITION BY g ORDER BY t ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)");
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  ASSERT_TRUE((*e)->over);
  EXPECT_TRUE((*e)->over->rows);
  EXPECT_EQ((*e)->over->start.kind, FrameBoundAst::kPreceding);
  e = ParseExpression("NOT EXISTS (SELECT * FROM t WHERE t.a = b)");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ((*e)->kind, NodeKind::kExists);
  EXPECT_TRUE((*e)->flag);
  e = ParseExpression("(a, b) IN (SELECT y, z FROM t)");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ((*e)->args[0]->kind, NodeKind::kRow);
  e = ParseExpression("x > ALL (SELECT y FROM t)");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ((*e)->kind, NodeKind::kQuantified);
  EXPECT_TRUE((*e)->flag);
  e = ParseExpression("substring(s FROM 2 FOR 3) || trim(LEADING 'x' FROM s)");
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ((*e)->args[0]->names[0], "substr");
  EXPECT_EQ((*e)->args[0]->args.size(), 3u);
  EXPECT_EQ((*e)->args[1]->names[0], "ltrim");
  e = ParseExpression("x IN (SELECT y FROM t)");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ((*e)->kind, NodeKind::kInSubquery);
}

TEST(Parser, OtherStatements) {
  EXPECT_EQ(ParseOne("CREATE OR REPLACE TEMP VIEW v AS SELECT 1").kind, Statement::kCreateView);
  Statement copy = ParseOne("COPY (SELECT 1) TO 'out.csv' (FORMAT csv, HEADER true)");
  EXPECT_EQ(copy.kind, Statement::kCopy);
  EXPECT_EQ(copy.path, "out.csv");
  ASSERT_EQ(copy.options.size(), 2u);
  EXPECT_EQ(copy.options[0].value->text, "csv");
  Statement set = ParseOne("SET threads = 4");
  EXPECT_EQ(set.kind, Statement::kSet);
  EXPECT_EQ(set.name, "threads");
  Statement explain = ParseOne("EXPLAIN ANALYZE SELECT 1");
  EXPECT_TRUE(explain.analyze);
  auto many = Parse("SELECT 1; SELECT 2;;");
  ASSERT_TRUE(many.ok());
  EXPECT_EQ(many->size(), 2u);
}

TEST(Parser, ErrorsPointAtTheToken) {
  EXPECT_EQ(ParseError("SELECT a FROM t WHERE"),
            "expected an expression (at the end of the input) at line 1, column 22:\n"
            "  SELECT a FROM t WHERE\n"
            "                       ^");
  EXPECT_EQ(ParseError("SELECT a,\n  b FROM t GROUP x"),
            "expected ';' or the end of the input near 'GROUP' at line 2, column 12:\n"
            "    b FROM t GROUP x\n"
            "             ^");
  EXPECT_EQ(ParseError("SELECT CAST(x AS widget)").substr(0, 21), "unknown type 'widget'");
  EXPECT_NE(ParseError("").find("empty SQL"), std::string::npos);
  EXPECT_NE(ParseError("SELEC 1").find("expected a statement"), std::string::npos);
}

}  // namespace
}  // namespace flotilla::sql
