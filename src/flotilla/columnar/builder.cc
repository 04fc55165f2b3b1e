#include "flotilla/columnar/builder.h"

#include <fmt/format.h>

namespace flotilla {

Status ArrayBuilder::AppendNulls(int64_t n) {
  FLOTILLA_RETURN_NOT_OK(validity_.AppendN(n, false));
  return AppendEmptyValues(n);
}

Status ArrayBuilder::AppendValidityOf(const Array& array, int64_t offset, int64_t length) {
  if (array.type_id() == TypeId::kNull) return validity_.AppendN(length, false);
  return validity_.AppendBits(array.validity(), array.offset() + offset, length);
}

Result<Array> ArrayBuilder::Finish() {
  auto out = std::make_shared<ArrayData>();
  out->type = type_;
  out->length = validity_.length();
  out->null_count = type_->id() == TypeId::kNull ? out->length : validity_.false_count();
  out->buffers.resize(NumBuffers(*type_));
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr validity, validity_.Finish());
  if (out->null_count > 0 && type_->id() != TypeId::kNull) out->buffers[0] = std::move(validity);
  FLOTILLA_RETURN_NOT_OK(FinishInto(out.get()));
  return Array(std::move(out));
}

// --- bool --------------------------------------------------------------------------------------

Status BooleanBuilder::AppendArraySlice(const Array& array, int64_t offset, int64_t length) {
  FLOTILLA_RETURN_NOT_OK(AppendValidityOf(array, offset, length));
  return values_.AppendBits(array.raw_values(), array.offset() + offset, length);
}

Status BooleanBuilder::FinishInto(ArrayData* out) {
  FLOTILLA_ASSIGN_OR_RETURN(out->buffers[1], values_.Finish());
  return Status::OK();
}

// --- string / binary ---------------------------------------------------------------------------

template <typename Offset>
Status BaseBinaryBuilder<Offset>::AppendOffset() {
  if (sizeof(Offset) == 4 && data_.size() > INT32_MAX) {
    return Status::Invalid(
        fmt::format("{} data exceeds 2 GiB; use the large_ variant", type_->ToString()));
  }
  return offsets_.Append<Offset>(static_cast<Offset>(data_.size()));
}

template <typename Offset>
Status BaseBinaryBuilder<Offset>::AppendArraySlice(const Array& array, int64_t offset,
                                                   int64_t length) {
  FLOTILLA_RETURN_NOT_OK(AppendValidityOf(array, offset, length));
  if (length == 0) return Status::OK();
  int64_t first = array.ValueOffset(offset);
  int64_t last = array.ValueOffset(offset + length);
  FLOTILLA_RETURN_NOT_OK(data_.Append(array.data()->buffers[2]->data() + first, last - first));
  int64_t base = data_.size() - (last - first) - first;
  FLOTILLA_RETURN_NOT_OK(offsets_.Reserve(length * static_cast<int64_t>(sizeof(Offset))));
  if (sizeof(Offset) == 4 && data_.size() > INT32_MAX) {
    return Status::Invalid(
        fmt::format("{} data exceeds 2 GiB; use the large_ variant", type_->ToString()));
  }
  for (int64_t i = 1; i <= length; ++i) {
    offsets_.UnsafeAppend<Offset>(static_cast<Offset>(array.ValueOffset(offset + i) + base));
  }
  return Status::OK();
}

template <typename Offset>
Status BaseBinaryBuilder<Offset>::FinishInto(ArrayData* out) {
  // Stored offsets are the ends of each value; the Arrow layout wants a leading 0.
  BufferBuilder full(pool_);
  FLOTILLA_RETURN_NOT_OK(full.Reserve(offsets_.size() + static_cast<int64_t>(sizeof(Offset))));
  full.UnsafeAppend<Offset>(0);
  FLOTILLA_RETURN_NOT_OK(full.Append(offsets_.data(), offsets_.size()));
  FLOTILLA_ASSIGN_OR_RETURN(out->buffers[1], full.Finish());
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr discard, offsets_.Finish());
  FLOTILLA_ASSIGN_OR_RETURN(out->buffers[2], data_.Finish());
  return Status::OK();
}

template class BaseBinaryBuilder<int32_t>;
template class BaseBinaryBuilder<int64_t>;

// --- fixed_size_binary / decimal ---------------------------------------------------------------

