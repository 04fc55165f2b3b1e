// The SQL fuzz target's seeds (fuzz/corpus/sql) are valid SQL: each must parse, and those over
// the target's table `t` must plan (a seed that fails early tests nothing past that point).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "flotilla/sql/parser.h"
#include "flotilla/sql/session.h"

namespace flotilla::sql {
namespace {

namespace fs = std::filesystem;

TEST(SqlFuzzSeeds, ParseAndTheOnesOverTPlan) {
  // This file is src/flotilla/sql/fuzz_seeds_test.cc.
  const fs::path dir = fs::path(__FILE__).parent_path().parent_path().parent_path().parent_path() /
                       "fuzz" / "corpus" / "sql";
  Session session;
  ASSERT_TRUE(session
                  .Execute("CREATE TABLE t AS SELECT * FROM (VALUES (1, 'a', 2.5, DATE "
                           "'2024-01-02')) v(i, s, d, day)")
                  .ok());
  int seeds = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::ifstream in(entry.path());
    const std::string sql{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    EXPECT_TRUE(Parse(sql).ok()) << entry.path();
    if (entry.path().filename().string().rfind("corpus-", 0) != 0) {
      auto plan = session.PlanSql(sql);
      EXPECT_TRUE(plan.ok()) << entry.path() << ": " << plan.status().ToString();
    }
    ++seeds;
  }
  EXPECT_GE(seeds, 20);
}

}  // namespace
}  // namespace flotilla::sql
