#pragma once
// The SQL corpus of tests/sql/*.test (sqllogictest style; expected rows recorded by DuckDB with
// tests/sql/record.mjs), read and checked against a Session. The local run modes
// (src/flotilla/sql/sql_logic_test.cc) and the cluster (src/flotilla/distributed/
// sql_corpus_cluster_test.cc) check the same records the same way.
//
//   statement ok | statement error     a statement that must succeed / fail
//   query rowsort | query nosort       a query, then "----", then its rows (values TAB-separated;
//                                      rowsort compares the rows sorted as strings); with a
//                                      third word "empty" when no rows is the intended answer
//                                      (a query recording no rows without it is a failure)
// Values: NULL, true/false, numbers (compared with a relative tolerance of 1e-9 when both sides
// parse as numbers, so 3.50 equals 3.5; a decimal of ours also to half a unit of its last
// digit), (empty) for an empty string, anything else as text.
#include <filesystem>
#include <string>
#include <vector>

#include "flotilla/sql/session.h"

namespace flotilla::testing {

struct SqlRecord {
  enum Kind { kStatementOk, kStatementError, kQuery } kind = kQuery;
  bool sort = false;
  bool empty = false;  // no rows is the intended answer
  std::string sql;
  std::vector<std::string> expected;
  int line = 0;
};

/// tests/sql of the source tree.
const std::filesystem::path& SqlCorpusDir();
/// The corpus's .test file names, sorted.
std::vector<std::string> SqlCorpusFiles();
/// The records of one file (__DATA__ replaced by tests/sql/data). A malformed record is a test
/// failure.
std::vector<SqlRecord> ReadSqlRecords(const std::string& file);

struct SqlCheck {
  enum Outcome {
    kMatch,              // as recorded (or an expected error)
    kFailed,             // a statement or query that must succeed failed
    kWrongRows,          // a query's rows differ from DuckDB's
    kUnexpectedSuccess,  // a statement that must fail succeeded
  } outcome = kMatch;
  std::string message;  // empty for kMatch: where, what ran, and what differs
};

/// Runs `record` in `session` and compares with what it records; `where` ("file:line") starts
/// the message.
SqlCheck CheckSqlRecord(sql::Session& session, const SqlRecord& record, const std::string& where);

/// The SQL as one line, whitespace runs collapsed (how lists of queries name them).
std::string OneLine(const std::string& sql);

/// `s` with every `from` replaced by `to`.
std::string ReplaceAll(std::string s, const std::string& from, const std::string& to);

}  // namespace flotilla::testing
