#include "flotilla/distributed/events.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace flotilla::distributed {
namespace {

std::string ReadAll(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
    out.append(buf, n);
  return out;
}

TEST(EventsTest, JsonLinesLogWritesOneEscapedObjectPerEvent) {
  auto path = std::filesystem::temp_directory_path() / "flotilla-events-test.jsonl";
  std::filesystem::remove(path);
  {
    auto log = JsonLinesEventLog::Open(path.string()).ValueOrDie();
    TaskEvent e{TaskEventKind::kFailed,
                3,
                12884901889,
                2,
                "Scan -> \"Filter\"",
                "worker-1",
                2,
                0.25,
                0,
                0,
                "bad\nrow",
                1.5};
    log->OnEvent(e);
    log->OnQueryFinished({3, Status::OK(), 1.5, 4, 5, 10, 80, 0.25});
  }
  std::ifstream in(path);
  std::string first, second, third;
  ASSERT_TRUE(std::getline(in, first));
  ASSERT_TRUE(std::getline(in, second));
  EXPECT_FALSE(std::getline(in, third));
  EXPECT_EQ(
      first,
      "{\"event\":\"failed\",\"query\":3,\"task\":12884901889,\"node\":2,"
      "\"node_name\":\"Scan -> \\\"Filter\\\"\",\"worker\":\"worker-1\",\"attempt\":2,"
      "\"seconds\":0.250000,\"rows\":0,\"bytes\":0,\"message\":\"bad\\nrow\",\"time\":1.500000}");
  EXPECT_EQ(second,
            "{\"event\":\"query_finished\",\"query\":3,\"status\":\"ok\",\"seconds\":1.500000,"
            "\"tasks\":4,\"attempts\":5,\"rows\":10,\"bytes\":80,\"cpu_seconds\":0.250000}");
  std::filesystem::remove(path);
}

TEST(EventsTest, AnUnwritableLogIsAnErrorNamingThePath) {
  auto log = JsonLinesEventLog::Open("/nonexistent-dir/events.jsonl");
  ASSERT_FALSE(log.ok());
  EXPECT_NE(log.status().message().find("/nonexistent-dir/events.jsonl"), std::string::npos);
}

TEST(EventsTest, ProgressDrawsOneLinePerNodeAndRedrawsInPlace) {
  std::FILE* f = std::tmpfile();
  ProgressDisplay display(f);
  display.Update({{"Scan -> Filter", 3, 12, 30000, 2}, {"Exchange", 0, 4, 0, 0}}, 1.0);
  std::string first = ReadAll(f);
  EXPECT_NE(first.find("[1/2] Scan -> Filter  3/12 tasks (2 running)  30.0k rows  1.0s\n"),
            std::string::npos)
      << first;
  EXPECT_NE(first.find("[2/2] Exchange  0/4 tasks  0 rows  1.0s\n"), std::string::npos) << first;
  // Within 100 ms nothing is drawn; a final frame always is, moving up over the two lines.
  display.Update({{"Scan -> Filter", 4, 12, 40000, 1}, {"Exchange", 0, 4, 0, 0}}, 1.05);
  EXPECT_EQ(ReadAll(f), first);
  display.Update({{"Scan -> Filter", 12, 12, 1200000, 0}, {"Exchange", 4, 4, 7, 0}}, 1.06, true);
  std::string all = ReadAll(f);
  EXPECT_NE(all.find("\x1b[1A\x1b[2K\x1b[1A\x1b[2K[1/2] Scan -> Filter  12/12 tasks  1.2M rows"),
            std::string::npos);
  std::fclose(f);
}

TEST(EventsTest, ProgressIsForcedOnOrOff) {
  EXPECT_TRUE(ProgressEnabled(1));
  EXPECT_FALSE(ProgressEnabled(0));
}

}  // namespace
}  // namespace flotilla::distributed
