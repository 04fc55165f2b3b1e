#include "flotilla/distributed/chrome_trace.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace flotilla::distributed {
namespace {

TaskEvent Event(TaskEventKind kind, int64_t task, const std::string& worker, double time,
                int attempt = 1) {
  TaskEvent e{kind, 7, task, 2, "Scan -> Filter", worker, attempt, 0, 0, 0, "", time};
  if (kind == TaskEventKind::kCompleted) {
    e.rows = task * 10;
    e.bytes = task * 80;
  }
  return e;
}

// The value of `"key":` in a one-line JSON object (a number or a string, as written).
std::string Field(const std::string& line, const std::string& key) {
  const std::string at = "\"" + key + "\":";
  size_t i = line.find(at);
  if (i == std::string::npos) return "";
  i += at.size();
  size_t end = line[i] == '"' ? line.find('"', i + 1) + 1 : line.find_first_of(",}", i);
  return line.substr(i, end - i);
}

TEST(ChromeTraceTest, ACompleteEventPerTaskInLanesThatNeverOverlap) {
  auto path = std::filesystem::temp_directory_path() / "flotilla-trace-test.json";
  std::filesystem::remove(path);
  {
    auto trace = ChromeTrace::Open(path.string()).ValueOrDie();
    // Worker a runs 1 [0, 2], 2 [1, 3] and 3 [2, 4]: two slots; 3 takes the first again.
    // Task 4 starts on b, whose loss sends it to a [3.5, 5]; task 5 is cancelled on b; task 6
    // still runs when the query ends.
    for (const TaskEvent& e :
         {Event(TaskEventKind::kScheduled, 1, "a", 0), Event(TaskEventKind::kScheduled, 2, "a", 1),
          Event(TaskEventKind::kScheduled, 4, "b", 1),
          Event(TaskEventKind::kScheduled, 5, "b", 1.5),
          Event(TaskEventKind::kCompleted, 1, "a", 2), Event(TaskEventKind::kScheduled, 3, "a", 2),
          Event(TaskEventKind::kCompleted, 2, "a", 3), Event(TaskEventKind::kCancelled, 5, "", 3.2),
          Event(TaskEventKind::kScheduled, 4, "a", 3.5, 2),
          Event(TaskEventKind::kScheduled, 6, "a", 4.5),
          Event(TaskEventKind::kCompleted, 3, "a", 4),
          Event(TaskEventKind::kCompleted, 4, "a", 5, 2)}) {
      trace->OnEvent(e);
    }
    trace->OnQueryFinished({7, Status::OK()});
  }
  std::ifstream in(path);
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  EXPECT_EQ(line, "[");
  std::map<std::string, std::string> lane_of, status_of, dur_of;
  std::vector<std::string> names;
  while (std::getline(in, line)) {
    ASSERT_EQ(line.back(), ',') << line;
    if (Field(line, "ph") == "\"M\"") {
      names.push_back(Field(line, "name") + " " + line.substr(line.find("\"args\"")));
      continue;
    }
    ASSERT_EQ(Field(line, "ph"), "\"X\"") << line;
    const std::string task = Field(line, "task") + "." + Field(line, "attempt");
    lane_of[task] = Field(line, "pid") + "/" + Field(line, "tid");
    status_of[task] = Field(line, "status");
    dur_of[task] = Field(line, "dur");
    EXPECT_EQ(Field(line, "name"), "\"Scan -> Filter\"");
    EXPECT_EQ(Field(line, "query"), "7");
  }
  // One span per attempt: 4 ran twice, once lost with b.
  EXPECT_EQ(lane_of.size(), 7u);
  EXPECT_EQ(lane_of["1.1"], "7001/1");
  EXPECT_EQ(lane_of["2.1"], "7001/2");
  EXPECT_EQ(lane_of["3.1"], "7001/1") << "its slot was free again";
  EXPECT_EQ(lane_of["4.1"], "7002/1");
  EXPECT_EQ(lane_of["5.1"], "7002/2");
  EXPECT_EQ(lane_of["4.2"], "7001/2");
  EXPECT_EQ(lane_of["6.1"], "7001/1");
  EXPECT_EQ(status_of["1.1"], "\"ok\"");
  EXPECT_EQ(status_of["4.1"], "\"lost\"");
  EXPECT_EQ(status_of["5.1"], "\"cancelled\"");
  EXPECT_EQ(status_of["6.1"], "\"unfinished\"");
  EXPECT_EQ(dur_of["1.1"], "2000000");
  EXPECT_EQ(dur_of["4.1"], "2500000");
  // Each worker is named once, each lane once.
  EXPECT_EQ(std::count_if(names.begin(), names.end(),
                          [](const std::string& n) { return n.rfind("\"process_name\"", 0) == 0; }),
            2);
  EXPECT_EQ(std::count_if(names.begin(), names.end(),
                          [](const std::string& n) { return n.rfind("\"thread_name\"", 0) == 0; }),
            4);
  std::filesystem::remove(path);
}

TEST(ChromeTraceTest, AFinishedTasksOperatorsAreSpansSideBySideInsideIt) {
  auto path = std::filesystem::temp_directory_path() / "flotilla-trace-operators-test.json";
  std::filesystem::remove(path);
  {
    auto trace = ChromeTrace::Open(path.string()).ValueOrDie();
    trace->OnEvent(Event(TaskEventKind::kScheduled, 1, "a", 1));
    TaskEvent done = Event(TaskEventKind::kCompleted, 1, "a", 3);
    done.cpu_seconds = 0.4;
    // CPU 0.1 + 0.3 of a 2 s span: 0.5 s and 1.5 s; an operator without CPU gets no span.
    done.operators = {{"Scan", 1, 100, 0.1, 0.0, 1.9},
                      {"Filter", 1, 50, 0.0, 0.1, 1.9},
                      {"Project", 0, 50, 0.3, 0.2, 2.0}};
    trace->OnEvent(done);
    trace->OnQueryFinished({7, Status::OK()});
  }
  std::ifstream in(path);
  std::string line;
  std::vector<std::string> ops;
  std::string task_ts, task_dur;
  while (std::getline(in, line)) {
    if (Field(line, "cat") == "\"task\"") {
      task_ts = Field(line, "ts");
      task_dur = Field(line, "dur");
      EXPECT_EQ(Field(line, "cpu_seconds"), "0.400000");
    }
    if (Field(line, "cat") == "\"operator\"") {
      ops.push_back(Field(line, "name") + " " + Field(line, "ts") + " " + Field(line, "dur") + " " +
                    Field(line, "rows_out") + " " + Field(line, "tid"));
    }
  }
  ASSERT_EQ(task_dur, "2000000");
  const int64_t ts = std::stoll(task_ts);
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_EQ(ops[0], "\"Scan\" " + std::to_string(ts) + " 500000 100 1");
  EXPECT_EQ(ops[1], "\"Project\" " + std::to_string(ts + 500000) + " 1500000 50 1");
  std::filesystem::remove(path);
}

TEST(ChromeTraceTest, QueriesAppendToOneArrayAndAnUnwritablePathIsAnError) {
  auto path = std::filesystem::temp_directory_path() / "flotilla-trace-append-test.json";
  std::filesystem::remove(path);
  for (int q = 1; q <= 2; ++q) {
    auto trace = ChromeTrace::Open(path.string()).ValueOrDie();
    trace->OnEvent(Event(TaskEventKind::kScheduled, 1, "a", 0));
    trace->OnEvent(Event(TaskEventKind::kCompleted, 1, "a", 1));
    trace->OnQueryFinished({q, Status::OK()});
  }
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text.rfind("[\n", 0), 0u);
  EXPECT_EQ(text.find('[', 1), std::string::npos) << "one array";
  size_t spans = 0;
  for (size_t i = text.find("\"ph\":\"X\""); i != std::string::npos;
       i = text.find("\"ph\":\"X\"", i + 1))
    ++spans;
  EXPECT_EQ(spans, 2u);
  std::filesystem::remove(path);
  auto bad = ChromeTrace::Open("/nonexistent-dir/trace.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("/nonexistent-dir/trace.json"), std::string::npos);
}

}  // namespace
}  // namespace flotilla::distributed
