// Hostile nesting gets an error naming the problem, never a stack overflow: deep parentheses,
// calls, CASE, NOT, subqueries, and chains of 30,000 operators; and wide AND / OR chains (which
// the parser and planner keep balanced) run. On the main thread and on a thread with a small
// stack alike, since the parser and planner measure the stack they have left.
#include <gtest/gtest.h>
#include <pthread.h>

#include <functional>
#include <string>

#include "flotilla/sql/session.h"

namespace flotilla::sql {
namespace {

std::string Repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i)
    out += s;
  return out;
}

std::string Joined(const std::string& term, const std::string& op, int n) {
  std::string out = term;
  for (int i = 1; i < n; ++i)
    out += op + term;
  return out;
}

struct Hostile {
  std::string name;
  std::string sql;
  std::string error;  // what the message must say
};

std::vector<Hostile> HostileQueries() {
  std::string nested = "SELECT 1";
  for (int i = 0; i < 3000; ++i)
    nested = "SELECT * FROM (" + nested + ") t" + std::to_string(i);
  return {
      {"parentheses", "SELECT " + Repeat("(", 2500) + "1" + Repeat(")", 2500), "nested too deeply"},
      {"calls", "SELECT " + Repeat("abs(", 5000) + "1" + Repeat(")", 5000), "nested too deeply"},
      {"case", "SELECT " + Repeat("CASE WHEN true THEN ", 5000) + "1" + Repeat(" END", 5000),
       "nested too deeply"},
      {"not", "SELECT " + Repeat("NOT ", 50000) + "true", "nested too deeply"},
      {"minus", "SELECT " + Repeat("- ", 50000) + "x FROM (SELECT 1 AS x)", "nested too deeply"},
      {"scalar subqueries", "SELECT " + Repeat("(SELECT ", 3000) + "1" + Repeat(")", 3000),
       "nested too deeply"},
      {"sum chain", "SELECT " + Joined("1", "+", 30000), "chain of more than 1000"},
      {"casts", "SELECT 1" + Repeat("::BIGINT", 3000), "chain of more than 1000"},
      {"FROM subqueries", Repeat("SELECT * FROM (", 20000) + "SELECT 1" + Repeat(") t", 20000),
       "nested too deeply"},
  };
}

void ExpectCleanErrors() {
  for (const Hostile& h : HostileQueries()) {
    Session session;
    auto result = session.Execute(h.sql);
    ASSERT_FALSE(result.ok()) << h.name;
    EXPECT_NE(result.status().message().find(h.error), std::string::npos)
        << h.name << ": " << result.status().message().substr(0, 300);
  }
}

TEST(Nesting, HostileQueriesGetAnErrorNotACrash) {
  ExpectCleanErrors();
}

TEST(Nesting, OnASmallThreadStackToo) {
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, size_t{2} << 20), 0);
  pthread_t thread;
  auto body = [](void*) -> void* {
    ExpectCleanErrors();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&thread, &attr, body, nullptr), 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
}

// Thousands of conditions are a few levels deep, not thousands: they plan and run.
TEST(Nesting, WideAndOrChainsRun) {
  Session session;
  auto all = session.Execute("SELECT count(*) FROM (SELECT 5 AS x) WHERE " +
                             Joined("x > 0", " AND ", 5000));
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(all->batch.column(0).ValueToString(0), "1");
  std::string any = "x = 0";
  for (int i = 1; i < 5000; ++i)
    any += " OR x = " + std::to_string(i * 7);
  auto one = session.Execute("SELECT count(*) FROM (SELECT 14 AS x) WHERE " + any);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ(one->batch.column(0).ValueToString(0), "1");
}

}  // namespace
}  // namespace flotilla::sql
