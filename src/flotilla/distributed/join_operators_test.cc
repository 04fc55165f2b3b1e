// Joins on an in-process cluster of 3 workers, each compared with the local runner: every join
// type, shuffled on the keys (hash and sort-merge) and broadcast where the type allows, over
// inputs with many-to-many duplicates, one hot key, keys that are all null, and an empty side;
// null-equal keys, residual predicates and cross joins; and the strategy the planner picks.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "flotilla/distributed/test_cluster.h"

namespace flotilla::distributed {
namespace {

using exec::JoinType;
using exec::PlanPtr;
using flotilla::testing::Batch;
using flotilla::testing::ExpectRows;
using namespace flotilla::testing;
using expr::Column;
using expr::Literal;
using testing::Recorder;
using testing::StartCluster;

// `partitions` in-memory partitions of `rows` rows: key column `key` from `key_of(i)` (nullopt:
// null) and a payload column `payload` = i.
PlanPtr Side(const std::string& key, const std::string& payload, int partitions, int rows,
             const std::function<std::optional<int64_t>(int)>& key_of) {
  std::vector<MicroPartition> parts;
  SchemaPtr schema;
  for (int p = 0; p < partitions; ++p) {
    std::vector<std::optional<int64_t>> k, v;
    for (int i = p * rows; i < (p + 1) * rows; ++i) {
      k.push_back(key_of(i));
      v.push_back(i);
    }
    RecordBatch b = Batch({{key, I64(k)}, {payload, I64(v)}});
    schema = b.schema();
    parts.push_back(MicroPartition::FromBatches(b.schema(), {b}).ValueOrDie());
  }
  if (schema == nullptr) {
    schema = Batch({{key, I64({})}, {payload, I64({})}}).schema();
  }
  return exec::MakeInMemorySource(schema, parts).ValueOrDie();
}

struct Inputs {
  std::string name;
  PlanPtr left, right;
};

std::vector<Inputs> Cases() {
  auto mod = [](int m) { return [m](int i) -> std::optional<int64_t> { return i % m; }; };
  return {
      // Keys 0..4 on the left, 0..6 on the right: duplicates on both sides, keys on one only.
      {"many-to-many", Side("k", "lv", 4, 10, mod(5)), Side("rk", "rv", 3, 10, mod(7))},
      {"one hot key",
       Side("k", "lv", 4, 25, [](int i) -> std::optional<int64_t> { return i % 10 == 0 ? i : 3; }),
       Side("rk", "rv", 3, 5, [](int i) -> std::optional<int64_t> { return i % 4 == 0 ? 3 : i; })},
      {"left keys all null",
       Side("k", "lv", 3, 8, [](int) -> std::optional<int64_t> { return std::nullopt; }),
       Side("rk", "rv", 2, 6,
            [](int i) -> std::optional<int64_t> {
              return i % 3 == 0 ? std::nullopt : std::optional<int64_t>(i % 4);
            })},
      {"right side empty", Side("k", "lv", 3, 7, mod(3)), Side("rk", "rv", 0, 0, mod(3))},
      {"left side empty", Side("k", "lv", 0, 0, mod(3)), Side("rk", "rv", 2, 7, mod(3))},
  };
}

constexpr JoinType kEveryType[] = {JoinType::kInner,     JoinType::kLeft,     JoinType::kRight,
                                   JoinType::kFull,      JoinType::kSemi,     JoinType::kAnti,
                                   JoinType::kRightSemi, JoinType::kRightAnti};

enum class Strategy { kShuffle, kBroadcast };

class JoinOperatorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = StartCluster(3, /*threads=*/1);
    ASSERT_NE(cluster_, nullptr);
  }

  DriverOptions Options(Strategy strategy) {
    DriverOptions o;
    o.query_id = ++query_;
    o.progress = 0;
    o.plan.broadcast_join_bytes = strategy == Strategy::kBroadcast ? int64_t{1} << 40 : 0;
    o.subscribers.push_back(recorder_);
    return o;
  }

  void ExpectSame(const PlanPtr& plan, Strategy strategy, const std::string& what) {
    testing::ExpectSameAsLocal(*cluster_, plan, Options(strategy), false, what, /*threads=*/1);
  }

  std::unique_ptr<InProcessCluster> cluster_;
  std::shared_ptr<Recorder> recorder_ = std::make_shared<Recorder>();
  int64_t query_ = 0;
};