Status FixedSizeBinaryBuilder::Append(std::string_view value) {
  if (static_cast<int64_t>(value.size()) != type_->byte_width()) {
    return Status::Invalid(fmt::format("{} value must be {} bytes, got {}", type_->ToString(),
                                       type_->byte_width(), value.size()));
  }
  FLOTILLA_RETURN_NOT_OK(AppendValid());
  return values_.Append(value.data(), static_cast<int64_t>(value.size()));
}

Status FixedSizeBinaryBuilder::AppendArraySlice(const Array& array, int64_t offset,
                                                int64_t length) {
  FLOTILLA_RETURN_NOT_OK(AppendValidityOf(array, offset, length));
  int64_t w = type_->byte_width();
  return values_.Append(array.raw_values() + (array.offset() + offset) * w, length * w);
}

Status FixedSizeBinaryBuilder::FinishInto(ArrayData* out) {
  FLOTILLA_ASSIGN_OR_RETURN(out->buffers[1], values_.Finish());
  return Status::OK();
}

// --- list --------------------------------------------------------------------------------------

ListBuilder::ListBuilder(TypePtr type, std::unique_ptr<ArrayBuilder> values, MemoryPool* pool)
    : ArrayBuilder(std::move(type), pool), offsets_(pool), values_(std::move(values)) {}

Status ListBuilder::Append() {
  FLOTILLA_RETURN_NOT_OK(AppendValid());
  return offsets_.Append<int32_t>(static_cast<int32_t>(values_->length()));
}

Status ListBuilder::AppendEmptyValues(int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    FLOTILLA_RETURN_NOT_OK(offsets_.Append<int32_t>(static_cast<int32_t>(values_->length())));
  }
  return Status::OK();
}

Status ListBuilder::AppendArraySlice(const Array& array, int64_t offset, int64_t length) {
  FLOTILLA_RETURN_NOT_OK(AppendValidityOf(array, offset, length));
  if (length == 0) return Status::OK();
  int64_t first = array.ValueOffset(offset);
  int64_t last = array.ValueOffset(offset + length);
  int64_t base = values_->length() - first;
  if (values_->length() + (last - first) > INT32_MAX) {
    return Status::Invalid("list child exceeds 2^31 values");
  }
  for (int64_t i = 0; i < length; ++i) {
    FLOTILLA_RETURN_NOT_OK(
        offsets_.Append<int32_t>(static_cast<int32_t>(array.ValueOffset(offset + i) + base)));
  }
  return values_->AppendArraySlice(array.child(0), first, last - first);
}

Status ListBuilder::FinishInto(ArrayData* out) {
  FLOTILLA_RETURN_NOT_OK(offsets_.Append<int32_t>(static_cast<int32_t>(values_->length())));
  FLOTILLA_ASSIGN_OR_RETURN(out->buffers[1], offsets_.Finish());
  FLOTILLA_ASSIGN_OR_RETURN(Array values, values_->Finish());
  out->children = {values.data()};
  return Status::OK();
}

// --- fixed_size_list ---------------------------------------------------------------------------

Status FixedSizeListBuilder::AppendArraySlice(const Array& array, int64_t offset, int64_t length) {
  FLOTILLA_RETURN_NOT_OK(AppendValidityOf(array, offset, length));
  int64_t n = type_->fixed_size();
  return values_->AppendArraySlice(array.child(0), (array.offset() + offset) * n, length * n);
}

Status FixedSizeListBuilder::FinishInto(ArrayData* out) {
  if (values_->length() != out->length * type_->fixed_size()) {
    return Status::Invalid(fmt::format("{} builder has {} values for {} lists", type_->ToString(),
                                       values_->length(), out->length));
  }
  FLOTILLA_ASSIGN_OR_RETURN(Array values, values_->Finish());
  out->children = {values.data()};
  return Status::OK();
}

// --- struct ------------------------------------------------------------------------------------

Status StructBuilder::AppendEmptyValues(int64_t n) {
  for (auto& f : fields_)
    FLOTILLA_RETURN_NOT_OK(f->AppendNulls(n));
  return Status::OK();
}

Status StructBuilder::AppendArraySlice(const Array& array, int64_t offset, int64_t length) {
  FLOTILLA_RETURN_NOT_OK(AppendValidityOf(array, offset, length));
  for (size_t i = 0; i < fields_.size(); ++i) {
    FLOTILLA_RETURN_NOT_OK(
        fields_[i]->AppendArraySlice(array.field(static_cast<int>(i)), offset, length));
  }
  return Status::OK();
}

