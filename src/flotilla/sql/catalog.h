#pragma once
// The names a SQL session can query: tables (files registered by name, results of CREATE TABLE
// AS, DataFrames registered from Python), whose plans read files or rows held in memory, and
// views, kept as their query and planned again at every use (so they see the tables as they are
// then). Names are matched ignoring ASCII case.
#include <map>
#include <string>
#include <vector>

#include "flotilla/exec/plan/physical_plan.h"
#include "flotilla/sql/ast.h"

namespace flotilla::sql {

class Catalog {
 public:
  enum class Kind { kTable, kView };
  struct Entry {
    Kind kind;
    exec::PlanPtr plan;  // tables (and views registered as plans)
    // SQL views: the query, the text its offsets point into, and the column names given.
    QueryPtr query;
    std::shared_ptr<const std::string> sql;
    std::vector<std::string> column_aliases;
  };

  /// Registers `name`; an existing name is an error unless `replace`.
  Status Add(const std::string& name, Kind kind, exec::PlanPtr plan, bool replace = false);
  Status AddView(const std::string& name, QueryPtr query, std::shared_ptr<const std::string> sql,
                 std::vector<std::string> column_aliases, bool replace);
  /// nullptr when there is no such name.
  const Entry* Find(const std::string& name) const;
  /// Removes `name`; a missing name is a KeyError unless `if_exists`.
  Status Drop(const std::string& name, bool if_exists = false);
  /// Every name, sorted.
  std::vector<std::string> Names() const;

 private:
  std::map<std::string, Entry> entries_;  // by lower-case name
};

}  // namespace flotilla::sql
