#include "flotilla/optimizer/optimizer.h"

#include <gtest/gtest.h>

#include "flotilla/expr/rewrite.h"
#include "tests/support/plan_checks.h"

namespace flotilla::optimizer {
namespace {

using namespace exec;               // NOLINT
using namespace flotilla::testing;  // NOLINT
using expr::Column;
using expr::Literal;

// A scan (so pushdowns are visible) of `batch` split in two tasks.
PlanPtr ScanOf(const RecordBatch& batch) {
  std::vector<std::shared_ptr<const ScanTask>> tasks = {
      std::make_shared<InMemoryScanTask>(
          std::vector<RecordBatch>{batch.Slice(0, batch.num_rows() / 2)}, "a"),
      std::make_shared<InMemoryScanTask>(
          std::vector<RecordBatch>{
              batch.Slice(batch.num_rows() / 2, batch.num_rows() - batch.num_rows() / 2)},
          "b")};
  return MakeScan(batch.schema(), tasks).ValueOrDie();
}

RecordBatch Orders() {
  return Batch({{"id", I64({1, 2, 3, 4, 5, 6})},
                {"cust", I64({10, 20, 10, 30, 20, 10})},
                {"total", I64({5, 7, 9, 11, 13, 15})}});
}
RecordBatch Customers() {
  return Batch({{"cust", I64({10, 20})}, {"name", Strs({"ann", "bob"})}});
}

// The optimized plan as text, after checking it returns the same rows as the plan as built.
std::string Optimized(const PlanPtr& plan, bool ordered = false) {
  auto optimized = Optimize(plan);
  EXPECT_TRUE(optimized.ok()) << optimized.status().ToString();
  if (!optimized.ok()) return "";
  EXPECT_TRUE((*optimized)->schema()->Equals(*plan->schema()))
      << (*optimized)->schema()->ToString() << " vs " << plan->schema()->ToString();
  auto before = RunToBatch(plan, {});
  auto after = RunToBatch(*optimized, {});
  EXPECT_TRUE(before.ok() && after.ok());
  if (before.ok() && after.ok()) ExpectRows(*after, *before, ordered, "optimized vs as built");
  return PlanToString(**optimized);
}

TEST(Optimizer, FoldsConstantsAndDropsTrueFilters) {
  PlanPtr scan = ScanOf(Orders());
  auto plan =
      MakeFilter(scan, expr::And(Literal(true),
                                 expr::Less(Column("total"),
                                            expr::Add(Literal(int64_t{2}), Literal(int64_t{8})))))
          .ValueOrDie();
  EXPECT_EQ(Optimized(plan), "Scan: 2 task(s) [a, ...] filter total < 10\n");
  auto always =
      MakeFilter(scan, expr::Or(Literal(true), expr::Less(Column("id"), Literal(int64_t{0}))));
  EXPECT_EQ(Optimized(*always), "Scan: 2 task(s) [a, ...]\n");
  auto never = MakeFilter(scan, expr::Equal(Literal(int64_t{1}), Literal(int64_t{2})));
  EXPECT_EQ(Optimized(*never), "InMemorySource: 1 partition(s), 0 rows\n");
}

TEST(Optimizer, FiltersMoveThroughProjectionsIntoScans) {
  PlanPtr scan = ScanOf(Orders());
  auto project = MakeProject(
      scan,
      {Column("id"), expr::Alias(expr::Multiply(Column("total"), Literal(int64_t{2})), "t2")});
  auto plan = MakeFilter(*project, expr::Greater(Column("t2"), Literal(int64_t{20})));
  EXPECT_EQ(Optimized(*plan),
            "Project: id, total * 2 AS t2\n"
            "  Scan: 2 task(s) [a, ...] columns [id, total] filter (total * 2) > 20\n");
}

TEST(Optimizer, AComputedColumnReadTwiceOrAVolatileOneIsNotComputedAgainBelow) {
  PlanPtr scan = ScanOf(Orders());
  const expr::ExprPtr t2 = expr::Alias(expr::Multiply(Column("total"), Literal(int64_t{2})), "t2");
  // t2 read twice: substituting it would compute total * 2 three times a row.
  auto twice = MakeFilter(*MakeProject(scan, {Column("id"), t2}),
                          expr::And(expr::Greater(Column("t2"), Literal(int64_t{20})),
                                    expr::Less(Column("t2"), Literal(int64_t{30}))));
  EXPECT_EQ(Optimized(*twice),
            "Filter: (t2 > 20) AND (t2 < 30)\n"
            "  Project: id, total * 2 AS t2\n"
            "    Scan: 2 task(s) [a, ...] columns [id, total]\n");
  // random() below would be another draw than the one the row carries. The id condition still
  // moves down.
  auto project = MakeProject(scan, {Column("id"), t2, expr::Alias(expr::Call("random", {}), "r")});
  auto plan = MakeFilter(*project, expr::And(expr::Less(Column("r"), Literal(0.5)),
                                             expr::Greater(Column("id"), Literal(int64_t{1}))));
  auto optimized = Optimize(*plan);
  ASSERT_TRUE(optimized.ok());
  EXPECT_EQ(PlanToString(**optimized),
            "Filter: r < 0.5\n"
            "  Project: id, total * 2 AS t2, random() AS r\n"
            "    Scan: 2 task(s) [a, ...] columns [id, total] filter id > 1\n");
  auto rows = RunToBatch(*optimized, {});
  ASSERT_TRUE(rows.ok());
  const Array& r = rows->column(2);
  for (int64_t i = 0; i < r.length(); ++i)
    EXPECT_LT(r.values<double>()[i], 0.5);
}

TEST(Optimizer, CrossJoinWithAnEqualityBecomesAHashJoin) {
  auto cross = MakeCrossJoin(MemorySource({Customers()}), MemorySource({Orders()}));
  auto plan = MakeFilter(*cross, expr::And(expr::Equal(Column("right.cust"), Column("cust")),
                                           expr::Greater(Column("total"), Literal(int64_t{6}))));
  EXPECT_EQ(Optimized(*plan),
            "HashJoin (inner): cust = cust\n"
            "  InMemorySource: 1 partition(s), 2 rows\n"
            "  Filter: total > 6\n"
            "    InMemorySource: 1 partition(s), 6 rows\n");
}

TEST(Optimizer, HashJoinsBuildTheSmallerSide) {
  auto cross = MakeCrossJoin(MemorySource({Customers()}), MemorySource({Orders()}));
  auto plan = MakeFilter(*cross, expr::Equal(Column("right.cust"), Column("cust")));
  // Orders (6 rows) probe, customers (2 rows) are built; names and order are restored.
  EXPECT_EQ(Optimized(*plan),
            "Project: right.cust AS cust, name, id, cust AS right.cust, total\n"
            "  HashJoin (inner): cust = cust\n"
            "    InMemorySource: 1 partition(s), 6 rows\n"
            "    InMemorySource: 1 partition(s), 2 rows\n");
}

TEST(Optimizer, SemiAndAntiJoinsOfASmallerLeftSideBuildIt) {
  // Customers (2 rows) with and without orders (6 rows): the customers become the hash table.
  for (JoinType type : {JoinType::kSemi, JoinType::kAnti}) {
    auto plan = MakeHashJoin(MemorySource({Customers()}), MemorySource({Orders()}),
                             {Column("cust")}, {Column("cust")}, type);
    EXPECT_EQ(Optimized(*plan), std::string("HashJoin (right ") + JoinTypeName(type) +
                                    "): cust = cust\n" +
                                    "  InMemorySource: 1 partition(s), 6 rows\n"
                                    "  InMemorySource: 1 partition(s), 2 rows\n");
  }
}

TEST(Optimizer, JoinsAreOrderedFromTheEstimates) {
  // FROM a, b, c WHERE a.k = c.k AND b.j = c.j, written so that a and b meet first with no
  // condition between them: the cross join must not survive.
  auto a = MemorySource({Batch({{"k", I64({1, 2, 3})}, {"x", I64({10, 20, 30})}})});
  auto b = MemorySource({Batch({{"j", I64({1, 2})}, {"y", I64({7, 8})}})});
  std::vector<std::optional<int64_t>> ks, js;
  for (int i = 0; i < 50; ++i) {
    ks.push_back(i % 4);
    js.push_back(i % 3);
  }
  auto c = MemorySource({Batch({{"ck", I64(ks)}, {"cj", I64(js)}})});
  auto ab = MakeCrossJoin(a, b).ValueOrDie();
  auto abc = MakeCrossJoin(ab, c).ValueOrDie();
  auto plan = MakeFilter(abc, expr::And(expr::Equal(Column("k"), Column("ck")),
                                        expr::Equal(Column("j"), Column("cj"))))
                  .ValueOrDie();
  const std::string text = Optimized(plan);
  EXPECT_EQ(text.find("CrossJoin"), std::string::npos) << text;
  EXPECT_EQ(text,
            "Project: k, x, j, y, ck, cj\n"
            "  HashJoin (inner): ck = k\n"
            "    HashJoin (inner): cj = j\n"
            "      InMemorySource: 1 partition(s), 50 rows\n"
            "      InMemorySource: 1 partition(s), 2 rows\n"
            "    InMemorySource: 1 partition(s), 3 rows\n")
      << text;
}

TEST(Optimizer, AJoinsStrategyHintSurvivesReordering) {
  auto a = MemorySource({Batch({{"k", I64({1, 2, 3})}, {"x", I64({10, 20, 30})}})});
  auto b = MemorySource({Batch({{"j", I64({1, 2})}, {"y", I64({7, 8})}})});
  std::vector<std::optional<int64_t>> ks;
  for (int i = 0; i < 50; ++i)
    ks.push_back(i % 4);
  auto c = MemorySource({Batch({{"ck", I64(ks)}})});
  auto ab = MakeHashJoin(a, b, {Column("k")}, {Column("j")}, JoinType::kInner, nullptr, {},
                         JoinStrategy::kBroadcast)
                .ValueOrDie();
  auto abc = MakeHashJoin(ab, c, {Column("k")}, {Column("ck")}, JoinType::kInner).ValueOrDie();
  PlanPtr optimized = Optimize(abc).ValueOrDie();
  int hinted = 0;
  std::vector<PlanPtr> stack{optimized};
  while (!stack.empty()) {
    PlanPtr n = stack.back();
    stack.pop_back();
    if (n->kind() == PlanKind::kHashJoin) {
      hinted += static_cast<const JoinNode&>(*n).strategy == JoinStrategy::kBroadcast;
    }
    stack.insert(stack.end(), n->children().begin(), n->children().end());
  }
  EXPECT_EQ(hinted, 1) << PlanToString(*optimized);
}

TEST(Optimizer, ProjectionsNarrowScansAndLimitsBecomeTopN) {
  PlanPtr scan = ScanOf(Orders());
  auto agg = MakeAggregate(scan, {Column("cust")}, {{"sum", {Column("total")}, "s"}});
  auto sorted = MakeSort(*agg, {{Column("s"), false, false}});
  auto limited = MakeLimit(*sorted, 2);
  EXPECT_EQ(Optimized(*limited, /*ordered=*/true),
            "TopN: 2 by s DESC NULLS LAST\n"
            "  Aggregate (single): sum(total) AS s BY cust\n"
            "    Scan: 2 task(s) [a, ...] columns [cust, total]\n");
  auto head = MakeLimit(MakeProject(scan, {Column("id")}).ValueOrDie(), 3);
  EXPECT_EQ(Optimized(*head, true),  // the projection only kept what the scan now reads
            "Limit: 3\n"
            "  Scan: 2 task(s) [a, ...] columns [id] limit 3\n");
}

TEST(Optimizer, PruningKeepsEveryNameOnARenamingChain) {
  // Three orders joined: the third's columns are "right.right.x" because both "x" and
  // "right.x" are taken on the left. Reading only the third's total must not drop the second's
  // "right.total" from the left input, which would rename the third's column to it.
  PlanPtr scan = ScanOf(Orders());
  auto first = MakeHashJoin(scan, scan, {Column("cust")}, {Column("cust")}, JoinType::kInner);
  auto second = MakeHashJoin(*first, scan, {Column("id")}, {Column("id")}, JoinType::kInner);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  auto plan = MakeProject(*second, {Column("right.right.total"), Column("cust")});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_NE(Optimized(*plan), "");
}

TEST(Optimizer, ConditionsOnTheNullFilledSideOfAnOuterJoinStayAbove) {
  auto join = MakeHashJoin(MemorySource({Orders()}), MemorySource({Customers()}), {Column("cust")},
                           {Column("cust")}, JoinType::kLeft);
  auto plan = MakeFilter(*join, expr::And(expr::IsNull(Column("name")),
                                          expr::Greater(Column("id"), Literal(int64_t{1}))));
  // The filtered orders (estimated 1.5 rows) are the smaller side: the left join becomes a
  // right join that builds them.
  EXPECT_EQ(Optimized(*plan),
            "Filter: name IS NULL\n"
            "  Project: id, right.cust AS cust, total, cust AS right.cust, name\n"
            "    HashJoin (right): cust = cust\n"
            "      InMemorySource: 1 partition(s), 2 rows\n"
            "      Filter: id > 1\n"
            "        InMemorySource: 1 partition(s), 6 rows\n");
}

TEST(Optimizer, JoinOrderTellsKeysFromLowCardinalityColumns) {
  // FROM f, d, x WHERE f.fk = d.dk AND f.g = x.xg: x is the smaller input, but g has two
  // values, so joining x first multiplies f's rows; d's key is unique and goes first.
  std::vector<std::optional<int64_t>> fk, g, dk, xg;
  for (int i = 0; i < 40; ++i) {
    fk.push_back(i % 12);
    g.push_back(i % 2);
  }
  for (int i = 0; i < 12; ++i)
    dk.push_back(i);
  for (int i = 0; i < 8; ++i)
    xg.push_back(i % 2);
  auto f = ScanOf(Batch({{"fk", I64(fk)}, {"g", I64(g)}}));
  auto d = ScanOf(Batch({{"dk", I64(dk)}}));
  auto x = ScanOf(Batch({{"xg", I64(xg)}}));
  auto fdx = MakeCrossJoin(MakeCrossJoin(f, x).ValueOrDie(), d).ValueOrDie();
  auto plan = MakeFilter(fdx, expr::And(expr::Equal(Column("fk"), Column("dk")),
                                        expr::Equal(Column("g"), Column("xg"))))
                  .ValueOrDie();
  EXPECT_EQ(Optimized(plan),
            "Project: fk, g, xg, dk\n"
            "  HashJoin (inner): g = xg\n"
            "    HashJoin (inner): fk = dk\n"
            "      Scan: 2 task(s) [a, ...]\n"
            "      Scan: 2 task(s) [a, ...]\n"
            "    Scan: 2 task(s) [a, ...]\n");
}

TEST(Optimizer, JoinOrderBuildsAFilteredChainOfDimensionsAsOneTable) {
  // FROM f, o, c, n WHERE f.ok = o.ok AND o.ck = c.ck AND c.nk = n.nk AND n.name = 'x': the
  // filter on n shrinks c and through it o, so f probes one table of o joined with c and n
  // (built first) rather than joining o whole and filtering after.
  std::vector<std::optional<int64_t>> f_ok, o_ok, o_ck, c_ck, c_nk, n_nk;
  std::vector<std::optional<std::string>> name;
  for (int i = 0; i < 400; ++i)
    f_ok.push_back(i % 100);
  for (int i = 0; i < 100; ++i) {
    o_ok.push_back(i);
    o_ck.push_back(i % 50);
  }
  for (int i = 0; i < 50; ++i) {
    c_ck.push_back(i);
    c_nk.push_back(i % 5);
  }
  for (int i = 0; i < 5; ++i) {
    n_nk.push_back(i);
    name.push_back(std::string(1, static_cast<char>('v' + i)));
  }
  auto f = ScanOf(Batch({{"f_ok", I64(f_ok)}}));
  auto o = ScanOf(Batch({{"o_ok", I64(o_ok)}, {"o_ck", I64(o_ck)}}));
  auto c = ScanOf(Batch({{"c_ck", I64(c_ck)}, {"c_nk", I64(c_nk)}}));
  auto n = ScanOf(Batch({{"n_nk", I64(n_nk)}, {"name", Strs(name)}}));
  auto all = MakeCrossJoin(MakeCrossJoin(MakeCrossJoin(f, o).ValueOrDie(), c).ValueOrDie(), n)
                 .ValueOrDie();
  auto plan =
      MakeFilter(all, expr::JoinConjuncts({expr::Equal(Column("f_ok"), Column("o_ok")),
                                           expr::Equal(Column("o_ck"), Column("c_ck")),
                                           expr::Equal(Column("c_nk"), Column("n_nk")),
                                           expr::Equal(Column("name"), Literal(std::string("x")))}))
          .ValueOrDie();
  EXPECT_EQ(Optimized(plan),
            "HashJoin (inner): f_ok = o_ok\n"
            "  Scan: 2 task(s) [a, ...]\n"
            "  HashJoin (inner): o_ck = c_ck\n"
            "    Scan: 2 task(s) [a, ...]\n"
            "    HashJoin (inner): c_nk = n_nk\n"
            "      Scan: 2 task(s) [a, ...]\n"
            "      Scan: 2 task(s) [a, ...] filter name = 'x'\n");
}

TEST(Optimizer, AnAggregateJoinedOnItsGroupKeysAggregatesOnlyTheKeysTheOtherSideHas) {
  // o LEFT JOIN (SELECT k AS kk, sum(v) FROM x GROUP BY k) ON ok = kk, with o filtered to a
  // few keys: x is semi joined with o's keys before it is aggregated.
  std::vector<std::optional<int64_t>> ok, flag, k, v;
  for (int i = 0; i < 40; ++i) {
    ok.push_back(i);
    flag.push_back(i % 10);
  }
  for (int i = 0; i < 1000; ++i) {
    k.push_back(i % 50);
    v.push_back(i);
  }
  auto o = MakeFilter(ScanOf(Batch({{"ok", I64(ok)}, {"flag", I64(flag)}})),
                      expr::Equal(Column("flag"), Literal(int64_t{3})))
               .ValueOrDie();
  auto x = ScanOf(Batch({{"k", I64(k)}, {"v", I64(v)}}));
  auto sums = MakeAggregate(x, {expr::Alias(Column("k"), "kk")}, {{"sum", {Column("v")}, "s"}})
                  .ValueOrDie();
  auto join = MakeHashJoin(o, sums, {Column("ok")}, {Column("kk")}, JoinType::kLeft).ValueOrDie();
  const std::string text = Optimized(join);
  EXPECT_NE(text.find("HashJoin (semi): k = ok"), std::string::npos) << text;
  // An outer side not well under the aggregate's input: reading it twice would cost more.
  auto small =
      ScanOf(Batch({{"k", I64(std::vector<std::optional<int64_t>>(k.begin(), k.begin() + 60))},
                    {"v", I64(std::vector<std::optional<int64_t>>(v.begin(), v.begin() + 60))}}));
  auto small_sums =
      MakeAggregate(small, {expr::Alias(Column("k"), "kk")}, {{"sum", {Column("v")}, "s"}})
          .ValueOrDie();
  auto other = MakeHashJoin(ScanOf(Batch({{"ok", I64(ok)}, {"flag", I64(flag)}})), small_sums,
                            {Column("ok")}, {Column("kk")}, JoinType::kLeft)
                   .ValueOrDie();
  const std::string unreduced = Optimized(other);
  EXPECT_EQ(unreduced.find("semi"), std::string::npos) << unreduced;
}

TEST(Optimizer, AnExpressionInSeveralAggregatesIsComputedOnce) {
  auto scan = ScanOf(Orders());
  auto price = [] { return expr::Multiply(Column("total"), Column("id")); };
  auto plan = MakeAggregate(scan, {Column("cust")},
                            {{"sum", {price()}, "a"},
                             {"max", {expr::Add(price(), Literal(int64_t{1}))}, "b"},
                             {"sum", {Column("total")}, "c"}})
                  .ValueOrDie();
  const std::string text = Optimized(plan);
  EXPECT_NE(text.find("total * id AS __shared0"), std::string::npos) << text;
  EXPECT_NE(text.find("max(__shared0 + 1) AS b"), std::string::npos) << text;
}

TEST(Optimizer, ConditionsSharedByEveryBranchOfAnOrBecomeJoinKeys) {
  // (cust = right.cust AND total > 10) OR (cust = right.cust AND name = 'ann'): the key is
  // taken out of the OR, and each side is filtered by what the OR implies for it.
  auto cross = MakeCrossJoin(ScanOf(Orders()), ScanOf(Customers()));
  auto key = [] { return expr::Equal(Column("cust"), Column("right.cust")); };
  auto plan = MakeFilter(
      *cross, expr::Or(expr::And(key(), expr::Greater(Column("total"), Literal(int64_t{10}))),
                       expr::And(key(), expr::Equal(Column("name"), Literal(std::string("ann"))))));
  const std::string text = Optimized(*plan);
  EXPECT_NE(text.find("HashJoin (inner): cust = cust AND (total > 10) OR (name = 'ann')"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("CrossJoin"), std::string::npos) << text;
}

TEST(Optimizer, AnOrAcrossAJoinFiltersEachSideByWhatItImplies) {
  auto join = MakeHashJoin(ScanOf(Orders()), ScanOf(Customers()), {Column("cust")},
                           {Column("cust")}, JoinType::kInner);
  auto plan = MakeFilter(
      *join, expr::Or(expr::And(expr::Less(Column("total"), Literal(int64_t{8})),
                                expr::Equal(Column("name"), Literal(std::string("ann")))),
                      expr::And(expr::Greater(Column("total"), Literal(int64_t{12})),
                                expr::Equal(Column("name"), Literal(std::string("bob"))))));
  const std::string text = Optimized(*plan);
  EXPECT_NE(text.find("filter (total < 8) OR (total > 12)"), std::string::npos) << text;
  EXPECT_NE(text.find("filter (name = 'ann') OR (name = 'bob')"), std::string::npos) << text;
}

TEST(Optimizer, OnConditionsOfTheInnerSideOfALeftJoinFilterItsInput) {
  auto join =
      MakeHashJoin(ScanOf(Customers()), ScanOf(Orders()), {Column("cust")}, {Column("cust")},
                   JoinType::kLeft, expr::Greater(Column("total"), Literal(int64_t{8})));
  EXPECT_EQ(Optimized(*join),
            "HashJoin (left): cust = cust\n"
            "  Scan: 2 task(s) [a, ...]\n"
            "  Scan: 2 task(s) [a, ...] filter total > 8\n");
}

TEST(Optimizer, SemiJoinsMoveIntoTheJoinInputTheyFilter) {
  // customers JOIN orders, then semi join on the customer key with a list of keys: the semi
  // join filters customers before they are joined.
  auto wanted = ScanOf(Batch({{"k", I64({10})}}));
  auto join = MakeHashJoin(ScanOf(Customers()), ScanOf(Orders()), {Column("cust")},
                           {Column("cust")}, JoinType::kInner);
  auto plan = MakeHashJoin(*join, wanted, {Column("name")}, {Column("k")}, JoinType::kSemi);
  ASSERT_FALSE(plan.ok());  // name is a string: keys must compare
  plan = MakeHashJoin(*join, wanted, {Column("cust")}, {Column("k")}, JoinType::kSemi);
  const std::string text = Optimized(*plan);
  EXPECT_NE(text.find("HashJoin (semi): cust = k\n      Scan"), std::string::npos) << text;
}

}  // namespace
}  // namespace flotilla::optimizer