Status StructBuilder::FinishInto(ArrayData* out) {
  for (auto& f : fields_) {
    if (f->length() != out->length) {
      return Status::Invalid(
          fmt::format("struct field has {} values for {} rows", f->length(), out->length));
    }
    FLOTILLA_ASSIGN_OR_RETURN(Array child, f->Finish());
    out->children.push_back(child.data());
  }
  return Status::OK();
}

// --- dictionary --------------------------------------------------------------------------------

DictionaryBuilder::DictionaryBuilder(TypePtr type, MemoryPool* pool)
    : ArrayBuilder(std::move(type), pool) {
  dict_builder_ = MakeBuilder(type_->value_type(), pool).ValueOrDie();
  index_builder_ = MakeBuilder(type_->index_type(), pool).ValueOrDie();
}

DictionaryBuilder::~DictionaryBuilder() = default;

Status DictionaryBuilder::AppendIndex(int64_t index) {
  FLOTILLA_RETURN_NOT_OK(AppendValid());
  switch (type_->index_type()->id()) {
    case TypeId::kInt8:
      return static_cast<Int8Builder*>(index_builder_.get())->Append(static_cast<int8_t>(index));
    case TypeId::kInt16:
      return static_cast<Int16Builder*>(index_builder_.get())->Append(static_cast<int16_t>(index));
    case TypeId::kInt32:
      return static_cast<Int32Builder*>(index_builder_.get())->Append(static_cast<int32_t>(index));
    case TypeId::kInt64:
      return static_cast<Int64Builder*>(index_builder_.get())->Append(index);
    case TypeId::kUInt8:
      return static_cast<UInt8Builder*>(index_builder_.get())->Append(static_cast<uint8_t>(index));
    case TypeId::kUInt16:
      return static_cast<UInt16Builder*>(index_builder_.get())
          ->Append(static_cast<uint16_t>(index));
    case TypeId::kUInt32:
      return static_cast<UInt32Builder*>(index_builder_.get())
          ->Append(static_cast<uint32_t>(index));
    default:
      return static_cast<UInt64Builder*>(index_builder_.get())
          ->Append(static_cast<uint64_t>(index));
  }
}

Result<int64_t> DictionaryBuilder::Memoize(const Array& values, int64_t row) {
  std::string key(values.GetView(row));
  auto it = memo_.find(key);
  if (it != memo_.end()) return it->second;
  FLOTILLA_RETURN_NOT_OK(dict_builder_->AppendArraySlice(values, row, 1));
  memo_.emplace(std::move(key), dict_size_);
  return dict_size_++;
}

Status DictionaryBuilder::Append(std::string_view value) {
  if (!type_->value_type()->is_binary_like()) {
    return Status::TypeError("DictionaryBuilder::Append(string) on " + type_->ToString());
  }
  auto it = memo_.find(std::string(value));
  int64_t index;
  if (it != memo_.end()) {
    index = it->second;
  } else {
    auto* b = dict_builder_.get();
    if (type_->value_type()->has_large_offsets()) {
      FLOTILLA_RETURN_NOT_OK(static_cast<LargeStringBuilder*>(b)->Append(value));
    } else {
      FLOTILLA_RETURN_NOT_OK(static_cast<StringBuilder*>(b)->Append(value));
    }
    index = dict_size_++;
    memo_.emplace(std::string(value), index);
  }
  return AppendIndex(index);
}

Status DictionaryBuilder::AppendArraySlice(const Array& array, int64_t offset, int64_t length) {
  const DataType& vt = *type_->value_type();
  if (!vt.is_binary_like() && (!vt.is_fixed_width() || vt.id() == TypeId::kBool)) {
    return Status::NotImplemented("dictionary of " + vt.ToString());
  }
  Array dict = array.dictionary();
  for (int64_t i = offset; i < offset + length; ++i) {
    if (array.IsNull(i)) {
      FLOTILLA_RETURN_NOT_OK(AppendNull());
      continue;
    }
    FLOTILLA_ASSIGN_OR_RETURN(int64_t index, Memoize(dict, array.DictionaryIndex(i)));
    FLOTILLA_RETURN_NOT_OK(AppendIndex(index));
  }
  return Status::OK();
}

