#include "flotilla/columnar/array.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "flotilla/columnar/decimal.h"

namespace flotilla {

int NumBuffers(const DataType& type) {
  switch (type.id()) {
    case TypeId::kNull:
    case TypeId::kFixedSizeList:
    case TypeId::kStruct:
      return 1;
    case TypeId::kString:
    case TypeId::kLargeString:
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
      return 3;
    default:
      return 2;  // fixed width, list (offsets), dictionary (indices)
  }
}

namespace {

Status CheckBuffer(const ArrayData& d, int slot, int64_t needed_bytes, const char* what) {
  const BufferPtr& b = d.buffers[slot];
  if (needed_bytes == 0) return Status::OK();
  if (!b)
    return Status::Invalid(
        fmt::format("{} array is missing its {} buffer", d.type->ToString(), what));
  if (b->size() < needed_bytes) {
    return Status::Invalid(
        fmt::format("{} array of length {} at offset {} needs {} bytes of {}, "
                    "buffer has {}",
                    d.type->ToString(), d.length, d.offset, needed_bytes, what, b->size()));
  }
  return Status::OK();
}

template <typename Offset>
Status CheckOffsets(const ArrayData& d, int64_t target_length, const char* target) {
  FLOTILLA_RETURN_NOT_OK(CheckBuffer(
      d, 1, (d.offset + d.length + 1) * static_cast<int64_t>(sizeof(Offset)), "offsets"));
  if (d.length == 0 && (!d.buffers[1] || d.buffers[1]->size() == 0)) return Status::OK();
  const Offset* o = d.buffers[1]->data_as<Offset>() + d.offset;
  for (int64_t i = 0; i < d.length; ++i) {
    if (o[i] < 0 || o[i + 1] < o[i]) {
      return Status::Invalid(fmt::format("{} array has decreasing or negative offsets at row {}",
                                         d.type->ToString(), i));
    }
  }
  if (o[d.length] > target_length) {
    return Status::Invalid(fmt::format("{} array offsets reach {} but its {} has only {}",
                                       d.type->ToString(), static_cast<int64_t>(o[d.length]),
                                       target, target_length));
  }
  return Status::OK();
}

template <typename Index>
Status CheckIndices(const ArrayData& d, int64_t dict_length) {
  const Index* idx = d.buffers[1]->data_as<Index>() + d.offset;
  const uint8_t* valid = d.buffers[0] ? d.buffers[0]->data() : nullptr;
  for (int64_t i = 0; i < d.length; ++i) {
    if (valid && !bit_util::GetBit(valid, d.offset + i)) continue;
    // Via int64 so that uint64 indices >= 2^63 count as negative rather than passing.
    if (static_cast<int64_t>(idx[i]) < 0 || static_cast<int64_t>(idx[i]) >= dict_length) {
      return Status::Invalid(
          fmt::format("dictionary index {} at row {} is out of range for a "
                      "dictionary of {} values",
                      static_cast<int64_t>(idx[i]), i, dict_length));
    }
  }
  return Status::OK();
}

Status Validate(ArrayData& d) {
  if (!d.type) return Status::Invalid("array without a type");
  if (d.length < 0 || d.offset < 0) return Status::Invalid("array with negative length or offset");
  const DataType& t = *d.type;
  int nbuf = NumBuffers(t);
  if (static_cast<int>(d.buffers.size()) < nbuf) d.buffers.resize(nbuf);
  const int64_t end = d.offset + d.length;
  if (t.id() != TypeId::kNull) {
    if (d.buffers[0])
      FLOTILLA_RETURN_NOT_OK(CheckBuffer(d, 0, bit_util::BytesForBits(end), "validity"));
  } else {
    d.buffers[0] = nullptr;
  }
  if (t.id() == TypeId::kNull) {
    d.null_count = d.length;
  } else if (!d.buffers[0]) {
    d.null_count = 0;
  } else if (d.null_count < 0) {
    d.null_count = d.length - bit_util::CountSetBits(d.buffers[0]->data(), d.offset, d.length);
  }

  switch (t.id()) {
    case TypeId::kNull:
      return Status::OK();
    case TypeId::kBool:
      return CheckBuffer(d, 1, bit_util::BytesForBits(end), "values");
    case TypeId::kString:
    case TypeId::kBinary: {
      int64_t data_size = d.buffers[2] ? d.buffers[2]->size() : 0;
      return CheckOffsets<int32_t>(d, data_size, "data buffer");
    }
    case TypeId::kLargeString:
    case TypeId::kLargeBinary: {
      int64_t data_size = d.buffers[2] ? d.buffers[2]->size() : 0;
      return CheckOffsets<int64_t>(d, data_size, "data buffer");
    }
    case TypeId::kList: {
      if (d.children.size() != 1 || !d.children[0])
        return Status::Invalid("list array needs one child");
      FLOTILLA_RETURN_NOT_OK(Validate(*d.children[0]));
      return CheckOffsets<int32_t>(d, d.children[0]->length, "child array");
    }
    case TypeId::kFixedSizeList: {
      if (d.children.size() != 1 || !d.children[0]) {
        return Status::Invalid("fixed_size_list array needs one child");
      }
      if (t.fixed_size() < 0) return Status::Invalid("fixed_size_list with negative size");
      FLOTILLA_RETURN_NOT_OK(Validate(*d.children[0]));
      if (d.children[0]->length < end * t.fixed_size()) {
        return Status::Invalid(fmt::format(
            "{} array of {} rows at offset {} needs {} child values, "
            "child has {}",
            t.ToString(), d.length, d.offset, end * t.fixed_size(), d.children[0]->length));
      }
      return Status::OK();
    }
    case TypeId::kStruct: {
      if (d.children.size() != t.fields().size()) {
        return Status::Invalid(fmt::format("{} array has {} children, expected {}", t.ToString(),
                                           d.children.size(), t.fields().size()));
      }
      for (auto& c : d.children) {
        if (!c) return Status::Invalid("struct array with a missing child");
        FLOTILLA_RETURN_NOT_OK(Validate(*c));
        if (c->length < end) {
          return Status::Invalid(
              fmt::format("struct child of length {} is shorter than the "
                          "struct's {} rows at offset {}",
                          c->length, d.length, d.offset));
        }
      }
      return Status::OK();
    }
    case TypeId::kDictionary: {
      if (!t.index_type()->is_integer()) {
        return Status::TypeError("dictionary indices must be integers, got " +
                                 t.index_type()->ToString());
      }
      if (!d.dictionary) return Status::Invalid("dictionary array without its dictionary");
      if (!d.dictionary->type->Equals(*t.value_type())) {
        return Status::TypeError("dictionary of type " + d.dictionary->type->ToString() +
                                 " does not match " + t.ToString());
      }
      FLOTILLA_RETURN_NOT_OK(Validate(*d.dictionary));
      FLOTILLA_RETURN_NOT_OK(CheckBuffer(d, 1, end * (t.index_type()->bit_width() / 8), "indices"));
      if (d.length == 0) return Status::OK();
      switch (t.index_type()->id()) {
        case TypeId::kInt8:
          return CheckIndices<int8_t>(d, d.dictionary->length);
        case TypeId::kInt16:
          return CheckIndices<int16_t>(d, d.dictionary->length);
        case TypeId::kInt32:
          return CheckIndices<int32_t>(d, d.dictionary->length);
        case TypeId::kInt64:
          return CheckIndices<int64_t>(d, d.dictionary->length);
        case TypeId::kUInt8:
          return CheckIndices<uint8_t>(d, d.dictionary->length);
        case TypeId::kUInt16:
          return CheckIndices<uint16_t>(d, d.dictionary->length);
        case TypeId::kUInt32:
          return CheckIndices<uint32_t>(d, d.dictionary->length);
        default:
          return CheckIndices<uint64_t>(d, d.dictionary->length);
      }
    }
    default: {
      if (t.id() == TypeId::kFixedSizeBinary && t.fixed_size() < 0) {
        return Status::Invalid("fixed_size_binary with negative width");
      }
      return CheckBuffer(d, 1, end * (t.bit_width() / 8), "values");
    }
  }
}

}  // namespace

Result<Array> Array::Make(std::shared_ptr<ArrayData> data) {
  if (!data) return Status::Invalid("null ArrayData");
  FLOTILLA_RETURN_NOT_OK(Validate(*data));
  return Array(std::move(data));
}

Result<Array> Array::MakeNull(const TypePtr& type, int64_t length) {
  auto d = std::make_shared<ArrayData>();
  d->type = type;
  d->length = length;
  d->null_count = length;
  int nbuf = NumBuffers(*type);
  d->buffers.resize(nbuf);
  if (type->id() != TypeId::kNull) {
    FLOTILLA_ASSIGN_OR_RETURN(d->buffers[0],
                              Buffer::AllocateZeroed(bit_util::BytesForBits(length)));
  }
  int64_t values_bytes = -1;  // size of buffers[1], -1 when the type has none
  switch (type->id()) {
    case TypeId::kNull:
    case TypeId::kStruct:
    case TypeId::kFixedSizeList:
      break;
    case TypeId::kString:
    case TypeId::kBinary:
    case TypeId::kList:
      values_bytes = (length + 1) * 4;
      break;
    case TypeId::kLargeString:
    case TypeId::kLargeBinary:
      values_bytes = (length + 1) * 8;
      break;
    case TypeId::kDictionary:
      values_bytes = length * type->index_type()->byte_width();
      break;
    case TypeId::kBool:
      values_bytes = bit_util::BytesForBits(length);
      break;
    default:
      values_bytes = length * type->byte_width();
  }
  if (values_bytes >= 0) {
    FLOTILLA_ASSIGN_OR_RETURN(d->buffers[1], Buffer::AllocateZeroed(values_bytes));
  }
  if (type->is_binary_like()) {
    FLOTILLA_ASSIGN_OR_RETURN(d->buffers[2], Buffer::AllocateZeroed(0));
  }
  if (type->id() == TypeId::kList) {
    FLOTILLA_ASSIGN_OR_RETURN(Array child, MakeNull(type->value_type(), 0));
    d->children.push_back(child.data());
  } else if (type->id() == TypeId::kFixedSizeList) {
    FLOTILLA_ASSIGN_OR_RETURN(Array child,
                              MakeNull(type->value_type(), length * type->fixed_size()));
    d->children.push_back(child.data());
  } else if (type->id() == TypeId::kStruct) {
    for (const auto& f : type->fields()) {
      FLOTILLA_ASSIGN_OR_RETURN(Array child, MakeNull(f.type, length));
      d->children.push_back(child.data());
    }
  } else if (type->id() == TypeId::kDictionary) {
    FLOTILLA_ASSIGN_OR_RETURN(Array dict, MakeNull(type->value_type(), 0));
    d->dictionary = dict.data();
  }
  return Array(std::move(d));
}

int64_t Array::ValueOffset(int64_t i) const {
  if (type()->has_large_offsets()) return data_->buffers[1]->data_as<int64_t>()[data_->offset + i];
  return data_->buffers[1]->data_as<int32_t>()[data_->offset + i];
}

std::string_view Array::GetView(int64_t i) const {
  const DataType& t = *type();
  if (t.is_binary_like()) {
    int64_t start = ValueOffset(i);
    int64_t end = ValueOffset(i + 1);
    const BufferPtr& d = data_->buffers[2];
    if (!d) return {};
    return {reinterpret_cast<const char*>(d->data()) + start, static_cast<size_t>(end - start)};
  }
  int w = t.byte_width();
  return {reinterpret_cast<const char*>(raw_values()) + (data_->offset + i) * w,
          static_cast<size_t>(w)};
}

int64_t Array::DictionaryIndex(int64_t i) const {
  const DataType& it = *type()->index_type();
  const int64_t row = data_->offset + i;
  switch (it.id()) {
    case TypeId::kInt8:
      return data_->buffers[1]->data_as<int8_t>()[row];
    case TypeId::kUInt8:
      return data_->buffers[1]->data_as<uint8_t>()[row];
    case TypeId::kInt16:
      return data_->buffers[1]->data_as<int16_t>()[row];
    case TypeId::kUInt16:
      return data_->buffers[1]->data_as<uint16_t>()[row];
    case TypeId::kInt32:
      return data_->buffers[1]->data_as<int32_t>()[row];
    case TypeId::kUInt32:
      return data_->buffers[1]->data_as<uint32_t>()[row];
    default:
      return data_->buffers[1]->data_as<int64_t>()[row];
  }
}

Array Array::field(int i) const {
  return Array(data_->children[i]).Slice(data_->offset, data_->length);
}

Array Array::ListValues(int64_t i) const {
  Array values(data_->children[0]);
  if (type_id() == TypeId::kFixedSizeList) {
    int64_t n = type()->fixed_size();
    return values.Slice((data_->offset + i) * n, n);
  }
  int64_t start = ValueOffset(i);
  return values.Slice(start, ValueOffset(i + 1) - start);
}

Array Array::Slice(int64_t offset, int64_t length) const {
  offset = std::clamp<int64_t>(offset, 0, data_->length);
  length = std::clamp<int64_t>(length, 0, data_->length - offset);
  auto d = std::make_shared<ArrayData>(*data_);
  d->offset = data_->offset + offset;
  d->length = length;
  if (type_id() == TypeId::kNull) {
    d->null_count = length;
  } else if (data_->null_count == 0 || !d->buffers[0]) {
    d->null_count = 0;
  } else if (length == data_->length) {
    d->null_count = data_->null_count;
  } else {
    d->null_count = length - bit_util::CountSetBits(d->buffers[0]->data(), d->offset, length);
  }
  return Array(std::move(d));
}

namespace {

template <typename T>
bool FixedEqual(const Array& a, const Array& b, int64_t i) {
  return std::memcmp(a.values<T>() + i, b.values<T>() + i, sizeof(T)) == 0;
}

bool ValueEqual(const Array& a, const Array& b, int64_t i) {
  switch (a.type_id()) {
    case TypeId::kNull:
      return true;
    case TypeId::kBool:
      return a.BoolValue(i) == b.BoolValue(i);
    case TypeId::kInt8:
    case TypeId::kUInt8:
      return FixedEqual<uint8_t>(a, b, i);
    case TypeId::kInt16:
    case TypeId::kUInt16:
      return FixedEqual<uint16_t>(a, b, i);
    case TypeId::kInt32:
    case TypeId::kUInt32:
    case TypeId::kFloat32:
    case TypeId::kDate32:
      return FixedEqual<uint32_t>(a, b, i);
    case TypeId::kInt64:
    case TypeId::kUInt64:
    case TypeId::kFloat64:
    case TypeId::kTimestamp:
    case TypeId::kDuration:
    case TypeId::kTime64:
      return FixedEqual<uint64_t>(a, b, i);
    case TypeId::kList:
    case TypeId::kFixedSizeList:
      return a.ListValues(i).Equals(b.ListValues(i));
    case TypeId::kStruct:
      for (int f = 0; f < a.num_children(); ++f) {
        if (!a.field(f).Slice(i, 1).Equals(b.field(f).Slice(i, 1))) return false;
      }
      return true;
    case TypeId::kDictionary:
      // Compare the values the indices point to, so differently ordered dictionaries are equal.
      return a.dictionary()
          .Slice(a.DictionaryIndex(i), 1)
          .Equals(b.dictionary().Slice(b.DictionaryIndex(i), 1));
    default:
      return a.GetView(i) == b.GetView(i);
  }
}

}  // namespace

bool Array::Equals(const Array& other) const {
  if (!valid() || !other.valid()) return valid() == other.valid();
  if (!type()->Equals(*other.type()) || length() != other.length() ||
      null_count() != other.null_count()) {
    return false;
  }
  for (int64_t i = 0; i < length(); ++i) {
    bool va = IsValid(i);
    if (va != other.IsValid(i)) return false;
    if (va && !ValueEqual(*this, other, i)) return false;
  }
  return true;
}

std::string Array::ValueToString(int64_t i) const {
  if (IsNull(i)) return "null";
  const DataType& t = *type();
  switch (t.id()) {
    case TypeId::kNull:
      return "null";
    case TypeId::kBool:
      return BoolValue(i) ? "true" : "false";
    case TypeId::kInt8:
      return std::to_string(values<int8_t>()[i]);
    case TypeId::kInt16:
      return std::to_string(values<int16_t>()[i]);
    case TypeId::kInt32:
      return std::to_string(values<int32_t>()[i]);
    case TypeId::kInt64:
      return std::to_string(values<int64_t>()[i]);
    case TypeId::kUInt8:
      return std::to_string(values<uint8_t>()[i]);
    case TypeId::kUInt16:
      return std::to_string(values<uint16_t>()[i]);
    case TypeId::kUInt32:
      return std::to_string(values<uint32_t>()[i]);
    case TypeId::kUInt64:
      return std::to_string(values<uint64_t>()[i]);
    case TypeId::kFloat32:
      return fmt::format("{}", values<float>()[i]);
    case TypeId::kFloat64:
      return fmt::format("{}", values<double>()[i]);
    case TypeId::kDecimal128:
      return DecimalToString(values<Int128>()[i], t.scale());
    case TypeId::kDate32:
      return FormatDate32(values<int32_t>()[i]);
    case TypeId::kTimestamp:
      return FormatTimestamp(values<int64_t>()[i], t.unit(), t.timezone());
    case TypeId::kDuration:
      return FormatDuration(values<int64_t>()[i], t.unit());
    case TypeId::kTime64:
      return FormatTime64(values<int64_t>()[i], t.unit());
    case TypeId::kString:
    case TypeId::kLargeString:
      return std::string(GetView(i));
    case TypeId::kBinary:
    case TypeId::kLargeBinary:
    case TypeId::kFixedSizeBinary: {
      std::string out;
      for (unsigned char c : GetView(i))
        out += fmt::format("{:02x}", c);
      return out;
    }
    case TypeId::kList:
    case TypeId::kFixedSizeList:
      return ListValues(i).ToString();
    case TypeId::kStruct: {
      std::string out = "{";
      for (int f = 0; f < num_children(); ++f) {
        if (f) out += ", ";
        out += t.fields()[f].name + ": " + field(f).ValueToString(i);
      }
      return out + "}";
    }
    case TypeId::kDictionary:
      return dictionary().ValueToString(DictionaryIndex(i));
  }
  return "?";
}

std::string Array::ToString() const {
  std::string out = "[";
  for (int64_t i = 0; i < length(); ++i) {
    if (i) out += ", ";
    out += ValueToString(i);
  }
  return out + "]";
}

}  // namespace flotilla