std::string Describe(const Inputs& in, JoinType type, Strategy strategy) {
  return in.name + ", " + exec::JoinTypeName(type) + " join, " +
         (strategy == Strategy::kShuffle ? "shuffled" : "broadcast where allowed");
}

TEST_F(JoinOperatorsTest, HashJoinOfEveryTypeShuffledAndBroadcast) {
  for (const Inputs& in : Cases()) {
    for (JoinType type : kEveryType) {
      PlanPtr join =
          exec::MakeHashJoin(in.left, in.right, {Column("k")}, {Column("rk")}, type).ValueOrDie();
      for (Strategy strategy : {Strategy::kShuffle, Strategy::kBroadcast}) {
        ExpectSame(join, strategy, Describe(in, type, strategy));
      }
    }
  }
  // Shuffled: both sides' map tasks end in a split, one exchange joins partition by partition.
  std::set<std::string> nodes = recorder_->CompletedNodes();
  EXPECT_TRUE(nodes.count("Exchange -> HashJoin")) << ::testing::PrintToString(nodes);
  // Broadcast: the join runs in the other side's source tasks.
  EXPECT_TRUE(nodes.count("InMemorySource -> HashJoin")) << ::testing::PrintToString(nodes);
}

TEST_F(JoinOperatorsTest, NullEqualKeysAndResidualPredicates) {
  for (const Inputs& in : Cases()) {
    for (JoinType type : kEveryType) {
      PlanPtr null_equal = exec::MakeHashJoin(in.left, in.right, {Column("k")}, {Column("rk")},
                                              type, nullptr, {true})
                               .ValueOrDie();
      // The residual sees both sides' columns (semi and anti joins' too).
      PlanPtr residual = exec::MakeHashJoin(in.left, in.right, {Column("k")}, {Column("rk")}, type,
                                            expr::Less(Column("lv"), Column("rv")))
                             .ValueOrDie();
      for (Strategy strategy : {Strategy::kShuffle, Strategy::kBroadcast}) {
        ExpectSame(null_equal, strategy, "null-equal keys, " + Describe(in, type, strategy));
        ExpectSame(residual, strategy, "lv < rv, " + Describe(in, type, strategy));
      }
    }
  }
}

TEST_F(JoinOperatorsTest, SortMergeJoinOfEveryTypeItHas) {
  for (const Inputs& in : Cases()) {
    for (JoinType type : {JoinType::kInner, JoinType::kLeft, JoinType::kRight, JoinType::kFull}) {
      PlanPtr join = exec::MakeSortMergeJoin(in.left, in.right, {Column("k")}, {Column("rk")}, type)
                         .ValueOrDie();
      for (Strategy strategy : {Strategy::kShuffle, Strategy::kBroadcast}) {
        ExpectSame(join, strategy, "sort-merge, " + Describe(in, type, strategy));
      }
    }
  }
  EXPECT_TRUE(recorder_->CompletedNodes().count("Exchange -> SortMergeJoin"));
}

TEST_F(JoinOperatorsTest, CrossJoinBroadcastsItsSmallerSideOrPairsTasks) {
  for (const Inputs& in : Cases()) {
    PlanPtr cross = exec::MakeCrossJoin(in.left, in.right).ValueOrDie();
    // Small sides broadcast; with nothing small enough, every pair of tasks.
    for (Strategy strategy : {Strategy::kBroadcast, Strategy::kShuffle}) {
      ExpectSame(cross, strategy, "cross join, " + Describe(in, JoinType::kInner, strategy));
    }
  }
  // One row against many: the one row goes to every task of the other side.
  PlanPtr one = Side("k", "lv", 1, 1, [](int) -> std::optional<int64_t> { return 1; });
  PlanPtr many = Side("rk", "rv", 5, 20, [](int i) -> std::optional<int64_t> { return i; });
  recorder_->events.clear();
  ExpectSame(exec::MakeCrossJoin(one, many).ValueOrDie(), Strategy::kBroadcast, "1 x 100");
  EXPECT_EQ(recorder_->Completed("InMemorySource -> CrossJoin"), 5) << "one per task of the larger";
  // Two large sides: a task per pair of their tasks.
  PlanPtr three = Side("k", "lv", 3, 4, [](int i) -> std::optional<int64_t> { return i; });
  PlanPtr cross = exec::MakeCrossJoin(three, many).ValueOrDie();
  DistributedPlanOptions never;
  never.broadcast_join_bytes = 0;
  const std::string text = DistributedPlanToString(PlanDistributed(cross, never).ValueOrDie());
  EXPECT_NE(text.find("Pairs -> CrossJoin (every pair of tasks) <- [0] + [1] paired"),
            std::string::npos)
      << text;
  recorder_->events.clear();
  ExpectSame(cross, Strategy::kShuffle, "3 tasks x 5 tasks");
  EXPECT_EQ(recorder_->Completed("Pairs -> CrossJoin"), 15);
}

