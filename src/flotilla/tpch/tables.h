#pragma once
// The eight TPC-H tables: their standard schemas (keys int64, money decimal(15,2), dates date32)
// and the generation of any range of their rows for a scale factor (TPC-H specification,
// clause 4.2.3).
#include <cstdint>
#include <string>

#include "flotilla/columnar/record_batch.h"

namespace flotilla::tpch {

enum class Table { kRegion, kNation, kSupplier, kPart, kPartSupp, kCustomer, kOrders, kLineitem };
inline constexpr Table kAllTables[] = {Table::kRegion, Table::kNation,   Table::kSupplier,
                                       Table::kPart,   Table::kPartSupp, Table::kCustomer,
                                       Table::kOrders, Table::kLineitem};

/// "region", "nation", ... as the tables are named in queries and files.
const char* TableName(Table table);
SchemaPtr TableSchema(Table table);

/// Row counts of a scale factor (fractional ones included, at least one row each).
struct Scale {
  double factor = 1;
  int64_t suppliers = 0;
  int64_t parts = 0;
  int64_t customers = 0;
  int64_t orders = 0;

  /// InvalidArgument unless 0 < factor <= 100000.
  static Result<Scale> Of(double factor);
};

/// The units a table is generated in: rows, except that partsupp is generated per part (four
/// rows each) and lineitem per order (one to seven rows each).
int64_t TableUnits(Table table, const Scale& scale);

/// The rows of units [begin, end) of `table`. Deterministic: the same units give the same rows
/// whatever the ranges they are generated in.
Result<RecordBatch> GenerateRows(Table table, const Scale& scale, int64_t begin, int64_t end);

}  // namespace flotilla::tpch
