#include "flotilla/compute/unpivot.h"

#include <fmt/format.h>

#include "flotilla/columnar/builder.h"
#include "flotilla/compute/cast.h"
#include "flotilla/compute/concat.h"
#include "flotilla/compute/gather.h"
#include "flotilla/types/coercion.h"

namespace flotilla::compute {
namespace {

Result<Array> IndexArray(int64_t length, MemoryPool* pool, auto&& index_of) {
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr buffer, Buffer::Allocate(length * 8, pool));
  int64_t* out = reinterpret_cast<int64_t*>(buffer->mutable_data());
  for (int64_t k = 0; k < length; ++k)
    out[k] = index_of(k);
  auto d = std::make_shared<ArrayData>();
  d->type = int64();
  d->length = length;
  d->buffers = {nullptr, std::move(buffer)};
  return Array(std::move(d));
}

std::string QuotedNames(const Schema& schema, const std::vector<int>& columns, size_t count) {
  std::string out;
  for (size_t i = 0; i < count; ++i) {
    if (i > 0) out += ", ";
    out += "'" + schema.field(columns[i]).name + "'";
  }
  return out;
}

// The one type of the value columns, or the common type they are all cast to.
Result<TypePtr> ValueType(const RecordBatch& batch, const std::vector<int>& value_columns) {
  const Schema& schema = *batch.schema();
  TypePtr type = schema.field(value_columns[0]).type;
  bool all_equal = true;
  for (int c : value_columns)
    all_equal &= schema.field(c).type->Equals(*type);
  if (all_equal) return type;

  auto decoded = [](const TypePtr& t) {
    return t->id() == TypeId::kDictionary ? t->value_type() : t;
  };
  type = decoded(type);
  for (size_t i = 1; i < value_columns.size(); ++i) {
    const Field& field = schema.field(value_columns[i]);
    TypePtr common = CommonType(type, decoded(field.type), CoercionPurpose::kUnify);
    if (!common) {
      return Status::TypeError(fmt::format(
          "Unpivot: value column '{}' is {}, which has no common type with {} (the type of {}); "
          "value columns must share a type: cast them to one type first",
          field.name, field.type->ToString(), type->ToString(),
          QuotedNames(schema, value_columns, i)));
    }
    type = std::move(common);
  }
  return type;
}

}  // namespace

Result<RecordBatch> Unpivot(const RecordBatch& batch, const std::vector<int>& id_columns,
                            const std::vector<int>& value_columns, std::string variable_name,
                            std::string value_name, MemoryPool* pool) {
  const Schema& schema = *batch.schema();
  const int num_columns = batch.num_columns();
  if (value_columns.empty()) {
    return Status::Invalid("Unpivot: no value columns; name at least one column to unpivot");
  }
  std::vector<bool> used(num_columns, false);
  for (const std::vector<int>* list : {&id_columns, &value_columns}) {
    for (int c : *list) {
      if (c < 0 || c >= num_columns) {
        return Status::IndexError(fmt::format(
            "Unpivot: column {} is out of range for a batch of {} columns (valid: 0 to {})", c,
            num_columns, num_columns - 1));
      }
      if (used[c]) {
        return Status::Invalid(fmt::format(
            "Unpivot: column '{}' is listed twice; each column is either an id column or a "
            "value column, once",
            schema.field(c).name));
      }
      used[c] = true;
    }
  }
  std::vector<Field> fields;
  for (int c : id_columns)
    fields.push_back(schema.field(c));
  for (const std::string* name : {&variable_name, &value_name}) {
    for (const Field& field : fields) {
      if (field.name == *name) {
        return Status::Invalid(fmt::format(
            "Unpivot: the output column name '{}' is used twice; choose other names for the "
            "variable and value columns",
            *name));
      }
    }
    fields.push_back(Field{*name, utf8(), false});
  }
  FLOTILLA_ASSIGN_OR_RETURN(TypePtr value_type, ValueType(batch, value_columns));
  fields.back() = Field{value_name, value_type, true};

  const int64_t n = batch.num_rows();
  const int64_t v = static_cast<int64_t>(value_columns.size());
  const int64_t total = n * v;

  std::vector<Array> values;
  values.reserve(v);
  for (int c : value_columns) {
    const Array& column = batch.column(c);
    if (column.type()->Equals(*value_type)) {
      values.push_back(column);
      continue;
    }
    auto cast = compute::Cast(column, value_type);
    if (!cast.ok()) {
      return cast.status().WithContext(fmt::format("Unpivot: casting value column '{}' to {}",
                                                   schema.field(c).name, value_type->ToString()));
    }
    values.push_back(std::move(*cast));
  }

  std::vector<Array> columns;
  if (v == 1) {
    for (int c : id_columns)
      columns.push_back(batch.column(c));
  } else {
    FLOTILLA_ASSIGN_OR_RETURN(Array repeat,
                              IndexArray(total, pool, [v](int64_t k) { return k / v; }));
    for (int c : id_columns) {
      FLOTILLA_ASSIGN_OR_RETURN(Array taken, internal::Gather(batch.column(c), repeat, pool));
      columns.push_back(std::move(taken));
    }
  }

  StringBuilder names(utf8(), pool);
  FLOTILLA_RETURN_NOT_OK(names.Reserve(total));
  int64_t name_bytes = 0;
  for (int c : value_columns)
    name_bytes += static_cast<int64_t>(schema.field(c).name.size());
  FLOTILLA_RETURN_NOT_OK(names.ReserveData(name_bytes * n));
  for (int64_t r = 0; r < n; ++r) {
    for (int c : value_columns)
      FLOTILLA_RETURN_NOT_OK(names.Append(schema.field(c).name));
  }
  FLOTILLA_ASSIGN_OR_RETURN(Array variable, names.Finish());
  columns.push_back(std::move(variable));

  if (v == 1) {
    columns.push_back(std::move(values[0]));
  } else {
    // Stack the value columns (column v at [v * n, (v + 1) * n)), then read them row-major.
    FLOTILLA_ASSIGN_OR_RETURN(Array stacked, Concat(values, pool));
    FLOTILLA_ASSIGN_OR_RETURN(Array interleave, IndexArray(total, pool, [n, v](int64_t k) {
                                return (k % v) * n + k / v;
                              }));
    FLOTILLA_ASSIGN_OR_RETURN(Array value, internal::Gather(stacked, interleave, pool));
    columns.push_back(std::move(value));
  }
  return RecordBatch::Make(std::make_shared<Schema>(std::move(fields)), std::move(columns), total);
}

}  // namespace flotilla::compute
