// The local runner's events: its pipelines reported as nodes, in the distributed schema.
#include "flotilla/distributed/local_query_events.h"

#include <gtest/gtest.h>

#include <map>

#include "flotilla/distributed/test_cluster.h"

namespace flotilla::distributed {
namespace {

class Lifecycle final : public EventSubscriber {
 public:
  void OnEvent(const TaskEvent& e) override { events.push_back(e); }
  void OnQueryFinished(const QueryEnd& end) override { finished.push_back(end); }
  std::vector<TaskEvent> events;
  std::vector<QueryEnd> finished;
};

TEST(LocalQueryEventsTest, EachPipelineStartsRunsAndFinishesAsANodeOfOneTask) {
  const exec::PlanPtr plan = testing::Tpch(3);
  auto events = std::make_shared<Lifecycle>();
  exec::ExecOptions options;
  options.progress = 0;
  auto result = RunLocalWithEvents(plan, options, 42, {events});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  auto plain = exec::Run(plan, options).ValueOrDie();
  flotilla::testing::ExpectRows(result->ToBatch().ValueOrDie(), plain.ToBatch().ValueOrDie(), true,
                                "Q3");

  ASSERT_EQ(events->finished.size(), 1u);
  const QueryEnd& end = events->finished[0];
  EXPECT_EQ(end.query_id, 42);
  EXPECT_TRUE(end.status.ok());
  EXPECT_EQ(end.tasks, 5);
  EXPECT_EQ(end.attempts, 5);
  EXPECT_EQ(end.rows, result->num_rows());
  EXPECT_GT(end.cpu_seconds, 0);
  EXPECT_GT(end.seconds, 0);
  ASSERT_FALSE(events->events.empty());
  const TaskEvent& first = events->events.front();
  ASSERT_EQ(first.kind, TaskEventKind::kQueryStarted);
  // Q3 runs as 5 pipelines (two join builds, the aggregate, the TopN, the result).
  std::map<int, std::vector<TaskEventKind>> by_node;
  std::map<int, TaskEvent> completed;
  ASSERT_EQ(events->events[1].kind, TaskEventKind::kExecutionStarted);
  for (size_t i = 2; i < events->events.size(); ++i) {
    const TaskEvent& e = events->events[i];
    EXPECT_EQ(e.query_id, 42);
    by_node[e.node_id].push_back(e.kind);
    if (e.kind == TaskEventKind::kCompleted) completed[e.node_id] = e;
    if (i > 2) {
      EXPECT_GE(e.time, events->events[i - 1].time - 1e-9) << "in time order";
    }
  }
  ASSERT_EQ(by_node.size(), 5u) << first.message;
  for (const auto& [node, kinds] : by_node) {
    EXPECT_EQ(kinds,
              (std::vector<TaskEventKind>{TaskEventKind::kNodeStarted, TaskEventKind::kSubmitted,
                                          TaskEventKind::kScheduled, TaskEventKind::kCompleted,
                                          TaskEventKind::kNodeFinished}))
        << "pipeline " << node;
    EXPECT_NE(first.message.find("[" + std::to_string(node) + "] "), std::string::npos);
  }
  // The last pipeline gave the result; the others' rows went into their sinks.
  EXPECT_EQ(completed.rbegin()->second.rows, result->num_rows());
  EXPECT_EQ(completed.rbegin()->second.worker, kLocalWorker);
  int64_t operators = 0;
  EXPECT_EQ(completed.rbegin()->second.node_name, "TopN -> result");
  for (const auto& [node, e] : completed) {
    EXPECT_GE(e.cpu_seconds, 0);
    operators += static_cast<int64_t>(e.operators.size());
  }
  // Every operator of the plan is some pipeline's own, once.
  EXPECT_EQ(operators, static_cast<int64_t>(plain.stats->operators().size()));
  // The first pipeline (a join's build side over a scan) reads no other; a later one does.
  for (const TaskEvent& e : events->events) {
    if (e.kind != TaskEventKind::kNodeStarted) continue;
    if (e.node_id == 0) {
      EXPECT_TRUE(e.inputs.empty());
    } else if (e.node_id == 4) {
      EXPECT_FALSE(e.inputs.empty());
    }
  }
}

TEST(LocalQueryEventsTest, AFailedQuerySaysWhichPipelineFailedAndEndsWithItsError) {
  exec::BatchFunction udf = [](const std::vector<Array>& args) -> Result<Array> {
    return Status::Invalid("no rows today");
  };
  exec::PlanPtr plan = exec::MakeUdfProject(testing::IdPartitions(2, 5), "refuse", udf,
                                            {expr::Column("v")}, {"v"}, "w", int64())
                           .ValueOrDie();
  auto events = std::make_shared<Lifecycle>();
  exec::ExecOptions options;
  options.progress = 0;
  auto result = RunLocalWithEvents(plan, options, 7, {events});
  ASSERT_FALSE(result.ok());
  ASSERT_EQ(events->finished.size(), 1u);
  EXPECT_NE(events->finished[0].status.message().find("no rows today"), std::string::npos);
  int failed = 0;
  for (const TaskEvent& e : events->events) {
    if (e.kind != TaskEventKind::kFailed) continue;
    ++failed;
    EXPECT_NE(e.message.find("no rows today"), std::string::npos);
  }
  EXPECT_EQ(failed, 1);
}

}  // namespace
}  // namespace flotilla::distributed
