#pragma once
// Builders append values one at a time (or whole slices of other arrays) and Finish() into an
// Array. MakeBuilder creates the right builder, with child builders, for any type.

#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "flotilla/columnar/array.h"
#include "flotilla/columnar/buffer_builder.h"
#include "flotilla/columnar/decimal.h"

namespace flotilla {

class ArrayBuilder {
 public:
  ArrayBuilder(TypePtr type, MemoryPool* pool)
      : type_(std::move(type)), pool_(pool), validity_(pool) {}
  virtual ~ArrayBuilder() = default;
  ArrayBuilder(const ArrayBuilder&) = delete;
  ArrayBuilder& operator=(const ArrayBuilder&) = delete;

  const TypePtr& type() const { return type_; }
  int64_t length() const { return validity_.length(); }
  int64_t null_count() const { return validity_.false_count(); }

  Status AppendNull() { return AppendNulls(1); }
  Status AppendNulls(int64_t n);
  /// Appends rows [offset, offset + length) of `array`, which must have this builder's type.
  virtual Status AppendArraySlice(const Array& array, int64_t offset, int64_t length) = 0;
  /// Hints the number of rows still to come.
  virtual Status Reserve(int64_t additional) { return Status::OK(); }

  /// Builds the array and resets the builder for reuse.
  Result<Array> Finish();

  /// Child builders of nested types (list: 1, struct: one per field).
  virtual int num_children() const { return 0; }
  virtual ArrayBuilder* child(int i) { return nullptr; }

 protected:
  /// Appends `n` placeholder values for null slots (zeros, empty strings, empty lists).
  virtual Status AppendEmptyValues(int64_t n) = 0;
  /// Moves the built buffers/children into `out` (validity and length are already set).
  virtual Status FinishInto(ArrayData* out) = 0;
  Status AppendValid() { return validity_.Append(true); }
  /// Appends the validity of rows [offset, offset + length) of `array`.
  Status AppendValidityOf(const Array& array, int64_t offset, int64_t length);

  TypePtr type_;
  MemoryPool* pool_;

 private:
  BitmapBuilder validity_;
};

/// Fixed-width values of C type T: integers, floats, date32, timestamp, duration.
template <typename T>
class NumericBuilder : public ArrayBuilder {
 public:
  explicit NumericBuilder(TypePtr type, MemoryPool* pool = DefaultMemoryPool())
      : ArrayBuilder(std::move(type), pool), values_(pool) {}

  Status Append(T value) {
    FLOTILLA_RETURN_NOT_OK(AppendValid());
    return values_.Append<T>(value);
  }
  Status AppendValues(const T* values, int64_t n) {
    for (int64_t i = 0; i < n; ++i)
      FLOTILLA_RETURN_NOT_OK(AppendValid());
    return values_.Append(values, n * static_cast<int64_t>(sizeof(T)));
  }
  Status Reserve(int64_t n) override {
    return values_.Reserve(n * static_cast<int64_t>(sizeof(T)));
  }
  Status AppendArraySlice(const Array& array, int64_t offset, int64_t length) override {
    FLOTILLA_RETURN_NOT_OK(AppendValidityOf(array, offset, length));
    return values_.Append(array.values<T>() + offset, length * static_cast<int64_t>(sizeof(T)));
  }

 protected:
  Status AppendEmptyValues(int64_t n) override {
    return values_.AppendZeros(n * static_cast<int64_t>(sizeof(T)));
  }
  Status FinishInto(ArrayData* out) override {
    FLOTILLA_ASSIGN_OR_RETURN(out->buffers[1], values_.Finish());
    return Status::OK();
  }

