#pragma once
// Arrays in the Arrow columnar layout. ArrayData holds the buffers exactly as the Arrow format
// specifies them (so IPC is zero-copy); Array is a cheap, copyable, read-only handle to it.
//
// Buffer slots per type (buffers[0] is always the validity bitmap, nullptr when all valid):
//   null                        {nullptr}
//   bool, numeric, temporal,
//   decimal, fixed_size_binary  {validity, values}
//   string/binary (+ large)     {validity, offsets (int32|int64), data}
//   list                        {validity, offsets int32}, children[0] = values
//   fixed_size_list, struct     {validity}, children
//   dictionary                  {validity, indices}, dictionary = the values

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "flotilla/columnar/buffer.h"
#include "flotilla/common/bit_util.h"
#include "flotilla/common/result.h"
#include "flotilla/types/data_type.h"

namespace flotilla {

struct ArrayData {
  TypePtr type;
  int64_t length = 0;
  int64_t null_count = 0;  // always known; Array::Make computes it when given -1
  int64_t offset = 0;      // logical start within the buffers, in values (bits for bitmaps)
  std::vector<BufferPtr> buffers;
  std::vector<std::shared_ptr<ArrayData>> children;
  std::shared_ptr<ArrayData> dictionary;
};

class Array {
 public:
  Array() = default;
  explicit Array(std::shared_ptr<ArrayData> data) : data_(std::move(data)) {}

  /// Wraps `data` after checking its buffers are large enough for its type, length and offset
  /// (recursively). Computes null_count when it is -1. Use on data from outside (files, network).
  static Result<Array> Make(std::shared_ptr<ArrayData> data);
  /// An array of `length` nulls of any type (all children and buffers allocated and zeroed).
  static Result<Array> MakeNull(const TypePtr& type, int64_t length);
  /// An empty array of `type`.
  static Result<Array> MakeEmpty(const TypePtr& type) { return MakeNull(type, 0); }

  bool valid() const { return data_ != nullptr; }
  const std::shared_ptr<ArrayData>& data() const { return data_; }
  const TypePtr& type() const { return data_->type; }
  TypeId type_id() const { return data_->type->id(); }
  int64_t length() const { return data_->length; }
  int64_t offset() const { return data_->offset; }
  int64_t null_count() const { return data_->null_count; }

  const uint8_t* validity() const {
    return data_->buffers.empty() || !data_->buffers[0] ? nullptr : data_->buffers[0]->data();
  }
  bool IsValid(int64_t i) const {
    if (type_id() == TypeId::kNull) return false;
    const uint8_t* v = validity();
    return v == nullptr || bit_util::GetBit(v, data_->offset + i);
  }
  bool IsNull(int64_t i) const { return !IsValid(i); }

  /// Fixed-width values, already advanced by the offset: values<int64_t>()[i] is row i.
  template <typename T>
  const T* values() const {
    return data_->buffers[1]->data_as<T>() + data_->offset;
  }
  /// Raw start of the fixed-width values buffer (not advanced by the offset).
  const uint8_t* raw_values() const { return data_->buffers[1]->data(); }
  bool BoolValue(int64_t i) const {
    return bit_util::GetBit(data_->buffers[1]->data(), data_->offset + i);
  }
  /// Value bytes of row i for string, binary (any offset width) and fixed_size_binary/decimal.
  std::string_view GetView(int64_t i) const;
  /// Offsets of list/string/binary row i (start, end), absolute within the child/data buffer.
  int64_t ValueOffset(int64_t i) const;
  int64_t ValueLength(int64_t i) const { return ValueOffset(i + 1) - ValueOffset(i); }

  int num_children() const { return static_cast<int>(data_->children.size()); }
  /// Child i as stored (not sliced by this array's offset: use ValueOffset for lists, and
  /// offset() * list_size for fixed_size_list; struct children are sliced via field()).
  Array child(int i) const { return Array(data_->children[i]); }
  /// Struct field i, sliced to this array's offset and length.
  Array field(int i) const;
  /// List or fixed_size_list values of row i as an array.
  Array ListValues(int64_t i) const;
  Array dictionary() const { return Array(data_->dictionary); }
  /// Dictionary arrays: the index stored at row i (valid rows only).
  int64_t DictionaryIndex(int64_t i) const;

  /// Zero-copy view of rows [offset, offset + length). Clamps to the array's bounds.
  Array Slice(int64_t offset, int64_t length) const;
  Array Slice(int64_t offset) const { return Slice(offset, length() - offset); }

  /// Logical equality: same type, length, nulls and values (NaN equals NaN bitwise-equal).
  bool Equals(const Array& other) const;
  /// One value as text, for printing ("null" for nulls; strings unquoted).
  std::string ValueToString(int64_t i) const;
  /// Compact text of the whole array: "[1, null, 3]".
  std::string ToString() const;

 private:
  std::shared_ptr<ArrayData> data_;
};

/// Number of buffers the Arrow layout has for a type (validity included).
int NumBuffers(const DataType& type);

}  // namespace flotilla