// Estimates can be far off and a hint wrong: a broadcast side found over the cap once computed
// is joined some other way, with the same answer.
TEST_F(JoinOperatorsTest, ABroadcastSideOverTheCapIsNotBroadcast) {
  std::set<std::string> nodes;
  for (const Inputs& in : Cases()) {
    for (JoinType type : kEveryType) {
      PlanPtr join = exec::MakeHashJoin(in.left, in.right, {Column("k")}, {Column("rk")}, type,
                                        nullptr, {}, exec::JoinStrategy::kBroadcast)
                         .ValueOrDie();
      DriverOptions o = Options(Strategy::kBroadcast);
      o.plan.broadcast_max_bytes = 0;
      const std::string what = "over the cap, " + Describe(in, type, Strategy::kBroadcast);
      recorder_->events.clear();
      testing::ExpectSameAsLocal(*cluster_, join, o, false, what, 1);
      // An empty side holds no bytes: it stays broadcast.
      if (in.name.find("empty") == std::string::npos) {
        EXPECT_EQ(recorder_->Completed("InMemorySource -> HashJoin"), 0) << what;
      }
      nodes.merge(recorder_->CompletedNodes());
    }
  }
  EXPECT_TRUE(nodes.count("Exchange -> HashJoin")) << ::testing::PrintToString(nodes);
  EXPECT_TRUE(nodes.count("Map -> Repartition")) << "the broadcast side split after all";

  // A star: the fact side's tasks join a small dimension by broadcast, a large one (over the
  // cap) by shuffle, then aggregate: the steps after the large join move to its exchange.
  PlanPtr fact = Side("k", "lv", 6, 40, [](int i) -> std::optional<int64_t> { return i % 7; });
  PlanPtr small = Side("ak", "av", 1, 3, [](int i) -> std::optional<int64_t> { return i; });
  PlanPtr large =
      Side("bk", "bv", 2, 1000, [](int i) -> std::optional<int64_t> { return i % 300; });
  PlanPtr star = exec::MakeHashJoin(exec::MakeHashJoin(fact, small, {Column("k")}, {Column("ak")},
                                                       JoinType::kInner)
                                        .ValueOrDie(),
                                    large, {Column("lv")}, {Column("bk")}, JoinType::kLeft)
                     .ValueOrDie();
  PlanPtr sums = exec::MakeAggregate(star, {Column("k")},
                                     {{"sum", {Column("bv")}, "s"}, {"count_star", {}, "n"}})
                     .ValueOrDie();
  recorder_->events.clear();
  DriverOptions o = Options(Strategy::kBroadcast);
  o.plan.broadcast_max_bytes = 4096;  // the small side's bytes are under it, the large one's over
  testing::ExpectSameAsLocal(*cluster_, sums, o, false, "a star, one dimension over the cap", 1);
  nodes = recorder_->CompletedNodes();
  EXPECT_TRUE(nodes.count("InMemorySource -> HashJoin -> Repartition"))
      << ::testing::PrintToString(nodes);
  EXPECT_TRUE(nodes.count("Exchange -> HashJoin -> Aggregate -> Repartition"))
      << ::testing::PrintToString(nodes);

  // A cross join's side over the cap: every pair of tasks.
  PlanPtr three = Side("k", "lv", 3, 4, [](int i) -> std::optional<int64_t> { return i; });
  recorder_->events.clear();
  DriverOptions capped = Options(Strategy::kBroadcast);
  capped.plan.broadcast_max_bytes = 0;
  testing::ExpectSameAsLocal(*cluster_, exec::MakeCrossJoin(fact, three).ValueOrDie(), capped,
                             false, "a cross join over the cap", 1);
  EXPECT_EQ(recorder_->Completed("Pairs -> CrossJoin"), 18);
}