 private:
  BufferBuilder values_;
};

using Int8Builder = NumericBuilder<int8_t>;
using Int16Builder = NumericBuilder<int16_t>;
using Int32Builder = NumericBuilder<int32_t>;
using Int64Builder = NumericBuilder<int64_t>;
using UInt8Builder = NumericBuilder<uint8_t>;
using UInt16Builder = NumericBuilder<uint16_t>;
using UInt32Builder = NumericBuilder<uint32_t>;
using UInt64Builder = NumericBuilder<uint64_t>;
using FloatBuilder = NumericBuilder<float>;
using DoubleBuilder = NumericBuilder<double>;

class BooleanBuilder : public ArrayBuilder {
 public:
  explicit BooleanBuilder(MemoryPool* pool = DefaultMemoryPool())
      : ArrayBuilder(boolean(), pool), values_(pool) {}
  Status Append(bool value) {
    FLOTILLA_RETURN_NOT_OK(AppendValid());
    return values_.Append(value);
  }
  Status AppendArraySlice(const Array& array, int64_t offset, int64_t length) override;

 protected:
  Status AppendEmptyValues(int64_t n) override { return values_.AppendN(n, false); }
  Status FinishInto(ArrayData* out) override;

 private:
  BitmapBuilder values_;
};

/// string, large_string, binary, large_binary (Offset is int32_t or int64_t).
template <typename Offset>
class BaseBinaryBuilder : public ArrayBuilder {
 public:
  explicit BaseBinaryBuilder(TypePtr type, MemoryPool* pool = DefaultMemoryPool())
      : ArrayBuilder(std::move(type), pool), offsets_(pool), data_(pool) {}

  Status Append(std::string_view value) {
    FLOTILLA_RETURN_NOT_OK(AppendValid());
    FLOTILLA_RETURN_NOT_OK(data_.Append(value.data(), static_cast<int64_t>(value.size())));
    return AppendOffset();
  }
  Status Reserve(int64_t n) override { return offsets_.Reserve((n + 1) * sizeof(Offset)); }
  Status ReserveData(int64_t bytes) { return data_.Reserve(bytes); }
  Status AppendArraySlice(const Array& array, int64_t offset, int64_t length) override;
  int64_t value_data_length() const { return data_.size(); }

 protected:
  Status AppendEmptyValues(int64_t n) override {
    for (int64_t i = 0; i < n; ++i)
      FLOTILLA_RETURN_NOT_OK(AppendOffset());
    return Status::OK();
  }
  Status FinishInto(ArrayData* out) override;

 private:
  Status AppendOffset();

  BufferBuilder offsets_;  // without the leading 0, added at Finish
  BufferBuilder data_;
};

using StringBuilder = BaseBinaryBuilder<int32_t>;
using LargeStringBuilder = BaseBinaryBuilder<int64_t>;

/// fixed_size_binary and decimal128.
class FixedSizeBinaryBuilder : public ArrayBuilder {
 public:
  explicit FixedSizeBinaryBuilder(TypePtr type, MemoryPool* pool = DefaultMemoryPool())
      : ArrayBuilder(std::move(type), pool), values_(pool) {}
  /// `value` must be exactly byte_width bytes.
  Status Append(std::string_view value);
  Status AppendDecimal(Int128 value) {
    return Append({reinterpret_cast<const char*>(&value), sizeof(value)});
  }
  Status AppendArraySlice(const Array& array, int64_t offset, int64_t length) override;

 protected:
  Status AppendEmptyValues(int64_t n) override {
    return values_.AppendZeros(n * type_->byte_width());
  }
  Status FinishInto(ArrayData* out) override;

 private:
  BufferBuilder values_;
};

class NullBuilder : public ArrayBuilder {
 public:
  explicit NullBuilder(MemoryPool* pool = DefaultMemoryPool()) : ArrayBuilder(null(), pool) {}
  Status AppendArraySlice(const Array& array, int64_t offset, int64_t length) override {
    return AppendNulls(length);
  }

 protected:
  Status AppendEmptyValues(int64_t) override { return Status::OK(); }
  Status FinishInto(ArrayData* out) override { return Status::OK(); }
};

/// list<T>: call Append() to open a list, then append its elements to value_builder().
class ListBuilder : public ArrayBuilder {
 public:
  ListBuilder(TypePtr type, std::unique_ptr<ArrayBuilder> values,
              MemoryPool* pool = DefaultMemoryPool());
  Status Append();
  ArrayBuilder* value_builder() { return values_.get(); }
  Status AppendArraySlice(const Array& array, int64_t offset, int64_t length) override;
  int num_children() const override { return 1; }
  ArrayBuilder* child(int) override { return values_.get(); }

