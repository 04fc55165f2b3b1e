#pragma once
// File sources in FROM: quoted paths ('data/*.parquet', picked by extension) and the table
// functions read_parquet(paths), read_csv(paths, header=, delim=, quote=, escape=, skip=,
// nullstr=, sample_size=), read_json(paths, sample_size=) and read_warc(paths, ignore_errors=).
// `paths` is a string (a file, a
// directory, a glob or a URL) or a list of them: ['a.csv', 'b.csv'].
#include <string>
#include <string_view>
#include <vector>

#include "flotilla/exec/plan/physical_plan.h"
#include "flotilla/sql/ast.h"

namespace flotilla::sql {

/// The scan of `path`; the format from its extension (.parquet, .csv, .tsv, .json, .jsonl,
/// .ndjson), errors at `offset` of `sql`.
Result<exec::PlanPtr> PlanPathScan(const std::string& path, std::string_view sql, int64_t offset);

/// The scan a table function names; NotFound-style KeyError for other names.
Result<exec::PlanPtr> PlanTableFunction(const TableRef& ref, std::string_view sql);

/// The table name a path gives in FROM 'dir/lineitem.parquet' (its file name without the
/// extension): lineitem.
std::string TableNameOfPath(const std::string& path);

}  // namespace flotilla::sql