TEST_F(JoinOperatorsTest, JoinsOfJoinsThenAnAggregate) {
  // A multi-stage pipeline: join -> aggregate -> join -> top-N, shuffled and broadcast.
  PlanPtr a = Side("k", "lv", 4, 25, [](int i) -> std::optional<int64_t> { return i % 9; });
  PlanPtr b = Side("rk", "rv", 3, 10, [](int i) -> std::optional<int64_t> { return i % 6; });
  PlanPtr c = Side("ck", "cv", 2, 5, [](int i) -> std::optional<int64_t> { return i; });
  PlanPtr ab =
      exec::MakeHashJoin(a, b, {Column("k")}, {Column("rk")}, JoinType::kInner).ValueOrDie();
  PlanPtr agg = exec::MakeAggregate(ab, {Column("k")},
                                    {{"sum", {Column("rv")}, "srv"}, {"count_star", {}, "n"}},
                                    exec::AggregateMode::kSingle)
                    .ValueOrDie();
  PlanPtr abc =
      exec::MakeHashJoin(agg, c, {Column("k")}, {Column("ck")}, JoinType::kLeft).ValueOrDie();
  PlanPtr top =
      exec::MakeTopN(abc, {{Column("srv"), false, false}, {Column("k"), true, false}}, 4, 1)
          .ValueOrDie();
  for (Strategy strategy : {Strategy::kShuffle, Strategy::kBroadcast}) {
    ExpectSame(abc, strategy, "join, aggregate, join");
    ExpectSame(top, strategy, "join, aggregate, join, top-N");
  }
}

TEST_F(JoinOperatorsTest, ASmallSideIsBroadcastAndExplainSaysSo) {
  PlanPtr big = Side("k", "lv", 4, 10, [](int i) -> std::optional<int64_t> { return i % 5; });
  PlanPtr small = Side("rk", "rv", 1, 3, [](int i) -> std::optional<int64_t> { return i; });
  PlanPtr join =
      exec::MakeHashJoin(big, small, {Column("k")}, {Column("rk")}, JoinType::kLeft).ValueOrDie();
  DistributedPlanOptions broadcast;  // the default threshold: 10 MiB
  std::string text = DistributedPlanToString(PlanDistributed(join, broadcast).ValueOrDie());
  EXPECT_NE(text.find("broadcast to every task"), std::string::npos) << text;
  // A right join keeps every right row once: the right side cannot be broadcast.
  PlanPtr right =
      exec::MakeHashJoin(big, small, {Column("k")}, {Column("rk")}, JoinType::kRight).ValueOrDie();
  text = DistributedPlanToString(PlanDistributed(right, broadcast).ValueOrDie());
  EXPECT_NE(text.find("[0] broadcast to every task"), std::string::npos)
      << "the left side is, for a right join\n"
      << text;
  DistributedPlanOptions never;
  never.broadcast_join_bytes = 0;
  text = DistributedPlanToString(PlanDistributed(join, never).ValueOrDie());
  EXPECT_NE(text.find("co-partitioned"), std::string::npos) << text;
  EXPECT_EQ(text.find("broadcast"), std::string::npos) << text;
  // The user's hint: broadcast whatever the sizes, or always shuffle.
  DistributedPlanOptions tiny;
  tiny.broadcast_join_bytes = 1;
  PlanPtr hinted = exec::MakeHashJoin(big, small, {Column("k")}, {Column("rk")}, JoinType::kLeft,
                                      nullptr, {}, exec::JoinStrategy::kBroadcast)
                       .ValueOrDie();
  text = DistributedPlanToString(PlanDistributed(hinted, tiny).ValueOrDie());
  EXPECT_NE(text.find("broadcast to every task"), std::string::npos) << text;
  PlanPtr shuffled = exec::MakeHashJoin(big, small, {Column("k")}, {Column("rk")}, JoinType::kLeft,
                                        nullptr, {}, exec::JoinStrategy::kShuffle)
                         .ValueOrDie();
  text = DistributedPlanToString(PlanDistributed(shuffled, broadcast).ValueOrDie());
  EXPECT_EQ(text.find("broadcast"), std::string::npos) << text;
  // A full join is never broadcast.
  PlanPtr full =
      exec::MakeHashJoin(big, small, {Column("k")}, {Column("rk")}, JoinType::kFull).ValueOrDie();
  text = DistributedPlanToString(PlanDistributed(full, broadcast).ValueOrDie());
  EXPECT_EQ(text.find("broadcast"), std::string::npos) << text;
}