Status DictionaryBuilder::AppendEmptyValues(int64_t n) {
  return index_builder_->AppendNulls(n);
}

Status DictionaryBuilder::FinishInto(ArrayData* out) {
  FLOTILLA_ASSIGN_OR_RETURN(Array indices, index_builder_->Finish());
  FLOTILLA_ASSIGN_OR_RETURN(Array dict, dict_builder_->Finish());
  out->buffers[1] = indices.data()->buffers[1];
  out->dictionary = dict.data();
  memo_.clear();
  dict_size_ = 0;
  return Status::OK();
}

// --- factory -----------------------------------------------------------------------------------

Result<std::unique_ptr<ArrayBuilder>> MakeBuilder(const TypePtr& type, MemoryPool* pool) {
  switch (type->id()) {
    case TypeId::kNull:
      return std::make_unique<NullBuilder>(pool);
    case TypeId::kBool:
      return std::make_unique<BooleanBuilder>(pool);
    case TypeId::kInt8:
      return std::make_unique<Int8Builder>(type, pool);
    case TypeId::kInt16:
      return std::make_unique<Int16Builder>(type, pool);
    case TypeId::kInt32:
    case TypeId::kDate32:
      return std::make_unique<Int32Builder>(type, pool);
    case TypeId::kInt64:
    case TypeId::kTimestamp:
    case TypeId::kDuration:
    case TypeId::kTime64:
      return std::make_unique<Int64Builder>(type, pool);
    case TypeId::kUInt8:
      return std::make_unique<UInt8Builder>(type, pool);
    case TypeId::kUInt16:
      return std::make_unique<UInt16Builder>(type, pool);
    case TypeId::kUInt32:
      return std::make_unique<UInt32Builder>(type, pool);
    case TypeId::kUInt64:
      return std::make_unique<UInt64Builder>(type, pool);
    case TypeId::kFloat32:
      return std::make_unique<FloatBuilder>(type, pool);
    case TypeId::kFloat64:
      return std::make_unique<DoubleBuilder>(type, pool);
    case TypeId::kDecimal128:
    case TypeId::kFixedSizeBinary:
      return std::make_unique<FixedSizeBinaryBuilder>(type, pool);
    case TypeId::kString:
    case TypeId::kBinary:
      return std::make_unique<StringBuilder>(type, pool);
    case TypeId::kLargeString:
    case TypeId::kLargeBinary:
      return std::make_unique<LargeStringBuilder>(type, pool);
    case TypeId::kList: {
      FLOTILLA_ASSIGN_OR_RETURN(auto values, MakeBuilder(type->value_type(), pool));
      return std::make_unique<ListBuilder>(type, std::move(values), pool);
    }
    case TypeId::kFixedSizeList: {
      FLOTILLA_ASSIGN_OR_RETURN(auto values, MakeBuilder(type->value_type(), pool));
      return std::make_unique<FixedSizeListBuilder>(type, std::move(values), pool);
    }
    case TypeId::kStruct: {
      std::vector<std::unique_ptr<ArrayBuilder>> fields;
      for (const auto& f : type->fields()) {
        FLOTILLA_ASSIGN_OR_RETURN(auto b, MakeBuilder(f.type, pool));
        fields.push_back(std::move(b));
      }
      return std::make_unique<StructBuilder>(type, std::move(fields), pool);
    }
    case TypeId::kDictionary: {
      if (!type->index_type()->is_integer()) {
        return Status::TypeError("dictionary indices must be integers, got " +
                                 type->index_type()->ToString());
      }
      return std::make_unique<DictionaryBuilder>(type, pool);
    }
  }
  return Status::NotImplemented("no builder for " + type->ToString());
}

Result<Array> MakeDictionaryArray(const Array& indices, const Array& dictionary) {
  if (!indices.type()->is_integer()) {
    return Status::TypeError("dictionary indices must be integers, got " +
                             indices.type()->ToString());
  }
  auto d = std::make_shared<ArrayData>();
  d->type = flotilla::dictionary(indices.type(), dictionary.type());
  d->length = indices.length();
  d->offset = indices.offset();
  d->null_count = indices.null_count();
  d->buffers = indices.data()->buffers;
  d->dictionary = dictionary.data();
  return Array::Make(std::move(d));
}

}  // namespace flotilla
