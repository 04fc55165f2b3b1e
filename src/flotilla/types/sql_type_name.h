#pragma once
// The name of a type as DuckDB's SQL spells it (INTEGER, VARCHAR, DECIMAL(12,2), INTEGER[],
// STRUCT(a INTEGER), ...): what typeof() and SUMMARIZE show, so queries written against
// DuckDB read the same names.
#include <string>

#include "flotilla/types/data_type.h"

namespace flotilla {

std::string SqlTypeName(const DataType& t);

}  // namespace flotilla