TEST_F(JoinOperatorsTest, EachWorkerPullsABroadcastSideOnce) {
  // One small partition, on one worker; twelve tasks of the large side over three workers.
  PlanPtr big = Side("k", "lv", 12, 20, [](int i) -> std::optional<int64_t> { return i % 7; });
  PlanPtr small = Side("rk", "rv", 1, 5, [](int i) -> std::optional<int64_t> { return i; });
  PlanPtr join =
      exec::MakeHashJoin(big, small, {Column("k")}, {Column("rk")}, JoinType::kInner).ValueOrDie();
  ExpectSame(join, Strategy::kBroadcast, "broadcast to 12 tasks");
  std::string holder;
  std::map<std::string, int> joins;  // worker -> its join tasks
  for (const TaskEvent& e : recorder_->events) {
    if (e.kind != TaskEventKind::kCompleted) continue;
    if (e.node_name == "InMemorySource") holder = e.worker;
    if (e.node_name == "InMemorySource -> HashJoin") joins[e.worker] += 1;
  }
  ASSERT_FALSE(holder.empty());
  ASSERT_GT(joins.size(), 1u);
  int served = 0;
  for (int w = 0; w < cluster_->num_workers(); ++w) {
    if (cluster_->worker(w).id() == holder) served = cluster_->worker(w).flight_calls_served();
  }
  // The holder served each other worker the small side once, and the driver its join results.
  const int others = static_cast<int>(joins.size()) - (joins.count(holder) ? 1 : 0);
  EXPECT_EQ(served, others + joins[holder]);
}

TEST_F(JoinOperatorsTest, ExchangesOnKeysAlreadyPartitionedAreElided) {
  PlanPtr a = Side("k", "lv", 6, 30, [](int i) -> std::optional<int64_t> {
    return i % 13 == 0 ? std::nullopt : std::optional<int64_t>(i % 9);
  });
  PlanPtr b = Side("rk", "rv", 4, 20, [](int i) -> std::optional<int64_t> { return i % 11; });
  auto explain = [](const PlanPtr& plan) {
    DistributedPlanOptions never;
    never.broadcast_join_bytes = 0;
    return DistributedPlanToString(PlanDistributed(plan, never).ValueOrDie());
  };
  std::vector<exec::AggregateSpec> sums{{"sum", {Column("lv")}, "s"}, {"count_star", {}, "n"}};
  // A group-by on the join's key, and on the key and more: no exchange of their own.
  PlanPtr joined =
      exec::MakeHashJoin(a, b, {Column("k")}, {Column("rk")}, JoinType::kInner).ValueOrDie();
  for (const PlanPtr& agg :
       {exec::MakeAggregate(joined, {Column("k")}, sums).ValueOrDie(),
        exec::MakeAggregate(joined, {Column("rv"), Column("k")}, sums).ValueOrDie()}) {
    const std::string text = explain(agg);
    EXPECT_NE(text.find("Exchange -> HashJoin -> Aggregate"), std::string::npos) << text;
    EXPECT_NE(text.find("1 exchange(s) elided"), std::string::npos) << text;
    ExpectSame(agg, Strategy::kShuffle, "group by the join key");
  }
  // A user's hash repartition, then distinct, a window and a renamed key's group-by over it.
  PlanPtr parts = exec::MakeRepartitionByHash(a, 4, {Column("k")}).ValueOrDie();
  PlanPtr renamed =
      exec::MakeProject(parts, {expr::Alias(Column("k"), "key"), Column("lv")}).ValueOrDie();
  std::vector<exec::AggregateSpec> by_key{{"sum", {Column("lv")}, "s"}};
  for (const PlanPtr& plan : {exec::MakeDistinct(parts, {"k"}).ValueOrDie(),
                              exec::MakeWindow(parts, {Column("k")}, {{Column("lv"), true, false}},
                                               {{"row_number", {}, std::nullopt, "rn"}})
                                  .ValueOrDie(),
                              exec::MakeAggregate(renamed, {Column("key")}, by_key).ValueOrDie()}) {
    const std::string text = explain(plan);
    EXPECT_NE(text.find("1 exchange(s) elided"), std::string::npos) << text;
    ExpectSame(plan, Strategy::kShuffle, "over a hash repartition on the key");
  }
  // A join with a side already partitioned on its key: only the other side is shuffled, into
  // its partitions; then a group-by on the key over the join.
  PlanPtr a_sums =
      exec::MakeAggregate(a, {Column("k")}, {{"sum", {Column("lv")}, "lv"}}).ValueOrDie();
  PlanPtr b_sums =
      exec::MakeAggregate(b, {Column("rk")}, {{"sum", {Column("rv")}, "rv"}}).ValueOrDie();
  for (JoinType type : kEveryType) {
    for (const auto& [left, right] : {std::pair{a_sums, b}, std::pair{a, b_sums}}) {
      PlanPtr join =
          exec::MakeHashJoin(left, right, {Column("k")}, {Column("rk")}, type).ValueOrDie();
      const std::string text = explain(join);
      EXPECT_NE(text.find("1 exchange(s) elided"), std::string::npos) << text;
      ExpectSame(join, Strategy::kShuffle,
                 std::string("join of a partitioned side, ") + exec::JoinTypeName(type));
    }
  }
  PlanPtr again = exec::MakeAggregate(
                      exec::MakeHashJoin(a_sums, b, {Column("k")}, {Column("rk")}, JoinType::kInner)
                          .ValueOrDie(),
                      {Column("k")}, {{"count_star", {}, "n"}})
                      .ValueOrDie();
  EXPECT_NE(explain(again).find("2 exchange(s) elided"), std::string::npos) << explain(again);
  ExpectSame(again, Strategy::kShuffle, "aggregate, join, aggregate on one key");
  // Not elided: another key; a right join, whose left key is null in its unmatched rows; a
  // projection that computes the key.
  PlanPtr right =
      exec::MakeHashJoin(a, b, {Column("k")}, {Column("rk")}, JoinType::kRight).ValueOrDie();
  PlanPtr computed =
      exec::MakeProject(
          parts, {expr::Alias(expr::Mod(Column("k"), Literal(int64_t{2})), "k"), Column("lv")})
          .ValueOrDie();
  for (const PlanPtr& plan : {exec::MakeAggregate(joined, {Column("rv")}, sums).ValueOrDie(),
                              exec::MakeAggregate(right, {Column("k")}, sums).ValueOrDie(),
                              exec::MakeAggregate(computed, {Column("k")}, by_key).ValueOrDie()}) {
    const std::string text = explain(plan);
    EXPECT_EQ(text.find("elided"), std::string::npos) << text;
    ExpectSame(plan, Strategy::kShuffle, "keys not partitioned on");
  }
}

