#include "flotilla/expr/datum.h"

#include "flotilla/columnar/builder.h"

namespace flotilla::expr {

Result<Array> Datum::ToColumn(int64_t num_rows) const {
  if (!scalar_) return array_;
  FLOTILLA_ASSIGN_OR_RETURN(auto builder, MakeBuilder(array_.type()));
  FLOTILLA_RETURN_NOT_OK(builder->Reserve(num_rows));
  for (int64_t i = 0; i < num_rows; ++i) {
    FLOTILLA_RETURN_NOT_OK(builder->AppendArraySlice(array_, 0, 1));
  }
  return builder->Finish();
}

}  // namespace flotilla::expr
