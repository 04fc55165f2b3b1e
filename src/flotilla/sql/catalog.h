#pragma once
// The names a SQL session can query: tables (files registered by name, results of CREATE TABLE
// AS) and views. Both are plans; a view's plan is re-run on every use, a table's plan reads
// files or rows held in memory. Names are matched ignoring ASCII case.
#include <map>
#include <string>
#include <vector>

#include "flotilla/exec/plan/physical_plan.h"

namespace flotilla::sql {

class Catalog {
 public:
  enum class Kind { kTable, kView };
  struct Entry {
    Kind kind;
    exec::PlanPtr plan;
  };

  /// Registers `name`; an existing name is an error unless `replace`.
  Status Add(const std::string& name, Kind kind, exec::PlanPtr plan, bool replace = false);
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
