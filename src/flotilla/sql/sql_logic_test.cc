// Runs the SQL corpus of tests/sql/*.test (tests/support/sql_corpus.h) against a Session in each
// of the local engine's run modes, as DuckDB runs its own corpus: one thread, four threads, tiny
// morsels, maintain_order off, and under a memory budget small enough that operators spill.
// Every mode must give DuckDB's recorded answer. (The in-process cluster runs the same corpus in
// src/flotilla/distributed/sql_corpus_cluster_test.cc.)
#include <gtest/gtest.h>

#include <cctype>

#include "tests/support/sql_corpus.h"

namespace flotilla::sql {
namespace {

using testing::CheckSqlRecord;
using testing::ReadSqlRecords;
using testing::SqlCheck;
using testing::SqlCorpusFiles;
using testing::SqlRecord;

struct Mode {
  std::string name;
  std::vector<std::pair<std::string, std::string>> settings;
};

// maintain_order off changes nothing a query asserts: "query nosort" records all end in an
// ORDER BY that fixes the order, and the others compare as sorted rows.
const std::vector<Mode>& Modes() {
  static const std::vector<Mode> modes = {
      {"threads1", {{"threads", "1"}}},
      {"threads4", {{"threads", "4"}}},
      {"morsels7", {{"threads", "3"}, {"morsel_size", "7"}}},
      {"unordered", {{"threads", "4"}, {"morsel_size", "64"}, {"maintain_order", "false"}}},
  };
  return modes;
}

struct Param {
  std::string file;
  Mode mode;
};

void RunFile(Session& session, const std::string& file, const std::string& mode) {
  const std::vector<SqlRecord> records = ReadSqlRecords(file);
  ASSERT_FALSE(records.empty()) << file;
  for (const SqlRecord& r : records) {
    const SqlCheck check =
        CheckSqlRecord(session, r, file + ":" + std::to_string(r.line) + " (" + mode + ")");
    if (check.outcome != SqlCheck::kMatch) ADD_FAILURE() << check.message;
  }
}

void PrintTo(const Param& p, std::ostream* os) {
  *os << p.file << " (" << p.mode.name << ")";
}

class SqlLogicTest : public ::testing::TestWithParam<Param> {};

TEST_P(SqlLogicTest, MatchesRecordedResults) {
  const Param& p = GetParam();
  Session session;
  for (const auto& [name, value] : p.mode.settings)
    ASSERT_TRUE(session.Set(name, value).ok());
  RunFile(session, p.file, p.mode.name);
}

std::vector<Param> Params() {
  std::vector<Param> params;
  for (const Mode& mode : Modes())
    for (const std::string& f : SqlCorpusFiles())
      params.push_back({f, mode});
  return params;
}

INSTANTIATE_TEST_SUITE_P(Corpus, SqlLogicTest, ::testing::ValuesIn(Params()),
                         [](const ::testing::TestParamInfo<Param>& info) {
                           std::string name = info.param.file.substr(0, info.param.file.size() - 5);
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name + "_" + info.param.mode.name;
                         });

// The whole corpus under a 4 KiB budget: every answer as recorded, and the budget must have
// made operators spill (summed over every query the session ran, subqueries included) — a
// budget nobody hits would prove nothing.
TEST(SqlLogicTest, WholeCorpusUnderASpillingMemoryBudget) {
  int64_t spilled_bytes = 0;
  int spilling_queries = 0;
  for (const std::string& file : SqlCorpusFiles()) {
    Session session;
    ASSERT_TRUE(session.Set("threads", "2").ok());
    ASSERT_TRUE(session.Set("memory_limit", "4KiB").ok());
    ASSERT_TRUE(session.Set("morsel_size", "256").ok());
    session.SetPlanRunner([&](const exec::PlanPtr& plan) -> Result<RecordBatch> {
      FLOTILLA_ASSIGN_OR_RETURN(exec::QueryResult result, exec::Run(plan, session.options()));
      int64_t spilled = 0;
      for (const auto& s : result.stats->operators())
        spilled += s->spilled_bytes.load();
      spilled_bytes += spilled;
      spilling_queries += spilled > 0;
      return result.ToBatch();
    });
    RunFile(session, file, "4 KiB budget");
  }
  EXPECT_GT(spilled_bytes, 0) << "nothing spilled under the budget";
  EXPECT_GE(spilling_queries, 100) << "only " << spilling_queries << " queries spilled";
  std::cout << spilling_queries << " queries spilled " << spilled_bytes << " bytes\n";
}

TEST(SqlLogicTest, CorpusIsLargeEnough) {
  int queries = 0;
  for (const std::string& file : SqlCorpusFiles())
    for (const SqlRecord& r : ReadSqlRecords(file))
      queries += r.kind == SqlRecord::kQuery;
  EXPECT_GE(queries, 300);
}

}  // namespace
}  // namespace flotilla::sql
