// typeof(x): the name of x's type as DuckDB's SQL spells it (INTEGER, VARCHAR, DECIMAL(12,2),
// INTEGER[], STRUCT(a INTEGER), ...), so queries written against DuckDB read the same names.

#include <string>
#include <vector>

#include "flotilla/expr/functions/arguments.h"
#include "flotilla/expr/functions/string_functions.h"
#include "flotilla/types/sql_type_name.h"

namespace flotilla::expr::functions {
namespace {

using Args = std::vector<Datum>;
using Types = std::vector<TypePtr>;

// Every row, null ones included, gets the name: the type is the column's, not the value's.
Result<Datum> TypeOfExec(const Args& args, int64_t num_rows) {
  StringBuilder builder(utf8());
  const std::string name = SqlTypeName(*args[0].type());
  const int64_t n = OutputRows(args, num_rows);
  for (int64_t row = 0; row < n; ++row)
    FLOTILLA_RETURN_NOT_OK(builder.Append(name));
  FLOTILLA_ASSIGN_OR_RETURN(Array out, builder.Finish());
  return args[0].is_scalar() ? Datum::Scalar(std::move(out)) : Datum::Column(std::move(out));
}

}  // namespace

Status RegisterTypeOfFunction(FunctionRegistry* r) {
  return r->Add({"typeof",
                 "The name of the argument's type as DuckDB's SQL spells it (INTEGER, VARCHAR, "
                 "DECIMAL(12,2), INTEGER[], STRUCT(a INTEGER), ...), for every row.",
                 1, 1, [](const Types&) -> Result<TypePtr> { return utf8(); }, TypeOfExec});
}

}  // namespace flotilla::expr::functions
