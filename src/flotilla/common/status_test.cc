#include "flotilla/common/status.h"

#include <gtest/gtest.h>

#include "flotilla/common/logging.h"
#include "flotilla/common/result.h"
#include "flotilla/common/suggest.h"
#include "flotilla/common/thread_pool.h"

namespace flotilla {
namespace {

Result<int> Half(int x) {
  if (x % 2 != 0) return Status::Invalid("odd number " + std::to_string(x));
  return x / 2;
}

Result<int> Quarter(int x) {
  FLOTILLA_ASSIGN_OR_RETURN(int half, Half(x));
  FLOTILLA_ASSIGN_OR_RETURN(int quarter, Half(half));
  return quarter;
}

TEST(StatusTest, OkIsCheapAndDefault) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.ToString(), "OK");
  EXPECT_EQ(s.code(), StatusCode::kOk);
}

TEST(StatusTest, CarriesCodeMessageAndContext) {
  Status s = Status::IOError("no such file").WithContext("reading 'a.arrow'");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kIOError);
  EXPECT_EQ(s.ToString(), "IO error: reading 'a.arrow': no such file");
}

TEST(StatusTest, AssignOrReturnPropagatesTheFirstError) {
  EXPECT_EQ(*Quarter(12), 3);
  Result<int> r = Quarter(6);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "odd number 3");
}

TEST(SuggestTest, SuggestsTheIntendedColumn) {
  std::vector<std::string> cols = {"l_orderkey", "l_quantity", "l_extendedprice", "l_discount"};
  EXPECT_EQ(NotFoundMessage("column", "l_qty", cols),
            "column 'l_qty' not found; did you mean 'l_quantity'?");
  EXPECT_EQ(ClosestMatch("l_discont", cols), "l_discount");
  EXPECT_EQ(ClosestMatch("L_ORDERKEY", cols), "l_orderkey");
  EXPECT_EQ(ClosestMatch("zzzzzz", cols), "");
  EXPECT_EQ(NotFoundMessage("column", "zzzzzz", {"a", "b"}),
            "column 'zzzzzz' not found; available: a, b");
}

TEST(LoggingTest, ParsesLevels) {
  log::Level level;
  EXPECT_TRUE(log::ParseLevel("DEBUG", &level));
  EXPECT_EQ(level, log::Level::kDebug);
  EXPECT_TRUE(log::ParseLevel("warning", &level));
  EXPECT_EQ(level, log::Level::kWarn);
  EXPECT_FALSE(log::ParseLevel("loud", &level));
}

TEST(LoggingTest, WritesTaggedLinesAtOrAboveTheLevel) {
  log::Level before = log::CurrentLevel();
  log::SetLevel(log::Level::kInfo);
  log::SetTag("worker-3");
  ::testing::internal::CaptureStderr();
  log::Debug("hidden {}", 1);
  log::Info("shown {}", 2);
  std::string err = ::testing::internal::GetCapturedStderr();
  log::SetTag("");
  log::SetLevel(before);
  EXPECT_EQ(err.find("hidden"), std::string::npos);
  EXPECT_NE(err.find("INFO worker-3] shown 2"), std::string::npos) << err;
}

TEST(LoggingTest, AContextNamesItsLinesFollowsItsPoolTasksAndCanBeCaptured) {
  ThreadPool pool(2);
  ::testing::internal::CaptureStderr();
  {
    log::ScopedContext context(std::make_shared<const std::string>("q7 t12.1"));
    log::StartCapture("q7 t12.1");
    EXPECT_EQ(*log::CurrentContext(), "q7 t12.1");
    TaskGroup group(&pool);
    for (int i = 0; i < 3; ++i) {
      group.Spawn([i] {
        log::Warn("morsel {} done", i);
        return Status::OK();
      });
    }
    ASSERT_TRUE(group.Wait().ok());
  }
  EXPECT_EQ(log::CurrentContext(), nullptr);
  log::Warn("not the task's");
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("WARN q7 t12.1] morsel 1 done"), std::string::npos) << err;
  const std::vector<std::string> lines = log::TakeCapture("q7 t12.1");
  ASSERT_EQ(lines.size(), 3u);
  for (const std::string& line : lines) {
    EXPECT_NE(line.find("q7 t12.1] morsel"), std::string::npos) << line;
  }
  EXPECT_TRUE(log::TakeCapture("q7 t12.1").empty()) << "taken once";
}

}  // namespace
}  // namespace flotilla
