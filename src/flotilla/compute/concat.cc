#include "flotilla/compute/concat.h"

#include <fmt/format.h>

#include <string_view>
#include <unordered_map>

#include "flotilla/columnar/builder.h"
#include "flotilla/compute/dictionary_view.h"

namespace flotilla::compute {
namespace {

using internal::DictionaryIndices;
using internal::WithDictionary;

// Appends every input whole. The builders copy validity bitmaps and value buffers in bulk
// (memcpy for fixed width and string data), and recurse into children for nested types.
Result<Array> ConcatWithBuilder(const std::vector<Array>& arrays, const TypePtr& type,
                                MemoryPool* pool) {
  int64_t rows = 0;
  for (const Array& a : arrays)
    rows += a.length();
  FLOTILLA_ASSIGN_OR_RETURN(auto builder, MakeBuilder(type, pool));
  FLOTILLA_RETURN_NOT_OK(builder->Reserve(rows));
  if (type->is_binary_like()) {
    int64_t bytes = 0;
    for (const Array& a : arrays) {
      if (a.length() > 0) bytes += a.ValueOffset(a.length()) - a.ValueOffset(0);
    }
    if (type->has_large_offsets()) {
      FLOTILLA_RETURN_NOT_OK(static_cast<LargeStringBuilder*>(builder.get())->ReserveData(bytes));
    } else {
      FLOTILLA_RETURN_NOT_OK(static_cast<StringBuilder*>(builder.get())->ReserveData(bytes));
    }
  }
  for (const Array& a : arrays)
    FLOTILLA_RETURN_NOT_OK(builder->AppendArraySlice(a, 0, a.length()));
  return builder->Finish();
}

// Rewrites indices[begin, end) through `remap` in place. Null slots may hold any bits, so an
// index outside the remap table (only possible in a null slot) is written as 0.
template <typename IndexT>
void RemapIndices(uint8_t* raw, int64_t begin, int64_t end, const std::vector<int64_t>& remap) {
  IndexT* idx = reinterpret_cast<IndexT*>(raw);
  const uint64_t size = remap.size();
  for (int64_t i = begin; i < end; ++i) {
    const uint64_t old = static_cast<uint64_t>(static_cast<int64_t>(idx[i]));
    idx[i] = old < size ? static_cast<IndexT>(remap[old]) : IndexT{0};
  }
}

void RemapIndices(TypeId index_type, uint8_t* raw, int64_t begin, int64_t end,
                  const std::vector<int64_t>& remap) {
  switch (index_type) {
    case TypeId::kInt8:
      return RemapIndices<int8_t>(raw, begin, end, remap);
    case TypeId::kUInt8:
      return RemapIndices<uint8_t>(raw, begin, end, remap);
    case TypeId::kInt16:
      return RemapIndices<int16_t>(raw, begin, end, remap);
    case TypeId::kUInt16:
      return RemapIndices<uint16_t>(raw, begin, end, remap);
    case TypeId::kInt32:
      return RemapIndices<int32_t>(raw, begin, end, remap);
    case TypeId::kUInt32:
      return RemapIndices<uint32_t>(raw, begin, end, remap);
    case TypeId::kInt64:
      return RemapIndices<int64_t>(raw, begin, end, remap);
    default:
      return RemapIndices<uint64_t>(raw, begin, end, remap);
  }
}

// Largest index an index type can hold (dictionary indices are never negative).
int64_t MaxIndex(const DataType& index_type) {
  if (index_type.bit_width() >= 64) return INT64_MAX;
  int bits = index_type.bit_width() - (index_type.is_signed_integer() ? 1 : 0);
  return (int64_t{1} << bits) - 1;
}

Result<Array> ConcatDictionaries(const std::vector<Array>& arrays, const TypePtr& type,
                                 MemoryPool* pool) {
  std::vector<Array> indices;
  bool same_dictionary = true;
  for (const Array& a : arrays) {
    indices.push_back(DictionaryIndices(a));
    same_dictionary = same_dictionary && (a.data()->dictionary == arrays[0].data()->dictionary ||
                                          a.dictionary().Equals(arrays[0].dictionary()));
  }
  FLOTILLA_ASSIGN_OR_RETURN(Array all_indices,
                            ConcatWithBuilder(indices, type->index_type(), pool));
  if (same_dictionary) return WithDictionary(type, all_indices, arrays[0].data()->dictionary);

  // Unify: each distinct dictionary value once, keyed by its bytes. The keys are views into
  // the input dictionaries, which outlive this function call.
  const DataType& value_type = *type->value_type();
  if (!value_type.is_binary_like() && value_type.byte_width() <= 0) {
    return Status::NotImplemented(
        fmt::format("concatenating {} arrays with different dictionaries; only string, binary and "
                    "fixed-width dictionary values are supported",
                    type->ToString()));
  }
  FLOTILLA_ASSIGN_OR_RETURN(auto dict_builder, MakeBuilder(type->value_type(), pool));
  std::unordered_map<std::string_view, int64_t> memo;
  int64_t null_entry = -1;  // a null dictionary entry, kept once
  int64_t unified_size = 0;
  const int64_t max_index = MaxIndex(*type->index_type());
  uint8_t* raw = all_indices.data()->buffers[1]->mutable_data();
  int64_t row = 0;
  for (const Array& a : arrays) {
    const Array dict = a.dictionary();
    std::vector<int64_t> remap(dict.length());
    for (int64_t j = 0; j < dict.length(); ++j) {
      int64_t* slot = nullptr;
      if (dict.IsNull(j)) {
        slot = &null_entry;
      } else {
        auto [it, inserted] = memo.try_emplace(dict.GetView(j), -1);
        slot = &it->second;
      }
      if (*slot < 0) {
        *slot = unified_size++;
        FLOTILLA_RETURN_NOT_OK(dict_builder->AppendArraySlice(dict, j, 1));
      }
      remap[j] = *slot;
    }
    if (unified_size - 1 > max_index) {
      return Status::Invalid(fmt::format(
          "Concat: the unified dictionary has {} values, more than {} indices can address; "
          "cast the arrays to a dictionary type with a wider index type",
          unified_size, type->index_type()->ToString()));
    }
    RemapIndices(type->index_type()->id(), raw, row, row + a.length(), remap);
    row += a.length();
  }
  FLOTILLA_ASSIGN_OR_RETURN(Array unified, dict_builder->Finish());
  return WithDictionary(type, all_indices, unified.data());
}

}  // namespace

Result<Array> Concat(const std::vector<Array>& arrays, MemoryPool* pool) {
  if (arrays.empty()) {
    return Status::Invalid(
        "Concat needs at least one array; use Array::MakeEmpty(type) for an empty result");
  }
  const TypePtr& type = arrays[0].type();
  for (size_t i = 1; i < arrays.size(); ++i) {
    if (!arrays[i].type()->Equals(*type)) {
      return Status::TypeError(
          fmt::format("Concat: array {} is {} but array 0 is {}; cast the arrays to one type first",
                      i, arrays[i].type()->ToString(), type->ToString()));
    }
  }
  if (arrays.size() == 1) return arrays[0];
  if (type->id() == TypeId::kDictionary) return ConcatDictionaries(arrays, type, pool);
  return ConcatWithBuilder(arrays, type, pool);
}

Result<RecordBatch> ConcatBatches(const std::vector<RecordBatch>& batches, MemoryPool* pool) {
  if (batches.empty()) {
    return Status::Invalid("ConcatBatches needs at least one batch to know the schema");
  }
  const SchemaPtr& schema = batches[0].schema();
  int64_t rows = 0;
  for (size_t i = 0; i < batches.size(); ++i) {
    if (!batches[i].schema()->Equals(*schema)) {
      return Status::TypeError(fmt::format(
          "ConcatBatches: batch {} has schema\n{}\nbut batch 0 has\n{}\nselect or cast the "
          "columns so that all batches match",
          i, batches[i].schema()->ToString(), schema->ToString()));
    }
    rows += batches[i].num_rows();
  }
  std::vector<Array> columns;
  for (int c = 0; c < schema->num_fields(); ++c) {
    std::vector<Array> parts;
    parts.reserve(batches.size());
    for (const RecordBatch& b : batches)
      parts.push_back(b.column(c));
    FLOTILLA_ASSIGN_OR_RETURN(Array column, Concat(parts, pool));
    columns.push_back(std::move(column));
  }
  return RecordBatch::Make(schema, std::move(columns), rows);
}

Result<RecordBatch> ConcatBatches(const SchemaPtr& schema, const std::vector<RecordBatch>& batches,
                                  MemoryPool* pool) {
  if (batches.empty()) return RecordBatch::MakeEmpty(schema);
  if (batches.size() == 1) return batches[0];
  return ConcatBatches(batches, pool);
}

}  // namespace flotilla::compute
