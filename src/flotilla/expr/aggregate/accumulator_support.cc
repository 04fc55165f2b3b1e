#include "flotilla/expr/aggregate/accumulator_support.h"

#include <cstring>

#include "flotilla/columnar/buffer.h"
#include "flotilla/columnar/builder.h"

namespace flotilla::expr::aggregate_internal {

namespace {
Result<BufferPtr> MakeValidity(const std::vector<uint8_t>* valid, int64_t n, int64_t* null_count) {
  *null_count = 0;
  if (valid == nullptr) return BufferPtr();
  FLOTILLA_ASSIGN_OR_RETURN(BufferPtr bits, Buffer::AllocateZeroed(bit_util::BytesForBits(n)));
  for (int64_t i = 0; i < n; ++i) {
    if ((*valid)[i]) {
      bit_util::SetBit(bits->mutable_data(), i);
    } else {
      ++*null_count;
    }
  }
  if (*null_count == 0) return BufferPtr();
  return bits;
}
}  // namespace

template <typename T>
Result<Array> MakeFixedWidthArray(const TypePtr& type, const std::vector<T>& values,
                                  const std::vector<uint8_t>* valid) {
  const auto n = static_cast<int64_t>(values.size());
  auto data = std::make_shared<ArrayData>();
  data->type = type;
  data->length = n;
  data->buffers.resize(2);
  FLOTILLA_ASSIGN_OR_RETURN(data->buffers[0], MakeValidity(valid, n, &data->null_count));
  FLOTILLA_ASSIGN_OR_RETURN(data->buffers[1],
                            Buffer::AllocateZeroed(n * static_cast<int64_t>(sizeof(T))));
  if (n > 0) std::memcpy(data->buffers[1]->mutable_data(), values.data(), n * sizeof(T));
  if (valid != nullptr) {
    // Null slots hold zeros so that equal arrays are byte-identical.
    for (int64_t i = 0; i < n; ++i) {
      if (!(*valid)[i]) std::memset(data->buffers[1]->mutable_data() + i * sizeof(T), 0, sizeof(T));
    }
  }
  return Array(std::move(data));
}

template Result<Array> MakeFixedWidthArray(const TypePtr&, const std::vector<int8_t>&,
                                           const std::vector<uint8_t>*);
template Result<Array> MakeFixedWidthArray(const TypePtr&, const std::vector<int16_t>&,
                                           const std::vector<uint8_t>*);
template Result<Array> MakeFixedWidthArray(const TypePtr&, const std::vector<int32_t>&,
                                           const std::vector<uint8_t>*);
template Result<Array> MakeFixedWidthArray(const TypePtr&, const std::vector<int64_t>&,
                                           const std::vector<uint8_t>*);
template Result<Array> MakeFixedWidthArray(const TypePtr&, const std::vector<uint8_t>&,
                                           const std::vector<uint8_t>*);
template Result<Array> MakeFixedWidthArray(const TypePtr&, const std::vector<uint16_t>&,
                                           const std::vector<uint8_t>*);
template Result<Array> MakeFixedWidthArray(const TypePtr&, const std::vector<uint32_t>&,
                                           const std::vector<uint8_t>*);
template Result<Array> MakeFixedWidthArray(const TypePtr&, const std::vector<uint64_t>&,
                                           const std::vector<uint8_t>*);
template Result<Array> MakeFixedWidthArray(const TypePtr&, const std::vector<float>&,
                                           const std::vector<uint8_t>*);
template Result<Array> MakeFixedWidthArray(const TypePtr&, const std::vector<double>&,
                                           const std::vector<uint8_t>*);
template Result<Array> MakeFixedWidthArray(const TypePtr&, const std::vector<Int128>&,
                                           const std::vector<uint8_t>*);

Result<Array> MakeBooleanArray(const std::vector<uint8_t>& values,
                               const std::vector<uint8_t>* valid) {
  const auto n = static_cast<int64_t>(values.size());
  auto data = std::make_shared<ArrayData>();
  data->type = boolean();
  data->length = n;
  data->buffers.resize(2);
  FLOTILLA_ASSIGN_OR_RETURN(data->buffers[0], MakeValidity(valid, n, &data->null_count));
  FLOTILLA_ASSIGN_OR_RETURN(data->buffers[1], Buffer::AllocateZeroed(bit_util::BytesForBits(n)));
  for (int64_t i = 0; i < n; ++i) {
    if (values[i] && (valid == nullptr || (*valid)[i])) {
      bit_util::SetBit(data->buffers[1]->mutable_data(), i);
    }
  }
  return Array(std::move(data));
}

namespace {
template <typename Builder>
Result<Array> AppendAll(Builder* builder, const std::vector<std::string>& values,
                        const std::vector<uint8_t>* valid) {
  for (size_t i = 0; i < values.size(); ++i) {
    if (valid == nullptr || (*valid)[i]) {
      FLOTILLA_RETURN_NOT_OK(builder->Append(values[i]));
    } else {
      FLOTILLA_RETURN_NOT_OK(builder->AppendNull());
    }
  }
  return builder->Finish();
}
}  // namespace

Result<Array> MakeBinaryArray(const TypePtr& type, const std::vector<std::string>& values,
                              const std::vector<uint8_t>* valid) {
  if (type->id() == TypeId::kFixedSizeBinary) {
    FixedSizeBinaryBuilder builder(type);
    return AppendAll(&builder, values, valid);
  }
  if (type->has_large_offsets()) {
    LargeStringBuilder builder(type);
    return AppendAll(&builder, values, valid);
  }
  StringBuilder builder(type);
  return AppendAll(&builder, values, valid);
}

Status ArgumentTypeError(const std::string& function, const std::string& what, const TypePtr& type,
                         int index) {
  return Status::TypeError(function + "() expects " + what + ", got " + type->ToString() +
                           " for argument " + std::to_string(index + 1));
}

Status CheckPartialState(const std::string& function, const std::vector<Array>& state,
                         size_t expected, int64_t n) {
  if (state.size() != expected) {
    return Status::Invalid(function + "(): partial state has " + std::to_string(state.size()) +
                           " arrays, expected " + std::to_string(expected));
  }
  for (const Array& a : state) {
    if (!a.valid() || a.length() < n) {
      return Status::Invalid(function + "(): partial state has fewer than " + std::to_string(n) +
                             " rows");
    }
  }
  return Status::OK();
}

}  // namespace flotilla::expr::aggregate_internal