TEST_F(JoinOperatorsTest, ALostBroadcastSideIsRecomputed) {
  PlanPtr big = Side("k", "lv", 6, 50, [](int i) -> std::optional<int64_t> { return i % 11; });
  PlanPtr small = Side("rk", "rv", 2, 5, [](int i) -> std::optional<int64_t> { return i; });
  PlanPtr join =
      exec::MakeHashJoin(big, small, {Column("k")}, {Column("rk")}, JoinType::kInner).ValueOrDie();
  exec::ExecOptions local_options;
  local_options.progress = 0;
  auto local = exec::Run(join, local_options).ValueOrDie();
  // Once the small side is done (its 2 tasks), and before the big side's tasks end, kill the
  // worker of its first task (whichever it is: under load one worker may have run none).
  InProcessCluster* c = cluster_.get();
  DriverOptions o = Options(Strategy::kBroadcast);
  std::string killed;
  auto r = cluster_->Run(join, o, [&](int64_t results) {
    if (results != 2) return;
    for (const TaskEvent& e : recorder_->events) {
      if (e.kind != TaskEventKind::kCompleted) continue;
      killed = e.worker;
      c->KillWorker(std::stoi(killed.substr(killed.rfind('-') + 1)));
      return;
    }
  });
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_FALSE(killed.empty());
  ExpectRows(r->ToBatch().ValueOrDie(), local.ToBatch().ValueOrDie(), false);
  int rerun = 0;
  for (const TaskEvent& e : recorder_->events) {
    rerun += e.kind == TaskEventKind::kCancelled &&
             e.message.find("output lost with worker " + killed) != std::string::npos;
  }
  EXPECT_GT(rerun, 0) << "the small side's output on " << killed << " was computed again";
}

}  // namespace
}  // namespace flotilla::distributed