 protected:
  Status AppendEmptyValues(int64_t n) override;
  Status FinishInto(ArrayData* out) override;

 private:
  BufferBuilder offsets_;  // start offsets; the final end offset is added at Finish
  std::unique_ptr<ArrayBuilder> values_;
};

/// fixed_size_list<T>[n]: Append() then exactly n values to value_builder().
class FixedSizeListBuilder : public ArrayBuilder {
 public:
  FixedSizeListBuilder(TypePtr type, std::unique_ptr<ArrayBuilder> values,
                       MemoryPool* pool = DefaultMemoryPool())
      : ArrayBuilder(std::move(type), pool), values_(std::move(values)) {}
  Status Append() { return AppendValid(); }
  ArrayBuilder* value_builder() { return values_.get(); }
  Status AppendArraySlice(const Array& array, int64_t offset, int64_t length) override;
  int num_children() const override { return 1; }
  ArrayBuilder* child(int) override { return values_.get(); }

 protected:
  Status AppendEmptyValues(int64_t n) override {
    return values_->AppendNulls(n * type_->fixed_size());
  }
  Status FinishInto(ArrayData* out) override;

 private:
  std::unique_ptr<ArrayBuilder> values_;
};

/// struct<...>: Append() then one value to each field_builder(i).
class StructBuilder : public ArrayBuilder {
 public:
  StructBuilder(TypePtr type, std::vector<std::unique_ptr<ArrayBuilder>> fields,
                MemoryPool* pool = DefaultMemoryPool())
      : ArrayBuilder(std::move(type), pool), fields_(std::move(fields)) {}
  Status Append() { return AppendValid(); }
  ArrayBuilder* field_builder(int i) { return fields_[i].get(); }
  Status AppendArraySlice(const Array& array, int64_t offset, int64_t length) override;
  int num_children() const override { return static_cast<int>(fields_.size()); }
  ArrayBuilder* child(int i) override { return fields_[i].get(); }

 protected:
  Status AppendEmptyValues(int64_t n) override;
  Status FinishInto(ArrayData* out) override;

 private:
  std::vector<std::unique_ptr<ArrayBuilder>> fields_;
};

/// dictionary<values=T, indices=I>: Append(value) finds or adds the value in the dictionary.
/// AppendArraySlice keeps the source's values (re-encoding them into this dictionary).
class DictionaryBuilder : public ArrayBuilder {
 public:
  explicit DictionaryBuilder(TypePtr type, MemoryPool* pool = DefaultMemoryPool());
  ~DictionaryBuilder() override;
  /// For string/binary value types.
  Status Append(std::string_view value);
  Status AppendArraySlice(const Array& array, int64_t offset, int64_t length) override;

 protected:
  Status AppendEmptyValues(int64_t n) override;
  Status FinishInto(ArrayData* out) override;

 private:
  Status AppendIndex(int64_t index);
  /// Index of row `row` of `values` (a value-type array) in the dictionary, adding it if new.
  Result<int64_t> Memoize(const Array& values, int64_t row);

  std::unique_ptr<ArrayBuilder> dict_builder_;
  std::unique_ptr<ArrayBuilder> index_builder_;
  std::unordered_map<std::string, int64_t> memo_;  // value bytes -> index
  int64_t dict_size_ = 0;
};

/// A builder for any type (with builders for all children).
Result<std::unique_ptr<ArrayBuilder>> MakeBuilder(const TypePtr& type,
                                                  MemoryPool* pool = DefaultMemoryPool());

/// Assembles a dictionary array from indices (an integer array) and a dictionary.
Result<Array> MakeDictionaryArray(const Array& indices, const Array& dictionary);

}  // namespace flotilla
