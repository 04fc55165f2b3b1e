// libFuzzer target: arbitrary bytes as SQL, parsed, and each parsed statement that is a query
// planned and optimized against a session holding a small table `t` (planning runs nothing
// heavy: the only queries it executes are scalar subqueries over `t`). Deep nesting, long
// chains and broken text must all be errors, never crashes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "flotilla/sql/parser.h"
#include "flotilla/sql/session.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view sql(reinterpret_cast<const char*>(data), size);
  auto statements = flotilla::sql::Parse(sql);
  if (!statements.ok()) return 0;
  static flotilla::sql::Session* session = [] {
    auto* s = new flotilla::sql::Session();
    (void)s->Set("progress", "false");
    // The table the seeds (fuzz/corpus/sql) query; src/flotilla/sql/fuzz_seeds_test.cc plans
    // them against the same columns.
    (void)s->Execute(
        "CREATE TABLE t AS SELECT * FROM (VALUES (1, 'a', 2.5, DATE '2024-01-02'), "
        "(2, NULL, NULL, NULL), (3, 'c', -1.0, DATE '1999-12-31')) v(i, s, d, day)");
    return s;
  }();
  if (statements->size() == 1 && (*statements)[0].kind == flotilla::sql::Statement::kQuery) {
    (void)session->PlanSql(sql);
  }
  return 0;
}
